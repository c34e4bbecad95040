"""Table III: the private companies' special abilities."""
import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalTile

from .test_rule_examples import operating_game, put


def own(g, comp, owner):
    c = g.state.companies[comp]
    c.closed = False
    c.owner = owner


def test_mrc_blocks_f12_while_a_player_owns_it_and_lays_free_for_its_company():
    g = operating_game("GA")
    own(g, "MRC", "P:Bob")
    put(g, "D10", "57", 2)
    assert g._blocking_private("F12") == "MRC"
    own(g, "MRC", "C:GA")
    assert g._blocking_private("F12") is None
    assert "lay_tile" in g.or_actions("MRC")
    cash = g.state.cash["C:GA"]
    with pytest.raises(IllegalTile):
        g.process(A.LayTile("MRC", "F12", "57", 0))  # only plain track 7/8/9
    g.process(A.LayTile("MRC", "F12", "9", 2))  # not connected, swamp cost not paid
    assert g.state.cash["C:GA"] == cash
    assert g.state.companies["MRC"].uses["tile_lay"] == 1
    assert "lay_tile" in g.or_actions("GA")  # the company's own lay is still there
    assert "lay_tile" not in g.or_actions("MRC")


def test_wsr_free_token_in_waycross_without_connection():
    g = operating_game("GA")
    own(g, "W&SR", "C:GA")
    g.process(A.Pass("GA"))  # track
    assert "place_token" in g.or_actions("GA")
    cash = g.state.cash["C:GA"]
    g.process(A.PlaceToken("GA", "I9"))
    assert g.state.cash["C:GA"] == cash
    assert ("I9", 0) in g.state.map.token_cities("GA")
    assert g.state.companies["W&SR"].uses["token"] == 1


def test_waycross_is_not_blocked_by_wsr():
    g = operating_game("GA")
    own(g, "W&SR", "P:Bob")
    assert g._blocking_private("I9") is None


def test_osr_gives_the_free_2_train_and_blocks_g7():
    g = operating_game("GA")
    own(g, "OSR", "P:Bob")
    assert g._blocking_private("G7") == "OSR"
    g.state.phase = 1  # companies may be bought from phase 3
    g.process(A.BuyCompany("GA", "OSR", 50))
    assert g.state.corporations["GA"].trains == ["2-5"]
    assert "2-5" not in g._other_trains("CoG")  # it can never be sold on


def test_osr_no_free_train_after_the_4():
    g = operating_game("GA")
    own(g, "OSR", "P:Bob")
    g.state.phase = 2
    g.process(A.BuyCompany("GA", "OSR", 100))
    assert g.state.corporations["GA"].trains == []


def test_mbr_buyer_receives_a_cog_share():
    from .test_illegal import finish_auction, new_game
    g = finish_auction(new_game())
    assert g.state.share_owner["CoG_1"] == "P:Ann"


def test_privates_close_on_the_first_5_train():
    g = operating_game("GA", cash=3000)
    s = g.state
    own(g, "LTR", "P:Bob")
    for tid, t in s.trains.items():
        if t.name in ("2", "3", "4"):
            t.owner = "removed"
    s.phase = 2
    s.round.steps_done |= {"track", "token", "route", "dividend"}
    g.process(A.BuyTrain("GA", "5-0"))
    assert s.companies["LTR"].closed and g.phase.name == "5"

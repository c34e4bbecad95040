"""Rule-by-rule checks (section numbers of the 18GA rulebook v3.26)."""
import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game

from .test_illegal import finish_auction, new_game
from .test_rule_examples import operating_game


def test_2_starting_cash_and_bank():
    g = Game("18GA", ["a", "b", "c", "d", "e"])
    assert all(g.state.cash[p.key] == 360 for p in g.state.players)
    assert g.total_cash() == 8000 and g.cert_limit() == 10


def test_3_1_2_first_company_discount():
    g = new_game()
    for p in ("Ann", "Bob", "Cy", "Dee"):
        g.process(A.Pass(p))
    assert g.state.companies["LTR"].min_bid == 15
    g.process(A.Bid("Ann", "LTR", 15))
    assert g.state.companies["LTR"].owner == "P:Ann"


def test_3_1_auction_single_bid_and_cash_committed():
    g = new_game()
    g.process(A.Bid("Ann", "MRC", 45))
    g.process(A.Bid("Bob", "LTR", 20))  # buying the cheapest resolves MRC: only one bid -> Ann
    assert g.state.companies["MRC"].owner == "P:Ann" and g.state.cash["P:Ann"] == 405


def test_3_4_float_and_3_5_presidency():
    g = finish_auction(new_game())
    g.process(A.Par("Bob", "GA", 70))
    for who in ("Cy", "Dee", "Ann"):
        g.process(A.BuyShares(who, corporation="GA"))
    g.process(A.BuyShares("Bob", corporation="GA"))
    assert g.state.corporations["GA"].floated and g.state.cash["C:GA"] == 700
    # Cy buys until he holds more than Bob (30%); a tie keeps the president
    while g.percent_of("P:Cy", "GA") <= 30:
        who = g.current_entity()
        if who == "Cy":
            g.process(A.BuyShares("Cy", corporation="GA"))
            if g.percent_of("P:Cy", "GA") == 30:
                assert g.president("GA") == "Bob"
        else:
            g.process(A.Pass(who))
    assert g.president("GA") == "Cy"
    assert g.state.share_owner["GA_0"] == "P:Cy"
    assert g.percent_of("P:Cy", "GA") == 40 and g.percent_of("P:Bob", "GA") == 30


def test_3_3_holding_limit_60():
    g = finish_auction(new_game())
    g.process(A.Par("Bob", "GA", 55))
    for _ in range(4):
        for who in ("Cy", "Dee", "Ann"):
            if g.current_entity() == who:
                g.process(A.Pass(who))
        if g.current_entity() == "Bob":
            if g._can_buy("Bob", g._buyable_share("GA", "ipo")) is None:
                g.process(A.BuyShares("Bob", corporation="GA"))
            else:
                break
    assert g.percent_of("P:Bob", "GA") <= 60


def test_3_6_sold_out_moves_up():
    g = finish_auction(new_game())
    g.process(A.Par("Bob", "GA", 70))
    while g.state.round.kind == "stock":
        who = g.current_entity()
        sid = g._buyable_share("GA", "ipo")
        if sid and g._can_buy(who, sid) is None:
            g.process(A.BuyShares(who, (sid,)))
        else:
            g.process(A.Pass(who))
    assert g.percent_of("ipo:GA", "GA") == 0
    assert g.share_price("GA") == 80  # one row up from 70


def test_4_operating_order_by_price():
    g = operating_game("GA")
    s = g.state
    for sym, pos in (("CoG", (1, 4)), ("W&A", (2, 3))):
        c = s.corporations[sym]
        c.ipoed = c.floated = True
        c.par = pos
        g._set_price(c, pos)
    assert g.operating_order() == ["CoG", "GA", "W&A"]  # 90 first; 70s: GA arrived first


def test_4_1_private_revenue_paid_each_or():
    g = finish_auction(new_game())
    ann = g.state.cash["P:Ann"]
    g.payout_companies()
    assert g.state.cash["P:Ann"] == ann + 5 + 25


def test_4_2_2_home_reserved_and_one_station_per_hex():
    g = operating_game("CoG")
    m = g.state.map
    assert m.reservations.get(("D10", 0)) == "GA"
    assert m.free_slots(("D10", 0), "CoG") == []
    assert m.free_slots(("D10", 0), "GA") == [0]


def test_4_2_4_withhold_moves_left():
    g = operating_game("GA")
    s = g.state
    s.round.revenue = 50
    g._pay_dividend("GA", "withhold")
    assert g.share_price("GA") == 60 and s.cash["C:GA"] == 1050


def test_4_2_6_private_price_range():
    g = operating_game("GA")
    assert g.company_price_range("M&BR") == (75, 225)
    assert g.company_price_range("LTR") == (10, 30)


def test_5_game_ends_when_bank_breaks_at_end_of_or():
    g = operating_game("GA")
    s = g.state
    s.cash["P:Ann"] += s.cash["bank"] - 10
    s.cash["bank"] = 10
    s.round.revenue = 100
    g._pay_dividend("GA", "payout")
    assert s.bank_broken
    g.check_game_end()
    assert not g.finished
    g.check_game_end(at_or_end=True)
    assert g.finished and s.end_reason == "bank"


def test_5_1_scores_cash_stock_privates():
    g = finish_auction(new_game())
    ann = g.state.cash["P:Ann"]
    # Ann owns LTR (20) and M&BR (150) and the CoG share (worthless: CoG not started)
    assert g.player_value("Ann") == ann + 20 + 150


def _three_bids(rules=()):
    g = Game("18GA", ["Ann", "Bob", "Cy", "Dee"], optional_rules=rules)
    g.process(A.Bid("Ann", "MRC", 45))
    g.process(A.Bid("Bob", "MRC", 50))
    g.process(A.Bid("Cy", "MRC", 55))
    g.process(A.Bid("Dee", "LTR", 20))  # buys the cheapest: MRC goes to auction
    return g


def test_3_1_1_rulebook_auction_order_and_rebids():
    g = _three_bids()
    # turns go clockwise from the player after the high bidder (Cy): Ann, Bob, Cy, ...
    assert g.current_entity() == "Ann"
    g.process(A.Pass("Ann"))
    g.process(A.Bid("Bob", "MRC", 60))
    g.process(A.Pass("Cy"))
    g.process(A.Bid("Ann", "MRC", 65))  # a player who passed may bid again
    g.process(A.Pass("Bob"))
    g.process(A.Pass("Cy"))  # all but the high bidder passed in a row
    assert g.state.companies["MRC"].owner == "P:Ann" and g.state.cash["P:Ann"] == 450 - 65
    assert g.current_entity() == "Ann"  # the stock turn after Dee's purchase


def test_3_1_1_site_auction_lowest_bidder_speaks_and_pass_leaves():
    g = _three_bids(("site_auction",))
    assert g.current_entity() == "Ann"  # lowest bid
    g.process(A.Pass("Ann"))
    assert g.current_entity() == "Bob"
    g.process(A.Bid("Bob", "MRC", 60))
    assert g.current_entity() == "Cy"
    g.process(A.Pass("Cy"))
    assert g.state.companies["MRC"].owner == "P:Bob"


def test_7d_macon_tile_in_brunswick():
    from .test_rule_examples import put
    g = operating_game("ACL", rules=("macon_tile_in_brunswick",))
    assert g.state.tile_supply["457a"] == []
    put(g, "I11", "6", 0)
    put(g, "I11", "15", 0)
    g.state.phase = 3  # brown tiles
    ok = []
    for rot in range(6):
        try:
            g.check_lay("ACL", "I11", "458a", rot, special=True)  # the Macon tile fits Brunswick
            ok.append(rot)
        except GameError:
            pass
    assert ok
    with pytest.raises(GameError):
        g.check_lay("ACL", "I11", "459a", 3, special=True)
    g2 = operating_game("ACL")
    put(g2, "I11", "6", 0)
    put(g2, "I11", "15", 0)
    g2.state.phase = 3
    with pytest.raises(GameError) as e:
        g2.check_lay("ACL", "I11", "458a", ok[0], special=True)
    assert "457a" in str(e.value)


def test_4_2_2_c_atlanta_keeps_a_circle_for_wa():
    from .test_rule_examples import put
    g = operating_game("CoG")
    put(g, "D4", "451a", 0)
    m = g.state.map
    m.tokens[("D4", 0)] = ["GA"]
    m.tokens[("D4", 1)] = ["SAL"]
    assert m.free_slots(("D4", 2), "CoG") == []  # the last circle is W&A's
    assert m.free_slots(("D4", 2), "W&A") == [0]
    # W&A, starting with track in Atlanta, chooses its city
    s = g.state
    wa = s.corporations["W&A"]
    wa.ipoed = wa.floated = True
    g._set_price(wa, (2, 3))
    g._place_home_token(wa)
    assert s.pending_tokens == ["W&A"]


def test_7e_game_ends_at_250():
    g = operating_game("GA", rules=("end_at_250",))
    c = g.state.corporations["GA"]
    g._set_price(c, (1, 13))  # $230
    assert not g.state.market_max
    g.move_right(c)  # $250
    assert g.state.market_max
    g2 = operating_game("GA")
    c2 = g2.state.corporations["GA"]
    g2._set_price(c2, (1, 14))  # $250: the normal game goes on to $300
    assert not g2.state.market_max


def test_7f_unlimited_8_trains():
    g = operating_game("GA", rules=("unlimited_8_trains",), cash=5000)
    s = g.state
    for t in s.trains.values():
        if t.name != "8":
            t.owner = "removed"
    for i in range(4):
        s.trains[f"8-{i}"].owner = "removed"
    s.phase = 5
    s.round.steps_done |= {"track", "token", "route", "dividend"}
    g.process(A.BuyTrain("GA", "8-4"))
    assert g._depot_trains() == ["8-5"]  # another 8 appears
    assert g.total_cash() == 8000

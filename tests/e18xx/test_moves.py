import typing

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.moves import (Move, MoveError, PassRestOfRound, StandingOrders, format_action, parse_line, parse_moves,
                             play_text)

import pytest


def test_all_documented_moves():
    text = """
    par W&A 90
    buy CoG ipo
    buy GA market
    sell 2 GA
    bid 45 MRC     # a comment
    lay 57 E5 2
    token Rome
    token E5
    run auto
    payout
    withhold
    buy train 3
    pass
    pass rest of round
    """
    got = parse_moves(text, "Ann")
    assert got == [
        A.Par("Ann", "W&A", 90), A.BuyShares("Ann", corporation="CoG", source="ipo"),
        A.BuyShares("Ann", corporation="GA", source="pool"), A.SellShares("Ann", corporation="GA", count=2),
        A.Bid("Ann", "MRC", 45), A.LayTile("Ann", "E5", "57", 2), A.PlaceToken("Ann", "Rome"),
        A.PlaceToken("Ann", "E5"), A.RunRoutes("Ann", auto=True), A.Dividend("Ann", "payout"),
        A.Dividend("Ann", "withhold"), A.BuyTrain("Ann", "3"), A.Pass("Ann"), PassRestOfRound("Ann"),
    ]


def test_more_forms():
    assert parse_line("bid MRC 45", "a") == A.Bid("a", "MRC", 45)
    assert parse_line("lay 9 f12 2 with mrc", "a") == A.LayTile("MRC", "F12", "9", 2)
    assert parse_line("buy train 2-1 from CoG 120", "a") == A.BuyTrain("a", "2-1", 120, seller="CoG")
    assert parse_line("buy train 2-1 from CoG for $120", "a") == A.BuyTrain("a", "2-1", 120, seller="CoG")
    assert parse_line("buy train 3-2 as 3 0 with P2", "a") == A.BuyTrain("P2", "3-2", 0, "3")
    assert parse_line("buy train 3 from bank for 180", "a") == A.BuyTrain("a", "3", 180)
    assert parse_line("buy private MRC 60", "a") == A.BuyCompany("a", "MRC", 60)
    assert parse_line("run 2-0 D4-0 E1-0; 3-1 C3-0 A3-0", "a") == A.RunRoutes(
        "a", (A.RouteSpec("2-0", ("D4-0", "E1-0")), A.RouteSpec("3-1", ("C3-0", "A3-0"))))
    assert parse_line("discard 2-1", "a") == A.DiscardTrain("a", "2-1")
    assert parse_line("   # only a comment", "a") is None


@pytest.mark.parametrize("line,needle", [
    ("lay 57 E5 9", "rotation is 0 to 5"),
    ("lay 57", "need tile, hex and rotation"),  # 'lay 57 E5' takes the one rotation it can (s14b)
    ("bid lots MRC", "amount must be a whole number"),
    ("frobnicate", "unknown move 'frobnicate'"),
    ("buy GA somewhere", "say 'ipo' or 'market'"),
    ("pass the salt", "unexpected words"),
])
def test_errors_name_line_and_expectation(line, needle):
    with pytest.raises(MoveError) as e:
        parse_moves("pass\n" + line, "a")
    msg = str(e.value)
    assert "line 2" in msg and needle in msg and ("expected" in msg or "moves are" in msg)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_moves_or_a_precise_error(text):
    try:
        moves = parse_moves(text, "Ann")
    except MoveError as e:
        assert str(e).startswith("line ")
        return
    for m in moves:  # a move of the move language (pbm.e18xx.pbem.moves.Move), never anything else
        assert isinstance(m, typing.get_args(Move)), m


words = st.sampled_from(["pass", "bid", "par", "buy", "sell", "lay", "token", "run", "payout", "withhold",
                         "train", "ipo", "market", "GA", "W&A", "45", "90", "E5", "57", "2", "auto", "rest",
                         "of", "round", "with", "MRC", "from", "-1", "x", "99999999999"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(words, max_size=6).map(" ".join), max_size=5).map("\n".join))
def test_wordy_text_never_crashes(text):
    try:
        parse_moves(text, "Ann")
    except MoveError as e:
        assert str(e).startswith("line ")


def test_format_round_trips_for_legal_moves():
    g = Game("18GA", ["Ann", "Bob", "Cy"])
    for a in g.legal_actions():
        again = parse_line(format_action(a), a.entity)
        assert again == a


def test_play_text_auction_and_standing_pass():
    g = Game("18GA", ["Ann", "Bob", "Cy"])
    orders = StandingOrders()
    play_text(g, "Ann", "bid 20 LTR", orders)
    assert g.state.companies["LTR"].owner == "P:Ann"
    play_text(g, "Bob", "pass rest of round", orders)
    assert g.current_entity() == "Cy"
    play_text(g, "Cy", "pass", orders)
    play_text(g, "Ann", "pass", orders)  # Bob's standing order passes for him again
    assert g.current_entity() == "Cy"
    assert [type(a).__name__ for a in g.actions[-3:]] == ["Pass", "Pass", "Pass"]
    with pytest.raises(Exception) as e:
        play_text(g, "Ann", "bid 45 MRC")
    assert "not Ann's turn" in str(e.value)


def test_a_line_refused_after_a_hash_inside_it_says_that_hash_starts_a_comment():
    """'lay tile # 8 F12 0' reads as 'lay tile' (the rest is a comment): the refusal says why. A '#'
    right before a digit is a number sign: 'lay tile #8 F12 0' is tile 8 (play-through s15 mail 20)."""
    assert parse_moves("lay tile #8 F12 0", "a") == parse_moves("lay 8 F12 0", "a")
    with pytest.raises(MoveError) as exc:
        parse_moves("lay tile # 8 F12 0", "a")
    assert "'#' starts a comment" in str(exc.value) and "without '#'" in str(exc.value)
    with pytest.raises(MoveError) as exc:
        parse_moves("lay tile 8", "a")  # no '#': no word about comments (a lay without its rotation is read now: s14b)
    assert "comment" not in str(exc.value)
    assert [m.tile for m in parse_moves("lay 8 F12 0  # the straight", "a")] == ["8"]


def test_a_lay_without_a_rotation_is_read_for_the_game_to_complete():
    """'lay 57 E5': no rotation written - read, the rotation left for the game (the one the tile can
    take there; 1848 s14b mail #77, the Tasmania tile)."""
    from pbm.e18xx.pbem.moves import ANY_ROTATION

    (mv,) = parse_moves("lay 57 E5", "a")
    assert (mv.tile, mv.hex, mv.rotation) == ("57", "E5", ANY_ROTATION)

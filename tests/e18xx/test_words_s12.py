"""Issue 29, met in every play-through by mail s12 (logs /work/pt/games/*-s12/LOG.md): a mail is the
whole turn, and the words players really write.

The states are the s11 play-through games (tests/e18xx/playthrough/<key>-s11.jsonl), one for each
title, cut where a company's operating turn or a player's stock turn (stock round 2 or later) begins.
"""
from __future__ import annotations

import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game

S11 = {"al": (72, 3), "ga": (71, 4), "va": (74, 4), "aus": (73, 4)}  # seed, players
# a stock turn in stock round 2+ (the action before it, a company the player may sell, one he may buy)
SR = {"al": (38, "TAG", "WRA"), "ga": (42, "CoG", "CoG"), "va": (149, "SR", "B&O"), "aus": (43, "QR", "NSW")}
# an operating turn of a company that owns trains with a route (the action before it)
OR = {"al": 43, "ga": 71, "va": 30, "aus": 57}
KEYS = sorted(S11)


def s11(key: str, upto: int):
    seed, players = S11[key]
    return playthrough_game(key, upto, seed=seed, suffix="-s11", players=players)


# -- 1. a mail is the whole turn ----------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_a_stock_mail_is_the_whole_turn(key):
    """s12 18GA #39, 18AL #45: 'buy W&A' in stock round 2 left the turn open ("Your stock turn goes on
    ... End it with 'done'"), a second mail 'pass' was needed. A sale may be followed by a purchase (18AL/
    18GA 3.2, 18VA 4.3.1-4.3.2, 1848 12.1.1), yet the mail that sells only is the turn: it ends."""
    upto, sell, _buy = SR[key]
    g = s11(key, upto)
    player = g.current_entity()
    made, notes = intent_mail(g, f"sell 1 {sell}")
    assert made == [f"sell 1 {sell}", "pass"]
    assert g.current_entity() != player
    assert "Your stock turn ended with your mail (as if 'done'); end a mail with 'more' to keep a turn open." \
        in notes


@pytest.mark.parametrize("key", KEYS)
def test_a_purchase_in_a_later_stock_round_ends_the_turn(key):
    """18AL/18GA 3.2: the purchase may precede the sales, so the engine keeps the turn open after it;
    the mail ends it (18VA 4.3.2 and 1848 12.1.1 end it by themselves: nothing may follow a purchase)."""
    upto, _sell, buy = SR[key]
    g = s11(key, upto)
    player = g.current_entity()
    made, notes = intent_mail(g, f"buy {buy}")
    assert made[0] == f"buy {buy} ipo" and g.current_entity() != player
    if key in ("al", "ga"):
        assert made[1:] == ["pass"] and "Your stock turn ended with your mail (as if 'done')" in notes
    else:
        assert made[1:] == [] and f"Your turn ended by itself after 'buy {buy} ipo'" in notes


@pytest.mark.parametrize("key", KEYS)
def test_more_keeps_a_stock_turn_open(key):
    upto, sell, _buy = SR[key]
    g = s11(key, upto)
    player = g.current_entity()
    made, notes = intent_mail(g, f"sell 1 {sell}\nmore")
    assert made == [f"sell 1 {sell}"] and g.current_entity() == player
    assert "Your stock turn goes on ('more')" in notes and "unless its last line is 'more'" in notes


@pytest.mark.parametrize("key", KEYS)
def test_a_company_mail_is_the_whole_turn(key):
    """s12 18AL #34, 18GA #32, 18VA #17: 'lay 6 G6 5 / buy a 2 train' left ABC's turn open because it
    could still buy another company's train; a second mail 'done' was needed. The steps the mail does
    not reach (buying trains, privates) are passed as 'done' passes them, and the reply says so."""
    g = s11(key, OR[key])
    corp = g.current_entity()
    made, notes = intent_mail(g, "run auto\npayout")
    assert "run auto" in made and "payout" in made and made[-1] == "pass"
    assert g.state.round.kind != "operating" or g._or_operator() != corp
    assert f"{corp}'s turn ended with your mail (as if 'done'); end a mail with 'more' to keep a turn open." in notes


@pytest.mark.parametrize("key", KEYS)
def test_more_keeps_a_company_turn_open(key):
    g = s11(key, OR[key])
    corp = g.current_entity()
    made, notes = intent_mail(g, "run auto\npayout\nmore")
    assert made[-1] == "payout" and g._or_operator() == corp
    assert f"{corp}'s turn goes on ('more')" in notes


def test_a_required_step_left_by_the_mail_keeps_the_turn_open_and_says_what_to_write():
    """A mail that stops before a step the president may not skip (the run: 18AL 4.2.3) is not refused:
    its moves are made, the turn stays open, and the reply names the step, its rule and what to write."""
    g = s11("al", 43)  # ABC, trains with a route
    made, notes = intent_mail(g, "pass")
    assert made == ["pass", "pass"] and g._or_operator() == "ABC" and g.open_step()[0].name == "route"
    assert ('ABC\'s turn is not over: "Run trains (the best routes unless you name yours)" (18AL rule 4.2.3) '
            "may not be skipped (a company whose trains can run must run them); write the routes") in notes
    assert "'run auto' in your next mail" in notes
    assert "ended with your mail" not in notes


def test_more_goes_on_the_last_line():
    g = s11("al", 43)
    why = intent_refusal(g, "more\nrun auto")
    assert "move 1 (more): 'more' goes on the mail's last line" in why


# -- 2. counts and filler in share moves ------------------------------------------------------------------
@pytest.mark.parametrize("text, move", [
    ("buy 1 GA share", "buy GA ipo"),
    ("buy one share of W&A", "buy W&A ipo"),
    ("buy 1 share of W&A from the Initial Offering", "buy W&A ipo"),
    ("buy 1 WRA share from the Initial Offering", "buy WRA ipo"),
    ("buy 1 CoG share from the Open Market", "buy CoG market"),
    ("sell 2 shares of ABC", "sell 2 ABC"),
    ("sell one ABC share", "sell 1 ABC"),
    ("sell ABC 2", "sell 2 ABC"),
])
def test_share_moves_with_a_count(text, move):
    from pbm.e18xx.pbem.moves import format_action

    assert [format_action(m) for m in parse_moves(text, "Ann")] == [move]


@pytest.mark.parametrize("key", KEYS)
def test_a_percentage_is_counted_in_the_companys_shares(key):
    upto, sell, buy = SR[key]
    g = s11(key, upto)
    made, _ = intent_mail(g, f"sell 10% of {sell}")
    assert made[0] == f"sell 1 {sell}"
    g = s11(key, upto)
    made, _ = intent_mail(g, f"buy 10% of {buy}")
    assert made[0] == f"buy {buy} ipo"


@pytest.mark.parametrize("key, rule", [("al", "3.2(c)"), ("ga", "3.2(c)"), ("va", "4.3.2"), ("aus", "12.1.1")])
def test_more_than_one_share_a_turn_is_refused_with_the_rule(key, rule):
    """s12 18AL #101: 'buy 2 ATN shares' was answered "say 'ipo' or 'market'"; a player buys one
    certificate a turn (18AL/18GA 3.2(c), 18VA 4.3.2, 1848 12.1.1)."""
    upto, _sell, buy = SR[key]
    g = s11(key, upto)
    why = intent_refusal(g, f"buy 2 {buy} shares")
    assert why == (f"line 1: 'buy 2 {buy} shares': 2 shares: a player buys one certificate a turn (rule {rule}); "
                   f"write 'buy {buy}' for one share")
    why = intent_refusal(g, f"buy 20% of {buy}")
    assert f"a player buys one certificate a turn (rule {rule})" in why and f"'par {buy} <price>'" in why

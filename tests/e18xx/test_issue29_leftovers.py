"""Issue-29 leftovers of the session-10 play-through (/work/playthrough-notes/findings-s10.md):
what the events, Last moves and status say, replayed from the play-through's own games
(tests/e18xx/playthrough/<game>-s10.jsonl, as tests/e18xx/test_playthrough_s10.py)."""
from __future__ import annotations

import json

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.events import attach, money_of, recorded
from tests.e18xx.test_playthrough_s10 import HERE, TITLES


def _lines(key: str) -> list[dict]:
    return [json.loads(x) for x in (HERE / f"{key}-s10.jsonl").read_text(encoding="utf-8").splitlines()]


def recorded_game(key: str, upto: int) -> Game:
    """The play-through's game ``key`` after its first ``upto`` actions, its events recorded."""
    g = Game(TITLES[key], ["Ann", "Bob", "Cy"], 29, (), ["1", "2", "3"])
    attach(g)
    for d in _lines(key)[:upto]:
        g.process(A.action_from_dict(d))
    return g


def texts(g: Game, seq: int) -> list[str]:
    money = money_of(g.title)
    return [e.text(money) for e in recorded(g) if e.seq == seq]


# -- finding 6: a dividend that leaves the price where it is says so, and why ---------------------
def test_18va_dividend_below_the_price_says_the_price_stays_and_why():
    g = recorded_game("va", 29)  # B&O pays $60 with its price at $90 (18VA 3.2: it does not move)
    said = texts(g, 29)
    assert "B&O pays out $60, $6 a share: Ann $24" in said
    assert ("B&O's share price stays at $90: the dividend, $60, is less than the share price, and only a "
            "dividend of at least the price moves it right (rule 3.2)") in said
    assert not any("share price goes" in x for x in said)
    g = recorded_game("va", 71)  # B&O pays $160 at $90 or more: the price moves right, nothing "stays"
    said = texts(g, 71)
    assert any(x.startswith("B&O's share price goes up") for x in said)
    assert not any("stays" in x for x in said)


@pytest.mark.parametrize("key, seq, corp, rule", [("ga", 34, "CoG", "4.2.4"), ("al", 45, "WRA", "4.2.4"),
                                                  ("aus", 41, "CAR", "11.1")])
def test_a_payout_at_the_top_of_the_last_column_says_the_price_stays(key, seq, corp, rule):
    g = recorded_game(key, seq - 1)
    c = g.state.corporations[corp]
    top = len(g.title.market[0]) - 1
    g._set_price(c, (0, top))  # a payout moves it right, or up at the end of a row: no cell either way
    g.process(A.action_from_dict(_lines(key)[seq - 1]))
    price = g.title.market[0][top].price
    assert (f"{corp}'s share price stays at {money_of(g.title)(price)}: it is at the top of the chart's last "
            f"column: a payout has no cell to move it to (rule {rule})") in texts(g, seq)


def test_a_withhold_at_the_foot_of_the_first_column_says_the_price_stays():
    g = recorded_game("al", 26)
    c = g.state.corporations["M&O"]
    g._set_price(c, (len(g.title.market) - 1, 0))
    g.process(A.action_from_dict(_lines("al")[26]))  # M&O earns nothing: a withhold
    assert ("M&O's share price stays at $30: it is at the foot of the chart's first column: a withhold has no "
            "cell to move it to (rule 4.2.4)") in texts(g, 27)

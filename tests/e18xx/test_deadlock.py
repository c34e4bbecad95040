"""A game where no player and no company can ever act again ends (ruling, docs/18xx/engine.md
"A game no one can move"), instead of running empty rounds until Python's recursion limit.

Found by the differential check of issue 28: a random 4-player 1848 game (seed 405) reached a
stock round where nobody could afford anything, with the only floated company (COM) waiting for its
two homes to be linked (5.3.2): every stock round ended at once, every operating round had no one to
operate, and the next stock round began — inside one action, for ever.
"""
from __future__ import annotations

import random

from pbm.e18xx.core.game import Game

from .helpers import pick

NAMES = [f"Tycoon {c}" for c in "ABCD"]
RULES = ("site_dutch_pass", "site_routes", "site_turn_end_pass")


def _before_the_deadlock() -> tuple[Game, random.Random]:
    rng = random.Random(405)
    g = Game("1848", NAMES, 405, RULES)
    for _ in range(364):
        g.process(pick(rng, g.legal_actions()))
    return g, rng


def test_a_game_no_one_can_move_ends_instead_of_looping():
    g, rng = _before_the_deadlock()
    cash = dict(g.state.cash)
    g.process(pick(rng, g.legal_actions()))  # Tycoon C buys a COM share; then no one can act
    assert g.finished
    assert g.state.end_reason == "no one can act"
    assert g.legal_actions() == []
    result = g.result()
    assert set(result) == set(NAMES) and all(isinstance(v, int) for v in result.values())
    assert sum(g.state.cash.values()) == sum(cash.values())  # no money made or lost on the way
    # the same game from its log ends the same way
    again = Game.from_log(g.to_log())
    assert again.finished and again.state.end_reason == "no one can act" and again.result() == result


def test_an_ordinary_empty_stock_round_does_not_end_the_game():
    """A stock round in which nobody acts is no deadlock while the companies still operate."""
    from .helpers import random_game

    for seed in range(3):
        g = random_game(seed, players=3, title="1848", max_actions=800, prefix="Tycoon ")
        assert g.state.end_reason != "no one can act"

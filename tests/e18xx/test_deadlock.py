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


def test_a_game_no_one_can_move_ends_instead_of_looping():
    """The seeded game of the finding (1848, 4 players, seed 405) no longer reaches that state: since
    5.4.4's removed 5 begins phase 5 (issue 28) it ends by its fifth receivership first, and no
    seeded random game of 1848 with the site's flags (seeds 0-520 with 3 or 4 players, 380-520
    with 5) reaches a deadlock any more.  The ruling's mechanism is held here directly: a stock
    round that begins again, inside the game, on the same holdings, cash, prices and trains ends
    the game, which then lists nothing and scores every player."""
    rng = random.Random(405)
    g = Game("1848", NAMES, 405, RULES)
    while g.state.round.kind != "stock":  # through the sale of the privates
        g.process(pick(rng, g.legal_actions()))
    cash = dict(g.state.cash)
    g._start_stock()  # noqa: SLF001 - the first stock round begins again: nothing changed since
    assert g.finished
    assert g.state.end_reason == "no one can act"
    assert g.legal_actions() == []
    result = g.result()
    assert set(result) == set(NAMES) and all(isinstance(v, int) for v in result.values())
    assert g.state.cash == cash  # no money made or lost


def test_an_ordinary_empty_stock_round_does_not_end_the_game():
    """A stock round in which nobody acts is no deadlock while the companies still operate."""
    from .helpers import random_game

    for seed in range(3):
        g = random_game(seed, players=3, title="1848", max_actions=800, prefix="Tycoon ")
        assert g.state.end_reason != "no one can act"

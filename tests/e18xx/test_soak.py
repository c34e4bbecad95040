"""Random legal games played to the end: no exception, cash conserved.

20 games normally; set PBM_SOAK=1 for hundreds (PBM_SOAK_GAMES to choose)."""
import os

import pytest

from pbm.e18xx.core.game import Game

from .helpers import RULE_SETS, random_game

N = int(os.environ.get("PBM_SOAK_GAMES", "300")) if os.environ.get("PBM_SOAK") else 20


@pytest.mark.parametrize("seed", range(N))
def test_random_game_to_the_end(seed):
    players = 3 + seed % 3
    g = random_game(seed, players=players, rules=RULE_SETS[seed % len(RULE_SETS)])
    assert g.finished, f"seed {seed}: not finished after {len(g.actions)} actions"
    assert g.state.end_reason in ("bank", "stock_market", "bankrupt")
    assert sum(g.state.cash.values()) == g.title.data["bank_cash"]
    if seed % 5 == 0:
        again = Game.from_log(g.to_log())
        assert again.result() == g.result()

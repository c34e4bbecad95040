"""18AL: money is conserved over every action of every recorded game (rules 1.4, 4.2.2.1).

The objective's $100 (4.2.2.1), the company buy-ins, the 4D trains and the Warrior Coal Field
bonus all move money between the bank, players and corporations; none creates or loses any.
"""
from __future__ import annotations

import pytest

from pbm.e18xx.replay import Replayer, effective_actions

AL_FIXTURES = ["18AL/18AL_game_end_bankrupt.json", "18AL/4714.json", "18AL/hs_pzujrnou_144868.json",
               "18AL/1446.json"]


@pytest.mark.parametrize("rel", AL_FIXTURES)
def test_18AL_cash_conserved_after_every_action(rel):
    """bank + players + corporations is the same sum after every action, and the game ends."""
    from pbm.e18xx.fixtures import load_fixture
    export, where = load_fixture(rel)
    if export is None:
        pytest.skip(where)
    r = Replayer(export, check_cash=True)
    total = r.total
    assert total == 8000
    steps = 0
    for a in effective_actions(export["actions"]):
        for x in [a] + (a.get("auto_actions") or []):
            r.apply(x)
            steps += 1
            assert r.game.total_cash() == total, f"after action {x.get('id')} ({x['type']})"
    assert steps > 100
    assert r.game.finished

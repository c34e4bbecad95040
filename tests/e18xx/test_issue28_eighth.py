"""Issue 28, the eighth differential run (29 November 2026): findings pinned by pbm-only tests on
kept games (``referee_games/``), no referee needed."""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError

from .kept import kept_game, kept_log

VA_60030 = ("18VA-4p-random-60030.jsonl", "18VA", 4, 60030, ["site_routes", "two_player_share_limit"])


def test_18va_a_corporation_that_reenters_play_has_lost_its_plus_one_train_limit():
    """18VA 4.6.3: a company closed by its president's bankruptcy "may subsequently reenter play as a
    new Corporation"; Potomac Yards' "+1 Train Limit" token (2, note 4) is the old corporation's.
    Random, 4 players, seed 60030: the B&O closes P3 for +1 train limit in OR 14 (action 444), closes at
    Tycoon C's bankruptcy (action 1046) and is started again by Tycoon A; in phase 4D (limit 2) it
    holds a 4G and a new 5 and tries to buy the C&O's 4D as a third train: the site refused it
    ("Blocking step Lay/Upgrade Track": the B&O's turn was over at its limit)."""
    g = kept_game(kept_log(*VA_60030, upto=445))
    assert g.state.corporations["B&O"].extra_train_limit == 1  # the old B&O had the token
    g = kept_game(kept_log(*VA_60030, upto=1283))
    assert g.current_entity() == "B&O"
    assert g.train_limit("B&O") == 2
    g.process(A.BuyTrain("B&O", "5-2", 500))
    assert len(g.state.corporations["B&O"].trains) == 2
    assert g.current_entity() == "RFPR"  # at its limit the B&O's turn is over
    with pytest.raises(GameError):
        g.process(A.BuyTrain("B&O", "4D-2", 380))

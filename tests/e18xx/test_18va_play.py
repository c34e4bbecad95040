"""18VA: random legal games to the end (a short soak; PBM_SLOW=1 or PBM_SOAK=1 for
hundreds), and the move language for 18VA's own actions."""
import dataclasses
import os

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.moves import format_action, parse_moves, play_text

from .helpers import random_game

SLOW = os.environ.get("PBM_SLOW") or os.environ.get("PBM_SOAK")
N = int(os.environ.get("PBM_SOAK_GAMES", "200")) if SLOW else 6


@pytest.mark.parametrize("seed", range(N))
def test_random_18va_game_to_the_end(seed):
    players = 2 + seed % 4
    g = random_game(seed, players=players, title="18VA", prefix="Player", max_actions=6000)
    assert g.finished, f"seed {seed}: not finished after {len(g.actions)} actions"
    assert g.state.end_reason in ("bank", "bankrupt")
    if g.state.end_reason == "bankrupt":  # 5: only when one player is left
        assert sum(not p.bankrupt for p in g.state.players) == 1
    assert sum(g.state.cash.values()) == 8000
    if seed % 3 == 0:
        again = Game.from_log(g.to_log())
        assert again.result() == g.result()


@pytest.mark.parametrize("text, action", [
    ("convert", A.Convert("VR")),
    ("buy train 2 as 1G", A.BuyTrain("VR", "2", None, "1G")),
    ("buy train 3 as 3 with P2", A.BuyTrain("P2", "3", None, "3")),
    ("buy train 4-2 from WMR 206", A.BuyTrain("VR", "4-2", 206, seller="WMR")),
    ("assign P1 C12", A.Assign("P1", "C12")),
    ("token H1 with P3", A.PlaceToken("P3", "H1")),
    ("run 4-0 A12-0 B13-0 C12-0 F13-0 H15-0 I16-0",
     A.RunRoutes("VR", (A.RouteSpec("4-0", ("A12-0", "B13-0", "C12-0", "F13-0", "H15-0", "I16-0")),))),
])
def test_18va_moves_parse_and_print(text, action):
    got = parse_moves(text, "VR")
    assert got == [action]
    # printed for players by type, never the engine's id ('4', not '4-2'; issue 29), and read back as
    # the same move with its trains named by type
    printed = format_action(action)
    assert "4-2" not in printed and "4-0" not in printed
    by_type = action
    if isinstance(action, A.BuyTrain):
        by_type = dataclasses.replace(action, train=action.train.split("-")[0])
    elif isinstance(action, A.RunRoutes):
        by_type = dataclasses.replace(action, routes=tuple(dataclasses.replace(r, train=r.train.split("-")[0])
                                                           for r in action.routes))
    assert parse_moves(printed, "VR") == [by_type]


def test_a_game_by_email_through_the_auction_and_first_turns():
    g = Game("18VA", ["Ann", "Bob", "Cy"])
    play_text(g, "Ann", "bid 40 P1")
    play_text(g, "Bob", "bid 140 P4")
    play_text(g, "Cy", "bid 60 P2")
    play_text(g, "Ann", "bid 80 P3")
    for p in ("Bob", "Cy", "Ann"):
        play_text(g, p, "pass")
    play_text(g, "Bob", "par B&O 100")
    play_text(g, "Cy", "par VR 82")
    for p in ("Ann", "Bob", "Cy"):
        play_text(g, p, "pass")
    assert g.current_entity() == "B&O"
    play_text(g, "Bob", "lay 57 H3 0\npass\nbuy train 2 as 2")
    assert g.state.trains["2-0"].variant == "2" and g.current_entity() == "VR"
    play_text(g, "Cy", "lay 5 C12 1\nbuy train 2 as 1G\npass")
    assert g.state.trains["2-1"].kind == "freight" and g.state.round.kind == "stock"

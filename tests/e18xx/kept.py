"""Kept games of the differential runs against the 18xx.games engine (issue 28): pbm's own action
logs under ``referee_games/``, read back for the pbm-only tests that pin each finding."""
from __future__ import annotations

import json
from pathlib import Path

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game

GAMES = Path(__file__).parent / "referee_games"


def kept_log(name: str, title: str, players: int, seed: int, rules: list[str], upto: int | None = None) -> dict:
    """A kept game (pbm's own action log, players "Tycoon A", ...), its first ``upto`` actions."""
    lines = (GAMES / name).read_text(encoding="utf-8").splitlines()[:upto]
    return {"title": title, "players": [f"Tycoon {c}" for c in "ABCDEF"][:players], "seed": seed,
            "optional_rules": rules, "actions": [json.loads(x) for x in lines]}


def kept_game(log: dict) -> Game:
    """The game ``log`` describes, replayed."""
    g = Game(log["title"], log["players"], log["seed"], tuple(log["optional_rules"]))
    for a in log["actions"]:
        g.process(A.action_from_dict(a))
    return g

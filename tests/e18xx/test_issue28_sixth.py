"""Findings of the sixth run against the 18xx.games engine (issue 28): seeded computer games."""
from __future__ import annotations

import json
from pathlib import Path

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem import exchange

GAMES = Path(__file__).parent / "referee_games"


def _log(name: str, title: str, players: int, seed: int, rules: list[str], upto: int | None = None) -> dict:
    """A kept game of the differential run (pbm's own action log), its first ``upto`` actions."""
    lines = (GAMES / name).read_text(encoding="utf-8").splitlines()[:upto]
    return {"title": title, "players": [f"Tycoon {c}" for c in "ABCDEF"][:players], "seed": seed,
            "optional_rules": rules, "actions": [json.loads(x) for x in lines]}


def _game(log: dict) -> Game:
    g = Game(log["title"], log["players"], log["seed"], tuple(log["optional_rules"]))
    for a in log["actions"]:
        g.process(A.action_from_dict(a))
    return g


def test_1848_the_sydney_adelaide_link_does_not_reverse_at_a_hex_side():
    """1848 5.3.2: the COM operates once "a notional train of infinite range could travel from
    Sydney to Adelaide".  Computer, 5 players, seed 50026: VR upgrades E12 to a 24, whose two
    pieces of track meet at one side, towards D11.  pbm's walk went E14 - E12 into D11 and back
    into E12 by the other piece -- reversing at the hex side, which no train can -- and counted
    Sydney (F17) linked to Adelaide (G6); the export wrote the link and 18xx.games refused it
    ("Blocking step Run Routes cannot process action destination_connection")."""
    log = _log("1848-5p-computer-50026.jsonl", "1848", 5, 50026, [])
    g = _game(log)
    assert g.actions[-1] == A.LayTile(entity="VR", hex="E12", tile="24", rotation=2)
    assert not g.homes_linked("F17", "G6")
    assert "linked:COM" not in g.state.events
    last = exchange.export_log(log)["actions"][-1]
    assert (last["type"], last["entity"], last["hex"]) == ("lay_tile", "VR", "E12")
    assert not last.get("auto_actions")

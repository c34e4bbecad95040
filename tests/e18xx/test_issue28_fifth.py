"""Findings of the fifth run against the 18xx.games engine (issue 28)."""
from __future__ import annotations

import json
from pathlib import Path

from pbm.e18xx.pbem import exchange

GAMES = Path(__file__).parent / "referee_games"


def _log(name: str, title: str, players: int, seed: int, rules: list[str], upto: int | None = None) -> dict:
    """A kept game of the differential run (pbm's own action log), its first ``upto`` actions."""
    lines = (GAMES / name).read_text(encoding="utf-8").splitlines()[:upto]
    return {"title": title, "players": [f"Tycoon {c}" for c in "ABCDEF"][:players], "seed": seed,
            "optional_rules": rules, "actions": [json.loads(x) for x in lines]}


def test_18va_no_pass_after_a_tredegar_train_when_the_company_can_buy_nothing_more():
    """18VA: a train bought with Tredegar Iron Works (P2) is the private's action on 18xx.games; the
    company's Buy Trains step then stays open only while the company could still buy a train (room
    and money for one: $1 when another company owns a train).  Random, 3 players, seed 40009: B&O,
    with $0, buys a 3 (declared 2G) for $0 with P2; the site went on to RFPR at once, and the pass the
    export wrote for B&O was refused ("Blocking step Convert to 10 Share cannot process action
    pass")."""
    data = exchange.export_log(_log("18VA-3p-random-40009.jsonl", "18VA", 3, 40009, ["site_routes"]))
    acts = [(a["type"], a["entity"], bool(a.get("pbm_auto"))) for a in data["actions"][-3:]]
    assert acts == [("run_routes", "B&O", False), ("buy_train", "P2", False), ("pass", "RFPR", False)]

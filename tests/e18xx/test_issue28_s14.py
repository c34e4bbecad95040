"""Findings of the fourth run against the 18xx.games engine (issue 28, session 14)."""
from __future__ import annotations

import pytest

from pbm.e18xx.fixtures import load_fixture
from pbm.e18xx.pbem import exchange


def _fixture(rel: str) -> dict:
    data, where = load_fixture(rel)
    if data is None:
        pytest.skip(where)
    return data


def test_1848_the_export_writes_the_sydney_adelaide_link_as_the_site_records_it():
    """1848 5.3: the Commonwealth Railways operate once Sydney and Adelaide are joined.  18xx.games
    checks the link after every action of an operating round and records it as an automatic
    ``destination_connection`` of the operating company on the action that made it (the recorded
    game: CAR's tile lay, action 323).  pbm's export left it out; loaded strictly, the site then
    waits at its "COM Sydney Adelaide Check" and refuses the next action (both 1848 recorded games
    that make the link stopped there)."""
    site = _fixture("1848/1848_game_end_bank.json")
    made = next(a for a in site["actions"]
                if any(x["type"] == "destination_connection" for x in a.get("auto_actions") or []))
    g = exchange.replay_export(site)
    data = exchange.export_log(g.to_log())
    carried = [a for a in data["actions"]
               if any(x["type"] == "destination_connection" for x in a.get("auto_actions") or [])]
    assert len(carried) == 1, carried
    ours = carried[0]
    assert (ours["type"], ours["entity"], ours["hex"], ours["rotation"]) == \
        (made["type"], made["entity"], made["hex"], made["rotation"])
    link = [x for x in ours["auto_actions"] if x["type"] == "destination_connection"]
    assert link == [{"type": "destination_connection", "entity": made["entity"], "entity_type": "corporation"}]
    # pbm's own replay of its export still gives the same game
    assert exchange.fingerprint(exchange.replay_export(data)) == exchange.fingerprint(g)

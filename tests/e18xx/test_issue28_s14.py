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


def _random_until(title: str, players: int, seed: int, rules: tuple[str, ...], stop, limit: int = 4000):
    """A random-legal game (tests/e18xx/helpers.py::pick, as the differential run plays them) up
    to the first state where ``stop(g)`` holds."""
    import random

    from pbm.e18xx.core.game import Game

    from .helpers import pick

    rng = random.Random(seed)
    g = Game(title, [f"Tycoon {c}" for c in "ABCDEF"][:players], seed, rules)
    for _ in range(limit):
        if g.finished or stop(g):
            break
        g.process(pick(rng, g.legal_actions()))
    assert stop(g), "the state was not reached"
    return g


def test_18al_the_warrior_coal_field_token_goes_only_in_a_city_the_company_can_reach():
    """18AL Table III (South & North Alabama; the book's table is missing, the text is the public
    data of 18xx.games): the owning corporation may place the Warrior Coal Field token in a mining
    city "provided that the corporation can reach the city with a route that is in the range of a
    train owned by the corporation".  pbm checked only that it owns a train (a partial ruling) and
    listed every mining city; the site refused "Oxmoor is not reachable" (random, 5 players, seed
    14006: ATN, just after buying SNAR and a 2, assigned H5)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    def snar_with_a_train(g):
        owner = g.state.companies["SNAR"].owner or ""
        return (g.state.round.kind == "operating" and owner.startswith("C:")
                and owner[2:] == g.current_entity() and bool(g.state.corporations[owner[2:]].trains))

    g = _random_until("18AL", 5, 14006, ("hard_rust_t4", "site_auction", "site_obsolete", "site_routes"),
                      snar_with_a_train)
    corp = g.state.companies["SNAR"].owner[2:]
    assert corp == "ATN"
    listed = {a.target for a in g.legal_actions() if isinstance(a, A.Assign) and a.entity == "SNAR"}
    assert "H5" not in listed
    with pytest.raises(GameError, match="SNAR"):  # nothing is reachable yet: no use of SNAR now
        g.process(A.Assign("SNAR", "H5"))
    for h in sorted(listed):  # what is listed is accepted
        from pbm.e18xx.core.state import clone_state
        before = clone_state(g.state)
        g.process(A.Assign("SNAR", h))
        g._restore(before)  # noqa: SLF001
        del g.actions[-1:]

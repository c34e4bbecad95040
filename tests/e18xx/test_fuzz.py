"""Random (mostly illegal) actions thrown at games in progress: each one is
either accepted or refused with a GameError, and a refusal changes nothing."""
import random

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.state import clone_state

from .helpers import pick, random_game


def random_action(rng: random.Random, g) -> A.Action:
    s = g.state
    players = [p.name for p in s.players]
    corps = list(s.corporations)
    comps = list(s.companies)
    hexes = list(s.map.placed) + ["Z99"]
    tiles = list(g.title.tiles) + ["57-9", "zz"]
    trains = list(s.trains) + ["9", "2"]
    ent = rng.choice(players + corps + comps + [g.current_entity() or "x"] * 3)
    kind = rng.randrange(13)
    n = rng.choice([-5, 0, 1, 5, 20, 45, 55, 70, 90, 100, 110, 180, 300, 10**6])
    if kind == 0:
        return A.Pass(ent)
    if kind == 1:
        return A.Bid(ent, rng.choice(comps + ["XX"]), n)
    if kind == 2:
        return A.Par(ent, rng.choice(corps + ["XX"]), n)
    if kind == 3:
        return A.BuyShares(ent, corporation=rng.choice(corps), source=rng.choice(["ipo", "pool", "x"]))
    if kind == 4:
        return A.BuyShares(ent, (f"{rng.choice(corps)}_{rng.randrange(10)}",))
    if kind == 5:
        return A.SellShares(ent, corporation=rng.choice(corps), count=rng.randrange(-1, 7))
    if kind == 6:
        return A.LayTile(ent, rng.choice(hexes), rng.choice(tiles), rng.randrange(-1, 8))
    if kind == 7:
        return A.PlaceToken(ent, rng.choice(hexes + ["Rome", "57-0-0", "nowhere"]), rng.choice([None, 0, 1, 5]))
    if kind == 8:
        return A.RunRoutes(ent, auto=rng.random() < 0.5,
                           routes=(A.RouteSpec(rng.choice(trains), ("D4-0", rng.choice(hexes) + "-0")),))
    if kind == 9:
        return A.Dividend(ent, rng.choice(["payout", "withhold", "half"]))
    if kind == 10:
        return A.BuyTrain(ent, rng.choice(trains), rng.choice([None, n]))
    if kind == 11:
        return A.BuyCompany(ent, rng.choice(comps + ["XX"]), n)
    return A.DiscardTrain(ent, rng.choice(trains))


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_actions_never_corrupt_the_game(seed):
    rng = random.Random(1000 + seed)
    g = random_game(seed, stop_at=rng.randrange(50, 700))
    total = g.total_cash()
    for _ in range(400):
        if g.finished:
            break
        before = clone_state(g.state)
        n = len(g.actions)
        act = random_action(rng, g)
        try:
            g.process(act)
        except GameError as exc:
            assert str(exc)
            assert g.state == before, f"state changed by refused {act}"
            assert len(g.actions) == n
        assert g.total_cash() == total
        if not g.finished and rng.random() < 0.5:
            g.process(pick(rng, g.legal_actions()))

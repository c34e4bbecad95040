"""Issue 28, the open items of the third differential run: 1848's receivership in the last company
turn of an operating round, and 18VA's coal-district bonus on a route through a junction tile
twice.  Both follow the rulebooks; where 18xx.games departs, the ruling is in rulings-1848.md and
rulings-18VA.md."""
from __future__ import annotations

import random

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem import exchange

from .helpers import pick

NAMES = [f"Tycoon {c}" for c in "ABCDEF"]
SITE_1848 = ("site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass")


def _random_1848(seed: int, players: int, until) -> Game:
    """A random 1848 game with the site's flags, as the differential run plays it (a director
    never passes the loan before the withhold), up to the first action after which ``until``."""
    rng = random.Random(seed)
    g = Game("1848", NAMES[:players], seed, SITE_1848)
    for _ in range(3000):
        if g.finished or until(g):
            break
        listed = g.legal_actions()
        step = g.open_step()[0]
        if step is not None and step.name == "loan_before_dividend":
            listed = [a for a in listed if not isinstance(a, A.Pass)] or listed
        g.process(pick(rng, listed))
    return g


def test_1848_a_receivership_in_the_last_turn_is_settled_before_the_next_round_begins():
    """1848 5.5.1: a company reaching the left-most column "is immediately taken over by the Bank
    of England"; 5.5.3: "If the Director doesn't have enough money, he must sell shares following
    the usual rules"; 7.3: "The Operating Round ends when all companies currently in operation
    have completed their turn" and only then (7.2) "The Bank of England operates next (paying out
    the dividend appropriate to the current phase)".  Random, 3 players, seed 20032: WA, the last
    company of operating round 4.1, borrows into receivership; its director owes compensation and
    sells first; then round 4.2 begins with the Bank of England's payout.  (18xx.games begins the
    next round first: its crisis step follows the round's last acting player; ruling in
    rulings-1848.md.)"""
    g = _random_1848(20032, 3, lambda g: any(g.state.cash[p.key] < 0 for p in g.state.players))
    debtor = next(p.name for p in g.state.players if g.state.cash[p.key] < 0)
    taken = max(i for i, line in enumerate(g.state.log) if "goes into receivership" in line)
    assert g.state.round.kind == "operating"
    assert g.open_step()[0].name == "pay_debt" and g.current_entity() == debtor
    assert not [line for line in g.state.log[taken:] if line.startswith("-- operating round") or "BOE pays" in line]
    while g.open_step()[0] is not None and g.open_step()[0].name == "pay_debt":
        g.process(next(a for a in g.legal_actions() if isinstance(a, A.SellShares)))
    log = g.state.log[taken:]
    sold = max(i for i, line in enumerate(log) if line.startswith(f"{debtor} sells"))
    begun = next(i for i, line in enumerate(log) if line.startswith("-- operating round"))
    paid = next(i for i, line in enumerate(log) if line.startswith("BOE pays"))
    assert sold < begun < paid


def _random_18va(seed: int, players: int, upto: int) -> Game:
    rng = random.Random(seed)
    g = Game("18VA", NAMES[:players], seed, ("site_routes",))
    while len(g.actions) < upto:
        g.process(pick(rng, g.legal_actions()))
    return g


def test_18va_the_export_writes_each_routes_coal_district_bonus_as_the_site_does():
    """18VA 4.5.4.3: "If the Corporation has a station token in the CMD, the Freight Train adds the
    amount ... to its normal revenue, and adds the same amount to the Corporation Treasury."
    18xx.games records that amount with each route (``subsidy``, 0 when none) and the run's total,
    and pays it as recorded; pbm's export wrote neither, so where the site could not rebuild a
    route's stops it paid no bonus (random, 2 players, seed 14008; the bank differences of seeds
    20003, 20006, 20013).  Random, 2 players, seed 6, action 135: WMR's 2 train runs A6 (a coal
    district with WMR's station) - B5 - C4 for 50 and 20 to the treasury."""
    g = _random_18va(6, 2, 135)
    assert g.state.log[-1].startswith("WMR runs for 50 (+20 to the treasury)")
    runs = [a for a in exchange.export_log(g.to_log(), game_id=7, name="t")["actions"] if a["type"] == "run_routes"]
    assert runs[-1]["routes"][0]["subsidy"] == 20 and runs[-1]["subsidy"] == 20
    assert all(r.get("subsidy") == 0 for a in runs[:-1] for r in a["routes"])
    assert all(a["subsidy"] == sum(r["subsidy"] for r in a["routes"]) for a in runs)


def test_18va_a_route_through_a_junction_tile_twice_earns_the_coal_district_bonus():
    """18VA 4.5.5: "A train may not use any track segment more than once. The junction at the middle
    of a green or brown plain track tile is not considered part of any track segment."  A route may
    so pass a junction tile twice by other segments, and a freight train's route to a coal district
    with its company's station earns the treasury bonus (4.5.4.3).  Found in random 2-player seed
    14008 (action 693: a route through D5's brown junction 546 twice; 18xx.games counts a junction
    once between two stops and cannot rebuild that stretch; with the bonus in the export it pays it
    as pbm does: ruling in rulings-18VA.md).  The fourth run's fixes changed what is legal there, so
    the game is now random 3-player seed 14014, action 834: SR's 4 runs F17 - F13 - B9 - B11 - A12
    (SR's station in the coal district A12), the stretch from F13 to B9 through E12's green junction
    545 twice (F13 - E12 - E14 - D13 - E12 - D11 - C10 - B9)."""
    g = _random_18va(14014, 3, 834)
    (train, route), = g.state.round.routes
    assert route.nodes[-1] == ("A12", 0) and g.state.map.city_has(("A12", 0), "SR")
    stretch = next(s for s in g.graph().segments(route.nodes[1]) if s.b == route.nodes[2]
                   and not s.mask & ~route.mask)
    assert stretch.hexes.count("E12") == 2 and g.state.map.placed["E12"].tile.name == "545"
    assert g.state.round.subsidy == 60 and "(+60 to the treasury)" in g.state.log[-1]
    runs = [a for a in exchange.export_log(g.to_log(), game_id=7, name="t")["actions"] if a["type"] == "run_routes"]
    assert runs[-1]["entity"] == "SR" and runs[-1]["routes"][0]["subsidy"] == 60

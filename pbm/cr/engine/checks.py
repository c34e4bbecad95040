"""Conservation checks run at the end of every resolved turn.

A violation is a bug; it raises :class:`ConservationError` so the turn's
transaction is rolled back and the game is never silently corrupted.
"""

from __future__ import annotations

from collections import defaultdict

from pbm.cr.engine.context import SOURCES, EngineError, TurnContext, loaded


class ConservationError(EngineError):
    """Money, shares or officers do not add up."""


def check_money(ctx: TurnContext) -> list[str]:
    """Each account's start balance plus its ledger net equals its end balance."""
    net: dict[str, int] = defaultdict(int)
    for e in ctx.ledger:
        net[e["source"]] -= e["amount"]
        net[e["target"]] += e["amount"]
    end = ctx.balances()
    problems = []
    for acct in sorted(set(end) | set(net) | set(ctx.start_balances)):
        if acct in SOURCES:
            continue
        start = ctx.start_balances.get(acct, 0)
        if start + net.get(acct, 0) != end.get(acct, 0):
            problems.append(f"money: {acct} started with {start}, ledger moved {net.get(acct, 0)}, "
                            f"but ends with {end.get(acct, 0)}")
    for n, p in ctx.players.items():
        if p.cash < 0:
            problems.append(f"money: player {n} ends with negative cash {p.cash}")
        if p.loan < 0:
            problems.append(f"money: player {n} has a negative loan {p.loan}")
    for code, rr in ctx.railroads.items():
        if min(rr.bond_debt, rr.loan_debt, rr.president_debt) < 0:
            problems.append(f"money: {code} has a negative debt")
    return problems


def check_shares(ctx: TurnContext) -> list[str]:
    """Issued = players' + public; authorized = issued + treasury; nothing negative."""
    problems = []
    for code, rr in ctx.railroads.items():
        held, negative = 0, False
        for h in rr.holdings:  # (one pass: the attributes are read once)
            shares, short = loaded(h, "shares", "short")
            held += shares
            if shares < 0 or short < 0:
                negative = True
        if negative:
            problems.append(f"shares: {code} has a negative holding")
        if min(rr.shares_public, rr.treasury_shares, rr.shares_issued) < 0:
            problems.append(f"shares: {code} has a negative share count")
        if rr.shares_issued != held + rr.shares_public:
            problems.append(f"shares: {code} issued {rr.shares_issued} != players {held} + public {rr.shares_public}")
        if rr.shares_authorized != rr.shares_issued + rr.treasury_shares:
            problems.append(f"shares: {code} authorized {rr.shares_authorized} != issued {rr.shares_issued} + "
                            f"treasury {rr.treasury_shares}")
        if rr.status == "merged" and (held or rr.lines or rr.cash):
            problems.append(f"shares: merged railroad {code} still has shares, lines or cash")
    return problems


def check_officers(ctx: TurnContext) -> list[str]:
    """The president and chairman are directors; directors hold 10 %; slots match presidencies."""
    problems = []
    for code, rr in ctx.railroads.items():
        directors = set()
        issued, merged = rr.shares_issued, rr.status == "merged"
        for h in rr.holdings:  # (one pass: the attributes are read once)
            director, shares = loaded(h, "director", "shares")
            if director:
                directors.add(h.player_id)
            if not merged and director != (shares > 0 and shares * 10 >= issued > 0):
                problems.append(f"officers: {code} director flag of player id {h.player_id} is wrong")
        if rr.president_id is not None and rr.president_id not in directors:
            problems.append(f"officers: {code} president is not a director")
        if rr.chairman_id is not None and rr.chairman_id not in directors:
            problems.append(f"officers: {code} chairman is not a director")
        if directors and rr.chairman_id is None and rr.status != "merged":
            problems.append(f"officers: {code} has directors but no chairman")
    presidencies: dict[int, set[int]] = defaultdict(set)
    for rr in ctx.railroads.values():
        if rr.president_id is not None:
            presidencies[rr.president_id].add(rr.id)
    for p in ctx.players.values():
        slots = {s for s in (p.slot1_id, p.slot2_id) if s is not None}
        if slots != presidencies.get(p.id, set()):
            problems.append(f"officers: player {p.number}'s slots do not match the railroads he presides")
    return problems


def check_routes(ctx: TurnContext) -> list[str]:
    """Each railroad has at most one unbuilt RoW; lines belong to their route's owner."""
    problems = []
    unbuilt: dict[int, int] = defaultdict(int)
    built = {line.route_id: rr for rr in ctx.railroads.values() for line in rr.lines}
    for route in ctx.routes.values():
        if route.id in built and route.owner_id != built[route.id].id:
            problems.append(f"routes: {route.code} is a line of {built[route.id].code} but owned by another")
        if route.owner_id is not None and route.id not in built:
            unbuilt[route.owner_id] += 1
    for rid, n in unbuilt.items():
        if n > 1:
            problems.append(f"routes: railroad id {rid} owns {n} unbuilt RoWs")
    return problems


def run_checks(ctx: TurnContext) -> None:
    """Raise :class:`ConservationError` listing every violation."""
    problems = check_money(ctx) + check_shares(ctx) + check_officers(ctx) + check_routes(ctx)
    if problems:
        raise ConservationError(f"turn {ctx.turn} of game {ctx.game.name}: " + "; ".join(problems[:20]))

"""Routes a railroad may hold (§4.8), Appendix A step 11: bids for rights-of-way with
alternates and write-ins (§4.7, §10.2G), land grants (§7) and land sales (§7D)."""

from __future__ import annotations

import math

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, floor_money
from pbm.models import Railroad, Route


def _norm_city(name: str) -> str:
    text = " ".join(name.strip().lower().replace(".", " ").split())
    return text.replace("saint ", "st ")


def no_through_cities() -> set[str]:
    """§4.8.2: the cities a railroad may enter by one route only (the map's list when it has one)."""
    try:
        from pbm.cr import mapdata  # type: ignore[attr-defined]

        names = getattr(mapdata, "NO_THROUGH_CITIES", tables.NO_THROUGH_CITIES)
    except ImportError:  # pragma: no cover - before the map branch is merged
        names = tables.NO_THROUGH_CITIES
    return {_norm_city(n) for n in names}


_NO_THROUGH = no_through_cities()


def is_no_through(ctx: TurnContext, town_id: int) -> bool:
    return _norm_city(ctx.towns[town_id].name) in _NO_THROUGH


def holding_routes(ctx: TurnContext, rr: Railroad) -> list[Route]:
    """The routes a railroad holds: its lines and its unbuilt RoW."""
    routes = ctx.line_routes(rr)
    row = ctx.row_of(rr)
    if row is not None:
        routes.append(row)
    return routes


def prohibited_reason(ctx: TurnContext, held: list[Route], new: Route) -> str | None:
    """§4.8: why ``new`` may not join a railroad holding ``held`` (None if it may)."""
    codes = {r.code for r in held}
    if new.double_with and new.double_with in codes:
        return f"{new.code} and {new.double_with} are the two routes of a double connection (§4.8.1)"
    for r in held:
        if r.double_with == new.code:
            return f"{new.code} and {r.code} are the two routes of a double connection (§4.8.1)"
    for town in (new.a_id, new.b_id):
        if is_no_through(ctx, town) and any(town in (r.a_id, r.b_id) for r in held if r.code != new.code):
            return f"a railroad may have only one route into {ctx.towns[town].name} (§4.8.2)"
    return None


def connects(route: Route, towns: set[int]) -> bool:
    return route.a_id in towns or route.b_id in towns


def row_bid_problem(ctx: TurnContext, rr: Railroad, code: str | None) -> str | None:
    """§4.7C–D, §10.2G: why ``rr`` may not get RoW ``code`` now (None if it may)."""
    route = ctx.routes.get((code or "").upper()) or ctx.routes.get(code or "")
    if route is None:
        return f"{code} is not a route of the map"
    if route.kind != "RoW":
        return f"{code} is a private company, not a right-of-way"
    if route.owner_id is not None:
        return f"{code} is owned by another railroad"
    held = holding_routes(ctx, rr)
    towns = {t for r in held for t in (r.a_id, r.b_id)}
    if not connects(route, towns):
        return f"{code} does not connect to the {rr.code}'s lines"
    return prohibited_reason(ctx, held, route)


def valid_rows(ctx: TurnContext, rr: Railroad) -> list[Route]:
    """Every RoW the railroad could get right now, by route number."""
    held = holding_routes(ctx, rr)
    towns = {t for r in held for t in (r.a_id, r.b_id)}
    near = {r.number: r for t in towns for r in ctx.routes_at(t)}  # the routes that connect
    return [r for _, r in sorted(near.items()) if r.kind == "RoW" and r.owner_id is None
            and prohibited_reason(ctx, held, r) is None]


def may_bid(ctx: TurnContext, rr: Railroad) -> bool:
    """§4.7A–B, §4.7I: a non-bankrupt railroad without an unbuilt RoW (after building or abandoning)."""
    return (rr.status == "active" and rr.code not in ctx.scratch.bankrupt_at_start
            and rr.code not in ctx.scratch.incorporated and ctx.row_of(rr) is None)


def land_grant(ctx: TurnContext, route: Route, influence: int, draw: float) -> int:
    """§7B, §4.9D (ruling E-7): sections promised for a RoW.

    The chance falls with the values of the two end towns: certain-ish (98 %)
    for two 1-point towns, nil for two 25-point cities.  The size rises with
    political influence: 40 % of a section per mile without influence, +12 %
    per level, a full section per mile from 5 levels.
    """
    values = ctx.towns[route.a_id].value + ctx.towns[route.b_id].value
    chance = min(0.98, max(0.0, (50 - values) / 48))
    if draw >= chance:
        return 0
    return math.floor(route.miles * min(1.0, 0.4 + 0.12 * influence))


def rights_of_way(ctx: TurnContext) -> None:
    """Step 11 (§4.7, §4.8, §10.2G, §7): bids, alternates, write-ins; land sales."""
    rng = ctx.rng("row-bids")
    pending: dict[str, list[str | None]] = {}
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or not (ro.row_first or ro.row_alternate):
            continue
        if not may_bid(ctx, rr):
            ctx.event("11", "§4.7", "row-bid-void", f"The {rr.code} may not bid for a RoW this turn.", railroad=rr.code)
            continue
        pending[rr.code] = [ro.row_first, ro.row_alternate]
    for round_no in (0, 1):
        wanted: dict[str, list[Railroad]] = {}
        for code in sorted(pending):
            choices = pending[code]
            choice = choices[round_no]
            if not choice:
                continue
            rr = ctx.railroads[code]
            if ctx.row_of(rr) is not None:
                continue
            problem = row_bid_problem(ctx, rr, choice)
            if problem:
                ctx.event("11", "§4.7", "row-bid-invalid", f"The {code}'s bid for {choice} failed: {problem}.",
                          railroad=code)
                continue
            wanted.setdefault(ctx.routes.get(choice.upper(), ctx.routes.get(choice)).code, []).append(rr)
        for row_code in sorted(wanted, key=lambda c: ctx.routes[c].number):
            bidders = wanted[row_code]
            draws = {rr.code: float(rng.random()) for rr in bidders}
            bidders.sort(key=lambda r: (-ctx.scratch.influence.get(r.code, 0), draws[r.code]))
            winner = bidders[0]
            _award_row(ctx, winner, ctx.routes[row_code], float(rng.random()))
            for loser in bidders[1:]:
                ctx.event("11", "§4.7G", "row-lost", f"The {loser.code} lost {row_code} to the {winner.code}'s "
                          "greater political influence.", railroad=loser.code)
    land_sales(ctx)


def _award_row(ctx: TurnContext, rr: Railroad, route: Route, draw: float) -> None:
    route.owner_id = rr.id
    ctx.routes_changed()
    grant = land_grant(ctx, route, ctx.scratch.influence.get(rr.code, 0), draw)
    route.land_grant = grant
    a, b = ctx.towns[route.a_id].name, ctx.towns[route.b_id].name
    tail = f" with a land grant of {grant} sections" if grant else ""
    ctx.event("11", "§4.7", "row-acquired", f"The {rr.code} acquired the right-of-way {route.code} "
              f"({a}–{b}){tail}.", railroad=rr.code, headline=True, data={"row": route.code, "grant": grant})


def land_sales(ctx: TurnContext) -> None:
    """§7D (ruling E-7D): 10 % of the unsold land sells in a Panic, +5 % a climate step
    (50 % in a Boom), at $20 a section +$5 a step."""
    rank = ctx.climate.rank
    share, price = 0.10 + 0.05 * rank, 20 + 5 * rank
    for rr in ctx.active():
        if rr.land <= 0:
            continue
        sold = max(1, math.floor(rr.land * share))
        proceeds = floor_money(sold * price)
        rr.land -= sold
        ctx.pay("public", account(rr), proceeds, "11", f"{sold} sections of land sold")
        ctx.event("11", "§7D", "land-sold", f"The {rr.code} sold {sold} sections of land for ${proceeds:,}.",
                  railroad=rr.code, amount=proceeds)

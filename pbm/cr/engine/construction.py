"""Appendix A step 9: construction — PCs incorporate (§4.3A1, §10.1B3) or merge into
railroads (§4.3A3, §10.1B2), railroads build or abandon their RoW (§4.6, §4.3A2, §8),
director bonuses (§4.3B) and overspending (§4.6C); 9.2 double track (§4.15)."""

from __future__ import annotations

import math

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, floor_money
from pbm.cr.engine.financing import finance
from pbm.cr.engine.rights import prohibited_reason, holding_routes
from pbm.models import Line, Player, PrivateCompany, Railroad, Route


# --------------------------------------------------------------------------- pure rules
def director_bonus_each(new_shares: int, directors: int) -> int:
    """§4.3B: 10 % of the new stock to each director; if more than 5 directors, 50 % ÷ directors."""
    if directors <= 0:
        return 0
    if directors <= 5:
        return new_shares * tables.DIRECTOR_PCT // 100
    return new_shares * tables.DIRECTOR_TOTAL_PCT // 100 // directors


def overspend_split(over_per_mile: int, miles: int, directors: int) -> tuple[int, int]:
    """§4.6C: the excess is divided by directors + 1; returns (each director's, the rest).

    $90/mile over with 2 directors gives each director $30/mile.
    """
    total = max(0, over_per_mile) * miles
    each = total // (directors + 1)
    return each, total - each * directors


def build_cost_range(climate: tables.Climate) -> tuple[int, int]:
    """§4.6B–C: the minimum cost per mile by the start climate, and double that."""
    return climate.build_min, 2 * climate.build_min


# --------------------------------------------------------------------------- stock issues
def issue_new_stock(ctx: TurnContext, rr: Railroad, miles: int, step: str, why: str,
                    owner: Player | None = None) -> None:
    """§4.3A2–3, §4.3B–C: 5 shares a mile; 10 % treasury; 20 % to a merging PC's owner;
    10 % to each start-of-turn director (paid at half the start price by an automatic bank
    loan); the rest brokered to the Public at 10 % under the start price."""
    new = tables.SHARES_PER_MILE * miles
    treasury = new * tables.TREASURY_PCT // 100
    to_owner = new * tables.PC_OWNER_PCT // 100 if owner is not None else 0
    directors = [ctx.players[n] for n in ctx.scratch.directors_at_start.get(rr.code, [])]
    each = director_bonus_each(new, len(directors))
    public = new - treasury - to_owner - each * len(directors)
    price = ctx.scratch.start_price.get(rr.code, rr.price)
    rr.shares_authorized += new
    rr.treasury_shares += treasury
    rr.shares_issued += new - treasury
    rr.shares_public += public
    if owner is not None and to_owner:
        ctx.holding(owner, rr).shares += to_owner
    for d in directors:
        if not each:
            break
        cost = floor_money(each * price / 2)
        ctx.pay("bank", account(d), cost, step, f"automatic loan for {rr.code} director bonus")
        d.loan += cost
        ctx.pay(account(d), account(rr), cost, step, f"{each} {rr.code} director bonus shares at half price")
        ctx.holding(d, rr).shares += each
        ctx.event(step, "§4.3B", "director-bonus", f"As a director you received {each} new {rr.code} shares "
                  f"for ${cost:,}, lent by the Bank.", player=d.number, railroad=rr.code, amount=cost,
                  private_to=[d.number])
    brokered = floor_money(public * price * tables.BROKER_DISCOUNT)
    ctx.pay("public", account(rr), brokered, step, f"{public} new shares brokered to the public")
    ctx.event(step, "§4.3A", "stock-issued", f"The {rr.code} issued {new} new shares ({why}): {treasury} to its "
              f"treasury, {public} brokered to the public for ${brokered:,}.", railroad=rr.code,
              data={"new": new, "treasury": treasury, "owner": to_owner, "director_each": each, "public": public})


def _add_line(ctx: TurnContext, rr: Railroad, route: Route) -> None:
    line = ctx.rows.new(Line, railroad_id=rr.id, route_id=route.id, built_turn=ctx.turn, double_tracked=False)
    line.railroad, line.route = rr, route
    rr.lines.append(line)
    route.owner_id = rr.id
    ctx.routes_changed()


# --------------------------------------------------------------------------- step 9.1
def construction(ctx: TurnContext) -> None:
    """Step 9: 9.1 incorporations, PC mergers, building or abandoning RoWs; 9.2 double track."""
    incorporate_private_companies(ctx)
    merge_private_companies(ctx)
    build_or_abandon_rows(ctx)
    double_track(ctx)


def _pc_actions(ctx: TurnContext, kind: str):
    for number, orders in sorted(ctx.orders.items()):
        for action in orders.pc_actions:
            if action.action == kind:
                yield ctx.players[number], action


def incorporate_private_companies(ctx: TurnContext) -> None:
    """Step 9.1 (§4.3A1, §10.1B3): the PC becomes a railroad; 20 % of the new stock to its
    owner, 10 % treasury, 70 % brokered to the Public at 10 % under the $10–18 start price."""
    launched: list[tuple[Player, PrivateCompany, Route, Railroad, bool]] = []
    for player, action in _pc_actions(ctx, "incorporate"):
        pc = ctx.pcs.get(action.pc)
        if pc is None or pc.owner_id != player.id or pc.status != "owned":
            ctx.event("9.1", "§10.1B3e", "incorporation-void", f"{action.pc} could not be incorporated: "
                      "you no longer own it.", player=player.number, private_to=[player.number])
            continue
        route = ctx.route_by_id[pc.route_id]
        rng = ctx.rng(f"incorporate-{route.code}")
        price = float(int(rng.integers(10, 19)))
        best = tables.best_locomotive(ctx.turn)
        efficiency = min(int(rng.integers(85, 96)), tables.max_efficiency(route.miles, best, best))
        number = max((r.number for r in ctx.railroads.values()), default=0) + 1 + len(launched)
        rr = ctx.rows.new(Railroad, game_id=ctx.game.id, code=route.code, name=route.name or route.code,
                          number=number, status="active", founded_turn=ctx.turn, price=price, shares_authorized=0,
                          shares_issued=0, shares_public=0, treasury_shares=0, cash=0, efficiency=efficiency,
                          locomotive=best, technologies=[t for t in tables.technologies_available(ctx.turn) if t != "A"],
                          grand_station=False, dividend=0, regions_at_start=[])
        rr.game, rr.lines, rr.holdings, rr.president, rr.chairman = ctx.game, [], [], None, None
        pc.status = "incorporated"  # taken now, so a second order for it is void
        launched.append((player, pc, route, rr, action.president))
    if not launched:
        return
    ctx.rows.insert_now([rr for _, _, _, rr, _ in launched])  # their ids, one INSERT (the turn's other
    # changes are written at its end, ctx.write_rows; later steps need the new railroads' ids)
    for player, pc, route, rr, wants in launched:
        ctx.railroads[rr.code] = rr
        ctx.railroad_by_id[rr.id] = rr
        ctx.start_balances.setdefault(f"rr:{rr.code}", 0)
        ctx.scratch.incorporated.append(rr.code)
        ctx.scratch.start_price[rr.code] = rr.price
        _add_line(ctx, rr, route)
        pc.owner_id, pc.railroad_id, pc.for_sale, pc.asking_price = None, rr.id, False, None
        new = tables.SHARES_PER_MILE * route.miles
        treasury = new * tables.TREASURY_PCT // 100
        owner = new * tables.PC_OWNER_PCT // 100
        public = new - treasury - owner
        rr.shares_authorized, rr.treasury_shares = new, treasury
        rr.shares_issued, rr.shares_public = new - treasury, public
        ctx.holding(player, rr).shares += owner
        cash = floor_money(public * rr.price * tables.BROKER_DISCOUNT)
        ctx.pay("public", account(rr), cash, "9.1", f"{public} shares brokered to the public at launch")
        if wants:
            ctx.scratch.president_wants.setdefault(rr.code, []).append(player.number)
        ctx.event("9.1", "§4.3A1", "incorporated", f"{player.character} incorporated the {rr.code} ({rr.name}): "
                  f"{new} shares at ${rr.price:.0f}, ${cash:,} raised from the public.", player=player.number,
                  railroad=rr.code, amount=cash, headline=True)


def pc_merge_problem(ctx: TurnContext, pc: PrivateCompany, rr: Railroad | None) -> str | None:
    """§10.1B2a, §4.8, §4.11B: why the PC cannot merge into ``rr`` (None if it can)."""
    if rr is None or rr.status != "active" or rr.code not in ctx.scratch.active_at_start:
        return "that railroad is not active"
    if rr.code in ctx.scratch.bankrupt_at_start:
        return f"the {rr.code} is bankrupt and may not build (§4.11B)"
    route = ctx.route_by_id[pc.route_id]
    if route.a_id not in ctx.scratch.start_towns[rr.code] and route.b_id not in ctx.scratch.start_towns[rr.code]:
        return f"{route.code} did not connect to the {rr.code} at the start of the turn"
    return prohibited_reason(ctx, holding_routes(ctx, rr), route)


def merge_private_companies(ctx: TurnContext) -> None:
    """Step 9.1 (§4.3A3, §10.1B2): the railroad builds the PC's line and issues 5 shares a mile."""
    for player, action in _pc_actions(ctx, "merge"):
        pc = ctx.pcs.get(action.pc)
        if pc is None or pc.owner_id != player.id or pc.status != "owned":
            ctx.event("9.1", "§10.1B2e", "pc-merge-void", f"{action.pc} could not merge: you no longer own it.",
                      player=player.number, private_to=[player.number])
            continue
        rr = ctx.railroads.get(action.railroad or "")
        problem = pc_merge_problem(ctx, pc, rr)
        if problem:
            ctx.event("9.1", "§10.1B2", "pc-merge-void", f"{action.pc} could not merge into {action.railroad}: "
                      f"{problem}.", player=player.number, private_to=[player.number])
            continue
        route = ctx.route_by_id[pc.route_id]
        _add_line(ctx, rr, route)
        pc.status, pc.owner_id, pc.railroad_id, pc.for_sale, pc.asking_price = "merged", None, rr.id, False, None
        issue_new_stock(ctx, rr, route.miles, "9.1", f"merger of the {route.code}", owner=player)
        ctx.event("9.1", "§4.3A3", "pc-merged", f"{player.character} merged the {route.code} into the {rr.code}.",
                  player=player.number, railroad=rr.code, headline=True)


def build_or_abandon_rows(ctx: TurnContext) -> None:
    """Step 9.1 (§4.6, §4.3A2, §8): build the RoW owned at the start of the turn, or abandon it."""
    low, high = build_cost_range(ctx.climate)
    for rr in ctx.active():
        code = ctx.scratch.start_row.get(rr.code)
        ro = ctx.president_orders(rr)
        if code is None or ro is None:
            continue
        route = ctx.routes[code]
        if route.owner_id != rr.id:
            continue
        if ro.abandon:
            route.owner_id, route.land_grant = None, 0
            ctx.routes_changed()
            ctx.event("9.1", "§4.6", "row-abandoned", f"The {rr.code} abandoned its right-of-way {code}.",
                      railroad=rr.code, headline=True)
            continue
        if ro.build_per_mile is None:
            continue
        if ctx.turn in tables.CIVIL_WAR_TURNS:
            ctx.event("9.1", "§8", "no-building", f"The {rr.code} may not build {code} during the Civil War.",
                      railroad=rr.code)
            continue
        if rr.status != "active" or rr.code in ctx.scratch.bankrupt_at_start:
            ctx.event("9.1", "§4.11B", "no-building", f"The bankrupt {rr.code} may not build.", railroad=rr.code)
            continue
        build_row(ctx, rr, route, min(max(ro.build_per_mile, low), high), low)


def build_row(ctx: TurnContext, rr: Railroad, route: Route, per_mile: int, low: int) -> None:
    """§4.6B–E: track at ``per_mile`` plus $300 × value of each town on the route — both
    ends, whether or not the road reaches them already (§4.6D); the excess over the minimum
    goes to the directors (§4.6C)."""
    towns = sum(tables.TOWN_BUILD_COST * ctx.towns[t].value for t in {route.a_id, route.b_id})
    directors = [ctx.players[n] for n in ctx.scratch.directors_at_start.get(rr.code, [])]
    each, _rest = overspend_split(per_mile - low, route.miles, len(directors))
    cost = per_mile * route.miles + towns
    payees = [(account(d), each) for d in directors if each]
    parts = finance(ctx, rr, cost, "9.1", f"building {route.code}", payees=payees)
    for d in directors:
        if each:
            ctx.event("9.1", "§4.6C", "overspend", f"You pocketed ${each:,} from the {rr.code}'s construction of "
                      f"{route.code}.", player=d.number, railroad=rr.code, amount=each, private_to=[d.number])
    _add_line(ctx, rr, route)
    if route.land_grant:
        rr.land += route.land_grant
        route.land_grant = 0
    issue_new_stock(ctx, rr, route.miles, "9.1", f"construction of {route.code}")
    a, b = ctx.towns[route.a_id].name, ctx.towns[route.b_id].name
    ctx.event("9.1", "§4.6", "row-built", f"The {rr.code} built {route.code} ({a}–{b}, {route.miles} miles) for "
              f"${cost:,}.", railroad=rr.code, amount=cost, headline=True, data={"row": route.code, **parts})


def double_track(ctx: TurnContext) -> None:
    """Step 9.2 (§4.15): 25 % of the minimum track cost per mile, paid in cash only."""
    low, _ = build_cost_range(ctx.climate)
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or not ro.double_track:
            continue
        if rr.status != "active" or rr.code in ctx.scratch.bankrupt_at_start:
            continue
        lines = {ctx.route_by_id[line.route_id].code: line for line in rr.lines}
        for code in ro.double_track:
            line = lines.get(code)
            if line is None or line.double_tracked:
                ctx.event("9.2", "§4.15", "double-track-void", f"The {rr.code} cannot double-track {code}.",
                          railroad=rr.code)
                continue
            route = ctx.route_by_id[line.route_id]
            cost = math.floor(tables.DOUBLE_TRACK_FRACTION * low * route.miles)
            if cost > rr.cash:
                ctx.event("9.2", "§4.15", "double-track-unaffordable", f"The {rr.code} lacked the ${cost:,} in cash "
                          f"to double-track {code}.", railroad=rr.code, amount=cost)
                continue
            ctx.pay(account(rr), "public", cost, "9.2", f"double track {code}")
            line.double_tracked = True
            ctx.event("9.2", "§4.15", "double-tracked", f"The {rr.code} double-tracked {code} for ${cost:,}.",
                      railroad=rr.code, amount=cost)

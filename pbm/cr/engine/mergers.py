"""Appendix A step 12: railroad mergers (§4.13, §4.3A4, §4.4F, §10.1E)."""

from __future__ import annotations

import math

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, floor_cents
from pbm.cr.engine.financing import finance
from pbm.cr.engine.rights import is_no_through, prohibited_reason
from pbm.models import Railroad, Route


def merger_problem(ctx: TurnContext, number: int, merging: Railroad | None, surviving: Railroad | None) -> str | None:
    """§4.13A, §10.1E: why the merger cannot happen (None if it can)."""
    if merging is None or surviving is None or merging.code == surviving.code:
        return "name two different railroads"
    for rr in (merging, surviving):
        if rr.code not in ctx.scratch.active_at_start or rr.status not in ("active", "bankrupt"):
            return f"the {rr.code} is not an active railroad"
        if ctx.scratch.president_at_start.get(rr.code) != number:
            return f"you were not president of the {rr.code} at the start of the turn"
    if surviving.code in ctx.scratch.bankrupt_at_start or surviving.status == "bankrupt":
        return f"the {surviving.code} is bankrupt; a railroad may not merge into a bankrupt one (§4.13A2)"
    if not ctx.scratch.start_towns[merging.code] & ctx.scratch.start_towns[surviving.code]:
        return "the two railroads were not connected at the start of the turn (§4.13A1)"
    deleted = {r.code for r in parallel_deletions(ctx, merging, surviving)}
    routes = [r for r in ctx.line_routes(merging) + ctx.line_routes(surviving) if r.code not in deleted]
    for town in sorted({t for r in routes for t in (r.a_id, r.b_id)}):
        if is_no_through(ctx, town) and sum(1 for r in routes if town in (r.a_id, r.b_id)) > 1:
            return f"it would give the railroad more than one route into {ctx.towns[town].name} (§4.8.2)"
    return None


def parallel_deletions(ctx: TurnContext, merging: Railroad, surviving: Railroad) -> list[Route]:
    """§4.13A3: of each parallel pair one line is deleted: a former RoW first, else a PC
    line — the merging road's when both are of the same kind (ruling E-4.13A3)."""
    mine = {r.code: r for r in ctx.line_routes(surviving)}
    out: list[Route] = []
    for r in ctx.line_routes(merging):
        twin = mine.get(r.double_with or "")
        if twin is None:
            continue
        if r.kind == "RoW" or twin.kind != "RoW":
            out.append(r)
        else:
            out.append(twin)
    return out


def railroad_mergers(ctx: TurnContext) -> None:
    """Step 12 (§4.13): a president of two connected railroads merges one into the other."""
    for number, orders in sorted(ctx.orders.items()):
        if not orders.merge:
            continue
        merging = ctx.railroads.get(orders.merge[0])
        surviving = ctx.railroads.get(orders.merge[1])
        problem = merger_problem(ctx, number, merging, surviving)
        if problem:
            ctx.event("12", "§4.13", "merger-void", f"The merger of {orders.merge[0]} into {orders.merge[1]} "
                      f"failed: {problem}.", player=number, private_to=[number])
            continue
        merge(ctx, merging, surviving)


def merge(ctx: TurnContext, m: Railroad, s: Railroad) -> None:
    """§4.13B–E, §4.3A4, §4.4F: lines, cash, debts, land and treasury go to the survivor;
    shares are exchanged one for one at the averaged price."""
    for route in parallel_deletions(ctx, m, s):
        line = next(x for x in list(m.lines) + list(s.lines) if x.route_id == route.id)
        ctx.railroad_by_id[line.railroad_id].lines.remove(line)
        ctx.rows.delete(line)
        route.owner_id = None
        ctx.routes_changed()
        pc = ctx.pcs.get(route.code)
        if pc is not None:
            pc.status, pc.railroad_id, pc.owner_id = "bank", None, None
            pc.asking_price, pc.for_sale, pc.paid = tables.PC_BANK_PRICE_PER_MILE * route.miles, False, 0
        ctx.event("12", "§4.13A3", "parallel-deleted", f"{route.code} was dropped from the merged railroad as a "
                  "parallel route.", railroad=s.code)
    m_miles, s_miles = ctx.miles(m), ctx.miles(s)
    upgrade = 0
    if m.locomotive != s.locomotive:
        low_miles = m_miles if m.locomotive < s.locomotive else s_miles
        upgrade += tables.locomotive_cost(low_miles, min(m.locomotive, s.locomotive), max(m.locomotive, s.locomotive))
    m_tech, s_tech = set(m.technologies or []) - {"A"}, set(s.technologies or []) - {"A"}
    upgrade += tables.TECH_COST_PER_MILE * (len(s_tech - m_tech) * m_miles + len(m_tech - s_tech) * s_miles)
    # lines, cash, debts, land, treasury stock (§4.13B)
    for line in list(m.lines):
        m.lines.remove(line)
        s.lines.append(line)
        line.railroad_id, line.railroad = s.id, s
        ctx.route_by_id[line.route_id].owner_id = s.id
    if m.cash > 0:
        ctx.pay(account(m), account(s), m.cash, "12", f"cash of the {m.code}")
    elif m.cash < 0:
        ctx.pay(account(s), account(m), -m.cash, "12", f"deficit of the {m.code}")
    s.bond_debt += m.bond_debt
    s.loan_debt += m.loan_debt
    s.president_debt += m.president_debt
    s.land += m.land
    m.bond_debt = m.loan_debt = m.president_debt = m.land = 0
    # RoW (§4.13D)
    ctx.routes_changed()
    m_row, s_row = ctx.row_of(m), ctx.row_of(s)
    if m_row is not None:
        if s_row is None and prohibited_reason(ctx, ctx.line_routes(s), m_row) is None:
            m_row.owner_id = s.id
        else:
            m_row.owner_id, m_row.land_grant = None, 0
            ctx.event("12", "§4.13D", "row-abandoned", f"The {m.code}'s right-of-way {m_row.code} was abandoned in "
                      "the merger.", railroad=s.code)
    # stock (§4.13C, §4.3A4)
    total = s.shares_issued + m.shares_issued
    if total > 0:
        s.price = floor_cents((s.price * s.shares_issued + m.price * m.shares_issued) / total)
    s.shares_authorized += m.shares_authorized
    s.shares_issued += m.shares_issued
    s.shares_public += m.shares_public
    s.treasury_shares += m.treasury_shares
    for h in sorted(m.holdings, key=lambda h: h.player_id):
        if h.shares or h.short:
            target = ctx.holding(ctx.player_by_id[h.player_id], s)
            target.shares += h.shares
            target.short += h.short
        h.shares, h.short, h.director = 0, 0, False
    m.shares_authorized = m.shares_issued = m.shares_public = m.treasury_shares = 0
    # equipment (§4.13E)
    if m_miles + s_miles > 0:
        s.efficiency = math.floor((m.efficiency * m_miles + s.efficiency * s_miles) / (m_miles + s_miles))
    s.locomotive = max(s.locomotive, m.locomotive)
    s.technologies = sorted(set(s.technologies or []) | set(m.technologies or []))
    s.grand_station = s.grand_station or m.grand_station
    if upgrade:
        finance(ctx, s, upgrade, "12", "upgrading merged lines", bonds_fraction=1.0)
    m.status, m.merged_into_id = "merged", s.id
    m.president_id = m.chairman_id = None
    ctx.scratch.merged_into[m.code] = s.code
    ctx.routes_changed()
    ctx.event("12", "§4.13", "railroads-merged", f"The {m.code} merged into the {s.code}; its shareholders "
              f"receive one {s.code} share for each share.", railroad=s.code, headline=True,
              data={"merging": m.code, "upgrade_cost": upgrade})

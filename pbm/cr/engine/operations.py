"""Appendix A step 13: railroad operations (§4.10, §4.15, §4.16, §4.18, §11.2), dividends
(§4.12), insolvency, bankruptcy and reorganization (§4.11), PC income (§3.4)."""

from __future__ import annotations

import math
from fractions import Fraction

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, ceil_money, floor_money
from pbm.cr.engine.privates import private_company_income
from pbm.models import Railroad

NOISE_SD = 0.07  # ruling E-4.10A: the random factor, N(1, 0.07) kept within ±15 %
NOISE_LIMIT = 0.15
ACCIDENT_EFFICIENCY = 75  # ruling E-11.2
DISASTER_CHANCE_PER_TECH = 0.05
POLITICAL_TROUBLE_CHANCE = 0.20


def expense_ratio(efficiency: int) -> float:
    """§4.10B (ruling E-4.10B): operating costs as a share of gross revenue.

    Straight line through 50 → 100 % and 95 → 65 %: Excellent (90–99) costs
    62–69 % of revenue, and at 50 or below costs equal or exceed revenue.
    """
    return 1.0 - (efficiency - 50) * 0.35 / 45


def line_revenue(miles: int, value_a: int, value_b: int) -> int:
    """The revenue one line brings, for double track and rate wars (ruling E-4.15):
    $60 a mile plus half of each end town's $300 × value."""
    return tables.MILE_REVENUE * miles + tables.TOWN_REVENUE * (value_a + value_b) // 2


def revenue_parts(ctx: TurnContext, rr: Railroad, noise: float = 1.0) -> dict[str, int | float]:
    """§4.10A, §2.7C, §4.15, §4.16, §4.18: the gross revenue and what it is made of."""
    routes = ctx.line_routes(rr)
    miles = sum(r.miles for r in routes)
    towns = ctx.towns_of(rr)
    base = tables.MILE_REVENUE * miles + tables.TOWN_REVENUE * sum(ctx.towns[t].value for t in towns)
    double = 0
    for line in rr.lines:
        if line.double_tracked:
            route = ctx.route_by_id[line.route_id]
            va, vb = ctx.towns[route.a_id].value, ctx.towns[route.b_id].value
            double += line_revenue(route.miles, va, vb) * tables.double_track_percent(va, vb) // 100
    regions = len(ctx.regions_of(rr))
    region_factor = 1 + 0.10 * max(0, regions - 1)
    techs = set(rr.technologies or [])
    if rr.grand_station:
        techs.add("A")
    tech_factor = 1 + sum(v for k, v in tables.REVENUE_TECHS.items() if k in techs)
    factor = region_factor * tech_factor * ctx.climate.revenue_factor * noise
    gross = floor_money((base + double) * factor)
    return {"base": base, "double_track": double, "regions": regions, "factor": factor, "gross": gross}


def operating_expenses(rr: Railroad, gross: int) -> int:
    """§4.10B, §4.18: by efficiency, less 3 % for each cost-saving technology — but never
    below the revenue at efficiency 50 or less (§4.10B)."""
    cut = 1.0
    for letter, saving in tables.COST_TECHS.items():
        if letter in (rr.technologies or []):
            cut *= 1 - saving
    ratio = expense_ratio(rr.efficiency) * cut
    if rr.efficiency <= 50:
        ratio = max(1.0, ratio)  # §4.10B: at 50 or less costs equal or exceed revenue, technology or not
    return floor_money(gross * ratio)


def projected_profit(ctx: TurnContext, rr: Railroad) -> int:
    """What the Public expects a railroad without a record to earn (used in §6.3A)."""
    gross = revenue_parts(ctx, rr)["gross"]
    interest = rr.bond_debt * tables.BOND_RATE + rr.loan_debt * ctx.climate.loan_rate
    return int(gross - operating_expenses(rr, int(gross)) - interest)


def revenue_share(ctx: TurnContext, rr: Railroad, codes: set[str]) -> Fraction:
    """§4.16 (ruling E-4.16): the part of a road's revenue earned along its lines ``codes``.

    A line earns its $60 a mile, its double-track bonus (§4.15) and the $300 × value of its
    end towns, a town's shared equally among the road's lines that end there — so the lines'
    parts add up to the road's base revenue (§4.10A) plus its double-track bonuses, and a road
    of one line earns all of it along that line.
    """
    routes = [(line, ctx.route_by_id[line.route_id]) for line in rr.lines]
    ends: dict[int, int] = {}
    for _line, route in routes:
        for town in {route.a_id, route.b_id}:
            ends[town] = ends.get(town, 0) + 1
    total = part = Fraction(0)
    for line, route in routes:
        earned = Fraction(tables.MILE_REVENUE * route.miles)
        for town in {route.a_id, route.b_id}:
            earned += Fraction(tables.TOWN_REVENUE * ctx.towns[town].value, ends[town])
        if line.double_tracked:
            va, vb = ctx.towns[route.a_id].value, ctx.towns[route.b_id].value
            earned += line_revenue(route.miles, va, vb) * tables.double_track_percent(va, vb) // 100
        total += earned
        if route.code in codes:
            part += earned
    return part / total if total else Fraction(0)


def rate_war_losses(ctx: TurnContext, parts: dict[str, dict]) -> dict[str, int]:
    """§4.16 (ruling E-4.16): a rate war of p % cuts both roads' gross revenue along their
    parallel lines by p %: each loses ⌈gross × p % × the parallel lines' share⌉ (its revenue
    is rounded down), so two roads of one parallel line each receive (100 − p) % of their
    normal gross, as the PENN–READ example says.  ``parts`` are the roads'
    :func:`revenue_parts`.  Where several wars are declared on the same pair the deepest
    cut counts."""
    cuts: dict[tuple[str, str], int] = {}
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        for war in (ro.rate_wars if ro else []):
            other = ctx.railroads.get(war.target)
            if other is None or other.status not in ("active", "bankrupt") or other.code == rr.code:
                continue
            pct = max(0, min(100, war.percent))
            key = tuple(sorted((rr.code, other.code)))
            cuts[key] = max(cuts.get(key, 0), pct)  # type: ignore[index]
    losses: dict[str, int] = {}
    for (a_code, b_code), pct in sorted(cuts.items()):
        a, b = ctx.railroads[a_code], ctx.railroads[b_code]
        a_routes = {ctx.route_by_id[x.route_id].code: ctx.route_by_id[x.route_id] for x in a.lines}
        b_routes = {ctx.route_by_id[x.route_id].code: ctx.route_by_id[x.route_id] for x in b.lines}
        pairs = [(ra, b_routes[ra.double_with]) for ra in a_routes.values() if ra.double_with in b_routes]
        if not pairs or not pct:
            ctx.event("13.1", "§4.16", "rate-war-void", f"No rate war between the {a_code} and the {b_code}: they "
                      "have no parallel routes.", railroad=a_code)
            continue
        for code, routes in ((a_code, [p[0] for p in pairs]), (b_code, [p[1] for p in pairs])):
            gross = int(parts[code]["gross"]) if code in parts else 0
            share = revenue_share(ctx, ctx.railroads[code], {r.code for r in routes})
            lost = gross - math.floor(gross * (1 - Fraction(pct, 100) * share))
            losses[code] = losses.get(code, 0) + lost
        ctx.event("13.1", "§4.16", "rate-war", f"Rate war! The {a_code} and the {b_code} cut their rates {pct}% "
                  "on their parallel lines.", railroad=a_code, headline=True, data={"percent": pct, "with": b_code})
    return losses


def random_events(ctx: TurnContext, rr: Railroad, gross: int, rng) -> list[tuple[str, int, str]]:
    """§11.2 (ruling E-11.2): accidents from low efficiency, troubles from no political
    spending, disasters from missing safety technology."""
    out: list[tuple[str, int, str]] = []
    miles = ctx.miles(rr)
    u1, u2, u3, c1, c2, c3 = (float(x) for x in rng.random(6))
    accident = max(0.0, (ACCIDENT_EFFICIENCY - rr.efficiency) / 100)
    if "F" in (rr.technologies or []):
        accident /= 2
    if u1 < accident:
        out.append(("accident", floor_money(miles * (5 + 10 * c1)), "a train wreck caused by worn equipment"))
    if ctx.scratch.influence.get(rr.code, 0) == 0 and u2 < POLITICAL_TROUBLE_CHANCE:
        out.append(("political", floor_money(gross * (0.05 + 0.10 * c2)), "trouble with the legislature"))
    available = set(tables.technologies_available(ctx.turn))
    missing = [t for t in tables.SAFETY_TECHS if t in available and t not in (rr.technologies or [])]
    if u3 < DISASTER_CHANCE_PER_TECH * len(missing):
        out.append(("disaster", floor_money(gross * (0.10 + 0.10 * c3)), "a disaster that modern equipment would "
                    "have prevented"))
    return out


def reasonable_dividend(rr: Railroad, profit: int) -> int:
    """§4.12 (ruling E-4.12): a road without a player president pays out half its profit."""
    if rr.shares_issued <= 0 or profit <= 0:
        return 0
    return min(tables.MAX_DIVIDEND, math.floor(profit * 0.5 / rr.shares_issued))


def operations(ctx: TurnContext) -> None:
    """Step 13: 13.1 revenues, 13.2 expenses, 13.3 interest, 13.4 random events, 13.5
    dividends; then solvency (§4.11) and PC income (§3.4)."""
    rng = ctx.rng("operations")
    noises: dict[str, float] = {}
    parts: dict[str, dict] = {}
    for rr in ctx.active():
        noise = min(1 + NOISE_LIMIT, max(1 - NOISE_LIMIT, float(rng.normal(1.0, NOISE_SD))))
        noises[rr.code] = noise
        parts[rr.code] = revenue_parts(ctx, rr, noise)
    losses = rate_war_losses(ctx, parts)
    event_rng = ctx.rng("random-events")
    for rr in ctx.active():
        p = parts[rr.code]
        gross = int(p["gross"])
        revenue = max(0, gross - losses.get(rr.code, 0))
        expenses = operating_expenses(rr, gross)
        ctx.pay("public", account(rr), revenue, "13.1", "operating revenue")
        ctx.pay(account(rr), "public", expenses, "13.2", "operating expenses")
        bond_interest = ceil_money(rr.bond_debt * tables.BOND_RATE)
        loan_interest = ceil_money(rr.loan_debt * ctx.climate.loan_rate)
        ctx.pay(account(rr), "bank", bond_interest + loan_interest, "13.3", "bond and loan interest")
        if rr.president_debt:
            rr.president_debt += ceil_money(rr.president_debt * tables.PRESIDENT_LOAN_RATE)  # §4.4C
        event_cost = 0
        for kind, cost, what in random_events(ctx, rr, gross, event_rng):
            ctx.pay(account(rr), "public", cost, "13.4", f"random event: {kind}")
            event_cost += cost
            ctx.event("13.4", "§11.2", f"event-{kind}", f"The {rr.code} paid ${cost:,} for {what}.",
                      railroad=rr.code, amount=cost, headline=True)
        profit = revenue - expenses - bond_interest - loan_interest - event_cost
        if rr.cash >= 0:
            ctx.scratch.became_solvent.add(rr.code)
        rr.last_revenue, rr.last_expenses, rr.last_profit = revenue, expenses, profit
        ctx.scratch.operations[rr.code] = {"gross": gross, "revenue": revenue, "expenses": expenses,
                                          "bond_interest": bond_interest, "loan_interest": loan_interest,
                                          "events": event_cost, "profit": profit, "noise": round(noises[rr.code], 4),
                                          "rate_war": losses.get(rr.code, 0), "regions": p["regions"]}
        pay_dividend(ctx, rr, profit)
        ctx.event("13", "§4.10", "operations", f"The {rr.code} earned ${revenue:,}, spent ${expenses:,} to operate, "
                  f"and made ${profit:,}.", railroad=rr.code, amount=profit, data=ctx.scratch.operations[rr.code])
    for rr in ctx.active():
        settle_solvency(ctx, rr)
    private_company_income(ctx)


def pay_dividend(ctx: TurnContext, rr: Railroad, profit: int) -> None:
    """Step 13.5 (§4.12, §10.2H, §4.11B): up to $99 a share, out of the cash available."""
    ro = ctx.president_orders(rr)
    if ro is not None and ro.dividend is not None:
        rr.dividend = max(0, min(tables.MAX_DIVIDEND, ro.dividend))
    elif ctx.president_is_computer(rr):
        rr.dividend = reasonable_dividend(rr, profit)
    rate = rr.dividend
    if rr.code in ctx.scratch.bankrupt_at_start or rr.status == "bankrupt" or rr.shares_issued <= 0:
        rate = 0
    if rate > 0 and rate * rr.shares_issued > rr.cash:
        rate = max(0, rr.cash // rr.shares_issued)
    ctx.scratch.dividends_paid[rr.code] = rate
    rr.last_dividend = rate
    if rate <= 0:
        return
    for h in sorted(rr.holdings, key=lambda h: h.player_id):
        if h.shares > 0:
            ctx.pay(account(rr), account(ctx.player_by_id[h.player_id]), rate * h.shares, "13.5",
                    f"{rr.code} dividend ${rate}/share")
    ctx.pay(account(rr), "public", rate * rr.shares_public, "13.5", f"{rr.code} dividend ${rate}/share to the public")
    ctx.event("13.5", "§4.12", "dividend", f"The {rr.code} paid a dividend of ${rate} a share.", railroad=rr.code,
              amount=rate * rr.shares_issued, data={"per_share": rate})


def settle_solvency(ctx: TurnContext, rr: Railroad) -> None:
    """§4.11A–C: a road that began insolvent and did not become solvent (after market sales
    or after operations) is bankrupt; one already bankrupt is reorganized."""
    code = rr.code
    if code in ctx.scratch.insolvent_at_start and code not in ctx.scratch.became_solvent:
        if code in ctx.scratch.bankrupt_at_start:
            reorganize(ctx, rr)
        else:
            rr.status = "bankrupt"
            ctx.scratch.failed_roads.add(code)
            ctx.event("13", "§4.11B", "railroad-bankrupt", f"The {code} is bankrupt! Its president has one turn to "
                      "restore it to solvency.", railroad=code, headline=True)
    elif rr.status == "bankrupt" and code in ctx.scratch.became_solvent:
        rr.status = "active"
        ctx.event("13", "§4.11A", "railroad-solvent", f"The {code} is solvent again.", railroad=code, headline=True)
    rr.insolvent_turns = rr.insolvent_turns + 1 if rr.cash < 0 else 0


def reorganize(ctx: TurnContext, rr: Railroad) -> None:
    """§4.11C (ruling E-4.11C): the creditors take the road.  All stock is cancelled; loans
    are extinguished and the creditors make good the cash deficit; the bonds are cut so
    their interest is at most a quarter of the operating profit; 5 new shares a mile go
    to the Public at $10; the president's loan is cancelled (§4.4D)."""
    for h in rr.holdings:
        h.shares, h.short, h.director = 0, 0, False
    if rr.cash < 0:
        ctx.pay("bank", account(rr), -rr.cash, "13", "creditors cover the deficit in reorganization")
    op_profit = max(0, rr.last_revenue - rr.last_expenses)
    rr.bond_debt = min(rr.bond_debt, math.floor(0.25 * op_profit / tables.BOND_RATE))
    rr.loan_debt = 0
    rr.president_debt = 0
    shares = tables.SHARES_PER_MILE * ctx.miles(rr)
    rr.shares_authorized = rr.shares_issued = rr.shares_public = shares
    rr.treasury_shares = 0
    rr.price = 10.0
    rr.dividend = 0
    rr.status = "active"
    ctx.scratch.failed_roads.add(rr.code)
    ctx.event("13", "§4.11C", "reorganized", f"The {rr.code} has been reorganized by its creditors: all its stock "
              "is cancelled.", railroad=rr.code, headline=True)

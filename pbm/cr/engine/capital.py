"""Appendix A step 8: capital expenses — repairs and improvements (§4.5), locomotives
(§4.17) and one new technology (§4.18)."""

from __future__ import annotations

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account
from pbm.cr.engine.financing import finance
from pbm.models import Railroad

DECAY_TRIALS = 10  # ruling E-4.5A: decay ~ Binomial(10, ½), about 5 points a turn


def can_spend(ctx: TurnContext, rr: Railroad) -> bool:
    """§4.11B: a bankrupt railroad may not spend on capital (nor build, nor lobby)."""
    return rr.status == "active" and rr.code not in ctx.scratch.bankrupt_at_start


def railroad_max_efficiency(ctx: TurnContext, rr: Railroad) -> int:
    return tables.max_efficiency(ctx.miles(rr), rr.locomotive, tables.best_locomotive(ctx.turn))


def capital_expenses(ctx: TurnContext) -> None:
    """Step 8: 8.1 repairs and improvements, 8.2 locomotives, 8.3 technology."""
    repairs_and_improvements(ctx)
    upgrade_locomotives(ctx)
    buy_technology(ctx)


def repairs_and_improvements(ctx: TurnContext) -> None:
    """Step 8.1 (§4.5A–C, §10.2D): efficiency decays ~5 a turn; each $1/mile spent (at most
    $50) has a 50 % chance to add a point, up to the maximum efficiency.  Financed by
    bonds, cash and loans."""
    rng = ctx.rng("efficiency")
    for rr in ctx.active():
        decay = int(rng.binomial(DECAY_TRIALS, 0.5))
        ro = ctx.president_orders(rr)
        per_mile = min(max(0, ro.capital_per_mile if ro else 0), tables.CAPITAL_MAX_PER_MILE)
        gain = int(rng.binomial(per_mile, 0.5)) if per_mile else 0
        if not can_spend(ctx, rr):
            per_mile, gain = 0, 0
        miles = ctx.scratch.start_miles.get(rr.code, ctx.miles(rr))
        if per_mile:
            finance(ctx, rr, per_mile * miles, "8.1", f"capital improvements ${per_mile}/mile")
        before = rr.efficiency
        top = railroad_max_efficiency(ctx, rr)
        rr.efficiency = max(1, min(top, before - decay + gain))
        ctx.event("8.1", "§4.5", "efficiency", f"The {rr.code} spent ${per_mile * miles:,} on capital improvements; "
                  f"efficiency {before} → {rr.efficiency}.", railroad=rr.code, amount=per_mile * miles,
                  data={"decay": decay, "gain": gain, "max": top})


def upgrade_locomotives(ctx: TurnContext) -> None:
    """Step 8.2 (§4.17): $10 × the engine difference per mile, from cash only."""
    best = tables.best_locomotive(ctx.turn)
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or not ro.locomotive or ro.locomotive <= rr.locomotive or not can_spend(ctx, rr):
            continue
        want = min(ro.locomotive, best)
        cost = tables.locomotive_cost(ctx.miles(rr), rr.locomotive, want)
        if want <= rr.locomotive:
            continue
        if cost > rr.cash:
            ctx.event("8.2", "§4.17", "locomotive-unaffordable", f"The {rr.code} could not pay ${cost:,} in cash for "
                      f"{tables.LOCOMOTIVES[want]} engines.", railroad=rr.code, amount=cost)
            continue
        ctx.pay(account(rr), "public", cost, "8.2", f"{tables.LOCOMOTIVES[want]} locomotives")
        rr.locomotive = want
        ctx.event("8.2", "§4.17", "locomotive", f"The {rr.code} bought {tables.LOCOMOTIVES[want]} engines for "
                  f"${cost:,}.", railroad=rr.code, amount=cost, headline=True)


def technology_cost(ctx: TurnContext, rr: Railroad, letter: str) -> int:
    """§4.18: $10 per mile; a Grand Station costs $10,000 flat."""
    return tables.GRAND_STATION_COST if letter == "A" else tables.TECH_COST_PER_MILE * ctx.miles(rr)


def grand_station_allowed(ctx: TurnContext, rr: Railroad) -> bool:
    """§4.18: a line to a size 4 or 5 town at the start of the turn; one Grand Station per railroad."""
    if rr.grand_station:
        return False
    return any(ctx.towns[t].size >= 4 for t in ctx.scratch.start_towns.get(rr.code, set()))


def buy_technology(ctx: TurnContext) -> None:
    """Step 8.3 (§4.18): one new available technology per turn, paid from cash."""
    available = tables.technologies_available(ctx.turn)
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or not ro.technology or not can_spend(ctx, rr):
            continue
        letter = ro.technology.upper()
        if letter not in available or letter in (rr.technologies or []):
            ctx.event("8.3", "§4.18", "technology-void", f"The {rr.code} cannot buy technology {letter}.",
                      railroad=rr.code)
            continue
        if letter == "A" and not grand_station_allowed(ctx, rr):
            ctx.event("8.3", "§4.18", "technology-void", f"The {rr.code} may not build a Grand Station: it needs "
                      "a line to a size 4 or 5 town at the start of the turn.", railroad=rr.code)
            continue
        cost = technology_cost(ctx, rr, letter)
        if cost > rr.cash:
            ctx.event("8.3", "§4.18", "technology-unaffordable", f"The {rr.code} could not pay ${cost:,} in cash for "
                      f"{tables.TECHNOLOGIES[letter]}.", railroad=rr.code, amount=cost)
            continue
        ctx.pay(account(rr), "public", cost, "8.3", tables.TECHNOLOGIES[letter])
        rr.technologies = sorted(set(rr.technologies or []) | {letter})
        if letter == "A":
            rr.grand_station = True
        ctx.event("8.3", "§4.18", "technology", f"The {rr.code} acquired {tables.TECHNOLOGIES[letter]} for "
                  f"${cost:,}.", railroad=rr.code, amount=cost, headline=True)

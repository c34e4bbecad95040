"""Appendix A step 10: political influence (§4.9, §10.2F)."""

from __future__ import annotations

from pbm.cr.engine.context import TurnContext, account


def political_influence(ctx: TurnContext) -> None:
    """Step 10 (§4.9A–E): $1 per mile of start-of-turn track buys one level, out of cash only.

    A railroad that cannot afford what its president ordered spends what it can;
    less than the $1/mile minimum buys nothing and is not spent (ruling E-4.9B).
    Bankrupt railroads may not lobby (§4.11B).
    """
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or ro.political <= 0:
            continue
        if rr.status != "active" or rr.code in ctx.scratch.bankrupt_at_start:
            continue
        miles = max(1, ctx.scratch.start_miles.get(rr.code, ctx.miles(rr)))
        amount = min(ro.political, max(0, rr.cash))
        if amount < miles:
            ctx.event("10", "§4.9B", "influence-none", f"The {rr.code} could not spend the $1/mile minimum "
                      f"(${miles:,}) on political influence.", railroad=rr.code)
            continue
        ctx.pay(account(rr), "public", amount, "10", "political influence")
        level = amount // miles
        ctx.scratch.influence[rr.code] = level
        ctx.scratch.political_spent[rr.code] = amount
        ctx.event("10", "§4.9", "influence", f"The {rr.code} spent ${amount:,} on political influence "
                  f"(level {level}).", railroad=rr.code, amount=amount, data={"level": level})

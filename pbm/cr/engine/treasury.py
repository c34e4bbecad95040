"""Appendix A step 4: railroads sell treasury stock to their presidents (§10.2C2)."""

from __future__ import annotations

from pbm.cr.engine.context import TurnContext, account, floor_money


def treasury_stock_to_presidents(ctx: TurnContext) -> None:
    """Step 4 (§10.2C2, §4.2): the president buys treasury shares at 50 % of the start price.

    Limited by the treasury and by the president's cash after step 2; the
    shares become issued stock.  Fractions of a dollar are rounded down (§1.0).
    """
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or ro.treasury_to_president <= 0 or rr.president_id is None:
            continue
        president = ctx.player_by_id[rr.president_id]
        half = ctx.scratch.start_price[rr.code] / 2
        wanted = min(ro.treasury_to_president, rr.treasury_shares)
        affordable = int(president.cash // half) if half > 0 else wanted
        n = max(0, min(wanted, affordable))
        while n > 0 and floor_money(n * half) > president.cash:
            n -= 1
        if n <= 0:
            continue
        cost = floor_money(n * half)
        ctx.pay(account(president), account(rr), cost, "4", f"{n} treasury shares at half price")
        rr.treasury_shares -= n
        rr.shares_issued += n
        ctx.holding(president, rr).shares += n
        ctx.event("4", "§10.2C2", "treasury-to-president",
                  f"{president.character} bought {n} treasury shares of the {rr.code} for ${cost:,}.",
                  player=president.number, railroad=rr.code, amount=cost)

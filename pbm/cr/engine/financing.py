"""How railroads pay for what the bank finances (§4.6E, §4.9C, §10.2D2)."""

from __future__ import annotations

import math

from pbm.cr.engine.context import TurnContext, account
from pbm.models import Railroad


def political_reserve(ctx: TurnContext, rr: Railroad) -> int:
    """§4.9C: cash a railroad keeps back for the political spending its president ordered."""
    ro = ctx.president_orders(rr)
    return max(0, ro.political) if ro else 0


def finance(ctx: TurnContext, rr: Railroad, cost: int, step: str, memo: str, bonds_fraction: float = 0.5,
            payees: list[tuple[str, int]] | None = None) -> dict[str, int]:
    """Pay ``cost``: at least ``bonds_fraction`` by new bonds (§4.6E), the rest out of cash
    above the political reserve, and short-term loans for what is lacking (§10.2B3).
    ``payees`` receive their parts (the directors' overspending, §4.6C); the rest goes to
    the outside world.  Returns the parts."""
    if cost <= 0:
        return {"bonds": 0, "cash": 0, "loans": 0}
    bonds = math.ceil(cost * bonds_fraction)
    rest = cost - bonds
    from_cash = min(rest, max(0, rr.cash - political_reserve(ctx, rr)))
    loans = rest - from_cash
    if bonds:
        ctx.pay("bank", account(rr), bonds, step, f"bonds issued for {memo}")
        rr.bond_debt += bonds
    if loans:
        ctx.pay("bank", account(rr), loans, step, f"short-term loan for {memo}")
        rr.loan_debt += loans
    paid = 0
    for target, amount in payees or []:
        paid += ctx.pay(account(rr), target, amount, step, memo)
    ctx.pay(account(rr), "public", cost - paid, step, memo)
    return {"bonds": bonds, "cash": from_cash, "loans": loans}

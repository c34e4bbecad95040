"""Appendix A steps 1–3: bank loans of tycoons, president loans, railroad debt repayment."""

from __future__ import annotations

import math

from pbm.cr.engine.context import TurnContext, account
from pbm.models import Player


def credit_limit(net_worth: int, margin: float) -> int:
    """§3.5A: credit limit = net worth × the climate's credit margin (never below 0)."""
    return max(0, math.floor(net_worth * margin + 1e-9))


def available_credit(limit: int, loan: int) -> int:
    """§3.5A: available credit = credit limit − loan/2 (may be negative: a recall is due, §3.5C)."""
    return limit - math.ceil(loan / 2)


def max_borrow(ctx: TurnContext, player: Player) -> int:
    """§10.1A1: the most a tycoon may borrow this turn.

    Ruling E-3.5A (same as the validator's R-O3): the available credit of the
    net worth the bank examined at the end of last turn, at the margin of the
    climate the turn starts in.
    """
    limit = credit_limit(player.net_worth, ctx.climate.credit_margin)
    return max(0, available_credit(limit, player.loan))


def tycoons_borrow_or_repay(ctx: TurnContext) -> None:
    """Step 1 (§3.5, §10.1A): tycoons borrow up to available credit or repay from cash.

    Repayment reduces any loan recall due (§3.5C).
    """
    for number, player in ctx.players.items():
        orders = ctx.orders.get(number)
        if orders is None:
            continue
        if orders.borrow > 0:
            allowed = max_borrow(ctx, player)
            amount = min(orders.borrow, allowed)
            if amount < orders.borrow:
                ctx.event("1", "§10.1A1", "borrow-cut",
                          f"Loan request of ${orders.borrow:,} cut to ${amount:,}, the available credit.",
                          player=number, amount=amount, private_to=[number])
            if amount:
                ctx.pay("bank", account(player), amount, "1", "bank loan")
                player.loan += amount
                ctx.event("1", "§10.1A", "borrow", f"{player.character} borrowed ${amount:,} from the Bank.",
                          player=number, amount=amount, private_to=[number])
        if orders.repay > 0:
            amount = min(orders.repay, player.cash, player.loan)
            if amount:
                ctx.pay(account(player), "bank", amount, "1", "loan repayment")
                player.loan -= amount
                player.recall = max(0, player.recall - amount)
                ctx.event("1", "§10.1A2", "repay", f"{player.character} repaid ${amount:,} of his bank loan.",
                          player=number, amount=amount, private_to=[number])


def presidents_lend_or_are_repaid(ctx: TurnContext) -> None:
    """Step 2 (§4.4A–B, §10.2A): a president lends his railroad cash, or is repaid.

    The loan is limited to the president's cash after his bank loan; the
    repayment to the railroad's cash at the start of the turn and to the debt.
    """
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or rr.president_id is None:
            continue
        president = ctx.player_by_id[rr.president_id]
        if ro.lend > 0:
            amount = min(ro.lend, president.cash)
            if amount:
                ctx.pay(account(president), account(rr), amount, "2", "loan to railroad")
                rr.president_debt += amount
                ctx.event("2", "§4.4A", "president-loan",
                          f"{president.character} lent the {rr.code} ${amount:,}.", player=president.number,
                          railroad=rr.code, amount=amount, private_to=[president.number])
        if ro.repay_president > 0:
            amount = min(ro.repay_president, max(0, rr.cash), rr.president_debt)
            if amount:
                ctx.pay(account(rr), account(president), amount, "2", "president loan repaid")
                rr.president_debt -= amount
                ctx.event("2", "§4.4B", "president-repaid",
                          f"The {rr.code} repaid ${amount:,} to its president {president.character}.",
                          player=president.number, railroad=rr.code, amount=amount,
                          private_to=[president.number])


def railroads_repay_bank_debt(ctx: TurnContext) -> None:
    """Step 3 (§10.2B): repay short-term loans first, then bonds, out of cash on hand."""
    for rr in ctx.active():
        ro = ctx.president_orders(rr)
        if ro is None or ro.repay_debt <= 0:
            continue
        amount = min(ro.repay_debt, max(0, rr.cash), rr.loan_debt + rr.bond_debt)
        if amount <= 0:
            continue
        ctx.pay(account(rr), "bank", amount, "3", "debt repayment")
        on_loans = min(amount, rr.loan_debt)
        rr.loan_debt -= on_loans
        rr.bond_debt -= amount - on_loans
        ctx.event("3", "§10.2B", "debt-repaid", f"The {rr.code} repaid ${amount:,} of its debt to the Bank.",
                  railroad=rr.code, amount=amount)

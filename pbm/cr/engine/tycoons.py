"""Appendix A steps 7 and 14: the tycoons' financial phases (§3.4, §3.5, §5, §6.2B, §1.2 Prodigal)."""

from __future__ import annotations

import math

from pbm.cr.engine import tables
from pbm.cr.engine.climate import bank_failures
from pbm.cr.engine.context import TurnContext, account, ceil_money, floor_money
from pbm.cr.engine.loans import available_credit, credit_limit
from pbm.models import Player


def emergency_loan(ctx: TurnContext, player: Player, needed: int, step: str, why: str) -> int:
    """§6.2B, Appendix A 14.2: the Bank lends whatever a tycoon lacks to pay what he must."""
    short = needed - player.cash
    if short <= 0:
        return 0
    ctx.pay("bank", account(player), short, step, f"emergency loan: {why}")
    player.loan += short
    ctx.event(step, "§6.2B" if step.startswith("7") else "App. A 14.2", "emergency-loan",
              f"The Bank made {player.character} an emergency loan of ${short:,} ({why}).",
              player=player.number, amount=short, private_to=[player.number])
    return short


# --------------------------------------------------------------------------- step 7
def tycoon_financial_phase(ctx: TurnContext) -> None:
    """Step 7: settle trades (7.1), Prodigal spending (7.2), interest on cash (7.3),
    then bank failures on what is left on deposit (§11.1)."""
    settle_stock_trades(ctx)
    prodigal_spending(ctx)
    interest_on_cash(ctx)
    bank_failures(ctx)


def settle_stock_trades(ctx: TurnContext) -> None:
    """Step 7.1 (§6.1C, §6.3G, §6.2A–B): "stock market purchases deducted; sales added".

    Each tycoon's trades are settled as a whole: first every sale (owned shares and short
    sales, at the trade price) is added, then the shorts are covered at the end price and the
    purchases deducted, so a sale pays for a purchase of another stock in the same turn.
    The Bank lends (§6.2B) only what the whole still lacks, in one emergency loan.
    """
    by_player: dict[int, list] = {}
    for trade in ctx.scratch.trades:  # railroad by railroad; each tycoon's keep that order
        by_player.setdefault(int(trade.account.split(":")[1]), []).append(trade)
    for number in sorted(by_player):
        player = ctx.players[number]
        trades = by_player[number]
        for trade in trades:
            proceeds = floor_money((trade.sold + trade.shorted) * trade.price)
            if proceeds:
                ctx.pay("public", account(player), proceeds, "7.1",
                        f"sold {trade.sold + trade.shorted} {trade.railroad} at ${trade.price:.2f}")
        due = sum(floor_money(t.shorted * t.cover_price) + floor_money(t.bought * t.price) for t in trades)
        emergency_loan(ctx, player, due, "7.1", "settling the stock market")
        for trade in trades:
            if trade.shorted:
                cover = floor_money(trade.shorted * trade.cover_price)
                ctx.pay(account(player), "public", cover, "7.1",
                        f"covered {trade.shorted} {trade.railroad} short at ${trade.cover_price:.2f}")
                gain = floor_money(trade.shorted * trade.price) - cover
                ctx.event("7.1", "§6.2B", "short-covered",
                          f"Your short sale of {trade.shorted} {trade.railroad} at ${trade.price:.2f} was covered "
                          f"at ${trade.cover_price:.2f}: {'profit' if gain >= 0 else 'loss'} ${abs(gain):,}.",
                          player=number, railroad=trade.railroad, amount=gain, private_to=[number])
            if trade.bought:
                cost = floor_money(trade.bought * trade.price)
                ctx.pay(account(player), "public", cost, "7.1",
                        f"bought {trade.bought} {trade.railroad} at ${trade.price:.2f}")
            ctx.event("7.1", "§6.3G", "stock-trade",
                      f"{trade.railroad}: bought {trade.bought}, sold {trade.sold}, short {trade.shorted} at "
                      f"${trade.price:.2f}.", player=number, railroad=trade.railroad, private_to=[number],
                      data={"bought": trade.bought, "sold": trade.sold, "short": trade.shorted,
                            "price": trade.price})


def prodigal_spending(ctx: TurnContext) -> None:
    """Step 7.2 (§1.2 Rail Prodigal): spending of at least $1,000, out of cash."""
    for number, orders in sorted(ctx.orders.items()):
        if orders.prodigal <= 0:
            continue
        player = ctx.players[number]
        amount = min(orders.prodigal, player.cash)
        if amount < tables.PRODIGAL_MIN:
            ctx.event("7.2", "§1.2", "prodigal-void", f"Prodigal spending needs at least $1,000 in cash; "
                      f"you had ${player.cash:,}.", player=number, private_to=[number])
            continue
        ctx.pay(account(player), "public", amount, "7.2", "Prodigal spending")
        ctx.scratch.prodigal[number] = amount
        ctx.event("7.2", "§1.2", "prodigal", f"{player.character} spent ${amount:,} on a lavish display.",
                  player=number, amount=amount, headline=True)


def interest_on_cash(ctx: TurnContext) -> None:
    """Step 7.3 (§5): tycoons earn half the loan rate (start climate) on their cash, rounded down."""
    rate = ctx.climate.deposit_rate
    for number, player in ctx.players.items():
        interest = floor_money(max(0, player.cash) * rate)
        ctx.pay("bank", account(player), interest, "7.3", f"interest on cash at {rate:.1%}")


# --------------------------------------------------------------------------- step 14
def tycoon_final_financial_phase(ctx: TurnContext) -> None:
    """Step 14: loan interest (14.1), emergency loans (14.2), bankruptcy (14.3, §3.5B),
    compelled recalls and new credit limits (14.4, §3.5A/C)."""
    for number, player in ctx.players.items():
        pay_loan_interest(ctx, player)
    for number, player in ctx.players.items():
        if player.cash < 0:
            emergency_loan(ctx, player, 0, "14.2", "negative cash")
    for number, player in ctx.players.items():
        if tycoon_bankrupt(ctx, player):
            bankrupt_tycoon(ctx, player)
        else:
            compel_recall(ctx, player)
    worths = ctx.net_worths()  # setting credit changes no holding, price or PC
    for number, player in ctx.players.items():
        set_credit(ctx, player, worths[number])


def pay_loan_interest(ctx: TurnContext, player: Player) -> None:
    """Step 14.1 (§3.4, §5): interest at the start climate's rate, rounded up by the Bank (§1.0)."""
    if player.loan <= 0:
        return
    interest = ceil_money(player.loan * ctx.climate.loan_rate)
    emergency_loan(ctx, player, interest, "14.2", "loan interest")
    ctx.pay(account(player), "bank", interest, "14.1", f"loan interest at {ctx.climate.loan_rate:.0%}")


def tycoon_bankrupt(ctx: TurnContext, player: Player) -> bool:
    """§3.5B: debt exceeds assets (only a tycoon with a loan can go bankrupt)."""
    return player.loan > 0 and ctx.net_worth(player) < 0


def bankrupt_tycoon(ctx: TurnContext, player: Player) -> None:
    """§3.5B: the Bank seizes everything, forgives the debt, and gives a fresh start."""
    seized_cash = player.cash
    ctx.pay(account(player), "bank", seized_cash, "14.3", "assets seized in bankruptcy")
    for h in sorted(player.holdings, key=lambda h: h.railroad_id):
        rr = ctx.railroad_by_id[h.railroad_id]
        if h.shares:
            rr.shares_public += h.shares
            h.shares = 0
        h.short = 0
        if rr.president_id == player.id and rr.president_debt:
            rr.president_debt = 0  # ruling E-3.5B: a president loan is seized and forgiven with the rest
    for code, pc in sorted(ctx.pcs.items()):
        if pc.owner_id == player.id and pc.status == "owned":
            _pc_to_bank(ctx, pc)
    player.loan = 0
    player.recall = 0
    player.bankruptcies += 1
    ctx.pay("bank", account(player), tables.START_CASH, "14.3", "fresh start after bankruptcy")
    ctx.scratch.bankrupt_players.add(player.number)
    ctx.event("14.3", "§3.5B", "tycoon-bankrupt", f"{player.character} is bankrupt! The Bank seized his assets "
              f"and gave him a fresh start of ${tables.START_CASH:,}.", player=player.number, headline=True)


def _pc_to_bank(ctx: TurnContext, pc) -> None:
    route = ctx.route_by_id[pc.route_id]
    pc.status, pc.owner_id, pc.paid = "bank", None, 0
    pc.for_sale, pc.offered_turn = False, None
    pc.asking_price = tables.PC_BANK_PRICE_PER_MILE * route.miles


def compel_recall(ctx: TurnContext, player: Player) -> None:
    """§3.5C: an unpaid recall is taken from cash, then by random stock sales at end
    prices, lastly by selling PCs (to the Bank at their appraised value)."""
    due = min(player.recall, player.loan)
    if due <= 0:
        player.recall = 0
        return
    rng = ctx.rng(f"recall-{player.number}")
    holdings = [h for h in sorted(player.holdings, key=lambda h: h.railroad_id) if h.shares > 0]
    order = [holdings[int(i)] for i in rng.permutation(len(holdings))] if holdings else []
    while player.cash < due and order:
        h = order.pop(0)
        rr = ctx.railroad_by_id[h.railroad_id]
        need = due - player.cash
        n = min(h.shares, max(1, math.ceil(need / rr.price))) if rr.price > 0 else h.shares
        proceeds = floor_money(n * rr.price)
        h.shares -= n
        rr.shares_public += n
        ctx.pay("public", account(player), proceeds, "14.4", f"forced sale of {n} {rr.code} for a loan recall")
        ctx.event("14.4", "§3.5C", "forced-sale", f"To meet a loan recall the Bank sold {n} {rr.code} shares "
                  f"of {player.character} for ${proceeds:,}.", player=player.number, railroad=rr.code,
                  amount=proceeds, private_to=[player.number])
    for code, pc in sorted(ctx.pcs.items()):
        if player.cash >= due:
            break
        if pc.owner_id == player.id and pc.status == "owned":
            value = ctx.pc_value(pc)
            ctx.pay("bank", account(player), value, "14.4", f"forced sale of {code} for a loan recall")
            _pc_to_bank(ctx, pc)
            ctx.event("14.4", "§3.5C", "forced-sale", f"To meet a loan recall the Bank took the {code} from "
                      f"{player.character} for ${value:,}.", player=player.number, amount=value,
                      private_to=[player.number])
    paid = min(due, player.cash)
    if paid:
        ctx.pay(account(player), "bank", paid, "14.4", "loan recall")
        player.loan -= paid
        ctx.event("14.4", "§3.5C", "recall-paid", f"{player.character} paid ${paid:,} of a loan recall.",
                  player=player.number, amount=paid, private_to=[player.number])
    player.recall = 0


def set_credit(ctx: TurnContext, player: Player, worth: int | None = None) -> None:
    """Step 14.4 (§3.5A/C): net worth (``worth`` if already known), credit limit at the new
    climate's margin, and any recall."""
    player.net_worth = ctx.net_worth(player) if worth is None else worth
    player.credit_limit = credit_limit(player.net_worth, ctx.new_climate.credit_margin)
    available = available_credit(player.credit_limit, player.loan)
    player.recall = max(0, player.loan - 2 * player.credit_limit) if available < 0 else 0
    if player.recall:
        ctx.event("14.4", "§3.5C", "recall", f"The Bank recalls ${player.recall:,} of your loan; repay it next "
                  "turn or your assets will be sold.", player=player.number, amount=player.recall,
                  private_to=[player.number])

"""Private companies: step 5 (purchases and offers, §2.4, §10.1B), their income (§3.4)
and their appearance for the next turn (§2.4C)."""

from __future__ import annotations

import math

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, floor_money
from pbm.cr.orders import PCBid
from pbm.models import Player, PrivateCompany

ERA_FIRST_TURN = {1: 1, 2: 5, 3: 13}  # ruling E-2.4C: east, midwest, after the Civil War
APPEAR_BASE = 0.25  # ruling E-2.4C: chance the first eligible turn
APPEAR_STEP = 0.15  # … rising by this much each turn it did not appear
APPEAR_MAX = 0.90
PC_INCOME_PER_MILE = 1  # ruling E-3.4: a PC earns $1 a mile a turn, times the climate factor


def offered_at_start(ctx: TurnContext, pc: PrivateCompany) -> bool:
    """§10.1B2: offered by the bank, or by a player on an earlier turn."""
    if pc.status == "bank":
        return True
    return pc.status == "owned" and pc.for_sale and (pc.offered_turn or 0) < ctx.turn


def owned_count(ctx: TurnContext, player: Player) -> int:
    pid = player.id
    return sum(1 for pc in ctx.pcs.values() if pc.owner_id == pid and pc.status == "owned")


def _affordable_bids(ctx: TurnContext, player: Player, bids: list[PCBid]) -> list[PCBid]:
    """§10.1B4: bids beyond the tycoon's cash are cut in reverse sequence."""
    bids = sorted(bids, key=lambda b: (b.sequence, b.pc))[: max(0, 2 - owned_count(ctx, player))]
    cash = player.cash
    out: list[PCBid] = []
    for bid in bids:
        amount = max(0, min(bid.amount, cash))
        cash -= amount
        out.append(PCBid(bid.pc, amount, bid.sequence))
    return out


def private_company_purchases(ctx: TurnContext) -> None:
    """Step 5 (§2.4D–E, §10.1B): PCs go to the highest bid at or over the asking price.

    Bids are simultaneous; ties are broken at random.  A tycoon owns at most
    two PCs.  A PC a player offered below $10/mile that no player buys is
    bought by the Public at the asking price (§10.1B1c).
    """
    bids: dict[str, list[tuple[Player, int]]] = {}
    for number, orders in sorted(ctx.orders.items()):
        player = ctx.players[number]
        for bid in _affordable_bids(ctx, player, orders.pc_bids):
            pc = ctx.pcs.get(bid.pc)
            if pc is None or not offered_at_start(ctx, pc) or pc.owner_id == player.id:
                ctx.event("5", "§10.1B2", "pc-bid-void", f"Your bid for {bid.pc} is void: it was not for sale.",
                          player=number, private_to=[number])
                continue
            miles = ctx.route_by_id[pc.route_id].miles
            floor = max(miles, pc.asking_price or 0)
            if bid.amount < floor:
                ctx.event("5", "§10.1B3", "pc-bid-low",
                          f"Your bid of ${bid.amount:,} for {bid.pc} was below the asking price ${floor:,}.",
                          player=number, private_to=[number])
                continue
            bids.setdefault(bid.pc, []).append((player, bid.amount))
    rng = ctx.rng("pc-ties")
    for code in sorted(bids, key=lambda c: ctx.routes[c].number):
        pc = ctx.pcs[code]
        ranked = sorted(bids[code], key=lambda pb: (-pb[1], pb[0].number))
        tiebreak = {pb[0].number: float(rng.random()) for pb in ranked}
        ranked.sort(key=lambda pb: (-pb[1], tiebreak[pb[0].number]))
        for buyer, amount in ranked:
            if owned_count(ctx, buyer) >= 2 or buyer.cash < amount:
                continue
            _sell_pc(ctx, pc, buyer, amount)
            break
    for code, pc in sorted(ctx.pcs.items(), key=lambda kv: ctx.routes[kv[0]].number):
        miles = ctx.route_by_id[pc.route_id].miles
        if (pc.status == "owned" and pc.for_sale and (pc.offered_turn or 0) < ctx.turn
                and (pc.asking_price or 0) < tables.PC_PUBLIC_BELOW_PER_MILE * miles):
            seller = ctx.player_by_id[pc.owner_id]
            price = pc.asking_price or miles
            ctx.pay("public", account(seller), price, "5", f"{code} bought by the public")
            pc.status, pc.owner_id, pc.for_sale, pc.asking_price = "public", None, False, None
            ctx.event("5", "§10.1B1c", "pc-public", f"The Public bought the {code} from "
                      f"{seller.character} for ${price:,}.", player=seller.number, amount=price, headline=True)
    private_company_offers(ctx)


def _sell_pc(ctx: TurnContext, pc: PrivateCompany, buyer: Player, amount: int) -> None:
    code = ctx.route_by_id[pc.route_id].code
    if pc.status == "bank":
        ctx.pay(account(buyer), "bank", amount, "5", f"{code} bought from the bank")
        seller_text = "the Bank"
    else:
        seller = ctx.player_by_id[pc.owner_id]
        ctx.pay(account(buyer), account(seller), amount, "5", f"{code} bought from player {seller.number}")
        seller_text = seller.character
    pc.status, pc.owner_id, pc.paid = "owned", buyer.id, amount
    pc.for_sale, pc.asking_price, pc.offered_turn = False, None, None
    ctx.event("5", "§2.4E", "pc-sold", f"{buyer.character} bought the {code} from {seller_text} for ${amount:,}.",
              player=buyer.number, amount=amount, headline=True, data={"pc": code})


def ask_range(ctx: TurnContext, pc: PrivateCompany) -> tuple[int, int]:
    """§10.1B1a–b,d (ruling R-O6): $1/mile up to 20 % over what was paid — not compounding
    turn after turn — and, for a PC already offered, up to 20 % over the current ask; but
    $10/mile is always allowed.  The same as ``pbm.cr.queries.pc_ask_range``."""
    miles = ctx.route_by_id[pc.route_id].miles
    floor = tables.PC_PUBLIC_BELOW_PER_MILE * miles
    high = max(math.floor(pc.paid * 1.2), floor)
    if pc.for_sale and pc.asking_price:
        high = min(high, max(math.floor(pc.asking_price * 1.2), floor))
    return miles, high


def private_company_offers(ctx: TurnContext) -> None:
    """Step 5 (§10.1B1): owners offer PCs for sale or change the asking price."""
    for number, orders in sorted(ctx.orders.items()):
        player = ctx.players[number]
        for action in orders.pc_actions:
            if action.action != "sell":
                continue
            pc = ctx.pcs.get(action.pc)
            if pc is None or pc.owner_id != player.id or pc.status != "owned":
                continue  # bought by someone else this turn, or not his
            low, high = ask_range(ctx, pc)
            price = min(max(int(action.price or low), low), high)
            if price != action.price:
                ctx.event("5", "§10.1B1", "pc-ask-adjusted",
                          f"Asking price for {action.pc} set to ${price:,} (allowed ${low:,}–${high:,}).",
                          player=number, private_to=[number])
            if not pc.for_sale:
                pc.offered_turn = ctx.turn
            pc.for_sale, pc.asking_price = True, price
            ctx.event("5", "§10.1B1", "pc-offered", f"{player.character} offers the {action.pc} for ${price:,}.",
                      player=number, amount=price, data={"pc": action.pc})


def private_company_income(ctx: TurnContext) -> None:
    """§3.4 (ruling E-3.4): each owned PC pays its owner $1 a mile, adjusted by the climate."""
    for code, pc in sorted(ctx.pcs.items(), key=lambda kv: ctx.routes[kv[0]].number):
        if pc.status != "owned" or pc.owner_id is None:
            continue
        owner = ctx.player_by_id[pc.owner_id]
        income = floor_money(PC_INCOME_PER_MILE * ctx.route_by_id[pc.route_id].miles * ctx.climate.revenue_factor)
        ctx.pay("public", account(owner), income, "13.6", f"{code} income")


def private_companies_appear(ctx: TurnContext) -> None:
    """Step 16 (§2.4C): PCs eligible by era may appear for next turn, with rising chances."""
    next_turn = ctx.turn + 1
    rng = ctx.rng("pc-appear")
    appeared: list[str] = []
    for code, pc in sorted(ctx.pcs.items(), key=lambda kv: ctx.routes[kv[0]].number):
        draw = float(rng.random())
        if pc.status != "unavailable":
            continue
        route = ctx.route_by_id[pc.route_id]
        first = ERA_FIRST_TURN.get(route.era or 1, 13)
        if next_turn < first:
            continue
        chance = min(APPEAR_MAX, APPEAR_BASE + APPEAR_STEP * pc.eligible_turns)
        if draw < chance:
            pc.status, pc.appeared_turn = "bank", next_turn
            pc.asking_price = tables.PC_BANK_PRICE_PER_MILE * route.miles
            pc.for_sale = False
            appeared.append(code)
        else:
            pc.eligible_turns += 1
    if appeared:
        ctx.event("16", "§2.4C", "pcs-appear", "New private companies offered by the Bank: "
                  + ", ".join(appeared) + ".", headline=True, data={"pcs": appeared})

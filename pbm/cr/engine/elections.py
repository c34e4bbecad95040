"""Appendix A step 15: stock splits (§6.5), then elections of directors, chairman and
president (§4.14, §10.1D), with president-debt cancellation and looting (§4.4D)."""

from __future__ import annotations

import math

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, floor_cents, floor_money, loaded
from pbm.models import Railroad


def split_ratio(price: float) -> int:
    """§6.5: above $100 a stock splits by the smallest whole ratio that brings it to $100 or less."""
    if price <= tables.SPLIT_PRICE:
        return 1
    return math.ceil(price / tables.SPLIT_PRICE - 1e-9)


def stock_splits(ctx: TurnContext) -> None:
    """Step 15 (§6.5): shares are multiplied, the end price divided (rounded down)."""
    for rr in ctx.active():
        k = split_ratio(rr.price)
        if k <= 1:
            continue
        before = rr.price
        rr.price = floor_cents(rr.price / k)
        rr.shares_authorized *= k
        rr.shares_issued *= k
        rr.shares_public *= k
        rr.treasury_shares *= k
        for h in rr.holdings:
            h.shares *= k
            h.short *= k
        ctx.event("15", "§6.5", "split", f"{rr.code} stock split {k} for 1 (${before:.2f} → ${rr.price:.2f}).",
                  railroad=rr.code, headline=True, data={"ratio": k})


def is_director(shares: int, issued: int) -> bool:
    """§4.14A: 10 % or more of the issued stock."""
    return issued > 0 and shares > 0 and shares * 10 >= issued


def _wishes(ctx: TurnContext) -> dict[int, list[tuple[str | None, str | None]]]:
    """§10.1D: per player, per slot, (wished railroad, fallback railroad)."""
    code_of = {r.id: r.code for r in ctx.railroads.values()}
    out: dict[int, list[tuple[str | None, str | None]]] = {}
    for number, player in ctx.players.items():
        current = [code_of.get(player.slot1_id) if player.slot1_id else None,
                   code_of.get(player.slot2_id) if player.slot2_id else None]
        current = [ctx.scratch.merged_into.get(c, c) if c else None for c in current]
        orders = ctx.orders.get(number)
        resign = set(orders.resign) if orders else set()
        wanted = list(orders.control) if orders and orders.control is not None else [None, None]
        wanted = (wanted + [None, None])[:2]
        slots: list[tuple[str | None, str | None]] = []
        for i in range(2):
            now = current[i] if current[i] not in resign else None
            new = wanted[i] if wanted[i] not in resign else None
            if new and new != now:
                slots.append((new, now))
            else:
                slots.append((now, None))
        for code, numbers in ctx.scratch.president_wants.items():
            if number in numbers and code not in (slots[0][0], slots[1][0]):
                free = [i for i in range(2) if slots[i][0] is None]
                if free:
                    slots[free[0]] = (code, None)
                else:
                    ctx.event("15", "§10.1D", "control-void", f"No free control slot for the new {code}.",
                              player=number, private_to=[number])
        if slots[0][0] and slots[0][0] == slots[1][0]:
            slots[1] = (slots[1][1], None) if slots[1][1] != slots[0][0] else (None, None)
        out[number] = slots
    return out


def elections(ctx: TurnContext) -> None:
    """Step 15 (§4.14, §10.1D, §4.4D): stock splits, then directors (10 %), chairman (most
    shares), president (the director with most shares who seeks it; a failed new bid falls
    back to the railroad held in that slot); anonymous when no director seeks it."""
    stock_splits(ctx)
    wishes = _wishes(ctx)
    roads = [r for r in ctx.active()]
    # (set only where it changes: a holding marked modified costs the flush even if unchanged)
    for rr in roads:
        issued = rr.shares_issued
        for h in rr.holdings:
            shares, was = loaded(h, "shares", "director")
            director = is_director(shares, issued)
            if was != director:
                h.director = director
    for rr in ctx.railroads.values():
        if rr.status == "merged":
            for h in rr.holdings:
                if h.director is not False:
                    h.director = False
    stage = {n: [0, 0] for n in wishes}  # 0: first wish, 1: fallback, 2: nothing
    winners: dict[str, int | None] = {}
    for _ in range(4 * len(wishes) + 4):
        seeking: dict[str, list[int]] = {}
        for n, slots in wishes.items():
            for i, (first, fallback) in enumerate(slots):
                code = first if stage[n][i] == 0 else fallback if stage[n][i] == 1 else None
                if code:
                    seeking.setdefault(code, []).append(n)
        winners = {}
        for rr in roads:
            candidates = [n for n in seeking.get(rr.code, [])
                          if is_director(ctx.shares(ctx.players[n], rr), rr.shares_issued)]
            incumbent = ctx.player_by_id[rr.president_id].number if rr.president_id else None
            candidates.sort(key=lambda n: (-ctx.shares(ctx.players[n], rr), n != incumbent, n))
            winners[rr.code] = candidates[0] if candidates else None
        changed = False
        for n, slots in wishes.items():
            for i, (first, fallback) in enumerate(slots):
                code = first if stage[n][i] == 0 else fallback if stage[n][i] == 1 else None
                if code and winners.get(code) != n and stage[n][i] < 2:
                    stage[n][i] = 1 if stage[n][i] == 0 and fallback else 2
                    changed = True
        if not changed:
            break
    for rr in roads:
        _install_officers(ctx, rr, winners.get(rr.code))
    for n, player in ctx.players.items():
        slot_ids: list[int | None] = []
        for i, (first, fallback) in enumerate(wishes[n]):
            code = first if stage[n][i] == 0 else fallback if stage[n][i] == 1 else None
            won = code if code and winners.get(code) == n else None
            slot_ids.append(ctx.railroads[won].id if won else None)
        if slot_ids[0] is not None and slot_ids[0] == slot_ids[1]:
            slot_ids[1] = None  # §10.1D1: one road, one slot (a fallback met a merged road's survivor)
        player.slot1_id, player.slot2_id = slot_ids


def _install_officers(ctx: TurnContext, rr: Railroad, president: int | None) -> None:
    directors = [h for h in rr.holdings if h.director]
    old_chair = rr.chairman_id
    directors.sort(key=lambda h: (-h.shares, h.player_id != old_chair, ctx.player_by_id[h.player_id].number))
    rr.chairman_id = directors[0].player_id if directors else None
    new_id = ctx.players[president].id if president is not None else None
    old_id = rr.president_id
    if new_id == old_id:
        return
    if rr.president_debt:
        cancel_president_debt(ctx, rr)
    rr.president_id = new_id
    who = ctx.players[president].character if president is not None else "an anonymous president"
    ctx.event("15", "§4.14C", "new-president", f"{who} is the new president of the {rr.code}.",
              player=president, railroad=rr.code, headline=True)


def cancel_president_debt(ctx: TurnContext, rr: Railroad) -> None:
    """§4.4D (ruling E-4.4D): on a change of president the debt to him is cancelled, and the
    other tycoons loot the treasury of a random part (0–100 %) of it, up to the cash."""
    debt = rr.president_debt
    rr.president_debt = 0
    draw = float(ctx.rng(f"looting-{rr.code}").random())
    loot = floor_money(min(debt, max(0, rr.cash)) * draw)
    if loot:
        ctx.pay(account(rr), "public", loot, "15", "treasury looted after the president's debt was cancelled")
    ctx.event("15", "§4.4D", "president-debt-cancelled", f"The {rr.code}'s debt of ${debt:,} to its president was "
              f"cancelled{f' and ${loot:,} was looted from its treasury' if loot else ''}.", railroad=rr.code,
              amount=debt, headline=True)

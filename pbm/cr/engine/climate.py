"""The economic climate (§5), the Civil War floor (§8) and bank failures (§11.1)."""

from __future__ import annotations

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext, account, floor_money

PANIC_CHANCE = {6: 0.15, 7: 0.25, 8: 0.40}  # ruling E-5: a panic only after Good or better
BANK_FAILURE_CHANCE = {3: 0.05, 2: 0.10, 1: 0.15, 0: 0.20}  # ruling E-11.1, by start climate rank
BANK_FAILURE_MIN = 0.05


def next_rank(rank: int, u: float, v: float) -> int:
    """Ruling E-5: the next climate rank from two uniform draws.

    From Good or better a Panic strikes with chance 15 %/25 %/40 %.
    Otherwise the climate drifts: from a Panic it recovers (+1 at 50 %, +2 at
    35 %); elsewhere it improves at 55 %, stays at 30 %, slips at 15 %; a
    Boom stays at 60 % and slips at 40 %.  So it generally improves until a
    peak, often followed by a panic (§5).  A slide never reaches Panic: panics
    come only after Good or better.
    """
    if u < PANIC_CHANCE.get(rank, 0.0):
        return 0
    if rank == 0:
        return 1 if v < 0.50 else 2 if v < 0.85 else 0
    if rank == 8:
        return 8 if v < 0.60 else 7
    return rank + 1 if v < 0.55 else rank if v < 0.85 else max(1, rank - 1)


def change_climate(ctx: TurnContext) -> None:
    """§5: the climate changes during the stock market phase; revenues, interest and
    building costs of this turn keep the start climate.  During the Civil War it
    cannot fall below Normal (§8; ruling E-8: the climates changed to on turns 10–12)."""
    rng = ctx.rng("climate")
    u, v = float(rng.random()), float(rng.random())
    rank = next_rank(ctx.climate.rank, u, v)
    if ctx.turn in (10, 11, 12):
        rank = max(rank, tables.NORMAL)
    ctx.new_climate = tables.CLIMATES[rank]
    if ctx.new_climate.rank != ctx.climate.rank:
        panic = "PANIC! " if rank == 0 else ""
        ctx.event("6", "§5", "climate", f"{panic}The economic climate changes from {ctx.climate.name} to "
                  f"{ctx.new_climate.name} ({ctx.new_climate.market} market).", headline=True,
                  data={"from": ctx.climate.name, "to": ctx.new_climate.name})


def bank_failures(ctx: TurnContext) -> None:
    """§11.1 (ruling E-11.1): below Normal a tycoon's bank may fail, costing 5–33 % of his cash."""
    chance = BANK_FAILURE_CHANCE.get(ctx.climate.rank, 0.0)
    if chance <= 0:
        return
    rng = ctx.rng("bank-failures")
    for number, player in ctx.players.items():
        hit, fraction = float(rng.random()), float(rng.uniform(BANK_FAILURE_MIN, tables.BANK_FAILURE_MAX))
        if hit >= chance or player.cash <= 0:
            continue
        loss = floor_money(player.cash * fraction)
        if loss <= 0:
            continue
        ctx.pay(account(player), "public", loss, "7.4", "bank failure")
        ctx.event("7.4", "§11.1", "bank-failure", f"A bank failure cost {player.character} ${loss:,}.",
                  player=number, amount=loss, headline=True)

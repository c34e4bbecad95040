"""Appendix A step 6: the stock market (§6.1–§6.4).

The pure parts — order checking (§6.1C), the price formula (§6.3D–F) and the
allocation of shares (§6.3G) — are plain functions of numbers so that the
validator and the tests use exactly what the engine uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pbm.cr.engine import tables
from pbm.cr.engine.climate import change_climate
from pbm.cr.engine.context import Trade, TurnContext, account, ceil_cents, floor_cents
from pbm.cr.orders import StockOrder
from pbm.models import Player, Railroad

EXPONENT = 0.7  # §6.3D
RATIO_MIN, RATIO_MAX = 1 / 20, 20.0  # §6.3D
MAX_ORDERS = 6  # §6.1A
BID_PCT = 0.20  # §6.1A/B
CAP_PCT = 0.51  # §6.1A
SHORT_PCT = 0.10  # §6.2A
DIRECTOR_PCT = 0.10  # §4.14A
# The Public's valuation (§6.3A, ruling E-6.3A; calibration in docs/cr/calibration.md):
CAPITALISATION = 0.30  # fair price = (½ dividend + ½ profit a share) / (0.30 × loan rate): it pays for growth
VALUE_WEIGHT = 1.0  # how strongly a price away from fair pulls the Public's orders back toward it
MOOD_STEP = 0.09  # the climate's push on sentiment per rank above or below Normal
OFFER_BASE = 0.10  # the Public's usual offer, as a share of its holding, at neutral sentiment
OFFER_SLOPE = 0.6  # how much a bearish (bullish) sentiment raises (lowers) that share
BID_SLOPE = 0.5  # the Public's bid/offer ratio is e^(0.5 × sentiment): ×1.6 price at the strongest value pull
DEPTH = 0.7  # ruling E-6.3A2: the share of the tycoons' unmatched orders the Public meets


# --------------------------------------------------------------------------- pure functions
@dataclass
class StockLine:
    """One stock order as order checking sees it (§6.1C)."""

    railroad: str
    action: str  # "sell" (owned first, then short) or "buy"
    shares: int
    owned: int = 0
    price: float = 0.0  # start-of-turn price


@dataclass
class CheckedLine:
    railroad: str
    action: str
    asked: int
    allowed: int
    sold: int  # owned shares sold
    short: int  # shares sold short
    available_after: float


def check_stock_orders(cash: float, lines: list[StockLine]) -> list[CheckedLine]:
    """§6.1C order checking, in the tycoon's sequence.

    Sales add credit of half their value at start prices; short sales deduct
    half their value (§6.2A); purchases deduct their full cost.  A purchase or
    short sale that cannot be afforded is cut to the whole shares that can,
    regardless of later orders.  Example (§6.1C): $1800; sell 20 @20 → $2000;
    buy 100 @10 → $1000; short 50 @20 → $500; buy 100 @10 → cut to 50.
    """
    available = float(cash)
    out: list[CheckedLine] = []
    for line in lines:
        price = float(line.price)
        if line.action == "buy":
            can = math.floor(available / price + 1e-9) if price > 0 else line.shares
            allowed = max(0, min(line.shares, can))
            available -= allowed * price
            out.append(CheckedLine(line.railroad, "buy", line.shares, allowed, 0, 0, available))
            continue
        sold = min(line.shares, line.owned)
        short = line.shares - sold
        available += sold * price / 2
        if short:
            half = price / 2
            can = math.floor(available / half + 1e-9) if half > 0 else short
            short = max(0, min(short, can))
            available -= short * half
        out.append(CheckedLine(line.railroad, "sell", line.shares, sold + short, sold, short, available))
    return out


def market_price(start: float, demand: float, supply: float, exponent: float = EXPONENT) -> float:
    """§6.3D: end price = start × (Demand/Supply)^0.7, ratio kept within 1/20 … 20, at most $200.

    Rounded down to the cent (§1.0).  The rulebook's worked example (§6.3H)
    uses the ratio without the exponent; ``exponent=1`` reproduces it.
    """
    if supply <= 0 and demand <= 0:
        ratio = 1.0
    elif supply <= 0:
        ratio = RATIO_MAX
    else:
        ratio = min(RATIO_MAX, max(RATIO_MIN, demand / supply))
    return max(0.01, floor_cents(min(tables.MAX_PRICE, start * ratio ** exponent)))


def trade_price(start: float, end: float) -> float:
    """§6.3F: the median of start and end price, rounded up (to the cent)."""
    return ceil_cents((start + end) / 2)


def allocate(sold: int, bids: dict[str, int], public_bid: int, supply: float | None = None) -> dict[str, int]:
    """§6.3G: who gets the ``sold`` shares (§6.3E: the shares traded are the shares sold).

    ``supply`` is the Supply of §6.3B (offers plus one half of the short sales; the shares
    sold when there are no short sales).  If the Demand (players' and the Public's bids)
    does not exceed the Supply, every bidder gets his bid and the Public buys the rest;
    otherwise each player gets ``bid × Supply / Demand`` (rounded down) and the Public the
    rest of the shares sold.  Returns shares per bidder, with the Public under ``"public"``.
    """
    supply = sold if supply is None else supply
    demand = sum(bids.values()) + public_bid
    out: dict[str, int] = {}
    if demand <= supply:
        out.update(bids)
    else:
        for who, bid in bids.items():
            out[who] = math.floor(bid * supply / demand + 1e-9)
    out["public"] = sold - sum(out.values())
    return out


def public_orders(public_shares: int, price: float, dividend: float, earnings: float, rate: float,
                  mood: float, noise: float, noise2: float, *, player_demand: float = 0,
                  player_supply: float = 0) -> tuple[int, int]:
    """§6.1B, §6.3A (rulings E-6.3A, E-6.3A2): what the Public offers and bids.

    The Public compares the price with a "fair" price, the dividend and
    earnings per share capitalised at 0.30 × the loan rate (``CAPITALISATION``); it leans to buying in
    good climates (``mood``) and has a large random factor (``noise``).  Among the "other
    factors" of §6.1B it weighs the turn's orders (``player_demand``: the tycoons' bids;
    ``player_supply``: their sales, half their short sales and the treasury shares offered): it
    sells into a rush of buying and buys into a rush of selling, meeting ``DEPTH`` of the
    unmatched orders.  It never offers more than half its shares, and bids for 10 %–300 % of
    what it offers.  See docs/cr/formulas.md.
    """
    fair = max(0.5, (0.5 * dividend + 0.5 * max(0.0, earnings)) / max(rate * CAPITALISATION, 0.005))
    value = max(-1.5, min(1.5, math.log(fair / max(price, 0.01))))
    sentiment = mood + VALUE_WEIGHT * value + noise
    half = public_shares // 2
    offer_fraction = min(0.5, max(0.02, OFFER_BASE * math.exp(-OFFER_SLOPE * sentiment)))
    offer = min(half, math.floor(public_shares * offer_fraction))
    ratio = min(3.0, max(0.1, math.exp(BID_SLOPE * sentiment + noise2)))
    bid = math.floor(offer * ratio + 1e-9)
    excess = float(player_demand) - float(player_supply)
    if excess > 0:  # a buying rush: holders sell into it
        offer = min(half, offer + math.floor(DEPTH * excess))
    elif excess < 0:  # a selling rush: bargain hunters buy; the bid may need a larger offer (≤ 300 %)
        bid += math.floor(DEPTH * -excess)
        offer = min(half, max(offer, math.ceil(bid / 3 - 1e-9)))
    # within 10 %–300 % of the offer; rounded down, but never below 10 % of a small offer
    bid = max(math.ceil(offer * 0.1 - 1e-9), min(bid, 3 * offer))
    return offer, bid


# --------------------------------------------------------------------------- the engine step
def director_shares(ctx: TurnContext, rr: Railroad) -> int:
    return sum(h.shares for h in rr.holdings if h.director)


def is_cornered(ctx: TurnContext, rr: Railroad) -> bool:
    """§6.4: the directors own more than half the issued stock."""
    return rr.shares_issued > 0 and 2 * director_shares(ctx, rr) > rr.shares_issued


def max_bid(ctx: TurnContext, player: Player, rr: Railroad) -> int:
    """§6.1A/B: 20 % of (issued − directors' shares − the bidder's), never beyond 51 % owned."""
    own = ctx.shares(player, rr)
    h = ctx.holdings.get((player.id, rr.id))
    directors = director_shares(ctx, rr) - (own if h is not None and h.director else 0)
    available = max(0, rr.shares_issued - directors - own)
    cap = math.floor(CAP_PCT * rr.shares_issued) - own
    return max(0, min(math.floor(BID_PCT * available), cap))


def max_short(ctx: TurnContext, player: Player, rr: Railroad) -> int:
    """§6.2A/C, §10.1C4: up to 10 % of the issued stock including owned shares; none for
    directors nor in a cornered stock."""
    h = ctx.holdings.get((player.id, rr.id))
    if (h is not None and h.director) or is_cornered(ctx, rr):
        return 0
    return max(0, math.floor(SHORT_PCT * rr.shares_issued) - ctx.shares(player, rr))


def _player_lines(ctx: TurnContext, player: Player, orders: list[StockOrder]) -> list[StockLine]:
    """§6.1A limits, in the tycoon's sequence (unnumbered orders last, by railroad)."""
    number = player.number
    ordered = sorted(orders, key=lambda o: (o.priority <= 0, o.priority, o.railroad))
    limit = tables.stock_bid_count_limit(len(ctx.scratch.active_at_start))
    lines: list[StockLine] = []
    seen: set[str] = set()
    bids = 0
    for o in ordered:
        rr = ctx.railroads.get(o.railroad)
        where = f"stock order {o.action} {o.shares} {o.railroad}"
        if len(lines) >= MAX_ORDERS:
            ctx.event("6.1", "§6.1A", "stock-void", f"{where}: more than {MAX_ORDERS} transactions.",
                      player=number, private_to=[number])
            continue
        if rr is None or rr.code not in ctx.scratch.active_at_start or rr.status not in ("active", "bankrupt"):
            ctx.event("6.1", "§6.1B", "stock-void", f"{where}: not a railroad active at the start of the turn.",
                      player=number, private_to=[number])
            continue
        if rr.code in seen:
            ctx.event("6.1", "§6.1A", "stock-void", f"{where}: only one transaction per railroad.",
                      player=number, private_to=[number])
            continue
        if o.shares <= 0:
            continue
        price = ctx.scratch.start_price[rr.code]
        if o.action == "buy":
            if bids >= limit:
                ctx.event("6.1", "§6.1A", "stock-void", f"{where}: only {limit} bids allowed with "
                          f"{len(ctx.scratch.active_at_start)} railroads.", player=number, private_to=[number])
                continue
            cap = max_bid(ctx, player, rr)
            shares = min(o.shares, cap)
            if shares < o.shares:
                ctx.event("6.1", "§6.1A", "stock-cut", f"{where}: lowered to the maximum bid of {cap}.",
                          player=number, private_to=[number])
            if shares <= 0:
                continue
            bids += 1
            lines.append(StockLine(rr.code, "buy", shares, 0, price))
        else:
            owned = ctx.shares(player, rr)
            cap = owned + max_short(ctx, player, rr)
            shares = min(o.shares, cap)
            if shares < o.shares:
                ctx.event("6.1", "§6.2A", "stock-cut", f"{where}: lowered to {shares} (owned {owned}, "
                          "short sales up to 10 % of the stock).", player=number, private_to=[number])
            if shares <= 0:
                continue
            lines.append(StockLine(rr.code, "sell", shares, owned, price))
        seen.add(rr.code)
    return lines


def stock_market(ctx: TurnContext) -> None:
    """Step 6 (§5, §6): the climate changes, orders are checked, then all trading is simultaneous."""
    change_climate(ctx)
    checked = check_all_orders(ctx)
    trade_all(ctx, checked)


def check_all_orders(ctx: TurnContext) -> dict[int, list[CheckedLine]]:
    """Step 6.1 (§6.1C): each tycoon's orders against his cash and credit."""
    out: dict[int, list[CheckedLine]] = {}
    for number, orders in sorted(ctx.orders.items()):
        if not orders.stock:
            continue
        player = ctx.players[number]
        lines = _player_lines(ctx, player, orders.stock)
        result = check_stock_orders(player.cash, lines)
        for line in result:
            if line.allowed < line.asked:
                ctx.event("6.1", "§6.1C", "stock-cut",
                          f"Your order to {line.action} {line.asked} {line.railroad} was cut to {line.allowed}: "
                          "not enough cash and credit.", player=number, private_to=[number])
        out[number] = [line for line in result if line.allowed > 0]
    return out


def trade_all(ctx: TurnContext, checked: dict[int, list[CheckedLine]]) -> None:
    """Step 6.2 (§6.2, §6.3, §6.4): simultaneous trading, railroad by railroad."""
    rng = ctx.rng("public-market")
    mood = (ctx.new_climate.rank - tables.NORMAL) * MOOD_STEP
    for code in ctx.scratch.active_at_start:
        rr = ctx.railroads[code]
        noise, noise2 = float(rng.normal(0, 0.35)), float(rng.normal(0, 0.2))
        if rr.status not in ("active", "bankrupt"):
            continue
        start = ctx.scratch.start_price[code]
        issued = max(1, rr.shares_issued)
        from pbm.cr.engine.operations import projected_profit

        earnings = (rr.last_profit if rr.last_revenue else projected_profit(ctx, rr)) / issued
        ro = ctx.president_orders(rr)
        treasury = min(ro.treasury_to_market, rr.treasury_shares) if ro else 0
        sells: dict[int, int] = {}
        shorts: dict[int, int] = {}
        buys: dict[int, int] = {}
        for number, lines in checked.items():
            for line in lines:
                if line.railroad != code:
                    continue
                if line.action == "buy":
                    buys[number] = line.allowed
                else:
                    if line.sold:
                        sells[number] = line.sold
                    if line.short:
                        shorts[number] = line.short
        pub_offer, pub_bid = public_orders(rr.shares_public, start, rr.last_dividend, earnings,
                                           ctx.new_climate.loan_rate, mood, noise, noise2,
                                           player_demand=sum(buys.values()),
                                           player_supply=treasury + sum(sells.values()) + sum(shorts.values()) / 2)
        # Ruling E-6.2: shorts are covered from the Public, so together they cannot exceed
        # what the Public keeps after its own offer.
        room = max(0, rr.shares_public - pub_offer)
        if sum(shorts.values()) > room:
            total = sum(shorts.values())
            asked = shorts
            shorts = {n: math.floor(s * room / total) for n, s in shorts.items()}
            for n in sorted(asked):  # ruling E-6.2: each short seller is told
                ctx.event("6.2", "§6.2", "short-cut",
                          f"Your short sale of {asked[n]} {code} was cut to {shorts[n]}: short sales are covered "
                          f"from the Public, which kept only {room} shares after its own offer, so the "
                          f"{total} shares sold short were cut pro rata (ruling E-6.2).",
                          player=n, railroad=code, private_to=[n],
                          data={"asked": asked[n], "allowed": shorts[n], "room": room, "total": total})
            for n in list(shorts):
                if not shorts[n]:
                    del shorts[n]
        supply = pub_offer + treasury + sum(sells.values()) + sum(shorts.values()) / 2  # §6.3B
        demand = pub_bid + sum(buys.values())  # §6.3C
        end = market_price(start, demand, supply)
        price = trade_price(start, end)
        sold = pub_offer + treasury + sum(sells.values()) + sum(shorts.values())
        alloc = allocate(sold, {str(n): b for n, b in buys.items()}, pub_bid, supply=supply)  # §6.3G
        # shares move now; money is settled in the tycoon financial phase (step 7.1)
        rr.shares_public += alloc["public"] - pub_offer
        for number, n in sells.items():
            ctx.holding(ctx.players[number], rr).shares -= n
        for key, n in alloc.items():
            if key != "public" and n:
                ctx.holding(ctx.players[int(key)], rr).shares += n
        if treasury:
            rr.treasury_shares -= treasury
            rr.shares_issued += treasury
            ctx.pay("public", account(rr), math.floor(treasury * price + 1e-9), "6.2",
                    f"{treasury} treasury shares sold at ${price:.2f}")
        for number in sorted(set(sells) | set(shorts) | set(buys)):
            ctx.scratch.trades.append(Trade(f"player:{number}", code, bought=alloc.get(str(number), 0),
                                            sold=sells.get(number, 0), shorted=shorts.get(number, 0),
                                            price=price, cover_price=end))
        # §6.2B: short sales are covered at once from the Public at the end price
        rr.shares_public -= sum(shorts.values())
        rr.price = end
        ctx.scratch.market[code] = {
            "start": start, "end": end, "trade": price, "supply": supply, "demand": demand, "traded": sold,
            "public_offer": pub_offer, "public_bid": pub_bid, "public_bought": alloc["public"],
            "treasury_sold": treasury, "player_bids": sum(buys.values()), "player_sales": sum(sells.values()),
            "short_sales": sum(shorts.values()),
        }
        if end != start:
            direction = "rose" if end > start else "fell"
            ctx.event("6.2", "§6.3", "stock-price", f"{rr.code} stock {direction} from ${start:.2f} to ${end:.2f} "
                      f"on {sold} shares traded at ${price:.2f}.", railroad=code,
                      headline=abs(end - start) >= 0.25 * start, data=ctx.scratch.market[code])
        if is_cornered(ctx, rr):
            ctx.event("6.2", "§6.4", "cornered", f"{rr.code} stock is cornered: its directors own more than "
                      "half of it.", railroad=code, headline=True)

"""Typed events: what each action of an 18xx game caused, in plain words (issue 29 item 2).

The engine replays an action log; an event is a consequence of one action that a player
should hear of: an auction won, the routes a company ran, a dividend and who got what, a
share price move (with the market cells), a phase change and what it unlocks and closes,
trains rusting, a private closing, a new president, a loan, a receivership, an objective
bonus, a bankruptcy, the end of a round and what comes next, the end of the game.

How they are found (docs/18xx/engine.md, "Events"): :func:`attach` gives a game a
:class:`Recorder`.  For every action the game processes, the recorder takes a compact
public snapshot (:class:`Snap`: cash, share prices and cells, presidents, trains, privates,
phase, loans, round) before and after, and turns the difference (plus the action itself)
into events.  Two things a snapshot cannot separate are caught where they happen: the
routes of a run (the round's routes right after a ``run_routes``) and a dividend (the
company's ``_pay_dividend`` is wrapped, so the money of the dividend is told apart from
private revenue paid in the same action).  The round code is never changed by this: an
event is derived from the state, so the rounds may change freely.

Every event is a frozen dataclass with ``seq`` (the number of the action that caused it,
1 for the first action) and ``text(money)``: one line in plain words, money written by
``money`` (:func:`money_of`: the title's currency, 1848's pound).
"""
from __future__ import annotations

import re

from dataclasses import dataclass, fields, replace as _replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from pbm.e18xx.core.errors import GameError
from pbm.e18xx.english import a as article
from pbm.e18xx.render.words import phase_name, word

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine as Game  # the game as a protocol: no import circle with core.game

Money = Callable[[Any], str]


def money_of(title: Any) -> Money:
    """Money in the title's currency (title data ``currency``, e.g. ``"£%s"``; ``$`` otherwise)."""
    from pbm.e18xx.core.title import money

    return lambda amount: money(title, amount)


def _list(items: list[str] | tuple[str, ...]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# ------------------------------------------------------------------ the events
@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""
    seq: int

    def text(self, money: Money) -> str:  # pragma: no cover - every kind says its own
        raise NotImplementedError

    def to_dict(self, money: Money) -> dict[str, Any]:
        """The event as plain data (``pbm 18xx log --events --json``): its kind, its fields, its text."""
        d: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            v = getattr(self, f.name)
            d[f.name] = [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v
        d["text"] = self.text(money)
        return d


@dataclass(frozen=True)
class AuctionWon(Event):
    kind: ClassVar[str] = "auction_won"
    company: str = ""
    player: str = ""
    price: int = 0

    def text(self, money: Money) -> str:
        return f"{self.player} gets {self.company} for {money(self.price)}"


@dataclass(frozen=True)
class PriceLowered(Event):
    """A private's price lowered in a falling-price sale (1848 3.1.1; play-through s11: 'lower P5' said
    nothing of the new price)."""
    kind: ClassVar[str] = "private_lowered"
    player: str = ""
    company: str = ""
    price: int = 0  # its price now
    lowest: int = 0
    rule: str = ""

    def text(self, money: Money) -> str:
        return (f"{self.player} lowers {self.company}'s price to {money(self.price)} (lowest {money(self.lowest)})"
                + (f" (rule {self.rule})" if self.rule else ""))


@dataclass(frozen=True)
class AuctionBegan(Event):
    """A private goes to auction among the players who bid on it (issue 29 finding 10)."""
    kind: ClassVar[str] = "auction_began"
    company: str = ""
    bids: tuple[tuple[str, int], ...] = ()  # (player, bid), highest first
    first: str = ""  # who speaks first

    def text(self, money: Money) -> str:
        bids = _list([f"{p} {money(b)}" for p, b in self.bids])
        return (f"The auction of {self.company} begins between its bidders ({bids})"
                + (f"; {self.first} speaks first: bid more or pass" if self.first else ""))


@dataclass(frozen=True)
class ShareWithPrivate(Event):
    """The share a private brings its buyer (18GA's M&BR: a CoG share; 1848's P6: CAR's president's
    certificate; issue 29 finding 10)."""
    kind: ClassVar[str] = "share_with_private"
    company: str = ""
    player: str = ""
    corp: str = ""
    percent: int = 0
    president: bool = False

    def text(self, money: Money) -> str:
        what = (f"the president's certificate of {self.corp}" if self.president
                else f"{article(self.corp)} share")
        return f"{self.player} receives {what} ({self.percent}%) with {self.company}"


@dataclass(frozen=True)
class PrivateSold(Event):
    kind: ClassVar[str] = "private_sold"
    company: str = ""
    seller: str = ""
    buyer: str = ""
    price: int = 0

    def text(self, money: Money) -> str:
        return f"{self.buyer} buys {self.company} from {self.seller} for {money(self.price)}"


@dataclass(frozen=True)
class FreeTrain(Event):
    """A private's free train going to the company that bought it (18GA's Ocilla Southern, Table III:
    "the corporation immediately gets the 2 Train marked 'Free'"), or why it did not (play-through s10b
    finding 11)."""
    kind: ClassVar[str] = "free_train"
    company: str = ""
    corp: str = ""
    train: str = ""
    train_id: str = ""
    why_not: str = ""  # "" when the company got it

    def text(self, money: Money) -> str:
        if self.why_not:
            return f"{self.corp} gets no free train with {self.company}: {self.why_not}"
        return f"{self.corp} gets {self.company}'s free {self.train} train with it (not a train purchase)"


@dataclass(frozen=True)
class SharesSold(Event):
    """A sale of shares: what the seller got and where the price went (issue 29 finding 14)."""
    kind: ClassVar[str] = "shares_sold"
    seller: str = ""
    corp: str = ""
    count: int = 0  # certificates sold
    got: int = 0  # what the seller received
    old: int = 0  # the share price before and after the sale
    new: int = 0
    at_bottom: bool = False  # the price would fall but is at the foot of its column already

    def text(self, money: Money) -> str:
        out = f"{self.seller} sells {self.count} {self.corp} share{'' if self.count == 1 else 's'} for {money(self.got)}"
        if self.new < self.old:
            return out + f"; {self.corp} falls to {money(self.new)}"
        if self.new > self.old:
            return out + f"; {self.corp} rises to {money(self.new)}"
        if self.at_bottom:  # play-through s12 mail #110: "VR stays at $90" and not why
            return out + f"; {self.corp} stays at {money(self.new)}: it is at the foot of its column on the chart"
        return out + f"; {self.corp} stays at {money(self.new)}"


@dataclass(frozen=True)
class SharesBought(Event):
    """A share purchase or a company started at its par price: what the buyer paid, where the
    certificate came from, what he holds now (issue 29: the mails said 'Cy: buy N&W ipo' and never
    the price)."""
    kind: ClassVar[str] = "shares_bought"
    buyer: str = ""
    corp: str = ""
    percent: int = 0  # of the company, bought by this action
    source: str = ""  # "the IPO", "the open market", "N&W's treasury"
    paid: int = 0
    holds: int = 0  # the buyer's percent of the company afterwards
    par: int = 0  # the par price, when the action started the company

    def text(self, money: Money) -> str:
        if self.par:
            return (f"{self.buyer} starts {self.corp} at a par price of {money(self.par)}: the president's "
                    f"certificate ({self.percent}%) from {self.source} for {money(self.paid)}")
        return (f"{self.buyer} buys {self.percent}% of {self.corp} from {self.source} for {money(self.paid)}; "
                f"{self.buyer} now holds {self.holds}%")


@dataclass(frozen=True)
class PrivatesPaid(Event):
    kind: ClassVar[str] = "private_revenue"
    paid: tuple[tuple[str, int], ...] = ()  # (owner, amount)

    def text(self, money: Money) -> str:
        return "The private companies pay their owners: " + "; ".join(f"{o} {money(a)}" for o, a in self.paid)


@dataclass(frozen=True)
class LenderDividend(Event):
    kind: ClassVar[str] = "lender_dividend"
    corp: str = ""
    total: int = 0
    holders: tuple[tuple[str, int], ...] = ()

    def text(self, money: Money) -> str:
        paid = "; ".join(f"{n} {money(a)}" for n, a in self.holders) or "no player holds a share"
        return f"{self.corp} pays its shareholders {money(self.total)} from the bank: {paid}"


@dataclass(frozen=True)
class Floated(Event):
    kind: ClassVar[str] = "floated"
    corp: str = ""
    cash: int = 0

    def text(self, money: Money) -> str:
        return f"{self.corp} floats; its treasury now holds {money(self.cash)}"


@dataclass(frozen=True)
class RouteRun(Event):
    kind: ClassVar[str] = "route"
    corp: str = ""
    train: str = ""  # the train's type (2, 3, 4D, 1G ...)
    train_id: str = ""
    stops: tuple[str, ...] = ()  # the route's stops in order, each with its name ("F8 Atlanta", "D4-1 Atlanta")
    revenue: int = 0
    gauge: int = 0  # changes of gauge on the route (1848 7.6: each counts against the range)
    bonus: int = 0  # the part of the revenue that is a bonus for labelled cities (1848 10.4, K-K)
    gauge_rule: str = ""
    bonus_rule: str = ""
    free_gauge: int = 0  # of the changes, those a + train runs without counting (8.2.3)
    # the revenue beyond the stops' values, each (words, amount): 18AL's 4D counting its cities twice,
    # the SNAR marker, the M&C's Robert E. Lee and Pan American (Table III; play-through s13: "for $150"
    # said nothing of the $20 Robert E. Lee bonus in it)
    extras: tuple[tuple[str, int], ...] = ()

    def text(self, money: Money) -> str:
        # the train by its type, as the rulebooks and the mails' moves name it ('run 2 E4 E2'), never its
        # id (play-throughs s11: "2 train (2-0)" was read as an internal name; the id is in the JSON)
        out = f"{self.corp}'s {self.train} train runs {' - '.join(self.stops)} for {money(self.revenue)}"
        notes = []
        if self.gauge:
            free = min(self.free_gauge, self.gauge)
            counted = ("counted against its range" if not free else "free for a + train" if free == self.gauge
                       else f"{self.gauge - free} counted against its range ({free} free for a + train)")
            notes.append(f"{self.gauge} change{'' if self.gauge == 1 else 's'} of gauge on the way, {counted}"
                         + (f" (rule {self.gauge_rule})" if self.gauge_rule else ""))
        if self.bonus:
            notes.append(f"{money(self.bonus)} of it the bonus for its K cities"
                         + (f" (rule {self.bonus_rule})" if self.bonus_rule else ""))
        notes += [f"{money(amount)} of it {words}" for words, amount in self.extras]
        return out + (f"; {'; '.join(notes)}" if notes else "")


@dataclass(frozen=True)
class TrainIdle(Event):
    """A train of the company that ran no route, and why (18VA's 1G that reaches no mine or coal
    district: play-through s10b finding 3)."""
    kind: ClassVar[str] = "train_idle"
    corp: str = ""
    train: str = ""  # as players name it ("1G")
    id: str = ""
    why: str = ""
    other: bool = False  # a train of the same name ran: this one is "the other" (play-through s15c)

    def text(self, money: Money) -> str:
        return f"{self.corp}'s {'other ' if self.other else ''}{self.train} train runs no route: {self.why}"


@dataclass(frozen=True)
class RunTotal(Event):
    kind: ClassVar[str] = "run"
    corp: str = ""
    revenue: int = 0
    subsidy: int = 0  # paid to the treasury besides the revenue (18VA's coal district stations)
    trains: int = 0

    def text(self, money: Money) -> str:
        if not self.trains:
            return f"{self.corp} runs no train: no revenue"
        return f"{self.corp} earns {money(self.revenue)} in all" + (
            f" (and {money(self.subsidy)} for its treasury)" if self.subsidy else "")


@dataclass(frozen=True)
class DividendPaid(Event):
    kind: ClassVar[str] = "dividend"
    corp: str = ""
    how: str = "payout"  # payout | withhold
    revenue: int = 0
    per_share: float = 0
    holders: tuple[tuple[str, int], ...] = ()  # (player, amount), seat order
    treasury: int = 0  # to the company's treasury (withheld, or its market shares' part)
    moved: bool = False  # a run earning nothing moved the share price (as withholding does)
    rule: str = ""  # the withholding rule, then

    def text(self, money: Money) -> str:
        if self.how != "payout" or not self.revenue:
            if not self.revenue:
                return f"{self.corp} earns nothing: no dividend" + (
                    "; earning nothing counts as withholding" + (f" (rule {self.rule})" if self.rule else "")
                    if self.moved else "")
            return f"{self.corp} withholds {money(self.revenue)}: all of it goes to its treasury"
        paid = "; ".join(f"{n} {money(a)}" for n, a in self.holders) or "no player holds a share"
        tail = f"; to its treasury {money(self.treasury)}" if self.treasury else ""
        return f"{self.corp} pays out {money(self.revenue)}, {money(self.per_share)} a share: {paid}{tail}"


@dataclass(frozen=True)
class PriceMoved(Event):
    kind: ClassVar[str] = "price"
    corp: str = ""
    old: int = 0
    new: int = 0
    old_cell: tuple[int, int] = (0, 0)  # (row, column) of the market, counted from 1
    new_cell: tuple[int, int] = (0, 0)
    why: str = ""  # the cause when no move of the line says it (the end of a stock round, 18AL 3.6)

    def text(self, money: Money) -> str:
        way = "up" if self.new > self.old else "down" if self.new < self.old else "across"
        return (f"{self.corp}'s share price goes {way} from {money(self.old)} to {money(self.new)} "
                f"(market row {self.old_cell[0]} column {self.old_cell[1]} -> row {self.new_cell[0]} "
                f"column {self.new_cell[1]})" + (f": {self.why}" if self.why else "")
                + (f"; {self.corp} is worth nothing now" if self.new == 0 else ""))


@dataclass(frozen=True)
class PriceStayed(Event):
    """A dividend (or a withhold) that leaves the share price where it is, and why (issue 29):
    ``below`` an 18VA dividend less than the price (18VA 3.2); ``top`` a payout at the top of the
    chart's last column, ``bottom`` a withhold at the foot of its first column (no cell to go to)."""
    kind: ClassVar[str] = "price_stays"
    corp: str = ""
    price: int = 0
    why: str = "below"  # below | top | bottom | sold_out (the stock round's rise, in the top row: 18AL 3.6)
    revenue: int = 0
    rule: str = ""  # the title's section, "" if it names none

    def text(self, money: Money) -> str:
        see = f" (rule {self.rule})" if self.rule else ""
        if self.why == "below":
            because = (f"the dividend, {money(self.revenue)}, is less than the share price, and only a dividend "
                       f"of at least the price moves it right")
        elif self.why == "top":
            because = "it is at the top of the chart's last column: a payout has no cell to move it to"
        elif self.why == "sold_out":
            because = ("at the end of the stock round all its shares are owned by players, but it is in the top "
                       "row of the chart: there is no cell to move it up to")
        else:
            because = "it is at the foot of the chart's first column: a withhold has no cell to move it to"
        return f"{self.corp}'s share price stays at {money(self.price)}: {because}{see}"


@dataclass(frozen=True)
class PhaseChanged(Event):
    kind: ClassVar[str] = "phase"
    old: str = ""
    new: str = ""
    unlocks: tuple[str, ...] = ()
    closes: tuple[str, ...] = ()
    words: str = ""  # the book's names for the two (render/words.py: "3/3+ Phase begins (was the 2/2+ Phase)")

    def text(self, money: Money) -> str:
        out = self.words or f"Phase {self.new} begins (was {self.old})"
        if self.unlocks:
            out += f"; now: {'; '.join(self.unlocks)}"
        if self.closes:
            out += f"; no longer: {'; '.join(self.closes)}"
        return out


@dataclass(frozen=True)
class TrainsRusted(Event):
    kind: ClassVar[str] = "rust"
    train: str = ""
    lost: tuple[tuple[str, int], ...] = ()  # (company or "the open market", trains)

    def text(self, money: Money) -> str:
        who = _list([f"{c} loses {n} train{'s' if n != 1 else ''}" for c, n in self.lost])  # "loses 2" read as the type
        return f"The {self.train} trains rust" + (f": {who}" if who else " (nobody owned one)")


@dataclass(frozen=True)
class TrainsObsolete(Event):
    kind: ClassVar[str] = "obsolete"
    train: str = ""
    holders: tuple[tuple[str, int], ...] = ()

    def text(self, money: Money) -> str:
        who = _list([f"{c} ({n})" for c, n in self.holders])
        return f"The {self.train} trains become obsolete: they run once more, then leave" + (
            f" - held by {who}" if who else "")


@dataclass(frozen=True)
class TrainLeft(Event):
    kind: ClassVar[str] = "train_left"
    train: str = ""
    train_id: str = ""
    owner: str = ""  # "" for the depot
    bank: str = "depot"  # the title's word for where new trains are (18GA 1.4: the Initial Offering)

    def text(self, money: Money) -> str:
        # by its type, not the engine's id '4-2' (issue 29 problem 6; play-through s12); the id stays in the JSON
        if not self.owner:
            return f"{_a(self.train).capitalize()} {self.train} train leaves the game from the {self.bank}"
        return f"{self.owner}'s obsolete {self.train} train has run its last and leaves"


@dataclass(frozen=True)
class TrainDiscarded(Event):
    """A train a company discards down to its train limit, and where it goes (play-through s10b finding 9)."""
    kind: ClassVar[str] = "train_discarded"
    corp: str = ""
    train: str = ""
    train_id: str = ""
    limit: int = 0  # the company's train limit now
    rule: str = ""
    removed: bool = False  # out of the game (1848 8.1), not back to the bank
    pool: str = "open market"  # the title's word for it (18GA 1.4: the Open Market; 18VA: the Pool)

    def text(self, money: Money) -> str:
        rule = f" (rule {self.rule})" if self.rule else ""
        where = ("the train is removed from the game" if self.removed
                 else f"the train goes back to the bank, which offers it in the {self.pool}")
        return (f"{self.corp} discards its {self.train} train down to its train limit of "
                f"{self.limit}{rule}; {where}")


@dataclass(frozen=True)
class TrainBought(Event):
    """A train a company buys, from whom and for how much (play-through s11: "#31 ABC: buy train 2"
    said nothing of the $100 or of the bank)."""
    kind: ClassVar[str] = "train_bought"
    corp: str = ""
    train: str = ""
    source: str = ""  # "the bank", "the open market" or the selling company
    price: int = 0

    def text(self, money: Money) -> str:
        return f"{self.corp} buys {_a(self.train)} {self.train} train from {self.source} for {money(self.price)}"


@dataclass(frozen=True)
class MarkerPlaced(Event):
    """A private's revenue marker put on a hex (18AL's South & North Alabama: play-through s11, where
    'assign SNAR G4' said nothing and the state never showed the marker)."""
    kind: ClassVar[str] = "marker_placed"
    corp: str = ""
    company: str = ""
    where: str = ""
    bonus: int = 0

    def text(self, money: Money) -> str:
        return (f"{self.corp} puts {self.company}'s +{money(self.bonus)} marker on {self.where}: each of "
                f"{self.corp}'s trains running there earns {money(self.bonus)} more")


@dataclass(frozen=True)
class PrivateClosed(Event):
    kind: ClassVar[str] = "private_closed"
    company: str = ""
    owner: str = ""
    why: str = ""  # "phase 5", "CAR bought a train", "SAR went into receivership" ...
    keeps: str = ""  # the ability its owner keeps after the close (1848 4.1: P2's and P4's discounts)

    def text(self, money: Money) -> str:
        return f"Private {self.company} closes" + (f" ({self.why})" if self.why else "") + (
            f"; {self.owner} owned it" if self.owner else "") + (
            f"; {self.owner or 'its owner'} keeps its ability: {self.keeps}" if self.keeps else "")


@dataclass(frozen=True)
class PresidentChanged(Event):
    kind: ClassVar[str] = "president"
    corp: str = ""
    old: str = ""
    new: str = ""

    def text(self, money: Money) -> str:
        if not self.new:
            return f"{self.corp} has no president now (was {self.old})"
        return f"{self.new} becomes president of {self.corp}" + (f" (was {self.old})" if self.old else "")


@dataclass(frozen=True)
class LoanTaken(Event):
    kind: ClassVar[str] = "loan"
    corp: str = ""
    count: int = 1  # loans taken by this action
    amount: int = 0
    total: int = 0  # the company's loans now
    left: int | None = None  # loans the lender has left

    def text(self, money: Money) -> str:
        n = "a loan" if self.count == 1 else f"{self.count} loans"
        out = f"{self.corp} takes {n} ({money(self.amount)}); it has {self.total} in all"
        return out + (f"; {self.left} left to lend" if self.left is not None else "")


@dataclass(frozen=True)
class LoanRepaid(Event):
    kind: ClassVar[str] = "loan_repaid"
    corp: str = ""
    count: int = 1
    total: int = 0

    def text(self, money: Money) -> str:
        return f"{self.corp} repays {self.count} loan(s); it has {self.total} left"


@dataclass(frozen=True)
class Receivership(Event):
    kind: ClassVar[str] = "receivership"
    corp: str = ""
    director: str = ""
    number: int = 0  # the game's receiverships so far
    lender: str = "lender"  # who takes its stations (1848: the Bank of England)
    unbought: str = ""  # the train a forced purchase did not buy (1848 8.4.2), with its rule
    paid: tuple[tuple[str, int, int], ...] = ()  # (player, amount, shares): the compensation (1848 5.5.2)
    paid_rule: str = ""
    limits: str = ""  # the certificate limits now, in words (1848 5.5.4)

    def text(self, money: Money) -> str:
        out = f"{self.corp} goes into receivership (the game's {_ordinal(self.number)})"
        if self.unbought:
            out += f": its price reached the receivership area, so the {self.unbought}"
        out += (f"; its stations go to the {self.lender}, its trains and privates leave the game, its treasury "
                f"goes to the bank" + (f"; {self.director} was its director" if self.director else ""))
        if self.paid:
            rule = f" (rule {self.paid_rule})" if self.paid_rule else ""
            out += "; it pays its other shareholders for their shares" + rule + ": " + "; ".join(
                f"{n} {money(a)} for {k} share{'s' if k != 1 else ''}" for n, a, k in self.paid)
        return out + (f"; {self.limits}" if self.limits else "")


@dataclass(frozen=True)
class ObjectivePaid(Event):
    kind: ClassVar[str] = "objective"
    corp: str = ""
    hex: str = ""
    bonus: int = 0

    def text(self, money: Money) -> str:
        return f"{self.corp} reaches its objective {self.hex}: {money(self.bonus)} from the bank to its treasury"


@dataclass(frozen=True)
class Underwritten(Event):
    """18VA 4.4: the sixth share of a ten-share company sold, the chartering state underwrites the
    rest: the company gets five times the share price in all, its last shares go to the market
    (play-through s10b finding 4)."""
    kind: ClassVar[str] = "underwritten"
    corp: str = ""
    price: int = 0  # the share price
    paid: int = 0  # what the bank paid for the last shares
    shares: int = 0  # how many went to the market
    rule: str = ""
    pool: str = "open market"  # the title's word (18VA 4.4: the Pool)

    def text(self, money: Money) -> str:
        total = self.paid + self.price
        times = total // self.price if self.price else 0
        rule = f"rule {self.rule}, " if self.rule else ""
        return (f"{self.corp} receives {money(total)} for its sixth share: \"the Corporation receives a total of five "
                f"times the Current Market Value\" ({rule}the state underwriting its stock): {times} x "
                f"{money(self.price)}, the share's {money(self.price)} and {money(self.paid)} from the bank; its last "
                f"{self.shares} shares go to the {self.pool} ('buy {self.corp} market')")


@dataclass(frozen=True)
class Converted(Event):
    kind: ClassVar[str] = "converted"
    corp: str = ""
    old_size: int = 5
    new_size: int = 10
    tokens: int = 0  # station tokens it gets (title data ``conversion.tokens``)
    ipo: str = "IPO"  # the title's word for where new shares are (18VA 4.5.1: the Treasury)
    started: bool = True  # not started: it starts with the new size (18VA 4.4.1; play-through s12v)

    def text(self, money: Money) -> str:
        if not self.started:
            return (f"{self.corp}, not started yet, will start as a "
                    f"{'ten' if self.new_size == 10 else self.new_size}-share company")
        return (f"{self.corp} converts from {self.old_size} to {self.new_size} shares: each certificate now counts "
                f"{'half' if self.new_size == 2 * self.old_size else 'less'}, the new shares go to its {self.ipo}"
                + (f"; it gets {self.tokens} more station token(s)" if self.tokens else ""))


def end_reason_words(g: "Game", reason: str | None = None) -> str:
    """Why the game ends, in the rulebook's words (play-through s12: "The game is over (stock_market)"):
    ``WRA's share price reached the top of the market ($300) (rule 5(b))``, ``the bank ran out of money (rule 5(a))``."""
    from pbm.e18xx.rounds.cite import see

    s = g.state
    reason = reason if reason is not None else str(s.end_reason or (s.end_trigger or ("",))[0] or "")
    if reason == "stock_market":
        top = []
        for sym, c in s.corporations.items():
            if c.price is not None:
                cell = g.title.market[c.price[0]][c.price[1]]
                if cell is not None and cell.kind == "e":
                    top.append((sym, cell.price))
        if top:
            who = _list([sym for sym, _ in top])
            return (f"{who}'s share price reached the top of the market ({g.title.money(top[0][1])})"
                    f"{see(g.title, 'end_market')}")
        return f"a share price reached the top of the market{see(g.title, 'end_market')}"
    if reason == "bank":
        return f"the bank ran out of money{see(g.title, 'end_bank')}"
    if reason == "bankrupt":
        return f"a player went bankrupt{see(g.title, 'end_bankrupt')}"
    if reason == "receiverships":
        return "enough companies are in receivership"
    return reason


@dataclass(frozen=True)
class EndTriggered(Event):
    kind: ClassVar[str] = "end_triggered"
    reason: str = ""  # bank | stock_market | receiverships | ...
    when: str = ""  # immediate | current_or | full_set
    detail: str = ""  # the reason in words (``end_reason_words``): "WRA's share price reached $300 ... (rule 5(b))"

    def text(self, money: Money) -> str:
        why = {"bank": "The bank is broken", "stock_market": "A share price reached the end of the market",
               "receiverships": "Enough companies are in receivership"}.get(self.reason, f"The game's end ({self.reason})")
        if self.detail:
            why = self.detail[:1].upper() + self.detail[1:]
        when = {"current_or": "the game ends after this operating round",
                "full_set": "the game ends after the current set of operating rounds",
                "immediate": "the game ends now"}.get(self.when, f"the game ends ({self.when})")
        return f"{why}: {when}"


@dataclass(frozen=True)
class PresidentPaid(Event):
    kind: ClassVar[str] = "president_paid"
    player: str = ""
    corp: str = ""
    amount: int = 0

    def text(self, money: Money) -> str:
        return f"{self.player}, its president, pays {money(self.amount)} towards {self.corp}'s train"


@dataclass(frozen=True)
class CorpClosed(Event):
    kind: ClassVar[str] = "corp_closed"
    corp: str = ""

    def text(self, money: Money) -> str:
        return f"{self.corp} closes"


@dataclass(frozen=True)
class Bankruptcy(Event):
    kind: ClassVar[str] = "bankrupt"
    player: str = ""

    def text(self, money: Money) -> str:
        return f"{self.player} goes bankrupt"


@dataclass(frozen=True)
class RoundEnded(Event):
    kind: ClassVar[str] = "round_end"
    ended: str = ""
    next: str = ""
    detail: str = ""  # the operating order, or who acts first in a stock round

    def text(self, money: Money) -> str:
        return f"{self.ended} ends; next: {self.next}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class DepotNext(Event):
    kind: ClassVar[str] = "depot"
    sold_out: str = ""  # the train type no longer offered
    next: str = ""  # the type the depot offers now ("" when it is empty)
    price: int = 0
    bank: str = "depot"  # the title's word for where new trains are (18GA 1.4: the Initial Offering)

    def text(self, money: Money) -> str:
        if not self.next:
            return f"The last {self.sold_out} train is sold: the {self.bank} is empty"
        return (f"The {self.sold_out} trains are sold out: the {self.bank} now offers {self.next} trains at "
                f"{money(self.price)}")


@dataclass(frozen=True)
class StationPlaced(Event):
    kind: ClassVar[str] = "station"
    corp: str = ""
    hex: str = ""  # with its name ("F11 Richmond"), and its stop on a hex of several ("D4-1 Atlanta")

    def text(self, money: Money) -> str:
        return f"{self.corp}'s station goes down in {self.hex}"


@dataclass(frozen=True)
class TileCost(Event):
    """What a tile lay cost the company: the hex's terrain (play-through s10b finding 2)."""
    kind: ClassVar[str] = "tile_cost"
    corp: str = ""
    tile: str = ""
    hex: str = ""
    terrain: str = ""  # the hex's terrain ("river", "mountain"), "" if the title names none
    cost: int = 0

    def text(self, money: Money) -> str:
        if not self.cost:
            return f"{self.corp} lays {self.tile} on {self.hex}"
        what = f"{self.terrain}: {money(self.cost)}" if self.terrain else f"terrain: {money(self.cost)}"
        return f"{self.corp} lays {self.tile} on {self.hex} ({what})"


@dataclass(frozen=True)
class StationBought(Event):
    """A station a company placed by its move, and what it cost (play-through s10b finding 2)."""
    kind: ClassVar[str] = "station_bought"
    corp: str = ""
    hex: str = ""
    cost: int = 0

    def text(self, money: Money) -> str:
        return f"{self.corp} places a station in {self.hex} " + (f"for {money(self.cost)}" if self.cost else "at no cost")


@dataclass(frozen=True)
class AutoPassed(Event):
    """A stock-round turn the engine passed because the player could neither buy nor sell."""
    kind: ClassVar[str] = "auto_pass"
    player: str = ""
    next_round: bool = False  # passed in the stock round the action began: said after the round's end (s13)

    def text(self, money: Money) -> str:
        return f"{self.player} passes automatically: no purchase or sale is open now"


END_WORDS = {"bank": "the bank ran out of money", "stock_market": "a share price reached the top of the market",
             "bankrupt": "a player went bankrupt", "manually_ended": "the moderator ended it",
             "no one can act": "no one can act any more"}


def end_words(reason: str | None) -> str:
    """Why a game ended, in words: the engine's ``end_reason`` (``stock_market``) is an internal
    name (play-through s12: "GAME OVER (stock_market)")."""
    return END_WORDS.get(str(reason or ""), str(reason or ""))


@dataclass(frozen=True)
class GameOver(Event):
    kind: ClassVar[str] = "game_over"
    reason: str = ""
    result: tuple[tuple[str, int], ...] = ()
    detail: str = ""  # the reason in words (``end_reason_words``)

    def text(self, money: Money) -> str:
        res = ", ".join(f"{n} {money(v)}" for n, v in self.result)
        why = f": {self.detail}" if self.detail else f" ({end_words(self.reason)})"
        return f"The game is over{why}" + (f". Result: {res}" if res else "")


KINDS: dict[str, type[Event]] = {c.kind: c for c in (
    AuctionWon, PriceLowered, AuctionBegan, ShareWithPrivate, PrivateSold, FreeTrain, SharesSold, SharesBought, PrivatesPaid, LenderDividend, Floated, RouteRun, TrainIdle, RunTotal, DividendPaid, PriceMoved, PriceStayed, PhaseChanged, TrainsRusted,
    TrainsObsolete, TrainLeft, TrainDiscarded, TrainBought, MarkerPlaced, PrivateClosed, PresidentChanged, LoanTaken, LoanRepaid, Receivership, ObjectivePaid,
    Converted, Underwritten, EndTriggered, PresidentPaid, CorpClosed, Bankruptcy, RoundEnded, DepotNext, StationPlaced, TileCost, StationBought, AutoPassed,
    GameOver)}


def _lowered(g: "Game", action: Any, before: Snap, seq: int) -> list[Event]:
    """'lower P5' in a falling-price sale: the private's price now (1848 3.1.1)."""
    if getattr(action, "type", "") != "assign" or before.round[0] != "auction":
        return []
    comp = g.state.companies.get(str(getattr(action, "target", "")))
    if comp is None or comp.owner is not None or f"P:{action.entity}" not in g.state.cash:
        return []
    from pbm.e18xx.rounds.cite import section

    floors = (g.title.data.get("auction") or {}).get("min_prices") or {}
    return [PriceLowered(seq, str(action.entity), comp.sym, int(comp.min_bid), int(floors.get(comp.sym, 0)),
                         section(g.title, "auction_lower"))]


def _idle_why(g: "Game", corp: str, ran: set[str], written: bool) -> str:
    """Why a train ran no route (play-through s11: VR's 4 train sat idle beside its 5 with no word).
    A written run that left a train out says so only when the best run would have given it a route;
    when no more routes could run at all, that is the reason (18GA s17, 18VA s17: "the run named no route
    for it" when only one track left Baltimore read as if the player had forgotten the train)."""
    if written and not _no_more_routes(g, corp, len(ran)):
        return "the run named no route for it"
    return ("no route was left for it: each route it could run needs track the company's other trains use, "
            "or reaches no second stop from the company's stations")


def _no_more_routes(g: "Game", corp: str, ran: int) -> bool:
    """Whether the company's best run gives no more trains a route than the ``ran`` that ran."""
    try:
        _total, chosen = g.best_run(corp)
    except (GameError, KeyError, ValueError):
        return False
    return len(chosen) <= ran


def _idle_trains(g: "Game", corp: str, ran: set[str], seq: int, written: bool = False,
                 others: bool = False) -> list[Event]:
    """The company's trains that ran no route, each with why (``written``: the run named its routes).
    The freight trains of number 1 (18VA's 1G) say more: such a train scores
    only with a mine or a coal district on its route (18VA 4.5.8: "a 1G must include a CMD or mine in
    its route"); said so, with the company's stations, so that its 0 is not a mystery."""
    out: list[Event] = []
    kinds = {v: k for t in g.title.data.get("trains", []) for v, k in (t.get("variants") or {}).items()}
    ran_names = {str(t.variant or t.name) for t in map(g.state.trains.get, ran) if t is not None}
    for tid in list(g.state.corporations[corp].trains):
        train = g.state.trains.get(tid)
        if train is None or tid in ran:
            continue
        if not train.variant or kinds.get(train.variant) != "freight" or not str(train.variant).startswith("1"):
            if others:
                name = str(train.variant or train.name)
                out.append(TrainIdle(seq, corp, name, str(tid), _idle_why(g, corp, ran, written), name in ran_names))
            continue
        from pbm.e18xx.rounds.cite import see

        stations = sorted(g.state.map.token_cities(corp))
        where = ", ".join(_stop(g, h, i) for h, i in stations) or "none on the map"
        out.append(TrainIdle(seq, corp, str(train.variant), str(tid),
                             f"it scores only with a mine or a coal district on its route, \"a 1G must include a "
                             f"CMD or mine in its route\"{see(g.title, 'freight_1g')}; none was within its reach "
                             f"from its station{'s' if len(stations) > 1 else ''} ({where})"))
    return out


def _a(name: str) -> str:
    """The article before a train's name: "an 8 train", "an E train", "a 2E train"."""
    return "an" if re.match(r"(8|11|18)(?!\d)|[AEIOU]", name) else "a"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def event_from_dict(d: dict[str, Any]) -> Event:
    """The event of ``to_dict`` output (its ``text`` is ignored)."""
    cls = KINDS[d["kind"]]
    args = {}
    for f in fields(cls):
        v = d.get(f.name)
        if isinstance(v, list):
            v = tuple(tuple(x) if isinstance(x, list) else x for x in v)
        if v is not None or f.name == "left":
            args[f.name] = v
    return cls(**args)


# ------------------------------------------------------------------ snapshots
@dataclass
class Snap:
    """The public state events are read from (compact: a few dozen small values)."""
    cash: dict[str, int]
    corps: dict[str, tuple]  # sym -> (price cell, floated, closed, receivership, loans, president, size, stations)
    trains: dict[str, tuple[str, bool]]  # tid -> (owner, obsolete)
    companies: dict[str, tuple[str | None, bool]]  # sym -> (owner, closed)
    phase: int
    round: tuple[str, int, int]
    bankrupt: frozenset[str]
    objectives: frozenset[str]
    finished: bool
    receiverships: int
    end_trigger: tuple[str, str] | None = None
    depot_next: str | None = None  # the first train the depot holds
    passed: frozenset[str] = frozenset()  # the stock round's players who have passed
    seats: tuple[str, ...] = ()  # the stock round's players
    auction: str | None = None  # the private auctioned among its bidders now
    dormant: frozenset[str] = frozenset()  # privates closed whose unused ability lives on (no revenue)
    log_len: int = 0  # the engine's log lines so far (what an action logged: 1848's receivership payments)


def snap(g: "Game") -> Snap:
    s = g.state
    corps = {}
    for sym, c in s.corporations.items():
        corps[sym] = (c.price, c.floated, c.closed, getattr(c, "receivership", False), getattr(c, "loans", 0),
                      g.president(sym) if not c.closed else None, c.size, tuple(tuple(t) for t in c.tokens if t))
    return Snap(
        cash=dict(s.cash),
        corps=corps,
        trains={t.tid: (t.owner, t.obsolete) for t in s.trains.values()},
        companies={c.sym: (c.owner, c.closed) for c in s.companies.values()},
        dormant=frozenset(c.sym for c in s.companies.values() if c.uses.get("dormant") and not c.closed),
        phase=s.phase,
        round=(s.round.kind, s.turn, s.round.num),
        bankrupt=frozenset(p.name for p in s.players if p.bankrupt),
        objectives=frozenset(s.objectives_done),
        finished=s.finished,
        receiverships=getattr(s, "receiverships", 0),
        end_trigger=tuple(s.end_trigger) if s.end_trigger else None,  # type: ignore[arg-type]
        depot_next=next((t.tid for t in s.trains.values() if t.owner == "depot"), None),
        passed=frozenset(s.round.passed) if s.round.kind == "stock" else frozenset(),
        seats=tuple(s.round.entities) if s.round.kind == "stock" else (),
        auction=_auctioned(g),
        log_len=len(s.log),
    )


def _auctioned(g: "Game") -> str | None:
    active = getattr(g, "active_auction", None)
    if active is None or g.state.round.kind != "auction":
        return None
    try:
        return active()
    except Exception:  # noqa: BLE001 - a round without bids
        return None


def round_label(g: "Game", rnd: tuple[str, int, int]) -> str:
    kind, turn, num = rnd
    if kind == "auction":
        return "the private auction"
    if kind == "stock":
        return f"stock round {turn}"
    if kind == "operating":
        return f"operating round {turn}.{num}"
    return f"{kind} round {turn}"


def _who(owner: str | None) -> str:
    owner = owner or ""
    return owner[2:] if owner[1:2] == ":" else owner


def _stop(g: "Game", coord: str, node: int | None = None) -> str:
    return stop_label(g, coord, node)


def joint_home_waits(g: "Game", corp: str, *, named: bool = True) -> str:
    """Why a floated company with two homes does not operate yet, or "" (1848 5.3.2, 5.3.3: COM
    operates once track joins Sydney to Adelaide or the first 6 train is bought; play-through s11:
    COM stood in the operating order and was skipped with no word)."""
    from pbm.e18xx.rounds.cite import section

    homes = g.joint_homes(corp) if corp in g.state.corporations else []
    c = g.state.corporations.get(corp)
    if len(homes) != 2 or c is None or not c.floated or c.closed:
        return ""
    if "joint_home_operates" in g.state.events or f"linked:{corp}" in g.state.events or g.homes_linked(*homes):
        return ""
    ref = section(g.title, "joint_home_link")
    why = (f"waits for track joining {stop_label(g, homes[0])} to {stop_label(g, homes[1])}"
           + (f" (rule {ref})" if ref else ""))
    return f"{corp} does not operate yet: it {why}" if named else why


def stop_label(g: "Game", coord: str, node: int | None = None) -> str:
    """A hex with its name (``F8 Atlanta``); on a hex of several stops, with the stop a player writes
    in a run (``D4-1 Atlanta``: issue 29 finding 8)."""
    hexdef = g.title.hexes.get(coord)
    name = getattr(hexdef, "name", None) if hexdef is not None else None
    port_of = ((g.title.data.get("stop_groups") or {}).get("port") or {}).get(coord)
    if not name and port_of:  # 18VA's port arrows (4.5.4.2; play-through s12: "runs I14 - H13 Newport News")
        city = getattr(g.title.hexes.get(port_of), "name", None)
        name = f"port of {city}" if city else "port"
    head, tail = coord, ""
    if node is not None:
        m = g.state.map
        if coord in m.placed and len(m.tile(coord).nodes) > 1:
            if m.tile(coord).paths:
                head = f"{coord}-{node}"
            else:
                # a printed hex of several cities and no track yet (18GA's Atlanta): its first tile
                # has the company choose its city again ('token D4-N' after the lay), so no city is
                # named before that (play-through s10b finding 1)
                tail = " (its city is chosen when the hex's first tile is laid)"
    return (f"{head} {name}" if name else head) + tail


def _cell(pos: tuple[int, int]) -> tuple[int, int]:
    return (pos[0] + 1, pos[1] + 1)


def phase_changes(g: "Game", old: int, new: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What phase ``new`` unlocks and closes compared with phase ``old`` (:func:`pbm.e18xx.phases.phase_change`,
    the one wording the web page uses too)."""
    from pbm.e18xx.phases import phase_change

    return phase_change(g.title, old, new)


def diff(g: "Game", action: Any, before: Snap, after: Snap, seq: int,
         sold: dict[str, int] | None = None) -> list[Event]:
    """The events of one action from the snapshots before and after it (the run and the dividend
    come from :class:`Recorder`, which sees them as they happen; ``sold``: the price of each private
    the auction sold during the action, so that one player winning two is told each one's own price)."""
    s = g.state
    sold = sold or {}
    out: list[Event] = []
    later: list[Event] = []  # events of the next company's turn beginning
    out += _lowered(g, action, before, seq)
    # privates changing hands
    for sym, (owner, closed) in after.companies.items():
        was = before.companies.get(sym, (None, False))[0]
        if owner == was or owner is None:
            continue
        new = _who(owner)
        if was is None:
            price = sold[sym] if sym in sold else max(0, before.cash.get(owner, 0) - after.cash.get(owner, 0))
            out.append(AuctionWon(seq, sym, new, price))
            out += _share_with(g, sym, owner, seq)
        else:
            price = max(0, after.cash.get(was, 0) - before.cash.get(was, 0))
            if hasattr(action, "price") and getattr(action, "company", None) == sym:
                price = int(action.price)
            out.append(PrivateSold(seq, sym, _who(was), new, price))
            if owner.startswith("C:"):
                out += _free_train(g, sym, owner, before, after, seq)
    if getattr(action, "type", "") == "sell_shares":
        out += _sale(g, action, before, after, seq)
    if getattr(action, "type", "") == "assign" and action.entity in s.companies:
        corp = _who(s.companies[action.entity].owner)
        mark = s.hex_bonuses.get(corp)
        if mark and mark[0] == action.target:
            out.append(MarkerPlaced(seq, corp, action.entity, _stop(g, mark[0]), int(mark[1])))
    if after.auction and after.auction != before.auction:
        r = s.round
        bids = sorted(((b.player, int(b.price)) for b in r.bids.get(after.auction, [])), key=lambda pb: -pb[1])
        first = g.current_entity() if not after.finished else ""
        out.append(AuctionBegan(seq, after.auction, tuple(bids), str(first or "")))
    for sym, now in after.corps.items():
        old = before.corps.get(sym)
        if old is None:
            continue
        if now[1] and not old[1]:
            out.append(Floated(seq, sym, after.cash.get(f"C:{sym}", 0)))
    for sym, now in after.corps.items():
        old = before.corps.get(sym)
        if old is None or len(now) < 8 or (getattr(action, "type", "") == "place_token" and action.entity == sym):
            continue
        had = {key[0] for key in old[7]}  # by hex: an upgrade may renumber a station's stop
        for coord, node in now[7]:
            if coord not in had:
                # another company's home station goes down when its turn begins, after what this
                # action did (s12: "FT's station goes down in G14" came before "WA buys a 5 train")
                (out if sym == getattr(action, "entity", None) else later).append(
                    StationPlaced(seq, sym, _stop(g, coord, node)))
    for sym in sorted(after.objectives - before.objectives):
        goal = g.title.corporation(sym).get("objective") or {}
        out.append(ObjectivePaid(seq, sym, str(goal.get("hex", "")), int(goal.get("bonus", 0))))
    lender = g.title.data.get("bank_corporation") or {}
    for sym, now in after.corps.items():
        old = before.corps.get(sym)
        if old is None or sym == lender.get("sym"):
            continue
        if now[4] > old[4]:
            n = now[4] - old[4]
            left = None
            if lender.get("sym"):
                left = int(lender.get("loans", 0)) - after.corps[lender["sym"]][4]
            out.append(LoanTaken(seq, sym, n, n * int(lender.get("loan_value", 100) if lender else 0), now[4], left))
        elif now[4] < old[4] and not now[3]:
            out.append(LoanRepaid(seq, sym, old[4] - now[4], now[4]))
        if now[6] != old[6] and not now[2]:
            extra = len(g.title.data.get("conversion", {}).get("tokens", []))
            out.append(Converted(seq, sym, old[6], now[6], extra, word(g, "ipo"), bool(old[1])))
    if getattr(action, "type", "") == "buy_train" and action.entity in after.corps:
        pres = before.corps[action.entity][5]
        if pres and before.cash.get(f"P:{pres}", 0) > after.cash.get(f"P:{pres}", 0):
            out.append(PresidentPaid(seq, pres, action.entity,
                                     before.cash[f"P:{pres}"] - after.cash.get(f"P:{pres}", 0)))
    if getattr(action, "type", "") == "buy_train":
        buyer = action.entity if action.entity in after.corps else \
            _who(before.companies.get(action.entity, (None, False))[0])  # 'with NDY': its owner buys
        if buyer not in after.corps:  # a player's private (1848 P4's rebate kept by its director, 4.5): the
            # company that got the train bought it (s14b mail #113: no line said NSW bought the 2E, nor for what)
            gained = {who[2:] for tid, (who, _obs) in after.trains.items()
                      if who.startswith("C:") and before.trains.get(tid, ("depot", False))[0] != who}
            buyer = gained.pop() if len(gained) == 1 else buyer
        if buyer in after.corps:
            out += _bought(g, buyer, before, after, seq)
    market = g.title.market
    for sym, now in after.corps.items():
        old = before.corps.get(sym)
        if old is None or old[0] is None or now[0] is None or old[0] == now[0]:
            continue
        a, b = market[old[0][0]][old[0][1]], market[now[0][0]][now[0][1]]
        why = ""
        if before.round[0] == "stock" and after.round != before.round and (b.price if b else 0) > (a.price if a else 0):
            # the stock round's end: every share is a player's (18AL 3.6; play-through s12v: the rise
            # at the end of stock round 7 gave no reason)
            from pbm.e18xx.rounds.cite import see
            why = f"at the end of the stock round all its shares are owned by players{see(g.title, 'sold_out_rise')}"
        if any(isinstance(e, SharesSold) and e.corp == sym and (e.old, e.new) == (a.price if a else 0, b.price if b else 0)
               for e in out):
            continue  # the sale's own line says where the price went (play-through s17: said twice)
        out.append(PriceMoved(seq, sym, a.price if a else 0, b.price if b else 0, _cell(old[0]), _cell(now[0]), why))
    if before.round[0] == "stock" and after.round != before.round:
        out += _sold_out_stays(g, before, after, seq)
    for sym, now in after.corps.items():
        old = before.corps.get(sym)
        if old is None or now[2] or old[5] == now[5] or old[5] is None:
            continue
        out.append(PresidentChanged(seq, sym, old[5] or "", now[5] or ""))
    if after.phase != before.phase:
        names = g.title.phases
        unlocks, closes = phase_changes(g, before.phase, after.phase)
        out.append(PhaseChanged(seq, names[before.phase].name, names[after.phase].name, unlocks, closes,
                                f"{phase_name(g, after.phase)} begins (was {phase_name(g, before.phase)})"))
    start = (g.title.data.get("words") or {}).get("start_phase")
    if start and after.phase == 0 and all(o in ("depot", "N") for o, _obs in before.trains.values()) \
            and not all(o in ("depot", "N") for o, _obs in after.trains.values()):
        # the book's opening phase ends with the first train bought (18GA/18AL 1.2: Phase 1; 1848 9.1:
        # the Starting Phase); it plays as the first train's phase (rulings), so nothing else changes
        out.append(PhaseChanged(seq, str(start), g.title.phases[0].name, (), (),
                                f"{phase_name(g, 0)} begins (was {start}): the first "
                                f"{g.title.trains[0].name} train is bought; nothing else changes"))
    if getattr(action, "type", "") == "discard_train" and action.entity in after.corps:
        tid = str(action.train)
        step = g.or_step("discard_train") if hasattr(g, "or_step") else None
        out.append(TrainDiscarded(seq, action.entity, str(g.train_label(tid)), tid,
                                  int(g.train_limit(action.entity)), step.rule(g.title) if step is not None else "",
                                  g.state.trains[tid].owner == "removed", word(g, "train_pool")))
    out += _train_events(g, before, after, seq,
                         str(action.train) if getattr(action, "type", "") == "discard_train" else "")
    if after.depot_next != before.depot_next and before.depot_next is not None:
        old_name = s.trains[before.depot_next].name
        new = s.trains[after.depot_next] if after.depot_next else None
        if new is None or new.name != old_name:
            out.append(DepotNext(seq, old_name, new.name if new else "", new.price if new else 0,
                                 word(g, "train_bank")))
    for sym, (owner, closed) in after.companies.items():
        old_owner, was_closed = before.companies.get(sym, (None, False))
        if closed and not was_closed:
            out.append(PrivateClosed(seq, sym, _who(old_owner), _close_reason(g, sym, action, before, after, old_owner)))
        elif sym in after.dormant and sym not in before.dormant:  # closed, its ability kept (1848 4.1, 4.3, 4.5)
            out.append(PrivateClosed(seq, sym, _who(old_owner), _close_reason(g, sym, action, before, after, old_owner),
                                     _kept_ability(g, sym)))
    for sym, now in after.corps.items():
        old = before.corps.get(sym)
        if old is None:
            continue
        if now[3] and not old[3]:
            out.append(_receivership(g, action, sym, old[5] or "", before, after, seq))
        elif now[2] and not old[2] and not now[3]:
            out.append(CorpClosed(seq, sym))
    for name in sorted(after.bankrupt - before.bankrupt):
        out.append(Bankruptcy(seq, name))
    if after.end_trigger and not before.end_trigger and after.end_trigger[1] != "immediate":
        out.append(EndTriggered(seq, str(after.end_trigger[0]), str(after.end_trigger[1]),
                                end_reason_words(g, str(after.end_trigger[0]))))
    out += _auto_passes(action, before, after, seq)
    if after.finished and not before.finished:
        res = sorted(g.result().items(), key=lambda kv: -kv[1])
        out.append(GameOver(seq, str(s.end_reason or ""), tuple(res), end_reason_words(g)))
    elif after.round != before.round:
        detail = ""
        if after.round[0] == "operating" and s.round.entities:
            waits = [w for w in (joint_home_waits(g, c) for c in s.round.entities) if w]
            detail = "operating order: " + ", ".join(c for c in s.round.entities if not joint_home_waits(g, c)) \
                + "".join(f"; {w}" for w in waits)
        elif after.round[0] == "stock" and g.current_entity():
            detail = _first_in_stock_round(g)
            if before.round[0] == "auction" and g.title.data.get("auction", {}).get("reorder_by_cash"):
                # 18VA 4.1: the order is re-evaluated by the players' cash once the auction is over
                # (play-through s12: the new order was seen only in the players' table)
                detail += "; the players now act in the order of their cash: " + ", ".join(
                    f"{p.name} {g.title.money(s.cash.get(p.key, 0))}" for p in s.players)
        out.append(RoundEnded(seq, round_label(g, before.round).capitalize(), round_label(g, after.round), detail))
    return out + later


def _first_in_stock_round(g: "Game") -> str:
    """Who acts first in a new stock round, and who holds the priority when that is another player
    (18VA 4.3: the priority holder takes the first turn; one with no purchase or sale open passes
    automatically, on the next lines).  Play-through s16: "next: stock round 2 (Ann acts first)" was
    followed by "Di passes automatically", and the players' table listed Di first."""
    first = str(g.current_entity())
    holder = g.state.players[0].name if g.state.players else first
    return f"{first} acts first" if holder == first else f"{holder} has the priority; {first} acts first"


def _receivership(g: "Game", action: Any, corp: str, director: str, before: Snap, after: Snap,
                  seq: int) -> "Receivership":
    """A company taken over by the lender, with what it caused (1848 5.5: the compensation paid to the
    other players, the lower certificate limits; 8.4.2: the forced purchase not made; play-through s12)."""
    from pbm.e18xx.rounds.cite import section

    s = g.state
    paid = []
    for line in s.log[before.log_len:after.log_len]:
        m = re.match(rf"{re.escape(corp)} pays (.+) (\d+) for (\d+) shares$", line)
        if m and int(m.group(2)):
            paid.append((m.group(1), int(m.group(2)), int(m.group(3))))
    unbought = ""
    if getattr(action, "type", "") == "buy_train" and action.entity == corp:
        rule = section(g.title, "forced_receivership")
        unbought = "train is not bought" + (f" (rule {rule})" if rule else "")
    limits = ""
    base = g.receivership_cert_limit(None) if hasattr(g, "receivership_cert_limit") else None
    if base is not None:
        own = [(p.name, g.receivership_cert_limit(p.name)) for p in s.players]
        differ = [f"{n} {lim}" for n, lim in own if lim != base]
        rule = section(g.title, "receivership_limit")
        limits = (f"the certificate limit is now {base}" + (f" ({', '.join(differ)})" if differ else "")
                  + (f" (rule {rule})" if rule else ""))
    lender = g.lender() if hasattr(g, "lender") else None
    bank = g.title.data.get("bank_corporation") or {}
    name = bank.get("name") if lender and bank.get("sym") == lender else None
    return Receivership(seq, corp, director, after.receiverships, lender=str(name or lender or "lender"),
                        unbought=unbought, paid=tuple(paid), paid_rule=section(g.title, "receivership_comp"),
                        limits=limits)


def _bought(g: "Game", corp: str, before: Snap, after: Snap, seq: int) -> list[Event]:
    """The trains ``corp`` bought in one action, each with its source and what was paid for it
    (the company's cash and its president's, 4.2.5.1)."""
    owner = f"C:{corp}"
    got = [tid for tid, (who, _obs) in after.trains.items()
           if who == owner and before.trains.get(tid, ("depot", False))[0] != owner]
    if not got:
        return []
    pres = before.corps[corp][5]
    paid = max(0, before.cash.get(owner, 0) - after.cash.get(owner, 0))
    if pres:
        paid += max(0, before.cash.get(f"P:{pres}", 0) - after.cash.get(f"P:{pres}", 0))
    out: list[Event] = []
    for tid in got:
        was = before.trains.get(tid, ("depot", False))[0]
        source = (f"the {word(g, 'train_bank')}" if was == "depot" else _who(was) if was.startswith("C:")
                  else f"the {word(g, 'train_pool')}")  # the book's words (18GA 1.4: the Initial Offering)
        out.append(TrainBought(seq, corp, g.train_label(tid), source, paid if len(got) == 1 else 0))  # its side: 4+ (1848 8.2.1)
    return out


def _free_train(g: "Game", company: str, owner: str, before: Snap, after: Snap, seq: int) -> list[Event]:
    """The free train a private's ability (``free_train``) gives the company that buys it."""
    for ab in g.title.company(company).get("abilities", []):
        if ab.get("type") != "free_train":
            continue
        tid = str(ab.get("train", ""))
        train = g.state.trains.get(tid)
        if train is None:
            return []
        corp = owner[2:]
        if after.trains.get(tid, ("", False))[0] == owner and before.trains.get(tid, ("", False))[0] != owner:
            return [FreeTrain(seq, company, corp, str(train.name), tid)]
        phase = ab.get("unless_phase")
        why = (f"a {phase} train has been bought" if phase and any(
            p.name == phase for p in g.title.phases[: g.state.phase + 1]) else f"{corp} already has all the trains it may")
        return [FreeTrain(seq, company, corp, str(train.name), tid, why + ", so the free train is out of play")]
    return []


def _share_with(g: "Game", company: str, owner: str, seq: int) -> list[Event]:
    """The share a private's ability gives its new owner (title data: ability ``shares``)."""
    out: list[Event] = []
    for ab in g.title.company(company).get("abilities", []):
        sid = ab.get("share") if ab.get("type") == "shares" else None
        if not sid or g.state.share_owner.get(sid) != owner:
            continue
        corp = sid.rsplit("_", 1)[0]
        out.append(ShareWithPrivate(seq, company, _who(owner), corp, int(g.sid_percent(sid) or 0),
                                    sid.endswith("_0")))
    return out


def _sale(g: "Game", action: Any, before: Snap, after: Snap, seq: int) -> list[Event]:
    """A share sale: the seller's gain and the share price before and after."""
    corp = action.corporation or (action.shares[0].rsplit("_", 1)[0] if action.shares else "")
    if corp not in after.corps or corp not in before.corps:
        return []
    key = next((k for k in (f"P:{action.entity}", f"C:{action.entity}") if k in after.cash), None)
    if key is None:
        return []
    got = after.cash[key] - before.cash.get(key, 0)
    market = g.title.market

    def price(cell: Any) -> int:
        if cell is None:
            return 0
        c = market[cell[0]][cell[1]]
        return c.price if c else 0
    count = int(action.count or len(action.shares))
    cell = after.corps[corp][0]
    co = g.state.corporations.get(corp)
    bottom = bool(cell is not None and count and cell == before.corps[corp][0] and co is not None
                  and not getattr(co, "equal_shares", False)
                  and (cell[0] + 1 >= len(market) or cell[1] >= len(market[cell[0] + 1])
                       or market[cell[0] + 1][cell[1]] is None))
    return [SharesSold(seq, _who(action.entity), corp, count, max(0, got), price(before.corps[corp][0]),
                       price(cell), bottom)]


def _unit_price(g: "Game", action: Any, corp: str, src: str) -> int:
    """What one share of ``corp`` costs the buyer of ``action`` before it is processed: the par
    price for a company started, else the price of the source it comes from (the engine's own)."""
    try:
        if getattr(action, "type", "") == "par":
            return int(action.price)
        return int(g._buy_price(corp, src))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - the event then says no price
        return 0


def _purchase(g: "Game", action: Any, owners: dict[str, str], unit: int, origin: str, seq: int) -> list[Event]:
    """A share bought or a company started (``owners``: who held the company's certificates before;
    ``unit``: what a share cost then; ``origin``: where the move said it came from): the percent, where from, what the buyer paid, what he holds now.
    The price is the share's, not the buyer's cash change: a round that ends with the action may pay
    him a private's revenue in the same action."""
    buyer = f"P:{action.entity}" if f"P:{action.entity}" in g.state.cash else f"C:{action.entity}"
    corp = next(iter(owners)).rsplit("_", 1)[0]
    now = g.state.share_owner
    moved = [sid for sid, was in owners.items() if now.get(sid) == buyer and was != buyer]
    if not moved:
        return []
    # what the buyer holds more (a presidency changing hands swaps certificates: the president's
    # certificate comes from the former president, who gets shares back, 4.2.4 and the like)
    holds = sum(int(g.sid_percent(sid) or 0) for sid, o in now.items() if o == buyer and sid.rsplit("_", 1)[0] == corp)
    percent = holds - sum(int(g.sid_percent(sid) or 0) for sid, o in owners.items() if o == buyer)
    if percent <= 0:
        return []
    was = next((owners[sid] for sid in moved if not owners[sid].startswith("P:")), origin)
    lender = g.title.data.get("bank_corporation") or {}
    pool = f"the {word(g, 'pool')}"
    if lender.get("sym") == corp:  # 1848 12.4.2: its certificates go back to "the Bank of England charter"
        pool = f"the {lender.get('name', corp)} charter"
    source = (f"the {word(g, 'ipo')}" if was.startswith(("ipo:", "unissued:")) else pool if was == "pool"
              else f"{_who(was)}'s treasury" if was.startswith("C:") else _who(was))
    c = g.state.corporations[corp]
    paid = unit * percent // max(1, 100 // max(1, int(c.size or 10)))
    par = int(getattr(action, "price", 0) or 0) if getattr(action, "type", "") == "par" else 0
    return [SharesBought(seq, _who(buyer), corp, percent, source, paid, holds, par)]


def _auto_passes(action: Any, before: Snap, after: Snap, seq: int) -> list[Event]:
    """The players the engine passed in a stock round because they could do nothing (rule: a player
    who can neither buy nor sell passes).  The round's passes grew by others than the one who acted;
    when the round ended, every player of it had passed."""
    actor = getattr(action, "entity", None)
    new: list[str] = []
    if before.round[0] == "stock":
        now = after.passed if after.round == before.round else frozenset(before.seats)
        new += [p for p in before.seats if p in now and p not in before.passed and p != actor]
    early = len(new)
    if after.round[0] == "stock" and after.round != before.round:
        new += [p for p in after.seats if p in after.passed and p not in new]
    return [AutoPassed(seq, p, next_round=k >= early) for k, p in enumerate(new)]


def _route_extras(g: "Game", tid: str, route: Any) -> tuple[int, int, str, str, int]:
    """A route's changes of gauge and its K bonus, with their rules (1848 7.6, 10.4; play-through s11:
    the mails never named either, so a route's length and revenue could not be checked)."""
    from pbm.e18xx.gauge import _train_spec, gauge_changes, k_bonus, uses_gauge_routes
    from pbm.e18xx.rounds.cite import section

    if not uses_gauge_routes(g) or not hasattr(route, "mask") or tid not in g.state.trains:
        return 0, 0, "", "", 0
    spec = _train_spec(g, tid)
    if spec.to_offboard:  # the Ghan earns its two stops only (8.2.5)
        return 0, 0, "", "", 0
    changes, bonus = gauge_changes(g, route), k_bonus(g, route)
    return (changes, bonus, section(g.title, "gauge_change") if changes else "",
            section(g.title, "k_bonus") if bonus else "", spec.free_gauge if changes else 0)


def _bonus_parts(g: "Game", corp: str, tid: str, route: Any, routes: list) -> tuple[tuple[str, int], ...]:
    """What a route earns beyond its stops' values, as the engine adds it (``route_extras``: a train's
    ``multiplier``, a ``hex_bonus_token``, a ``route_bonuses`` private's bonuses, each to the one route
    joining its hexes that earns most with it), each as (words, amount); () when there is nothing."""
    s = g.state
    mult = {t["name"]: int(t["multiplier"]) for t in g.title.data.get("trains", []) if t.get("multiplier")}
    sym = s.route_bonus_corps.get(corp)
    hb = s.hex_bonuses.get(corp)
    train = s.trains.get(tid)
    if not (mult or sym or hb) or train is None or not hasattr(route, "nodes"):
        return ()
    out: list[tuple[str, int]] = []
    try:
        colors = g.route_colors()
        times = mult.get(train.name, 1)
        if times != 1:
            twice = (times - 1) * sum(s.map.tile(h).nodes[i].revenue_for(colors) for h, i in route.nodes
                                      if s.map.tile(h).nodes[i].kind != "town")
            if twice:
                out.append((f"the {train.name} counting its cities and off-boards {'twice' if times == 2 else f'{times} times'}",
                            twice))
        if hb and hb[0] in route.hexes():
            marker = next((c for c, comp in s.companies.items() if comp.uses.get("hex_bonus_token")
                           and (comp.owner or "") == f"C:{corp}"), "")
            out.append((f"the {marker + ' ' if marker else ''}marker in {hb[0]}", int(hb[1])))
        if sym:
            base = {t: _before_route_bonuses(g, t, r, mult, hb, colors) for t, r in routes if hasattr(r, "nodes")}
            ab = g.title.company(sym) or {}
            for bonus in next((a.get("bonuses", []) for a in ab.get("abilities", []) if a["type"] == "route_bonuses"),
                              []):
                fits = [(t, r) for t, r in routes if hasattr(r, "hexes") and set(bonus["hexes"]) <= set(r.hexes())]
                if fits and max(fits, key=lambda tr: base.get(tr[0], 0))[0] == tid:
                    out.append((f"the {bonus['name']} bonus ({sym}, {' - '.join(bonus['hexes'])})", int(bonus["bonus"])))
    except Exception:  # noqa: BLE001 - the words only; a failure leaves the run said as before
        return ()
    return tuple(out)


def _before_route_bonuses(g: "Game", tid: str, route: Any, mult: dict, hb: Any, colors: Any) -> int:
    """A route's revenue before its route bonuses (its stops, its multiplier's part and its marker),
    the value the engine ranks the routes by when it gives each bonus to one of them."""
    s = g.state
    times = mult.get(s.trains[tid].name, 1) if tid in s.trains else 1
    nodes = [s.map.tile(h).nodes[i] for h, i in route.nodes]
    twice = (times - 1) * sum(n.revenue_for(colors) for n in nodes if n.kind != "town")
    marker = int(hb[1]) if hb and hb[0] in route.hexes() else 0
    return sum(n.revenue_for(colors) for n in nodes) + twice + marker


def _kept_ability(g: "Game", sym: str) -> str:
    """The ability a closing private leaves with its owner (``survives_close``), in the state's words."""
    from pbm.e18xx.render.public import ability_text

    kept = [ab for ab in g.title.company(sym).get("abilities", []) if ab.get("survives_close")]
    return "; ".join(ability_text(g, ab) for ab in kept)


def _close_reason(g: "Game", sym: str, action: Any, before: Snap, after: Snap, owner: str | None) -> str:
    """Why a private closed, as far as the state says."""
    owner = owner or ""
    if owner.startswith("C:"):
        corp = before.corps.get(owner[2:])
        now = after.corps.get(owner[2:])
        if corp and now and now[3] and not corp[3]:
            return f"{owner[2:]} went into receivership"
        if corp and now and now[2] and not corp[2]:
            return f"{owner[2:]} closed"
    if after.phase != before.phase:
        raw = g.title.data.get("trains", [])
        ons = {ph.on for ph in g.title.phases[before.phase + 1:after.phase + 1]}
        if any(t["name"] in ons and "close_companies" in t.get("events", []) for t in raw):
            return f"phase {g.title.phases[after.phase].name}"
    kind = getattr(action, "type", "")
    if kind == "buy_train":
        tied = [ab.get("corporation") for ab in g.title.company(sym).get("abilities", [])
                if ab.get("type") == "close_on_train"]
        if owner == f"C:{action.entity}" or action.entity in tied:
            return f"{action.entity} bought a train"
    if kind in ("use_ability", "assign") or getattr(action, "entity", None) in after.companies:
        return "its ability was used" + _ability_words(g, action, owner)
    return ""


def _ability_words(g: "Game", action: Any, owner: str) -> str:
    """What a private's used ability did, where the closing is all the events would say (play-through
    s11: 18VA's Potomac Yards station and Railway Express bonus): ``: N&W's extra station beside the
    city in H15 Norfolk``, ``: SR's bonus in F11 Richmond``."""
    corp = owner[2:] if owner.startswith("C:") else ""
    if not corp:
        return ""
    if getattr(action, "type", "") == "place_token" and isinstance(getattr(action, "city", None), str):
        coord = action.city.split("-")[0].upper()
        if coord not in g.title.hexes:  # the city by its name: 'use Potomac Yards ... in Rocky Mount' (s14b #71)
            coord = next((c for c, h in g.title.hexes.items()
                          if str(getattr(h, "name", "") or "").lower() == action.city.lower()), coord)
        if coord in g.title.hexes:
            return f": {corp}'s extra station beside the city in {stop_label(g, coord)}"
    if getattr(action, "type", "") == "assign" and isinstance(getattr(action, "target", None), str) \
            and action.target in g.title.hexes:
        return f": {corp}'s bonus in {stop_label(g, action.target)}"
    if getattr(action, "type", "") == "use_ability" and getattr(action, "ability", "") == "train_limit_bonus":
        return f": {corp}'s train limit is one higher from now on"  # 18VA 4.2 (4) (play-through s11v)
    return ""


def _train_events(g: "Game", before: Snap, after: Snap, seq: int, discarded: str = "") -> list[Event]:
    s = g.state
    out: list[Event] = []
    rusted: dict[str, dict[str, int]] = {}
    obsolete: dict[str, dict[str, int]] = {}
    closing = {sym for sym, now in after.corps.items() if now[2] and not before.corps.get(sym, now)[2]}
    for tid, (owner, obs) in after.trains.items():
        was_owner, was_obs = before.trains.get(tid, ("depot", False))
        name = s.trains[tid].name
        if owner == "removed" and was_owner != "removed":
            if tid == discarded:
                continue  # discarded out of the game (1848 8.1): the discard's own event says so
            if was_owner == "depot":
                out.append(TrainLeft(seq, name, tid, "", word(g, "train_bank")))
            elif was_obs and was_owner.startswith("C:"):
                out.append(TrainLeft(seq, name, tid, _who(was_owner)))
            elif was_owner.startswith("C:") and was_owner[2:] in closing:
                continue  # its company closed or went into receivership: said there
            else:
                holder = _who(was_owner) if was_owner.startswith("C:") else f"the {word(g, 'train_pool')}"
                rusted.setdefault(name, {}).setdefault(holder, 0)
                rusted[name][holder] += 1
        elif obs and not was_obs:
            holder = _who(owner) if owner.startswith("C:") else f"the {word(g, 'train_pool')}"
            obsolete.setdefault(name, {}).setdefault(holder, 0)
            obsolete[name][holder] += 1
    # a train type rusting leaves none of its kind in companies: name the type even if nobody held one
    for name in _rusted_types(g, before, after):
        rusted.setdefault(name, {})
    for name, who in rusted.items():
        out.append(TrainsRusted(seq, name, tuple(sorted(who.items()))))
    for name, who in obsolete.items():
        out.append(TrainsObsolete(seq, name, tuple(sorted(who.items()))))
    return out


def _rusted_types(g: "Game", before: Snap, after: Snap) -> list[str]:
    """Train types that rust by the phases entered in this action (title data ``rusts_on``)."""
    if after.phase == before.phase:
        return []
    ons = {ph.on for ph in g.title.phases[before.phase + 1:after.phase + 1]}
    return [t["name"] for t in g.title.data.get("trains", []) if t.get("rusts_on") in ons]


# ------------------------------------------------------------------ recording
class Recorder:
    """Records the events of every action a game processes (see :func:`attach`)."""

    def __init__(self, game: "Game") -> None:
        self.game = game
        self.events: list[Event] = []
        self.failures = 0  # actions whose events could not be found (a fault here; never the game's)
        self._pending: list[Event] = []
        self._paying: list[Any] | None = None  # [company, what it paid the bank] during a lay or a station
        self._sold: dict[str, int] = {}  # private -> the price the auction sold it for, this action
        self._income: dict[str, int] = {}  # what the next round's start paid (privates), this action
        self._seq = 0
        # action number -> where the certificate an action named by its id came from ("ipo:CoG", "pool"):
        # an 18xx.games export's 'buy CoG_4' is told as 'buy CoG ipo' (pbem/moves.py::action_words)
        self.bought_from: dict[int, str] = {}

    # the wrapped engine calls
    def process(self, orig: Callable[..., Any], action: Any, **kw: Any) -> Any:
        """The engine's ``process``, then the events of the action.  Finding events never changes
        or stops the game: a fault in it is counted (``failures``; the tests require none) and the
        action's events are left out."""
        g = self.game
        try:
            before: Snap | None = snap(g)
        except Exception:  # noqa: BLE001 - see above
            before = None
            self.failures += 1
        self._pending = []
        self._sold = {}
        self._income: dict[str, int] = {}  # what the next round's start paid (privates), this action
        self._seq = len(g.actions) + 1
        sid = (getattr(action, "shares", None) or ("",))[0] if getattr(action, "type", "") == "buy_shares" else ""
        src = g.state.share_owner.get(sid) if sid else None
        # who held the company's certificates before a purchase (its event says where they came from)
        kind = getattr(action, "type", "")
        corp = getattr(action, "corporation", "") or (sid.rsplit("_", 1)[0] if sid else "")
        owners = ({k: v for k, v in g.state.share_owner.items() if k.rsplit("_", 1)[0] == corp}
                  if kind in ("buy_shares", "par") and corp else None)
        origin = src or (f"ipo:{corp}" if getattr(action, "source", "ipo") in ("ipo", None) else "pool")
        unit = _unit_price(g, action, corp, origin) if owners else 0
        try:
            result = orig(action, **kw)
        except BaseException:
            self._pending = []
            raise
        if src is not None:
            self.bought_from[len(g.actions)] = str(src)
        try:
            if before is not None:
                after = snap(g)
                bought = _purchase(g, action, owners, unit, origin, len(g.actions)) if owners else []
                self.events += bought + self._ordered(action, before, after, len(g.actions))
        except Exception:  # noqa: BLE001 - see above
            self.failures += 1
        self._pending = []
        return result

    def _ordered(self, action: Any, before: Snap, after: Snap, seq: int) -> list[Event]:
        run = self._run_events(action, seq)
        if self._income:  # the action's own money, not the next round's private revenue
            # (18VA s14 action 145: "Ann pays $44 towards C&O's train", "for $290": $54 and $300, Ann's $10 from P1
            # counted in as the purchase ended the round)
            after = _replace(after, cash={k: v - self._income.get(k, 0) for k, v in after.cash.items()})
        found = diff(self.game, action, before, after, seq, self._sold)
        first = (AuctionWon, ShareWithPrivate, AuctionBegan, PrivateSold, SharesSold, SharesBought, Floated)
        end = (RoundEnded, GameOver)
        early = [e for e in found if isinstance(e, first)]
        last = [e for e in found if isinstance(e, end)]
        # a station placed by itself (a home, as its company's first turn begins) is said after what ended the
        # turn or round before (play-through s12: "GA's station goes down" before "CoG buys a 2 train")
        homes = [e for e in found if isinstance(e, StationPlaced)]
        rest = [e for e in found if not isinstance(e, first + end + (StationPlaced,))]
        # what a phase brought is said after the phase (18VA s13: "WMR converts ..." came before "SR buys a 5
        # train" and "Phase 5 begins"), and passes in the round an action began after that round's start
        # (s13: "Di passes automatically" before "Operating round 1.1 ends; next: stock round 2")
        newround = [e for e in rest if isinstance(e, AutoPassed) and e.next_round]
        rest = ([e for e in rest if not isinstance(e, Converted) and e not in newround]
                + [e for e in rest if isinstance(e, Converted)])
        starts = [e for e in self._pending if isinstance(e, (PrivatesPaid, LenderDividend))]  # a round's start
        paid = [e for e in self._pending if not isinstance(e, (PrivatesPaid, LenderDividend))]
        sym = getattr(action, "entity", "")
        if (getattr(action, "type", "") == "place_token" and sym in after.corps and sym in before.corps
                and not any(isinstance(e, StationBought) for e in paid)):  # a station placed another way (a home owed)
            had = {key[0] for key in before.corps[sym][7]}
            cost = max(0, before.cash.get(f"C:{sym}", 0) - after.cash.get(f"C:{sym}", 0))
            paid += [StationBought(seq, sym, _stop(self.game, coord, node), cost)
                     for coord, node in after.corps[sym][7] if coord not in had]
        # the move's own cost (a lay, a station), the run, then its dividend and the price move, ..., the round's
        # end, what the next round's start paid
        own = [e for e in paid if isinstance(e, (TileCost, StationBought))]
        paid = [e for e in paid if not isinstance(e, (TileCost, StationBought))]
        return early + own + run + paid + rest + last + starts + newround + homes

    def _run_events(self, action: Any, seq: int) -> list[Event]:
        if getattr(action, "type", "") != "run_routes":
            return []
        g = self.game
        r = g.state.round
        routes = list(r.routes)
        out: list[Event] = []
        for tid, route in routes:
            train = g.state.trains.get(tid)
            name = (train.variant or train.name) if train is not None else tid
            nodes = list(route.nodes) if hasattr(route, "nodes") else []
            out.append(RouteRun(seq, action.entity, str(name), str(tid), tuple(_stop(g, h, i) for h, i in nodes),
                                int(getattr(route, "revenue", 0)), *_route_extras(g, tid, route),
                                extras=_bonus_parts(g, action.entity, tid, route, routes)))
        # every idle train when others ran (a company with no route at all is said by its run total)
        out += _idle_trains(g, action.entity, {tid for tid, _ in routes}, seq,
                            written=not getattr(action, "auto", False), others=bool(routes))
        total = sum(e.revenue for e in out if isinstance(e, RouteRun))
        out.append(RunTotal(seq, action.entity, total, int(getattr(r, "subsidy", 0) or 0) if routes else 0,
                            len(routes)))
        return out

    def _gains(self, orig: Callable[..., Any], *args: Any) -> tuple[Any, dict[str, int]]:
        s = self.game.state
        cash = dict(s.cash)
        result = orig(*args)
        return result, {k: v - cash.get(k, 0) for k, v in s.cash.items() if v - cash.get(k, 0) > 0 and k != "bank"}

    def sell_company(self, orig: Callable[..., Any], player: str, company: str, price: int) -> Any:
        result = orig(player, company, price)
        self._sold[company] = int(price)
        return result

    def privates_pay(self, orig: Callable[..., Any]) -> Any:
        result, got = self._gains(orig)
        try:
            if got:
                self._pending.append(PrivatesPaid(self._seq, tuple((_who(k), v) for k, v in got.items())))
                for k, v in got.items():
                    self._income[k] = self._income.get(k, 0) + v
        except Exception:  # noqa: BLE001 - finding events never stops the game
            self.failures += 1
        return result

    def lender_pays(self, orig: Callable[..., Any]) -> Any:
        result, got = self._gains(orig)
        try:
            if got:
                sym = self.game.title.data.get("bank_corporation", {}).get("sym", "")
                self._pending.append(LenderDividend(self._seq, sym, sum(got.values()),
                                                    tuple((_who(k), v) for k, v in got.items())))
        except Exception:  # noqa: BLE001 - finding events never stops the game
            self.failures += 1
        return result

    def spend(self, orig: Callable[..., Any], src: str, dst: str, amount: int) -> Any:
        """The engine's ``transfer``: a company's payment to the bank during a lay or a station is its cost."""
        result = orig(src, dst, amount)
        if self._paying is not None and src == f"C:{self._paying[0]}" and dst == "bank":
            self._paying[1] += int(amount)
        return result

    def _costing(self, orig: Callable[..., Any], corp: str, action: Any, *args: Any, **kw: Any) -> tuple[Any, int]:
        outer, self._paying = self._paying, [corp, 0]
        try:
            result = orig(corp, action, *args, **kw)
            return result, int(self._paying[1])
        finally:
            self._paying = outer

    def lay_tile(self, orig: Callable[..., Any], corp: str, action: Any, *args: Any, **kw: Any) -> Any:
        result, cost = self._costing(orig, corp, action, *args, **kw)
        if True:  # a free lay is said too: "L&N lays 9 on E4" (s14b: the Events left the lay out)
            g = self.game
            hexdef = g.title.hexes.get(action.hex)
            name = getattr(action, "tile", "")
            try:  # a hex's own copy of a tile by the rulebook's number: 18VA's 170ric is "170" (s15)
                from pbm.e18xx.lays import printed_number

                name = printed_number(g, action.hex, str(name))
            except Exception:  # noqa: BLE001 - the event says the engine's name rather than fail
                pass
            self._pending.append(TileCost(self._seq, corp, str(name), _stop(g, action.hex),
                                          str(getattr(hexdef, "terrain", "") or ""), cost))
        return result

    def place_token(self, orig: Callable[..., Any], corp: str, action: Any, *args: Any, **kw: Any) -> Any:
        g = self.game
        had = {tuple(t) for t in g.state.corporations[corp].tokens if t} if corp in g.state.corporations else set()
        result, cost = self._costing(orig, corp, action, *args, **kw)
        now = [tuple(t) for t in g.state.corporations[corp].tokens if t and tuple(t) not in had]
        where = _stop(g, now[0][0], now[0][1]) if now else _stop(g, action.hex)
        self._pending.append(StationBought(self._seq, corp, where, cost))
        return result

    def underwrite(self, orig: Callable[..., Any], corp: str) -> Any:
        from pbm.e18xx.rounds.cite import section

        g = self.game
        shares = len(g.shares_of(f"ipo:{corp}", corp))
        price = int(g.share_price(corp))
        key = g.state.corporations[corp].key
        cash = g.state.cash.get(key, 0)
        result = orig(corp)
        self._pending.append(Underwritten(self._seq, corp, price, g.state.cash.get(key, 0) - cash, shares,
                                          section(g.title, "underwriting"), word(g, "pool")))
        return result

    def pay_dividend(self, orig: Callable[..., Any], corp: str, kind: str) -> Any:
        s = self.game.state
        try:
            revenue = int(s.round.revenue)
            subsidy = int(getattr(s.round, "subsidy", 0) or 0)  # told with the run (RunTotal), not again here
        except Exception:  # noqa: BLE001 - finding events never stops the game
            self.failures += 1
            return orig(corp, kind)
        cash = dict(s.cash)
        cell = s.corporations[corp].price if corp in s.corporations else None
        result = orig(corp, kind)
        try:
            c = s.corporations[corp]
            holders = [(p.name, s.cash[p.key] - cash.get(p.key, 0)) for p in s.players
                       if s.cash[p.key] - cash.get(p.key, 0) > 0]
            treasury = s.cash[c.key] - cash.get(c.key, 0) - subsidy
            per = revenue / c.size if c.size else 0
            how = "payout" if kind == "payout" and revenue > 0 else "withhold"
            from pbm.e18xx.rounds.cite import section

            moved = not revenue and cell is not None and c.price != cell  # 1848 11.2: "retains ... decreases"
            self._pending.append(DividendPaid(self._seq, corp, how, revenue, per, tuple(holders), max(0, treasury),
                                              moved, section(self.game.title, "price_withhold") if moved else ""))
            if cell is not None and c.price == cell and not c.closed:
                self._pending.append(_price_stays(self.game, self._seq, corp, how, revenue))
        except Exception:  # noqa: BLE001 - finding events never stops the game
            self.failures += 1
        return result


def _sold_out_stays(g: "Game", before: Snap, after: Snap, seq: int) -> list[PriceStayed]:
    """The companies whose shares are all owned by players at the end of a stock round but whose price
    did not rise, being in the top row (18AL 3.6: "If this would cause the token to go off the top of
    the Stock Chart, the token does not move"; play-through s16b: ABC, all sold, stayed at $90 at the
    end of stock round 3 and no line said why)."""
    from pbm.e18xx.rounds.cite import section

    sizes = g.title.data.get("sold_out_rise_sizes")
    out = []
    for sym, now in sorted(after.corps.items(), key=lambda kv: -g.share_price(kv[0]) if kv[1][0] else 0):
        old = before.corps.get(sym)
        if old is None or old[0] is None or old[0] != now[0] or not now[1] or now[2] \
                or (sizes is not None and now[6] not in sizes):
            continue
        if sum(g.percent_of(p.key, sym) for p in g.state.players) == 100:
            out.append(PriceStayed(seq, sym, g.share_price(sym), "sold_out", 0, section(g.title, "sold_out_rise")))
    return out


def _price_stays(g: "Game", seq: int, corp: str, how: str, revenue: int) -> PriceStayed:
    """Why a dividend left ``corp``'s price where it is: the title's own rule (18VA 3.2: a dividend
    below the price does not move it; 18GA, 18AL 4.2.4 and 1848 11.1 move it right on any payout)."""
    from pbm.e18xx.rounds.cite import section

    price = g.share_price(corp)
    if how == "payout":
        below = g.title.data.get("payout_moves") == "right_if_at_least_price" and revenue < price
        return PriceStayed(seq, corp, price, "below" if below else "top", revenue,
                           section(g.title, "price_payout"))
    return PriceStayed(seq, corp, price, "bottom", revenue, section(g.title, "price_withhold"))


def attach(game: "Game") -> Recorder:
    """Record the events of every action ``game`` processes from now on (``game.recorder.events``).
    The game's ``process``, ``_pay_dividend``, ``payout_companies``, ``lender_dividend`` and ``_sell_company`` are
    wrapped on this instance only."""
    rec = getattr(game, "recorder", None)
    if isinstance(rec, Recorder):
        return rec
    rec = Recorder(game)
    process = game.process
    game.process = lambda action, **kw: rec.process(process, action, **kw)  # type: ignore[method-assign]
    # the moments a snapshot cannot tell apart; a method the engine no longer has is left alone
    # (its events are then missing, and tests/e18xx/test_events.py says so), never an error here
    pay = getattr(game, "_pay_dividend", None)
    if pay is not None:
        game._pay_dividend = lambda corp, kind: rec.pay_dividend(pay, corp, kind)  # type: ignore[method-assign]
    privates = getattr(game, "payout_companies", None)
    if privates is not None:
        game.payout_companies = lambda: rec.privates_pay(privates)  # type: ignore[method-assign]
    lender = getattr(game, "lender_dividend", None)
    if lender is not None:
        game.lender_dividend = lambda: rec.lender_pays(lender)  # type: ignore[method-assign]
    transfer = game.transfer
    game.transfer = lambda src, dst, amount: rec.spend(transfer, src, dst, amount)  # type: ignore[method-assign]
    lay = getattr(game, "_lay_tile", None)
    if lay is not None:
        game._lay_tile = lambda corp, action, *a, **kw: rec.lay_tile(lay, corp, action, *a, **kw)  # type: ignore[method-assign]
    token = getattr(game, "_place_token", None)
    if token is not None:
        game._place_token = (  # type: ignore[method-assign]
            lambda corp, action, *a, **kw: rec.place_token(token, corp, action, *a, **kw))
    underwrite = getattr(game, "_underwrite", None)
    if underwrite is not None:
        game._underwrite = lambda corp: rec.underwrite(underwrite, corp)  # type: ignore[method-assign]
    sell = getattr(game, "_sell_company", None)
    if sell is not None:
        game._sell_company = (  # type: ignore[method-assign]
            lambda player, company, price: rec.sell_company(sell, player, company, price))
    game.recorder = rec  # type: ignore[attr-defined]
    return rec


def recorded(game: "Game") -> list[Event]:
    """The events recorded for ``game`` (empty when no recorder was attached)."""
    rec = getattr(game, "recorder", None)
    if not isinstance(rec, Recorder):
        return []
    n = len(game.actions)  # an action taken back is no longer in the log: nor are its events
    return [e for e in rec.events if e.seq <= n]


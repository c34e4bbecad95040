"""One tycoon's orders for one turn of Continental Rails (§10), as values.

An :class:`Orders` holds the personal actions of §10.1 and one
:class:`RailroadOrders` per railroad the tycoon presides (§10.2).  Orders are
plain dataclasses: they round-trip through JSON (``to_dict``/``from_dict``) so
they can be stored in the database (``OrderSet.orders``), produced by the
turnsheet parsers and by the computer players, and checked by the validator
(``pbm.cr.validate``) against the start-of-turn state.

Blank means "no order", except where the rules give a standing order: control
slots left blank keep the same railroads (§10.1D) and a blank dividend leaves
the rate unchanged (§10.2H); both are ``None`` here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

PCActionKind = Literal["sell", "merge", "incorporate"]
StockAction = Literal["sell", "short", "buy"]

MAX_STOCK_ORDERS = 6  # §6.1A
MAX_MESSAGE = 80  # §10.1G
MAX_DIVIDEND = 99  # §4.12


@dataclass
class PCAction:
    """§10.1B: for a PC the tycoon owns, ONE of sell (or re-price), merge, incorporate."""

    pc: str
    action: PCActionKind
    price: int | None = None  # sell: minimum asking price (whole dollars)
    railroad: str | None = None  # merge: the railroad it merges into
    president: bool = False  # incorporate: ask to be president (§10.1B3d)


@dataclass
class PCBid:
    """§10.1B: a bid for an available PC; ``sequence`` 1 or 2."""

    pc: str
    amount: int
    sequence: int = 1


@dataclass
class StockOrder:
    """§6.1, §10.1C: one of up to six stock transactions, in ``priority`` order (1 first)."""

    railroad: str
    action: StockAction
    shares: int
    priority: int = 0


@dataclass
class RateWar:
    """§4.16: cut revenues on parallel routes with ``target`` by ``percent``."""

    target: str
    percent: int


@dataclass
class RailroadOrders:
    """§10.2: what a president orders for one railroad."""

    railroad: str
    lend: int = 0  # A: president lends to the railroad
    repay_president: int = 0  # A: railroad repays the president
    repay_debt: int = 0  # B: repay bank loans, then bonds
    treasury_to_president: int = 0  # C2: shares sold to the president at 50 %
    treasury_to_market: int = 0  # C3: shares offered on the stock market
    capital_per_mile: int = 0  # D: capital improvements, $ per mile (§4.5)
    build_per_mile: int | None = None  # E: build the owned RoW at this cost per mile
    abandon: bool = False  # E3: abandon the owned RoW
    double_track: list[str] = field(default_factory=list)  # §4.15: line codes
    rate_wars: list[RateWar] = field(default_factory=list)  # §4.16
    locomotive: int | None = None  # §4.17: engine number to upgrade to
    technology: str | None = None  # §4.18: letter A–J (A = Grand Station)
    political: int = 0  # F: total dollars for political influence
    row_first: str | None = None  # G: first-choice RoW (may be a write-in, G3)
    row_alternate: str | None = None  # G: alternate RoW
    dividend: int | None = None  # H: per share; None = unchanged


@dataclass
class Orders:
    """Everything one tycoon orders for one turn."""

    borrow: int = 0  # §10.1A1
    repay: int = 0  # §10.1A2
    pc_actions: list[PCAction] = field(default_factory=list)
    pc_bids: list[PCBid] = field(default_factory=list)
    stock: list[StockOrder] = field(default_factory=list)
    control: list[str | None] | None = None  # §10.1D: [slot1, slot2]; None = unchanged
    resign: list[str] = field(default_factory=list)  # §10.1D resignations
    merge: tuple[str, str] | None = None  # §10.1E: (merging railroad, surviving railroad)
    spy_player: int | None = None  # §10.1F
    spy_railroad: str | None = None  # §10.1F
    message: str = ""  # §10.1G
    prodigal: int = 0  # §1.2 Rail Prodigal spending
    character: str | None = None  # §3.2
    railroads: list[RailroadOrders] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; ``from_dict(to_dict(o)) == o``."""
        data = _as_dict(self)
        if self.merge is not None:
            data["merge"] = list(self.merge)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Orders:
        data = dict(data)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown order fields: {', '.join(sorted(unknown))}")
        data["pc_actions"] = [PCAction(**x) for x in data.get("pc_actions", [])]
        data["pc_bids"] = [PCBid(**x) for x in data.get("pc_bids", [])]
        data["stock"] = [StockOrder(**x) for x in data.get("stock", [])]
        data["railroads"] = [
            RailroadOrders(**{**r, "rate_wars": [RateWar(**w) for w in r.get("rate_wars", [])]})
            for r in data.get("railroads", [])
        ]
        if data.get("merge") is not None:
            data["merge"] = tuple(data["merge"])
        return cls(**data)

    def for_railroad(self, code: str) -> RailroadOrders | None:
        for r in self.railroads:
            if r.railroad == code:
                return r
        return None


_ATOMS = frozenset((str, int, float, bool, type(None)))
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind))
    return names


def _as_dict(value: Any) -> Any:
    """``dataclasses.asdict`` of orders, without its ``copy.deepcopy`` of every string and number
    (they are immutable: the same values); anything else goes the way ``asdict`` takes it."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [_as_dict(v) for v in value]
    if kind in _ORDER_CLASSES:
        return {name: _as_dict(getattr(value, name)) for name in _field_names(kind)}
    if kind is tuple:
        return tuple(_as_dict(v) for v in value)
    return asdict(_Boxed(value))["value"]


@dataclass
class _Boxed:
    value: Any


def copy_orders(orders: Orders) -> Orders:
    """``copy.deepcopy(orders)``, the same result (an object met twice is copied once), without
    the generic machinery: strings, numbers and None are kept, lists, tuples and the order
    dataclasses copied; anything else is left to ``copy.deepcopy``."""
    import copy

    memo: dict[int, Any] = {}

    def dup(value: Any) -> Any:
        kind = type(value)
        if kind in _ATOMS:
            return value
        done = memo.get(id(value))
        if done is not None:
            return done
        if kind is list:
            out: Any = []
            memo[id(value)] = out
            out.extend(dup(v) for v in value)
        elif kind in _ORDER_CLASSES:
            out = kind.__new__(kind)
            memo[id(value)] = out
            out.__dict__.update({k: dup(v) for k, v in value.__dict__.items()})
        elif kind is tuple and all(type(v) in _ATOMS for v in value):
            out = value  # (deepcopy keeps a tuple of immutables as it is)
        else:
            out = copy.deepcopy(value)
            memo[id(value)] = out
        return out

    return dup(orders)


@dataclass
class Problem:
    """One thing wrong with an order, precise enough to email to a player.

    ``where`` names the order (e.g. ``"stock 4"``, ``"B&O build"``, ``"loan"``);
    ``message`` says what is wrong; ``allowed`` says what would be accepted
    (a range, the valid targets); ``line`` is the turnsheet line when known.
    ``adjusted`` is True when the order was cut to what is allowed rather than
    refused (e.g. a stock bid lowered to the maximum, §6.1A).  ``warning`` is
    True when the order stands as written but may not work out as the player
    hopes (e.g. a stock purchase that §6.1C order checking may cut if PC bids
    win, a write-in RoW that is not available yet, §10.2G3).  A problem that
    is neither adjusted nor a warning means the order was refused (dropped).
    """

    where: str
    message: str
    allowed: str = ""
    line: int | None = None
    adjusted: bool = False
    warning: bool = False

    @property
    def refused(self) -> bool:
        return not (self.adjusted or self.warning)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def __str__(self) -> str:
        head = f"line {self.line}: " if self.line is not None else ""
        tail = f" (allowed: {self.allowed})" if self.allowed else ""
        return f"{head}{self.where}: {self.message}{tail}"


_ORDER_CLASSES = frozenset((Orders, RailroadOrders, PCAction, PCBid, StockOrder, RateWar))

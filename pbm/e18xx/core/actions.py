"""Actions are plain values.  ``entity`` names who acts: a player's name, a
corporation's symbol, or a private company's symbol (for its abilities).

``to_dict``/``action_from_dict`` give the log format (close to the
18xx.games export, without its bookkeeping fields).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from pbm.e18xx.core.errors import GameError


@dataclass(frozen=True)
class Action:
    type: ClassVar[str] = ""
    entity: str

    def to_dict(self) -> dict[str, Any]:
        d = {"type": self.type}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, tuple):
                v = [asdict(x) if hasattr(x, "__dataclass_fields__") else x for x in v]
            d[f.name] = v
        return d


@dataclass(frozen=True)
class Pass(Action):
    type: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Bid(Action):
    type: ClassVar[str] = "bid"
    company: str = ""
    price: int = 0


@dataclass(frozen=True)
class Par(Action):
    type: ClassVar[str] = "par"
    corporation: str = ""
    price: int = 0


@dataclass(frozen=True)
class BuyShares(Action):
    """Buy one certificate: ``shares`` names it (``GA_3``); or give
    ``corporation`` and ``source`` ("ipo" or "market") and the engine picks."""
    type: ClassVar[str] = "buy_shares"
    shares: tuple[str, ...] = ()
    corporation: str = ""
    source: str = ""


@dataclass(frozen=True)
class SellShares(Action):
    type: ClassVar[str] = "sell_shares"
    shares: tuple[str, ...] = ()
    corporation: str = ""
    count: int = 0


@dataclass(frozen=True)
class LayTile(Action):
    """``tile`` is a tile name (``57``) or a copy id (``57-1``)."""
    type: ClassVar[str] = "lay_tile"
    hex: str = ""
    tile: str = ""
    rotation: int = 0


@dataclass(frozen=True)
class PlaceToken(Action):
    """``city`` is a hex (``E5``), a location name (``Rome``) or a city id."""
    type: ClassVar[str] = "place_token"
    city: str = ""
    slot: int | None = None


@dataclass(frozen=True)
class RouteSpec:
    train: str
    nodes: tuple[str, ...]  # "HEX-nodeindex"
    revenue: int | None = None


@dataclass(frozen=True)
class RunRoutes(Action):
    """``auto=True`` asks the engine for the best routes."""
    type: ClassVar[str] = "run_routes"
    routes: tuple[RouteSpec, ...] = ()
    auto: bool = False


@dataclass(frozen=True)
class Dividend(Action):
    type: ClassVar[str] = "dividend"
    kind: str = "payout"


@dataclass(frozen=True)
class BuyTrain(Action):
    """``train`` is a train id (``3-1``) or a type (``3``: the depot's next)."""
    type: ClassVar[str] = "buy_train"
    train: str = ""
    price: int | None = None
    variant: str | None = None  # passenger or freight side declared (``2`` or ``1G``)
    exchange: str | None = None  # a train of the company traded in (title data ``trade_in``)
    seller: str | None = None  # the company selling it (named in the log; checked when given)


@dataclass(frozen=True)
class DiscardTrain(Action):
    type: ClassVar[str] = "discard_train"
    train: str = ""


@dataclass(frozen=True)
class BuyCompany(Action):
    type: ClassVar[str] = "buy_company"
    company: str = ""
    price: int = 0


@dataclass(frozen=True)
class Bankrupt(Action):
    type: ClassVar[str] = "bankrupt"


@dataclass(frozen=True)
class Convert(Action):
    """A five-share corporation becomes a ten-share one."""
    type: ClassVar[str] = "convert"


@dataclass(frozen=True)
class Assign(Action):
    """A private's ability placed on a hex (a revenue bonus): entity is the private."""
    type: ClassVar[str] = "assign"
    target: str = ""


@dataclass(frozen=True)
class UseAbility(Action):
    """A private's ability that needs no target (e.g. +1 train limit)."""
    type: ClassVar[str] = "use_ability"
    ability: str = ""


@dataclass(frozen=True)
class TakeLoan(Action):
    """A corporation borrows one loan from the title's lending corporation (title data ``loans``)."""
    type: ClassVar[str] = "take_loan"


ACTION_TYPES: dict[str, type[Action]] = {
    c.type: c for c in (Pass, Bid, Par, BuyShares, SellShares, LayTile, PlaceToken, RunRoutes, Dividend,
                        BuyTrain, DiscardTrain, BuyCompany, Bankrupt, Convert, Assign, UseAbility, TakeLoan)
}


def action_from_dict(d: dict[str, Any]) -> Action:
    """Inverse of ``Action.to_dict``."""
    kind = d.get("type")
    cls = ACTION_TYPES.get(str(kind))
    if cls is None:
        raise GameError(f"unknown action type {kind!r}; known: {', '.join(sorted(ACTION_TYPES))}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in d:
            continue
        v = d[f.name]
        if f.name == "routes":
            v = tuple(RouteSpec(r["train"], tuple(r["nodes"]), r.get("revenue")) for r in v)
        elif isinstance(v, list):
            v = tuple(v)
        kwargs[f.name] = v
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise GameError(f"malformed {kind} action: {exc}") from None


__all__ = ["Action", "ACTION_TYPES", "action_from_dict", "RouteSpec"] + [c.__name__ for c in ACTION_TYPES.values()]

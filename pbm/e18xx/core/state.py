"""Mutable game state: plain dataclasses, copied whole to undo a refused action.

Money lives in one ledger, ``State.cash``, keyed ``bank``, ``P:<player>``
and ``C:<corporation>``, so conservation is a one-line check.
Share certificates are ``<CORP>_<n>``; ``_0`` is the president's (20%).
Their owner is ``ipo:<CORP>``, ``pool`` or ``P:<player>``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pbm.e18xx.core.track import MapState


@dataclass(frozen=True)
class GameSetup:
    """What a game was started with (it never changes)."""
    title: str
    players: tuple[str, ...]
    seed: int = 0
    optional_rules: tuple[str, ...] = ()
    player_ids: tuple[str, ...] = ()


@dataclass
class Player:
    name: str
    pid: str
    bankrupt: bool = False

    @property
    def key(self) -> str:
        return f"P:{self.name}"


@dataclass
class Company:
    sym: str
    name: str
    value: int
    revenue: int
    owner: str | None = None  # "P:<name>" or "C:<sym>"
    closed: bool = False
    discount: int = 0
    uses: dict[str, int] = field(default_factory=dict)  # ability type -> times used

    @property
    def min_bid(self) -> int:
        return self.value - self.discount


@dataclass
class Corporation:
    sym: str
    name: str
    home: str
    token_costs: list[int]
    tokens: list[tuple[str, int] | None]  # where each token is (None: still on the charter)
    ipoed: bool = False
    floated: bool = False
    operated: bool = False
    closed: bool = False
    par: tuple[int, int] | None = None
    price: tuple[int, int] | None = None
    trains: list[str] = field(default_factory=list)
    size: int = 10  # shares: 10 (president 20%) or 5 (president 40%)
    extra_train_limit: int = 0
    equal_shares: bool = False  # a lending corporation (title data ``bank_corporation``): ten 10% shares, no president
    loans: int = 0  # loans taken (a lender: loans given)
    receivership: bool = False  # taken over by the lending corporation (title data ``receivership``)

    @property
    def key(self) -> str:
        return f"C:{self.sym}"


@dataclass
class Train:
    tid: str
    name: str
    distance: int
    price: int
    owner: str = "depot"  # "depot" | "C:<sym>" | "N" | "removed" | "discard"
    operated: bool = False
    buyable: bool = True
    obsolete: bool = False
    variant: str | None = None  # declared variant (e.g. "1G"), None while undeclared
    kind: str = "passenger"  # passenger / freight / doubler (of the declared variant)
    pooled: int = 0  # when it went to the Open Market (1, 2, ...: the order trains were discarded)


@dataclass
class Bid:
    player: str
    price: int


@dataclass
class RoundState:
    kind: str  # "auction" | "stock" | "operating"
    entities: list[str]
    index: int = 0
    num: int = 1  # operating round number within the set
    last_to_act: str | None = None
    # auction
    bids: dict[str, list[Bid]] = field(default_factory=dict)
    auctioning: str | None = None
    auction_seq: list[str] = field(default_factory=list)  # rulebook auction: turn order
    auction_turn: int = 0
    high: Bid | None = None
    passed: set[str] = field(default_factory=set)
    # stock round
    turn_actions: list[tuple[str, str]] = field(default_factory=list)  # (kind, corp) this turn
    sold: dict[str, dict[str, str]] = field(default_factory=dict)  # player -> corp -> "now"/"prev"
    # operating round
    steps_done: set[str] = field(default_factory=set)
    tile_lays: int = 0
    upgraded: bool = False
    tokened: set[str] = field(default_factory=set)  # companies that placed a token this OR
    bought_depot: set[str] = field(default_factory=set)
    routes: list[Any] = field(default_factory=list)
    revenue: int = 0
    ran: bool = False
    pending_home: str | None = None
    laid_hexes: list[str] = field(default_factory=list)
    emergency_sold: int = 0  # the share price of the president's last sale for a forced train purchase (0: none)
    subsidy: int = 0  # paid to the treasury besides the revenue (coal district stations)
    pending_par: tuple[str, str] | None = None  # (player, corporation) who must set a starting value now
    loaned: set[str] = field(default_factory=set)  # corporations that took a loan this round
    turn_over: bool = False  # the operating company's turn ended while a forced tile lay was due (1848 4.4)
    discard_before_next: bool = False  # 1848 ``site_discard_timing``: a waiting discard comes before the next turn


class ShareOwners(dict):
    """``share id -> owner``, with an index ``owner -> corporation -> share ids`` kept on every
    write (a plain dict otherwise: same items, same order), so what an owner holds of a
    corporation is read without scanning every certificate."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._reindex()

    def _reindex(self) -> None:
        held: dict[str, dict[str, dict[str, None]]] = {}
        for sid, owner in dict.items(self):
            held.setdefault(owner, {}).setdefault(sid.rsplit("_", 1)[0], {})[sid] = None
        self._held = held

    def __setitem__(self, sid: str, owner: str) -> None:
        corp = sid.rsplit("_", 1)[0]
        old = dict.get(self, sid)
        if old is not None:
            by_corp = self._held[old]
            sids = by_corp[corp]
            del sids[sid]
            if not sids:
                del by_corp[corp]
        dict.__setitem__(self, sid, owner)
        self._held.setdefault(owner, {}).setdefault(corp, {})[sid] = None

    def held(self, owner: str, corp: str) -> dict[str, None]:
        """The share ids of ``corp`` that ``owner`` holds (keys of the dict; do not change it)."""
        return self._held.get(owner, {}).get(corp) or {}

    def holdings(self, owner: str) -> dict[str, dict[str, None]]:
        """``corporation -> share ids`` of everything ``owner`` holds (do not change it)."""
        return self._held.get(owner) or {}

    def copy(self) -> "ShareOwners":
        new = ShareOwners.__new__(ShareOwners)
        dict.update(new, self)
        new._held = {owner: {corp: dict(sids) for corp, sids in by_corp.items()}
                     for owner, by_corp in self._held.items()}
        return new

    # the other ways to change a dict keep the index too
    def __delitem__(self, sid: str) -> None:
        dict.__delitem__(self, sid)
        self._reindex()

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        dict.update(self, *args, **kwargs)
        self._reindex()

    def pop(self, *args: Any) -> Any:  # type: ignore[override]
        out = dict.pop(self, *args)
        self._reindex()
        return out

    def popitem(self) -> Any:
        out = dict.popitem(self)
        self._reindex()
        return out

    def setdefault(self, sid: str, owner: Any = None) -> Any:  # type: ignore[override]
        if sid not in self:
            self[sid] = owner
        return dict.__getitem__(self, sid)

    def clear(self) -> None:
        dict.clear(self)
        self._reindex()

    def __ior__(self, other: Any) -> "ShareOwners":  # type: ignore[override]
        self.update(other)
        return self

    def __reduce__(self) -> Any:
        return (ShareOwners, (dict(self),))


@dataclass
class State:
    players: list[Player]
    companies: dict[str, Company]
    corporations: dict[str, Corporation]
    trains: dict[str, Train]
    map: MapState
    cash: dict[str, int]
    share_owner: dict[str, str]
    share_seq: dict[str, int]
    market: dict[tuple[int, int], list[str]]
    round: RoundState
    phase: int = 0
    turn: int = 1
    seq: int = 0
    finished: bool = False
    end_reason: str | None = None
    end_trigger: tuple[str, str] | None = None
    bank_broken: bool = False
    market_max: bool = False
    ors_in_set: int = 1
    tile_supply: dict[str, list[int]] = field(default_factory=dict)
    pending_tokens: list[str] = field(default_factory=list)
    recently_floated: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    assignments: dict[tuple[str, str], str] = field(default_factory=dict)  # (private, corporation) -> hex
    objectives_done: set[str] = field(default_factory=set)  # corporations paid their objective bonus
    hex_bonuses: dict[str, tuple[str, int]] = field(default_factory=dict)  # corporation -> (hex, bonus) of a token
    route_bonus_corps: dict[str, str] = field(default_factory=dict)  # corporation -> private whose route bonuses it has
    events: set[str] = field(default_factory=set)  # train events that have happened
    receiverships: int = 0
    receivership_by_director: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.share_owner, ShareOwners):
            self.share_owner = ShareOwners(self.share_owner)


def _dup(obj, **changes):
    """A shallow copy of a dataclass instance with ``changes`` (much faster than
    ``dataclasses.replace``, which re-runs ``__init__``)."""
    new = object.__new__(obj.__class__)
    new.__dict__.update(obj.__dict__)
    if changes:
        new.__dict__.update(changes)
    return new


def clone_state(s: State) -> State:
    """A deep copy of ``s``, fast (immutable parts are shared)."""
    r = s.round
    rnd = replace(r, entities=list(r.entities), bids={k: list(v) for k, v in r.bids.items()},
                  auction_seq=list(r.auction_seq),
                  passed=set(r.passed), turn_actions=list(r.turn_actions),
                  sold={k: dict(v) for k, v in r.sold.items()}, steps_done=set(r.steps_done),
                  tokened=set(r.tokened), bought_depot=set(r.bought_depot), routes=list(r.routes),
                  laid_hexes=list(r.laid_hexes), loaned=set(r.loaned))
    return replace(
        s,
        players=[_dup(p) for p in s.players],
        companies={k: _dup(c, uses=dict(c.uses)) for k, c in s.companies.items()},
        corporations={k: _dup(c, token_costs=list(c.token_costs), tokens=list(c.tokens), trains=list(c.trains))
                      for k, c in s.corporations.items()},
        trains={k: _dup(t) for k, t in s.trains.items()},
        map=s.map.__deepcopy__({}),
        cash=dict(s.cash),
        share_owner=s.share_owner.copy() if isinstance(s.share_owner, ShareOwners) else dict(s.share_owner),
        share_seq=dict(s.share_seq),
        market={k: list(v) for k, v in s.market.items()},
        round=rnd,
        tile_supply={k: list(v) for k, v in s.tile_supply.items()},
        pending_tokens=list(s.pending_tokens),
        recently_floated=list(s.recently_floated),
        log=list(s.log),
        assignments=dict(s.assignments),
        objectives_done=set(s.objectives_done),
        hex_bonuses=dict(s.hex_bonuses),
        route_bonus_corps=dict(s.route_bonus_corps),
        events=set(s.events),
        receivership_by_director=dict(s.receivership_by_director),
    )

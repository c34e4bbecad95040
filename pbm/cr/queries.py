"""Rule queries: what the rules allow a tycoon or a railroad right now.

Every question the validator, the engine, the computer players and the
turnsheet ask about the START-OF-TURN state lives here, once: available
credit (§3.5A), stock bid limits (§6.1A/B), short-sale limits (§6.2), PCs for
sale and who may bid (§10.1B), where a PC may merge (§10.1B2, §4.8), valid
RoWs (§4.7, §4.8), railroad mergers (§4.13), build costs (§4.6B/C), capital
improvement limits (§4.5B, §10.2D), locomotives (§4.17), technologies (§4.18),
political minimum (§4.9B), dividends (§4.12), the climate table (§5), and the
order checking of the stock market phase (§6.1C).

The questions are asked of a :class:`View`: the game's rows loaded once from
the session and indexed, so that a computer player can ask hundreds of
questions without touching the database again.  The functions do not modify
anything.  Rulings where the rulebook is silent or contradictory are in
``docs/rulings/orders.md`` (numbered R-O…).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import starmap
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.cr.engine.tables import BOND_RATE, CLIMATES, Climate, climate  # noqa: F401 (§5: one table)
from pbm.collector import paused
from pbm.models import Game, Holding, Line, Player, PrivateCompany, Railroad, Route, Town

# ---------------------------------------------------------------------------
# Fixed limits
# ---------------------------------------------------------------------------

MAX_DIVIDEND = 99  # §4.12, §10.2H1
CAPITAL_MAX_PER_MILE = 50  # §10.2D1 and Appendix A 8.1 (not §4.5B's $100): ruling R-O1
POLITICAL_MIN_PER_MILE = 1  # §4.9B, §10.2F2
BUILD_OVERSPEND_FACTOR = 2  # §4.6C: up to double the minimum
TOWN_BUILD_COST = 300  # §4.6D: $300 × town value
DOUBLE_TRACK_FRACTION = 0.25  # §4.15
LOCOMOTIVE_COST_PER_STEP = 10  # §4.17: $10 per mile per engine number
TECH_COST_PER_MILE = 10  # §4.18
GRAND_STATION_COST = 10_000  # §4.18
PC_MIN_PER_MILE = 1  # §10.1B1a, §10.1B3
PC_PRICE_FLOOR_PER_MILE = 10  # §10.1B1b: may always ask $10/mile
PC_MARKUP = 0.20  # §10.1B1b/d: 20 % over what was paid (and over the current asking price)
MAX_PCS_OWNED = 2  # §10.1B
MAX_STOCK_ORDERS = 6  # §6.1A
STOCK_BID_PCT = 0.20  # §6.1A/B
STOCK_CAP_PCT = 0.51  # §6.1A
SHORT_PCT = 0.10  # §6.2A
DIRECTOR_PCT = 0.10  # §4.14A
CIVIL_WAR_TURNS = (11, 12)  # §8
GATEWAY_CITIES = ("Chicago", "St. Louis", "Memphis", "Vicksburg", "New Orleans")  # §4.8.2
LOCOMOTIVES = {
    1: "Lion 0-4-0", 2: "Norris 4-2-0", 3: "American 4-4-0", 4: "Mogul 2-6-0", 5: "Atlantic 4-4-2",
    6: "Prairie 2-6-2", 7: "Chesapeake 4-6-0", 8: "Consolidation 2-8-0", 9: "Pacific 4-6-2",
}  # §4.17
TECHNOLOGIES = {
    "A": "Grand Station", "B": "Switch Yards", "C": "Steel Rails", "D": "Coal-burning engine",
    "E": "Block signal system", "F": "Automatic couplers", "G": "Pullman sleepers",
    "H": "Automatic brakes", "I": "Refrigerated cars", "J": "Steel Bridges",
}  # §4.18
# Ruling R-O5: the turn each engine / technology becomes available, unless the
# engine records its own draw in ``game.state["locomotive"]`` / ``["technologies"]``:
# slowly before the Civil War (turns 11–12), more rapidly after it (§4.17, §4.18).
LOCOMOTIVE_SCHEDULE = {1: 1, 2: 4, 3: 8, 4: 13, 5: 15, 6: 17, 7: 19, 8: 21, 9: 23}
TECHNOLOGY_SCHEDULE = {"A": 1, "B": 5, "C": 9, "D": 13, "E": 14, "F": 15, "G": 16, "H": 17,
                       "I": 18, "J": 19}


def stock_bid_count_limit(active_railroads: int) -> int:
    """§6.1A: buy orders allowed by the number of active railroads.

    "less than 15: 3; 16–30: 4; 31+: 5" — exactly 15 falls in the gap; ruling
    R-O2 counts it with the smaller group (3)."""
    if active_railroads <= 15:
        return 3
    if active_railroads <= 30:
        return 4
    return 5


def build_cost_range(climate_name: str) -> tuple[int, int]:
    """§4.6B/C: (minimum, maximum) track cost per mile in this start-of-turn climate."""
    low = climate(climate_name).build_min
    return low, low * BUILD_OVERSPEND_FACTOR


def is_civil_war(turn: int) -> bool:
    """§8: turns 11 and 12 are the Civil War (no RoW building; climate ≥ Normal)."""
    return turn in CIVIL_WAR_TURNS


# ---------------------------------------------------------------------------
# The loaded state
# ---------------------------------------------------------------------------


def _norm_city(name: str) -> str:
    text = name.strip().lower().replace("saint ", "st. ").replace("st ", "st. ")
    return text.replace("st.. ", "st. ")


_GATEWAYS = {_norm_city(c) for c in GATEWAY_CITIES}


@dataclass
class View:
    """The start-of-turn state of one game, indexed for rule queries."""

    game: Game
    players: dict[int, Player]  # by player id
    by_number: dict[int, Player]
    railroads: dict[int, Railroad]  # by railroad id (all statuses)
    rr_by_code: dict[str, Railroad]
    towns: dict[int, Town]
    routes: dict[int, Route]
    route_by_code: dict[str, Route]
    pcs: dict[int, PrivateCompany]  # by PC id
    pc_by_code: dict[str, PrivateCompany]
    lines_of: dict[int, list[Route]] = field(default_factory=dict)  # railroad id -> built routes
    row_of: dict[int, Route] = field(default_factory=dict)  # railroad id -> unbuilt RoW
    holdings_of: dict[int, dict[int, Holding]] = field(default_factory=dict)  # rr id -> player id -> holding
    routes_at: dict[int, list[Route]] = field(default_factory=dict)  # town id -> routes touching it
    built_route_ids: set[int] = field(default_factory=set)
    # answers already computed on this (unchanging, start-of-turn) state: the computer
    # players and the validator of all 15 seats ask the same questions of one shared view
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    # True when the rows will not change while the view is used (the seats of one turn):
    # then the answers below that scan many rows are memoized too (:meth:`remember`)
    frozen: bool = field(default=False, compare=False)

    def remember(self, key, make):
        """``make()``, computed once per key on a frozen view (every time otherwise)."""
        if not self.frozen:
            return make()
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = make()
        return got

    # -- basic facts ---------------------------------------------------------

    @property
    def turn(self) -> int:
        return self.game.turn

    @property
    def climate(self) -> Climate:
        return climate(self.game.climate)

    def active_railroads(self) -> list[Railroad]:
        """Railroads operating at the start of the turn (active or bankrupt, §4.11B)."""
        return list(self.remember("active", lambda: tuple(r for r in self.railroads.values()
                                                            if r.status in ("active", "bankrupt"))))

    def railroad(self, code: str) -> Railroad | None:
        """A railroad by code or turnsheet number (§10: the numbers may be used instead)."""
        key = code.strip().upper()
        if key in self.rr_by_code:
            return self.rr_by_code[key]
        if key.isdigit():
            for r in self.railroads.values():
                if r.number == int(key):
                    return r
        return None

    def route(self, code: str) -> Route | None:
        return self.route_by_code.get(code.strip().upper())

    def pc(self, code: str) -> PrivateCompany | None:
        return self.pc_by_code.get(code.strip().upper())

    def miles(self, railroad: Railroad) -> int:
        """Start-of-turn track mileage (§4.9A)."""
        return sum(r.miles for r in self.lines_of.get(railroad.id, []))

    def holding(self, player: Player, railroad: Railroad) -> Holding | None:
        return self.holdings_of.get(railroad.id, {}).get(player.id)

    def shares(self, player: Player, railroad: Railroad) -> int:
        h = self.holding(player, railroad)
        return h.shares if h else 0

    def is_director(self, player: Player, railroad: Railroad) -> bool:
        """§4.14A: a Director holds 10 % of the issued stock; the Directors of a turn are those
        elected at the end of the last one (``Holding.director``, ruling R-O15)."""
        h = self.holding(player, railroad)
        return bool(h and h.director)

    def directors(self, railroad: Railroad) -> list[Player]:
        return [self.players[pid] for pid, h in sorted(self.holdings_of.get(railroad.id, {}).items())
                if self.is_director(self.players[pid], railroad)]

    def presided_by(self, player: Player) -> list[Railroad]:
        """Railroads the player is president of at the start of the turn, slot order first."""
        mine = [r for r in self.active_railroads() if r.president_id == player.id]
        order = {player.slot1_id: 0, player.slot2_id: 1}
        return sorted(mine, key=lambda r: (order.get(r.id, 2), r.number))

    def pcs_owned(self, player: Player) -> list[PrivateCompany]:
        def by_owner() -> dict[int, list[PrivateCompany]]:
            out: dict[int, list[PrivateCompany]] = {}
            for pc in self.pcs.values():
                if pc.status == "owned":
                    out.setdefault(pc.owner_id, []).append(pc)
            return out

        return list(self.remember("pcs_owned", by_owner).get(player.id, ()))

    def towns_of(self, railroad: Railroad) -> set[int]:
        """Towns on the railroad's built lines."""
        return set(self.town_set(railroad.id))

    def town_set(self, railroad_id: int) -> frozenset[int]:
        """:meth:`towns_of` as a shared frozen set (not to be changed by the caller)."""
        key = ("towns_of", railroad_id)
        cached = self.memo.get(key)
        if cached is None:
            cached = frozenset(t for r in self.lines_of.get(railroad_id, []) for t in (r.a_id, r.b_id))
            self.memo[key] = cached
        return cached

    def regions_of(self, railroad: Railroad, extra: Iterable[Route] = ()) -> set[str]:
        """§2.7B: regions connected by built lines to a starred (named) town."""
        routes = list(self.lines_of.get(railroad.id, [])) + list(extra)
        out: set[str] = set()
        for r in routes:
            for tid in (r.a_id, r.b_id):
                t = self.towns[tid]
                if t.star:
                    out.add(t.region)
        return out

    def owner_of_route(self, route: Route) -> Railroad | None:
        return self.railroads.get(route.owner_id) if route.owner_id else None


def load(session: Session, game: Game) -> View:
    """Load the start-of-turn state of ``game`` into a :class:`View`."""
    gid = game.id
    players = {p.id: p for p in session.scalars(select(Player).where(Player.game_id == gid).order_by(Player.number))}
    railroads = {r.id: r for r in session.scalars(select(Railroad).where(Railroad.game_id == gid).order_by(Railroad.id))}
    towns = {t.id: t for t in session.scalars(select(Town).where(Town.game_id == gid).order_by(Town.id))}
    routes = {r.id: r for r in session.scalars(select(Route).where(Route.game_id == gid).order_by(Route.number))}
    pcs = {p.id: p for p in session.scalars(select(PrivateCompany).where(PrivateCompany.game_id == gid)
                                            .order_by(PrivateCompany.id))}
    lines = list(session.scalars(select(Line).where(Line.railroad_id.in_(list(railroads) or [-1])).order_by(Line.id)))
    holdings = list(session.scalars(select(Holding).where(Holding.player_id.in_(list(players) or [-1]))
                                    .order_by(Holding.id)))
    return build(game, players, railroads, towns, routes, pcs, lines, holdings)


def load_plain(session: Session, game: Game) -> View:
    """:func:`load`, but the rows are read with Core selects into plain objects, not ORM rows.

    For a caller that only reads the view (the validator of one mailed sheet): a plain object is
    made for a fraction of what an ORM row costs (identity map, instance state), and the ~900 rows
    of a game are most of what checking one sheet costs.  The objects carry every column, the
    model's Python properties (``Town.value``, ``Railroad.miles``, ``PrivateCompany.code``) and the
    relationships between the view's own rows (``Railroad.lines``, ``Line.route``, ``Route.a``, …),
    in the order the ORM would give them; ``game`` is the ORM ``game``.  They are not in the
    session: a change to them is written only by whoever makes it (the turn engine's
    :class:`pbm.cr.engine.rows.Rows`)."""
    if session.autoflush:  # what the ORM selects of :func:`load` would have flushed first
        session.flush()
    gid = game.id
    players = {p.id: p for p in _plain_rows(session, Player, "game_id", gid, "number")}
    railroads = {r.id: r for r in _plain_rows(session, Railroad, "game_id", gid, "id")}
    towns = {t.id: t for t in _plain_rows(session, Town, "game_id", gid, "id")}
    routes = {r.id: r for r in _plain_rows(session, Route, "game_id", gid, "number")}
    pcs = {p.id: p for p in _plain_rows(session, PrivateCompany, "game_id", gid, "id")}
    lines = _plain_rows(session, Line, "railroad_id", list(railroads) or [-1], "id")
    holdings = _plain_rows(session, Holding, "player_id", list(players) or [-1], "id")
    # the relationships among these rows, as the ORM would load them (each list in its order_by)
    for row in (*players.values(), *railroads.values(), *towns.values(), *routes.values(), *pcs.values()):
        row.game = game
    for p in players.values():
        p.holdings = []
    for r in railroads.values():
        r.lines, r.holdings = [], []
        r.president, r.chairman = players.get(r.president_id), players.get(r.chairman_id)
    for r in routes.values():
        r.a, r.b = towns.get(r.a_id), towns.get(r.b_id)
    for pc in pcs.values():
        pc.route, pc.owner = routes.get(pc.route_id), players.get(pc.owner_id)
    for line in lines:  # by id: Railroad.lines is ordered by Line.id
        line.railroad, line.route = railroads[line.railroad_id], routes.get(line.route_id)
        line.railroad.lines.append(line)
    for h in holdings:
        h.player, h.railroad = players[h.player_id], railroads.get(h.railroad_id)
        h.player.holdings.append(h)
        if h.railroad is not None:
            h.railroad.holdings.append(h)
    for p in players.values():
        p.holdings.sort(key=lambda h: h.railroad_id)  # Player.holdings: ordered by railroad id
    for r in railroads.values():
        r.holdings.sort(key=lambda h: h.player_id)  # Railroad.holdings: ordered by player id
    return build(game, players, railroads, towns, routes, pcs, lines, holdings)


def release_plain(view: View) -> None:
    """Break the reference cycles among the plain rows of a :func:`load_plain` view no one will read
    again (a railroad and its lines, a railroad or a player and their holdings).

    Then its thousand-odd rows are freed the moment the view is, by reference counting; left in
    cycles, they wait for the garbage collector, whose passes over them (and over everything else
    the process holds) cost the mail intake more than building them did."""
    for r in view.railroads.values():
        r.lines = r.holdings = ()
    for p in view.players.values():
        p.holdings = ()


def collector_paused():
    """The collector paused (:func:`pbm.collector.paused`) for a block that builds a :func:`load_plain`
    view, uses it and releases it (:func:`release_plain`): its thousand-odd rows would otherwise set off
    collections that find nothing to free but move the rows to older generations, so that every dozen
    mails a full collection walks the whole process."""
    return paused()


_PLAIN_CLASSES: dict[tuple, tuple] = {}
_PLAIN_TYPES: dict[type, type] = {}


def plain_class(model: type) -> type:
    """A plain class standing for ``model``'s rows: instances hold the row's values in their
    ``__dict__`` and keep the model's Python properties (``Town.value``, ``Railroad.miles``, ...),
    so code reading a view reads plain attributes, a fraction of an ORM attribute's cost.

    ``cls(*values)`` makes one from the values of the model's columns in mapper order."""
    cls = _PLAIN_TYPES.get(model)
    if cls is None:
        from sqlalchemy import inspect

        props = {}
        for klass in reversed(model.__mro__):
            props.update({k: v for k, v in vars(klass).items() if isinstance(v, property)})
        init = _init_for([a.key for a in inspect(model).column_attrs])
        cls = _PLAIN_TYPES[model] = type(f"Plain{model.__name__}", (),
                                         {**props, "__init__": init,
                                          "__doc__": f"A plain copy of a {model.__name__} row.",
                                          "__module__": __name__})
    return cls


def _init_for(keys: list[str]):
    """An ``__init__(self, <keys>)`` that sets each attribute in turn.

    Written out as a function's own code (as :mod:`dataclasses` does): several times cheaper than
    filling a ``__dict__`` from the row, which was most of what building a view's thousand rows cost."""
    assert all(k.isidentifier() and k != "self" for k in keys), keys
    body = "".join(f"    self.{k} = {k}\n" for k in keys) or "    pass\n"
    scope: dict = {}
    exec(f"def __init__(self, {', '.join(keys)}):\n{body}", scope)  # noqa: S102 - column names only
    return scope["__init__"]


def _plain_rows(session: Session, model: type, column: str, value, order_by: str) -> list:
    """The rows of ``model`` whose ``column`` is ``value`` (or in ``value``, a list), ordered by
    ``order_by``, as plain objects (see :func:`load_plain`)."""
    key = (model, column, isinstance(value, list), order_by)
    known = _PLAIN_CLASSES.get(key)
    if known is None:
        from sqlalchemy import bindparam, inspect

        cls = plain_class(model)
        attrs = inspect(model).column_attrs
        table = model.__table__
        where = (table.c[column].in_(bindparam("value", expanding=True)) if isinstance(value, list)
                 else table.c[column] == bindparam("value"))
        # a Core statement (table columns, no ORM entity): made once, run on the session's connection
        statement = select(*(table.c[a.columns[0].key] for a in attrs)).where(where).order_by(table.c[order_by])
        known = _PLAIN_CLASSES[key] = (cls, statement)  # its columns in mapper order, as cls() takes them
    cls, statement = known
    return list(starmap(cls, session.connection().execute(statement, {"value": value}).all()))


def build(game: Game, players: dict[int, Player], railroads: dict[int, Railroad], towns: dict[int, Town],
          routes: dict[int, Route], pcs: dict[int, PrivateCompany], lines: list[Line],
          holdings: list[Holding]) -> View:
    """A :class:`View` on rows already loaded (in :func:`load`'s orders: players by number,
    railroads, towns, PCs, lines and holdings by id, routes by number)."""
    view = View(
        game=game, players=players, by_number={p.number: p for p in players.values()},
        railroads=railroads, rr_by_code={r.code.upper(): r for r in railroads.values()},
        towns=towns, routes=routes, route_by_code={r.code.upper(): r for r in routes.values()},
        pcs=pcs, pc_by_code={routes[p.route_id].code.upper(): p for p in pcs.values() if p.route_id in routes},
    )
    lines_of: dict[int, list[Route]] = defaultdict(list)
    for line in lines:
        lines_of[line.railroad_id].append(routes[line.route_id])
        view.built_route_ids.add(line.route_id)
    view.lines_of = dict(lines_of)
    for r in routes.values():
        if r.owner_id and r.id not in view.built_route_ids and r.kind == "RoW":
            view.row_of[r.owner_id] = r
        view.routes_at.setdefault(r.a_id, []).append(r)
        view.routes_at.setdefault(r.b_id, []).append(r)
    hold: dict[int, dict[int, Holding]] = defaultdict(dict)
    for h in holdings:
        hold[h.railroad_id][h.player_id] = h
    view.holdings_of = dict(hold)
    return view


# ---------------------------------------------------------------------------
# §3.5A credit
# ---------------------------------------------------------------------------


def credit_limit(net_worth: int, climate_name: str) -> int:
    """§3.5A: credit limit = net worth × the climate's credit margin (never below 0)."""
    return max(0, math.floor(net_worth * climate(climate_name).credit_margin))


def available_credit(view: View, player: Player) -> int:
    """§3.5A: available credit = credit limit − loan/2; the most the tycoon may borrow (§10.1A1).

    The net worth is the one the bank examined at the end of last turn
    (``Player.net_worth``); the margin is that of the climate the turn starts
    in, which is the climate the end-of-turn calculation used.  Fractions are
    rounded down (§1.0), so a half dollar of loan counts against the tycoon."""
    limit = credit_limit(player.net_worth, view.game.climate)
    return max(0, limit - math.ceil(player.loan / 2))


# ---------------------------------------------------------------------------
# §6.1, §6.2: stock
# ---------------------------------------------------------------------------


def director_shares(view: View, railroad: Railroad) -> int:
    return sum(h.shares for pid, h in view.holdings_of.get(railroad.id, {}).items()
               if view.is_director(view.players[pid], railroad))


def is_cornered(view: View, railroad: Railroad) -> bool:
    """§6.4: Directors own more than 50 % of the issued stock."""
    return railroad.shares_issued > 0 and 2 * director_shares(view, railroad) > railroad.shares_issued


def available_shares(view: View, player: Player, railroad: Railroad) -> int:
    """§6.1B: issued shares − shares owned by all Directors − shares the bidder owns."""
    own = view.shares(player, railroad)
    directors = director_shares(view, railroad)
    if view.is_director(player, railroad):
        directors -= own  # the bidder's own shares are counted once
    return max(0, railroad.shares_issued - directors - own)


def max_stock_bid(view: View, player: Player, railroad: Railroad) -> int:
    """§6.1A/B: the most shares the tycoon may bid for ("Max. Bid").

    20 % of the available shares (§6.1B), and never so many that the tycoon
    would hold more than 51 % of the issued stock (§6.1A)."""
    if railroad.status not in ("active", "bankrupt") or railroad.shares_issued <= 0:
        return 0
    by_pct = math.floor(STOCK_BID_PCT * available_shares(view, player, railroad))
    cap = math.floor(STOCK_CAP_PCT * railroad.shares_issued) - view.shares(player, railroad)
    return max(0, min(by_pct, cap))


def max_stock_sale(view: View, player: Player, railroad: Railroad) -> int:
    """§6.1B, §6.2A/C, §10.1C4: shares the tycoon may sell, owned first then short.

    Anyone may sell what they own.  A tycoon holding less than 10 % may sell up
    to 10 % of the issued stock in all, the part beyond his shares being a
    short sale — except in a cornered stock (§10.1C4) and never as a Director
    (§6.2C)."""
    own = view.shares(player, railroad)
    return own + max_short(view, player, railroad)


def max_short(view: View, player: Player, railroad: Railroad) -> int:
    """§6.2A: the short part of the largest allowed sale (0 for Directors and cornered stocks)."""
    if railroad.status not in ("active", "bankrupt"):
        return 0
    if view.is_director(player, railroad) or is_cornered(view, railroad):
        return 0
    own = view.shares(player, railroad)
    return max(0, math.floor(SHORT_PCT * railroad.shares_issued) - own)


def split_sale(shares: int, owned: int) -> tuple[int, int]:
    """§6.2A: a sale of ``shares`` sells the owned shares first: (owned part, short part)."""
    sold = min(shares, owned)
    return sold, shares - sold


@dataclass
class StockCheck:
    """One line of §6.1C order checking: what happened to one stock order."""

    index: int  # position in the list given
    railroad: str
    action: str
    asked: int
    allowed: int
    price: float
    cash_after: float


def check_stock_cash(cash: float, orders: list[tuple[str, str, int, int]],
                     prices: dict[str, float]) -> list[StockCheck]:
    """§6.1C order checking, pure: cut purchases (and shorts) the tycoon cannot afford.

    ``orders`` are ``(railroad, action, shares, owned)`` IN PRIORITY ORDER;
    ``action`` is "sell", "short" or "buy"; ``owned`` is the tycoon's start of
    turn holding (a sale beyond it is short, §6.2A).  ``cash`` is the cash
    available at the start of the stock market phase.  Prices are start of
    turn prices.  Each sale adds credit of half its owned shares' value; each
    short deducts half the short shares' value (§6.2A); each purchase deducts
    its full cost.  A purchase or short that cannot be afforded is cut to what
    can be (whole shares), and later ones are checked against what is left
    ("regardless of your subsequent transactions").

    The rulebook example (§6.1C): $1800; sell 20 NYC @20 (+200), buy 100 B&O
    @10 (−1000), short 50 N&W @20 (−500), buy 100 SCL @10 → cut to 50 SCL.
    """
    out: list[StockCheck] = []
    available = float(cash)
    for index, (code, action, shares, owned) in enumerate(orders):
        price = float(prices[code])
        allowed = shares
        if action in ("sell", "short"):
            sold, short = split_sale(shares, owned)
            available += sold * price / 2
            if short:
                half = price / 2
                can = max(0, math.floor(available / half + 1e-9)) if half > 0 else short
                short_ok = min(short, can)
                available -= short_ok * half
                allowed = sold + short_ok
        else:  # buy
            can = max(0, math.floor(available / price + 1e-9)) if price > 0 else shares
            allowed = min(shares, can)
            available -= allowed * price
        out.append(StockCheck(index, code, action, shares, allowed, price, available))
    return out


# ---------------------------------------------------------------------------
# §10.1B: private companies
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PCOffer:
    """A PC that may be bid for this turn (§9.5, §10.1B2)."""

    code: str
    miles: int
    asking: int
    seller: int | None  # player number; None = the bank
    min_bid: int  # §10.1B3 / §10.1B5: the asking price, at least $1 per mile


def pcs_for_sale(view: View) -> list[PCOffer]:
    """§9.5, §10.1B2: PCs offered by the bank or by players at the start of the turn.

    A PC a player offers this turn cannot be bought until next turn, which is
    automatic here: only offers standing at the start of the turn count."""
    return list(view.remember("pcs_for_sale", lambda: tuple(_pcs_for_sale(view))))


def _pcs_for_sale(view: View) -> list[PCOffer]:
    out: list[PCOffer] = []
    for pc in view.pcs.values():
        route = view.routes[pc.route_id]
        if pc.status == "bank":
            asking = pc.asking_price if pc.asking_price is not None else 5 * route.miles  # §2.4D
            seller = None
        elif pc.status == "owned" and pc.for_sale and (pc.offered_turn is None or pc.offered_turn < view.turn):
            asking = pc.asking_price if pc.asking_price is not None else route.miles
            seller = view.players[pc.owner_id].number if pc.owner_id in view.players else None
        else:
            continue
        out.append(PCOffer(route.code, route.miles, int(asking), seller,
                           max(int(asking), PC_MIN_PER_MILE * route.miles)))
    return sorted(out, key=lambda o: view.route_by_code[o.code.upper()].number)


def pc_bids_allowed(view: View, player: Player) -> int:
    """§10.1B: 2 bids with no PC owned, 1 with one, none with two."""
    return max(0, MAX_PCS_OWNED - len(view.pcs_owned(player)))


def pc_ask_range(view: View, pc: PrivateCompany) -> tuple[int, int]:
    """§10.1B1a/b/d: (lowest, highest) asking price the owner may set (ruling R-O6).

    At least $1/mile.  At most 20 % over what was paid (§10.1B1b) — never more,
    however many turns it is offered — and, when it is already for sale, at most
    20 % over the current asking price (§10.1B1d); $10/mile is always allowed."""
    miles = view.routes[pc.route_id].miles
    floor = PC_PRICE_FLOOR_PER_MILE * miles
    high = max(math.floor(pc.paid * (1 + PC_MARKUP)), floor)
    if pc.for_sale and pc.asking_price is not None:
        high = min(high, max(math.floor(pc.asking_price * (1 + PC_MARKUP)), floor))
    return PC_MIN_PER_MILE * miles, high


def _shared_towns(a: Iterable[Route], b: Iterable[Route]) -> set[int]:
    ta = {t for r in a for t in (r.a_id, r.b_id)}
    tb = {t for r in b for t in (r.a_id, r.b_id)}
    return ta & tb


def gateway_towns(view: View, route: Route) -> set[int]:
    """§4.8.2: the gateway cities (Chicago, St. Louis, …) at either end of a route."""
    return {tid for tid in (route.a_id, route.b_id) if _norm_city(view.towns[tid].name) in _GATEWAYS}


def prohibited_reason(view: View, routes: list[Route], new: Route) -> str | None:
    """§4.8: why adding ``new`` to a railroad holding ``routes`` (lines + RoW) is prohibited, or None."""
    for r in routes:
        if r.id == new.id:
            return f"{new.code} is already part of the railroad"
        if (new.double_with and new.double_with.upper() == r.code.upper()) or \
                (r.double_with and r.double_with.upper() == new.code.upper()):
            return (f"{new.code} and {r.code} are the two routes of a double connection; "
                    "no railroad may own both (§4.8.1)")
    for tid in gateway_towns(view, new):
        for r in routes:
            if tid in (r.a_id, r.b_id):
                return (f"the railroad already has a route into {view.towns[tid].name} ({r.code}); "
                        f"no railroad may have more than one (§4.8.2)")
    return None


def _holding_routes(view: View, railroad: Railroad) -> list[Route]:
    routes = list(view.lines_of.get(railroad.id, []))
    if railroad.id in view.row_of:
        routes.append(view.row_of[railroad.id])
    return routes


def pc_merge_targets(view: View, pc: PrivateCompany) -> dict[str, str | None]:
    """§10.1B2, §4.8: every active railroad → None if the PC may merge into it, else why not.

    The PC must connect to one of the railroad's lines at the start of the
    turn, must not make a prohibited route, and (ruling R-O7) the railroad
    must not be bankrupt (§4.11B: a bankrupt railroad cannot build track)."""
    key = ("pc_merge_targets", pc.id)
    if key in view.memo:
        return dict(view.memo[key])
    route = view.routes[pc.route_id]
    a, b, code = route.a_id, route.b_id, route.code  # (pc_code)
    out: dict[str, str | None] = {}
    by_number = view.remember("active_by_number", lambda: tuple(
        sorted(view.active_railroads(), key=lambda r: r.number)))  # (the same for every PC)
    for rr in by_number:
        towns = view.town_set(rr.id)
        if rr.status == "bankrupt":
            out[rr.code] = f"{rr.code} is bankrupt (§4.11B)"
        elif a not in towns and b not in towns:
            out[rr.code] = f"{code} does not connect to a line of {rr.code} at the start of the turn"
        else:
            out[rr.code] = prohibited_reason(view, _holding_routes(view, rr), route)
    view.memo[key] = dict(out)
    return out


def pc_code(view: View, pc: PrivateCompany) -> str:
    return view.routes[pc.route_id].code


def mergeable_railroads(view: View, pc: PrivateCompany) -> list[str]:
    """§10.1B2c: the railroads the turnsheet lists for merging this PC."""
    return list(view.remember(("mergeable", pc.id), lambda: tuple(
        code for code, why in pc_merge_targets(view, pc).items() if why is None)))


# ---------------------------------------------------------------------------
# §4.7, §4.8: rights-of-way
# ---------------------------------------------------------------------------


def may_bid_for_row(view: View, railroad: Railroad, building_or_abandoning: bool = False) -> str | None:
    """§4.7B/I: None if the railroad may bid for a RoW this turn, else why not."""
    if railroad.status == "bankrupt":
        return f"{railroad.code} is bankrupt and may not bid for a RoW (§4.7I)"
    if railroad.id in view.row_of and not building_or_abandoning:
        return (f"{railroad.code} already owns the RoW {view.row_of[railroad.id].code}; it may bid for "
                "another only if it builds or abandons that one this turn (§4.7A/B)")
    return None


def row_status(view: View, railroad: Railroad, route: Route, *, abandoning: bool = False) -> str | None:
    """§4.7C/D, §4.8: None if ``route`` is a valid RoW bid for the railroad now, else why not.

    ``abandoning``: the railroad abandons its RoW this turn, so a RoW reached
    only through it is no longer connected (§4.7C)."""
    if route.kind != "RoW":
        return f"{route.code} is a private company, not a RoW (§2.2)"
    if route.owner_id is not None:
        owner = view.railroads.get(route.owner_id)
        who = owner.code if owner else "another railroad"
        return f"{route.code} is owned by {who}"
    reach = list(view.lines_of.get(railroad.id, [])) if abandoning else _holding_routes(view, railroad)
    if not _shared_towns([route], reach):
        return f"{route.code} does not connect to a line or the RoW of {railroad.code} (§4.7C)"
    return prohibited_reason(view, reach, route)


def valid_rows(view: View, railroad: Railroad) -> list[str]:
    """§4.7E: all RoWs the railroad may bid for at the start of the turn (by route number).

    Connected to its lines or to the RoW it owns (§4.7C), not owned, not
    prohibited (§4.8)."""
    towns = {t for r in _holding_routes(view, railroad) for t in (r.a_id, r.b_id)}
    seen: set[int] = set()
    out: list[Route] = []
    for tid in towns:
        for route in view.routes_at.get(tid, []):
            if route.id in seen:
                continue
            seen.add(route.id)
            if row_status(view, railroad, route) is None:
                out.append(route)
    return [r.code for r in sorted(out, key=lambda r: r.number)]


# ---------------------------------------------------------------------------
# §4.13: railroad mergers
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MergeCheck:
    allowed: bool
    reason: str = ""
    dropped: tuple[str, ...] = ()  # parallel routes deleted from the survivor (§4.13A3)


def merge_check(view: View, player: Player | None, merging: Railroad, surviving: Railroad) -> MergeCheck:
    """§4.13A, §10.1E: may ``merging`` merge into ``surviving``?

    Both presided by the player at the start of the turn (§10.1E1), connected
    at the start of the turn (A1), survivor not bankrupt (A2, §4.11B), and no
    prohibited routes (A3) — except parallel routes (double connections): the
    merger is allowed and one of each pair is deleted, a RoW first, else a PC
    line (A3).  Which routes would be deleted is returned in ``dropped``."""
    if merging.id == surviving.id:
        return MergeCheck(False, "a railroad cannot merge into itself")
    for rr in (merging, surviving):
        if rr.status not in ("active", "bankrupt"):
            return MergeCheck(False, f"{rr.code} is not an active railroad")
    if player is not None:
        for rr in (merging, surviving):
            if rr.president_id != player.id:
                return MergeCheck(False, f"you are not President of {rr.code} at the start of the turn (§10.1E1)")
    if surviving.status == "bankrupt":
        return MergeCheck(False, f"{surviving.code} is bankrupt; no railroad may merge into it (§4.11B, §4.13A2)")
    lines_m = view.lines_of.get(merging.id, [])
    lines_s = view.lines_of.get(surviving.id, [])
    if not _shared_towns(lines_m, lines_s):
        return MergeCheck(False, f"{merging.code} and {surviving.code} are not connected at the start of the turn "
                                 "(§4.13A1)")
    # Gateway cities: the union may have only one route into each.
    union = _holding_routes(view, surviving) + _holding_routes(view, merging)
    row_s = view.row_of.get(surviving.id)
    row_m = view.row_of.get(merging.id)
    if row_s is not None and row_m is not None:
        union.remove(row_m)  # §4.13D: the merging road's RoW is abandoned
    for code in GATEWAY_CITIES:
        into = [r for r in union if any(_norm_city(view.towns[t].name) == _norm_city(code) for t in (r.a_id, r.b_id))]
        if len(into) > 1:
            return MergeCheck(False, f"the merged railroad would have {len(into)} routes into {code} "
                                     f"({', '.join(r.code for r in into)}); §4.8.2 allows one (§4.13A3)")
    dropped: list[str] = []
    by_code = {r.code.upper(): r for r in union}
    done: set[str] = set()
    for r in union:
        twin = (r.double_with or "").upper()
        if twin and twin in by_code and r.code.upper() not in done:
            other = by_code[twin]
            done.update({r.code.upper(), twin})
            pair = [r, other]
            merging_ids = {x.id for x in _holding_routes(view, merging)}
            unbuilt = [x for x in pair if x.id not in view.built_route_ids]
            rows = [x for x in pair if x.kind == "RoW"]
            theirs = [x for x in pair if x.id in merging_ids]  # ruling R-O13: two PC lines: the merging road's
            victim = (unbuilt or rows or theirs or [other])[0]
            dropped.append(victim.code)
    return MergeCheck(True, "", tuple(dropped))


# ---------------------------------------------------------------------------
# §4.17, §4.18: equipment
# ---------------------------------------------------------------------------


def best_locomotive(view: View) -> int:
    """§4.17: the best engine available this turn (the engine's record, else ruling R-O5)."""
    recorded = (view.game.state or {}).get("locomotive")
    if isinstance(recorded, int) and 1 <= recorded <= 9:
        return recorded
    return max(n for n, t in LOCOMOTIVE_SCHEDULE.items() if t <= view.turn)


def locomotive_upgrades(view: View, railroad: Railroad) -> dict[int, int]:
    """§4.17: engine number → cost ($10 × steps × miles) for each upgrade available now."""
    miles = view.miles(railroad)
    return {n: LOCOMOTIVE_COST_PER_STEP * (n - railroad.locomotive) * miles
            for n in range(railroad.locomotive + 1, best_locomotive(view) + 1)}


def technologies_available(view: View) -> list[str]:
    """§4.18: technology letters available in the game this turn (in their fixed sequence)."""
    recorded = (view.game.state or {}).get("technologies")
    if isinstance(recorded, list) and recorded:
        return [t for t in TECHNOLOGIES if t in recorded]
    return [t for t, turn in TECHNOLOGY_SCHEDULE.items() if turn <= view.turn]


def grand_station_allowed(view: View, railroad: Railroad) -> bool:
    """§4.18: a Grand Station needs a line to a size 4 or 5 town at the start of the turn; one per railroad."""
    if railroad.grand_station or "A" in (railroad.technologies or []):
        return False
    return any(view.towns[t].size >= 4 for t in view.towns_of(railroad))


def technology_options(view: View, railroad: Railroad) -> dict[str, int]:
    """§4.18: technology letter → cost for each one the railroad may buy this turn."""
    have = set(railroad.technologies or [])
    out: dict[str, int] = {}
    for letter in technologies_available(view):
        if letter in have:
            continue
        if letter == "A":
            if grand_station_allowed(view, railroad):
                out["A"] = GRAND_STATION_COST
        else:
            out[letter] = TECH_COST_PER_MILE * view.miles(railroad)
    return out


# ---------------------------------------------------------------------------
# §4.9, §4.15, §4.16: railroad actions
# ---------------------------------------------------------------------------


def political_minimum(view: View, railroad: Railroad) -> int:
    """§4.9B, §10.2F2: $1 per mile of start-of-turn track buys one level of influence."""
    return POLITICAL_MIN_PER_MILE * view.miles(railroad)


def double_track_cost(view: View, route: Route) -> int:
    """§4.15: 25 % of the minimum track cost per mile, times the miles (towns cost nothing)."""
    low, _ = build_cost_range(view.game.climate)
    return math.floor(DOUBLE_TRACK_FRACTION * low * route.miles)


def build_cost(view: View, railroad: Railroad, per_mile: int) -> int:
    """§4.6B–D: the cost of building the owned RoW at ``per_mile``, plus $300 × value of each
    town on the route (both ends, reached already or not)."""
    row = view.row_of.get(railroad.id)
    if row is None:
        return 0
    towns = sum(TOWN_BUILD_COST * view.towns[t].value for t in {row.a_id, row.b_id})
    return per_mile * row.miles + towns


def parallel_railroads(view: View, railroad: Railroad) -> list[str]:
    """§4.16: railroads with a line parallel to one of ours (the two routes of a double connection)."""
    mine = {r.code.upper() for r in view.lines_of.get(railroad.id, [])}
    twins = {(r.double_with or "").upper() for r in view.lines_of.get(railroad.id, []) if r.double_with}
    out: set[str] = set()
    for other in view.active_railroads():
        if other.id == railroad.id:
            continue
        for r in view.lines_of.get(other.id, []):
            if r.code.upper() in twins or (r.double_with and r.double_with.upper() in mine):
                out.add(other.code)
    return sorted(out)


def treasury_price_to_president(railroad: Railroad) -> float:
    """§10.2C2: the President buys treasury stock at 50 % of the (start of turn) market price."""
    return railroad.price / 2

"""The turn context: everything one turn's resolution reads and writes.

A :class:`TurnContext` loads a game's rows once (a handful of queries, no
query per row afterwards), gives each step of Appendix A the same indexed
view, and records what happens:

* ``rng(purpose)`` — the only source of randomness (``pbm.rng.generator``
  seeded by game seed, turn and purpose);
* ``pay(source, target, amount, step, memo)`` — the ledger: every movement of
  money goes through it, between the accounts ``"bank"``, ``"public"``,
  ``"player:N"`` and ``"rr:CODE"`` (bank and public are unbounded sources);
* ``event(step, rule, kind, text, ...)`` — the log the reports are made from;
  ``text`` is a sentence fit for the headlines or a private report.

Ledger entries and events are written in two bulk inserts at the end of the
turn (:meth:`TurnContext.flush_log`).
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import insert
from sqlalchemy.orm import Session

from pbm.cr.engine import tables
from pbm.cr.engine.rows import Rows
from pbm.cr.orders import Orders, RailroadOrders
from pbm.cr.queries import load_plain, plain_class, release_plain
from pbm.models import Event, Game, Holding, LedgerEntry, Line, Player, PrivateCompany, Railroad, Route, Town
from pbm.rng import generator

SOURCES = ("bank", "public")


class EngineError(RuntimeError):
    """A bug or a corrupt state found while resolving a turn (never a player's mistake)."""


@dataclass
class Trade:
    """One tycoon's (or a railroad's) result in one railroad's market (§6.3)."""

    account: str
    railroad: str
    bought: int = 0
    sold: int = 0  # owned shares sold
    shorted: int = 0  # shares sold short (§6.2)
    price: float = 0.0  # trade price
    cover_price: float = 0.0  # end price, for covering shorts


@dataclass
class Scratch:
    """What one turn remembers between steps (nothing here is stored)."""

    start_price: dict[str, float] = field(default_factory=dict)
    start_miles: dict[str, int] = field(default_factory=dict)
    start_regions: dict[str, set[str]] = field(default_factory=dict)
    start_towns: dict[str, set[int]] = field(default_factory=dict)
    start_row: dict[str, str | None] = field(default_factory=dict)
    directors_at_start: dict[str, list[int]] = field(default_factory=dict)  # player numbers
    president_at_start: dict[str, int | None] = field(default_factory=dict)
    active_at_start: list[str] = field(default_factory=list)
    bankrupt_at_start: set[str] = field(default_factory=set)
    insolvent_at_start: set[str] = field(default_factory=set)
    became_solvent: set[str] = field(default_factory=set)
    incorporated: list[str] = field(default_factory=list)
    influence: dict[str, int] = field(default_factory=dict)
    political_spent: dict[str, int] = field(default_factory=dict)
    trades: list[Trade] = field(default_factory=list)
    market: dict[str, dict[str, Any]] = field(default_factory=dict)
    prodigal: dict[int, int] = field(default_factory=dict)
    dividends_paid: dict[str, int] = field(default_factory=dict)  # per share
    operations: dict[str, dict[str, Any]] = field(default_factory=dict)
    failed_roads: set[str] = field(default_factory=set)  # bankrupt or reorganized this turn (§1.2)
    bankrupt_players: set[int] = field(default_factory=set)
    merged_into: dict[str, str] = field(default_factory=dict)
    president_wants: dict[str, list[int]] = field(default_factory=dict)
    game_over: bool = False


class TurnContext:
    """One game's state, loaded once, plus the turn's ledger and event log."""

    def __init__(self, session: Session, game: Game, orders: dict[int, Orders] | None = None) -> None:
        self.session = session
        self.game = game
        self.turn = game.turn
        self.climate = tables.climate(game.climate)  # §5: the start-of-turn climate
        self.new_climate: tables.Climate = self.climate
        self.orders: dict[int, Orders] = dict(orders or {})
        self.rr_orders: dict[str, RailroadOrders] = {}  # what each railroad was ordered to do
        self.scratch = Scratch()
        self._ledger: list[dict[str, Any]] = []
        self._events: list[dict[str, Any]] = []
        self._rows: dict[int, Route] | None = None
        self._routes_at: dict[int, list[Route]] | None = None
        self._star_region: dict[int, str] | None = None
        self._load()
        self.start_balances = self.balances()

    # ------------------------------------------------------------------ loading
    def _load(self) -> None:
        """The game's rows as plain objects (:mod:`pbm.cr.engine.rows`): one Core select per
        table, no ORM instance; :attr:`rows` remembers them and writes back what the turn changes
        (:meth:`write_rows`).  :attr:`view` is the start-of-turn view of the same objects, for the
        computer players and the validator while the orders are gathered (before anything
        changes them)."""
        view = load_plain(self.session, self.game)
        view.frozen = True  # nothing changes the rows until the orders are gathered
        self.view = view
        self.towns: dict[int, Town] = view.towns
        self.route_by_id: dict[int, Route] = view.routes  # (by route number)
        self.routes: dict[str, Route] = {r.code: r for r in view.routes.values()}
        self.player_by_id: dict[int, Player] = view.players
        self.players: dict[int, Player] = {p.number: p for p in view.players.values()}
        self.railroad_by_id: dict[int, Railroad] = view.railroads
        self.railroads: dict[str, Railroad] = {r.code: r for r in view.railroads.values()}
        route_by_id = self.route_by_id
        self.pcs: dict[str, PrivateCompany] = {route_by_id[pc.route_id].code: pc for pc in view.pcs.values()}
        self.holdings: dict[tuple[int, int], Holding] = {}
        lines: list[Line] = []
        for r in view.railroads.values():
            lines.extend(r.lines)
            for h in r.holdings:
                self.holdings[(h.player_id, h.railroad_id)] = h
        rows = self.rows = Rows(self.session)
        for model, loaded_rows in ((Player, view.players.values()), (Railroad, view.railroads.values()),
                                   (Town, view.towns.values()), (Route, view.routes.values()),
                                   (PrivateCompany, view.pcs.values()), (Line, lines),
                                   (Holding, self.holdings.values())):
            rows.track(model, loaded_rows)

    def write_rows(self) -> None:
        """Write what the turn changed of its rows (:meth:`Rows.write`)."""
        self.rows.write()

    def release(self) -> None:
        """Break the reference cycles among the turn's rows (a railroad and its lines, ...), so
        they are freed as soon as the context is, without the garbage collector
        (:func:`pbm.cr.queries.release_plain`)."""
        release_plain(self.view)

    # ---------------------------------------------------------------- randomness
    def rng(self, purpose: str) -> np.random.Generator:
        """A generator for one purpose of this turn (``pbm.rng``)."""
        return generator(self.game.seed, self.turn, purpose)

    # ------------------------------------------------------------------- queries
    def active(self) -> list[Railroad]:
        """Railroads that operate (active or bankrupt), in founding order."""
        return [r for r in self.railroads.values() if r.status in ("active", "bankrupt")]

    def player(self, number: int | None) -> Player | None:
        return self.players.get(number) if number is not None else None

    def lines_of(self, rr: Railroad) -> list[Line]:
        return sorted(rr.lines, key=lambda line: self.route_by_id[line.route_id].number)

    def line_routes(self, rr: Railroad) -> list[Route]:
        return [self.route_by_id[line.route_id] for line in self.lines_of(rr)]

    def miles(self, rr: Railroad) -> int:
        return sum(self.route_by_id[line.route_id].miles for line in rr.lines)

    def row_of(self, rr: Railroad) -> Route | None:
        """The railroad's one unbuilt RoW (§4.7A), if any."""
        if self._rows is None:
            built = {line.route_id for r in self.railroads.values() for line in r.lines}
            self._rows = {}
            for route in self.routes.values():
                if route.owner_id is not None and route.kind == "RoW" and route.id not in built:
                    self._rows[route.owner_id] = route
        return self._rows.get(rr.id)

    def routes_at(self, town_id: int) -> list[Route]:
        """The map's routes with an end at the town (the map never changes)."""
        if self._routes_at is None:
            self._routes_at = {}
            for route in self.routes.values():
                self._routes_at.setdefault(route.a_id, []).append(route)
                if route.b_id != route.a_id:
                    self._routes_at.setdefault(route.b_id, []).append(route)
        return self._routes_at.get(town_id, [])

    def routes_changed(self) -> None:
        """Call after any change of a route's owner or a railroad's lines."""
        self._rows = None

    def towns_of(self, rr: Railroad) -> set[int]:
        out: set[int] = set()
        route_by_id = self.route_by_id
        for line in rr.lines:
            out.update(loaded(route_by_id[line.route_id], "a_id", "b_id"))
        return out

    def regions_of(self, rr: Railroad) -> set[str]:
        """§2.7B: regions whose starred towns the railroad's built lines reach."""
        return self.regions_of_towns(self.towns_of(rr))

    def regions_of_towns(self, towns: set[int]) -> set[str]:
        """:meth:`regions_of` for a set of towns (:meth:`towns_of`'s) already at hand."""
        star_region = self._star_region
        if star_region is None:  # the map's towns never change during a turn
            star_region = self._star_region = {t.id: t.region for t in self.towns.values() if t.star and t.region}
        return {star_region[t] for t in towns if t in star_region}

    def holding(self, player: Player, rr: Railroad) -> Holding:
        """The player's holding in ``rr`` (created empty when needed)."""
        key = (player.id, rr.id)
        h = self.holdings.get(key)
        if h is None:
            h = self.rows.new(Holding, player_id=player.id, railroad_id=rr.id, shares=0, short=0, director=False)
            h.player, h.railroad = player, rr
            player.holdings.append(h)
            rr.holdings.append(h)
            self.holdings[key] = h
        return h

    def shares(self, player: Player, rr: Railroad) -> int:
        h = self.holdings.get((player.id, rr.id))
        return h.shares if h else 0

    def player_shares(self, rr: Railroad) -> int:
        return sum(h.shares for h in rr.holdings)

    def directors(self, rr: Railroad) -> list[Player]:
        """Directors as elected at the end of last turn (§4.14A), by player number."""
        return sorted((self.player_by_id[h.player_id] for h in rr.holdings if h.director), key=lambda p: p.number)

    def president_orders(self, rr: Railroad) -> RailroadOrders | None:
        """The orders given to the railroad this turn (§10.2): by its president, or by the
        computer for a road without a player president; None for standing orders."""
        return self.rr_orders.get(rr.code)

    def pc_value(self, pc: PrivateCompany) -> int:
        """§3.5A: what was paid, never above $20/mile."""
        return min(pc.paid, tables.PC_APPRAISAL_PER_MILE * self.route_by_id[pc.route_id].miles)

    def net_worth(self, player: Player) -> int:
        """§3.5A: cash + stock (at current prices) + PCs − loan; the president loan is left out (§4.4E)."""
        pid = player.id
        pcs = sum(self.pc_value(pc) for pc in self.pcs.values() if pc.owner_id == pid and pc.status == "owned")
        return self._worth(player, pcs)

    def net_worths(self) -> dict[int, int]:
        """:meth:`net_worth` of every player (by number), with one pass over the PCs."""
        pcs: dict[int, int] = {}
        for pc in self.pcs.values():
            owner = pc.owner_id
            if owner is not None and pc.status == "owned":
                pcs[owner] = pcs.get(owner, 0) + self.pc_value(pc)
        return {n: self._worth(p, pcs.get(p.id, 0)) for n, p in self.players.items()}

    def _worth(self, player: Player, pcs: int) -> int:
        """(Called for every player several times a turn, over every holding: the holdings'
        values are read from the rows' loaded values, :func:`loaded`.)"""
        stock = 0
        rr_of = self.railroad_by_id
        for h in player.holdings:
            shares, short = loaded(h, "shares", "short")
            if shares or short:  # most holdings are empty: int(0 * price) is 0
                price = rr_of[h.railroad_id].price
                stock += int(shares * price) - int(short * price)
        return player.cash + stock + pcs - player.loan

    # --------------------------------------------------------------------- money
    def balances(self) -> dict[str, int]:
        out = {f"player:{p.number}": p.cash for p in self.players.values()}
        out.update({f"rr:{r.code}": r.cash for r in self.railroads.values()})
        return out

    def _holder(self, account: str) -> Any:
        """The player or railroad whose cash ``account`` is (None for the bank's own sources);
        an account that names nobody raises before any money moves."""
        if account in SOURCES:
            return None
        kind, _, key = account.partition(":")
        try:
            if kind == "player":
                return self.players[int(key)]
            if kind == "rr":
                return self.railroads[key]
        except (KeyError, ValueError):
            pass
        raise EngineError(f"unknown ledger account {account!r}")

    def pay(self, source: str, target: str, amount: int, step: str, memo: str) -> int:
        """Move ``amount`` dollars from ``source`` to ``target`` and record it. Returns the amount.
        Both accounts are checked first: a payment refused moves nothing."""
        amount = int(amount)
        if amount < 0:
            raise EngineError(f"negative payment {amount} from {source} to {target} ({memo})")
        if amount == 0:
            return 0
        if source == target:
            raise EngineError(f"payment from {source} to itself ({memo})")
        payer, payee = self._holder(source), self._holder(target)
        if payer is not None:
            payer.cash -= amount
        if payee is not None:
            payee.cash += amount
        self._ledger.append({"game_id": self.game.id, "turn": self.turn, "seq": len(self._ledger) + 1,
                             "step": step, "source": source, "target": target, "amount": amount,
                             "memo": memo[:120]})
        return amount

    @property
    def ledger(self) -> list[dict[str, Any]]:
        return self._ledger

    # -------------------------------------------------------------------- events
    def event(self, step: str, rule: str, kind: str, text: str, *, player: int | None = None,
              railroad: str | None = None, amount: int | None = None, headline: bool = False,
              private_to: list[int] | None = None, data: dict[str, Any] | None = None) -> None:
        """Record one thing that happened (for the headlines or a private report)."""
        self._events.append({"game_id": self.game.id, "turn": self.turn, "seq": len(self._events) + 1,
                             "step": step, "rule": rule, "kind": kind, "player_number": player,
                             "railroad": railroad, "amount": None if amount is None else int(amount),
                             "headline": headline,
                             "private_to": sorted(set(private_to)) if private_to is not None else None,
                             "text": text, "data": data or {}})

    @property
    def events(self) -> list[dict[str, Any]]:
        return self._events

    def flush_log(self) -> None:
        """Write the turn's ledger and events in two bulk inserts (on PostgreSQL, two COPYs)."""
        connection = self.session.connection()
        for table, rows in ((LedgerEntry.__table__, self._ledger), (Event.__table__, self._events)):
            insert_rows(connection, table, rows)


def insert_rows(connection, table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (dicts with every column but the key) in one statement: on PostgreSQL
    (psycopg) a COPY (:func:`copy_rows`), on SQLite one executemany of the values SQLAlchemy
    would bind (each column type's own bind processor; JSON ``None`` and ``{}`` written as
    ``null`` and ``{}`` without a call to the encoder), else SQLAlchemy's executemany."""
    if not rows:
        return
    dialect = connection.dialect
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        copy_rows(connection, table, rows)
    elif dialect.name == "sqlite" and dialect.driver == "pysqlite" and not dialect._json_serializer:
        columns = [c for c in table.columns if not c.primary_key]
        names = ", ".join(f'"{c.name}"' for c in columns)
        processors = [_sqlite_processor(c, dialect) for c in columns]
        keys = [c.key for c in columns]
        values_of = itemgetter(*keys) if len(keys) > 1 else (lambda row: (row[keys[0]],))
        process = [(i, p) for i, p in enumerate(processors) if p is not None]
        values = []
        for row in rows:
            row_values = list(values_of(row))
            for i, p in process:
                row_values[i] = p(row_values[i])
            values.append(tuple(row_values))
        connection.exec_driver_sql(f'INSERT INTO "{table.name}" ({names}) VALUES '
                                   f'({", ".join("?" for _ in columns)})', values)
    else:
        connection.execute(insert(table), rows)


def _sqlite_processor(column, dialect):
    """The column's bind processor on this dialect (None: the value goes as it is)."""
    from sqlalchemy import JSON

    process = column.type._cached_bind_processor(dialect)
    if isinstance(column.type, JSON) and process is not None:
        return lambda value: _json_shortcut(value, process)
    return process


def _json_shortcut(value, process):
    if value is None:
        return "null"  # json.dumps(None), as SQLAlchemy's JSON type writes None
    if type(value) is dict and not value:
        return "{}"
    return process(value)


def copy_rows(connection, table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (dicts with every column but the key) with one ``COPY ... FROM STDIN``
    (psycopg 3): the values as the INSERT would store them — JSON columns as the text
    ``json.dumps`` writes, which is what psycopg's ``Json`` (and so SQLAlchemy's JSON type) sends
    (None as JSON ``null``), the key from the table's sequence.  The text goes as a plain string:
    wrapping each value in ``Json`` costs twice the encoding (a turn's events: 7 → 3 ms).  JSON
    ``None`` and ``{}`` go as the text ``null`` and ``{}`` without a call to the encoder."""
    from json import dumps

    from sqlalchemy import JSON

    columns = [c for c in table.columns if not c.primary_key]
    names = ", ".join(f'"{c.name}"' for c in columns)
    keys = [c.key for c in columns]
    values_of = itemgetter(*keys) if len(keys) > 1 else (lambda row: (row[keys[0]],))
    as_json = [i for i, c in enumerate(columns) if isinstance(c.type, JSON)]
    cursor = connection.connection.dbapi_connection.cursor()
    try:
        with cursor.copy(f'COPY "{table.name}" ({names}) FROM STDIN') as copy:
            for row in rows:
                row_values = list(values_of(row))
                for i in as_json:
                    value = row_values[i]
                    if value is None:
                        row_values[i] = "null"
                    elif type(value) is dict and not value:
                        row_values[i] = "{}"
                    else:
                        row_values[i] = dumps(value)
                copy.write_row(row_values)
    finally:
        cursor.close()


def loaded(row, first: str, second: str) -> tuple:
    """The row's values of two attributes, read from its loaded values (``row.__dict__``) where
    both are there: an ORM attribute read costs ~0.2 µs, a dict read a tenth of that, and the
    turn's hot loops read tens of thousands.  An attribute not loaded (expired, never set) is
    read through the ORM instead, which loads it: the value is always the attribute's."""
    values = row.__dict__
    try:
        return values[first], values[second]
    except KeyError:
        return getattr(row, first), getattr(row, second)


def account(obj: Player | Railroad) -> str:
    """The ledger account of a player or a railroad (an ORM row or a plain one)."""
    if isinstance(obj, (Player, plain_class(Player))):
        return f"player:{obj.number}"
    return f"rr:{obj.code}"


def ceil_money(x: float) -> int:
    """The bank rounds up when it charges interest (§1.0)."""
    import math

    return int(math.ceil(x - 1e-9))


def floor_money(x: float) -> int:
    """Fractions are rounded down (§1.0)."""
    import math

    return int(math.floor(x + 1e-9))


def floor_cents(x: float) -> float:
    import math

    return math.floor(x * 100 + 1e-6) / 100


def ceil_cents(x: float) -> float:
    import math

    return math.ceil(x * 100 - 1e-6) / 100


def group_by(items, key) -> dict:
    out: dict = defaultdict(list)
    for item in items:
        out[key(item)].append(item)
    return out


def _president_is_computer(self: TurnContext, rr: Railroad) -> bool:
    """A road run by an anonymous president or a computer-played tycoon (§3.1, §4.12)."""
    if rr.president_id is None:
        return True
    return not self.player_by_id[rr.president_id].human


TurnContext.president_is_computer = _president_is_computer  # type: ignore[attr-defined]

"""Resolving a Continental Rails turn: Appendix A, step by step, in one transaction.

:func:`resolve_turn` is the engine: it reads like the sequence of play.
:func:`run_turn` is what the moderator runs: it takes the snapshot, gathers
each seat's orders (stored orders, computer orders, standing orders),
validates them, resolves, writes the turn's history and advances the game.
:func:`rerun_turn` restores the snapshot taken before turn *n* and resolves
turns *n*… again with the same stored orders.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Callable

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from pbm.collector import paused
from pbm.cr.engine import tables
from pbm.cr.engine.autopilot import autopilot_orders
from pbm.cr.engine.capital import capital_expenses
from pbm.cr.engine.checks import run_checks
from pbm.cr.engine.construction import construction
from pbm.cr.engine.context import TurnContext, insert_rows
from pbm.cr.engine.elections import elections
from pbm.cr.engine.loans import presidents_lend_or_are_repaid, railroads_repay_bank_debt, tycoons_borrow_or_repay
from pbm.cr.engine.market import stock_market
from pbm.cr.engine.mergers import railroad_mergers
from pbm.cr.engine.operations import operations
from pbm.cr.engine.politics import political_influence
from pbm.cr.engine.privates import private_company_purchases
from pbm.cr.engine.rights import rights_of_way
from pbm.cr.engine.treasury import treasury_stock_to_presidents
from pbm.cr.engine.tycoons import tycoon_final_financial_phase, tycoon_financial_phase
from pbm.cr.engine.victory import end_of_turn, victory_points
from pbm.cr.engine.writes import prepare_flush
from pbm.cr.orders import Orders, Problem
from pbm.cr.state import export_game, restore_game, snapshot_text
from pbm.errors import PbmError
from pbm.seats import computer_seated
from pbm.models import (
    Event, Game, GameRecord, LedgerEntry, OrderSet, Player, PlayerTurn, RailroadTurn, Snapshot,
)


@dataclass
class TurnResult:
    """What a resolved turn did, for the CLI and the reports."""

    game: str
    turn: int
    year: int
    climate_before: str
    climate_after: str
    railroads: int
    events: int
    ledger_entries: int
    headlines: list[str] = field(default_factory=list)
    game_over: bool = False
    problems: dict[int, list[Problem]] = field(default_factory=dict)

    def line(self) -> str:
        change = self.climate_before if self.climate_before == self.climate_after else \
            f"{self.climate_before} → {self.climate_after}"
        tail = "; GAME OVER" if self.game_over else ""
        return (f"Turn {self.turn} ({self.year}) resolved: climate {change}, {self.railroads} railroads, "
                f"{len(self.headlines)} headlines, {self.events} events{tail}.")


# --------------------------------------------------------------------------- the engine
def begin_turn(ctx: TurnContext) -> None:
    """Record the start-of-turn facts later steps depend on, and who orders each railroad."""
    sc = ctx.scratch
    for rr in ctx.active():
        sc.active_at_start.append(rr.code)
        sc.start_price[rr.code] = rr.price
        sc.start_miles[rr.code] = ctx.miles(rr)
        sc.start_towns[rr.code] = ctx.towns_of(rr)
        sc.start_regions[rr.code] = ctx.regions_of_towns(sc.start_towns[rr.code])
        row = ctx.row_of(rr)
        sc.start_row[rr.code] = row.code if row else None
        sc.directors_at_start[rr.code] = [p.number for p in ctx.directors(rr)]
        sc.president_at_start[rr.code] = ctx.player_by_id[rr.president_id].number if rr.president_id else None
        rr.regions_at_start = sorted(sc.start_regions[rr.code])
        if rr.status == "bankrupt":
            sc.bankrupt_at_start.add(rr.code)
        if rr.cash < 0:
            sc.insolvent_at_start.add(rr.code)
        # §10.2: the president's orders; the computer's for roads without a player president
        # or whose computer-played president said nothing; standing orders for a silent human.
        president = ctx.player_by_id.get(rr.president_id) if rr.president_id else None
        given = ctx.orders.get(president.number).for_railroad(rr.code) if president and president.number in ctx.orders else None
        if given is not None:
            ctx.rr_orders[rr.code] = given
        elif president is None or not president.human:
            ctx.rr_orders[rr.code] = autopilot_orders(ctx, rr)
    for n in ctx.players:
        ctx.orders.setdefault(n, Orders())
    character_names(ctx)


def character_names(ctx: TurnContext) -> None:
    """§3.2: a character name chosen on the sheet (checked by the validator: first turn or after a
    bankruptcy, at most 40 characters, nobody else's) is taken at the start of the turn.  Two players
    choosing the same new name in one turn: the lower player number gets it, the other keeps his
    name and is told (ruling M9)."""
    taken = {p.character.lower(): n for n, p in ctx.players.items()}
    for n in sorted(ctx.orders):
        name = ctx.orders[n].character
        player = ctx.players.get(n)
        if not name or player is None or name == player.character:
            continue
        holder = taken.get(name.lower())
        if holder is not None and holder != n:
            ctx.event("0", "§3.2", "character-taken", f"The character name {name} was taken this turn by another "
                      f"tycoon; you remain {player.character}.", player=n, private_to=[n])
            continue
        old = player.character
        taken.pop(old.lower(), None)
        taken[name.lower()] = n
        player.character = name
        ctx.event("0", "§3.2", "character", f"{old} is now known as {name}.", player=n)


def solvency_after_market(ctx: TurnContext) -> None:
    """§4.11A: an insolvent road becomes solvent if its cash is not negative after the market."""
    for code in ctx.scratch.insolvent_at_start:
        if ctx.railroads[code].cash >= 0:
            ctx.scratch.became_solvent.add(code)


def resolve_turn(session: Session, game: Game, orders: dict[int, Orders],
                 ctx: TurnContext | None = None) -> TurnResult:
    """Resolve one turn of Appendix A (orders already validated) and check conservation.

    ``ctx`` may be a context already loaded for this game and turn (by :func:`run_turn`).
    Python's cyclic garbage collector is paused while the turn resolves: the turn makes tens
    of thousands of short-lived objects and holds thousands of ORM rows, and full collections
    in the middle of it cost a third of its time (nothing cyclic is left behind by a turn
    that the collection after it would not find)."""
    with paused():
        own = ctx is None
        if own:
            ctx = TurnContext(session, game, orders)
        try:
            return _resolve_turn(session, game, orders, ctx)
        finally:
            if own:
                ctx.release()


def _resolve_turn(session: Session, game: Game, orders: dict[int, Orders], ctx: TurnContext) -> TurnResult:
    ctx.orders = dict(orders)
    climate_before = ctx.climate.name
    begin_turn(ctx)
    tycoons_borrow_or_repay(ctx)  # 1
    presidents_lend_or_are_repaid(ctx)  # 2
    railroads_repay_bank_debt(ctx)  # 3
    treasury_stock_to_presidents(ctx)  # 4
    private_company_purchases(ctx)  # 5
    stock_market(ctx)  # 6
    tycoon_financial_phase(ctx)  # 7
    solvency_after_market(ctx)
    capital_expenses(ctx)  # 8
    construction(ctx)  # 9
    political_influence(ctx)  # 10
    rights_of_way(ctx)  # 11
    railroad_mergers(ctx)  # 12
    operations(ctx)  # 13
    tycoon_final_financial_phase(ctx)  # 14
    elections(ctx)  # 15
    victory_points(ctx)  # 16
    end_of_turn(ctx)
    ctx.write_rows()  # the turn's plain rows: one statement per table and kind (pbm.cr.engine.rows)
    prepare_flush(session)  # the ORM rows (the game, ...): few statements
    session.flush()
    run_checks(ctx)
    write_history(ctx)
    ctx.flush_log()
    session.flush()
    return TurnResult(
        game=game.name, turn=ctx.turn, year=game.year, climate_before=climate_before,
        climate_after=ctx.new_climate.name, railroads=len(ctx.active()), events=len(ctx.events),
        ledger_entries=len(ctx.ledger), headlines=[e["text"] for e in ctx.events if e["headline"]],
        game_over=ctx.scratch.game_over,
    )


def write_history(ctx: TurnContext) -> None:
    """PlayerTurn and RailroadTurn rows for the turn (charts, archives, reports), in two bulk
    inserts (no ORM objects: nothing in the turn reads them back)."""
    gid, turn = ctx.game.id, ctx.turn
    players = []
    for n, p in ctx.players.items():
        players.append({"game_id": gid, "turn": turn, "player_number": n, "cash": p.cash, "loan": p.loan,
                        "net_worth": p.net_worth, "vp": {
                            "robber_baron": p.vp_robber, "rail_mogul": p.vp_mogul,
                            "rail_builder": p.vp_builder, "rail_magnate": p.vp_magnate,
                            "rail_prodigal": p.vp_prodigal, "rail_baron": p.vp_baron,
                            "prodigal_spent": ctx.scratch.prodigal.get(n, 0)}})
    railroads = []
    for code, rr in ctx.railroads.items():
        if code not in ctx.scratch.active_at_start and code not in ctx.scratch.incorporated:
            continue
        data = {"status": rr.status, "market": ctx.scratch.market.get(code, {}),
                "operations": ctx.scratch.operations.get(code, {}),
                "dividend": ctx.scratch.dividends_paid.get(code, 0),
                "influence": ctx.scratch.influence.get(code, 0),
                "merged_into": ctx.scratch.merged_into.get(code)}
        railroads.append({"game_id": gid, "turn": turn, "code": code,
                          "start_price": ctx.scratch.start_price.get(code, rr.price), "end_price": rr.price,
                          "data": data})
    connection = ctx.session.connection()
    insert_rows(connection, PlayerTurn.__table__, players)
    insert_rows(connection, RailroadTurn.__table__, railroads)


# --------------------------------------------------------------------------- orders
class SeatChecks:
    """The computer players and the validator for every seat of one turn, on ONE view of the
    game (:func:`pbm.cr.queries.load`, read lazily the first time a seat needs it): the
    start-of-turn state does not change while orders are gathered, so the 15 seats share it."""

    def __init__(self, session: Session, game: Game, view=None) -> None:
        self.session, self.game = session, game
        self._view = view  # a view already built (run_turn: from the TurnContext's rows), or None
        self._bankrupt: set[int] | None = None

    @property
    def view(self):
        from pbm.cr import queries

        if self._view is None:
            self._view = queries.load(self.session, self.game)
            self._view.frozen = True  # the start-of-turn rows do not change while orders are gathered
        return self._view

    def computer_orders(self, player: Player) -> Orders:
        """Computer orders (``pbm.cr.ai``, §3.1) for one seat."""
        from pbm.cr import ai

        return ai.computer_orders(self.session, self.game, player, view=self.view)

    def validate(self, player: Player, orders: Orders) -> tuple[Orders, list[Problem]]:
        """``pbm.cr.validate.validate`` for one seat.  The engine itself re-checks every
        limit when it acts, so nothing invalid can pass."""
        from pbm.cr import validate

        if self._bankrupt is None:
            with self.session.no_autoflush:  # (reads last turn's events: the order sets added so far wait
                # for the one flush of them all instead of going in a statement of their own)
                self._bankrupt = validate.recently_bankrupt(self.session, self.game)
        return validate.validate(self.session, self.game, player, orders, view=self.view,
                                 recently_bankrupt=self._bankrupt)


def count_missed_turns(session: Session, game: Game, players=None) -> None:
    """Ruling M3: a human who sent a sheet for this turn is back to 0 missed turns (and back in
    the seat); one who did not has missed one more.  Part of the turn, so a rerun repeats it.

    ``players``: the turn's own (plain) players, whose changes the turn writes; else the
    game's ORM rows."""
    prepare_flush(session)  # (the computer's order sets just added: one INSERT, not one per row)
    session.flush()
    if players is None:
        players = game.players
    humans = [player for player in players if player.human]
    stored = stored_orders(session, game, game.turn, players) if humans else {}
    for player in humans:
        row = stored.get(player.number)
        if row is not None and row.source not in ("computer", "standing"):
            player.missed_turns = 0
        else:
            player.missed_turns += 1


def stored_orders(session: Session, game: Game, turn: int, players=None) -> dict[int, OrderSet]:
    """Each player's newest accepted order set for ``turn`` (by arrival); ``players``: the
    game's players if at hand (else its ORM rows are read)."""
    rows = session.scalars(select(OrderSet).where(OrderSet.game_id == game.id, OrderSet.turn == turn,
                                                  OrderSet.status == "accepted")
                           .order_by(OrderSet.received_seq, OrderSet.id))
    by_player = {p.id: p.number for p in (game.players if players is None else players)}
    out: dict[int, OrderSet] = {}
    for row in rows:
        out[by_player[row.player_id]] = row
    return out


def gather_orders(session: Session, game: Game, computer_for_missing: bool = False,
                  view=None) -> tuple[dict[int, Orders], dict[int, list[Problem]]]:
    """Orders for every seat: stored, else the computer's (computer seats, or every seat
    with ``computer_for_missing``), else standing orders (§10.1D, §10.2H).  ``view``: the
    start-of-turn :class:`pbm.cr.queries.View` if the caller has one (its players are then the
    seats: the same rows as the game's)."""
    players = list(game.players) if view is None else list(view.players.values())
    stored = stored_orders(session, game, game.turn, players)
    orders: dict[int, Orders] = {}
    problems: dict[int, list[Problem]] = {}
    seats = SeatChecks(session, game, view)
    seq = max((o.received_seq for o in stored.values()), default=0)
    for player in sorted(players, key=lambda p: p.number):
        row = stored.get(player.number)
        if row is not None:
            try:
                given = Orders.from_dict(row.orders)
            except (TypeError, ValueError) as exc:
                raise PbmError(f"stored orders of player {player.number} for turn {game.turn} are unreadable: "
                               f"{exc}") from None
        elif computer_seated(player, game) or computer_for_missing:
            given = seats.computer_orders(player)
            seq += 1
            session.add(OrderSet(game_id=game.id, turn=game.turn, player_id=player.id, source="computer",
                                 status="accepted", orders=given.to_dict(), problems=[], received_seq=seq))
        else:
            given = Orders()
        checked, found = seats.validate(player, given)
        orders[player.number], problems[player.number] = checked, found
    return orders, problems


# --------------------------------------------------------------------------- the moderator's verbs
def take_snapshot(session: Session, game: Game, ctx: TurnContext | None = None) -> Snapshot:
    """The canonical export before the turn, kept for reruns (``ctx``: the turn's context
    loaded just now, whose rows the export reads instead of selecting them again)."""
    loaded = None
    if ctx is not None:
        loaded = (sorted(ctx.pcs.values(), key=lambda pc: pc.id), list(ctx.railroad_by_id.values()),
                  list(ctx.players.values()), list(ctx.routes.values()), list(ctx.towns.values()))
    text = snapshot_text(export_game(session, game, loaded))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    snap = session.scalar(select(Snapshot).where(Snapshot.game_id == game.id, Snapshot.turn == game.turn))
    if snap is None:
        snap = Snapshot(game_id=game.id, turn=game.turn, state=text, sha256=digest)
        session.add(snap)
    else:
        snap.state, snap.sha256 = text, digest
    return snap


def run_turn(session: Session, game: Game, *, computer_for_missing: bool = False,
             resolver: Callable[[Session, Game, dict[int, Orders]], TurnResult] | None = None) -> TurnResult:
    """Snapshot, gather and validate orders, resolve, record, advance — in the caller's
    transaction (nothing is committed here)."""
    if game.title != "continental-rails":
        raise PbmError(f"{game.name} is not a Continental Rails game")
    if game.status != "open":
        raise PbmError(f"game {game.name} is {game.status}; no more turns can be run")
    with paused():
        return _run_turn(session, game, computer_for_missing, resolver)


def _run_turn(session: Session, game: Game, computer_for_missing: bool,
              resolver: Callable[[Session, Game, dict[int, Orders]], TurnResult] | None) -> TurnResult:
    ctx = TurnContext(session, game)  # loads the game once; the export below reuses the rows
    try:
        take_snapshot(session, game, ctx)
        orders, problems = gather_orders(session, game, computer_for_missing, view=ctx.view)
        if resolver is None:
            count_missed_turns(session, game, ctx.players.values())  # written with the turn's rows
            result = resolve_turn(session, game, orders, ctx=ctx)
        else:
            result = resolver(session, game, orders)
            count_missed_turns(session, game)
    finally:
        ctx.release()
    result.problems = problems
    if game.status == "open":
        game.turn += 1
        game.year = tables.year_of(game.turn)
    result.year = tables.year_of(result.turn)
    session.flush()
    return result


def rerun_turn(session: Session, game: Game, n: int, *, computer_for_missing: bool = False) -> list[TurnResult]:
    """Restore the snapshot taken before turn ``n`` and resolve turns ``n``… again (up to
    the last turn resolved) with the same stored orders."""
    last = game.turn - 1 if game.status == "open" else game.turn
    if n < 1 or n > last:
        raise PbmError(f"turn {n} has not been resolved in {game.name} (resolved: "
                       f"{'none' if last < 1 else f'1–{last}'})")
    snap = session.scalar(select(Snapshot).where(Snapshot.game_id == game.id, Snapshot.turn == n))
    if snap is None:
        raise PbmError(f"no snapshot was taken before turn {n} of {game.name}; it cannot be rerun")
    state = json.loads(snap.state)
    for model in (Event, LedgerEntry, PlayerTurn, RailroadTurn):
        session.execute(delete(model).where(model.game_id == game.id, model.turn >= n))
    session.execute(delete(Snapshot).where(Snapshot.game_id == game.id, Snapshot.turn > n))
    session.execute(delete(GameRecord).where(GameRecord.title == game.title, GameRecord.game_name == game.name))
    restore_game(session, game, state)
    results = []
    while game.status == "open" and game.turn <= last:
        results.append(run_turn(session, game, computer_for_missing=computer_for_missing))
    return results

"""What a turn report is made of, read from the database (§9).

:func:`load_turn` gathers, for one resolved turn ``T`` of a Continental Rails
game, everything the reports need as plain values: the state at the end of the
turn (the ``pbm export`` dict, or the snapshot taken before turn ``T+1`` when
an older turn is asked for), the map, the turn's events and ledger, the
accepted orders and the history kept by the engine (``PlayerTurn``,
``RailroadTurn``).  Rendering is then a pure function of a :class:`TurnData`,
which is what makes identical input give identical bytes.

Turn 0 is the situation at the start of the game (no turn resolved yet): the
report sent with the first turnsheet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.cr import queries
from pbm.cr.state import export_game
from pbm.errors import PbmError
from pbm.models import Event, Game, LedgerEntry, OrderSet, PlayerTurn, RailroadTurn, Snapshot


@dataclass(frozen=True)
class MapTown:
    name: str
    lat: float
    lon: float
    size: int
    region: str


@dataclass(frozen=True)
class MapRoute:
    code: str
    kind: str
    miles: int
    a: str
    b: str
    name: str


@dataclass(frozen=True)
class Contact:
    """What the database knows of a seat's person (not part of the export: no contacts in it)."""

    name: str
    email: str
    phone: str
    address: str
    hide_phone: bool
    hide_address: bool
    human: bool


@dataclass
class TurnData:
    """Everything needed to render the reports of one turn."""

    game_name: str
    turn: int  # the turn reported on (0: start of game)
    state: dict[str, Any]  # the export at the end of ``turn``
    towns: list[MapTown]
    routes: list[MapRoute]
    contacts: dict[int, Contact]
    events: list[dict[str, Any]]
    ledger: list[dict[str, Any]]
    orders: dict[int, dict[str, Any]]  # player number -> accepted orders of ``turn``
    order_sets: list[dict[str, Any]]  # every order set of ``turn`` (moderator)
    player_history: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    railroad_history: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # e.g. the map drawing

    # -- conveniences -------------------------------------------------------------
    @property
    def game(self) -> dict[str, Any]:
        return self.state["game"]

    @property
    def players(self) -> list[dict[str, Any]]:
        return self.state["players"]

    @property
    def railroads(self) -> list[dict[str, Any]]:
        return self.state["railroads"]

    def player(self, number: int) -> dict[str, Any]:
        for p in self.players:
            if p["number"] == number:
                return p
        raise PbmError(f"no player {number} in game {self.game_name}")

    def railroad(self, code: str) -> dict[str, Any] | None:
        for r in self.railroads:
            if r["code"] == code:
                return r
        return None

    def railroad_turn(self, code: str) -> dict[str, Any] | None:
        for row in self.railroad_history.get(code, []):
            if row["turn"] == self.turn:
                return row
        return None

    def human_numbers(self) -> list[int]:
        return [p["number"] for p in self.players if p["human"]]


def last_resolved_turn(game: Game) -> int:
    """``Game.turn`` is the turn to be played next, so the one before it was resolved last;
    when the game has ended (§1.3) the engine leaves ``Game.turn`` on the final turn."""
    return game.turn - 1 if game.status == "open" else game.turn


def _state_at(session: Session, game: Game, turn: int, view) -> dict[str, Any]:
    if turn == last_resolved_turn(game):  # the state now: exported from the current rows, read plain
        return export_game(session, game, loaded=(view.pcs.values(), view.railroads.values(),
                                                  view.players.values(), view.routes.values(),
                                                  view.towns.values()))
    snap = session.scalar(select(Snapshot).where(Snapshot.game_id == game.id, Snapshot.turn == turn + 1))
    if snap is None:
        raise PbmError(
            f"the state at the end of turn {turn} of {game.name} is not kept "
            f"(no snapshot before turn {turn + 1}); turns that can be reported: "
            f"{_reportable(session, game)}"
        )
    return json.loads(snap.state)


def _reportable(session: Session, game: Game) -> str:
    turns = sorted({s.turn - 1 for s in session.scalars(select(Snapshot).where(Snapshot.game_id == game.id))
                    if s.turn >= 1} | {last_resolved_turn(game)})
    return ", ".join(str(t) for t in turns if t >= 0)


def check_turn(game: Game, turn: int | None) -> int:
    """The turn to report: ``turn`` if it has been resolved, else a clear error."""
    last = last_resolved_turn(game)
    if turn is None:
        return max(last, 0)
    if turn < 0 or turn > max(last, 0):
        raise PbmError(
            f"turn {turn} of {game.name} has not been resolved "
            f"(the last resolved turn is {last}; reports exist for turns 0–{max(last, 0)})"
        )
    return turn


def load_turn(session: Session, game: Game, turn: int | None = None) -> TurnData:
    """Read everything the reports of ``turn`` (default: the last resolved) need."""
    if game.title != "continental-rails":
        raise PbmError(f"{game.name} is an {game.title} game; turn reports are for Continental Rails games")
    turn = check_turn(game, turn)
    # the game's rows as they are now, read with Core selects into plain objects (pbm.cr.queries): the
    # last turn's state is exported from them, the map and contacts read from them, and the next
    # turn's turnsheets (render.turnsheet_flowables) reuse them
    view = queries.load_plain(session, game)
    state = _state_at(session, game, turn, view)
    towns_by_id = view.towns  # by id
    towns = [MapTown(t.name, t.lat, t.lon, t.size, t.region) for t in towns_by_id.values()]
    routes = [
        MapRoute(r.code, r.kind, r.miles, towns_by_id[r.a_id].name, towns_by_id[r.b_id].name, r.name or "")
        for r in view.routes.values()  # by route number
    ]
    contacts = {
        p.number: Contact(p.name or "", p.email or "", p.phone or "", p.address or "",
                          bool(p.hide_phone), bool(p.hide_address), bool(p.human))
        for p in view.players.values()  # by player number
    }
    gid = game.id
    E = Event.__table__.c
    events = [
        {"seq": seq, "step": step, "rule": rule, "kind": kind, "player": player, "railroad": railroad,
         "amount": amount, "headline": bool(headline),
         "private_to": list(private_to) if private_to is not None else None,
         "text": text or "", "data": dict(data or {})}
        for seq, step, rule, kind, player, railroad, amount, headline, private_to, text, data in session.execute(
            select(E.seq, E.step, E.rule, E.kind, E.player_number, E.railroad, E.amount, E.headline, E.private_to,
                   E.text, E.data).where(E.game_id == gid, E.turn == turn).order_by(E.seq, E.id))
    ]
    L = LedgerEntry.__table__.c
    ledger = [
        {"seq": seq, "step": step, "source": source, "target": target, "amount": amount, "memo": memo}
        for seq, step, source, target, amount, memo in session.execute(
            select(L.seq, L.step, L.source, L.target, L.amount, L.memo)
            .where(L.game_id == gid, L.turn == turn).order_by(L.seq, L.id))
    ]
    numbers = {p.id: p.number for p in view.players.values()}
    O = OrderSet.__table__.c
    order_sets = [
        {"player": numbers.get(player_id), "source": source, "status": status, "orders": orders or {},
         "problems": list(problems or []), "received_seq": received_seq}
        for player_id, source, status, orders, problems, received_seq in session.execute(
            select(O.player_id, O.source, O.status, O.orders, O.problems, O.received_seq)
            .where(O.game_id == gid, O.turn == turn).order_by(O.received_seq, O.id))
    ]
    orders: dict[int, dict[str, Any]] = {}
    for o in order_sets:  # newest accepted wins (arrival order)
        if o["status"] == "accepted" and o["player"] is not None:
            orders[o["player"]] = o["orders"]
    player_history: dict[int, list[dict[str, Any]]] = {}
    P = PlayerTurn.__table__.c
    for row_turn, number, cash, loan, net_worth, vp in session.execute(
            select(P.turn, P.player_number, P.cash, P.loan, P.net_worth, P.vp)
            .where(P.game_id == gid, P.turn <= turn).order_by(P.turn, P.player_number)):
        player_history.setdefault(number, []).append(
            {"turn": row_turn, "cash": cash, "loan": loan, "net_worth": net_worth, "vp": dict(vp or {})})
    railroad_history: dict[str, list[dict[str, Any]]] = {}
    R = RailroadTurn.__table__.c
    for row_turn, code, start_price, end_price, data in session.execute(
            select(R.turn, R.code, R.start_price, R.end_price, R.data)
            .where(R.game_id == gid, R.turn <= turn).order_by(R.turn, R.code)):
        railroad_history.setdefault(code, []).append(
            {"turn": row_turn, "start_price": start_price, "end_price": end_price, "data": dict(data or {})})
    data = TurnData(
        game_name=game.name, turn=turn, state=state, towns=towns, routes=routes, contacts=contacts,
        events=events, ledger=ledger, orders=orders, order_sets=order_sets,
        player_history=player_history, railroad_history=railroad_history,
    )
    data.cache["turnsheet-view"] = view  # the state now: the start of the next turn
    return data

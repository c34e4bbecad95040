"""Deadlines, which sheet counts, and what happens when a player sends none (docs/rulings/mail.md).

Gathering a turn's orders is a pipeline step (:func:`pbm.pipeline.gather.orders_for_turn`);
who sits at the computer is seat policy (:func:`pbm.seats.computer_seated`).  A seat's
``source`` is one of:

* ``"email"`` / ``"moderator"`` / ``"file"`` — the accepted OrderSet of that player for the turn that
  arrived last (by arrival time, ruling M14; earlier ones are ``superseded``);
* ``"standing"`` — a human player sent nothing: blank orders, which keep control (§10.1D) and
  dividend rates (§10.2H) unchanged and order nothing else;
* ``"computer"`` — a computer seat (§3.1), or a human seat whose player has missed
  ``missed_turns_limit`` turns in a row (ruling M3; default 2, ``Game.options``): the engine
  must replace the blank orders given here by its computer player's orders.

Gathering only reads.  The missed-turn counter changes in one place, as part
of the turn itself: ``pbm.cr.resolve.count_missed_turns`` (so a rerun repeats it exactly).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.models import Game, InboundMessage, OrderSet, Player, TurnState
from pbm.seats import DEFAULT_MISSED_TURNS_LIMIT, computer_seated, missed_turns_limit  # noqa: F401 (seat policy is core)


def turn_state(session: Session, game: Game, turn: int, *, create: bool = False) -> TurnState | None:
    state = session.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == turn))
    if state is None and create:
        state = TurnState(game_id=game.id, turn=turn, state="open", history=[])
        session.add(state)
        session.flush()
    return state


def deadline_for(session: Session, game: Game, turn: int | None = None) -> datetime | None:
    """The turn's deadline (UTC, naive): its TurnState's, else the game's for the current turn."""
    turn = game.turn if turn is None else turn
    state = turn_state(session, game, turn)
    if state is not None and state.deadline is not None:
        return state.deadline
    return game.deadline if turn == game.turn else None


def set_deadline(session: Session, game: Game, when: datetime | None) -> None:
    state = turn_state(session, game, game.turn, create=True)
    assert state is not None
    state.deadline = when
    state.history = [*(state.history or []), {"event": "deadline", "when": when.isoformat() if when else None}]
    game.deadline = when


def accepted_orderset(session: Session, game: Game, player: Player, turn: int) -> OrderSet | None:
    """The sheet that counts: the accepted one that arrived last (ruling M14)."""
    rows = session.scalars(
        select(OrderSet).where(OrderSet.game_id == game.id, OrderSet.turn == turn, OrderSet.player_id == player.id,
                               OrderSet.status == "accepted")).all()
    if not rows:
        return None
    chosen = rows[0]
    for row in rows[1:]:
        if arrived_after(session, row, chosen):
            chosen = row
    return chosen


def first_copy(session: Session, orderset: OrderSet) -> InboundMessage | None:
    """The earliest stored message with the same content as ``orderset``'s mail, for the same game, seat and
    turn — a copy under a new Message-ID (a relay's redelivery, a replay) counts from then (ruling M14).
    None if the sheet came another way or no earlier copy exists."""
    if orderset.message_id is None:
        return None
    own = session.get(InboundMessage, orderset.message_id)
    if own is None or not own.content_sha256:
        return None
    player = session.get(Player, orderset.player_id)
    earlier = session.scalars(select(InboundMessage).where(
        InboundMessage.content_sha256 == own.content_sha256, InboundMessage.id != own.id,
        InboundMessage.game_id == orderset.game_id, InboundMessage.turn == orderset.turn,
        InboundMessage.player_number == (player.number if player is not None else None))).all()
    copies = [m for m in earlier if m.received_at is not None and own.received_at is not None
              and (m.received_at, m.seq) < (own.received_at, own.seq)]
    return min(copies, key=lambda m: (m.received_at, m.seq), default=None)


def arrival(session: Session, orderset: OrderSet) -> datetime | None:
    """When a sheet arrived, for deciding which counts (ruling M14): a mailed sheet's arrival at the mailbox
    (the first copy's, for a copy), the moment the moderator entered his orders; None if unknown (rows
    stored before arrival times were kept, the computer's orders)."""
    first = first_copy(session, orderset)
    return first.received_at if first is not None else orderset.received_at


def arrived_after(session: Session, one: OrderSet, other: OrderSet) -> bool:
    """True if ``one`` arrived after ``other``: by arrival time, then by the order pbm read them (the
    arrival number); by the arrival number alone when either time is unknown."""
    a, b = arrival(session, one), arrival(session, other)
    if a is not None and b is not None and a != b:
        return a > b
    return (one.received_seq, one.id) > (other.received_seq, other.id)


def replace_computer_orders(session: Session, chosen: OrderSet) -> None:
    """A sheet that counts for a seat the computer played (its orders stored when the turn ran, ruling M3)
    replaces the computer's orders: they become ``superseded`` whatever their arrival number (ruling M12)."""
    for other in session.scalars(select(OrderSet).where(
            OrderSet.game_id == chosen.game_id, OrderSet.turn == chosen.turn, OrderSet.player_id == chosen.player_id,
            OrderSet.status == "accepted", OrderSet.source == "computer", OrderSet.id != chosen.id)):
        other.status = "superseded"


def supersede_older(session: Session, chosen: OrderSet) -> list[OrderSet]:
    """§ "the last sheet counts" (M1), by arrival time (M14): every other accepted sheet of the player and
    turn that arrived earlier becomes ``superseded``; if one that arrived later is already accepted,
    ``chosen`` is superseded.

    Returns those other accepted sheets (by id), each with its status now, so a caller can tell
    which it replaced without reading them again."""
    others = session.scalars(select(OrderSet).where(
        OrderSet.game_id == chosen.game_id, OrderSet.turn == chosen.turn, OrderSet.player_id == chosen.player_id,
        OrderSet.status == "accepted", OrderSet.id != chosen.id)).all()
    for other in others:
        if arrived_after(session, other, chosen):
            chosen.status = "superseded"
        else:
            other.status = "superseded"
    return list(others)


# -- grace period and reminder schedule (issue 18, items 8 and 9; rulings M11, M13, docs/rulings/mail.md) ----

_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400}


def parse_duration(text: str, what: str = "a duration") -> timedelta:
    """``90m``, ``2h``, ``1d``, ``1h30m`` or ``0``: a length of time (whole minutes, at most 30 days)."""
    import re

    from pbm.errors import PbmError

    clean = (text or "").strip().lower().replace(" ", "")
    if clean in ("0", "none", "off"):
        return timedelta(0)
    parts = re.findall(r"(\d+)(min|m|h|d)", clean)
    if not parts or "".join(n + u for n, u in parts) != clean:
        raise PbmError(f"{text!r} is not {what}; write e.g. 2h, 90m, 1d or 1h30m (0 for none)")
    seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if seconds > 30 * 86400:
        raise PbmError(f"{text!r} is too long for {what} (at most 30 days)")
    return timedelta(seconds=seconds)


def duration_text(delta: timedelta) -> str:
    """The short form of a duration: ``2h``, ``90m`` → ``1h30m``, ``1d``."""
    minutes = int(delta.total_seconds() // 60)
    if minutes == 0:
        return "0"
    out = ""
    for unit, size in (("d", 1440), ("h", 60), ("m", 1)):
        if minutes >= size:
            out += f"{minutes // size}{unit}"
            minutes %= size
    return out


def grace_for(game: Game) -> timedelta:
    """How long after the deadline a sheet still counts (``Game.options["grace_minutes"]``, default none)."""
    try:
        minutes = int((game.options or {}).get("grace_minutes", 0))
    except (TypeError, ValueError):
        return timedelta(0)
    return timedelta(minutes=max(0, minutes))


def closes_at(session: Session, game: Game, turn: int | None = None) -> datetime | None:
    """When the turn stops taking sheets: its deadline plus the game's grace period (None: no deadline)."""
    deadline = deadline_for(session, game, turn)
    return None if deadline is None else deadline + grace_for(game)


def reminder_schedule(game: Game) -> list[timedelta]:
    """The game's reminder points before the deadline (``Game.options["reminders"]``, minutes), largest first."""
    out = []
    for value in (game.options or {}).get("reminders", []) or []:
        try:
            out.append(timedelta(minutes=int(value)))
        except (TypeError, ValueError):
            continue
    return sorted(set(out), reverse=True)

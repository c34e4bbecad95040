"""Mail pbm starts itself: turnsheets to players and reminders to those without orders."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import clean_address
from pbm.mail.policy import (accepted_orderset, closes_at, deadline_for, duration_text, grace_for,
                             missed_turns_limit, reminder_schedule, supersede_older, turn_state)
from pbm.models import Game, OutboxMessage, Player
from pbm.turnsheet.files import Sheet, human_players, make_sheets, safe_name


def _deadline_text(session: Session, game: Game) -> str:
    deadline = deadline_for(session, game)
    return deadline.strftime("%Y-%m-%d %H:%M UTC") if deadline else "not set yet"


def queue_turnsheets(session: Session, game: Game, sheets: list[Sheet], sender: str) -> list[str]:
    """Queue each player's turnsheet (text in the body, PDF attached); returns who gets one."""
    queued = []
    for s in sheets:
        address = clean_address(s.player.email or "")
        if address is None:
            continue
        body = (f"Your turnsheet for game {game.name}, turn {game.turn} ({game.year}). "
                f"Deadline: {_deadline_text(session, game)}.\n\n"
                "Fill in the attached PDF and send it back, or reply with the text sheet below filled in "
                "(after the colons). Write your secret on the SECRET line.\n\n" + (s.text or ""))
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Turnsheet for turn {game.turn}", body)
        if s.pdf is not None:
            msg.add_attachment(s.pdf, maintype="application", subtype="pdf",
                               filename=f"{safe_name(game.name)}-turn-{game.turn}-player-{s.player.number:02d}.pdf")
        outbox.queue(session, f"turnsheet:{game.id}:{game.turn}:{s.player.number}", "turnsheet", [address], msg,
                     game=game)
        queued.append(address)
    return queued


def remind(session: Session, game: Game, sender: str, today: datetime | None = None, *,
           point: str | None = None) -> list[int]:
    """Queue a reminder (with the text sheet) for each human player without an accepted sheet this turn.

    One reminder per player and day: running it twice the same day queues nothing new.  A scheduled
    reminder (``point``, e.g. ``48h``) is keyed by its point and the deadline instead: once per point."""
    day = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    deadline = deadline_for(session, game)
    stamp = f"before-{point}:{deadline:%Y%m%d%H%M}" if point and deadline else day
    reminded = []
    limit = missed_turns_limit(game)
    for player in human_players(session, game):
        if accepted_orderset(session, game, player, game.turn) is not None:
            continue
        address = clean_address(player.email or "")
        if address is None:
            continue
        key = f"reminder:{game.id}:{game.turn}:{player.number}:{stamp}"
        if point and session.scalar(select(OutboxMessage.id).where(OutboxMessage.key == key)) is not None:
            continue  # this point's reminder is already on record (sent, or waiting in the outbox)
        sheet = make_sheets(session, game, player.number, "text")[0]
        missed = player.missed_turns
        warning = (f"You have missed {missed} turn(s) in a row; the computer is playing your position until "
                   "you send a sheet again (§3.1)." if missed >= limit else
                   f"If we receive no sheet, standing orders apply: control of your railroads and their dividends "
                   f"stay unchanged and nothing else is ordered (§10.1D, §10.2H). After {limit} missed turns in a "
                   "row the computer plays your position until you return (§3.1).")
        body = (f"We have no turnsheet from you (player {player.number}) for game {game.name}, turn {game.turn}. "
                f"Deadline: {_deadline_text(session, game)}"
                + (f" (this reminder is sent {_point_words(point)} before it)" if point else "")
                + f".\n\n{warning}\n\nYour text sheet:\n\n{sheet.text}")
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Reminder: turn {game.turn} orders",
                           body)
        outbox.queue(session, key, "reminder", [address], msg, game=game)
        reminded.append(player.number)
    return reminded


def _point_words(point: str | None) -> str:
    """``48h`` → ``48 hours``; ``1h30m`` → ``1 hour 30 minutes``."""
    import re

    names = {"d": "day", "h": "hour", "m": "minute"}
    parts = [f"{n} {names[u]}{'s' if n != '1' else ''}" for n, u in re.findall(r"(\d+)([dhm])", point or "")]
    return " ".join(parts) or "just"


def _humans_with_address(session: Session, game: Game) -> list[tuple[Player, str]]:
    out = []
    for player in human_players(session, game):
        address = clean_address(player.email or "")
        if address is not None:
            out.append((player, address))
    return out


def _when(value: datetime | None) -> str:
    return value.strftime("%A %d %B %Y %H:%M UTC") if value else "none (the moderator will set one)"


# -- announcements (issue 18, item 9): every mail to the address on file, keyed once ------------------

def announce_deadline(session: Session, game: Game, sender: str, before: datetime | None) -> list[int]:
    """Tell every human seat the turn's new deadline (and the grace period, if any); queued once per
    change (the key counts the turn's deadline changes).  Nothing is queued if the deadline is unchanged
    or newly set (no deadline before: the turnsheet and report mails state it)."""
    now = deadline_for(session, game)
    if now == before or before is None:
        return []  # unchanged, or the first deadline: the turnsheet and report mails state it
    state = turn_state(session, game, game.turn)
    changes = sum(1 for h in (state.history or []) if isinstance(h, dict) and h.get("event") == "deadline") \
        if state is not None else 0
    grace = grace_for(game)
    told = []
    for player, address in _humans_with_address(session, game):
        lines = [f"The moderator has changed the deadline of game {game.name}, turn {game.turn}.", "",
                 f"New deadline: {_when(now)}", f"It was: {_when(before)}"]
        if grace and now is not None:
            lines.append(f"Sheets arriving up to {duration_text(grace)} after it (until "
                         f"{now + grace:%Y-%m-%d %H:%M} UTC) still count.")
        sheet = accepted_orderset(session, game, player, game.turn)
        lines += ["", "Your sheet for this turn is in and counts; you may still send a new one before the deadline."
                  if sheet is not None else "We have no sheet from you for this turn yet.", "", "-- ",
                  "pbm (automatic message)"]
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Turn {game.turn}: deadline changed",
                           "\n".join(lines) + "\n")
        outbox.queue(session, f"notice:deadline:{game.id}:{game.turn}:{changes}:{player.number}", "notice",
                     [address], msg, game=game)
        told.append(player.number)
    return told


def reinstate_late(session: Session, game: Game, sender: str) -> list[tuple[int, int]]:
    """After the deadline (or the grace period) was extended: every sheet of the open turn stored ``late``
    that arrived before the new closing time now counts (the last sheet by arrival wins), and its player
    is told so.  Returns (player, message number) for each.  A turn already closed is left alone."""
    from sqlalchemy import select

    from pbm.models import InboundMessage, OrderSet

    state = turn_state(session, game, game.turn)
    closes = closes_at(session, game)
    if state is not None and state.state != "open":
        return []  # closed for resolution: too late for any extension (accept-late and rerun-turn remain)
    rows = session.scalars(select(OrderSet).where(OrderSet.game_id == game.id, OrderSet.turn == game.turn,
                                                  OrderSet.status == "late")
                           .order_by(OrderSet.received_seq, OrderSet.id)).all()
    done = []
    for orderset in rows:
        if closes is not None and orderset.received_at is not None and orderset.received_at > closes:
            continue
        orderset.status = "accepted"
        supersede_older(session, orderset)
        message = session.get(InboundMessage, orderset.message_id) if orderset.message_id else None
        seq = message.seq if message is not None else orderset.received_seq
        if message is not None:
            message.status = orderset.status
            message.outcome = {**(message.outcome or {}), "reason": "late; counts after the deadline was extended"}
        player = session.get(Player, orderset.player_id)
        address = clean_address(player.email or "") if player is not None else None
        if player is None or address is None:
            continue
        counts = orderset.status == "accepted"
        body = (f"The deadline of game {game.name}, turn {game.turn} has been extended to "
                f"{_when(deadline_for(session, game))}.\n\nYour sheet (message #{seq}), which arrived late, "
                + ("NOW COUNTS: it will be resolved as shown in its receipt"
                   + (f" (receipt {message.outcome.get('receipt')})" if message is not None
                      and (message.outcome or {}).get("receipt") else "") + "."
                   if counts else "is on record, but a sheet of yours that arrived later counts instead.")
                + "\n\n-- \npbm (automatic message)\n")
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Turn {game.turn}: your late sheet "
                           + ("now counts" if counts else "is on record"), body)
        outbox.queue(session, f"notice:counts:{orderset.id}", "notice", [address], msg, game=game)
        done.append((player.number, seq))
    return done


def scheduled_reminders(session: Session, game: Game, sender: str, now: datetime) -> tuple[str | None, list[int]]:
    """The reminder point due now (the nearest passed point before the deadline; earlier points that were
    skipped are not sent late) and the players it was queued for.  Idempotent: each point is keyed once."""
    deadline = deadline_for(session, game)
    state = turn_state(session, game, game.turn)
    if deadline is None or game.status != "open" or (state is not None and state.state != "open"):
        return None, []
    if now >= deadline:
        return None, []
    due = [p for p in reminder_schedule(game) if now >= deadline - p]
    if not due:
        return None, []
    point = duration_text(min(due))
    return point, remind(session, game, sender, now, point=point)


def seat_notices(session: Session, game: Game, turn: int, sender: str) -> list[str]:
    """After turn ``turn`` was resolved: tell a player whose seat the computer has just taken (ruling M3,
    §3.1), and one who got it back by sending a sheet.  Keyed by turn and player: once each."""
    from pbm.models import OrderSet

    if game.turn != turn + 1:
        return []
    limit = missed_turns_limit(game)

    def sent(player: Player, t: int) -> bool:
        """The player's own sheet counted in turn ``t`` (not the computer's orders stored for his seat)."""
        return session.scalar(select(OrderSet.id).where(
            OrderSet.game_id == game.id, OrderSet.player_id == player.id, OrderSet.turn == t,
            OrderSet.status == "accepted", OrderSet.source.not_in(("computer", "standing"))).limit(1)) is not None

    def computer_played(player: Player, t: int) -> bool:
        """The computer's orders were stored for the player's seat in turn ``t`` (it played the seat)."""
        return session.scalar(select(OrderSet.id).where(
            OrderSet.game_id == game.id, OrderSet.player_id == player.id, OrderSet.turn == t,
            OrderSet.source == "computer").limit(1)) is not None

    out = []
    for player, address in _humans_with_address(session, game):
        if player.missed_turns == limit:
            what, subject = "computer", "the computer plays your position"
            body = (f"We received no sheet from you for {limit} turn(s) in a row (up to turn {turn}). From turn "
                    f"{game.turn} the computer plays your position in game {game.name} (§3.1) until you send a "
                    "sheet again: your next sheet gives you the seat back.")
        elif player.missed_turns == 0 and sent(player, turn) and (computer_played(player, turn - 1) or session.scalar(
                select(OutboxMessage.id).where(OutboxMessage.key == f"notice:seat:{game.id}:{turn - 1}:"
                                                                     f"{player.number}:computer")) is not None):
            # the computer played the seat last turn, or took it after last turn and he came straight back
            what, subject = "back", "your seat is yours again"
            body = (f"Welcome back: your sheet for turn {turn} was played, and the computer no longer plays your "
                    f"position in game {game.name}.")
        else:
            continue
        key = f"notice:seat:{game.id}:{turn}:{player.number}:{what}"
        if session.scalar(select(OutboxMessage.id).where(OutboxMessage.key == key)) is not None:
            continue  # told already
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Turn {game.turn}: {subject}",
                           body + "\n\n-- \npbm (automatic message)\n")
        outbox.queue(session, key, "notice", [address], msg, game=game)
        out.append(f"player {player.number}: {subject}")
    return out

"""The weekly cycle: ingest → close → resolve → render → send → archive, for every game that is due.

Each turn's progress is a :class:`~pbm.models.TurnState` row moving through
``open → closed → resolved → reported → sent → archived``, with a history entry
for each move.  Every step is idempotent and the state is moved in the same
transaction as the step's database work (or, for file work — rendering and
archiving — after the files are safely in place, and those files are written
atomically with identical bytes each time).  So a crash at any point leaves a
state from which ``pbm cycle`` simply carries on: nothing is done twice that
must not be (the outbox never sends twice), and nothing is lost.

A lock row (:class:`~pbm.models.CycleLock`) stops two cycles running at once;
a lock left by a process that died on this host is taken over.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm.db import session_scope
from pbm.errors import PbmError
from pbm.models import CycleLock, Game, TurnState

STATES = ["open", "closed", "resolved", "reported", "sent", "archived"]
DEFAULT_PERIOD = timedelta(days=7)


class CycleLocked(PbmError):
    """Another ``pbm cycle`` holds the lock."""


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def cycle_lock(url: str | None, *, break_lock: bool = False, name: str = "cycle") -> Iterator[str]:
    """Hold the cycle lock for the block; refuse (CycleLocked) if a live run holds it."""
    token = uuid.uuid4().hex
    host = socket.gethostname()[:200]
    for _ in range(2):
        try:
            with session_scope(url) as s:
                s.add(CycleLock(name=name, holder=token, host=host, pid=os.getpid(), acquired_at=datetime.now()))
            break
        except IntegrityError:
            with session_scope(url) as s:
                row = s.get(CycleLock, name)
                if row is None:
                    continue
                stale = row.host == host and not _pid_alive(row.pid)
                if not (stale or break_lock):
                    since = f" since {row.acquired_at:%Y-%m-%d %H:%M}" if row.acquired_at else ""
                    raise CycleLocked(
                        f"another pbm cycle is running (pid {row.pid} on {row.host}{since}); "
                        "wait for it, or if it died on another machine run `pbm cycle --break-lock`")
                s.delete(row)
    else:  # pragma: no cover - a racing run took it between our delete and insert
        raise CycleLocked("another pbm cycle took the lock just now; try again")
    try:
        yield token
    finally:
        with session_scope(url) as s:
            s.execute(delete(CycleLock).where(CycleLock.name == name, CycleLock.holder == token))


# -- turn states ----------------------------------------------------------------------------

def turn_state(session: Session, game: Game, turn: int | None = None) -> TurnState:
    """The TurnState of ``turn`` (default: the game's current turn), created ``open`` if missing."""
    turn = game.turn if turn is None else turn
    row = session.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == turn))
    if row is None:
        row = TurnState(game_id=game.id, turn=turn, state="open", deadline=game.deadline,
                        history=[{"state": "open", "note": "turn opened"}])
        session.add(row)
        session.flush()
    return row


def advance(row: TurnState, new: str, at: datetime, note: str = "") -> None:
    """Move ``row`` to state ``new`` (one step forward only), recording it in the history."""
    old = row.state
    if STATES.index(new) != STATES.index(old) + 1:
        raise PbmError(f"turn {row.turn}: cannot go from {old} to {new}")
    row.state = new
    entry: dict[str, Any] = {"state": new, "at": at.isoformat(timespec="seconds")}
    if note:
        entry["note"] = note
    row.history = [*(row.history or []), entry]


# -- the steps --------------------------------------------------------------------------------

Resolver = Callable[[Session, Game], Any]
Ingester = Callable[[Session, Path], str]


def default_resolver(session: Session, game: Game) -> Any:
    """Appendix A: the engine's turn resolution (``pbm.cr.resolve.run_turn``)."""
    try:
        from pbm.cr.resolve import run_turn
    except ImportError:
        raise PbmError("the turn engine (pbm.cr.resolve) is not installed; cannot resolve turns") from None
    return run_turn(session, game)


def default_ingester(session: Session, maildir: Path, config: Path | None = None) -> str:
    """Read new mail from a Maildir through the mail part (``pbm ingest --maildir``); a one-line summary."""
    try:
        from pbm.mail import sources
        from pbm.mail.config import mail_settings, reply_sender
        from pbm.mail.ingest import Context, ingest
    except ImportError:
        raise PbmError("the mail part (pbm.mail) is not installed; cannot read mail") from None
    context = Context(sender=reply_sender(config), moderator=mail_settings(config).moderator)
    counts: dict[str, int] = {}
    for item in sources.read_maildir(maildir):
        outcome = ingest(session, item.raw, context, source=item.source, received_at=item.received_at)
        if item.done is not None:
            item.done()
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"


@dataclass
class CycleOptions:
    reports: Path = Path("reports")
    archive: Path = Path("archive")
    maildir: Path | None = None
    mail_config: Path | None = None
    now: datetime = field(default_factory=datetime.now)
    force: bool = False  # run even if the deadline has not passed
    period: timedelta = DEFAULT_PERIOD
    max_turns: int = 1  # turns to run per game in one call
    resolver: Resolver | None = None
    ingester: Ingester | None = None
    after_step: Callable[[str, str, int], None] | None = None  # (game, state reached, turn): crash injection
    progress: Callable | None = None
    log: Callable[[str], None] = print


def _due(game: Game, row: TurnState, opts: CycleOptions) -> bool:
    if row.state != "open":
        return True  # an interrupted turn always carries on
    if opts.force:
        return True
    deadline = row.deadline or game.deadline
    return deadline is not None and deadline <= opts.now


def _note(opts: CycleOptions, game: str, text: str) -> None:
    opts.log(f"{game}: {text}")


def run_game_turn(url: str | None, game_name: str, opts: CycleOptions) -> str | None:
    """Carry one game's current turn as far as it goes; returns the final state or None if not due."""
    from pbm.report.archive import archive_turn
    from pbm.report.render import render_turn
    from pbm.report.send import deliver, queue_reports

    def step(name: str) -> None:
        if opts.after_step:
            opts.after_step(game_name, name, turn)

    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == game_name))
        row = _in_progress(s, game)
        if row is None:
            if game.status != "open":
                return None
            row = turn_state(s, game)
        turn, state = row.turn, row.state
        if not _due(game, row, opts):
            return None

    if state == "open":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            if opts.maildir is not None:
                if opts.ingester is not None:
                    summary = opts.ingester(s, opts.maildir)
                else:
                    summary = default_ingester(s, opts.maildir, opts.mail_config)
                _note(opts, game_name, f"turn {turn}: mail read: {summary}")
            row = turn_state(s, game, turn)
            advance(row, "closed", opts.now, "deadline passed" if not opts.force else "closed by the moderator")
        state = "closed"
        _note(opts, game_name, f"turn {turn} closed")
        step(state)
    if state == "closed":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            if game.turn == turn and game.status == "open":  # not yet resolved (same transaction as the move)
                (opts.resolver or default_resolver)(s, game)
                if game.turn != turn + 1 and game.status == "open":
                    raise PbmError(f"{game_name}: resolving turn {turn} did not advance the game")
            row = turn_state(s, game, turn)
            advance(row, "resolved", opts.now)
        state = "resolved"
        _note(opts, game_name, f"turn {turn} resolved")
        step(state)
    if state == "resolved":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            rendered = render_turn(s, game, turn=turn, moderator=True, out=opts.reports, progress=opts.progress)
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            advance(turn_state(s, game, turn), "reported", opts.now, f"{len(rendered.paths)} PDF(s)")
        state = "reported"
        _note(opts, game_name, f"turn {turn}: {len(rendered.paths)} report(s) written")
        for warning in rendered.warnings:
            _note(opts, game_name, f"warning: {warning}")
        step(state)
    if state == "reported":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            sent = queue_reports(s, game, turn=turn, reports=opts.reports)
            advance(turn_state(s, game, turn), "sent", opts.now,
                    f"queued {len(sent.queued)}, already {len(sent.already)}")
        with session_scope(url) as s:
            delivery = deliver(s, opts.mail_config)
        state = "sent"
        _note(opts, game_name, f"turn {turn}: {len(sent.queued)} report mail(s) queued; {delivery}")
        step(state)
    if state == "sent":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            bundle = archive_turn(s, game, turn, reports=opts.reports, archive=opts.archive)
            if game.status == "finished":  # §1.3: the game ended this turn; §11.3 records
                from pbm.report.archive import archive_final, update_records

                for change in update_records(s, game):
                    _note(opts, game_name, f"new record: {change}")
                final = archive_final(s, game, reports=opts.reports, archive=opts.archive)
                _note(opts, game_name, f"the whole game archived in {final.path}")
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            row = turn_state(s, game, turn)
            advance(row, "archived", opts.now, str(bundle.path))
            if game.status == "open":
                nxt = turn_state(s, game, game.turn)
                base = row.deadline or game.deadline
                if base is not None and nxt.deadline in (None, base):
                    nxt.deadline = base + opts.period
                    game.deadline = nxt.deadline
        state = "archived"
        _note(opts, game_name, f"turn {turn} archived in {bundle.path}")
        step(state)
    return state


def _in_progress(s: Session, game: Game) -> TurnState | None:
    """The oldest turn of ``game`` that has left ``open`` but is not yet archived, else the current one."""
    rows = list(s.scalars(select(TurnState).where(TurnState.game_id == game.id, TurnState.state != "archived")
                          .order_by(TurnState.turn)))
    for row in rows:
        if row.state != "open":
            return row
    for row in rows:
        if row.turn == game.turn:
            return row
    return None


def run_cycle(url: str | None, opts: CycleOptions, games: list[str] | None = None,
              break_lock: bool = False) -> dict[str, str | None]:
    """Run the cycle for every due game (or those named); returns each game's final state."""
    with cycle_lock(url, break_lock=break_lock):
        with session_scope(url) as s:
            query = select(Game.name).where(Game.title == "continental-rails").order_by(Game.id)
            names = list(s.scalars(query))
        if games:
            unknown = [g for g in games if g not in names]
            if unknown:
                raise PbmError(f"no Continental Rails game {unknown[0]!r} (games: {', '.join(names) or 'none'})")
            names = [n for n in names if n in games]
        outcome: dict[str, str | None] = {}
        for name in names:
            result = None
            for _ in range(max(1, opts.max_turns)):
                state = run_game_turn(url, name, opts)
                if state is None:
                    break
                result = state
            outcome[name] = result
            if result is None:
                _note(opts, name, "not due")
        return outcome

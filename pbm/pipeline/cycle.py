"""The weekly cycle: ingest → close → resolve → render → send → archive, for every game that is due.

Each turn's progress is a :class:`~pbm.models.TurnState` row moving through
``open → closed → resolved → reported → sent → archived``, with a history entry
for each move.  Every step is idempotent and the state is moved in the same
transaction as the step's database work (or, for file work — rendering and
archiving — after the files are safely in place, and those files are written
atomically with identical bytes each time).  So a crash at any point leaves a
state from which ``pbm cycle`` simply carries on: nothing is done twice that
must not be (the outbox never sends twice), and nothing is lost.

The ``cycle`` process lock (:mod:`pbm.locks`: a PostgreSQL advisory lock or an ``flock``ed file,
both released by the system when their holder dies) stops two cycles — or a cycle and
``run-turn`` — running at once.  Closing a turn takes the game's row lock, as accepting a sheet
does, so a sheet is accepted before the close or answered late after it.  A turn moves to
``sent`` only when every report of it has been delivered; a failed or uncertain delivery
leaves it ``reported`` (retried by the next cycle) and makes the cycle's exit status non-zero.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.clock import utcnow
from pbm.db import get_engine, session_scope
from pbm.errors import PbmError
from pbm.kinds import kind_of, weekly_titles
from pbm.locks import Locked, lock_game, process_lock
from pbm.models import Game, OutboxMessage, SendLog, TurnState

STATES = ["open", "closed", "resolved", "reported", "sent", "archived"]
DEFAULT_PERIOD = timedelta(days=7)


CycleLocked = Locked  # another ``pbm cycle`` (or run-turn / rerun-turn) is running


@contextmanager
def cycle_lock(url: str | None, *, break_lock: bool = False, name: str = "cycle") -> Iterator[None]:
    """Hold the cycle lock for the block; refuse (:class:`CycleLocked`) if a live run holds it.

    The lock dies with its holder (pbm.locks), so there is never a stale lock to take over, and a
    live one is never broken: ``break_lock`` is accepted for old scripts and changes nothing."""
    with process_lock(url, name, what="pbm cycle, run-turn or rerun-turn"):
        yield


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
    """The game kind resolves the turn (Continental Rails: Appendix A, ``pbm.cr.resolve.run_turn``)."""
    from pbm.kinds import kind_of

    return kind_of(game).resolve(session, game)


def default_ingester(session: Session | None, maildir: Path | None, config: Path | None = None,
                     imap: bool = False, url: str | None = None) -> str:
    """Read new mail from a Maildir (``pbm ingest --maildir``) or from the configured IMAP mailbox
    (``pbm ingest --imap``) and handle it with every message stored earlier and not yet handled, in
    arrival order (:func:`pbm.intake.take_mail`, the protocol every intake path shares); a one-line
    summary.  The database is ``url``, else the one ``session`` is bound to; the work is done in
    transactions of its own, so the caller must not hold a write transaction open."""
    try:
        from pbm.mail.config import mail_settings, reply_sender
        from pbm.mail.ingest import Context
    except ImportError:
        raise PbmError("the mail part (pbm.mail) is not installed; cannot read mail") from None
    from pbm.intake import maildir_new, take_mail
    from pbm.mail import sources

    if url is None:
        assert session is not None, "default_ingester needs a database: url or session"
        url = session.get_bind().url.render_as_string(hide_password=False)
    context = Context(sender=reply_sender(config), moderator=mail_settings(config).moderator)
    if imap:
        from pbm.mail.config import imap_config

        items = sources.read_imap(imap_config(config))  # only the messages not marked stored yet
    else:
        # only the files not stored yet: a cycle reads the mailbox before each game closes, and rereading
        # (and hashing) every message of the week for each of many games would cost games × messages
        items = maildir_new(url, maildir) if maildir is not None else ()
    try:
        _stored, outcomes = take_mail(url, items, context)
    except sources.SourceError as exc:  # the game must not close with its mail unread
        raise PbmError(f"mail not read, so the turn stays open: {exc}") from None
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"


@dataclass
class CycleOptions:
    reports: Path = Path("reports")
    archive: Path = Path("archive")
    maildir: Path | None = None
    imap: bool = False  # read the IMAP mailbox of the mail settings before each game closes
    mail_config: Path | None = None
    now: datetime = field(default_factory=utcnow)  # UTC, as the stored deadlines (pbm.clock)
    force: bool = False  # run even if the deadline has not passed
    period: timedelta = DEFAULT_PERIOD
    max_turns: int = 1  # turns to run per game in one call
    resolver: Resolver | None = None
    ingester: Ingester | None = None
    after_step: Callable[[str, str, int], None] | None = None  # (game, state reached, turn): crash injection
    progress: Callable | None = None
    log: Callable[[str], None] = print
    failures: list[str] = field(default_factory=list)  # what stops the cycle exiting 0 (undelivered mail)
    claimed_elsewhere: list[str] = field(default_factory=list)  # due games another pbm process was doing
    mails_queued: int = 0  # report mails put in the outbox by this run
    mails_sent: int = 0  # deliveries this run's outbox flushes made (sent to the SMTP relay)
    ticked: list[str] = field(default_factory=list)  # games of other kinds whose move clocks this run ticked

    def __post_init__(self) -> None:
        # every line of a cycle's or worker's log goes out with its secrets cut: an error text may quote a
        # mail (a database refusing a value taken from it), a mail line may carry a SECRET (issue 34, item 11)
        from pbm.mail.redact import redacting

        if not getattr(self.log, "redacted", False):
            self.log = redacting(self.log)
            self.log.redacted = True  # type: ignore[attr-defined]


def _due(game: Game, row: TurnState, opts: CycleOptions) -> bool:
    if row.state != "open":
        return True  # an interrupted turn always carries on
    if opts.force:
        return True
    from pbm.mail.policy import grace_for

    deadline = row.deadline or game.deadline
    return deadline is not None and deadline + grace_for(game) <= opts.now  # sheets count until the grace ends


def _note(opts: CycleOptions, game: str, text: str) -> None:
    opts.log(f"{game}: {text}")


def run_game_turn(url: str | None, game_name: str, opts: CycleOptions) -> str | None:
    """Carry one game's current turn as far as it goes; returns the final state or None if not due."""
    from pbm.mail.outbox import deliver

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
        if opts.ingester is not None:
            if opts.maildir is not None:
                with _intake_lock(url), session_scope(url) as s:
                    _note(opts, game_name, f"turn {turn}: mail read: {opts.ingester(s, opts.maildir)}")
        else:  # stored mail (a crash left some unhandled), then new mail, in arrival order, before the close
            summary = default_ingester(None, opts.maildir, opts.mail_config, opts.imap, url=url)
            if opts.maildir is not None or opts.imap or summary != "nothing new":
                _note(opts, game_name, f"turn {turn}: mail read: {summary}")
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            lock_game(s, game)  # no sheet is accepted while the turn closes (it is late after)
            row = turn_state(s, game, turn)
            advance(row, "closed", opts.now, "deadline passed" if not opts.force else "closed by the moderator")
        state = "closed"
        _note(opts, game_name, f"turn {turn} closed")
        step(state)
    if state == "closed":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            lock_game(s, game)
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
            rendered = kind_of(game).render_reports(s, game, turn, opts.reports, opts.progress)
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
            _next_deadline(s, game, turn, opts)  # before the report mails, which state it (issue 18, item 2)
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            sent = kind_of(game).queue_reports(s, game, turn, opts.reports)
        with session_scope(url) as s:
            delivery = deliver(s, opts.mail_config)
        opts.mails_queued += len(sent.queued)
        opts.mails_sent += _sent_count(delivery)
        _note(opts, game_name, f"turn {turn}: {len(sent.queued)} report mail(s) queued; {delivery}")
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            configured = _smtp_configured(opts.mail_config)
            waiting = undelivered_reports(s, game, turn) if configured else []
            if configured:
                from pbm.mail.outbox import pending

                stuck = [f"{m.key} to {r}: {st}" for m, r, st in pending(s) if st in ("failed", "sending")
                         and not m.key.startswith(f"report:{game.name}:{turn}:")]
                if stuck:
                    opts.failures.append(f"{game_name}: {len(stuck)} other delivery(ies) not sent ({stuck[0]}); "
                                         "see `pbm status`")
            if waiting:
                problem = (f"turn {turn}: {len(waiting)} report delivery(ies) not sent ("
                           + ", ".join(waiting[:3]) + (", ..." if len(waiting) > 3 else "")
                           + "); the turn stays 'reported' and the next cycle sends them again")
                _note(opts, game_name, problem)
                opts.failures.append(f"{game_name}: {problem}")
                return "reported"
            advance(turn_state(s, game, turn), "sent", opts.now,
                    f"queued {len(sent.queued)}, already {len(sent.already)}; {delivery}")
        state = "sent"
        step(state)
    if state == "sent":
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            bundle = kind_of(game).archive_turn(s, game, turn, opts.reports, opts.archive)
            if game.status == "finished":  # the game ended this turn (Continental Rails: §1.3; records §11.3)
                final, changes = kind_of(game).archive_game(s, game, opts.reports, opts.archive)
                for change in changes:
                    _note(opts, game_name, f"new record: {change}")
                _note(opts, game_name, f"the whole game archived in {final.path}")
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == game_name))
            row = turn_state(s, game, turn)
            advance(row, "archived", opts.now, str(bundle.path))
            _next_deadline(s, game, turn, opts)
        state = "archived"
        _note(opts, game_name, f"turn {turn} archived in {bundle.path}")
        step(state)
    return state


def _next_deadline(s, game: Game, turn: int, opts: CycleOptions) -> None:
    """Set the deadline of the turn now open: the resolved turn's deadline plus the period, unless the
    moderator already set another. Idempotent: called before the report mails and again at archiving."""
    if game.status != "open" or game.turn == turn:
        return
    row = turn_state(s, game, turn)
    if row.deadline is None:
        if game.deadline is None:
            return
        row.deadline = game.deadline  # the resolved turn's own deadline, kept before it moves on
    nxt = turn_state(s, game, game.turn)
    if nxt.deadline in (None, row.deadline):
        nxt.deadline = row.deadline + opts.period
        game.deadline = nxt.deadline


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _sent_count(delivery: str) -> int:
    """The number of deliveries made, from an outbox flush's summary ("sent 3, failed 0, ...")."""
    import re

    found = re.match(r"sent (\d+)\b", delivery)
    return int(found.group(1)) if found else 0


@contextmanager
def _intake_lock(url: str | None) -> Iterator[None]:
    """On PostgreSQL, where several ``pbm cycle`` / ``pbm worker`` processes may run at once, one at a time
    reads the shared mailbox (waiting for its turn, so mail in before a deadline is read before the close).
    On SQLite the cycle runs alone (its ``cycle`` lock is exclusive): nothing to take."""
    if get_engine(url).dialect.name != "postgresql":
        yield
        return
    with process_lock(url, "intake", what="mail intake", wait=True, timeout=600):
        with process_lock(url, "handling", what="workers handling mail", wait=True, timeout=600):
            yield  # every stored message is handled here: no worker handles one at the same time


def _claim(url: str | None, postgres: bool, game_id: int, name: str):
    """The per-game claim of :mod:`pbm.pipeline.worker` (``game:<id>``, tried without waiting; :class:`Locked` if
    another process has the game).  SQLite: nothing to claim, the cycle runs alone."""
    from contextlib import nullcontext

    if not postgres:
        return nullcontext()
    return process_lock(url, f"game:{game_id}", what=f"worker on game {name}")


def _smtp_configured(config: Path | None) -> bool:
    """Whether sending is set up — rightly or not: a wrong ``[smtp]`` value leaves the reports undelivered
    and the turn ``reported`` (the cycle exits non-zero, saying what is wrong), never ``sent``."""
    try:
        from pbm.mail.config import smtp_configured
    except ImportError:
        return False
    try:
        return smtp_configured(config)
    except PbmError:
        return True  # the file itself is wrong: nothing can be sent, and that must be said


def smtp_problem(config: Path | None) -> str | None:
    """What is wrong with the sending settings, when they are set up but unusable; else None."""
    if not _smtp_configured(config):
        return None
    from pbm.mail.config import smtp_config

    try:
        smtp_config(config)
    except PbmError as exc:
        return str(exc)
    return None


def undelivered_reports(s: Session, game: Game, turn: int) -> list[str]:
    """'player N: status' for each report of ``turn`` not yet delivered to its recipient."""
    prefix = f"report:{game.name}:{turn}:"
    rows = s.scalars(select(OutboxMessage).where(OutboxMessage.key.startswith(prefix, autoescape=True))
                     .order_by(OutboxMessage.id))
    out = []
    for m in rows:
        logs = {log.recipient.lower(): log.status for log in s.scalars(select(SendLog).where(SendLog.outbox_id == m.id))}
        for r in m.recipients:
            status = logs.get(r.lower(), "not tried")
            if status != "sent":
                out.append(f"player {m.key.rsplit(':', 1)[1]} {status}")
    return out


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
    """Run the cycle for every due game (or those named); returns each game's final state.

    On PostgreSQL any number of cycles and ``pbm worker`` processes share the work: each holds the
    ``cycle`` lock shared (``run-turn`` and ``rerun-turn`` hold it alone) and claims each game before
    touching it (``game:<id>``, docs/hosting.md); a game another process has claimed is left to it
    (``opts.claimed_elsewhere``).  Each game's turn is retried on serialization failures and deadlocks
    (:mod:`pbm.retry`).  On SQLite the cycle holds the ``cycle`` lock alone: one process at a time."""
    from pbm.retry import run_retrying

    postgres = get_engine(url).dialect.name == "postgresql"
    problem = smtp_problem(opts.mail_config)
    if problem:  # said first: turns are still resolved and reported, their mail waits (the cycle exits 1)
        _note(opts, "mail", f"[smtp] is set up but cannot be used: {problem}; nothing will be sent and no "
                            "turn goes past 'reported' until it is mended")
    with process_lock(url, "cycle", what="pbm cycle, run-turn or rerun-turn", shared=postgres):
        with session_scope(url) as s:
            query = select(Game.name, Game.id).where(Game.title.in_(weekly_titles())).order_by(Game.id)
            ids = dict(s.execute(query).all())
            names = list(ids)
        paced = _paced_games(url)
        if games:
            unknown = [g for g in games if g not in names and g not in paced]
            if unknown:
                raise PbmError(_not_cycled(url, unknown[0], names + paced))
            names = [n for n in names if n in games]
            if opts.force and not names:
                _note(opts, ", ".join(games), "moves by email, so there is no turn to run now (--now runs "
                                              "Continental Rails turns before their deadline); its move clock is "
                                              "ticked as usual")
        from pbm.pipeline.reminders import remind_on_schedule

        remind_on_schedule(url, opts, names)  # the reminder points now due (issue 18, item 9), sent once
        outcome: dict[str, str | None] = {}
        for name in names:
            result = None
            try:
                with _claim(url, postgres, ids[name], name):
                    for _ in range(max(1, opts.max_turns)):
                        state = run_retrying(lambda: run_game_turn(url, name, opts),
                                             on_retry=lambda n, what: _note(opts, name, f"{what}, retry {n}"))
                        if state is None:
                            break
                        result = state
                        if state != "archived":  # stopped short (undelivered mail): retried next cycle
                            break
            except Locked:
                opts.claimed_elsewhere.append(name)
                outcome[name] = None
                _note(opts, name, "claimed by another pbm process: left to it")
                continue
            outcome[name] = result
            if result is None:
                _note(opts, name, "not due")
        if paced and (not games or any(g in paced for g in games)):
            try:  # one process at a time ticks the move clocks; another one doing it now is enough
                with process_lock(url, "tick", what="18xx move clock tick") if postgres else _nothing():
                    if _read_moves(url, opts):  # moves waiting in the mailbox count before any time-out
                        _tick_other_kinds(url, opts, [g for g in games or [] if g in paced] or None)
            except Locked:
                _note(opts, "18xx", "move clocks being ticked by another pbm process: left to it")
        return outcome


def _not_cycled(url: str | None, name: str, known: list[str]) -> str:
    """Why ``pbm cycle NAME`` has nothing to run: no such game, or a game neither weekly nor on a move clock."""
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == name))
        if game is not None:
            return f"{game.name} is an {game.title} game that is {game.status}: it has no move clock to tick"
    return f"no game {name!r} to cycle (games: {', '.join(known) or 'none'})"


def tick_move_clocks(url: str | None, opts: CycleOptions, postgres: bool) -> int:
    """A worker's tick of the 18xx move clocks (reminders, time-outs, computer seats' moves): one
    process at a time (the ``tick`` lock, tried without waiting: another one ticking now is enough),
    logging only the games where something was done; the number of those games.  The worker has read
    its mailbox just before, so a move that came in counts before a time-out."""
    if not _paced_games(url):
        return 0
    try:
        with process_lock(url, "tick", what="18xx move clock tick") if postgres else _nothing():
            return _tick_other_kinds(url, opts, None, quiet=True)
    except Locked:
        return 0


def _read_moves(url: str | None, opts: CycleOptions) -> bool:
    """Before the move clocks are ticked, read the mailbox (Maildir or IMAP) as the weekly games do: a move
    that came in must count before its clock's time-out.  False (nothing ticked) if the mail could not be
    read."""
    if opts.maildir is None and not opts.imap:
        return True
    try:
        if opts.ingester is not None:
            with _intake_lock(url), session_scope(url) as s:
                summary = opts.ingester(s, opts.maildir) if opts.maildir is not None else "nothing new"
        else:
            summary = default_ingester(None, opts.maildir, opts.mail_config, opts.imap, url=url)
    except PbmError as exc:
        problem = f"{exc}; no move clock ticked (a time-out could overtake a move waiting in the mailbox)"
        _note(opts, "18xx", problem)
        opts.failures.append(f"18xx: {problem}")
        return False
    _note(opts, "18xx", f"mail read: {summary}")
    return True


def _paced_games(url: str | None) -> list[str]:
    """Games of other kinds that keep their own move clocks (18xx), by the kinds registry."""
    from pbm.kinds import all_kinds

    out: list[str] = []
    with session_scope(url) as s:
        for kind in all_kinds():
            out += kind.paced_games(s)
    return out


def _tick_other_kinds(url: str | None, opts: CycleOptions, names: list[str] | None, *, quiet: bool = False) -> int:
    """Reminders and time-outs of the other kinds' games (18xx move clocks), then their mail is sent
    by the usual flush (pbm send-mail, or the next cycle's); returns the number of games where
    something was done.  ``quiet`` (a worker, every minute): games with nothing due are not logged,
    and nothing is flushed when nothing was done."""
    from pbm.kinds import all_kinds
    from pbm.mail.config import mail_settings, reply_sender

    acted = 0
    with session_scope(url) as s:
        for kind in all_kinds():
            if kind.weekly:
                continue  # its turns are the cycle's own
            done = kind.tick(s, reply_sender(opts.mail_config), opts.now, mail_settings(opts.mail_config).moderator,
                             names)
            for game, lines in done.items():
                acted += bool(lines)
                if quiet and not lines:
                    continue
                opts.ticked.append(game)
                _note(opts, game, "; ".join(lines) if lines else "no reminder or time-out due")
    if quiet and not acted:
        return 0
    if _smtp_configured(opts.mail_config):
        problem = smtp_problem(opts.mail_config)
        if problem:  # set up but wrong: the players' mail waits, and the cycle must not say it went
            _note(opts, "18xx", f"mail not sent: {problem}")
            opts.failures.append(f"18xx: mail not sent: {problem}")
            return acted
        from pbm.mail.config import smtp_config
        from pbm.mail.outbox import flush

        with session_scope(url) as s:
            result = flush(s, smtp_config(opts.mail_config))
        opts.mails_sent += result.sent
        _note(opts, "18xx", result.summary())
        if result.failed or result.uncertain:
            opts.failures.append(
                f"18xx: {result.failed} delivery(ies) failed (tried again next time), {result.uncertain} left "
                "mid-send (they may have arrived: `pbm status` lists them; `pbm send-mail --mark-sent ID` or "
                "`--resend ID` once the relay's log says)")
    return acted

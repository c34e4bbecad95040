"""``pbm worker``: many games, many worker processes, one PostgreSQL database (docs/hosting.md).

A unit of work is one game's due turn, carried as far as it goes (close → resolve → report →
send → archive, :func:`pbm.pipeline.cycle.run_game_turn`, whose steps are crash-safe and resume
from the turn's state).  A worker *claims* a game before touching it with the per-game process
lock ``game:<id>`` of :mod:`pbm.locks` (on PostgreSQL a session advisory lock, tried without
waiting): a game claimed by another worker is skipped, so no game is handled twice at once, and
the claim dies with its holder's connection, so the game of a killed worker is taken over by the
next pass of any other.  Every worker, and every ``pbm cycle`` (which claims games the same way),
holds the ``cycle`` lock *shared*: they run together, while ``run-turn`` and ``rerun-turn``
(exclusive) wait for them to stop, and the other way round.

Mail intake (:mod:`pbm.intake`): one worker at a time stores the new messages of the shared
mailbox (the ``intake`` lock), then every worker handles stored messages side by side, claimed
per lane (the game on the ``GAME:`` line), each lane in arrival order; a worker closes no game
before the lanes held by others are done, so a sheet that was in before a deadline is accepted
before that game closes.  A sheet racing a closing turn meets it at the game's row lock
(accepted before the close, or late after it).  A worker waiting between passes watches its mailbox
(a Maildir: :class:`pbm.intake.MaildirWatch`; IMAP IDLE: :class:`pbm.mail.sources.ImapWatch`, one
worker at a time) and starts a pass as soon as a message lands, and once it has handled mail it
sends the answers at once when SMTP is configured: a player's sheet or move is answered in a
fraction of a second, not at the next pass.  Each pass also ticks the 18xx move clocks, at most
once a minute (:func:`pbm.pipeline.cycle.tick_move_clocks`).

Transactions are short (one per step), every unit is retried on serialization failures and
deadlocks (SQLSTATE 40001, 40P01) a bounded number of times, and ``PBM_STATEMENT_TIMEOUT``
(seconds) bounds each statement.  SIGTERM/SIGINT finish the current unit, release the claims
and stop.  SQLite stays the single-process default: there a worker holds the cycle lock alone.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import exists, or_, select

from pbm.clock import sleep_until, utcnow
from pbm.db import get_engine, session_scope
from pbm.errors import PbmError
from pbm.intake import MaildirWatch
from pbm.locks import ClaimLost, Locked, process_lock
from pbm.mail.sources import ImapWatch
from pbm.models import Game, TurnState
from pbm.pipeline.cycle import CycleOptions, run_game_turn

from pbm.retry import run_retrying


@dataclass
class Unit:
    game: str
    state: str | None = None
    seconds: float = 0.0
    error: str = ""
    retries: int = 0
    lost_connection: bool = False  # the error was the database connection going away, not the game


@dataclass
class WorkerStats:
    units: list[Unit] = field(default_factory=list)
    intake: list[str] = field(default_factory=list)
    skipped_claimed: int = 0
    mail: Counter = field(default_factory=Counter)  # messages handled, by outcome
    mails_queued: int = 0  # report mails put in the outbox (CycleOptions counts them)
    mails_sent: int = 0
    answers_sent: int = 0  # deliveries of what the mail handled queued, sent right after it (SMTP configured)
    seconds: Counter = field(default_factory=Counter)  # where the time went: mailbox wait, mail, games, idle

    @property
    def done(self) -> list[Unit]:
        return [u for u in self.units if u.state == "archived"]

    @property
    def failed(self) -> list[Unit]:
        return [u for u in self.units if u.error or (u.state not in (None, "archived"))]

    def summary(self) -> str:
        failed = self.failed
        text = (f"{len(self.done)} game turn(s) done, {len(failed)} stopped short or failed, "
                f"{sum(u.retries for u in self.units)} retry(ies), {self.skipped_claimed} skip(s) of games "
                "claimed by other workers")
        mail = ", ".join(f"{v} {k}" for k, v in sorted(self.mail.items())) or "none"
        text += f"; mail handled: {mail}; report mails: {self.mails_queued} queued, {self.mails_sent} sent"
        if self.answers_sent:
            text += f"; answers to mail: {self.answers_sent} sent"
        t = self.seconds
        text += (f"; time: games {t['games']:.1f}s, mail {t['mail']:.1f}s (waiting for the mailbox "
                 f"{t['mailbox wait']:.1f}s), idle {t['idle']:.1f}s")
        for u in failed[:10]:
            text += f"\n  {u.game}: {u.error or 'stopped at ' + str(u.state)}"
        return text


@dataclass
class WorkerOptions:
    cycle: CycleOptions
    once: bool = False
    poll: float = 30.0  # seconds between passes when idle (long-running mode)
    retries: int = 5  # per unit, on 40001/40P01
    name: str = field(default_factory=lambda: f"{os.uname().nodename}:{os.getpid()}")
    imap: bool = False  # read the IMAP mailbox of the mail settings (polled every pass)
    maildir: Path | None = None  # the shared Maildir to read (besides mail stored but not yet handled)
    claimed: Callable[[str], None] | None = None  # (game): a test hook, called right after a claim


class Worker:
    def __init__(self, url: str | None, opts: WorkerOptions) -> None:
        self.url = url
        self.opts = opts
        self.stats = WorkerStats()
        self.stopping = False
        self._given_up: set[str] = set()  # games that failed or stopped short in this run
        self.postgres = get_engine(url).dialect.name == "postgresql"
        self.progress: Callable[[int], object] | None = None  # a bar factory (total) -> .update(n), .close()
        self._stop_reason = ""  # why a stop was asked for, until it is said in the log
        self._smtp_said = False  # a wrong [smtp] said once a run
        self._retry_failed_at = 0.0  # monotonic time after which failed deliveries are tried again
        self._next_tick = 0.0  # monotonic time of the next tick of the 18xx move clocks
        # mail landing in the mailbox ends a wait between passes
        self._watch: MaildirWatch | ImapWatch | None = None
        if opts.imap:
            from pbm.mail.config import imap_config

            try:
                self._watch = ImapWatch(imap_config(opts.cycle.mail_config), opts.cycle.log)
            except PbmError:
                pass  # each pass says what is wrong with the settings
        elif opts.maildir is not None:
            self._watch = MaildirWatch(opts.maildir)

    # -- signals ------------------------------------------------------------------------------

    def request_stop(self, signum=None, _frame=None) -> None:
        """Stop after the current unit.  A signal handler: it only sets flags — writing the log line here
        could re-enter a write the main flow was in the middle of (the stop is said by :meth:`_said_stop`)."""
        if not self.stopping:
            self._stop_reason = signal.Signals(signum).name if signum else "asked"
        self.stopping = True

    def _said_stop(self) -> None:
        """Say once, from the main flow, that a stop was asked for."""
        if self.stopping and self._stop_reason:
            reason, self._stop_reason = self._stop_reason, ""
            self.opts.cycle.log(f"worker {self.opts.name}: stopping after the current game ({reason})")

    # -- what is due ----------------------------------------------------------------------------

    def due_games(self) -> list[str]:
        """Continental Rails games with a turn in progress or whose deadline has passed, oldest deadline first."""
        now = self.opts.cycle.now
        in_progress = exists().where(TurnState.game_id == Game.id, TurnState.state.not_in(("open", "archived")))
        query = (select(Game.name).where(Game.title == "continental-rails")
                 .where(or_(in_progress, (Game.status == "open") & (Game.deadline <= now)))
                 .order_by(Game.deadline, Game.id))
        from pbm.mail.policy import grace_for

        with session_scope(self.url) as s:
            games = [g for g in s.scalars(query.with_only_columns(Game)) if g.name not in self._given_up]
            busy = set(s.scalars(select(TurnState.game_id).where(TurnState.state.not_in(("open", "archived")))))
            # a game in its grace period (issue 18, item 8) is not due yet
            return [g.name for g in games if g.id in busy or g.deadline is None or g.deadline + grace_for(g) <= now]

    # -- units ------------------------------------------------------------------------------------

    def _intake(self) -> None:
        """Store new mail (one worker at a time, waited for: mail that is in before a deadline is read
        before that game closes), then handle stored mail side by side with the other workers
        (:mod:`pbm.intake`)."""
        from pbm.intake import handle_lanes, maildir_new, store_new
        from pbm.mail import sources
        from pbm.mail.config import imap_config, mail_settings, reply_sender
        from pbm.mail.ingest import Context

        config = self.opts.cycle.mail_config
        start = time.monotonic()
        try:
            with process_lock(self.url, "intake", what="mail intake", wait=True, timeout=600):
                self.stats.seconds["mailbox wait"] += time.monotonic() - start
                if self.opts.imap:
                    items = sources.read_imap(imap_config(config))
                elif self.opts.maildir is not None:
                    if isinstance(self._watch, MaildirWatch):
                        self._watch.look()  # before reading: a message delivered meanwhile wakes the next wait
                    items = maildir_new(self.url, self.opts.maildir)
                else:
                    items = iter(())
                read = store_new(self.url, items, self.opts.retries).read
        except Locked:
            read = 0  # another worker has been reading the mailbox for ten minutes: read next pass
        context = Context(sender=reply_sender(config), moderator=mail_settings(config).moderator)
        try:
            outcomes = handle_lanes(self.url, context, self.opts.retries, log=self.opts.cycle.log)
        except Locked as exc:  # a lane held for ten minutes (or a cycle reading mail): handled next pass
            self.opts.cycle.log(f"mail: {exc}")
            outcomes = []
        counts = Counter(o.status for o in outcomes)
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"
        if summary != "nothing new":
            self.opts.cycle.log(f"mail: {summary}" + (f" ({read} read from the mailbox)" if read else ""))
        self.stats.intake.append(summary)
        self.stats.mail.update(counts)
        # send what this pass queued, and what any earlier process queued and left unsent (a worker killed
        # between queueing its answers and sending them: item 4 of issue 34)
        if counts or self._answers_waiting():
            self._send_answers()
        self.stats.seconds["mail"] += time.monotonic() - start

    def _answers_waiting(self) -> bool:
        """Whether the outbox holds a delivery a flush would make now: new, or claimed by a flusher that
        died (every pass), or failed (once a minute) — not one left mid-send, which waits for the
        moderator's word."""
        from pbm.mail.config import smtp_config
        from pbm.mail.outbox import pending

        try:
            smtp_config(self.opts.cycle.mail_config)
        except PbmError:
            return False  # no SMTP: the outbox waits for `pbm send-mail`
        with session_scope(self.url) as s:
            states = {state for _m, _r, state in pending(s)}
        if states & {"new", "claimed"}:
            return True
        if "failed" in states and time.monotonic() >= self._retry_failed_at:  # a relay that refused: once a minute
            self._retry_failed_at = time.monotonic() + self.TICK_EVERY
            return True
        return False

    def _send_answers(self) -> None:
        """Send what the mail just handled queued (receipts, rejections, an 18xx move's new state for
        every player) when SMTP is configured; otherwise it waits in the outbox for ``pbm send-mail``.
        The outbox's own claims make this safe beside other workers' flushes (nothing is sent twice),
        and a failed delivery stays queued for the next flush."""
        from pbm.mail.config import smtp_config
        from pbm.mail.outbox import flush

        try:
            smtp = smtp_config(self.opts.cycle.mail_config)
        except PbmError as exc:
            from pbm.pipeline.cycle import _smtp_configured

            if _smtp_configured(self.opts.cycle.mail_config) and not self._smtp_said:
                self._smtp_said = True  # once a run: the answers wait in the outbox until it is mended
                self.opts.cycle.log(f"mail answers: not sent: [smtp] is set up but cannot be used: {exc}")
            return
        try:
            with session_scope(self.url) as s:
                result = flush(s, smtp)
        except Exception as exc:  # noqa: BLE001 - a relay or database hiccup: the mail stays queued
            self.opts.cycle.log(f"mail answers: not sent now ({type(exc).__name__}: {exc}); they stay queued")
            return
        self.stats.answers_sent += result.sent
        line = f"mail answers: sent {result.sent}"  # (not the outbox's whole history, as a flush's summary)
        if result.failed:
            line += f", failed {result.failed} (tried again by the next flush: {'; '.join(result.errors[:1])})"
        if result.uncertain:
            line += (f", {result.uncertain} left mid-send by an earlier run (`pbm status` lists them; "
                     "`pbm send-mail --mark-sent ID` or `--resend ID` once the relay's log says)")
        self.opts.cycle.log(line)

    TICK_EVERY = 60.0  # seconds between a worker's ticks of the 18xx move clocks (their unit is the hour)

    def _tick_move_clocks(self) -> None:
        """The 18xx games' move clocks (reminders, time-outs, computer seats' moves), at most once a
        minute per worker and by one process at a time; before, only ``pbm cycle`` ticked them, so a
        service of workers alone never timed a move out."""
        from pbm.pipeline.cycle import tick_move_clocks

        if time.monotonic() < self._next_tick:
            return
        self._next_tick = time.monotonic() + self.TICK_EVERY
        try:
            tick_move_clocks(self.url, self.opts.cycle, self.postgres)
        except Exception as exc:  # noqa: BLE001 - the clocks are ticked again next minute; games go on
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
            self.opts.cycle.log(f"18xx: move clocks not ticked ({type(exc).__name__}: {reason[0] if reason else ''})")

    def _run_unit(self, name: str, game_id: int) -> Unit | None:
        unit = Unit(game=name)
        start = time.monotonic()
        try:
            with process_lock(self.url, f"game:{game_id}", what=f"worker on game {name}"):
                if self.opts.claimed:
                    self.opts.claimed(name)

                def retried(attempt: int, what: str) -> None:
                    unit.retries = attempt
                    self.opts.cycle.log(f"{name}: {what}, retry {attempt} of {self.opts.retries}")

                unit.state = run_retrying(lambda: run_game_turn(self.url, name, self.opts.cycle),
                                          retries=self.opts.retries, on_retry=retried)
        except ClaimLost as exc:  # the server dropped this worker's claim (a network cut): another may have it
            self.opts.cycle.log(f"{name}: {exc}")
            self.stats.skipped_claimed += 1
            return None
        except Locked:
            self.stats.skipped_claimed += 1
            return None
        except Exception as exc:  # one game's failure is reported, and the worker goes on with the others
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
            unit.error = f"{type(exc).__name__}: {reason[0] if reason else ''}"
            if _connection_lost(exc):
                unit.lost_connection = True
        unit.seconds = time.monotonic() - start
        self.stats.seconds["games"] += unit.seconds
        if unit.state is None and not unit.error:
            return unit  # not due any more (another worker finished it between the listing and the claim)
        if (unit.error or unit.state != "archived") and not unit.lost_connection:
            self._given_up.add(name)  # retried by the next run, not again and again by this one
            # (a lost connection is not the game's fault: the next pass takes it up again)
        log = self.opts.cycle.log
        if unit.error:
            log(f"{name}: FAILED: {unit.error}")
        else:
            log(f"{name}: {unit.state} in {unit.seconds:.2f}s" + (f" ({unit.retries} retry)" if unit.retries else ""))
        self.stats.units.append(unit)
        return unit

    def run_pass(self, bar=None) -> tuple[int, int]:
        """One pass over the due games; returns (games handled, due games left to others or later)."""
        lock = dict(shared=True) if self.postgres else {}
        handled = 0
        with process_lock(self.url, "cycle", what="pbm cycle, run-turn or rerun-turn", wait=not self.opts.once,
                          timeout=self.opts.poll, **lock):
            self._intake()
            from pbm.pipeline.reminders import remind_on_schedule

            remind_on_schedule(self.url, self.opts.cycle)  # reminder points due (issue 18, item 9), once each
            self._tick_move_clocks()
            names = self.due_games()
            with session_scope(self.url) as s:
                ids = dict(s.execute(select(Game.name, Game.id).where(Game.name.in_(names))).all()) if names else {}
            for name in names:
                if self.stopping:
                    break
                unit = self._run_unit(name, ids[name])
                if unit is not None and unit.state is not None:
                    handled += 1
                    if bar is not None:
                        bar.update(1)
        left = 0 if self.stopping else len(self.due_games())
        return handled, left

    def run(self) -> WorkerStats:
        """Passes until stopped (SIGTERM) — or, with ``once``, until no due game is left to anyone."""
        old = {sig: signal.signal(sig, self.request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        bar = None
        try:
            if self.progress is not None:
                bar = self.progress(len(self.due_games()))
            while not self.stopping:
                self.opts.cycle.now = utcnow()
                try:
                    handled, left = self.run_pass(bar)
                except ClaimLost as exc:  # the server dropped this worker's claims (a network cut): start again
                    self.opts.cycle.log(f"worker {self.opts.name}: {exc}; starting a new pass")
                    handled, left = 0, 1
                self._said_stop()
                if self.opts.once and left == 0:
                    break
                if handled == 0 and not self.stopping:
                    # nothing this worker could take: others hold the due games (or nothing is due)
                    self._sleep(0.2 if self.opts.once else self.opts.poll)
        finally:
            self._said_stop()
            self.stats.mails_queued = self.opts.cycle.mails_queued
            self.stats.mails_sent = self.opts.cycle.mails_sent
            if bar is not None:
                bar.close()
            for sig, handler in old.items():
                signal.signal(sig, handler)
        return self.stats

    def _sleep(self, seconds: float) -> None:
        """Wait between passes: until ``seconds`` have passed, a stop is asked for, or mail lands in
        the mailbox (a Maildir looked at every 50 ms, an IMAP folder's IDLE)."""
        start = time.monotonic()
        end = start + seconds
        try:
            if self._watch is not None and not self.opts.once:
                if isinstance(self._watch, ImapWatch) and self.postgres:
                    # one worker at a time idles on the IMAP folder: N workers hold one IDLE connection
                    # between them, not N (servers cap a user's connections, often at 10)
                    try:
                        with process_lock(self.url, "imap-watch", what="IMAP watch"):
                            self._watch.wait(seconds, lambda: self.stopping)
                        return
                    except Locked:
                        pass  # another worker watches and starts its pass when mail comes; this one waits its poll
                else:
                    self._watch.wait(seconds, lambda: self.stopping)
                    return
            sleep_until(end, lambda: self.stopping)
        finally:
            self.stats.seconds["idle"] += time.monotonic() - start


def _connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` is the database connection going away (SQLSTATE class 08, or a connection the
    driver gave up), not something wrong with the game."""
    from sqlalchemy.exc import DBAPIError

    from pbm.retry import sqlstate

    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return (sqlstate(exc) or "").startswith("08")


def worker_options(*, reports: Path, archive: Path, maildir: Path | None, config: Path | None, once: bool,
                   poll: float, log: Callable[[str], None], imap: bool = False) -> WorkerOptions:
    cycle = CycleOptions(reports=reports, archive=archive, maildir=None, mail_config=config, log=log,
                         ingester=lambda _s, _m: "")  # intake is a unit of its own (the ``intake`` lock)
    return WorkerOptions(cycle=cycle, once=once, poll=poll, maildir=maildir, imap=imap)


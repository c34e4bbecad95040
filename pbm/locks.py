"""Locks between pbm commands that may run at the same time (docs/guarantees.md).

Two kinds:

* :func:`lock_game` — the game's row, for one transaction.  Accepting a sheet, closing a turn,
  resolving it and accepting a late sheet all take it first, so a sheet is either accepted
  before the turn closes or found late after it (issue 13, item 2).  PostgreSQL:
  ``SELECT … FOR UPDATE``; SQLite: a no-op ``UPDATE`` of the row, which takes the database's
  write lock until the transaction ends.
* :func:`process_lock` — held by a running command for its whole run (``pbm cycle``,
  ``run-turn``, ``rerun-turn`` share ``"cycle"``; flushing the outbox takes ``"outbox"``).
  It cannot outlive its holder: on PostgreSQL it is a session advisory lock (the server drops
  it when the holder's connection ends, however the process died); on SQLite it is ``flock``
  on a file beside the database (the kernel drops it when the process dies).  So a lock that is
  held is held by a live process, and pbm never breaks it.

**Fencing** (workers on separate hosts, docs/hosting.md).  On PostgreSQL a claim can be lost while
its holder lives on: a host's network link is cut, the server notices the dead connection (TCP
keepalives) and ends that session, dropping its advisory locks, and another host takes the game
over.  When the link returns, the first holder's pool reconnects and it would carry on with work
it no longer owns.  So every PostgreSQL claim is remembered (the holding backend's pid and start
time) for the block it guards, and a ``before_commit`` hook checks, in the committing transaction
itself, that the server still grants each claim the committing code runs under; if one is gone the
commit is refused with :class:`ClaimLost` (a :class:`Locked`), the transaction is rolled back and
the unit abandoned, as if the claim had never been taken.  The same check at the start of every
transaction (unless they were found held less than a second ago) stops the unit before its next
step's side effects outside the database (rendering reports into the folder, mailing).  The check is
one query on ``pg_locks`` (all the claims at once; about one round trip); SQLite needs none (its
locks die only with the process).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine, delete, event, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from pbm.clock import utcnow
from pbm.db import get_engine
from pbm.errors import PbmError
from pbm.models import CycleLock, Game


NAME_LIMIT = 40  # characters of a lock name (models.CycleLock.name)


class Locked(PbmError):
    """Another live pbm process holds the lock."""


class ClaimLost(Locked):
    """A claim this process held was dropped by the server (its connection ended: a network cut, a
    server restart, an administrator's ``pg_terminate_backend``); nothing more is committed under it."""


# -- fencing (PostgreSQL) ----------------------------------------------------------------------

@dataclass
class _Claim:
    name: str
    key: int
    engine: Engine
    pid: int  # the backend holding the advisory lock
    started: datetime  # its backend_start: a pid the server reuses is not taken for the holder
    lost: bool = False
    checked: float = 0.0  # time.monotonic() of the last check that found it held


_claims: ContextVar[tuple[_Claim, ...]] = ContextVar("pbm_claims", default=())

_HELD = text("SELECT l.pid, (SELECT a.backend_start FROM pg_stat_get_activity(l.pid) a), l.classid::bigint, "
             "l.objid::bigint FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
             "AND l.pid = ANY(:pids)")


def _halves(key: int) -> tuple[int, int]:
    """A bigint advisory key as pg_locks shows it: (classid, objid), the high and low 32 bits."""
    unsigned = key & 0xFFFF_FFFF_FFFF_FFFF
    return unsigned >> 32, unsigned & 0xFFFF_FFFF


def held_claims() -> list[str]:
    """The names of the PostgreSQL claims the running code is under (outermost first)."""
    return [c.name for c in _claims.get()]


def check_claims(session: Session, connection=None) -> None:
    """Raise :class:`ClaimLost` unless the server still grants every claim the running code is under,
    asked in ``session``'s own transaction (so the answer holds for what that transaction commits).

    Called by the hooks below at the start and at the commit of every transaction; a step may also
    call it before slow work to stop early."""
    claims = _claims.get()
    if not claims:
        return
    bind = session.get_bind()
    engine = getattr(bind, "engine", bind)
    mine = [c for c in claims if c.engine is engine]
    if not mine:
        return
    unsure = [c for c in mine if not c.lost]
    if unsure:  # one query for all of them
        conn = connection if connection is not None else session.connection()
        granted = {(pid, started, hi, lo) for pid, started, hi, lo in
                   conn.execute(_HELD, {"pids": sorted({c.pid for c in unsure})})}
        now = time.monotonic()
        for claim in unsure:
            claim.lost = (claim.pid, claim.started, *_halves(claim.key)) not in granted
            claim.checked = now
    for claim in reversed(mine):  # the innermost first: the game's claim rather than the cycle's
        if claim.lost:
            raise ClaimLost(f"the claim {claim.name!r} was lost: the database server ended its connection "
                            "(a network cut or a server restart?) and another process may hold it now; "
                            "this work is abandoned, nothing more is committed under it")


BEGIN_CHECK_EVERY = 1.0  # seconds: a transaction's start is checked unless its claims were found held this recently


@event.listens_for(Session, "after_begin")
def _fence_begin(session: Session, _transaction, connection) -> None:
    """A transaction under a lost claim stops before its work (a step renders or mails only after reading).
    Only an early stop, so skipped when the claims were found held less than a second ago (the commit
    is always checked: that is the fence)."""
    claims = _claims.get()
    if claims and (any(c.lost for c in claims) or time.monotonic() - min(c.checked for c in claims) > BEGIN_CHECK_EVERY):
        check_claims(session, connection)


@event.listens_for(Session, "before_commit")
def _fence(session: Session) -> None:
    """The fence itself: what a transaction under a lost claim did is never committed."""
    if _claims.get():
        check_claims(session)


def lock_game(session: Session, game: Game) -> None:
    """Lock ``game``'s row until the session's transaction ends, then reload it (fresh values)."""
    session.flush()
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.execute(select(Game.id).where(Game.id == game.id).with_for_update())
    else:
        session.execute(update(Game).where(Game.id == game.id).values(turn=Game.turn)
                        .execution_options(synchronize_session=False))
    session.refresh(game)


def _advisory_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"pbm:{name}".encode()).digest()[:8], "big", signed=True)


def _lock_path(url, name: str) -> Path:
    database = url.database or ""
    if database and database != ":memory:":
        return Path(database).with_name(Path(database).name + f".{name}.lock")
    import tempfile

    digest = hashlib.sha256(str(url).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"pbm-{digest}.{name}.lock"


def _holder(url_text: str | None, name: str) -> str:
    """Who holds the lock, as recorded in ``cycle_locks`` (for the message only)."""
    from pbm.db import session_scope

    try:
        with session_scope(url_text) as s:
            row = s.get(CycleLock, name)
            if row is not None:
                since = f" since {row.acquired_at:%Y-%m-%d %H:%M} UTC" if row.acquired_at else ""
                return f" (pid {row.pid} on {row.host}{since})"
    except Exception:  # pragma: no cover - the message is a courtesy
        pass
    return ""


def _record(url_text: str | None, name: str, token: str, *, remove: bool = False) -> None:
    from pbm.db import session_scope

    with session_scope(url_text) as s:
        if remove:
            s.execute(delete(CycleLock).where(CycleLock.name == name, CycleLock.holder == token))
            return
        s.execute(delete(CycleLock).where(CycleLock.name == name))  # a dead holder's note
        s.add(CycleLock(name=name, holder=token, host=socket.gethostname()[:200], pid=os.getpid(),
                        acquired_at=utcnow()))


def _unlock(conn, statement, key: int) -> None:
    """Release an advisory lock; if the connection is gone (cut, or ended by the server), so is the lock."""
    try:
        conn.execute(statement, {"k": key})
    except DBAPIError as exc:
        if not exc.connection_invalidated:
            raise


@contextmanager
def process_lock(url_text: str | None, name: str, *, wait: bool = False, what: str = "pbm command",
                 timeout: float = 600.0, shared: bool = False) -> Iterator[None]:
    """Hold the process lock ``name`` for the block; refuse with :class:`Locked` if a live process has it
    (or, with ``wait``, wait up to ``timeout`` seconds for it).

    ``shared``: any number of shared holders at once (``pbm worker`` processes, each handling its own
    games), but none while an exclusive holder (``pbm cycle``, ``run-turn``) has it, and the other
    way round.  Shared holders are not recorded in ``cycle_locks``.

    ``name`` is pbm's own (``cycle``, ``game:<id>``, ``mail:<hash>``), never text from outside, and at
    most :data:`NAME_LIMIT` characters (the width of ``cycle_locks.name``): a longer one is a bug, said
    before anything is locked rather than as a database refusal while holding other locks."""
    if not name or len(name) > NAME_LIMIT or not name.isprintable():
        raise ValueError(f"lock name {name[:60]!r}... is not a pbm lock name (1 to {NAME_LIMIT} printable "
                         "characters)")
    engine = get_engine(url_text)
    token = os.urandom(16).hex()
    if engine.dialect.name == "postgresql":
        conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        key = _advisory_key(name)
        suffix = "_shared" if shared else ""
        try:
            deadline = time.monotonic() + timeout
            while True:
                got, pid, started = conn.execute(text(
                    f"SELECT pg_try_advisory_lock{suffix}(:k), pg_backend_pid(), "
                    "(SELECT backend_start FROM pg_stat_get_activity(pg_backend_pid()))"), {"k": key}).one()
                if got:
                    break
                if not wait or time.monotonic() > deadline:
                    raise Locked(f"another {what} is running{_holder(url_text, name)}; wait for it to finish "
                                 "(a lock is only ever held by a live process: pbm does not break it)")
                conn.execute(text("SELECT pg_sleep(0.05)"))
            claim = _Claim(name, key, engine, pid, started)  # the holder, as the fence will look for it
            fenced = _claims.set((*_claims.get(), claim))
            try:
                if not shared:
                    _record(url_text, name, token)
                yield
            finally:
                _claims.reset(fenced)
                try:
                    if not shared and not claim.lost:
                        _record(url_text, name, token, remove=True)
                except ClaimLost:
                    pass  # an outer claim is lost too: the note stays, and is replaced by the next holder's
                finally:
                    _unlock(conn, text(f"SELECT pg_advisory_unlock{suffix}(:k)"), key)
        finally:
            try:
                conn.close()
            except DBAPIError:  # pragma: no cover - a dead connection is discarded by the pool
                pass
        return
    path = _lock_path(engine.url, name)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait or time.monotonic() > deadline:
                    raise Locked(f"another {what} is running{_holder(url_text, name)}; wait for it to finish "
                                 "(a lock is only ever held by a live process: pbm does not break it)") from None
                time.sleep(0.05)
        try:
            if not shared:
                _record(url_text, name, token)
            yield
        finally:
            try:
                if not shared:
                    _record(url_text, name, token, remove=True)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)

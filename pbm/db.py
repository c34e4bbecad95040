"""Database access: URL choice, engine, sessions, and automatic migrations.

The schema is made only by the Alembic migrations under ``migrations/``; they
are applied automatically the first time a database is opened.  The default
database is the SQLite file ``pbm.db`` in the working directory;
``--db URL`` or ``PBM_DATABASE_URL`` selects another, and a plain
``postgresql://`` URL is accepted (it is driven by psycopg 3).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import QueuePool

from pbm.errors import PbmError
from pbm.resources import migrations_dir

DEFAULT_URL = "sqlite:///pbm.db"


from pbm import faults as _faults  # noqa: E402  (crash tests only; does nothing unless asked)

_faults.install()


class Base(DeclarativeBase):
    """Declarative base of every pbm table."""


class DatabaseError(PbmError):
    """The database could not be opened or prepared; the message says why."""


def database_url(url: str | None = None) -> str:
    """The URL to use: the argument, else ``PBM_DATABASE_URL``, else ``pbm.db``."""
    chosen = url or os.environ.get("PBM_DATABASE_URL") or DEFAULT_URL
    return normalize_url(chosen)


SUPPORTED = ("sqlite", "postgresql")


def check_supported(url: str) -> None:
    """Refuse, in one line, a URL of a database pbm does not work with (``mysql://…``, ``oracle://…``): its
    migrations and locks are written for SQLite and PostgreSQL only."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme.split("+", 1)[0].lower() in SUPPORTED:
        return
    kind = scheme.split("+", 1)[0] or "this"
    raise DatabaseError(f"not a usable database URL {(scheme + '://…') if scheme else repr(url[:40])}: pbm keeps "
                        "its games in SQLite (sqlite:///pbm.db) or PostgreSQL (postgresql://user@host/name), "
                        f"not {kind}")


def explain(exc: BaseException) -> str:
    """One line for a database's refusal, saying what the moderator can do about the usual ones (a read-only
    or full folder or disk, a missing folder); the driver's words are kept in brackets."""
    orig = getattr(exc, "orig", None) or exc
    words = " ".join(str(orig.strerror if isinstance(orig, OSError) and orig.strerror else orig).split())[:300]
    low = words.lower()
    if "readonly database" in low or "read-only" in low or "read only" in low:
        return f"the database file or its folder is read-only ({words})"
    if "database or disk is full" in low or "no space left" in low or "disk full" in low:
        return f"the disk of the database is full ({words}); free some space, nothing was changed"
    if "disk i/o error" in low:
        return f"the disk of the database failed to read or write ({words}); check the disk and free space"
    return words


def normalize_url(url: str) -> str:
    """Map plain ``postgresql://`` (and ``postgres://``) onto the psycopg 3 driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def savepoint(session: Session):
    """A SAVEPOINT around a step that may lose a race (a unique key inserted by a concurrent run).

    On SQLite the database has one writer at a time and the pysqlite driver's SAVEPOINTs are not
    reliable, so there it is a no-op; on PostgreSQL it is ``session.begin_nested()``."""
    from contextlib import nullcontext

    if session.get_bind().dialect.name == "sqlite":
        return nullcontext()
    return session.begin_nested()


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # pragma: no cover - driver hook
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


# SQLite databases made for one command and thrown away after (a demo's own): their commits need not
# wait for the disk (``PRAGMA synchronous=OFF``); a demo's few hundred commits took most of its time.
# ``PBM_SQLITE_NO_SYNC=1`` makes every SQLite database such a scratch one: the test suite sets it (its
# thousands of throwaway databases; a process killed after a commit still leaves it in the OS's cache,
# so the crash tests prove the same), never a real game's host.
SCRATCH: set[str] = set()


def _sqlite_scratch(dbapi_connection, _record) -> None:  # pragma: no cover - driver hook
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.close()


def _seconds(name: str) -> float | None:
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        raise DatabaseError(f"{name}={value!r}: give a number of seconds (for example 60)") from None
    if seconds < 0:
        raise DatabaseError(f"{name}={value!r}: give a number of seconds, 0 or more (0: no limit)")
    return seconds


def server_options() -> str:
    """PostgreSQL session settings from the environment (docs/hosting.md): ``PBM_STATEMENT_TIMEOUT`` bounds
    every statement, ``PBM_LOCK_TIMEOUT`` every wait for a lock (seconds; unset or 0: no bound)."""
    parts = []
    for env, setting in (("PBM_STATEMENT_TIMEOUT", "statement_timeout"), ("PBM_LOCK_TIMEOUT", "lock_timeout")):
        seconds = _seconds(env)
        if seconds:
            parts.append(f"-c {setting}={int(seconds * 1000)}")
    return " ".join(parts)


# TCP keepalives (libpq parameters) for every PostgreSQL connection whose URL sets none: a host whose
# link is cut is noticed by both ends within about a minute, so the server drops its claims (advisory
# locks) and another host takes its games over (docs/hosting.md, "Workers on separate hosts")
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3,
              "tcp_user_timeout": 60000}


def keepalive_settings(url: str) -> dict:
    """The keepalive parameters of :data:`KEEPALIVES` that ``url`` does not set itself (a connect argument
    would override the URL's own)."""
    from urllib.parse import parse_qs, urlsplit

    given = set(parse_qs(urlsplit(url).query))
    if "host" in given and any(h.startswith("/") for h in parse_qs(urlsplit(url).query)["host"]):
        return {}  # a Unix socket: no TCP to keep alive
    return {k: v for k, v in KEEPALIVES.items() if k not in given}


def pool_settings() -> dict:
    """The connection pool of a PostgreSQL engine: connections checked before use (a restarted server or a
    dropped connection is replaced, not an error) and recycled after half an hour; ``PBM_POOL_SIZE``
    connections kept open (default 5) plus up to ``PBM_POOL_OVERFLOW`` more at busy moments (default 10).
    A worker or cycle needs up to 5 at once: its cycle lock, a claim, the mailbox locks, the step."""
    size = int(_seconds("PBM_POOL_SIZE") or 5)
    overflow = int(_seconds("PBM_POOL_OVERFLOW") if os.environ.get("PBM_POOL_OVERFLOW", "").strip() else 10)
    return {"pool_pre_ping": True, "pool_recycle": 1800, "pool_size": max(1, size), "max_overflow": overflow,
            "pool_timeout": 60}


@cache
def _engine(url: str) -> Engine:
    check_supported(url)
    try:
        # SQLite: wait up to a minute for another writer (a resolving turn) instead of failing at once
        connect_args: dict = {"timeout": 60} if url.startswith("sqlite") else {}
        kwargs: dict = {}
        if url.startswith("postgresql"):
            # many long-running workers: check a pooled connection before use (a restarted server or a
            # dropped connection is replaced, not an error), and bound every statement if asked to
            kwargs.update(pool_settings())
            options = server_options()
            if options:
                connect_args["options"] = options
            connect_args.update(keepalive_settings(url))
        engine = create_engine(url, future=True, connect_args=connect_args, **kwargs)
        if engine.dialect.name == "sqlite" and isinstance(engine.pool, QueuePool):
            # a database file: the connection returned last is handed out next (not the one idle longest),
            # so a process working alone keeps to one connection, on which a Continental Rails game's
            # start-of-turn view can be proved unchanged between two mailed sheets (pbm.cr.keptview)
            engine.dispose()
            engine = create_engine(url, future=True, connect_args=connect_args, pool_use_lifo=True, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseError(f"not a usable database URL {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        if url in SCRATCH or os.environ.get("PBM_SQLITE_NO_SYNC") == "1":
            event.listen(engine, "connect", _sqlite_scratch)
    _made.append(engine)
    return engine


_made: list[Engine] = []


def close_engines() -> None:
    """Close every pooled connection of every engine this process made (a PostgreSQL server sees
    each session end cleanly); the engines stay usable and connect again when asked."""
    for engine in _made:
        engine.dispose()


def get_engine(url: str | None = None, *, migrate: bool = True) -> Engine:
    """An engine for ``url`` whose schema is at the newest migration."""
    engine = _engine(database_url(url))
    if migrate:
        upgrade(engine)
    return engine


_migrated: set[str] = set()


@cache
def head_revision() -> str | None:
    """The newest migration shipped with this pbm, read from the migration files themselves (the one
    no other names as its ``down_revision``); None if that cannot be told without Alembic."""
    import re

    found: dict[str, str | None] = {}
    pattern = re.compile(r"^(revision|down_revision)\s*(?::[^=]*)?=\s*(?:['\"]([^'\"]+)['\"]|None)", re.M)
    for path in (migrations_dir() / "versions").glob("*.py"):
        fields = {m.group(1): m.group(2) for m in pattern.finditer(path.read_text(encoding="utf-8"))}
        if "revision" not in fields or not fields["revision"]:
            return None
        found[fields["revision"]] = fields.get("down_revision")
    heads = set(found) - set(found.values())
    return heads.pop() if len(heads) == 1 else None


def at_head(engine: Engine) -> bool:
    """One SELECT: is the database's schema revision the newest this pbm ships?  (False when the
    database is new, behind, ahead or unreadable: then Alembic decides and explains.)"""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    head = head_revision()
    if head is None:
        return False
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except SQLAlchemyError:
        return False
    return rows == [head]


def upgrade(engine: Engine) -> None:
    """Apply every pending Alembic migration (once per process and URL).  A database already at the
    newest revision costs one SELECT; Alembic is loaded only when the schema is behind (or new)."""
    key = str(engine.url)
    if key in _migrated:
        return
    if engine.dialect.name == "sqlite":
        check_sqlite_file(engine)
        create_sqlite_file(engine)
    if at_head(engine):
        _migrated.add(key)
        return
    from alembic import command
    from alembic.config import Config

    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    shown = engine.url.render_as_string(hide_password=True)
    try:
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "head")
    except CommandError as exc:
        if "Can't locate revision" in str(exc):
            raise DatabaseError(f"{shown} was made by a newer pbm (its schema is newer than this pbm knows); "
                                "upgrade pbm to use it") from None
        raise DatabaseError(f"cannot prepare database {shown}: {str(exc).splitlines()[0]}") from None
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot open database {shown}: {explain(exc)}") from None
    _migrated.add(key)


def _sqlite_path(engine: Engine) -> Path | None:
    database = engine.url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _remove_dead_creations(folder: Path, name: str) -> None:
    """Remove the temporary files of new databases whose maker died before linking them (a kill): named
    ``.NAME.new-PID.tmp`` with a PID no process on this machine has (SQLite files are local)."""
    for leftover in folder.glob(f".{name}.new-*.tmp"):
        pid = leftover.name[len(f".{name}.new-"):-len(".tmp")]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            try:
                leftover.unlink()
            except OSError:
                pass
        except OSError:  # alive (or not ours to signal): keep it
            continue


def create_sqlite_file(engine: Engine) -> None:
    """Make a new SQLite database whole or not at all: its schema is built in a temporary file beside it
    (``.NAME.new-PID.tmp``), which is then linked to the name — never over an existing file.  So pbm never
    leaves an empty or half-made ``pbm.db`` (a kill, a full disk), and an empty file found under the name is
    not pbm's: :func:`check_sqlite_file` refuses it.  A folder that is missing, read-only or full is one line."""
    path = _sqlite_path(engine)
    if path is None or path.exists():
        return
    folder = path.parent
    shown = str(path)
    if not folder.is_dir():
        raise DatabaseError(f"cannot create database {shown}: its folder {folder} does not exist")
    tmp = folder / f".{path.name}.new-{os.getpid()}.tmp"
    _remove_dead_creations(folder, path.name)
    try:
        tmp.unlink(missing_ok=True)
        temporary = create_engine(f"sqlite:///{tmp}", future=True)
        try:
            from alembic import command
            from alembic.config import Config

            cfg = Config()
            cfg.set_main_option("script_location", str(migrations_dir()))
            with temporary.begin() as connection:
                cfg.attributes["connection"] = connection
                command.upgrade(cfg, "head")
        finally:
            temporary.dispose()
        try:
            os.link(tmp, path)  # never over a file made meanwhile (another pbm's: then that one is used)
        except FileExistsError:
            pass
    except OSError as exc:
        raise DatabaseError(f"cannot create database {shown}: {explain(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - the driver's refusal (read-only, full): one line
        from sqlalchemy.exc import SQLAlchemyError

        if not isinstance(exc, SQLAlchemyError):
            raise
        raise DatabaseError(f"cannot create database {shown}: {explain(exc)}") from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def check_sqlite_file(engine: Engine) -> None:
    """Refuse a file that is not an SQLite database, or a damaged one (``PRAGMA quick_check``)."""
    import sqlite3

    path = _sqlite_path(engine)
    if path is None or not path.exists():
        return
    if path.is_dir():
        raise DatabaseError(f"{path} is a folder, not a database file (name a file, e.g. sqlite:///{path}/pbm.db)")
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise DatabaseError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        raise DatabaseError(f"{path} is empty (0 bytes): an empty file is not a pbm database, and pbm does not "
                            "write over it; if you mean to start a new database there, delete the empty file")
    if head != b"SQLite format 3\x00":
        raise DatabaseError(f"{path} is not an SQLite database (is it the right file?)")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60) as conn:
            rows = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
        conn.close()
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"{path} is damaged ({exc}); restore it from a backup") from None
    if rows != ["ok"]:
        raise DatabaseError(f"{path} is damaged (quick_check: {' '.join(str(rows[0]).split())[:200]}); restore it from a backup")


def table_names(engine: Engine) -> list[str]:
    return sorted(inspect(engine).get_table_names())


@contextmanager
def session_scope(url: str | None = None) -> Iterator[Session]:
    """One transaction: committed if the block succeeds, rolled back otherwise."""
    factory = sessionmaker(bind=get_engine(url), expire_on_commit=False)
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()

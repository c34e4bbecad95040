"""Test fixtures: every database test runs on SQLite and on a real PostgreSQL server.

PostgreSQL: ``PBM_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``,
an account allowed to create databases).  A scratch template database is
migrated once per run; each test gets its own copy (``CREATE DATABASE ...
TEMPLATE``), dropped afterwards.  Set ``PBM_TEST_PG=off`` to run SQLite only
(CI never does).
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool
from click.testing import CliRunner as ClickCliRunner
from typer.testing import CliRunner

from pbm import db as pbm_db

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
# Every SQLite database a test makes is thrown away: no fsync per commit (pbm/db.py, PBM_SQLITE_NO_SYNC),
# in this process and in every pbm process a test starts
os.environ.setdefault("PBM_SQLITE_NO_SYNC", "1")
# ... and PostgreSQL's commits do not wait for the WAL to reach the disk (libpq reads PGOPTIONS; a process
# killed after its commit still finds it committed: only a crash of the server itself could lose it)
os.environ.setdefault("PGOPTIONS", "-c synchronous_commit=off")
PG_ADMIN = os.environ.get("PBM_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
RUN_ID = uuid.uuid4().hex[:8]

# pytest keeps the last 3 numbered temp folders of a user and deletes older ones when a run starts: a run
# in another checkout on the same machine (a second worktree, CI beside a developer) would delete the
# folders this run's Dovecot and SQLite files live in.  Each checkout gets its own temp root.
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(Path(tempfile.gettempdir())
                                                   / f"pbm-pytest-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]}"))
Path(os.environ["PYTEST_DEBUG_TEMPROOT"]).mkdir(exist_ok=True)


def _pg_admin():
    return create_engine(pbm_db.normalize_url(PG_ADMIN), isolation_level="AUTOCOMMIT")


# Folders a command writes to by default, relative to where it runs: a test that runs one without
# pointing it at its tmp_path would write into the checkout (and a later run could then find an
# "already archived with different contents" bundle there).
_OUTPUTS = ("archive", "reports", "turnsheets", "pbm-demo", "site")


def _listing() -> dict[str, set[str]]:
    return {name: {p.name for p in (ROOT / name).iterdir()} if (ROOT / name).is_dir() else set()
            for name in _OUTPUTS}


@pytest.fixture(scope="session", autouse=True)
def checkout_stays_clean():
    before = _listing()
    yield
    after = _listing()
    new = sorted(f"{name}/{entry}" for name in _OUTPUTS for entry in after[name] - before[name])
    assert not new, f"tests wrote into the checkout (run such commands in tmp_path): {', '.join(new)}"


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    if PG_ADMIN == "off":
        pytest.skip("PostgreSQL tests switched off (PBM_TEST_PG=off)")
    admin = _pg_admin()
    name = f"pbm_tpl_{RUN_ID}"
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:  # the server must be there: say so plainly
        pytest.fail(f"PostgreSQL at {PG_ADMIN} is not usable ({exc.__class__.__name__}: {exc}); "
                    "start it or set PBM_TEST_PG")
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    engine = pbm_db.get_engine(url)  # applies the migrations once
    engine.dispose()
    yield url
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


# Scratch databases this process made and emptied again, ready for the next test.  Making one
# (CREATE DATABASE ... TEMPLATE) writes the whole template to the WAL and waits for the disk: about half
# a second on these machines, for each of some 300 PostgreSQL tests.  Emptying one that a test used
# (its rows deleted, its sequences restarted) costs one small transaction.  A database whose schema a
# test changed (a migration test, a dropped table) is dropped instead of reused.
_PG_FREE: dict[str, list[str]] = {}  # template URL -> emptied databases made from it
_PG_SCHEMA: dict[str, str] = {}  # template URL -> fingerprint of its schema

_FINGERPRINT = text(
    "SELECT md5(string_agg(x, ',' ORDER BY x)) FROM ("
    " SELECT c.relname || ':' || c.relkind::text || ':' || coalesce(a.attname, '') || ':'"
    "        || coalesce(format_type(a.atttypid, a.atttypmod), '') || ':' || coalesce(a.attnotnull::text, '') AS x"
    " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
    " LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
    " WHERE n.nspname = 'public'"
    " UNION ALL SELECT 'constraint:' || conname || ':' || pg_get_constraintdef(oid) FROM pg_constraint"
    "  WHERE connamespace = 'public'::regnamespace"
    " UNION ALL SELECT 'index:' || indexdef FROM pg_indexes WHERE schemaname = 'public'"
    " UNION ALL SELECT 'revision:' || version_num FROM alembic_version) AS s")


def _pg_url(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + "/" + name


def _emptied(name: str, schema: str) -> bool:
    """Empty the scratch database ``name`` for the next test: end the sessions a test left open,
    delete every row (children first) and restart every sequence, so it is what a fresh copy of the
    template is.  False (the caller drops it) when its schema is no longer the template's."""
    from pbm.models import Base

    engine = create_engine(pbm_db.normalize_url(_pg_url(name)), poolclass=NullPool)
    try:
        with engine.begin() as c:
            c.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name})
            if c.execute(_FINGERPRINT).scalar() != schema:
                return False
            tables = set(c.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars())
            known = [t.name for t in reversed(Base.metadata.sorted_tables)]
            if tables - set(known) - {"alembic_version"}:
                return False
            for table in known:
                if table in tables:
                    c.execute(text(f'DELETE FROM "{table}"'))
            for sequence in c.execute(text("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")).scalars():
                c.execute(text(f'ALTER SEQUENCE "{sequence}" RESTART'))
        return True
    except Exception:  # whatever the test left behind, a fresh copy is the safe answer
        return False
    finally:
        engine.dispose()


def _pg_database(template_url: str) -> Iterator[str]:
    if template_url not in _PG_SCHEMA:
        engine = create_engine(pbm_db.normalize_url(template_url), poolclass=NullPool)
        with engine.connect() as c:
            _PG_SCHEMA[template_url] = c.execute(_FINGERPRINT).scalar()
        engine.dispose()
    free = _PG_FREE.setdefault(template_url, [])
    if free:
        name = free.pop()
    else:
        admin = _pg_admin()
        template = template_url.rsplit("/", 1)[1]
        name = f"pbm_t_{RUN_ID}_{uuid.uuid4().hex[:8]}"
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
        admin.dispose()
    url = _pg_url(name)
    yield url
    pbm_db.get_engine(url, migrate=False).dispose()
    if _emptied(name, _PG_SCHEMA[template_url]):
        free.append(name)
        return
    admin = _pg_admin()
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session", autouse=True)
def _drop_free_databases() -> Iterator[None]:
    yield
    names = [name for free in _PG_FREE.values() for name in free]
    _PG_FREE.clear()
    if names:
        admin = _pg_admin()
        with admin.connect() as c:
            for name in names:
                c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> Iterator[str]:
    """A fresh, empty database URL: SQLite file, then a PostgreSQL scratch database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbm.db'}"
        yield url
        pbm_db.get_engine(url, migrate=False).dispose()
    else:
        yield from _pg_database(request.getfixturevalue("pg_template"))


@pytest.fixture
def sqlite_url(tmp_path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'pbm.db'}"
    yield url
    pbm_db.get_engine(url, migrate=False).dispose()


@functools.cache
def _click_command():
    """The click command Typer builds from ``pbm.cli.app``, built once a process: Typer's own test runner
    builds it again on every call, reading the type hints of all ~100 commands (about 0.2 s a call,
    a tenth of some mail tests).  The app registers every command when it is imported, so the command
    built once is the one each call would build."""
    import typer.main

    from pbm.cli import app

    return typer.main.get_command(app)


class Cli:
    """Runs ``pbm`` in-process as a user would (through the real Typer app)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.runner = CliRunner()

    def __call__(self, *args: str, expect: int | None = 0, input: str | None = None):
        result = ClickCliRunner.invoke(self.runner, _click_command(), ["--db", self.url, *map(str, args)],
                                       input=input)
        if expect is not None and result.exit_code != expect:
            raise AssertionError(
                f"pbm {' '.join(map(str, args))} exited {result.exit_code}, expected {expect}\n"
                f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}\nexception: {result.exception!r}"
            )
        return result


@pytest.fixture
def cli(db_url) -> Cli:
    return Cli(db_url)


@pytest.fixture
def players_csv(tmp_path) -> Path:
    path = tmp_path / "players.csv"
    path.write_text(
        "name,email,character,phone,anonymous\n"
        "Ada Lovelace,ada@example.org,Countess of Rails,555-0101,no\n"
        "Brunel Isambard,ike@example.org,,555-0102,yes\n"
        "Carl Benz,carl@example.org,Jay Gould,,\n",
        encoding="utf-8",
    )
    return path

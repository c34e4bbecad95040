"""Test fixtures: every database test runs on SQLite and on a real PostgreSQL server.

PostgreSQL: ``PBM_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``,
an account allowed to create databases).  A scratch template database is
migrated once per run; each test gets its own copy (``CREATE DATABASE ...
TEMPLATE``), dropped afterwards.  Set ``PBM_TEST_PG=off`` to run SQLite only
(CI never does).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from pbm import db as pbm_db

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
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


def _pg_database(template_url: str) -> Iterator[str]:
    admin = _pg_admin()
    template = template_url.rsplit("/", 1)[1]
    name = f"pbm_t_{RUN_ID}_{uuid.uuid4().hex[:8]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    yield url
    pbm_db.get_engine(url, migrate=False).dispose()
    with admin.connect() as c:
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


class Cli:
    """Runs ``pbm`` in-process as a user would (through the real Typer app)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.runner = CliRunner()

    def __call__(self, *args: str, expect: int | None = 0, input: str | None = None):
        from pbm.cli import app

        result = self.runner.invoke(app, ["--db", self.url, *map(str, args)], input=input)
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

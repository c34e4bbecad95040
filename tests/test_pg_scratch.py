"""The PostgreSQL scratch databases of the suite (tests/conftest.py): a database one test used is
given to the next test only as a fresh copy of the template would be — no rows, sequences back at
their start, no session of the last test still connected — and one whose schema a test changed is
dropped, never handed on."""

from __future__ import annotations

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from pbm import db as pbm_db
from tests import conftest


def _engine(url: str):
    return create_engine(pbm_db.normalize_url(url), poolclass=NullPool)


def _take(template: str) -> tuple[object, str]:
    gen = conftest._pg_database(template)
    return gen, next(gen)


def _name(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _exists(name: str) -> bool:
    admin = conftest._pg_admin()
    try:
        with admin.connect() as c:
            return c.execute(text("SELECT count(*) FROM pg_database WHERE datname = :n"), {"n": name}).scalar() == 1
    finally:
        admin.dispose()


def _insert_game(c, name: str) -> int:
    c.execute(text("INSERT INTO games (title, name, seed, turn, status, climate, year, anonymous, options, state, "
                   "turn_key) VALUES ('continental-rails', :n, 1, 1, 'open', 'Normal', 1841, false, '{}', '{}', 'k')"),
              {"n": name})
    return c.execute(text("SELECT id FROM games WHERE name = :n"), {"n": name}).scalar()


def test_a_used_database_comes_back_empty_with_its_sequences_restarted(pg_template):
    gen, url = _take(pg_template)
    engine = _engine(url)
    with engine.begin() as c:
        first_id = _insert_game(c, "left-over")
    idle = engine.connect()  # a session the test leaves open, in a transaction
    idle.execute(text("SELECT count(*) FROM games"))
    next(gen, None)  # the test ends: the database is emptied and kept for the next one
    gen2, url2 = _take(pg_template)
    try:
        assert url2 == url  # the same database, handed on
        fresh = _engine(url2)
        with fresh.begin() as c:
            assert c.execute(text("SELECT count(*) FROM games")).scalar() == 0
            assert _insert_game(c, "next") == first_id
            revision = c.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert revision == pbm_db.head_revision()  # the schema's revision row is kept
        fresh.dispose()
    finally:
        idle.invalidate()
        engine.dispose()
        next(gen2, None)


def test_a_database_whose_schema_a_test_changed_is_dropped(pg_template):
    gen, url = _take(pg_template)
    engine = _engine(url)
    with engine.begin() as c:
        c.execute(text("ALTER TABLE games ADD COLUMN left_behind integer"))
    engine.dispose()
    next(gen, None)
    assert not _exists(_name(url))
    gen2, url2 = _take(pg_template)
    try:
        assert url2 != url
        fresh = _engine(url2)
        with fresh.connect() as c:
            columns = c.execute(text("SELECT column_name FROM information_schema.columns "
                                     "WHERE table_name = 'games'")).scalars().all()
        fresh.dispose()
        assert "left_behind" not in columns
    finally:
        next(gen2, None)

"""Every PostgreSQL connection keeps its TCP link alive (docs/hosting.md, "Workers on separate hosts"):
a cut host is noticed within about a minute, so its claims lapse and another host takes over; a URL's
own settings win."""

from __future__ import annotations

from sqlalchemy.exc import OperationalError

from pbm.db import KEEPALIVES, get_engine, keepalive_settings
from pbm.pipeline.worker import _connection_lost


def test_keepalives_are_added_unless_the_url_sets_them():
    assert keepalive_settings("postgresql://u@h/db") == KEEPALIVES
    own = keepalive_settings("postgresql://u@h/db?keepalives_idle=5&tcp_user_timeout=9000")
    assert "keepalives_idle" not in own and "tcp_user_timeout" not in own and own["keepalives"] == 1
    assert keepalive_settings("postgresql://u@/db?host=/run/postgresql") == {}  # a Unix socket


def test_a_postgresql_connection_carries_the_keepalives(pg_template):
    engine = get_engine(pg_template, migrate=False)
    try:
        with engine.connect() as c:
            params = c.connection.dbapi_connection.info.get_parameters()
    finally:
        # no connection to the template may stay in the pool: PostgreSQL copies a template only while
        # nobody is connected to it, and every later scratch database of this worker is such a copy
        engine.dispose()
    # libpq reports the parameters it was given that differ from its defaults
    assert params.get("keepalives_idle") == "30" and params.get("tcp_user_timeout") == "60000"


def test_a_lost_connection_is_told_apart_from_a_games_fault():
    class Orig(Exception):
        sqlstate = "08006"

    assert _connection_lost(OperationalError("SELECT 1", {}, Orig()))
    assert not _connection_lost(ValueError("a bug"))
    assert not _connection_lost(OperationalError("SELECT 1", {}, Exception("no sqlstate")))

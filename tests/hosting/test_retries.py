"""Bounded retries on PostgreSQL serialization failures and deadlocks (issue 14, pbm/retry.py).

Nothing here sleeps to arrange an order: the deadlock is made by two real connections that take
two row locks in opposite orders, handed over by events; the worker is made the victim by letting
it start waiting last (the server checks a waiter for a deadlock once, ``deadlock_timeout`` after
it began to wait, and the other side's check is set far off).  Every wait has a bound — events,
``lock_timeout`` and ``statement_timeout`` on both connections, the thread join — so a broken
arrangement fails the test instead of hanging it."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import DBAPIError

from pbm.db import get_engine, normalize_url, session_scope
from pbm.pipeline.worker import Worker, worker_options
from pbm.turnsheet.seed import populate
from pbm.models import Event, Game, Player, TurnState
from pbm.pipeline.cycle import default_resolver
from pbm.retry import run_retrying, sqlstate
from tests.conftest import _pg_database

BOUND = 30  # seconds: the most any single wait in these tests may take


@pytest.fixture
def pg_url(pg_template, monkeypatch):
    monkeypatch.setenv("PBM_STATEMENT_TIMEOUT", str(BOUND))
    monkeypatch.setenv("PBM_LOCK_TIMEOUT", str(BOUND))
    for url in _pg_database(pg_template):
        yield url + "?application_name=pbm-retry-test"  # an engine of its own, made with the timeouts above
        get_engine(url + "?application_name=pbm-retry-test", migrate=False).dispose()


def _worker(url: str, tmp_path, resolver, retries: int = 5) -> tuple[Worker, list[str]]:
    lines: list[str] = []
    opts = worker_options(reports=tmp_path / "reports", archive=tmp_path / "archive", maildir=None, config=None,
                          once=True, poll=0.2, log=lines.append)
    opts.cycle.resolver = resolver
    opts.retries = retries
    return Worker(url, opts), lines


def _history(url: str, name: str) -> tuple[int, list[str], int]:
    """(game turn, turn 1's state history, events of turn 1, each counted once per sequence number)."""
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == name))
        row = s.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == 1))
        seqs = list(s.scalars(select(Event.seq).where(Event.game_id == game.id, Event.turn == 1)))
        assert len(seqs) == len(set(seqs))
        return game.turn, [h["state"] for h in row.history], len(seqs)


RAISE_40001 = ("DO $$ BEGIN RAISE EXCEPTION 'provoked by the test' USING ERRCODE = 'serialization_failure'; "
               "END $$")


def test_a_serialization_failure_is_retried_and_the_turn_done_once(pg_url, tmp_path):
    """The server itself raises SQLSTATE 40001 in the middle of resolving (after the game's row is
    locked and before the new turn is written): the transaction is rolled back, the unit runs again
    from the turn's state ('closed') and the turn is resolved exactly once."""
    [name] = populate(pg_url, games=1, humans=1, seed=61, prefix="ser")
    calls = []

    def resolver(session, game):
        calls.append(game.turn)
        if len(calls) == 1:
            session.execute(text(RAISE_40001))
        return default_resolver(session, game)

    worker, lines = _worker(pg_url, tmp_path, resolver)
    stats = worker.run()
    assert [(u.game, u.state, u.retries, u.error) for u in stats.units] == [(name, "archived", 1, "")]
    assert f"{name}: serialization failure, retry 1 of 5" in lines
    turn, history, events = _history(pg_url, name)
    assert turn == 2 and events > 0
    assert history == ["open", "closed", "resolved", "reported", "sent", "archived"]  # closed once, resolved once
    assert calls == [1, 1]


def test_retries_are_bounded_and_the_failure_reported(pg_url, tmp_path):
    """A unit that keeps failing with 40001 is tried 1 + 2 times, then reported failed with the reason;
    the worker goes on (and stops: nothing else is due), the turn stays 'closed' for the next run."""
    [name] = populate(pg_url, games=1, humans=1, seed=62, prefix="bound")
    calls = []

    def resolver(session, game):
        calls.append(1)
        session.execute(text(RAISE_40001))

    worker, lines = _worker(pg_url, tmp_path, resolver, retries=2)
    stats = worker.run()
    assert len(calls) == 3
    [unit] = stats.units
    assert unit.state is None and unit.retries == 2
    assert "provoked by the test" in unit.error
    assert f"{name}: serialization failure, retry 2 of 2" in lines
    assert any(line.startswith(f"{name}: FAILED: ") for line in lines)
    assert "1 stopped short or failed" in stats.summary()
    turn, history, events = _history(pg_url, name)
    assert (turn, history, events) == (1, ["open", "closed"], 0)
    # the next run, with the trouble gone, carries the turn on from 'closed'
    worker, _ = _worker(pg_url, tmp_path, default_resolver)
    assert [u.state for u in worker.run().units] == ["archived"]
    assert _history(pg_url, name)[:2] == (2, ["open", "closed", "resolved", "reported", "sent", "archived"])


def test_a_real_deadlock_with_another_connection_is_retried(pg_url, tmp_path):
    """Worker: holds the game's row (resolving), then wants a player's row.  Other connection: holds that
    player's row, then wants the game's row.  The server finds the deadlock when the worker starts to
    wait, aborts the worker's transaction with SQLSTATE 40P01, the other side goes through, and the
    worker's retry resolves the turn — once."""
    [name] = populate(pg_url, games=1, humans=1, seed=63, prefix="dead")
    with session_scope(pg_url) as s:
        game_id = s.scalar(select(Game.id).where(Game.name == name))
        player_id = s.scalar(select(Player.id).where(Player.game_id == game_id).order_by(Player.number).limit(1))
    worker_has_game, other_has_player = threading.Event(), threading.Event()
    other: dict = {}
    failures: list[BaseException] = []

    def other_side() -> None:
        engine = create_engine(normalize_url(pg_url), isolation_level="READ COMMITTED")
        try:
            with engine.connect() as c:
                c.execute(text(f"SET lock_timeout = '{BOUND}s'"))
                c.execute(text(f"SET statement_timeout = '{BOUND}s'"))
                c.execute(text("SET deadlock_timeout = '600s'"))  # the worker's check (1 s) comes first
                other["pid"] = c.execute(text("SELECT pg_backend_pid()")).scalar()
                assert worker_has_game.wait(BOUND), "the worker never locked the game"
                c.execute(text("UPDATE players SET name = name WHERE id = :p"), {"p": player_id})
                other_has_player.set()
                c.execute(text("SELECT id FROM games WHERE id = :g FOR UPDATE"), {"g": game_id})  # waits
                other["got_game"] = True
                c.rollback()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failures.append(exc)
            other_has_player.set()
        finally:
            engine.dispose()

    calls = []

    def resolver(session, game):
        calls.append(game.turn)
        if len(calls) == 1:
            worker_has_game.set()
            assert other_has_player.wait(BOUND) and not failures, failures
            me = session.execute(text("SELECT pg_backend_pid()")).scalar()
            deadline = time.monotonic() + BOUND
            # wait until the other connection waits for this one (pg_blocking_pids), so this one waits last
            while me not in (session.execute(text("SELECT pg_blocking_pids(:p)"), {"p": other["pid"]}).scalar()
                             or []):
                assert time.monotonic() < deadline, "the other connection never waited for the game's row"
            session.execute(text("UPDATE players SET name = name WHERE id = :p"), {"p": player_id})  # deadlock
            raise AssertionError("the deadlock was not detected")
        return default_resolver(session, game)

    thread = threading.Thread(target=other_side, daemon=True)
    thread.start()
    worker, lines = _worker(pg_url, tmp_path, resolver)
    try:
        stats = worker.run()
    finally:
        thread.join(BOUND)
    assert not thread.is_alive() and not failures, failures
    assert other.get("got_game") is True  # the other side went through once the worker's transaction was gone
    assert [(u.state, u.retries, u.error) for u in stats.units] == [("archived", 1, "")], lines
    assert f"{name}: deadlock, retry 1 of 5" in lines
    assert calls == [1, 1]
    turn, history, events = _history(pg_url, name)
    assert turn == 2 and events > 0
    assert history == ["open", "closed", "resolved", "reported", "sent", "archived"]


def test_run_retrying_lets_other_errors_through_at_once():
    """Only 40001 and 40P01 are retried: any other database error is raised on the first try."""
    from sqlalchemy.exc import OperationalError

    class Orig(Exception):
        def __init__(self, code):
            self.sqlstate = code

    tries = []

    def work(code):
        tries.append(code)
        raise OperationalError("stmt", {}, Orig(code))

    with pytest.raises(DBAPIError) as caught:
        run_retrying(lambda: work("57014"), retries=3, wait=lambda _s: None)
    assert sqlstate(caught.value) == "57014" and tries == ["57014"]
    tries.clear()
    waits = []
    with pytest.raises(DBAPIError):
        run_retrying(lambda: work("40P01"), retries=3, wait=waits.append)
    assert tries == ["40P01"] * 4 and len(waits) == 3 and all(0 < w <= 2.0 for w in waits)

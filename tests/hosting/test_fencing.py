"""Fencing of claims (pbm/locks.py): a process whose claim the server dropped (its connection ended,
as when the host's link is cut and the server's keepalives give up on it) commits nothing more under
that claim, although its pool reconnects and the rest of its work would otherwise go on.  The cut
itself, across network namespaces, is tests/hosting/test_multihost.py; here the server ends the
claim's session directly (``pg_terminate_backend``), which is what it does to a dead client."""

from __future__ import annotations

import pytest
from sqlalchemy import event, select, text
from sqlalchemy.orm import Session

from pbm import locks
from pbm.db import session_scope
from pbm.locks import ClaimLost, Locked, check_claims, held_claims, process_lock
from pbm.models import CycleLock
from tests.conftest import _pg_database


@pytest.fixture
def pg_url(pg_template):
    yield from _pg_database(pg_template)


def _end_claims(url: str) -> int:
    """End every other session of this database holding an advisory lock (the server side of a cut), waiting
    until each has ended (pg_terminate_backend with a timeout)."""
    from pbm.db import get_engine

    with get_engine(url).connect() as c:  # not a Session: the fence is about sessions' commits
        c = c.execution_options(isolation_level="AUTOCOMMIT")
        return len(c.execute(text(
            "SELECT pg_terminate_backend(l.pid, 10000) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
            "WHERE l.locktype = 'advisory' AND d.datname = current_database() AND l.pid <> pg_backend_pid()"
        )).all())


def _note(url: str, name: str) -> None:
    with session_scope(url) as s:
        s.add(CycleLock(name=name, holder="x" * 32, host="h", pid=1))


def test_a_commit_under_a_live_claim_goes_through(pg_url):
    with process_lock(pg_url, "cycle", shared=True), process_lock(pg_url, "game:1"):
        assert held_claims() == ["cycle", "game:1"]
        _note(pg_url, "note-1")
    assert held_claims() == []
    with session_scope(pg_url) as s:
        assert s.get(CycleLock, "note-1") is not None


def test_a_commit_after_the_claim_was_dropped_is_refused_and_rolled_back(pg_url):
    with process_lock(pg_url, "cycle", shared=True):
        with process_lock(pg_url, "game:7", what="worker on game g"):
            assert _end_claims(pg_url) == 2  # both claims' sessions ended by the server
            with pytest.raises(ClaimLost, match=r"the claim 'game:7' was lost"):  # the innermost is named
                _note(pg_url, "stale")  # the pool reconnects for the step: without the fence this commits
            with pytest.raises(ClaimLost):
                _note(pg_url, "stale-2")  # and stays refused while the block runs
        # leaving the blocks does not fail on the dead connections (the server dropped the locks already)
    with session_scope(pg_url) as s:
        assert s.scalars(select(CycleLock.name).where(CycleLock.name.like("stale%"))).all() == []
    _note(pg_url, "after")  # outside the lost claims, commits go on
    with process_lock(pg_url, "game:7"):  # and the claim can be taken again
        _note(pg_url, "again")


def test_claim_lost_is_a_locked_so_a_worker_skips_the_game_and_tries_it_next_pass(pg_url):
    assert issubclass(ClaimLost, Locked)


def test_a_transaction_under_a_lost_claim_stops_at_its_first_statement(pg_url, monkeypatch):
    """Before a step's work outside the database (rendering, mailing) that follows its first read; this
    early check is skipped for a second after the claims were last found held (the commit's never is)."""
    monkeypatch.setattr(locks, "BEGIN_CHECK_EVERY", 0.0)
    with process_lock(pg_url, "game:10"):
        _end_claims(pg_url)
        with pytest.raises(ClaimLost), session_scope(pg_url) as s:
            s.execute(text("SELECT 1"))
            raise AssertionError("not reached: the read itself is refused")


def test_the_early_check_is_skipped_for_a_second_after_a_check_but_the_commit_is_fenced(pg_url):
    with process_lock(pg_url, "game:11"):  # taking it committed its note: the claims were just checked
        _end_claims(pg_url)
        with pytest.raises(ClaimLost), session_scope(pg_url) as s:
            s.execute(text("SELECT 1"))  # not checked at its start: found held a moment ago
            s.add(CycleLock(name="stale", holder="x" * 32, host="h", pid=1))


def test_a_step_may_check_before_slow_work(pg_url):
    with process_lock(pg_url, "game:9"):
        with session_scope(pg_url) as s:
            check_claims(s)  # held: nothing said
        _end_claims(pg_url)
        with pytest.raises(ClaimLost), session_scope(pg_url) as s:
            check_claims(s)


def test_without_the_fence_the_stale_commit_goes_through(pg_url):
    """The hazard the fence closes (so the test above fails without it)."""
    event.remove(Session, "before_commit", locks._fence)
    event.remove(Session, "after_begin", locks._fence_begin)
    try:
        with process_lock(pg_url, "game:8"):
            _end_claims(pg_url)
            _note(pg_url, "stale")
    finally:
        event.listen(Session, "before_commit", locks._fence)
        event.listen(Session, "after_begin", locks._fence_begin)
    with session_scope(pg_url) as s:
        assert s.get(CycleLock, "stale") is not None


def test_sqlite_claims_need_no_fence(sqlite_url):
    with process_lock(sqlite_url, "game:1"):
        assert held_claims() == []
        _note(sqlite_url, "lite")

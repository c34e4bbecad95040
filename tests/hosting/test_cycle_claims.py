"""`pbm cycle` shares the work on PostgreSQL (issue 14): two cycles and a worker at once, each game
claimed by one of them (``game:<id>``), every due game done exactly once.  The overlap is arranged,
not hoped for: cycle A holds the first game (paused after closing it) until cycle B has met A's claim
and left the game to it.  SQLite keeps one process at a time."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlalchemy import func, select

from pbm.db import session_scope
from pbm.pipeline.worker import Worker, worker_options
from pbm.turnsheet.seed import populate
from pbm.locks import Locked, process_lock
from pbm.models import Event, Game, OrderSet, OutboxMessage, TurnState
from pbm.pipeline.cycle import CycleOptions, run_cycle
from tests.conftest import _pg_database

BOUND = 120  # seconds: the most any wait may take


@pytest.fixture
def pg_url(pg_template):
    yield from _pg_database(pg_template)


def _opts(tmp_path, maildir, lines: list[str]) -> CycleOptions:
    return CycleOptions(reports=tmp_path / "reports", archive=tmp_path / "archive", maildir=maildir,
                        log=lines.append)


def test_two_cycles_and_a_worker_share_the_games_each_done_once(pg_url, tmp_path):
    maildir = tmp_path / "maildir"
    names = populate(pg_url, games=6, humans=1, maildir=maildir, seed=700, prefix="share")
    first = names[0]
    a_holds, b_left_it = threading.Event(), threading.Event()
    lines_a: list[str] = []
    lines_b: list[str] = []
    opts_a, opts_b = _opts(tmp_path, maildir, lines_a), _opts(tmp_path, maildir, lines_b)

    def pause_a(game, state, _turn):
        if game == first and state == "closed":
            a_holds.set()
            assert b_left_it.wait(BOUND), "cycle B never met A's claim"

    def log_b(line: str) -> None:
        lines_b.append(line)
        if line == f"{first}: claimed by another pbm process: left to it":
            b_left_it.set()

    opts_a.after_step = pause_a
    opts_b.log = log_b
    outcomes: dict[str, dict] = {}
    errors: list[BaseException] = []

    def cycle(key: str, opts: CycleOptions) -> None:
        try:
            outcomes[key] = run_cycle(pg_url, opts)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            a_holds.set()

    ta = threading.Thread(target=cycle, args=("a", opts_a), daemon=True)
    ta.start()
    assert a_holds.wait(BOUND) and not errors, errors
    tb = threading.Thread(target=cycle, args=("b", opts_b), daemon=True)
    tb.start()
    worker_lines: list[str] = []
    wopts = worker_options(reports=tmp_path / "reports", archive=tmp_path / "archive", maildir=maildir,
                           config=None, once=True, poll=0.2, log=worker_lines.append)
    stats = Worker(pg_url, wopts).run()  # the main thread (signal handlers): a worker alongside
    ta.join(BOUND)
    tb.join(BOUND)
    assert not ta.is_alive() and not tb.is_alive() and not errors, errors
    assert first in opts_b.claimed_elsewhere and outcomes["b"][first] is None
    assert outcomes["a"][first] == "archived"
    done = Counter()
    for lines in (lines_a, lines_b):
        done.update(line.split(":")[0] for line in lines if " turn 1 archived in " in line)
    done.update(u.game for u in stats.units if u.state == "archived")
    assert sorted(done) == sorted(names) and set(done.values()) == {1}, done
    with session_scope(pg_url) as s:
        for game in s.scalars(select(Game)):
            row = s.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == 1))
            assert game.turn == 2 and [h["state"] for h in row.history] == [
                "open", "closed", "resolved", "reported", "sent", "archived"], game.name
            seqs = list(s.scalars(select(Event.seq).where(Event.game_id == game.id, Event.turn == 1)))
            assert seqs and len(seqs) == len(set(seqs))
            sheets = list(s.scalars(select(OrderSet.status).where(OrderSet.game_id == game.id, OrderSet.turn == 1,
                                                                  OrderSet.source == "email")))
            assert sheets == ["accepted"], (game.name, sheets)
            assert s.scalar(select(func.count()).select_from(OutboxMessage)
                            .where(OutboxMessage.key.like(f"report:{game.name}:1:%"))) == 1


def test_run_turn_still_excludes_cycles_on_postgresql(pg_url, tmp_path):
    """`run-turn` / `rerun-turn` hold the cycle lock alone: a cycle (shared) is refused meanwhile."""
    populate(pg_url, games=1, humans=1, seed=710, prefix="excl")
    with process_lock(pg_url, "cycle", what="pbm run-turn"):
        with pytest.raises(Locked, match="another pbm cycle, run-turn or rerun-turn is running"):
            run_cycle(pg_url, _opts(tmp_path, None, []))


def test_sqlite_cycle_stays_one_process(sqlite_url, tmp_path):
    """On SQLite the cycle holds the lock alone: a second cycle (or a worker) is refused."""
    populate(sqlite_url, games=1, humans=1, seed=720, prefix="lite")
    with process_lock(sqlite_url, "cycle", what="pbm worker"):
        with pytest.raises(Locked):
            run_cycle(sqlite_url, _opts(tmp_path, None, []))
    outcome = run_cycle(sqlite_url, _opts(tmp_path, None, []))
    assert outcome == {"lite-0000": "archived"}

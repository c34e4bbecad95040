"""Many games, many workers (issue 14): on PostgreSQL, 4 `pbm worker --once` processes over 16 due games
(40 with ``PBM_SLOW=1``) finish every game's turn exactly once — turn states, events, accepted sheets, outbox — also when one
worker is killed (SIGKILL) in the middle of a game: its claim dies with its connection and another
worker carries the game on from where it stood."""

from __future__ import annotations

import mailbox
import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbm.db import session_scope
from pbm.turnsheet.seed import populate
from pbm.models import Event, Game, OrderSet, OutboxMessage, TurnState
from tests.conftest import ROOT, _pg_database

GAMES = 40 if os.environ.get("PBM_SLOW") == "1" else 16  # 16: four a worker, so all four take part

RUNNER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from pbm.pipeline.worker import Worker, worker_options
    url, out, maildir, kill_after = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    opts = worker_options(reports=out / "reports", archive=out / "archive", maildir=maildir, config=None,
                          once=True, poll=0.2, log=lambda line: print(line, flush=True))
    resolved = []
    def after(game, state, turn):
        if state == "resolved":
            resolved.append(game)
            if kill_after and len(resolved) >= kill_after:
                print(f"KILLED after resolving {game}", flush=True)
                os.kill(os.getpid(), signal.SIGKILL)
    opts.cycle.after_step = after
    stats = Worker(url, opts).run()
    print("SUMMARY", stats.summary(), flush=True)
""")


@pytest.fixture
def pg_url(pg_template):
    yield from _pg_database(pg_template)


def test_four_workers_many_games_each_exactly_once_with_one_killed(pg_url, tmp_path):
    maildir = tmp_path / "maildir"
    names = populate(pg_url, games=GAMES, humans=1, maildir=maildir, seed=500)
    assert len(names) == GAMES and len(mailbox.Maildir(str(maildir))) == GAMES
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, str(runner), pg_url, str(tmp_path / "out"), str(maildir),
                               "2" if i == 0 else "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=env) for i in range(4)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert procs[0].returncode == -signal.SIGKILL, outs[0]
    assert "KILLED after resolving" in outs[0]
    killed_game = outs[0].split("KILLED after resolving ", 1)[1].split()[0]
    for p, out in zip(procs[1:], outs[1:]):
        assert p.returncode == 0, out
    handled = Counter()
    for out in outs:
        for line in out.splitlines():
            game, _, rest = line.partition(": ")
            if rest.startswith("archived in"):
                handled[game] += 1
    # every game archived by exactly one worker; the killed worker's game by one of the others
    assert sorted(handled) == sorted(names) and set(handled.values()) == {1}
    assert any(f"{killed_game}: archived" in out for out in outs[1:])
    with session_scope(pg_url) as s:
        for game in s.scalars(select(Game).order_by(Game.id)):
            assert game.turn == 2, game.name
            states = list(s.scalars(select(TurnState).where(TurnState.game_id == game.id).order_by(TurnState.turn)))
            assert [(t.turn, t.state) for t in states] == [(1, "archived"), (2, "open")], game.name
            moves = [h["state"] for h in states[0].history]
            assert moves == ["open", "closed", "resolved", "reported", "sent", "archived"], (game.name, moves)
            seqs = list(s.scalars(select(Event.seq).where(Event.game_id == game.id, Event.turn == 1)))
            assert seqs and len(seqs) == len(set(seqs)), game.name  # resolved once: no event twice
            sheets = list(s.scalars(select(OrderSet.status).where(OrderSet.game_id == game.id, OrderSet.turn == 1,
                                                            OrderSet.source == "email")))
            assert sheets == ["accepted"], (game.name, sheets)  # the mailed sheet, read once, on time
            reports = s.scalar(select(func.count()).select_from(OutboxMessage)
                               .where(OutboxMessage.key.like(f"report:{game.name}:1:%")))
            assert reports == 1, game.name
    assert len(list((tmp_path / "out" / "archive").glob("*/turn-1"))) == GAMES


SIGTERM_RUNNER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from pbm.pipeline.worker import Worker, worker_options
    url, out = sys.argv[1], Path(sys.argv[2])
    opts = worker_options(reports=out / "reports", archive=out / "archive", maildir=None, config=None,
                          once=False, poll=0.5, log=lambda line: print(line, flush=True))
    def after(game, state, turn):
        if state == "closed":
            os.kill(os.getpid(), signal.SIGTERM)  # as systemd stopping the service mid-game
    opts.cycle.after_step = after
    stats = Worker(url, opts).run()
    print("SUMMARY", stats.summary(), flush=True)
""")


def test_sigterm_finishes_the_current_game_then_stops(pg_url, tmp_path):
    names = populate(pg_url, games=3, humans=1, seed=900, prefix="term")
    runner = tmp_path / "runner.py"
    runner.write_text(SIGTERM_RUNNER)
    out = subprocess.run([sys.executable, str(runner), pg_url, str(tmp_path / "out")], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "stopping after the current game (SIGTERM)" in out.stdout
    assert "SUMMARY 1 game turn(s) done, 0 stopped short or failed" in out.stdout
    with session_scope(pg_url) as s:
        states = {g.name: [t.state for t in s.scalars(select(TurnState).where(TurnState.game_id == g.id)
                                                      .order_by(TurnState.turn))]
                  for g in s.scalars(select(Game))}
    assert sorted(states.values()) == [[], [], ["archived", "open"]], states  # one game whole, two untouched
    assert sorted(names) == sorted(states)


def test_sqlite_worker_once_does_every_due_game(sqlite_url, tmp_path, monkeypatch):
    from tests.conftest import Cli

    monkeypatch.chdir(tmp_path)
    populate(sqlite_url, games=2, humans=1, maildir=tmp_path / "maildir", seed=950, prefix="lite")
    out = Cli(sqlite_url)("worker", "--once", "--maildir", str(tmp_path / "maildir")).stdout
    assert "mail: 2 accepted" in out
    assert "lite-0000: archived in" in out and "lite-0001: archived in" in out
    assert "2 game turn(s) done, 0 stopped short or failed" in out
    assert "mail handled: 2 accepted; report mails: 2 queued, 0 sent; time: games " in out  # no SMTP: queued
    again = Cli(sqlite_url)("worker", "--once").stdout  # nothing is due any more: nothing done twice
    assert "0 game turn(s) done" in again


def test_statement_timeout_bounds_every_statement(pg_url, monkeypatch):
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    from pbm.db import get_engine
    from pbm.retry import sqlstate

    monkeypatch.setenv("PBM_STATEMENT_TIMEOUT", "0.2")
    engine = get_engine(pg_url + "?application_name=timeout-test")
    with pytest.raises(OperationalError) as caught:
        with engine.connect() as c:
            c.execute(text("SELECT pg_sleep(2)"))
    assert sqlstate(caught.value) == "57014"  # query_canceled
    engine.dispose()



def test_sqlite_cycle_summary_counts_games_and_mails(sqlite_url, tmp_path, monkeypatch):
    from tests.conftest import Cli

    monkeypatch.chdir(tmp_path)
    populate(sqlite_url, games=2, humans=1, maildir=tmp_path / "maildir", seed=960, prefix="sum")
    out = Cli(sqlite_url)("cycle", "--maildir", str(tmp_path / "maildir")).stdout
    assert "Cycle finished: 2 game(s) advanced, 0 not due; report mails: 2 queued, 0 sent." in out
    again = Cli(sqlite_url)("cycle").stdout
    assert "Cycle finished: 0 game(s) advanced, 2 not due; report mails: 0 queued, 0 sent." in again

"""Issue 34, item 7: a command commits before it prints.  A reader that went away (``pbm … | head -1``, a
closed pipe) or a full disk under stdout (``> /dev/full``) loses the output, never the work: what the command
did is stored, and the lost output is one line on stderr with a non-zero exit code, never a traceback.

Each case runs the real ``pbm`` entry point (``python -m pbm``) in a subprocess with stdout a pipe whose
reader has gone, or /dev/full, on SQLite and PostgreSQL, then reads the database.  A second test runs the
same commands in-process with every ``typer.echo`` failing: the commit is made before the first print, even
without the entry point's guard."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from sqlalchemy import func, select

from pbm.auth import check_secret
from pbm.db import session_scope
from pbm.models import Action18, Game, OutboxMessage, Player

from .conftest import ROOT

STDOUTS = ["closed-pipe", "dev-full"]


def run_pbm(url: str, *args, stdout: str, cwd: Path) -> subprocess.CompletedProcess:
    """``pbm --db URL ARGS`` as a user runs it, with stdout a pipe nobody reads any more or /dev/full."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "pbm", "--db", url, *map(str, args)]
    if stdout == "closed-pipe":
        read, write = os.pipe()
        os.close(read)  # `| head -1` after head has gone
        try:
            return subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env, timeout=300)
        finally:
            os.close(write)
    with open("/dev/full", "w") as full:
        return subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env, timeout=300)


def assert_output_lost(done: subprocess.CompletedProcess) -> None:
    """Exit code non-zero, exactly one line on stderr saying the output was lost, no traceback."""
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "output" in lines[0] and "stored" in lines[0], lines[0]


def _csv(tmp_path: Path) -> Path:
    p = tmp_path / "players.csv"
    p.write_text("name,email\nAnn,ann@example.org\nBob,bob@example.org\nIke,ike@example.org\n", encoding="utf-8")
    return p


@pytest.fixture
def game18(cli, tmp_path):
    out = cli("new-game", "18GA", "--players", _csv(tmp_path), "--name", "g", "--no-welcome").stdout
    return dict(re.findall(r"#(\d) \w+ <[^>]+>: (\S+)", out))


def _actions(url: str) -> list[tuple[int, int | None]]:
    with session_scope(url) as s:
        return [(a.seq, a.player_number) for a in s.scalars(select(Action18).order_by(Action18.seq))]


@pytest.mark.parametrize("stdout", STDOUTS)
def test_18xx_move_is_stored_when_its_output_is_lost(cli, game18, tmp_path, stdout):
    done = run_pbm(cli.url, "18xx", "move", "g", "--player", "1", "pass", stdout=stdout, cwd=tmp_path)
    assert_output_lost(done)
    assert _actions(cli.url) == [(1, 1)]
    with session_scope(cli.url) as s:  # the players were told, too (queued in the same transaction)
        assert s.scalar(select(func.count()).select_from(OutboxMessage)) > 0


@pytest.mark.parametrize("stdout", STDOUTS)
def test_18xx_undo_is_stored_when_its_output_is_lost(cli, game18, tmp_path, stdout):
    cli("18xx", "move", "g", "--player", "1", "pass", "--no-mail")
    done = run_pbm(cli.url, "18xx", "undo", "g", stdout=stdout, cwd=tmp_path)
    assert_output_lost(done)
    assert _actions(cli.url) == []


@pytest.mark.parametrize("stdout", STDOUTS)
def test_18xx_seat_handover_is_stored_when_its_output_is_lost(cli, game18, tmp_path, stdout):
    done = run_pbm(cli.url, "18xx", "seat", "g", "--player", "2", "--email", "new@example.org", "--name", "Neu",
                   stdout=stdout, cwd=tmp_path)
    assert_output_lost(done)
    with session_scope(cli.url) as s:
        seat = s.scalar(select(Player).where(Player.number == 2))
        assert seat.email == "new@example.org"
        assert not check_secret(game18["2"], seat.secret_hash)  # the old secret no longer works
        # the new one was mailed to the new address (the printed copy is lost)
        assert s.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.kind == "secret")) == 1


@pytest.mark.parametrize("stdout", STDOUTS)
def test_18xx_import_is_stored_when_its_output_is_lost(cli, tmp_path, stdout):
    from pbm.e18xx.fixtures import load_fixture

    data, where = load_fixture("18GA/18GA_game_end_bank.json")
    if data is None:
        pytest.skip(where)
    data = {**data, "actions": data["actions"][:40], "status": "active"}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    done = run_pbm(cli.url, "18xx", "import", path, "--name", "imp", stdout=stdout, cwd=tmp_path)
    assert_output_lost(done)
    with session_scope(cli.url) as s:
        assert s.scalar(select(Game.name)) == "imp"
        assert s.scalar(select(func.count()).select_from(Action18)) >= 40


def test_rerun_turn_queues_the_corrections_when_its_output_is_lost(cli, players_csv, tmp_path):
    cli("new-game", "continental-rails", "--players", players_csv, "--name", "rr", "--no-welcome")
    cli("run-turn", "rr")
    done = run_pbm(cli.url, "rerun-turn", "rr", "1", "--reports", tmp_path / "reports", stdout="dev-full",
                   cwd=tmp_path)
    assert_output_lost(done)
    with session_scope(cli.url) as s:
        keys = list(s.scalars(select(OutboxMessage.key).where(OutboxMessage.key.startswith("correction:rr:1:"))))
    assert len(keys) == 3


def test_a_command_that_succeeds_says_nothing_on_stderr(cli, game18, tmp_path):
    """The guard changes nothing when stdout works."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pbm", "--db", cli.url, "18xx", "log", "g"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")


# In-process: every print fails (as a closed pipe makes it), with no entry-point guard in between.  The
# command's work must already be committed when the first print is tried.

def _failing_echo(*_args, **_kwargs):
    raise OSError(28, "No space left on device")  # (click turns EPIPE itself into exit 1)


@pytest.mark.parametrize("command", ["move", "undo", "seat"])
def test_the_commit_comes_before_the_first_print(cli, game18, monkeypatch, command):
    if command == "undo":
        cli("18xx", "move", "g", "--player", "1", "pass", "--no-mail")
    args = {"move": ("18xx", "move", "g", "--player", "1", "pass"),
            "undo": ("18xx", "undo", "g"),
            "seat": ("18xx", "seat", "g", "--player", "2", "--email", "new@example.org")}[command]
    monkeypatch.setattr(typer, "echo", _failing_echo)
    result = cli(*args, expect=None)
    assert isinstance(result.exception, OSError)  # the print failed ...
    monkeypatch.undo()
    with session_scope(cli.url) as s:  # ... after the work was stored
        if command == "move":
            assert _actions(cli.url) == [(1, 1)]
        elif command == "undo":
            assert _actions(cli.url) == []
        else:
            seat = s.scalar(select(Player).where(Player.number == 2))
            assert seat.email == "new@example.org" and not check_secret(game18["2"], seat.secret_hash)


def test_rerun_turn_queues_the_corrections_before_the_first_print(cli, players_csv, tmp_path, monkeypatch):
    cli("new-game", "continental-rails", "--players", players_csv, "--name", "rr", "--no-welcome")
    cli("run-turn", "rr")
    monkeypatch.setattr(typer, "echo", _failing_echo)
    result = cli("rerun-turn", "rr", "1", "--reports", tmp_path / "reports", expect=None)
    assert isinstance(result.exception, OSError)
    monkeypatch.undo()
    with session_scope(cli.url) as s:
        keys = list(s.scalars(select(OutboxMessage.key).where(OutboxMessage.key.startswith("correction:rr:1:"))))
    assert len(keys) == 3

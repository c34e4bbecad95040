"""Times in the database are UTC (deadlines: `pbm deadline` reads UTC unless a zone is given; mail
arrival; the 18xx move clocks), so every "now" they are compared with must be UTC too, whatever the
moderator's machine's zone.  Until 2026-11-25 `pbm cycle`, `pbm worker` and `pbm demo` took the local
time: in Tokyo (UTC+9) a turn closed nine hours before its deadline, and the sheets of those hours,
accepted by the intake (which reads UTC), came too late for the turn; an 18xx move clock ran out nine
hours early.  Here the process's zone is set to UTC+9 (POSIX TZ, no zone database needed)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, TurnState
from pbm.turnsheet.seed import populate
from tests.conftest import Cli


def _utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@pytest.fixture
def tokyo(monkeypatch):
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    assert datetime.now() - _utcnow() > timedelta(hours=8)  # the zone took
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("command", [("cycle",), ("worker", "--once")])
def test_a_turn_is_not_closed_before_its_deadline_in_a_zone_ahead_of_utc(sqlite_url, tmp_path, monkeypatch, tokyo,
                                                                         command):
    monkeypatch.chdir(tmp_path)
    [name] = populate(sqlite_url, games=1, humans=1, seed=77, prefix="tz", deadline=_utcnow() + timedelta(hours=2))
    out = Cli(sqlite_url)(*command).stdout
    assert f"{name}: archived" not in out and f"{name}: closed" not in out, out
    with session_scope(sqlite_url) as s:
        game = s.scalar(select(Game).where(Game.name == name))
        assert game.turn == 1
        assert [t.state for t in s.scalars(select(TurnState).where(TurnState.game_id == game.id))] in ([], ["open"])
    # two hours later (UTC) it is due, and the cycle runs it
    from pbm.mail.policy import set_deadline

    with session_scope(sqlite_url) as s:
        set_deadline(s, s.scalar(select(Game).where(Game.name == name)), _utcnow() - timedelta(minutes=1))
    out = Cli(sqlite_url)(*command).stdout
    assert f"{name}: archived" in out or "1 game(s) advanced" in out, out


def test_an_18xx_move_clock_runs_on_utc_in_a_zone_ahead_of_it(cli, tmp_path, tokyo):
    from tests.e18xx.test_pacing import _since, log
    from tests.e18xx.test_pbem_mail import PLAYERS

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    cli("new-game", "18GA", "--players", str(csv), "--seed", "11", "--name", "ga-1")
    cli("18xx", "pacing", "ga-1", "--clock", "8", "--on-timeout", "notify")
    cli("18xx", "status", "ga-1")  # starts the clock (UTC)
    assert abs(_since(cli) - _utcnow()) < timedelta(minutes=5)
    for command in (("cycle",), ("worker", "--once")):
        out = cli(*command).stdout
        assert "ga-1: time-out" not in out and "reminded" not in out, out  # 0 of 8 hours gone, not 9
    assert log(cli) == []

"""`pbm cycle`, `pbm send`, `pbm archive`, `pbm records`: the weekly cycle, crash-safe and idempotent."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbm.db import session_scope
from pbm.errors import PbmError
from pbm.models import CycleLock, Game, GameRecord, OutboxMessage, TurnState
from pbm.pipeline import cycle as cycle_mod
from pbm.bundle import MANIFEST, verify
from pbm.pipeline.cycle import CycleOptions, run_cycle
from tests.conftest import Cli
from tests.report.conftest import pdf_text
from tests.report.fake_engine import fake_run_turn
from tests.report.helpers import build_game

NOW = datetime(1999, 1, 1, 12, 0)


@pytest.fixture
def fresh(db_url, monkeypatch):
    """A game at turn 1 (nothing resolved), deadline in the past; the engine stubbed."""
    with session_scope(db_url) as s:
        game = build_game(s, turns=0)
        game.deadline = NOW - timedelta(hours=1)
    monkeypatch.setattr(cycle_mod, "default_resolver", fake_run_turn)
    return db_url


def _opts(tmp_path: Path, **kw) -> CycleOptions:
    return CycleOptions(reports=tmp_path / "reports", archive=tmp_path / "archive", now=NOW, log=lambda _: None,
                        **kw)


def _states(url: str) -> dict[int, str]:
    with session_scope(url) as s:
        return {r.turn: r.state for r in s.scalars(select(TurnState).order_by(TurnState.turn))}


def test_cycle_runs_a_due_game_through_every_state(fresh, tmp_path):
    cli = Cli(fresh)
    result = cli("cycle", "--clock", NOW.isoformat(), "--reports", str(tmp_path / "reports"),
                 "--archive", str(tmp_path / "archive"))
    assert "test-game: turn 1 resolved" in result.stdout
    assert "Cycle finished: 1 game(s) advanced" in result.stdout
    assert _states(fresh) == {1: "archived", 2: "open"}
    with session_scope(fresh) as s:
        row = s.scalar(select(TurnState).where(TurnState.turn == 1))
        assert [h["state"] for h in row.history] == ["open", "closed", "resolved", "reported", "sent", "archived"]
        nxt = s.scalar(select(TurnState).where(TurnState.turn == 2))
        assert nxt.deadline == NOW - timedelta(hours=1) + timedelta(days=7)
        assert s.scalar(select(func.count()).select_from(OutboxMessage)) == 3
    report = tmp_path / "reports" / "test-game" / "turn-1" / "player-1.pdf"
    assert "Turn 1 resolved by the test engine." in pdf_text(report)
    bundle = tmp_path / "archive" / "test-game" / "turn-1"
    assert verify(bundle) == []
    names = (bundle / MANIFEST).read_text().split()
    assert "reports/player-1.pdf" in names and "state.json" in names and "orders.json" in names
    # Not due again until next week: a second run does nothing.
    result = cli("cycle", "--clock", NOW.isoformat(), "--reports", str(tmp_path / "reports"),
                 "--archive", str(tmp_path / "archive"))
    assert "test-game: not due" in result.stdout
    assert _states(fresh) == {1: "archived", 2: "open"}


def test_game_before_its_deadline_is_left_alone_unless_now(fresh, tmp_path):
    with session_scope(fresh) as s:
        s.scalar(select(Game)).deadline = NOW + timedelta(days=2)
    assert run_cycle(fresh, _opts(tmp_path)) == {"test-game": None}
    assert _states(fresh) == {1: "open"}
    assert run_cycle(fresh, _opts(tmp_path, force=True, max_turns=2)) == {"test-game": "archived"}
    assert _states(fresh) == {1: "archived", 2: "archived", 3: "open"}


@pytest.mark.parametrize("crash_at", ["closed", "resolved", "reported", "sent", "archived"])
def test_crash_after_any_step_then_rerun_finishes_exactly_once(fresh, tmp_path, crash_at):
    class Crash(Exception):
        pass

    def boom(game, state, turn):
        if state == crash_at:
            raise Crash(state)

    with pytest.raises(Crash):
        run_cycle(fresh, _opts(tmp_path, after_step=boom))
    assert _states(fresh)[1] == crash_at
    with session_scope(fresh) as s:  # the lock was released by the crashed run
        assert s.scalar(select(func.count()).select_from(CycleLock)) == 0
    first = {p.name: p.read_bytes() for p in (tmp_path / "reports" / "test-game" / "turn-1").glob("*.pdf")} \
        if (tmp_path / "reports" / "test-game" / "turn-1").exists() else {}
    # (after the last step there is nothing left to do: turn 2 is not due yet)
    expected = None if crash_at == "archived" else "archived"
    assert run_cycle(fresh, _opts(tmp_path)) == {"test-game": expected}
    assert _states(fresh) == {1: "archived", 2: "open"}
    with session_scope(fresh) as s:
        game = s.scalar(select(Game))
        assert game.turn == 2  # resolved once
        assert s.scalar(select(func.count()).select_from(OutboxMessage)) == 3  # one mail per human
    for name, content in first.items():  # re-rendering gives the same bytes
        assert (tmp_path / "reports" / "test-game" / "turn-1" / name).read_bytes() == content
    assert verify(tmp_path / "archive" / "test-game" / "turn-1") == []


def test_crash_inside_resolution_rolls_back(fresh, tmp_path):
    def broken(session, game):
        fake_run_turn(session, game)
        raise RuntimeError("engine fell over")

    with pytest.raises(RuntimeError):
        run_cycle(fresh, _opts(tmp_path, resolver=broken))
    assert _states(fresh) == {1: "closed"}
    with session_scope(fresh) as s:
        assert s.scalar(select(Game)).turn == 1
    assert run_cycle(fresh, _opts(tmp_path)) == {"test-game": "archived"}


def test_a_running_cycle_blocks_another(fresh, tmp_path):
    """The lock is held by a live process: another cycle, run-turn or --break-lock cannot pass it (item 6)."""
    import socket

    from pbm.locks import process_lock

    args = ["--reports", str(tmp_path / "r"), "--archive", str(tmp_path / "a")]
    with process_lock(fresh, "cycle"):  # a live holder (its own connection / open file)
        result = Cli(fresh)("cycle", "--now", *args, expect=2)
        assert "another pbm cycle, run-turn or rerun-turn is running" in result.stderr
        result = Cli(fresh)("cycle", "--now", "--break-lock", *args, expect=2)
        assert "pbm does not break it" in result.stderr
        assert "another pbm cycle" in Cli(fresh)("run-turn", expect=2).stderr
        assert "another pbm cycle" in Cli(fresh)("rerun-turn", "test-game", "1", expect=2).stderr
    assert _states(fresh) == {}
    # The note a dead holder left behind is only a note: the lock itself died with it.
    with session_scope(fresh) as s:
        s.add(CycleLock(name="cycle", holder="other", host=socket.gethostname()[:200], pid=2 ** 22 + 12345))
    assert run_cycle(fresh, _opts(tmp_path)) == {"test-game": "archived"}


def test_send_never_mails_twice(game_url, tmp_path):
    cli = Cli(game_url)
    out = str(tmp_path / "reports")
    result = cli("send", "--reports", out)
    assert "3 report mail(s) queued" in result.stdout
    result = cli("send", "--reports", out)
    assert "0 report mail(s) queued, 3 already queued before (not sent again)" in result.stdout
    with session_scope(game_url) as s:
        rows = list(s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))
        assert [r.key for r in rows] == [f"report:test-game:3:{n}" for n in (1, 2, 3)]
        assert rows[0].recipients == ["ada@example.org"]
        raw = rows[1].raw.decode("ascii", "replace")
        assert "\nSubject: [test-game] Turn 3 report for #2" in raw.replace("\r\n", "\n")
        assert "application/pdf" in raw


def test_archive_is_immutable_and_verifiable(game_url, tmp_path):
    cli = Cli(game_url)
    args = ["--reports", str(tmp_path / "reports"), "--archive", str(tmp_path / "archive")]
    cli("report", "--out", str(tmp_path / "reports"))
    result = cli("archive", *args)
    assert "(written)" in result.stdout and "Site:" in result.stdout
    assert "(unchanged)" in cli("archive", *args).stdout
    assert "1 bundle(s) of test-game intact" in cli("archive", "--verify", *args).stdout
    site = (tmp_path / "archive" / "test-game" / "site" / "index.html").read_text()
    assert "&lt;b&gt;Evil &amp; Co&lt;/b&gt;" in site and "<b>Evil" not in site  # autoescape
    turn_page = (tmp_path / "archive" / "test-game" / "site" / "turn-3.html").read_text()
    assert "&lt;font size=" in turn_page
    # accessible tables: each says what it holds, each header its column
    assert site.count("<table>\n<caption>") + site.count("<table><caption>") == site.count("<table>")
    assert "<th>" not in site and "<th>" not in turn_page and 'scope="col"' in site
    assert "SECRET-FOR-2" not in turn_page  # private news is not published
    state = tmp_path / "archive" / "test-game" / "turn-3" / "state.json"
    state.chmod(0o644)
    state.write_text("{}")
    result = cli("archive", "--verify", *args, expect=2)
    assert "state.json: changed since it was archived" in result.stdout
    result = cli("archive", *args, expect=2)
    assert "tampered" in result.stderr


def test_finished_game_record_tables_and_hall_of_records(game_url, tmp_path):
    cli = Cli(game_url)
    with session_scope(game_url) as s:
        game = s.scalar(select(Game))
        game.status = "finished"
        for p in game.players:
            p.vp_robber = 10 + p.number
            p.vp_baron = 500 if p.number == 1 else 40
    args = ["--reports", str(tmp_path / "reports"), "--archive", str(tmp_path / "archive")]
    result = cli("archive", *args)
    assert "New record: Robber Baron: 25 by Computer Tycoon 15 in test-game" in result.stdout
    assert "New record: Rail Baron: 500 by Countess of Rails (Ada Lovelace) in test-game" in result.stdout
    final = tmp_path / "archive" / "test-game" / "final"
    vp = (final / "tables" / "vp.csv").read_text().splitlines()
    assert vp[0] == "turn,player,robber_baron,rail_mogul,rail_builder,rail_magnate,rail_prodigal,rail_baron"
    assert len(vp) == 1 + 3 * 15
    prices = (final / "tables" / "prices.csv").read_text().splitlines()
    assert prices[0] == "turn,B&O,NYC,PRR" and prices[3].startswith("3,14.5,16.25,12.0")
    assert (final / "tables" / "net_worth.csv").read_text().startswith("turn,player_1,")
    assert (final / "site" / "index.html").exists() and verify(final) == []
    out = cli("records").stdout
    assert "Rail Baron" in out and "500" in out and "test-game" in out
    # A second game with an equal 500 replaces the Rail Baron record (§11.3); lower scores do not.
    with session_scope(game_url) as s:
        other = build_game(s, name="second", evil=False)
        other.status = "finished"
        for p in other.players:
            p.vp_robber = 3
            p.vp_baron = 500 if p.number == 3 else 0
    cli("archive", "second", *args)
    with session_scope(game_url) as s:
        records = {r.category: r for r in s.scalars(select(GameRecord))}
        assert records["rail_baron"].game_name == "second"
        assert records["robber_baron"].game_name == "test-game"


def test_cycle_refuses_an_unknown_game(fresh, tmp_path):
    with pytest.raises(PbmError, match=r"no game 'nope' to cycle \(games: test-game\)"):  # 18xx games cycle too
        run_cycle(fresh, _opts(tmp_path), ["nope"])


def test_undelivered_reports_keep_the_turn_retrying_and_the_exit_non_zero(fresh, tmp_path):
    """Issue 13, item 8: an SMTP outage leaves the turn 'reported', shown by status, exit 2; the next cycle sends."""
    from tests.mail.smtp import SmtpServer

    server = SmtpServer()  # its port is chosen; nothing listens there yet (the outage)
    config = tmp_path / "pbm.toml"
    config.write_text(server.config_toml())
    cli = Cli(fresh)
    args = ["cycle", "--clock", NOW.isoformat(), "--reports", str(tmp_path / "reports"),
            "--archive", str(tmp_path / "archive"), "--config", str(config)]
    result = cli(*args, expect=2)
    assert "report delivery(ies) not sent" in result.stdout and "did not finish" in result.stderr
    assert _states(fresh) == {1: "reported", 2: "open"}  # turn 2 opened with its deadline before the mails (issue 18)
    status = cli("status").stdout
    assert "DELIVERY FAILED" in status and "waiting for its reports to be delivered" in status
    with server:
        result = cli(*args)
        assert _states(fresh) == {1: "archived", 2: "open"}
        assert sorted(r for m in server.messages for r in m.rcpt_tos) == [
            "ada@example.org", "carl@example.org", "ike@example.org"]
        cli(*args)  # nothing more is due, nothing is sent again
        assert len(server.messages) == 3


def test_report_mail_states_the_next_turns_deadline_with_its_time_zone(fresh, tmp_path):
    """Issue 18, item 2: the weekly report mail (through a real SMTP server) gives the deadline of the turn
    now open (a week on), not the one that just passed, and says it is UTC."""
    import email
    import email.policy

    from tests.mail.smtp import SmtpServer

    with SmtpServer() as server:
        config = tmp_path / "pbm.toml"
        config.write_text(server.config_toml())
        Cli(fresh)("cycle", "--clock", NOW.isoformat(), "--reports", str(tmp_path / "reports"),
                   "--archive", str(tmp_path / "archive"), "--config", str(config))
        assert len(server.messages) == 3
        for m in server.messages:
            body = email.message_from_bytes(m.data, policy=email.policy.default).get_body(("plain",)).get_content()
            assert "by Friday 08 January 1999 11:00 UTC" in body, body
            assert "01 January 1999" not in body
    with session_scope(fresh) as s:
        assert s.scalar(select(Game)).deadline == datetime(1999, 1, 8, 11, 0)

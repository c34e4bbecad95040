"""Issue 34, items 1-4 and 8: one claim protocol for every intake path (`pbm ingest`, `pbm cycle`,
`pbm worker`; pbm/intake.py `take_mail`).

Each test is a reproduction from the issue, run as an operator would: real `pbm` processes on a real
PostgreSQL (and SQLite where the item applies), commands started together, crashes injected at a
commit point (PBM_FAULT_EXIT_AT_COMMIT) — never sleeps."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbm.db import session_scope
from pbm.e18xx.pbem.seed import mail_first_moves
from pbm.intake import lane, lane_claim
from pbm.models import Action18, Game, InboundMessage, OrderSet, Player
from pbm.turnsheet.seed import populate
from tests.conftest import ROOT, _pg_database


@pytest.fixture
def pg_url(pg_template):
    yield from _pg_database(pg_template)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")}
    return env | {"PYTHONPATH": str(ROOT)}


def _pbm(url: str, *args: str, cwd: Path, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pbm", "--db", url, *args], cwd=cwd, env=_env() | (env or {}),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _done(proc: subprocess.Popen) -> tuple[int, str]:
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out + err


def _statuses(url: str) -> Counter:
    with session_scope(url) as s:
        return Counter(dict(s.execute(select(InboundMessage.status, func.count())
                                      .group_by(InboundMessage.status)).all()))


def _actions(url: str, game: str) -> int:
    with session_scope(url) as s:
        gid = s.scalar(select(Game.id).where(Game.name == game))
        return s.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == gid))


def _drop(maildir: Path, raw: bytes, name: str) -> None:
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    (maildir / "tmp" / name).write_bytes(raw)
    os.rename(maildir / "tmp" / name, maildir / "new" / name)


def _stranger(body: str, sender: str = "stranger@elsewhere.example") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "games@example.org"
    msg["Subject"] = "hello"
    msg.set_content(body)
    return msg.as_bytes()


# -- item 1: lane and lock names ---------------------------------------------------------------------

def test_lane_lines_end_at_a_lone_cr_and_lock_names_are_bounded_and_hold_no_text():
    cr_only = (b"From: ann@example.org\rTo: games@example.org\rSubject: x\r\r"
               b"GAME: ga-7\rPLAYER: 1\rSECRET: hunter2-secret\rpass\r")
    assert lane(cr_only.replace(b"\r", b"\n")) == "game:ga-7"
    body = "GAME: ga-7\rPLAYER: 1\rSECRET: hunter2-secret\rpass\r"
    assert lane(_stranger(body)) == "game:ga-7"
    long_lane = lane(_stranger("GAME: " + "x" * 400))
    assert long_lane == "game:" + "x" * 120
    for name in (long_lane, "game:ga-7", "from:" + "y" * 300 + "@example.org", "misc"):
        claim = lane_claim(name)
        assert len(claim) <= 40 and claim.startswith("mail:")
        assert set(claim[5:]) <= set("0123456789abcdef")
    assert lane_claim("game:a") != lane_claim("game:b")


def test_item1_one_hostile_or_long_named_mail_does_not_stop_the_workers(pg_url, tmp_path):
    """A stranger's `GAME: xxxx…` (40 x), a game whose name is 38 characters, and a mail with CR-only
    line endings carrying a SECRET: `pbm worker --once` handles all of it, exits 0, and no secret
    reaches its output."""
    maildir = tmp_path / "md"
    long_name = "spring-league-2026-division-north"
    mailed = mail_first_moves(pg_url, title="18GA", games=1, moves=4, maildir=maildir, seed=7, prefix=long_name)
    game = f"{long_name}-0000"
    assert mailed == {game: 4} and len(game) == 38
    _drop(maildir, _stranger("GAME: " + "x" * 40 + "\n"), "0000-stranger")
    cr_only = (b"From: p1." + game.encode() + b"@example.org\rTo: games@example.org\rSubject: move\r"
               b"Message-ID: <cr-only@example.org>\r\rGAME: " + game.encode()
               + b"\rPLAYER: 1\rSECRET: hunter2-totally-secret\rpass\r")
    _drop(maildir, cr_only, "zzzz-cr-only")
    code, out = _done(_pbm(pg_url, "worker", "--once", "--maildir", str(maildir), "--reports",
                           str(tmp_path / "r"), "--archive", str(tmp_path / "a"), cwd=tmp_path))
    assert code == 0, out
    assert "Traceback" not in out and "hunter2" not in out, out
    statuses = _statuses(pg_url)
    assert statuses["stored"] == 0, (statuses, out)
    assert statuses["accepted"] == 4, (statuses, out)  # the long-named game's moves, in order
    assert _actions(pg_url, game) == 4
    # and a second pass has nothing left to trip on
    code, out = _done(_pbm(pg_url, "worker", "--once", "--maildir", str(maildir), "--reports",
                           str(tmp_path / "r"), "--archive", str(tmp_path / "a"), cwd=tmp_path))
    assert code == 0 and "Traceback" not in out, out


# -- item 2: every path takes the same claims ------------------------------------------------------

PAIRS = {
    "ingest+worker": (["ingest", "--maildir", "{md}"], ["worker", "--once", "--maildir", "{md}"]),
    "worker+worker": (["worker", "--once", "--maildir", "{md}"], ["worker", "--once", "--maildir", "{md}"]),
    "ingest+ingest": (["ingest", "--maildir", "{md}"], ["ingest", "--maildir", "{md}"]),
}


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_item2_two_intake_commands_at_once_handle_each_mail_once(pg_url, tmp_path, pair):
    """`pbm ingest` beside a worker (and the other pairs), started together on one PostgreSQL
    database: every 18xx move applied once and accepted, every Continental Rails sheet one order set."""
    maildir = tmp_path / "md"
    mailed = mail_first_moves(pg_url, title="18GA", games=2, moves=5, maildir=maildir, seed=11, prefix="pair")
    [cr] = populate(pg_url, games=1, humans=3, maildir=maildir, seed=12, prefix="crpair")
    procs = []
    for n, args in enumerate(PAIRS[pair]):
        args = [a.format(md=maildir) for a in args]
        if args[0] == "worker":
            args += ["--reports", str(tmp_path / f"r{n}"), "--archive", str(tmp_path / f"a{n}")]
        procs.append(_pbm(pg_url, *args, cwd=tmp_path))
    results = [_done(p) for p in procs]
    assert [code for code, _ in results] == [0, 0], results
    statuses = _statuses(pg_url)
    assert statuses == {"accepted": 10 + 3}, (statuses, results)
    for game, count in mailed.items():
        assert _actions(pg_url, game) == count
    with session_scope(pg_url) as s:
        gid = s.scalar(select(Game.id).where(Game.name == cr))
        per_player = Counter(s.scalars(select(OrderSet.player_id).join(Player, Player.id == OrderSet.player_id)
                                       .where(Player.game_id == gid, OrderSet.source == "email")))
    assert sorted(per_player.values()) == [1, 1, 1], per_player


# -- item 3: stored mail first, on every path ------------------------------------------------------

@pytest.mark.parametrize("command", ["cycle", "ingest"])
def test_item3_after_a_crash_stored_moves_are_handled_before_new_ones(db_url, tmp_path, command):
    """`pbm cycle --maildir md` (or `pbm ingest`) killed after its 5th commit with 6 move mails, then run
    again: all six moves are applied, in order, none refused."""
    maildir = tmp_path / "md"
    mailed = mail_first_moves(db_url, title="18GA", games=1, moves=6, maildir=maildir, seed=21, prefix="crash")
    args = [command, "--maildir", str(maildir)]
    if command == "cycle":
        args += ["--reports", str(tmp_path / "r"), "--archive", str(tmp_path / "a")]
    code, out = _done(_pbm(db_url, *args, cwd=tmp_path, env={"PBM_FAULT_EXIT_AT_COMMIT": "5"}))
    assert code == 97, out  # killed at its 5th commit
    code, out = _done(_pbm(db_url, *args, cwd=tmp_path))
    assert code == 0, out
    assert _statuses(db_url) == {"accepted": 6}, out
    assert _actions(db_url, "crash-0000") == mailed["crash-0000"] == 6


# -- item 8: an internal error holds the game's later moves -------------------------------------------

def test_item8_an_internal_error_holds_the_later_moves_until_retry(db_url, tmp_path):
    """Move #1 ends `error` (a fault outside the move: here the state PDFs cannot be rendered); move #2 is
    not refused "not your turn" but waits; `pbm ingest --retry` after the fault is mended applies both,
    in order."""
    maildir = tmp_path / "md"
    mail_first_moves(db_url, title="18GA", games=1, moves=2, maildir=maildir, seed=31, prefix="held")
    broken = tmp_path / "broken.py"
    broken.write_text("import pbm.e18xx.render.pdf as p\n"
                      "def boom(*a, **k):\n    raise OSError('font file missing: DejaVuSans.ttf')\n"
                      "p.render_pdf = boom\n")
    runner = tmp_path / "run_broken.py"
    runner.write_text("import runpy, sys\nsys.path.insert(0, sys.argv.pop(1))\nimport broken\n"
                      "sys.argv[0] = 'pbm'\nrunpy.run_module('pbm', run_name='__main__')\n")
    env = _env()
    proc = subprocess.run([sys.executable, str(runner), str(tmp_path), "--db", db_url, "ingest", "--maildir",
                           str(maildir)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    with session_scope(db_url) as s:
        rows = s.scalars(select(InboundMessage).order_by(InboundMessage.seq)).all()
        assert [r.status for r in rows] == ["error", "stored"], out
        assert "waits behind" in rows[1].outcome["held"]
    assert "held" in out
    code, out = _done(_pbm(db_url, "status", "held-0000", cwd=tmp_path))
    assert code == 0, out
    assert "#1 error: internal error OSError: font file missing" in out, out  # the moderator sees both
    assert "#2 stored: waits behind #1" in out, out
    code, out = _done(_pbm(db_url, "ingest", "--retry", cwd=tmp_path))
    assert code == 0, out
    assert _statuses(db_url) == {"accepted": 2}, out
    assert _actions(db_url, "held-0000") == 2


# -- item 4: whoever runs next sends what a dead process queued -------------------------------------

def test_item4_a_restarted_worker_sends_the_answers_another_process_queued(db_url, tmp_path):
    """Three moves handled and their answers queued (here by `pbm ingest` without --send, as a worker
    killed between queueing and sending leaves them); `pbm worker --once` with nothing new to read
    sends every one of them, once."""
    from tests.mail.smtp import SmtpServer

    maildir = tmp_path / "md"
    mail_first_moves(db_url, title="18GA", games=1, moves=3, maildir=maildir, seed=41, prefix="flush")
    code, out = _done(_pbm(db_url, "ingest", "--maildir", str(maildir), cwd=tmp_path))
    assert code == 0 and _statuses(db_url) == {"accepted": 3}, out
    with session_scope(db_url) as s:
        from pbm.mail.outbox import pending

        queued = len(pending(s))
    assert queued >= 3 * 3  # each move: its new state to all three players
    for sub in ("new", "cur", "tmp"):
        (tmp_path / "empty" / sub).mkdir(parents=True)
    with SmtpServer() as smtp:
        config = tmp_path / "pbm.toml"
        config.write_text(smtp.config_toml())
        code, out = _done(_pbm(db_url, "worker", "--once", "--maildir", str(tmp_path / "empty"), "--config",
                               str(config), "--reports", str(tmp_path / "r"), "--archive", str(tmp_path / "a"),
                               cwd=tmp_path))
        assert code == 0, out
        assert f"mail answers: sent {queued}" in out, out
        assert len(smtp.messages) == queued
        code, out = _done(_pbm(db_url, "worker", "--once", "--maildir", str(tmp_path / "empty"), "--config",
                               str(config), "--reports", str(tmp_path / "r"), "--archive", str(tmp_path / "a"),
                               cwd=tmp_path))
        assert code == 0 and len(smtp.messages) == queued, out  # nothing twice
    with session_scope(db_url) as s:
        assert pending(s) == []


# -- item 5: a wrong [smtp] value never reports success ----------------------------------------------

BAD_SMTP = {
    "port": '[smtp]\nhost = "127.0.0.1"\nport = "abc"\nfrom = "mod@pbm.example"\n',
    "starttls": '[smtp]\nhost = "127.0.0.1"\nstarttls = "maybe"\nfrom = "mod@pbm.example"\n',
    "no-from": '[smtp]\nhost = "127.0.0.1"\nport = 2525\n',
}


@pytest.mark.parametrize("bad", sorted(BAD_SMTP))
def test_item5_a_wrong_smtp_setting_fails_the_cycle_and_keeps_the_turn_reported(sqlite_url, tmp_path, bad):
    from pbm.models import TurnState

    maildir = tmp_path / "md"
    [name] = populate(sqlite_url, games=1, humans=1, maildir=maildir, seed=51, prefix="badsmtp")
    config = tmp_path / "pbm.toml"
    config.write_text(BAD_SMTP[bad])
    proc = subprocess.run([sys.executable, "-m", "pbm", "--db", sqlite_url, "cycle", "--maildir", str(maildir),
                           "--config", str(config), "--reports", str(tmp_path / "r"), "--archive",
                           str(tmp_path / "a")], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert {"port": "port must be a whole number", "starttls": "starttls must be true or false",
            "no-from": "no sender address"}[bad] in proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    with session_scope(sqlite_url) as s:
        gid = s.scalar(select(Game.id).where(Game.name == name))
        states = [t.state for t in s.scalars(select(TurnState).where(TurnState.game_id == gid)
                                             .order_by(TurnState.turn))]
    assert states[0] == "reported", states  # resolved and reported; not sent, not archived


# -- item 12: a copy of a message in the mailbox is read once ------------------------------------------

def test_item12_byte_identical_maildir_files_are_read_once_not_every_pass(cli, tmp_path):
    maildir = tmp_path / "md"
    raw = _stranger("hello, is this the railway game?\n", sender="visitor@elsewhere.example")
    _drop(maildir, raw, "0001-first")
    _drop(maildir, raw, "0002-copy")  # the same bytes under another name (a copy, a second delivery)
    first = cli("ingest", "--maildir", maildir).stdout
    assert "2 message(s)" in first and "1 duplicate" in first, first
    again = cli("ingest", "--maildir", maildir).stdout
    assert again.strip() == "No new message; 2 read before, not read again (--all reads them again).", again
    every = cli("ingest", "--maildir", maildir, "--all").stdout
    assert "2 duplicate" in every, every


def test_item8_mail_older_than_the_error_is_handled_and_only_later_mail_waits(sqlite_url, tmp_path):
    """The lane's order decides: a message stored before the one in error is handled as usual; only the
    later ones wait."""
    from pbm.intake import handle_lanes, maildir_new, store_new
    from pbm.mail.ingest import Context

    maildir = tmp_path / "md"
    mail_first_moves(sqlite_url, title="18GA", games=1, moves=3, maildir=maildir, seed=33, prefix="order")
    assert store_new(sqlite_url, maildir_new(sqlite_url, maildir), retries=0).read == 3
    with session_scope(sqlite_url) as s:
        second = s.scalar(select(InboundMessage).where(InboundMessage.seq == 2))
        second.status = "error"  # as a fault in handling it would leave it (the first was never handled)
        second.outcome = {"reason": "internal error OSError: disk full"}
    outcomes = handle_lanes(sqlite_url, Context(), retries=0)
    assert [(o.seq, o.status) for o in outcomes] == [(1, "accepted"), (3, "held")]
    assert _actions(sqlite_url, "order-0000") == 1


def test_item1_a_lock_name_longer_than_the_lock_table_is_refused_before_anything_is_locked(sqlite_url):
    from pbm.locks import NAME_LIMIT, process_lock
    from pbm.models import CycleLock

    assert CycleLock.__table__.c.name.type.length == NAME_LIMIT
    with pytest.raises(ValueError, match="not a pbm lock name"):
        with process_lock(sqlite_url, "mail:game:" + "x" * 40):
            pass
    with process_lock(sqlite_url, lane_claim("game:" + "x" * 120)):  # what the intake makes: fits
        pass

"""Issue 18, item 9: a scheduled reminder goes once even when `pbm cycle` is killed at any commit point —
between queueing it and sending it above all (pbm/faults.py: ``os._exit`` right after the Nth commit, as
``kill -9``).  The cycle is then run again; every player without a sheet has exactly one reminder, except
a delivery the crash left mid-send (uncertain), which is never sent twice.  SQLite and PostgreSQL, real SMTP.

The cycle is killed at every one of its commit points.  By default the rerun is made once for each kind of
state a kill left (reminders queued, deliveries mid-send, mails already handed over: the first point of each,
and the last point); ``PBM_SLOW=1`` reruns after every kill."""

from __future__ import annotations

import os
import shutil
import uuid
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbm import db as pbm_db
from pbm.faults import EXIT_CODE
from tests.conftest import PG_ADMIN, RUN_ID
from tests.faults.test_crash import pbm
from tests.mail.smtp import SmtpServer

SLOW = os.environ.get("PBM_SLOW") == "1"
DEADLINE = "2030-01-10 12:00"
CLOCK = "2030-01-09T00:00:00"  # 36 hours before the deadline: the 48h point is due


def _setup(url: str, folder: Path) -> None:
    (folder / "players.csv").write_text("name,email\nAda,ada@example.org\nIke,ike@example.org\n")
    made = pbm(url, "new-game", "continental-rails", "--players", str(folder / "players.csv"), "--name", "g",
               "--no-welcome")
    assert made.returncode == 0, made.stderr
    dl = pbm(url, "deadline", "g", DEADLINE, "--remind", "48h,12h", "--quiet")
    assert dl.returncode == 0, dl.stderr


@pytest.fixture(params=["sqlite", "postgresql"])
def clone(request, tmp_path):
    """A function giving a new database URL holding the starting state (a game with its reminder schedule)."""
    folder = tmp_path / "start"
    folder.mkdir()
    if request.param == "sqlite":
        _setup(f"sqlite:///{folder / 'pbm.db'}", folder)

        def sqlite_copy() -> str:
            target = tmp_path / f"run-{uuid.uuid4().hex[:8]}.db"
            shutil.copyfile(folder / "pbm.db", target)
            return f"sqlite:///{target}"

        yield sqlite_copy
        return
    request.getfixturevalue("pg_template")
    admin = create_engine(pbm_db.normalize_url(PG_ADMIN), isolation_level="AUTOCOMMIT")
    base = f"pbm_r_{RUN_ID}_{uuid.uuid4().hex[:6]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{base}"'))
    _setup(PG_ADMIN.rsplit("/", 1)[0] + "/" + base, folder)
    made: list[str] = []

    def pg_copy() -> str:
        name = f"{base}_{len(made)}"
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{base}"'))
        made.append(name)
        return PG_ADMIN.rsplit("/", 1)[0] + "/" + name

    yield pg_copy
    with admin.connect() as c:
        for name in [*made, base]:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _cycle(url: str, config: Path, env: dict | None = None):
    return pbm(url, "cycle", "--clock", CLOCK, "--config", str(config), env=env, cwd=config.parent)


def _state(url: str) -> tuple[int, int]:
    """(reminders queued, deliveries left mid-send)."""
    engine = pbm_db.get_engine(url, migrate=False)
    with engine.connect() as c:
        queued = c.execute(text("SELECT count(*) FROM outbox WHERE kind = 'reminder'")).scalar()
        uncertain = c.execute(text("SELECT count(*) FROM send_log WHERE status = 'sending'")).scalar()
    engine.dispose()
    return queued, uncertain


def test_a_scheduled_reminder_is_sent_once_whatever_commit_the_cycle_dies_at(clone, tmp_path):
    with SmtpServer() as smtp:
        config = tmp_path / "pbm.toml"
        config.write_text(smtp.config_toml())
        counting = tmp_path / "commits"
        whole = _cycle(clone(), config, {"PBM_FAULT_COUNT_FILE": str(counting)})
        assert whole.returncode == 0, whole.stdout + whole.stderr
        assert "g: turn 1: reminder 2d before the deadline queued for player(s) 1, 2" in whole.stdout
        commits = int(counting.read_text())
        assert sorted(r for m in smtp.messages for r in m.rcpt_tos) == ["ada@example.org", "ike@example.org"]
        between = 0  # kills that hit after the queue was committed and before anything was handed to SMTP
        seen: set[tuple[int, int, int]] = set()
        for point in range(1, commits + 1):
            smtp.messages.clear()
            url = clone()
            died = _cycle(url, config, {"PBM_FAULT_EXIT_AT_COMMIT": str(point)})
            assert died.returncode == EXIT_CODE, (point, died.stdout, died.stderr)
            queued, left_mid_send = _state(url)
            assert queued in (0, 2), (point, queued)  # both reminders are queued in one commit, or none
            if queued == 2 and not smtp.messages:
                between += 1
            kind = (queued, left_mid_send, len(smtp.messages))
            if not SLOW and kind in seen and point != commits:
                continue  # a rerun from this kind of state was made already
            seen.add(kind)
            sent_before = Counter(r for m in smtp.messages for r in m.rcpt_tos)
            smtp.messages.clear()
            again = _cycle(url, config)
            got = sent_before + Counter(r for m in smtp.messages for r in m.rcpt_tos)
            _, uncertain = _state(url)
            # a delivery left uncertain (mid-send when killed) is never called done: the rerun exits non-zero
            assert (again.returncode == 0) == (uncertain == 0), (uncertain, again.stdout + again.stderr)
            assert "Traceback" not in again.stderr
            assert all(n == 1 for n in got.values()), (point, got)  # never twice
            assert sum(got.values()) + uncertain == 2, (point, got, uncertain)  # once, or left mid-send
            assert _state(url)[0] == 2  # queued once, whatever the crash
        assert between >= 1  # the crash between queue and send was among those tried
        # every kind of state a kill can leave was rerun: nothing queued, queued but unsent, one mid-send,
        # one or both handed over
        assert {(0, 0, 0), (2, 0, 0), (2, 1, 0), (2, 0, 1), (2, 0, 2)} <= seen, sorted(seen)

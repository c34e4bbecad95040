"""Crash tests (issue 13): ``pbm cycle`` and ``pbm ingest`` killed at each commit point, then run again.

The kill is deterministic: ``PBM_FAULT_EXIT_AT_COMMIT=N`` (pbm/faults.py) ends the process with
``os._exit`` right after its Nth commit — as ``kill -9`` would, with no cleanup.  A first run counts
the commit points; each chosen one is then killed on a fresh copy of the same starting database,
and the command is run again until it finishes.  After each: every sheet was handled once and used,
no mail went twice to anyone, and the game's export and the report PDFs are byte for byte those of
the uninterrupted run.  By default a spread of commit points is tried; ``PBM_SLOW=1`` tries them all.

Real everything: the Continental Rails engine, a subprocess per command, SMTP on loopback (aiosmtpd),
SQLite and PostgreSQL.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbm import db as pbm_db
from tests.conftest import PG_ADMIN, RUN_ID
from tests.mail.smtp import SmtpServer

SLOW = os.environ.get("PBM_SLOW") == "1"
SAMPLES = 3  # commit points tried per command and database by default
ARRIVED = 1_600_000_000  # the sheets' arrival (Maildir file time): 2020-09-13, before the deadline
DEADLINE = "2020-09-14 00:00"
CLOCK = "2020-09-14T12:00:00"  # the cycle runs after the deadline; the next turn's is a week later


@dataclass
class World:
    url: str
    folder: Path
    clone: callable  # () -> a new database URL holding the starting state


def pbm(url: str, *args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PBM_DATABASE_URL": url, **(env or {})}
    full.pop("PBM_FAULT_EXIT_AT_COMMIT", None) if not env or "PBM_FAULT_EXIT_AT_COMMIT" not in env else None
    return subprocess.run([sys.executable, "-m", "pbm", *args], env=full, cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def _sheet(template: str, secret: str, orders: dict[str, str]) -> str:
    out = []
    for line in template.splitlines():
        key = line.split(":", 1)[0].strip()
        if key == "SECRET":
            line = f"SECRET: {secret}"
        elif key in orders:
            line = f"{key}: {orders[key]}"
        out.append(line)
    return "\n".join(out) + "\n"


def _mail(sender: str, body: str, n: int) -> bytes:
    return (f"From: {sender}\r\nTo: orders@pbm.example\r\nSubject: orders\r\nMessage-ID: <m{n}@players.example>\r\n"
            f"Date: Sun, 22 Nov 2026 10:00:0{n} +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
            + body.replace("\n", "\r\n")).encode()


def _setup(url: str, folder: Path) -> None:
    """A real game with two humans; their sheets (and a stranger's mail) waiting in a Maildir."""
    (folder / "players.csv").write_text("name,email\nAda,ada@example.org\nIke,ike@example.org\n")
    out = pbm(url, "new-game", "continental-rails", "--players", str(folder / "players.csv"), "--name", "g")
    assert out.returncode == 0, out.stderr
    secrets = dict(re.findall(r"#\s*(\d+) .*: (\S+)$", out.stdout, re.M))
    made = pbm(url, "turnsheet", "g", "--format", "text", "--out", str(folder / "ts"))
    assert made.returncode == 0, made.stderr
    md = folder / "md"
    for sub in ("new", "cur", "tmp"):
        (md / sub).mkdir(parents=True)
    one = _sheet((folder / "ts" / "player-01.txt").read_text(), secrets["1"], {"BID B&M": "800"})
    two = _sheet((folder / "ts" / "player-02.txt").read_text(), secrets["2"], {"BORROW": "100"})
    for n, raw in enumerate([_mail("Ada <ada@example.org>", one, 1), _mail("ike@example.org", two, 2),
                             _mail("stranger@else.example", "hello\n", 3)]):
        (md / "new" / f"{n:03d}.eml").write_bytes(raw)
        os.utime(md / "new" / f"{n:03d}.eml", (ARRIVED + n, ARRIVED + n))
    dl = pbm(url, "deadline", "g", DEADLINE)
    assert dl.returncode == 0, dl.stderr


@pytest.fixture(params=["sqlite", "postgresql"])
def world(request, tmp_path) -> World:
    folder = tmp_path / "start"
    folder.mkdir()
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'pbm.db'}"
        _setup(url, folder)
        pbm_db.get_engine(url, migrate=False).dispose()

        def clone() -> str:
            target = tmp_path / f"run-{uuid.uuid4().hex[:8]}.db"
            shutil.copyfile(folder / "pbm.db", target)
            return f"sqlite:///{target}"

        yield World(url, folder, clone)
        return
    request.getfixturevalue("pg_template")  # the server is there (or the test fails saying so)
    admin = create_engine(pbm_db.normalize_url(PG_ADMIN), isolation_level="AUTOCOMMIT")
    base = f"pbm_f_{RUN_ID}_{uuid.uuid4().hex[:6]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{base}"'))
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + base
    _setup(url, folder)
    made: list[str] = []

    def clone() -> str:
        name = f"{base}_{len(made)}"
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{base}"'))
        made.append(name)
        return PG_ADMIN.rsplit("/", 1)[0] + "/" + name

    yield World(url, folder, clone)
    with admin.connect() as c:
        for name in [*made, base]:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@dataclass
class Run:
    url: str
    folder: Path
    smtp: SmtpServer


def _start(world: World, tmp_path: Path, smtp: SmtpServer) -> Run:
    folder = tmp_path / f"w-{uuid.uuid4().hex[:8]}"
    shutil.copytree(world.folder / "md", folder / "md")
    (folder / "pbm.toml").write_text(smtp.config_toml())
    return Run(world.clone(), folder, smtp)


def _cycle(run: Run, env: dict | None = None) -> subprocess.CompletedProcess:
    f = run.folder
    return pbm(run.url, "cycle", "--clock", CLOCK, "--maildir", str(f / "md"), "--reports", str(f / "reports"),
               "--archive", str(f / "archive"), "--config", str(f / "pbm.toml"), env=env, cwd=f)


def _ingest(run: Run, env: dict | None = None) -> subprocess.CompletedProcess:
    f = run.folder
    return pbm(run.url, "ingest", "g", "--maildir", str(f / "md"), "--send", "--config", str(f / "pbm.toml"),
               env=env, cwd=f)


def _finish(run: Run, command) -> None:
    """Run ``command`` again until it succeeds; resend deliveries the crash left uncertain, as the moderator would."""
    for _ in range(3):
        done = command(run)
        if done.returncode == 0:
            return
        assert "interrupted mid-send" in done.stdout + done.stderr or "not sent" in done.stdout + done.stderr, \
            done.stdout + done.stderr
        pbm(run.url, "send-mail", "--retry-uncertain", "--config", str(run.folder / "pbm.toml"), cwd=run.folder)
    pytest.fail(f"{command.__name__} did not finish after a crash:\n{done.stdout}\n{done.stderr}")


def _facts(run: Run) -> dict:
    export = pbm(run.url, "export", "g", "--json")
    assert export.returncode == 0, export.stderr
    engine = pbm_db.get_engine(run.url, migrate=False)
    with engine.connect() as c:
        sheets = Counter(c.execute(text(
            "SELECT p.number FROM order_sets o JOIN players p ON p.id = o.player_id "
            "WHERE o.source = 'email' AND o.status = 'accepted'")).scalars())
        unhandled = c.execute(text("SELECT count(*) FROM inbound_messages WHERE status IN ('stored', 'error')")).scalar()
        unsent = c.execute(text("SELECT count(*) FROM outbox o JOIN send_log l ON l.outbox_id = o.id "
                                "WHERE l.status <> 'sent'")).scalar()
        queued = c.execute(text("SELECT count(*) FROM outbox")).scalar()
    engine.dispose()
    reports = {p.name: p.read_bytes() for p in sorted((run.folder / "reports").rglob("*.pdf"))}
    return {"export": export.stdout, "sheets": dict(sheets), "unhandled": unhandled, "unsent": unsent,
            "queued": queued, "reports": reports}


def _sent_once(smtp: SmtpServer) -> None:
    seen = Counter()
    for m in smtp.messages:
        mid = re.search(rb"(?im)^Message-ID:\s*(\S+)", m.data).group(1)
        for r in m.rcpt_tos:
            seen[(mid, r)] += 1
    twice = [k for k, v in seen.items() if v > 1]
    assert twice == [], f"sent twice: {twice}"


def _archive_keeps_no_secrets(run: Run) -> None:
    """Item 13: the bundle holds no player secret and no next-turn code, and only its owner can read it."""
    import io
    import stat

    from pypdf import PdfReader

    bundle = run.folder / "archive" / "g" / "turn-1"
    secrets = re.findall(r"SECRET: (\S+)", "".join(p.read_text() for p in (run.folder / "md").rglob("*.eml")))
    assert secrets
    mails = list((bundle / "mails").glob("*.eml"))
    assert len(mails) >= 2
    for path in mails:
        assert not any(secret.encode() in path.read_bytes() for secret in secrets), path
    def text_of(path: Path) -> str:
        return "".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(path.read_bytes())).pages)

    assert "CODE:" in text_of(run.folder / "reports" / "g" / "turn-1" / "player-1.pdf")  # the mailed one has it
    for path in (bundle / "reports").glob("*.pdf"):
        assert "CODE:" not in text_of(path), path
    for path in [bundle, *bundle.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, f"{path}: {oct(mode)}"


def _points(total: int, samples: int = SAMPLES) -> list[int]:
    if SLOW or total <= samples:
        return list(range(1, total + 1))
    return sorted({1 + round(i * (total - 1) / (samples - 1)) for i in range(samples)})


@pytest.mark.parametrize("command", ["cycle", "ingest"])
def test_killed_at_commit_points_then_rerun_reaches_the_same_end(world, tmp_path, command):
    act = {"cycle": _cycle, "ingest": _ingest}[command]
    with SmtpServer() as smtp:
        base = _start(world, tmp_path, smtp)
        counter = base.folder / "commits"
        done = act(base, env={"PBM_FAULT_COUNT_FILE": str(counter)})
        assert done.returncode == 0, done.stdout + done.stderr
        total = int(counter.read_text())
        expected = _facts(base)
        assert expected["sheets"] == {1: 1, 2: 1} and expected["unhandled"] == 0 and expected["unsent"] == 0
        _sent_once(smtp)
        if command == "cycle":
            assert len(expected["reports"]) >= 2
            _archive_keeps_no_secrets(base)
    for k in _points(total, SAMPLES if command == "cycle" else 2):
        with SmtpServer() as smtp:
            run = _start(world, tmp_path, smtp)
            killed = act(run, env={"PBM_FAULT_EXIT_AT_COMMIT": str(k)})
            assert killed.returncode == 97, f"commit {k}: {killed.stdout}{killed.stderr}"
            _finish(run, act)
            got = _facts(run)
            _sent_once(smtp)
            for key in ("sheets", "unhandled", "unsent", "queued", "export", "reports"):
                assert got[key] == expected[key], f"killed after commit {k} of {total}: {key} differs"

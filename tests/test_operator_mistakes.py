"""Issue 34, item 12: an operator's mistake is one line on stderr, never a traceback, and loses nothing.

Each row of the table sets up one mistake as a moderator makes it — a database folder or disk that is
read-only or full, a reports or archive folder that cannot be written, a font file missing from the
installation, ``--config`` naming a folder, ``--db mysql://…``, an empty ``pbm.db`` — and runs the real
``pbm`` entry point (``python -m pbm``) in a subprocess.  Each must exit non-zero with exactly one line on
stderr naming the problem, and no "Traceback".

Read-only and full disks are real: a small tmpfs mounted (then remounted read-only, or filled) for the test;
as root permission bits do not stop a write, so a mount is the honest way.  Without the right to mount,
those rows are skipped (and say why)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from .conftest import ROOT, Cli

PLAYERS = "name,email\nAda,ada@example.org\nIke,ike@example.org\nCarl,carl@example.org\n"


def run_pbm(args: list[str], cwd: Path, pythonpath: Path = ROOT, env: dict | None = None, stdout: str = "pipe"):
    """``python -m pbm ARGS``; ``stdout`` "closed" is a pipe whose reader has gone (``| head -1``), "full"
    is /dev/full."""
    full = {k: v for k, v in os.environ.items() if k not in ("PBM_DATABASE_URL", "PBM_CONFIG")}
    full["PYTHONPATH"] = str(pythonpath)
    full.update(env or {})
    cmd = [sys.executable, "-m", "pbm", *map(str, args)]
    if stdout == "closed":
        read, write = os.pipe()
        os.close(read)
        try:
            return subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, cwd=cwd, env=full, timeout=300)
        finally:
            os.close(write)
    if stdout == "full":
        with open("/dev/full", "w") as sink:
            return subprocess.run(cmd, stdout=sink, stderr=subprocess.PIPE, text=True, cwd=cwd, env=full, timeout=300)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=full, timeout=300)


@pytest.fixture(scope="module")
def game_db(tmp_path_factory) -> Path:
    """An SQLite database with one Continental Rails game ``g`` (3 humans), turn 1 resolved."""
    folder = tmp_path_factory.mktemp("template")
    path = folder / "pbm.db"
    (folder / "p.csv").write_text(PLAYERS, encoding="utf-8")
    cli = Cli(f"sqlite:///{path}")
    cli("new-game", "continental-rails", "--players", folder / "p.csv", "--name", "g", "--no-welcome")
    cli("run-turn", "g")
    from pbm.db import get_engine

    get_engine(cli.url, migrate=False).dispose()
    return path


class Mounts:
    """Small tmpfs folders under the test's tmp_path, unmounted afterwards."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.made: list[Path] = []

    def tmpfs(self, name: str, size: str = "2m") -> Path:
        where = self.base / name
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): read-only and full disks untested")
        self.made.append(where)
        return where

    def read_only(self, name: str, fill: Callable[[Path], None] = lambda p: None) -> Path:
        where = self.tmpfs(name)
        fill(where)
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        return where

    def full(self, name: str, fill: Callable[[Path], None] = lambda p: None, size: str = "2m") -> Path:
        where = self.tmpfs(name, size)
        fill(where)
        fd = os.open(where / "padding", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        return where

    def close(self) -> None:
        for where in reversed(self.made):
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.fixture
def mounts(tmp_path):
    m = Mounts(tmp_path)
    yield m
    m.close()


@dataclass
class Case:
    """One mistake: ``setup(tmp_path, game_db, mounts)`` returns the arguments of ``pbm`` (and may set
    ``pythonpath``); ``says`` are words the one line must hold (any case)."""

    setup: Callable[..., list]
    says: tuple[str, ...]
    pythonpath: Callable[[Path], Path] | None = None
    env: dict = field(default_factory=dict)
    stdout: str = "pipe"


def _copy_into(game_db: Path):
    return lambda folder: shutil.copy(game_db, folder / "pbm.db")


def _no_font_install(tmp_path: Path) -> Path:
    """A copy of this pbm with one font file gone (a damaged installation)."""
    target = tmp_path / "install"
    target.mkdir(exist_ok=True)
    if not (target / "pbm").exists():
        shutil.copytree(ROOT / "pbm", target / "pbm", ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("migrations", "templates"):
            shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        (target / "pbm" / "fonts" / "DejaVuSansMono.ttf").unlink()
    return target


def _db(path: Path) -> str:
    return f"sqlite:///{path}"


CASES = {
    # the database's folder or disk
    "db-folder-read-only:run-turn": Case(
        lambda t, g, m: ["--db", _db(m.read_only("ro", _copy_into(g)) / "pbm.db"), "run-turn", "g"],
        ("read-only",)),
    "db-folder-read-only:new-game": Case(
        lambda t, g, m: ["--db", _db(m.read_only("ro", _copy_into(g)) / "pbm.db"), "new-game", "continental-rails",
                         "--name", "h"],
        ("read-only",)),
    "db-folder-read-only:new-database": Case(
        lambda t, g, m: ["--db", _db(m.read_only("ro") / "new.db"), "games"], ("read-only",)),
    "db-disk-full:run-turn": Case(
        lambda t, g, m: ["--db", _db(m.full("full", _copy_into(g)) / "pbm.db"), "run-turn", "g"], ("full",)),
    "db-disk-full:new-game": Case(
        lambda t, g, m: ["--db", _db(m.full("full", _copy_into(g)) / "pbm.db"), "new-game", "continental-rails",
                         "--name", "h"], ("full",)),
    "db-disk-full:new-database": Case(
        lambda t, g, m: ["--db", _db(m.full("full", size="64k") / "new.db"), "games"], ("full",)),
    "db-folder-missing": Case(lambda t, g, m: ["--db", _db(t / "no-such-folder" / "pbm.db"), "games"],
                              ("no-such-folder",)),
    "db-is-a-folder": Case(lambda t, g, m: ["--db", _db(t), "games"], ("folder",)),
    "db-empty-file": Case(lambda t, g, m: (t / "pbm.db").write_bytes(b"") or ["--db", _db(t / "pbm.db"), "games"],
                          ("empty",)),
    "db-mysql": Case(lambda t, g, m: ["--db", "mysql://pbm@db.example.org/pbm", "games"], ("mysql",)),
    "db-unknown-scheme": Case(lambda t, g, m: ["--db", "oracle://x/y", "games"], ("oracle",)),
    # the reports and archive folders
    "reports-read-only:report": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "report", "g", "--out", m.read_only("ro")],
        ("read-only",)),
    "reports-disk-full:report": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "report", "g", "--out",
                         m.full("full", size="256k")], ("space",)),
    "archive-read-only:archive": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "archive", "g", "--reports", t / "reports",
                         "--archive", m.read_only("ro")], ("read-only",)),
    "export-read-only": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "export", "g", "-o", m.read_only("ro") / "g.json"],
        ("read-only",)),
    # the installation and the configuration
    "font-missing:report": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "report", "g", "--out", t / "reports"],
        ("font",), pythonpath=_no_font_install),
    "font-missing:cycle": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "cycle", "--now", "--reports", t / "reports",
                         "--archive", t / "archive"], ("font",), pythonpath=_no_font_install),
    # where the output goes
    "stdout-closed:games": Case(lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "games"], ("output",),
                                stdout="closed"),
    "stdout-full:show": Case(lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "show", "g"], ("output",),
                             stdout="full"),
    "config-is-a-folder:send-mail": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "send-mail", "--config", t], ("folder",)),
    "config-is-a-folder:new-game": Case(
        lambda t, g, m: ["--db", _db(shutil.copy(g, t / "pbm.db")), "new-game", "continental-rails", "--name", "h",
                         "--config", t], ("folder",)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_operator_mistake_is_one_line(name, tmp_path, game_db, mounts):
    case = CASES[name]
    work = tmp_path / "work"
    work.mkdir()
    args = case.setup(work, game_db, mounts)
    pythonpath = case.pythonpath(tmp_path) if case.pythonpath else ROOT
    done = run_pbm(args, cwd=work, pythonpath=pythonpath, env=case.env, stdout=case.stdout)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert all(word.lower() in lines[0].lower() for word in case.says), lines[0]


def test_nothing_is_lost_when_the_database_disk_is_full(tmp_path, game_db, mounts):
    """The refused command changed nothing: the database is whole and holds what it held."""
    full = mounts.full("full", _copy_into(game_db))
    done = run_pbm(["--db", _db(full / "pbm.db"), "run-turn", "g"], cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    with sqlite3.connect(full / "pbm.db") as c:
        assert c.execute("PRAGMA quick_check").fetchone() == ("ok",)
        assert c.execute("SELECT turn FROM games").fetchone() == (2,)


def test_an_empty_database_file_is_left_as_it_is(tmp_path):
    """An empty pbm.db is refused and left empty (never filled with a new schema); a missing one is made."""
    (tmp_path / "pbm.db").write_bytes(b"")
    done = run_pbm(["games"], cwd=tmp_path)
    assert done.returncode != 0 and "empty" in done.stderr
    assert (tmp_path / "pbm.db").read_bytes() == b""
    (tmp_path / "pbm.db").unlink()
    made = run_pbm(["games"], cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "pbm.db").stat().st_size > 0
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".pbm.db")]  # no temporary file left


def test_doctor_says_a_font_is_missing(tmp_path, game_db):
    done = run_pbm(["--db", _db(game_db), "doctor"], cwd=tmp_path, pythonpath=_no_font_install(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr == ""
    assert "fonts: PROBLEM" in done.stdout and "DejaVuSansMono.ttf MISSING" in done.stdout


def test_doctor_calls_a_newer_schema_a_problem(tmp_path, game_db):
    path = Path(shutil.copy(game_db, tmp_path / "pbm.db"))
    with sqlite3.connect(path) as c:
        c.execute("UPDATE alembic_version SET version_num = 'ffff_from_the_future'")
    c.close()
    done = run_pbm(["--db", _db(path), "doctor"], cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "database: PROBLEM" in done.stdout and "newer pbm" in done.stdout


def test_doctor_calls_an_empty_database_file_a_problem(tmp_path):
    (tmp_path / "pbm.db").write_bytes(b"")
    done = run_pbm(["doctor"], cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "database: PROBLEM" in done.stdout and "empty" in done.stdout
    assert (tmp_path / "pbm.db").read_bytes() == b""


BOTH = {  # the same mistakes with the game in SQLite and in PostgreSQL (the db_url fixture)
    "reports-read-only": (lambda t, m: ["report", "g", "--out", m.read_only("ro")], "pipe", "read-only"),
    "archive-disk-full": (lambda t, m: ["archive", "g", "--turn", "1", "--reports", t / "reports", "--archive",
                                        m.full("full", size="256k")], "pipe", "space"),
    "stdout-closed": (lambda t, m: ["show", "g"], "closed", "output"),
    "config-is-a-folder": (lambda t, m: ["send-mail", "--config", t], "pipe", "folder"),
}


@pytest.mark.parametrize("name", list(BOTH))
def test_an_operator_mistake_is_one_line_on_either_database(name, cli, players_csv, tmp_path, mounts):
    cli("new-game", "continental-rails", "--players", players_csv, "--name", "g", "--no-welcome")
    cli("run-turn", "g")
    setup, stdout, word = BOTH[name]
    done = run_pbm(["--db", cli.url, *setup(tmp_path, mounts)], cwd=tmp_path, stdout=stdout)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0].lower(), done.stderr


def test_a_new_database_left_half_made_by_a_kill_is_cleaned_up(tmp_path):
    """pbm builds a new SQLite database in ``.pbm.db.new-PID.tmp`` and links it into place; a kill in between
    leaves that file (never an empty pbm.db); the next run removes it when its process is gone."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".pbm.db.new-{int(dead.stdout)}.tmp"
    stale.write_bytes(b"SQLite format 3\0half")
    done = run_pbm(["games"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not stale.exists() and (tmp_path / "pbm.db").stat().st_size > 0

"""Fixtures of the web tests (issue 33): one database per run and backend holding a recorded 18xx game
(imported), a small 18xx game with hostile player names, an anonymous copy of it, and a Continental
Rails demo game; ``pbm serve`` started for real on a free loopback port and stopped cleanly."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pbm.e18xx.fixtures import load_fixture

from ..conftest import ROOT, Cli, _pg_database

RECORDED = "18GA/18GA_game_end_bank.json"
HOSTILE = ['<script>alert("x")</script>', 'Bob & "<i>O\'Neil</i>"', "Carol"]
HOSTILE_GAME = 'ga <b>"hostile"</b>'


@dataclass
class Games:
    url: str
    ids: dict[str, int] = field(default_factory=dict)  # recorded, hostile, anonymous, cr
    names: dict[str, str] = field(default_factory=dict)
    cli: Cli | None = None


def _game_id(url: str, name: str) -> int:
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Game

    with session_scope(url) as s:
        return s.scalar(select(Game.id).where(Game.name == name))


def build_games(url: str, folder: Path) -> Games:
    cli = Cli(url)
    games = Games(url, cli=cli)
    data, where = load_fixture(RECORDED)
    if data is None:
        pytest.skip(where)
    export = folder / "recorded.json"
    import json

    export.write_text(json.dumps(data), encoding="utf-8")
    cli("18xx", "import", export, "--name", "ga-recorded")
    games.names["recorded"] = "ga-recorded"
    csv = folder / "hostile.csv"
    csv.write_text("name,email\n" + "".join(f'"{n.replace(chr(34), chr(34) * 2)}",p{i}@example.org\n'
                                            for i, n in enumerate(HOSTILE, 1)), encoding="utf-8")
    for key, name in (("hostile", HOSTILE_GAME), ("anonymous", "ga-anonymous")):
        cli("new-game", "18GA", "--players", csv, "--name", name, "--seed", "7")
        cli("18xx", "move", name, "bid 20 LTR", "--player", "1", "--no-mail")
        cli("18xx", "move", name, "pass", "--player", "2", "--no-mail")
        games.names[key] = name
    from sqlalchemy import update

    from pbm.db import session_scope
    from pbm.models import Game

    with session_scope(url) as s:
        s.execute(update(Game).where(Game.name == "ga-anonymous").values(anonymous=True))
    from pbm.pipeline.demo import run_demo

    demo = run_demo(folder / "demo", url=url, turns=1, log=lambda line: None)
    games.names["cr"] = demo.game
    for key, name in games.names.items():
        games.ids[key] = _game_id(url, name)
    return games


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def games(request, tmp_path_factory) -> Games:
    folder = tmp_path_factory.mktemp("web")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'pbm.db'}"
        yield build_games(url, folder)
        from pbm import db as pbm_db

        pbm_db.get_engine(url, migrate=False).dispose()
    else:
        gen = _pg_database(request.getfixturevalue("pg_template"))
        url = next(gen)
        try:
            yield build_games(url, folder)
        finally:
            for _ in gen:
                pass


class Server:
    """``pbm serve`` in a subprocess on a free loopback port."""

    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log
        self._err = open(log, "wb")
        # --port 0: the server takes a free port and names it on its first line
        self.proc = subprocess.Popen([sys.executable, "-m", "pbm", "--db", url, "serve", "--port", "0"],
                                     cwd=ROOT, stdout=self._err, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        self.base = ""
        while True:
            if not self.base:
                found = re.search(r"Serving the games on (http://127\.0\.0\.1:\d+)/", self.log_text())
                self.base = found.group(1) if found else ""
            if self.base:
                try:
                    urllib.request.urlopen(self.base + "/web.css", timeout=5).read()
                    break
                except (urllib.error.URLError, ConnectionError, OSError):
                    pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"pbm serve did not start: {log.read_text(errors='replace')}")
            time.sleep(0.2)
        self.port = int(self.base.rsplit(":", 1)[1])

    def get(self, path: str) -> tuple[int, str, dict[str, str]]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=60) as r:
                return r.status, r.read().decode("utf-8", "replace"), {k.lower(): v for k, v in r.headers.items()}
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode("utf-8", "replace"), {k.lower(): v for k, v in exc.headers.items()}

    def get_bytes(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=60) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._err.close()
        return self.proc.returncode

    def log_text(self) -> str:
        if not self._err.closed:
            self._err.flush()
        return self.log.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def server(games, tmp_path_factory):
    srv = Server(games.url, tmp_path_factory.mktemp("serve") / "serve.log")
    yield srv
    code = srv.stop()
    assert code == 0, f"pbm serve exited {code}: {srv.log_text()}"

"""The core commands as a moderator runs them: new-game, games, show, export, map."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sqlalchemy import func, select

from pbm import db as pbm_db
from pbm.cli import app
from pbm.models import Game, Player, PrivateCompany, Railroad

from .conftest import ROOT, Cli


def _commands(typer_app) -> list[list[str]]:
    import typer.main

    group = typer.main.get_command(typer_app)
    paths: list[list[str]] = []

    def walk(command, prefix):
        paths.append(prefix)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*prefix, name])

    walk(group, [])
    return paths


@pytest.mark.parametrize("path", _commands(app), ids=lambda p: " ".join(p) or "pbm")
def test_every_command_has_help(sqlite_url, path):
    result = Cli(sqlite_url)(*path, "--help")
    assert "Usage:" in result.stdout
    assert len(result.stdout.strip().splitlines()) > 3


def test_python_dash_m_pbm_runs():
    out = subprocess.run([sys.executable, "-m", "pbm", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("pbm ")


def test_new_game_show_export(cli, players_csv):
    result = cli("new-game", "continental-rails", "--seed", "7", "--players", players_csv, "--name", "spring")
    out = result.stdout
    assert "Created game spring" in out
    assert "3 human player(s); 12 position(s) played by the computer." in out
    secrets = [line for line in out.splitlines() if line.strip().startswith("#")]
    assert len(secrets) == 3
    assert "Ada Lovelace <ada@example.org> as Countess of Rails" in out
    # Carl asked for "Jay Gould": free, so he gets it (§3.2).
    assert "as Jay Gould:" in out

    shown = cli("show").stdout
    assert "spring" in shown and "Turn 1 (1841), climate Normal" in shown
    assert "Countess of Rails" in shown

    state = json.loads(cli("export", "--json").stdout)
    assert state["game"]["turn"] == 1 and state["game"]["seed"] == 7
    assert state["game"]["climate"] == "Normal" and state["game"]["status"] == "open"
    players = state["players"]
    assert [p["number"] for p in players] == list(range(1, 16))  # §3.1
    assert sum(p["human"] for p in players) == 3
    assert len({p["character"] for p in players}) == 15  # §3.2 unique
    # §3.3: identical cash and identical stock in each initial railroad.
    assert len({p["cash"] for p in players}) == 1
    assert len({json.dumps(p["holdings"]) for p in players}) == 1
    railroads = state["railroads"]
    assert 5 <= len(railroads) <= 7  # Appendix C: "about 6"
    for r in railroads:
        assert 10 <= r["price"] <= 18  # §4.3A1
        assert r["shares_issued"] == r["shares_held_by_players"] + r["shares_public"]
        assert r["shares_authorized"] == r["shares_issued"] + r["treasury_shares"]
        assert r["treasury_shares"] > 0  # §4.2: initial railroads hold treasury stock
        assert r["locomotive"] == 1 and r["lines"] and r["efficiency"] >= 80
        assert players[0]["holdings"] and all(h["shares"] > 0 for h in players[0]["holdings"])
    available = [pc for pc in state["private_companies"] if pc["status"] == "bank"]
    assert 18 <= len(available) <= 22  # Appendix C: "about 20"
    for pc in available:
        assert pc["asking_price"] == 5 * pc["miles"]  # §2.4D
    assert len(state["private_companies"]) == 101


def test_secret_is_stored_only_as_hash(cli, players_csv, db_url):
    from pbm.auth import check_secret

    out = cli("new-game", "cr", "--seed", "3", "--players", players_csv).stdout
    line = next(x for x in out.splitlines() if "Ada Lovelace" in x)
    secret = line.rsplit(":", 1)[1].strip()
    with pbm_db.session_scope(db_url) as s:
        ada = s.scalar(select(Player).where(Player.number == 1))
        assert secret not in ada.secret_hash
        assert check_secret(secret, ada.secret_hash)
        assert check_secret(secret.lower().replace("-", " "), ada.secret_hash)
        assert not check_secret("AAAA-BBBB-CCCC", ada.secret_hash)
    assert secret not in cli("export").stdout


def test_same_seed_same_game(cli):
    cli("new-game", "continental-rails", "--seed", "11", "--name", "a")
    cli("new-game", "continental-rails", "--seed", "11", "--name", "b")
    cli("new-game", "continental-rails", "--seed", "12", "--name", "c")

    def body(name):
        state = json.loads(cli("export", name).stdout)
        state["game"].pop("id"), state["game"].pop("name")
        return state

    assert body("a") == body("b")
    assert body("a") != body("c")


def test_games_lists_and_game_argument_is_needed_when_several(cli):
    assert "No games" in cli("games").stdout
    cli("new-game", "continental-rails", "--seed", "1", "--name", "one")
    cli("new-game", "continental-rails", "--seed", "2", "--name", "two")
    listing = cli("games").stdout
    assert "one" in listing and "two" in listing
    result = cli("show", expect=2)
    assert "holds 2 games (one, two); name one" in result.stderr
    assert "one" in cli("show", "one").stdout
    result = cli("show", "three", expect=2)
    assert "no game 'three'" in result.stderr


def test_duplicate_game_name_refused_and_nothing_half_created(cli, db_url):
    cli("new-game", "continental-rails", "--seed", "1", "--name", "dup")
    result = cli("new-game", "continental-rails", "--seed", "2", "--name", "dup", expect=2)
    assert "already exists" in result.stderr
    with pbm_db.session_scope(db_url) as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 1
        assert s.scalar(select(func.count()).select_from(Player)) == 15
        assert s.scalar(select(func.count()).select_from(PrivateCompany)) == 101
        assert s.scalar(select(func.count()).select_from(Railroad)) >= 5


BAD_FILES = {
    "missing-email": ("name,email\nAda,ada@x.org\nBob,\n", ":3: missing email for 'Bob'"),
    "duplicate-name": ("name,email\nAda,ada@x.org\nada,other@x.org\n", ":3: duplicate name 'ada' (first on line 2)"),
    "duplicate-email": ("name,email\nAda,ada@x.org\nBob,ADA@x.org\n", ":3: duplicate email"),
    "too-many": ("name,email\n" + "".join(f"P{i},p{i}@x.org\n" for i in range(16)), ":17: more than 15 players"),
    "no-email-column": ("name,mail\nAda,ada@x.org\n", ":1: header must have a 'email' column"),
    "unknown-column": ("name,email,colour\nAda,ada@x.org,red\n", ":1: unknown column(s) colour"),
    "bad-csv": ('name,email\n"Ada,ada@x.org\n', "CSV"),
    "extra-fields": ("name,email\nAda,ada@x.org,extra\n", ":2: more fields than the header"),
    "not-an-email": ("name,email\nAda,ada-at-x.org\n", ":2: 'ada-at-x.org' is not an email address"),
    "bad-flag": ("name,email,anonymous\nAda,ada@x.org,perhaps\n", ":2: column 'anonymous' must be yes or no"),
    "empty": ("", "empty players file"),
    "binary": (b"\xff\xfe\x00bad", "not a UTF-8 text file"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_players_file(case, sqlite_url, tmp_path):
    content, expected = BAD_FILES[case]
    path = tmp_path / "players.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    result = Cli(sqlite_url)("new-game", "continental-rails", "--players", path, expect=2)
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert expected in message
    assert "Traceback" not in result.stdout + result.stderr
    with pbm_db.session_scope(sqlite_url) as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 0


def test_missing_players_file(sqlite_url, tmp_path):
    result = Cli(sqlite_url)("new-game", "continental-rails", "--players", tmp_path / "nope.csv", expect=2)
    assert "no such players file" in result.stderr


def test_unknown_title(sqlite_url):
    result = Cli(sqlite_url)("new-game", "monopoly", expect=2)
    assert "unknown title 'monopoly'" in result.stderr


@pytest.mark.parametrize("url,expected", [
    ("postgresql://nobody@127.0.0.1:1/none", "cannot open database"),
    ("nosuchdb://x", "not a usable database URL"),
])
def test_unreachable_database(url, expected):
    result = Cli(url)("games", expect=2)
    assert expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_map_text_and_json(sqlite_url):
    cli = Cli(sqlite_url)
    text = cli("map").stdout
    assert "B&A" in text and "Boston" in text and "NY1" in text
    data = json.loads(cli("map", "--json").stdout)
    assert len(data["routes"]) == 416
    ba = next(r for r in data["routes"] if r["code"] == "B&A")
    assert {ba["a"], ba["b"]} == {"Boston", "Albany"} and ba["miles"] == 201 and ba["kind"] == "PC"
    assert set(data["routes"][0]) >= {"number", "code", "kind", "miles", "a", "b", "name", "double_with"}
    assert set(data["towns"][0]) >= {"name", "state", "lat", "lon", "size", "star", "region"}


def test_postgres_plain_url_is_accepted():
    assert pbm_db.normalize_url("postgresql://u@h/d") == "postgresql+psycopg://u@h/d"
    assert pbm_db.normalize_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert pbm_db.normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_schema_made_by_migrations(db_url):
    engine = pbm_db.get_engine(db_url)
    names = pbm_db.table_names(engine)
    assert "alembic_version" in names
    assert {"games", "players", "railroads", "routes", "towns", "events", "ledger", "snapshots"} <= set(names)


# -- issue 13, item 14: one-line errors, never tracebacks ------------------------------------------

def test_damaged_foreign_or_newer_databases_are_refused_in_one_line(tmp_path):
    import sqlite3

    from tests.conftest import Cli

    def one_line_error(url: str) -> str:
        result = Cli(url)("games", expect=2)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stderr.startswith("Error: ") and result.stderr.strip().count("\n") == 0, result.stderr
        return result.stderr

    junk = tmp_path / "junk.db"
    junk.write_bytes(bytes(range(256)) * 20)
    assert "is not an SQLite database" in one_line_error(f"sqlite:///{junk}")
    good = tmp_path / "good.db"
    Cli(f"sqlite:///{good}")("games")
    cut = tmp_path / "cut.db"
    data = good.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert "is damaged" in one_line_error(f"sqlite:///{cut}")
    newer = tmp_path / "newer.db"
    newer.write_bytes(data)
    with sqlite3.connect(newer) as c:
        c.execute("UPDATE alembic_version SET version_num = '9999_future'")
    c.close()
    assert "made by a newer pbm" in one_line_error(f"sqlite:///{newer}")


def test_hostile_game_names_are_refused_in_one_line(cli, tmp_path):
    for name in ("x" * 10_000, "a\x00b", "a\x01b"):
        result = cli("new-game", "continental-rails", "--name", name, expect=2)
        assert "printable characters" in result.stderr and result.stderr.count("\n") == 1
    assert "No games" in cli("games").stdout


def test_new_game_is_committed_before_it_is_printed(db_url, players_csv):
    """Issue 13, item 15: a reader that goes away (closed pipe) does not roll the new game back."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PBM_DATABASE_URL": db_url}
    proc = subprocess.Popen([sys.executable, "-m", "pbm", "new-game", "continental-rails", "--players",
                             str(players_csv), "--name", "piped"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    proc.stdout.close()  # the reader is gone before pbm prints anything
    proc.wait(timeout=300)
    from tests.conftest import Cli

    assert "piped" in Cli(db_url)("games").stdout

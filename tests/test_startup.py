"""Start-up of the ``pbm`` command (issue 15): each command group loads what it uses when it runs,
and a database already at the newest schema is checked with one SELECT, without Alembic.
(How fast is measured by scripts/bench_cli.py, never by a timed test.)"""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import ROOT

HEAVY = ("sqlalchemy", "alembic", "numpy", "pandas", "reportlab", "rich", "pypdf", "imapclient", "psycopg",
         "pbm.models", "pbm.db", "pbm.cr", "pbm.e18xx", "pbm.mail", "pbm.report", "pbm.pipeline", "pbm.turnsheet")


def _loaded_after(code: str) -> list[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_builds_every_command_without_loading_a_library_or_game():
    loaded = _loaded_after("from pbm.cli import app\nimport typer.main\n"
                           "group = typer.main.get_command(app)\nassert len(group.commands) > 20")
    assert [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []


def test_help_through_the_entry_point_and_its_exit_loads_no_library(tmp_path):
    """``main()`` to the very end: the quick exit (``pbm.cli.root.leave``) closes the database
    connections only if the command opened any; it loads nothing for it.  (Every module the
    process imports, up to its last instruction, is written down as it is looked for.)"""
    log = tmp_path / "imports.txt"
    probe = ("import sys\n"
             "class Watch:\n"
             "    def find_spec(self, name, path=None, target=None):\n"
             f"        with open({str(log)!r}, 'a') as f:\n"
             "            f.write(name + '\\n')\n"
             "sys.meta_path.insert(0, Watch())\n"
             "sys.argv = ['pbm', '--help']\n"
             "from pbm.cli import main\n"
             "main()\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Commands" in done.stdout
    loaded = log.read_text().split()
    assert "pbm.cli.root" in loaded
    assert [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []


def test_help_as_a_process_lists_the_commands_of_every_group():
    done = subprocess.run([sys.executable, "-m", "pbm", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0
    for command in ("new-game", "run-turn", "ingest", "cycle", "records", "18xx"):
        assert f"\n  {command} " in done.stdout


def test_schema_head_is_read_from_the_migrations_as_alembic_reads_it():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from pbm.db import head_revision
    from pbm.resources import migrations_dir

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    assert [head_revision()] == list(ScriptDirectory.from_config(cfg).get_heads())


def test_a_database_at_the_newest_schema_opens_without_alembic(db_url):
    from pbm.db import at_head, get_engine

    engine = get_engine(db_url)  # made (or checked) here
    assert at_head(engine)
    loaded = _loaded_after(f"from pbm.db import get_engine\nget_engine({db_url!r})")
    assert "pbm.db" in loaded and not any(m == "alembic" or m.startswith("alembic.") for m in loaded)


def test_a_database_behind_or_unknown_is_left_to_alembic(tmp_path):
    import sqlite3

    from pbm import db as pbm_db

    url = f"sqlite:///{tmp_path / 'x.db'}"
    engine = pbm_db.get_engine(url)
    with sqlite3.connect(tmp_path / "x.db") as c:
        c.execute("UPDATE alembic_version SET version_num = '0005_report'")
    c.close()
    assert not pbm_db.at_head(engine)
    with sqlite3.connect(tmp_path / "x.db") as c:
        c.execute("DELETE FROM alembic_version")
    c.close()
    assert not pbm_db.at_head(engine)
    assert not pbm_db.at_head(pbm_db.get_engine(f"sqlite:///{tmp_path / 'new.db'}", migrate=False))


# The libraries a simple command must not load (issue 32): reportlab (reports), pandas and numpy,
# pypdf (PDF turnsheets), alembic (schema changes: a database at the newest schema needs none).
REPORTS_AND_DATA = ("reportlab", "pandas", "numpy", "pypdf", "alembic")


def _run_watched(tmp_path, args: list[str], env: dict | None = None) -> tuple[subprocess.CompletedProcess, list[str]]:
    """``pbm ARGS`` through the entry point, to its last instruction; every module it looked for."""
    import os

    log = tmp_path / "imports.txt"
    log.unlink(missing_ok=True)
    probe = ("import sys\n"
             "class Watch:\n"
             "    def find_spec(self, name, path=None, target=None):\n"
             f"        with open({str(log)!r}, 'a') as f:\n"
             "            f.write(name + '\\n')\n"
             "sys.meta_path.insert(0, Watch())\n"
             f"sys.argv = ['pbm', *{args!r}]\n"
             "from pbm.cli import main\n"
             "main()\n")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")} | (env or {})
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=full_env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done, log.read_text().split()


def _heavy(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted({m for m in loaded if m.split(".")[0] in names})


def test_a_moderator_command_and_one_mail_load_no_report_or_data_library(tmp_path):
    """``pbm games`` and ``pbm ingest`` of one emailed sheet (read, checked, stored, answered) need the
    database, not reportlab, pandas, numpy, pypdf or alembic."""
    import mailbox

    from pbm.cr.setup import SeatRequest, create_game
    from pbm.db import session_scope
    from pbm.pipeline.demo import _write_mails

    url = f"sqlite:///{tmp_path / 'g.db'}"
    with session_scope(url) as s:
        created = create_game(s, seed=7, name="light", seats=[
            SeatRequest(line=i + 2, name=f"P{i}", email=f"p{i}@example.org") for i in range(1, 4)])
        secrets = dict(created.secrets)
    box = mailbox.Maildir(str(tmp_path / "all"), create=True)
    _write_mails(url, "light", secrets, box, 1)
    one = mailbox.Maildir(str(tmp_path / "one"), create=True)
    one.add(box[min(box.keys(), key=lambda k: box[k]["Message-ID"])])
    (tmp_path / "pbm.toml").write_text("")
    env = {"PBM_CONFIG": str(tmp_path / "pbm.toml")}

    done, loaded = _run_watched(tmp_path, ["--db", url, "games"], env)
    assert "light" in done.stdout
    assert "sqlalchemy" in loaded and _heavy(loaded, REPORTS_AND_DATA) == []

    done, loaded = _run_watched(tmp_path, ["--db", url, "ingest", "--maildir", str(tmp_path / "one")], env)
    assert "1 accepted" in done.stdout
    assert "pbm.mail.ingest" in loaded and _heavy(loaded, REPORTS_AND_DATA) == []


def test_an_18xx_replay_loads_no_database_or_report_library(tmp_path):
    import pytest

    from pbm.e18xx.fixtures import load_fixture

    export, where = load_fixture("18VA/49936.json")
    if export is None:
        pytest.skip(where)
    done, loaded = _run_watched(tmp_path, ["18xx", "replay", where, "--json"])
    assert json.loads(done.stdout)["result"]
    assert "pbm.e18xx.replay" in loaded
    assert _heavy(loaded, REPORTS_AND_DATA + ("sqlalchemy", "psycopg")) == []

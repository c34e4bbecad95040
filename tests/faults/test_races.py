"""Commands started together (issue 13, items 5-7): exactly-once resolution, reports and sends.

Each pair among ``ingest``, ``run-turn``, ``cycle``, ``send-mail`` and ``rerun-turn`` is started at the
same moment as two processes on the same database; whatever the interleaving, each either does its work
or refuses in one line (another holds the lock), never a traceback.  Then the moderator's next
``pbm cycle`` finishes the week, and: turn 1 was resolved once and archived, every stored mail was
handled, every report went to its player exactly once, and no mail went twice to anyone.
By default a selection of pairs runs once on PostgreSQL; ``PBM_SLOW=1`` runs every pair three times.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter

import pytest
from sqlalchemy import text

from pbm import db as pbm_db
from tests.faults.test_crash import CLOCK, _sent_once, _start, world  # noqa: F401  (fixture)
from tests.mail.smtp import SmtpServer

SLOW = os.environ.get("PBM_SLOW") == "1"
COMMANDS = ["ingest", "run-turn", "cycle", "send-mail", "rerun-turn"]
PAIRS = (list(itertools.combinations_with_replacement(COMMANDS, 2)) * 3 if SLOW else
         [("cycle", "run-turn"), ("run-turn", "run-turn"), ("ingest", "cycle"), ("send-mail", "cycle")])
DATABASES = ["postgresql", "sqlite"] if SLOW else ["postgresql"]


def _argv(run, command: str) -> list[str]:
    f = run.folder
    conf = ["--config", str(f / "pbm.toml")]
    return {
        "ingest": ["ingest", "g", "--maildir", str(f / "md"), "--send", *conf],
        "run-turn": ["run-turn", "g", "--turn", "1"],  # what a script runs: turn 1, exactly once
        "cycle": ["cycle", "--clock", CLOCK, "--maildir", str(f / "md"), "--reports", str(f / "reports"),
                  "--archive", str(f / "archive"), *conf],
        "send-mail": ["send-mail", *conf],
        "rerun-turn": ["rerun-turn", "g", "1"],
    }[command]


@pytest.mark.parametrize("world", DATABASES, indirect=True)
def test_commands_started_together_do_everything_exactly_once(world, tmp_path):  # noqa: F811
    for a, b in PAIRS:
        with SmtpServer() as smtp:
            run = _start(world, tmp_path, smtp)
            env = {**os.environ, "PBM_DATABASE_URL": run.url}
            env.pop("PBM_FAULT_EXIT_AT_COMMIT", None)
            procs = [subprocess.Popen([sys.executable, "-m", "pbm", *_argv(run, c)], env=env, cwd=run.folder,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in (a, b)]
            for c, p in zip((a, b), procs):
                out, err = p.communicate(timeout=600)
                assert "Traceback" not in err and p.returncode in (0, 2), f"{a}+{b}: {c}: {out}\n{err}"
                if p.returncode == 2:
                    assert err.strip().startswith("Error:") and err.strip().count("\n") == 0, f"{a}+{b}: {c}: {err}"
            done = subprocess.run([sys.executable, "-m", "pbm", *_argv(run, "cycle")], env=env, cwd=run.folder,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{a}+{b}: the next cycle: {done.stdout}\n{done.stderr}"
            engine = pbm_db.get_engine(run.url, migrate=False)
            with engine.connect() as c:
                assert c.execute(text("SELECT turn FROM games")).scalar() == 2, f"{a}+{b}: not resolved once"
                states = dict(c.execute(text("SELECT turn, state FROM turn_states")).all())
                assert states.get(1) == "archived", f"{a}+{b}: {states}"
                assert c.execute(text("SELECT count(*) FROM inbound_messages WHERE status IN ('stored', 'error')")
                                 ).scalar() == 0
                reports = Counter(c.execute(text(
                    "SELECT o.key FROM outbox o JOIN send_log l ON l.outbox_id = o.id "
                    "WHERE o.key LIKE 'report:g:1:%' AND l.status = 'sent'")).scalars())
                assert reports == {"report:g:1:1": 1, "report:g:1:2": 1}, f"{a}+{b}: {reports}"
            engine.dispose()
            _sent_once(smtp)

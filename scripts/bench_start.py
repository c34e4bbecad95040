#!/usr/bin/env python3
"""Benchmark: a fresh ``pbm`` process, from its start to its first query and to its end (issue 32, target 4).

Each measure is a new process, run through a small probe that then runs ``pbm``'s own entry point
(``pbm.cli.main``) with the command's arguments.  The probe writes down, in the child, the wall clock
and the process's CPU time when the first SQL statement goes to the database (a SQLAlchemy
``before_cursor_execute`` listener on every engine, put in place when the SQLite database is first
opened, seen by an audit hook, so the probe loads nothing pbm would not); the parent records the wall time
and the CPU time (user + system, ``RUSAGE_CHILDREN``) of the whole process.

Measures: ``pbm --help``; ``pbm games`` (opens the database, one table); ``pbm ingest --maildir`` of
one emailed turnsheet of a 15-seat Continental Rails game (read, authenticate, check, store, queue
the answer); ``pbm 18xx replay FILE --json`` of an 18GA fixture (no database).

Bytecode: ``PYTHONDONTWRITEBYTECODE=1`` (this machine's environment sets it) makes every process
compile pbm's own modules from source; an installed pbm has its ``.pyc`` files.  ``--bytecode
cached`` (the default) gives the processes a bytecode cache in a temporary folder
(``PYTHONPYCACHEPREFIX``), filled by a first, unmeasured run; ``--bytecode none`` measures as the
environment is.

    python scripts/bench_start.py [--runs 9] [--tree DIR ...] [--bytecode cached|none]

With several ``--tree`` (checkouts, e.g. a ``git worktree`` of another commit) the runs alternate
between them, so a slow moment hits each alike.  Targets (issue 32): first query <= 150 ms, a
single mail or a moderator command <= 250 ms.
"""

from __future__ import annotations

import argparse
import json
import mailbox
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path("/work/shared/fixtures/18xx/18GA/18GA_game_end_bankrupt.json")

PROBE = r"""
import atexit, json, os, sys, time
t_start = float(os.environ["BENCH_T0"])
seen = {}

def statement(*args, **kw):
    seen.setdefault("first", (time.time() - t_start, time.process_time()))

def audit(event, args):
    # the database is opened for the first query: pbm has imported SQLAlchemy by now; listen for its
    # first statement (the connection's own set-up statements do not go through the listener)
    if event == "sqlite3.connect" and "connect" not in seen:
        seen["connect"] = (time.time() - t_start, time.process_time())
        from sqlalchemy import event as sa_event
        from sqlalchemy.engine import Engine
        sa_event.listen(Engine, "before_cursor_execute", statement)

sys.addaudithook(audit)

def report():
    with open(os.environ["BENCH_OUT"], "w") as f:
        json.dump({"first": seen.get("first") or seen.get("connect"), "modules": sorted(sys.modules)}, f)

atexit.register(report)  # pbm's quick exit (pbm.cli.root.leave) runs the exit handlers too
sys.argv = ["pbm"] + json.loads(os.environ["BENCH_ARGS"])
from pbm.cli import main
main()
"""


def prepare(folder: Path) -> tuple[Path, Path]:
    """A 15-seat Continental Rails game's database and a Maildir holding player 1's turn-1 sheet."""
    from pbm.clock import utcnow
    from pbm.cr.setup import SeatRequest, create_game
    from pbm.db import close_engines, session_scope
    from pbm.pipeline.demo import _write_mails

    db = folder / "template.db"
    url = f"sqlite:///{db}"
    seats = [SeatRequest(line=i + 2, name=f"Player {i + 1}", email=f"p{i + 1}@example.org") for i in range(15)]
    with session_scope(url) as s:
        created = create_game(s, seed=1841, name="bench", seats=seats)
        created.game.deadline = utcnow() + timedelta(days=7)
        secrets = dict(created.secrets)
    box = mailbox.Maildir(str(folder / "all"), create=True)
    _write_mails(url, "bench", secrets, box, 1)
    one = mailbox.Maildir(str(folder / "one"), create=True)
    first = min(box.keys(), key=lambda k: box[k]["Message-ID"])
    one.add(box[first])
    close_engines()
    return db, folder / "one"


def run(tree: Path, args: list[str], env: dict[str, str], folder: Path, expect: str) -> dict:
    out = folder / "probe.json"
    out.unlink(missing_ok=True)
    env = dict(env, BENCH_ARGS=json.dumps(args), BENCH_OUT=str(out), PYTHONPATH=str(tree))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env["BENCH_T0"] = repr(time.time())
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=tree)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or expect not in done.stdout:
        raise SystemExit(f"pbm {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    probe = json.loads(out.read_text()) if out.exists() else {}
    first = probe.get("first")
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "first_wall": first[0] if first else None, "first_cpu": first[1] if first else None,
            "modules": probe.get("modules", [])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--tree", type=Path, action="append", help="a checkout to measure (repeatable)")
    parser.add_argument("--bytecode", choices=("cached", "none"), default="cached")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    sys.path.insert(0, str(trees[0]))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db, maildir = prepare(folder)
        (folder / "pbm.toml").write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")}
        env["PBM_CONFIG"] = str(folder / "pbm.toml")
        if args.bytecode == "cached":
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"

        def measures(tree: Path) -> dict[str, tuple[list[str], str]]:
            run_db = folder / "run.db"
            shutil.copyfile(db, run_db)
            box = folder / "run-maildir"
            shutil.rmtree(box, ignore_errors=True)
            shutil.copytree(maildir, box)
            url = f"sqlite:///{run_db}"
            return {"--help": (["--help"], "Commands"),
                    "games": (["--db", url, "games"], "bench"),
                    "ingest 1 mail": (["--db", url, "ingest", "--maildir", str(box)], "1 accepted"),
                    "18xx replay": (["18xx", "replay", str(FIXTURE), "--json"], "result")}

        figures: dict[tuple[str, str], list[dict]] = {}
        for round_ in range(args.runs + 1):  # the first round fills the bytecode cache: not counted
            for tree in trees:
                for name in ("--help", "games", "ingest 1 mail", "18xx replay"):
                    cmd, expect = measures(tree)[name]
                    got = run(tree, cmd, env, folder, expect)
                    if round_:
                        figures.setdefault((str(tree), name), []).append(got)
    load = os.getloadavg()
    print(f"bytecode: {args.bytecode}; {args.runs} runs each, alternated; load average now {load[0]:.2f} "
          f"{load[1]:.2f} {load[2]:.2f}")
    print(f"{'tree':<28} {'command':<14} {'wall med':>9} {'cpu med':>8} {'cpu min':>8} {'1st query wall':>15} "
          f"{'1st query cpu':>14}  heavy modules")
    for (tree, name), rows in figures.items():
        med = lambda k: statistics.median(r[k] for r in rows)  # noqa: E731
        fq = [r for r in rows if r["first_wall"] is not None]
        fqw = f"{statistics.median(r['first_wall'] for r in fq) * 1000:>13.0f}ms" if fq else f"{'-':>15}"
        fqc = f"{statistics.median(r['first_cpu'] for r in fq) * 1000:>12.0f}ms" if fq else f"{'-':>14}"
        heavy = sorted({m.split('.')[0] for m in rows[0]["modules"]}
                       & {"reportlab", "pandas", "numpy", "sqlalchemy", "alembic", "psycopg", "pypdf", "rich"})
        print(f"{tree[-28:]:<28} {name:<14} {med('wall') * 1000:>7.0f}ms {med('cpu') * 1000:>6.0f}ms "
              f"{min(r['cpu'] for r in rows) * 1000:>6.0f}ms {fqw} {fqc}  {','.join(heavy) or '-'}")


if __name__ == "__main__":
    main()

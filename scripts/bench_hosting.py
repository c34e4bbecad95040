#!/usr/bin/env python3
"""Benchmark of hosting many games (issue 14, docs/hosting.md).

For each worker count W (default 1, 2, 4): a fresh PostgreSQL database gets N Continental Rails
games due now (default 1,000; --quick: 200), each human seat's turn-1 sheet mailed into a shared
Maildir; then W `pbm worker --once` processes run the whole week (read the mail, close, resolve,
report, archive).  Prints games/minute, p50/p95 seconds per game, the 1→2 worker scaling, and
checks that no game was lost or done twice (turn states, events, accepted sheets, outbox).

    scripts/bench_hosting.py --quick
    scripts/bench_hosting.py --games 1000 --workers 1,2,4 --pg postgresql://postgres@127.0.0.1/postgres
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, select, text  # noqa: E402

from pbm.db import get_engine, normalize_url, session_scope  # noqa: E402
from pbm.hosting import populate  # noqa: E402
from pbm.models import Event, Game, OrderSet, OutboxMessage, TurnState  # noqa: E402


def check(url: str, names: list[str]) -> list[str]:
    """Problems: games not done exactly once."""
    problems = []
    with session_scope(url) as s:
        for game in s.scalars(select(Game).order_by(Game.id)):
            states = [(t.turn, t.state, [h["state"] for h in t.history]) for t in
                      s.scalars(select(TurnState).where(TurnState.game_id == game.id).order_by(TurnState.turn))]
            if game.turn != 2 or [x[:2] for x in states] != [(1, "archived"), (2, "open")] or \
                    states[0][2] != ["open", "closed", "resolved", "reported", "sent", "archived"]:
                problems.append(f"{game.name}: turn {game.turn}, states {states}")
            seqs = list(s.scalars(select(Event.seq).where(Event.game_id == game.id, Event.turn == 1)))
            if len(seqs) != len(set(seqs)):
                problems.append(f"{game.name}: events twice")
            sheets = list(s.scalars(select(OrderSet.status).where(OrderSet.game_id == game.id, OrderSet.turn == 1,
                                                                   OrderSet.source == "email")))
            if sheets != ["accepted"]:
                problems.append(f"{game.name}: sheets {sheets}")
            n = s.scalar(select(func.count()).select_from(OutboxMessage)
                         .where(OutboxMessage.key.like(f"report:{game.name}:1:%")))
            if n != 1:
                problems.append(f"{game.name}: {n} report mails")
    return problems


def run(pg: str, games: int, workers: int, work: Path) -> dict:
    admin = create_engine(normalize_url(pg), isolation_level="AUTOCOMMIT")
    name = f"pbm_bench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = pg.rsplit("/", 1)[0] + "/" + name
    try:
        get_engine(url)
        t0 = time.monotonic()
        names = populate(url, games=games, humans=1, maildir=work / "maildir", seed=1000, prefix="bench")
        setup = time.monotonic() - t0
        pbm = [sys.executable, "-m", "pbm", "--db", url, "worker", "--once", "--maildir", str(work / "maildir"),
               "--reports", str(work / "reports"), "--archive", str(work / "archive")]
        t0 = time.monotonic()
        procs = [subprocess.Popen(pbm, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}) for _ in range(workers)]
        outs = [p.communicate()[0] for p in procs]
        wall = time.monotonic() - t0
        per_game, done = [], Counter()
        for out in outs:
            for line in out.splitlines():
                game, _, rest = line.partition(": ")
                if rest.startswith("archived in "):
                    per_game.append(float(rest.split()[2].rstrip("s")))
                    done[game] += 1
        problems = check(url, names)
        problems += [f"{g}: done {n} times" for g, n in done.items() if n != 1]
        problems += [f"{g}: not done" for g in names if g not in done]
        problems += [f"worker exit {p.returncode}" for p in procs if p.returncode]
        get_engine(url, migrate=False).dispose()
        q = statistics.quantiles(per_game, n=20) if len(per_game) >= 2 else per_game * 19
        return {"workers": workers, "games": games, "setup_s": setup, "wall_s": wall,
                "games_per_min": 60 * games / wall, "p50": statistics.median(per_game), "p95": q[18],
                "problems": problems}
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="200 games")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--pg", default=os.environ.get("PBM_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres"))
    args = ap.parse_args()
    games = 200 if args.quick and args.games == 1000 else args.games
    results = []
    for w in [int(x) for x in args.workers.split(",")]:
        work = Path(tempfile.mkdtemp(prefix=f"pbm-bench-w{w}-"))
        try:
            r = run(args.pg, games, w, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        results.append(r)
        print(f"W={w}: {games} games in {r['wall_s']:.1f}s = {r['games_per_min']:.1f} games/min; "
              f"per game p50 {r['p50']:.2f}s p95 {r['p95']:.2f}s; setup {r['setup_s']:.1f}s; "
              f"{'OK: every game exactly once' if not r['problems'] else 'PROBLEMS: ' + '; '.join(r['problems'][:5])}",
              flush=True)
    by = {r["workers"]: r for r in results}
    if 1 in by and 2 in by:
        print(f"scaling 1 -> 2 workers: {by[2]['games_per_min'] / by[1]['games_per_min']:.2f}x (target >= 1.7x)")
    return 1 if any(r["problems"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())

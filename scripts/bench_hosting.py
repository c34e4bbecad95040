#!/usr/bin/env python3
"""Benchmark of hosting many games (issue 14, docs/hosting.md).

For each worker count W (default 1, 2, 4): a fresh PostgreSQL database gets N Continental Rails
games due now (default 1,000), each human seat's turn-1 sheet mailed into a shared Maildir, and M
18GA games played by email (default 100) with each game's first K moves (default 6) mailed into the
same Maildir, one move a mail from the seat that must make it; then W `pbm worker --once` processes
run the whole week (read the mail, apply the 18GA moves, close, resolve, report, archive).

Prints games/minute, p50/p95 seconds per Continental Rails game, the workers' CPU time, the load
average, the 1→2 worker scaling, and checks that no game was lost or done twice (turn states, events,
accepted sheets, outbox; every 18GA move applied exactly once, every move mail accepted once).

    scripts/bench_hosting.py --quick          # 40 CR + 10 18GA games, W = 1, 2: a couple of minutes
    scripts/bench_hosting.py                  # 1,000 CR + 100 18GA games, W = 1, 2, 4
    scripts/bench_hosting.py --games 200 --ga 20 --workers 1,2 --pg postgresql://postgres@127.0.0.1/postgres
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
from pbm.e18xx.pbem.seed import mail_first_moves
from pbm.turnsheet.seed import populate  # noqa: E402
from pbm.models import Action18, Event, Game, InboundMessage, OrderSet, OutboxMessage, TurnState  # noqa: E402


def check(url: str, names: list[str], moves: dict[str, int]) -> list[str]:
    """Problems: games not done exactly once, 18GA moves lost or applied twice."""
    problems = []
    with session_scope(url) as s:
        for game in s.scalars(select(Game).where(Game.title != "continental-rails").order_by(Game.id)):
            n = s.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == game.id))
            if n != moves.get(game.name):
                problems.append(f"{game.name}: {n} move(s) applied, {moves.get(game.name)} mailed")
        statuses = Counter(dict(s.execute(select(InboundMessage.status, func.count())
                                          .group_by(InboundMessage.status)).all()))
        if statuses != Counter({"accepted": len(names) + sum(moves.values())}):
            problems.append(f"mail: {dict(statuses)}, expected {len(names) + sum(moves.values())} accepted")
        for game in s.scalars(select(Game).where(Game.title == "continental-rails").order_by(Game.id)):
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


def _postgres_cpu() -> float:
    """CPU seconds used so far by the PostgreSQL server processes of this machine (all of them)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            if "postgres" not in fields[0] and "postmaster" not in fields[0]:
                continue
            parts = fields[1].split()  # utime, stime, and the reaped children's (closed connections' backends)
            total += (int(parts[11]) + int(parts[12]) + int(parts[13]) + int(parts[14])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def run(pg: str, games: int, ga: int, moves: int, workers: int, work: Path) -> dict:
    admin = create_engine(normalize_url(pg), isolation_level="AUTOCOMMIT")
    name = f"pbm_bench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = pg.rsplit("/", 1)[0] + "/" + name
    try:
        get_engine(url)
        t0 = time.monotonic()
        mailed = mail_first_moves(url, title="18GA", games=ga, moves=moves, maildir=work / "maildir", seed=3000,
                                  prefix="bench-ga")
        names = populate(url, games=games, humans=1, maildir=work / "maildir", seed=1000, prefix="bench")
        setup = time.monotonic() - t0
        pbm = [sys.executable, "-m", "pbm", "--db", url, "worker", "--once", "--maildir", str(work / "maildir"),
               "--reports", str(work / "reports"), "--archive", str(work / "archive")]
        load0, pg0 = os.getloadavg()[0], _postgres_cpu()
        t0 = time.monotonic()
        logs = [work / f"worker-{i}.log" for i in range(workers)]
        procs = []
        for log in logs:
            with log.open("w") as out:
                procs.append(subprocess.Popen(pbm, stdout=out, stderr=subprocess.STDOUT, text=True, cwd=work,
                                              env={**os.environ, "PYTHONPATH": str(ROOT)}))
        cpu, codes = 0.0, []
        for p in procs:
            _pid, status, usage = os.wait4(p.pid, 0)
            cpu += usage.ru_utime + usage.ru_stime
            codes.append(os.waitstatus_to_exitcode(status))
        wall = time.monotonic() - t0
        load1, pg_cpu = os.getloadavg()[0], _postgres_cpu() - pg0
        per_game, done, spent = [], Counter(), Counter()
        for log in logs:
            for line in log.read_text().splitlines():
                if "; time: " in line:  # the worker's closing summary: where its time went
                    for part in line.split("; time: ", 1)[1].replace("(", ",").replace(")", "").split(","):
                        words = part.split()
                        if words and words[-1].endswith("s"):
                            spent[" ".join(words[:-1])] += float(words[-1].rstrip("s"))
                game, _, rest = line.partition(": ")
                if rest.startswith("archived in "):
                    per_game.append(float(rest.split()[2].rstrip("s")))
                    done[game] += 1
        problems = check(url, names, mailed)
        problems += [f"{g}: done {n} times" for g, n in done.items() if n != 1]
        problems += [f"{g}: not done" for g in names if g not in done]
        problems += [f"worker exit {c}" for c in codes if c]
        get_engine(url, migrate=False).dispose()
        q = statistics.quantiles(per_game, n=20) if len(per_game) >= 2 else per_game * 19
        return {"workers": workers, "games": games, "ga": ga, "moves": sum(mailed.values()), "setup_s": setup,
                "wall_s": wall, "games_per_min": 60 * (games + ga) / wall, "p50": statistics.median(per_game),
                "p95": q[18], "cpu_s": cpu, "pg_cpu_s": pg_cpu, "spent": spent, "load": (load0, load1), "problems": problems}
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=None, help="Continental Rails games (default 1000; quick: 40)")
    ap.add_argument("--ga", type=int, default=None, help="18GA email games (default 100; quick: 10)")
    ap.add_argument("--moves", type=int, default=6, help="moves mailed per 18GA game (default 6)")
    ap.add_argument("--quick", action="store_true", help="40 CR + 10 18GA games, workers 1,2: a couple of minutes")
    ap.add_argument("--workers", default=None, help="worker counts to run (default 1,2,4; quick: 1,2)")
    ap.add_argument("--pg", default=os.environ.get("PBM_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres"))
    args = ap.parse_args()
    games = args.games if args.games is not None else (40 if args.quick else 1000)
    ga = args.ga if args.ga is not None else (10 if args.quick else 100)
    counts = args.workers or ("1,2" if args.quick else "1,2,4")
    print(f"{games} Continental Rails games (one human seat each) + {ga} 18GA games ({args.moves} moves by mail "
          f"each), on {os.cpu_count()} CPU(s); load average now {os.getloadavg()[0]:.2f}", flush=True)
    results = []
    for w in [int(x) for x in counts.split(",")]:
        work = Path(tempfile.mkdtemp(prefix=f"pbm-bench-w{w}-"))
        try:
            r = run(args.pg, games, ga, args.moves, w, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        results.append(r)
        print(f"W={w}: {games + ga} games ({r['moves']} 18GA move mails) in {r['wall_s']:.1f}s = "
              f"{r['games_per_min']:.1f} games/min; CR per game p50 {r['p50']:.2f}s p95 {r['p95']:.2f}s; "
              f"workers' CPU {r['cpu_s']:.1f}s ({r['cpu_s'] / r['wall_s']:.2f} cores), PostgreSQL CPU "
              f"{r['pg_cpu_s']:.1f}s; workers' time: " + ", ".join(f"{k} {v:.1f}s" for k, v in r["spent"].items())
              + f"; load average {r['load'][0]:.2f} -> {r['load'][1]:.2f}; setup {r['setup_s']:.1f}s; "
              f"{'OK: every game and move exactly once' if not r['problems'] else 'PROBLEMS: ' + '; '.join(r['problems'][:5])}",
              flush=True)
    by = {r["workers"]: r for r in results}
    if 1 in by and 2 in by:
        print(f"scaling 1 -> 2 workers: {by[2]['games_per_min'] / by[1]['games_per_min']:.2f}x (target >= 1.7x); "
              f"CPU the workers got: {by[1]['cpu_s'] / by[1]['wall_s']:.2f} -> {by[2]['cpu_s'] / by[2]['wall_s']:.2f} "
              "cores")
        # the same ratio had each worker had a core of its own: throughput per CPU-second the workers got
        eff1, eff2 = (by[1]["games"] + by[1]["ga"]) / by[1]["cpu_s"], (by[2]["games"] + by[2]["ga"]) / by[2]["cpu_s"]
        print(f"CPU-normalised (each worker a core of its own): {2 * eff2 / eff1:.2f}x — games per worker CPU-second "
              f"{eff1:.2f} with 1 worker, {eff2:.2f} with 2")
    return 1 if any(r["problems"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())

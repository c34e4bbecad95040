"""Benchmark: one whole week of a 15-player game — ingest 15 mails, resolve the turn, render 15 reports.

Target: at most 1 s on every week of a 25-turn season (issue 15).  Run:
``python scripts/bench_week.py [--turns N]`` from the project folder; prints the time of each stage of
every week, then the median and the worst week.  ``PBM_RENDER_WORKERS=1`` renders in one process.

Bytes (issue 32): ``--digest FILE`` plays the season with the same secrets and turn key every run and
writes, for every week, the SHA-256 of each report and of every table of the database (times of day
and the secrets' salted hashes left out: they differ from run to run), to FILE as JSON;
``--tree DIR`` runs the ``pbm`` of another checkout (a ``git worktree`` of the starting commit).  Two
runs, one per tree, must write the same file: ``cmp a.json b.json``.
CPU columns: ``cpu`` this process's, ``+workers`` the render worker processes', ``ingest cpu`` and
``resolve cpu`` those stages' (this process), ``render cpu`` the rendering's in both, ``all cpu`` the
week's in every process (issue 32's target 2: at most 1 s).  ``--profile-ingest FILE``: the ingest
stages under cProfile (stats to FILE, the call count printed; the CPU columns then include the profiler).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mailbox
import re
import resource
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--tree" in sys.argv:
    ROOT = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402

from pbm.clock import utcnow  # noqa: E402
from pbm.cr.resolve import run_turn  # noqa: E402
from pbm.cr.setup import SeatRequest, create_game  # noqa: E402
from pbm.db import session_scope  # noqa: E402
from pbm.models import Game  # noqa: E402
from pbm.pipeline.cycle import default_ingester  # noqa: E402
from pbm.pipeline.demo import _write_mails  # noqa: E402
from pbm.report.render import render_turn, render_workers  # noqa: E402


TIMES = re.compile(rb"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?|"
                   rb"[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}")


def table_digests(url: str) -> dict[str, str]:
    """SHA-256 of every table, rows by key; times (columns of dates, and dates written in texts and
    mails), salted secret hashes and the Maildir file names the mails came from, which differ from
    run to run, replaced by a mark."""
    from sqlalchemy import DateTime, inspect, text

    from pbm.db import get_engine

    engine = get_engine(url)
    out = {}
    with engine.connect() as c:
        for table in sorted(inspect(engine).get_table_names()):
            columns = inspect(engine).get_columns(table)
            keys = inspect(engine).get_pk_constraint(table)["constrained_columns"] or [col["name"] for col in columns]
            names = ", ".join(f'"{col["name"]}"' for col in columns)
            timed = [isinstance(col["type"], DateTime) or col["name"] == "secret_hash"
                     or (table == "inbound_messages" and col["name"] == "source")  # the Maildir file's name
                     for col in columns]
            h = hashlib.sha256()
            for row in c.execute(text(f'SELECT {names} FROM "{table}" ORDER BY {", ".join(keys)}')):
                values = []
                for value, drop in zip(row, timed):
                    if drop:
                        value = "<time>" if value is not None else None
                    elif isinstance(value, str):
                        value = TIMES.sub(b"<time>", value.encode()).decode()
                    elif isinstance(value, bytes):
                        value = TIMES.sub(b"<time>", value)
                    values.append(value)
                h.update(repr(values).encode() + b"\n")
            out[table] = h.hexdigest()[:16]
    return out


def week(folder: Path, turns: int, digest: bool = False, profile=None) -> list[dict[str, float]]:
    url = f"sqlite:///{folder / 'bench.db'}"
    seats = [SeatRequest(line=i + 2, name=f"Player {i + 1}", email=f"p{i + 1}@example.org") for i in range(15)]
    with session_scope(url) as s:
        created = create_game(s, seed=1841, name="bench", seats=seats)
        created.game.deadline = utcnow() + timedelta(days=7)  # deadlines are UTC (pbm.clock)
        secrets = dict(created.secrets)
        if digest:  # the same secrets and turn key every run: the same mails, codes and receipts
            from pbm.auth import hash_secret
            from pbm.models import Player

            created.game.turn_key = "0" * 64
            for p in s.scalars(select(Player).where(Player.game_id == created.game.id)):
                secrets[p.number] = f"BNCH-{p.number:04d}-SECR"
                p.secret_hash = hash_secret(secrets[p.number])
    box = mailbox.Maildir(str(folder / "maildir"), create=True)
    figures = []
    for turn in range(1, turns + 1):
        _write_mails(url, "bench", secrets, box, turn)
        row: dict[str, float] = {}
        w0 = _children_cpu()
        c0 = time.process_time()
        t0 = time.perf_counter()
        if profile is not None:
            profile.enable()
        with session_scope(url) as s:
            summary = default_ingester(s, folder / "maildir")
        if profile is not None:
            profile.disable()
        t1 = time.perf_counter()
        c1 = time.process_time()
        with session_scope(url) as s:
            run_turn(s, s.scalar(select(Game).where(Game.name == "bench")))
        t2 = time.perf_counter()
        c2 = time.process_time()
        with session_scope(url) as s:
            result = render_turn(s, s.scalar(select(Game).where(Game.name == "bench")), out=folder / "reports")
        t3 = time.perf_counter()
        row["cpu"] = time.process_time() - c0
        row["ingest_cpu"], row["resolve_cpu"] = c1 - c0, c2 - c1
        row["workers_cpu"] = _children_cpu() - w0  # the render worker processes (ended by now)
        row["render_cpu"] = time.process_time() - c2 + row["workers_cpu"]
        # the maildir keeps old mails: ingest of earlier turns' mails is a duplicate check only
        row.update(ingest=t1 - t0, resolve=t2 - t1, render=t3 - t2, total=t3 - t0, reports=len(result.paths))
        row["ingest_summary"] = summary  # type: ignore[assignment]
        if digest:  # (after the clock stopped)
            row["digest"] = {"reports": {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:16]  # type: ignore
                                         for p in result.paths}, "tables": table_digests(url)}
        figures.append(row)
    return figures


def _children_cpu() -> float:
    """CPU seconds (user + system) of the ended child processes: the render workers."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=3, help="weeks to play (each is measured)")
    parser.add_argument("--digest", type=Path, help="write every week's digests of reports and tables here (JSON)")
    parser.add_argument("--tree", type=Path, help="run the pbm of this checkout")
    parser.add_argument("--profile-ingest", type=Path, metavar="FILE",
                        help="profile the ingest stage of every week (cProfile) and write the stats to FILE")
    args = parser.parse_args()
    profile = None
    if args.profile_ingest is not None:
        import cProfile

        profile = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared
    with tempfile.TemporaryDirectory() as tmp:
        figures = week(Path(tmp), args.turns, digest=args.digest is not None, profile=profile)
    if profile is not None:
        import pstats

        profile.dump_stats(str(args.profile_ingest))
        stats = pstats.Stats(profile)
        print(f"ingest under cProfile: {stats.total_calls:,} function calls ({stats.prim_calls:,} primitive) "
              f"in {len(figures)} weeks; stats in {args.profile_ingest}")
    if args.digest is not None:
        args.digest.write_text(json.dumps([f["digest"] for f in figures], indent=1, sort_keys=True) + "\n")
        print(f"digests of {len(figures)} weeks written to {args.digest} (pbm from {ROOT})")
    print(f"{'turn':>4} {'ingest 15':>10} {'resolve':>9} {'15 reports':>11} {'total':>8} {'cpu':>8} {'+workers':>9} "
          f"{'ingest cpu':>11} {'resolve cpu':>12} {'render cpu':>11} {'all cpu':>8}  mail")
    for i, f in enumerate(figures, start=1):
        print(f"{i:>4} {f['ingest']:>9.3f}s {f['resolve']:>8.3f}s {f['render']:>10.3f}s {f['total']:>7.3f}s {f['cpu']:>7.3f}s "
              f"{f['workers_cpu']:>8.3f}s {f['ingest_cpu']:>10.3f}s {f['resolve_cpu']:>11.3f}s {f['render_cpu']:>10.3f}s "
              f"{f['cpu'] + f['workers_cpu']:>7.3f}s  {f['ingest_summary']}")
    totals = sorted(f["total"] for f in figures)
    median = statistics.median(totals)
    worst = totals[-1]
    per_report = statistics.median(f["render"] for f in figures) / 15
    cpu_per_report = statistics.median(f["render_cpu"] for f in figures) / 15
    print(f"median week: {median:.3f} s; worst week: {worst:.3f} s (turn "
          f"{1 + [f['total'] for f in figures].index(worst)}); target <= 1 s every week: "
          f"{'met' if worst <= 1 else 'NOT met'}; median {per_report * 1000:.0f} ms per report with its map "
          f"({render_workers(15)} render processes; PBM_RENDER_WORKERS sets them), "
          f"{cpu_per_report * 1000:.0f} ms CPU per report (parent and workers)")

if __name__ == "__main__":
    main()

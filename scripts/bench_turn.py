"""Benchmark of the turn engine (targets: a late-game turn ≤ 250 ms; a 25-turn season ≤ 15 s).

    python scripts/bench_turn.py [--runs 7] [--turns 25]
    python scripts/bench_turn.py --late-only [--pg postgresql://postgres@127.0.0.1:5432/postgres]
                                 [--tree /path/to/other/checkout]

``--late-only`` times only ``run_turn`` of the late-game turn (1. below) and prints each
run's wall and CPU time (``time.process_time``: this process only, not the database
server's), the medians and the worst, and the SQL statements one ``run_turn`` sends (an
executemany or a COPY counts once).  ``--pg`` runs it on a scratch PostgreSQL database made (and
dropped) with that administrator URL instead of SQLite.  ``--tree`` imports ``pbm`` from
another checkout (same schema), for alternated A/B runs against ``main``.

1. One late-game turn: a generated map with 60 railroads and 15 tycoons, a few
   busy turns played first (presidents, PCs, RoWs), then the same turn resolved
   several times (each rolled back); the median is printed, for ``run_turn``
   (snapshot + orders + resolution + history) and for the resolution alone.
2. A 25-turn all-computer season on SQLite, one transaction per turn, as
   ``pbm run-turn --until-end`` does: on the synthetic map, and on the real map
   (``pbm.cr.simulate.run_season``, the game ``pbm simulate`` plays), with the time
   spent gathering computer orders and validating them shown apart.

Figures (2 cores, SQLite; docs/cr/engine.md keeps the history):

    before (main a5b3023)   late turn 220–294 ms, run_turn 1.1–1.2 s, season 17–20 s, real map 13–14 s
    after  (cr-tune)        late turn 120–140 ms, run_turn 0.23–0.3 s, season 3.7–4.6 s, real map 4–5 s
    plain rows (issue 15)   run_turn --late-only: SQLite 46–49 ms, PostgreSQL 83–94 ms (docs/speed.md)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--tree" in sys.argv:  # A/B runs: import pbm (and the test helpers) from another checkout
    ROOT = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from sqlalchemy import select  # noqa: E402
from sqlalchemy.orm import sessionmaker  # noqa: E402

from pbm.cr import resolve as resolve_module  # noqa: E402
from pbm.cr.resolve import run_turn  # noqa: E402
from pbm.db import get_engine, session_scope  # noqa: E402
from pbm.models import Game, Railroad  # noqa: E402
from tests.cr.helpers import scripted_orders, synthetic_game  # noqa: E402


def played_late_game(url: str) -> np.random.Generator:
    """The synthetic late game (60 railroads, 15 tycoons, turn 18) after three scripted turns, so it
    has presidents, PCs bought and RoWs; returns the generator the scripted orders came from."""
    with session_scope(url) as s:
        synthetic_game(s, name="late", railroads=60, players=15, cols=18, rows=12, turn=18)
    rng = np.random.default_rng(1)
    for _ in range(3):  # make it a played game: presidents, PCs bought, RoWs
        with session_scope(url) as s:
            g = s.scalar(select(Game).where(Game.name == "late"))
            orders = scripted_orders(s, g, rng)
            resolve_module.resolve_turn(s, g, orders)
            g.turn += 1
    return rng


def late_game_turn(url: str, runs: int) -> tuple[float, float, int]:
    rng = played_late_game(url)
    with session_scope(url) as s:
        g = s.scalar(select(Game).where(Game.name == "late"))
        active = sum(1 for r in s.scalars(select(Railroad).where(Railroad.game_id == g.id))
                     if r.status in ("active", "bankrupt"))
        orders = scripted_orders(s, g, rng)
    factory = sessionmaker(bind=get_engine(url), expire_on_commit=False)
    whole, engine_only = [], []
    for i in range(2 * runs):
        s = factory()
        try:
            g = s.scalar(select(Game).where(Game.name == "late"))
            t = time.perf_counter()
            if i % 2:
                run_turn(s, g, computer_for_missing=True)
                whole.append(time.perf_counter() - t)
            else:
                resolve_module.resolve_turn(s, g, orders)
                engine_only.append(time.perf_counter() - t)
        finally:
            s.rollback()
            s.close()
    return statistics.median(whole), statistics.median(engine_only), active


def late_game_run_turn(url: str, runs: int) -> dict:
    """Only ``run_turn`` of the late-game turn, ``runs`` times (each rolled back): wall and CPU
    seconds of each run and the statements each run sent to the database."""
    from sqlalchemy import event

    played_late_game(url)
    engine = get_engine(url)
    counted = [0]

    def count(*_args) -> None:
        counted[0] += 1

    event.listen(engine, "before_cursor_execute", count)
    from pbm.cr.engine import context as context_module

    copy_rows = getattr(context_module, "copy_rows", None)  # a COPY (PostgreSQL) is a statement too
    if copy_rows is not None:
        def counted_copy(*args, **kwargs):
            counted[0] += 1
            return copy_rows(*args, **kwargs)

        context_module.copy_rows = counted_copy
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    wall, cpu, statements = [], [], []
    try:
        for _ in range(runs):
            s = factory()
            try:
                g = s.scalar(select(Game).where(Game.name == "late"))
                counted[0] = 0
                t, c = time.perf_counter(), time.process_time()
                run_turn(s, g, computer_for_missing=True)
                wall.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
                statements.append(counted[0])
            finally:
                s.rollback()
                s.close()
    finally:
        event.remove(engine, "before_cursor_execute", count)
        if copy_rows is not None:
            context_module.copy_rows = copy_rows
    return {"wall": wall, "cpu": cpu, "statements": statements}


@contextmanager
def scratch_pg(admin: str):
    """A scratch PostgreSQL database (CREATE DATABASE with the admin URL): yields its URL, then drops it."""
    import os
    import uuid

    from sqlalchemy import create_engine, text

    from pbm.db import normalize_url

    name = f"pbm_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    engine = create_engine(normalize_url(admin), isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = normalize_url(admin.rsplit("/", 1)[0] + "/" + name)
    try:
        yield url
    finally:
        get_engine(url, migrate=False).dispose()
        with engine.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


def late_only(args) -> None:
    import os

    def ms(values: list[float]) -> str:
        return " ".join(f"{v * 1000:.0f}" for v in values)

    def report(url: str, where: str) -> None:
        got = late_game_run_turn(url, args.runs)
        print(f"{where}, tree {ROOT}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for key in ("wall", "cpu"):
            values = got[key]
            print(f"  run_turn {key:4} ms: median {statistics.median(values) * 1000:.0f}, "
                  f"worst {max(values) * 1000:.0f}  ({ms(values)})")
        print(f"  statements per run_turn: {sorted(set(got['statements']))}")

    if args.pg:
        with scratch_pg(args.pg) as url:
            report(url, "PostgreSQL")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            report(f"sqlite:///{Path(tmp) / 'bench.db'}", "SQLite")


def season(url: str, turns: int) -> tuple[float, int]:
    with session_scope(url) as s:
        synthetic_game(s, name="season", railroads=6, players=15)
    t = time.perf_counter()
    played = 0
    for _ in range(turns):
        with session_scope(url) as s:
            g = s.scalar(select(Game).where(Game.name == "season"))
            if g.status != "open":
                break
            run_turn(s, g, computer_for_missing=True)
            played += 1
    return time.perf_counter() - t, played


def real_season(url: str, turns: int) -> tuple[float, float, int]:
    """The real-map season; returns (total seconds, seconds gathering orders, turns)."""
    from pbm.cr.simulate import run_season

    spent = [0.0]
    original = resolve_module.gather_orders

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t

    resolve_module.gather_orders = timed
    try:
        summary = run_season(url, seed=100, name="bench-real", turns=turns)
    finally:
        resolve_module.gather_orders = original
    return summary.seconds, spent[0], summary.turns


def verdict(value: float, target: float) -> str:
    return "OK" if value <= target else "OVER TARGET"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--turns", type=int, default=25)
    parser.add_argument("--late-only", action="store_true", help="time only run_turn of the late-game turn")
    parser.add_argument("--pg", help="PostgreSQL administrator URL (with --late-only): a scratch database")
    parser.add_argument("--tree", help="import pbm from this checkout instead (A/B runs)")
    args = parser.parse_args()
    if args.late_only:
        late_only(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        whole, engine, active = late_game_turn(url, args.runs)
        print(f"late-game turn ({active} railroads, 15 tycoons), median of {args.runs} runs: "
              f"resolve_turn {engine * 1000:.0f} ms (target ≤ 250 ms: {verdict(engine, 0.25)}); "
              f"run_turn with snapshot, computer orders and history {whole * 1000:.0f} ms")
        url2 = f"sqlite:///{Path(tmp) / 'season.db'}"
        total, played = season(url2, args.turns)
        print(f"all-computer season (synthetic map): {played} turns in {total:.1f} s on SQLite "
              f"(target ≤ 15 s: {verdict(total, 15)})")
        url3 = f"sqlite:///{Path(tmp) / 'real.db'}"
        total, gathering, played = real_season(url3, args.turns)
        print(f"all-computer season (real map, seed 100): {played} turns in {total:.1f} s on SQLite "
              f"(target ≤ 15 s: {verdict(total, 15)}); computer orders and validation {gathering:.1f} s, "
              f"engine, snapshots and history {total - gathering:.1f} s")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmarks for the 18xx engine: the recorded 18GA game's replay, and the
exact best routes for 3-4 trains on the late-game map of that game; with
``--fixtures 18VA`` the in-process replay of every recorded game of a title, and with
``--fixtures all`` of every recorded game of every title the engine knows, each against the
Ruby engine's time for the same game (``RUBY``, measured: docs/speed.md) and the >= 5x target.
With ``--process`` a whole ``pbm 18xx replay FILE`` process per game instead (start-up,
imports, replay), against the Ruby process (load the engine, load the game).

    python scripts/bench_18xx.py [--repeat N] [--fixtures TITLE|all] [--process]
    python scripts/bench_18xx.py --process --fixtures all --ruby LOADER.rb [--tree DIR]

``--ruby LOADER.rb`` (with ``--process``) runs, alternately with each ``pbm 18xx replay FILE --json``
process, ``ruby LOADER.rb FILE`` (``RACK_ENV=production``: the engine logs nothing) and prints both;
LOADER.rb is a Ruby script outside this repository that loads the 18xx.games engine (four titles)
and the game FILE (issue 32: never commit any of the engine).  ``--tree DIR`` runs the pbm of
another checkout.  CPU is the child's user + system time; wall the process's.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbm.e18xx.fixtures import load_fixture  # noqa: E402
from pbm.e18xx.replay import Replayer, summary  # noqa: E402
from pbm.e18xx import routes as routes_mod  # noqa: E402
from pbm.e18xx.routes import best_routes  # noqa: E402


def timed(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return out, min(times), statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--fixtures", help="replay every recorded game of this title (e.g. 18VA, or all) and stop")
    ap.add_argument("--ruby", help="with --process: a Ruby script loading the 18xx.games engine and FILE")
    ap.add_argument("--tree", help="with --process: run the pbm of this checkout")
    ap.add_argument("--process", action="store_true",
                    help="with --fixtures: time a whole `pbm 18xx replay FILE` process per game")
    args = ap.parse_args()
    if args.process:
        return bench_processes(args.fixtures or "all", args.repeat, args.ruby, args.tree)
    if args.fixtures == "all":
        return bench_all_fixtures(args.repeat)
    if args.fixtures:
        return bench_fixtures(args.fixtures, args.repeat)
    export, where = load_fixture("18GA/18GA_game_end_bank.json")
    if export is None:
        print(f"skipped: {where}")
        return 0
    game, best, med = timed(lambda: Replayer(export).run(), max(1, args.repeat // 2))
    res = summary(game)
    print(f"fixture replay ({len(game.actions)} actions): best {best * 1000:.0f} ms, median {med * 1000:.0f} ms"
          f" -> {res['result']} ({res['end_reason']})")
    g = game
    colors = g.phase.tiles
    sets = {
        "3 trains (3,4,4)": [("a", 3), ("b", 4), ("c", 4)],
        "4 trains (2,3,3,4)": [("a", 2), ("b", 3), ("c", 3), ("d", 4)],
        "3 trains (4,5,6)": [("a", 4), ("b", 5), ("c", 6)],
        "4 trains (4,5,6,8)": [("a", 4), ("b", 5), ("c", 6), ("d", 8)],
    }
    worst = 0.0
    for corp in g.state.corporations:
        for label, trains in sets.items():
            def run():
                g._graph = None  # cold: rebuild the track graph too
                routes_mod._bits.cache_clear()
                return best_routes(g.graph(), corp, trains, colors)
            (total, _), b, m = timed(run, args.repeat)
            worst = max(worst, m)
            print(f"best routes {corp:<4} {label:<20} revenue {total:>4}: best {b * 1000:6.1f} ms, "
                  f"median {m * 1000:6.1f} ms")
    print(f"worst median for best routes: {worst * 1000:.1f} ms (target <= 100 ms); times are CPU time")
    return 0


FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "18xx"
# The Ruby engine (tobymao/18xx at 111f7f6, Ruby 3.1.2 without YJIT, this project's 2-core
# machine, 2026-11-25): per game, (CPU ms of ``Engine::Game.load(data, strict: true)`` in a
# warm process, the lower of two medians of 5 and 9 loads; CPU ms of a whole process that loads
# the engine and that one game, median of 3).  How it was measured: docs/speed.md.
RUBY = {
    "1848/101.json": (80.6, 920),
    "1848/1848_game_end_bank.json": (403.1, 1200),
    "1848/1848_hotseat_game.json": (337.0, 1270),
    "18AL/1446.json": (263.0, 1160),
    "18AL/18AL_game_end_bankrupt.json": (118.6, 940),
    "18AL/4714.json": (134.0, 1060),
    "18AL/hs_pzujrnou_144868.json": (55.5, 920),
    "18GA/18GA_game_end_bank.json": (267.4, 1160),
    "18GA/18GA_game_end_bankrupt.json": (173.5, 1060),
    "18GA/18GA_game_end_stock_market.json": (239.9, 1080),
    "18VA/18VA_game_end_bank.json": (267.5, 1180),
    "18VA/49936.json": (14.8, 770),
    "18VA/hotseat001.json": (10.4, 750),
}
TARGET = 5.0  # in-process: at least 5x faster than Ruby on every game


def bench_fixtures(title: str, repeat: int) -> int:
    """CPU time of an in-process replay (export -> result) of each recorded game of ``title``."""
    if not fixture_times(title, repeat):
        print(f"skipped: no fixtures in {FIXTURES / title}")
    return 0


def fixture_times(title: str, repeat: int) -> list[tuple[str, float, bool]]:
    """(file, median ms, identical result) for each recorded game of ``title``, printed as it goes."""
    from pbm.e18xx.replay import expected_result
    folder = FIXTURES / title
    out = []
    for f in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        export, _ = load_fixture(f"{title}/{f.name}")
        if export is None:
            continue
        game, best, med = timed(lambda: Replayer(export).run(), repeat)
        same = summary(game) == expected_result(export)
        ruby = RUBY.get(f"{title}/{f.name}")
        vs = f", Ruby {ruby[0]:.0f} ms: {ruby[0] / max(med * 1000, 0.01):.1f}x" if ruby else ""
        print(f"{title}/{f.name}: {len(game.actions)} actions, best {best * 1000:.1f} ms, median {med * 1000:.1f} ms"
              f"{vs}, {'identical result' if same else 'RESULT DIFFERS'}", flush=True)
        out.append((f.name, med * 1000, same))
    return out


def bench_all_fixtures(repeat: int) -> int:
    """Every recorded game of every title the engine knows; a line per game and per title at the end."""
    from pbm.e18xx.core.title import known_titles
    titles = [t for t in sorted(known_titles()) if (FIXTURES / t).is_dir()]
    rows = {t: fixture_times(t, repeat) for t in titles}
    print(f"\n{'game':<42} {'ms':>7} {'Ruby ms':>8} {'ratio':>6}")
    worst = None
    for t, got in rows.items():
        for name, ms, same in got:
            ruby = RUBY.get(f"{t}/{name}")
            ratio = ruby[0] / max(ms, 0.01) if ruby else None
            if ratio is not None and (worst is None or ratio < worst[1]):
                worst = (f"{t}/{name}", ratio)
            print(f"{t + '/' + name:<42} {ms:>7.1f} {ruby[0] if ruby else float('nan'):>8.1f} "
                  f"{f'{ratio:.1f}x' if ratio else '-':>6}{'' if same else '  RESULT DIFFERS'}")
    for t, got in rows.items():
        print(f"{t:<6} {len(got)} games, {sum(s for _, _, s in got)}/{len(got)} identical results")
    if worst:
        print(f"slowest against Ruby: {worst[0]} at {worst[1]:.1f}x (target >= {TARGET:.0f}x on every game)")
    print("times are CPU time (median of --repeat replays in this process)")
    return 0


def bench_processes(which: str, repeat: int, ruby: str | None = None, tree: str | None = None) -> int:
    """A whole ``python -m pbm 18xx replay FILE --json`` per game: CPU time of the child and wall time,
    median of ``repeat`` runs, against the Ruby process for the same game (run alternately with ours
    when ``ruby`` names a loader script, else the figures of ``RUBY``, measured in an earlier session)."""
    files = sorted(FIXTURES.glob("*/*.json") if which == "all" else (FIXTURES / which).glob("*.json"))
    root = Path(tree).resolve() if tree else Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    cache = None
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):  # as installed: pbm's modules compiled once, not per process
        import tempfile

        cache = tempfile.TemporaryDirectory()
        env.pop("PYTHONDONTWRITEBYTECODE")
        env["PYTHONPYCACHEPREFIX"] = cache.name
        subprocess.run([sys.executable, "-m", "pbm", "18xx", "replay", str(files[0]), "--json"], env=env, check=True,
                       stdout=subprocess.DEVNULL, cwd=root)
    ruby_env = {**os.environ, "RACK_ENV": "production"}

    def child(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall

    load = os.getloadavg()
    print(f"pbm from {root}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'game':<42} {'CPU ms':>7} {'wall ms':>8} {'Ruby CPU ms':>11} {'Ruby wall':>9} {'CPU ratio':>9}")
    for f in files:
        cpus, walls, rcpus, rwalls = [], [], [], []
        for _ in range(repeat):
            cpu, wall = child([sys.executable, "-m", "pbm", "18xx", "replay", str(f), "--json"], env, root)
            cpus.append(cpu)
            walls.append(wall)
            if ruby:
                cpu, wall = child(["ruby", ruby, str(f)], ruby_env)
                rcpus.append(cpu)
                rwalls.append(wall)
        key = f"{f.parent.name}/{f.name}"
        cpu, wall = statistics.median(cpus) * 1000, statistics.median(walls) * 1000
        if ruby:
            rcpu, rwall = statistics.median(rcpus) * 1000, statistics.median(rwalls) * 1000
        else:
            rcpu, rwall = (RUBY[key][1], float("nan")) if key in RUBY else (float("nan"), float("nan"))
        print(f"{key:<42} {cpu:>7.0f} {wall:>8.0f} {rcpu:>11.0f} {rwall:>9.0f} "
              f"{f'{rcpu / cpu:.1f}x' if rcpu == rcpu else '-':>9}", flush=True)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{'Ruby run alternately' if ruby else 'Ruby: the RUBY table (an earlier session)'}; pbm's bytecode "
          f"{'cached in a temporary folder (PYTHONDONTWRITEBYTECODE was set)' if cache else 'as the environment has it'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Benchmarks for the 18xx engine: the recorded 18GA game's replay, and the
exact best routes for 3-4 trains on the late-game map of that game; with
``--fixtures 18VA`` the in-process replay of every recorded game of a title, and with
``--fixtures all`` of every recorded game of every title the engine knows, with a summary
per title against the 5x-faster-than-Ruby target (the site takes ~100-350 ms per game).

    python scripts/bench_18xx.py [--repeat N] [--fixtures TITLE|all]
"""
from __future__ import annotations

import argparse
import statistics
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
    args = ap.parse_args()
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
RUBY_MS = (100, 350)  # the site's Ruby engine per game; the target is 5x faster


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
        print(f"{title}/{f.name}: {len(game.actions)} actions, best {best * 1000:.0f} ms, median {med * 1000:.0f} ms, "
              f"{'identical result' if same else 'RESULT DIFFERS'}", flush=True)
        out.append((f.name, med * 1000, same))
    return out


def bench_all_fixtures(repeat: int) -> int:
    """Every recorded game of every title the engine knows; a line per title at the end."""
    from pbm.e18xx.core.title import known_titles
    titles = [t for t in sorted(known_titles()) if (FIXTURES / t).is_dir()]
    rows = {t: fixture_times(t, repeat) for t in titles}
    print(f"\n{'title':<6} {'games':>5} {'median ms':>9} {'max ms':>7} {'vs Ruby (100/max-350/med)':>26} identical")
    for t, got in rows.items():
        if not got:
            continue
        ms = sorted(m for _, m, _ in got)
        mid = ms[len(ms) // 2]
        lo, hi = RUBY_MS[0] / ms[-1], RUBY_MS[1] / mid
        print(f"{t:<6} {len(got):>5} {mid:>9.0f} {ms[-1]:>7.0f} {f'{lo:.1f}-{hi:.1f}x':>26} "
              f"{sum(s for _, _, s in got)}/{len(got)}")
    print("times are CPU time of the best-of-median replays; the target is >= 5x (<= 20-70 ms a game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

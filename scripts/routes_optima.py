#!/usr/bin/env python3
"""Print the exact best routes at every recorded ``run_routes`` of every 18xx fixture.

For comparing two versions of the route finder (``pbm/e18xx/routes.py``, ``gauge.py``): run
this script from each tree and diff the outputs, which must be identical (same revenue and
same routes).  Each line: fixture, action id, company, total, then ``train:stops`` per train,
as ``Game.auto_routes`` chooses them in the state just before that action.  With ``--sets``,
at every third such state (titles without gauge routes) also the best routes of that company
for the train sets of ``scripts/bench_18xx.py`` and a lone 4-train.

    python scripts/routes_optima.py [--sets] > optima.txt
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbm.e18xx.gauge import uses_gauge_routes  # noqa: E402
from pbm.e18xx.replay import Replayer  # noqa: E402
from pbm.e18xx.routes import best_routes  # noqa: E402

FIXTURES = ROOT.parent / "shared" / "fixtures" / "18xx"
SETS = [(4,), (3, 4, 4), (2, 3, 3, 4), (4, 5, 6), (4, 5, 6, 8)]


def shown(chosen) -> str:
    return " ".join(f"{t}:{','.join(r.node_ids())}" for t, r in chosen)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", action="store_true", help="also the bench's train sets at every third state")
    ap.add_argument("--fixtures", default=str(FIXTURES), help="the fixtures folder (TITLE/*.json)")
    args = ap.parse_args()
    out = sys.stdout
    t0 = time.process_time()
    for f in sorted(Path(args.fixtures).glob("*/*.json")):
        rp = Replayer(json.loads(f.read_text()))
        apply = rp.apply
        seen = [0]

        def hooked(a, rp=rp, apply=apply, f=f, seen=seen):
            if a.get("type") == "run_routes":
                g = rp.game
                corp = rp.entity(a)
                seen[0] += 1
                name = f"{f.parent.name}/{f.name} {a.get('id')} {corp}"
                try:
                    total, chosen = g.auto_routes(corp)
                    out.write(f"{name} {total} {shown(chosen)}\n")
                except Exception as exc:  # a refusal is an outcome to compare too
                    out.write(f"{name} ERR {type(exc).__name__} {exc}\n")
                if args.sets and not uses_gauge_routes(g) and seen[0] % 3 == 0:
                    for s in SETS:
                        trains = [(f"t{i}", d) for i, d in enumerate(s)]
                        total, chosen = best_routes(g.graph(), corp, trains, g.route_colors())
                        out.write(f"  set {s} {total} {shown(chosen)}\n")
            apply(a)

        rp.apply = hooked
        rp.run()
    print(f"cpu {time.process_time() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Soak: workers on separate hosts, many link cuts (docs/hosting.md, "Workers on separate hosts").

Each round builds the harness of tests/hosting/multihost.py afresh — two `pbm worker` processes in their
own network namespaces, a private PostgreSQL server and a recording SMTP server reached over the veth
links — and cuts host A's link at a point drawn from a seeded generator: for a Continental Rails game,
one of the turn's stop points (right after the claim, inside the resolve step's transaction, or after
the close, resolve, report or send step's commit); for an 18GA game played by email, inside the
transaction of the K-th of its move mails (``handling-K``) or right after its commit (``handled-K``).  The server drops A's sessions, host B takes the work over,
A's link returns.  Each round checks that every step, sheet, move and mail was done exactly once and
that A committed nothing after its claim lapsed.  Needs root, iproute2 and the PostgreSQL server
binaries (the same as the test); about 15-25 s a round on a 2-core machine.

    sudo scripts/multihost.py --cuts 20 --seed 7          # 20 rounds, points drawn from seed 7
    sudo scripts/multihost.py --cuts 5 --kinds cr          # Continental Rails only
    sudo scripts/multihost.py --cuts 5 --no-fence          # shows what the fence prevents

Exit status 1 if any round went wrong; the folder of each such round is kept and named.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hosting.multihost import POINTS, run_cut, run_mail_cut, unavailable  # noqa: E402


def _stop(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")  # so every namespace, link and server is removed on the way out


def classify(result: dict) -> set[str]:
    """lost / doubled / stale / other, from a round's problems."""
    found = set()
    for p in result["problems"]:
        if ("committed" in p and "after its claim" in p) or "'error'" in p or "rendered reports after" in p:
            found.add("stale")  # a write by the host whose claim lapsed (a handled move recorded as an error)
        elif "twice" in p or "distinct" in p:
            found.add("doubled")
        elif "not delivered" in p or "applied," in p or "expected" in p or "queued for" in p:
            found.add("lost")
        else:
            found.add("other")
    if result.get("stale"):
        found.add("stale")
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuts", type=int, default=10, help="rounds, one cut each (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the cut points and the games (default 1)")
    ap.add_argument("--kinds", default="cr,18xx", help="cr, 18xx or both (default cr,18xx)")
    ap.add_argument("--moves", type=int, default=6, help="move mails of each 18GA game (default 6)")
    ap.add_argument("--no-fence", action="store_true", help="take the fence of pbm/locks.py out of the workers")
    ap.add_argument("--json", type=Path, help="write every round's result (without the outputs) here")
    args = ap.parse_args()
    reason = unavailable()
    if reason:
        print(f"multihost: cannot run here: {reason}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    rng = random.Random(args.seed)
    fence = not args.no_fence
    tally: Counter = Counter()
    by_point: dict[str, Counter] = {}
    rounds = []
    bad = []
    start = time.monotonic()
    for n in range(1, args.cuts + 1):
        kind = rng.choice(kinds)
        seed = rng.randrange(1, 10**6)
        folder = Path(tempfile.mkdtemp(prefix=f"pbm-multihost-{n:03d}-"))
        t0 = time.monotonic()
        try:
            if kind == "cr":
                point = rng.choice(POINTS)
                result = run_cut(folder, point=point, fence=fence, seed=seed)
            else:
                inside, at = rng.random() < 0.5, rng.randint(1, args.moves)
                point = f"{'handling' if inside else 'handled'}-{at}"
                result = run_mail_cut(folder, at=at, moves=args.moves, inside=inside, fence=fence, seed=seed)
        except KeyboardInterrupt:
            print("interrupted; cleaned up", file=sys.stderr)
            shutil.rmtree(folder, ignore_errors=True)
            break
        except AssertionError as exc:  # the round did not get through its steps at all
            result = {"point": point, "seed": seed, "problems": [f"did not finish: {str(exc).splitlines()[0]}"],
                      "detail": str(exc)}
        result["kind"], result["seconds"] = kind, round(time.monotonic() - t0, 1)
        kinds_of_trouble = classify(result)
        key = f"{kind}:{point}"
        by_point.setdefault(key, Counter())["tried"] += 1
        tally["tried"] += 1
        if result.get("stale") and not any("after its claim" in p for p in result["problems"]):
            result["problems"].append(f"host A committed {result['stale']} time(s) after its claim had lapsed")
            kinds_of_trouble.add("stale")
        if not result["problems"]:
            tally["survived"] += 1
            by_point[key]["survived"] += 1
            shutil.rmtree(folder, ignore_errors=True)
        else:
            for k in kinds_of_trouble:
                tally[k] += 1
                by_point[key][k] += 1
            (folder / "result.json").write_text(json.dumps({k: v for k, v in result.items() if k != "server_log"},
                                                           indent=1, default=str))
            (folder / "server.log").write_text(result.get("server_log", ""))
            bad.append(folder)
        rounds.append({k: v for k, v in result.items() if k not in ("outputs", "server_log", "detail")})
        print(f"{n:3d}/{args.cuts} {key:<20} seed {seed:<7} {result['seconds']:5.1f}s "
              f"lapse {result.get('lapse_seconds', '-')}s  A: {(result.get('a_unit') or result.get('a_mail') or '-')[:60]}  "
              + ("ok" if not result["problems"] else "PROBLEMS: " + "; ".join(result["problems"])), flush=True)
    print(f"\n{tally['tried']} cut(s) in {time.monotonic() - start:.0f}s (fence {'on' if fence else 'OFF'}): "
          f"{tally['survived']} survived, {tally['lost']} lost, {tally['doubled']} doubled, "
          f"{tally['stale']} with stale writes, {tally['other']} other")
    for key in sorted(by_point):
        c = by_point[key]
        print(f"  {key:<20} tried {c['tried']:3d}  survived {c['survived']:3d}  lost {c['lost']}  "
              f"doubled {c['doubled']}  stale {c['stale']}  other {c['other']}")
    for folder in bad:
        print(f"kept: {folder}")
    if args.json:
        args.json.write_text(json.dumps(rounds, indent=1, default=str))
    return 0 if tally["tried"] == tally["survived"] else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run all-computer Continental Rails seasons and print the calibration table.

    python scripts/simulate.py --seasons 10 [--turns N] [--seed 1] [--jobs 2] [--db URL] [--json out.json]
                               [--report DIR]

The same as ``pbm simulate`` (registered by the engine's CLI); see
``pbm.cr.simulate`` and docs/cr/calibration.md.  By default the games are
written to a scratch SQLite file in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbm.cr.simulate import simulate  # noqa: E402
from pbm.errors import PbmError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=1, help="number of games to play (default 1)")
    parser.add_argument("--turns", type=int, default=None, help="stop each game after N turns (default: play to the end)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first season (default 1)")
    parser.add_argument("--db", default=None, help="database URL (default: a scratch SQLite file)")
    parser.add_argument("--jobs", type=int, default=1, help="seasons played in parallel processes")
    parser.add_argument("--report", type=Path, default=None, help="write facts, per-turn CSV and charts here")
    parser.add_argument("--json", type=Path, default=None, help="also write the report as JSON to this file")
    args = parser.parse_args(argv)
    if args.seasons < 1 or (args.turns is not None and args.turns < 1) or args.jobs < 1:
        parser.error("--seasons, --turns and --jobs must be 1 or more")
    try:
        report = simulate(args.seasons, args.turns, args.seed, args.db, jobs=args.jobs,
                          progress=lambda s: print(f"  {s.name}: {s.turns} turns, {s.seconds:.0f}s", flush=True))
    except PbmError as exc:
        print(f"Error: {exc.message}", file=sys.stderr)
        return 2
    print(report.render())
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.report:
        for path in report.write_report(args.report):
            print(f"wrote {path}")
    return 1 if report.failed or report.undecided else 0


if __name__ == "__main__":
    raise SystemExit(main())

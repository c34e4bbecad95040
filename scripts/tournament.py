#!/usr/bin/env python3
"""Computer tycoons against the naive baseline and against each other (issue 16).

    python scripts/tournament.py [--seasons 20] [--seed 1] [--jobs 2] [--turns N] [--json out.json]
    python scripts/tournament.py --looter [--seasons 30] …

Plays, for each personality (builder, speculator, empire), SEASONS all-computer
seasons with the seats alternating that personality and the ``naive`` baseline
(random legal orders; odd seats the personality: 8 of 15), then SEASONS seasons of
the three personalities together (5 seats each, the default table).  For every
VP category (§1.2) it prints how often each side won, with a 95 % interval,
beside its share of the seats: a personality better than the baseline wins
more than its seat share; at the mixed table no personality should win
everything.  Exit code 1 when a personality does not beat the baseline in the
overall category (Rail Baron) — the interval must lie above one half.

``--looter`` plays instead the "overspend looter" (``ai.LooterPlanner``: the §4.6C overspend
every time it can, then it sells out) in seats 1, 6 and 11 against the three personalities
(issue 31): it prints its wins beside its seat share (20 %) and exits 1 when it wins the Rail
Baron in most seasons (the lower end of the interval above one half).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbm.cr.simulate import simulate, wilson  # noqa: E402

PERSONALITIES = ("builder", "speculator", "empire")
LOOTER_TABLE = ("looter", "builder", "speculator", "empire", "speculator")  # 3 looters of 15 seats


def wins_table(report, sides: tuple[str, ...]) -> list[dict]:
    done = [s for s in report.seasons if s.winners]
    rows = []
    if not done:
        return rows
    seats_total = sum(sum(s.seats.values()) for s in done)
    for cat in sorted({c for s in done for c in s.winners}):
        for side in sides:
            k = sum(1 for s in done if s.winners.get(cat) == side)
            lo, hi = wilson(k, len(done))
            share = sum(s.seats.get(side, 0) for s in done) / max(1, seats_total)
            rows.append({"category": cat, "side": side, "wins": k, "seasons": len(done), "low": round(lo, 3),
                         "high": round(hi, 3), "seat_share": round(share, 3)})
    return rows


def show(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    print("| VP category | side | wins | 95 % CI | seat share |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['category'].replace('_', ' ')} | {r['side']} | {r['wins']} of {r['seasons']} | "
              f"{r['low']:.0%}–{r['high']:.0%} | {r['seat_share']:.0%} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=20, help="seasons per match (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first season of every match")
    parser.add_argument("--jobs", type=int, default=1, help="seasons played in parallel processes")
    parser.add_argument("--turns", type=int, default=None, help="stop each season after N turns")
    parser.add_argument("--json", type=Path, default=None, help="also write the tables as JSON")
    parser.add_argument("--looter", action="store_true", help="the overspend looter against the computers")
    args = parser.parse_args(argv)
    if args.seasons < 1 or args.jobs < 1:
        parser.error("--seasons and --jobs must be 1 or more")
    if args.looter:
        return looter_match(args)
    out: dict[str, list[dict]] = {}
    beaten = True
    for style in PERSONALITIES:
        report = simulate(args.seasons, args.turns, args.seed, None, jobs=args.jobs, seats=(style, "naive"))
        rows = wins_table(report, (style, "naive"))
        out[f"{style} vs naive"] = rows
        show(f"{style} (odd seats) against the naive baseline (even seats), {args.seasons} seasons "
             f"from seed {args.seed}", rows)
        overall = next((r for r in rows if r["category"] == "rail_baron" and r["side"] == style), None)
        if overall is None or overall["low"] <= 0.5:
            beaten = False
    report = simulate(args.seasons, args.turns, args.seed, None, jobs=args.jobs, seats=PERSONALITIES)
    rows = wins_table(report, PERSONALITIES)
    out["mixed"] = rows
    show(f"the three personalities together (5 seats each), {args.seasons} seasons from seed {args.seed}", rows)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print("\n" + ("every personality beats the baseline (Rail Baron interval above one half)" if beaten
                  else "NOT every personality beats the baseline clearly"))
    return 0 if beaten else 1


def looter_match(args) -> int:
    """Issue 31: the overspend looter (seats 1, 6, 11) against the computer personalities."""
    report = simulate(args.seasons, args.turns, args.seed, None, jobs=args.jobs, seats=LOOTER_TABLE)
    sides = ("looter",) + PERSONALITIES
    rows = wins_table(report, sides)
    show(f"the overspend looter (seats 1, 6, 11) against the computers, {args.seasons} seasons from seed "
         f"{args.seed}", rows)
    pres = report.extra.get("presidents") or {}
    print("\noverspent builds a season", pres.get("overspent_builds_per_season"), "; pocketed a season $",
          pres.get("overspend_pocketed_per_season"))
    if args.json:
        args.json.write_text(json.dumps({"looter": rows, "presidents": pres}, indent=2) + "\n", encoding="utf-8")
    overall = next((r for r in rows if r["category"] == "rail_baron" and r["side"] == "looter"), None)
    wins_most = overall is not None and overall["low"] > 0.5
    print("\n" + ("the looter wins most seasons: the computers' defence is not enough" if wins_most
                  else "the looter does not win most seasons"))
    return 1 if wins_most else 0


if __name__ == "__main__":
    raise SystemExit(main())

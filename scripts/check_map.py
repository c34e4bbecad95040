"""Print every Continental Rails route or town that breaks a map constraint.

Usage: python scripts/check_map.py [-v]   (-v also lists every route's factor)
Exit status 1 if anything is wrong.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbm.cr import mapdata as md  # noqa: E402


def problems(m: md.GameMap, verbose: bool = False) -> list[str]:
    out: list[str] = []
    pairs = Counter(frozenset(r.towns) for r in m.routes.values())
    for r in sorted(m.routes.values(), key=lambda r: r.number):
        where = f"{r.number:>3} {r.code:<5} {r.a} - {r.b}"
        if r.a not in m.towns or r.b not in m.towns:
            out.append(f"{where}: unknown town")
            continue
        if r.a == r.b:
            out.append(f"{where}: self-loop")
            continue
        f = m.miles_factor(r)
        if verbose:
            print(f"{where}: {r.miles} mi, crow {m.great_circle_miles(r.a, r.b):.0f}, factor {f:.2f}")
        if not md.MILES_FACTOR_LO <= f <= md.MILES_FACTOR_HI and r.code not in md.MILES_FACTOR_EXCEPTIONS:
            out.append(f"{where}: miles factor {f:.2f} outside band")
        if r.kind == "RoW":
            states = (m.towns[r.a].state, m.towns[r.b].state)
            if not md.row_home_ok(r.code, states):
                out.append(f"{where}: no end in {md.row_prefix(r.code)}")
            if r.era is not None:
                out.append(f"{where}: RoW with an era")
        elif r.era not in md.ERAS:
            out.append(f"{where}: PC without a valid era")
        if pairs[frozenset(r.towns)] > 2:
            out.append(f"{where}: more than two routes between these towns")
        if r.double_with:
            other = m.routes.get(r.double_with)
            if other is None or other.double_with != r.code or frozenset(other.towns) != frozenset(r.towns):
                out.append(f"{where}: double_with {r.double_with} not symmetric")
        elif pairs[frozenset(r.towns)] == 2:
            out.append(f"{where}: double route not marked")
    for name, t in m.towns.items():
        if not m.routes_at(name):
            out.append(f"town {name}: no routes")
        if t.region != m.rule_region(name):
            out.append(f"town {name}: region {t.region}, rule says {m.rule_region(name)}")
    if not m.is_connected():
        out.append("map is not connected")
    return out


def main() -> int:
    m = md.load_map()
    found = problems(m, verbose="-v" in sys.argv)
    for line in found:
        print(line)
    print(f"{len(m.towns)} towns, {len(m.routes)} routes, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())

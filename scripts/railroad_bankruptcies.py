#!/usr/bin/env python3
"""What the railroads that go bankrupt (§4.11B) looked like the turn before (issue 31).

    pbm simulate --seasons 25 --seed 1 --keep-db sqlite:////tmp/seasons.db
    python scripts/railroad_bankruptcies.py sqlite:////tmp/seasons.db

For each railroad-bankrupt event it reads the road in the snapshot of the turn before and that
turn's operations: climate, efficiency, miles, operating profit against interest, random events,
rate-war losses, RoWs built in the four turns before, whether it had a president; then the base
rates over all active road-turns, to compare.  Not part of the test suite."""
import json, sys, statistics
from collections import Counter, defaultdict
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from pbm.models import Event, Snapshot, Game

if len(sys.argv) != 2:
    sys.exit(__doc__)
url = sys.argv[1]
eng = create_engine(url)
rows = []
with Session(eng) as s:
    for g in s.scalars(select(Game)):
        snaps = {sn.turn: json.loads(sn.state) for sn in s.scalars(select(Snapshot).where(Snapshot.game_id == g.id))}
        ops = {}
        built = defaultdict(list)
        kinds = ("operations", "railroad-bankrupt", "row-built", "president-changed", "overspend", "rate-war")
        evs = list(s.scalars(select(Event).where(Event.game_id == g.id, Event.kind.in_(kinds))))
        for e in evs:
            if e.kind == "operations":
                ops[(e.turn, e.railroad)] = e.data or {}
            elif e.kind == "row-built":
                built[e.railroad].append((e.turn, int(e.amount or 0)))
        for e in evs:
            if e.kind != "railroad-bankrupt":
                continue
            t, code = e.turn, e.railroad
            st = snaps.get(t - 1) or {}
            rr = next((r for r in st.get("railroads", []) if r["code"] == code), None)
            op = ops.get((t - 1, code), {})
            op_t = ops.get((t, code), {})
            if rr is None:
                continue
            clim = st["game"]["climate"]
            lines = rr.get("lines", [])
            miles = sum(l["miles"] for l in lines)
            oprofit = op.get("revenue", 0) - op.get("expenses", 0)
            interest = op.get("bond_interest", 0) + op.get("loan_interest", 0)
            recent = [c for (bt, c) in built.get(code, []) if t - 4 <= bt <= t - 1]
            rows.append(dict(game=g.id, turn=t, code=code, climate=clim, eff=rr.get("efficiency"),
                             pres=rr.get("president"), cash=rr.get("cash"), bonds=rr.get("bond_debt"),
                             loans=rr.get("loan_debt"), miles=miles, oprofit=oprofit, interest=interest,
                             events=op.get("events", 0), rate_war=op.get("rate_war", 0), profit=op.get("profit", 0),
                             recent_builds=len(recent), recent_cost=sum(recent), founded=rr.get("founded_turn"),
                             nlines=len(lines)))
print(len(rows), "bankruptcies in", url)
if not rows:
    sys.exit()
def share(f):
    return f"{sum(1 for r in rows if f(r))}/{len(rows)}"
print("climate at t-1:", Counter(r["climate"] for r in rows).most_common())
print("no president:", share(lambda r: not r["pres"]))
print("efficiency <= 60:", share(lambda r: (r["eff"] or 0) <= 60), "; <= 70:", share(lambda r: (r["eff"] or 0) <= 70),
      "; median", statistics.median(r["eff"] or 0 for r in rows))
print("op profit <= 0 at t-1:", share(lambda r: r["oprofit"] <= 0))
print("interest > op profit (>0):", share(lambda r: r["oprofit"] > 0 and r["interest"] > r["oprofit"]))
print("random events > profit before events:", share(lambda r: r["events"] > 0 and r["profit"] + r["events"] >= 0))
print("rate war loss:", share(lambda r: r["rate_war"] > 0))
print("built a RoW in the 4 turns before:", share(lambda r: r["recent_builds"] > 0))
print("one line only:", share(lambda r: r["nlines"] <= 1), "; founded within 4 turns:",
      share(lambda r: (r["founded"] or 0) >= r["turn"] - 4))
print("median debt (bonds+loans)/miles:", statistics.median((r["bonds"] + r["loans"]) / max(1, r["miles"]) for r in rows))
print("median interest / op profit (op>0):", statistics.median([r["interest"] / r["oprofit"] for r in rows if r["oprofit"] > 0] or [0]))
print("turn:", Counter((r["turn"] - 1) // 4 * 4 + 1 for r in rows).most_common())
# base rates over all active road-turns
tot = nopres = loweff = 0
with Session(eng) as s:
    for sn in s.scalars(select(Snapshot)):
        st = json.loads(sn.state)
        for r in st["railroads"]:
            if r["status"] == "active":
                tot += 1
                nopres += not r.get("president")
                loweff += (r.get("efficiency") or 0) <= 60
print(f"base rate over {tot} active road-turns: no president {nopres / max(1, tot):.1%}, efficiency <= 60 {loweff / max(1, tot):.1%}")
np_rows = [r for r in rows if not r["pres"]]
print("no-president bankrupt roads that built a RoW in the 4 turns before:", sum(1 for r in np_rows if r["recent_builds"]), "/", len(np_rows))
print("miles of bankrupt roads: median", statistics.median(r["miles"] for r in rows), "; over 3000:", share(lambda r: r["miles"] > 3000),
      "; over 2000:", share(lambda r: r["miles"] > 2000))
big = tot2 = 0
with Session(eng) as s:
    for sn in s.scalars(select(Snapshot)):
        st = json.loads(sn.state)
        for r in st["railroads"]:
            if r["status"] == "active" and sn.turn >= 17:
                tot2 += 1
                big += (r.get("miles") or 0) > 3000
print(f"base rate turns 17+: over 3000 miles {big / max(1, tot2):.1%} of {tot2}")
for r in rows:
    print(" ", r["turn"], r["code"], r["climate"], "eff", r["eff"], "miles", r["miles"], "op", r["oprofit"], "int", r["interest"], "pres", bool(r["pres"]), "built", r["recent_builds"])

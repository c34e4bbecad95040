"""All-computer seasons for calibration: the rulebook's stated facts against measured values.

``simulate(seasons, turns, seed, url)`` creates ``seasons`` new games (every
position computer-played, §3.1), runs each with the engine
(``pbm.cr.resolve.run_turn``) until it ends (§1.3) or ``turns`` turns have
been played, then reads what happened from the tables the engine writes —
``events``, ``ledger``, ``player_turns``, ``railroad_turns`` and the
start-of-turn ``snapshots`` — and sets each fact the rulebook states beside
the value measured, pass or fail.  The facts and where each comes from:

=====================================  ============================================
fact                                   measured from
=====================================  ============================================
depreciation ≈ 5 a turn (§4.5B)        ``efficiency`` events, ``data.decay``
$10/mile holds efficiency (§4.5B)      ``efficiency`` events: gain per $ vs decay
Excellent → expenses 60–70 % (§4.10B)  ``operations`` events + efficiency after 8.1
efficiency ≤ 50 → costs ≥ revenue      same
public offers ≤ ½ its holding (§6.3A)  ``railroad_turns.data.market`` + snapshots
public bids 10–300 % of offer (§6.3A)  ``railroad_turns.data.market``
panics only after Good+ (§5)           snapshots' climate, turn by turn
climate ≥ Normal on turns 11–12 (§8)   snapshots' climate
bank failures below Normal, ≤ 33 %     ``bank-failure`` events, ledger replay
price ≤ $200, ratio within 20:1        ``railroad_turns.data.market`` (§6.3D)
≈ 6 railroads, ≈ 20 PCs on turn 1      the turn-1 snapshot (Appendix C)
game ends on 21 a quarter of the time  the turn each season ended (§1.3)
someone passes $1,000,000              ``player_turns.net_worth`` (§1.2)
bankruptcies happen, not the norm      ``tycoon-bankrupt`` events (§3.5B)
=====================================  ============================================

Also reported: signs the seasons are alive (PCs bought, incorporated and
merged, RoWs built, presidencies changing hands, loans taken).
"""

from __future__ import annotations

import json
import math
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from pbm.db import session_scope
from pbm.models import Event, Game, LedgerEntry, PlayerTurn, RailroadTurn, Snapshot

CLIMATE_RANK = {"panic": 0, "depression": 1, "mild depression": 2, "recession": 3, "normal": 4,
                "improved": 5, "good": 6, "great": 7, "boom": 8}
_EFF = re.compile(r"efficiency (\d+) → (\d+)")


@dataclass
class Fact:
    """One stated fact of the rulebook beside the measured value."""

    fact: str
    rule: str
    stated: str
    measured: str
    passed: bool | None  # None: no data to judge
    samples: int = 0

    @property
    def verdict(self) -> str:
        return "n/a" if self.passed is None else ("pass" if self.passed else "FAIL")


@dataclass
class SeasonSummary:
    name: str
    turns: int
    ended: bool
    end_turn: int | None
    max_net_worth: int
    bankruptcies: int
    seconds: float


@dataclass
class SimReport:
    seed: int
    seasons: list[SeasonSummary] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    alive: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> list[Fact]:
        return [f for f in self.facts if f.passed is False]

    def table(self) -> str:
        """The calibration table as text (Markdown-compatible)."""
        rows = [("fact", "rule", "stated", "measured", "n", "result")]
        rows += [(f.fact, f.rule, f.stated, f.measured, str(f.samples), f.verdict) for f in self.facts]
        widths = [max(len(r[i]) for r in rows) for i in range(6)]
        out = []
        for k, r in enumerate(rows):
            out.append("| " + " | ".join(c.ljust(widths[i]) for i, c in enumerate(r)) + " |")
            if k == 0:
                out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        return "\n".join(out)

    def render(self) -> str:
        lines = [f"Continental Rails calibration: {len(self.seasons)} season(s), seed {self.seed}", ""]
        for s in self.seasons:
            end = f"ended after turn {s.end_turn}" if s.ended else f"stopped after {s.turns} turns"
            lines.append(f"  {s.name}: {end}; top net worth ${s.max_net_worth:,}; "
                         f"{s.bankruptcies} tycoon bankruptcies; {s.seconds:.1f}s")
        lines += ["", self.table(), "", "Alive: " + ", ".join(f"{k} {v}" for k, v in self.alive.items())]
        failed = self.failed
        lines.append("")
        lines.append(f"{len(self.facts) - len(failed)} of {len(self.facts)} facts pass"
                     + (f"; FAILED: {', '.join(f.fact for f in failed)}" if failed else ""))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "seasons": [s.__dict__ for s in self.seasons],
                "facts": [{**f.__dict__, "verdict": f.verdict} for f in self.facts], "alive": self.alive}


# --------------------------------------------------------------------------- running seasons


def run_season(url: str | None, seed: int, name: str, turns: int | None) -> SeasonSummary:
    """Create one all-computer game and run it to its end (or ``turns`` turns); one commit per turn."""
    from pbm.cr import setup
    from pbm.cr.resolve import run_turn

    started = time.perf_counter()
    with session_scope(url) as session:
        game = setup.create_game(session, seed=seed, name=name).game
        game_id = game.id
    played = 0
    while turns is None or played < turns:
        with session_scope(url) as session:
            game = session.get(Game, game_id)
            if game.status != "open":
                break
            run_turn(session, game)
            played += 1
        if played > 60:  # §1.3 ends with probability 1; a runaway game is a bug worth seeing
            break
    with session_scope(url) as session:
        game = session.get(Game, game_id)
        ended = game.status != "open"
        top = session.scalar(select(func.max(PlayerTurn.net_worth)).where(PlayerTurn.game_id == game_id)) or 0
        bankrupt = session.scalar(select(func.count()).select_from(Event).where(
            Event.game_id == game_id, Event.kind == "tycoon-bankrupt")) or 0
        return SeasonSummary(name=name, turns=played, ended=ended, end_turn=(game.turn if ended else None),
                             max_net_worth=int(top), bankruptcies=int(bankrupt),
                             seconds=time.perf_counter() - started)


def simulate(seasons: int, turns: int | None, seed: int, url: str | None = None, *,
             progress=None) -> SimReport:
    """Run ``seasons`` all-computer games from ``seed`` in the database at ``url`` and measure them."""
    if seasons < 1:
        raise ValueError("seasons must be 1 or more")
    report = SimReport(seed=seed)
    names = []
    with session_scope(url) as session:
        taken = set(session.scalars(select(Game.name)))
    for i in range(seasons):
        base = f"sim-{seed}-{i + 1}"
        name, k = base, 1
        while name in taken:
            k += 1
            name = f"{base}-{k}"
        taken.add(name)
        names.append(name)
        summary = run_season(url, seed + i, name, turns)
        report.seasons.append(summary)
        if progress:
            progress(summary)
    with session_scope(url) as session:
        ids = [session.scalar(select(Game.id).where(Game.name == n)) for n in names]
        data = Measured.load(session, ids)
    report.facts = measure(data, report.seasons, full=turns is None)
    report.alive = data.alive()
    return report


# --------------------------------------------------------------------------- reading the history


@dataclass
class Measured:
    """What the seasons left in the tables, gathered per fact."""

    snapshots: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)  # (game, turn) -> state
    events: list[Event] = field(default_factory=list)
    railroad_turns: list[RailroadTurn] = field(default_factory=list)
    ledger: dict[tuple[int, int], list[LedgerEntry]] = field(default_factory=dict)
    final_climate: dict[int, str] = field(default_factory=dict)

    @classmethod
    def load(cls, session, game_ids: list[int]) -> Measured:
        m = cls()
        for snap in session.scalars(select(Snapshot).where(Snapshot.game_id.in_(game_ids))):
            m.snapshots[(snap.game_id, snap.turn)] = json.loads(snap.state)
        m.events = list(session.scalars(select(Event).where(Event.game_id.in_(game_ids))
                                        .order_by(Event.game_id, Event.turn, Event.seq)))
        m.railroad_turns = list(session.scalars(select(RailroadTurn).where(RailroadTurn.game_id.in_(game_ids))
                                                .order_by(RailroadTurn.game_id, RailroadTurn.turn, RailroadTurn.code)))
        failures = {(e.game_id, e.turn) for e in m.events if e.kind == "bank-failure"}
        for gid, turn in failures:
            m.ledger[(gid, turn)] = list(session.scalars(
                select(LedgerEntry).where(LedgerEntry.game_id == gid, LedgerEntry.turn == turn)
                .order_by(LedgerEntry.seq)))
        for g in session.scalars(select(Game).where(Game.id.in_(game_ids))):
            m.final_climate[g.id] = g.climate
        return m

    def climate_series(self) -> dict[int, list[tuple[int, str]]]:
        """Per game: (turn, climate at the start of that turn), plus the climate after the last turn."""
        out: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for (gid, turn), state in sorted(self.snapshots.items()):
            out[gid].append((turn, state["game"]["climate"]))
        for gid, series in out.items():
            series.append((series[-1][0] + 1, self.final_climate.get(gid, series[-1][1])))
        return out

    def alive(self) -> dict[str, int]:
        kinds = defaultdict(int)
        for e in self.events:
            kinds[e.kind] += 1
        borrowed = kinds["borrow"]
        return {
            "PCs sold": kinds["pc-sold"], "PCs incorporated": kinds["incorporated"],
            "PCs merged": kinds["pc-merged"], "RoWs acquired": kinds["row-acquired"],
            "RoWs built": kinds["row-built"], "railroad mergers": kinds["railroads-merged"],
            "new presidents": kinds["new-president"], "loans taken": borrowed,
            "railroad bankruptcies": kinds["railroad-bankrupt"], "reorganizations": kinds["reorganized"],
        }


def _rank(name: str) -> int:
    return CLIMATE_RANK.get(name.strip().lower(), 4)


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def measure(m: Measured, seasons: list[SeasonSummary], *, full: bool = True) -> list[Fact]:
    facts: list[Fact] = []

    # §4.5B depreciation and maintenance
    eff = [e for e in m.events if e.kind == "efficiency"]
    decays = [int(e.data.get("decay", 0)) for e in eff]
    if decays:
        mean = statistics.fmean(decays)
        facts.append(Fact("capital depreciation per turn", "§4.5B", "about 5 points", f"mean {_fmt(mean)}",
                          4.0 <= mean <= 6.0, len(decays)))
    else:
        facts.append(Fact("capital depreciation per turn", "§4.5B", "about 5 points", "no data", None))
    per_dollar: list[float] = []
    at_ten: list[int] = []
    miles_of = {}
    for (gid, turn), state in m.snapshots.items():
        for r in state["railroads"]:
            miles_of[(gid, turn, r["code"])] = r["miles"]
    for e in eff:
        miles = miles_of.get((e.game_id, e.turn, e.railroad))
        if not miles or not e.amount:
            continue
        per_mile = round(e.amount / miles)
        if per_mile > 0:
            per_dollar.append(int(e.data.get("gain", 0)) / per_mile)
        if per_mile == 10:
            at_ten.append(int(e.data.get("gain", 0)) - int(e.data.get("decay", 0)))
    if len(at_ten) >= 20:
        mean = statistics.fmean(at_ten)
        facts.append(Fact("$10/mile holds efficiency", "§4.5B", "net change ≈ 0 at $10/mile",
                          f"mean net {_fmt(mean)} at $10/mile", abs(mean) <= 1.0, len(at_ten)))
    elif per_dollar and decays:
        net = 10 * statistics.fmean(per_dollar) - statistics.fmean(decays)
        facts.append(Fact("$10/mile holds efficiency", "§4.5B", "net change ≈ 0 at $10/mile",
                          f"10 × {_fmt(statistics.fmean(per_dollar))} gain/$ − decay = {_fmt(net)}",
                          abs(net) <= 1.0, len(per_dollar)))
    else:
        facts.append(Fact("$10/mile holds efficiency", "§4.5B", "net change ≈ 0 at $10/mile", "no data", None))

    # §4.10B expenses by efficiency
    eff_after: dict[tuple[int, int, str], int] = {}
    for e in eff:
        found = _EFF.search(e.text or "")
        if found:
            eff_after[(e.game_id, e.turn, e.railroad)] = int(found.group(2))
    excellent: list[float] = []
    poor: list[float] = []
    for e in m.events:
        if e.kind != "operations":
            continue
        revenue = e.data.get("revenue") or 0
        if revenue <= 0:
            continue
        ratio = (e.data.get("expenses") or 0) / revenue
        level = eff_after.get((e.game_id, e.turn, e.railroad))
        if level is None:
            continue
        if level >= 90:
            excellent.append(ratio)
        elif level <= 50:
            poor.append(ratio)
    facts.append(_expense_fact(excellent, poor))
    facts.append(_poor_fact(poor))

    # §6.3A the public's orders
    offers: list[float] = []
    bid_ratio: list[float] = []
    for rt in m.railroad_turns:
        market = (rt.data or {}).get("market") or {}
        if not market:
            continue
        state = m.snapshots.get((rt.game_id, rt.turn))
        held = None
        if state:
            for r in state["railroads"]:
                if r["code"] == rt.code:
                    held = r["shares_public"]
        offer = market.get("public_offer", 0) or 0
        if held:
            offers.append(offer / held)
        if offer > 0:
            bid_ratio.append((market.get("public_bid", 0) or 0) / offer)
    if offers:
        over = sum(1 for x in offers if x > 0.5) / len(offers)
        facts.append(Fact("public seldom offers over half its holding", "§6.3A", "seldom (≤ 5 % of offers)",
                          f"{over:.1%} over half; max {max(offers):.0%}", over <= 0.05, len(offers)))
    else:
        facts.append(Fact("public seldom offers over half its holding", "§6.3A", "seldom", "no data", None))
    if bid_ratio:
        inside = sum(1 for x in bid_ratio if 0.1 - 1e-9 <= x <= 3.0 + 1e-9) / len(bid_ratio)
        facts.append(Fact("public bids 10–300 % of its offer", "§6.3A", "always within 10–300 %",
                          f"{inside:.1%} within; range {min(bid_ratio):.0%}–{max(bid_ratio):.0%}",
                          inside >= 0.999, len(bid_ratio)))
    else:
        facts.append(Fact("public bids 10–300 % of its offer", "§6.3A", "10–300 %", "no data", None))

    # §5, §8 climate
    series = m.climate_series()
    panics, bad_panics = 0, 0
    war: list[str] = []
    for gid, s in series.items():
        for (t0, c0), (t1, c1) in zip(s, s[1:]):
            if _rank(c1) == 0 and _rank(c0) != 0:
                panics += 1
                if _rank(c0) < 6:
                    bad_panics += 1
        for turn, c in s:
            if turn in (11, 12):
                war.append(c)
    facts.append(Fact("panics only after Good or better", "§5", "every Panic follows Good+",
                      f"{panics} panics, {bad_panics} after a worse climate", bad_panics == 0 if panics else
                      (None if not full else True), panics))
    facts.append(Fact("climate at least Normal in the Civil War", "§8.2", "turns 11–12 ≥ Normal",
                      f"{sum(_rank(c) >= 4 for c in war)} of {len(war)}: " + ", ".join(sorted(set(war))) if war
                      else "not reached", all(_rank(c) >= 4 for c in war) if war else None, len(war)))

    # §11.1 bank failures
    failures = [e for e in m.events if e.kind == "bank-failure"]
    climates = {(gid, t): c for gid, s in series.items() for t, c in s}
    below = [e for e in failures if _rank(climates.get((e.game_id, e.turn), "Normal")) < 4]
    fractions = [f for f in (_failure_fraction(m, e) for e in failures) if f is not None]
    if failures:
        worst = max(fractions) if fractions else float("nan")
        facts.append(Fact("bank failures only below Normal, ≤ 33 %", "§11.1, §5", "below Normal; loss ≤ 33 %",
                          f"{len(below)} of {len(failures)} below Normal; worst loss {worst:.1%}",
                          len(below) == len(failures) and (not fractions or worst <= 0.33 + 1e-9), len(failures)))
    else:
        facts.append(Fact("bank failures only below Normal, ≤ 33 %", "§11.1, §5", "below Normal; loss ≤ 33 %",
                          "none happened", None))

    # §6.3D price bounds
    prices, ratios = [], []
    for rt in m.railroad_turns:
        market = (rt.data or {}).get("market") or {}
        if market.get("start"):
            prices.append(market.get("end", 0))
            ratios.append(market["end"] / market["start"])
        prices.append(rt.end_price)
    if prices:
        cap = (20.0 ** 0.7) * 1.0001
        ok = max(prices) <= 200.0 + 1e-9 and all(1 / cap <= r <= cap for r in ratios)
        facts.append(Fact("stock price bounds", "§6.3D", "end ≤ $200; D/S within 20:1",
                          f"max ${max(prices):.2f}; price ratio {min(ratios, default=1):.3f}–{max(ratios, default=1):.3f}",
                          ok, len(ratios)))

    # Appendix C: the first turn
    firsts = [state for (gid, turn), state in m.snapshots.items() if turn == 1]
    if firsts:
        rrs = [sum(1 for r in s["railroads"] if r["status"] in ("active", "bankrupt")) for s in firsts]
        pcs = [sum(1 for p in s["private_companies"] if p["status"] == "bank") for s in firsts]
        facts.append(Fact("about 6 railroads on turn 1", "App. C", "about 6", f"{statistics.fmean(rrs):.1f}",
                          all(5 <= n <= 7 for n in rrs), len(rrs)))
        facts.append(Fact("about 20 PCs offered on turn 1", "App. C", "about 20", f"{statistics.fmean(pcs):.1f}",
                          all(17 <= n <= 23 for n in pcs), len(pcs)))

    # §1.3 the end
    ended = [s for s in seasons if s.ended]
    if ended and full:
        at21 = sum(1 for s in ended if s.end_turn == 21) / len(ended)
        early = sum(1 for s in ended if s.end_turn is not None and s.end_turn < 21)
        tolerance = 2.5 * math.sqrt(0.25 * 0.75 / len(ended))
        facts.append(Fact("game ends on turn 21 a quarter of the time", "§1.3", "25 %, never before 21",
                          f"{at21:.0%} of {len(ended)}; {early} before turn 21",
                          early == 0 and abs(at21 - 0.25) <= tolerance, len(ended)))
    else:
        facts.append(Fact("game ends on turn 21 a quarter of the time", "§1.3", "25 %",
                          "seasons cut short" if not full else "no season ended", None))

    # §1.2 millionaires, §3.5B bankruptcies
    if full and ended:
        rich = sum(1 for s in seasons if s.max_net_worth > 1_000_000) / len(seasons)
        facts.append(Fact("someone passes $1,000,000 in most seasons", "§1.2", "most seasons (> 50 %)",
                          f"{rich:.0%}; top ${max(s.max_net_worth for s in seasons):,}", rich > 0.5, len(seasons)))
    else:
        facts.append(Fact("someone passes $1,000,000 in most seasons", "§1.2", "most seasons",
                          f"top ${max((s.max_net_worth for s in seasons), default=0):,} (seasons cut short)", None,
                          len(seasons)))
    bankrupt_events = [e for e in m.events if e.kind == "tycoon-bankrupt"]
    per_season = defaultdict(set)
    for e in bankrupt_events:
        per_season[e.game_id].add(e.player_number)
    worst_share = max((len(v) for v in per_season.values()), default=0) / 15
    if full and ended:
        facts.append(Fact("bankruptcies happen but are not the norm", "§3.5B", "some, under half the tycoons",
                          f"{len(bankrupt_events)} in {len(seasons)} seasons; worst season {worst_share:.0%} of tycoons",
                          0 < len(bankrupt_events) and worst_share < 0.5, len(seasons)))
    else:
        facts.append(Fact("bankruptcies happen but are not the norm", "§3.5B", "some, under half",
                          f"{len(bankrupt_events)} so far", None, len(seasons)))
    return facts


def _expense_fact(excellent: list[float], poor: list[float]) -> Fact:
    if not excellent:
        return Fact("Excellent efficiency: expenses 60–70 % of revenue", "§4.10B", "60–70 %", "no data", None)
    mean = statistics.fmean(excellent)
    return Fact("Excellent efficiency: expenses 60–70 % of revenue", "§4.10B", "60–70 %",
                f"mean {mean:.1%} (range {min(excellent):.0%}–{max(excellent):.0%})", 0.60 <= mean <= 0.70,
                len(excellent))


def _poor_fact(poor: list[float]) -> Fact:
    try:
        from pbm.cr.engine.operations import expense_ratio  # the engine's formula, when no road fell that low
    except ImportError:  # pragma: no cover - engine not merged
        expense_ratio = None
    if poor:
        share = sum(1 for r in poor if r >= 1.0) / len(poor)
        return Fact("efficiency ≤ 50: costs ≥ revenue", "§4.10B", "costs ≥ revenue",
                    f"{share:.0%} of cases; mean ratio {statistics.fmean(poor):.2f}", share >= 0.9, len(poor))
    if expense_ratio is not None:
        worst = min(expense_ratio(e) for e in range(1, 51))
        return Fact("efficiency ≤ 50: costs ≥ revenue", "§4.10B", "costs ≥ revenue",
                    f"no road that low; formula gives ≥ {worst:.2f} for 1–50", worst >= 1.0, 0)
    return Fact("efficiency ≤ 50: costs ≥ revenue", "§4.10B", "costs ≥ revenue", "no data", None)


def _failure_fraction(m: Measured, e: Event) -> float | None:
    """The share of the tycoon's cash a bank failure took, replaying the ledger up to it."""
    state = m.snapshots.get((e.game_id, e.turn))
    entries = m.ledger.get((e.game_id, e.turn))
    if not state or entries is None or not e.amount:
        return None
    cash = next((p["cash"] for p in state["players"] if p["number"] == e.player_number), None)
    if cash is None:
        return None
    account = f"player:{e.player_number}"
    for entry in entries:
        if entry.step == "7.4" and entry.source == account and entry.amount == e.amount \
                and "bank failure" in (entry.memo or ""):
            return e.amount / cash if cash > 0 else None
        if entry.target == account:
            cash += entry.amount
        if entry.source == account:
            cash -= entry.amount
    return None


def main(ctx: Any = None, *, seasons: int = 1, turns: int | None = None, seed: int = 1,
         url: str | None = None) -> SimReport:
    """``pbm simulate --seasons N``: run the seasons in a scratch SQLite database (never the
    moderator's games database unless ``url`` is given) and print the calibration table.
    Exits with code 1 when a stated fact fails."""
    import tempfile
    from pathlib import Path

    import typer

    from pbm.errors import PbmError

    if seasons < 1 or (turns is not None and turns < 1):
        raise PbmError("--seasons and --turns must be 1 or more")
    with tempfile.TemporaryDirectory() as tmp:
        report = simulate(seasons, turns, seed, url or f"sqlite:///{Path(tmp) / 'simulate.db'}",
                          progress=lambda s: typer.echo(f"  {s.name}: {s.turns} turns, {s.seconds:.0f}s"))
    typer.echo(report.render())
    if report.failed:
        raise typer.Exit(1)
    return report

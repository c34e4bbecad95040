"""Appendix A step 16: victory points (§1.2), the next climate, new PCs (§2.4C), the end
of the game (§1.3) and the records across games (§11.3)."""

from __future__ import annotations

import math

from sqlalchemy import select

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext
from pbm.cr.engine.privates import private_companies_appear
from pbm.models import GameRecord, Player, Railroad

CATEGORIES = ("robber_baron", "rail_mogul", "rail_builder", "rail_magnate", "rail_prodigal")
MILLION = 1_000_000

# §1.2 Rail Builder bonuses: (key, first region, any of these, points). One award per key per tycoon.
BUILDER_BONUSES = (
    ("atlantic-central/mississippi", "atlantic", ("central", "mississippi"), 5),
    ("central-gulf", "central", ("gulf",), 7),
    ("pacific-midwest/mississippi/gulf", "pacific", ("midwest", "mississippi", "gulf"), 10),
)
# §1.2 Rail Magnate bonuses, every turn.
MAGNATE_BONUSES = (
    ("atlantic", ("central", "mississippi"), 2),
    ("central", ("gulf",), 2),
    ("pacific", ("midwest", "mississippi", "gulf"), 3),
    ("atlantic", ("pacific",), 5),
)


def norm(region: str) -> str:
    return region.strip().lower()


# --------------------------------------------------------------------------- pure rules
def prodigal_points(spending: dict[int, int], points: int = tables.PRODIGAL_POINTS) -> dict[int, int]:
    """§1.2 Rail Prodigal: half the points evenly among those spending ≥ $1,000 (rounded
    down); the unallocated plus the other half in proportion to spending (rounded down);
    what is left, one each from the biggest spender down.

    >>> prodigal_points({1: 15000, 2: 10000, 3: 4000, 4: 1000})
    {1: 13, 2: 9, 3: 5, 4: 3}
    """
    spenders = {n: s for n, s in spending.items() if s >= tables.PRODIGAL_MIN}
    if not spenders:
        return {}
    half = points // 2
    even = half // len(spenders)
    out = {n: even for n in spenders}
    pool = points - even * len(spenders)
    total = sum(spenders.values())
    for n, s in spenders.items():
        out[n] += pool * s // total
    left = points - sum(out.values())
    ranked = sorted(spenders, key=lambda n: (-spenders[n], n))
    i = 0
    while left > 0:
        out[ranked[i % len(ranked)]] += 1
        left -= 1
        i += 1
    return dict(sorted(out.items()))


def mogul_points(dividends: list[int], carried: float) -> tuple[int, float]:
    """§1.2 Rail Mogul: √(dividend) for each railroad a president controls; fractions are
    saved until they make a whole point.  $4 and $2 → 3 VP with 0.41 saved."""
    total = carried + sum(math.sqrt(max(0, d)) for d in dividends)
    whole = math.floor(total + 1e-9)
    return whole, round(total - whole, 6)


def robber_baron_points(worths: dict[int, int], bankrupt: set[int]) -> dict[int, int]:
    """§1.2 Robber Baron: 5 to the richest, 4, 3, 2 to the next, 1 to every other
    non-bankrupt tycoon; tied tycoons share the better rank (ruling E-1.2a)."""
    ranked = sorted(worths, key=lambda n: (-worths[n], n))
    out: dict[int, int] = {}
    for i, n in enumerate(ranked):
        if n in bankrupt:
            out[n] = 0
            continue
        better = sum(1 for m in ranked if worths[m] > worths[n])
        out[n] = {0: 5, 1: 4, 2: 3, 3: 2}.get(better, 1)
    return out


def magnate_points(regions: set[str]) -> int:
    """§1.2 Rail Magnate: 1 a region plus the link bonuses."""
    regions = {norm(r) for r in regions}
    points = len(regions)
    for first, others, bonus in MAGNATE_BONUSES:
        if first in regions and regions & set(others):
            points += bonus
    return points


def baron_points(scores: dict[int, dict[str, int]]) -> dict[int, int]:
    """§1.2 Rail Baron: the sum over the five categories of 100 × score ÷ the best score."""
    best = {c: max((s[c] for s in scores.values()), default=0) for c in CATEGORIES}
    return {n: sum(math.floor(100 * max(0, s[c]) / best[c] + 1e-9) for c in CATEGORIES if best[c] > 0)
            for n, s in scores.items()}


# --------------------------------------------------------------------------- the step
def victory_points(ctx: TurnContext) -> None:
    """Step 16 (§1.2): all six categories."""
    state = dict(ctx.game.state or {})
    award_robber_baron(ctx, state)
    award_mogul(ctx)
    award_builder(ctx, state)
    award_magnate(ctx)
    award_prodigal(ctx)
    award_baron(ctx)
    ctx.game.state = state


def award_robber_baron(ctx: TurnContext, state: dict) -> None:
    worths = ctx.net_worths()
    for n, p in ctx.players.items():
        p.net_worth = worths[n]
    for n, pts in robber_baron_points(worths, ctx.scratch.bankrupt_players).items():
        ctx.players[n].vp_robber += pts
    if not state.get("million_awarded"):
        rich = [n for n, w in worths.items() if w > MILLION]
        for n in rich:
            ctx.players[n].vp_robber += 5
            ctx.players[n].million_bonus = True
            ctx.event("16", "§1.2", "million", f"{ctx.players[n].character} is the first tycoon worth a million!",
                      player=n, headline=True)
        if rich:
            state["million_awarded"] = True


def _survivor(ctx: TurnContext, code: str) -> Railroad:
    rr = ctx.railroads[code]
    while rr.status == "merged" and rr.merged_into_id is not None:
        rr = ctx.railroad_by_id[rr.merged_into_id]
    return rr


def award_mogul(ctx: TurnContext) -> None:
    """§1.2 Rail Mogul: +1 to each start-of-turn director; the president √dividends; none
    from a road that owes him money at the end of the turn; −5 for a road that went
    bankrupt or was reorganized (ruling E-1.2b: the president's +1 is withheld too)."""
    by_president: dict[int, list[int]] = {}
    for code, directors in ctx.scratch.directors_at_start.items():
        president = ctx.scratch.president_at_start.get(code)
        owes = _survivor(ctx, code).president_debt > 0
        for n in directors:
            if n == president and owes:
                continue
            ctx.players[n].vp_mogul += 1
        if president is not None and not owes:
            by_president.setdefault(president, []).append(ctx.scratch.dividends_paid.get(code, 0))
        if president is not None and code in ctx.scratch.failed_roads:
            ctx.players[president].vp_mogul -= 5
    for n, dividends in sorted(by_president.items()):
        p = ctx.players[n]
        whole, p.mogul_fraction = mogul_points(dividends, p.mogul_fraction)
        p.vp_mogul += whole


def award_builder(ctx: TurnContext, state: dict) -> None:
    """§1.2 Rail Builder: 2 VP a newly linked region (doubled for the first railroad to link
    it) and the link bonuses (doubled for the first railroad), to the start-of-turn president."""
    linked = set(state.get("regions_linked", []))
    bonus_linked = set(state.get("bonus_linked", []))
    done: set[str] = set()
    survivor = {c: _survivor(ctx, c).code for c in ctx.scratch.active_at_start}  # (no road merges here)
    for code in list(ctx.scratch.active_at_start):
        rr = _survivor(ctx, code)
        if rr.code in done or rr.status not in ("active", "bankrupt"):
            continue
        done.add(rr.code)
        president = ctx.scratch.president_at_start.get(rr.code)
        code = rr.code
        before = set().union(*(ctx.scratch.start_regions.get(c, set()) for c in ctx.scratch.active_at_start
                               if survivor[c] == code))
        before = {norm(r) for r in before}
        now = {norm(r) for r in ctx.regions_of(rr)}
        new = sorted(now - before)
        player = ctx.players.get(president) if president is not None else None
        points = 0
        for region in new:
            points += 4 if region not in linked else 2
        for key, first, others, bonus in BUILDER_BONUSES:
            had = first in before and bool(before & set(others))
            has = first in now and bool(now & set(others))
            if has and not had and player is not None and key not in (player.bonuses_claimed or []):
                points += 2 * bonus if key not in bonus_linked else bonus
                player.bonuses_claimed = sorted(set(player.bonuses_claimed or []) | {key})
            if has:
                bonus_linked.add(key)
        linked |= now
        if player is not None and points:
            player.vp_builder += points
            ctx.event("16", "§1.2", "builder", f"{player.character} earned {points} Rail Builder points as the "
                      f"{rr.code} reached {', '.join(r.title() for r in new) or 'new regions'}.",
                      player=player.number, railroad=rr.code, headline=True)
    for rr in ctx.active():
        linked |= {norm(r) for r in ctx.regions_of(rr)}
        regions = {norm(r) for r in ctx.regions_of(rr)}
        for key, first, others, _ in BUILDER_BONUSES:
            if first in regions and regions & set(others):
                bonus_linked.add(key)
    state["regions_linked"] = sorted(linked)
    state["bonus_linked"] = sorted(bonus_linked)


def award_magnate(ctx: TurnContext) -> None:
    """§1.2 Rail Magnate: regions of each president's system — one railroad, or two he
    controls that connect; else the better one.  Presidents of the start of the turn."""
    roads: dict[int, list[Railroad]] = {}
    for code, n in ctx.scratch.president_at_start.items():
        if n is None:
            continue
        rr = _survivor(ctx, code)
        if rr.status in ("active", "bankrupt") and rr not in roads.setdefault(n, []):
            roads[n].append(rr)
    for n, rrs in sorted(roads.items()):
        sets = [ctx.regions_of(r) for r in rrs]
        best = max(magnate_points(s) for s in sets)
        if len(rrs) >= 2 and ctx.towns_of(rrs[0]) & ctx.towns_of(rrs[1]):
            best = max(best, magnate_points(sets[0] | sets[1]))
        ctx.players[n].vp_magnate += best


def award_prodigal(ctx: TurnContext) -> None:
    for n, pts in prodigal_points(ctx.scratch.prodigal).items():
        ctx.players[n].vp_prodigal += pts
        ctx.event("16", "§1.2", "prodigal-points", f"{ctx.players[n].character} earned {pts} Prodigal points.",
                  player=n, headline=True)


def scores(p: Player) -> dict[str, int]:
    return {"robber_baron": p.vp_robber, "rail_mogul": p.vp_mogul, "rail_builder": p.vp_builder,
            "rail_magnate": p.vp_magnate, "rail_prodigal": p.vp_prodigal}


def award_baron(ctx: TurnContext) -> None:
    """§1.2 Rail Baron: recalculated each turn, never cumulative."""
    for n, pts in baron_points({n: scores(p) for n, p in ctx.players.items()}).items():
        ctx.players[n].vp_baron = pts


# --------------------------------------------------------------------------- end of turn
def end_of_turn(ctx: TurnContext) -> None:
    """Step 16: the new climate takes effect, PCs appear for next turn, the game may end."""
    if ctx.new_climate.name != ctx.game.climate:
        ctx.game.climate = ctx.new_climate.name
    private_companies_appear(ctx)
    if ctx.turn >= tables.RANDOM_END_FROM and float(ctx.rng("game-end").random()) < tables.RANDOM_END_CHANCE:
        ctx.scratch.game_over = True
        ctx.game.status = "finished"
        ctx.event("16", "§1.3", "game-over", f"The game ends after turn {ctx.turn}.", headline=True)
        record_results(ctx)


def all_scores(p: Player) -> dict[str, int]:
    return {**scores(p), "rail_baron": p.vp_baron}


def record_results(ctx: TurnContext) -> None:
    """§1.3, §11.3: category winners, and records across all games of the title."""
    session = ctx.session
    title = ctx.game.title
    existing = {r.category: r for r in session.scalars(select(GameRecord).where(GameRecord.title == title))}
    for category in (*CATEGORIES, "rail_baron"):
        best = max(ctx.players.values(), key=lambda p: (all_scores(p)[category], -p.number))
        value = all_scores(best)[category]
        ctx.event("16", "§1.3", "category-winner", f"{best.character} wins {category.replace('_', ' ').title()} "
                  f"with {value} points.", player=best.number, headline=True, data={"category": category})
        record = existing.get(category)
        beats = record is None or value > record.value or (category == "rail_baron" and value >= 500)
        if beats:
            if record is None:
                record = GameRecord(title=title, category=category)  # (its values are set below)
                session.add(record)
            record.value, record.holder, record.game_name, record.turn = float(value), best.character, ctx.game.name, ctx.turn
            ctx.event("16", "§11.3", "record", f"A new record: {best.character} scored {value} in "
                      f"{category.replace('_', ' ').title()}.", player=best.number, headline=True)

"""Routes for titles whose trains come in kinds: passenger, freight and doubler
(e.g. ``2``/``1G``/``4D``), with off-map stop groups named in title data.

Title data ``stop_groups`` names the special stops:

* ``offmap_city``: red cities, at a route's end; their value doubles for a
  company with a station there (a doubler: x4 with a station, x2 without);
* ``cmd``: coal districts, freight trains only, not counted against the train
  number; a freight train ``nG`` adds ``cmd_bonus`` x (n - 1) to the printed
  value, and with the company's station there (while the phase has status
  ``cmd_token_bonus``) ``cmd_bonus`` x n more goes to the treasury;
* ``mine``: towns that only freight trains count (never against the number);
* ``port``: off-boards joined to a city (``{"port hex": "city hex"}``), not
  counted against the train number, usable only with the company's station in
  that city; a freight train doubles city + port, a doubler the port.

A train ``n`` (passenger) visits at most n cities, ``nG`` (freight) at most n,
whose name is one less than its passenger side, a doubler ``nD`` n cities whose
plain-city values double.  A route needs two paying stops besides a port.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

from pbm.e18xx.routes import Route, all_routes
from pbm.e18xx.core.track import NodeKey

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


@dataclass(frozen=True)
class KindedRoute:
    route: Route  # its own ``revenue`` is the plain sum of the stops; ``revenue`` here is the train's
    revenue: int
    subsidy: int


@lru_cache(maxsize=256)
def train_number(variant: str) -> int:
    digits = "".join(ch for ch in variant if ch.isdigit())
    return int(digits or 0)


class StopGroups:
    def __init__(self, data: dict):
        self.offmap = frozenset(data.get("offmap_city", []))
        self.cmd = frozenset(data.get("cmd", []))
        self.mine = frozenset(data.get("mine", []))
        self.port = dict(data.get("port", {}))
        self.cmd_bonus = int(data.get("cmd_bonus", 20))

    def group(self, coord: str) -> str | None:
        if coord in self.offmap:
            return "offmap"
        if coord in self.cmd:
            return "cmd"
        if coord in self.port:
            return "port"
        if coord in self.mine:
            return "mine"
        return None


def _count_fn(groups: StopGroups, m):
    def count(key: NodeKey) -> int:
        node = m.tile(key[0]).nodes[key[1]]
        if node.kind != "city" or key[0] in groups.cmd:
            return 0
        return 1
    return count


def _raw_routes(game: "Engine", corp: str, n: int) -> list[Route]:
    """Every route of at most ``n`` counted cities for ``corp`` (cached per map version)."""
    g = game.graph()
    m = g.map
    colors = game.route_colors()
    cache = game.__dict__.setdefault("_kinded_cache", {})
    key = ("raw", m.version, id(m), corp, colors)
    got = cache.get(key)
    if got is None or got[0] < n:
        if len(cache) > 64:
            cache.clear()
        # enumerate once for the company's longest train; shorter trains take a subset
        s = game.state
        most = max([n] + [train_number(s.trains[t].variant or s.trains[t].name)
                          for t in s.corporations[corp].trains])
        got = cache[key] = (most, all_routes(g, corp, most, colors, count=_count_fn(game.stop_groups(), m)))
    if got[0] == n:
        return got[1]
    return [r for r in got[1] if r.stops <= n]


def routes_for(game: "Engine", corp: str, variant: str, kind: str) -> list[KindedRoute]:
    """Every legal route of a train ``variant`` of ``kind`` for ``corp``, valued."""
    groups: StopGroups = game.stop_groups()
    m = game.state.map
    cache = game.__dict__.setdefault("_kinded_cache", {})
    key = ("valued", m.version, id(m), corp, variant, kind, game.state.phase,
           tuple(sorted(game.state.assignments.items())))
    got = cache.get(key)
    if got is None:
        got = []
        for r in _raw_routes(game, corp, train_number(variant)):
            kr = evaluate(game, corp, r, variant, kind, groups)
            if kr is not None:
                got.append(kr)
        cache[key] = got
    return got


def _node_key(node_id: str) -> NodeKey:
    coord, _, idx = node_id.rpartition("-")
    return (coord, int(idx)) if idx.isdigit() else (node_id, -1)


def routes_through(game: "Engine", corp: str, variant: str, kind: str, node_ids: Sequence[str]) -> list[KindedRoute]:
    """The legal routes of a train visiting exactly ``node_ids`` (any order), best first."""
    want = frozenset(node_ids)
    keys = frozenset(_node_key(x) for x in want)
    groups: StopGroups = game.stop_groups()
    g = game.graph()
    out = []
    raw = all_routes(g, corp, train_number(variant), game.route_colors(), count=_count_fn(groups, g.map), only=keys,
                     complete=True)  # only routes through every named stop can match
    for r in raw:
        if len(r.nodes) == len(want) and frozenset(r.node_ids()) == want:
            kr = evaluate(game, corp, r, variant, kind, groups)
            if kr is not None:
                out.append(kr)
    out.sort(key=lambda k: (-k.revenue, bin(k.route.mask).count("1")))
    return out


def evaluate(game: "Engine", corp: str, r: Route, variant: str, kind: str, groups: StopGroups) -> KindedRoute | None:
    m = game.state.map
    colors = game.route_colors()
    n = train_number(variant)
    seen_groups: dict[str, int] = {}
    paying = 0
    cities = 0
    base = 0
    plain = 0
    offmap_val = 0
    offmap_tokened = False
    port_val = 0
    port_city: str | None = None
    has_cmd = False
    cmd_tokened = False
    for key in r.nodes:
        coord = key[0]
        node = m.tile(coord).nodes[key[1]]
        grp = groups.group(coord)
        if grp in ("offmap", "cmd", "port"):
            seen_groups[grp] = seen_groups.get(grp, 0) + 1
        value = node.revenue_for(colors)
        if grp == "cmd":
            if kind != "freight":
                return None
            has_cmd = True
            cmd_tokened = m.city_has(key, corp)
            base += value
            paying += 1
        elif grp == "port":
            port_val = value
            port_city = groups.port[coord]
            base += value
        elif node.kind == "town":
            if kind == "freight":
                base += value
                paying += 1
        else:
            cities += 1
            paying += 1
            base += value
            if grp == "offmap":
                offmap_val = value
                offmap_tokened = m.city_has(key, corp)
            else:
                plain += value
    if any(v > 1 for v in seen_groups.values()):
        return None  # 4.5.5: at most one off-map area of each type
    if paying < 2 or cities > n:
        return None
    if port_city is not None:
        if not m.hex_has_token(port_city, corp) or port_city not in {k[0] for k in r.nodes}:
            return None
    revenue = base
    bonus = game.assigned_bonus(corp, {k[0] for k in r.nodes}, kind)
    revenue += bonus
    if kind == "doubler":
        revenue += plain
        if offmap_val:
            revenue += (3 if offmap_tokened else 1) * offmap_val
    elif offmap_tokened:
        revenue += offmap_val
    if port_city is not None and kind in ("freight", "doubler"):
        revenue += port_val
        if kind == "freight":
            city_key = next(k for k in r.nodes if k[0] == port_city)
            revenue += m.tile(port_city).nodes[city_key[1]].revenue_for(colors)
    subsidy = 0
    if has_cmd:
        revenue += groups.cmd_bonus * (n - 1)
        if cmd_tokened and "cmd_token_bonus" in game.phase.status:
            subsidy = groups.cmd_bonus * n
    return KindedRoute(r, revenue, subsidy)


def best_kinded(game: "Engine", corp: str, trains: Sequence[str]) -> tuple[int, list[tuple[str, KindedRoute]]]:
    """Exact best combination (revenue + subsidy) for ``trains`` (ids), branch and bound."""
    s = game.state
    pools: list[list[KindedRoute]] = []
    for tid in trains:
        t = s.trains[tid]
        pool = routes_for(game, corp, t.variant or t.name, t.kind)
        pool.sort(key=lambda k: -(k.revenue + k.subsidy))
        pools.append(pool)
    order = sorted(range(len(trains)), key=lambda i: -(pools[i][0].revenue + pools[i][0].subsidy) if pools[i] else 0)
    best_total = 0
    best_pick: list[tuple[int, KindedRoute]] = []
    tops = [(pools[i][0].revenue + pools[i][0].subsidy) if pools[i] else 0 for i in order]
    rest = [sum(tops[j:]) for j in range(len(order) + 1)]

    def search(j: int, mask: int, total: int, pick: list[tuple[int, KindedRoute]]) -> None:
        nonlocal best_total, best_pick
        if total > best_total:
            best_total, best_pick = total, list(pick)
        if j == len(order) or total + rest[j] <= best_total:
            return
        i = order[j]
        for kr in pools[i]:
            v = kr.revenue + kr.subsidy
            if total + v + rest[j + 1] <= best_total:
                break
            if kr.route.mask & mask:
                continue
            pick.append((i, kr))
            search(j + 1, mask | kr.route.mask, total + v, pick)
            pick.pop()
        search(j + 1, mask, total, pick)

    search(0, 0, 0, [])
    return best_total, [(trains[i], kr) for i, kr in best_pick]


def pick_disjoint(cands: Sequence[Sequence[KindedRoute]]) -> list[KindedRoute] | None:
    """One route from each list, sharing no track (the first such choice, best first), or None."""

    def search(i: int, mask: int, picked: list[KindedRoute]) -> list[KindedRoute] | None:
        if i == len(cands):
            return list(picked)
        for kr in cands[i]:
            if kr.route.mask & mask:
                continue
            picked.append(kr)
            got = search(i + 1, mask | kr.route.mask, picked)
            if got is not None:
                return got
            picked.pop()
        return None

    return search(0, 0, [])

"""Train routes and the exact best set of routes for a company (rule 4.2.3.1).

A route is a chain of stops joined by track segments.  Rules (18GA):
track may not be used twice (by one train or by two trains of the company),
no stop is visited twice, a route may not pass through an off-board or a city
filled with other companies' tokens (it may end there), it must include a
city holding the company's token, and a train of length ``n`` may visit at
most ``n`` cities/off-boards (towns do not count but do pay).

``best_routes`` enumerates every legal route through the company's token
cities once (extending both ends from each token) and then picks one route
per train with a branch-and-bound search over disjoint track sets.  The bound
(sum of each remaining train's best route) is admissible, so the result is the
exact maximum; no time limit is involved.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from .track import MapState, NodeKey, TrackGraph


@dataclass(frozen=True)
class Route:
    nodes: tuple[NodeKey, ...]
    mask: int
    stops: int
    revenue: int

    def node_ids(self) -> tuple[str, ...]:
        return tuple(f"{h}-{i}" for h, i in self.nodes)

    def hexes(self) -> tuple[str, ...]:
        return tuple(h for h, _ in self.nodes)


def _counts(m: MapState, key: NodeKey) -> int:
    return 0 if m.tile(key[0]).nodes[key[1]].kind == "town" else 1


def _revenue(m: MapState, key: NodeKey, colors: tuple[str, ...]) -> int:
    return m.tile(key[0]).nodes[key[1]].revenue_for(colors)


def all_routes(graph: TrackGraph, corp: str, max_stops: int, colors: tuple[str, ...]) -> list[Route]:
    """Every legal route of at most ``max_stops`` counted stops, each once."""
    m = graph.map
    found: dict[tuple[int, frozenset[NodeKey]], Route] = {}
    for token in m.token_cities(corp):
        start_stops = _counts(m, token)
        start_rev = _revenue(m, token, colors)

        def emit(nodes: list[NodeKey], mask: int, stops: int, rev: int) -> None:
            if len(nodes) < 2:
                return
            key = (mask, frozenset(nodes))
            if key not in found:
                found[key] = Route(tuple(nodes), mask, stops, rev)

        def head(nodes: list[NodeKey], visited: set[NodeKey], mask: int, stops: int, rev: int) -> None:
            # extend at the front (nodes[0]); the token is interior once extended
            front = nodes[0]
            if front != token and m.blocks(front, corp):
                return
            if front == token and len(nodes) > 1 and m.blocks(front, corp):
                return
            for seg in graph.segments(front):
                nxt = seg.b
                if nxt in visited or seg.mask & mask:
                    continue
                s = stops + _counts(m, nxt)
                if s > max_stops:
                    continue
                r = rev + _revenue(m, nxt, colors)
                nodes.insert(0, nxt)
                visited.add(nxt)
                emit(nodes, mask | seg.mask, s, r)
                head(nodes, visited, mask | seg.mask, s, r)
                visited.discard(nxt)
                nodes.pop(0)

        def tail(nodes: list[NodeKey], visited: set[NodeKey], mask: int, stops: int, rev: int) -> None:
            emit(nodes, mask, stops, rev)
            if len(nodes) > 1:
                head(nodes, visited, mask, stops, rev)
            back = nodes[-1]
            if back != token and m.blocks(back, corp):
                return
            for seg in graph.segments(back):
                nxt = seg.b
                if nxt in visited or seg.mask & mask:
                    continue
                s = stops + _counts(m, nxt)
                if s > max_stops:
                    continue
                nodes.append(nxt)
                visited.add(nxt)
                tail(nodes, visited, mask | seg.mask, s, rev + _revenue(m, nxt, colors))
                visited.discard(nxt)
                nodes.pop()

        tail([token], {token}, 0, start_stops, start_rev)
    return list(found.values())


def _prune_detours(routes: list[Route]) -> list[Route]:
    """Drop a route when another with the same stops uses a subset of its track
    (same revenue, less track: never worse in any combination)."""
    by_nodes: dict[frozenset[NodeKey], list[Route]] = {}
    for r in routes:
        by_nodes.setdefault(frozenset(r.nodes), []).append(r)
    out: list[Route] = []
    for group in by_nodes.values():
        group.sort(key=lambda r: bin(r.mask).count("1"))
        kept: list[Route] = []
        for r in group:
            if not any(k.mask & r.mask == k.mask and k.stops <= r.stops for k in kept):
                kept.append(r)
        out.extend(kept)
    return out


@lru_cache(maxsize=1 << 16)
def _bits(x: int) -> tuple[int, ...]:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return tuple(out)


def best_routes(graph: TrackGraph, corp: str, trains: Sequence[tuple[str, int]],
                colors: tuple[str, ...], _routes: list[Route] | None = None) -> tuple[int, list[tuple[str, Route]]]:
    """Exact maximum total revenue for ``trains`` = [(train id, length), ...].

    Branch and bound over the trains, longest first.  Each train length has
    its candidate routes sorted by falling revenue, and for every length we
    keep a bit set of the candidates that clash (share track) with the routes
    already chosen, so "the best route still possible for train j" is the
    lowest clear bit.  The bound for the trains still to place is the sum of
    those best routes: an upper bound, so pruning never loses the optimum.
    Symmetry is broken: when the route of a train also suits the next
    (shorter or equal) train, that train takes a route ranked after it (all
    lists share one order, so adjacent swaps sort any optimum into this form);
    and if a train runs nothing neither do the shorter ones.
    Returns (total, [(train id, route), ...]) for the trains that run.
    """
    if not trains:
        return 0, []
    longest = max(d for _, d in trains)
    routes = _routes if _routes is not None else _prune_detours(all_routes(graph, corp, longest, colors))
    order = sorted(trains, key=lambda t: -t[1])
    n = len(order)
    # exact optimum of each suffix of the trains on the whole network: a second bound
    opt_rest = [0] * (n + 1)
    if n > 2:
        for i in range(n - 1, 0, -1):
            opt_rest[i] = best_routes(graph, corp, order[i:], colors, [r for r in routes if r.stops <= order[i][1]])[0]
    dists = sorted({d for _, d in order}, reverse=True)
    lists: dict[int, list[Route]] = {d: sorted((r for r in routes if r.stops <= d), key=lambda r: -r.revenue)
                                     for d in dists}
    revs = {d: [r.revenue for r in lists[d]] for d in dists}
    full = {d: (1 << len(lists[d])) - 1 for d in dists}
    users: dict[int, dict[int, int]] = {}
    for d in dists:
        u: dict[int, int] = {}
        for idx, r in enumerate(lists[d]):
            for k in _bits(r.mask):
                u[k] = u.get(k, 0) | (1 << idx)
        users[d] = u
    conf_cache: dict[tuple[int, int], int] = {}

    def clash(d: int, r: Route) -> int:
        key = (d, id(r))
        c = conf_cache.get(key)
        if c is None:
            c = 0
            u = users[d]
            for k in _bits(r.mask):
                c |= u.get(k, 0)
            conf_cache[key] = c
        return c

    tdist = [d for _, d in order]
    # rank of each route in each length's list (all lists share one order: revenue, then a fixed tie order)
    rank = {d: {id(r): k for k, r in enumerate(lists[d])} for d in dists}
    after = [sorted({tdist[j] for j in range(i + 1, n)}) for i in range(n)]  # lengths still to place
    here = [sorted({tdist[j] for j in range(i, n)}) for i in range(n)]
    best_total = 0
    best_pick: list[tuple[int, Route]] = []
    pick: list[tuple[int, Route]] = []

    def best_left(d: int, blocked: dict[int, int], start: int) -> int:
        avail = full[d] & ~blocked[d]
        if start:
            avail &= ~((1 << start) - 1)
        if not avail:
            return 0
        return revs[d][(avail & -avail).bit_length() - 1]

    def bound(i: int, blocked: dict[int, int], start: int) -> int:
        total = 0
        for j in range(i, n):
            total += best_left(tdist[j], blocked, start if j == i else 0)
        if opt_rest[i] and opt_rest[i] < total:
            return opt_rest[i]
        return total

    seen: dict[tuple, int] = {}  # state -> proven upper bound on what the rest can add

    def search(i: int, blocked: dict[int, int], total: int, start: int) -> None:
        nonlocal best_total, best_pick
        if total > best_total:
            best_total = total
            best_pick = list(pick)
        if i == n:
            return
        key = (i, start) + tuple(blocked[dd] for dd in here[i])
        ub = seen.get(key)
        if ub is not None and total + ub <= best_total:
            return  # the same trains on the same free track were searched already
        explore(i, blocked, total, start)
        seen[key] = best_total - total

    def explore(i: int, blocked: dict[int, int], total: int, start: int) -> None:
        nonlocal best_total, best_pick
        d = tdist[i]
        lst = lists[d]
        rv = revs[d]
        later = after[i]
        rest_now = bound(i + 1, blocked, 0)
        avail = full[d] & ~blocked[d]
        if start:
            avail &= ~((1 << start) - 1)
        while avail:
            low = avail & -avail
            avail ^= low
            k = low.bit_length() - 1
            if total + rv[k] + rest_now <= best_total:
                break  # sorted by revenue: no later route can do better
            r = lst[k]
            if not later:  # the last train: the first route that fits is its best
                pick.append((i, r))
                search(i + 1, blocked, total + rv[k], 0)
                pick.pop()
                break
            nb = dict(blocked)
            for dd in later:
                nb[dd] = blocked[dd] | clash(dd, r)
            # symmetry: if r also suits the next (shorter or equal) train, that train takes a
            # route ranked after r (swapping the two never changes the total)
            if i + 1 < n and r.stops <= tdist[i + 1]:
                nstart = rank[tdist[i + 1]][id(r)] + 1
            else:
                nstart = 0
            if total + rv[k] + bound(i + 1, nb, nstart) <= best_total:
                continue
            pick.append((i, r))
            search(i + 1, nb, total + rv[k], nstart)
            pick.pop()
        # "train i runs nothing" needs no search: trains are longest first, so a
        # later (shorter) train's route would fit train i just as well.

    search(0, {d: 0 for d in dists}, 0, 0)
    out = [(order[i][0], r) for i, r in best_pick]
    return best_total, out


def find_route(routes: Sequence[Route], node_ids: Sequence[str], stops_max: int, used_mask: int) -> Route | None:
    """A legal route visiting exactly ``node_ids`` (any order) that avoids ``used_mask``."""
    want = frozenset(node_ids)
    best: Route | None = None
    for r in routes:
        if r.stops <= stops_max and not r.mask & used_mask and frozenset(r.node_ids()) == want:
            if best is None or r.revenue > best.revenue:
                best = r
    return best

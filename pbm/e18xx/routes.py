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


def best_routes(graph: TrackGraph, corp: str, trains: Sequence[tuple[str, int]],
                colors: tuple[str, ...]) -> tuple[int, list[tuple[str, Route]]]:
    """Exact maximum total revenue for ``trains`` = [(train id, length), ...].

    Returns (total, [(train id, route), ...]) for the trains that run.
    """
    if not trains:
        return 0, []
    longest = max(d for _, d in trains)
    routes = all_routes(graph, corp, longest, colors)
    order = sorted(trains, key=lambda t: -t[1])
    cands = [sorted((r for r in routes if r.stops <= d), key=lambda r: -r.revenue) for _, d in order]
    best_each = [c[0].revenue if c else 0 for c in cands]
    suffix = [0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + best_each[i]
    best_total = -1
    best_pick: list[Route | None] = []
    pick: list[Route | None] = []

    def search(i: int, mask: int, total: int) -> None:
        nonlocal best_total, best_pick
        if total + suffix[i] <= best_total:
            return
        if i == len(order):
            best_total = total
            best_pick = list(pick)
            return
        for r in cands[i]:
            if total + r.revenue + suffix[i + 1] <= best_total:
                break
            if r.mask & mask:
                continue
            pick.append(r)
            search(i + 1, mask | r.mask, total + r.revenue)
            pick.pop()
        pick.append(None)
        search(i + 1, mask, total)
        pick.pop()

    search(0, 0, 0)
    out = [(order[i][0], r) for i, r in enumerate(best_pick) if r is not None]
    return max(best_total, 0), out


def find_route(routes: Sequence[Route], node_ids: Sequence[str], stops_max: int, used_mask: int) -> Route | None:
    """A legal route visiting exactly ``node_ids`` (any order) that avoids ``used_mask``."""
    want = frozenset(node_ids)
    best: Route | None = None
    for r in routes:
        if r.stops <= stops_max and not r.mask & used_mask and frozenset(r.node_ids()) == want:
            if best is None or r.revenue > best.revenue:
                best = r
    return best

"""Routes on a map with changes of gauge, a bonus for joining labelled cities, and trains
bound for an off-board (title data ``gauge_change``, ``k_bonus``, ``trains[].to_offboard``;
1848 Australia rules 7.6, 8.2, 10.4).

* A side where the track changes gauge (map notation ``gauge=``) counts against a train's
  range like a stop worth nothing; a train's ``free_gauge_changes`` (by the side it was
  bought as: ``{"2+": 1}``) are not counted.
* ``k_bonus``: a route visiting n stops on hexes labelled ``label`` (or to be labelled so:
  ``future_label``) earns ``bonus[n]`` more.
* A train with ``to_offboard`` hexes runs from one of its company's stations to one of those
  off-boards, any distance, and earns only those two stops (no bonus).

Routes come from :func:`pbm.e18xx.routes.all_routes`; a company's best set is found by a
depth-first search over its trains (a company owns at most a handful), exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from pbm.e18xx.core.errors import IllegalRoute
from pbm.e18xx.core.hexgrid import neighbour, opposite
from pbm.e18xx.routes import Route, all_routes

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.protocol import Engine

BIG = 99


def uses_gauge_routes(game: "Engine") -> bool:
    d = game.title.data
    return bool(d.get("gauge_change") or d.get("k_bonus") or any(t.get("to_offboard") for t in d["trains"]))


@dataclass(frozen=True)
class TrainSpec:
    tid: str
    distance: int
    free_gauge: int
    to_offboard: frozenset[str]


def _train_spec(game: "Engine", tid: str) -> TrainSpec:
    t = game.state.trains[tid]
    data = game._train_data(t.name)
    free = int(data.get("free_gauge_changes", {}).get(t.variant or t.name, 0))
    return TrainSpec(tid, t.distance, free, frozenset(data.get("to_offboard", ())))


class _Pool:
    """Every route the company can run, with its gauge changes and bonus stops."""

    def __init__(self, game: "Engine", corp: str, longest: int, only: frozenset | None = None):
        self.game = game
        self.corp = corp
        g = game.graph()
        # with ``only`` (checking a submitted route) just the routes through all its stops
        self.routes = all_routes(g, corp, longest, game.route_colors(), only=only, complete=only is not None)
        self.colors = game.route_colors()
        self._gauge: dict[int, int] = {}
        self.gauge_bits = _gauge_bits(game, g)

    def gauge(self, r: Route) -> int:
        got = self._gauge.get(r.mask)
        if got is None:
            got = self._gauge[r.mask] = _changes(self.gauge_bits, r)
        return got

    def bonus(self, r: Route) -> int:
        return k_bonus(self.game, r)

    def value(self, r: Route, t: TrainSpec) -> int | None:
        """What train ``t`` earns on ``r`` (None: it may not run it)."""
        m = self.game.state.map
        if t.to_offboard:
            ends = [k for k in (r.nodes[0], r.nodes[-1]) if k[0] in t.to_offboard]
            if not ends:
                return None
            end = ends[0]
            own = [k for k in r.nodes if self.corp in m.tokens.get(k, ())]
            if not own:
                return None
            rev = lambda k: m.tile(k[0]).nodes[k[1]].revenue_for(self.colors)  # noqa: E731
            return rev(end) + max(rev(k) for k in own)
        if r.stops + max(0, self.gauge(r) - t.free_gauge) > t.distance:
            return None
        return r.revenue + self.bonus(r)


def _gauge_bits(game: "Engine", g) -> dict[int, frozenset]:
    """The track graph's side bits where the gauge changes (each with the two hex sides), kept on the graph."""
    cached = g.__dict__.get("_gauge_bits")
    if cached is not None:
        return cached
    bits = {}
    title = game.title
    layout = title.layout
    for (coord, edge), bit in getattr(g, "side_bits", {}).items():
        if not isinstance(edge, int):
            continue
        hd = title.hexes.get(coord)
        nb = neighbour(coord, edge, layout) if hd else None
        nbd = title.hexes.get(nb) if nb else None
        if (hd and edge in hd.gauge) or (nbd and opposite(edge) in nbd.gauge):
            bits[bit] = frozenset({(coord, edge), (nb, opposite(edge))})
    g.__dict__["_gauge_bits"] = bits
    return bits


def _changes(bits: dict[int, frozenset], r: Route) -> int:
    return len({pair for bit, pair in bits.items() if r.mask >> bit & 1})


def gauge_changes(game: "Engine", r: Route) -> int:
    """How many changes of gauge route ``r`` crosses (each counts against the range, 1848 7.6)."""
    if not game.title.data.get("gauge_change"):
        return 0
    return _changes(_gauge_bits(game, game.graph()), r)


def k_bonus(game: "Engine", r: Route) -> int:
    """The bonus for the labelled cities route ``r`` visits (1848 10.4, the K-K bonus); 0 without one."""
    spec = game.title.data.get("k_bonus")
    if not spec:
        return 0
    m = game.state.map
    label = spec["label"]
    n = 0
    for coord, _ in r.nodes:
        hd = game.title.hexes.get(coord)
        if m.tile(coord).label == label or (hd is not None and hd.future_label == label):
            n += 1
    table = spec["bonus"]
    return int(table[min(n, len(table) - 1)])


def best_gauge(game: "Engine", corp: str, tids: Sequence[str]) -> tuple[int, list[tuple[str, Route]]]:
    """The exact best set of routes for the company's trains."""
    specs = [_train_spec(game, t) for t in tids]
    if not specs:
        return 0, []
    longest = max(BIG if s.to_offboard else s.distance for s in specs)
    pool = _Pool(game, corp, longest)
    cands: list[list[tuple[int, Route]]] = []
    for s in specs:
        lst = [(v, r) for r in pool.routes if (v := pool.value(r, s)) is not None and v > 0]
        lst.sort(key=lambda x: -x[0])
        cands.append(lst)
    order = sorted(range(len(specs)), key=lambda i: -(cands[i][0][0] if cands[i] else 0))
    best = [0, []]
    tops = [cands[i][0][0] if cands[i] else 0 for i in order]

    def dfs(k: int, used: int, total: int, chosen: list) -> None:
        if total > best[0]:
            best[0], best[1] = total, list(chosen)
        if k == len(order) or total + sum(tops[k:]) <= best[0]:
            return
        for v, r in cands[order[k]]:
            if total + v + sum(tops[k + 1:]) <= best[0]:
                break
            if r.mask & used:
                continue
            chosen.append((specs[order[k]].tid, r.paying(v)))
            dfs(k + 1, used | r.mask, total + v, chosen)
            chosen.pop()
        dfs(k + 1, used, total, chosen)

    dfs(0, 0, 0, [])
    return best[0], best[1]


def too_long_words(game: "Engine", stops: int, changes: int, t: TrainSpec) -> str:
    """``10.1.2: too long: 2 cities and off-boards and 1 change of gauge for a train of 2`` (with the
    change a + train runs free, when it has one)."""
    ref = (game.title.data.get("track_refs") or {}).get("route_length")
    free = f" (it runs {t.free_gauge} change free)" if t.free_gauge else ""
    return (f"{ref + ': ' if ref else ''}too long: {stops} cities and off-boards and {changes} change"
            f"{'' if changes == 1 else 's'} of gauge for a train of {t.distance}{free}")


def check_gauge(game: "Engine", corp: str, action: "A.RunRoutes") -> tuple[int, list[tuple[str, Route]]]:
    """The submitted routes, checked (legal, disjoint, revenue as stated)."""
    specs = {t: _train_spec(game, t) for t in game.corp_trains(corp)}
    longest = max((BIG if s.to_offboard else s.distance for s in specs.values()), default=0)
    used = 0
    total = 0
    chosen: list[tuple[str, Route]] = []
    for spec in action.routes:
        t = specs[spec.train]
        want = frozenset(spec.nodes)
        try:
            only = frozenset((h, int(i)) for h, _, i in (n.rpartition("-") for n in spec.nodes))
        except ValueError:
            raise IllegalRoute(f"route {'-'.join(spec.nodes)}: stops are named HEX-n (e.g. E4-0)") from None
        # a train bound for an off-board written as its two locations, its start and the off-board:
        # "Any number of intervening stations may be skipped" (1848 8.2.5; play-through s15 mail #143)
        ends = bool(t.to_offboard) and len(only) == 2 and any(h in t.to_offboard for h, _ in only)
        pool = _Pool(game, corp, longest, None if ends else only)
        seq = tuple(spec.nodes)
        found: tuple[int, Route] | None = None
        long_by: tuple[int, int] | None = None  # (stops, changes of gauge) of the shortest too long for it
        for r in pool.routes:
            ids = r.node_ids()
            if r.mask & used or frozenset((ids[0], ids[-1]) if ends else ids) != want:
                continue
            v = pool.value(r, t)
            if v is None:
                if not t.to_offboard and (long_by is None or r.stops + pool.gauge(r) < sum(long_by)):
                    long_by = (r.stops, pool.gauge(r))
                continue
            if ids in (seq, seq[::-1]):
                found = (v, r)
                break
            if found is None or v > found[0] or (ends and v == found[0] and len(ids) < len(found[1].node_ids())):
                found = (v, r)  # (of the 2E's ways to the same two ends, the one with fewest stops)
        if found is None:
            if long_by is not None and long_by[1] and long_by[0] <= t.distance:
                # the track is there but its changes of gauge make it too long (7.6, 8.2.3; play-through s12)
                raise IllegalRoute(f"train {spec.train} cannot run {' '.join(spec.nodes)}: "
                                   + too_long_words(game, long_by[0], long_by[1], t))
            # the cities alone already too many for the train (8.2.2): say so (play-through s11v);
            # the changes of gauge are counted in the catch-all below
            reach = None if t.to_offboard else t.distance
            raise IllegalRoute(game.route_refusal(corp, spec, used, chosen, reach,
                                                  "counting changes of gauge, blocked, or reusing track"))
        v, r = found
        if spec.revenue is not None and spec.revenue != v:
            raise IllegalRoute(f"route {'-'.join(spec.nodes)} pays {v}, not {spec.revenue}")
        used |= r.mask
        total += v
        chosen.append((spec.train, r.paying(v)))
    return total, chosen

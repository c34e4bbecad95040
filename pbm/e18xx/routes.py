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

import itertools
import re

from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from pbm.e18xx.core.errors import IllegalRoute
from pbm.e18xx.core.hexgrid import neighbour, opposite
from pbm.e18xx.core.track import MapState, NodeKey, TrackGraph


@dataclass(frozen=True)
class Route:
    nodes: tuple[NodeKey, ...]
    mask: int
    stops: int
    revenue: int

    def paying(self, revenue: int) -> "Route":
        """This route with ``revenue`` (``dataclasses.replace``, without its cost)."""
        return Route(self.nodes, self.mask, self.stops, revenue)

    def node_ids(self) -> tuple[str, ...]:
        return tuple(f"{h}-{i}" for h, i in self.nodes)

    def hexes(self) -> tuple[str, ...]:
        return tuple(h for h, _ in self.nodes)


def _counts(m: MapState, key: NodeKey) -> int:
    return 0 if m.tile(key[0]).nodes[key[1]].kind == "town" else 1


def _revenue(m: MapState, key: NodeKey, colors: tuple[str, ...]) -> int:
    return m.tile(key[0]).nodes[key[1]].revenue_for(colors)


def all_routes(graph: TrackGraph, corp: str, max_stops: int, colors: tuple[str, ...],
               count=None, only: frozenset[NodeKey] | None = None, complete: bool = False) -> list[Route]:
    """Every legal route of at most ``max_stops`` counted stops, each once.

    From each token city the route grows at its tail, and at every tail state
    also at its head (the token then lies inside the route).  A route's track
    (its bit mask) fixes its stops, so the mask identifies it.  To avoid making
    each two-armed route twice, the head arm must leave the token by a later
    segment than the tail arm.  ``count`` says how much a stop counts against
    the train (default: towns 0, else 1); with ``only``, routes use no other stops, and with
    ``complete`` too, only the routes through every stop of ``only`` are returned (the same
    routes, in the same order, as filtering the full answer).
    """
    m = graph.map
    # mask -> route; None for a route found but not wanted (``complete``): it still claims its mask
    found: dict[int, Route | None] = {}
    want = len(only) if complete and only is not None else 0
    info: dict[NodeKey, tuple[int, int, bool]] = {}
    adj: dict[NodeKey, list[tuple[int, NodeKey, int]]] = {}

    def node_info(key: NodeKey) -> tuple[int, int, bool]:
        got = info.get(key)
        if got is None:
            got = info[key] = (count(key) if count else _counts(m, key),
                               _revenue(m, key, colors), m.blocks(key, corp))
        return got

    def neighbours(key: NodeKey) -> list[tuple[int, NodeKey, int]]:
        got = adj.get(key)
        if got is None:  # (a segment's index among all the stop's segments, its far end, its track)
            got = adj[key] = [(i, seg.b, seg.mask) for i, seg in enumerate(graph.segments(key))
                              if only is None or seg.b in only]  # the others are skipped anyway
        return got

    for token in m.token_cities(corp):
        if only is not None and token not in only:
            continue
        start_stops, start_rev, _ = node_info(token)

        def head(nodes: list[NodeKey], visited: set[NodeKey], mask: int, stops: int, rev: int, after: int) -> None:
            front = nodes[0]
            if (info.get(front) or node_info(front))[2]:  # extending makes the front an interior stop
                return
            for idx, nxt, smask in adj.get(front) or neighbours(front):
                if front == token and idx <= after:
                    continue
                if nxt in visited or smask & mask or (only is not None and nxt not in only):
                    continue
                c, v, _ = info.get(nxt) or node_info(nxt)
                s = stops + c
                if s > max_stops:
                    continue
                nodes.insert(0, nxt)
                visited.add(nxt)
                nm = mask | smask
                if nm not in found:
                    found[nm] = Route(tuple(nodes), nm, s, rev + v) if len(nodes) >= want else None
                head(nodes, visited, nm, s, rev + v, after)
                visited.discard(nxt)
                nodes.pop(0)

        def tail(nodes: list[NodeKey], visited: set[NodeKey], mask: int, stops: int, rev: int, first: int) -> None:
            if len(nodes) > 1:
                if mask not in found:
                    found[mask] = Route(tuple(nodes), mask, stops, rev) if len(nodes) >= want else None
                head(nodes, visited, mask, stops, rev, first)
            back = nodes[-1]
            if back != token and (info.get(back) or node_info(back))[2]:
                return
            for idx, nxt, smask in adj.get(back) or neighbours(back):
                if nxt in visited or smask & mask or (only is not None and nxt not in only):
                    continue
                c, v, _ = info.get(nxt) or node_info(nxt)
                s = stops + c
                if s > max_stops:
                    continue
                nodes.append(nxt)
                visited.add(nxt)
                tail(nodes, visited, mask | smask, s, rev + v, idx if len(nodes) == 2 else first)
                visited.discard(nxt)
                nodes.pop()

        tail([token], {token}, 0, start_stops, start_rev, -1)
        if want:
            # every route through all of ``only`` passes this token, and every route through it
            # has just been made from it: other tokens add none that is wanted (their routes
            # through this token come back with a mask already found)
            break
    if want:
        return [r for r in found.values() if r is not None]
    return list(found.values())  # type: ignore[arg-type]


def _prune_detours(routes: list[Route]) -> list[Route]:
    """Drop a route when another with the same stops uses a subset of its track
    (same revenue, less track: never worse in any combination)."""
    by_nodes: dict[frozenset[NodeKey], list[Route]] = {}
    for r in routes:
        key = frozenset(r.nodes)
        group = by_nodes.get(key)
        if group is None:
            by_nodes[key] = [r]
        else:
            group.append(r)
    out: list[Route] = []
    for group in by_nodes.values():
        if len(group) == 1:
            out.append(group[0])
            continue
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
                colors: tuple[str, ...]) -> tuple[int, list[tuple[str, Route]]]:
    """Exact maximum total revenue for ``trains`` = [(train id, length), ...].

    Branch and bound over the trains, longest first (see :class:`_Packer`).
    Returns (total, [(train id, route), ...]) for the trains that run.
    """
    if not trains:
        return 0, []
    longest = max(d for _, d in trains)
    packer = _Packer(_prune_detours(all_routes(graph, corp, longest, colors)))
    order = sorted(trains, key=lambda t: -t[1])
    total, picks = packer.solve(tuple(d for _, d in order))
    return total, [(order[i][0], r) for i, r in picks]


def _set_of(indices: list[int], size: int) -> int:
    """The bit set (an int) with the bits ``indices`` (each below ``size``)."""
    buf = bytearray((size + 8) // 8)
    for i in indices:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")


class _Users:
    """Which routes (by index) use each track bit, and the routes each route clashes with.

    The routes' masks are written as rows of one table of '0'/'1' characters, so that
    each track bit's column, read as a number, is the bit set of its users: one string
    slice per bit rather than one step per route and bit.  Bits with the same users, or
    whose users all use another bit too, add nothing to a clash set: only the other
    bits (``keys``) are looked up, in the route's row of the table."""

    def __init__(self, routes: list[Route]):
        every = 0
        for r in routes:
            every |= r.mask
        self.width = width = every.bit_length()
        fmt = f"0{width}b"
        self.table = "".join([format(r.mask, fmt) for r in routes])  # a row per route, top bit first
        self.users: dict[int, int] = {}
        for k in _bits(every):
            self.users[k] = int(self.table[width - 1 - k::width][::-1], 2)  # the last route is the top bit
        sets: dict[int, int] = {}  # users -> one bit with them
        for k, u in self.users.items():
            sets.setdefault(u, k)
        wide = list(sets)
        if len(wide) <= 64:  # (a quadratic test: skipped on a large network, where it would cost more)
            wide = [u for u in wide if not any(v != u and u & v == u for v in sets)]
        self.keys = [(width - 1 - sets[u], u) for u in wide]  # (column in a row, users)

    def clash(self, idx: int) -> int:
        """The routes that share track with route ``idx`` (itself included)."""
        row = self.table
        off = idx * self.width
        c = 0
        for col, u in self.keys:
            if row[off + col] == "1":
                c |= u
        return c


class _Packer:
    """Choose disjoint routes for trains of given lengths, for the most revenue.

    All candidate routes share one order, by falling revenue, and a set of
    routes is a bit set over that order: for each train length the routes it
    may run, for each route the routes that clash with it (share track), and
    for a partial choice the routes blocked by it.  "The best route still
    possible for train j" is then the lowest bit of its routes less the
    blocked ones.  The bound for the trains still to place is the sum of
    those best routes, or the exact optimum of those trains on the whole
    network if smaller: an upper bound either way, so pruning never loses the
    optimum.  Searched states are remembered with the bound they proved.
    Symmetry is broken: when the route of a train also suits the next
    (shorter or equal) train, that train takes a route ranked after it
    (adjacent swaps sort any optimum into this form); and if a train runs
    nothing, neither do the shorter ones after it.
    """

    def __init__(self, routes: list[Route]):
        self.routes = sorted(routes, key=lambda r: -r.revenue)
        self.revs = [r.revenue for r in self.routes]
        self.fits: dict[int, int] = {}  # train length -> the routes it may run
        self.conf: list[int | None] = [None] * len(self.routes)  # route -> the routes it clashes with
        self.track = _Users(self.routes)
        self.solved: dict[tuple[int, ...], int] = {}

    def prepare(self, d: int) -> None:
        if d not in self.fits:
            self.fits[d] = _set_of([k for k, r in enumerate(self.routes) if r.stops <= d], len(self.routes))

    def clash(self, k: int) -> int:
        c = self.conf[k]
        if c is None:
            c = self.conf[k] = self.track.clash(k)
        return c

    def optimum(self, tdist: tuple[int, ...]) -> int:
        if tdist not in self.solved:
            self.solved[tdist] = self.solve(tdist)[0]
        return self.solved[tdist]

    def solve(self, tdist: tuple[int, ...]) -> tuple[int, list[tuple[int, Route]]]:
        """``tdist``: the train lengths, longest first."""
        n = len(tdist)
        for d in set(tdist):
            self.prepare(d)
        opt_rest = [0] * (n + 1)
        if n > 2:
            for i in range(n - 1, 0, -1):
                opt_rest[i] = self.optimum(tdist[i:])
        routes, revs, conf = self.routes, self.revs, self.conf
        clash = self.clash
        neg = [-v for v in revs]  # rising: bisect_left(neg, -x) routes pay more than x

        fits = [self.fits[d] for d in tdist]
        last = n - 1
        best_total = 0
        best_pick: list[tuple[int, Route]] = []
        pick: list[tuple[int, Route]] = []
        seen: dict[tuple, int] = {}  # state -> proven upper bound on what the rest can add

        def search(i: int, free: int, total: int, start: int) -> None:
            nonlocal best_total, best_pick
            if total > best_total:
                best_total = total
                best_pick = list(pick)
            if i == n:
                return
            key = (i, start, free & fits[i])
            ub = seen.get(key)
            if ub is not None and total + ub <= best_total:
                return  # the same trains on the same free track were searched already
            explore(i, free, total, start)
            seen[key] = best_total - total

        def explore(i: int, free: int, total: int, start: int) -> None:
            avail = fits[i] & free
            if start:
                avail = (avail >> start) << start
            if i == last:  # the last train: the first route that fits is its best
                if avail:
                    k = (avail & -avail).bit_length() - 1
                    if total + revs[k] > best_total:
                        pick.append((i, routes[k]))
                        search(i + 1, free, total + revs[k], 0)
                        pick.pop()
                return
            # the routes each later train may still run, and the best of them (before this
            # train's route blocks some): the bound for each candidate starts from these
            fits_next = fits[i + 1]
            if i + 1 == last:  # (the common case, written out: one later train)
                nxt = fits_next & free
                rest_now = revs[(nxt & -nxt).bit_length() - 1] if nxt else 0
                cap = 0  # (its optimum alone is its best route: never less)
                others = ()
                others_top = 0
            else:
                later = [fits[j] & free for j in range(i + 1, n)]
                tops = [revs[(a & -a).bit_length() - 1] if a else 0 for a in later]
                cap = opt_rest[i + 1]
                rest_now = sum(tops)
                if cap and cap < rest_now:
                    rest_now = cap
                nxt = later[0]
                others = later[1:]
                others_top = sum(tops[1:])
            # Only the routes that pay enough can matter, and the routes are ranked by
            # revenue, so each bit set below is cut to its lowest bits (small ints are
            # fast): a route of this train is tried only if it pays more than
            # ``need - rest_now`` (best_total only grows meanwhile, so the cut stays safe)
            need = best_total - total
            avail &= (1 << bisect_left(neg, rest_now - need)) - 1
            if not avail:
                return
            # and the next train's best route counts only if it pays more than ``floor``
            # (with the best candidate here, a route paying ``floor`` fails the bound)
            floor = need - revs[(avail & -avail).bit_length() - 1] - others_top
            first = nxt & ((1 << bisect_left(neg, -floor)) - 1)
            fits_next &= avail  # (small)
            if fits_next:
                # a candidate the next train could run leaves it only routes ranked after
                # its own, paying at most as much: it needs twice its revenue > need - others_top
                avail ^= fits_next ^ (fits_next & ((1 << bisect_left(neg, -((need - others_top) // 2))) - 1))
            # the tests below, as limits on this route's revenue (updated when best_total grows)
            stop_at = need - rest_now
            lim = need - others_top
            while avail:
                low = avail & -avail
                avail ^= low
                k = low.bit_length() - 1
                rv = revs[k]
                if rv <= stop_at:
                    break  # sorted by revenue: no later route can do better
                c = conf[k]
                if c is None:
                    c = clash(k)
                # the bound on what the later trains add after this route (the sum of their
                # best routes still free, or their optimum if less), worked out only as far as
                # needed to decide: the next train's part first, the others' at most ``tops``
                a = first ^ (first & c)  # first & ~c, with no negative (full-width) int
                if low & fits_next:
                    nstart = k + 1
                    a = (a >> nstart) << nstart
                else:
                    nstart = 0
                # (none left: it pays nothing, or at most ``floor``, which fails the test below)
                b = revs[(a & -a).bit_length() - 1] if a else 0
                if rv + b <= lim:
                    continue
                for a in others:
                    a ^= a & c
                    if a:
                        b += revs[(a & -a).bit_length() - 1]
                if cap and cap < b:
                    b = cap
                if total + rv + b <= best_total:
                    continue
                pick.append((i, routes[k]))
                search(i + 1, free & ~c, total + rv, nstart)
                pick.pop()
                need = best_total - total
                stop_at = need - rest_now
                lim = need - others_top

        search(0, (1 << len(routes)) - 1, 0, 0)
        return best_total, best_pick


def node_keys(node_ids: Sequence[str]) -> frozenset[NodeKey]:
    """The stops ``HEX-i`` as node keys (a malformed id names no stop)."""
    out = set()
    for nid in node_ids:
        coord, _, idx = str(nid).rpartition("-")
        if coord and idx.isascii() and idx.isdigit():
            out.add((coord, int(idx)))
    return frozenset(out)


def find_route(routes: Sequence[Route], node_ids: Sequence[str], stops_max: int, used_mask: int) -> Route | None:
    """A legal route visiting exactly ``node_ids`` (any order) that avoids ``used_mask``."""
    want = frozenset(node_ids)
    seq = tuple(node_ids)
    best: Route | None = None
    for r in routes:
        if r.stops <= stops_max and not r.mask & used_mask and frozenset(r.node_ids()) == want:
            ids = r.node_ids()
            if ids == seq or ids[::-1] == seq:  # the stops in the order given: that very route
                return r
            if best is None or r.revenue > best.revenue:
                best = r
    return best


def route_candidates(routes: Sequence[Route], node_ids: Sequence[str], stops_max: int) -> list[Route]:
    """The legal routes visiting exactly ``node_ids`` (any order), in the order
    :func:`find_route` prefers them: the stops in the order given first, then by revenue."""
    want = frozenset(node_ids)
    seq = tuple(node_ids)
    exact: list[Route] = []
    other: list[Route] = []
    for r in routes:
        if r.stops <= stops_max and frozenset(r.node_ids()) == want:
            ids = r.node_ids()
            (exact if ids == seq or ids[::-1] == seq else other).append(r)
    other.sort(key=lambda r: -r.revenue)  # stable: the first of the best, as find_route
    return exact + other


def disjoint_routes(candidates: Sequence[Sequence[Route]], budget: int = 20000) -> list[Route] | None:
    """One route of each list, no two sharing track (4.2.3(j)), the earlier lists' preferred
    routes first; None if there is none.  A train's stops do not fix its track: between two
    stops there may be several paths, and the first one of one train may take the track that
    the only path of a later train needs."""
    left = [budget]

    def go(i: int, used: int) -> list[Route] | None:
        if i == len(candidates):
            return []
        seen: set[int] = set()
        for r in candidates[i]:
            if r.mask & used or r.mask in seen:
                continue
            seen.add(r.mask)
            left[0] -= 1
            if left[0] < 0:
                return None
            rest = go(i + 1, used | r.mask)
            if rest is not None:
                return [r, *rest]
        return None

    return go(0, 0)


# ------------------------------------------------------------- routes as players write them
def names_by_place(location_names: dict[str, str] | None) -> dict[str, str]:
    """The hex each place name names, in lower case: the map's name, and each name of a hex the map
    names for two places ("Ballarat & Bendigo": 'Ballarat' is G10; play-through s15c mail #47, "'BALLARAT'
    is not a stop"), unless another hex has that name."""
    names = {str(v).lower(): k for k, v in (location_names or {}).items()}
    for k, v in (location_names or {}).items():
        for part in re.split(r"\s+(?:&|and)\s+", str(v)):
            if part.strip() and part.lower() != str(v).lower():
                names.setdefault(part.strip().lower(), k)
    return names


def place_words(m: MapState, names: Sequence[str], location_names: dict[str, str] | None = None) -> tuple[str, ...]:
    """A written route's words as one word a stop: a place of several words is one stop (``WEST
    POINT``, ``GULF OF MEXICO``), and a place's name right after its own hex is dropped, as the
    events write a route (``L5 Montgomery - K4 Selma``; play-through s12); a hex right after its
    place's name is the stop (``Atlanta D4-1``, from 'Atlanta (D4-1)'; 18VA s17)."""
    by_name = names_by_place(location_names)
    longest = max((len(v.split()) for v in by_name), default=1)
    out: list[str] = []
    coords: list[str] = []  # the hex each word of ``out`` names ("" when none)
    i = 0
    words = [str(w) for w in names]
    while i < len(words):
        word, size = words[i], 1
        for k in range(min(longest, len(words) - i), 1, -1):
            if " ".join(words[i:i + k]).lower() in by_name:
                word, size = " ".join(words[i:i + k]), k
                break
        coord = by_name.get(word.lower(), "")
        if coord and coords and coords[-1] == coord and out[-1].upper() == coord:
            i += size  # 'L5 Montgomery': the hex said, then its name
            continue
        hexed = re.fullmatch(r"([A-Za-z]{1,2}\d{1,3})(?:-\d)?", word)
        if hexed and coords and coords[-1] == hexed.group(1).upper() and out[-1].upper() != coords[-1] \
                and not re.fullmatch(r"[A-Za-z]{1,2}\d{1,3}(?:-\d)?", out[-1]):
            out[-1] = word  # 'Atlanta (D4-1)': the name, then its hex (or its stop) in brackets (18VA s17 mail 25)
            i += size
            continue
        out.append(word)
        coords.append(coord or (word.upper().rpartition("-")[0] or word.upper()))
        i += size
    return tuple(out)


def _as_written(word: str) -> str:
    """A stop word as a player writes it: the parser keeps stops in capitals, a refusal quotes them
    'Gadsden Through Stevenson', not 'GADSDEN THROUGH STEVENSON' (play-throughs s16c, s16d); a hex
    (E4, E4-0) and a word with digits keep their capitals."""
    return " ".join(w if re.search(r"\d", w) or len(w) <= 2 else w.capitalize() for w in word.split(" "))


def resolve_stops(m: MapState, names: Sequence[str], location_names: dict[str, str] | None = None,
                  ref: str = "") -> tuple[str, ...]:
    """The stops of a written route as ``HEX-n`` ids: ``E4-0`` as it is, a hex with one stop
    (``E4``) or a named place with one stop (``Atlanta``) for that stop.  Raises IllegalRoute
    naming the word that names no stop, or else the stops to choose from: a wrong word is named
    before a hex of several stops, which the track may settle (play-through s11v finding F1)."""
    by_name = names_by_place(location_names)
    out = []
    several = ""
    for word in names:
        coord, _, idx = str(word).rpartition("-")
        if coord in m.placed and idx.isascii() and idx.isdigit():
            i = int(idx)
            if i >= len(m.tile(coord).nodes):
                raise IllegalRoute(f"{ref}{word}: {coord} has no stop {i} ({_stops_of(m, coord)})")
            out.append(f"{coord}-{i}")
            continue
        coord = str(word).upper() if str(word).upper() in m.placed else by_name.get(str(word).lower(), "")
        if not coord:
            raise IllegalRoute(f"{ref}{_as_written(str(word))!r} is not a stop: name a hex (E4), a stop of a hex "
                               "(E4-0) or a place")
        nodes = m.tile(coord).nodes
        if len(nodes) == 1:
            out.append(f"{coord}-0")
        elif not nodes:
            raise IllegalRoute(f"{ref}{word}: {coord} has no city, town or off-board to stop at (name only the "
                               "stops of a route: the track between them is found for you)")
        elif not m.tile(coord).paths:  # two towns with no tile yet: no choice of stop could help (s11)
            raise IllegalRoute(f"{ref}{word}: {coord} has no track yet (no tile is laid there), so no route stops in it")
        else:
            several = several or f"{ref}{word}: {coord} has {len(nodes)} stops; name one ({_stops_of(m, coord)})"
    if several:
        raise IllegalRoute(several)
    return tuple(out)


def stops_by_track(graph: TrackGraph, corp: str, names: Sequence[str], max_stops: int, colors: tuple[str, ...],
                   location_names: dict[str, str] | None = None, limit: int = 64) -> tuple[str, ...] | None:
    """The stops of a written route whose hexes have several stops (``run 2 D4 C3``, Atlanta's three
    cities), when exactly one choice of them makes a legal route for ``corp``: a route written with
    hexes alone names its stops when the track leaves no doubt (issue 29 problem 4; play-through s11
    finding 9). None when a word names no stop, or no choice or several choices make a route."""
    m = graph.map
    by_name = names_by_place(location_names)
    options: list[tuple[str, ...]] = []
    for word in names:
        try:
            options.append(resolve_stops(m, [word], location_names))
            continue
        except IllegalRoute:
            pass
        coord = str(word).upper() if str(word).upper() in m.placed else by_name.get(str(word).lower(), "")
        if not coord or len(m.tile(coord).nodes) < 2:
            return None
        options.append(tuple(f"{coord}-{i}" for i in range(len(m.tile(coord).nodes))))
    combos = list(itertools.islice(itertools.product(*options), limit + 1))
    if len(combos) > limit:
        return None
    legal = []
    for ids in combos:
        if twice(ids):
            continue
        pool = all_routes(graph, corp, max_stops, colors, only=node_keys(ids), complete=True)
        found = route_candidates(pool, ids, max_stops)
        if found:
            ordered = any(r.node_ids() in (tuple(ids), tuple(ids)[::-1]) for r in found)
            legal.append((tuple(ids), ordered))
    if len({frozenset(ids) for ids, _ in legal}) == 1:
        # one set of stops (a hex of two cities both on the route: 'run 5 F15 F17 G16 G14 F15', the
        # first F15 the city with track to F17, the last the one with track to G14; play-through
        # s12): the choice whose order the track runs in
        ordered = [ids for ids, ok in legal if ok]
        return ordered[0] if len(ordered) == 1 else (legal[0][0] if len(legal) == 1 else None)
    return None


def stops_by_neighbours(m: MapState, names: Sequence[str],
                        location_names: dict[str, str] | None = None) -> tuple[str, ...] | None:
    """The stops of a written route whose hexes have several stops, each the one stop of its hex
    whose own track leads to a hex written next to it (``... F17 F15``: F15's city with track to
    F17), when that settles every such hex; None otherwise.  For a route no choice makes legal
    (blocked further on): the refusal then says what fails, not "name one" (play-through s12)."""
    by_name = names_by_place(location_names)

    def hex_of(word: str) -> str:
        w = str(word)
        head, _, idx = w.rpartition("-")
        if head in m.placed and idx.isdigit():
            return head
        return w.upper() if w.upper() in m.placed else by_name.get(w.lower(), "")

    hexes = [hex_of(w) for w in names]
    out = []
    for k, word in enumerate(names):
        try:
            out.append(resolve_stops(m, [word], location_names)[0])
            continue
        except IllegalRoute:
            pass
        head, _, idx = str(word).rpartition("-")
        coord = hexes[k]
        if (head and idx.isdigit()) or not coord or coord not in m.placed or len(m.tile(coord).nodes) < 2:
            return None  # a wrong stop number, or a word that is no hex of several stops
        placed = m.placed[coord]
        try:
            edges = placed.tile.node_edges(placed.rotation)
        except (AttributeError, TypeError):
            return None
        near = {hexes[j] for j in (k - 1, k + 1) if 0 <= j < len(hexes) and hexes[j]}
        fits = [i for i in range(len(m.tile(coord).nodes)) if i < len(edges)
                and near & {neighbour(coord, e, m.title.layout) for e in edges[i]}]
        if len(fits) != 1:
            return None
        out.append(f"{coord}-{fits[0]}")
    return tuple(out)


def twice(node_ids: Sequence[str]) -> str | None:
    """A stop named twice in a written route, if any."""
    seen: set[str] = set()
    for n in node_ids:
        if n in seen:
            return n
        seen.add(n)
    return None


def _stops_of(m: MapState, coord: str) -> str:
    """``F15-0 a city with track to F17, G14; F15-1 a city with track to G16`` (which is which:
    play-through s12 got "F15-0 a city, F15-1 a city")."""

    nodes = m.tile(coord).nodes
    try:
        placed = m.placed[coord]
        edges = placed.tile.node_edges(placed.rotation)
        layout = m.title.layout
    except (AttributeError, KeyError, TypeError):
        edges, layout = [], None

    def track(i: int) -> str:
        mine = edges[i] if layout and i < len(edges) else ()
        to = [n for n in (neighbour(coord, e, layout) for e in sorted(mine)) if n]
        return f" with track to {', '.join(to)}" if to else ""
    return "; ".join(f"{coord}-{i} a {n.kind}{track(i)}" for i, n in enumerate(nodes)) or "none"


def why_not(graph: TrackGraph, corp: str, node_ids: Sequence[str], max_stops: int | None, used_mask: int,
            refs: dict[str, str] | None = None, count=None, others: dict[int, str] | None = None) -> str | None:
    """Why no legal route visits ``node_ids`` in the order written (a train of ``max_stops``
    counted stops; None: the length is not checked here), avoiding ``used_mask`` (the company's
    other trains' track; ``others`` names the train owning each bit): the first rule the route
    breaks, with where.  None if no simple reason is found."""
    r = refs or {}

    def ref(key: str) -> str:
        return f"{r[key]}: " if r.get(key) else ""

    m = graph.map
    keys = [(h, int(i)) for h, _, i in (n.rpartition("-") for n in node_ids)]
    names = list(node_ids)
    seen: set = set()
    for k, n in zip(keys, names):
        if k in seen:
            return f"{ref('route_stop_twice')}{n} is visited twice"
        seen.add(k)
    if len(keys) < 2:
        return f"{ref('route_track')}a route joins at least two stops"
    if not any(m.city_has(k, corp) for k in keys):
        return f"{ref('route_station')}none of its stops holds a station of {corp}"
    if max_stops is not None:
        counted = sum(count(k) if count else _counts(m, k) for k in keys)
        if counted > max_stops:
            return f"{ref('route_length')}too long: {counted} cities and off-boards for a train of {max_stops}"
    for k, n in zip(keys[1:-1], names[1:-1]):
        if m.blocks(k, corp):
            node = m.tile(k[0]).nodes[k[1]]
            if node.kind == "offboard" or k[1] in m.tile(k[0]).terminal or m.title.hexes[k[0]].color == "red":
                return f"{ref('route_offboard')}it may not pass through {n}: an off-board area is only a route's end"
            holders = sorted({t for t in m.tokens.get(k, []) if t})
            return (f"{ref('route_blocked')}blocked at {n} by {', '.join(holders)}'s station"
                    f"{'s' if len(holders) > 1 else ''} (every circle taken)")
    bit_place = {bit: key for key, bit in graph.side_bits.items()}

    def where(bits: int) -> str:
        spots = sorted({bit_place[b][0] for b in _bits(bits) if b in bit_place})
        return ", ".join(spots) or "a junction"

    options = []
    for (a, b), (na, nb) in zip(zip(keys, keys[1:]), zip(names, names[1:])):
        segs = [s for s in graph.segments(a) if s.b == b]
        if not segs:
            return (f"{ref('route_track')}not connected between {na} and {nb}: "
                    f"{_missing_side(m, a[0], b[0]) or _stop_between(graph, a, b, keys, max_stops, count)}")
        free = [s for s in segs if not s.mask & used_mask]
        if not free:
            clash = segs[0].mask & used_mask
            owner = ""
            if others:
                owner = next((f" by train {t}" for b_, t in others.items() if clash >> b_ & 1), "")
            return (f"{ref('route_shared')}the track between {na} and {nb} is already used{owner} at {where(clash)}: "
                    "two trains of a company never share track")
        options.append(free)
    # each stretch can run on its own: is there a choice of them that uses no track twice?
    best_clash = 0

    def pick(i: int, mask: int) -> bool:
        nonlocal best_clash
        if i == len(options):
            return True
        for s in options[i]:
            if s.mask & mask:
                best_clash = best_clash or (s.mask & mask)
                continue
            if pick(i + 1, mask | s.mask):
                return True
        return False

    if not pick(0, 0):
        return f"{ref('route_reuse')}track reused at {where(best_clash)}: a route uses each piece of track once"
    return None


def _stop_between(graph, a: tuple, b: tuple, keys: list, max_stops: int | None, count=None) -> str:
    """Why two stops of a route are not joined when track runs from one to the other through a stop
    between: that stop named, as the route must name it, and whether the train is then too long
    ("their track passes H5 Oxmoor (a city), a stop of the route too ..."; play-through s16b, 18AL
    mail 36: a 2 train Anniston - Birmingham through the city Oxmoor was refused "no track joins
    them without another stop between")."""
    m = graph.map
    between = sorted({s.b for s in graph.segments(a) if s.b != b and any(t.b == b for t in graph.segments(s.b))})
    if not between:
        return "no track joins them without another stop between"

    def said(k: tuple) -> str:
        name = m.title.hexes[k[0]].name
        kind = m.tile(k[0]).nodes[k[1]].kind
        kind = {"offboard": "an off-board area"}.get(kind, f"a {kind}")
        return f"{k[0]} {name} ({kind})" if name else f"{k[0]} ({kind})"

    out = f"their track passes {' or '.join(said(k) for k in between)}, a stop of the route too"
    if max_stops is not None and len(between) == 1:
        counted = sum((count or (lambda k: _counts(m, k)))(k) for k in [*keys, between[0]])
        if counted > max_stops:
            return f"{out}: with it the route is {counted} cities and off-boards, too long for a train of {max_stops}"
    return f"{out}: name it between them"


def _missing_side(m: MapState, ha: str, hb: str) -> str | None:
    """Why two neighbouring hexes' stops are not joined, where one of them lacks the track on their
    common side: 'H5 Annapolis has no tile yet', 'G4 Washington has no track on its side toward H3'
    (the other hex's tile points at it; play-through s15 mails 61, 62, 103). None otherwise."""
    layout = m.title.layout
    edge = next((e for e in range(6) if neighbour(ha, e, layout) == hb), None)
    if edge is None or not m.on_map(ha) or not m.on_map(hb):
        return None
    for here, there, side in ((hb, ha, opposite(edge)), (ha, hb, edge)):
        pl = m.placed[here]
        if side in pl.tile.exits(pl.rotation):
            continue
        name = f"{here} {m.title.hexes[here].name}" if m.title.hexes[here].name else here
        if pl.tile_id is None and not pl.tile.exits(pl.rotation):
            return f"{name} has no tile yet, so no track there"
        return f"{name} has no track on its side toward {there}"
    return None

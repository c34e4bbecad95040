"""The map in play: tiles on hexes, station tokens, and the track graph.

``MapState`` is mutable game state (copied with the game).  ``TrackGraph``
is derived from it on demand and cached by a version number: it lists every
piece of track (a *path*) and lets us walk from station tokens to find what
a company reaches (for tile lays and tokens) and the segments between stops
(for routes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, NamedTuple

from pbm.e18xx.core.hexgrid import neighbour, opposite
from pbm.e18xx.core.tiles import TileDef, UPGRADE_NEXT
from pbm.e18xx.core.title import Title

NEUTRAL = "N"
NodeKey = tuple[str, int]  # (hex, node index)


@dataclass
class Placed:
    tile: TileDef
    tile_id: str | None  # None for the printed tile
    rotation: int = 0


@dataclass
class MapState:
    title: Title
    placed: dict[str, Placed] = field(default_factory=dict)
    # (hex, node index) -> slot contents: company symbol, "N" (neutral) or None
    tokens: dict[NodeKey, list[str | None]] = field(default_factory=dict)
    reservations: dict[NodeKey, str] = field(default_factory=dict)  # home slot held for a company
    flipped: set[str] = field(default_factory=set)  # companies whose tokens block everyone
    tile_hex: dict[str, str] = field(default_factory=dict)  # laid tile id -> hex
    red_pass: bool = False  # 18xx.games lets trains run through a city in a red area
    hex_reservations: dict[str, str] = field(default_factory=dict)  # multi-city home hex -> company
    version: int = 0
    # stations beside a city, in no circle (a private's extra station): they never block
    extra_tokens: dict[NodeKey, list[str]] = field(default_factory=dict)

    @classmethod
    def initial(cls, title: Title) -> "MapState":
        m = cls(title)
        for coord, hd in title.hexes.items():
            m.placed[coord] = Placed(hd.tile, None, 0)
            for i in hd.tile.cities():
                m.tokens[(coord, i)] = [None] * hd.tile.nodes[i].slots
        return m

    def __deepcopy__(self, memo: dict) -> "MapState":
        new = MapState(self.title, dict(self.placed), {k: list(v) for k, v in self.tokens.items()},
                       dict(self.reservations), set(self.flipped), dict(self.tile_hex), self.red_pass,
                       dict(self.hex_reservations), self.version,
                       {k: list(v) for k, v in self.extra_tokens.items()})
        return new

    # -- queries --------------------------------------------------------
    def tile(self, coord: str) -> TileDef:
        return self.placed[coord].tile

    def on_map(self, coord: str) -> bool:
        return coord in self.placed

    def city_has(self, key: NodeKey, corp: str) -> bool:
        if self.extra_tokens and corp in self.extra_tokens.get(key, ()):
            return True
        return corp in self.tokens.get(key, ()) and corp not in self.flipped

    def hex_has_token(self, coord: str, corp: str) -> bool:
        if any(k[0] == coord and corp in v for k, v in self.extra_tokens.items()):
            return True
        return any(k[0] == coord and corp in v for k, v in self.tokens.items())

    def blocks(self, key: NodeKey, corp: str | None) -> bool:
        """True if ``corp`` may not run through this node."""
        node = self.tile(key[0]).nodes[key[1]]
        if node.kind == "offboard" or key[1] in self.tile(key[0]).terminal:
            return True
        if not self.red_pass and self.title.hexes[key[0]].color == "red":
            return True  # 4.2.3(h): no running through a red area, even a city with a station
        if node.kind != "city":
            return False
        slots = self.tokens.get(key, [])
        if corp is not None and self.city_has(key, corp):
            return False
        if NEUTRAL in slots:  # neutral tokens fill a slot but never block
            return False
        return bool(slots) and all(s is not None for s in slots)

    def free_slots(self, key: NodeKey, corp: str) -> list[int]:
        """Slots ``corp`` may put a token in (reserved slots count only for their owner)."""
        slots = self.tokens.get(key, [])
        free = [i for i, s in enumerate(slots) if s is None]
        holder = self.reservations.get(key)
        if holder and holder != corp and free:
            free = free[1:] if len(free) > 1 else []
        owner = self.hex_reservations.get(key[0])
        if owner and owner != corp and free:
            # 4.2.2(c): one circle in the hex stays open for its company's home station
            open_in_hex = sum(v.count(None) for k, v in self.tokens.items() if k[0] == key[0])
            if open_in_hex <= 1:
                return []
        return free

    def token_cities(self, corp: str) -> list[NodeKey]:
        out = [k for k, v in self.tokens.items() if corp in v and corp not in self.flipped]
        if self.extra_tokens:
            out += [k for k, v in self.extra_tokens.items() if corp in v and k not in out]
        return out

    def nodes(self) -> Iterator[NodeKey]:
        for coord, pl in self.placed.items():
            for i in range(len(pl.tile.nodes)):
                yield (coord, i)

    def neighbour_on_map(self, coord: str, edge: int) -> str | None:
        """The hex across ``edge`` if track may lead there (red/gray hexes only
        where they have track on the shared side)."""
        nb = neighbour(coord, edge, self.title.layout)
        if nb not in self.placed:
            return None
        hd = self.title.hexes[nb]
        if edge in self.title.hexes[coord].borders or opposite(edge) in hd.borders:
            return None  # an impassable side
        if hd.color in ("red", "gray", "blue") and opposite(edge) not in self.placed[nb].tile.exits(self.placed[nb].rotation):
            return None
        return nb


class Segment(NamedTuple):
    """Track between two stops with no stop in between (a tuple: made by the thousand)."""
    a: NodeKey
    b: NodeKey
    mask: int  # bit set of track-use keys (hex sides per hex, node-to-node paths)
    hexes: tuple[str, ...]


class TrackGraph:
    """All track on the map, indexed for walking.

    Each hex owns a fixed block of path ids and of track-use bits (hex ``i`` in map order: path
    ids ``i * stride_paths ...``, bits ``i * stride_bits ...``), numbered within the block path by
    path, end by end.  So ids and bits follow the map order and, within a hex, the tile's order,
    whatever was laid elsewhere: a tile lay rebuilds only its own hex (``relaid``).  Unused ids
    are ``None`` in ``paths``."""

    def __init__(self, m: MapState, _strides: tuple[int, int] | None = None):
        self.map = m
        self.stride_paths, self.stride_bits = _strides or _title_strides(m.title)
        self.index = {coord: i for i, coord in enumerate(m.placed)}
        self.paths: list[tuple[str, tuple[str, int], tuple[str, int]] | None] = [None] * (len(self.index) * self.stride_paths)
        self.path_mask: list[int] = [0] * len(self.paths)
        self.by_side: dict[tuple[str, int], list[int]] = {}
        self.by_node: dict[NodeKey, list[int]] = {}
        # per hex: its tile as built, and the by_side / by_node keys and track-use keys it made
        self._hex: dict[str, tuple] = {}
        self._nb: dict[tuple[str, int], str | None] = {}
        self._segments: dict[NodeKey, list[Segment]] = {}
        # hex -> the stops whose walk looked at it (their segments depend on its tile); may hold
        # stops whose segments were dropped since
        self._seg_users: dict[str, list[NodeKey]] = {}
        self._stop_kinds: dict[NodeKey, int] = {}
        self._cross: dict[tuple[str, int], tuple | None] = {}
        for coord, pl in m.placed.items():
            if not self._fill(coord, pl):
                wider = _strides_needed(m, self.stride_paths, self.stride_bits)
                self.__init__(m, wider)  # type: ignore[misc]  # a tile outside the title's set
                return

    def _fill(self, coord: str, pl: Placed) -> bool:
        """Number ``coord``'s track into its block; False if the block is too small."""
        paths = pl.tile.rotated_paths(pl.rotation)
        if len(paths) > self.stride_paths:
            return False
        i = self.index[coord]
        pid = i * self.stride_paths
        bit0 = i * self.stride_bits
        by_side, by_node, path_list, path_mask = self.by_side, self.by_node, self.paths, self.path_mask
        # Track-use keys (rule: no section of track used twice): each hex side a path touches,
        # per hex, as on 18xx.games; plus node-to-node paths.
        keys: dict[tuple, int] = {}
        sides: list[tuple[str, int]] = []
        nodes: list[NodeKey] = []
        for a, b in paths:
            path_list[pid] = (coord, a, b)
            mask = 0
            for end in (a, b):
                key = (coord, end[1])
                if end[0] == "e":
                    got = by_side.get(key)
                    if got is None:
                        got = by_side[key] = []
                        sides.append(key)
                    got.append(pid)
                    bit = keys.get(key)
                    if bit is None:
                        bit = keys[key] = len(keys)
                    mask |= 1 << (bit0 + bit)
                else:
                    got = by_node.get(key)
                    if got is None:
                        got = by_node[key] = []
                        nodes.append(key)
                    got.append(pid)
            if a[0] == "n" and b[0] == "n":
                # keyed apart from the sides (a path id below 6 is no side)
                mask |= 1 << (bit0 + keys.setdefault((coord, ("path", pid)), len(keys)))
            path_mask[pid] = mask
            pid += 1
        if len(keys) > self.stride_bits:
            return False
        self._hex[coord] = (pl, pl.tile, pl.rotation, sides, nodes, keys)
        return True

    def relaid(self, m: MapState, coords: Iterable[str]) -> "TrackGraph":
        """The graph of ``m``, which differs from this graph's map only in the tiles of ``coords``
        (same hexes, same order): this graph's numbering, those hexes renumbered."""
        coords = list(coords)
        g = TrackGraph.__new__(TrackGraph)
        g.map = m
        g.stride_paths, g.stride_bits, g.index = self.stride_paths, self.stride_bits, self.index
        g.paths = list(self.paths)
        g.path_mask = list(self.path_mask)
        g.by_side = dict(self.by_side)
        g.by_node = dict(self.by_node)
        g._hex = dict(self._hex)
        g._nb = dict(self._nb)
        g._cross = dict(self._cross)
        g._stop_kinds = dict(self._stop_kinds)
        for coord in coords:  # a stop's kind depends on its hex's tile
            for i in range(max(len(self._hex[coord][1].nodes), len(m.placed[coord].tile.nodes))):
                g._stop_kinds.pop((coord, i), None)
        if any(m.title.hexes[c].color in ("red", "gray", "blue") for c in coords if c in m.title.hexes):
            g._segments, g._seg_users = {}, {}  # such a hex decides whether track may cross into it
        else:  # the walks that never looked at a relaid hex find the same segments, same ids and bits
            g._segments = dict(self._segments)
            g._seg_users = dict(self._seg_users)  # the lists are shared: an extra stale entry is harmless
            for coord in coords:
                for node in g._seg_users.pop(coord, ()):
                    g._segments.pop(node, None)
        layout = m.title.layout
        for coord in coords:
            _, _, _, sides, nodes, _ = g._hex[coord]  # replaced in place by _fill (keeps the map order)
            for key in sides:
                del g.by_side[key]
            for key in nodes:
                del g.by_node[key]
            first = g.index[coord] * g.stride_paths
            for pid in range(first, first + g.stride_paths):
                g.paths[pid] = None
                g.path_mask[pid] = 0
            for e in range(6):  # whether track may cross into this hex depends on its tile,
                into = (neighbour(coord, e, layout), opposite(e))
                g._nb.pop(into, None)
                g._cross.pop(into, None)  # and where it lands, on its paths
            if not g._fill(coord, m.placed[coord]):
                return TrackGraph(m, _strides_needed(m, self.stride_paths, self.stride_bits))
        return g

    def built_from(self, m: MapState) -> list[str] | None:
        """The hexes whose tile differs from the one this graph was built with; None if ``m``
        has other hexes (or another order) than this graph's map."""
        if len(m.placed) != len(self._hex):
            return None
        out = []
        for (coord, pl), (built, was) in zip(m.placed.items(), self._hex.items()):
            if coord != built:
                return None
            if was[0] is not pl or was[1] is not pl.tile or was[2] != pl.rotation:
                out.append(coord)
        return out

    @property
    def side_bits(self) -> dict[tuple, int]:
        """(hex, side) -> bit, and (hex, ("path", path id)) -> bit for node-to-node track; by bit."""
        out: dict[tuple, int] = {}
        for coord in self.index:
            got = self._hex.get(coord)
            if got is None:
                continue
            bit0 = self.index[coord] * self.stride_bits
            for key, bit in got[5].items():
                out[key] = bit0 + bit
        return out

    def _stop_kind(self, key: NodeKey) -> int:
        """How ``MapState.blocks`` answers for this node whatever the stations: 1 it always
        blocks (off-board, terminal, red area), 0 it never does (not a city), 2 the stations
        in the city decide.  Depends on the hex's tile alone (and the title's red-area rule)."""
        m = self.map
        tile = m.tile(key[0])
        node = tile.nodes[key[1]]
        if node.kind == "offboard" or key[1] in tile.terminal:
            return 1
        if not m.red_pass and m.title.hexes[key[0]].color == "red":
            return 1
        return 2 if node.kind == "city" else 0

    def neighbour_on_map(self, coord: str, edge: int) -> str | None:
        key = (coord, edge)
        if key in self._nb:
            return self._nb[key]
        got = self._nb[key] = self.map.neighbour_on_map(coord, edge)
        return got

    def other_end(self, pid: int, end: tuple[str, int]) -> tuple[str, int]:
        _, a, b = self.paths[pid]
        return b if a == end else a

    def continue_across(self, coord: str, edge: int) -> tuple[str, int, list[int]] | None:
        got = self._crossing(coord, edge)
        return None if got is None else got[:3]

    def _crossing(self, coord: str, edge: int) -> tuple[str, int, list[int], tuple[str, int]] | None:
        """Across ``edge`` of ``coord``: (the hex, its side, its paths from that side, that side
        as a path end), or None where track may not cross; kept per graph."""
        key = (coord, edge)
        got = self._cross.get(key, False)
        if got is False:
            nb = self.neighbour_on_map(coord, edge)
            if nb is None:
                got = None
            else:
                opp = opposite(edge)
                got = (nb, opp, self.by_side.get((nb, opp), []), ("e", opp))
            self._cross[key] = got
        return got  # type: ignore[return-value]

    # -- segments between stops (for routes) ----------------------------
    def segments(self, node: NodeKey) -> list[Segment]:
        if node in self._segments:
            return self._segments[node]
        out: list[Segment] = []
        coord = node[0]
        touched = {coord}
        for pid in self.by_node.get(node, []):
            self._walk_segment(node, coord, pid, ("n", node[1]), self.path_mask[pid], [coord], out, touched)
        self._segments[node] = out
        users = self._seg_users
        for coord in touched:
            got = users.get(coord)
            if got is None:
                users[coord] = [node]
            else:
                got.append(node)
        return out

    def _walk_segment(self, start: NodeKey, coord: str, pid: int, from_end: tuple[str, int], mask: int,
                      hexes: list[str], out: list[Segment], touched: set[str]) -> None:
        end = self.other_end(pid, from_end)
        if end[0] == "n":
            key = (coord, end[1])
            if key != start:
                out.append(Segment(start, key, mask, tuple(hexes)))
            return
        across = self._crossing(coord, end[1])
        if across is None:
            return
        nb, _, pids, entered = across
        touched.add(nb)  # the walk depends on this hex's tile (its track on this side)
        for nxt in pids:
            pm = self.path_mask[nxt]
            # the side we enter by is shared with the path we come from's hex; only
            # the entered hex's own keys must be new
            if pm & mask:
                continue
            self._walk_segment(start, nb, nxt, entered, mask | pm,
                               hexes + ([nb] if hexes[-1] != nb else []), out, touched)

    # -- what a company reaches (tile lays, tokens) ---------------------
    def reach(self, corp: str, starts: Iterable[NodeKey], home_hexes: Iterable[str] = (),
              until: Callable[[NodeKey], bool] | None = None, watch: str | None = None,
              watch_ok: Callable[[set[int], set[NodeKey], dict], bool] | None = None,
              keep: int | None = None, budget: int | None = None,
              ) -> tuple[dict[str, set[int]], set[NodeKey], dict[str, dict]] | None:
        """Edges of each hex a company can build on, the stops it reaches, and per hex how its
        trains arrive there (``entries``: for ``("e", side)``, arriving across that side from the
        next hex, and ``("n", node)``, arriving at a stop they may run through, the set of
        ``(track-use bits, stop bits)`` of that hex the run has used by then, the fewest only).

        The walk is a train's (18GA/18AL 4.2.1(j) "connected to an existing station"; 18VA
        4.5.2.1): route by route from each station, entering a tile by a side and leaving by one
        of its paths, never using a piece of track (a hex side in a hex, as on 18xx.games) twice
        in one route and never visiting a stop twice, through towns and through cities other
        companies' stations do not fill.  A route that reaches another of the company's stations
        stops there (the routes from that station are walked from it, with less used).  A route
        that has used a superset of what another route used at the same piece of track, walked the
        same way, is not followed further (it can reach nothing more).  Where more than ``_KEEP``
        routes that used different track reach one piece of track the same way (junction tiles
        make many: 18VA), they go on as one route that used only what all of them used: the walk
        may then reach more than a train could, never less (so no legal move is refused), and stays
        as fast as the old walk (in 2,476 states of 18GA, 18AL and 18VA random games the tile lays
        and stations it allows were those of the exact walk; that walk took minutes on one late
        18VA map).  A merge sets ``merging``: an upgrade that only such entries let connect is asked
        again of the exact walk (``keep`` without limit, ``budget`` steps at most, else
        ``WalkTooLong``; ``or_track.py::_exact_entries``): an 18AL random game of the ninth
        differential run had an upgrade accepted whose new track no train could reach.
        With ``until`` (a test of a stop): None as soon as a stop it reaches passes the test
        (the full answer if none does), so ``any(until(k) for k in reach(...)[1])`` without the
        whole walk.  With ``watch`` (a hex) and ``watch_ok`` (a test of that hex's edges, the
        stops reached and that hex's entries, which only more of them can make true): None
        as soon as the test holds on what is reached so far, asked whenever more of that hex is
        reached."""
        limit = _KEEP if keep is None else keep
        self.merging = False  # whether this walk has merged routes (its entries may then say too much)
        hexes: dict[str, set[int]] = {}
        entries: dict[str, dict[tuple[str, int], set[tuple[int, int]]]] = {}
        nodes: set[NodeKey] = set()
        starts = list(starts)
        start_set = set(starts)
        walked_with: dict[int, list[int]] = {}  # path id * 2 + 1 if walked from its second end -> masks
        stack: list[tuple[int, tuple[str, int], int]] = []  # (path, entered end, used so far)
        on_map, by_node, paths, path_mask = self.neighbour_on_map, self.by_node, self.paths, self.path_mask
        index, stride = self.index, self.stride_bits
        node_off = len(index) * stride  # stop bits follow the track-use bits, _NODE_STRIDE a hex
        blocks = self.map.blocks
        blocked: dict[NodeKey, bool] = {}
        kinds = self._stop_kinds
        cross = self._cross
        w = watch if watch_ok is not None else None
        no_sides: set[int] = set()
        no_entries: dict = {}
        key_mask = (1 << stride) - 1
        node_mask = (1 << _NODE_STRIDE) - 1

        def signature(coord: str, mask: int) -> tuple[int, int]:
            i = index[coord]
            return (mask >> (i * stride)) & key_mask, (mask >> (node_off + i * _NODE_STRIDE)) & node_mask

        def enter(coord: str, how: tuple[str, int], mask: int) -> dict:
            got = entries.get(coord)
            if got is None:
                got = entries[coord] = {}
            sigs = got.get(how)
            if sigs is None:
                sigs = got[how] = set()
            sigs.add(signature(coord, mask))
            return got

        def station_hex(coord: str) -> set[int]:
            every = {e for e in range(6) if on_map(coord, e)}
            hexes.setdefault(coord, set()).update(every)
            return hexes[coord]

        for coord in home_hexes:  # no station yet: any track of the home hex counts
            edges = station_hex(coord)
            for e in edges:
                enter(coord, ("e", e), 0)
            if coord == w and watch_ok(edges, nodes, entries.get(coord, no_entries)):  # type: ignore[misc]
                return None
        for key in starts:
            coord = key[0]
            edges = station_hex(coord)
            nodes.add(key)
            bit = 1 << (node_off + index[coord] * _NODE_STRIDE + key[1])
            enter(coord, ("n", key[1]), bit)
            if until is not None and until(key):
                return None
            if coord == w and watch_ok(edges, nodes, entries.get(coord, no_entries)):  # type: ignore[misc]
                return None
            for pid in by_node.get(key, ()):
                stack.append((pid, ("n", key[1]), bit))
        steps = 0
        while stack:
            steps += 1
            if budget is not None and steps > budget:
                raise WalkTooLong(steps)
            pid, from_end, mask = stack.pop()
            coord, a, b = paths[pid]  # type: ignore[misc]
            mask |= path_mask[pid]
            walked = pid * 2 + (a != from_end)
            before = walked_with.get(walked)
            if before is None:
                walked_with[walked] = [mask]
            else:
                if any(old & mask == old for old in before):
                    continue  # walked here before having used less
                if len(before) >= limit:  # too many ways here: go on as if having used only what all used
                    self.merging = True
                    for old in before:
                        mask &= old
                    before[:] = [mask]
                else:
                    before[:] = [old for old in before if old & mask != mask]
                    before.append(mask)
            if a[0] == "e" or b[0] == "e":
                edges = hexes.get(coord)
                if edges is None:
                    edges = hexes[coord] = set()
                grew = False
                for end in (a, b):
                    if end[0] == "e" and end[1] not in edges:
                        edges.add(end[1])
                        grew = True
                if grew and coord == w and watch_ok(edges, nodes, entries.get(coord, no_entries)):  # type: ignore[misc]
                    return None
            end = b if a == from_end else a
            if end[0] == "n":
                key = (coord, end[1])
                bit = 1 << (node_off + index[coord] * _NODE_STRIDE + end[1])
                if mask & bit:
                    continue  # a stop is visited once a route
                new = key not in nodes
                if new:
                    if until is not None and until(key):
                        return None
                    nodes.add(key)
                if key in start_set:
                    continue  # routes on from another station are walked from there
                kind = kinds.get(key)
                if kind is None:
                    kind = kinds[key] = self._stop_kind(key)
                if kind == 1:  # never passed through, whose ever the stations
                    if new and coord == w and watch_ok(hexes.get(coord, no_sides), nodes, entries.get(coord, no_entries)):  # type: ignore[misc]
                        return None
                    continue
                if kind == 2:  # a city: its stations decide
                    stop = blocked.get(key)
                    if stop is None:
                        stop = blocked[key] = blocks(key, corp)
                    if stop:
                        if new and coord == w and watch_ok(hexes.get(coord, no_sides), nodes, entries.get(coord, no_entries)):  # type: ignore[misc]
                            return None
                        continue
                mask |= bit
                got = enter(coord, ("n", end[1]), mask)
                if coord == w and watch_ok(hexes.get(coord, no_sides), nodes, got):  # type: ignore[misc]
                    return None
                for nxt in by_node.get(key, ()):
                    if not path_mask[nxt] & mask:
                        stack.append((nxt, end, mask))
                continue
            across = cross.get((coord, end[1]), False)
            if across is False:
                across = self._crossing(coord, end[1])
            if across is None:
                continue
            nb, opp, pids, entered = across
            edges = hexes.get(nb)
            if edges is None:
                edges = hexes[nb] = set()
            edges.add(opp)
            got = enter(nb, ("e", opp), mask)
            if nb == w and watch_ok(edges, nodes, got):  # type: ignore[misc]
                return None
            for nxt in pids:
                if not path_mask[nxt] & mask:
                    stack.append((nxt, entered, mask))
        return hexes, nodes, entries

    def entry_keys(self, coord: str) -> dict[int, int]:
        """Side -> its track-use bit in ``coord``'s block (as in ``reach``'s entries), for the tile
        the graph was built with."""
        return {k[1]: bit for k, bit in self._hex[coord][5].items() if isinstance(k[1], int)}


class WalkTooLong(Exception):
    """An exact ``TrackGraph.reach`` walk went past its budget of steps."""


_KEEP = 4  # the ways one piece of track is walked that ``reach`` keeps apart (then merged: see there)
_NODE_STRIDE = 16  # stop bits a hex owns in ``TrackGraph.reach``'s masks (no tile has more stops)


def _title_strides(title: Title) -> tuple[int, int]:
    """Path ids and track-use bits a hex needs at most: the most of any tile of the title."""
    got = title.__dict__.get("_track_strides")
    if got is None:
        tiles = list(title.tiles.values()) + [hd.tile for hd in title.hexes.values()]
        got = title.__dict__["_track_strides"] = (max((len(t.paths) for t in tiles), default=1) or 1,
                                                   max((_track_keys(t) for t in tiles), default=1) or 1)
    return got


def _track_keys(tile: TileDef) -> int:
    sides = {end[1] for path in tile.paths for end in path if end[0] == "e"}
    return len(sides) + sum(1 for a, b in tile.paths if a[0] == "n" and b[0] == "n")


def _strides_needed(m: MapState, paths: int, bits: int) -> tuple[int, int]:
    """Strides wide enough for every tile on ``m`` (one placed from outside the title's set)."""
    return (max([paths] + [len(pl.tile.paths) for pl in m.placed.values()]),
            max([bits] + [_track_keys(pl.tile) for pl in m.placed.values()]))


def upgrade_ok(old: Placed, new: TileDef, rotation: int) -> str | None:
    """None if ``new`` at ``rotation`` may replace ``old``, else why not
    (colour order, labels, stops and the old track kept)."""
    got = upgrade_fault(old, new, rotation)
    return got[1] if got else None


def _label_fault(hex_label: str | None, tile_label: str | None) -> str:
    """Why a tile's label does not fit the hex, in the rulebooks' words (18GA 4.2.1(g): "Tiles
    labeled with one or more city names may be laid only in the hex(es) named"); it said "label
    none does not match the hex's label Aug" (play-through s11v F6)."""
    if not hex_label:
        return f"a tile labelled {tile_label} goes only in the hex it names"
    has = f"is labelled {tile_label}" if tile_label else "has no label"
    return f"this hex takes only tiles labelled {hex_label}; the tile {has}"


def upgrade_fault(old: Placed, new: TileDef, rotation: int) -> tuple[str, str] | None:
    """None if ``new`` at ``rotation`` may replace ``old``, else (which rule, why not): the rule
    is a key of title data ``track_refs`` (``colour``, ``cities``, ``towns``, ``label``, ``keep``)."""
    want = UPGRADE_NEXT.get(old.tile.color)
    if want is None or old.tile.color == "red":
        return "colour", f"a {old.tile.color} hex cannot be changed"
    if new.color != want:
        return "colour", f"a {old.tile.color} hex takes a {want} tile, not {new.color}"
    if (old.tile.label or None) != (new.label or None):
        return "label", _label_fault(old.tile.label, new.label)
    for kind in ("city", "town", "offboard"):
        if old.tile.count_kind(kind) != new.count_kind(kind):
            return ("towns" if kind == "town" else "cities",
                    f"the tile must have {old.tile.count_kind(kind)} {kind}(s) like the hex, it has {new.count_kind(kind)}")
    old_paths = old.tile.rotated_paths(old.rotation)
    new_paths = set(new.rotated_paths(rotation))
    new_paths |= {(b, a) for a, b in new_paths}
    old_ne = old.tile.node_edges(old.rotation)
    new_ne = new.node_edges(rotation)
    for a, b in old_paths:
        if a[0] == "e" and b[0] == "e":
            if (a, b) not in new_paths:
                return "keep", f"old track between edges {a[1]} and {b[1]} is not kept"
    for i, edges in enumerate(old_ne):
        if not edges:
            continue
        kind = old.tile.nodes[i].kind
        if not any(new.nodes[j].kind == kind and edges <= new_ne[j] for j in range(len(new.nodes))):
            return "keep", f"old track to the {kind} (edges {sorted(edges)}) is not kept"
    if _node_matching(old.tile.nodes, old_ne, new.nodes, new_ne) is None:
        # two cities (or towns) of the old tile would become one: each keeps its own track on a
        # city of its own (1848 7.5.3: "Existing track may not be broken or lost", "Tiles with
        # stations must retain any stations they had"; an OO tile's 59 to 64 with edges 0 and 4 of
        # its two cities in one city: eighth referee run, 1848 3p 60052, refused by 18xx.games)
        joined = [sorted(e) for e in old_ne if e]
        kinds = {n.kind for n, e in zip(old.tile.nodes, old_ne) if e}
        what = {"city": "cities", "town": "towns"}.get(kinds.pop(), "stops") if len(kinds) == 1 else "stops"
        return "keep", (f"the old tile's separate {what} (edges {' and '.join(map(str, joined))}) would be "
                        "joined in one")
    return None


def _node_matching(old_nodes: list, old_ne: list, new_nodes: list, new_ne: list) -> dict[int, int] | None:
    """Each old node (city, town) as a distinct new node of its kind that keeps all its edges
    (``*_ne``: each node's edges at the tiles' rotations), or None when there is no such assignment
    (the nodes are few: a plain search)."""
    order = sorted(range(len(old_nodes)), key=lambda i: -len(old_ne[i]))

    def assign(k: int, used: dict[int, int]) -> dict[int, int] | None:
        if k == len(order):
            return dict(used)
        i = order[k]
        for j in range(len(new_nodes)):
            if j in used.values() or new_nodes[j].kind != old_nodes[i].kind or not old_ne[i] <= new_ne[j]:
                continue
            used[i] = j
            found = assign(k + 1, used)
            if found is not None:
                return found
            del used[i]
        return None

    return assign(0, {})


def city_map(old: Placed, new: TileDef, rotation: int) -> dict[int, int]:
    """Which new node each old node becomes (by shared edges, else by index)."""
    old_ne = old.tile.node_edges(old.rotation)
    new_ne = new.node_edges(rotation)
    matched = _node_matching(old.tile.nodes, old_ne, new.nodes, new_ne)
    if matched is not None:
        return matched
    out: dict[int, int] = {}
    used: set[int] = set()
    for i, node in enumerate(old.tile.nodes):
        cands = [j for j in range(len(new.nodes)) if new.nodes[j].kind == node.kind and j not in used]
        best = [j for j in cands if old_ne[i] and old_ne[i] <= new_ne[j]]
        pick = (best or cands or [i])[0]
        out[i] = pick
        used.add(pick)
    return out

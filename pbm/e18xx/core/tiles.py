"""Tile geometry: cities, towns, off-boards and the track joining them.

A tile definition is immutable and unrotated.  Track is a list of paths; a
path end is an edge (``e0``..``e5``) or a node (``c0`` city, ``t0`` town,
``o0`` off-board, numbered within their kind).  Nodes are numbered in the
order cities, towns, off-boards (this is also how exported games name them:
``D4-2`` is the third node of the tile in D4).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

COLORS = ("white", "yellow", "green", "brown", "gray", "red")
UPGRADE_NEXT = {"white": "yellow", "yellow": "green", "green": "brown", "brown": "gray"}


@dataclass(frozen=True)
class NodeDef:
    kind: str  # "city" | "town" | "offboard"
    revenue: tuple[tuple[str, int], ...]  # ((colour, value), ...) by increasing colour
    slots: int = 0

    def revenue_for(self, phase_colors: tuple[str, ...]) -> int:
        """Revenue in a phase whose tile colours are ``phase_colors``."""
        value = self.revenue[0][1] if self.revenue else 0
        for color, amount in self.revenue:
            if color in phase_colors:
                value = amount
        return value


def _revenue(raw: Any) -> tuple[tuple[str, int], ...]:
    if isinstance(raw, Mapping):
        return tuple(sorted(((c, int(v)) for c, v in raw.items()), key=lambda cv: COLORS.index(cv[0])))
    return (("yellow", int(raw or 0)),)


End = tuple[str, int]  # ("e", edge) or ("n", node index)


@dataclass(frozen=True)
class TileDef:
    name: str
    color: str
    nodes: tuple[NodeDef, ...]
    paths: tuple[tuple[End, End], ...]
    label: str | None = None
    count: int = 0
    terminal: frozenset[int] = field(default_factory=frozenset)  # nodes only entered, never passed
    # 18xx.games numbers a tile's nodes by their place among all the tile's parts: where that
    # differs from ours, ``site_nodes`` maps its number to ours (read by the replay only)
    site_nodes: tuple[tuple[int, int], ...] = ()

    # -- construction -------------------------------------------------
    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> "TileDef":
        nodes: list[NodeDef] = []
        keys: dict[str, int] = {}
        for kind, prefix in (("cities", "c"), ("towns", "t"), ("offboards", "o")):
            for i, nd in enumerate(data.get(kind, [])):
                keys[f"{prefix}{i}"] = len(nodes)
                nodes.append(NodeDef({"cities": "city", "towns": "town", "offboards": "offboard"}[kind], _revenue(nd.get("revenue", 0)),
                                     int(nd.get("slots", 1)) if kind == "cities" else 0))
        paths = []
        for p in data.get("paths", []):
            paths.append((_end(p[0], keys), _end(p[1], keys)))
        return cls(name=name, color=data["color"], nodes=tuple(nodes), paths=tuple(paths),
                   label=data.get("label"), count=int(data.get("count", 0)),
                   terminal=frozenset(keys[k] for k in data.get("terminal", [])),
                   site_nodes=tuple((int(k), keys[v]) for k, v in data.get("site_nodes", {}).items()))

    # -- geometry (cached per rotation; the definition is immutable) ------
    def _geometry(self, rotation: int) -> tuple:
        cache = self.__dict__.get("_geo")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_geo", cache)
        geo = cache.get(rotation)
        if geo is None:
            paths = tuple((_rot(a, rotation), _rot(b, rotation)) for a, b in self.paths)
            exits = frozenset(end[1] for path in paths for end in path if end[0] == "e")
            ne: list[set[int]] = [set() for _ in self.nodes]
            for a, b in paths:
                for x, y in ((a, b), (b, a)):
                    if x[0] == "n" and y[0] == "e":
                        ne[x[1]].add(y[1])
            geo = cache[rotation] = (paths, exits, [frozenset(x) for x in ne])
        return geo

    def rotated_paths(self, rotation: int) -> tuple[tuple[End, End], ...]:
        return self._geometry(rotation % 6)[0]

    def exits(self, rotation: int) -> frozenset[int]:
        return self._geometry(rotation % 6)[1]

    def node_edges(self, rotation: int) -> list[frozenset[int]]:
        """For each node, the edges joined to it by a direct path."""
        return self._geometry(rotation % 6)[2]

    def cities(self) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if n.kind == "city"]

    def towns(self) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if n.kind == "town"]

    def count_kind(self, kind: str) -> int:
        counts = self.__dict__.get("_counts")
        if counts is None:
            counts = {}
            for n in self.nodes:
                counts[n.kind] = counts.get(n.kind, 0) + 1
            object.__setattr__(self, "_counts", counts)
        return counts.get(kind, 0)


def _end(text: str, keys: Mapping[str, int]) -> End:
    if text.startswith("e"):
        return ("e", int(text[1:]))
    return ("n", keys[text])


def _rot(end: End, rotation: int) -> End:
    return ("e", (end[1] + rotation) % 6) if end[0] == "e" else end


def parse_hex_spec(spec: str, color: str, name: str) -> tuple[TileDef, int, str | None]:
    tile, cost, terrain, _ = parse_hex_spec_full(spec, color, name)
    return tile, cost, terrain


def parse_hex_spec_full(spec: str, color: str, name: str) -> tuple[TileDef, int, str | None, frozenset[int]]:
    """Parse the compact map notation of ``title.json``.

    Parts are separated by ``;``: ``city`` / ``city*3`` / ``city=yellow:30,brown:60``
    / ``town`` / ``offboard=...`` / ``label=ATL`` / ``terrain=water:20`` /
    ``path=e1-c0,e2-c0`` / ``terminal=c0`` (a node routes may end at but not
    pass) / ``border=3,4`` (impassable sides).  Returns the printed tile, its
    terrain cost, terrain and impassable edges.
    """
    data: dict[str, Any] = {"color": color}
    cost, terrain = 0, None
    borders: frozenset[int] = frozenset()
    for part in filter(None, spec.split(";")):
        key, _, value = part.partition("=")
        base, _, times = key.partition("*")
        n = int(times) if times else 1
        if base in ("city", "town", "offboard"):
            revenue: Any = 0
            slots = 1
            if value:
                rev: dict[str, int] = {}
                for item in value.split(","):
                    k, _, v = item.partition(":")
                    if k == "slots":
                        slots = int(v)
                    else:
                        rev[k] = int(v)
                revenue = rev or 0
            plural = {"city": "cities", "town": "towns", "offboard": "offboards"}[base]
            for _ in range(n):
                entry: dict[str, Any] = {"revenue": revenue}
                if base == "city":
                    entry["slots"] = slots
                data.setdefault(plural, []).append(entry)
        elif base == "label":
            data["label"] = value
        elif base == "terrain":
            terrain, _, c = value.partition(":")
            cost = int(c)
        elif base == "path":
            data["paths"] = [item.split("-") for item in value.split(",")]
        elif base == "terminal":
            data["terminal"] = value.split(",")
        elif base == "border":
            borders = frozenset(int(e.lstrip("e")) for e in value.split(","))  # "3" or "e3"
        else:
            raise ValueError(f"unknown map notation {part!r} in hex {name}")
    return TileDef.from_data(name, data), cost, terrain, borders

"""Tile rotations in words, and the legal tile lays grouped by hex with what each rotation joins
(issue 29, item 4: "every lay is a guess checked against the next PDF").

A tile's sides are numbered 0-5 as in the published tile lists; ``lay 57 E5 2`` turns tile 57
two sixths clockwise before it goes down (its side 0 comes to side 2).  Which side of the hex
is number 0 depends on the map: on a pointy-topped map (18GA, 1848) side 0 is the lower left,
on a flat-topped one (18AL, 18VA) the bottom; the numbers go on clockwise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.hexgrid import neighbour, opposite

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine

SIDES = {
    "pointy": ("lower left", "left", "upper left", "upper right", "right", "lower right"),
    "flat": ("bottom", "lower left", "upper left", "top", "upper right", "lower right"),
}


def side_names(layout: str) -> tuple[str, ...]:
    """The six sides of a hex, side 0 first, as seen on the map of ``layout``."""
    return SIDES["pointy" if layout == "pointy" else "flat"]


def rotation_key(layout: str) -> str:
    """One line saying what the side numbers and a rotation mean on this map."""
    sides = ", ".join(f"{i} {n}" for i, n in enumerate(side_names(layout)))
    return (f"Sides of a hex: {sides}. Rotation r turns the tile r sixths clockwise "
            "(its side 0 comes to side r; 0 is the tile as printed).")


def _place(g: "Engine", coord: str) -> str:
    name = g.title.data.get("location_names", {}).get(coord)
    return f"{coord} {name}" if name else coord


def joins(g: "Engine", coord: str, tile: str, rotation: int) -> str:
    """What tile ``tile`` turned ``rotation`` on ``coord`` joins: its stops and the hexes its
    track leads to (``city; to C9 (upper left), E11 Savannah (lower right)``)."""
    td = g.title.tiles[tile]
    sides = side_names(g.title.layout)
    mine = coord in ((g.title.data.get("stop_groups") or {}).get("mine") or ())  # 18VA: a mine, not a town

    def kind(k: str) -> str:
        return "mine" if mine and k == "town" else k

    def side(e: int) -> str:
        nb = neighbour(coord, e, g.title.layout)
        return f"{_place(g, nb)} ({sides[e]}{_unmet(g, nb, e)})"

    if len(td.nodes) > 1:
        # a hex of several stops: which stop each side's track reaches, numbered as a station or a
        # route's stop is written ('token D4-2', 'run 2-4 B19 C18-1'), so the owed home station or
        # the route goes in the same mail (play-through s10 finding 3)
        per = td.node_edges(rotation)
        parts = []
        for i, nd in enumerate(td.nodes):
            edges = sorted(per[i]) if i < len(per) else []
            to_words = "to " + ", ".join(side(e) for e in edges) if edges else "no track yet"
            worth = nd.revenue_for(g.route_colors()) if nd.kind != "offboard" else 0
            value = f", {g.title.money(worth)}" if worth else ""  # a green Atlanta pays less (finding 13)
            parts.append(f"{kind(nd.kind)} {i} ({coord}-{i}{value}) {to_words}")
        return "; ".join(parts) + _home_choice(g, coord)
    stops = [kind(n.kind) for n in td.nodes]
    to = [side(e) for e in sorted(td.exits(rotation))]
    head = " and ".join(stops)
    out = (f"{head}; " if head else "") + "to " + ", ".join(to)
    if not td.nodes and len(td.paths) > 1:
        # track only, in pieces: which sides each piece joins - tile 23's straight and curve share a
        # side and never meet at the other two (play-through s12v F5: "to D4, D8, E7" read as one junction)
        ends = sorted(tuple(sorted(neighbour(coord, e[1], g.title.layout) for e in p))
                      for p in td.rotated_paths(rotation))
        out += "; its tracks: " + ", ".join(f"{a}-{b}" for a, b in ends)
    return out


def reached(g: "Engine", coord: str, tile: str, rotation: int) -> frozenset[str]:
    """The hexes the track of tile ``tile`` turned ``rotation`` on ``coord`` leads to (its sides'
    neighbours, as :func:`joins` names them)."""
    td = g.title.tiles[tile]
    return frozenset(neighbour(coord, e, g.title.layout) for e in td.exits(rotation))


def _unmet(g: "Engine", nb: str, edge: int) -> str:
    """Said beside a side whose neighbour has track (a laid tile, or printed track such as 18VA's
    Annapolis) that does not come to the common side: the new track would lead to it but not join it
    (play-through s15, 18VA mails 61, 62, 103: 'to D9 Charlottesville' read as joined, and three
    routes were refused; s15c: B&O's first tile 'to H5 Annapolis' led to a dead end). A hex with no
    track at all says nothing more."""
    m = g.state.map
    if not m.on_map(nb):
        return ""
    pl = m.placed[nb]
    exits = pl.tile.exits(pl.rotation)
    if not exits or opposite(edge) in exits:
        return ""
    return f", but {nb}'s track does not meet this side"


def _home_choice(g: "Engine", coord: str) -> str:
    """After the first tile of a home hex of several cities (18GA's Atlanta), the home station's
    city is chosen by a 'token' line in the same mail: said beside the lay (play-through s11
    finding 14: the lay lines did not say it, and the mail was refused for the missing line)."""
    if g.state.map.placed[coord].tile_id:
        return ""
    homes = [sym for sym, c in g.state.corporations.items() if c.tokens and c.tokens[0] and c.tokens[0][0] == coord]
    return "".join(f"; then 'token {coord}-<n>' puts {sym}'s home station in the city you choose" for sym in homes)


def lays_by_hex(g: "Engine", lays: Iterable[A.LayTile]) -> list[str]:
    """The lays grouped by hex: a line per hex, then a line per lay with what it joins and its
    cost (the line starts with the move as it is written)."""
    by_hex: dict[str, list[A.LayTile]] = {}
    for a in lays:
        by_hex.setdefault(a.hex, []).append(a)
    out: list[str] = []
    for coord in sorted(by_hex):
        hd = g.title.hexes.get(coord)
        cost = hd.cost if hd is not None and g.state.map.placed[coord].tile_id is None else 0
        out.append(f"{_place(g, coord)}" + (f" (costs {cost} to build on)" if cost else ""))
        for a, others in same_track(g, sorted(by_hex[coord], key=lambda x: (x.tile, x.rotation))):
            who = f" with {a.entity}" if a.entity in g.state.companies else ""
            out.append(f"  lay {printed_lay(g, a).tile} {a.hex} {a.rotation}{who}{same_as(others)}   # "
                       f"{joins(g, a.hex, a.tile, a.rotation)}")
    return out


def acting_lays(g: "Engine") -> list[A.LayTile]:
    """The tile lays legal for the acting entity now (none outside a company's track step), or,
    at 18VA's conversion step (4.5.1), the lays its track step will offer."""
    if g.state.finished or g.state.round.kind != "operating":
        return []
    acts = g.legal_actions()
    lays = [a for a in acts if isinstance(a, A.LayTile)]
    if not lays and any(isinstance(a, A.Convert) for a in acts):
        return lays_after_the_step(g)
    return lays


def lays_after_the_step(g: "Engine") -> list[A.LayTile]:
    """The lays the acting company gets once the open step (18VA's conversion, 4.5.1) is passed:
    a mail may write them at once, and a lay written now passes that step first (pbem/intent.py),
    so a whole turn - convert, lay, run, pay, buy - goes in one mail (play-through s10 finding 9).
    The game is left exactly as it was (state, log, recorded events)."""
    from pbm.e18xx.core.state import clone_state

    corp = g.current_entity()
    snap, n = clone_state(g.state), len(g.actions)
    rec = getattr(g, "recorder", None)
    k = len(rec.events) if rec is not None and hasattr(rec, "events") else None
    try:
        type(g).process(g, A.Pass(corp))  # the class's own process: no event recorder
        if g.current_entity() != corp or g.state.round.kind != "operating":
            return []
        return [a for a in g.legal_actions() if isinstance(a, A.LayTile)]
    except Exception:  # noqa: BLE001 - a list to show; nothing is changed whatever happens
        return []
    finally:
        g._restore(snap)
        del g.actions[n:]
        if k is not None:
            del rec.events[k:]


def track_signature(g: "Engine", coord: str, tile: str, rotation: int) -> tuple:
    """What tile ``tile`` turned ``rotation`` on ``coord`` lays, without the rotation's number:
    the side-to-side track, and each stop with what it is (kind, revenue, slots, terminal), the
    sides it is joined to and what it carries over from the tile it replaces (stations, a home
    slot held for a company, a private's station beside it).  Two rotations with the same
    signature lay the same track (issue 29 finding 9); two cities of a tile are interchangeable
    only when they are alike and carry the same things, so a reserved home city never merges
    with an empty one."""
    from pbm.e18xx.core.track import city_map

    m = g.state.map
    old = m.placed[coord]
    td = g.title.tiles[tile]
    mapping = city_map(old, td, rotation)
    # a tile on a printed multi-city hex without track: its stations are placed again by choice
    repick = (not old.tile.paths and len(td.cities()) > 1
              and any(t for i in old.tile.cities() for t in m.tokens.get((coord, i), ())))
    carried: dict[int, list] = {}
    for i in old.tile.cities():
        stations = () if repick else tuple(sorted(t for t in m.tokens.get((coord, i), ()) if t))
        held = m.reservations.get((coord, i))
        beside = tuple(sorted(m.extra_tokens.get((coord, i), ())))
        if stations or held or beside:
            carried.setdefault(mapping.get(i, i), []).append((stations, held or "", beside))
    node_edges = td.node_edges(rotation)

    def stop(j: int) -> tuple:
        n = td.nodes[j]
        return (n.kind, n.revenue, n.slots, j in td.terminal, tuple(sorted(node_edges[j])),
                tuple(sorted(carried.get(j, ()))))

    sides: set[tuple[int, int]] = set()
    inner: list[tuple] = []
    for a, b in td.rotated_paths(rotation):
        if a[0] == "e" and b[0] == "e":
            sides.add((min(a[1], b[1]), max(a[1], b[1])))
        elif a[0] == "n" and b[0] == "n":  # track between two stops of the tile
            inner.append(tuple(sorted((stop(a[1]), stop(b[1])))))
    return (tuple(sorted(sides)), tuple(sorted(stop(j) for j in range(len(td.nodes)))), tuple(sorted(inner)))


def same_track(g: "Engine", lays: Iterable[A.LayTile]) -> list[tuple[A.LayTile, list[int]]]:
    """The lays with rotations that lay the same track merged: each kept lay (the lowest rotation)
    with the other rotations that lay what it lays, in the order the lays came."""
    out: list[tuple[A.LayTile, list[int]]] = []
    seen: dict[tuple, int] = {}
    for a in lays:
        try:
            key = (a.entity, a.hex, a.tile, track_signature(g, a.hex, a.tile, a.rotation))
        except (KeyError, IndexError):  # a tile or hex the title does not know: listed as it is
            out.append((a, []))
            continue
        at = seen.get(key)
        if at is None:
            seen[key] = len(out)
            out.append((a, []))
            continue
        kept, others = out[at]
        if a.rotation < kept.rotation:  # the lowest rotation is the one written out
            out[at] = (a, sorted(others + [kept.rotation]))
        else:
            others.append(a.rotation)
            others.sort()
    return out


def same_as(rotations: list[int]) -> str:
    """`` (same as 4)`` after a lay, for the other rotations laying the same track (the move
    language reads it as part of the lay)."""
    return f" (same as {' and '.join(str(r) for r in rotations)})" if rotations else ""


def hex_copy_of_tile(game: "Engine", move: A.LayTile) -> A.LayTile:
    """A tile named by its printed number where the hex takes only its own copy of that tile
    (18VA 4.5.2.1: Richmond's and Washington's brown #170, pbm's ``170ric`` and ``170was``, which
    later take #171 and #172): ``lay 170 F11 0`` lays ``170ric`` (play-through s12 mail #121,
    refused "F11 must be upgraded with tile 170ric").  Only a copy the hex's upgrade rule names,
    and only when the number written is not itself allowed there."""
    from dataclasses import replace

    m = game.state.map
    if move.tile not in game.title.tiles:
        # 'lay 444B G4 3': the mails' "Tiles left" write 444 B, pbm's tile is 444b (s14b mail #104)
        same = [t for t in game.title.tiles if t.lower() == move.tile.lower()]
        if len(same) == 1:
            return hex_copy_of_tile(game, replace(move, tile=same[0]))
    if move.tile not in game.title.tiles and move.tile[-1:].isdigit():
        # 'lay 451 D4 0': 18GA's Atlanta tile is #451 on the tile and in every mail's "Tiles left" ("451
        # ATL"), pbm's 451a (play-through s14 F9, refused "unknown tile '451'"): the one tile so numbered
        copies = [t for t in game.title.tiles if t.startswith(move.tile) and t[len(move.tile):].isalpha()]
        if len(copies) == 1:
            return replace(move, tile=copies[0])
    if move.tile in game.title.tiles and move.hex in m.placed:
        placed = m.placed[move.hex]
        for o in game.title.data.get("upgrade_overrides", []):
            if o["hex"] != move.hex or o["from_color"] != placed.tile.color or move.tile in o["only"]:
                continue
            copies = [t for t in o["only"] if t != move.tile and t.startswith(move.tile)
                      and t[len(move.tile):].isalpha()]
            if len(copies) == 1:
                return replace(move, tile=copies[0])
    return move


def printed_number(game: "Engine", coord: str, tile: str) -> str:
    """The number the rulebook gives a hex's own copy of a tile, named in the hex's upgrade rule
    (``170`` for 18VA's ``170ric`` on F11), before or after it is laid; any other tile as it is."""
    import re

    m = re.fullmatch(r"(\d+)[a-z]+", str(tile))
    if m is None or m.group(1) not in game.title.tiles:
        return tile
    if any(o.get("hex") == coord and tile in o.get("only", ()) for o in game.title.data.get("upgrade_overrides", [])):
        return m.group(1)
    return tile


def printed_lay(game: "Engine", a: A.LayTile) -> A.LayTile:
    """A lay of a hex's own copy of a tile (18VA's ``170ric``) as the rulebook numbers it (``lay 170
    F11 0``), which :func:`hex_copy_of_tile` reads back (play-through s12 mail #121)."""
    import re
    from dataclasses import replace

    m = re.fullmatch(r"(\d+)[a-z]+", str(a.tile))
    if m is None or m.group(1) not in game.title.tiles:
        return a
    shown = replace(a, tile=m.group(1))
    return shown if hex_copy_of_tile(game, shown).tile == a.tile else a

"""The state of an 18xx game as a PDF (mailed after every accepted move).

Page 1: the map — every hex with its coordinate, laid tiles drawn from their
geometry (track from edge to edge or to a city/town, cities with their
station circles and tokens), off-boards, and the routes each company ran
last.  Page 2: the stock chart with company markers, the players' holdings,
the companies, private companies and the depot.

Drawn straight on a reportlab canvas in invariant mode: the same game gives
the same bytes.  Text is drawn with ``drawString`` (no markup is interpreted)
and cut to the characters the standard fonts have.
"""
from __future__ import annotations

import io
import math
import textwrap
from functools import lru_cache
from typing import TYPE_CHECKING

from reportlab.lib import colors
from reportlab.lib.pagesizes import A3
from reportlab.pdfgen.canvas import Canvas

from pbm.fonts import BOLD, ITALIC, SANS
from pbm.e18xx.core.hexgrid import to_xy
from pbm.e18xx.events import end_reason_words
from pbm.e18xx.render.head import draw_head
from pbm.e18xx.render.rotations import draw_key, draw_lays_page
from pbm.e18xx.render.view import train_list, trains_for_sale

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.games import Replayed

PAGE = A3
MARGIN = 28.0
FILL = {"white": "#f4f1e6", "yellow": "#f5e663", "green": "#8fcf7a", "brown": "#c79a6b", "gray": "#bdbdbd",
        "red": "#e06666", "blue": "#9fc5e8"}
CORP_COLORS = ["#1f4e9c", "#b22222", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457",
               "#33691e", "#283593"]
# edge -> (dx, dy) of the neighbour in doubled coordinates (pointy-topped; y grows downwards)
POINTY_DIRS = {0: (-1, 1), 1: (-2, 0), 2: (-1, -1), 3: (1, -1), 4: (2, 0), 5: (1, 1)}
FLAT_DIRS = {0: (0, 2), 1: (-1, 1), 2: (-1, -1), 3: (0, -2), 4: (1, -1), 5: (1, 1)}


def wrapped(text: str, width: int, hyphens: bool = True) -> list[str]:
    """``textwrap.wrap(text, width, break_on_hyphens=hyphens)``, kept (:func:`_wrap`): the events page
    wraps the same hundred-odd lines move after move (a tenth of drawing a PDF; issue 32)."""
    return list(_wrap(text, width, hyphens))


@lru_cache(maxsize=4096)
def _wrap(text: str, width: int, hyphens: bool) -> tuple[str, ...]:
    return tuple(textwrap.wrap(text, width, break_on_hyphens=hyphens))


def _t(text: object, limit: int = 60) -> str:
    """Text on one line, at most ``limit`` characters (any Unicode: pbm.fonts covers it, or draws a box)."""
    return " ".join(str(text).split())[:limit]


class MapGeometry:
    """Hex centres and edge midpoints in page points."""

    def __init__(self, game: "Game", box: tuple[float, float, float, float]):
        self.layout = game.title.layout
        coords = list(game.title.hexes)
        xy = {c: to_xy(c, self.layout) for c in coords}
        xs = [p[0] for p in xy.values()]
        ys = [p[1] for p in xy.values()]
        x0, y0, x1, y1 = box
        if self.layout == "pointy":  # unit: R (hex radius); centre = (x * W/2, y * 1.5R), W = sqrt(3) R
            span_x = (max(xs) - min(xs)) * math.sqrt(3) / 2 + math.sqrt(3)
            span_y = (max(ys) - min(ys)) * 1.5 + 2
        else:
            span_x = (max(xs) - min(xs)) * 1.5 + 2
            span_y = (max(ys) - min(ys)) * math.sqrt(3) / 2 + math.sqrt(3)
        self.r = min((x1 - x0) / span_x, (y1 - y0) / span_y)
        self.minx, self.miny = min(xs), min(ys)
        self.left, self.top = x0, y1
        self.dirs = POINTY_DIRS if self.layout == "pointy" else FLAT_DIRS

    def _unit(self, x: float, y: float) -> tuple[float, float]:
        if self.layout == "pointy":
            return x * math.sqrt(3) / 2, y * 1.5
        return x * 1.5, y * math.sqrt(3) / 2

    def centre(self, coord: str) -> tuple[float, float]:
        x, y = to_xy(coord, self.layout)
        ux, uy = self._unit(x - self.minx, y - self.miny)
        if self.layout == "pointy":
            ux, uy = ux + math.sqrt(3) / 2, uy + 1
        else:
            ux, uy = ux + 1, uy + math.sqrt(3) / 2
        return self.left + ux * self.r, self.top - uy * self.r

    def edge_mid(self, coord: str, edge: int) -> tuple[float, float]:
        cx, cy = self.centre(coord)
        dx, dy = self.dirs[edge]
        ux, uy = self._unit(dx, dy)
        return cx + ux * self.r / 2, cy - uy * self.r / 2

    def corners(self, coord: str) -> list[tuple[float, float]]:
        cx, cy = self.centre(coord)
        start = 90 if self.layout == "pointy" else 0
        return [(cx + self.r * math.cos(math.radians(start + 60 * k)), cy + self.r * math.sin(math.radians(start + 60 * k)))
                for k in range(6)]


def node_positions(geo: MapGeometry, coord: str, tile, rotation: int) -> list[tuple[float, float]]:
    """Where each node of a tile is drawn: the centre, or pulled towards its edges when there are several."""
    cx, cy = geo.centre(coord)
    n = len(tile.nodes)
    if n <= 1:
        return [(cx, cy)] * n
    out = []
    node_edges = tile.node_edges(rotation)
    for i in range(n):
        edges = sorted(node_edges[i])
        if edges:
            mx = sum(geo.edge_mid(coord, e)[0] for e in edges) / len(edges)
            my = sum(geo.edge_mid(coord, e)[1] for e in edges) / len(edges)
            px, py = cx + (mx - cx) * 0.55, cy + (my - cy) * 0.55
            if abs(px - cx) < 1e-6 and abs(py - cy) < 1e-6:
                ang = math.radians(90 + 360 * i / n)
                px, py = cx + geo.r * 0.4 * math.cos(ang), cy + geo.r * 0.4 * math.sin(ang)
        else:
            ang = math.radians(90 + 360 * i / n)
            px, py = cx + geo.r * 0.4 * math.cos(ang), cy + geo.r * 0.4 * math.sin(ang)
        out.append((px, py))
    # nodes that landed on the same spot are spread apart
    for i in range(n):
        for j in range(i):
            if abs(out[i][0] - out[j][0]) < geo.r * 0.2 and abs(out[i][1] - out[j][1]) < geo.r * 0.2:
                ang = math.radians(90 + 360 * i / n)
                out[i] = (cx + geo.r * 0.45 * math.cos(ang), cy + geo.r * 0.45 * math.sin(ang))
    return out


def _corp_colors(game: "Game") -> dict[str, str]:
    return {sym: CORP_COLORS[i % len(CORP_COLORS)] for i, sym in enumerate(game.state.corporations)}


def draw_map(c: Canvas, rep: "Replayed", box: tuple[float, float, float, float], since: int | None = None) -> None:
    """The map in ``box``, with the routes run last; their legend at the box's bottom, under the map.
    The hexes changed since action ``since`` are ringed (``changed_hexes``)."""
    g = rep.game
    s = g.state
    m = s.map
    marked, said = changed_hexes(g, since)
    # the legend of the routes run last stands in the box, under the map (not over the rotation key
    # below the box: play-through s11): the hexes keep above it
    legend_h = 9.0 * (len(rep.last_routes) + 1) + 4 if rep.last_routes else 0.0
    legend_h += 9.0 if said else 0.0
    geo = MapGeometry(g, (box[0], box[1] + legend_h, box[2], box[3]))
    r = geo.r
    ccol = _corp_colors(g)
    positions: dict[str, list[tuple[float, float]]] = {}
    # hexes and track
    for coord, hd in g.title.hexes.items():
        pl = m.placed[coord]
        tile = pl.tile
        color = tile.color if pl.tile_id else hd.color
        pts = geo.corners(coord)
        path = c.beginPath()
        path.moveTo(*pts[0])
        for p in pts[1:]:
            path.lineTo(*p)
        path.close()
        c.setFillColor(colors.HexColor(FILL.get(color, FILL["white"])))
        c.setStrokeColor(colors.HexColor("#777777"))
        c.setLineWidth(0.5)
        c.drawPath(path, stroke=1, fill=1)
        nodes = node_positions(geo, coord, tile, pl.rotation)
        positions[coord] = nodes
        c.setStrokeColor(colors.black)
        c.setLineWidth(max(1.0, r * 0.14))
        cx, cy = geo.centre(coord)
        for a, b in tile.rotated_paths(pl.rotation):
            pa = geo.edge_mid(coord, a[1]) if a[0] == "e" else nodes[a[1]]
            pb = geo.edge_mid(coord, b[1]) if b[0] == "e" else nodes[b[1]]
            if a[0] == "e" and b[0] == "e":
                p = c.beginPath()
                p.moveTo(*pa)
                p.curveTo(pa[0] + (cx - pa[0]) * 0.5, pa[1] + (cy - pa[1]) * 0.5,
                          pb[0] + (cx - pb[0]) * 0.5, pb[1] + (cy - pb[1]) * 0.5, *pb)
                c.drawPath(p, stroke=1, fill=0)
            else:
                c.line(pa[0], pa[1], pb[0], pb[1])
    # sides where the track changes gauge (title data ``gauge=``): a thick dashed line
    c.setStrokeColor(colors.HexColor("#b45f06"))
    c.setLineWidth(max(1.0, r * 0.12))
    c.setDash(max(1.0, r * 0.15), max(1.0, r * 0.1))
    for coord, hd in g.title.hexes.items():
        if not hd.gauge:
            continue
        pts = geo.corners(coord)
        for e in sorted(hd.gauge):
            mx, my = geo.edge_mid(coord, e)
            a, b = sorted(pts, key=lambda p: (p[0] - mx) ** 2 + (p[1] - my) ** 2)[:2]
            c.line(a[0], a[1], b[0], b[1])
    c.setDash()
    # cities, towns, off-boards, tokens and labels (over the track)
    groups = g.title.data.get("stop_groups") or {}  # 18VA: coal mining districts and mines (issue 29, item 3)
    cmds, mines = set(groups.get("cmd") or []), set(groups.get("mine") or [])
    for coord, hd in g.title.hexes.items():
        pl = m.placed[coord]
        tile = pl.tile
        nodes = positions[coord]
        cx, cy = geo.centre(coord)
        for i, node in enumerate(tile.nodes):
            px, py = nodes[i]
            if node.kind == "city":
                slots = m.tokens.get((coord, i)) or [None] * max(1, node.slots)
                rad = r * (0.24 if len(slots) == 1 else 0.19)
                total_w = rad * 2 * len(slots)
                for k, holder in enumerate(slots):
                    sx = px - total_w / 2 + rad + 2 * rad * k
                    c.setLineWidth(0.8)
                    c.setStrokeColor(colors.black)
                    fill = colors.white
                    if holder and holder != "N":
                        fill = colors.HexColor(ccol.get(holder, "#444444"))
                    elif holder == "N":
                        fill = colors.HexColor("#999999")
                    c.setFillColor(fill)
                    c.circle(sx, py, rad, stroke=1, fill=1)
                    if holder:
                        c.setFillColor(colors.white)
                        c.setFont(BOLD, max(3.5, rad * 0.75))
                        c.drawCentredString(sx, py - rad * 0.28, _t(holder, 4))
                    else:
                        res = m.reservations.get((coord, i))
                        if res:
                            c.setFillColor(colors.HexColor("#555555"))
                            c.setFont(SANS, max(3, rad * 0.6))
                            c.drawCentredString(sx, py - rad * 0.22, _t(res, 4))
                # stations beside the city, in no circle (a private's extra station): smaller, below
                for k, holder in enumerate(m.extra_tokens.get((coord, i), [])):
                    ex, ey, er = px - r * 0.3 + k * r * 0.3, py - r * 0.38, rad * 0.7
                    c.setFillColor(colors.HexColor(ccol.get(holder, "#444444")))
                    c.setStrokeColor(colors.black)
                    c.circle(ex, ey, er, stroke=1, fill=1)
                    c.setFillColor(colors.white)
                    c.setFont("Helvetica-Bold", max(3, er * 0.7))
                    c.drawCentredString(ex, ey - er * 0.28, _t(holder, 4))
            elif node.kind == "town" and coord in mines:  # a mine: the rulebook's triangle
                c.setFillColor(colors.HexColor("#3b2f2f"))
                tri = c.beginPath()
                tri.moveTo(px, py + r * 0.16)
                tri.lineTo(px - r * 0.15, py - r * 0.1)
                tri.lineTo(px + r * 0.15, py - r * 0.1)
                tri.close()
                c.drawPath(tri, stroke=0, fill=1)
            elif node.kind == "town":
                c.setFillColor(colors.black)
                c.circle(px, py, r * 0.09, stroke=0, fill=1)
            if node.kind in ("city", "town", "offboard"):
                value = node.revenue_for(g.phase_colors())
                if value:
                    c.setFillColor(colors.black)
                    c.setFont(SANS, max(3.5, r * 0.2))
                    c.drawCentredString(px + r * 0.38, py + r * 0.25, str(value))
        if coord in cmds:  # a coal mining district: the crossed circle, and what it is
            c.setStrokeColor(colors.HexColor("#3b2f2f"))
            c.setLineWidth(max(0.8, r * 0.05))
            rad, sx, sy = r * 0.14, cx - r * 0.5, cy + r * 0.3  # beside the station circle, not on it
            c.circle(sx, sy, rad, stroke=1, fill=0)
            d = rad * 0.7
            c.line(sx - d, sy - d, sx + d, sy + d)
            c.line(sx - d, sy + d, sx + d, sy - d)
        if coord in cmds or coord in mines:
            c.setFillColor(colors.HexColor("#3b2f2f"))
            c.setFont(BOLD, max(3, r * 0.15))
            c.drawCentredString(cx, cy - r * (0.4 if coord in cmds else 0.3), "COAL DISTRICT" if coord in cmds else "MINE")
        # labels: coordinate (top), place name, tile number (bottom)
        c.setFillColor(colors.HexColor("#333333"))
        c.setFont(SANS, max(3.5, r * 0.2))
        c.drawCentredString(cx, cy + r * 0.68, coord)
        if hd.name:
            c.setFont(ITALIC, max(3, r * 0.17))
            c.drawCentredString(cx, cy - r * 0.62, _t(hd.name, 18))
        if pl.tile_id:
            c.setFont(BOLD, max(3, r * 0.17))
            from pbm.e18xx.pbem.moves import printed_tile_name  # 18VA's 170ric shows as 170 (s12)
            c.drawString(cx + r * 0.3, cy - r * 0.45, _t(printed_tile_name(g, coord, tile.name), 8))
        if hd.cost and not pl.tile_id:
            c.setFont(SANS, max(3, r * 0.16))
            c.drawString(cx - r * 0.6, cy - r * 0.45, g.title.money(hd.cost))
    # the routes each company ran last, along their track
    from pbm.e18xx.core.track import TrackGraph

    graph = TrackGraph(m)
    legend = []
    for k, (corp, routes) in enumerate(sorted(rep.last_routes.items())):
        col = colors.HexColor(ccol.get(corp, "#000000"))
        c.setStrokeColor(col)
        c.setLineWidth(max(0.8, r * 0.06))
        c.setDash(4, 2)
        off = (k % 4 - 1.5) * r * 0.04
        parts = []
        for train, route in routes:
            pts = route_points(graph, geo, positions, route)
            for a, b in zip(pts, pts[1:]):
                c.line(a[0] + off, a[1] + off, b[0] + off, b[1] + off)
            t = g.state.trains.get(train)  # "3" (or "2G" when declared freight), not the id "3-2" (s12)
            name = (t.variant or t.name) if t is not None else train
            parts.append(f"{name}: {'-'.join(route.hexes())} ({route.revenue})")
        c.setDash()
        if parts:
            legend.append((corp, "; ".join(parts)))
    for coord in marked:
        if coord not in positions:
            continue
        mx, my = geo.centre(coord)
        c.setStrokeColor(colors.HexColor("#d00000"))
        c.setLineWidth(max(1.2, r * 0.1))
        c.circle(mx, my, r * 0.92, stroke=1, fill=0)
        c.setFillColor(colors.HexColor("#d00000"))
        c.setFont("Helvetica-Bold", max(4, r * 0.2))
        c.drawCentredString(mx, my + r * 0.95, "changed")
    y = box[1]
    if said:
        c.setFillColor(colors.HexColor("#d00000"))
        c.setFont(BOLD, 7)
        c.drawString(box[0], y, _t(said, 200))
        y += 9
    for corp, text in reversed(legend):
        c.setFillColor(colors.HexColor(ccol.get(corp, "#000000")))
        c.setFont(SANS, 7)
        c.drawString(box[0], y, _t(f"{corp} last ran {text}", 200))
        y += 9
    if legend:
        c.setFillColor(colors.black)
        c.setFont(BOLD, 7)
        c.drawString(box[0], y, "Routes run last (dashed):")


def map_moves(g, start: int = 0) -> list[tuple[int, str]]:
    """(action number, hex) of every map move from action ``start + 1`` on: a tile laid or a station
    placed (a private's lay or station too); a station whose city the action does not pin is left out."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    out = []
    for n, act in enumerate(g.actions[start:], start + 1):
        if isinstance(act, A.LayTile):
            out.append((n, act.hex))
        elif isinstance(act, A.PlaceToken):
            try:
                keys = g._city_ref(act.city)
            except GameError:
                continue
            if len(keys) == 1:
                out.append((n, keys[0][0]))
    return out


def changed_hexes(g, since: int | None) -> tuple[list[str], str]:
    """The hexes the PDF rings and the line that says what the rings mean (docs/18xx/email.md, "The
    PDF's red rings"). For a reader who had a PDF before (``since``: the number of actions it showed):
    every hex a tile or station changed since then, and none when nothing did (the ring once stayed on a
    tile laid rounds ago). Without one (the first PDF, ``pbm 18xx pdf``, the web page): the hexes of the
    last turn that changed the map, every map move of that entity's run of actions (issue 29: a
    company's tile once went unmarked when its station followed)."""
    n = len(g.actions)
    if since is not None:
        since = max(0, min(since, n))
        moves = map_moves(g, since)
        hexes = list(dict.fromkeys(h for _, h in moves))
        if not hexes:
            return [], f"Nothing on the map changed since your previous PDF (action {since})."
        return hexes, f"Red rings: the hexes changed since your previous PDF (action {since}): {', '.join(hexes)}."
    moves = map_moves(g)
    if not moves:
        return [], ""
    last = moves[-1][0]
    who = g.actions[last - 1].entity
    start = last
    while start > 1 and g.actions[start - 2].entity == who:  # back to the start of that entity's run
        start -= 1
    hexes = list(dict.fromkeys(h for k, h in moves if k >= start))
    span = f"action {start}" if start == last else f"actions {start}-{last}"
    return hexes, f"Red rings: the last map moves ({who}, {span}): {', '.join(hexes)}."


def track_between(graph, a, b) -> list[tuple[str, int]] | None:
    """The hex sides crossed by the shortest track from stop ``a`` to stop ``b`` with no stop between
    ([] for two stops of one tile), or None when no such track is on the map (it was replaced)."""
    best: list[list[tuple[str, int]]] = []

    def walk(coord: str, pid: int, from_end, crossed: list[tuple[str, int]], used: set[int]) -> None:
        end = graph.other_end(pid, from_end)
        if end[0] == "n":
            if (coord, end[1]) == b and (not best or len(crossed) < len(best[0])):
                best[:] = [list(crossed)]
            return
        if best and len(crossed) >= len(best[0]):
            return
        across = graph.continue_across(coord, end[1])
        if across is None:
            return
        nb, opp, pids = across
        for nxt in pids:
            if nxt not in used:
                walk(nb, nxt, ("e", opp), crossed + [(coord, end[1])], used | {nxt})

    for pid in graph.by_node.get(a, []):
        walk(a[0], pid, ("n", a[1]), [], {pid})
    return best[0] if best else None


def route_points(graph, geo, positions, route) -> list[tuple[float, float]]:
    """The points a route's line passes: each stop, and the middle of every hex side its track crosses
    between stops (straight from stop to stop where that track is no longer on the map)."""
    pts: list[tuple[float, float]] = []
    nodes = [(h, i) for h, i in route.nodes if h in positions and i < len(positions[h])]
    for k, key in enumerate(nodes):
        if k:
            for coord, edge in track_between(graph, nodes[k - 1], key) or []:
                pts.append(geo.edge_mid(coord, edge))
        pts.append(positions[key[0]][key[1]])
    return pts


def _row(c: Canvas, x: float, y: float, cells: list[str], widths: list[float], bold: bool = False) -> None:
    c.setFont(BOLD if bold else SANS, 8)
    for text, w in zip(cells, widths):
        c.drawString(x, y, _t(text, int(w / 3.6)))
        x += w


def draw_market(c: Canvas, g: "Game", x: float, top: float, width: float) -> float:
    """The stock chart with company markers; returns the y below it."""
    market = g.title.market
    cols = max(len(row) for row in market)
    cw = width / cols
    ch = 26.0
    ccol = _corp_colors(g)
    c.setFillColor(colors.black)
    c.setFont(BOLD, 11)
    c.drawString(x, top, "Stock chart")
    top -= 6
    for ri, row in enumerate(market):
        for ci, cell in enumerate(row):
            if cell is None:
                continue
            x0, y0 = x + ci * cw, top - (ri + 1) * ch
            fill = {"y": "#fff59d", "e": "#ef9a9a", "p": "#e0e0e0"}.get(cell.kind, "#ffffff")
            c.setFillColor(colors.HexColor(fill))
            c.setStrokeColor(colors.HexColor("#555555"))
            c.setLineWidth(1.4 if cell.kind == "p" else 0.5)
            c.rect(x0, y0, cw, ch, stroke=1, fill=1)
            c.setFillColor(colors.black)
            c.setFont(SANS, 7)
            c.drawString(x0 + 2, y0 + ch - 8, str(cell.price))
            corps = g.state.market.get((ri, ci), [])
            for k, sym in enumerate(corps):
                c.setFillColor(colors.HexColor(ccol.get(sym, "#000000")))
                c.setFont(BOLD, 6.5)
                c.drawString(x0 + 2 + (k % 2) * cw / 2, y0 + 9 - (k // 2) * 7, _t(sym, 4))
    c.setFillColor(colors.black)
    c.setFont(SANS, 7)
    bottom = top - len(market) * ch - 10
    c.drawString(x, bottom, "gray: par values (thick border); yellow: no certificate limit; red: ends the game")
    return bottom - 14


def draw_tables(c: Canvas, g: "Game", x: float, y: float) -> float:
    s = g.state
    m = g.title.money  # the title's currency (1848: £)
    c.setFillColor(colors.black)
    c.setFont(BOLD, 11)
    c.drawString(x, y, "Players (priority order)")
    y -= 13
    widths = [110, 55, 55, 60, 430]
    _row(c, x, y, ["player", "cash", "certs", "worth", "shares (* president) and privates"], widths, bold=True)
    for p in s.players:
        y -= 11
        held = []
        for sym in s.corporations:
            pct = g.percent_of(p.key, sym)
            if pct:
                held.append(f"{sym} {pct}%" + ("*" if g.president(sym) == p.name else ""))
        held += [co.sym for co in s.companies.values() if co.owner == p.key and not co.closed]
        _row(c, x, y, [p.name + (" (bankrupt)" if p.bankrupt else ""), m(s.cash[p.key]),
                       f"{g.num_certs(p.name)}/{g.cert_limit(p.name)}", m(g.player_value(p.name)), ", ".join(held) or "-"],
             widths)
    y -= 20
    c.setFont(BOLD, 11)
    c.drawString(x, y, "Corporations")
    y -= 13
    widths = [40, 45, 45, 55, 80, 70, 60, 160, 150]  # trains by type (view.train_list)
    from pbm.e18xx.render.words import phase_words, word

    _row(c, x, y, ["corp", "price", "par", "cash", "president", word(g, "ipo"), word(g, "pool"), "trains", "stations"],
         widths, bold=True)  # the book's words for them (issue 29: 18GA's Initial Offering, Open Market)
    for corp in s.corporations.values():
        y -= 11
        if not corp.ipoed:
            second = g.title.corporation(corp.sym).get("second_home")  # 1848 5.3: COM's two homes
            home = f"{corp.home} and {second}" if second else corp.home
            _row(c, x, y, [corp.sym, "-", "-", "-", "-", "", "", "", f"not started (home {home})"], widths)
            continue
        bank = g.title.data.get("bank_corporation") or {}
        if bank.get("sym") == corp.sym:  # 1848's Bank of England: its shares on its charter, its loans (s12)
            charter = g.percent_of("pool", corp.sym) + g.percent_of(f"ipo:{corp.sym}", corp.sym)
            _row(c, x, y, [corp.sym, m(g.share_price(corp.sym)), "-", m(s.cash[corp.key]), "-", "", "",
                           f"{charter}% on its charter", f"loans lent {corp.loans} of {int(bank.get('loans', 0))}"],
                 widths)
            continue
        stations = " ".join(t[0] for t in corp.tokens if t)
        trains = (train_list(g, corp.trains) or "-") + \
            (f" (max {g.train_limit(corp.sym)})" if corp.floated and not corp.closed else "")
        _row(c, x, y, [corp.sym, m(g.share_price(corp.sym)), m(g._par_price(corp.sym)), m(s.cash[corp.key]),
                       g.president(corp.sym) or "-", f"{g.percent_of(f'ipo:{corp.sym}', corp.sym)}%",
                       f"{g.percent_of('pool', corp.sym)}%", trains,
                       (stations or "-") + ("" if corp.floated else "  (not floated)")], widths)
    y -= 20
    c.setFont(BOLD, 11)
    c.drawString(x, y, "Private companies")
    y -= 13
    widths = [50, 200, 60, 60, 200]
    _row(c, x, y, ["sym", "name", "value", "revenue", "owner"], widths, bold=True)
    for co in s.companies.values():
        y -= 11
        owner = "closed" if co.closed else (co.owner[2:] if co.owner else "bank")
        if not co.owner and not co.closed and (g.title.data.get("auction") or {}).get("style") == "dutch":
            owner = f"bank: for sale at {m(co.min_bid)} now"  # the falling price, not the face value (issue 29)
        _row(c, x, y, [co.sym, co.name, m(co.value), m(co.revenue), owner], widths)
    y -= 20
    depot = g._depot_trains()
    c.setFont(SANS, 9)
    c.drawString(x, y, _t(f"{phase_words(g)} (train limit {g.train_limit_text()}). Bank {m(s.cash['bank'])}. "
                          + trains_for_sale(g, depot), 200))
    return y - 14


PDF_EVENTS = 95  # the newest events on the events page (a line each, under its action)


def draw_events(c: Canvas, rep: "Replayed", x: float, top: float, width: float) -> None:
    """The events page: what the latest actions caused, in plain words, newest last (issue 29 item 2)."""
    from pbm.e18xx.events import recorded
    from pbm.e18xx.pbem.eventlines import grouped

    g = rep.game
    evs = recorded(g)
    c.setFillColor(colors.black)
    c.setFont(BOLD, 11)
    c.drawString(x, top, "Events (what the latest actions caused; newest last)")
    y = top - 15
    c.setFont(SANS, 9)
    if not evs:
        c.drawString(x, y, "Nothing has happened yet.")
        return
    room = int(width / 4.6)  # characters a line holds
    lines = []
    for line in grouped(g, evs[-PDF_EVENTS:], indent=""):
        # a long event goes on over more lines, never cut off (play-through s10 finding 12: "...
        # companies may buy private companies from players; five-share comp")
        ind = "  " if line.startswith("  ") else ""
        parts = wrapped(line.strip(), room - 4, hyphens=False) or [""]  # "five-share", "D4-1" stay whole
        lines += [ind + parts[0]] + ["    " + part for part in parts[1:]]
    fit = int((y - MARGIN) / 11)
    if len(lines) > fit:  # the newest that fit, from an action's line on
        lines = lines[len(lines) - fit + 1:]
        while lines and lines[0].startswith("  "):
            lines.pop(0)
        lines.insert(0, "(earlier events: pbm 18xx log --events, or the game's page)")
    for line in lines:
        c.setFont(SANS if line.startswith(("  ", "(")) else BOLD, 9)
        shift = 20 if line.startswith("    ") else 10 if line.startswith("  ") else 0
        c.drawString(x + shift, y, _t(line.strip(), room))
        y -= 11


def draw_public(c: Canvas, g: "Game", x: float, y: float, bottom: float = MARGIN) -> float:
    """The public state beyond the tables (bids, prices, loans, the train roster, privates' abilities,
    objectives, coal districts: :func:`pbm.e18xx.render.public.public_lines`), complete; a new page
    when this one is full.  Returns the y below it."""
    from pbm.e18xx.render.public import public_lines

    c.setFillColor(colors.black)
    c.setFont(BOLD, 11)
    c.drawString(x, y, "More of the state")
    y -= 13
    c.setFont(SANS, 8)
    for line in public_lines(g, compact=False):
        indent = len(line) - len(line.lstrip())
        for k, part in enumerate(wrapped(line.strip(), 190) or [""]):
            if y < bottom:
                c.showPage()
                c.setFillColor(colors.black)
                c.setFont(SANS, 8)
                y = PAGE[1] - MARGIN
            c.drawString(x + indent * 4 + (12 if k else 0), y, _t(part, 200))
            y -= 10
    return y


class _NamedCanvas(Canvas):
    """A canvas whose text goes through ``names`` (an anonymous game's "Player N": pbem/anon.py)."""

    def __init__(self, *args, names=None, **kw):
        super().__init__(*args, **kw)
        self._names = names

    def drawString(self, x, y, text, *args, **kw):  # noqa: N802 - reportlab's name
        return super().drawString(x, y, self._names(text), *args, **kw)

    def drawCentredString(self, x, y, text, *args, **kw):  # noqa: N802
        return super().drawCentredString(x, y, self._names(text), *args, **kw)

    def drawRightString(self, x, y, text, *args, **kw):  # noqa: N802
        return super().drawRightString(x, y, self._names(text), *args, **kw)


def render_pdf(rep: "Replayed", name: str, names=None, since: int | None = None) -> bytes:
    """The PDF of the game's state (deterministic bytes); ``names``: how players' names are
    written for its reader (an anonymous game: pbem/anon.py ``names_for``); ``since``: the number of
    actions the reader's previous PDF showed (the map rings what changed since: ``changed_hexes``)."""
    from pbm.e18xx.pbem.games import who_acts

    g = rep.game
    s = g.state
    buf = io.BytesIO()
    c = (_NamedCanvas(buf, pagesize=PAGE, invariant=1, pageCompression=1, names=names) if names is not None
         else Canvas(buf, pagesize=PAGE, invariant=1, pageCompression=1))
    c.setTitle(_t(f"{g.title.name} {name}", 100))
    c.setAuthor("pbm")
    c.setCreator("pbm")
    w, h = PAGE
    from pbm.e18xx.render.words import phase_words, round_words

    status = f"game over: {end_reason_words(g)}" if s.finished else f"to act: {who_acts(g)}"
    head = f"{g.title.name} - {name} - {round_words(g)} - {phase_words(g)} - action {len(g.actions)} - {status}"
    draw_head(c, head, MARGIN, h - MARGIN, w - 2 * MARGIN)
    draw_map(c, rep, (MARGIN, MARGIN + 70, w - MARGIN, h - MARGIN - 14), since)  # its routes' legend inside, above the key
    draw_key(c, g, MARGIN, MARGIN, w - 2 * MARGIN, 64)  # what a tile's rotation means (render/rotations.py)
    c.showPage()
    draw_head(c, head, MARGIN, h - MARGIN, w - 2 * MARGIN)
    y = draw_market(c, g, MARGIN, h - MARGIN - 24, w - 2 * MARGIN)
    y = draw_tables(c, g, MARGIN, y - 6)
    draw_public(c, g, MARGIN, y - 6)
    c.showPage()
    draw_head(c, head, MARGIN, h - MARGIN, w - 2 * MARGIN)
    draw_events(c, rep, MARGIN, h - MARGIN - 24, w - 2 * MARGIN)
    c.showPage()
    draw_lays_page(c, g, head, (w, h), MARGIN)  # the acting company's lays by hex, if any
    c.save()
    return buf.getvalue()

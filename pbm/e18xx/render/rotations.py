"""The state PDF's rotation key (a hex with its side numbers, and what rotation r means) and,
when a company is at its track step, its legal tile lays grouped by hex with what each joins."""
from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

from reportlab.lib import colors

from pbm.e18xx.lays import acting_lays, lays_by_hex, rotation_key, side_names
from pbm.fonts import BOLD, SANS

if TYPE_CHECKING:  # pragma: no cover
    from reportlab.pdfgen.canvas import Canvas

    from pbm.e18xx.core.game import Game

# the side midpoints' directions on the page (y up), side 0 first: as MapGeometry draws them
_POINTY = [(-1, -1), (-2, 0), (-1, 1), (1, 1), (2, 0), (1, -1)]
_FLAT = [(0, -2), (-1, -1), (-1, 1), (0, 2), (1, 1), (1, -1)]


def draw_rotation_key(c: "Canvas", layout: str, x: float, y: float, r: float) -> None:
    """A hex of radius ``r`` centred at (x, y) with its side numbers, as the map's hexes lie."""
    pointy = layout == "pointy"
    start = 90 if pointy else 0
    pts = [(x + r * math.cos(math.radians(start + 60 * k)), y + r * math.sin(math.radians(start + 60 * k)))
           for k in range(6)]
    c.setStrokeColor(colors.black)
    c.setFillColor(colors.HexColor("#f4f1e6"))
    path = c.beginPath()
    path.moveTo(*pts[0])
    for p in pts[1:]:
        path.lineTo(*p)
    path.close()
    c.setLineWidth(0.6)
    c.drawPath(path, stroke=1, fill=1)
    c.setFillColor(colors.black)
    c.setFont(BOLD, max(5.0, r * 0.32))
    for e, (dx, dy) in enumerate(_POINTY if pointy else _FLAT):
        ux, uy = (dx * math.sqrt(3) / 2, dy * 1.5) if pointy else (dx * 1.5, dy * math.sqrt(3) / 2)
        norm = math.hypot(ux, uy)
        px, py = x + ux / norm * r * 0.62, y + uy / norm * r * 0.62
        c.drawCentredString(px, py - r * 0.11, str(e))
    c.setFont(SANS, max(4.0, r * 0.22))
    c.drawCentredString(x, y - r * 0.08, "sides")


def draw_key(c: "Canvas", g: "Game", x: float, y: float, width: float, height: float) -> None:
    """The rotation key in the box (x, y) .. (x + width, y + height): the hex and its words."""
    r = min(height / 2 - 2, 26.0)
    draw_rotation_key(c, g.title.layout, x + r + 2, y + height / 2, r)
    tx = x + 2 * r + 10
    sides = side_names(g.title.layout)
    c.setFillColor(colors.black)
    c.setFont(BOLD, 8)
    c.drawString(tx, y + height / 2 + 10, "Rotation key")
    c.setFont(SANS, 7.5)
    c.drawString(tx, y + height / 2, rotation_key(g.title.layout)[:200])
    c.drawString(tx, y + height / 2 - 10, (f"Write lay <tile> <hex> <rotation>: e.g. lay 57 E5 2 puts tile 57's side 0 "
                                           f"on the {sides[2]} side of E5.")[:200])
    if any("N" in slots for slots in g.state.map.tokens.values()):  # play-through s12: "N" explained nowhere
        c.drawString(tx, y + height / 2 - 20, "N in a city: a neutral token - no company may place a station "
                                              "there; trains run through it.")


def draw_lays_page(c: "Canvas", g: "Game", head: str, page: tuple[float, float], margin: float) -> bool:
    """A page of the acting company's legal tile lays, grouped by hex, each with what it joins
    (only when it is at its track step); True if a page was drawn."""
    lines = lays_by_hex(g, acting_lays(g))
    if not lines:
        return False
    w, h = page
    c.setFillColor(colors.black)
    from pbm.e18xx.render.head import draw_head

    draw_head(c, head, margin, h - margin, w - 2 * margin)
    c.setFont(BOLD, 10)
    c.drawString(margin, h - margin - 22, f"Tile lays for {g.current_entity()} now, by hex: what each rotation joins")
    c.setFont(SANS, 7.5)
    c.drawString(margin, h - margin - 34, rotation_key(g.title.layout)[:220])
    step = 9.0
    top = h - margin - 50
    per_col = max(1, int((top - margin) // step))
    cols = 2
    col_w = (w - 2 * margin) / cols
    c.setFont(SANS, 7)
    room = int(col_w / 3.4)
    wrapped: list[str] = []
    for line in lines:  # a long line (a tile of several cities) goes on, indented, never cut off
        ind = len(line) - len(line.lstrip())
        parts = textwrap.wrap(line.strip(), room - ind - 6) or [""]
        wrapped += [" " * ind + parts[0]] + [" " * (ind + 6) + part for part in parts[1:]]
    lines = wrapped
    for i, line in enumerate(lines[: per_col * cols]):
        col, row = divmod(i, per_col)
        c.drawString(margin + col * col_w, top - row * step, line[:room])
    if len(lines) > per_col * cols:
        c.drawString(margin, margin - 12, f"... and {len(lines) - per_col * cols} more lines")
    c.showPage()
    return True

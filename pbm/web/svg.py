"""An 18xx map as inline SVG, drawn by the PDF's own code.

:func:`pbm.e18xx.render.pdf.draw_map` draws on a reportlab canvas through a small API
(``beginPath``/``moveTo``/``lineTo``/``curveTo``/``close``, ``drawPath``, ``circle``, ``line``,
``drawString``, ``drawCentredString``, ``setDash``, ``setFillColor``, ``setStrokeColor``,
``setFont``, ``setLineWidth``).  :class:`SvgCanvas` implements that API and writes SVG elements
instead, so the web page shows exactly the map the PDF shows, without a second drawing of it.

The PDF's y axis grows upwards, SVG's downwards: every y is flipped against the drawing's height.
Text is escaped (a company or hex name is never markup), numbers are written with one decimal.
"""
from __future__ import annotations

import math
from html import escape
from typing import Any

# draw_map's legend is drawn from this height upwards (pdf.MARGIN), one 9-point line per company
LEGEND_BASE = 28.0
LEGEND_LINE = 9.0
WIDTH = 1000.0  # the drawing's width in points (the SVG scales to the page: viewBox + width 100%)
PAD = 12.0


def _num(v: float) -> str:
    text = "%.1f" % v
    if text[-2:] == ".0":
        text = text[:-2]
        return "0" if text == "-0" else text
    return text


_COLOURS: dict[tuple[float, float, float], str] = {}


def _colour(c: Any) -> str:
    """A reportlab colour (or a '#rrggbb' string) as '#rrggbb'."""
    if isinstance(c, str):
        return c
    key = (c.red, c.green, c.blue)
    found = _COLOURS.get(key)
    if found is None:
        r, g, b = (max(0, min(255, round(float(v) * 255))) for v in key)
        found = _COLOURS[key] = f"#{r:02x}{g:02x}{b:02x}"
    return found


class SvgPath:
    """What ``canvas.beginPath()`` returns: the SVG path data, y already flipped."""

    def __init__(self, canvas: "SvgCanvas") -> None:
        self._c = canvas
        self.parts: list[str] = []

    def moveTo(self, x: float, y: float) -> None:  # noqa: N802 - reportlab's names
        self.parts.append(f"M{self._c.pt(x, y)}")

    def lineTo(self, x: float, y: float) -> None:  # noqa: N802
        self.parts.append(f"L{self._c.pt(x, y)}")

    def curveTo(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:  # noqa: N802
        c = self._c
        self.parts.append(f"C{c.pt(x1, y1)} {c.pt(x2, y2)} {c.pt(x3, y3)}")

    def close(self) -> None:
        self.parts.append("Z")


class SvgCanvas:
    """The part of reportlab's Canvas API that :func:`draw_map` uses, writing SVG.

    ``height`` is the drawing's height in points: a point (x, y) of the PDF is (x, height - y) here.
    """

    FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height
        self.items: list[str] = []
        self._fill = "#000000"
        self._stroke = "#000000"
        self._line_width = 1.0
        self._dash: str | None = None
        self._font = ("", 10.0)
        self._xs: list[float] = []  # every point drawn (SVG units), for the viewBox
        self._ys: list[float] = []

    # ------------------------------------------------------------------ helpers
    def _grow(self, x: float, y: float, margin: float = 0.0) -> None:
        if margin:
            self._xs += (x - margin, x + margin)
            self._ys += (y - margin, y + margin)
        else:
            self._xs.append(x)
            self._ys.append(y)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """x0, y0, x1, y1 of everything drawn, in SVG units."""
        if not self._xs:
            return (math.inf, math.inf, -math.inf, -math.inf)
        return min(self._xs), min(self._ys), max(self._xs), max(self._ys)

    def pt(self, x: float, y: float) -> str:
        sy = self.height - y
        self._xs.append(x)
        self._ys.append(sy)
        return f"{_num(x)},{_num(sy)}"

    def _stroke_attrs(self) -> str:
        out = f' stroke="{self._stroke}" stroke-width="{_num(self._line_width)}"'
        if self._dash:
            out += f' stroke-dasharray="{self._dash}"'
        return out

    # ------------------------------------------------------------------ state
    def setFillColor(self, c: Any) -> None:  # noqa: N802
        self._fill = _colour(c)

    def setStrokeColor(self, c: Any) -> None:  # noqa: N802
        self._stroke = _colour(c)

    def setLineWidth(self, w: float) -> None:  # noqa: N802
        self._line_width = float(w)

    def setDash(self, on: Any = None, off: Any = None) -> None:  # noqa: N802
        if on is None or on == [] or on == 0:
            self._dash = None
        elif isinstance(on, (list, tuple)):
            self._dash = " ".join(_num(float(v)) for v in on) or None
        else:
            self._dash = f"{_num(float(on))} {_num(float(off if off is not None else on))}"

    def setFont(self, name: str, size: float, leading: float | None = None) -> None:  # noqa: N802
        self._font = (str(name), float(size))

    # ------------------------------------------------------------------ drawing
    def beginPath(self) -> SvgPath:  # noqa: N802
        return SvgPath(self)

    def drawPath(self, path: SvgPath, stroke: int = 1, fill: int = 0, **_: Any) -> None:  # noqa: N802
        attrs = f' fill="{self._fill}"' if fill else ' fill="none"'
        attrs += self._stroke_attrs() if stroke else ""
        self.items.append(f'<path d="{"".join(path.parts)}"{attrs}/>')

    def circle(self, x: float, y: float, r: float, stroke: int = 1, fill: int = 0) -> None:
        sy = self.height - y
        self._grow(x, sy, r)
        attrs = f' fill="{self._fill}"' if fill else ' fill="none"'
        attrs += self._stroke_attrs() if stroke else ""
        self.items.append(f'<circle cx="{_num(x)}" cy="{_num(sy)}" r="{_num(r)}"{attrs}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        a, b = self.pt(x1, y1), self.pt(x2, y2)
        self.items.append(f'<path d="M{a}L{b}" fill="none"{self._stroke_attrs()}/>')

    def rect(self, x: float, y: float, w: float, h: float, stroke: int = 1, fill: int = 0) -> None:
        self.pt(x, y)
        self.pt(x + w, y + h)
        attrs = f' fill="{self._fill}"' if fill else ' fill="none"'
        attrs += self._stroke_attrs() if stroke else ""
        self.items.append(f'<rect x="{_num(x)}" y="{_num(self.height - y - h)}" width="{_num(w)}" '
                          f'height="{_num(h)}"{attrs}/>')

    def _text(self, x: float, y: float, text: Any, anchor: str) -> None:
        name, size = self._font
        sy = self.height - y
        chars = len(str(text))
        width = chars * size * 0.6
        left = x - (width / 2 if anchor == "middle" else 0)
        self._grow(left, sy - size)
        self._grow(left + width, sy)
        style = ""
        if "Bold" in name:
            style += ' font-weight="bold"'
        if "Oblique" in name or "Italic" in name:
            style += ' font-style="italic"'
        anchor_attr = ' text-anchor="middle"' if anchor == "middle" else ""
        self.items.append(f'<text x="{_num(x)}" y="{_num(sy)}" font-size="{_num(size)}"{style}{anchor_attr} '
                          f'fill="{self._fill}">{escape(str(text), quote=False)}</text>')

    def drawString(self, x: float, y: float, text: Any, *_: Any, **__: Any) -> None:  # noqa: N802
        self._text(x, y, text, "start")

    def drawCentredString(self, x: float, y: float, text: Any, *_: Any, **__: Any) -> None:  # noqa: N802
        self._text(x, y, text, "middle")

    # ------------------------------------------------------------------ output
    def svg(self, label: str = "") -> str:
        """The drawing as one ``<svg>`` element, its viewBox the drawn area with a small margin."""
        x0, y0, x1, y1 = self.bounds
        if x0 == math.inf:
            x0, y0, x1, y1 = 0.0, 0.0, self.width, self.height
        x0, y0, x1, y1 = x0 - PAD, y0 - PAD, x1 + PAD, y1 + PAD
        box = f"{_num(x0)} {_num(y0)} {_num(x1 - x0)} {_num(y1 - y0)}"
        title = f"<title>{escape(label, quote=False)}</title>" if label else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{box}" width="100%" role="img" '
                f'aria-label="{escape(label)}" font-family="{self.FAMILY}" class="map-svg">{title}'
                + "".join(self.items) + "</svg>")


def map_svg(rep: Any, label: str = "", lays: dict[str, list[str]] | None = None) -> str:
    """The map of a replayed 18xx game (:class:`pbm.e18xx.pbem.games.Replayed`) as an ``<svg>`` element:
    every hex, tile and its track, cities with their values and stations, terrain costs, off-boards,
    the routes each company ran last (with their legend below), and the last move ringed.

    ``lays`` (hex -> the legal tile lays there, as move lines) outlines each of those hexes with a
    link to ``#lay-<hex>`` (the page's list of the lays, to copy into a mail)."""
    from pbm.e18xx.render.pdf import MapGeometry, draw_map

    g = rep.game
    # the map's height for WIDTH points of width: draw_map fits the hexes into the box, anchored top left
    probe = MapGeometry(g, (0.0, 0.0, WIDTH, 1e6))
    ys = [y for coord in g.title.hexes for _, y in probe.corners(coord)]
    map_h = (max(ys) - min(ys)) if ys else WIDTH
    legend_h = LEGEND_BASE + LEGEND_LINE * (len(rep.last_routes) + 2)
    top_margin = probe.r * 1.3  # the "last move" label above a top-row hex
    height = legend_h + map_h + top_margin
    canvas = SvgCanvas(WIDTH + 2 * PAD, height)
    box = (PAD, legend_h, PAD + WIDTH, legend_h + map_h)
    draw_map(canvas, rep, box)  # type: ignore[arg-type]
    if lays:
        geo = MapGeometry(g, box)
        for coord, lines in sorted(lays.items()):
            if coord not in g.title.hexes:
                continue
            pts = " ".join(f"{_num(x)},{_num(canvas.height - y)}" for x, y in geo.corners(coord))
            cx, cy = geo.centre(coord)
            what = f"{len(lines)} legal tile lay{'s' if len(lines) != 1 else ''} in {coord}"
            canvas.items.append(
                f'<a href="#lay-{escape(coord)}" class="lay"><title>{escape(what)}: '
                f'{escape("; ".join(lines[:12]), quote=False)}</title>'
                f'<polygon points="{pts}" fill="#1565c0" fill-opacity="0.12" stroke="#1565c0" '
                f'stroke-width="{_num(max(2.0, geo.r * 0.08))}" stroke-dasharray="{_num(geo.r * 0.2)} '
                f'{_num(geo.r * 0.1)}"/>'
                f'<text x="{_num(cx)}" y="{_num(canvas.height - cy + geo.r * 0.42)}" font-size="'
                f'{_num(max(6.0, geo.r * 0.22))}" font-weight="bold" text-anchor="middle" fill="#0d47a1">'
                f'lay ×{len(lines)}</text></a>')
    return canvas.svg(label)

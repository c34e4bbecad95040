"""Drawings as inline SVG, made by the PDFs' own drawing code (an 18xx map, its stock market).

:func:`pbm.e18xx.render.pdf.draw_map` draws on a reportlab canvas through a small API
(``beginPath``/``moveTo``/``lineTo``/``curveTo``/``close``, ``drawPath``, ``circle``, ``line``,
``drawString``, ``drawCentredString``, ``setDash``, ``setFillColor``, ``setStrokeColor``,
``setFont``, ``setLineWidth``).  :class:`SvgCanvas` implements that API and writes SVG elements
instead, so the web page shows exactly the map the PDF shows, without a second drawing of it
(``pbm.e18xx.render.web.map_svg``).

The PDF's y axis grows upwards, SVG's downwards: every y is flipped against the drawing's height.
Text is escaped (a company or hex name is never markup), numbers are written with one decimal.
"""
from __future__ import annotations

import math
from html import escape
from typing import Any

PAD = 12.0  # the margin around the drawing in the viewBox


def num(v: float) -> str:
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
        return f"{num(x)},{num(sy)}"

    def _stroke_attrs(self) -> str:
        out = f' stroke="{self._stroke}" stroke-width="{num(self._line_width)}"'
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
            self._dash = " ".join(num(float(v)) for v in on) or None
        else:
            self._dash = f"{num(float(on))} {num(float(off if off is not None else on))}"

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
        self.items.append(f'<circle cx="{num(x)}" cy="{num(sy)}" r="{num(r)}"{attrs}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        a, b = self.pt(x1, y1), self.pt(x2, y2)
        self.items.append(f'<path d="M{a}L{b}" fill="none"{self._stroke_attrs()}/>')

    def rect(self, x: float, y: float, w: float, h: float, stroke: int = 1, fill: int = 0) -> None:
        self.pt(x, y)
        self.pt(x + w, y + h)
        attrs = f' fill="{self._fill}"' if fill else ' fill="none"'
        attrs += self._stroke_attrs() if stroke else ""
        self.items.append(f'<rect x="{num(x)}" y="{num(self.height - y - h)}" width="{num(w)}" '
                          f'height="{num(h)}"{attrs}/>')

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
        self.items.append(f'<text x="{num(x)}" y="{num(sy)}" font-size="{num(size)}"{style}{anchor_attr} '
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
        box = f"{num(x0)} {num(y0)} {num(x1 - x0)} {num(y1 - y0)}"
        title = f"<title>{escape(label, quote=False)}</title>" if label else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{box}" width="100%" role="img" '
                f'aria-label="{escape(label)}" font-family="{self.FAMILY}" class="map-svg">{title}'
                + "".join(self.items) + "</svg>")

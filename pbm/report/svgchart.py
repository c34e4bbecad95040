"""Line charts as inline SVG for the game's web pages (issue 33: the archive site's charts, live).

The turn report draws its charts with reportlab (:mod:`pbm.report.charts`); a web page wants
them as text it can put inline, readable on a phone, and the same bytes for the same figures.
Every label is escaped here; the chart carries a ``<title>`` and an ``aria-label`` so a screen
reader names it, and the page puts the figures in a table beside it.
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

# Colour-blind-safe colours (Okabe & Ito), then darker shades of them.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#005080", "#A06E00", "#006E50", "#953F00", "#8E5474", "#3C7EA3", "#A89F31", "#555555")

Series = tuple[str, Sequence[tuple[int, float]]]


def nice_step(span: float, ticks: int = 5) -> float:
    """A round step (1, 2 or 5 times a power of ten) that cuts ``span`` into about ``ticks`` parts."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _label(v: float) -> str:
    if abs(v) >= 1_000_000:
        return f"{v / 1_000_000:g}M"
    if abs(v) >= 10_000:
        return f"{v / 1000:g}k"
    return f"{v:g}"


def line_chart(title: str, series: Sequence[Series], *, width: int = 720, height: int = 260,
               y_name: str = "") -> str:
    """An SVG line chart of ``series`` — (name, [(turn, value), …]) — over the turns.

    With fewer than two turns in all the series it says so in words instead of drawing an
    empty frame (as the PDF charts do).
    """
    points = [(x, y) for _, pts in series for x, y in pts]
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="chart" '
            f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>')
    turns = sorted({x for x, _ in points})
    if len(turns) < 2:
        return (head + f'<text x="{width // 2}" y="{height // 2}" text-anchor="middle" font-size="13" '
                f'fill="#666">{escape(title)}: shown from the second turn on</text></svg>')
    left, right, top, bottom = 56, 150, 14, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    lo = min(0.0, min(y for _, y in points))
    hi = max(y for _, y in points)
    step = nice_step(hi - lo)
    lo = math.floor(lo / step) * step
    hi = max(lo + step, math.ceil(hi / step) * step)
    x0, x1 = turns[0], turns[-1]

    def sx(x: float) -> str:
        return _num(left + (x - x0) / (x1 - x0) * plot_w)

    def sy(y: float) -> str:
        return _num(top + (hi - y) / (hi - lo) * plot_h)

    parts = [head, f'<g font-size="11" fill="#333">']
    tick = lo
    while tick <= hi + step / 2:
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{sy(tick)}" y2="{sy(tick)}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{sy(tick)}" text-anchor="end" dominant-baseline="middle">'
                     f'{escape(_label(tick))}</text>')
        tick += step
    every = max(1, math.ceil(len(turns) / 12))
    for i, t in enumerate(turns):
        if i % every == 0 or t == x1:
            parts.append(f'<text x="{sx(t)}" y="{height - bottom + 16}" text-anchor="middle">{t}</text>')
    parts.append(f'<text x="{left + plot_w // 2}" y="{height - 2}" text-anchor="middle">turn</text>')
    if y_name:
        parts.append(f'<text x="12" y="{top + plot_h // 2}" text-anchor="middle" '
                     f'transform="rotate(-90 12 {top + plot_h // 2})">{escape(y_name)}</text>')
    parts.append("</g>")
    for i, (name, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        ordered = sorted(pts)
        if not ordered:
            continue
        path = " ".join(f"{sx(x)},{sy(y)}" for x, y in ordered)
        dash = ' stroke-dasharray="5 3"' if i >= len(COLOURS) // 2 else ""
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{path}">'
                     f'<title>{escape(name)}</title></polyline>')
        ly = top + 8 + i * 14
        if ly < height - bottom:
            parts.append(f'<line x1="{width - right + 10}" x2="{width - right + 28}" y1="{ly}" y2="{ly}" '
                         f'stroke="{colour}" stroke-width="2"{dash}/>'
                         f'<text x="{width - right + 32}" y="{ly}" font-size="11" dominant-baseline="middle">'
                         f'{escape(name[:18])}</text>')
    parts.append("</svg>")
    return "".join(parts)

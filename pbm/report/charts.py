"""Charts for the turn report: a player's net worth and VP over the turns, the prices of his stocks.

Drawn with ``reportlab.graphics.charts`` from the history the engine keeps
(``PlayerTurn``, ``RailroadTurn``).  A chart with fewer than two points says
so in words instead of drawing an empty frame.
"""

from __future__ import annotations

from typing import Any

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors

from pbm.fonts import BOLD, ITALIC, SANS
from pbm.report.mapdraw import PALETTE

VP_CATEGORIES = [
    ("robber_baron", "Robber Baron"),
    ("rail_mogul", "Rail Mogul"),
    ("rail_builder", "Rail Builder"),
    ("rail_magnate", "Rail Magnate"),
    ("rail_prodigal", "Rail Prodigal"),
]
# Rail Baron (0–500, recalculated each turn, §1.2) would flatten the other lines; it is in §9.6 instead.


def _frame(width: float, height: float, title: str) -> Drawing:
    d = Drawing(width, height)
    d.add(String(4, height - 12, title, fontName=BOLD, fontSize=9))
    return d


def _empty(d: Drawing, width: float, height: float, text: str) -> Drawing:
    d.add(String(width / 2, height / 2, text, fontName=ITALIC, fontSize=8,
                 textAnchor="middle", fillColor=colors.grey))
    return d


def line_chart(
    width: float, height: float, title: str, series: list[tuple[str, list[tuple[int, float]]]],
    y_format: str = "{:,.0f}",
) -> Drawing:
    """Lines of (turn, value) points, one per named series, with a legend on the right."""
    d = _frame(width, height, title)
    series = [(name, pts) for name, pts in series if pts]
    if not series or max(len(pts) for _, pts in series) < 2:
        return _empty(d, width, height, "(the chart starts once two turns have been played)")
    plot = LinePlot()
    legend_width = 90 if len(series) > 1 else 0
    plot.x, plot.y = 46, 22
    plot.width = width - plot.x - 10 - legend_width
    plot.height = height - plot.y - 22
    plot.data = [[(float(t), float(v)) for t, v in pts] for _, pts in series]
    for i in range(len(series)):
        plot.lines[i].strokeColor = PALETTE[i % len(PALETTE)]
        plot.lines[i].strokeWidth = 1.3
    turns = sorted({t for _, pts in series for t, _ in pts})
    plot.xValueAxis.valueMin = min(turns)
    plot.xValueAxis.valueMax = max(turns)
    step = max(1, (max(turns) - min(turns)) // 10 or 1)
    plot.xValueAxis.valueSteps = list(range(min(turns), max(turns) + 1, step))
    plot.xValueAxis.labels.fontSize = 6
    plot.xValueAxis.labelTextFormat = "%d"
    values = [v for _, pts in series for _, v in pts]
    low, high = min(values + [0.0]), max(values + [1.0])
    plot.yValueAxis.valueMin = low
    plot.yValueAxis.valueMax = high if high > low else low + 1
    plot.yValueAxis.labels.fontSize = 6
    plot.yValueAxis.labelTextFormat = lambda v: y_format.format(v)
    d.add(plot)
    d.add(String(plot.x + plot.width / 2, 4, "turn", fontName=SANS, fontSize=6, textAnchor="middle"))
    if legend_width:
        legend = Legend()
        legend.x, legend.y = width - legend_width + 4, height - 22
        legend.fontName, legend.fontSize = SANS, 6
        legend.dx = legend.dy = 6
        legend.deltay = 8
        legend.alignment = "right"
        legend.columnMaximum = 12
        legend.colorNamePairs = [(PALETTE[i % len(PALETTE)], name[:18]) for i, (name, _) in enumerate(series)]
        d.add(legend)
    return d


def net_worth_chart(history: list[dict[str, Any]], width: float, height: float) -> Drawing:
    pts = [(h["turn"], h["net_worth"]) for h in history]
    return line_chart(width, height, "Your net worth ($)", [("net worth", pts)], "${:,.0f}")


def vp_chart(history: list[dict[str, Any]], width: float, height: float) -> Drawing:
    series = []
    for key, label in VP_CATEGORIES:
        pts = [(h["turn"], float(h["vp"].get(key, 0) or 0)) for h in history if h.get("vp")]
        if any(v for _, v in pts):
            series.append((label, pts))
    if not series and history:
        series = [("Robber Baron", [(h["turn"], 0.0) for h in history])]
    return line_chart(width, height, "Your victory points by category (Rail Baron: see the private report)", series)


def price_chart(history: dict[str, list[dict[str, Any]]], codes: list[str], width: float, height: float) -> Drawing:
    series = []
    for code in codes:
        rows = history.get(code, [])
        series.append((code, [(r["turn"], r["end_price"]) for r in rows]))
    return line_chart(width, height, "Prices of your stocks ($/share)", series, "${:,.2f}")

"""Charts for the turn report: a player's net worth and VP over the turns, the prices of his stocks.

Drawn straight onto the PDF canvas (:class:`LineChart`) from the history the engine keeps
(``PlayerTurn``, ``RailroadTurn``).  A chart with fewer than two points says
so in words instead of drawing an empty frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.platypus import Flowable

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
) -> Flowable:
    """Lines of (turn, value) points, one per named series, with a legend on the right."""
    series = [(name, pts) for name, pts in series if pts]
    if not series or max(len(pts) for _, pts in series) < 2:
        d = _frame(width, height, title)
        return _empty(d, width, height, "(the chart starts once two turns have been played)")
    return LineChart(width, height, title, series, y_format)


@contextmanager
def _unchecked() -> Iterator[None]:
    """reportlab's attribute checks on its chart widgets switched off (``rl_config.shapeChecking``, read by
    ``attrmap.validateSetattr`` at each assignment): a developer's aid that makes building the two axes of
    a chart ~40 % of its cost.  An assignment then does what it does after a check that passes (the value
    stored, or a property's setter called), so the ticks and positions, and the PDF, are the same; the
    axes are given numbers and lists of numbers only."""
    from reportlab import rl_config

    was = rl_config.shapeChecking
    rl_config.shapeChecking = 0
    try:
        yield
    finally:
        rl_config.shapeChecking = was


class LineChart(Flowable):
    """A line chart drawn straight onto the PDF canvas (issue 15: reportlab's LinePlot and Legend
    widgets cost a report ~20 ms for its three charts, nearly all in building and checking widget
    objects).  The picture is the one those widgets drew: the same axes, ticks and tick values
    (reportlab's value axes still choose and place them), labels, lines, legend and texts, at the
    same places."""

    LEGEND_WIDTH = 90
    TICK = 5  # tick length and label distance of reportlab's value axes
    LABEL_FONT, LABEL_SIZE = "Helvetica", 6  # reportlab's axis labels: its default font
    SWATCH, SWATCH_TEXT_GAP, LEGEND_STEP, LEGEND_ROWS = 6, 10, 8, 12

    def __init__(self, width: float, height: float, title: str,
                 series: list[tuple[str, list[tuple[int, float]]]], y_format: str) -> None:
        super().__init__()
        with _unchecked():
            self._place(width, height, title, series, y_format)

    def _place(self, width: float, height: float, title: str,
               series: list[tuple[str, list[tuple[int, float]]]], y_format: str) -> None:
        from reportlab.graphics.charts.axes import XValueAxis, YValueAxis

        self.width, self.height, self.title = width, height, title
        legend_width = self.LEGEND_WIDTH if len(series) > 1 else 0
        x, y = 46, 22
        w = width - x - 10 - legend_width
        h = height - y - 22
        data = [[(float(t), float(v)) for t, v in pts] for _, pts in series]
        turns = sorted({t for _, pts in series for t, _ in pts})
        values = [v for _, pts in series for _, v in pts]
        low, high = min(values + [0.0]), max(values + [1.0])
        y_axis = YValueAxis()
        y_axis.valueMin, y_axis.valueMax = low, (high if high > low else low + 1)
        y_axis.setPosition(x, y, h)
        y_axis.configure(data)
        x_axis = XValueAxis()
        x_axis.valueMin, x_axis.valueMax = min(turns), max(turns)
        step = max(1, (max(turns) - min(turns)) // 10 or 1)
        x_axis.valueSteps = list(range(min(turns), max(turns) + 1, step))
        x_axis.setPosition(x, y, w)  # LinePlot joins the x axis to the bottom of the y axis
        x_axis.configure(data)
        self.box = (x, y, w, h)
        self.x_ticks = [(x_axis.scale(t), "%d" % t) for t in x_axis._tickValues]
        self.y_ticks = [(y_axis.scale(v), y_format.format(v)) for v in y_axis._tickValues]
        self.lines = [(PALETTE[i % len(PALETTE)], [(x_axis.scale(t), y_axis.scale(v)) for t, v in pts])
                      for i, pts in enumerate(data)]
        self.legend = ([(PALETTE[i % len(PALETTE)], name[:18]) for i, (name, _) in enumerate(series)]
                       [:self.LEGEND_ROWS] if legend_width else [])
        self.legend_x, self.legend_y = width - legend_width + 4, height - 22

    def draw(self) -> None:
        from reportlab.pdfbase.pdfmetrics import getFont

        c = self.canv
        x, y, w, h = self.box
        c.saveState()
        c.setFillColor(colors.black)
        c.setFont(BOLD, 9)
        c.drawString(4, self.height - 12, self.title)
        c.setStrokeColor(colors.black)
        c.setLineWidth(1)
        axes = c.beginPath()
        axes.moveTo(x, y)
        axes.lineTo(x + w, y)
        for tx, _ in self.x_ticks:
            axes.moveTo(tx, y)
            axes.lineTo(tx, y - self.TICK)
        axes.moveTo(x, y)
        axes.lineTo(x, y + h)
        for ty, _ in self.y_ticks:
            axes.moveTo(x, ty)
            axes.lineTo(x - self.TICK, ty)
        c.drawPath(axes, stroke=1, fill=0)
        c.setFont(self.LABEL_FONT, self.LABEL_SIZE)
        for tx, text in self.x_ticks:  # hung below the tick, centred
            c.drawCentredString(tx, y - self.TICK - self.LABEL_SIZE, text)
        for ty, text in self.y_ticks:  # left of the tick, centred on it as reportlab's labels are
            c.drawRightString(x - self.TICK, ty - 0.4 * self.LABEL_SIZE, text)
        c.setLineWidth(1.3)
        c.setLineJoin(1)
        for colour, points in self.lines:
            line = c.beginPath()
            line.moveTo(*points[0])
            for point in points[1:]:
                line.lineTo(*point)
            c.setStrokeColor(colour)
            c.drawPath(line, stroke=1, fill=0)
        c.setFont(SANS, 6)
        c.drawCentredString(x + w / 2, 4, "turn")
        if self.legend:
            c.setStrokeColor(colors.black)
            c.setLineWidth(1)
            c.setLineJoin(0)
            ascent = getFont(SANS).face.ascent / 1000 * 6
            row_y = self.legend_y - self.SWATCH
            for colour, name in self.legend:
                c.setFillColor(colour)
                c.rect(self.legend_x, row_y, self.SWATCH, self.SWATCH, stroke=1, fill=1)
                c.setFillColor(colors.black)
                c.drawString(self.legend_x + self.SWATCH + self.SWATCH_TEXT_GAP,
                             row_y + (self.SWATCH - ascent) * 0.5, name)
                row_y -= self.LEGEND_STEP
        c.restoreState()


def net_worth_chart(history: list[dict[str, Any]], width: float, height: float) -> Flowable:
    pts = [(h["turn"], h["net_worth"]) for h in history]
    return line_chart(width, height, "Your net worth ($)", [("net worth", pts)], "${:,.0f}")


def vp_chart(history: list[dict[str, Any]], width: float, height: float) -> Flowable:
    series = []
    for key, label in VP_CATEGORIES:
        pts = [(h["turn"], float(h["vp"].get(key, 0) or 0)) for h in history if h.get("vp")]
        if any(v for _, v in pts):
            series.append((label, pts))
    if not series and history:
        series = [("Robber Baron", [(h["turn"], 0.0) for h in history])]
    return line_chart(width, height, "Your victory points by category (Rail Baron: see the private report)", series)


def price_chart(history: dict[str, list[dict[str, Any]]], codes: list[str], width: float,
                height: float) -> Flowable:
    series = []
    for code in codes:
        rows = history.get(code, [])
        series.append((code, [(r["turn"], r["end_price"]) for r in rows]))
    return line_chart(width, height, "Prices of your stocks ($/share)", series, "${:,.2f}")

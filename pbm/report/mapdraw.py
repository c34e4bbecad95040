"""The small laser-printed map of the turn report (§2.1).

"During the game, you will receive a smaller 8x11 laser printed map showing
the current lines in each railroad and all active PCs."  Drawn with reportlab
(the PDF straight on the canvas, the web site's SVG through reportlab graphics): a plain land outline of the United States (a few dozen public
coordinates, :data:`OUTLINE`), every railroad's lines in its own colour, the
PCs still in play (offered by the bank or owned by a player) dashed, towns as
dots sized by their size (§2.6) and the big towns labelled.

The projection is equirectangular, shrunk east-west by the cosine of the middle
latitude, which is faithful enough for a page-sized map of the country.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from reportlab.graphics.shapes import Circle, Drawing, Group, Line, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.platypus import Flowable

from pbm.fonts import SANS
from pbm.pdfcanvas import DEFLATE_ONCE, Drawing as Drawn
from pbm.report.view import TurnData

# A coarse outline of the contiguous United States, (lat, lon), clockwise from Cape Flattery.
OUTLINE: list[tuple[float, float]] = [
    (48.4, -124.7), (46.3, -124.0), (43.0, -124.5), (40.4, -124.4), (38.0, -123.0), (36.6, -121.9),
    (34.5, -120.5), (34.0, -118.5), (32.5, -117.1), (32.7, -114.7), (31.3, -111.0), (31.3, -108.2),
    (31.8, -106.5), (29.6, -104.4), (29.8, -101.4), (28.0, -99.5), (25.9, -97.4), (27.8, -97.1),
    (29.3, -94.8), (29.7, -93.8), (29.2, -90.9), (29.0, -89.2), (30.2, -89.6), (30.4, -88.0),
    (30.4, -86.5), (29.7, -85.0), (30.0, -84.0), (29.0, -82.7), (27.8, -82.7), (26.5, -82.0),
    (25.2, -81.1), (25.8, -80.1), (27.0, -80.1), (29.0, -80.9), (30.7, -81.4), (32.0, -80.8),
    (32.8, -79.8), (33.8, -78.0), (34.7, -76.6), (35.2, -75.5), (36.9, -76.0), (37.9, -75.4),
    (38.9, -74.9), (39.5, -74.3), (40.5, -74.0), (41.2, -72.0), (41.5, -71.0), (41.7, -70.0),
    (42.0, -70.7), (42.6, -70.7), (43.6, -70.2), (44.3, -68.5), (44.8, -67.0), (45.2, -67.3),
    (47.1, -67.8), (47.4, -69.2), (45.3, -71.1), (45.0, -74.7), (43.6, -76.2), (43.3, -79.1),
    (42.3, -79.8), (41.7, -83.4), (42.3, -82.9), (43.0, -82.4), (45.8, -82.9), (46.5, -84.4),
    (48.0, -89.6), (48.6, -93.4), (49.0, -95.2), (49.0, -123.0),
]

# Distinct, print-friendly colours; railroad number n gets PALETTE[(n - 1) % len].
PALETTE = [
    colors.HexColor(h) for h in (
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
        "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
        "#31a354", "#756bb1", "#636363", "#ad494a",
    )
]
LAND = colors.HexColor("#f4f1e6")
WATER = colors.HexColor("#dfeaf2")
PC_COLOUR = colors.HexColor("#7f7f7f")
FAINT = colors.HexColor("#d9d4c4")
COAST = colors.HexColor("#b8b09a")
LABEL = colors.HexColor("#222222")


def railroad_colour(number: int) -> colors.Color:
    return PALETTE[(max(number, 1) - 1) % len(PALETTE)]


class Projection:
    """Maps (lat, lon) onto a box of ``width`` x ``height`` points, keeping the aspect."""

    def __init__(self, points: Iterable[tuple[float, float]], width: float, height: float, margin: float = 6):
        pts = list(points)
        lats = [p[0] for p in pts]
        lons = [p[1] for p in pts]
        self.k = math.cos(math.radians((min(lats) + max(lats)) / 2))
        self.x0, self.x1 = min(lons) * self.k, max(lons) * self.k
        self.y0, self.y1 = min(lats), max(lats)
        span_x = max(self.x1 - self.x0, 1e-6)
        span_y = max(self.y1 - self.y0, 1e-6)
        self.scale = min((width - 2 * margin) / span_x, (height - 2 * margin) / span_y)
        self.ox = margin + ((width - 2 * margin) - span_x * self.scale) / 2
        self.oy = margin + ((height - 2 * margin) - span_y * self.scale) / 2

    def __call__(self, lat: float, lon: float) -> tuple[float, float]:
        return (round(self.ox + (lon * self.k - self.x0) * self.scale, 2),
                round(self.oy + (lat - self.y0) * self.scale, 2))


@dataclass
class Stroke:
    """Line segments drawn with one pen: one path in the PDF."""

    colour: colors.Color
    width: float
    segments: list[tuple[float, float, float, float]] = field(default_factory=list)
    dash: tuple[float, float] | None = None


@dataclass
class MapPicture:
    """The map as plain primitives, computed once per turn and drawn by either renderer."""

    width: float
    height: float
    outline: list[float]
    strokes: list[Stroke]
    towns: list[tuple[float, float, float, bool]]  # x, y, radius, filled
    labels: list[tuple[float, float, str]]
    codes: list["CodeLabel"] = field(default_factory=list)  # route codes (the RoW page), drawn last
    # The PDF operators of the picture's lines and shapes (no text), made by the first report drawing it
    # and copied into every later one (MapFlowable.draw), by part; a part drawn as a form: its name and filter.
    graphics: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class CodeLabel:
    """A route code on the map: its text's lower-left corner, its box, its colour."""

    x: float
    y: float
    w: float
    h: float
    text: str
    colour: colors.Color


def map_picture(data: TurnData, width: float, height: float, label_size: int = 4) -> MapPicture:
    """The map of ``data``'s state: lines by railroad colour, active PCs dashed, towns by size."""
    towns = {t.name: t for t in data.towns}
    points = [(t.lat, t.lon) for t in towns.values()] + OUTLINE
    proj = Projection(points, width, height)
    outline: list[float] = []
    for lat, lon in OUTLINE:
        outline.extend(proj(lat, lon))

    def segment(a: str, b: str) -> tuple[float, float, float, float] | None:
        if a not in towns or b not in towns:
            return None
        return (*proj(towns[a].lat, towns[a].lon), *proj(towns[b].lat, towns[b].lon))

    routes = {r.code: r for r in data.routes}
    owned = {line["code"] for r in data.railroads if r["status"] != "merged" for line in r["lines"]}
    active_pcs = {pc["code"] for pc in data.state["private_companies"] if pc["status"] in ("bank", "owned")}
    # Unowned routes: faint, so the map shows where railroads could go.
    faint = Stroke(FAINT, 0.3)
    for r in data.routes:
        if r.code not in owned and r.code not in active_pcs and (seg := segment(r.a, r.b)):
            faint.segments.append(seg)
    pcs = Stroke(PC_COLOUR, 0.9, dash=(2.5, 1.8))
    for code in sorted(active_pcs):
        r = routes.get(code)
        if r is not None and (seg := segment(r.a, r.b)):
            pcs.segments.append(seg)
    strokes = [faint, pcs]
    for rr in data.railroads:
        if rr["status"] == "merged":
            continue
        colour = railroad_colour(rr["number"])
        single, double = Stroke(colour, 1.4), Stroke(colour, 2.2)
        for line in rr["lines"]:
            if seg := segment(line["a"], line["b"]):
                (double if line.get("double_tracked") else single).segments.append(seg)
        strokes += [single, double]
    dots: list[tuple[float, float, float, bool]] = []
    labels: list[tuple[float, float, str]] = []
    for t in sorted(towns.values(), key=lambda t: (t.size, t.name)):
        x, y = proj(t.lat, t.lon)
        radius = 0.7 + 0.45 * t.size
        dots.append((x, y, radius, t.size >= 3))
        if t.size >= label_size:
            labels.append((x + radius + 1, y - 2, t.name))
    return MapPicture(width, height, outline, [s for s in strokes if s.segments], dots, labels)


CODE_SIZE = 4.2  # points: the route codes of the RoW page
_ALONG = (0.5, 0.38, 0.62, 0.27, 0.73, 0.16, 0.84, 0.08, 0.92)  # where along a route its code may sit, best first


def row_picture(data: TurnData, width: float, height: float) -> MapPicture:
    """The RoW page (§2.3, §4.7, issue 18 item 12): every RoW not yet built with its code, so a bid can be
    found on the map.  Open RoWs are drawn grey, a RoW a railroad holds unbuilt dotted in its colour; the
    railroads' lines stay for orientation, only the biggest towns are named.  Each code sits on its route at
    the first place (middle first, then along it, then beside it) where it covers no other code or town
    name; where there is none, at the place it covers least."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    base = map_picture(data, width, height, label_size=5)
    towns = {t.name: t for t in data.towns}
    proj = Projection([(t.lat, t.lon) for t in towns.values()] + OUTLINE, width, height)
    built = {line["code"] for r in data.railroads if r["status"] != "merged" for line in r["lines"]}
    held = {r["row"]["code"]: r["number"] for r in data.railroads
            if r["status"] != "merged" and r.get("row")}
    open_rows = Stroke(colors.HexColor("#8a8a8a"), 0.45)
    held_rows: dict[int, Stroke] = {}
    pending: list[tuple[str, tuple[float, float, float, float], colors.Color]] = []
    for r in data.routes:
        if r.kind != "RoW" or r.code in built or r.a not in towns or r.b not in towns:
            continue
        seg = (*proj(towns[r.a].lat, towns[r.a].lon), *proj(towns[r.b].lat, towns[r.b].lon))
        if r.code in held:
            number = held[r.code]
            held_rows.setdefault(number, Stroke(railroad_colour(number), 1.0, dash=(1.2, 1.2))).segments.append(seg)
            pending.append((r.code, seg, railroad_colour(number)))
        else:
            open_rows.segments.append(seg)
            pending.append((r.code, seg, LABEL))
    strokes = [st for st in base.strokes if st.colour != FAINT] + [open_rows] + \
        [held_rows[n] for n in sorted(held_rows)]
    taken = _Boxes()
    for x, y, name in base.labels:  # the town names stay readable
        taken.add((x, y - 1, x + stringWidth(name, SANS, 5.5), y + 5), 0.3)
    for x, y, radius, _ in base.towns:  # and the towns visible (covering a town is better than another code)
        taken.add((x - radius, y - radius, x + radius, y + radius), 0.3)
    codes = []
    for code, (ax, ay, bx, by), colour in pending:
        w, h = stringWidth(code, SANS, CODE_SIZE) + 1.0, CODE_SIZE * 0.8 + 1.0
        best: tuple[float, tuple[float, float]] | None = None
        for t in _ALONG:
            mx, my = ax + (bx - ax) * t, ay + (by - ay) * t
            for dx, dy in _offsets(w, h):
                box = (mx + dx, my + dy, mx + dx + w, my + dy + h)
                cover = taken.cover(box)
                if best is None or cover < best[0]:
                    best = (cover, (box[0], box[1]))
                if cover == 0:
                    break
            if best is not None and best[0] == 0:
                break
        assert best is not None
        x, y = round(best[1][0], 2), round(best[1][1], 2)
        taken.add((x, y, x + w, y + h))
        codes.append(CodeLabel(x, y, round(w, 2), round(h, 2), code, colour))
    return MapPicture(width, height, base.outline, [st for st in strokes if st.segments], base.towns, base.labels,
                      codes)


def _offsets(w: float, h: float) -> list[tuple[float, float]]:
    """Where a code's box may sit around a point of its route, nearest first: on it, above, below, beside,
    then a little further out and at the corners."""
    out = [(-w / 2, -h / 2)]
    for gap in (1.0, 3.5, 6.0):
        out += [(-w / 2, gap), (-w / 2, -h - gap), (gap, -h / 2), (-w - gap, -h / 2),
                (gap, gap), (-w - gap, gap), (gap, -h - gap), (-w - gap, -h - gap)]
    return out


class _Boxes:
    """Placed label boxes (each with a weight: how bad covering it is) in a grid of cells, to ask quickly how
    much a new box covers of them."""

    CELL = 12.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[tuple[float, float, float, float], float]]] = {}

    def _keys(self, box: tuple[float, float, float, float]) -> list[tuple[int, int]]:
        x0, y0, x1, y1 = (int(v // self.CELL) for v in box)
        return [(i, j) for i in range(x0, x1 + 1) for j in range(y0, y1 + 1)]

    def add(self, box: tuple[float, float, float, float], weight: float = 1.0) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append((box, weight))

    def cover(self, box: tuple[float, float, float, float]) -> float:
        seen: set[tuple[float, float, float, float]] = set()
        area = 0.0
        for key in self._keys(box):
            for other, weight in self.cells.get(key, ()):
                if other in seen:
                    continue
                seen.add(other)
                w = min(box[2], other[2]) - max(box[0], other[0])
                h = min(box[3], other[3]) - max(box[1], other[1])
                if w > 0 and h > 0:
                    area += w * h * weight
        return area


def draw_map(data: TurnData, width: float, height: float, label_size: int = 4) -> Drawing:
    """The map as a reportlab Drawing (used for the SVG of the archive's web site)."""
    pic = map_picture(data, width, height, label_size)
    d = Drawing(width, height)
    d.add(Rect(0, 0, width, height, fillColor=WATER, strokeColor=colors.grey, strokeWidth=0.5))
    d.add(Polygon(pic.outline, fillColor=LAND, strokeColor=COAST, strokeWidth=0.6))
    for stroke in pic.strokes:
        group = Group()
        for ax, ay, bx, by in stroke.segments:
            group.add(Line(ax, ay, bx, by, strokeColor=stroke.colour, strokeWidth=stroke.width,
                           strokeDashArray=list(stroke.dash) if stroke.dash else None))
        d.add(group)
    for x, y, radius, filled in pic.towns:
        d.add(Circle(x, y, radius, fillColor=colors.black if filled else colors.white,
                     strokeColor=colors.black, strokeWidth=0.4))
    for x, y, name in pic.labels:
        d.add(String(x, y, name, fontName=SANS, fontSize=5.5, fillColor=LABEL))
    return d


class MapFlowable(Flowable):
    """The map drawn straight onto the PDF canvas: one path per pen, so a report page with
    hundreds of routes renders in a few milliseconds."""

    def __init__(self, picture: MapPicture) -> None:
        super().__init__()
        self.picture = picture
        self.width, self.height = picture.width, picture.height

    def draw(self) -> None:
        pic, c = self.picture, self.canv
        c.saveState()
        self._form("map", self._draw_map)
        c.setFillColor(LABEL)
        c.setFont(SANS, 5.5)
        self._text("labels", self._draw_labels)
        if pic.codes:
            self._once("patches", self._draw_patches)
            c.setFont(SANS, CODE_SIZE)
            self._text("codes", self._draw_codes)
        c.restoreState()

    def _draw_labels(self) -> None:
        for x, y, name in self.picture.labels:
            self.canv.drawString(x, y, name)

    def _draw_codes(self) -> None:
        c = self.canv
        for label in self.picture.codes:
            c.setFillColor(label.colour)
            c.drawString(label.x + 0.5, label.y + 0.9, label.text)

    def _text(self, part: str, draw) -> None:
        """Text the same in every report of the turn (town names, RoW codes): drawn by the first
        document of the process, then copied into each document where its code is valid
        (:class:`pbm.pdfcanvas.Drawing`: the same names for the fonts and codes for the characters), else
        drawn afresh.  The part is drawn last before the state is restored, in the font set before it,
        so what it leaves set (a fill colour) is not used after it."""
        c = self.canv
        key = f"{part}-text:{c._fontname}:{c._fontsize}:{c._leading}"
        done = self.picture.graphics.get(key)
        if done and done.fits(c._doc):
            c._code.extend(done.code)
            return
        start = len(c._code)
        draw()
        if done is None:
            self.picture.graphics[key] = Drawn.of(c._code[start:], c._doc) or False

    def _once(self, part: str, draw) -> None:
        """Lines and shapes are the same operators in every report of the turn: drawn by the first, then
        copied (issue 15).  Text is not: its bytes depend on the document (the font subset's codes).  A
        part sets every state it uses, so its operators do not depend on what was drawn before it."""
        code = self.canv._code
        done = self.picture.graphics.get(part)
        if done is None:
            start = len(code)
            draw()
            self.picture.graphics[part] = code[start:]
        else:
            code.extend(done)

    def _form(self, part: str, draw) -> None:
        """Like :meth:`_once`, but the operators go into a form XObject of the document, whose stream is
        compressed once for every report of the turn (compressing a map page's ~70-90 kB of
        operators cost each report ~3 ms a page).  The form is drawn in the current graphics state, as
        the operators were; what they change stays inside it."""
        pic, c = self.picture, self.canv
        done = pic.graphics.get(part)
        if done is None:
            start = len(c._code)
            draw()
            done = pic.graphics[part] = c._code[start:]
            del c._code[start:]
        key = f"{part}-form"
        if key not in pic.graphics:
            digest = hashlib.sha1("\n".join(done).encode("utf-8")).hexdigest()[:16]
            pic.graphics[key] = [f"pbm{part}{digest}", DEFLATE_ONCE]
        name, deflate = pic.graphics[key]
        if not c._doc.hasForm(name):
            # the form's stream, as reportlab joins and encodes it, is made once per preamble too
            encoded_key = f"{part}-stream:{c._preamble}"
            encoded = pic.graphics.get(encoded_key)
            c.beginForm(name, -2, -2, pic.width + 2, pic.height + 2)  # the frame's stroke reaches past the box
            if encoded is None:
                c._code.extend(done)
            c.endForm()
            form = c._doc.idToObject[c._doc.getXObjectName(name)]
            if encoded is None:
                pic.graphics[encoded_key] = form.stream
            else:
                form.stream = encoded
            if c._pageCompression:
                from reportlab.pdfbase.pdfdoc import PDFStream

                stream = PDFStream()
                stream.content = form.stream
                stream.filters = [deflate]
                form.Contents, form.compression = stream, 0
        c.doForm(name)

    def _draw_map(self) -> None:
        """Water, land, lines and town dots."""
        pic, c = self.picture, self.canv
        c.setStrokeColor(colors.grey)
        c.setFillColor(WATER)
        c.setLineWidth(0.5)
        c.rect(0, 0, pic.width, pic.height, stroke=1, fill=1)
        land = c.beginPath()
        land.moveTo(pic.outline[0], pic.outline[1])
        for i in range(2, len(pic.outline), 2):
            land.lineTo(pic.outline[i], pic.outline[i + 1])
        land.close()
        c.setFillColor(LAND)
        c.setStrokeColor(COAST)
        c.setLineWidth(0.6)
        c.drawPath(land, stroke=1, fill=1)
        for stroke in pic.strokes:
            path = c.beginPath()
            for ax, ay, bx, by in stroke.segments:
                path.moveTo(ax, ay)
                path.lineTo(bx, by)
            c.setStrokeColor(stroke.colour)
            c.setLineWidth(stroke.width)
            c.setDash(list(stroke.dash) if stroke.dash else [])
            c.drawPath(path, stroke=1, fill=0)
        c.setDash([])
        c.setLineWidth(0.4)
        c.setStrokeColor(colors.black)
        for filled in (False, True):
            c.setFillColor(colors.black if filled else colors.white)
            dots = c.beginPath()
            for x, y, radius, is_filled in pic.towns:
                if is_filled == filled:
                    dots.circle(x, y, radius)
            c.drawPath(dots, stroke=1, fill=1)

    def _draw_patches(self) -> None:
        """A patch of land under each route code, so the lines under it do not blur it."""
        c = self.canv
        c.setFillColor(LAND)
        patches = c.beginPath()
        for label in self.picture.codes:
            patches.rect(label.x, label.y, label.w, label.h)
        c.drawPath(patches, stroke=0, fill=1)


def legend_rows(data: TurnData) -> list[tuple[colors.Color, str, str]]:
    """(colour, code, name) of every railroad on the map, in turnsheet number order."""
    return [(railroad_colour(r["number"]), r["code"], r["name"])
            for r in sorted(data.railroads, key=lambda r: r["number"]) if r["status"] != "merged"]

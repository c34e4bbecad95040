"""The PDF turn report (§9) and the moderator's report, with reportlab Platypus.

Every player-written string (character names, messages, railroad names a
player chose, problems quoting his sheet) goes through :func:`esc` before it
becomes Paragraph markup; table cells that are plain strings are drawn as
text, never parsed.  Documents are built with ``invariant=1``, so the same
input gives the same bytes.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Preformatted,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.tables import CellStyle

from pbm.fonts import BOLD, MONO as MONO_FONT, SANS
from pbm import __version__
from pbm.pdfcanvas import Drawing, TextCanvas
from pbm.report import charts, sections
from pbm.report.mapdraw import MapFlowable, legend_rows, map_picture, row_picture
from pbm.report.view import TurnData
from pbm.report.visibility import Visibility, visibility

_styles = getSampleStyleSheet()
H1 = ParagraphStyle("h1", parent=_styles["Heading1"], fontName=BOLD, fontSize=15, spaceAfter=4, spaceBefore=0)
H2 = ParagraphStyle("h2", parent=_styles["Heading2"], fontName=BOLD, fontSize=11.5, spaceBefore=8, spaceAfter=3,
                    textColor=colors.HexColor("#1a3550"))
H3 = ParagraphStyle("h3", parent=_styles["Heading3"], fontName=BOLD, fontSize=9.5, spaceBefore=4, spaceAfter=2)
BODY = ParagraphStyle("body", parent=_styles["BodyText"], fontName=SANS, fontSize=8.5, leading=10.5, spaceAfter=1)
SMALL = ParagraphStyle("small", parent=BODY, fontSize=7, leading=8.5)
CELL = ParagraphStyle("cell", parent=BODY, fontSize=6.8, leading=8, spaceAfter=0)
CENTER = ParagraphStyle("center", parent=BODY, alignment=TA_CENTER)
MONO = ParagraphStyle("mono", parent=BODY, fontName=MONO_FONT, fontSize=6.5, leading=7.6)

TABLE_STYLE = TableStyle([
    ("FONT", (0, 0), (-1, -1), SANS, 6.8),
    ("FONT", (0, 0), (-1, 0), BOLD, 6.8),
    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6ee")),
    ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.HexColor("#7a8a99")),
    ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f5f7f9")]),
    ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ("TOPPADDING", (0, 0), (-1, -1), 1.2),
    ("BOTTOMPADDING", (0, 0), (-1, -1), 1.2),
    ("LEFTPADDING", (0, 0), (-1, -1), 2.5),
    ("RIGHTPADDING", (0, 0), (-1, -1), 2.5),
])

PAGE_W, PAGE_H = letter
HEADER_GREY = colors.HexColor("#555555")  # the running header (made once, not on every page)
MARGIN = 0.55 * inch
TEXT_W = PAGE_W - 2 * MARGIN
LAND_W, LAND_H = landscape(letter)


def esc(text: Any) -> str:
    """Text safe inside reportlab Paragraph markup."""
    return escape(str(text))


def para(text: Any, style: ParagraphStyle = BODY) -> Paragraph:
    return Paragraph(esc(text), style)


class SharedParagraph(Paragraph):
    """A Paragraph that the reports of a turn share (:func:`shared`): its markup is parsed once and its
    lines are broken once per width, however many documents draw it.

    ``wrap`` depends on the width only (reportlab's Paragraph ignores the height); the line breaking's
    result (``blPara`` and what ``wrap`` sets beside it) is kept per width and put back, so a later
    document draws exactly what the first did.  Parts split off at a page end are new paragraphs.
    """

    _WRAPPED = ("width", "height", "blPara", "_wrapWidths", "_width_max")

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        memo = self.__dict__.setdefault("_by_width", {})
        state = memo.get(availWidth)
        if state is None:
            size = super().wrap(availWidth, availHeight)
            memo[availWidth] = {k: self.__dict__[k] for k in self._WRAPPED if k in self.__dict__}
            return size
        self.__dict__.update(state)
        return self.width, self.height

    # Markup whose drawing does more than write text code (links, images, callbacks, page numbers):
    # drawn afresh in every document.
    _EFFECTS = re.compile(r"<\s*(a|link|img|ondraw|index|pagenumber|seq|span)\b|href", re.IGNORECASE)

    def draw(self) -> None:
        """Draw as the first document of the process did, by copying its code where that code is valid in
        this document too (:class:`pbm.pdfcanvas.Drawing`), else afresh (and keep that)."""
        if not isinstance(self.text, str):  # a part split off at a page end (reportlab makes it of fragments)
            super().draw()
            return
        canv = self.canv
        doc = canv._doc
        # what the code depends on besides the document's fonts: the lines (put back by wrap, one object
        # per width) and the canvas's font, which reportlab's text object starts from
        key = (id(self.blPara), self.width, self.height, canv._fontname, canv._fontsize, canv._leading,
               canv.bottomup)
        drawn = self.__dict__.setdefault("_drawn", {})
        done = drawn.get(key)
        if done is not None and done.fits(doc):
            canv._code.extend(done.code)
            return
        start = len(canv._code)
        super().draw()
        if done is None and not self._EFFECTS.search(self.text) and not self.bulletText:
            drawn[key] = Drawing.of(canv._code[start:], doc)

    def drawOn(self, canvas, x: float, y: float, _sW: float = 0) -> None:
        super().drawOn(canvas, x, y, _sW)
        # Drawn, so no longer put off to the next page: reportlab leaves the mark, which would make the next
        # document that puts it off take it for a paragraph too large for any page.  Likewise the
        # keep-with-next it switches off on a paragraph it has grouped with the next one: the next document
        # takes it from the style again.
        self.__dict__.pop("_postponed", None)
        self.__dict__.pop("keepWithNext", None)


def shared(data: TurnData, markup: str, style: ParagraphStyle) -> Paragraph:
    """The turn's one Paragraph of ``markup`` in ``style`` (escaped already), built on first use."""
    store = data.cache.setdefault("paragraphs", {})
    key = (markup, style.name)
    p = store.get(key)
    if p is None:
        p = store[key] = SharedParagraph(markup, style)
    return p


def cell(text: Any) -> Paragraph:
    return Paragraph(esc(text), CELL)


CELL_PAD = 2.5  # LEFTPADDING and RIGHTPADDING of TABLE_STYLE
# What a Paragraph would change in a text (whitespace it collapses, soft hyphens it may break at): such a
# text stays a Paragraph, so that a cell prints the same words whichever way it is drawn.
_PARAGRAPH_ONLY = re.compile("[\t\n\r\x0b\x0c\xad\u200b]|  |^ | $")


def fitted_cell(text: Any, width: float | None, data: TurnData | None = None) -> Paragraph | str:
    """A table cell of a wrapping column: the plain string (drawn as text, never parsed) where it fits
    on one line of a column ``width`` wide, an escaped Paragraph (which wraps) where it does not.

    Both are drawn in the cell font (``CELL``: DejaVu Sans 6.8 pt); the string saves the Paragraph's
    markup parsing and line breaking, most of a report's table cost.  With ``data``, the Paragraph is
    the turn's shared one (:func:`shared`): parsed and broken into lines once for every report.
    """
    value = str(text)
    if (width is not None and not _PARAGRAPH_ONLY.search(value)
            and stringWidth(value, SANS, CELL.fontSize) <= width - 2 * CELL_PAD):
        return value
    return cell(value) if data is None else shared(data, esc(value), CELL)


# TABLE_STYLE's commands that set each cell's own style (font, vertical alignment, padding).  reportlab
# applies such a command cell by cell, ten commands to each of a report's ~1,100 cells; :func:`table`
# instead gives each cell a copy of the header's or the body's finished style, and passes reportlab only
# the commands that act on the whole table (backgrounds, lines) and the column alignments.
_CELL_OPS = {"FONT", "VALIGN", "TOPPADDING", "BOTTOMPADDING", "LEFTPADDING", "RIGHTPADDING"}
_TABLE_COMMANDS = [c for c in TABLE_STYLE.getCommands() if c[0] not in _CELL_OPS]


def _cell_prototypes() -> tuple[CellStyle, CellStyle]:
    """The style of a header cell and of a body cell, made by reportlab from TABLE_STYLE's cell commands."""
    commands = [c for c in TABLE_STYLE.getCommands() if c[0] in _CELL_OPS]
    for op, (sc, sr), (ec, er), *_ in commands:  # the copies are right only for these two shapes of range
        if (sc, ec) != (0, -1) or (sr, er) not in ((0, -1), (0, 0)):
            raise ValueError(f"TABLE_STYLE: {op} must address whole rows: all of them, or the header")
    proto = Table([["header"], ["body"]])
    proto.setStyle(TableStyle(commands))
    return proto._cellStyles[0][0], proto._cellStyles[1][0]


_HEAD_CELL, _BODY_CELL = _cell_prototypes()


def _cell_styles(rows: int, cols: int) -> list[list[CellStyle]]:
    """Each cell's own style (reportlab changes a cell's style in place), copied from the prototypes."""
    styles = []
    new = CellStyle.__new__
    for i in range(rows):
        proto = (_HEAD_CELL if i == 0 else _BODY_CELL).__dict__  # (its name, unused in drawing, too)
        row = []
        for _ in range(cols):
            c = new(CellStyle)
            c.__dict__.update(proto)
            row.append(c)
        styles.append(row)
    return styles


class SharedTable(Table):
    """A table whose drawing is kept for the turn (in ``data.cache``) under a key of its contents: a table
    that several reports of the turn print alike (the railroad summary, the private companies) is drawn
    once per process and copied into the next documents where the copy is valid (:class:`Drawing`).

    The key is made by :func:`table` from what the table is made of (texts, the shared paragraphs by
    identity, widths, alignments), extended by every later ``setStyle``; a part split off at a page end
    is keyed by its table's key, its place and its rows.  The drawing is also keyed by the table's laid
    out rows and columns and the canvas's font, which reportlab's drawing starts from.
    """

    _share: tuple[dict, tuple] | None = None  # (the turn's drawings, this table's key)

    def setStyle(self, tblstyle) -> None:  # noqa: N802 (reportlab's name)
        super().setStyle(tblstyle)
        if self._share is not None:
            commands = tblstyle.getCommands() if isinstance(tblstyle, TableStyle) else list(tblstyle)
            memo, key = self._share
            self._share = (memo, (key, repr(commands)))

    def split(self, availWidth: float, availHeight: float) -> list:  # noqa: N803
        parts = super().split(availWidth, availHeight)
        if self._share is not None:
            memo, key = self._share
            for i, part in enumerate(parts):
                if isinstance(part, SharedTable):
                    part._share = (memo, (key, "part", i, len(part._cellvalues), part.repeatRows))
        return parts

    def draw(self) -> None:
        if self._share is None:
            super().draw()
            return
        memo, key = self._share
        canv = self.canv
        key = (key, tuple(self._rowpositions), tuple(self._colpositions), tuple(self._rowHeights),
               canv._fontname, canv._fontsize, canv._leading, canv.bottomup)
        done = memo.get(key)
        if done is None:  # first seen: most tables are one report's own, so not worth keeping yet
            memo[key] = False
            super().draw()
            return
        if done and done.fits(canv._doc):
            canv._code.extend(done.code)
            return
        start = len(canv._code)
        super().draw()
        if done is False:  # seen again: keep it for the next documents
            memo[key] = Drawing.of(canv._code[start:], canv._doc)


def _share_key(body: list[list[Any]]) -> tuple | None:
    """What a table's cells are, for :class:`SharedTable`: texts, and the turn's shared paragraphs by
    identity (they live as long as the turn's drawings); None for any other cell (not shared)."""
    out = []
    for row in body:
        for v in row:
            if type(v) is str:
                out.append(v)
            elif isinstance(v, SharedParagraph):
                out.append(("paragraph", id(v)))
            else:
                return None
        out.append(None)  # the end of a row
    return tuple(out)


def table(header: list[str], rows: list[list[Any]], widths: list[float] | None = None,
          wrap: set[int] | None = None, align_right: set[int] | None = None, data: TurnData | None = None,
          extra: list[tuple] | None = None) -> Table:
    """A styled table; a cell of a column in ``wrap`` whose text does not fit on one line becomes an
    escaped Paragraph, so long text wraps (:func:`fitted_cell`; shared by the turn's reports with ``data``).
    ``extra``: more style commands, applied after the table's own.

    With ``data``, a table made of texts and the turn's shared paragraphs is made once per turn and the
    same flowable handed to every report that prints it (:func:`_turn_table`): the railroad summary, the
    private companies, a director's cash flows are built, laid out and drawn once per process."""
    wrap = wrap or set()
    body = [[fitted_cell(v, widths[i] if widths else None, data) if i in wrap else str(v)
             for i, v in enumerate(row)] for row in rows]
    content = _share_key([list(header)] + body) if data is not None else None
    if content is None:
        return _make_table(header, body, widths, align_right, extra, None, None)
    key = (content, tuple(widths or ()), tuple(sorted(align_right or ())), repr(extra))
    return _turn_table(data, key, lambda: _make_table(header, body, widths, align_right, extra, data, content))


def _make_table(header: list[str], body: list[list[Any]], widths: list[float] | None, align_right: set[int] | None,
                extra: list[tuple] | None, data: TurnData | None, content: tuple | None) -> Table:
    cols = max(len(r) for r in [header] + body)
    t = SharedTable([header] + body, colWidths=widths, repeatRows=1, hAlign="LEFT",
                    cellStyles=_cell_styles(1 + len(body), cols))
    if content is not None and data is not None:
        t._share = (data.cache.setdefault("tables", {}), (content, tuple(widths or ()), cols))
    style = TableStyle(_TABLE_COMMANDS)
    for i in sorted(align_right or set()):
        style.add("ALIGN", (i, 0), (i, -1), "RIGHT")
    t.setStyle(style)
    if extra:
        t.setStyle(TableStyle(extra))
    return t


# What platypus leaves on a flowable it has handled, which the next document must not see: the mark of one
# put off to the next page (a second put-off would be taken for a table too large for any page), the frame.
_LAYOUT_MARKS = ("_postponed", "_frame")


def _turn_table(data: TurnData, key: tuple, make: Callable[[], Table]) -> Table:
    """The turn's one table flowable under ``key`` (everything it is made of), made on first use.

    A table is laid out again by every document that places it (``wrap`` sets its row heights and positions
    afresh; a part split off at a page end is a new table), so one flowable serves the reports one after
    the other; what the last document left on it (:data:`_LAYOUT_MARKS`) is cleared before it is handed out
    again."""
    store = data.cache.setdefault("table-flowables", {})
    t = store.get(key)
    if t is None:
        t = store[key] = make()
    else:
        for mark in _LAYOUT_MARKS:
            t.__dict__.pop(mark, None)
    return t


class ReportDoc(BaseDocTemplate):
    """Portrait pages for text, a landscape page for the map; a running header on every page."""

    def __init__(self, buffer: io.BytesIO, header: str, title: str) -> None:
        super().__init__(buffer, pagesize=letter, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN + 10,
                         bottomMargin=MARGIN, title=title, author=f"pbm {__version__}", subject=header,
                         creator="pbm", invariant=1)
        self.header = header
        portrait = Frame(MARGIN, MARGIN, TEXT_W, PAGE_H - 2 * MARGIN - 10, id="portrait")
        land = Frame(MARGIN * 0.7, MARGIN * 0.7, LAND_W - 1.4 * MARGIN, LAND_H - 1.4 * MARGIN - 10, id="land")
        self.addPageTemplates([
            PageTemplate("portrait", [portrait], onPage=self._decorate, pagesize=letter),
            PageTemplate("landscape", [land], onPage=self._decorate, pagesize=landscape(letter)),
        ])

    def _decorate(self, canvas, doc) -> None:
        width, height = canvas._pagesize
        canvas.saveState()
        canvas.setFont(SANS, 7)
        canvas.setFillColor(HEADER_GREY)
        canvas.drawString(MARGIN * 0.7, height - MARGIN * 0.6, self.header)
        canvas.drawRightString(width - MARGIN * 0.7, height - MARGIN * 0.6, f"page {doc.page}")
        canvas.restoreState()


def _title_lines(data: TurnData) -> tuple[str, str]:
    g = data.game
    if data.turn == 0:
        when = f"Start of game — turn 1 ({g['year']}) to be played"
    else:
        when = f"Report of turn {data.turn} — turn {g['turn']} ({g['year']}) to be played"
    return when, f"climate {g['climate']}"


# -- the player's report ------------------------------------------------------------------

def _headlines(story: list, data: TurnData, vis: Visibility | None) -> None:
    story.append(shared(data, "9.1 Headlines", H2))
    h = sections.headlines(data, vis)
    if h.news:
        for line in h.news:
            story.append(shared(data, "• " + esc(line), BODY))
    else:
        story.append(shared(data, "No great news this turn.", BODY))
    if h.messages:
        story.append(shared(data, "Messages from the tycoons", H3))
        for who, text in h.messages:
            story.append(shared(data, f"<b>{esc(who)}:</b> {esc(text)}", BODY))
    story.append(shared(data, "World &amp; National News", H3))
    story.append(shared(data, f"<i>{esc(data.game['year'])}: {esc(h.world)}</i>", BODY))


def _player_summary(story: list, data: TurnData, vis: Visibility) -> None:
    story.append(shared(data, "9.2 Player summary (by net worth)", H2))
    rows = sections.player_summary(data, vis)
    widths = [18, 92, 56, 62, 150, 82, 60]
    story.append(table(sections.PLAYER_HEADER, rows, widths, wrap={1, 2, 3, 4, 5, 6}, data=data))
    if vis.spied_player:
        addr = vis.address(data, vis.spied_player)
        if addr:
            story.append(Paragraph(f"Your Pinkertons report the address of #{vis.spied_player}: {esc(addr)}", SMALL))


def _railroad_summary(story: list, data: TurnData, vis: Visibility | None) -> None:
    story.append(CondPageBreak(1.5 * inch))
    story.append(shared(data, "9.3 Railroad summary", H2))
    blocks = sections.railroad_summary(data, vis)
    if not blocks:
        story.append(para("No active railroads."))
        return
    widths = [30, 32, 44, 44, 42, 40, 30, 28, 30, 30, 66, 66, 58]
    story.append(table(sections.RAILROAD_HEADER, [b.row for b in blocks], widths,
                       wrap={10, 11, 12}, align_right={1, 2, 3, 4, 5, 6, 7, 8, 9}, data=data))
    story.append(shared(data, "Lines", H3))
    for b in blocks:
        text = f"<b>{esc(b.row[0])}</b> {esc(b.name)}: {esc('; '.join(b.lines) or 'no lines')}"
        story.append(shared(data, text, SMALL))
        if b.confidential:
            story.append(shared(data, "&nbsp;&nbsp;&nbsp;<i>confidential: " + esc(", ".join(b.confidential))
                                + "</i>", SMALL))


def _stock_report(story: list, data: TurnData, vis: Visibility) -> None:
    story.append(CondPageBreak(1.5 * inch))
    story.append(shared(data, "9.4 Stock report", H2))
    header, rows, notes = sections.stock_report(data, vis)
    n = len(header)
    widths = [34] + [(TEXT_W - 34) / (n - 1)] * (n - 1)
    story.append(table(header, rows, widths, align_right=set(range(1, n))))
    story.append(shared(data, "Start/End: price per share; Pub./Plr. off./bid: shares offered and bid for by the "
                              "public and by players; Bought/Sold: your trades; Max. Bid: the most shares you may "
                              "bid for next turn (20 % of the issued shares not held by directors or you).", SMALL))
    for note in notes:
        story.append(shared(data, "• " + esc(note), SMALL))


def _pcs(story: list, data: TurnData) -> None:
    story.append(CondPageBreak(1.2 * inch))
    story.append(shared(data, "9.5 Private companies available", H2))
    rows = sections.pcs_available(data)
    if not rows:
        story.append(para("No private companies are for sale."))
        return
    story.append(table(sections.PC_HEADER, rows, [40, 220, 40, 120, 70], wrap={1, 3}, align_right={2, 4},
                       data=data))
    story.append(shared(data, "A player offering a PC may raise his asking price by 20 % this turn (§9.5).", SMALL))


def _flow_table(flow: sections.CashFlow, data: TurnData) -> Table:
    rows = [["start", sections.money(flow.start)]]
    rows += [[text, sections.money(amount)] for text, amount in flow.lines]
    rows.append(["end", sections.money(flow.end)])
    return table([flow.title, ""], rows, [260, 70], wrap={0}, align_right={1}, data=data,
                 extra=[("FONT", (0, -1), (-1, -1), BOLD, 6.8)])


def _private(story: list, data: TurnData, vis: Visibility) -> None:
    pr = sections.private_report(data, vis)
    story.append(KeepTogether([shared(data, "9.6 Private report", H2), _flow_table(pr.flow, data)]))
    story.append(Spacer(1, 6))
    side = Table([[table(["Assets and debt", ""], [list(a) for a in pr.assets], [150, 60], align_right={1}),
                   table(["Victory points", ""], [list(v) for v in pr.vp], [150, 60], align_right={1})]],
                 colWidths=[TEXT_W / 2, TEXT_W / 2], hAlign="LEFT")
    side.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    story.append(side)
    story.append(shared(data, "Cash flows of the railroads you direct or spied on", H3))
    if not pr.railroad_flows:
        story.append(shared(data, "You direct no railroad and spied on none this turn.", SMALL))
    for flow in pr.railroad_flows:
        story.append(_flow_table(flow, data))
        story.append(Spacer(1, 5))
    if pr.news:
        story.append(shared(data, "Your news", H3))
        for line in pr.news:
            story.append(shared(data, "• " + esc(line), SMALL))


MAP_LEGEND_W = 154  # the map page's legend: wide enough for the longest name of the map in full (LP&W, 131 pt)


def _legend_text(text: str, width: float, size: float = 6.8, smallest: float = 5.6) -> tuple[str, float]:
    """A legend line and its font size: the table's size if it fits ``width``, else smaller down to
    ``smallest``, else cut with an ellipsis at that size (one line a railroad, so the legend's height,
    and the page, stay as planned)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    if stringWidth(text, SANS, size) <= width:
        return text, size
    fitted = max(smallest, size * width / stringWidth(text, SANS, size))
    fitted = int(fitted * 10) / 10  # a tenth of a point below, so it surely fits
    if stringWidth(text, SANS, fitted) <= width:
        return text, fitted
    while text and stringWidth(text + "…", SANS, smallest) > width:
        text = text[:-1]
    return text.rstrip() + "…", smallest


def _map_legend(data: TurnData) -> Table:
    """The map page's legend: every railroad's colour, code and name (the same for every report of the turn)."""
    legend = [["", "Railroad"]]
    style = TableStyle(TABLE_STYLE.getCommands())
    text_w = MAP_LEGEND_W - 16 - 5  # the swatch column, and the text cell's padding
    for i, (colour, code, name) in enumerate(legend_rows(data), start=1):
        text, size = _legend_text(f"{code} {name}", text_w)
        legend.append(["", text])
        style.add("BACKGROUND", (0, i), (0, i), colour)
        if size != 6.8:
            style.add("FONTSIZE", (1, i), (1, i), size)
    legend.append(["- -", "PC in play"])
    return _legend_table(data, legend, [14, MAP_LEGEND_W - 16], style)


def _legend_table(data: TurnData, rows: list[list[str]], widths: list[float], style: TableStyle) -> Table:
    """A legend beside a map: a table of texts whose drawing the turn's reports share (:class:`SharedTable`,
    keyed by its texts, widths and every style command)."""
    t = SharedTable(rows, colWidths=widths, hAlign="LEFT")
    content = _share_key(rows)
    if content is not None:
        t._share = (data.cache.setdefault("tables", {}), ("legend", content, tuple(widths)))
    t.setStyle(style)
    return t


def _map_page(story: list, data: TurnData, title: str) -> None:
    story.append(NextPageTemplate("landscape"))
    story.append(PageBreak())
    story.append(Paragraph(esc(title), H2))
    width = LAND_W - 1.4 * MARGIN - MAP_LEGEND_W - 2
    height = LAND_H - 1.4 * MARGIN - 60
    t_legend = _turn_table(data, ("map legend",), lambda: _map_legend(data))
    key = f"map:{width:.1f}x{height:.1f}"
    if key not in data.cache:  # the same map for every player of the turn: drawn once
        data.cache[key] = map_picture(data, width, height)
    outer = Table([[MapFlowable(data.cache[key]), t_legend]], colWidths=[width + 4, MAP_LEGEND_W])
    outer.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    story.append(outer)
    story.append(NextPageTemplate("portrait"))


def _row_page(story: list, data: TurnData) -> None:
    """The RoW codes on the map (§2.3, §4.7; issue 18 item 12): where each RoW a railroad may bid for runs."""
    story.append(NextPageTemplate("landscape"))
    story.append(PageBreak())
    story.append(Paragraph(esc(f"Rights-of-way after turn {data.turn}: the code of every RoW not yet built "
                               "(bid for one on your turnsheet, §10.2G)"), H2))
    width = LAND_W - 1.4 * MARGIN - 130
    height = LAND_H - 1.4 * MARGIN - 60
    key = f"rows:{width:.1f}x{height:.1f}"
    if key not in data.cache:  # the same page for every player of the turn: placed once
        data.cache[key] = row_picture(data, width, height)
    legend = [["", "RoW open for bids (grey)"], ["", "RoW held, unbuilt: dotted,"], ["", "in its railroad's colour"],
              ["", "Lines of the railroads"], ["", "as on the map page"]]
    t_legend = _turn_table(data, ("row legend",),
                           lambda: _legend_table(data, legend, [4, 122], TableStyle(TABLE_STYLE.getCommands())))
    outer = Table([[MapFlowable(data.cache[key]), t_legend]], colWidths=[width + 4, 128])
    outer.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    story.append(outer)
    story.append(NextPageTemplate("portrait"))


def _charts_page(story: list, data: TurnData, vis: Visibility) -> None:
    story.append(PageBreak())
    story.append(Paragraph("Your record", H2))
    history = data.player_history.get(vis.viewer, [])
    story.append(charts.net_worth_chart(history, TEXT_W, 190))
    story.append(Spacer(1, 8))
    story.append(charts.vp_chart(history, TEXT_W, 190))
    story.append(Spacer(1, 8))
    mine = sorted(h["railroad"] for h in data.player(vis.viewer)["holdings"] if h["shares"])
    story.append(charts.price_chart(data.railroad_history, mine[:12], TEXT_W, 190))


def _build(story: list, header: str, title: str) -> bytes:
    buffer = io.BytesIO()
    doc = ReportDoc(buffer, header, title)
    doc.build(story, canvasmaker=TextCanvas)
    return buffer.getvalue()


TurnsheetHook = Callable[[TurnData, int], list]


def player_report(data: TurnData, player: int, turnsheet: list | None = None) -> bytes:
    """The §9 report of ``data.turn`` for player ``player``, as PDF bytes."""
    vis = visibility(data, player)
    me = data.player(player)
    when, climate = _title_lines(data)
    header = f"Continental Rails II — {data.game_name} — {when} — #{player} {me['character']}"
    story: list = [
        Paragraph(f"Continental Rails II — game {esc(data.game_name)}", H1),
        Paragraph(f"<b>{esc(when)}</b>, {esc(climate)}", BODY),
        Paragraph(f"Turn report for player #{player}: <b>{esc(me['character'])}</b>", BODY),
    ]
    _headlines(story, data, vis)
    _player_summary(story, data, vis)
    _railroad_summary(story, data, vis)
    _stock_report(story, data, vis)
    _pcs(story, data)
    _private(story, data, vis)
    _map_page(story, data, f"The map after turn {data.turn}: lines of every railroad, PCs in play dashed")
    _row_page(story, data)
    _charts_page(story, data, vis)
    if turnsheet:
        story.append(PageBreak())
        story.extend(turnsheet)
    return _build(story, header, f"{data.game_name} turn {data.turn} player {player}")


# -- the moderator's report --------------------------------------------------------------

def moderator_report(data: TurnData) -> bytes:
    """Everything: the full state (contacts included), every order set, the whole event log and ledger."""
    when, climate = _title_lines(data)
    header = f"Continental Rails II — {data.game_name} — {when} — MODERATOR"
    story: list = [
        Paragraph(f"Moderator's report — game {esc(data.game_name)}", H1),
        Paragraph(f"<b>{esc(when)}</b>, {esc(climate)}; seed {esc(data.game['seed'])}, status "
                  f"{esc(data.game['status'])}{', anonymous game' if data.game.get('anonymous') else ''}", BODY),
    ]
    _headlines(story, data, None)
    story.append(Paragraph("Players", H2))
    rows = []
    for p in sorted(data.players, key=lambda p: p["number"]):
        c = data.contacts.get(p["number"])
        contact = "; ".join(x for x in (c.name, c.email, c.phone, c.address) if x) if c and c.human else "computer"
        rows.append([p["number"], p["character"], contact, sections.money(p["cash"]), sections.money(p["loan"]),
                     sections.money(p["net_worth"]), sections.money(p["credit_limit"]),
                     " ".join(x or "-" for x in p["slots"]), ", ".join(p["private_companies"]) or "-",
                     sum(v for k, v in p["vp"].items() if k not in ("mogul_fraction", "rail_baron"))])
    story.append(table(["#", "Character", "Person", "Cash", "Loan", "Net worth", "Credit", "Slots", "PCs", "VP"],
                       rows, [16, 78, 140, 44, 40, 48, 40, 40, 50, 22], wrap={1, 2, 8},
                       align_right={3, 4, 5, 6, 9}))
    story.append(Paragraph("Shareholdings (shares; short sales negative)", H2))
    codes = [r["code"] for r in sorted(data.railroads, key=lambda r: r["number"]) if r["status"] != "merged"]
    hold_rows = []
    for p in sorted(data.players, key=lambda p: p["number"]):
        held = {h["railroad"]: h for h in p["holdings"]}
        hold_rows.append([p["number"]] + [
            (str(held[c]["shares"]) + (f"/-{held[c]['short']}" if held[c]["short"] else "")) if c in held else ""
            for c in codes])
    for start in range(0, len(codes), 16):
        chunk = codes[start:start + 16]
        story.append(table(["#"] + chunk, [[r[0]] + r[1 + start:1 + start + len(chunk)] for r in hold_rows],
                           [18] + [32] * len(chunk), align_right=set(range(1, len(chunk) + 1))))
        story.append(Spacer(1, 4))
    _railroad_summary(story, data, None)
    _pcs(story, data)
    story.append(PageBreak())
    story.append(Paragraph(f"Orders of turn {data.turn}", H2))
    if not data.order_sets:
        story.append(para("No order sets were recorded for this turn."))
    for o in data.order_sets:
        who = f"#{o['player']} {sections.character(data, o['player'])}"
        story.append(Paragraph(f"<b>{esc(who)}</b> — {esc(o['source'])}, {esc(o['status'])}, "
                               f"arrival {esc(o['received_seq'])}", BODY))
        for problem in o["problems"]:
            story.append(Paragraph("problem: " + esc(problem.get("where", "")) + ": " + esc(problem.get("message", ""))
                                   + (f" (allowed: {esc(problem['allowed'])})" if problem.get("allowed") else ""),
                                   SMALL))
        compact = {k: v for k, v in sorted(o["orders"].items()) if v not in (None, 0, "", [], {}, False)}
        story.append(Preformatted(json.dumps(compact, sort_keys=True, ensure_ascii=False, indent=1), MONO,
                                  maxLineLength=150))
    story.append(PageBreak())
    story.append(Paragraph(f"Event log of turn {data.turn} ({len(data.events)} events)", H2))
    ev_rows = [[e["seq"], e["step"], e["rule"], e["kind"], e["player"] or "", e["railroad"] or "",
                "" if e["amount"] is None else sections.money(e["amount"]),
                ("H " if e["headline"] else "") + ("to " + ",".join(map(str, e["private_to"]))
                                                    if e["private_to"] is not None else "public"),
                e["text"]] for e in data.events]
    story.append(table(["seq", "step", "rule", "kind", "pl.", "RR", "amount", "seen by", "text"], ev_rows,
                       [22, 24, 34, 62, 18, 30, 44, 40, 230], wrap={3, 8}, align_right={0, 6}))
    story.append(Paragraph(f"Ledger of turn {data.turn} ({len(data.ledger)} movements)", H2))
    led_rows = [[x["seq"], x["step"], x["source"], x["target"], sections.money(x["amount"]), x["memo"]]
                for x in data.ledger]
    story.append(table(["seq", "step", "from", "to", "amount", "memo"], led_rows,
                       [24, 28, 70, 70, 56, 250], wrap={5}, align_right={0, 4}))
    _map_page(story, data, f"The map after turn {data.turn}")
    return _build(story, header, f"{data.game_name} turn {data.turn} moderator")

"""The PDF turnsheet (§10) with fillable form fields (reportlab AcroForm).

Laid out like §10: a header (game, player, turn, the per-turn code and a field
for the player's secret), the personal actions §10.1 A–G, then one block per
railroad the player presides (§10.2 A–H).  Beside each field, what is allowed
now.  Each form field is named after its line of the text sheet (``BORROW``,
``B&O BUILD``), so a filled PDF reads back through the same parser
(:func:`pbm.turnsheet.parse.parse_pdf`).

The bytes are deterministic (``invariant=1``); every text that a player wrote
(character names) or that comes from data is escaped before it reaches
reportlab's Paragraph markup.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle
from pbm.pdfcanvas import TextCanvas
from reportlab.platypus import Paragraph

from pbm.fonts import BOLD, SANS
from pbm.cr.orders import MAX_MESSAGE
from pbm.turnsheet.facts import SheetFacts
from pbm.turnsheet.grammar import field_name
from pbm.turnsheet.text import money, personal_lines, railroad_lines

PAGE_W, PAGE_H = letter
MARGIN = 40
LABEL_X = MARGIN
FIELD_X = 215
FIELD_W = 120
NOTE_X = FIELD_X + FIELD_W + 8
NOTE_W = PAGE_W - MARGIN - NOTE_X
ROW_H = 18

_NOTE = ParagraphStyle("note", fontName=SANS, fontSize=7, leading=8.2, textColor=colors.HexColor("#333333"))
_TITLE = ParagraphStyle("title", fontName=BOLD, fontSize=10, leading=12)
_TEXT = ParagraphStyle("text", fontName=SANS, fontSize=8, leading=10)


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph of plain text: escaped, so '<', '&' and friends are shown, never interpreted."""
    return Paragraph(escape(text), style)


class _Sheet:
    def __init__(self, facts: SheetFacts) -> None:
        self.facts = facts
        self.buffer = io.BytesIO()
        self.c = TextCanvas(self.buffer, pagesize=letter, invariant=1, pageCompression=0)
        self.c.setTitle(f"Turnsheet {facts.game} player {facts.player} turn {facts.turn}")
        self.c.setAuthor("pbm")
        self.c.setSubject("Continental Rails II turnsheet")
        self.c.setCreator("pbm")
        self.page = 1
        self.y = PAGE_H - MARGIN
        self._footer()

    def _footer(self) -> None:
        f = self.facts
        self.c.setFont(SANS, 7)
        self.c.drawString(MARGIN, 22, f"{f.game} · player {f.player} · turn {f.turn} · code {f.code} · page {self.page}")
        self.c.drawRightString(PAGE_W - MARGIN, 22, "Fill in, save, and email this PDF back (or use the text sheet).")

    def need(self, height: float) -> None:
        if self.y - height < 40:
            self.c.showPage()
            self.page += 1
            self.y = PAGE_H - MARGIN
            self._footer()

    def paragraph(self, text: str, style: ParagraphStyle, x: float = MARGIN, width: float | None = None) -> None:
        p = _p(text, style)
        w, h = p.wrap(width or PAGE_W - 2 * MARGIN, 1000)
        self.need(h + 2)
        p.drawOn(self.c, x, self.y - h)
        self.y -= h + 3

    def title(self, text: str) -> None:
        self.need(ROW_H * 2)
        self.y -= 4
        self.c.setStrokeColor(colors.black)
        self.c.line(MARGIN, self.y + 1, PAGE_W - MARGIN, self.y + 1)
        self.paragraph(text, _TITLE)

    def row(self, key: str, note: str, *, value: str = "", readonly: bool = False, width: float = FIELD_W,
            checkbox: bool = False, maxlen: int = 60) -> None:
        note_p = _p(note, _NOTE) if note else None
        note_w = PAGE_W - MARGIN - (FIELD_X + width + 8)
        h = note_p.wrap(note_w, 1000)[1] if note_p else 0
        height = max(ROW_H, h + 4)
        self.need(height)
        top = self.y
        self.c.setFont(SANS, 8)
        self.c.setFillColor(colors.black)
        self.c.drawString(LABEL_X, top - 12, key)
        form = self.c.acroForm
        if checkbox:
            form.checkbox(name=field_name(key), tooltip=key, x=FIELD_X, y=top - 15, size=12,
                          buttonStyle="cross", borderWidth=1, fieldFlags="", checked=False)
        else:
            form.textfield(name=field_name(key), tooltip=key, value=value, x=FIELD_X, y=top - 15, width=width,
                           height=14, fontName="Helvetica", fontSize=8, borderWidth=1, maxlen=maxlen,
                           fieldFlags="readOnly" if readonly else "",
                           fillColor=colors.HexColor("#eeeeee") if readonly else colors.white)
        if note_p:
            note_p.drawOn(self.c, FIELD_X + width + 8, top - 2 - h)
        self.y = top - height

    def build(self) -> bytes:
        f = self.facts
        self.paragraph("Continental Rails II — Turnsheet (§10)", ParagraphStyle(
            "head", fontName=BOLD, fontSize=14, leading=17))
        self.paragraph(f"Game {f.game} · turn {f.turn} ({f.year}) · climate {f.climate} · "
                       f"player {f.player}: {f.character}", _TEXT)
        self.paragraph("Type into the boxes in any PDF reader, save, and email the PDF back. Blank means no order; "
                       "blank control slots and dividends mean unchanged (§10.1D, §10.2H). "
                       "Your last sheet before the deadline counts.", _TEXT)
        self.row("GAME", "", value=f.game, readonly=True)
        self.row("PLAYER", "", value=str(f.player), readonly=True)
        self.row("TURN", "", value=str(f.turn), readonly=True)
        self.row("CODE", "this turn's code", value=f.code, readonly=True)
        self.row("SECRET", "your secret, as given at the start of the game")
        self.title(f"10.1 Personal actions — cash {money(f.cash)}, loan {money(f.loan)}, "
                   f"available credit {money(f.credit_available)}")
        titles = {"BORROW": "A) Bank loan", "PC ": "B) Private companies you own — ONE action each",
                  "BID ": f"B) Bid for PCs for sale — you may bid for {f.bids_allowed}; "
                          "write the amount, then a sequence 1 or 2",
                  "STOCK 1": "C) Stock market — up to 6 orders, STOCK 1 first",
                  "RR1": "D) Control railroads", "MERGE": "E) Merge railroads", "SPY PLAYER": "F) Spy",
                  "MESSAGE": f"G) Message to all players (at most {MAX_MESSAGE} characters)",
                  "PRODIGAL": "Rail Prodigal spending (§1.2)", "CHARACTER": "Character name (§3.2)"}
        done: set[str] = set()
        for key, note in personal_lines(f):
            for prefix, text in titles.items():
                if key.startswith(prefix) and prefix not in done:
                    done.add(prefix)
                    self.paragraph(text, ParagraphStyle("sub", parent=_TEXT, fontName=BOLD))
                    if prefix == "STOCK 1":
                        for s in f.stock:
                            self.paragraph(
                                f"{s.number:>2} {s.code} {s.name} — ${s.price:.2f}, you own {s.owned}, "
                                f"max bid {s.max_bid}, max short {s.max_short}", _NOTE)
            if key == "MESSAGE":
                self.row(key, "", width=PAGE_W - MARGIN - FIELD_X, maxlen=MAX_MESSAGE)
            elif key == "CHARACTER":
                self.row(key, "", width=FIELD_W + 60, maxlen=40)
            else:
                self.row(key, note)
        for b in f.railroads:
            self.title(f"10.2 Railroad {b.code} (#{b.number}) {b.name} — cash {money(b.cash)}, {b.miles} miles, "
                       f"efficiency {b.efficiency}")
            rows = "; ".join(f"{r.code} {r.ends()}, {r.miles} mi" for r in b.row_choices)
            self.paragraph(f"Valid RoWs now: {rows or ', '.join(b.valid_rows) or 'none'}", _NOTE)
            for key, note in railroad_lines(b):
                self.row(key, note, checkbox=key.endswith(" ABANDON"))
        self.c.showPage()
        self.c.save()
        return self.buffer.getvalue()


def render_pdf(facts: SheetFacts) -> bytes:
    """The PDF turnsheet for one player and turn (deterministic bytes)."""
    return _Sheet(facts).build()

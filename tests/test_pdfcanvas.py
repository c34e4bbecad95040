"""The quicker text paths (pbm.pdfcanvas.TextCanvas, pbm.fonts.SubsetFont) write the bytes reportlab writes."""

from __future__ import annotations

import io

import pytest
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

from pbm.fonts import BOLD, MONO, SANS, SubsetFont
from pbm.pdfcanvas import TextCanvas

TEXTS = [
    "", " ", "Player 1", "$1,234,567", "(parens) and \\ backslash", "tab\there", "new\nline", "nbsp\xa0here",
    "Łódź", "Дмитрий Иванович", "naïve café — “quotes” • bullet", "ends with space ", "\x7f del",
    "emoji 🚂 box", "mixed ASCII then é then ASCII again", "~!@#%^&*_+={}[]|:;'<>,.?/", "ÆØÅ æøå " * 40,
]


def _canvas_pdf(maker) -> bytes:
    buf = io.BytesIO()
    c = maker(buf, invariant=1)
    y = 760.0
    for font in (SANS, BOLD, MONO, "Helvetica"):
        for size, leading in ((6.8, 8), (9, None)):
            c.setFont(font, size, leading)
            for text in TEXTS:
                if font == "Helvetica" and not text.isascii():
                    continue  # a standard font cannot draw it either way
                c.drawString(20, y, text)
                c.drawRightString(590.5, y, text)
                c.drawCentredString(300.25, y, text)
                c.drawString(20, y, text, charSpace=0.5)  # the cases reportlab keeps
                c.drawRightString(590, y, text, wordSpace=1)
                c.drawString(20, y, text, mode=1)
                y -= 3.7
                if y < 40:
                    c.showPage()
                    y = 760.0
    c.save()
    return buf.getvalue()


def test_text_canvas_writes_the_bytes_reportlab_writes() -> None:
    assert _canvas_pdf(TextCanvas) == _canvas_pdf(Canvas)


def _platypus_pdf(maker) -> bytes:
    buf = io.BytesIO()
    style = ParagraphStyle("p", fontName=SANS, fontSize=8, leading=10)
    story = []
    for text in TEXTS:
        story.append(Paragraph(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), style))
    rows = [[t, t[::-1], str(len(t))] for t in TEXTS]
    table = Table([["text", "reversed", "n"]] + rows, colWidths=[200, 200, 30], repeatRows=1)
    table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), SANS, 6.8), ("FONT", (0, 0), (-1, 0), BOLD, 6.8),
                               ("ALIGN", (2, 0), (2, -1), "RIGHT"), ("ALIGN", (1, 0), (1, -1), "CENTRE")]))
    story.append(table)
    SimpleDocTemplate(buf, invariant=1).build(story, canvasmaker=maker)
    return buf.getvalue()


def test_text_canvas_in_a_document_writes_the_same_bytes() -> None:
    assert _platypus_pdf(TextCanvas) == _platypus_pdf(Canvas)


def test_the_plain_path_is_taken() -> None:
    """A test of equal bytes proves nothing if the quick path never runs: it must for plain strings."""
    c = TextCanvas(io.BytesIO(), invariant=1)
    c.setFont(SANS, 7)
    before = len(c._code)
    assert c._plain_text(10, 10, "Player 1")
    assert len(c._code) == before + 1 and c._code[-1].startswith("BT 1 0 0 1 10 10 Tm ")
    c.setFont("Helvetica", 7)
    assert not c._plain_text(10, 10, "Player 1")  # a standard font: reportlab draws it


@pytest.mark.parametrize("name", [SANS, MONO])
def test_subset_font_encodes_as_reportlab_does(name: str) -> None:
    ours = pdfmetrics.getFont(name)
    assert isinstance(ours, SubsetFont) and ours._ascii_fast
    plain = TTFont(name + "-plain", ours.face.filename)

    class Doc:  # a font's state is kept per document object
        pass

    doc_ours, doc_plain = Doc(), Doc()
    for text in TEXTS * 2:
        assert ours.splitString(text, doc_ours) == TTFont.splitString(plain, text, doc_plain), text
    assert ours.state[doc_ours].subsets == plain.state[doc_plain].subsets
    assert ours.state[doc_ours].ascii_identity is True  # the quick path was open for the ASCII texts


def test_subset_font_encodes_plain_ascii_without_reportlabs_loop(monkeypatch) -> None:
    ours = pdfmetrics.getFont(SANS)

    class Doc:
        pass

    doc = Doc()

    def loop(*args, **kwargs):
        raise AssertionError("reportlab's character loop ran for plain ASCII")

    monkeypatch.setattr(TTFont, "splitString", loop)
    assert ours.splitString("Player 1: $1,234", doc) == [(0, b"Player 1: $1,234")]
    with pytest.raises(AssertionError):
        ours.splitString("Łódź", doc)  # anything else goes to reportlab


def _font_pdf(font: str) -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    for i, text in enumerate(TEXTS):
        c.setFont(font, 9)
        c.drawString(20, 760 - 12 * i, text)
    c.save()
    return buf.getvalue()


def test_subset_font_embeds_the_programs_reportlab_embeds(monkeypatch) -> None:
    """SubsetFont builds and compresses each subset's font program once per process: the second
    document takes them from memory, and every document is the one plain reportlab makes."""
    ours = pdfmetrics.getFont(SANS)
    with monkeypatch.context() as plain:  # reportlab's own way: build and compress in every document
        plain.setattr(SubsetFont, "addObjects", TTFont.addObjects)
        if "makeSubset" in ours.face.__dict__:
            plain.delitem(ours.face.__dict__, "makeSubset")
        expected = _font_pdf(SANS)
    assert b"FlateDecode" in expected
    assert _font_pdf(SANS) == expected
    assert "makeSubset" in ours.face.__dict__  # the memo is in place
    assert _font_pdf(SANS) == expected  # from the memo

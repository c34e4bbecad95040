"""A paragraph or table the reports of a turn share is drawn once per process and its code copied into
the next documents where that code is valid there (pbm.pdfcanvas.Drawing): the reports are the bytes
that drawing everything afresh gives, also when names and messages use characters whose codes differ
from one document to the next."""

from __future__ import annotations

import io

import pytest
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, Table
from sqlalchemy import select

from pbm import pdfcanvas
from pbm.db import session_scope
from pbm.fonts import BOLD, SANS
from pbm.models import Game, OrderSet, Player
from pbm.pdfcanvas import Drawing
from pbm.report import pdf
from pbm.report.render import render_turn
from tests.report.helpers import build_game

NAMES = ["Zoë Ñúñez", "Łódź", "Дмитрий", "Ελένη Παπαδοπούλου", "Jörg → Åsa – “Ünal”"]


def _reports(url: str, out) -> dict[str, bytes]:
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == "test-game"))
        humans = [p.number for p in s.scalars(select(Player).where(Player.game_id == game.id))]
        result = render_turn(s, game, players=humans, out=out, moderator=True)
    return {p.name: p.read_bytes() for p in result.paths}


def test_copied_drawings_give_the_bytes_of_fresh_ones(sqlite_url, tmp_path, monkeypatch):
    monkeypatch.setenv("PBM_RENDER_WORKERS", "1")  # one process: the copies happen between its documents
    with session_scope(sqlite_url) as s:
        build_game(s, evil=True)
        players = sorted(s.scalars(select(Player)), key=lambda p: p.number)
        for p, name in zip(players, NAMES * 3):
            p.character = f"{name} {p.number}"
        for orders in s.scalars(select(OrderSet)):
            if "message" in (orders.orders or {}) and orders.status == "accepted":
                orders.orders = {**orders.orders, "message": f"Привет ß ø {orders.player_id} → 🚂"}
    with monkeypatch.context() as fresh:
        fresh.setattr(pdf.SharedParagraph, "draw", Paragraph.draw)
        fresh.setattr(pdf.SharedTable, "draw", Table.draw)
        expected = _reports(sqlite_url, tmp_path / "fresh")
    copied = {"paragraphs": 0, "tables": 0}
    fits = Drawing.fits

    def counted(self, doc):
        ok = fits(self, doc)
        copied["tables" if any("re f" in line or " re " in line for line in self.code) else "paragraphs"] += ok
        return ok

    monkeypatch.setattr(Drawing, "fits", counted)
    got = _reports(sqlite_url, tmp_path / "copied")
    assert copied["paragraphs"] > 100 and copied["tables"] > 2, copied  # the copies were made
    assert sorted(got) == sorted(expected) and len(got) >= 4
    for name in expected:
        assert got[name] == expected[name], name


def _canvas(first: str) -> Canvas:
    c = Canvas(io.BytesIO(), invariant=1)
    c.setFont(SANS, 9)
    c.drawString(0, 0, first)  # gives the document its codes for these characters, in this order
    return c


@pytest.mark.parametrize("text", ["plain ASCII (and) \\ back", "Łódź → Дмитрий", "ß then ø"])
def test_drawing_fits_where_its_names_and_codes_are_the_same(text):
    a = _canvas("Łódź ß → Дмитрий ø")
    start = len(a._code)
    a.setFont(BOLD, 7)
    a.drawString(5, 5, "x")  # a second font: named F2 in this document
    a.setFont(SANS, 9)
    a.drawString(10, 10, text)
    drawing = Drawing.of(a._code[start:], a._doc)
    assert drawing is not None
    same = _canvas("Łódź ß → Дмитрий ø")
    same.setFont(BOLD, 7)
    same.drawString(5, 5, "y")
    assert drawing.fits(same._doc)
    other_order = _canvas("ø Дмитрий → ß Łódź")
    other_order.setFont(BOLD, 7)
    other_order.drawString(5, 5, "y")
    assert drawing.fits(other_order._doc) is text.isascii()
    no_bold_yet = _canvas("Łódź ß → Дмитрий ø")
    assert not drawing.fits(no_bold_yet._doc)  # the bold font would be named now: drawn afresh


def test_drawing_is_not_kept_for_what_it_cannot_check():
    c = _canvas("a")
    start = len(c._code)
    c.drawString(0, 0, "train 🚂")  # no glyph: code 0, the font's "missing" box in every document
    boxed = Drawing.of(c._code[start:], c._doc)
    assert boxed is not None and boxed.codes == (("PbmSans", 0, 0),) and boxed.fits(_canvas("ø")._doc)
    start = len(c._code)
    c.setFont("Helvetica", 9)
    c.drawString(0, 0, "standard font")
    assert Drawing.of(c._code[start:], c._doc) is None


def test_literal_bytes_read_what_reportlab_escapes():
    from reportlab.lib.rl_accel import escapePDF

    raw = bytes([2, 40, 41, 92, 65, 200, 127, 10, 13, 9, 255])
    assert pdfcanvas._literal_bytes(escapePDF(raw)) == raw


def test_a_shared_paragraph_split_at_a_page_end_is_drawn(monkeypatch):
    """A shared paragraph longer than a page is split by reportlab into new paragraphs made of its
    fragments (no markup): they are drawn afresh, and every document is the one drawing afresh gives."""
    from reportlab.platypus import SimpleDocTemplate, Spacer

    def build(paragraph, lead: float) -> bytes:
        buf = io.BytesIO()
        SimpleDocTemplate(buf, invariant=1).build([Spacer(1, lead), paragraph, paragraph],
                                                  canvasmaker=pdfcanvas.TextCanvas)
        return buf.getvalue()

    text = " ".join(f"Łódź → {i} naïve" for i in range(900))
    with monkeypatch.context() as fresh:
        fresh.setattr(pdf.SharedParagraph, "draw", Paragraph.draw)
        expected = [build(pdf.SharedParagraph(text, pdf.BODY), lead) for lead in (10, 10, 200)]
    shared = pdf.SharedParagraph(text, pdf.BODY)
    assert [build(shared, lead) for lead in (10, 10, 200)] == expected


def test_digest_reports_gives_the_same_bytes_in_two_processes(tmp_path):
    """scripts/digest_reports.py (the proof tool for render changes) builds a season and hashes every
    report; a second process rendering the same database hashes the same bytes."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "digest_reports.py"
    db = tmp_path / "season.db"
    runs = [subprocess.run([sys.executable, str(script), "--db", str(db), "--turns", "2"], capture_output=True,
                           text=True, check=True, cwd=tmp_path).stdout for _ in range(2)]
    lines = runs[0].splitlines()
    assert runs[0] == runs[1]
    assert len(lines) == 3 * 16 and all(len(line.split()[-1]) == 64 for line in lines)  # turns 0-2
    assert {line.split()[2] for line in lines} >= {"player-1.pdf", "player-15.pdf", "moderator.pdf"}

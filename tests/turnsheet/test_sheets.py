"""Turnsheets out (§10): the PDF form and the text form show what is allowed, and read back."""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter

from pbm.auth import turn_code
from pbm.db import session_scope
from pbm.models import Game, Player
from pbm.turnsheet.facts import sheet_facts
from pbm.turnsheet.parse import parse_pdf, parse_text
from pbm.turnsheet.pdf import render_pdf
from pbm.turnsheet.text import render_text
from tests.mail.game import SECRETS


def _facts(db_url, game, number=1):
    with session_scope(db_url) as s:
        g = s.get(Game, game.game_id)
        p = next(p for p in g.players if p.number == number)
        return sheet_facts(s, g, p), turn_code(g, number, g.turn)


def test_text_sheet_shows_limits(db_url, game):
    facts, code = _facts(db_url, game)
    text = render_text(facts)
    assert f"CODE: {code}" in text and "GAME: cr-test" in text and "TURN: 3" in text
    assert "BORROW:                            # 0 to $2,500 (available credit, §10.1A1)" in text
    assert "PC VA2:" in text and "MERGE B&O" in text  # §10.1B2c: railroads the PC may merge into
    assert "BID VA1:" in text and "asking $400 (bank)" in text and "asking $700 (player 2)" in text
    assert "max bid  144" in text  # §6.1A: 20 % of (810 issued − 0 other directors − 90 own)
    assert "MERGE:                             # you may not merge railroads this turn (§10.1E)" in text  # not joined
    assert "B&O TECHNOLOGY:                    # has none; A for $10,000 (§4.18)" in text  # Baltimore is size 4
    assert "# valid RoWs: NY2\n" in text and "# valid RoWs: NY2, PA1\n" in text  # §10.2G2
    # issue 18 item 12: each valid RoW with its two ends and its miles, so a bid is not blind
    assert "# valid RoWs: NY2, PA1\n#   NY2   Cumberland - Buffalo, 90 miles\n#   PA1   Albany - Harrisburg, 70 miles\n" in text
    assert "B&O POLITICAL:" in text and "at least $180" in text  # §10.2F2 $1/mile
    assert "blank = unchanged (now $2, §10.2H)" in text
    # the blank sheet parses to no orders and no problems
    parsed = parse_text(text.replace("SECRET:", f"SECRET: {SECRETS[1]}", 1))
    assert parsed.found and parsed.problems == []
    assert parsed.header.code == code and parsed.header.secret == SECRETS[1]


def test_player_without_railroads_and_with_bids(db_url, game):
    facts, _ = _facts(db_url, game, 2)
    text = render_text(facts)
    assert "10.2 RAILROAD" not in text
    assert "you may not merge railroads this turn" in text
    assert "BID VA3" not in text  # one's own PC is not offered to oneself
    assert "PC VA3:" in text


def test_pdf_is_deterministic_fillable_and_reads_back(db_url, game):
    facts, code = _facts(db_url, game)
    pdf = render_pdf(facts)
    assert pdf == render_pdf(facts)
    # escaped for Paragraph markup: "<of>" is drawn as text, not taken as a tag
    assert b"Countess <) Tj (of) Tj (> Rails & Co) Tj" in pdf
    # issue 18 item 12: the valid RoWs with their ends and miles
    words = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "NY2 Cumberland - Buffalo, 90 mi; PA1 Albany - Harrisburg, 70 mi" in " ".join(words.split())
    fields = PdfReader(io.BytesIO(pdf)).get_fields()
    for name in ("GAME", "PLAYER", "TURN", "CODE", "SECRET", "BORROW", "STOCK 6", "B&O BUILD", "ERIE DIVIDEND",
                 "B&O ABANDON", "MESSAGE"):
        assert name in fields, name
    assert fields["CODE"]["/V"] == code
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    values = {"SECRET": SECRETS[1], "BORROW": "1,000", "STOCK 1": "buy 10 ERIE", "B&O DIVIDEND": "4",
              "BID VA1": "500", "MESSAGE": "Hello <b>all</b> # ok", "STOCK 2": "sell lots"}
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False)
    buffer = io.BytesIO()
    writer.write(buffer)
    parsed = parse_pdf(buffer.getvalue())
    assert parsed is not None and parsed.source == "pdf"
    assert parsed.header.secret == SECRETS[1] and parsed.header.player == 1 and parsed.header.code == code
    o = parsed.orders
    assert (o.borrow, o.stock[0].railroad, o.pc_bids[0].amount, o.message) == (1000, "ERIE", 500,
                                                                               "Hello <b>all</b> # ok")
    assert o.railroads[0].dividend == 4
    (problem,) = parsed.problems
    assert problem.where == "stock 2" and problem.line is None


def test_parse_pdf_rejects_other_pdfs():
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    c = Canvas(buffer, invariant=1)
    c.drawString(100, 100, "GAME: cr-test")
    c.save()
    assert parse_pdf(buffer.getvalue()) is None
    assert parse_pdf(b"%PDF-1.4 garbage") is None
    assert parse_pdf(b"") is None


def test_cli_turnsheet(cli, game, tmp_path):
    out = tmp_path / "sheets"
    result = cli("turnsheet", "--out", str(out))
    assert "player-01.pdf" in result.stdout and "player-03.txt" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == [f"player-0{n}.{e}" for n in (1, 2, 3) for e in ("pdf", "txt")]
    result = cli("turnsheet", "--player", "2", "--format", "text", "--out", str(tmp_path / "two"))
    assert [p.name for p in (tmp_path / "two").iterdir()] == ["player-02.txt"]
    result = cli("turnsheet", "--player", "7", expect=2)
    assert "played by the computer" in result.stderr
    result = cli("turnsheet", "--format", "doc", expect=2)
    assert "unknown format 'doc'" in result.stderr
    first = (out / "player-01.pdf").read_bytes()
    cli("turnsheet", "--out", str(out))
    assert (out / "player-01.pdf").read_bytes() == first

"""The map page's legend names every railroad in full (the longest of the map, "LP&W Levenworth,
Pawnee & Western", is 131 pt at the table's 6.8 pt); a longer name is set smaller, down to 5.6 pt,
and only then cut, with an ellipsis — one line a railroad, so the page stays one page.  (Until
2026-11-25 every line was cut at 28 characters: "RF&P Richmond, Fred. & Poto", "DRGW Denver & Rio
Grande Wes".)"""

from __future__ import annotations

import io

from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth
from sqlalchemy import select

from pbm.db import session_scope
from pbm.fonts import SANS
from pbm.models import Railroad
from pbm.report.pdf import MAP_LEGEND_W, _legend_text
from tests.conftest import Cli


def _map_page(pdf: bytes) -> str:
    pages = [p.extract_text() or "" for p in PdfReader(io.BytesIO(pdf)).pages]
    [page] = [p for p in pages if "PC in play" in p]
    return page


def test_every_railroad_of_the_map_is_named_in_full_on_one_line(game_url, tmp_path):
    import csv
    from pathlib import Path

    import pbm.cr

    routes = list(csv.DictReader(open(Path(pbm.cr.__file__).parent / "data" / "routes.csv", encoding="utf-8")))
    longest = max((f"{r['code']} {r['name']}" for r in routes), key=lambda t: stringWidth(t, SANS, 6.8))
    assert longest == "LP&W Levenworth, Pawnee & Western"
    for r in routes:
        text, size = _legend_text(f"{r['code']} {r['name']}", MAP_LEGEND_W - 21)
        assert (text, size) == (f"{r['code']} {r['name']}", 6.8), r["code"]  # all of them in full, at size
    with session_scope(game_url) as s:
        names = {"B&O": "Levenworth, Pawnee & Western", "PRR": "Richmond, Fred. & Potomac",
                 "NYC": "The Very Long and Quite Improbable Name of a Railroad of the North"}
        for rr in s.scalars(select(Railroad)):
            rr.name = names[rr.code]
    Cli(game_url)("report", "--out", str(tmp_path / "r"), "--player", "1")
    pdf = (tmp_path / "r" / "test-game" / "turn-3" / "player-1.pdf").read_bytes()
    page = " ".join(_map_page(pdf).split())
    assert "B&O Levenworth, Pawnee & Western" in page
    assert "PRR Richmond, Fred. & Potomac" in page
    assert "NYC The Very Long and Quite Improbable" in page and "North" not in page  # cut, marked
    assert "…" in page


def test_legend_text_shrinks_then_cuts():
    assert _legend_text("B&O Baltimore & Ohio", 133) == ("B&O Baltimore & Ohio", 6.8)
    wide = "X" * 40
    text, size = _legend_text(wide, 133)
    assert size == 5.6 and text.endswith("…") and stringWidth(text, SANS, 5.6) <= 133
    snug = "W" * 22  # a bit too wide at 6.8 pt, fits smaller
    text, size = _legend_text(snug, 133)
    assert text == snug and 5.6 <= size < 6.8 and stringWidth(snug, SANS, size) <= 133

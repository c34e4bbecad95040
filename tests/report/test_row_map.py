"""Issue 18 item 12: the turn report's RoW page shows the code of every RoW not yet built (§2.3, §4.7), placed
so the codes can be read, and the same bytes every time."""

from __future__ import annotations

import io

from pypdf import PdfReader

from pbm.db import session_scope
from pbm.games import pick_game
from pbm.report.mapdraw import row_picture
from pbm.report.view import load_turn
from tests.conftest import Cli

TITLE = "Rights-of-way after turn"


def _row_page(pdf: bytes) -> str:
    pages = [p.extract_text() or "" for p in PdfReader(io.BytesIO(pdf)).pages]
    [page] = [p for p in pages if TITLE in p]
    return page


def test_the_report_has_a_page_with_the_codes_of_the_rows_not_yet_built(game_url, tmp_path):
    out = tmp_path / "r"
    Cli(game_url)("report", "--out", str(out), "--player", "1")
    pdf = (out / "test-game" / "turn-3" / "player-1.pdf").read_bytes()
    words = _row_page(pdf).split()
    for code in ("MD1", "NJ1", "NY1", "PA1"):  # open, and PA1 held unbuilt by the PRR
        assert code in words, code
    assert "MD2" not in words  # built: a line of the B&O, on the map page
    Cli(game_url)("report", "--out", str(tmp_path / "again"), "--player", "1")
    assert (tmp_path / "again" / "test-game" / "turn-3" / "player-1.pdf").read_bytes() == pdf


def test_on_the_whole_map_the_codes_do_not_cover_each_other(sqlite_url):
    """The real map, 300-odd RoWs at the start of a game: every code drawn, at most one pair of codes touching."""
    Cli(sqlite_url)("new-game", "continental-rails", "--name", "cr")
    with session_scope(sqlite_url) as s:
        data = load_turn(s, pick_game(s, "cr"), 0)
        rows = sorted(r.code for r in data.routes if r.kind == "RoW")
        pic = row_picture(data, 600, 470)
        assert row_picture(load_turn(s, pick_game(s, "cr"), 0), 600, 470) == pic  # placed the same every time
    assert sorted(c.text for c in pic.codes) == rows and len(rows) > 300
    codes = pic.codes
    touching = [(a.text, b.text) for i, a in enumerate(codes) for b in codes[i + 1:]
                if min(a.x + a.w, b.x + b.w) > max(a.x, b.x) and min(a.y + a.h, b.y + b.h) > max(a.y, b.y)]
    assert len(touching) <= 1, touching
    assert all(0 <= c.x and c.x + c.w <= 600 and 0 <= c.y and c.y + c.h <= 470 for c in codes)

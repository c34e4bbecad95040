"""Players' names and messages are any Unicode: every PDF pbm makes prints them (issue 14).

The reports, turnsheets and 18xx state PDFs embed DejaVu (pbm/fonts); pdftotext
(poppler, as a player's PDF viewer would) must read the names back exactly,
and an emoji the font lacks is kept as a visible box, not dropped silently.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core.game import Game as Engine18
from pbm.e18xx.pbem import games as pbem
from pbm.e18xx.render.pdf import render_pdf as render_18xx
from pbm.fonts import covered
from pbm.models import OrderSet, Player
from pbm.turnsheet.facts import SheetFacts
from pbm.turnsheet.pdf import render_pdf as render_sheet
from tests.conftest import Cli
from tests.report.helpers import build_game

NAMES = ["Zoë Ñúñez", "Łódź", "Дмитрий", "Ελένη Παπαδοπούλου"]


def pdftotext(data: bytes, tmp_path: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext (poppler-utils) is missing: ./scripts/test.sh installs it")
    src = tmp_path / "in.pdf"
    src.write_bytes(data)
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(src), "-"], capture_output=True, check=True)
    return out.stdout.decode("utf-8")


def test_the_font_covers_the_scripts_and_not_every_emoji():
    assert all(covered(n) for n in NAMES)
    assert not covered("🚂")


def test_continental_rails_report_prints_unicode_names(sqlite_url, tmp_path):
    with session_scope(sqlite_url) as s:
        build_game(s, evil=False)
        players = {p.number: p for p in s.scalars(select(Player))}
        players[1].name, players[1].character = NAMES[0], NAMES[3]
        players[2].character = NAMES[1]
        players[3].character = NAMES[2]
        for orders in s.scalars(select(OrderSet)):
            if "message" in (orders.orders or {}) and orders.status == "accepted":
                orders.orders = {**orders.orders, "message": "Привет, Łódź! 🚂"}
    out = tmp_path / "reports"
    Cli(sqlite_url)("report", "test-game", "--out", str(out), "--moderator")
    data = (out / "test-game" / "turn-3" / "player-1.pdf").read_bytes()
    text = pdftotext(data, tmp_path)
    for name in NAMES:
        assert name in text, name
    assert "Привет, Łódź!" in text
    # identical bytes on a second render (reportlab invariant mode with embedded TrueType subsets)
    Cli(sqlite_url)("report", "test-game", "--out", str(tmp_path / "again"), "--moderator")
    assert (tmp_path / "again" / "test-game" / "turn-3" / "player-1.pdf").read_bytes() == data


def test_turnsheet_prints_unicode_names(tmp_path):
    facts = SheetFacts(game="ünïcode-league", game_id=1, turn=2, year=1843, climate="Prosperity", code="ABCD",
                       player=1, character=NAMES[2], name=NAMES[0], cash=1000, loan=0, credit_available=500)
    data = render_sheet(facts)
    assert data == render_sheet(facts)
    text = pdftotext(data, tmp_path)
    assert NAMES[2] in text and "ünïcode-league" in text


def test_18xx_state_pdf_prints_unicode_names(tmp_path):
    game = Engine18("18GA", NAMES[:3] + ["Ana 🚂"], 7)
    rep = pbem.Replayed(game, game.total_cash())
    data = render_18xx(rep, "ünïcode")
    assert data == render_18xx(rep, "ünïcode")
    text = pdftotext(data, tmp_path)
    for name in NAMES[:3]:
        assert name in text, name
    assert "Ana" in text  # the emoji the font lacks is drawn as a box, the name around it prints

"""The heading of every page of the state PDF fits the page (session 13 saw a finished 18GA game's
heading run off the right edge: "game over: the bank ran out of money (rule 5(…")."""
from __future__ import annotations

import io
from types import SimpleNamespace

from reportlab.pdfbase.pdfmetrics import stringWidth

from pbm.e18xx.render.head import SIZE, SMALLEST, fitted
from pbm.e18xx.render.pdf import MARGIN, PAGE, render_pdf
from pbm.fonts import BOLD

from .helpers import playthrough_game


def _headings(data: bytes) -> list[tuple[str, float, float]]:
    """(text, x, font size) of the top line of each page."""
    from pypdf import PdfReader

    out = []
    for page in PdfReader(io.BytesIO(data)).pages:
        top: list[tuple[float, str, float, float]] = []

        def seen(text, cm, tm, font, size, top=top):
            if text.strip():
                top.append((tm[5] * cm[3] + cm[5], text, tm[4] * cm[0] + cm[4], size * tm[0]))

        page.extract_text(visitor_text=seen)
        y = max(t[0] for t in top)
        line = [t for t in top if abs(t[0] - y) < 0.5]
        out.append((" ".join(t[1].strip() for t in line), line[0][2], line[0][3]))
    return out


def test_a_short_heading_keeps_its_size_and_a_long_one_shrinks_to_fit():
    assert fitted("18GA - g - action 3", 500) == ("18GA - g - action 3", SIZE)
    long = "18GA - g - Stock Round 4 - Phase 5 (train limit 2) - action 468 - game over: " * 2
    line, size = fitted(long, 700)
    assert SMALLEST <= size < SIZE and line == " ".join(long.split())
    assert stringWidth(line, BOLD, size) <= 700


def test_a_heading_too_long_even_at_the_smallest_size_is_cut_at_a_word_with_an_ellipsis():
    words = " ".join(f"word{i}" for i in range(200))
    line, size = fitted(words, 600)
    assert size == SMALLEST and line.endswith(" …") and stringWidth(line, BOLD, size) <= 600
    assert words.startswith(line[:-2])


def test_a_finished_games_heading_is_whole_on_every_page():
    g = playthrough_game("ga", 468, seed=151, suffix="-s13w", players=4)
    assert g.finished
    data = render_pdf(SimpleNamespace(game=g, last_routes={}), "ga-w")
    heads = _headings(data)
    assert len(heads) >= 3
    for text, x, size in heads:
        assert "game over:" in text and text.rstrip().endswith(")"), text  # the reason, to its last word
        assert x + stringWidth(text, BOLD, size) <= PAGE[0] - MARGIN + 0.5, (text, size)

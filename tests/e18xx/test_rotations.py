"""Tile rotations written down (issue 29, item 4): what each side number means on each map, what
each listed lay joins, the PDF's rotation key and its page of lays grouped by hex."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from pbm.e18xx.core.game import Game
from pbm.e18xx.core.hexgrid import neighbour, to_xy
from pbm.e18xx.lays import acting_lays, joins, lays_by_hex, rotation_key, side_names
from pbm.e18xx.pbem.movelist import legal_lines
from pbm.e18xx.render.pdf import render_pdf

from .test_public_state import pdf_text
from .test_refusals_track import operating_game

# the direction of a side on the page (x right, y down) for each name
DIRECTION = {"lower left": (-1, 1), "left": (-1, 0), "upper left": (-1, -1), "upper right": (1, -1),
             "right": (1, 0), "lower right": (1, 1), "bottom": (0, 1), "top": (0, -1)}


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


@pytest.mark.parametrize("title", ["18GA", "18AL", "1848", "18VA"])
def test_side_names_match_the_map(title):
    """Each side's name is where the neighbour across it lies (the map's own coordinates)."""
    t = Game(title, ["Ann", "Bob", "Cy"]).title
    coord = next(h for h in t.hexes if all(neighbour(h, e, t.layout) in t.hexes for e in range(6)))
    x, y = to_xy(coord, t.layout)
    for e, name in enumerate(side_names(t.layout)):
        nx, ny = to_xy(neighbour(coord, e, t.layout), t.layout)
        assert (_sign(nx - x), _sign(ny - y)) == DIRECTION[name], (title, e, name)
    assert rotation_key(t.layout).startswith("Sides of a hex: 0 " + side_names(t.layout)[0])


def test_each_listed_lay_says_what_it_joins_hex_by_hex():
    g = operating_game("18GA", "GA")
    assert joins(g, "D10", "57", 2) == "city; to C9 (upper left), E11 (lower right)"
    lines = legal_lines(g)
    assert "lay 57 D10 2   # city; to C9 (upper left), E11 (lower right)" in lines
    grouped = lays_by_hex(g, acting_lays(g))
    assert grouped[0] == "D10 Augusta"
    assert "  lay 6 D10 0   # city; to E9 (lower left), C9 (upper left)" in grouped


def test_the_pdf_has_the_rotation_key_and_the_lays_by_hex():
    g = operating_game("18GA", "GA")
    text = " ".join(pdf_text(g).split())
    assert "Rotation key Sides of a hex: 0 lower left, 1 left, 2 upper left" in text
    assert "Tile lays for GA now, by hex: what each rotation joins" in text
    assert "D10 Augusta lay 5 D10 0 # city; to E9 (lower left), D8 (left)" in text
    stock = Game("18AL", ["Ann", "Bob", "Cy"])  # no company at its track step: the key, no page of lays
    text = " ".join(pdf_text(stock).split())
    assert "Sides of a hex: 0 bottom, 1 lower left" in text and "Tile lays for" not in text
    data = render_pdf(SimpleNamespace(game=g, last_routes={}), "t")
    assert data == render_pdf(SimpleNamespace(game=g, last_routes={}), "t")  # same state, same bytes


def test_a_long_list_groups_the_lays_by_hex_with_where_each_rotation_leads():
    g = operating_game("18GA", "GA")
    lines = legal_lines(g, limit=3)
    grouped = next(ln for ln in lines if ln.startswith("# and"))
    assert "as hex: tile (rotation to the hexes its track joins)" in grouped
    assert "D10 5 (" in grouped and "57 (2 to C9+E11, 5 to C9+E11)" in grouped

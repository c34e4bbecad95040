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
    assert "lay 57 D10 2 (same as 5)   # city; to C9 (upper left), E11 (lower right)" in lines
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
    assert "D10 5 (" in grouped and "57 (2=5 to C9+E11)" in grouped  # rotations laying the same track are one


def test_rotations_that_lay_the_same_track_are_one_line_and_it_is_accepted():
    """Issue 29 finding 9: tile 57 (a city on straight track) laid turned 2 or 5 is the same track;
    the list has one line for both, and that line is a move the mail accepts as written."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.moves import parse_moves

    from .test_move_lists import accepted

    g = operating_game("18GA", "GA")
    lines = legal_lines(g, limit=10 ** 6)
    assert "lay 57 D10 2 (same as 5)   # city; to C9 (upper left), E11 (lower right)" in lines
    assert not any(ln.startswith("lay 57 D10 5") for ln in lines)
    assert [ln for ln in lines if ln.startswith("lay 5 D10")] == [  # different track: a line each
        "lay 5 D10 0   # city; to E9 (lower left), D8 (left)",
        "lay 5 D10 1   # city; to D8 (left), C9 (upper left)",
        "lay 5 D10 5   # city; to E9 (lower left), E11 (lower right)"]
    assert parse_moves("lay 57 D10 2 (same as 5)", "Ann") == [A.LayTile("Ann", "D10", "57", 2)]
    assert accepted(g, "lay 57 D10 2 (same as 5)") is None
    grouped = lays_by_hex(g, acting_lays(g))
    assert "  lay 57 D10 2 (same as 5)   # city; to C9 (upper left), E11 (lower right)" in grouped
    assert len([ln for ln in grouped if "lay 57 " in ln]) == 1


def test_two_cities_are_merged_only_when_alike_and_a_reserved_home_never(monkeypatch):
    """A two-city tile turned half round swaps its cities: the same track while the cities are
    alike and empty; not when one of them holds a company's home."""
    from pbm.e18xx.core.tiles import TileDef
    from pbm.e18xx.lays import same_track, track_signature
    from pbm.e18xx.core import actions as A

    g = Game("1848", ["Ann", "Bob", "Cy"], 1)
    oo = TileDef.from_data("X", {"color": "yellow", "label": "OO", "cities": [{"revenue": 30}, {"revenue": 30}],
                                 "paths": [["e0", "c0"], ["e3", "c1"]]})
    odd = TileDef.from_data("Y", {"color": "yellow", "label": "OO", "cities": [{"revenue": 30}, {"revenue": 20}],
                                  "paths": [["e0", "c0"], ["e3", "c1"]]})
    monkeypatch.setattr(g, "title", SimpleNamespace(tiles={**g.title.tiles, "X": oo, "Y": odd}))
    assert track_signature(g, "B17", "X", 0) == track_signature(g, "B17", "X", 3)
    assert track_signature(g, "B17", "Y", 0) != track_signature(g, "B17", "Y", 3)  # unlike cities
    lays = [A.LayTile("QR", "B17", "X", r) for r in (0, 3)]
    assert [(a.rotation, o) for a, o in same_track(g, lays)] == [(0, [3])]
    g.state.map.reservations[("B17", 0)] = "QR"  # a home held in city 0
    assert track_signature(g, "B17", "X", 0) != track_signature(g, "B17", "X", 3)
    assert [(a.rotation, o) for a, o in same_track(g, lays)] == [(0, []), (3, [])]


def test_a_side_toward_a_tile_whose_track_does_not_meet_it_says_so():
    """Play-through s15 (18VA mails 61, 62, 103): 'to D9 Charlottesville' was read as joined though
    D9's tile had no track on that side, and three routes were refused.  A side toward a laid tile
    whose track does not come to it now says so; a side toward a tile that meets it says nothing more."""
    from pbm.e18xx.core.hexgrid import opposite
    from pbm.e18xx.core.track import Placed

    g = operating_game("18GA", "GA")
    m = g.state.map
    c9_edge = next(e for e in range(6) if neighbour("D10", e, g.title.layout) == "C9")
    seven = g.title.tiles["7"]
    away = next(r for r in range(6) if opposite(c9_edge) not in seven.exits(r))
    facing = next(r for r in range(6) if opposite(c9_edge) in seven.exits(r))
    m.placed["C9"] = Placed(seven, "7-0", away)
    assert joins(g, "D10", "57", 2) == ("city; to C9 (upper left, but C9's track does not meet this side), "
                                        "E11 (lower right)")
    m.placed["C9"] = Placed(seven, "7-0", facing)
    assert joins(g, "D10", "57", 2) == "city; to C9 (upper left), E11 (lower right)"


def test_a_side_toward_printed_track_that_does_not_meet_it_says_so():
    """Play-through s15c (18VA seed 214): B&O's first tile was listed 'lay 57 H3 0 # city; to H5 Annapolis
    (bottom), H1 Philadelphia (top)'; Annapolis's printed track does not face Baltimore, so the tile led
    nowhere there. Printed track that does not meet the side is said as a laid tile's is."""
    from pbm.e18xx.core.hexgrid import opposite

    g = Game("18VA", ["Ann", "Bob", "Cy"], 214, ())
    pl = g.state.map.placed["H5"]
    edge = next(e for e in range(6) if neighbour("H3", e, g.title.layout) == "H5")
    assert pl.tile_id is None and pl.tile.exits(pl.rotation) and opposite(edge) not in pl.tile.exits(pl.rotation)
    assert "H5 Annapolis (bottom, but H5's track does not meet this side)" in joins(g, "H3", "57", 0)

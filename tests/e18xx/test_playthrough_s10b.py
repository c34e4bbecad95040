"""Play-through by mail s10b (issue 29 acceptance): defects met, each with the mail text seen."""
from pbm.e18xx.pbem.movelist import _group_line


def test_grouped_lays_of_a_tile_with_several_stops_keep_each_stops_hexes():
    """1848, CAR's list (finding 8): a lay line of a two-town tile carries each town's value
    ("town 0 (D3-0, £10) to ..."), and the grouped comment line cut it at the comma:
    "D3 2 (2 to C2+E4+£10)+D5, ...", "G10 59 (3 to F11+£40), ...". Each stop's hexes are kept,
    stops separated by '/', and a stop with no track yet adds nothing."""
    lines = [
        "lay 2 D3 2   # town 0 (D3-0, £10) to C2 (upper left), E4 Port Augusta (lower right); "
        "town 1 (D3-1, £10) to D5 (right), E2 Whyalla (lower left)",
        "lay 59 G10 3   # city 0 (G10-0, £40) to F11 (upper right); city 1 (G10-1, £40) no track yet",
        "lay 5 G6 2   # city; to F5 Port Pirie (upper left), F7 (upper right)",
        "lay 57 E4 1 (same as 4)   # city; to E2 Whyalla (left), E6 (right)",
    ]
    got = _group_line("lay_tile", lines)
    spots = got.partition("): ")[2]
    assert "£" not in spots and spots.count("(") == spots.count(")")
    assert "D3 2 (2 to C2+E4/D5+E2)" in spots
    assert "G10 59 (3 to F11)" in spots
    assert "G6 5 (2 to F5+F7)" in spots
    assert "E4 57 (1=4 to E2+E6)" in spots

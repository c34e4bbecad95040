"""18VA 4.4: "The President then places the Corporation's base token in the appropriate home
station hex" -- as the company starts, not at its first operating turn (issue 28)."""
from __future__ import annotations

from pbm.e18xx.core import actions as A

from .test_18va import auction_to_stock, new_game


def test_base_token_goes_down_when_the_company_starts():
    g = new_game()
    auction_to_stock(g)  # the B&O is started by its presidency's buyer
    s = g.state
    assert s.round.kind == "stock"
    assert s.corporations["B&O"].tokens[0] == ("H3", 0) and s.map.tokens[("H3", 0)] == ["B&O"]
    first = g.current_entity()
    g.process(A.Par(first, "VR", 82))
    assert s.round.kind == "stock"  # no operating turn yet
    assert s.corporations["VR"].tokens[0] == ("C12", 0) and s.map.tokens[("C12", 0)] == ["VR"]
    assert ("C12", 0) not in s.map.reservations
    assert any("VR places its home token in C12" in line for line in g.state.log[-3:])
    # Lynchburg's one circle is VR's: another company may not run through it from now on
    assert s.map.blocks(("C12", 0), "B&O") and not s.map.blocks(("C12", 0), "VR")


def test_a_company_not_started_keeps_only_its_reserved_circle():
    g = new_game()
    auction_to_stock(g)
    s = g.state
    assert s.map.tokens[("C12", 0)] == [None] and s.map.reservations[("C12", 0)] == "VR"
    assert not s.map.blocks(("C12", 0), "B&O")

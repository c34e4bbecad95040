"""The company's reach is walked as its trains run, route by route (issue 28).

18GA/18AL 4.2.1(j): "Each tile laid must contain either some newly added track that is connected
to an existing station of the corporation, or a city which is connected to an existing station of
the corporation. The connection is traced as if you were running a train (with no limit on the
number of cities it can visit); thus it may not backtrack at a fork, and may not run through a red
area or through a city whose circles are all occupied by stations of other corporations."
18AL 4.2.2(a) (stations): "The connection is traced as if you were running a train".
A train uses a piece of track once (18AL 4.2.3(j) "no two trains may use a single section of
track, no matter how short" - the less so one train twice).  pbm's walk took each piece of track
once in each direction over the whole walk, so a side reached only by running a loop and back
along track already used counted as connected: the referee (18xx.games) refused such lays in 18GA
and 18AL games played by pbm's computer players and by random legal moves.
"""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalTile
from pbm.e18xx.core.hexgrid import neighbour, opposite

from .test_illegal import refused
from .test_refusals_track import HOMES, lays, operating_game, put


def _pairs(td, rot) -> set[frozenset]:
    return {frozenset((a[1], b[1])) for a, b in td.rotated_paths(rot)}


def _tile_for(t, supply, colour: str, want: set[frozenset]):
    """A plain unlabelled tile of ``colour`` and a rotation whose track is exactly ``want``."""
    for name, td in t.tiles.items():
        if td.color != colour or td.nodes or td.label or not supply.get(name):
            continue
        for rot in range(6):
            if _pairs(td, rot) == want:
                return name, rot
    return None


def loop_case(title: str):
    """The company's track leaves its home city by side ``s`` into a plain hex N (entering by
    side a), forks there into a-b and a-c (b, c neighbouring sides), and the two hexes beyond b
    and c are joined by curves: a loop back into N.  Every route from home has used N's side a
    (and b or c) by the time it is back in N, so track b-c on N can never be run onto; track from
    b or c to a new side can (in by c, out by the new side).  Returns the game, company, N, the
    brown upgrades adding only b-c and those adding track to a new side."""
    for corp in [HOMES[title]] + sorted(operating_game(title, HOMES[title]).state.corporations):
        got = _loop_case(title, corp)
        if got:
            return got
    raise AssertionError(f"no loop case in {title}")


def _loop_case(title: str, corp: str):
    g = operating_game(title, corp, phase_colour="brown")
    t, m = g.title, g.state.map
    home = g.state.corporations[corp].home
    supply = g.state.tile_supply
    named = t.data.get("location_names", {})

    def plain(h: str) -> bool:
        hd = t.hexes.get(h)
        return hd is not None and hd.color == "white" and not hd.tile.nodes and h not in named and h in m.placed

    if not home or not m.tile(home).cities():
        return None
    yellow_city = [n for n, td in t.tiles.items() if td.color == "yellow" and td.count_kind("city") == 1
                   and not td.label and td.count_kind("town") == 0 and supply.get(n)]
    printed = m.placed[home]
    homes = [(None, 0)] if printed.tile.paths else lays(g, corp, home, yellow_city)
    for city, crot in homes:
        exits = t.tiles[city].exits(crot) if city else printed.tile.exits(printed.rotation)
        for s in sorted(exits):
            n = neighbour(home, s, t.layout)
            if not plain(n):
                continue
            a = opposite(s)
            for b in range(6):
                c = (b + 1) % 6
                if a in (b, c):
                    continue
                x, y = neighbour(n, b, t.layout), neighbour(n, c, t.layout)
                if not (plain(x) and plain(y)):
                    continue
                xy = next(e for e in range(6) if neighbour(x, e, t.layout) == y)
                fork = _tile_for(t, supply, "green", {frozenset((a, b)), frozenset((a, c))})
                cx = _tile_for(t, supply, "yellow", {frozenset((opposite(b), xy))})
                cy = _tile_for(t, supply, "yellow", {frozenset((opposite(xy), opposite(c)))})
                if not (fork and cx and cy):
                    continue
                old = _pairs(t.tiles[fork[0]], fork[1])
                only_loop, onward = [], []
                for name, td in t.tiles.items():
                    if td.color != "brown" or td.nodes or td.label or not supply.get(name):
                        continue
                    for rot in range(6):
                        pairs = _pairs(td, rot)
                        if not old <= pairs or any(m.neighbour_on_map(n, e) is None for e in td.exits(rot)):
                            continue
                        added = pairs - old
                        if added == {frozenset((b, c))}:
                            only_loop.append((name, rot))
                        elif any(p - {a, b, c} for p in added):
                            onward.append((name, rot))
                if only_loop and onward:
                    if city:
                        put(g, home, city, crot)
                    put(g, n, *fork)
                    put(g, x, *cx)
                    put(g, y, *cy)
                    return g, corp, n, only_loop, onward
    return None


@pytest.mark.parametrize("title", ["18GA", "18AL"])
def test_4_2_1_j_new_track_reached_only_by_using_track_twice_is_refused(title):
    """The 18GA random game (seed 9) case: GA's track from Augusta (D10) forks at E9 (tile 24,
    3-0 and 3-5) into a loop through F8 and F10; tile 42 adds only 0-5, which a train from Augusta
    reaches only after using E9's side 0 or 5 already: refused; listed never.  Upgrades that add
    track to a new side are connected (in by one end of the loop, out by the new side)."""
    g, corp, coord, only_loop, onward = loop_case(title)
    for name, rot in only_loop:
        refused(g, A.LayTile(corp, coord, name, rot), IllegalTile,
                f"4.2.1(j): tile {name} rotation {rot} on {coord} adds no track connected to {corp}'s stations")
    for name, rot in onward:
        g.check_lay(corp, coord, name, rot)
    listed = {(a.tile, a.rotation) for a in g.legal_actions() if isinstance(a, A.LayTile) and a.hex == coord}
    assert listed and not listed & set(only_loop)
    assert set(onward) <= listed


def test_18ga_the_seed_9_loop_in_place():
    """The exact tiles of the 18GA random game, 3 players, seed 9, before action 656 (where pbm
    listed 42 on E9 rotation 0)."""
    g = operating_game("18GA", "GA", phase_colour="brown")
    put(g, "D10", "6", 0)  # Augusta, GA's home: sides 0 (to E9) and 2
    put(g, "E9", "24", 3)  # 3-0 and 3-5: the fork at side 3, facing Augusta
    put(g, "F8", "44", 0)  # 3-4 among others: E9's side 0 to F10
    put(g, "F10", "7", 1)  # 1-2: from F8 back into E9's side 5
    refused(g, A.LayTile("GA", "E9", "42", 0), IllegalTile,
            "4.2.1(j): tile 42 rotation 0 on E9 adds no track connected to GA's stations and has no city "
            "connected to them (the connection is traced as a train runs: it may not back up at a fork or use "
            "a piece of track twice)")
    g.check_lay("GA", "E9", "47", 5)  # adds 0-2 and 5-2: in from F8 by side 0, out by side 2


def test_18al_a_city_reached_only_by_running_back_along_used_track_takes_no_station():
    """18AL 4.2.2(a), the computer game 4 players seed 7 (LN_home_city_moved), action 301: TAG's
    track from Gadsden (E6) reaches E4 by side 4 and leaves by side 1 (tile 27: 1-4 and 1-2, a fork
    at side 1); D3 and Tuscaloosa (C4) hang off 1-2.  The only way back into E4's side 1 is round
    through Guntersville's hexes and back along F3 - the same track twice.  pbm offered TAG a
    station in C4."""
    g = operating_game("18AL", "TAG", phase_colour="green")
    for coord, tile, rot in [("E6", "14", 0), ("C6", "142", 1), ("D5", "23", 4), ("E4", "27", 1),
                             ("F3", "8", 2), ("E2", "23", 5), ("D1", "7", 4), ("C2", "142", 1),
                             ("D3", "7", 4), ("C4", "14", 0)]:
        put(g, coord, tile, rot)
    nodes = g._reach("TAG")[1]
    assert ("C2", 0) in nodes and ("C4", 0) not in nodes
    assert ("C4", 0) not in g.tokenable_cities("TAG")
    with pytest.raises(GameError) as e:
        g._place_token("TAG", A.PlaceToken("TAG", "C4"))
    assert "4.2.2(a): TAG's track does not reach it (traced as a train runs" in str(e.value)

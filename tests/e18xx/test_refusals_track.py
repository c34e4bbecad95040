"""Refusals of tile lays, station tokens and routes: each names the rule that forbids the move.

Rule sections: 18GA/18AL 4.2.1 (a)-(k), 4.2.2 (a)-(c), 4.2.3 (a)-(j); 1848 7.4, 7.5, 7.7, 10.1;
18VA 4.5.2.1, 4.5.3, 4.5.5 (title data ``track_refs``).
"""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalTile
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.hexgrid import neighbour, opposite
from pbm.e18xx.core.state import RoundState

from .test_illegal import refused

HOMES = {"18GA": "GA", "18AL": "TAG", "1848": "CAR", "18VA": "C&O"}


def operating_game(title: str, corp: str, cash: int = 1000, phase_colour: str = "yellow") -> Game:
    """``corp`` of ``title`` floated and operating, its home station down, in the first phase
    that has ``phase_colour`` tiles; the privates closed (out of the way)."""
    g = Game(title, ["Ann", "Bob", "Cy"])
    s = g.state
    for comp in s.companies.values():
        comp.closed = True
    c = s.corporations[corp]
    c.ipoed = c.floated = True
    c.par = (2, 3)
    g._set_price(c, (2, 3))
    g.move_share(f"{corp}_0", "P:Ann")
    g.transfer("bank", c.key, cash)
    s.phase = next(i for i, p in enumerate(g.title.phases) if phase_colour in p.tiles)
    s.round = RoundState("operating", [corp])
    g._start_corp_turn()
    return g


def put(g: Game, coord: str, tile: str, rot: int) -> None:
    g._put_tile(coord, tile, min(g.state.tile_supply[tile]), rot, "test")


def lays(g: Game, corp: str, coord: str, tiles) -> list[tuple[str, int]]:
    out = []
    for name in tiles:
        for rot in range(6):
            try:
                g.check_lay(corp, coord, name, rot)
                out.append((name, rot))
            except GameError:
                pass
    return out


def fork_case(title: str):
    """A game of ``title`` where the company's track runs from its home city into a plain hex N
    (entering by side ``a``, on a yellow tile a-b) and stops there; then the green upgrades of
    N that keep a-b, split into those adding track from side a (which a train from home can
    run onto) and those adding track only from side b or new sides (reached only by backing
    up at the fork at b)."""
    for corp in [HOMES[title]] + sorted(Game(title, ["Ann", "Bob", "Cy"]).state.corporations):
        got = _fork_case(title, corp)
        if got:
            return got
    raise AssertionError(f"no fork case found in {title}")


def _fork_case(title: str, corp: str):
    probe = operating_game(title, corp, phase_colour="green")
    t = probe.title
    home = probe.state.corporations[corp].home
    if not home or not probe.state.map.tile(home).cities():
        return None
    supply = probe.state.tile_supply
    yellow_city = [n for n, td in t.tiles.items() if td.color == "yellow" and td.count_kind("city") == 1
                   and not td.label and td.count_kind("town") == 0 and supply.get(n)]
    plain_yellow = [n for n, td in t.tiles.items() if td.color == "yellow" and not td.nodes and len(td.paths) == 1
                    and supply.get(n)]
    green_plain = [n for n, td in t.tiles.items() if td.color == "green" and not td.nodes and not td.label
                   and supply.get(n)]
    named = t.data.get("location_names", {})
    for city, crot in ([(None, 0)] if probe.state.map.tile(home).paths else lays(probe, corp, home, yellow_city)):
        g = operating_game(title, corp, phase_colour="green")
        m = g.state.map
        if city is not None:
            put(g, home, city, crot)
        for side in sorted(m.tile(home).exits(m.placed[home].rotation)):
            nb = neighbour(home, side, t.layout)
            hd = t.hexes.get(nb)
            if hd is None or hd.color != "white" or hd.tile.nodes or hd.cost or nb in named:
                continue
            a = opposite(side)
            for name, rot in lays(g, corp, nb, plain_yellow):
                (e1, e2), = [(p[0][1], p[1][1]) for p in t.tiles[name].rotated_paths(rot)]
                if a not in (e1, e2):
                    continue
                b = e2 if e1 == a else e1
                far = neighbour(nb, b, t.layout)
                if far not in t.hexes or t.hexes[far].color != "white" or t.hexes[far].tile.nodes:
                    continue
                near, back = [], []
                for gname in green_plain:
                    gd = t.tiles[gname]
                    for grot in range(6):
                        pairs = {frozenset((p[0][1], p[1][1])) for p in gd.rotated_paths(grot)}
                        if frozenset((a, b)) not in pairs:
                            continue
                        if any(m.neighbour_on_map(nb, e) is None for e in gd.exits(grot)):
                            continue
                        added = pairs - {frozenset((a, b))}
                        (near if any(a in p for p in added) else back).append((gname, grot))
                if near and back:
                    put(g, nb, name, rot)
                    return g, corp, nb, near, back
    return None


@pytest.mark.parametrize("title,rule", [("18GA", "4.2.1(j)"), ("18AL", "4.2.1(j)")])
def test_upgrade_whose_new_track_is_reached_only_backing_up_at_a_fork_is_refused(title, rule):
    """18GA/18AL 4.2.1(j): the connection "is traced as if you were running a train ... it may not
    backtrack at a fork".  (18VA 4.5.2.1, "the new track created must extend a legal route", is
    checked the same way, but its green plain tiles are junctions: every new side joins the side
    the track came in by, so no such case arises there.)"""
    g, corp, coord, near, back = fork_case(title)
    for name, rot in near:
        g.check_lay(corp, coord, name, rot)  # a branch from the side the company's track comes in by
    for name, rot in back:
        with pytest.raises(IllegalTile) as e:
            g.check_lay(corp, coord, name, rot)
        assert str(e.value).startswith(f"{rule}: tile {name} rotation {rot} on {coord} adds no track connected")
        assert "back up at a fork" in str(e.value)
    listed = {(a.tile, a.rotation) for a in g.legal_actions() if isinstance(a, A.LayTile) and a.hex == coord}
    assert listed and not listed & set(back)


def test_1848_upgrade_need_not_add_usable_track():
    """1848 7.5.1: "It is not necessary for the new track on the tile to be usable by the company";
    7.5.3: the tile must contain track along which the company could run a train (the old track)."""
    g, corp, coord, near, back = fork_case("1848")
    for name, rot in near + back:
        g.check_lay(corp, coord, name, rot)


def test_18ga_fork_upgrade_refused_through_process():
    """The issue's case in small: GA's track enters C9 from Augusta; tile 23 turned so that its new
    track leaves from the far end of the old straight is refused, the state untouched."""
    g = operating_game("18GA", "GA", phase_colour="green")
    put(g, "D10", "57", 2)  # Augusta: exits to C9 (side 2) and E11 (side 5)
    put(g, "C9", "9", 2)  # straight 5-2: enters from Augusta by side 5
    refused(g, A.LayTile("GA", "C9", "23", 2), IllegalTile, "4.2.1(j): tile 23 rotation 2 on C9 adds no track")
    g.process(A.LayTile("GA", "C9", "23", 5))  # the branch from side 5: a train from Augusta runs onto it
    assert g.state.map.placed["C9"].tile.name == "23"


def test_connection_is_traced_both_ways_along_a_loop():
    """A piece of track walked one way may be needed the other way: the reach walks each piece in
    each direction (a loop back into a hex reaches its far side from outside)."""
    from pbm.e18xx.core.track import TrackGraph
    g = operating_game("18GA", "GA", phase_colour="green")
    put(g, "D10", "57", 2)
    put(g, "C9", "9", 2)
    hexes, nodes, entries = TrackGraph(g.state.map).reach("GA", g.state.map.token_cities("GA"))
    assert set(entries["C9"]) == {("e", 5)}  # entered from Augusta only, having used nothing of C9
    assert entries["C9"][("e", 5)] == {(0, 0)}
    assert hexes["C9"] == {2, 5}


# ------------------------------------------------------- 18GA 4.2.1: every forbidding rule
def ga_game(**kw) -> Game:
    return operating_game("18GA", "GA", **kw)


def test_4_2_1_a_tile_colour_by_phase():
    refused(ga_game(), A.LayTile("GA", "D10", "14", 0), IllegalTile,
            "4.2.1(a): green tiles are not available in Phase 2")


def test_4_2_1_b_no_tile_left():
    g = ga_game()
    g.state.tile_supply["57"] = []
    refused(g, A.LayTile("GA", "D10", "57", 2), IllegalTile, "4.2.1(b): no tile 57 is left")


def test_4_2_1_c_colour_order_and_red_areas():
    g = ga_game()
    put(g, "D10", "57", 2)
    put(g, "C9", "9", 2)
    refused(g, A.LayTile("GA", "C9", "9", 2), IllegalTile, "4.2.1(c): tile 9 rotation 2 on C9: a yellow hex takes a green tile")
    refused(g, A.LayTile("GA", "B10", "57", 0), IllegalTile, "4.2.1(c): tile 57 rotation 0 on B10: a red hex cannot be changed")


def test_4_2_1_d_cities_and_e_towns_match():
    g = ga_game()
    refused(g, A.LayTile("GA", "D10", "7", 0), IllegalTile, "4.2.1(d): tile 7 rotation 0 on D10: the tile must have 1 city(s)")
    refused(g, A.LayTile("GA", "E7", "7", 0), IllegalTile, "4.2.1(e): tile 7 rotation 0 on E7: the tile must have 1 town(s)")


def test_4_2_1_f_terrain_cost_paid_from_the_treasury():
    g = ga_game()
    put(g, "D10", "57", 2)
    put(g, "C9", "9", 2)  # Augusta to B8 (river: $60)
    g.state.cash["C:GA"] = 50
    ok = lays(g, "GA", "B8", ["9", "8", "7"])
    assert not ok
    g.state.cash["C:GA"] = 60
    name, rot = lays(g, "GA", "B8", ["9", "8", "7"])[0]
    g.state.cash["C:GA"] = 50
    from pbm.e18xx.core.errors import InsufficientFunds
    refused(g, A.LayTile("GA", "B8", name, rot), InsufficientFunds, "4.2.1(f): B8 costs 60 to build on; GA has 50")


def test_4_2_1_g_labels():
    g = ga_game()
    refused(g, A.LayTile("GA", "D10", "451a", 0), IllegalTile, "4.2.1(g): tile 451a rotation 0 on D10: a tile labelled ATL goes only in the hex it names")


def test_4_2_1_h_old_track_kept():
    g = ga_game(phase_colour="green")
    put(g, "D10", "57", 2)
    put(g, "C9", "9", 2)
    refused(g, A.LayTile("GA", "C9", "23", 0), IllegalTile, "4.2.1(h): tile 23 rotation 0 on C9: old track between edges 2 and 5 is not kept")


def test_4_2_1_i_no_track_off_the_map():
    refused(ga_game(), A.LayTile("GA", "D10", "57", 0), IllegalTile,
            "4.2.1(i): tile 57 rotation 0 on D10: track would run off the map or into a blank side (edge 3)")


def test_4_2_1_j_connected_to_a_station():
    refused(ga_game(), A.LayTile("GA", "E5", "9", 1), IllegalTile, "4.2.1(j): E5 is not connected to GA's stations")
    g = ga_game()
    put(g, "D10", "57", 2)
    refused(g, A.LayTile("GA", "E9", "9", 0), IllegalTile, "4.2.1(j): E9 is not connected to GA's stations")


def test_4_2_1_k_a_players_private_blocks_its_hex():
    g = ga_game()
    mrc = g.state.companies["MRC"]
    mrc.closed, mrc.owner = False, "P:Bob"
    refused(g, A.LayTile("GA", "F12", "8", 0), IllegalTile, "4.2.1(k): F12 is blocked by MRC while a player owns it")


# ------------------------------------------------------- 18GA 4.2.2: stations
def stations_game():
    """GA with a second station in Columbus (G3), track from there into Albany (H4), the home of
    G&F, not yet started: its one circle is kept for G&F."""
    g = ga_game()
    m = g.state.map
    ga = g.state.corporations["GA"]
    m.tokens[("G3", 0)] = ["GA"]
    ga.tokens[1] = ("G3", 0)
    for coord, side in (("G3", 5), ("H4", 2)):  # G3's side 5 faces H4, H4's side 2 faces G3
        rot = next(r for r in range(6) if side in g.title.tiles["57"].exits(r))
        put(g, coord, "57", rot)
    return g


def test_4_2_2_stations_refused_with_the_rule():
    g = stations_game()

    def refusal(city: str) -> str:
        with pytest.raises(GameError) as e:
            g._place_token("GA", A.PlaceToken("GA", city))
        return str(e.value)

    assert "GA cannot place a token in H4: 4.2.2(c): the last open circle is kept for G&F's home station" \
        in refusal("H4")
    assert "4.2.2(b): GA already has a station in D10" in refusal("D10")
    # C3 (Rome) has no tile: the refusal says so (18AL play-through s16 mail 42)
    assert "4.2.2(a): GA's track does not reach it: C3 Rome has no tile yet" in refusal("C3")
    g.state.map.reservations.pop(("H4", 0))
    g.state.cash["C:GA"] = 10
    from pbm.e18xx.core.errors import InsufficientFunds
    with pytest.raises(InsufficientFunds) as e:
        g._place_token("GA", A.PlaceToken("GA", "H4"))
    assert "4.2.2: the next token costs" in str(e.value)
    ga = g.state.corporations["GA"]
    ga.tokens = [k or ("X", 0) for k in ga.tokens]
    with pytest.raises(GameError) as e:
        g._place_token("GA", A.PlaceToken("GA", "H4"))
    assert "4.2.2: GA has no tokens left" in str(e.value)


@pytest.mark.parametrize("title,colour_ref,connected_ref", [
    ("18AL", "4.2.1(a)", "4.2.1(j)"), ("1848", "7.5.2", "7.4.1, 7.5.3"), ("18VA", "4.5.2.1", "4.5.2.1")])
def test_each_title_names_its_own_sections(title, colour_ref, connected_ref):
    """The same refusals in each book's words: a tile colour not yet available, a hex the company
    does not reach (1848 7.4.1: "The newly laid tile must lead away from one of the company's
    station tokens"; 18VA 4.5.2.1: "the new track created must extend a legal route")."""
    corp = HOMES[title]
    g = operating_game(title, corp)
    t = g.title
    green = next(n for n, td in t.tiles.items() if td.color == "green" and g.state.tile_supply.get(n))
    msg = str(pytest.raises(IllegalTile, g.check_lay, corp, g.state.corporations[corp].home, green, 0).value)
    assert msg.startswith(f"{colour_ref}: green tiles are not available in {g.title.in_phase(0)[3:]}"), msg
    hexes, _ = g._reach(corp)
    far = next(h for h, hd in t.hexes.items() if hd.color == "white" and not hd.tile.nodes and not hd.cost
               and h not in hexes)
    plain = next(n for n, td in t.tiles.items() if td.color == "yellow" and not td.nodes)
    for rot in range(6):
        try:
            g.check_lay(corp, far, plain, rot)
        except IllegalTile as e:
            if "not connected" in str(e):
                assert str(e).startswith(f"{connected_ref}: {far} is not connected to {corp}'s stations")
                break
    else:
        pytest.fail(f"no lay on {far} was refused as unconnected")


@pytest.mark.parametrize("title,refs", [
    ("18AL", {"supply": "4.2.1(b)", "colour": "4.2.1(c)", "cities": "4.2.1(d)", "off_map": "4.2.1(i)"}),
    ("1848", {"supply": "", "colour": "7.5.1", "cities": "7.4.6", "off_map": "7.4.7"}),
    ("18VA", {"supply": "", "colour": "4.5.2.1", "cities": "4.5.2.1", "off_map": "4.5.2.1"}),
])
def test_tile_rules_of_each_title_named(title, refs):
    """18AL 4.2.1 (b) tiles in the supply, (c) yellow only on an empty hex, (d) a city tile on a
    city, (i) no track off the map; 1848 7.5.1, 7.4.6, 7.4.7; 18VA 4.5.2.1 -- each refusal names
    its section."""
    corp = HOMES[title]
    g = operating_game(title, corp)
    home = g.state.corporations[corp].home

    def why(coord, tile, rot) -> str:
        with pytest.raises(GameError) as e:
            g.check_lay(corp, coord, tile, rot)
        return str(e.value)

    def pre(key):
        return f"{refs[key]}: " if refs[key] else ""

    plain = next(n for n, td in g.title.tiles.items() if td.color == "yellow" and not td.nodes)
    if g.state.map.tile(home).count_kind("city") and not g.state.map.tile(home).paths:
        assert why(home, plain, 0).startswith(f"{pre('cities')}tile {plain} rotation 0 on {home}: the tile must have 1 city")
    lay = next(a for a in g.legal_actions() if isinstance(a, A.LayTile))
    off = []
    for coord, hd in g.title.hexes.items():  # a plain tile on an empty hex, turned to run off the map
        if hd.color != "white" or hd.tile.nodes or off:
            continue
        for r in range(6):
            try:
                g.check_lay(corp, coord, plain, r)
            except GameError as e:
                if "off the map" in str(e):
                    off.append(str(e))
    assert off and all(m.startswith(f"{pre('off_map')}tile ") for m in off), off[:2]
    g.state.tile_supply[lay.tile] = []
    assert refused(g, lay, IllegalTile) == f"{pre('supply')}no tile {lay.tile} is left"
    g = operating_game(title, corp)
    g.process(lay)
    g.state.round.tile_lays = 0  # as on a later turn
    assert why(lay.hex, lay.tile, lay.rotation).startswith(
        f"{pre('colour')}tile {lay.tile} rotation {lay.rotation} on {lay.hex}: a yellow hex takes a green tile")


def test_a_station_named_when_none_is_possible_this_turn_says_why():
    """Mailed at the track step: the token step will be skipped (nothing possible), so "not now"
    would mislead; the refusal names the rule that forbids each city instead."""
    from pbm.e18xx.core.errors import IllegalAction
    g = stations_game()
    assert "place_token" not in g.or_actions("GA")
    refused(g, A.PlaceToken("GA", "H4"), IllegalAction,
            "GA may place no station this turn: H4: 4.2.2(c): the last open circle is kept for G&F's home station")
    refused(g, A.PlaceToken("GA", "C3"), IllegalAction, "GA may place no station this turn: C3: 4.2.2(a): GA's track")
    refused(g, A.PlaceToken("GA", "G3"), IllegalAction, "G3: 4.2.2(b): GA already has a station in G3")

"""Routes as a player writes them (issue 29, item 4): a hex (or a place) with one stop names
that stop, and a refused route says which part fails and why, naming the rule (18AL 4.2.3)."""
from __future__ import annotations

import copy

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalRoute
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.moves import play_text
from pbm.e18xx.routes import resolve_stops

from .test_refusals_track import operating_game, put
from .test_rule_examples import give_train


def wra_at_its_run(trains=("2-0",)) -> Game:
    """18AL: WRA's station in Montgomery (L5, tile 57 towards Selma K4), its trains, at the run."""
    g = operating_game("18AL", "WRA")
    for t in trains:
        give_train(g, "WRA", t)
    g.process(A.LayTile("WRA", "L5", "57", 2))  # exits to K4 (side 2) and M6 (side 5)
    while "run_routes" not in g.or_actions("WRA"):
        g.process(A.Pass("WRA"))
    return g


def ran(g: Game, text: str) -> str:
    h = copy.deepcopy(g)
    play_text(h, "Ann", text)
    return next(line for line in reversed(h.state.log) if " runs for " in line)


def refusal(g: Game, text: str) -> str:
    h = copy.deepcopy(g)
    with pytest.raises(GameError) as e:
        play_text(h, "Ann", text)
    return str(e.value)


def test_a_hex_with_one_city_names_that_city():
    g = wra_at_its_run()
    assert ran(g, "run 2-0 L5 K4") == ran(g, "run 2-0 L5-0 K4-0") == "WRA runs for 40: 2-0: L5-K4 (40)"
    assert ran(g, "run 2-0 montgomery selma") == "WRA runs for 40: 2-0: L5-K4 (40)"  # places by name
    assert ran(g, "run 2-0 k4 l5") == "WRA runs for 40: 2-0: L5-K4 (40)"


def test_refused_routes_say_which_part_fails_and_why():
    g = wra_at_its_run(("2-0", "2-1"))
    assert refusal(g, "run 2-0 L5 G6").endswith(
        "train 2-0 cannot run L5-0 G6-0: 4.2.3(a): not connected between L5-0 and G6-0: "
        "no track joins them without another stop between")
    assert "train 2-0 cannot run L5-0 K4-0 G6-0: 4.2.3(i): too long: 3 cities and off-boards for a train of 2" \
        in refusal(g, "run 2-0 L5 K4 G6")
    assert "train 2-1 cannot run L5-0 K4-0: 4.2.3(j): the track between L5-0 and K4-0 is already used by train " \
           "2-0 at K4, L5" in refusal(g, "run 2-0 L5 K4; 2-1 L5 K4")
    assert "4.2.3(f): none of its stops holds a station of WRA" in refusal(g, "run 2-0 K4 G6")
    assert "4.2.3(g): L5-0 is visited twice" in refusal(g, "run 2-0 L5 K4 L5")
    assert "'ZZ9' is not a stop" in refusal(g, "run 2-0 L5 ZZ9")
    # a word that is no stop is quoted as a player writes it, not in the parser's capitals (s16c, s16d)
    assert "'Nowhere' is not a stop" in refusal(g, "run 2-0 L5 nowhere")
    assert "L5-3: L5 has no stop 3 (L5-0 a city with track to K4, M6)" in refusal(g, "run 2-0 L5-3 K4")


def test_blocked_at_a_full_city_names_the_station():
    g = wra_at_its_run(("3-0",))
    g.state.map.tokens[("K4", 0)] = ["ABC"]  # Selma's one circle taken by ABC
    g.state.map.version += 1
    g._graph = None
    msg = refusal(g, "run 3-0 L5 K4 G6")
    assert "train 3-0 cannot run L5-0 K4-0 G6-0: 4.2.3(e): blocked at K4-0 by ABC's station (every circle taken)" in msg


def test_a_hex_of_several_stops_asks_which():
    g = Game("1848", ["Ann", "Bob", "Cy"])
    m = g.state.map
    coord = next(h for h, hd in g.title.hexes.items() if len(hd.tile.nodes) == 2)
    with pytest.raises(IllegalRoute) as e:
        resolve_stops(m, [coord], {}, "10.1.1: ")
    # no tile there yet: no choice of stop could help (play-through s11); a laid hex of two stops
    # asks which (tests/e18xx/test_playthrough_s11_aus.py, B17 with its tile 235)
    assert str(e.value) == f"10.1.1: {coord}: {coord} has no track yet (no tile is laid there), so no route stops in it"
    assert resolve_stops(m, [f"{coord}-1"], {}) == (f"{coord}-1",)


# ---------------------------------------------------------------- by mail
from .test_pbem_mail import PLAYERS, answer, ga, send, state  # noqa: E402,F401  (ga: the mail game fixture)


def test_a_route_written_with_hexes_alone_by_mail(ga):
    """18GA by mail: the computer's moves bring the game to a company's run; its president mails
    the best route with its stops written as hexes only, and the receipt shows it accepted."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.computer import choose
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game as GameRow

    cli, *_ = ga
    game, _ = state(cli)
    seat_of = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}
    batches: list[tuple[int, list]] = []
    for _ in range(600):
        cur = game.current_entity()
        if game.state.round.kind == "operating" and "run_routes" in game.or_actions(cur):
            total, chosen = game.auto_routes(cur)
            if total and all(len(game.state.map.tile(h).nodes) == 1 for _, rt in chosen for h in rt.hexes()):
                break
        act = choose(game)
        seat = seat_of[game.controller(act.entity)]
        if batches and batches[-1][0] == seat:
            batches[-1][1].append(act)
        else:
            batches.append((seat, [act]))
        game.process(act)
    else:
        pytest.fail("no company reached a run with a route")
    with session_scope(cli.url) as s:
        row = s.scalar(select(GameRow).where(GameRow.name == "ga-1"))
        for seat, acts in batches:
            out = apply(s, row, seat, acts)
            assert not getattr(out, "error", None), out
    corp = game.current_entity()
    seat = seat_of[game.controller(corp)]
    routes = "; ".join(f"{tid} {' '.join(rt.hexes())}" for tid, rt in chosen)
    line, inbound = send(ga, seat, f"run {routes}")
    assert f"player {seat} accepted" in line, line
    _msg, text = answer(cli, inbound)
    assert "ACCEPTED" in text
    after, _ = state(cli)
    assert any(ln.startswith(f"{corp} runs for {total}") for ln in after.state.log[-30:])
    assert routes.split()[1] in text  # the receipt quotes the move as written


def test_an_off_board_area_only_ends_a_route():
    g = wra_at_its_run(("3-0",))
    assert "train 3-0 cannot run L5-0 Q2-0 K4-0: 4.2.3(h): it may not pass through Q2-0: an off-board area is only " \
           "a route's end" in refusal(g, "run 3-0 L5 Q2 K4")


@pytest.mark.parametrize("title,corp,ref", [("1848", "CAR", "10.1.1"), ("18VA", "C&O", "4.5.5"), ("18GA", "GA", "4.2.3(a)")])
def test_each_title_names_its_route_rule(title, corp, ref):
    """1848 (changes of gauge) and 18VA (freight and passenger trains) check routes their own way;
    a route written with hexes alone is read the same, and an unconnected one names the section."""
    g = operating_game(title, corp)
    tid = next(t for t, tr in g.state.trains.items() if tr.owner == "depot")
    give_train(g, corp, tid)
    home = g.state.corporations[corp].home
    lay = next(a for a in g.legal_actions() if isinstance(a, A.LayTile) and a.hex == home)
    g.process(lay)
    hexes, _ = g._reach(corp)
    far = next(h for h, hd in g.title.hexes.items()
               if hd.color == "white" and hd.tile.count_kind("city") == 1 and len(hd.tile.nodes) == 1 and h not in hexes)
    with pytest.raises(IllegalRoute) as e:  # the routes code of the run step (whose gate is tested elsewhere)
        g._run_routes(corp, A.RunRoutes(corp, (A.RouteSpec(tid, (home.lower(), far)),)))
    msg = str(e.value)
    assert f"train {tid} cannot run {home}-0 {far}-0: {ref}: not connected between {home}-0 and {far}-0" in msg, msg


def test_a_route_that_doubles_back_through_a_junction_reuses_track():
    """18VA 4.5.5 "A train may not use any track segment more than once": Baltimore (H3) to
    Washington (G4) through the junction tile on G2, then on to Harper's Ferry (F3) back through
    G2 would cross G2's side towards Washington twice."""
    from pbm.e18xx.core.hexgrid import neighbour, opposite

    g = operating_game("18VA", "C&O", phase_colour="green")
    t = g.title
    put(g, "G2", "80", 5)  # junction: sides 5, 0 and 1 joined
    sides = {"H3": 5, "G4": 0, "F3": 1}
    for coord, side in sides.items():
        assert neighbour("G2", side, t.layout) == coord
        rot = next(r for r in range(6) if opposite(side) in t.tiles["57"].exits(r))
        put(g, coord, "57", rot)
    m = g.state.map
    m.tokens[("H3", 0)] = ["C&O"]
    g.state.corporations["C&O"].tokens[0] = ("H3", 0)
    m.version += 1
    g._graph = None
    give_train(g, "C&O", "3-0")
    with pytest.raises(IllegalRoute) as e:
        g._run_routes("C&O", A.RunRoutes("C&O", (A.RouteSpec("3-0", ("H3", "G4", "F3")),)))
    assert str(e.value) == ("train 3-0 cannot run H3-0 G4-0 F3-0: 4.5.5: track reused at G2, G4: "
                            "a route uses each piece of track once")

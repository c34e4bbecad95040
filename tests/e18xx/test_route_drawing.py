"""The PDF traces each route along its track: between two stops the line passes the middle of every
hex side the track crosses (not a straight line from stop to stop)."""
from pbm.e18xx.core.hexgrid import to_xy  # noqa: F401 (the grid the geometry uses)
from pbm.e18xx.core.track import TrackGraph
from pbm.e18xx.pbem.games import Replayed
from pbm.e18xx.render.pdf import MapGeometry, render_pdf, route_points, track_between


def _game_with_routes(data) -> Replayed:
    """The recorded 18GA game at its end, with the best routes of each company on that map."""
    from pbm.e18xx.replay import Replayer
    from pbm.e18xx.routes import all_routes

    r = Replayer(data)
    g = r.run()
    rep = Replayed(g, g.total_cash())
    graph = TrackGraph(g.state.map)
    for corp in sorted(g.state.corporations):
        routes = [x for x in all_routes(graph, corp, 4, g.phase_colors()) if len(set(x.hexes())) >= 3]
        if routes:
            rep.last_routes[corp] = [("4", max(routes, key=lambda x: (x.revenue, x.node_ids())))]
    assert len(rep.last_routes) >= 2
    return rep


def test_routes_follow_the_track_between_stops(bank_export):
    rep = _game_with_routes(bank_export)
    g = rep.game
    graph = TrackGraph(g.state.map)
    geo = MapGeometry(g, (0, 0, 800, 800))
    checked = 0
    for routes in rep.last_routes.values():
        for _, route in routes:
            for a, b in zip(route.nodes, route.nodes[1:]):
                crossed = track_between(graph, a, b)
                assert crossed is not None
                if a[0] == b[0]:
                    continue
                # the sides crossed lead from a's hex to b's hex, hex by hex
                assert crossed and crossed[0][0] == a[0]
                here = a[0]
                for coord, edge in crossed:
                    assert coord == here
                    here = g.state.map.neighbour_on_map(coord, edge)
                assert here == b[0]
                checked += 1
            positions = {}
            from pbm.e18xx.render.pdf import node_positions
            for coord, pl in g.state.map.placed.items():
                positions[coord] = node_positions(geo, coord, pl.tile, pl.rotation)
            pts = route_points(graph, geo, positions, route)
            hops = sum(len(track_between(graph, a, b) or []) for a, b in zip(route.nodes, route.nodes[1:]))
            assert len(pts) == len(route.nodes) + hops
    assert checked >= 2
    assert render_pdf(rep, "routes").startswith(b"%PDF")


def test_the_last_map_move_is_marked(bank_export):
    from types import SimpleNamespace

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.render.pdf import changed_hexes

    rep = _game_with_routes(bank_export)
    acts = rep.game.actions
    i = max(k for k, a in enumerate(acts) if isinstance(a, A.LayTile))
    after = [A.Pass("x")]  # a pass after the lay: the lay is still the last map move
    assert acts[i].hex in changed_hexes(SimpleNamespace(actions=acts[:i + 1] + after, _city_ref=rep.game._city_ref),
                                        None)[0]
    assert changed_hexes(SimpleNamespace(actions=[A.Pass("x")] * 3), None) == ([], "")

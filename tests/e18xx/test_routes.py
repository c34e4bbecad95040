"""The route finder: enumeration checked against a naive search, and the
best combination checked against brute force."""
import itertools

import pytest

from pbm.e18xx.routes import all_routes, best_routes

from .helpers import random_game


def naive_routes(graph, corp, max_stops, colors):
    """Every simple stop sequence from every stop, kept if it holds a token."""
    m = graph.map
    tokens = set(m.token_cities(corp))
    out = {}

    def counts(k):
        return 0 if m.tile(k[0]).nodes[k[1]].kind == "town" else 1

    def rev(k):
        return m.tile(k[0]).nodes[k[1]].revenue_for(colors)

    def dfs(nodes, mask, stops):
        if len(nodes) > 1 and tokens & set(nodes):
            key = (mask, frozenset(nodes))
            out[key] = sum(rev(k) for k in nodes)
        last = nodes[-1]
        if len(nodes) > 1 and m.blocks(last, corp):
            return
        for seg in graph.segments(last):
            if seg.b in nodes or seg.mask & mask:
                continue
            s = stops + counts(seg.b)
            if s > max_stops:
                continue
            dfs(nodes + [seg.b], mask | seg.mask, s)

    for node in list(m.nodes()):
        if node in graph.by_node:
            dfs([node], 0, counts(node))
    return out


def late_states():
    out = []
    for seed in (1, 2, 5):
        g = random_game(seed, stop_at=900)
        for corp in g.state.corporations.values():
            if corp.trains and g.state.map.token_cities(corp.sym):
                out.append((g, corp.sym))
    return out


STATES = late_states()


@pytest.mark.parametrize("g,corp", STATES, ids=[f"{c}-{i}" for i, (_, c) in enumerate(STATES)])
def test_enumeration_matches_naive(g, corp):
    colors = g.phase.tiles
    longest = max(g.state.trains[t].distance for t in g.state.corporations[corp].trains)
    ours = {(r.mask, frozenset(r.nodes)): r.revenue for r in all_routes(g.graph(), corp, longest, colors)}
    assert ours == naive_routes(g.graph(), corp, longest, colors)


@pytest.mark.parametrize("g,corp", STATES, ids=[f"{c}-{i}" for i, (_, c) in enumerate(STATES)])
def test_best_combination_is_exact(g, corp):
    colors = g.phase.tiles
    trains = [(t, g.state.trains[t].distance) for t in g.state.corporations[corp].trains]
    total, picked = best_routes(g.graph(), corp, trains, colors)
    routes = all_routes(g.graph(), corp, max(d for _, d in trains), colors)
    per_train = [[None] + [r for r in routes if r.stops <= d] for _, d in trains]
    if any(len(p) > 400 for p in per_train) or len(trains) > 3:
        pytest.skip("too many routes for brute force")
    best = 0
    for combo in itertools.product(*per_train):
        chosen = [r for r in combo if r is not None]
        mask, ok = 0, True
        for r in chosen:
            if r.mask & mask:
                ok = False
                break
            mask |= r.mask
        if ok:
            best = max(best, sum(r.revenue for r in chosen))
    assert total == best
    assert sum(r.revenue for _, r in picked) == total
    used = 0
    for _, r in picked:
        assert not r.mask & used
        used |= r.mask


def reference_best(graph, corp, trains, colors):
    """Plain branch and bound (sorted lists, sum-of-bests bound), no shortcuts."""
    routes = all_routes(graph, corp, max(d for _, d in trains), colors)
    cands = [sorted((r for r in routes if r.stops <= d), key=lambda r: -r.revenue) for _, d in trains]
    best_each = [c[0].revenue if c else 0 for c in cands]
    suffix = [sum(best_each[i:]) for i in range(len(trains) + 1)]
    best = 0

    def search(i, mask, total):
        nonlocal best
        best = max(best, total)
        if i == len(trains) or total + suffix[i] <= best:
            return
        for r in cands[i]:
            if total + r.revenue + suffix[i + 1] <= best:
                break
            if not r.mask & mask:
                search(i + 1, mask | r.mask, total + r.revenue)
        search(i + 1, mask, total)

    search(0, 0, 0)
    return best


@pytest.fixture(scope="module")
def late_fixture_game(bank_export):
    from pbm.e18xx.replay import Replayer
    return Replayer(bank_export).run()


@pytest.mark.parametrize("corp", ["ACL", "CoG", "G&F", "GA", "W&A", "SAL"])
@pytest.mark.parametrize("lengths", [(4, 5, 6), (8, 8), (2, 3, 3, 4), (5, 5, 5)])
def test_late_map_matches_reference(late_fixture_game, corp, lengths):
    g = late_fixture_game
    trains = [(f"t{i}", d) for i, d in enumerate(lengths)]
    total, picked = best_routes(g.graph(), corp, trains, g.phase.tiles)
    assert total == reference_best(g.graph(), corp, trains, g.phase.tiles)
    assert sum(r.revenue for _, r in picked) == total


def test_no_running_through_a_red_area_city(late_fixture_game):
    """4.2.3(h): Jacksonville (a city in a red area) only begins or ends a route;
    18xx.games lets ACL run through it (flag site_red_city_pass, used by replays)."""
    g = late_fixture_game
    m = g.state.map
    trains = [("8", 8)]
    assert m.red_pass  # the replay runs with the site's rules
    site_total, site_routes = best_routes(g.graph(), "ACL", trains, g.phase.tiles)
    m.red_pass = False
    try:
        total, routes = best_routes(g.graph(), "ACL", trains, g.phase.tiles)
    finally:
        m.red_pass = True
    for _, r in routes:
        assert all(h != "J12" for h, _ in r.nodes[1:-1])
    assert total <= site_total
    assert any(h == "J12" for _, r in site_routes for h, _ in r.nodes[1:-1]) or total == site_total


@pytest.mark.parametrize("g,corp", STATES, ids=[f"{c}-{i}" for i, (_, c) in enumerate(STATES)])
def test_complete_routes_are_the_filtered_ones_in_order(g, corp):
    """``complete=True`` (checking a submitted route) gives exactly the routes through every
    stop of ``only``, in the order the full enumeration through ``only`` gives them."""
    colors = g.phase.tiles
    longest = max(g.state.trains[t].distance for t in g.state.corporations[corp].trains)
    for r in all_routes(g.graph(), corp, longest, colors)[:60]:
        only = frozenset(r.nodes)
        full = [x for x in all_routes(g.graph(), corp, longest, colors, only=only) if len(x.nodes) == len(only)]
        assert all_routes(g.graph(), corp, longest, colors, only=only, complete=True) == full


def test_a_relaid_graph_is_the_graph_built_afresh(late_fixture_game):
    """After tile lays the graph renumbers only the relaid hexes: the same paths, path ids,
    track bits and walks as a graph built from scratch on the same map."""
    from pbm.e18xx.core.track import TrackGraph

    for g in [late_fixture_game] + [random_game(seed, stop_at=900) for seed in (1, 2, 5)]:
        kept, fresh = g.graph(), TrackGraph(g.state.map)
        assert kept is not fresh and kept.paths == fresh.paths and kept.path_mask == fresh.path_mask
        assert kept.by_side == fresh.by_side and kept.by_node == fresh.by_node
        assert kept.side_bits == fresh.side_bits
        for node in fresh.by_node:
            assert kept.segments(node) == fresh.segments(node)

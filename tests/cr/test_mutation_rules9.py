"""Continental Rails II rules of the engine modules `privates`, `rights`, `rows` and `context`
that mutation testing found untested (issue 31, part 2, helper mut, 2026-11-29).

Each test pins one rule's outcome (a figure, a limit, an order of draws) so that changing the
rule in the engine makes it fail; each names its rule section of the rulebook
(/work/shared/seeds/continental-rails-II-rules.txt) or the ruling it follows.
``scripts/mutation_cr.py`` reruns the mutation tests; the scores and the equivalent mutants that
survive are in docs/cr/rules-map.md, "Mutation testing".  All on the tiny hand-built game of
``tests/cr/helpers.py`` (SQLite), each well under a second.
"""

from __future__ import annotations

import pytest

from pbm.db import session_scope
from tests.cr.helpers import tiny_game
from tests.cr.test_mutation_rules4 import _ctx, _kinds  # the turn begun, its events of a kind
from tests.cr.test_mutation_rules5 import _Draws, _own  # fixed draws; a PC owned by hand


@pytest.fixture
def game(sqlite_url):
    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)


# --------------------------------------------------------------------------- privates: §2.4E
def test_pcs_are_sold_in_route_number_order_each_drawing_its_ties_in_turn_2_4e(game):
    """§2.4E: "PCs are sold to the player bidding the highest price", equal bids settled at random.
    The PCs are sold in route-number order (the NYNH, route 5, before the LS, route 6, though
    "LS" comes first alphabetically), each PC's tie drawing the next draws of the turn's
    `pc-ties` stream: with draws 0.9, 0.1 for the NYNH's bidders (tycoons 1 and 2) and 0.1, 0.9
    for the LS's (tycoons 3 and 4), tycoon 2 buys the NYNH and tycoon 3 the LS, and the sales are
    told in that order."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    for n in (1, 2, 3, 4):
        ctx.players[n].cash = 5_000
    ctx.orders.update({1: Orders(pc_bids=[PCBid("NYNH", 600, 1)]), 2: Orders(pc_bids=[PCBid("NYNH", 600, 1)]),
                       3: Orders(pc_bids=[PCBid("LS", 1_000, 1)]), 4: Orders(pc_bids=[PCBid("LS", 1_000, 1)])})
    ctx.rng = _Draws([0.9, 0.1, 0.1, 0.9])
    private_company_purchases(ctx)
    assert ctx.pcs["NYNH"].owner_id == ctx.players[2].id and ctx.pcs["LS"].owner_id == ctx.players[3].id
    assert [e["data"]["pc"] for e in _kinds(ctx, "pc-sold")] == ["NYNH", "LS"]


def test_tie_draws_go_to_the_bidders_from_the_highest_bid_down_2_4e(game):
    """§2.4E: equal highest bids are settled at random; the `pc-ties` draws are given to a PC's
    bidders from the highest bid down (player number among equal bids), so a rerun draws the same:
    tycoons 1 and 3 bid $1,000 for the LS and tycoon 2 $950; with draws 0.5, 0.9, 0.1 tycoon 1
    draws 0.5 and tycoon 3 0.9, and tycoon 1 buys it (given in player-number order, tycoon 3
    would draw 0.1 and win)."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    for n in (1, 2, 3):
        ctx.players[n].cash = 5_000
    ctx.orders.update({1: Orders(pc_bids=[PCBid("LS", 1_000, 1)]), 2: Orders(pc_bids=[PCBid("LS", 950, 1)]),
                       3: Orders(pc_bids=[PCBid("LS", 1_000, 1)])})
    ctx.rng = _Draws([0.5, 0.9, 0.1])
    private_company_purchases(ctx)
    assert ctx.pcs["LS"].owner_id == ctx.players[1].id
    assert [ctx.players[n].cash for n in (1, 2, 3)] == [4_000, 5_000, 5_000]


def test_a_bid_of_all_the_tycoons_cash_buys_the_pc_10_1b4(game):
    """§10.1B4: bids are cut to the tycoon's cash; a bid of exactly all his cash is not beyond it:
    a tycoon with $1,000 bidding $1,000 for the LS buys it and is left with $0."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    ctx.players[1].cash = 1_000
    ctx.orders[1] = Orders(pc_bids=[PCBid("LS", 1_000, 1)])
    private_company_purchases(ctx)
    assert ctx.pcs["LS"].owner_id == ctx.players[1].id and ctx.players[1].cash == 0


def test_the_public_buys_unsold_cheap_pcs_in_route_number_order_10_1b1c(game):
    """§10.1B1c: a PC a player offered below $10 a mile on an earlier turn that no player buys is
    bought by the Public at the asking price.  Two such PCs are bought in route-number order (the
    NYNH, route 5, before the LS, route 6): so the ledger and the turn's news list them.  The
    Public's PC is no longer offered for sale (the game's state shows an owned PC's offer)."""
    from pbm.cr.engine.privates import private_company_purchases

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    cash = (p1.cash, p2.cash)
    _own(ctx, "LS", p1, paid=900, for_sale=True, ask=1_000, offered=ctx.turn - 1)
    _own(ctx, "NYNH", p2, paid=600, for_sale=True, ask=700, offered=ctx.turn - 1)
    private_company_purchases(ctx)
    assert [e["text"].split()[4] for e in _kinds(ctx, "pc-public")] == ["NYNH", "LS"]
    assert [(e["target"], e["amount"]) for e in ctx.ledger if e["step"] == "5"] == [
        (f"player:{p2.number}", 700), (f"player:{p1.number}", 1_000)]
    assert (p1.cash, p2.cash) == (cash[0] + 1_000, cash[1] + 700)
    for code in ("LS", "NYNH"):  # the Public's now: no longer offered (the game's state lists it so)
        pc = ctx.pcs[code]
        assert (pc.status, pc.owner_id, pc.for_sale, pc.asking_price) == ("public", None, False, None)


def test_a_pc_of_no_era_is_of_the_first_era_2_4c(game):
    """§2.4C (ruling E-2.4C): a PC whose route names no era counts as of era 1, eligible from the
    first turn (era 2 waits for turn 5): on turn 1 it may appear for turn 2."""
    from pbm.cr.engine.privates import private_companies_appear

    s, g = game
    ctx = _ctx(s, g)
    ctx.turn = 1
    pc = ctx.pcs["LS"]
    pc.status, pc.eligible_turns, pc.asking_price = "unavailable", 0, None
    ctx.route_by_id[pc.route_id].era = None
    ctx.rng = _Draws([0.0] * 8)
    private_companies_appear(ctx)
    assert (pc.status, pc.appeared_turn, pc.asking_price) == ("bank", 2, 5 * 182)


# --------------------------------------------------------------------------- rights: §4.7, §4.8
@pytest.fixture
def mc_game(sqlite_url):
    """The tiny map with the NYC, the PENN and the MC (Toledo–Chicago) operating."""
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    with session_scope(sqlite_url) as s:
        yield s, build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": "NYC"}, {"code": "PENN"}, {"code": "MC"}],
                            bank_pcs=["B&A", "ERIE", "NYNH", "LS", "P&FW"])


def test_the_rows_a_road_may_bid_for_connect_to_its_lines_and_avoid_a_second_route_into_chicago_4_7c_4_8(mc_game):
    """§4.7C: a railroad may get only a RoW that connects to its lines, unowned (§4.7D), and not
    one §4.8 forbids: the NYC (New York–Albany) may bid for NY1, NY2 and PA1, the PENN
    (Philadelphia–Pittsburgh) for PA1 and OH2, by route number; the MC (Toledo–Chicago) for OH1
    and IN4 but not IN2 or IL1, a second route into Chicago (§4.8.2); no PC is a RoW.  A RoW
    another road holds (PA1, once the PENN's) is no longer open to the NYC."""
    from pbm.cr.engine.rights import valid_rows

    s, g = mc_game
    ctx = _ctx(s, g)
    rr = ctx.railroads
    assert [r.code for r in valid_rows(ctx, rr["NYC"])] == ["NY1", "NY2", "PA1"]
    assert [r.code for r in valid_rows(ctx, rr["PENN"])] == ["PA1", "OH2"]
    assert [r.code for r in valid_rows(ctx, rr["MC"])] == ["OH1", "IN4"]
    ctx.routes["PA1"].owner_id = rr["PENN"].id
    ctx.routes_changed()
    assert [r.code for r in valid_rows(ctx, rr["NYC"])] == ["NY1", "NY2"]


@pytest.mark.parametrize("name, closed", [
    ("St. Louis", True), ("Saint Louis", True), ("ST. LOUIS", True), ("st  louis", True), ("St.Louis", True),
    ("New Orleans", True), ("Chicago", True), ("Louisville", False), ("Stockton", False)])
def test_no_through_cities_whatever_the_spelling_of_the_towns_name_4_8_2(mc_game, name, closed):
    """§4.8.2: Chicago, St. Louis, Memphis, Vicksburg and New Orleans may be entered by one route
    only; the map's town is recognised whatever its spelling ("St." or "Saint", case, stops and
    spaces)."""
    from pbm.cr.engine.rights import is_no_through

    s, g = mc_game
    ctx = _ctx(s, g)
    town = next(t for t in ctx.towns.values() if t.name == "St. Louis")
    town.name = name
    assert is_no_through(ctx, town.id) is closed


# --------------------------------------------------------------------------- context: §2.7B
def test_only_starred_towns_give_a_road_their_region_2_7b(mc_game):
    """§2.7B: a railroad reaches a region when its built lines reach one of the region's starred
    towns.  The MC (Toledo–Chicago) reaches the Central region (Chicago is starred) but not the
    Great Lakes: Toledo is in it but not starred.  Towns with no star give no region."""
    s, g = mc_game
    ctx = _ctx(s, g)
    town = {t.name: t.id for t in ctx.towns.values()}
    assert ctx.regions_of(ctx.railroads["MC"]) == {"Central"}
    assert ctx.regions_of_towns({town["Toledo"], town["Indianapolis"], town["Albany"]}) == set()
    assert ctx.regions_of_towns({town["Toledo"], town["Cleveland"]}) == {"Great Lakes"}


# --------------------------------------------------------------------------- writes: the turn's new keys
def test_new_rows_get_the_keys_the_database_would_give_next_on_sqlite(game):
    """The turn's write (issue 15): new rows get the keys SQLite itself would give — max(key) + 1,
    + 2, … (1, 2, … in an empty table), exactly as many as asked — and above the highest key
    already given to a row not yet inserted (``given``), so no two rows share a key."""
    from sqlalchemy import func, select

    from pbm.cr.engine.writes import next_ids
    from pbm.models import LedgerEntry, Player

    s, g = game
    players, ledger = Player.__table__, LedgerEntry.__table__
    top = s.execute(select(func.max(Player.id))).scalar()
    assert s.execute(select(func.count()).select_from(ledger)).scalar() == 0
    assert next_ids(s.connection(), {players: 2, ledger: 3}) == {players: [top + 1, top + 2], ledger: [1, 2, 3]}
    assert next_ids(s.connection(), {players: 2, ledger: 1}, given={players: top + 5}) == {
        players: [top + 6, top + 7], ledger: [1]}


def test_a_new_row_whose_key_was_set_keeps_it_and_the_next_rows_number_above_it(game):
    """The session's write (issue 15, ``assign_ids``): a new row whose key was set by hand keeps
    that key, and the other new rows of its table are numbered above it, in the order added."""
    from sqlalchemy import func, select

    from pbm.cr.engine.writes import assign_ids
    from pbm.models import Player

    s, g = game
    top = s.execute(select(func.max(Player.id))).scalar()
    first = Player(game_id=g.id, number=5, character="Tycoon 5", human=False, personality="builder", cash=0)
    fixed = Player(id=top + 10, game_id=g.id, number=6, character="Tycoon 6", human=False,
                   personality="builder", cash=0)
    last = Player(game_id=g.id, number=7, character="Tycoon 7", human=False, personality="builder", cash=0)
    s.add_all([first, fixed, last])
    assign_ids(s)
    assert (first.id, fixed.id, last.id) == (top + 11, top + 10, top + 12)

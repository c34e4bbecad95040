"""Steps of Appendix A on a tiny hand-built game (SQLite and PostgreSQL)."""

from __future__ import annotations

import math

import pytest

from pbm.cr.engine import tables
from pbm.cr.engine.checks import check_money, check_shares, run_checks
from pbm.cr.engine.context import TurnContext
from pbm.cr.orders import Orders, PCAction, PCBid, RailroadOrders, RateWar, StockOrder
from pbm.cr.resolve import begin_turn, resolve_turn
from pbm.db import session_scope
from pbm.models import Game, Holding, Line, PrivateCompany, Railroad, Route
from tests.cr.helpers import tiny_game


def _ctx(s, game, orders=None) -> TurnContext:
    """A turn's context on the game as flushed; the turn changes its own (plain) rows, not the
    session's ORM rows (read ``ctx.players``, ``ctx.railroads``, ... after a step)."""
    ctx = TurnContext(s, game, orders or {})
    begin_turn(ctx)
    return ctx


def _rr(s, game, code) -> Railroad:
    return s.query(Railroad).filter_by(game_id=game.id, code=code).one()


def _make_directors(s, game, code, numbers, shares):
    rr = _rr(s, game, code)
    for h in rr.holdings:
        p = h.player
        if p.number in numbers:
            rr.shares_public -= shares - h.shares
            h.shares = shares
            h.director = True
    s.flush()


def test_borrowing_is_limited_to_available_credit(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        p1 = g.players[0]
        worth = p1.net_worth
        ctx = _ctx(s, g, {1: Orders(borrow=10**7), 2: Orders(borrow=100)})
        from pbm.cr.engine.loans import tycoons_borrow_or_repay

        tycoons_borrow_or_repay(ctx)
        assert ctx.players[1].loan == math.floor(worth * 0.70)  # §3.5A, Normal: 70 %
        assert ctx.players[2].loan == 100
        assert not check_money(ctx)


def test_pc_goes_to_highest_bid_and_cheap_offers_go_to_the_public(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        p3 = g.players[2]
        pc = s.query(PrivateCompany).join(Route).filter(Route.code == "LS", PrivateCompany.game_id == g.id).one()
        pc.status, pc.owner_id, pc.paid, pc.for_sale, pc.asking_price, pc.offered_turn = "owned", p3.id, 500, True, 900, 0
        s.flush()
        orders = {1: Orders(pc_bids=[PCBid("B&A", 1500)]), 2: Orders(pc_bids=[PCBid("B&A", 1600)]),
                  4: Orders(pc_bids=[PCBid("ERIE", 100)])}  # below the asking price
        ctx = _ctx(s, g, orders)
        from pbm.cr.engine.privates import private_company_purchases

        private_company_purchases(ctx)
        ba = ctx.pcs["B&A"]
        assert ba.status == "owned" and ba.owner_id == g.players[1].id and ba.paid == 1600
        assert ctx.players[2].cash == 2000 - 1600 and ctx.players[1].cash == 2000
        assert ctx.pcs["ERIE"].status == "bank"
        # §10.1B1c: 900 < $10 × 182 miles, nobody bid: the Public buys it
        assert ctx.pcs["LS"].status == "public" and ctx.players[3].cash == 2000 + 900
        assert not check_money(ctx)


def test_incorporation_issues_20_10_70(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        p2 = g.players[1]
        pc = s.query(PrivateCompany).join(Route).filter(Route.code == "MC", PrivateCompany.game_id == g.id).one()
        pc.status, pc.owner_id, pc.paid = "owned", p2.id, 760
        s.flush()
        ctx = _ctx(s, g, {2: Orders(pc_actions=[PCAction("MC", "incorporate", president=True)])})
        from pbm.cr.engine.construction import incorporate_private_companies

        incorporate_private_companies(ctx)
        rr = ctx.railroads["MC"]
        assert rr.shares_authorized == 760 and rr.treasury_shares == 76
        assert ctx.shares(p2, rr) == 152 and rr.shares_public == 532  # §4.3A1, §10.1B3c
        assert 10 <= rr.price <= 18
        assert rr.cash == math.floor(532 * rr.price * 0.9)  # §4.3C
        assert rr.locomotive == tables.best_locomotive(1)
        assert not check_money(ctx) and not check_shares(ctx)


def test_pc_merger_gives_owner_20_percent_and_directors_their_bonus(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        _make_directors(s, g, "NYC", {1, 2}, 100)
        p3 = g.players[2]
        pc = s.query(PrivateCompany).join(Route).filter(Route.code == "B&A", PrivateCompany.game_id == g.id).one()
        pc.status, pc.owner_id, pc.paid = "owned", p3.id, 1000
        s.flush()
        ctx = _ctx(s, g, {3: Orders(pc_actions=[PCAction("B&A", "merge", railroad="NYC")])})
        from pbm.cr.engine.construction import merge_private_companies

        nyc = ctx.railroads["NYC"]
        before_auth, before_cash = nyc.shares_authorized, nyc.cash
        merge_private_companies(ctx)
        new = 5 * 201
        assert nyc.shares_authorized == before_auth + new
        assert ctx.shares(p3, nyc) == 26 + new * 20 // 100  # 26 = the 4 % of 666 everyone started with
        p1 = ctx.players[1]
        assert ctx.shares(p1, nyc) == 100 + new // 10
        assert p1.loan == math.floor(new // 10 * 20 / 2)  # half the $20 start price, lent by the Bank
        public = new - new // 10 - new // 5 - 2 * (new // 10)
        assert nyc.cash == before_cash + 2 * math.floor(100 * 10) + math.floor(public * 20 * 0.9)
        assert ctx.pcs["B&A"].status == "merged" and ctx.pcs["B&A"].owner_id is None
        assert not check_money(ctx) and not check_shares(ctx)


def test_building_with_overspend_pays_the_directors(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        _make_directors(s, g, "NYC", {1, 2}, 100)
        nyc = _rr(s, g, "NYC")
        pa1 = s.query(Route).filter_by(game_id=g.id, code="PA1").one()
        pa1.owner_id, pa1.land_grant = nyc.id, 45
        g.players[0].slot1_id = nyc.id
        nyc.president_id = g.players[0].id
        s.flush()
        orders = {1: Orders(railroads=[RailroadOrders("NYC", build_per_mile=390)])}
        ctx = _ctx(s, g, orders)
        from pbm.cr.engine.construction import build_or_abandon_rows

        cash = {n: p.cash for n, p in ctx.players.items()}
        bonds = nyc.bond_debt
        nyc, pa1 = ctx.railroads["NYC"], ctx.routes["PA1"]
        build_or_abandon_rows(ctx)
        # §4.6C: $90/mile over the $300 minimum, 2 directors → $30/mile each, 90 miles
        assert ctx.players[1].cash - cash[1] == 30 * 90
        assert ctx.players[2].cash - cash[2] == 30 * 90
        cost = 390 * 90 + 300 * (16 + 25)  # §4.6D: both towns on the route, Philadelphia and New York
        assert nyc.bond_debt - bonds >= cost / 2
        assert "PA1" in {ctx.route_by_id[x.route_id].code for x in nyc.lines}
        assert nyc.land == 45 and pa1.land_grant == 0
        assert not check_money(ctx) and not check_shares(ctx)


@pytest.mark.parametrize("turn", [11, 12, 13])
def test_no_building_during_the_civil_war(sqlite_url, turn):
    """§8.2 1): no railroad builds its RoW on turns 11 and 12; the same road builds on turn 13.
    (The assertions read the turn's rows, ``ctx.railroads``: the session's ORM rows keep what
    the test set whatever the engine does.)"""
    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=turn)
        nyc = _rr(s, g, "NYC")
        pa1 = s.query(Route).filter_by(game_id=g.id, code="PA1").one()
        pa1.owner_id = nyc.id
        s.flush()
        ctx = _ctx(s, g, {})  # NYC has no president: the computer builds at the minimum
        from pbm.cr.engine.construction import build_or_abandon_rows

        nyc = ctx.railroads["NYC"]
        bonds, authorized = nyc.bond_debt, nyc.shares_authorized
        build_or_abandon_rows(ctx)
        lines = {ctx.route_by_id[x.route_id].code for x in nyc.lines}
        no = [e for e in ctx.events if e["kind"] == "no-building"]
        if turn in (11, 12):
            assert lines == {"NYC"} and ctx.routes["PA1"].owner_id == nyc.id
            assert (nyc.bond_debt, nyc.shares_authorized) == (bonds, authorized)
            assert len(no) == 1 and "Civil War" in no[0]["text"] and no[0]["railroad"] == "NYC"
        else:  # turn 13: PA1 (90 miles, Philadelphia 16 and New York 25) at the $300 minimum (§4.6B, D)
            assert lines == {"NYC", "PA1"} and not no
            assert nyc.bond_debt - bonds == math.ceil((300 * 90 + 300 * (16 + 25)) / 2)  # §4.6E: half by bonds
            assert nyc.shares_authorized - authorized == 5 * 90


def test_row_bids_prohibited_routes_and_influence(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        nyc, penn = _rr(s, g, "NYC"), _rr(s, g, "PENN")
        nynh = s.query(Route).filter_by(game_id=g.id, code="NYNH").one()
        s.add(Line(railroad_id=nyc.id, route_id=nynh.id, built_turn=0))
        nynh.owner_id = nyc.id
        s.flush()
        s.expire_all()
        orders = {1: Orders(railroads=[RailroadOrders("NYC", row_first="PA1", row_alternate="NY1", political=600)]),
                  2: Orders(railroads=[RailroadOrders("PENN", row_first="PA1", row_alternate="OH2", political=400)])}
        for n, code in ((1, "NYC"), (2, "PENN")):
            _make_directors(s, g, code, {n}, 600)
            rr = _rr(s, g, code)
            rr.president_id = g.players[n - 1].id
        s.flush()
        ctx = _ctx(s, g, orders)
        from pbm.cr.engine.politics import political_influence
        from pbm.cr.engine.rights import rights_of_way, row_bid_problem

        assert "double connection" in row_bid_problem(ctx, nyc, "NY1")
        political_influence(ctx)
        assert ctx.scratch.influence == {"NYC": 600 // 258, "PENN": 400 // 300}
        rights_of_way(ctx)
        # PA1 is contested: NYC has more influence (§4.7G); NY1 (NYC's alternate) was never needed
        assert ctx.routes["PA1"].owner_id == nyc.id
        assert ctx.routes["OH2"].owner_id == penn.id  # PENN falls back to its alternate
        assert ctx.routes["NY1"].owner_id is None


def test_one_route_into_chicago(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        mc = s.query(Route).filter_by(game_id=g.id, code="MC").one()
        penn = _rr(s, g, "PENN")
        s.add(Line(railroad_id=penn.id, route_id=mc.id, built_turn=0))
        mc.owner_id = penn.id
        s.flush()
        s.expire_all()
        ctx = _ctx(s, g)
        from pbm.cr.engine.rights import row_bid_problem

        assert "only one route into Chicago" in row_bid_problem(ctx, penn, "IN2")
        assert "only one route into Chicago" in row_bid_problem(ctx, penn, "IL1")
        assert row_bid_problem(ctx, penn, "IN4") is None  # Toledo–Indianapolis


def test_a_whole_turn_trades_stock_and_conserves(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        orders = {1: Orders(stock=[StockOrder("NYC", "buy", 100, 1)]),
                  2: Orders(stock=[StockOrder("NYC", "sell", 26, 1)]),
                  3: Orders(stock=[StockOrder("PENN", "sell", 100, 1)])}  # 54 owned, then short up to 10 %
        result = resolve_turn(s, g, orders)
        assert result.turn == 1
        nyc = _rr(s, g, "NYC")
        p1, p2, p3 = g.players[:3]
        assert 26 < sum(h.shares for h in p1.holdings if h.railroad_id == nyc.id) <= 26 + 100
        assert sum(h.shares for h in p2.holdings if h.railroad_id == nyc.id) == 0
        penn = _rr(s, g, "PENN")
        assert sum(h.shares for h in p3.holdings if h.railroad_id == penn.id) == 0
        assert all(h.short == 0 for h in p3.holdings)
        kinds = {e.kind for e in s.query(__import__("pbm.models", fromlist=["Event"]).Event).filter_by(game_id=g.id)}
        assert {"stock-trade", "short-covered", "operations"} <= kinds


def test_elections_directors_president_and_fallback(db_url):
    """§10.1D, §4.14C.  The assertions read the turn's rows (``ctx``): ``elections`` never
    changes the session's ORM rows, so asserting on them held whatever the engine did."""
    with session_scope(db_url) as s:
        g = tiny_game(s)
        nyc, penn = _rr(s, g, "NYC"), _rr(s, g, "PENN")
        p1, p2, p3 = g.players[:3]
        # p1 presides PENN; p2 presides NYC
        _make_directors(s, g, "PENN", {1, 2}, 300)
        _make_directors(s, g, "NYC", {2, 3}, 200)
        penn.president_id, p1.slot1_id = p1.id, penn.id
        nyc.president_id, p2.slot1_id = p2.id, nyc.id
        stale = next(h for h in nyc.holdings if h.player.number == 4)  # 26 of 666: no director (§4.14A)
        stale.director = True
        s.flush()
        # p1 tries NYC (not a director: fails → falls back to PENN); p3 seeks NYC with equal shares to p2
        orders = {1: Orders(control=["NYC", None]), 3: Orders(control=["NYC", None])}
        ctx = _ctx(s, g, orders)
        from pbm.cr.engine.elections import elections

        elections(ctx)
        penn, nyc = ctx.railroads["PENN"], ctx.railroads["NYC"]
        p1, p2, p3 = ctx.players[1], ctx.players[2], ctx.players[3]
        assert penn.president_id == p1.id and (p1.slot1_id, p1.slot2_id) == (penn.id, None)  # fallback (§10.1D4)
        assert nyc.president_id == p2.id and (p2.slot1_id, p2.slot2_id) == (nyc.id, None)  # 200 = 200: the incumbent
        assert (p3.slot1_id, p3.slot2_id) == (None, None)
        assert not [e for e in ctx.events if e["kind"] == "new-president"]
        # §4.14A: directors are re-elected from the end-of-turn holdings: 10 % or more of the issued stock
        directors = {code: sorted(ctx.player_by_id[h.player_id].number for h in rr.holdings if h.director)
                     for code, rr in (("NYC", nyc), ("PENN", penn))}
        assert directors == {"NYC": [2, 3], "PENN": [1, 2]}
        from pbm.cr.engine.checks import check_officers

        assert not check_officers(ctx)


def test_elections_the_director_with_most_shares_who_seeks_it_presides(db_url):
    """§4.14C, §10.1D: p3 (250 NYC shares) seeks NYC against its president p2 (200) and wins it;
    p2's slot is emptied; p1 (not a director) falls back to PENN; PENN's chairman is its largest
    holder (§4.14B).  Read from the turn's rows."""
    with session_scope(db_url) as s:
        g = tiny_game(s)
        nyc, penn = _rr(s, g, "NYC"), _rr(s, g, "PENN")
        p1, p2, p3 = g.players[:3]
        _make_directors(s, g, "PENN", {1}, 300)
        _make_directors(s, g, "PENN", {2}, 350)
        _make_directors(s, g, "NYC", {2}, 200)
        _make_directors(s, g, "NYC", {3}, 250)
        penn.president_id, p1.slot1_id = p1.id, penn.id
        nyc.president_id, p2.slot1_id = p2.id, nyc.id
        s.flush()
        ctx = _ctx(s, g, {1: Orders(control=["NYC", None]), 3: Orders(control=["NYC", None])})
        from pbm.cr.engine.elections import elections

        elections(ctx)
        penn, nyc = ctx.railroads["PENN"], ctx.railroads["NYC"]
        q1, q2, q3 = ctx.players[1], ctx.players[2], ctx.players[3]
        assert nyc.president_id == q3.id and q3.slot1_id == nyc.id
        assert (q2.slot1_id, q2.slot2_id) == (None, None)
        assert penn.president_id == q1.id and q1.slot1_id == penn.id  # p2 did not seek PENN
        assert penn.chairman_id == q2.id and nyc.chairman_id == q3.id  # most shares (§4.14B)
        new = [e for e in ctx.events if e["kind"] == "new-president"]
        assert [(e["railroad"], e["player_number"]) for e in new] == [("NYC", 3)]


def test_president_debt_cancelled_on_change_of_president(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        nyc = _rr(s, g, "NYC")
        p1, p2 = g.players[:2]
        _make_directors(s, g, "NYC", {1}, 100)
        _make_directors(s, g, "NYC", {2}, 200)
        nyc.president_id, p1.slot1_id, nyc.president_debt = p1.id, nyc.id, 5000
        s.flush()
        ctx = _ctx(s, g, {2: Orders(control=["NYC", None])})
        from pbm.cr.engine.elections import elections

        nyc = ctx.railroads["NYC"]
        cash = nyc.cash
        elections(ctx)
        assert nyc.president_id == p2.id and nyc.president_debt == 0  # §4.4D
        assert 0 <= cash - nyc.cash <= 5000
        assert not check_money(ctx)


def test_stock_split(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        nyc = _rr(s, g, "NYC")
        nyc.price = 250.0
        s.flush()
        ctx = _ctx(s, g)
        from pbm.cr.engine.elections import split_ratio, stock_splits

        assert split_ratio(100) == 1 and split_ratio(100.01) == 2 and split_ratio(250) == 3
        nyc = ctx.railroads["NYC"]
        issued = nyc.shares_issued
        stock_splits(ctx)
        assert nyc.price == 83.33 and nyc.shares_issued == 3 * issued
        assert not check_shares(ctx)


def test_insolvent_railroad_goes_bankrupt_then_is_reorganized(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        penn = _rr(s, g, "PENN")
        penn.cash, penn.loan_debt, penn.efficiency = -500_000, 400_000, 30
        s.flush()
        resolve_turn(s, g, {})
        assert penn.status == "bankrupt"
        g.turn += 1
        resolve_turn(s, g, {})
        assert penn.status == "active" and penn.price == 10.0  # §4.11C reorganized
        assert penn.loan_debt == 0 and penn.shares_public == penn.shares_issued == 5 * 300
        assert all(h.shares == 0 for h in penn.holdings)


def test_tycoon_bankruptcy_and_fresh_start(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        p4 = g.players[3]
        p4.loan = 100_000
        s.flush()
        resolve_turn(s, g, {})
        assert p4.loan == 0 and p4.bankruptcies == 1 and p4.cash == tables.START_CASH
        assert all(h.shares == 0 for h in p4.holdings)


def test_loan_recall_is_compelled_by_selling_stock(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        p1 = g.players[0]
        p1.loan, p1.recall, p1.cash = 1500, 1200, 0
        s.flush()
        resolve_turn(s, g, {1: Orders()})
        assert p1.loan <= 1500 - 1200 + math.ceil(1500 * 0.12)
        assert any(h.shares < 23 for h in p1.holdings)


def test_railroad_merger(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s)
        nyc = _rr(s, g, "NYC")
        p1 = g.players[0]
        # give p1 a second railroad: B&A incorporated, connected to NYC at Albany
        pc = s.query(PrivateCompany).join(Route).filter(Route.code == "B&A", PrivateCompany.game_id == g.id).one()
        pc.status, pc.owner_id = "owned", p1.id
        s.flush()
        resolve_turn(s, g, {1: Orders(pc_actions=[PCAction("B&A", "incorporate", president=True)],
                                      control=[None, "NYC"], stock=[StockOrder("NYC", "buy", 120, 1)])})
        g.turn += 1
        ba = _rr(s, g, "B&A")
        assert ba.president_id == p1.id
        if nyc.president_id != p1.id:  # make sure p1 also presides NYC for the test
            _make_directors(s, g, "NYC", {1}, 400)
            for h in nyc.holdings:
                h.director = h.shares * 10 >= nyc.shares_issued
            nyc.president_id, p1.slot2_id = p1.id, nyc.id
            s.flush()
        issued = nyc.shares_issued + ba.shares_issued
        resolve_turn(s, g, {1: Orders(merge=("B&A", "NYC"))})
        assert ba.status == "merged" and ba.merged_into_id == nyc.id
        assert nyc.shares_issued == issued
        assert {s.get(Route, x.route_id).code for x in nyc.lines} == {"NYC", "B&A"}


def test_rate_war_cuts_both_roads(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        nyc, penn = _rr(s, g, "NYC"), _rr(s, g, "PENN")
        nynh = s.query(Route).filter_by(game_id=g.id, code="NYNH").one()
        ny1 = s.query(Route).filter_by(game_id=g.id, code="NY1").one()
        s.add(Line(railroad_id=nyc.id, route_id=nynh.id, built_turn=0))
        s.add(Line(railroad_id=penn.id, route_id=ny1.id, built_turn=0))
        nynh.owner_id, ny1.owner_id = nyc.id, penn.id
        _make_directors(s, g, "NYC", {1}, 500)
        nyc.president_id, g.players[0].slot1_id = g.players[0].id, nyc.id
        s.flush()
        s.expire_all()
        ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("PENN", 25)])])})
        from pbm.cr.engine.operations import rate_war_losses

        from pbm.cr.engine.operations import revenue_parts

        parts = {c: revenue_parts(ctx, ctx.railroads[c]) for c in ("NYC", "PENN")}
        losses = rate_war_losses(ctx, parts)
        # both roads lose 25 % of what they earn along their parallel line, less than 25 % of
        # their whole gross (figures: round2::test_rate_war_cuts_only_the_revenue_along_the_parallel_lines_4_16)
        for code in ("NYC", "PENN"):
            assert 0 < losses[code] < parts[code]["gross"] // 4


def test_dividend_and_mogul_points(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s, humans=1)  # a human president's blank dividend keeps the rate (§10.2H2)
        nyc = _rr(s, g, "NYC")
        p1 = g.players[0]
        _make_directors(s, g, "NYC", {1}, 200)
        nyc.president_id, p1.slot1_id, nyc.cash = p1.id, nyc.id, 100_000
        s.flush()
        resolve_turn(s, g, {1: Orders(railroads=[RailroadOrders("NYC", dividend=4)])})
        assert nyc.last_dividend == 4 and nyc.dividend == 4
        assert p1.vp_mogul == 1 + 2  # director + √4 (§1.2)
        resolve_turn_again = Orders()  # standing orders: the rate stays
        g.turn += 1
        resolve_turn(s, g, {1: resolve_turn_again})
        assert nyc.dividend == 4


def test_president_loan_debt_repayment_and_treasury_purchase(db_url):
    """Steps 2–4 (§4.4A–C, §10.2B, §10.2C2)."""
    with session_scope(db_url) as s:
        g = tiny_game(s, humans=1)
        nyc = _rr(s, g, "NYC")
        p1 = g.players[0]
        _make_directors(s, g, "NYC", {1}, 200)
        nyc.president_id, p1.slot1_id = p1.id, nyc.id
        nyc.loan_debt, nyc.bond_debt, nyc.cash = 300, 1000, 500
        s.flush()
        ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("NYC", lend=700, repay_debt=1000,
                                                              treasury_to_president=30)])})
        from pbm.cr.engine.loans import presidents_lend_or_are_repaid, railroads_repay_bank_debt
        from pbm.cr.engine.treasury import treasury_stock_to_presidents

        nyc, p1 = ctx.railroads["NYC"], ctx.players[1]
        presidents_lend_or_are_repaid(ctx)
        assert nyc.president_debt == 700 and nyc.cash == 1200 and p1.cash == 1300
        railroads_repay_bank_debt(ctx)
        assert (nyc.loan_debt, nyc.bond_debt, nyc.cash) == (0, 300, 200)  # loans first (§10.2B)
        treasury = nyc.treasury_shares
        treasury_stock_to_presidents(ctx)
        assert nyc.treasury_shares == treasury - 30 and ctx.shares(p1, nyc) == 230
        assert p1.cash == 1300 - 30 * 10  # half of the $20 start price
        assert not check_money(ctx) and not check_shares(ctx)


def test_rail_builder_points_for_a_new_region(sqlite_url):
    """§1.2 Rail Builder: NYC reaches Buffalo (Great Lakes), the first railroad to do so: 2 × 2 VP."""
    with session_scope(sqlite_url) as s:
        g = tiny_game(s, humans=1)
        nyc = _rr(s, g, "NYC")
        p1 = g.players[0]
        _make_directors(s, g, "NYC", {1}, 200)
        nyc.president_id, p1.slot1_id, nyc.cash = p1.id, nyc.id, 100_000
        ny2 = s.query(Route).filter_by(game_id=g.id, code="NY2").one()
        ny2.owner_id = nyc.id
        s.flush()
        resolve_turn(s, g, {1: Orders(railroads=[RailroadOrders("NYC", build_per_mile=300)])})
        assert "NY2" in {s.get(Route, x.route_id).code for x in nyc.lines}
        assert p1.vp_builder == 4
        assert "great lakes" in g.state["regions_linked"]


def test_loaded_reads_the_rows_values_and_loads_an_expired_one(sqlite_url):
    """``context.loaded`` (the hot loops' cheap reads) gives the attribute's value even where the
    row's value is not loaded: an expired attribute is loaded from the database."""
    from sqlalchemy import select, update

    from pbm.cr.engine.context import loaded
    from pbm.db import session_scope
    from pbm.models import Holding
    from tests.cr.helpers import synthetic_game

    with session_scope(sqlite_url) as s:
        synthetic_game(s, name="reads", railroads=2, players=2)
    with session_scope(sqlite_url) as s:
        h = s.scalars(select(Holding).order_by(Holding.id)).first()
        h.shares = 7
        assert loaded(h, "shares", "short") == (7, h.short)
        s.flush()
        s.execute(update(Holding).where(Holding.id == h.id).values(short=3, shares=5)
                  .execution_options(synchronize_session=False))  # (the row in the session keeps 7)
        s.expire(h, ["short"])
        assert "short" not in h.__dict__
        assert loaded(h, "shares", "short") == (7, 3)  # (shares as loaded; short read again)
        fresh = Holding(shares=2)
        assert loaded(fresh, "shares", "short") == (2, None)  # never set: None, as the attribute reads
        s.rollback()

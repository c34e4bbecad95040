"""Rule queries (pbm.cr.queries) on a small hand-built state: every limit, both sides."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from pbm.cr import queries as q
from pbm.db import get_engine
from tests.cr.orders_helpers import build_small


@pytest.fixture
def small(db_url):
    session = Session(get_engine(db_url))
    try:
        s = build_small(session)
        yield s, q.load(session, s.game), session
    finally:
        session.rollback()
        session.close()


def test_climate_table_matches_section_5():
    assert [c.name for c in q.CLIMATES][::-1] == ["Boom", "Great", "Good", "Improved", "Normal", "Recession",
                                                 "Mild Depression", "Depression", "Panic"]
    assert q.climate("boom").loan_rate == 0.08 and q.climate("Boom").credit_margin == 0.80
    assert q.climate("Normal").loan_rate == 0.12 and q.climate("Normal").credit_margin == 0.70
    assert q.climate("Panic").loan_rate == 0.16 and q.climate("Panic").credit_margin == 0.60
    assert q.climate("Great").credit_margin == 0.775
    assert q.climate("Good").deposit_rate == pytest.approx(0.05)
    with pytest.raises(ValueError, match="unknown economic climate"):
        q.climate("Sunny")


def test_build_cost_range_is_200_to_400_and_double():
    assert q.build_cost_range("Panic") == (200, 400)
    assert q.build_cost_range("Boom") == (400, 800)
    lows = [q.build_cost_range(c.name)[0] for c in q.CLIMATES]
    assert lows == sorted(lows) and min(lows) == 200 and max(lows) == 400


def test_bid_count_limit_by_active_railroads():
    assert q.stock_bid_count_limit(6) == 3
    assert q.stock_bid_count_limit(15) == 3  # ruling R-O2: the gap counts low
    assert q.stock_bid_count_limit(16) == 4
    assert q.stock_bid_count_limit(30) == 4
    assert q.stock_bid_count_limit(31) == 5


def test_available_credit(small):
    s, view, _ = small
    p1 = s.players[1]
    assert q.credit_limit(10_000, "Normal") == 7000
    assert q.available_credit(view, p1) == 7000
    p1.loan = 3001
    assert q.available_credit(view, p1) == 7000 - 1501  # loan/2 rounded against the tycoon
    p1.loan = 20_000
    assert q.available_credit(view, p1) == 0
    view.game.climate = "Boom"
    p1.loan = 0
    assert q.available_credit(view, p1) == 8000


def test_max_stock_bid_twenty_percent_of_available(small):
    s, view, _ = small
    nyc = s.railroads["NYC"]
    # NYC: 1000 issued; directors P1 300, P3 150.
    # P2 (40 shares): available = 1000 - 450 - 40 = 510 -> 102
    assert q.available_shares(view, s.players[2], nyc) == 510
    assert q.max_stock_bid(view, s.players[2], nyc) == 102
    # P1 is a director: available = 1000 - 450 - 0 (own counted once) = 550 -> 110; 51 % cap: 510-300 = 210
    assert q.max_stock_bid(view, s.players[1], nyc) == 110
    # nobody holds BA except P1 (100 of 900): P2 available = 900-100 = 800 -> 160
    assert q.max_stock_bid(view, s.players[2], s.railroads["BA"]) == 160


def test_max_stock_bid_51_percent_cap(small):
    s, view, session = small
    nyc = s.railroads["NYC"]
    h = view.holding(s.players[1], nyc)
    h.shares = 450  # 45 %: cap = 510 - 450 = 60 < 20 % of 550
    assert q.max_stock_bid(view, s.players[1], nyc) == 60
    h.shares = 510
    assert q.max_stock_bid(view, s.players[1], nyc) == 0


def test_short_sale_limits(small):
    s, view, _ = small
    nyc, penn, ba = s.railroads["NYC"], s.railroads["PENN"], s.railroads["BA"]
    # §6.2C: P2 holds 40 of 1000 -> may sell 100: 40 owned + 60 short
    assert q.max_stock_sale(view, s.players[2], nyc) == 100
    assert q.max_short(view, s.players[2], nyc) == 60
    assert q.split_sale(100, 40) == (40, 60)
    # directors cannot sell short
    assert q.max_short(view, s.players[1], nyc) == 0
    assert q.max_stock_sale(view, s.players[1], nyc) == 300
    # PENN is cornered (directors hold 300 of 500): no short sales (§10.1C4)
    assert q.is_cornered(view, penn)
    assert q.max_short(view, s.players[1], penn) == 0
    assert not q.is_cornered(view, nyc)
    assert q.max_short(view, s.players[3], ba) == 90


def test_stock_cash_check_rulebook_example():
    """§6.1C: $1800; sell 20 NYC, buy 100 B&O, short 50 N&W, buy 100 SCL -> SCL cut to 50."""
    prices = {"NYC": 20, "B&O": 10, "N&W": 20, "SCL": 10}
    orders = [("NYC", "sell", 20, 20), ("B&O", "buy", 100, 0), ("N&W", "short", 50, 0), ("SCL", "buy", 100, 0)]
    checks = q.check_stock_cash(1800, orders, prices)
    assert [c.cash_after for c in checks] == [2000, 1000, 500, 0]
    assert [c.allowed for c in checks] == [20, 100, 50, 50]
    # a fifth purchase is aborted: nothing left
    checks = q.check_stock_cash(1800, orders + [("GT", "buy", 10, 0)], {**prices, "GT": 5})
    assert checks[-1].allowed == 0


def test_stock_cash_check_short_needs_half_price():
    checks = q.check_stock_cash(100, [("X", "short", 50, 0)], {"X": 10})
    assert checks[0].allowed == 20  # 20 × $5 = $100
    checks = q.check_stock_cash(100, [("X", "sell", 50, 30)], {"X": 10})
    assert checks[0].allowed == 50  # 30 owned (+150 credit) then 20 short (−100)


def test_pcs_for_sale_and_bid_counts(small):
    s, view, _ = small
    offers = {o.code: o for o in q.pcs_for_sale(view)}
    assert set(offers) == {"HRL", "LS", "MS"}
    assert offers["HRL"].asking == 700 and offers["HRL"].seller is None
    assert q.pc_bids_allowed(view, s.players[1]) == 2
    assert q.pc_bids_allowed(view, s.players[2]) == 1
    # a PC a player offered last turn is for sale; one offered this turn is not (§10.1B2)
    bo = s.pcs["B&O"]
    bo.for_sale, bo.asking_price, bo.offered_turn = True, 900, view.turn - 1
    assert "B&O" in {o.code for o in q.pcs_for_sale(view)}
    bo.offered_turn = view.turn
    assert "B&O" not in {o.code for o in q.pcs_for_sale(view)}


def test_pc_ask_range(small):
    s, view, _ = small
    bo = s.pcs["B&O"]  # 160 miles, paid 800
    assert q.pc_ask_range(view, bo) == (160, 1600)  # $10/mile beats 960
    bo.paid = 2000
    assert q.pc_ask_range(view, bo) == (160, 2400)
    bo.for_sale, bo.asking_price = True, 3000
    assert q.pc_ask_range(view, bo) == (160, 2400)  # §10.1B1b: never more than 20 % over what was paid (R-O6)
    bo.asking_price = 1800
    assert q.pc_ask_range(view, bo) == (160, 2160)  # §10.1B1d: 20 % over the current asking price


def test_pc_merge_targets(small):
    s, view, _ = small
    hrl = s.pcs["HRL"]  # New York–Albany touches NYC and BA at Albany; double with NY1
    assert q.mergeable_railroads(view, hrl) == ["NYC", "BA"]
    why = q.pc_merge_targets(view, hrl)
    assert "does not connect" in why["PENN"]
    s.routes["NY1"].owner_id = s.railroads["NYC"].id  # NYC now owns the twin RoW
    view = q.load(_session(s), s.game)
    assert "double connection" in q.pc_merge_targets(view, s.pcs["HRL"])["NYC"]
    assert q.mergeable_railroads(view, s.pcs["B&O"]) == ["PENN"]


def _session(s):
    from sqlalchemy.orm import object_session

    return object_session(s.game)


def test_valid_rows(small):
    s, view, _ = small
    nyc, penn, ba = s.railroads["NYC"], s.railroads["PENN"], s.railroads["BA"]
    assert q.valid_rows(view, nyc) == ["NY1", "NY2", "NY3", "VT1"]
    # PENN: lines Philadelphia–Pittsburgh, RoW PA1 Pittsburgh–Cleveland: NJ1, NY3, NY2 (via its RoW), IN2
    assert q.valid_rows(view, penn) == ["NY2", "NY3", "NJ1", "IN2"]
    assert "already owns the RoW PA1" in q.may_bid_for_row(view, penn)
    assert q.may_bid_for_row(view, penn, building_or_abandoning=True) is None
    assert q.may_bid_for_row(view, nyc) is None
    assert q.row_status(view, nyc, s.routes["PA1"]) == "PA1 is owned by PENN"
    assert "does not connect" in q.row_status(view, nyc, s.routes["IN1"])
    assert "private company" in q.row_status(view, ba, s.routes["HRL"])


def test_gateway_rule_one_route_into_chicago(small):
    s, view, session = small
    penn = s.railroads["PENN"]
    s.routes["IN2"].owner_id = penn.id  # pretend PENN reached Cleveland–Chicago as its RoW
    s.routes["PA1"].owner_id = None
    session.add(__import__("pbm.models", fromlist=["Line"]).Line(railroad_id=penn.id, route_id=s.routes["PA1"].id))
    session.flush()
    view = q.load(session, s.game)
    # LS/MS/IN1 don't touch PENN except IN1 at Chicago: second route into Chicago is prohibited
    assert "Chicago" in q.row_status(view, penn, s.routes["IN1"])
    assert "IN1" not in q.valid_rows(view, penn)


def test_merge_check(small):
    s, view, session = small
    nyc, ba, penn = s.railroads["NYC"], s.railroads["BA"], s.railroads["PENN"]
    p1, p2 = s.players[1], s.players[2]
    assert q.merge_check(view, p1, ba, nyc).allowed
    assert "not President of PENN" in q.merge_check(view, p1, ba, penn).reason
    penn.president_id = p1.id
    assert "not connected" in q.merge_check(view, p1, ba, penn).reason
    nyc.status = "bankrupt"
    assert "bankrupt" in q.merge_check(view, p1, ba, nyc).reason
    assert q.merge_check(view, p1, nyc, ba).allowed  # a bankrupt road may merge into a solvent one
    assert "itself" in q.merge_check(view, p1, ba, ba).reason


def test_merge_check_parallel_routes_drop_a_row(small):
    s, view, session = small
    nyc, ba = s.railroads["NYC"], s.railroads["BA"]
    s.routes["NY1"].owner_id = ba.id  # BA owns RoW NY1; NYC gets HRL (the twin) as a line
    session.add(__import__("pbm.models", fromlist=["Line"]).Line(railroad_id=nyc.id, route_id=s.routes["HRL"].id))
    session.flush()
    view = q.load(session, s.game)
    check = q.merge_check(view, s.players[1], ba, nyc)
    assert check.allowed and check.dropped == ("NY1",)


def test_equipment_and_costs(small):
    s, view, _ = small
    nyc = s.railroads["NYC"]
    assert q.best_locomotive(view) == 1
    assert q.locomotive_upgrades(view, nyc) == {}
    view.game.turn = 13
    assert q.best_locomotive(view) == 4
    assert q.locomotive_upgrades(view, nyc) == {2: 1500, 3: 3000, 4: 4500}  # $10 × steps × 150 miles
    view.game.state = {"locomotive": 2, "technologies": ["A", "B"]}
    assert q.best_locomotive(view) == 2
    assert q.technology_options(view, nyc) == {"B": 1500}  # Buffalo is size 3: no Grand Station
    assert q.technology_options(view, s.railroads["BA"]) == {"A": 10_000, "B": 2000}  # Boston is size 4
    assert q.political_minimum(view, nyc) == 150
    assert q.double_track_cost(view, s.routes["NYC"]) == 75 * 150  # 25 % of $300 × 150 miles
    assert q.build_cost(view, s.railroads["PENN"], 300) == 300 * 130 + 300 * (16 + 9)  # §4.6D: Pittsburgh and Cleveland
    assert q.is_civil_war(11) and q.is_civil_war(12) and not q.is_civil_war(13)


def test_parallel_railroads(small):
    s, view, session = small
    Line = __import__("pbm.models", fromlist=["Line"]).Line
    session.add(Line(railroad_id=s.railroads["NYC"].id, route_id=s.routes["HRL"].id))
    session.add(Line(railroad_id=s.railroads["BA"].id, route_id=s.routes["NY1"].id))
    session.flush()
    view = q.load(session, s.game)
    assert q.parallel_railroads(view, s.railroads["NYC"]) == ["BA"]
    assert q.parallel_railroads(view, s.railroads["PENN"]) == []

"""Every worked example of the rulebook, as pure-function tests (no database)."""

from __future__ import annotations

import math

import pytest

from pbm.cr.engine import tables
from pbm.cr.engine.climate import next_rank
from pbm.cr.engine.construction import director_bonus_each, overspend_split
from pbm.cr.engine.market import StockLine, allocate, check_stock_orders, market_price, trade_price
from pbm.cr.engine.operations import expense_ratio
from pbm.cr.engine.victory import baron_points, magnate_points, mogul_points, prodigal_points, robber_baron_points


def test_prodigal_example_1_2():
    """§1.2: A $15,000, B $10,000, C $4,000, D $1,000 → 13, 9, 5, 3."""
    assert prodigal_points({1: 15000, 2: 10000, 3: 4000, 4: 1000}) == {1: 13, 2: 9, 3: 5, 4: 3}


def test_prodigal_needs_1000_and_always_hands_out_30():
    assert prodigal_points({1: 999}) == {}
    points = prodigal_points({1: 5000, 2: 5000, 3: 1000, 4: 1000, 5: 1000, 6: 1000, 7: 1000})
    assert sum(points.values()) == 30
    assert points[1] >= points[2] > points[3]  # equal spenders: the leftover by player number (E-1.2c)


def test_stock_market_example_6_3h_as_printed():
    """§6.3H: 200 offered, 400 bid at $20 → $40 end, $30 trade; 25/100/75 shares.

    The printed example uses the plain ratio; §6.3D's exponent of 0.7 is the
    formula the engine plays by (ruling E-6.3D), checked below."""
    supply, demand = 50 + 50 + 100, 50 + 200 + 150
    end = market_price(20, demand, supply, exponent=1.0)
    assert end == 40 and trade_price(20, end) == 30
    assert allocate(supply, {"1": 50, "2": 200}, 150) == {"1": 25, "2": 100, "public": 75}


def test_stock_market_example_6_3h_reversed():
    """§6.3H: bids and offers reversed → $10 end, $15 trade, bidders get all they bid for,
    the Public buys the rest."""
    end = market_price(20, 200, 400, exponent=1.0)
    assert end == 10 and trade_price(20, end) == 15
    assert allocate(400, {"1": 50, "2": 100}, 50) == {"1": 50, "2": 100, "public": 250}


def test_stock_market_formula_with_exponent():
    """§6.3D: start × (D/S)^0.7, rounded down to the cent; trade price rounded up."""
    assert market_price(20, 400, 200) == math.floor(20 * 2 ** 0.7 * 100) / 100 == 32.49
    assert trade_price(20, 32.49) == 26.25
    assert market_price(20, 200, 400) == 12.31
    assert market_price(20, 100, 100) == 20


def test_stock_market_limits():
    """§6.3D: the ratio stays within 1/20 … 20 and the price never passes $200."""
    assert market_price(10, 1000, 1) == math.floor(10 * 20 ** 0.7 * 100) / 100
    assert market_price(150, 1000, 1) == 200
    assert market_price(20, 1, 1000) == math.floor(20 * (1 / 20) ** 0.7 * 100) / 100
    assert market_price(20, 50, 0) == math.floor(20 * 20 ** 0.7 * 100) / 100
    assert market_price(20, 0, 0) == 20


def test_order_checking_example_6_1c():
    """§6.1C: $1800; sell 20 NYC @20 → $2000; buy 100 B&O @10 → $1000; short 50 N&W @20
    → $500; buy 100 SCL @10 → cut to 50 SCL, nothing left."""
    checked = check_stock_orders(1800, [
        StockLine("NYC", "sell", 20, owned=20, price=20),
        StockLine("B&O", "buy", 100, price=10),
        StockLine("N&W", "sell", 50, owned=0, price=20),
        StockLine("SCL", "buy", 100, price=10),
        StockLine("PENN", "buy", 10, price=10),
    ])
    assert [c.available_after for c in checked] == [2000, 1000, 500, 0, 0]
    assert [c.allowed for c in checked] == [20, 100, 50, 50, 0]
    assert checked[2].short == 50 and checked[2].sold == 0


def test_short_sale_example_6_2c():
    """§6.2C: 1000 issued, 40 owned: a sale of 100 sells the 40 owned, then 60 short."""
    checked = check_stock_orders(10_000, [StockLine("X", "sell", 100, owned=40, price=20)])
    assert (checked[0].sold, checked[0].short) == (40, 60)
    # credit: +40 × 20 / 2, then the short deducts half its value
    assert checked[0].available_after == 10_000 + 400 - 600


def test_mogul_square_roots_1_2():
    """§1.2: dividends $4 and $2 → 2 VP and 1 VP, with .41 saved."""
    assert mogul_points([4], 0.0) == (2, 0.0)
    whole, saved = mogul_points([4, 2], 0.0)
    assert whole == 3 and saved == pytest.approx(0.414214, abs=1e-6)
    assert mogul_points([1], saved) == (1, saved)
    assert mogul_points([], 0.7) == (0, 0.7)
    assert mogul_points([], 0.99) == (0, 0.99)
    assert mogul_points([2, 2], 0.2)[0] == 3  # 0.2 + 1.414 + 1.414 = 3.03


def test_overspend_split_4_6c():
    """§4.6C: $90/mile over with 2 directors → $30/mile each."""
    each, rest = overspend_split(90, 1, 2)
    assert each == 30 and rest == 30
    each, rest = overspend_split(90, 100, 2)
    assert each == 3000 and rest == 3000


def test_double_track_4_15():
    """§4.15: value 4 and value 5 cities (sizes 4 and 5: 16 + 25) → +41 %."""
    assert tables.double_track_percent(4 * 4, 5 * 5) == 41


def test_max_efficiency_4_5c():
    """§4.5C: 3,521 miles → 88 % maximum efficiency."""
    assert tables.max_efficiency(3521) == 88
    assert tables.max_efficiency(3000) == 99
    assert tables.max_efficiency(3001) == 98
    assert tables.max_efficiency(3050) == 98
    assert tables.max_efficiency(800, locomotive=1, best=4) == 90  # ruling E-4.17: 3 per generation


def test_locomotive_cost_4_17():
    """§4.17: Lion (1) → Mogul (4) costs $30 a mile."""
    assert tables.locomotive_cost(1, 1, 4) == 30
    assert tables.locomotive_cost(150, 1, 4) == 4500


def test_director_bonus_4_3b():
    """§4.3B: 10 % each up to 5 directors; more than 5 share 50 % equally."""
    assert director_bonus_each(1000, 1) == 100
    assert director_bonus_each(1000, 5) == 100
    assert director_bonus_each(1000, 6) == 83  # 50 % ÷ 6
    assert director_bonus_each(1000, 8) == 62
    assert 8 * director_bonus_each(1000, 8) <= 500


def test_expense_curve_4_10b():
    """§4.10B: Excellent efficiency costs about 60–70 % of revenue; 50 or less, all of it."""
    for e in range(90, 100):
        assert 0.60 <= expense_ratio(e) <= 0.70
    assert expense_ratio(50) == pytest.approx(1.0)
    assert expense_ratio(40) > 1.0


def test_stock_bid_count_6_1a():
    assert tables.stock_bid_count_limit(14) == 3
    assert tables.stock_bid_count_limit(15) == 3
    assert tables.stock_bid_count_limit(16) == 4
    assert tables.stock_bid_count_limit(30) == 4
    assert tables.stock_bid_count_limit(31) == 5


def test_climate_chart_5():
    assert [c.loan_rate for c in tables.CLIMATES] == [0.16, 0.15, 0.14, 0.13, 0.12, 0.11, 0.10, 0.09, 0.08]
    assert tables.climate("Boom").credit_margin == 0.80
    assert tables.climate("panic").deposit_rate == 0.08
    assert [c.build_min for c in (tables.CLIMATES[0], tables.CLIMATES[-1])] == [200, 400]


def test_panic_only_after_good_5():
    """§5: a Panic follows only a Good or better turn; slides stop at Depression."""
    for rank in range(0, 6):
        for u in (0.0, 0.5, 0.99):
            for v in (0.0, 0.5, 0.8, 0.99):
                assert next_rank(rank, u, v) != 0 or rank == 0
    assert next_rank(6, 0.0, 0.5) == 0
    assert next_rank(8, 0.29, 0.5) == 0


def test_robber_baron_1_2():
    points = robber_baron_points({1: 500, 2: 400, 3: 300, 4: 200, 5: 100, 6: 50}, bankrupt={6})
    assert points == {1: 5, 2: 4, 3: 3, 4: 2, 5: 1, 6: 0}
    assert robber_baron_points({1: 100, 2: 100, 3: 50}, set()) == {1: 5, 2: 5, 3: 3}


def test_magnate_1_2():
    assert magnate_points({"Atlantic"}) == 1
    assert magnate_points({"Atlantic", "Central"}) == 2 + 2
    assert magnate_points({"Atlantic", "Central", "Gulf", "Pacific"}) == 4 + 2 + 2 + 3 + 5


def test_baron_1_2():
    scores = {1: {"robber_baron": 10, "rail_mogul": 5, "rail_builder": 0, "rail_magnate": 4, "rail_prodigal": 0},
              2: {"robber_baron": 5, "rail_mogul": 10, "rail_builder": 0, "rail_magnate": 2, "rail_prodigal": 0}}
    assert baron_points(scores) == {1: 100 + 50 + 100, 2: 50 + 100 + 50}

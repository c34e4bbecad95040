"""Continental Rails II rules that mutation testing found untested (issue 31, part 2).

Each test pins one rule's outcome (a figure, a limit, a boundary) so that changing the rule in
the engine makes it fail; each names its rule section and quotes the rulebook where it gives
the words or a worked example.  ``scripts/mutation_cr.py`` reruns the mutation tests; the
scores and the equivalent mutants that survive are in docs/cr/rules-map.md, "Mutation testing".
All on a tiny hand-built game (SQLite), each well under a second.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from pbm.cr.engine import tables
from pbm.cr.engine.checks import check_money
from pbm.cr.orders import Orders, RailroadOrders
from pbm.db import session_scope
from tests.cr.helpers import kinds as _kinds
from tests.cr.helpers import tiny_game
from tests.cr.helpers import turn_context as _ctx


# --------------------------------------------------------------------------- §4.12 dividends
def _pay(s, g, code, *, cash, rate=None, profit=0, computer=False):
    from pbm.cr.engine.operations import pay_dividend

    ctx = _ctx(s, g)
    rr = ctx.railroads[code]
    rr.cash = cash
    if computer:
        ctx.rr_orders.pop(code, None)
        rr.president_id = None
    else:
        ctx.rr_orders[code] = RailroadOrders(code, dividend=rate)
    pay_dividend(ctx, rr, profit)
    return ctx, rr


def test_dividend_is_capped_at_99_dollars_a_share_4_12(tiny):
    """§4.12: "Dividends may not exceed $99 per share on any turn." An order of $150 pays $99."""
    s, g = tiny
    ctx, nyc = _pay(s, g, "NYC", cash=10**8, rate=150)
    assert nyc.dividend == 99 and nyc.last_dividend == 99 and ctx.scratch.dividends_paid["NYC"] == 99
    assert nyc.cash == 10**8 - 99 * nyc.shares_issued
    holders = {ctx.player_by_id[h.player_id].number: h.shares for h in nyc.holdings}
    assert ctx.players[1].cash == 2000 + 99 * holders[1]
    ev = _kinds(ctx, "dividend")
    assert [(e["amount"], e["data"]["per_share"]) for e in ev] == [(99 * nyc.shares_issued, 99)]


def test_dividend_rate_of_99_is_paid_in_full_and_a_negative_order_pays_nothing_4_12(tiny):
    s, g = tiny
    ctx, nyc = _pay(s, g, "NYC", cash=10**8, rate=99)
    assert nyc.last_dividend == 99
    ctx, nyc = _pay(s, g, "PENN", cash=10**8, rate=-3)
    assert nyc.dividend == 0 and nyc.last_dividend == 0 and not _kinds(ctx, "dividend")


def test_dividend_is_limited_to_the_cash_available_10_2h(tiny):
    """§10.2H1: "The Railroad will pay up to this amount in dividends, up to the amount of cash
    it has available": $5 ordered on 666 NYC shares with $2,000 cash pays $3 a share (⌊2000/666⌋)."""
    s, g = tiny
    ctx, nyc = _pay(s, g, "NYC", cash=2000, rate=5)
    assert nyc.shares_issued == 666
    assert nyc.last_dividend == 3 and nyc.dividend == 5  # the standing rate is kept
    assert nyc.cash == 2000 - 3 * 666
    # exactly enough cash pays the full rate
    ctx, nyc = _pay(s, g, "NYC", cash=5 * 666, rate=5)
    assert nyc.last_dividend == 5 and nyc.cash == 0
    # no cash, no dividend
    ctx, nyc = _pay(s, g, "NYC", cash=-10, rate=5)
    assert nyc.last_dividend == 0 and nyc.cash == -10 and not _kinds(ctx, "dividend")


def test_a_bankrupt_road_pays_no_dividend_4_11b(tiny):
    """§4.11B: a bankrupt railroad cannot "pay any dividends during a turn it is bankrupt"."""
    s, g = tiny
    from pbm.cr.engine.operations import pay_dividend

    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.cash = 10**6
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=5)
    ctx.scratch.bankrupt_at_start.add("NYC")
    pay_dividend(ctx, nyc, 10**5)
    assert nyc.last_dividend == 0 and nyc.cash == 10**6
    ctx = _ctx(s, g)
    penn = ctx.railroads["PENN"]
    penn.cash, penn.status = 10**6, "bankrupt"
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", dividend=5)
    pay_dividend(ctx, penn, 10**5)
    assert penn.last_dividend == 0 and penn.cash == 10**6


def test_computer_president_pays_half_the_profit_capped_at_99_e_4_12():
    """§4.12 "A Railroad without a player President will set a reasonable dividend rate"
    (ruling E-4.12: half the profit, per share, rounded down, at most $99)."""
    from types import SimpleNamespace

    from pbm.cr.engine.operations import reasonable_dividend

    rr = SimpleNamespace(shares_issued=1000)
    assert reasonable_dividend(rr, 10_000) == 5
    assert reasonable_dividend(rr, 9_999) == 4
    assert reasonable_dividend(rr, 198_000) == 99 and reasonable_dividend(rr, 10**7) == 99
    assert reasonable_dividend(rr, 0) == 0 and reasonable_dividend(rr, -5000) == 0
    assert reasonable_dividend(SimpleNamespace(shares_issued=0), 10_000) == 0
    assert reasonable_dividend(SimpleNamespace(shares_issued=1), 2) == 1


def test_computer_president_sets_the_reasonable_rate_in_operations_e_4_12(tiny):
    s, g = tiny
    ctx, nyc = _pay(s, g, "NYC", cash=10**6, profit=6660, computer=True)
    assert nyc.dividend == 5 and nyc.last_dividend == 5  # ⌊6660 × ½ / 666⌋


# --------------------------------------------------------------------------- §4.10B, §4.18 expenses
def test_operating_expenses_by_efficiency_and_cost_technologies_4_10b():
    """§4.10B (ruling E-4.10B): costs are a straight line, 50 → 100 %, 95 → 65 % of revenue;
    at 50 or less they equal or exceed revenue, technology or not; §4.18: each cost-saving
    technology cuts them."""
    from types import SimpleNamespace

    from pbm.cr.engine.operations import expense_ratio, operating_expenses

    assert expense_ratio(50) == pytest.approx(1.0) and expense_ratio(95) == pytest.approx(0.65)
    assert expense_ratio(95 - 45) == pytest.approx(1.0) and expense_ratio(5) == pytest.approx(1.35)
    rr = SimpleNamespace(efficiency=95, technologies=[])
    assert operating_expenses(rr, 100_000) == 65_000
    letter, saving = next(iter(tables.COST_TECHS.items()))
    rr.technologies = [letter]
    assert operating_expenses(rr, 100_000) == math.floor(100_000 * 0.65 * (1 - saving))
    poor = SimpleNamespace(efficiency=50, technologies=list(tables.COST_TECHS))
    assert operating_expenses(poor, 100_000) == 100_000
    assert operating_expenses(SimpleNamespace(efficiency=40, technologies=list(tables.COST_TECHS)), 90_000) == 90_000
    worse = SimpleNamespace(efficiency=20, technologies=list(tables.COST_TECHS))
    assert operating_expenses(worse, 90_000) == math.floor(90_000 * expense_ratio(20) * math.prod(
        1 - v for v in tables.COST_TECHS.values())) > 90_000
    fair = SimpleNamespace(efficiency=51, technologies=list(tables.COST_TECHS))
    assert operating_expenses(fair, 100_000) < 100_000


# --------------------------------------------------------------------------- §4.13 mergers
def _three_roads(s, **kw):
    """NYC (New York–Albany, 666 shares at $20), PENN (Philadelphia–Pittsburgh) and B&A
    (Boston–Albany, 905 shares at $30): the B&A meets the NYC at Albany, the PENN meets neither.
    Tycoon 1 presides all three."""
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": "NYC", "price": 20}, {"code": "PENN", "price": 15},
                                               {"code": "B&A", "price": 30}], **kw)
    from pbm.models import Railroad

    for rr in s.query(Railroad).filter_by(game_id=g.id):
        rr.president_id = g.players[0].id
    s.flush()
    return g


def test_merger_needs_roads_connected_at_the_start_and_a_solvent_survivor_4_13a(sqlite_url):
    """§4.13A1 "The Railroads must be connected at the start of the turn"; A2 "The railroad
    merged into cannot be bankrupt"; §10.1E: only the president of both at the start."""
    from pbm.cr.engine.mergers import merger_problem

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, penn, ba = (ctx.railroads[c] for c in ("NYC", "PENN", "B&A"))
        assert merger_problem(ctx, 1, ba, nyc) is None
        assert merger_problem(ctx, 1, nyc, ba) is None
        assert "not connected at the start" in merger_problem(ctx, 1, penn, nyc)
        assert "not connected at the start" in merger_problem(ctx, 1, nyc, penn)
        assert "were not president" in merger_problem(ctx, 2, ba, nyc)
        assert "two different" in merger_problem(ctx, 1, nyc, nyc)
        assert "two different" in merger_problem(ctx, 1, None, nyc)
        nyc.status = "bankrupt"
        assert "bankrupt" in merger_problem(ctx, 1, ba, nyc)
        assert merger_problem(ctx, 1, nyc, ba) is None  # a bankrupt road may merge into a solvent one
        ctx.scratch.start_towns["NYC"] = set()  # the line to Albany built this turn does not count
        nyc.status = "active"
        assert "not connected at the start" in merger_problem(ctx, 1, ba, nyc)


def test_merger_averages_the_price_and_exchanges_shares_one_for_one_4_13c(sqlite_url):
    """§4.13C: "one share of stock for every share of the merging railroad. The new stock price
    is averaged based on the number of each issued": (666 × $20 + 905 × $30) / 1,571 = $25.76."""
    from pbm.cr.engine.mergers import merge

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        assert (nyc.shares_issued, ba.shares_issued) == (666, 905)
        before = {n: (ctx.shares(p, nyc), ctx.shares(p, ba)) for n, p in ctx.players.items()}
        treasury, public, authorized = nyc.treasury_shares + ba.treasury_shares, nyc.shares_public + ba.shares_public, \
            nyc.shares_authorized + ba.shares_authorized
        cash = nyc.cash + ba.cash
        merge(ctx, ba, nyc)
        assert nyc.price == 25.76
        assert nyc.shares_issued == 1571 and nyc.treasury_shares == treasury and nyc.shares_public == public
        assert nyc.shares_authorized == authorized
        assert all(ctx.shares(ctx.players[n], nyc) == a + b for n, (a, b) in before.items())
        assert ba.shares_issued == ba.shares_public == ba.treasury_shares == ba.shares_authorized == 0
        assert all(h.shares == 0 for h in ba.holdings)
        assert ba.status == "merged" and ba.merged_into_id == nyc.id and ba.president_id is None
        assert nyc.cash == cash and ba.cash == 0
        assert {ctx.route_by_id[x.route_id].code for x in nyc.lines} == {"NYC", "B&A"} and not ba.lines
        assert ctx.scratch.merged_into == {"B&A": "NYC"}
        assert not check_money(ctx)


def test_merger_upgrade_is_paid_by_bonds_4_13e(sqlite_url):
    """§4.13E: the survivor has the higher engine and every technology of both, "but must pay the
    normal costs to upgrade all lines lacking the engines or technology. Bonds will be issued to
    finance this cost": the NYC's 148 miles from engine 1 to 3 ($10 a mile a step, §4.17) and
    technology B ($10 a mile, §4.18), the B&A's 201 miles technology C; debts and land add up."""
    from pbm.cr.engine.mergers import merge

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        ba.locomotive, ba.technologies, ba.efficiency, ba.grand_station = 3, ["A", "B"], 95, True
        nyc.locomotive, nyc.technologies, nyc.efficiency = 1, ["C"], 80
        nyc.bond_debt, ba.bond_debt, nyc.loan_debt, ba.loan_debt = 1000, 2000, 30, 40
        nyc.land, ba.land, ba.president_debt = 5, 7, 11
        merge(ctx, ba, nyc)
        upgrade = 10 * 2 * 148 + 10 * 148 + 10 * 201
        assert [e["data"]["upgrade_cost"] for e in _kinds(ctx, "railroads-merged")] == [upgrade]
        assert nyc.bond_debt == 3000 + upgrade and nyc.loan_debt == 70
        assert {e["step"] for e in ctx.ledger} == {"12"}  # the bonds of Appendix A step 12
        assert (nyc.land, nyc.president_debt) == (12, 11) and (ba.bond_debt, ba.loan_debt, ba.land) == (0, 0, 0)
        assert nyc.locomotive == 3 and nyc.technologies == ["A", "B", "C"] and nyc.grand_station
        assert nyc.efficiency == math.floor((95 * 201 + 80 * 148) / 349)


def test_merger_of_equal_equipment_costs_nothing_4_13e(sqlite_url):
    from pbm.cr.engine.mergers import merge

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        ba.technologies, nyc.technologies = ["A", "B"], ["B"]  # A (a grand station) is no line upgrade
        bonds = nyc.bond_debt + ba.bond_debt
        merge(ctx, nyc, ba)
        assert ba.bond_debt == bonds and _kinds(ctx, "railroads-merged")[0]["data"]["upgrade_cost"] == 0


# --------------------------------------------------------------------------- §6.1A/B, §6.2 stock limits
def _holdings(s, g, code, shares: dict[int, int], directors=()):
    """Set tycoons' shares in ``code`` (the Public holds the rest) and mark ``directors``."""
    from pbm.models import Railroad

    rr = s.query(Railroad).filter_by(game_id=g.id, code=code).one()
    for h in rr.holdings:
        n = h.player.number
        if n in shares:
            rr.shares_public -= shares[n] - h.shares
            h.shares = shares[n]
        h.director = n in directors
    s.flush()


def test_max_bid_is_20_percent_of_the_available_stock_6_1b(tiny):
    """§6.1B: "You may bid for up to 20% of available stock ... issued shares minus the number
    of shares owned by all directors minus the shares you own." NYC: 666 issued, tycoons 1–4 own
    26 each, tycoon 2 a director with 100: tycoon 1 may bid ⌊20 % × (666 − 100 − 26)⌋ = 108."""
    from pbm.cr.engine.market import max_bid

    s, g = tiny
    ctx = _ctx(s, g)
    assert max_bid(ctx, ctx.players[1], ctx.railroads["NYC"]) == math.floor(0.2 * (666 - 26))  # 128
    _holdings(s, g, "NYC", {2: 100}, directors={2})
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    assert max_bid(ctx, ctx.players[1], nyc) == 108
    assert max_bid(ctx, ctx.players[2], nyc) == math.floor(0.2 * (666 - 100))  # a director's own shares once
    _holdings(s, g, "NYC", {1: 22, 2: 100}, directors={2})
    ctx = _ctx(s, g)
    assert max_bid(ctx, ctx.players[1], ctx.railroads["NYC"]) == math.floor(0.2 * (666 - 100 - 22)) == 108  # 108.8


def test_no_one_bids_beyond_51_percent_6_1a(tiny):
    """§6.1A: "No one can ever bid for more than 51% of the stock, so a player who owns 41% of
    the stock may only bid for 10% of the stock, and at 51% ownership cannot bid at all."
    NYC 666 issued: 41 % is 273 shares → ⌊0.51 × 666⌋ − 273 = 66 (10 %); 340 shares → 0."""
    from pbm.cr.engine.market import max_bid

    s, g = tiny
    _holdings(s, g, "NYC", {1: 273}, directors={1})
    ctx = _ctx(s, g)
    assert max_bid(ctx, ctx.players[1], ctx.railroads["NYC"]) == 66
    _holdings(s, g, "NYC", {1: 339}, directors={1})
    ctx = _ctx(s, g)
    assert max_bid(ctx, ctx.players[1], ctx.railroads["NYC"]) == 0
    _holdings(s, g, "NYC", {1: 400}, directors={1})
    ctx = _ctx(s, g)
    assert max_bid(ctx, ctx.players[1], ctx.railroads["NYC"]) == 0


def test_short_sales_up_to_10_percent_including_owned_shares_6_2a_c(tiny):
    """§6.2C: "If a RR has 1000 shares issued, and you own 40 shares, you may sell 100 shares
    (10% of issued stock)" — here 666 issued, 26 owned: 40 short, 66 in all; none for a
    director, none in a cornered stock (§6.4, §10.1C4)."""
    from pbm.cr.engine.market import is_cornered, max_short

    s, g = tiny
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    assert max_short(ctx, ctx.players[1], nyc) == 40
    _holdings(s, g, "NYC", {1: 0, 2: 66})
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    assert max_short(ctx, ctx.players[1], nyc) == 66 and max_short(ctx, ctx.players[2], nyc) == 0
    _holdings(s, g, "NYC", {2: 70}, directors={2})
    ctx = _ctx(s, g)
    assert max_short(ctx, ctx.players[2], ctx.railroads["NYC"]) == 0  # a director
    assert max_short(ctx, ctx.players[1], ctx.railroads["NYC"]) == 66
    # a director whose 67 of 666 fell below 10 % when treasury stock was issued (§10.2C) still may not short
    _holdings(s, g, "NYC", {2: 67}, directors={2})
    ctx = _ctx(s, g)
    ctx.railroads["NYC"].shares_issued = 700
    assert max_short(ctx, ctx.players[2], ctx.railroads["NYC"]) == 0
    assert max_short(ctx, ctx.players[3], ctx.railroads["NYC"]) == 70 - 26
    _holdings(s, g, "NYC", {2: 332, 3: 1}, directors={2, 3})
    ctx = _ctx(s, g)
    assert not is_cornered(ctx, ctx.railroads["NYC"])  # the directors own 333 of 666: half is not more than half
    _holdings(s, g, "NYC", {2: 333, 3: 1}, directors={2, 3})
    ctx = _ctx(s, g)
    assert is_cornered(ctx, ctx.railroads["NYC"]) and max_short(ctx, ctx.players[1], ctx.railroads["NYC"]) == 0


def test_orders_are_cut_to_the_limits_in_the_tycoons_sequence_6_1a(tiny):
    """§6.1A: a bid over the maximum "will automatically be lowered to the maximum"; a sale
    beyond the shares owned plus 10 % short is lowered; one transaction per railroad."""
    from pbm.cr.engine.market import _player_lines
    from pbm.cr.orders import StockOrder

    s, g = tiny
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    lines = _player_lines(ctx, p1, [StockOrder("NYC", "buy", 500, 1), StockOrder("NYC", "sell", 5, 2),
                                    StockOrder("PENN", "sell", 500, 3), StockOrder("PENN", "buy", 0, 4)])
    assert [(x.railroad, x.action, x.shares, x.owned) for x in lines] == [("NYC", "buy", 128, 0),
                                                                       ("PENN", "sell", 135, 54)]
    assert [x.price for x in lines] == [20.0, 15.0]
    texts = [e["text"] for e in ctx.events if e["kind"] in ("stock-cut", "stock-void")]
    assert any("maximum bid of 128" in t for t in texts) and any("lowered to 135" in t for t in texts)
    assert any("only one transaction per railroad" in t for t in texts)


def test_six_transactions_a_turn_6_1a(sqlite_url):
    """§6.1A: "Each tycoon may make 6 stock market transactions per turn ... You may make up to
    6 sales of stock": a seventh sale is void; with fewer than 15 railroads, 3 bids at most."""
    from pbm.cr.engine.market import _player_lines
    from pbm.cr.orders import StockOrder
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    codes = ["NYC", "PENN", "B&A", "ERIE", "NYNH", "LS", "MC", "P&FW"]
    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": c} for c in codes], bank_pcs=[])
        ctx = _ctx(s, g)
        p1 = ctx.players[1]
        lines = _player_lines(ctx, p1, [StockOrder(c, "sell", 5, i) for i, c in enumerate(codes, start=1)])
        assert [x.railroad for x in lines] == codes[:6]
        void = [e for e in ctx.events if e["kind"] == "stock-void" and "more than 6" in e["text"]]
        assert [(e["player_number"], e["private_to"]) for e in void] == [(1, [1])] * 2  # each void order is told
        lines = _player_lines(ctx, p1, [StockOrder(c, "buy", 5, i) for i, c in enumerate(codes, start=1)])
        assert [x.railroad for x in lines] == codes[:3]
        assert [e for e in ctx.events if e["kind"] == "stock-void" and "only 3 bids" in e["text"]]


# --------------------------------------------------------------------------- §3.5 credit and recalls
def test_credit_limit_and_available_credit_3_5a():
    """§3.5A: "Credit limit = Net Worth × econ. level %" (Normal 70 %, Depression 62.5 %);
    "Available Credit = Credit Limit − Loan/2" (a half dollar counts against the tycoon)."""
    from pbm.cr.engine.loans import available_credit, credit_limit

    assert credit_limit(10_000, 0.70) == 7_000 and credit_limit(10_001, 0.625) == 6_250
    assert credit_limit(-5_000, 0.70) == 0
    assert available_credit(7_000, 3_000) == 5_500 and available_credit(7_000, 3_001) == 5_499
    assert available_credit(7_000, 15_000) == -500


def test_borrowing_counts_half_the_loan_against_the_credit_3_5a_10_1a(tiny):
    """§10.1A1 with §3.5A: tycoon 1's net worth $3,330 (cash 2,000 + 26 NYC × $20 + 54 PENN ×
    $15), Normal: limit $2,331; with a $1,000 loan he may borrow $2,331 − $500 = $1,831 more."""
    from pbm.cr.engine.loans import max_borrow, tycoons_borrow_or_repay

    s, g = tiny
    g.players[0].loan, g.players[1].loan, g.players[1].recall = 1000, 800, 500
    s.flush()
    ctx = _ctx(s, g, {1: Orders(borrow=10**6), 2: Orders(repay=300)})
    assert ctx.players[1].net_worth == 3330 and max_borrow(ctx, ctx.players[1]) == 1831
    tycoons_borrow_or_repay(ctx)
    p1, p2 = ctx.players[1], ctx.players[2]
    assert p1.loan == 2831 and p1.cash == 2000 + 1831
    assert [e["amount"] for e in _kinds(ctx, "borrow-cut")] == [1831]
    # §3.5C: "Any portion of the loan recall which you repay at the start of the turn ... is
    # deducted from your loan"
    assert (p2.loan, p2.recall, p2.cash) == (500, 200, 1700)


def test_repayment_is_limited_to_cash_and_loan_10_1a2(tiny):
    from pbm.cr.engine.loans import tycoons_borrow_or_repay

    s, g = tiny
    g.players[0].loan, g.players[0].cash = 5000, 1200
    g.players[1].loan = 100
    s.flush()
    ctx = _ctx(s, g, {1: Orders(repay=3000), 2: Orders(repay=3000)})
    tycoons_borrow_or_repay(ctx)
    assert (ctx.players[1].loan, ctx.players[1].cash) == (3800, 0)
    assert (ctx.players[2].loan, ctx.players[2].cash) == (0, 1900)


def test_recall_is_what_brings_available_credit_back_to_zero_3_5c(tiny):
    """§3.5C: "the Bank will require you to repay enough of your loan so that available credit
    is equal to or greater than 0": worth $10,000 at Normal (limit $7,000) and a $15,000 loan
    (available −$500): recall $1,000, after which 7,000 − 14,000/2 = 0."""
    from pbm.cr.engine.tycoons import set_credit

    s, g = tiny
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    for loan, recall in ((15_000, 1_000), (14_000, 0), (14_001, 1), (0, 0)):
        p1.loan = loan
        set_credit(ctx, p1, 10_000)
        assert (p1.net_worth, p1.credit_limit, p1.recall) == (10_000, 7_000, recall)
    assert [e["amount"] for e in _kinds(ctx, "recall")] == [1_000, 1]


def test_unpaid_recall_is_taken_from_cash_then_stock_3_5c(tiny):
    """§3.5C (step 14.4): a recall left unpaid is paid from cash; what cash lacks is raised by
    selling the tycoon's stock at end prices; never more than the loan."""
    from pbm.cr.engine.tycoons import compel_recall

    s, g = tiny
    ctx = _ctx(s, g)
    p1, p2, p3 = ctx.players[1], ctx.players[2], ctx.players[3]
    p1.cash, p1.loan, p1.recall = 5000, 1500, 1200
    compel_recall(ctx, p1)
    assert (p1.cash, p1.loan, p1.recall) == (3800, 300, 0) and not _kinds(ctx, "forced-sale")
    p2.cash, p2.loan, p2.recall = 5000, 1500, 2000
    compel_recall(ctx, p2)
    assert (p2.cash, p2.loan, p2.recall) == (3500, 0, 0)
    p3.cash, p3.loan, p3.recall = 0, 5000, 3000  # 26 NYC at $20 + 54 PENN at $15 bring $1,330
    compel_recall(ctx, p3)
    assert (p3.cash, p3.loan, p3.recall) == (0, 5000 - 1330, 0)
    assert all(h.shares == 0 for h in p3.holdings)
    assert sorted(e["amount"] for e in _kinds(ctx, "forced-sale")) == [520, 810]
    p4 = ctx.players[4]
    p4.cash, p4.loan, p4.recall = 100, 5000, 200  # $100 short: 5 NYC shares (⌈100/20⌉) or 7 PENN (⌈100/15⌉)
    compel_recall(ctx, p4)
    sold = [e for e in _kinds(ctx, "forced-sale") if e["player_number"] == 4]
    assert len(sold) == 1 and sold[0]["amount"] in (100, 105) and p4.loan == 4800
    assert p4.cash == sold[0]["amount"] - 100


# --------------------------------------------------------------------------- §1.2 victory points, §1.3 end
def test_million_bonus_goes_once_to_the_first_worth_over_a_million_1_2(tiny):
    """§1.2 Robber Baron: "Bonus: 5 VPs to the first player(s) to have a net worth over
    $1,000,000" — $1,000,001 wins it, $1,000,000 does not, and nobody wins it twice."""
    from pbm.cr.engine.victory import award_robber_baron

    s, g = tiny
    ctx = _ctx(s, g)
    p1, p2, p3 = ctx.players[1], ctx.players[2], ctx.players[3]
    stock = 26 * 20 + 54 * 15
    p1.cash, p2.cash = 1_000_001 - stock, 1_000_000 - stock
    state: dict = {}
    award_robber_baron(ctx, state)
    assert (p1.net_worth, p2.net_worth) == (1_000_001, 1_000_000)
    assert (p1.vp_robber, p2.vp_robber, p1.million_bonus, p2.million_bonus) == (5 + 5, 4, True, False)
    assert state == {"million_awarded": True} and len(_kinds(ctx, "million")) == 1
    p3.cash = 5_000_000
    award_robber_baron(ctx, state)
    assert p3.vp_robber == 3 + 5 and not p3.million_bonus  # richest now, but the bonus is gone


def _officers(s, g, presides: dict[str, int]):
    """Tycoon ``n`` presides (and is a director of) each road; the others hold as tiny_game."""
    from pbm.models import Railroad

    for code, n in presides.items():
        rr = s.query(Railroad).filter_by(game_id=g.id, code=code).one()
        rr.president_id = g.players[n - 1].id
        for h in rr.holdings:
            h.director = h.player.number == n
            if h.director:
                rr.shares_public -= rr.shares_issued // 5 - h.shares
                h.shares = rr.shares_issued // 5
    s.flush()


def test_no_mogul_points_from_a_road_that_owes_its_president_and_minus_5_for_a_failed_road_1_2(tiny):
    """§1.2 Rail Mogul: "+1 VP to each Director (including the President)", the President "the
    square root of the dividends paid"; "No Mogul points are awarded if the railroad owes any
    debt to the President at the end of the turn"; "A President loses -5 VP if the railroad
    goes bankrupt or is reorganized during the turn"."""
    from pbm.cr.engine.victory import award_mogul

    s, g = tiny
    _officers(s, g, {"NYC": 1, "PENN": 2})
    ctx = _ctx(s, g)
    ctx.scratch.dividends_paid = {"NYC": 9, "PENN": 4}
    award_mogul(ctx)
    assert [ctx.players[n].vp_mogul for n in (1, 2, 3)] == [1 + 3, 1 + 2, 0]
    ctx = _ctx(s, g)
    ctx.scratch.dividends_paid = {"NYC": 9, "PENN": 4}
    ctx.railroads["NYC"].president_debt = 1
    ctx.scratch.failed_roads.add("PENN")
    award_mogul(ctx)
    assert [ctx.players[n].vp_mogul for n in (1, 2)] == [0, 1 + 2 - 5]


def test_magnate_counts_two_connected_roads_of_one_president_as_one_system_1_2(sqlite_url):
    """§1.2 Rail Magnate: "A railroad system consists either of one railroad or of two connected
    railroads controlled by the same President. In the case of 2 unconnected railroads, the one
    with the most Regions is evaluated." PENN (Atlantic, Ohio) + P&FW (Ohio, Great Lakes) meet
    at Pittsburgh: 3 regions; NYC (Atlantic) and LS (Great Lakes) do not meet: 1."""
    from pbm.cr.engine.victory import award_magnate
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": c} for c in ("NYC", "PENN", "P&FW", "LS")],
                       bank_pcs=[])
        _officers(s, g, {"PENN": 1, "P&FW": 1, "NYC": 2, "LS": 2})
        ctx = _ctx(s, g)
        award_magnate(ctx)
        assert [ctx.players[n].vp_magnate for n in (1, 2, 3)] == [3, 1, 0]


def test_magnate_link_bonuses_1_2():
    from pbm.cr.engine.victory import magnate_points

    assert magnate_points({"Atlantic"}) == 1
    assert magnate_points({"Atlantic", "Central"}) == 2 + 2
    assert magnate_points({"Atlantic", "Mississippi", "Central"}) == 3 + 2
    assert magnate_points({"Central", "Gulf"}) == 2 + 2
    assert magnate_points({"Pacific", "Gulf"}) == 2 + 3
    assert magnate_points({"Atlantic", "Pacific"}) == 2 + 5
    assert magnate_points({"Atlantic", "Central", "Gulf", "Pacific"}) == 4 + 2 + 2 + 3 + 5


class _Draw:
    def __init__(self, x):
        self.x = x

    def random(self):
        return self.x


@pytest.mark.parametrize("turn, draw, over", [(20, 0.0, False), (21, 0.2499, True), (21, 0.25, False),
                                              (25, 0.1, True)])
def test_game_ends_at_random_from_turn_21_with_a_25_percent_chance_1_3(sqlite_url, turn, draw, over):
    """§1.3: "There is a 25 % chance the game will end on Turn 21 and on each turn after"."""
    from pbm.cr.engine.victory import end_of_turn

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=turn)
        ctx = _ctx(s, g)
        rng = ctx.rng
        ctx.rng = lambda purpose: _Draw(draw) if purpose == "game-end" else rng(purpose)
        end_of_turn(ctx)
        assert (g.status == "finished") == over and bool(_kinds(ctx, "game-over")) == over
        assert bool(_kinds(ctx, "category-winner")) == over
        assert ctx.scratch.game_over is over  # the turn's result says GAME OVER (and `pbm run --until-end` stops)


# --------------------------------------------------------------------------- §4.6 building
@pytest.mark.parametrize("ordered, per_mile", [(5000, 600), (600, 600), (599, 599), (100, 300)])
def test_overspend_is_capped_at_double_the_minimum_4_6c(sqlite_url, ordered, per_mile):
    """§4.6C: "The Railroad may overspend up to double the minimum cost" ($300 a mile in a Normal
    climate, §4.6B); "The excess is divided by the number of Directors plus 1". NYC builds PA1
    (90 miles, Philadelphia 16 and New York 25, §4.6D) with tycoon 1 its one director."""
    from pbm.cr.engine.construction import build_or_abandon_rows, build_cost_range
    from pbm.models import Railroad, Route

    assert build_cost_range(tables.climate("Normal")) == (300, 600)
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        _holdings(s, g, "NYC", {1: 100}, directors={1})
        nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
        pa1 = s.query(Route).filter_by(game_id=g.id, code="PA1").one()
        pa1.owner_id, nyc.president_id = nyc.id, g.players[0].id
        s.flush()
        ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("NYC", build_per_mile=ordered)])})
        cash = ctx.players[1].cash
        build_or_abandon_rows(ctx)
        cost = per_mile * 90 + 300 * (16 + 25)
        assert [e["amount"] for e in _kinds(ctx, "row-built")] == [cost]
        assert ctx.players[1].cash - cash == (per_mile - 300) * 90 // 2
        assert not check_money(ctx)


# --------------------------------------------------------------------------- §4.5, §4.17, §4.18 capital
def test_capital_spending_is_capped_at_50_a_mile_and_none_for_a_bankrupt_road_4_5_10_2d(tiny):
    """§10.2D1 (ruling E-4.5B): at most $50 a mile of start-of-turn track; §4.11B: a bankrupt
    railroad cannot "spend for capital improvements"."""
    from pbm.cr.engine.capital import repairs_and_improvements

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", capital_per_mile=80)
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", capital_per_mile=10)
    ctx.scratch.bankrupt_at_start.add("PENN")
    repairs_and_improvements(ctx)
    spent = {e["railroad"]: e["amount"] for e in _kinds(ctx, "efficiency")}
    assert spent == {"NYC": 50 * 148, "PENN": 0}
    assert ctx.railroads["NYC"].bond_debt == 50 * 148 // 2  # §4.6E financing: half by bonds
    assert not check_money(ctx)


def test_locomotives_and_technology_are_paid_in_cash_4_17_4_18(sqlite_url):
    """§4.17: $10 a mile for each engine step, from cash; §4.18: $10 a mile a technology, a
    Grand Station $10,000 flat and only with a line to a size 4 or 5 town; one a turn."""
    from pbm.cr.engine.capital import buy_technology, upgrade_locomotives

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=30)
        ctx = _ctx(s, g)
        nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
        nyc.cash, penn.cash = 10**6, 10 * 2 * 300 - 1
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", locomotive=3, technology="a")
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", locomotive=3, technology="B")
        upgrade_locomotives(ctx)
        assert nyc.locomotive == 3 and nyc.cash == 10**6 - 10 * 2 * 148
        assert penn.locomotive == 1 and _kinds(ctx, "locomotive-unaffordable")[0]["amount"] == 6000
        penn.cash = 10 * 300 - 1
        buy_technology(ctx)
        assert nyc.grand_station and nyc.technologies == ["A"] and nyc.cash == 10**6 - 2960 - 10_000
        assert _kinds(ctx, "technology-unaffordable")[0]["amount"] == 3000 and penn.technologies == []
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", technology="A")
        buy_technology(ctx)
        assert [e["kind"] for e in ctx.events if e["railroad"] == "NYC"][-1] == "technology-void"


# --------------------------------------------------------------------------- §4.10A revenue, §4.11 solvency
def test_revenue_is_60_a_mile_plus_300_times_town_values_and_10_percent_a_region_4_10a(tiny):
    """§4.10A: "The base revenue is roughly $60 per mile of track, plus $300 times the value of
    Towns. The base revenue is increased by 10% for Region over 1 that it connects to." NYC:
    148 miles, New York (value 25) and Albany (4): $8,880 + $8,700 = $17,580; §4.15 double
    track adds (25 + 4) % of the line's own revenue; §4.18 a Grand Station adds 10 %."""
    from pbm.cr.engine.operations import line_revenue, revenue_parts

    s, g = tiny
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    rf = ctx.climate.revenue_factor
    parts = revenue_parts(ctx, nyc)
    assert (parts["base"], parts["double_track"], parts["regions"]) == (17_580, 0, 1)
    assert parts["gross"] == math.floor(17_580 * rf)
    assert revenue_parts(ctx, nyc, 1.1)["gross"] == math.floor(17_580 * rf * 1.1)
    assert line_revenue(148, 25, 4) == 8_880 + 4_350
    nyc.lines[0].double_tracked = True
    nyc.grand_station = True
    nyc.technologies = ["G"]
    parts = revenue_parts(ctx, nyc)
    assert parts["double_track"] == 13_230 * 29 // 100
    assert parts["gross"] == math.floor((17_580 + 3_836) * 1.15 * rf)
    penn = ctx.railroads["PENN"]  # Philadelphia (Atlantic) – Pittsburgh (Ohio): two regions
    parts = revenue_parts(ctx, penn)
    assert parts["regions"] == 2 and parts["base"] == 60 * 300 + 300 * (16 + 9)
    assert parts["gross"] == math.floor(parts["base"] * 1.1 * rf)


def test_insolvent_road_goes_bankrupt_and_a_bankrupt_one_is_reorganized_or_recovers_4_11(tiny):
    """§4.11A–C: an insolvent road that does not become solvent is bankrupt; a bankrupt one that
    stays insolvent is reorganized; one that became solvent is active again."""
    from pbm.cr.engine.operations import settle_solvency

    s, g = tiny
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.scratch.insolvent_at_start |= {"NYC", "PENN"}
    nyc.cash = penn.cash = -100
    ctx.scratch.became_solvent.add("PENN")
    settle_solvency(ctx, nyc)
    settle_solvency(ctx, penn)
    assert (nyc.status, penn.status) == ("bankrupt", "active") and ctx.scratch.failed_roads == {"NYC"}
    assert (nyc.insolvent_turns, penn.insolvent_turns) == (1, 1)
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.status = penn.status = "bankrupt"
    ctx.scratch.insolvent_at_start |= {"NYC"}
    ctx.scratch.bankrupt_at_start |= {"NYC", "PENN"}
    ctx.scratch.became_solvent.add("PENN")
    nyc.cash, nyc.bond_debt, nyc.loan_debt, nyc.last_revenue, nyc.last_expenses = -5_000, 500_000, 9, 100_000, 70_000
    nyc.president_debt, nyc.dividend = 3_000, 4
    next(h for h in nyc.holdings if h.shares).short = 5
    settle_solvency(ctx, nyc)
    settle_solvency(ctx, penn)
    assert penn.status == "active" and _kinds(ctx, "railroad-solvent")
    # §4.11C (ruling E-4.11C): bonds cut so their 6 % interest is a quarter of the operating
    # profit: ¼ × $30,000 / 6 % = $125,000; 5 new shares a mile to the Public at $10
    assert (nyc.status, nyc.cash, nyc.bond_debt, nyc.loan_debt) == ("active", 0, 125_000, 0)
    assert nyc.shares_issued == nyc.shares_public == nyc.shares_authorized == 5 * 148 and nyc.price == 10.0
    assert nyc.treasury_shares == 0 and all(h.shares == 0 for h in nyc.holdings) and nyc.insolvent_turns == 0
    assert all(h.short == 0 and not h.director for h in nyc.holdings)
    assert (nyc.president_debt, nyc.dividend) == (0, 0) and ctx.scratch.failed_roads == {"NYC"}
    assert _kinds(ctx, "reorganized")[0]["railroad"] == "NYC"
    # a road that lost money on its operations keeps no bonds
    from pbm.cr.engine.operations import reorganize

    penn.bond_debt, penn.last_revenue, penn.last_expenses = 9_000, 50_000, 60_000
    reorganize(ctx, penn)
    assert penn.bond_debt == 0 and penn.shares_issued == 5 * 300


def test_revenue_share_of_lines_splits_a_shared_town_4_16(tiny):
    """Ruling E-4.16: a line earns its $60 a mile, its double-track bonus and its end towns'
    $300 × value, a town shared equally by the road's lines that end there.  NYC's lines: NYC
    (148 miles, New York 25, Albany 4) $8,880 + $3,750 + $1,200 = $13,830; NYNH (110 miles,
    New York 25, Boston 16) $6,600 + $3,750 + $4,800 = $15,150, double-tracked +41 % of
    ($6,600 + $6,150) = $5,227."""
    from fractions import Fraction

    from pbm.cr.engine.operations import revenue_share
    from pbm.models import Line, Railroad, Route

    s, g = tiny
    nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
    nynh = s.query(Route).filter_by(game_id=g.id, code="NYNH").one()
    s.add(Line(railroad_id=nyc.id, route_id=nynh.id, built_turn=0))
    nynh.owner_id = nyc.id
    s.flush()
    s.expire_all()
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    assert revenue_share(ctx, nyc, {"NYNH"}) == Fraction(15_150, 28_980)
    assert revenue_share(ctx, nyc, {"NYNH", "NYC"}) == 1 and revenue_share(ctx, nyc, set()) == 0
    from types import SimpleNamespace

    assert revenue_share(ctx, SimpleNamespace(lines=[]), {"NYNH"}) == 0  # a road without lines earns nothing
    next(x for x in nyc.lines if ctx.route_by_id[x.route_id].code == "NYNH").double_tracked = True
    assert revenue_share(ctx, nyc, {"NYNH"}) == Fraction(15_150 + 5_227, 28_980 + 5_227)
    from pbm.cr.engine.operations import revenue_parts

    for line in nyc.lines:
        line.double_tracked = True
    assert revenue_parts(ctx, nyc)["double_track"] == 13_230 * 29 // 100 + 5_227  # both lines' bonuses


def test_operations_account_for_revenue_expenses_interest_and_dividend_13(tiny):
    """Appendix A step 13: revenue (13.1), expenses (13.2), interest — bonds 6 % (§5), loans at
    the climate's rate (Normal 12 %), rounded up by the Bank (§1.0) — and the president's loan
    grows 10 % (§4.4C); the profit is what is left; the dividend is paid from cash (13.5)."""
    from pbm.cr.engine.operations import NOISE_LIMIT, operating_expenses, operations

    s, g = tiny
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.bond_debt, nyc.loan_debt, nyc.president_debt, nyc.cash = 100_001, 10_001, 1_000, 10**6
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=2)
    operations(ctx)
    ops = ctx.scratch.operations["NYC"]
    assert (ops["bond_interest"], ops["loan_interest"]) == (6_001, 1_201)
    assert nyc.president_debt == 1_100
    assert abs(ops["noise"] - 1) <= NOISE_LIMIT and ops["noise"] != 1
    assert math.floor(17_580 * ctx.climate.revenue_factor * (1 - NOISE_LIMIT)) <= ops["gross"] \
        <= 17_580 * ctx.climate.revenue_factor * (1 + NOISE_LIMIT)
    assert ops["revenue"] == ops["gross"] and ops["expenses"] == operating_expenses(nyc, ops["gross"])
    profit = ops["revenue"] - ops["expenses"] - 6_001 - 1_201 - ops["events"]
    assert ops["profit"] == nyc.last_profit == profit
    assert (nyc.last_revenue, nyc.last_expenses, nyc.last_dividend) == (ops["revenue"], ops["expenses"], 2)
    assert nyc.cash == 10**6 + profit - 2 * 666
    assert "NYC" in ctx.scratch.became_solvent


def test_merger_drops_the_parallel_row_first_4_13a3(sqlite_url):
    """§4.13A3: "one of the parallel routes is deleted from the railroad's lines: first priority
    is to delete a RoW, if possible, or if not, then a PC line. The RoW would then be available
    for other railroads to acquire". NYNH (New York–Boston, a PC line) and NY1 (its parallel
    RoW, built by the NYC): whichever road merges, NY1 goes."""
    from pbm.cr.engine.mergers import merge, parallel_deletions
    from pbm.models import Line, Railroad, Route
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    for merging, surviving in (("NYNH", "NYC"), ("NYC", "NYNH")):
        with session_scope(sqlite_url) as s:
            g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": "NYC"}, {"code": "NYNH"}], bank_pcs=[],
                           name=f"m-{merging}")
            nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
            ny1 = s.query(Route).filter_by(game_id=g.id, code="NY1").one()
            s.add(Line(railroad_id=nyc.id, route_id=ny1.id, built_turn=0))
            ny1.owner_id = nyc.id
            s.flush()
            s.expire_all()
            ctx = _ctx(s, g)
            m, sv = ctx.railroads[merging], ctx.railroads[surviving]
            assert [r.code for r in parallel_deletions(ctx, m, sv)] == ["NY1"]
            merge(ctx, m, sv)
            assert {ctx.route_by_id[x.route_id].code for x in sv.lines} == {"NYC", "NYNH"}
            assert ctx.routes["NY1"].owner_id is None
            assert [e["kind"] for e in ctx.events].count("parallel-deleted") == 1


def test_merger_hands_over_the_row_only_to_a_survivor_without_one_4_13d(sqlite_url):
    """§4.13D: "if the surviving road already has a RoW, then any RoW owned by the merging road
    is abandoned and any land grants are lost. If the surviving road does not have a RoW, then
    it gets any RoW and land grants owned by the merging road"."""
    from pbm.cr.engine.mergers import merge
    from pbm.models import Railroad, Route

    for survivor_has_row in (False, True):
        with session_scope(sqlite_url) as s:
            g = _three_roads(s, name=f"row-{survivor_has_row}")
            ba = s.query(Railroad).filter_by(game_id=g.id, code="B&A").one()
            nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
            oh1 = s.query(Route).filter_by(game_id=g.id, code="OH1").one()
            oh1.owner_id, oh1.land_grant = ba.id, 7
            if survivor_has_row:
                s.query(Route).filter_by(game_id=g.id, code="PA1").one().owner_id = nyc.id
            s.flush()
            ctx = _ctx(s, g)
            merge(ctx, ctx.railroads["B&A"], ctx.railroads["NYC"])
            oh1 = ctx.routes["OH1"]
            if survivor_has_row:
                assert (oh1.owner_id, oh1.land_grant) == (None, 0) and _kinds(ctx, "row-abandoned")
                assert ctx.routes["PA1"].owner_id == nyc.id
            else:
                assert (oh1.owner_id, oh1.land_grant) == (nyc.id, 7) and not _kinds(ctx, "row-abandoned")


def test_rate_war_limits_4_16(tiny):
    """§4.16: a rate war needs parallel routes; the deepest cut declared on a pair counts; a
    percentage is kept within 0–100; a road cannot war on itself nor on a road that is gone.
    NYC (NYC and NYNH lines) and PENN (PENN and NY1): NYNH ∥ NY1."""
    from pbm.cr.engine.operations import rate_war_losses, revenue_parts
    from pbm.cr.orders import RateWar
    from .helpers import tiny_parallel_lines

    s, g = tiny
    tiny_parallel_lines(s, g)
    s.flush()
    s.expire_all()
    ctx = _ctx(s, g)
    parts = {c: revenue_parts(ctx, ctx.railroads[c]) for c in ("NYC", "PENN")}

    def losses(nyc_wars, penn_wars=()):
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", rate_wars=list(nyc_wars))
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", rate_wars=list(penn_wars))
        return rate_war_losses(ctx, parts)

    full = losses([RateWar("PENN", 150)])  # kept to 100 %: the parallel lines earn nothing
    assert full == losses([RateWar("PENN", 100)]) and full["NYC"] == parts["NYC"]["gross"] - math.floor(
        parts["NYC"]["gross"] * (1 - Fraction(15_150, 28_980)))
    assert losses([RateWar("PENN", 10)], [RateWar("NYC", 30)]) == losses([RateWar("PENN", 30)])
    assert losses([RateWar("PENN", 30)])["PENN"] > losses([RateWar("PENN", 10)])["PENN"] > 0
    assert losses([RateWar("PENN", -5)]) == {} and _kinds(ctx, "rate-war-void")
    assert losses([RateWar("NYC", 25), RateWar("ERIE", 25)]) == {}
    ctx.railroads["PENN"].status = "merged"
    assert losses([RateWar("PENN", 25)]) == {}


def test_projected_profit_is_gross_less_expenses_and_interest_6_3a(tiny):
    from pbm.cr.engine.operations import operating_expenses, projected_profit, revenue_parts

    s, g = tiny
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.bond_debt, nyc.loan_debt = 10_000, 1_000
    gross = revenue_parts(ctx, nyc)["gross"]
    assert projected_profit(ctx, nyc) == int(gross - operating_expenses(nyc, gross) - 600 - 120)


class _Normal:
    """A stand-in generator: ``normal`` returns the given draws in turn (and checks N(1, 0.07),
    ruling E-4.10A)."""

    def __init__(self, *values):
        self.values = list(values)

    def normal(self, mean, sd):
        assert (mean, sd) == (1.0, 0.07)
        return self.values.pop(0)


def test_revenue_noise_is_kept_within_15_percent_and_applied_e_4_10a(tiny):
    """Ruling E-4.10A: the random factor is N(1, 0.07) kept within ±15 %: a draw of 1.30 counts
    1.15, one of 0.60 counts 0.85; the gross is the base revenue times it.  Random events come
    from their own stream (here one that brings political trouble, §11.2, to both roads)."""
    from pbm.cr.engine.operations import operations, revenue_parts

    s, g = tiny
    ctx = _ctx(s, g)
    rng = ctx.rng
    draws = _Normal(1.30, 0.60)
    ctx.rng = lambda purpose: draws if purpose == "operations" else (
        _Draws6(0.9, 0.0, 0.9, 0.0, 1.0, 0.0) if purpose == "random-events" else rng(purpose))
    base = {c: revenue_parts(ctx, ctx.railroads[c])["gross"] for c in ("NYC", "PENN")}
    operations(ctx)
    nyc, penn = ctx.scratch.operations["NYC"], ctx.scratch.operations["PENN"]
    assert (nyc["noise"], penn["noise"]) == (1.15, 0.85)
    assert nyc["gross"] == revenue_parts(ctx, ctx.railroads["NYC"], 1.15)["gross"] > base["NYC"]
    assert penn["gross"] == revenue_parts(ctx, ctx.railroads["PENN"], 0.85)["gross"] < base["PENN"]
    assert nyc["events"] == math.floor(nyc["gross"] * 0.15) and penn["events"] == math.floor(penn["gross"] * 0.15)


class _Draws6:
    def __init__(self, *values):
        self.values = values

    def random(self, n):
        return list(self.values)


def test_a_total_rate_war_leaves_no_revenue_4_16(sqlite_url):
    """§4.16 at 100 %: two single-line parallel roads earn nothing (and pay their full costs)."""
    from pbm.cr.engine.operations import operations
    from pbm.cr.orders import RateWar
    from tests.cr.test_rules_round2 import _penn_read

    with session_scope(sqlite_url) as s:
        g = _penn_read(s, 100)
        ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("PENN", rate_wars=[RateWar("READ", 100)])])})
        operations(ctx)
        for code in ("PENN", "READ"):
            ops = ctx.scratch.operations[code]
            assert ops["revenue"] == 0 and ops["rate_war"] == ops["gross"] > 0 and ops["expenses"] > 0


def test_random_event_chances_and_costs_at_their_edges_11_2(sqlite_url):
    """§11.2 (ruling E-11.2) at the edges: efficiency 55 gives an accident chance of exactly
    (75 − 55) % = 20 %, halved (10 %) by automatic couplers (F); political trouble strikes a road
    without influence below a 20 % draw; costs: accident miles × ($5 + $10 × draw), trouble
    (5 + 10 × draw) % of gross, disaster (10 + 10 × draw) % of gross; a road's events add up."""
    from pbm.cr.engine.operations import operations, random_events

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=19)
        ctx = _ctx(s, g)
        nyc = ctx.railroads["NYC"]
        nyc.efficiency, nyc.technologies = 55, ["E", "H", "J"]
        ctx.scratch.influence["NYC"] = 1

        def ev(*draws):
            return {k: v for k, v, _ in random_events(ctx, nyc, 100_000, _Draws6(*draws))}

        assert ev(0.199, 0.9, 0.9, 0.5, 0, 0) == {"accident": 148 * 10}
        assert ev(0.2, 0.9, 0.9, 0.5, 0, 0) == {}
        nyc.technologies = ["E", "F", "H", "J"]
        assert ev(0.099, 0.9, 0.9, 0.0, 0, 0) == {"accident": 148 * 5}
        assert ev(0.1, 0.9, 0.9, 0.0, 0, 0) == {}
        ctx.scratch.influence["NYC"] = 0
        assert ev(0.9, 0.2, 0.9, 0, 0.5, 0) == {}
        assert ev(0.9, 0.199, 0.9, 0, 0.5, 0) == {"political": 10_000}
        nyc.technologies = []
        assert ev(0.9, 0.9, 0.149, 0, 0, 0.5) == {"disaster": 15_000}
        # all three on one road: the profit pays for each
        nyc.efficiency = 55
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=0)
        rng = ctx.rng
        ctx.rng = lambda purpose: _Draws6(0.0, 0.0, 0.0, 0.0, 0.0, 0.0) if purpose == "random-events" else rng(purpose)
        operations(ctx)
        ops = ctx.scratch.operations["NYC"]
        assert ops["events"] == 148 * 5 + math.floor(ops["gross"] * 0.05) + math.floor(ops["gross"] * 0.10)
        assert ops["profit"] == ops["revenue"] - ops["expenses"] - ops["events"]


def test_a_road_ending_operations_at_zero_cash_is_solvent_4_11a(tiny):
    """§4.11A: a railroad "will become solvent during a turn if its cash balance is not
    negative ... after revenues and expenses are calculated": $0 is solvent."""
    from pbm.cr.engine.operations import operations

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=0)
    ctx.railroads["NYC"].cash = 0
    operations(ctx)
    change = ctx.railroads["NYC"].cash
    ctx = _ctx(s, g)
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=0)
    ctx.railroads["NYC"].cash = -change
    operations(ctx)
    assert ctx.railroads["NYC"].cash == 0 and "NYC" in ctx.scratch.became_solvent
    ctx = _ctx(s, g)
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=0)
    ctx.railroads["NYC"].cash = -change - 1
    operations(ctx)
    assert ctx.railroads["NYC"].cash == -1 and "NYC" not in ctx.scratch.became_solvent


def test_dividend_edges_4_12(tiny):
    """§4.12 at the edges: $1 a share is paid (in full when the cash covers it, not at all when
    it does not); a holder of a single share is paid; a road with no issued shares pays none."""
    from pbm.cr.engine.operations import pay_dividend

    s, g = tiny
    ctx, nyc = _pay(s, g, "NYC", cash=666, rate=1)
    assert nyc.last_dividend == 1 and nyc.cash == 0
    ctx, nyc = _pay(s, g, "NYC", cash=665, rate=1)
    assert nyc.last_dividend == 0 and nyc.cash == 665
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    h = next(h for h in nyc.holdings if ctx.player_by_id[h.player_id].number == 1)
    nyc.shares_public += h.shares - 1
    h.shares = 1
    nyc.cash = 10**6
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", dividend=7)
    pay_dividend(ctx, nyc, 0)
    assert ctx.players[1].cash == 2000 + 7
    nyc.shares_issued = 1
    pay_dividend(ctx, nyc, 0)
    assert nyc.last_dividend == 7
    nyc.shares_issued = 0
    pay_dividend(ctx, nyc, 0)
    assert nyc.last_dividend == 0


def test_a_solvent_road_is_not_announced_solvent_again_4_11a(tiny):
    from pbm.cr.engine.operations import settle_solvency

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.scratch.became_solvent.add("NYC")
    settle_solvency(ctx, ctx.railroads["NYC"])
    assert ctx.railroads["NYC"].status == "active" and not _kinds(ctx, "railroad-solvent")


def test_rate_wars_of_one_road_on_two_fronts_add_up_4_16(sqlite_url):
    """§4.16: NYC (NYC, NYNH and ERIE lines) at war with PENN (NY1 ∥ NYNH) and with B&A
    (NY2 ∥ ERIE): its losses on both fronts add up; a war on a road with no parallel line is
    void and does not stop the others; a war on a bankrupt road counts; the deepest cut
    declared on a pair counts, whoever declares it."""
    from pbm.cr.engine.operations import rate_war_losses, revenue_parts
    from pbm.cr.orders import RateWar
    from pbm.models import Line, Railroad, Route
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": c} for c in ("NYC", "PENN", "B&A", "MC")], bank_pcs=[])
        rr = {c: s.query(Railroad).filter_by(game_id=g.id, code=c).one() for c in ("NYC", "PENN", "B&A")}
        for road, code in (("NYC", "NYNH"), ("NYC", "ERIE"), ("PENN", "NY1"), ("B&A", "NY2")):
            route = s.query(Route).filter_by(game_id=g.id, code=code).one()
            s.add(Line(railroad_id=rr[road].id, route_id=route.id, built_turn=0))
            route.owner_id = rr[road].id
        s.flush()
        s.expire_all()
        ctx = _ctx(s, g)
        parts = {c: revenue_parts(ctx, ctx.railroads[c]) for c in ("NYC", "PENN", "B&A", "MC")}

        def losses(**wars):
            for code in ("NYC", "PENN", "B&A", "MC"):
                ctx.rr_orders[code] = RailroadOrders(code, rate_wars=list(wars.get(code, [])))
            return rate_war_losses(ctx, parts)

        one = losses(NYC=[RateWar("PENN", 20)])
        other = losses(NYC=[RateWar("B&A", 20)])
        both = losses(NYC=[RateWar("MC", 20), RateWar("PENN", 20), RateWar("B&A", 20)])
        assert both == {"NYC": one["NYC"] + other["NYC"], "PENN": one["PENN"], "B&A": other["B&A"]}
        assert losses(NYC=[RateWar("NYC", 20), RateWar("PENN", 20)]) == one
        assert losses(MC=[RateWar("NYC", 20)], NYC=[RateWar("PENN", 20)]) == one  # MC–NYC void first
        assert losses(NYC=[RateWar("PENN", 30)], PENN=[RateWar("NYC", 10)]) == losses(NYC=[RateWar("PENN", 30)])
        ctx.railroads["PENN"].status = "bankrupt"
        assert losses(NYC=[RateWar("PENN", 20)]) == one


def test_revenue_follows_the_climate_4_10a(sqlite_url):
    """§4.10A (ruling E-4.10A): the climate scales the gross revenue, +20 % in a Boom."""
    from pbm.cr.engine.operations import revenue_parts

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, climate="Boom")
        ctx = _ctx(s, g)
        rf = ctx.climate.revenue_factor
        assert rf != 1.0
        assert revenue_parts(ctx, ctx.railroads["NYC"])["gross"] == math.floor(17_580 * rf)


def test_merger_takes_over_a_deficit_shorts_and_both_president_debts_4_13b(sqlite_url):
    """§4.13B: "All of the merging railroad's Lines, cash, Bank debts, president debt ... are
    transferred": a merging road's deficit is the survivor's (it pays it), the president debts
    add up (§4.4F), shares sold short are exchanged one for one like shares; §4.13E: the engine
    upgrade is paid on the lines of the road with the lower engine (here the merging B&A's 201
    miles from engine 2 to 3)."""
    from pbm.cr.engine.mergers import merge

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        ba.cash, nyc.cash = -500, 10_000
        nyc.president_debt, ba.president_debt = 5, 11
        ba.locomotive, nyc.locomotive = 2, 3
        p1 = ctx.players[1]
        ctx.holding(p1, ba).short, ctx.holding(p1, nyc).short = 7, 3
        bonds = nyc.bond_debt + ba.bond_debt
        merge(ctx, ba, nyc)
        assert (nyc.cash, ba.cash) == (9_500, 0)
        assert [(e["step"], e["source"], e["amount"]) for e in ctx.ledger if e["target"] == "rr:B&A"] == \
            [("12", "rr:NYC", 500)]
        assert nyc.president_debt == 16 and ctx.holding(p1, nyc).short == 10
        assert nyc.bond_debt == bonds + 10 * 201 and nyc.locomotive == 3


def test_president_is_repaid_up_to_the_cash_and_the_debt_4_4b(tiny):
    """§4.4B: "The President can order the Railroad to repay any part of any debt it owes him,
    up to the amount of cash it begins the turn with"; §4.4A: he lends up to his own cash."""
    from pbm.cr.engine.loans import presidents_lend_or_are_repaid

    s, g = tiny
    _officers(s, g, {"NYC": 1, "PENN": 2})
    ctx = _ctx(s, g)
    nyc, penn, p1, p2 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.players[1], ctx.players[2]
    nyc.president_debt, nyc.cash = 5_000, 3_000
    penn.president_debt, penn.cash = 400, 3_000
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", repay_president=9_000)
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", repay_president=9_000, lend=10**6)
    cash1, cash2 = p1.cash, p2.cash
    presidents_lend_or_are_repaid(ctx)
    assert (nyc.president_debt, nyc.cash, p1.cash) == (2_000, 0, cash1 + 3_000)
    # PENN: p2 first lends all his $2,000, then is repaid what is owed ($400 + $2,000)
    assert cash2 == 2_000 and (p2.cash, penn.president_debt, penn.cash) == (2_400, 0, 3_000 + 2_000 - 2_400)
    assert [e["amount"] for e in _kinds(ctx, "president-repaid")] == [3_000, 2_400]
    assert [e["amount"] for e in _kinds(ctx, "president-loan")] == [2_000]


# --------------------------------------------------------------------------- §4.13A3, §4.8.2 merger routes
def _roads_on(s, routes, roads: dict[str, list[str]], name: str):
    """A game on the tiny map plus ``routes``; each road of ``roads`` holds the lines named
    (its own PC line first) and is presided by Tycoon 1."""
    from pbm.models import Line, Railroad, Route
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    extra = {r.code: r for r in routes}
    all_routes = [extra.pop(r.code, r) for r in TINY_ROUTES] + list(extra.values())
    g = build_game(s, TINY_TOWNS, all_routes, [{"code": c} for c in roads], bank_pcs=[], name=name)
    for code, lines in roads.items():
        rr = s.query(Railroad).filter_by(game_id=g.id, code=code).one()
        rr.president_id = g.players[0].id
        for line in lines[1:]:
            route = s.query(Route).filter_by(game_id=g.id, code=line).one()
            s.add(Line(railroad_id=rr.id, route_id=route.id, built_turn=0))
            route.owner_id = rr.id
    s.flush()
    s.expire_all()
    return g


def test_merger_drops_the_merging_roads_parallel_pc_line_back_to_the_bank_4_13a3(sqlite_url):
    """§4.13A3: of two parallel PC lines one is deleted, "or if not [a RoW], then a PC line ...
    a PC would return to availability" (ruling E-4.13A3: the merging road's): the NHX, a second
    New York–Boston PC, merges into the NYNH; its line goes back to the Bank at $5 a mile (§2.4D)."""
    from pbm.cr.engine.mergers import merge, merger_problem, parallel_deletions
    from pbm.models import Line, Route
    from tests.cr.helpers import R

    pcs = [R("NYNH", "PC", "New York", "Boston", 110, double_with="NHX"),
           R("NHX", "PC", "New York", "Boston", 110, double_with="NYNH")]
    for merging, surviving in (("NHX", "NYNH"), ("NYNH", "NHX")):
        with session_scope(sqlite_url) as s:
            g = _roads_on(s, pcs, {"NYNH": ["NYNH"], "NHX": ["NHX"]}, f"pp-{merging}")
            ctx = _ctx(s, g)
            m, sv = ctx.railroads[merging], ctx.railroads[surviving]
            assert merger_problem(ctx, 1, m, sv) is None  # parallel routes only: allowed
            assert [r.code for r in parallel_deletions(ctx, m, sv)] == [merging]
            pc = ctx.pcs[merging]
            pc.owner_id, pc.for_sale, pc.paid = ctx.players[2].id, True, 900
            merge(ctx, m, sv)
            assert [r.code for r in ctx.line_routes(sv)] == [surviving] and not m.lines
            assert ctx.routes[merging].owner_id is None and ctx.routes[surviving].owner_id == sv.id
            assert (pc.status, pc.railroad_id, pc.owner_id) == ("bank", None, None)
            assert (pc.asking_price, pc.for_sale, pc.paid) == (5 * 110, False, 0)
            assert ctx.pcs[surviving].status == "incorporated"
            assert [e["railroad"] for e in _kinds(ctx, "parallel-deleted")] == [surviving]
            assert ctx.miles(sv) == 110  # no upgrade is paid on the dropped line
            assert _kinds(ctx, "railroads-merged")[0]["data"]["upgrade_cost"] == 0
            ctx.write_rows()  # the dropped line is gone from the game, the other kept
            assert sorted(ln.route.code for ln in s.query(Line).join(Route).filter(Route.game_id == g.id)) == \
                [surviving]


def test_merger_may_not_give_two_routes_into_chicago_4_8_2_4_13a3(sqlite_url):
    """§4.13A3: "The merger cannot occur if it would cause prohibited routes (see Rule 4.8),
    unless ... due to parallel routes only"; §4.8.2: Chicago may be entered by one route only.
    The MC (Toledo–Chicago) and the LS with the Indianapolis–Chicago line (IN2) may not merge;
    with the Cleveland–Toledo line (OH1) instead the LS may; with a second Toledo–Chicago
    line parallel to the MC's (TC2) it may too, that line being dropped."""
    from pbm.cr.engine.mergers import merger_problem
    from tests.cr.helpers import R

    tc2 = [R("MC", "PC", "Toledo", "Chicago", 152, double_with="TC2"),
           R("TC2", "RoW", "Toledo", "Chicago", 150, double_with="MC")]
    cases = [(["LS", "IN2"], "more than one route into Chicago"), (["LS", "OH1"], None), (["LS", "TC2"], None)]
    for lines, problem in cases:
        with session_scope(sqlite_url) as s:
            g = _roads_on(s, tc2, {"MC": ["MC"], "LS": lines}, f"chi-{lines[1]}")
            ctx = _ctx(s, g)
            mc, ls = ctx.railroads["MC"], ctx.railroads["LS"]
            for m, sv in ((mc, ls), (ls, mc)):
                got = merger_problem(ctx, 1, m, sv)
                if problem is None:
                    assert got is None, (lines, got)
                else:
                    assert got is not None and problem in got and "§4.8.2" in got


# --------------------------------------------------------------------------- §10.2B, §10.1A, §4.4 loans
def test_railroad_repays_short_term_loans_first_then_bonds_from_cash_10_2b(tiny):
    """§10.2B (Appendix A step 3): a railroad repays "short-term loans first, then bonds" out of
    the cash it has, never more than it owes; a road without cash repays nothing."""
    from pbm.cr.engine.loans import railroads_repay_bank_debt

    s, g = tiny
    for (loans, bonds, cash, order), after in (
        ((300, 1000, 500, 1000), (0, 800, 0)),  # cash limits it: loans, then bonds
        ((200, 100, 10_000, 5000), (0, 0, 9_700)),  # the debt limits it
        ((500, 500, 10_000, 200), (300, 500, 9_800)),  # only loans
        ((0, 50, 100, 1), (0, 49, 99)),  # a dollar of bonds
        ((300, 1000, -100, 1000), (300, 1000, -100)),  # no cash
        ((300, 1000, 500, 0), (300, 1000, 500)),  # no order
    ):
        ctx = _ctx(s, g)
        nyc = ctx.railroads["NYC"]
        nyc.loan_debt, nyc.bond_debt, nyc.cash = loans, bonds, cash
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", repay_debt=order)
        railroads_repay_bank_debt(ctx)
        assert (nyc.loan_debt, nyc.bond_debt, nyc.cash) == after, (loans, bonds, cash, order)
        paid = cash - after[2]
        assert [e["amount"] for e in _kinds(ctx, "debt-repaid")] == ([paid] if paid else [])
        assert [(e["step"], e["source"], e["target"], e["amount"]) for e in ctx.ledger] == \
            ([("3", "rr:NYC", "bank", paid)] if paid else [])
    # a road that repays nothing (no order, no cash) does not stop the next one's repayment
    for nyc_order, nyc_cash in ((None, 500), (1000, -100)):
        ctx = _ctx(s, g)
        nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
        nyc.loan_debt, nyc.cash, penn.loan_debt = 300, nyc_cash, 400
        if nyc_order:
            ctx.rr_orders["NYC"] = RailroadOrders("NYC", repay_debt=nyc_order)
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", repay_debt=1000)
        railroads_repay_bank_debt(ctx)
        assert (nyc.loan_debt, penn.loan_debt, penn.cash) == (300, 0, 10_000 - 400)


def test_merger_needs_two_roads_operating_since_the_start_and_moves_every_dollar_4_13a_b(sqlite_url):
    """§4.13A, §10.1E: both roads must be operating railroads at the start of the turn (a road
    merged away, or one founded this turn, may not merge); §4.13B: all the merging road's cash
    goes to the survivor, down to its last dollar."""
    from pbm.cr.engine.mergers import merge, merger_problem

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        nyc.status = "merged"  # operating at the start, merged away since
        assert "not an active railroad" in merger_problem(ctx, 1, ba, nyc)
        assert "not an active railroad" in merger_problem(ctx, 1, nyc, ba)
        nyc.status = "active"
        ctx.scratch.active_at_start.remove("NYC")  # as if founded this turn
        assert "not an active railroad" in merger_problem(ctx, 1, ba, nyc)
        ctx.scratch.active_at_start.append("NYC")
        assert merger_problem(ctx, 1, ba, nyc) is None
        ba.cash, nyc.cash = 1, 100
        merge(ctx, ba, nyc)
        assert (ba.cash, nyc.cash) == (0, 101)
        assert [(e["source"], e["target"], e["amount"]) for e in ctx.ledger] == [("rr:B&A", "rr:NYC", 1)]


def test_borrowing_and_repaying_by_the_dollar_for_each_tycoon_with_orders_10_1a(tiny):
    """§10.1A1–2: each tycoon who gave orders borrows up to his available credit (§3.5A) and
    repays out of his cash, down to a single dollar; a tycoon without orders does nothing;
    repaying more than the recall due leaves no recall (§3.5C)."""
    from pbm.cr.engine.loans import max_borrow, tycoons_borrow_or_repay

    s, g = tiny
    g.players[2].loan, g.players[2].recall = 1000, 100
    g.players[3].loan = 50
    s.flush()
    ctx = _ctx(s, g, {2: Orders(borrow=1), 3: Orders(repay=300), 4: Orders(repay=1)})
    p1, p2, p3, p4 = (ctx.players[n] for n in (1, 2, 3, 4))
    cash = {n: p.cash for n, p in ctx.players.items()}
    tycoons_borrow_or_repay(ctx)
    assert (p1.loan, p1.cash) == (0, cash[1])  # no orders
    assert (p2.loan, p2.cash) == (1, cash[2] + 1)
    assert (p3.loan, p3.recall, p3.cash) == (700, 0, cash[3] - 300)
    assert (p4.loan, p4.cash) == (49, cash[4] - 1)
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "borrow")] == [(2, 1)]
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "repay")] == [(3, 300), (4, 1)]
    assert [(e["step"], e["amount"]) for e in ctx.ledger] == [("1", 1), ("1", 300), ("1", 1)]  # Appendix A step 1
    # an order of exactly the available credit is not "cut"
    ctx = _ctx(s, g, {1: Orders(borrow=max_borrow(ctx, ctx.players[1]))})
    tycoons_borrow_or_repay(ctx)
    assert ctx.players[1].loan == 2331 and not _kinds(ctx, "borrow-cut")
    # no credit left: the order is cut to nothing and no loan is made
    ctx = _ctx(s, g, {2: Orders(borrow=500)})
    ctx.players[2].loan = 10**6
    tycoons_borrow_or_repay(ctx)
    assert [e["amount"] for e in _kinds(ctx, "borrow-cut")] == [0] and not _kinds(ctx, "borrow")
    assert ctx.players[2].loan == 10**6 and not ctx.ledger


def test_only_a_president_lends_or_is_repaid_and_only_from_cash_4_4a_b(tiny):
    """§4.4A–B: the president lends his road what he has, down to a dollar, and is repaid from
    the road's cash — none when it has none; a road with no player president, or without
    orders, neither borrows from nor repays anyone."""
    from pbm.cr.engine.loans import presidents_lend_or_are_repaid

    s, g = tiny
    _officers(s, g, {"PENN": 2})
    ctx = _ctx(s, g)
    nyc, penn, p2 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.players[2]
    assert nyc.president_id is None
    nyc.president_debt, penn.president_debt, penn.cash = 100, 100, -50
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", repay_president=100, lend=100)  # no president
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", repay_president=100, lend=1)
    cash2 = p2.cash
    presidents_lend_or_are_repaid(ctx)
    assert (nyc.president_debt, nyc.cash) == (100, 10_000)
    # the $1 lent is the road's only cash (−$50 + $1 < 0): nothing to repay from
    assert (penn.president_debt, penn.cash, p2.cash) == (101, -49, cash2 - 1)
    assert [e["amount"] for e in _kinds(ctx, "president-loan")] == [1] and not _kinds(ctx, "president-repaid")
    assert [(e["step"], e["source"], e["amount"]) for e in ctx.ledger] == [("2", "player:2", 1)]  # Appendix A step 2
    ctx = _ctx(s, g)  # no orders for the PENN: nothing happens
    ctx.railroads["PENN"].president_debt = 100
    presidents_lend_or_are_repaid(ctx)
    assert not ctx.ledger and ctx.railroads["PENN"].president_debt == 100
    ctx = _ctx(s, g)  # a dollar repaid
    ctx.railroads["PENN"].president_debt = 100
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", repay_president=1)
    presidents_lend_or_are_repaid(ctx)
    assert ctx.railroads["PENN"].president_debt == 99 and [(e["step"], e["amount"]) for e in ctx.ledger] == [("2", 1)]


# --------------------------------------------------------------------------- §4.5C, §4.17, §4.18 capital (2)
def test_maximum_efficiency_falls_with_length_and_old_engines_4_5c_e_4_17(sqlite_url):
    """§4.5C: "a Railroad with a length of 3521 miles would have a maximum efficiency level of
    88%"; ruling E-4.17: 3 less for each engine generation behind the best available (turn 8:
    the American, engine 3): with Norris engines (2), 85."""
    from pbm.cr.engine.capital import railroad_max_efficiency

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=8)
        ctx = _ctx(s, g)
        nyc = ctx.railroads["NYC"]
        ctx.routes["NYC"].miles = 3521
        nyc.locomotive = 3
        assert railroad_max_efficiency(ctx, nyc) == 88
        nyc.locomotive = 2
        assert railroad_max_efficiency(ctx, nyc) == 85
        ctx.routes["NYC"].miles = 148
        assert railroad_max_efficiency(ctx, nyc) == 96


def test_grand_station_needs_a_size_4_or_5_town_at_the_start_and_only_one_4_18(sqlite_url):
    """§4.18: "A Grand Station may only be built if the railroad connects to a size 4 or size 5
    town at the start of the turn. A railroad may only have one Grand Station." The NYC (New
    York, 5) and the PENN (Philadelphia, 4) may; the LS (Buffalo 3 – Cleveland 3) may not, nor
    a road with one already, nor a road without a line at the start of the turn."""
    from pbm.cr.engine.capital import grand_station_allowed
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": "NYC"}, {"code": "PENN"}, {"code": "LS"}],
                       bank_pcs=[])
        ctx = _ctx(s, g)
        nyc, penn, ls = (ctx.railroads[c] for c in ("NYC", "PENN", "LS"))
        assert [grand_station_allowed(ctx, r) for r in (nyc, penn, ls)] == [True, True, False]
        nyc.grand_station = True
        assert not grand_station_allowed(ctx, nyc)
        del ctx.scratch.start_towns["PENN"]  # its line built only this turn
        assert not grand_station_allowed(ctx, penn)


def test_efficiency_decays_by_ten_coin_flips_and_each_dollar_a_mile_may_add_a_point_4_5(sqlite_url):
    """§4.5A–B: efficiency falls each turn (ruling E-4.5A: ten 50 % chances of a point, about
    5) and "Each $1 spent on capital improvements (per mile) has a 50% chance of increasing
    efficiency by one point", spent on the miles of the start of the turn; it stays within 1
    (§4.5A "a scale of 1 to 99") and the maximum (§4.5C). A road without orders spends
    nothing, nor one ordering $0 or less."""
    from pbm.cr.engine.capital import railroad_max_efficiency, repairs_and_improvements

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, penn, ba = (ctx.railroads[c] for c in ("NYC", "PENN", "B&A"))
        nyc.efficiency, penn.efficiency, ba.efficiency = 60, 3, 95
        ctx.scratch.start_miles["NYC"] = 100  # it built more this turn
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", capital_per_mile=20)
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", capital_per_mile=-5)
        ctx.rr_orders["B&A"] = RailroadOrders("B&A", capital_per_mile=50)
        rng = ctx.rng("efficiency")
        draws = {}
        for code, per_mile in (("NYC", 20), ("PENN", 0), ("B&A", 50)):
            decay = int(rng.binomial(10, 0.5))
            draws[code] = (decay, int(rng.binomial(per_mile, 0.5)) if per_mile else 0)
        tops = {c: railroad_max_efficiency(ctx, ctx.railroads[c]) for c in draws}
        repairs_and_improvements(ctx)
        ev = {e["railroad"]: e for e in _kinds(ctx, "efficiency")}
        assert {c: (e["data"]["decay"], e["data"]["gain"], e["data"]["max"]) for c, e in ev.items()} == \
            {c: (*draws[c], tops[c]) for c in draws}
        assert nyc.efficiency == 60 - draws["NYC"][0] + draws["NYC"][1]
        assert penn.efficiency == max(1, 3 - draws["PENN"][0]) == 1  # not below 1
        assert ba.efficiency == min(tops["B&A"], 95 - draws["B&A"][0] + draws["B&A"][1]) == tops["B&A"]  # capped
        assert {c: e["amount"] for c, e in ev.items()} == {"NYC": 20 * 100, "PENN": 0, "B&A": 50 * 201}
        assert ctx.ledger and {e["step"] for e in ctx.ledger} == {"8.1"}  # financed in step 8.1
        # without orders nothing is spent and nothing gained
        ctx = _ctx(s, g)
        ctx.rr_orders.clear()
        repairs_and_improvements(ctx)
        assert all(e["amount"] == 0 and e["data"]["gain"] == 0 for e in _kinds(ctx, "efficiency"))
        assert not ctx.ledger
        # §4.11B: a bankrupt road spends and gains nothing; a road with no line at the start of
        # the turn (founded this turn) spends on the miles it has
        ctx = _ctx(s, g)
        ctx.scratch.bankrupt_at_start.add("NYC")
        del ctx.scratch.start_miles["PENN"]
        for code in ("NYC", "PENN"):
            ctx.rr_orders[code] = RailroadOrders(code, capital_per_mile=10)
        before = ctx.railroads["NYC"].efficiency
        repairs_and_improvements(ctx)
        ev = {e["railroad"]: e for e in _kinds(ctx, "efficiency")}
        assert (ev["NYC"]["amount"], ev["NYC"]["data"]["gain"]) == (0, 0)
        assert ctx.railroads["NYC"].efficiency == max(1, before - ev["NYC"]["data"]["decay"])
        assert ev["PENN"]["amount"] == 10 * 300


def test_engines_are_bought_up_to_the_best_available_by_solvent_roads_with_cash_4_17(sqlite_url):
    """§4.17: a railroad buys engines no better than the best available (turn 8: the American,
    engine 3), paying $10 a mile a step from cash — exactly its cash will do, a dollar less
    will not; a road that has the best engine buys nothing; a bankrupt road may not (§4.11B).
    Each road is handled whatever the roads before it did."""
    from pbm.cr.engine.capital import upgrade_locomotives

    with session_scope(sqlite_url) as s:
        g = _three_roads(s, turn=8)
        ctx = _ctx(s, g)
        nyc, penn, ba = (ctx.railroads[c] for c in ("NYC", "PENN", "B&A"))
        nyc.locomotive = 3
        penn.cash, ba.cash = 10 * 300 - 1, 10 * 2 * 201
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", locomotive=4)
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", locomotive=2)
        ctx.rr_orders["B&A"] = RailroadOrders("B&A", locomotive=9)
        upgrade_locomotives(ctx)
        assert (nyc.locomotive, penn.locomotive, ba.locomotive) == (3, 1, 3)
        assert (nyc.cash, penn.cash, ba.cash) == (10_000, 2_999, 0)
        assert [(e["railroad"], e["amount"]) for e in _kinds(ctx, "locomotive")] == [("B&A", 4020)]
        assert [(e["railroad"], e["amount"]) for e in _kinds(ctx, "locomotive-unaffordable")] == [("PENN", 3000)]
        assert [(e["step"], e["source"], e["amount"]) for e in ctx.ledger] == [("8.2", "rr:B&A", 4020)]
        ctx = _ctx(s, g)
        ctx.scratch.bankrupt_at_start.add("NYC")
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", locomotive=2)
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", locomotive=2)
        upgrade_locomotives(ctx)
        assert (ctx.railroads["NYC"].locomotive, ctx.railroads["PENN"].locomotive) == (1, 2)


def test_one_available_technology_bought_from_cash_road_by_road_4_18(sqlite_url):
    """§4.18: a president "may only buy ONE new technology per turn from the list of
    technologies available" (turn 8: A and B), at $10 a mile or $10,000 for a Grand Station,
    "paid out of RR cash" — exactly the cost will do, a dollar less will not; "A railroad may
    only have one Grand Station". A road without an order, an order not yet available, a
    second Grand Station or an unaffordable one does not stop the next road's."""
    from pbm.cr.engine.capital import buy_technology

    with session_scope(sqlite_url) as s:
        g = _three_roads(s, turn=8)
        ctx = _ctx(s, g)
        nyc, penn, ba = (ctx.railroads[c] for c in ("NYC", "PENN", "B&A"))
        ba.cash, nyc.grand_station = 10 * 201, True
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", technology="A")  # it has one already
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", technology="C")  # not before turn 9
        ctx.rr_orders["B&A"] = RailroadOrders("B&A", technology="b")
        buy_technology(ctx)
        assert (nyc.technologies, penn.technologies, ba.technologies, ba.cash) == ([], [], ["B"], 0)
        assert [e["railroad"] for e in _kinds(ctx, "technology-void")] == ["NYC", "PENN"]
        assert [(e["step"], e["source"], e["amount"]) for e in ctx.ledger] == [("8.3", "rr:B&A", 2010)]
        ctx = _ctx(s, g)
        penn, ba = ctx.railroads["PENN"], ctx.railroads["B&A"]
        penn.cash, ba.cash = 10 * 300 - 1, 10_000
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", technology="B")
        ctx.rr_orders["B&A"] = RailroadOrders("B&A", technology="A")  # Boston, size 4
        buy_technology(ctx)
        assert (penn.technologies, penn.cash) == ([], 2_999)
        assert (ba.technologies, ba.grand_station, ba.cash) == (["A"], True, 0)


# --------------------------------------------------------------------------- §1.3, §11.3 end of turn (2)
def test_the_new_climate_takes_effect_at_the_end_of_the_turn_5(sqlite_url):
    """Appendix A step 16: the climate set for next turn (§5) becomes the game's climate."""
    from pbm.cr.engine.victory import end_of_turn

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=3)
        ctx = _ctx(s, g)
        assert g.climate == "Normal"
        ctx.new_climate = tables.CLIMATES[1]
        end_of_turn(ctx)
        assert g.climate == "Depression" and g.status != "finished"


def test_a_rail_baron_score_of_500_replaces_the_record_and_ties_go_to_the_first_tycoon_11_3(sqlite_url):
    """§11.3: "A score of 500 ... will replace the record of any prior record holder" (ruling
    E-11.3: a Rail Baron score of 500; any other record is replaced only by a higher score);
    §1.3 the winner of a category is the tycoon with the most points (ruling: on a tie, the
    first tycoon)."""
    from sqlalchemy import select

    from pbm.models import GameRecord
    from pbm.cr.engine.victory import record_results

    with session_scope(sqlite_url) as s:
        for category, value in (("rail_baron", 500), ("robber_baron", 30)):
            s.add(GameRecord(title="continental-rails", category=category, value=value, holder="Old", game_name="old",
                             turn=30))
        g = tiny_game(s, name="new", turn=25)
        g.players[1].vp_baron = g.players[2].vp_baron = 500
        g.players[2].vp_robber = 30
        ctx = _ctx(s, g)
        record_results(ctx)
        s.flush()
        records = {r.category: r for r in s.scalars(select(GameRecord).where(GameRecord.title == "continental-rails"))}
        assert (records["rail_baron"].holder, records["rail_baron"].value, records["rail_baron"].game_name,
                records["rail_baron"].turn) == ("Tycoon 2", 500, "new", 25)
        assert records["robber_baron"].holder == "Old"
        winners = {e["data"]["category"]: e["player_number"] for e in _kinds(ctx, "category-winner")}
        assert winners["rail_baron"] == 2 and winners["robber_baron"] == 3
        assert [e["player_number"] for e in _kinds(ctx, "record")] == [1] * 4 + [2]  # four unset records, then 500


# --------------------------------------------------------------------------- §1.2 victory points (2)
def test_prodigal_leftover_goes_to_the_biggest_spender_whatever_his_number_1_2():
    """§1.2 Rail Prodigal: "Any remaining unallocated points are awarded 1 per Prodigal, from
    most to least": the rulebook's example with the tycoons numbered the other way round;
    the points are whole points."""
    from pbm.cr.engine.victory import prodigal_points

    points = prodigal_points({1: 1000, 2: 4000, 3: 10000, 4: 15000})
    assert points == {1: 3, 2: 5, 3: 9, 4: 13}
    assert all(type(v) is int for v in points.values())


def test_mogul_points_of_no_dividend_and_the_fraction_saved_1_2():
    """§1.2 Rail Mogul: the square root of the dividends paid — of $0, nothing; "$2 ... 1 VP
    for the second, and has .41 points saved" (kept to six places)."""
    from pbm.cr.engine.victory import mogul_points

    assert mogul_points([0], 0.0) == (0, 0.0)
    assert mogul_points([0, 0, 0], 0.5) == (0, 0.5)
    assert mogul_points([2], 0.0) == (1, 0.414214)


def test_rail_baron_is_each_score_over_the_best_times_100_1_2():
    """§1.2 Rail Baron: "each other player receives Baron points equal to his score divided by
    the highest score times 100": a 0 scores 0; a best of 1 is a full 100; a category nobody
    scored gives nothing."""
    from pbm.cr.engine.victory import CATEGORIES, baron_points

    def score(**kw):
        return {c: kw.get(c, 0) for c in CATEGORIES}

    got = baron_points({1: score(robber_baron=50, rail_prodigal=1), 2: score(rail_mogul=3),
                        3: score(robber_baron=20, rail_mogul=1)})
    assert got == {1: 100 + 100, 2: 100, 3: 40 + 33}
    assert baron_points({}) == {}


def test_prodigal_points_add_to_those_of_earlier_turns_1_2(tiny):
    """§1.2: "Points in these categories are cumulative"."""
    from pbm.cr.engine.victory import award_prodigal

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.players[1].vp_prodigal, ctx.players[2].vp_prodigal = 7, 2
    ctx.scratch.prodigal = {1: 1000, 2: 1000}
    award_prodigal(ctx)
    assert (ctx.players[1].vp_prodigal, ctx.players[2].vp_prodigal) == (7 + 15, 2 + 15)
    assert [(e["player_number"]) for e in _kinds(ctx, "prodigal-points")] == [1, 2]


def test_the_million_bonus_once_awarded_stays_awarded_across_turns_1_2(tiny):
    """§1.2: the bonus goes to "the first player(s)" worth over $1,000,000: the game's state
    remembers it was awarded in an earlier turn."""
    from pbm.cr.engine.victory import victory_points

    s, g = tiny
    g.state = {"million_awarded": True, "regions_linked": ["atlantic"]}
    s.flush()
    ctx = _ctx(s, g)
    ctx.players[1].cash = 2_000_000
    victory_points(ctx)
    assert not ctx.players[1].million_bonus and not _kinds(ctx, "million")
    assert ctx.game.state["million_awarded"] is True


def test_mogul_points_of_directors_and_a_president_owed_money_or_paid_nothing_1_2(tiny):
    """§1.2 Rail Mogul: "+1 VP to each Director (including the President)"; the President
    "the square root of the dividends paid" — of a road that paid none, nothing; "No Mogul
    points are awarded if the railroad owes any debt to the President": its other directors
    still score. Points add to those of earlier turns."""
    from pbm.cr.engine.victory import award_mogul

    s, g = tiny
    _officers(s, g, {"NYC": 1, "PENN": 1})
    ctx = _ctx(s, g)
    ctx.scratch.directors_at_start = {"NYC": [1, 2, 3], "PENN": [1, 4]}
    ctx.scratch.dividends_paid = {"NYC": 16}  # the PENN paid none
    ctx.railroads["NYC"].president_debt = 10
    for n, p in ctx.players.items():
        p.vp_mogul = 10 * n
    award_mogul(ctx)
    assert [ctx.players[n].vp_mogul for n in (1, 2, 3, 4)] == [10 + 1, 20 + 1, 30 + 1, 40 + 1]


def test_a_bankrupt_richest_tycoon_scores_0_and_the_others_still_score_e_1_2a():
    """§1.2 Robber Baron: "+1 VP to all other non-bankrupt tycoons" (ruling E-1.2a: a tycoon
    bankrupt this turn scores 0) — the others score whatever their place after him."""
    from pbm.cr.engine.victory import robber_baron_points

    out = robber_baron_points({1: 500, 2: 400, 3: 100}, bankrupt={1})
    assert set(out) == {1, 2, 3} and out[1] == 0 and out[2] > out[3] >= 1


def test_magnate_points_for_a_bankrupt_road_and_after_a_road_without_president_1_2(sqlite_url):
    """§1.2 Rail Magnate: points to the president of the start of the turn (ruling E-1.2d) for
    the regions of his road, bankrupt or not (it still operates, §4.11); a road without a
    player president gives nobody points and does not stop the others."""
    from pbm.cr.engine.victory import award_magnate
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": c} for c in ("NYC", "PENN", "LS")], bank_pcs=[])
        _officers(s, g, {"PENN": 2, "LS": 3})
        ctx = _ctx(s, g)
        assert ctx.scratch.president_at_start["NYC"] is None
        ctx.railroads["PENN"].status = "bankrupt"
        award_magnate(ctx)
        assert [ctx.players[n].vp_magnate for n in (1, 2, 3)] == [0, 2, 1]  # Atlantic + Ohio; Great Lakes


def test_step_12_merges_only_what_its_president_may_merge_player_by_player_4_13_10_1e(sqlite_url):
    """§10.1E, §4.13A: each tycoon's merger order is checked — one who was not president of both
    roads at the start of the turn is refused (and told); a tycoon without a merger order, or
    with a refused one, does not stop the next tycoon's."""
    from pbm.cr.engine.mergers import railroad_mergers
    from pbm.models import Railroad

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        for rr in s.query(Railroad).filter_by(game_id=g.id):
            rr.president_id = g.players[1 if rr.code == "PENN" else 2].id
        s.flush()
        ctx = _ctx(s, g, {2: Orders(merge=("PENN", "NYC")), 3: Orders(merge=("B&A", "NYC"))})
        railroad_mergers(ctx)
        assert [e["player_number"] for e in _kinds(ctx, "merger-void")] == [2]
        assert ctx.railroads["PENN"].status == "active" and ctx.railroads["B&A"].status == "merged"
        assert [e["data"]["merging"] for e in _kinds(ctx, "railroads-merged")] == ["B&A"]


def test_merger_drops_the_merging_roads_parallel_row_of_two_4_13a3(sqlite_url):
    """§4.13A3 with ruling E-4.13A3: of two parallel RoW lines the merging road's is deleted
    (the NY3, a second New York–Boston RoW, built by the B&A, against the NYC's NY1)."""
    from pbm.cr.engine.mergers import parallel_deletions
    from tests.cr.helpers import R

    rows = [R("NY1", "RoW", "New York", "Boston", 110, double_with="NY3"),
            R("NY3", "RoW", "New York", "Boston", 112, double_with="NY1")]
    with session_scope(sqlite_url) as s:
        g = _roads_on(s, rows, {"NYC": ["NYC", "NY1"], "B&A": ["B&A", "NY3"]}, "rr")
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        assert [r.code for r in parallel_deletions(ctx, ba, nyc)] == ["NY3"]
        assert [r.code for r in parallel_deletions(ctx, nyc, ba)] == ["NY1"]


def test_merger_averages_efficiency_by_miles_and_clears_the_merged_holdings_4_13c_e(sqlite_url):
    """§4.13E: the survivor's efficiency is the mile-weighted average of the two (ruling
    E-4.13E), whichever road is the longer; §4.13C: the merging road's shareholders keep
    nothing in it — no shares, no short sales, no directorships."""
    from pbm.cr.engine.mergers import merge

    with session_scope(sqlite_url) as s:
        g = _three_roads(s)
        ctx = _ctx(s, g)
        nyc, ba = ctx.railroads["NYC"], ctx.railroads["B&A"]
        nyc.efficiency, ba.efficiency = 60, 90  # NYC 148 miles merges into the B&A's 201
        p1 = ctx.players[1]
        ctx.holding(p1, nyc).short, ctx.holding(p1, nyc).director = 4, True
        merge(ctx, nyc, ba)
        assert ba.efficiency == math.floor((60 * 148 + 90 * 201) / 349) == 77
        assert all((h.shares, h.short, h.director) == (0, 0, False) for h in nyc.holdings)
        assert ctx.holding(p1, ba).short == 4


def test_prodigal_leftover_one_each_down_the_line_1_2_e_1_2c():
    """§1.2: "Any remaining unallocated points are awarded 1 per Prodigal, from most to least"
    (ruling E-1.2c: equal spenders by player number): eight spend $1,000 each — 1 each of the
    even 15, ⌊22/8⌋ = 2 each of the other 22 — and the 6 left go one each to tycoons 1–6."""
    from pbm.cr.engine.victory import prodigal_points

    assert prodigal_points({n: 1000 for n in range(1, 9)}) == {**{n: 4 for n in range(1, 7)}, 7: 3, 8: 3}
    assert prodigal_points({n: 1000 for n in range(1, 5)}) == {1: 8, 2: 8, 3: 7, 4: 7}


# --------------------------------------------------------------------------- §6.1B, §6.3A the Public's orders
def test_public_offer_and_bid_follow_value_mood_and_noise_6_1b_6_3a():
    """§6.1B "The Public will seldom offer more than one-half of the shares it holds ... will
    usually bid for 10 % to 300 % of the shares it offers", §6.3A (ruling E-6.3A, formulas.md):
    fair = max($0.50, (d/2 + max(e, 0)/2) / max(0.30 × r, 0.005)); value = ln(fair/price) within
    ±1.5; sentiment s = mood + value + noise; offer = ⌊P × (10 % × e^(−0.6 s) within 2 %–50 %)⌋;
    bid = ⌊offer × (e^(0.5 s + noise2) within 0.1–3)⌋, at least ⌈10 % of the offer⌉."""
    from pbm.cr.engine.market import public_orders

    # 1,000 shares at $20, dividend $1, profit $1 a share, loan rate 10 % → fair $33.33, value
    # ln(5/3) = 0.511, a Boom's mood 0.09, noise 0.1 → s = 0.701: 6.57 % offered (65), bid ×1.49 (97)
    assert public_orders(1000, 20, 1, 1, 0.10, 0.09, 0.1, 0.05) == (65, 97)
    # a loss counts as no profit: ($4/2 + 0) / 0.036 = $55.56 against $40 → s = 0.329: 82 and 96
    assert public_orders(1000, 40, 4, -2, 0.12, 0, 0, 0) == (82, 96)
    # no dividend and a loss: fair $0.50, value ln(0.5/20) held at −1.5 → 24.6 % offered, bid ×0.47
    assert public_orders(1000, 20, 0, -5, 0.12, 0, 0, 0) == (245, 115)
    # ... and at the bid's floor of 10 %: ⌊24.5⌋ = 24 raised to ⌈24.5⌉ = 25
    assert public_orders(1000, 20, 0, -5, 0.12, 0, 0, -3.0) == (245, 25)
    # a loan rate of 0 capitalises at 0.005: fair $1,800, value held at +1.5: 4.07 % (40), ×2.12 (84)
    assert public_orders(1000, 20, 9, 9, 0.0, 0, 0, 0) == (40, 84)
    # fair $83.33 (value 1.427), noise 0.1: 4 % offered; the bid ×2.26 (90), at most ×3 (120), at least ×0.1 (4)
    assert public_orders(1000, 20, 2, 4, 0.12, 0, 0.1, 0.05) == (40, 90)
    assert public_orders(1000, 20, 2, 4, 0.12, 0, 0.1, 2.0) == (40, 120)
    assert public_orders(1000, 20, 2, 4, 0.12, 0, 0.1, -3.0) == (40, 4)
    # a strong bull sentiment (s = 3.29): the offer at its floor of 2 % (20 of 1,001), the bid ×3
    assert public_orders(1001, 20, 2, 4, 0.12, 0.36, 1.5, 0) == (20, 60)
    # a Panic (s = −5.86): the offer at its cap of 50 % (500 of 1,001), the bid at ×0.1
    assert public_orders(1001, 20, 0, 0, 0.12, -0.36, -4.0, 0) == (500, 50)
    # a $1 stock with nothing to show: fair $0.50, value ln(0.5) = −0.69: 15.15 % offered, bid ×0.71
    assert public_orders(10000, 1, 0, 0, 0.12, 0, 0, 0) == (1515, 1071)


def test_public_sells_into_a_rush_of_buying_and_buys_into_a_rush_of_selling_e_6_3a2():
    """Ruling E-6.3A2 (§6.1B "other factors"): the Public meets 0.7 of the tycoons' unmatched
    orders — bids B over sales S raise its offer by ⌊0.7 (B − S)⌋, at most half its holding;
    sales over bids raise its bid by ⌊0.7 (S − B)⌋, and the offer to at least a third of the bid."""
    from pbm.cr.engine.market import public_orders

    base = (1000, 20, 2, 4, 0.12, 0, 0.1, 0.05)  # alone: offer 40, bid 90
    assert public_orders(*base, player_demand=100, player_supply=20) == (40 + 56, 90)
    assert public_orders(*base, player_demand=1000, player_supply=0) == (500, 90)  # half of 1,000
    assert public_orders(*base, player_demand=0, player_supply=100) == (54, 90 + 70)  # ⌈160/3⌉ = 54
    assert public_orders(*base, player_demand=0, player_supply=1000) == (264, 90 + 700)
    assert public_orders(*base, player_demand=50, player_supply=50) == (40, 90)  # matched: as alone
    assert public_orders(*base, player_demand=0, player_supply=150) == (65, 90 + 105)  # 195/3 = 65 exactly
    # bid/offer at its cap of 3 before the rush: 120 + 70 = 190 bid, so at least ⌈190/3⌉ = 64 offered
    assert public_orders(1000, 20, 2, 4, 0.12, 0, 0.1, 2.0, player_supply=100) == (64, 190)


class _Noise:
    """A stand-in for the Public's random draws: each N(μ, σ) gives μ + σ/2."""

    def normal(self, mu, sigma):
        return mu + sigma / 2


def _public_noise(ctx):
    """The Public's draws (pbm.rng purpose "public-market", docs/cr/formulas.md) fixed; any
    other purpose draws as usual."""
    rng = ctx.rng
    ctx.rng = lambda purpose: _Noise() if purpose == "public-market" else rng(purpose)


def test_market_step_trades_every_order_at_once_6_2_6_3(tiny):
    """§6.3 in the market step, with the Public's draws fixed (noise 0.175, 0.1) and a Good
    climate ahead (mood 0.18, loan rate 10 %).  NYC at $20: 666 issued, the Public 562, the
    treasury 74; last turn $1 dividend and $3 profit a share.  Tycoon 1 bids 100 (after selling
    10 PENN, an order of another road to pass over); 2 sells his 26
    and shorts 10; 3 sells 20; the road offers 30 treasury shares (§10.2C1).
    The Public alone: offer 22, bid 53; the tycoons' bids exceed their sales by
    100 − (30 + 46 + 10/2) = 19, so it offers ⌊0.7 × 19⌋ = 13 more: 35.
    Supply = 35 + 30 + 46 + 10/2 = 116 (§6.3B); Demand = 53 + 100 = 153 (§6.3C);
    end price $20 × (153/116)^0.7 = $24.27, trade price $22.14 (§6.3D–F); shares sold
    35 + 30 + 46 + 10 = 121 (§6.3E): tycoon 1 gets ⌊100 × 116/153⌋ = 75, the Public the other 46
    (§6.3G); the short is covered from the Public at once (§6.2B)."""
    from pbm.cr.engine.market import check_all_orders, public_orders, trade_all
    from pbm.cr.engine.operations import projected_profit
    from pbm.cr.orders import StockOrder

    s, g = tiny
    for p in g.players:
        p.cash = 10_000
    s.flush()
    orders = {1: Orders(stock=[StockOrder("PENN", "sell", 10, priority=1), StockOrder("NYC", "buy", 100, priority=2)]),
              2: Orders(stock=[StockOrder("NYC", "sell", 36, priority=1)]),
              3: Orders(stock=[StockOrder("NYC", "sell", 20, priority=1)])}
    ctx = _ctx(s, g, orders)
    nyc = ctx.railroads["NYC"]
    nyc.last_dividend, nyc.last_revenue, nyc.last_profit = 1, 10_000, 3 * 666
    assert (nyc.shares_issued, nyc.shares_public, nyc.treasury_shares, nyc.cash) == (666, 562, 74, 10_000)
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", treasury_to_market=30)
    ctx.new_climate = tables.CLIMATES[6]  # Good
    _public_noise(ctx)
    penn = ctx.railroads["PENN"]
    assert penn.last_revenue == 0 and penn.last_profit == 0
    projected = projected_profit(ctx, penn) / penn.shares_issued
    penned = public_orders(penn.shares_public, 15, penn.last_dividend, projected, 0.10, 0.18, 0.175, 0.1,
                           player_supply=10)  # tycoon 1 sells 10 PENN
    assert penned != public_orders(penn.shares_public, 15, penn.last_dividend, 0, 0.10, 0.18, 0.175, 0.1,
                                   player_supply=10)
    trade_all(ctx, check_all_orders(ctx))
    m = ctx.scratch.market["NYC"]
    assert (m["public_offer"], m["public_bid"], m["supply"], m["demand"], m["traded"]) == (35, 53, 116, 153, 121)
    assert (m["start"], m["end"], m["trade"]) == (20, 24.27, 22.14) and nyc.price == 24.27
    assert (m["public_bought"], m["treasury_sold"], m["player_bids"], m["player_sales"], m["short_sales"]) == \
        (46, 30, 100, 46, 10)
    p = ctx.players
    assert [ctx.shares(p[n], nyc) for n in (1, 2, 3, 4)] == [26 + 75, 0, 6, 26]
    assert nyc.shares_public == 562 + 46 - 35 - 10 == 563
    assert (nyc.treasury_shares, nyc.shares_issued, nyc.cash) == (44, 696, 10_000 + math.floor(30 * 22.14))
    assert [(t.account, t.railroad, t.bought, t.sold, t.shorted, t.price, t.cover_price) for t in ctx.scratch.trades
            if t.railroad == "NYC"] == [
        ("player:1", "NYC", 75, 0, 0, 22.14, 24.27), ("player:2", "NYC", 0, 26, 10, 22.14, 24.27),
        ("player:3", "NYC", 0, 20, 0, 22.14, 24.27)]
    [ev] = [e for e in _kinds(ctx, "stock-price") if e["railroad"] == "NYC"]
    assert not ev["headline"]  # a rise of 21 %: not a headline (25 %)
    assert not _kinds(ctx, "cornered") and not _kinds(ctx, "short-cut")
    # PENN has not operated yet: the Public values its projected profit (§6.3A), not last turn's $0
    assert (ctx.scratch.market["PENN"]["public_offer"], ctx.scratch.market["PENN"]["public_bid"]) == penned


def test_stock_orders_in_sequence_unnumbered_last_and_only_roads_active_at_the_start_6_1(sqlite_url):
    """§10.1C: stock orders are carried out in the tycoon's sequence (ruling: unnumbered orders
    after the numbered ones, by railroad); §6.1B: only the stock of railroads active at the start
    of the turn trades — a road merged away or founded this turn is void, and so is an unknown one."""
    from pbm.cr.engine.market import _player_lines
    from pbm.cr.orders import StockOrder
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    codes = ["NYC", "PENN", "B&A", "ERIE"]
    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": c} for c in codes], bank_pcs=[])
        ctx = _ctx(s, g)
        p1 = ctx.players[1]
        lines = _player_lines(ctx, p1, [StockOrder("PENN", "sell", 5), StockOrder("NYC", "sell", 5),
                                        StockOrder("ERIE", "sell", 5, 2), StockOrder("B&A", "sell", 5, 1)])
        assert [x.railroad for x in lines] == ["B&A", "ERIE", "NYC", "PENN"]
        ctx.railroads["B&A"].status = "merged"
        ctx.scratch.active_at_start.remove("ERIE")  # as if founded this turn
        lines = _player_lines(ctx, p1, [StockOrder("B&A", "sell", 5, 1), StockOrder("ERIE", "sell", 5, 2),
                                        StockOrder("XXX", "sell", 5, 3), StockOrder("NYC", "sell", 5, 4),
                                        StockOrder("PENN", "buy", 5, 5)])
        assert [(x.railroad, x.action) for x in lines] == [("NYC", "sell"), ("PENN", "buy")]
        assert len([e for e in _kinds(ctx, "stock-void") if "not a railroad active" in e["text"]]) == 3
        ctx.railroads["B&A"].status = "bankrupt"  # a bankrupt road's stock still trades (§4.11)
        assert [x.railroad for x in _player_lines(ctx, p1, [StockOrder("B&A", "sell", 5, 1)])] == ["B&A"]


def test_order_checking_cuts_to_the_tycoons_cash_and_drops_what_is_cut_to_nothing_6_1c(tiny):
    """§6.1C in the market step: each tycoon's orders are checked against his own cash — $1,000
    buys 50 NYC at $20 of the 100 bid, and nothing is left for a PENN bid, which is dropped; a
    tycoon with no stock orders has no lines, and the next tycoon's orders are checked (an order
    for one share stands)."""
    from pbm.cr.engine.market import check_all_orders
    from pbm.cr.orders import StockOrder

    s, g = tiny
    g.players[0].cash, g.players[2].cash = 1000, 5000
    s.flush()
    orders = {1: Orders(stock=[StockOrder("NYC", "buy", 100, 1), StockOrder("PENN", "buy", 10, 2)]),
              2: Orders(),
              3: Orders(stock=[StockOrder("NYC", "buy", 100, 1), StockOrder("PENN", "buy", 1, 2)])}
    ctx = _ctx(s, g, orders)
    checked = check_all_orders(ctx)
    assert sorted(checked) == [1, 3]
    assert [(x.railroad, x.asked, x.allowed) for x in checked[1]] == [("NYC", 100, 50)]
    assert [(x.railroad, x.asked, x.allowed) for x in checked[3]] == [("NYC", 100, 100), ("PENN", 1, 1)]
    cuts = [e for e in _kinds(ctx, "stock-cut") if "not enough cash" in e["text"]]
    assert [e["player_number"] for e in cuts] == [1, 1]


def _nyc_held_by_1_and_2(s, g, directors: bool):
    """NYC: tycoons 1 and 2 hold 300 each (directors or not), the Public the other 66 of 666."""
    from pbm.models import Holding, Railroad

    nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
    for h in s.query(Holding).filter_by(railroad_id=nyc.id):
        h.shares = 300 if h.player.number <= 2 else 0
        h.director = directors and h.player.number <= 2
    nyc.shares_public = nyc.shares_issued - 600
    s.flush()


def _market_ctx(s, g, orders):
    ctx = _ctx(s, g, orders)
    nyc = ctx.railroads["NYC"]
    nyc.last_dividend, nyc.last_revenue, nyc.last_profit = 1, 10_000, 3 * 666
    _public_noise(ctx)
    return ctx


def test_shorts_beyond_what_the_public_keeps_are_cut_pro_rata_and_a_short_cut_to_nothing_is_gone_e_6_2(tiny):
    """Ruling E-6.2: shorts are covered from the Public (§6.2B), so together they may not exceed
    what it keeps after its own offer.  The Public holds 66 NYC and offers 10: 56 left; tycoon 3
    shorts 66 and tycoon 4 one share, 67 in all → ⌊66 × 56/67⌋ = 55 and ⌊56/67⌋ = 0 (no trade).
    Supply = 10 + 55/2 = 37.5, Demand = the Public's 29: the price falls to $16.70, trade
    $18.35; all 65 shares sold go to the Public, which covers the 55 short (§6.3E, §6.3G)."""
    from pbm.cr.engine.market import check_all_orders, trade_all
    from pbm.cr.orders import StockOrder

    s, g = tiny
    _nyc_held_by_1_and_2(s, g, directors=False)
    ctx = _market_ctx(s, g, {3: Orders(stock=[StockOrder("NYC", "sell", 66, 1)]),
                             4: Orders(stock=[StockOrder("NYC", "sell", 1, 1)])})
    trade_all(ctx, check_all_orders(ctx))
    m = ctx.scratch.market["NYC"]
    assert (m["public_offer"], m["short_sales"], m["supply"], m["demand"], m["traded"], m["public_bought"]) == \
        (10, 55, 37.5, 29, 65, 65)
    assert (m["end"], m["trade"]) == (16.70, 18.35)
    assert ctx.railroads["NYC"].shares_public == 66 + 65 - 10 - 55 == 66
    assert [(t.account, t.shorted, t.price, t.cover_price) for t in ctx.scratch.trades] == [
        ("player:3", 55, 18.35, 16.70)]
    assert [(e["player_number"], e["data"]["allowed"], e["data"]["room"]) for e in _kinds(ctx, "short-cut")] == [
        (3, 55, 56), (4, 0, 56)]
    assert not _kinds(ctx, "cornered")
    # the PENN, alone with the Public, rose from $15 to $28.77: a move of a quarter or more is a headline
    [penn] = [e for e in _kinds(ctx, "stock-price") if e["railroad"] == "PENN"]
    assert penn["headline"] and ctx.scratch.market["PENN"]["end"] == 28.77


def test_a_stock_whose_directors_own_more_than_half_is_cornered_6_4(tiny):
    """§6.4: the NYC's two directors own 600 of 666: the stock is cornered (a headline), and no
    one may sell it short (§10.1C4)."""
    from pbm.cr.engine.market import check_all_orders, trade_all
    from pbm.cr.orders import StockOrder

    s, g = tiny
    _nyc_held_by_1_and_2(s, g, directors=True)
    ctx = _market_ctx(s, g, {3: Orders(stock=[StockOrder("NYC", "sell", 66, 1)])})
    checked = check_all_orders(ctx)
    assert checked == {3: []}
    trade_all(ctx, checked)
    [ev] = _kinds(ctx, "cornered")
    assert ev["railroad"] == "NYC" and ev["headline"]
    assert ctx.scratch.market["NYC"]["short_sales"] == 0 and not ctx.scratch.trades


def test_order_checking_edges_short_cut_by_credit_exact_cents_and_no_credit_6_1c_6_2a():
    """§6.1C order checking: "A purchase or short sale that cannot be afforded is cut to the whole
    shares that can"; a short sale deducts half its value (§6.2A), a sale of owned shares adds
    half of it first."""
    from pbm.cr.engine.market import StockLine, check_stock_orders

    def one(cash, line):
        [c] = check_stock_orders(cash, [line])
        return c.allowed, c.sold, c.short, c.available_after

    # $100 of credit shorts 20 of 50 at $10 (half: $5 each)
    assert one(100, StockLine("X", "sell", 50, owned=0, price=10)) == (20, 0, 20, 0)
    # selling 10 owned at $20 adds $100, which shorts 10 more of the 20 asked
    assert one(0, StockLine("X", "sell", 30, owned=10, price=20)) == (20, 10, 10, 0)
    # $30 buys exactly 300 at $0.10 (30 / 0.1 is 299.999… in floating point)
    assert one(30, StockLine("X", "buy", 500, price=0.1))[0] == 300
    # no credit: nothing bought and nothing shorted
    assert one(-50, StockLine("X", "buy", 5, price=10)) == (0, 0, 0, -50)
    assert one(-50, StockLine("X", "sell", 5, owned=0, price=10)) == (0, 0, 0, -50)
    # a $1.50 stock: $10 of credit shorts ⌊10 / 0.75⌋ = 13
    assert one(10, StockLine("X", "sell", 50, owned=0, price=1.5)) == (13, 0, 13, 0.25)
    # the checked lines say what they are
    assert [c.action for c in check_stock_orders(100, [StockLine("X", "sell", 1, owned=1, price=1),
                                                       StockLine("Y", "buy", 1, price=1)])] == ["sell", "buy"]
    # a stock at $0 costs nothing: the whole order stands
    assert one(0, StockLine("X", "buy", 7, price=0)) == (7, 0, 0, 0)
    assert one(0, StockLine("X", "sell", 7, owned=0, price=0)) == (7, 0, 7, 0)


def test_end_price_never_falls_below_a_cent_6_3d():
    """§6.3D with §1.0: the end price is rounded down to the cent but a stock keeps a price: a
    cent at $0.01 × (1/20)^0.7 = $0.0012."""
    from pbm.cr.engine.market import market_price

    assert market_price(0.01, 1, 1000) == 0.01
    # no bids: the ratio at its floor of 1/20; no offers: at its cap of 20; else Demand/Supply
    assert (market_price(20, 0, 1), market_price(20, 1, 0), market_price(20, 5, 1)) == (2.45, 162.83, 61.70)
    assert market_price(1.00, 1, 1000) == 0.12  # 1 × 0.05^0.7 = 0.1228


# --------------------------------------------------------------------------- §1.2 Rail Builder (victory, run 2)

def test_builder_points_remember_regions_and_links_reached_in_earlier_turns_1_2(tiny):
    """§1.2 Rail Builder: "2 VP for each region newly linked (4 VP if the first railroad to
    link it)", and each link bonus doubled only for the first railroad.  Regions and bonuses
    linked in earlier turns (the game's state) are not first again, even when the road that
    linked them is founded later than the one reaching them now (the roads are scored in
    founding order).  The NYC reaches the Great Lakes (linked before: 2) and Central (first: 4),
    and so links Atlantic with Central (bonus 5, claimed before by another road: not doubled)."""
    from pbm.cr.engine.victory import award_builder

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.scratch.president_at_start.update({"NYC": 1, "PENN": 2})
    ctx.scratch.start_regions.update({"NYC": {"Atlantic"}, "PENN": {"Atlantic", "Ohio", "Great Lakes"}})
    now = {"NYC": {"Atlantic", "Great Lakes", "Central"}, "PENN": {"Atlantic", "Ohio", "Great Lakes"}}
    ctx.regions_of = lambda rr: set(now[rr.code])
    state = {"regions_linked": ["atlantic", "great lakes", "ohio"], "bonus_linked": ["atlantic-central/mississippi"]}
    award_builder(ctx, state)
    assert ctx.players[1].vp_builder == 2 + 4 + 5 and ctx.players[2].vp_builder == 0
    assert ctx.players[1].bonuses_claimed == ["atlantic-central/mississippi"]
    assert state == {"regions_linked": ["atlantic", "central", "great lakes", "ohio"],
                     "bonus_linked": ["atlantic-central/mississippi"]}


def test_builder_points_of_a_merged_road_go_once_to_its_survivor_1_2_4_13(tiny):
    """§1.2 Rail Builder after a merger this turn (§4.13): the regions the merged NYC had at the
    start (the Atlantic, the Great Lakes) count with its survivor's, the PENN's (Ohio), so the
    PENN is scored once, for the Deep South only — 4 VP, first reached — to its start-of-turn President."""
    from pbm.cr.engine.victory import award_builder

    s, g = tiny
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.status, nyc.merged_into_id = "merged", penn.id
    ctx.scratch.president_at_start.update({"NYC": 1, "PENN": 2})
    ctx.scratch.start_regions.update({"NYC": {"Atlantic", "Great Lakes"}, "PENN": {"Ohio"}})
    ctx.regions_of = lambda rr: {"Atlantic", "Ohio", "Great Lakes", "Deep South"} if rr is penn else set()
    state: dict = {}
    award_builder(ctx, state)
    assert (ctx.players[1].vp_builder, ctx.players[2].vp_builder) == (0, 4)
    assert state["regions_linked"] == ["atlantic", "deep south", "great lakes", "ohio"]


def test_builder_points_for_a_bankrupt_road_but_not_for_one_merged_away_1_2_4_11(tiny):
    """§1.2 Rail Builder with §4.11: a bankrupt road still operates and its President scores the
    regions it reaches; a road no longer operating (merged, with no survivor to follow) scores none."""
    from pbm.cr.engine.victory import award_builder

    s, g = tiny
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    penn.status, nyc.status, nyc.merged_into_id = "bankrupt", "merged", None
    ctx.scratch.president_at_start.update({"NYC": 1, "PENN": 2})
    ctx.scratch.start_regions.update({"NYC": {"Atlantic"}, "PENN": {"Atlantic", "Ohio"}})
    ctx.regions_of = lambda rr: {"Atlantic", "Ohio", "Great Lakes"}
    award_builder(ctx, {})
    assert (ctx.players[1].vp_builder, ctx.players[2].vp_builder) == (0, 4)


def test_no_builder_bonus_for_a_link_the_road_had_at_the_start_of_the_turn_1_2(tiny):
    """§1.2 Rail Builder: a link bonus is earned when a railroad newly links the regions; a road
    that linked Atlantic with Central in an earlier turn earns nothing for it again, even for a
    President who never claimed that bonus (elected since), while the NYC linking them now does."""
    from pbm.cr.engine.victory import award_builder

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.scratch.president_at_start.update({"NYC": 1, "PENN": 2})
    ctx.scratch.start_regions.update({"NYC": {"Atlantic"}, "PENN": {"Atlantic", "Central"}})
    ctx.regions_of = lambda rr: {"Atlantic", "Central"}
    award_builder(ctx, {"regions_linked": ["atlantic", "central"], "bonus_linked": ["atlantic-central/mississippi"]})
    assert (ctx.players[1].vp_builder, ctx.players[2].vp_builder) == (2 + 5, 0)
    assert not ctx.players[2].bonuses_claimed


def test_builder_points_add_up_and_the_state_keeps_every_region_and_link_ever_reached_1_2(tiny):
    """§1.2 Rail Builder points are cumulative (a tycoon keeps his earlier points and bonuses);
    a road without a President still links regions, but no one scores; a President whose road
    reaches nothing new scores nothing and is not announced.  The game's state keeps every region
    and link ever reached (the Gulf, linked by a road since gone) and adds a road founded this
    turn (the NYC: Atlantic with the Mississippi), which scores nothing in its first turn."""
    from pbm.cr.engine.victory import award_builder

    s, g = tiny
    ctx = _ctx(s, g)
    ctx.scratch.active_at_start.remove("NYC")  # founded this turn
    ctx.scratch.president_at_start.update({"NYC": 1, "PENN": 2})
    ctx.scratch.start_regions.update({"PENN": {"Central", "Gulf"}})
    now = {"NYC": {"Atlantic", "Mississippi"}, "PENN": {"Central", "Gulf"}}
    ctx.regions_of = lambda rr: set(now[rr.code])
    state = {"regions_linked": ["central", "gulf", "pacific"], "bonus_linked": []}
    award_builder(ctx, state)
    assert (ctx.players[1].vp_builder, ctx.players[2].vp_builder) == (0, 0) and not _kinds(ctx, "builder")
    assert state == {"regions_linked": ["atlantic", "central", "gulf", "mississippi", "pacific"],
                     "bonus_linked": ["atlantic-central/mississippi", "central-gulf"]}
    # next turn: the PENN (its President has 10 points and an earlier bonus) reaches the Atlantic
    ctx = _ctx(s, g)
    p2 = ctx.players[2]
    p2.vp_builder, p2.bonuses_claimed = 10, ["central-gulf"]
    ctx.scratch.president_at_start.update({"NYC": None, "PENN": 2})
    ctx.scratch.start_regions.update({"NYC": {"Atlantic"}, "PENN": {"Central", "Gulf"}})
    now = {"NYC": {"Atlantic", "Ohio"}, "PENN": {"Atlantic", "Central", "Gulf"}}
    ctx.regions_of = lambda rr: set(now[rr.code])
    award_builder(ctx, state)
    assert p2.vp_builder == 10 + 2 + 5  # the Atlantic linked before; the bonus claimed first by the NYC
    assert p2.bonuses_claimed == ["atlantic-central/mississippi", "central-gulf"]
    assert [e["player_number"] for e in _kinds(ctx, "builder")] == [2]  # the NYC has no President: no one scores
    assert "ohio" in state["regions_linked"]


def test_stock_orders_that_come_to_nothing_are_dropped_and_the_next_order_stands_6_1a(sqlite_url):
    """§6.1A in the tycoon's sequence: an order for no shares, a bid the 51 % cap cuts to nothing
    and a sale of a cornered stock he does not own (§6.4) come to nothing and are dropped, and a
    fourth bid is void (3 bids with fewer than 16 roads); none of them stops the orders after
    it.  An order within its limits stands as given, and is not reported as cut."""
    from pbm.cr.engine.market import _player_lines
    from pbm.cr.orders import StockOrder
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    codes = ["NYC", "PENN", "B&A", "ERIE", "NYNH", "LS", "MC", "P&FW"]
    with session_scope(sqlite_url) as s:
        g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": c} for c in codes], bank_pcs=[])
        _holdings(s, g, "B&A", {1: 461})  # 51 % of 905: no more may be bought
        _holdings(s, g, "ERIE", {1: 0, 2: 700}, directors={2})  # 700 of 1,292: cornered
        ctx = _ctx(s, g)
        orders = [("NYC", "buy", 0), ("NYC", "buy", 5), ("PENN", "sell", 5), ("B&A", "buy", 10), ("ERIE", "sell", 5),
                  ("NYNH", "buy", 5), ("LS", "buy", 5), ("MC", "buy", 5), ("P&FW", "sell", 5)]
        lines = _player_lines(ctx, ctx.players[1], [StockOrder(c, a, n, i) for i, (c, a, n) in enumerate(orders, 1)])
        assert [(x.railroad, x.action, x.shares) for x in lines] == [
            ("NYC", "buy", 5), ("PENN", "sell", 5), ("NYNH", "buy", 5), ("LS", "buy", 5), ("P&FW", "sell", 5)]
        cut = [e["text"] for e in _kinds(ctx, "stock-cut")]
        assert len(cut) == 2 and "B&A" in cut[0] and "ERIE" in cut[1]
        void = _kinds(ctx, "stock-void")
        assert len(void) == 1 and "MC" in void[0]["text"]


def test_a_bankrupt_roads_stock_trades_and_one_merged_away_does_not_4_11_6_1b(tiny):
    """§4.11: a bankrupt railroad still operates and its stock still trades; a road merged away
    since the start of the turn (§10.1B2) has no market, and the roads after it still trade."""
    from pbm.cr.engine.market import trade_all

    s, g = tiny
    ctx = _market_ctx(s, g, {})
    ctx.railroads["NYC"].status = "bankrupt"
    trade_all(ctx, {})
    assert sorted(ctx.scratch.market) == ["NYC", "PENN"]
    ctx = _market_ctx(s, g, {})
    ctx.railroads["NYC"].status = "merged"
    trade_all(ctx, {})
    assert sorted(ctx.scratch.market) == ["PENN"]


def test_no_short_sale_when_the_public_holds_no_shares_and_no_treasury_sale_on_standing_orders_e_6_2_10_2c(tiny):
    """Ruling E-6.2: with every NYC share in the tycoons' hands the Public can cover no short
    sale, so a short of 66 is cut to nothing.  §10.2C1: treasury shares go to the market only
    when the President orders it — a road on standing orders (no orders this turn) sells none."""
    from pbm.cr.engine.market import check_all_orders, trade_all
    from pbm.cr.orders import StockOrder

    s, g = tiny
    _holdings(s, g, "NYC", {1: 333, 2: 333, 3: 0, 4: 0})
    ctx = _market_ctx(s, g, {3: Orders(stock=[StockOrder("NYC", "sell", 66, 1)])})
    assert ctx.railroads["NYC"].shares_public == 0
    ctx.rr_orders.pop("PENN", None)
    trade_all(ctx, check_all_orders(ctx))
    assert ctx.scratch.market["NYC"]["short_sales"] == 0 and not ctx.scratch.trades
    assert [(e["data"]["allowed"], e["data"]["room"]) for e in _kinds(ctx, "short-cut")] == [(0, 0)]
    assert ctx.scratch.market["PENN"]["treasury_sold"] == 0 and ctx.railroads["PENN"].treasury_shares == 150


def test_a_short_of_exactly_what_the_public_keeps_is_not_cut_e_6_2(tiny):
    """Ruling E-6.2 at its edge: the Public holds 66 NYC and offers 9, keeping 57; a short of 57
    stands whole and no one is told of a cut; a short of 58 is cut to 57."""
    from pbm.cr.engine.market import check_all_orders, trade_all
    from pbm.cr.orders import StockOrder

    s, g = tiny
    _nyc_held_by_1_and_2(s, g, directors=False)
    for asked, allowed, told in ((57, 57, False), (58, 57, True)):
        ctx = _market_ctx(s, g, {3: Orders(stock=[StockOrder("NYC", "sell", asked, 1)])})
        trade_all(ctx, check_all_orders(ctx))
        m = ctx.scratch.market["NYC"]
        assert (m["public_offer"], m["short_sales"]) == (9, allowed)
        assert bool(_kinds(ctx, "short-cut")) is told


def test_treasury_shares_sold_to_the_market_pay_the_road_every_dollar_10_2c1_6_3f(tiny):
    """§10.2C1: a railroad's treasury shares offered to the market are sold at the trade price
    (§6.3F) and the road is paid (step 6.2), rounded down (§1.0) but never a dollar short: 20
    shares at $22.95 are $459."""
    from pbm.cr.engine.context import account
    from pbm.cr.engine.market import trade_all

    s, g = tiny
    ctx = _market_ctx(s, g, {})
    nyc = ctx.railroads["NYC"]
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", treasury_to_market=20)
    cash = nyc.cash
    trade_all(ctx, {})
    assert ctx.scratch.market["NYC"]["trade"] == 22.95 and nyc.cash == cash + 459
    assert [(e["step"], e["source"], e["amount"]) for e in ctx.ledger if e["target"] == account(nyc)] == [
        ("6.2", "public", 459)]
    assert not check_money(ctx)

"""Continental Rails II rules of the order validator and the engine's tables that mutation testing
found untested (issue 31, part 2: ``pbm/cr/validate.py``, ``tables``, ``autopilot``, ...).

Each test pins one rule's outcome (an order cut, refused or kept, what the player is told is
allowed, a figure of a table) so that changing the rule makes it fail; each names its rule
section of the rulebook (/work/shared/seeds/continental-rails-II-rules.txt).
``scripts/mutation_cr.py`` reruns the mutation tests; the scores and the equivalent mutants that
survive are in docs/cr/rules-map.md, "Mutation testing".  The validator's tests use the small
hand-built state of ``tests/cr/orders_helpers.py`` (as ``test_validate.py`` does), the engine's
the tiny game of ``tests/cr/helpers.py``; SQLite only, each well under a second.
"""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, PCBid, RailroadOrders, RateWar, StockOrder
from pbm.db import get_engine
from tests.cr.orders_helpers import build_small
from tests.cr.test_validate import Setup, only


@pytest.fixture
def v(sqlite_url):
    """The validator on the small state (``orders_helpers.build_small``): ``v(orders, player)``
    checks the orders, checks that the result validates again without refusals, returns
    ``(orders, problems)``."""
    session = Session(get_engine(sqlite_url))
    try:
        yield Setup(session, build_small(session))
    finally:
        session.rollback()
        session.close()


def _ro(out, code):
    (ro,) = [r for r in out.railroads if r.railroad == code]
    return ro


# --------------------------------------------------------------------------- validator: loans
def test_a_recall_warning_says_what_to_repay_and_a_negative_railroad_order_is_named_10_2_3_5c(v):
    """§3.5C: a tycoon whose loan is recalled is warned, and told what would settle it (repay the
    recall or more); a negative amount in a railroad's orders (§10.2A–F: amounts to spend or
    move) is refused where it was given (``NYC lend``) and taken as 0."""
    v.s.players[1].loan, v.s.players[1].recall = 5000, 800
    out, problems = v(Orders(repay=300))
    p = only(problems, "repay")
    assert p.warning and p.allowed == "repay $800 or more"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=-5, repay_debt=-2, political=-1)]))
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems if not p.warning] == [
        ("NYC lend", "cannot be negative", "0 or more", True),
        ("NYC repay debt", "cannot be negative", "0 or more", True),
        ("NYC political", "cannot be negative", "0 or more", True)]
    assert (_ro(out, "NYC").lend, _ro(out, "NYC").repay_debt, _ro(out, "NYC").political) == (0, 0, 0)


# --------------------------------------------------------------------------- validator: RoW bids
def test_row_bids_list_what_stays_valid_when_the_road_abandons_its_row_4_7b_c_10_2g3(v):
    """§4.7B–C, §10.2G: PENN owns the unbuilt RoW PA1 (Pittsburgh–Cleveland) and may bid only when
    it builds or abandons it.  Building it, the RoWs at Cleveland (NY2, IN2) connect to the RoW
    it builds and are valid; abandoning it, only those at its lines' towns (NY3, NJ1) are, and
    IN2 is kept as a write-in (§10.2G3) with the valid list as what is allowed."""
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300, row_first="XX")]), player=2)
    assert only(problems, "RoW first").allowed == "NY2, NY3, NJ1, IN2"
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", abandon=True, row_first="XX")]), player=2)
    assert only(problems, "RoW first").allowed == "NY3, NJ1"
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", abandon=True, row_first="IN2")]), player=2)
    p = only(problems, "RoW first")
    assert p.warning and "write-in" in p.message and p.allowed == "NY3, NJ1"
    assert _ro(out, "PENN").row_first == "IN2"


# --------------------------------------------------------------------------- validator: stock
def _road(v, code: str, issued: int, holders: dict[int, int]):
    """A road ``code`` with ``issued`` shares, held by players (number: shares, Directors at
    10 % or more), the rest by the Public."""
    from pbm.models import Holding, Railroad

    session, s = v.session, v.s
    rr = Railroad(game_id=s.game.id, code=code, name=code, number=40 + len(s.railroads), status="active",
                  price=10, shares_authorized=issued, shares_issued=issued,
                  shares_public=issued - sum(holders.values()))
    session.add(rr)
    session.flush()
    for n, shares in holders.items():
        session.add(Holding(player_id=s.players[n].id, railroad_id=rr.id, shares=shares,
                            director=shares * 10 >= issued))
    session.flush()
    session.expire_all()
    s.railroads[code] = rr
    return rr


def test_a_stock_bid_refused_says_whether_the_51_percent_cap_or_no_available_shares_stop_it_6_1a_b(v):
    """§6.1A: no tycoon may own more than 51 % of the issued stock; §6.1B: a bid is for at most 20 %
    of the shares not held by Directors or the bidder.  At exactly 51 % (51 of 100) the bid is
    refused for the cap; with 4 shares available (20 % of 4 is no share) for want of shares."""
    _road(v, "X1", 100, {1: 51, 2: 45})
    out, problems = v(Orders(stock=[StockOrder("X1", "buy", 5, 1)]), player=1)
    p = only(problems, "stock buy X1")
    assert out.stock == [] and p.refused
    assert p.message == "you may not bid for X1 stock: you already own 51 of 100 shares, the 51 % cap (§6.1A)"
    out, problems = v(Orders(stock=[StockOrder("X1", "buy", 5, 1)]), player=3)
    p = only(problems, "stock buy X1")
    assert out.stock == [] and p.refused
    assert p.message == ("you may not bid for X1 stock: no shares are available to you (20 % of the shares "
                         "not held by Directors or you, §6.1B)")


# --------------------------------------------------------------------------- validator: §10.2A–C
def test_president_loans_follow_the_presidents_cash_after_the_bank_loan_10_2a(v):
    """§10.2A1: a road borrows from its President as much as he has after borrowing from the Bank
    (player 1: $2,000 + $1,000 borrowed); a second road only what the first left.  A road cannot
    both borrow from and repay its President: the repayment is dropped (§10.2A)."""
    out, problems = v(Orders(borrow=1000, railroads=[RailroadOrders("NYC", lend=5000),
                                                     RailroadOrders("BA", lend=100)]))
    assert (_ro(out, "NYC").lend, _ro(out, "BA").lend) == (3000, 0)
    p = only(problems, "NYC president loan")
    assert p.adjusted and p.allowed == "up to $3,000" and "$5,000" in p.message and "§10.2A1" in p.message
    p = only(problems, "BA president loan")
    assert p.adjusted and p.allowed == "up to $0" and "you lend $100 but have $0 after" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=2000)]))
    assert _ro(out, "NYC").lend == 2000 and problems == []  # all his cash: not cut
    v.s.railroads["NYC"].president_debt = 500
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=700, repay_president=300)]))
    assert (_ro(out, "NYC").lend, _ro(out, "NYC").repay_president) == (700, 0)
    p = only(problems, "NYC president loan")
    assert p.refused and "repayment is dropped (§10.2A)" in p.message


def test_repaying_the_president_is_limited_by_the_debt_and_the_starting_cash_and_adds_to_his_cash_10_2a2(v):
    """§10.2A2: a road repays its President up to what it has at the start of the turn and up to
    the debt; what he is repaid is his to spend on the later personal actions (here a PC bid,
    §10.1B4, that would otherwise be cut)."""
    nyc = v.s.railroads["NYC"]
    nyc.cash, nyc.president_debt = 5000, 3000
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=4000)]))
    p = only(problems, "NYC repay president")
    assert _ro(out, "NYC").repay_president == 3000 and p.adjusted and p.allowed == "up to $3,000"
    assert "more than the debt to you" in p.message
    nyc.president_debt = 5000  # debt = cash: still "the debt"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=6000)]))
    p = only(problems, "NYC repay president")
    assert _ro(out, "NYC").repay_president == 5000 and "more than the debt to you" in p.message
    nyc.president_debt = 9000
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=6000)]))
    p = only(problems, "NYC repay president")
    assert _ro(out, "NYC").repay_president == 5000 and "more than its starting cash" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=5000)]))
    assert problems == []
    nyc.cash = -100  # a road in deficit repays nothing
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=500)]))
    p = only(problems, "NYC repay president")
    assert _ro(out, "NYC").repay_president == 0 and p.allowed == "up to $0" and "its starting cash" in p.message
    nyc.cash, nyc.president_debt = 5000, 0
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=500)]))
    p = only(problems, "NYC repay president")
    assert _ro(out, "NYC").repay_president == 0 and p.allowed == "up to $0" and "the debt to you" in p.message
    nyc.president_debt = 9000
    # $2,000 + $1,000 repaid: a bid of $3,000 for HRL stands
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 3000, 1)], railroads=[RailroadOrders("NYC", repay_president=1000)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 3000)] and problems == []
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 3000, 1)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 2000)]


def test_debt_is_repaid_from_the_starting_cash_plus_the_presidents_loan_10_2b(v):
    """§10.2B: a road repays Bank debt (short-term loans and bonds) only out of its starting cash
    plus or minus the President's loans: NYC's $5,000 and $1,000 lent is $6,000 against $8,000 of
    debt; without the loan, $5,000; what it repays its President is not there to repay debt."""
    nyc = v.s.railroads["NYC"]
    nyc.loan_debt, nyc.bond_debt, nyc.president_debt = 3000, 5000, 2000
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1000, repay_debt=7000)]))
    p = only(problems, "NYC repay debt")
    assert _ro(out, "NYC").repay_debt == 6000 and p.adjusted and p.allowed == "up to $6,000"
    assert "its cash after President loans" in p.message and "§10.2B" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=2000, repay_debt=7000)]))
    assert _ro(out, "NYC").repay_debt == 3000
    # what it repays is gone from the cash its other orders are warned against ($5,000 − $1,000)
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=1000, political=4001)]))
    assert "starts with $4,000" in only(problems, "NYC political").message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=1000, political=4000)]))
    assert problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=2000, repay_debt=9000)]))
    p = only(problems, "NYC repay debt")
    assert _ro(out, "NYC").repay_debt == 7000 and "its cash after" in p.message
    nyc.bond_debt = 0  # the debt is below the cash
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=4000)]))
    p = only(problems, "NYC repay debt")
    assert _ro(out, "NYC").repay_debt == 3000 and "more than its debt" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=3000)]))
    assert problems == []
    nyc.loan_debt = 0  # no debt: nothing to repay
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=10)]))
    assert _ro(out, "NYC").repay_debt == 0 and only(problems, "NYC repay debt").allowed == "up to $0"
    nyc.loan_debt, nyc.cash = 500, -100  # in deficit: nothing to repay with
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=10)]))
    p = only(problems, "NYC repay debt")
    assert _ro(out, "NYC").repay_debt == 0 and p.allowed == "up to $0" and "its cash after" in p.message


def test_treasury_stock_to_the_president_at_half_price_limited_by_shares_and_his_cash_10_2c(v):
    """§10.2C2: the President buys treasury stock at 50 % of the market price, limited by the
    shares and by his cash right after the railroad loans; he pays the cost rounded up to the
    dollar (§1.0).  §10.2C3: what is not sold to him may go to the market."""
    nyc = v.s.railroads["NYC"]  # 111 treasury shares
    nyc.price = 15.5  # $7.75 a share to the President
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=300)]))
    p = only(problems, "NYC treasury to president")
    assert _ro(out, "NYC").treasury_to_president == 111 and p.adjusted and p.allowed == "up to 111 shares"
    assert "NYC has 111 treasury shares" in p.message
    # lending $1,500 first leaves $500: 64 shares at $7.75
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1500, treasury_to_president=100)]))
    p = only(problems, "NYC treasury to president")
    assert _ro(out, "NYC").treasury_to_president == 64 and p.allowed == "up to 64 shares"
    assert "your $500 buys 64" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1500, treasury_to_president=64)]))
    assert not [p for p in problems if "treasury" in p.where]
    # 63 shares cost ⌈$488.25⌉ = $489: $11 is left for the rest of the turn
    out, problems = v(Orders(prodigal=1000, railroads=[RailroadOrders("NYC", lend=1500, treasury_to_president=63)]))
    p = only(problems, "prodigal")
    assert p.warning and "more than the $11 you have" in p.message
    # to the market: what the President does not take
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=100, treasury_to_market=20)]))
    p = only(problems, "NYC treasury to market")
    assert _ro(out, "NYC").treasury_to_market == 11 and p.adjusted and p.allowed == "up to 11 shares"
    assert p.message == "20 shares asked but only 11 treasury shares are left; lowered (§10.2C3)"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=100, treasury_to_market=11)]))
    assert problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_market=111)]))
    assert _ro(out, "NYC").treasury_to_market == 111 and problems == []
    nyc.price = 20.0  # $10 a share: $1,110 buys the 111 treasury shares exactly; the shares limit it
    v.s.players[1].cash = 1110
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=300)]))
    assert "NYC has 111 treasury shares" in only(problems, "NYC treasury to president").message
    nyc.price = 1.5  # $0.75 a share: $0 buys none, $1 one
    v.s.players[1].cash = 1
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=10)]))
    assert _ro(out, "NYC").treasury_to_president == 1
    v.s.players[1].cash = 0  # a tycoon without cash buys none
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=10)]))
    p = only(problems, "NYC treasury to president")
    assert _ro(out, "NYC").treasury_to_president == 0 and "your $0 buys 0" in p.message


def test_treasury_stock_of_a_road_priced_at_nothing_is_limited_by_its_shares_only_10_2c2(v):
    """§10.2C2 at a price of $0 (a worthless stock): half of nothing is free, so only the road's
    treasury shares limit the sale, whatever the President's cash."""
    v.s.railroads["BA"].price = 0
    v.s.players[1].cash = 0
    out, problems = v(Orders(railroads=[RailroadOrders("BA", treasury_to_president=500)]))
    p = only(problems, "BA treasury to president")
    assert _ro(out, "BA").treasury_to_president == 100 and "BA has 100 treasury shares" in p.message


# --------------------------------------------------------------------------- validator: §10.1A
def test_bank_loan_orders_negative_netted_cut_and_followed_into_the_cash_10_1a_3_5(v):
    """§10.1A: a tycoon borrows up to his available credit (§3.5A: $7,000 here) and repays up to
    his cash and his loan; negative amounts are refused as 0; borrowing and repaying in one turn
    are netted; the cash after the loan is what the later personal actions spend (a PC bid)."""
    p1 = v.s.players[1]
    out, problems = v(Orders(borrow=-5, repay=-1))
    p = only(problems, "loan")
    assert p.refused and p.allowed == "0 or more" and (out.borrow, out.repay) == (0, 0)
    out, problems = v(Orders(borrow=-5, prodigal=1000))
    assert out.borrow == 0 and len(problems) == 1
    out, problems = v(Orders(borrow=7000))
    assert out.borrow == 7000 and problems == []
    out, problems = v(Orders(borrow=7001))
    p = only(problems, "borrow")
    assert out.borrow == 7000 and p.adjusted and p.allowed == "up to $7,000"
    # netted: 1,000 − 1,000 is neither
    p1.loan = 5000
    out, problems = v(Orders(borrow=1000, repay=1000))
    assert (out.borrow, out.repay) == (0, 0) and "taken as repaying $0" in only(problems, "loan").message
    out, problems = v(Orders(borrow=400, repay=1000))
    assert (out.borrow, out.repay) == (0, 600) and "taken as repaying $600" in only(problems, "loan").message
    out, problems = v(Orders(borrow=1000, repay=400))
    assert "taken as borrowing $600" in only(problems, "loan").message
    # repaying: the loan or the cash, whichever is less ($2,000 cash)
    p1.loan = 2000
    out, problems = v(Orders(repay=2500))
    p = only(problems, "repay")
    assert out.repay == 2000 and "more than your cash" in p.message and p.allowed == "up to $2,000"
    p1.loan = 1999
    out, problems = v(Orders(repay=2500))
    assert out.repay == 1999 and "more than your loan" in only(problems, "repay").message
    out, problems = v(Orders(repay=1999))
    assert problems == []
    # the cash after the loan: $2,000 + $700 borrowed buys a bid of $2,700; $2,000 − $500 repaid does not
    out, problems = v(Orders(borrow=700, pc_bids=[PCBid("HRL", 2700, 1)]))
    assert [b.amount for b in out.pc_bids] == [2700] and problems == []
    out, problems = v(Orders(repay=500, pc_bids=[PCBid("HRL", 2000, 1)]))
    assert [b.amount for b in out.pc_bids] == [1500]


def test_a_recall_is_warned_of_unless_the_repayment_covers_it_3_5c(v):
    """§3.5C: when the Bank recalls part of a loan, a repayment below the recall is warned of (the
    rest is collected at the end of the turn); repaying exactly the recall is not."""
    p1 = v.s.players[1]
    p1.loan, p1.recall = 5000, 800
    out, problems = v(Orders(repay=800))
    assert problems == []
    out, problems = v(Orders(repay=799))
    p = only(problems, "repay")
    assert p.warning and "recalls $800" in p.message and "you repay $799" in p.message
    p1.recall = 0
    out, problems = v(Orders())
    assert problems == []


# --------------------------------------------------------------------------- validator: §10.2D–H
def test_capital_spending_is_1_to_50_a_mile_and_none_for_a_bankrupt_road_10_2d_4_11b(v):
    """§10.2D1: $1 to $50 a mile (ruling R-O1): $50 stands, $51 is lowered to $50; §4.11B: a
    bankrupt road spends nothing on capital improvements."""
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", capital_per_mile=50)]))
    assert _ro(out, "NYC").capital_per_mile == 50 and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", capital_per_mile=51)]))
    p = only(problems, "NYC capital")
    assert _ro(out, "NYC").capital_per_mile == 50 and p.adjusted and p.allowed == "$1–50 per mile"
    v.s.railroads["BA"].status = "bankrupt"
    out, problems = v(Orders(railroads=[RailroadOrders("BA", capital_per_mile=60)]))
    p = only(problems, "BA capital")
    assert _ro(out, "BA").capital_per_mile == 0 and p.refused and "§4.11B" in p.message


def test_building_a_row_between_the_climates_minimum_and_double_it_4_6b_c_10_2e(v):
    """§4.6B–C, §10.2E: PENN builds its RoW PA1 at the climate's minimum to double it ($300–$600
    in a Normal climate, $400–$800 in a Boom): the bounds stand, below is raised, above lowered;
    $0 or less is no order; a road without a RoW or a bankrupt one cannot build."""
    for asked, got in ((300, 300), (600, 600), (299, 300), (601, 600), (1, 300)):
        out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=asked)]), player=2)
        assert _ro(out, "PENN").build_per_mile == got
        assert [p.adjusted for p in problems] == ([] if asked == got else [True])
        if asked != got:
            assert problems[0].where == "PENN build" and problems[0].allowed == "$300–$600 per mile"
    for asked in (0, -10):
        out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=asked)]), player=2)
        assert _ro(out, "PENN").build_per_mile is None and problems == []
    v.s.game.climate = "Boom"
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=350)]), player=2)
    p = only(problems, "PENN build")
    assert _ro(out, "PENN").build_per_mile == 400 and p.allowed == "$400–$800 per mile" and "Boom" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=900)]), player=2)
    assert _ro(out, "PENN").build_per_mile == 800 and "§4.6C" in only(problems, "PENN build").message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", build_per_mile=500)]))
    p = only(problems, "NYC build")
    assert _ro(out, "NYC").build_per_mile is None and p.refused and "owns no RoW" in p.message
    v.s.railroads["PENN"].status = "bankrupt"
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=500)]), player=2)
    p = only(problems, "PENN build")
    assert _ro(out, "PENN").build_per_mile is None and p.refused and "bankrupt" in p.message


@pytest.mark.parametrize("turn, builds", [(10, True), (11, False), (12, False), (13, True)])
def test_no_row_is_built_in_the_civil_war_turns_11_and_12_8(v, turn, builds):
    """§8: no railroad builds a RoW during the Civil War, turns 11 and 12; it keeps the RoW."""
    v.s.game.turn = turn
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300)]), player=2)
    assert (_ro(out, "PENN").build_per_mile == 300) is builds
    assert [p.refused for p in problems] == ([] if builds else [True])
    if not builds:
        assert problems[0].where == "PENN build" and "Civil War" in problems[0].message


def test_abandoning_needs_a_row_and_not_building_it_and_either_allows_a_row_bid_10_2e3_4_7b(v):
    """§10.2E3: a road abandons the RoW it owns by not building it; without a RoW, or while
    building it, the abandonment is refused.  §4.7B: building or abandoning its RoW lets a road
    bid for a new one."""
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", abandon=True)]))
    p = only(problems, "NYC abandon")
    assert _ro(out, "NYC").abandon is False and p.refused and "owns no RoW" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300, abandon=True)]), player=2)
    p = only(problems, "PENN abandon")
    assert _ro(out, "PENN").abandon is False and _ro(out, "PENN").build_per_mile == 300 and "it builds" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", abandon=True)]), player=2)
    assert _ro(out, "PENN").abandon and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", abandon=True, row_first="NJ1")]), player=2)
    assert _ro(out, "PENN").row_first == "NJ1" and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300, row_first="NJ1")]), player=2)
    assert _ro(out, "PENN").row_first == "NJ1" and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=0, row_first="NJ1")]), player=2)
    p = only(problems, "PENN RoW bid")
    assert _ro(out, "PENN").row_first is None and p.refused and "already owns the RoW PA1" in p.message


def _double_connection(v):
    """NYC also runs HRL (New York–Albany, 140 miles); BA runs NY1, its parallel twin, already
    double-tracked: NYC and BA are parallel (§4.16)."""
    from pbm.models import Line

    session, s = v.session, v.s
    session.add(Line(railroad_id=s.railroads["NYC"].id, route_id=s.routes["HRL"].id))
    session.add(Line(railroad_id=s.railroads["BA"].id, route_id=s.routes["NY1"].id, double_tracked=True))
    session.flush()
    session.expire_all()


def test_double_track_only_the_roads_own_single_lines_once_and_warned_when_cash_is_short_4_15(v):
    """§4.15: a road double-tracks its own lines, each once, paid from cash only: 25 % of the
    minimum build cost a mile (NYC's 150 miles: $11,250; HRL's 140: $10,500).  An unknown line is
    refused with the lines it may double; the cash is the road's after its President's loans."""
    _double_connection(v)
    nyc = v.s.railroads["NYC"]
    nyc.cash = 11_249
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", double_track=["zz"])]))
    p = only(problems, "NYC double track")
    assert _ro(out, "NYC").double_track == [] and p.refused and p.allowed == "HRL, NYC"
    assert "zz is not a line of NYC" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", double_track=["nyc"])]))
    p = only(problems, "NYC double track")
    assert _ro(out, "NYC").double_track == ["NYC"] and p.warning
    assert "costs $11,250" in p.message and "starts with $11,249" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1, double_track=["NYC"])]))
    assert _ro(out, "NYC").double_track == ["NYC"] and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", double_track=["HRL", "hrl"])]))
    p = only(problems, "NYC double track")
    assert _ro(out, "NYC").double_track == ["HRL"] and p.refused and "listed twice" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("BA", double_track=["NY1", "B&A"])]))
    assert _ro(out, "BA").double_track == ["B&A"]
    assert [(p.refused, p.message) for p in problems][0] == (True, "NY1 is already double-tracked")


def test_rate_wars_only_with_a_parallel_road_once_at_1_to_99_percent_4_16(v):
    """§4.16: a road may start a rate war only with a road running a line parallel to one of its
    own (NYC's HRL and BA's NY1), once a turn, cutting its rates by 1–99 %."""
    _double_connection(v)
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("ba", 1), RateWar("BA", 5)])]))
    p = only(problems, "NYC rate war")
    assert _ro(out, "NYC").rate_wars == [RateWar("BA", 1)] and p.refused and "second rate war with BA" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("BA", 99)])]))
    assert _ro(out, "NYC").rate_wars == [RateWar("BA", 99)] and problems == []
    for percent in (0, 100):
        out, problems = v(Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("BA", percent)])]))
        p = only(problems, "NYC rate war")
        assert _ro(out, "NYC").rate_wars == [] and p.refused and p.allowed == "1–99 %"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("PENN", 10), RateWar("ZZ", 10)])]))
    assert _ro(out, "NYC").rate_wars == []
    assert [(p.where, p.allowed) for p in problems] == [("NYC rate war", "BA"), ("NYC rate war", "BA")]
    assert "PENN has no line parallel to NYC" in problems[0].message
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", rate_wars=[RateWar("NYC", 10)])]), player=2)
    assert only(problems, "PENN rate war").allowed == "no railroad is parallel to PENN"


def test_engines_only_an_available_upgrade_warned_when_cash_is_short_4_17(v):
    """§4.17: a road upgrades to an engine available this turn (the best is 3, American, here),
    at $10 a mile for each step (NYC's 150 miles: $1,500 to Norris, $3,000 to American), paid
    from cash only; its own engine is no order; any other is refused with what is available."""
    v.s.game.state = {"locomotive": 3, "technologies": ["A", "B"]}
    nyc = v.s.railroads["NYC"]
    nyc.cash = 2999
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", locomotive=1)]))
    assert _ro(out, "NYC").locomotive is None and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", locomotive=4)]))
    p = only(problems, "NYC locomotive")
    assert _ro(out, "NYC").locomotive is None and p.refused
    assert p.allowed == "2 Norris 4-2-0 ($1,500), 3 American 4-4-0 ($3,000)" and "it has 1 Lion" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", locomotive=3)]))
    p = only(problems, "NYC locomotive")
    assert _ro(out, "NYC").locomotive == 3 and p.warning and "costs $3,000" in p.message and "$2,999" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1, locomotive=3)]))
    assert _ro(out, "NYC").locomotive == 3 and problems == []
    v.s.game.state = {"locomotive": 1, "technologies": ["A"]}
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", locomotive=2)]))
    assert only(problems, "NYC locomotive").allowed == "no upgrade is available this turn"


def test_technologies_available_not_yet_held_and_the_grand_station_at_a_size_4_town_4_18(v):
    """§4.18: a road buys a technology available this turn that it lacks ($10 a mile; the Grand
    Station $10,000 and only at a size 4 or 5 town), paid from cash only.  The refusal says why:
    held already, no big town, no such letter, or not available; and lists what is."""
    v.s.game.state = {"locomotive": 1, "technologies": ["A", "B"]}
    nyc, ba = v.s.railroads["NYC"], v.s.railroads["BA"]
    nyc.cash = 1500
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", technology=" b ")]))
    assert _ro(out, "NYC").technology == "B" and problems == []
    nyc.cash = 1499
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", technology="B")]))
    p = only(problems, "NYC technology")
    assert p.warning and "Switch Yards costs $1,500" in p.message and "$1,499" in p.message
    cases = [("A", "NYC does not reach a size 4 or 5 town (§4.18)"), ("Z", "is not a technology letter"),
             ("C", "is not available to NYC")]
    for letter, why in cases:
        out, problems = v(Orders(railroads=[RailroadOrders("NYC", technology=letter)]))
        p = only(problems, "NYC technology")
        assert _ro(out, "NYC").technology is None and p.refused
        assert p.message == f"technology {letter} {why}" and p.allowed == "B Switch Yards ($1,500)"
    nyc.technologies = ["B"]
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", technology="B")]))
    p = only(problems, "NYC technology")
    assert p.message == "technology B NYC already has it" and p.allowed == "none this turn"
    out, problems = v(Orders(railroads=[RailroadOrders("BA", technology="A")]))
    p = only(problems, "BA technology")
    assert _ro(out, "BA").technology == "A" and p.warning and "$10,000" in p.message
    ba.grand_station = True
    out, problems = v(Orders(railroads=[RailroadOrders("BA", technology="A")]))
    assert only(problems, "BA technology").message == "technology A BA already has it"


def test_political_spending_at_least_a_dollar_a_mile_from_cash_and_none_when_bankrupt_4_9_10_2f(v):
    """§4.9B, §10.2F2: at least $1 a mile (NYC's 150 miles: $150) buys influence, less buys none;
    §10.2F1: only from cash (after the President's loans), so more is warned of; a bankrupt road
    spends nothing (§4.9A)."""
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=150)]))
    assert _ro(out, "NYC").political == 150 and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=149)]))
    p = only(problems, "NYC political")
    assert _ro(out, "NYC").political == 0 and p.refused
    assert p.allowed == "$150 or more (each further $150 adds a level)" and "150 miles" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=5000)]))
    assert problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=5001)]))
    p = only(problems, "NYC political")
    assert _ro(out, "NYC").political == 5001 and p.warning and "starts with $5,000" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1, political=5001)]))
    assert problems == []
    v.s.railroads["NYC"].status = "bankrupt"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=150)]))
    p = only(problems, "NYC political")
    assert _ro(out, "NYC").political == 0 and p.refused and "§4.9A" in p.message


def test_dividend_0_to_99_a_share_and_a_bankrupt_road_warned_that_it_pays_none_4_12_10_2h(v):
    """§10.2H1, §4.12: a dividend rate of $0 to $99 a share; more is lowered to $99, a negative
    one is refused (the rate stays unchanged, §10.2H2); §4.11B: a bankrupt road pays no dividend,
    so a rate above $0 is warned of and kept."""
    for asked, got, kind in ((0, 0, None), (99, 99, None), (100, 99, "adjusted"), (-1, None, "refused")):
        out, problems = v(Orders(railroads=[RailroadOrders("NYC", dividend=asked)]))
        assert _ro(out, "NYC").dividend == got
        assert [p.where for p in problems] == ([] if kind is None else ["NYC dividend"])
        if kind:
            assert getattr(problems[0], kind) and problems[0].allowed == "$0–$99 per share"
    v.s.railroads["NYC"].status = "bankrupt"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", dividend=0)]))
    assert _ro(out, "NYC").dividend == 0 and problems == []
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", dividend=1)]))
    p = only(problems, "NYC dividend")
    assert _ro(out, "NYC").dividend == 1 and p.warning and "§4.11B" in p.message


def test_row_bids_a_first_and_a_different_alternate_the_alternate_moving_up_10_2g(v):
    """§10.2G1–2: a first choice and an alternate that differs from it; an unknown route is
    refused with the valid RoWs (§4.7E: NYC's are NY1, NY2, NY3, VT1); when the first is refused
    or missing, the alternate becomes the first choice.  A road's own RoW is no bid (refused with
    the list), while a RoW not connected now is kept as a write-in (§10.2G3)."""
    nyc_valid = "NY1, NY2, NY3, VT1"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="XX")]))
    p = only(problems, "NYC RoW first")
    assert (_ro(out, "NYC").row_first, p.refused, p.allowed) == (None, True, nyc_valid)
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_alternate="vt1")]))
    assert (_ro(out, "NYC").row_first, _ro(out, "NYC").row_alternate, problems) == ("VT1", None, [])
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="ZZ", row_alternate="VT1")]))
    assert (_ro(out, "NYC").row_first, _ro(out, "NYC").row_alternate) == ("VT1", None)
    assert only(problems, "NYC RoW first").refused
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="NY2", row_alternate="VT1")]))
    assert (_ro(out, "NYC").row_first, _ro(out, "NYC").row_alternate, problems) == ("NY2", "VT1", [])
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="NY2", row_alternate="ny2")]))
    p = only(problems, "NYC RoW alternate")
    assert (_ro(out, "NYC").row_first, _ro(out, "NYC").row_alternate) == ("NY2", None)
    assert p.refused and "already your first choice" in p.message
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300, row_first="PA1")]), player=2)
    p = only(problems, "PENN RoW first")
    assert (_ro(out, "PENN").row_first, p.refused, p.message) == (None, True, "PA1 is owned by PENN")
    assert p.allowed == "NY2, NY3, NJ1, IN2"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="NJ1", row_alternate="NY2")]))
    p = only(problems, "NYC RoW first")
    assert (_ro(out, "NYC").row_first, _ro(out, "NYC").row_alternate) == ("NJ1", "NY2")
    assert p.warning and "write-in" in p.message and p.allowed == nyc_valid


def test_a_bankrupt_road_bids_for_no_row_4_7i(v):
    """§4.7I: a bankrupt railroad may not bid for a RoW: both bids are refused together."""
    v.s.railroads["NYC"].status = "bankrupt"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="NY2", row_alternate="VT1")]))
    p = only(problems, "NYC RoW bid")
    assert (_ro(out, "NYC").row_first, _ro(out, "NYC").row_alternate) == (None, None)
    assert p.refused and "§4.7I" in p.message


def test_railroad_orders_only_once_for_a_road_the_tycoon_presides_10_2_4_14c(v):
    """§4.14C, §10.2: only the President gives a road's orders, one set a road (the first); an
    unknown road is refused with the roads he presides (none for a tycoon presiding none)."""
    out, problems = v(Orders(railroads=[RailroadOrders("nyc", dividend=2), RailroadOrders("NYC", dividend=5),
                                        RailroadOrders("QQ", dividend=1)]))
    assert [(r.railroad, r.dividend) for r in out.railroads] == [("NYC", 2)]
    assert [(p.where, p.allowed, p.refused) for p in problems] == [
        ("NYC orders", "", True), ("railroad QQ", "NYC, BA", True)]
    assert "second set of orders for NYC" in problems[0].message and "no railroad 'QQ'" in problems[1].message
    out, problems = v(Orders(railroads=[RailroadOrders("QQ"), RailroadOrders("NYC")]), player=3)
    assert out.railroads == []
    assert [(p.where, p.allowed) for p in problems] == [("railroad QQ", "you preside no railroad"),
                                                        ("NYC orders", "you preside no railroad")]


# --------------------------------------------------------------------------- engine: autopilot
def test_autopilot_seeks_the_row_reaching_the_most_valuable_new_town_shortest_then_first_10_2_e_10_2(tiny):
    """Ruling E-10.2 (§3.1, §10.2): a road nobody gives orders to spends $12 a mile on capital
    ($15 below 80 % efficiency), seeks the valid RoW whose new towns are worth most (§2.6), the
    shorter of equals, then the lower route number, and buys a level of influence ($1 a mile)
    when its cash is more than twice that.  Tiny game: NYC (New York–Albany, 148 miles) may bid
    for NY1 (Boston, 16), NY2 (Buffalo, 9) and PA1 (Philadelphia, 16): PA1 is shorter than NY1."""
    from pbm.cr.engine.autopilot import autopilot_orders
    from tests.cr.helpers import turn_context

    s, g = tiny
    ctx = turn_context(s, g)
    nyc = ctx.railroads["NYC"]
    ro = autopilot_orders(ctx, nyc)
    assert (ro.railroad, ro.capital_per_mile, ro.row_first, ro.political) == ("NYC", 12, "PA1", 148)
    assert (ro.build_per_mile, ro.row_alternate, ro.locomotive, ro.dividend) == (None, None, None, None)
    nyc.efficiency = 80
    assert autopilot_orders(ctx, nyc).capital_per_mile == 12
    nyc.efficiency = 79
    assert autopilot_orders(ctx, nyc).capital_per_mile == 15
    nyc.cash = 296  # not more than twice $148: no influence
    assert (autopilot_orders(ctx, nyc).row_first, autopilot_orders(ctx, nyc).political) == ("PA1", 0)
    nyc.cash = 297
    assert autopilot_orders(ctx, nyc).political == 148
    ny1 = next(r for r in ctx.routes.values() if r.code == "NY1")
    ny1.miles = 90  # as short as PA1: the lower route number, NY1 (9 before 11)
    assert autopilot_orders(ctx, nyc).row_first == "NY1"
    ny1.miles = 110
    pa1 = next(r for r in ctx.routes.values() if r.code == "PA1")
    pa1.owner_id = ctx.railroads["PENN"].id  # taken: of NY1 (Boston, 16) and NY2 (Buffalo, 9), NY1
    ctx.routes_changed()
    assert autopilot_orders(ctx, nyc).row_first == "NY1"
    buffalo = next(t for t in ctx.towns.values() if t.name == "Buffalo")
    buffalo.size = 5  # 25 new on NY2 against Boston's 16: the towns it already reaches do not count
    assert autopilot_orders(ctx, nyc).row_first == "NY2"


def test_autopilot_builds_its_row_at_the_minimum_and_upgrades_its_engine_with_three_times_the_cost_10_2(sqlite_url):
    """Ruling E-10.2: a road owning a RoW builds it at the climate's minimum (§4.6B: $400 in a Boom)
    and bids for none; it upgrades to the best engine available (§4.17: Norris from turn 4) when its
    cash is more than three times the cost ($10 a mile a step: $1,480 for NYC's 148 miles)."""
    from pbm.cr.engine.autopilot import autopilot_orders
    from pbm.db import session_scope
    from pbm.models import Railroad, Route
    from tests.cr.helpers import tiny_game, turn_context

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=4, climate="Boom")
        nyc_row = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
        s.query(Route).filter_by(game_id=g.id, code="NY2").one().owner_id = nyc_row.id
        s.flush()
        ctx = turn_context(s, g)
        nyc = ctx.railroads["NYC"]
        ro = autopilot_orders(ctx, nyc)
        assert (ro.build_per_mile, ro.row_first, ro.political, ro.locomotive) == (400, None, 0, 2)
        nyc.cash = 3 * 1480
        assert autopilot_orders(ctx, nyc).locomotive is None
        nyc.cash = 3 * 1480 + 1
        assert autopilot_orders(ctx, nyc).locomotive == 2
        nyc.locomotive = 2
        assert autopilot_orders(ctx, nyc).locomotive is None
        penn = ctx.railroads["PENN"]  # no RoW: bids, and Norris costs $3,000 for 300 miles
        ro = autopilot_orders(ctx, penn)
        assert (ro.build_per_mile, ro.row_first, ro.locomotive) == (None, "PA1", 2)


# --------------------------------------------------------------------------- engine: tables
def test_climate_chart_rates_and_revenue_factor_by_name_5_4_10a():
    """§5: the climate chart, found by name whatever its case and spaces; tycoons earn half the
    loan rate on cash; ruling E-4.10A: revenue −20 % in a Panic to +20 % in a Boom, 5 % a step.
    An unknown name is an error that lists the nine climates."""
    from pbm.cr.engine.tables import climate

    normal, panic, boom = climate(" normal "), climate("PANIC"), climate("Boom")
    assert (normal.name, normal.loan_rate, normal.deposit_rate, normal.build_min) == ("Normal", 0.12, 0.06, 300)
    assert panic.deposit_rate == pytest.approx(0.08) and boom.deposit_rate == pytest.approx(0.04)
    assert [climate(n).revenue_factor for n in ("Panic", "Recession", "Normal", "Good", "Boom")] == \
        pytest.approx([0.8, 0.95, 1.0, 1.1, 1.2])
    with pytest.raises(ValueError) as err:
        climate("Sunny")
    assert str(err.value) == ("unknown economic climate 'Sunny'; one of: Panic, Depression, Mild Depression, "
                              "Recession, Normal, Improved, Good, Great, Boom")


def test_engines_and_technologies_by_turn_and_the_year_of_a_turn_4_17_4_18_1_1():
    """Ruling R-O5 (§4.17, §4.18): Norris from turn 4 … Pacific from 23; Grand Station from turn 1,
    Switch Yards from 5 … Steel Bridges from 19.  Ruling E-1.1 (§1.1, §8): two years a turn from
    1841, so the Civil War turns 11 and 12 are 1861 and 1863."""
    from pbm.cr.engine.tables import best_locomotive, technologies_available, year_of

    assert [best_locomotive(t) for t in (1, 3, 4, 7, 8, 22, 23, 40)] == [1, 1, 2, 2, 3, 8, 9, 9]
    assert technologies_available(1) == ["A"] and technologies_available(4) == ["A"]
    assert technologies_available(5) == ["A", "B"]
    assert technologies_available(19) == list("ABCDEFGHIJ") == technologies_available(30)
    assert [year_of(t) for t in (1, 2, 11, 12)] == [1841, 1843, 1861, 1863]


def test_maximum_efficiency_engine_cost_double_track_bonus_and_stock_bids_4_5c_4_15_4_17_6_1a():
    """§4.5C: 99 less 1 for every 50 miles or part over 3,000 (3,521 miles: 88, the rulebook's
    example), less 3 a generation behind the best engine (ruling E-4.17), never below 1.  §4.17:
    $10 a mile a step, nothing to go back.  §4.15: the two towns' values add as a percentage.
    §6.1A: 3 stock bids up to 15 railroads, 4 up to 30, then 5."""
    from pbm.cr.engine.tables import double_track_percent, locomotive_cost, max_efficiency, stock_bid_count_limit

    assert [max_efficiency(m) for m in (2000, 3000, 3001, 3050, 3051, 3521)] == [99, 99, 98, 98, 97, 88]
    assert max_efficiency(1000, 1, 3) == 93 and max_efficiency(1000, 3, 3) == 99 and max_efficiency(1000, 4, 3) == 99
    assert max_efficiency(3521, 2, 4) == 82 and max_efficiency(10_000) == 1 and max_efficiency(7_950) == 1
    assert max_efficiency(7_900) == 1 and max_efficiency(7_850) == 2
    assert locomotive_cost(148, 1, 3) == 2960 and locomotive_cost(100, 3, 2) == 0 and locomotive_cost(100, 2, 3) == 1000
    assert double_track_percent(16, 25) == 41
    assert [stock_bid_count_limit(n) for n in (1, 15, 16, 30, 31, 60)] == [3, 3, 4, 4, 5, 5]


# --------------------------------------------------------------------------- validator: §3.2
def test_who_went_bankrupt_last_turn_may_choose_a_new_name_whoever_reads_the_events_3_2(v):
    """§3.2: a tycoon who went bankrupt last turn may pick a new character name.  Only last turn's
    bankruptcies of tycoons count (not a railroad's, not an older one, not an event of no one);
    a caller checking every seat reads them once (``recently_bankrupt``) and the game once (a
    loaded view, ``check``), with the same outcome."""
    from pbm.cr import queries as q
    from pbm.cr.validate import check, recently_bankrupt, validate
    from pbm.models import Event

    session, s = v.session, v.s
    turn = s.game.turn
    for seq, (n, kind, when) in enumerate([(1, "player_bankrupt", turn - 1), (2, "railroad_bankrupt", turn - 1),
                                           (3, "player_bankrupt", turn - 2), (None, "bankrupt", turn - 1)], 1):
        session.add(Event(game_id=s.game.id, turn=when, seq=seq, step="14.3", kind=kind, player_number=n))
    session.flush()
    assert recently_bankrupt(session, s.game) == {1}
    name = Orders(character="Jay Gould")
    for n, bankrupt in ((1, True), (2, False), (3, False)):
        out, problems = validate(session, s.game, s.players[n], name)
        assert (out.character == "Jay Gould") is bankrupt and [p.refused for p in problems] == ([] if bankrupt else [True])
    view = q.load_plain(session, s.game)
    out, problems = validate(session, s.game, s.players[2], name, view=view, recently_bankrupt={2})
    assert out.character == "Jay Gould" and problems == []
    out, problems = validate(session, s.game, s.players[1], name, view=view, recently_bankrupt={2})
    assert out.character is None and "§3.2" in only(problems, "character").message
    player = view.players[s.players[3].id]
    assert check(view, player, name, recently_bankrupt=True)[0].character == "Jay Gould"
    out, problems = check(view, player, name)
    assert out.character is None and only(problems, "character").refused


# --------------------------------------------------------------------------- validator: §10.1B
def test_pc_actions_one_per_owned_pc_and_the_sale_price_between_1_and_10_a_mile_10_1b(v):
    """§10.1B: ONE action a turn for each PC the tycoon owns (player 2: B&O, 160 miles, paid $800):
    a sale needs an asking price of $1 a mile to 20 % over what he paid or $10 a mile ($160 to
    $1,600, §10.1B1a–b); below $10 a mile the Public buys it (§10.1B1c); a merger names a road it
    connects to (§10.1B2a); an action on a PC he does not own, or an unknown one, is refused with
    the PCs he owns."""
    from pbm.cr.orders import PCAction

    out, problems = v(Orders(pc_actions=[PCAction("ZZ", "sell", price=900), PCAction("HRL", "sell", price=900)]),
                      player=2)
    assert out.pc_actions == [] and [(p.where, p.allowed) for p in problems] == [
        ("PC ZZ sell", "B&O"), ("PC HRL sell", "B&O")]
    assert "no private company 'ZZ'" in problems[0].message and "do not own HRL" in problems[1].message
    out, problems = v(Orders(pc_actions=[PCAction("HRL", "incorporate")]), player=1)
    assert only(problems, "HRL").allowed == "none"
    out, problems = v(Orders(pc_actions=[PCAction("b&o", "sell")]), player=2)
    p = only(problems, "PC b&o sell")
    assert out.pc_actions == [] and p.refused and p.allowed == "$160–$1,600"
    for asked, got, kinds in ((159, 160, ["adjusted", "warning"]), (160, 160, ["warning"]), (1599, 1599, ["warning"]),
                              (1600, 1600, []), (1601, 1600, ["adjusted"])):
        out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=asked)]), player=2)
        assert [(a.pc, a.action, a.price) for a in out.pc_actions] == [("B&O", "sell", got)]
        assert [("adjusted" if p.adjusted else "warning") for p in problems] == kinds
        assert all(p.where == "PC B&O sell" for p in problems)
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=1601)]), player=2)
    assert "over the current asking price" not in problems[0].message and problems[0].allowed == "$160–$1,600"
    bo = v.s.pcs["B&O"]
    bo.for_sale, bo.asking_price, bo.offered_turn = True, 1500, 1
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=1700)]), player=2)
    assert "or over the current asking price" in only(problems, "B&O").message
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "hold")]), player=2)
    p = only(problems, "B&O hold")
    assert out.pc_actions == [] and p.allowed == "sell, merge or incorporate" and "unknown PC action 'hold'" in p.message


def test_pc_merger_into_a_road_it_connects_to_warned_when_offered_for_sale_10_1b2(v):
    """§10.1B2a, c, e: a PC merges into an active road it connects to (B&O: PENN at Pittsburgh);
    a road it does not reach, or none, is refused with those it may merge into; a PC offered for
    sale is warned that a sale aborts the merger (and an incorporation, §10.1B3e)."""
    from pbm.cr.orders import PCAction

    out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad="penn")]), player=2)
    assert [(a.pc, a.railroad) for a in out.pc_actions] == [("B&O", "PENN")] and problems == []
    for target, said in ((None, "(none)"), ("QQ", "QQ")):
        out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad=target)]), player=2)
        p = only(problems, "B&O merge")
        assert out.pc_actions == [] and p.refused and p.allowed == "PENN"
        assert p.message == f"{said} is not an active railroad"
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad="NYC")]), player=2)
    p = only(problems, "B&O merge")
    assert out.pc_actions == [] and p.message.startswith("B&O cannot merge into NYC: ") and p.allowed == "PENN"
    bo = v.s.pcs["B&O"]
    bo.for_sale, bo.asking_price, bo.offered_turn = True, 1500, 1
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad="PENN")]), player=2)
    p = only(problems, "B&O merge")
    assert len(out.pc_actions) == 1 and p.warning and "merger is aborted" in p.message and p.allowed == ""
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "incorporate")]), player=2)
    p = only(problems, "B&O incorporate")
    assert len(out.pc_actions) == 1 and p.warning and "incorporation is aborted" in p.message


def test_pc_bids_two_one_or_none_by_pcs_owned_at_or_over_the_asking_price_10_1b(v):
    """§10.1B1: two bids with no PC owned, one with one, none with two; §10.1B2: only PCs for sale
    at the start of the turn, not one's own, one bid a PC; §10.1B3/5: at or over the asking price.
    Bids are kept by their sequence (1, 2, then unnumbered as written) and numbered afresh."""
    out, problems = v(Orders(pc_bids=[PCBid("ms", 1000, 0), PCBid("HRL", 700, 2), PCBid("LS", 900, 1)]))
    assert [(b.pc, b.amount, b.sequence) for b in out.pc_bids] == [("LS", 900, 1), ("HRL", 700, 2)]
    p = only(problems, "PC bid ms")
    assert p.refused and p.message == "you may bid for 2 PCs (0 owned, at most 2, §10.1B1); extra bid dropped"
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("LS", 900, 2)]), player=2)
    assert only(problems, "LS").message == "you may bid for 1 PC (1 owned, at most 2, §10.1B1); extra bid dropped"
    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id = "owned", v.s.players[2].id  # two PCs: no bid
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1)]), player=2)
    assert out.pc_bids == [] and "you own two PCs" in only(problems, "HRL").message
    out, problems = v(Orders(pc_bids=[PCBid("ZZZ", 700, 1), PCBid("HRL", 699, 2)]))
    assert out.pc_bids == []
    assert [(p.where, p.allowed) for p in problems] == [
        ("PC bid ZZZ", "HRL (asking $700), MS (asking $1,000)"), ("PC bid HRL", "$700 or more")]
    assert problems[0].message == "ZZZ is not a private company"
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("hrl", 800, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 700)]
    assert "a second bid for HRL" in only(problems, "PC bid hrl").message


def test_pc_bids_cut_in_reverse_sequence_to_the_cash_left_10_1b4(v):
    """§10.1B4: bids above the cash left after the earlier actions are reduced in reverse
    sequence, a bid that would fall below its asking price is dropped; bids of exactly the cash
    stand.  What the bids may cost is gone from the cash the later orders are checked against."""
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 1000, 1), PCBid("MS", 1000, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 1000), ("MS", 1000)] and problems == []
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 1001, 1), PCBid("MS", 1000, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 1001)]
    p = only(problems, "PC bid MS")
    assert p.refused and "cannot be reduced below the asking price $1,000" in p.message
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 2300, 1), PCBid("MS", 1000, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 2000)]
    assert [p.where for p in problems] == ["PC bid MS", "PC bid HRL"]
    assert "your bids total $3,300 but you have $2,000" in problems[0].message
    assert problems[1].adjusted and problems[1].allowed == "up to $2,000"
    assert "your bids total $2,300 but you have $2,000" in problems[1].message
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 1200, 1), PCBid("MS", 1000, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 1200)]
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 900, 1), PCBid("MS", 1300, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 900), ("MS", 1100)]
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 1500, 1)], prodigal=1000))
    assert "more than the $500 you have" in only(problems, "prodigal").message


# --------------------------------------------------------------------------- validator: §6.1, §10.1C
def test_stock_orders_numbered_first_then_sales_then_buys_six_at_most_active_roads_only_6_1_r_o3(v):
    """Ruling R-O3 (§10.1C6): numbered orders first, by number, then the unnumbered sales, then the
    unnumbered buys, as written; all are numbered afresh.  §6.1B: only a road active (or bankrupt)
    at the start of the turn trades; §10.1C: buy, sell or short, of 1 share or more."""
    orders = Orders(stock=[StockOrder("BA", "buy", 5), StockOrder("PENN", "sell", 5), StockOrder("NYC", "sell", 5, 2)])
    out, problems = v(orders, player=2)
    assert [(o.railroad, o.action, o.priority) for o in out.stock] == [
        ("NYC", "sell", 1), ("PENN", "sell", 2), ("BA", "buy", 3)]
    v.s.railroads["BA"].status = "merged"
    out, problems = v(Orders(stock=[StockOrder("ba", "buy", 5, 1), StockOrder("NYC", "hold", 5, 2),
                                    StockOrder("NYC", "buy", -1, 3)]), player=2)
    assert out.stock == []
    assert [(p.where, p.refused) for p in problems] == [("stock buy ba", True), ("stock hold NYC", True),
                                                        ("stock buy NYC", True)]
    assert "ba is not a railroad active at the start of the turn (§6.1B)" == problems[0].message
    assert problems[1].allowed == "buy, sell or short"
    v.s.railroads["BA"].status = "bankrupt"
    out, problems = v(Orders(stock=[StockOrder("BA", "buy", 5, 1)]), player=2)
    assert [(o.railroad, o.shares) for o in out.stock] == [("BA", 5)] and problems == []


def test_stock_sales_what_is_owned_then_short_to_10_percent_and_the_bid_cap_exactly_6_1_6_2(v):
    """§6.2A: a tycoon sells what he owns and, holding under 10 %, short to 10 % of the issued stock
    in all (player 2: 40 of NYC's 1,000 owned, 100 in all): a sale of exactly what he owns is a
    sale, one more share a short; 100 stands, 101 is cut.  §6.1A–B: a bid of exactly the maximum
    (102 NYC shares for player 2) stands."""
    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 40, 1)]), player=2)
    assert [(o.action, o.shares) for o in out.stock] == [("sell", 40)] and problems == []
    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 41, 1)]), player=2)
    assert [(o.action, o.shares) for o in out.stock] == [("short", 41)] and problems == []
    out, problems = v(Orders(stock=[StockOrder("NYC", "short", 100, 1)]), player=2)
    assert [(o.action, o.shares) for o in out.stock] == [("short", 100)] and problems == []
    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 101, 1)]), player=2)
    p = only(problems, "stock sell NYC")
    assert [(o.action, o.shares) for o in out.stock] == [("short", 100)] and p.allowed == "up to 100 shares"
    assert "you own 40 and may sell short only up to 10 % of the 1000 issued (§6.2A)" in p.message
    out, problems = v(Orders(stock=[StockOrder("NYC", "buy", 102, 1)]), player=2)
    assert [(o.action, o.shares) for o in out.stock] == [("buy", 102)]
    assert [p.warning for p in problems] == [True]  # only §6.1C's preview: $2,040 against $2,000
    # player 3 holds 15 % of NYC: a Director, so no short; 150 is all he may sell
    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 151, 1)]), player=3)
    p = only(problems, "stock sell NYC")
    assert out.stock[0].shares == 150 and "as a Director, §6.2C" in p.message
    # player 1 owns no PENN (cornered, §6.4): no short sale, told why
    out, problems = v(Orders(stock=[StockOrder("PENN", "sell", 1, 1)]), player=1)
    p = only(problems, "stock sell PENN")
    assert out.stock == [] and p.message == "you own no PENN shares and may not sell short: PENN is cornered (§6.4, §10.1C4)"


def test_stock_cash_preview_warns_at_the_start_price_with_the_pc_bids_taken_as_won_6_1c(v):
    """§6.1C, Appendix A 6.1: stock orders are checked against the cash (and credit) at the start
    of the stock market; here the worst case, every PC bid won: a warning says the cut order
    checking would make, and mentions the PC bids only when there are any."""
    v.s.players[3].cash = 1000
    out, problems = v(Orders(stock=[StockOrder("BA", "buy", 150, 1)]), player=3)
    p = only(problems, "stock 1 buy BA")
    assert p.warning and p.allowed == "100 shares" and out.stock[0].shares == 150
    assert "if all your PC bids win" not in p.message and "($1,000 before stock trades)" in p.message
    v.s.players[3].cash = 2000
    out, problems = v(Orders(pc_bids=[PCBid("LS", 1500, 1)], stock=[StockOrder("BA", "buy", 150, 1)]), player=3)
    p = only(problems, "stock 1 buy BA")
    assert "if all your PC bids win" in p.message and "($500 before stock trades)" in p.message
    assert p.allowed == "50 shares" and "cut it to 50 (§6.1C)" in p.message
    out, problems = v(Orders(stock=[StockOrder("BA", "buy", 50, 1)], pc_bids=[PCBid("LS", 1500, 1)]), player=3)
    assert problems == []


# --------------------------------------------------------------------------- validator: §10.1D–G
def test_control_two_slots_of_active_roads_or_a_pc_incorporated_not_one_resigned_10_1d(v):
    """§10.1D1–2: two control slots, for active roads or a PC incorporated this turn (whose
    incorporation then makes the tycoon its President); the same road once, not one he resigns
    from; §10.1D3: a road he does not direct and does not bid for is warned of (10 % by the end
    of the turn).  Resigning (§10.1D) is only from roads he presides, each once."""
    from pbm.cr.orders import PCAction

    out, problems = v(Orders(resign=["ba", "BA", "PENN"], control=["BA", " "]))
    assert out.resign == ["BA"] and out.control == [None, None]
    assert [(p.where, p.allowed) for p in problems] == [("resign PENN", "BA, NYC"), ("control slot 1", "")]
    assert "you resign from BA this turn" in problems[1].message
    out, problems = v(Orders(control=["NYC"]))
    assert out.control == ["NYC", None] and problems == []
    out, problems = v(Orders(control=["PENN", None, "BA"]), player=1)
    assert out.control == ["PENN", None]
    assert [p.where for p in problems] == ["control", "control slot 1"]
    p = problems[1]
    assert p.warning and "you are not a Director of PENN: you must own 10 % of its issued stock (50 shares)" in p.message
    out, problems = v(Orders(control=["PENN"], stock=[StockOrder("PENN", "buy", 40, 1)]), player=1)
    assert out.control == ["PENN", None] and not [p for p in problems if "control" in p.where]
    v.s.railroads["BA"].status = "merged"
    out, problems = v(Orders(control=["NYC", "BA"]), player=1)
    p = only(problems, "control slot 2")
    assert out.control == ["NYC", None] and p.refused and "BA is neither an active railroad nor a PC" in p.message
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "incorporate")], control=[None, "B&O"]), player=2)
    assert out.control == [None, "B&O"] and out.pc_actions[0].president is True and problems == []
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "incorporate")], control=["PENN"]), player=2)
    assert out.pc_actions[0].president is False


def test_merging_two_roads_both_presided_and_the_parallel_routes_deleted_warned_10_1e_4_13(v):
    """§10.1E1: the tycoon presides both roads at the start of the turn; an unknown road is named;
    §10.1E2: none merges into a bankrupt road; §4.13A3: parallel routes are deleted (warned)."""
    out, problems = v(Orders(merge=("ba", "nyc")))
    assert out.merge == ("BA", "NYC") and problems == []
    for merge, bad in ((("QQ", "NYC"), "QQ"), (("BA", "RR"), "RR")):
        out, problems = v(Orders(merge=merge))
        assert out.merge is None and only(problems, "merge").message == f"{bad} is not a railroad"
    v.s.railroads["NYC"].status = "bankrupt"
    out, problems = v(Orders(merge=("BA", "NYC")))
    p = only(problems, "merge")
    assert out.merge is None and p.refused and p.message.startswith("BA cannot merge into NYC: ")
    v.s.railroads["NYC"].status = "active"
    _double_connection(v)  # NYC's HRL and BA's NY1 are parallel: one is deleted
    out, problems = v(Orders(merge=("BA", "NYC")))
    p = only(problems, "merge")
    assert out.merge == ("BA", "NYC") and p.warning and "parallel routes: " in p.message and "§4.13A3" in p.message


def test_spy_on_another_player_and_an_active_road_10_1f(v):
    """§10.1F: a tycoon spies on one other player (given by number: 1–3 here) and one active road;
    spying on a road he presides is warned of as wasted."""
    out, problems = v(Orders(spy_player=2, spy_railroad="penn"))
    assert (out.spy_player, out.spy_railroad, problems) == (2, "PENN", [])
    out, problems = v(Orders(spy_player=4))
    p = only(problems, "spy")
    assert out.spy_player is None and p.refused and p.allowed == "1–3" and "no player 4" in p.message
    out, problems = v(Orders(spy_player=1))
    assert out.spy_player is None and only(problems, "spy").message == "you cannot spy on yourself"
    v.s.railroads["BA"].status = "merged"
    for code in ("BA", "QQ"):
        out, problems = v(Orders(spy_railroad=code))
        p = only(problems, "spy")
        assert out.spy_railroad is None and p.refused and p.message == f"{code} is not an active railroad"
    out, problems = v(Orders(spy_railroad="NYC"))
    p = only(problems, "spy")
    assert out.spy_railroad == "NYC" and p.warning and "you preside NYC" in p.message


def test_message_one_line_of_80_printable_characters_10_1g(v):
    """§10.1G: a one-line message of at most 80 characters, spaces included: runs of spaces and
    line breaks are one space, unprintable characters go, a longer one is cut (and trimmed)."""
    out, problems = v(Orders(message="  Go\n\twest,\x07 young  man  "))
    assert out.message == "Go west, young man" and problems == []
    out, problems = v(Orders(message="y" * 80))
    assert out.message == "y" * 80 and problems == []
    out, problems = v(Orders(message="y" * 79 + " z"))
    p = only(problems, "message")
    assert out.message == "y" * 79 and p.adjusted and p.allowed == "80 characters" and "has 81 characters" in p.message
    out, problems = v(Orders(message=None))
    assert out.message == "" and problems == []


def test_prodigal_spending_at_least_1000_dollars_paid_after_the_market_1_2(v):
    """§1.2 Rail Prodigal: at least $1,000 must be spent (less buys nothing and is dropped); a
    negative amount is refused; more than the cash before the market is only warned of (it is
    paid at Appendix A 7.2 from the cash then)."""
    for asked, got, refused in ((-1, 0, True), (999, 0, True), (1000, 1000, False), (0, 0, False)):
        out, problems = v(Orders(prodigal=asked))
        assert out.prodigal == got and [p.refused for p in problems] == ([True] if refused else [])
    out, problems = v(Orders(prodigal=999))
    assert only(problems, "prodigal").allowed == "0, or $1,000 or more"
    out, problems = v(Orders(prodigal=2000))
    assert out.prodigal == 2000 and problems == []
    out, problems = v(Orders(prodigal=2001))
    p = only(problems, "prodigal")
    assert out.prodigal == 2001 and p.warning and "more than the $2,000 you have" in p.message


def test_character_name_on_the_first_turn_at_most_40_characters_nobody_elses_3_2(v):
    """§3.2: a character name is chosen on the first turn (or after a bankruptcy), at most 40
    characters (spaces collapsed), not another tycoon's whatever its case; his own name or a
    blank is no change."""
    v.s.game.turn = 1
    for given, got in (("Tycoon 1", None), ("   ", None), ("x" * 40, "x" * 40), ("a  b", "a b")):
        out, problems = v(Orders(character=given))
        assert out.character == got and problems == []
    out, problems = v(Orders(character="x" * 41))
    assert out.character is None and only(problems, "character").message == "a character name has at most 40 characters"
    out, problems = v(Orders(character="tycoon 3"))
    assert out.character is None and "another tycoon's character" in only(problems, "character").message

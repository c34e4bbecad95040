"""Continental Rails II rules of the order validator that mutation testing of its last 1,400
mutants found untested (issue 31, part 2: ``pbm/cr/validate.py``, session 16).

Each test pins what a tycoon is told about one order (where the problem is, its reason, what is
allowed, the amount the order is cut to) so that changing the rule in the validator makes it
fail; each names its rule section of the rulebook (/work/shared/seeds/continental-rails-II-rules.txt).
``scripts/mutation_cr.py`` and ``scripts/mutation_cr_hand.py`` rerun the mutation tests; the
scores and the equivalent mutants that survive are in docs/cr/rules-map.md, "Mutation testing".
All on the small hand-built state of ``tests/cr/orders_helpers.py`` (SQLite), each well under a
second.
"""

from __future__ import annotations

import pytest

from pbm.cr.orders import Orders, RailroadOrders, RateWar
from tests.cr.test_mutation_rules3 import _ro, v  # noqa: F401  (the validator fixture on the small state)
from tests.cr.test_validate import only


def _double_connection(v):
    """NYC also runs HRL (New York–Albany, 140 miles); BA runs NY1, its parallel twin, already
    double-tracked: NYC and BA are parallel (§4.16)."""
    from pbm.models import Line

    session, s = v.session, v.s
    session.add(Line(railroad_id=s.railroads["NYC"].id, route_id=s.routes["HRL"].id))
    session.add(Line(railroad_id=s.railroads["BA"].id, route_id=s.routes["NY1"].id, double_tracked=True))
    session.flush()
    session.expire_all()


# --------------------------------------------------------------------------- §4.15 double track
def test_double_track_of_a_road_without_lines_is_refused_with_nothing_to_double_4_15(v):
    """§4.15: a road double-tracks only its own lines.  A road that runs no line (here NYC with
    its line removed) is told that the line named is not one of its lines, and that it has
    nothing it may double — the order is not an error of the validator."""
    from pbm.models import Line

    v.session.query(Line).filter(Line.railroad_id == v.s.railroads["NYC"].id).delete()
    v.session.flush()
    v.session.expire_all()
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", double_track=["NYC"])]))
    p = only(problems, "double track")
    assert (p.where, p.message, p.allowed, p.refused) == ("NYC double track", "NYC is not a line of NYC (§4.15)",
                                                          "", True)
    assert _ro(out, "NYC").double_track == []


def test_double_track_refusals_and_the_cash_warning_name_the_road_and_every_line_4_15(v):
    """§4.15: a line already double-tracked is refused where the road's double-track order is
    (``BA double track``); two lines double-tracked together cost the sum of their costs (NYC
    $11,250 and HRL $10,500: 25 % of the $300 minimum a mile), and the warning that the cash
    does not cover it names both lines."""
    _double_connection(v)
    out, problems = v(Orders(railroads=[RailroadOrders("BA", double_track=["NY1"])]))
    assert [(p.where, p.message, p.refused) for p in problems] == [
        ("BA double track", "NY1 is already double-tracked", True)]
    v.s.railroads["NYC"].cash = 20_000
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", double_track=["NYC", "HRL"])]))
    assert _ro(out, "NYC").double_track == ["NYC", "HRL"]
    p = only(problems, "NYC double track")
    assert p.warning and p.message == ("double-tracking NYC, HRL costs $21,750, paid from cash only (§4.15); "
                                       "NYC starts with $20,000")


# --------------------------------------------------------------------------- §4.16 rate wars
def test_a_rate_cut_outside_1_to_99_percent_is_refused_saying_so_4_16(v):
    """§4.16: a rate war cuts the rates by 1–99 %; a cut of 0 % or 100 % is refused, and the
    tycoon is told which percentage cannot be."""
    _double_connection(v)
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("BA", 100)])]))
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("NYC rate war", "a rate cut of 100 % is not possible", "1–99 %", True)]


# --------------------------------------------------------------------------- checks: the conservation checks
@pytest.fixture
def game(sqlite_url):
    from pbm.db import session_scope
    from tests.cr.helpers import tiny_game

    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)


def _ctx(s, g):
    from pbm.cr.engine.context import TurnContext
    from pbm.cr.resolve import begin_turn

    ctx = TurnContext(s, g, {})
    begin_turn(ctx)
    return ctx


def test_money_check_follows_every_dollar_of_the_ledger_from_start_to_end_1_0(game):
    """The money check of the end of a turn (docs/cr/engine.md, conservation; §1.0 whole dollars):
    each account's start balance plus what the ledger moved into it, less what it moved out of
    it, is its end balance; the Bank and the Public are unbounded and not checked.  A payment made
    outside the ledger is named with the three figures; an account missing at the start counts
    from $0 and one missing at the end ends at $0 (so one that had $0 is no problem)."""
    from pbm.cr.engine.checks import check_money

    s, g = game
    ctx = _ctx(s, g)
    ctx.start_balances = ctx.balances()
    ctx.pay("player:1", "rr:NYC", 100, "test", "a payment")
    ctx.pay("bank", "player:2", 50, "test", "a loan")
    ctx.pay("player:2", "public", 30, "test", "a purchase")
    ctx.pay("bank", "rr:NYC", 20, "test", "a second payment into the same account")
    assert check_money(ctx) == []
    p1, nyc = ctx.players[1], ctx.railroads["NYC"]
    start1, start_nyc = ctx.start_balances["player:1"], ctx.start_balances["rr:NYC"]
    p1.cash += 7  # not through the ledger
    pay_penn = ctx.start_balances.pop("rr:PENN")
    ctx.start_balances["rr:GONE"], ctx.start_balances["rr:NONE"] = 10, 0
    assert check_money(ctx) == [
        f"money: player:1 started with {start1}, ledger moved -100, but ends with {start1 - 93}",
        "money: rr:GONE started with 10, ledger moved 0, but ends with 0",
        f"money: rr:PENN started with 0, ledger moved 0, but ends with {pay_penn}"]
    assert pay_penn != 0 and nyc.cash == start_nyc + 120


def test_money_check_names_negative_cash_loans_and_each_debt_but_not_zero_1_0_3_5(game):
    """A tycoon's cash and loan and a road's bonds, bank loans and President's loans are never
    below $0 at the end of a turn (§3.5, §4.4, §10.2: step 14.2's emergency loan brings cash back
    to $0); exactly $0 is no problem.  Each debt is checked by itself."""
    from pbm.cr.engine.checks import check_money

    s, g = game
    ctx = _ctx(s, g)
    p3, nyc = ctx.players[3], ctx.railroads["NYC"]
    p3.cash = p3.loan = 0
    nyc.bond_debt = nyc.loan_debt = nyc.president_debt = 0
    ctx.start_balances = ctx.balances()
    assert check_money(ctx) == []
    p3.loan = -1
    assert check_money(ctx) == ["money: player 3 has a negative loan -1"]
    p3.loan = 0
    for debt in ("bond_debt", "loan_debt", "president_debt"):
        setattr(nyc, debt, -1)
        assert check_money(ctx) == ["money: NYC has a negative debt"], debt
        setattr(nyc, debt, 0)
    p3.cash = -1
    ctx.start_balances["player:3"] = -1
    assert check_money(ctx) == ["money: player 3 ends with negative cash -1"]


def test_share_check_names_each_negative_count_and_the_issued_sum_but_not_zero(game):
    """The share check (docs/cr/engine.md, conservation): issued = players' + the Public's,
    authorized = issued + treasury, no count below 0; a road with no treasury shares (0) is
    no problem; a negative treasury or issued count is named by itself."""
    from pbm.cr.engine.checks import check_shares

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    held = sum(h.shares for h in nyc.holdings)
    assert check_shares(ctx) == [] and held > 0 and nyc.shares_public > 0
    nyc.shares_authorized, nyc.treasury_shares = nyc.shares_issued, 0
    assert check_shares(ctx) == []
    nyc.treasury_shares, nyc.shares_authorized = -1, nyc.shares_issued - 1
    assert check_shares(ctx) == ["shares: NYC has a negative share count"]
    nyc.treasury_shares, nyc.shares_authorized = 0, nyc.shares_issued
    issued, public = nyc.shares_issued, nyc.shares_public
    nyc.shares_issued, nyc.shares_public, nyc.shares_authorized = -1, 0, -1
    assert check_shares(ctx) == ["shares: NYC has a negative share count",
                                 f"shares: NYC issued -1 != players {held} + public 0"]
    nyc.shares_issued, nyc.shares_public, nyc.shares_authorized = issued, public - 1, issued
    assert check_shares(ctx) == [f"shares: NYC issued {issued} != players {held} + public {public - 1}"]


# --------------------------------------------------------------------------- §4.12 dividends
def test_a_negative_dividend_is_refused_and_one_over_99_lowered_saying_why_4_12(v):
    """§4.12: a dividend is $0 to $99 a share.  A negative one is refused (the standing rate is
    kept) and one over $99 is lowered to $99; the tycoon is told which and why."""
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", dividend=-1)]))
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("NYC dividend", "a dividend cannot be negative", "$0–$99 per share", True)]
    assert _ro(out, "NYC").dividend is None
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", dividend=100)]))
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("NYC dividend", "$100 per share is over the maximum; lowered to $99 (§4.12)", "$0–$99 per share", True)]
    assert _ro(out, "NYC").dividend == 99


# --------------------------------------------------------------------------- §10.1A bank loans
def test_a_negative_loan_order_is_refused_at_the_loan_line_and_taken_as_nothing_10_1a(v):
    """§10.1A: the tycoon borrows or repays an amount of $0 or more.  A negative amount is refused
    where the loan orders are (``loan``), saying so, and taken as $0; the other amount stands."""
    v.s.players[1].loan = 5000
    out, problems = v(Orders(borrow=-5, repay=300))
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("loan", "amounts to borrow or repay cannot be negative", "0 or more", True)]
    assert (out.borrow, out.repay) == (0, 300)


def test_loan_orders_netted_or_cut_are_named_at_their_own_line_10_1a(v):
    """§10.1A: borrowing and repaying in one turn are netted (at the ``loan`` line); borrowing is
    cut to the available credit (§3.5A: 70 % of $10,000 net worth in a Normal climate less half
    the $5,000 loan, at the ``borrow`` line) and repaying to the loan or the cash (at the
    ``repay`` line).  The turnsheet marks the line named, so each must be exact."""
    v.s.players[1].loan = 5000
    out, problems = v(Orders(borrow=1000, repay=400))
    assert [(p.where, p.message, p.adjusted) for p in problems] == [
        ("loan", "you cannot both borrow ($1,000) and repay ($400) in one turn; taken as borrowing $600", True)]
    out, problems = v(Orders(borrow=9000))
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("borrow", "$9,000 is more than your available credit; lowered to $4,500 (§3.5A, §10.1A1)",
         "up to $4,500", True)]
    v.s.players[1].loan = 500
    out, problems = v(Orders(repay=1500))
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("repay", "$1,500 is more than your loan; lowered to $500 (§10.1A2)", "up to $500", True)]
    assert out.repay == 500
    v.s.players[1].recall = 400  # §3.5C: the recall is warned of at the repay line
    out, problems = v(Orders(repay=300))
    assert [(p.where, p.allowed, p.warning) for p in problems] == [("repay", "repay $400 or more", True)]


# --------------------------------------------------------------------------- §10.1B PC bids
def test_unnumbered_pc_bids_keep_their_written_order_and_each_bid_of_an_owner_of_two_is_refused_10_1b(v):
    """§10.1B: bids of the same sequence (here two unnumbered ones) are taken in the order
    written, then numbered 1 and 2.  A tycoon who owns two PCs may not bid for another: each of
    his bids is refused, with the reason."""
    from pbm.cr.orders import PCBid

    out, problems = v(Orders(pc_bids=[PCBid("MS", 1000, 0), PCBid("HRL", 700, 0)]))
    assert [(b.pc, b.amount, b.sequence) for b in out.pc_bids] == [("MS", 1000, 1), ("HRL", 700, 2)]
    assert problems == []
    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id = "owned", v.s.players[2].id
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("MS", 1000, 2)]), player=2)
    assert out.pc_bids == []
    assert [(p.where, p.message, p.refused) for p in problems] == [
        ("PC bid HRL", "you own two PCs and may not bid for another (§10.1B)", True),
        ("PC bid MS", "you own two PCs and may not bid for another (§10.1B)", True)]


def test_pc_bids_refused_one_by_one_extra_bids_own_pc_and_a_pc_not_for_sale_10_1b(v):
    """§10.1B1: with no PC owned a tycoon bids for at most two; each extra bid is refused by
    itself.  §10.1B2: his own PC offered for sale is no bid for him (his next bid still counts),
    and a PC not offered at the start of the turn is refused saying so, with the offers listed."""
    from pbm.cr.orders import PCBid

    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("MS", 1000, 2), PCBid("LS", 900, 0),
                                      PCBid("B&O", 900, 0)]))
    assert [b.pc for b in out.pc_bids] == ["HRL", "MS"]
    extra = "you may bid for 2 PCs (0 owned, at most 2, §10.1B1); extra bid dropped"
    assert [(p.where, p.message) for p in problems] == [("PC bid LS", extra), ("PC bid B&O", extra)]
    out, problems = v(Orders(pc_bids=[PCBid("B&O", 900, 1)]))
    assert [(p.where, p.message, p.allowed) for p in problems] == [
        ("PC bid B&O", "B&O is not offered for sale at the start of the turn (§10.1B2)",
         "HRL (asking $700), LS (asking $900), MS (asking $1,000)")]
    bo = v.s.pcs["B&O"]
    bo.for_sale, bo.asking_price = True, 800
    out, problems = v(Orders(pc_bids=[PCBid("B&O", 900, 1), PCBid("HRL", 700, 2)]), player=2)
    assert [(b.pc, b.amount, b.sequence) for b in out.pc_bids] == [("HRL", 700, 1)]
    assert [(p.where, p.message) for p in problems] == [("PC bid B&O", "B&O is your own PC")]


def test_a_second_bid_for_the_same_pc_is_refused_and_the_next_bid_still_counts_10_1b(v):
    """§10.1B: one bid a PC; a second bid for it is refused (the first counts) and a later bid for
    another PC is still taken, numbered after the first."""
    from pbm.cr.orders import PCBid

    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("hrl", 800, 2), PCBid("MS", 1000, 0)]))
    assert [(b.pc, b.amount, b.sequence) for b in out.pc_bids] == [("HRL", 700, 1), ("MS", 1000, 2)]
    assert [(p.where, p.message) for p in problems] == [
        ("PC bid hrl", "a second bid for HRL; only the first counts")]


def test_pc_bids_cut_to_the_cash_down_to_exactly_the_asking_price_and_none_with_no_cash_10_1b4(v):
    """§10.1B4: a bid above the cash left is lowered to it, down to exactly the asking price (HRL
    $700 with $700 in cash stands at $700); with no cash at all ($0, never less) the bid cannot be
    lowered to the asking price and is dropped, saying so."""
    from pbm.cr.orders import PCBid

    v.s.players[1].cash = 700
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 900, 1)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 700)]
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("PC bid HRL", "your bids total $900 but you have $700 after your earlier actions; lowered to $700 "
         "(§10.1B4)", "up to $700", True)]
    v.s.players[1].cash = -50
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1)]))
    assert out.pc_bids == []
    assert [(p.where, p.message, p.refused) for p in problems] == [
        ("PC bid HRL", "your bids total $700 but you have $0 after your earlier actions; this bid cannot be "
         "reduced below the asking price $700 and is dropped (§10.1B4)", True)]


def test_a_pc_bid_lowered_to_the_cash_leaves_the_earlier_bid_whole_10_1b4(v):
    """§10.1B4: bids are reduced in reverse sequence only as far as the cash requires.  With
    $1,700, bids of $700 (HRL, sequence 1) and $3,000 (MS, sequence 2) are $2,000 too much: MS is
    lowered to $1,000, its asking price, and HRL's bid is left whole."""
    from pbm.cr.orders import PCBid

    v.s.players[1].cash = 1700
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("MS", 3000, 2)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 700), ("MS", 1000)]
    assert [(p.where, p.adjusted) for p in problems] == [("PC bid MS", True)]


# --------------------------------------------------------------------------- §6.1, §10.1C stock orders
def test_unnumbered_stock_orders_of_the_same_kind_keep_their_written_order_r_o3(v):
    """Ruling R-O3: stock orders without a number come after the numbered ones, sales first, each
    in the order written — here two unnumbered sales, NYC then BA, numbered 1 and 2 as written."""
    from pbm.cr.orders import StockOrder

    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 10, 0), StockOrder("BA", "sell", 10, 0)]))
    assert [(o.railroad, o.action, o.priority) for o in out.stock] == [("NYC", "sell", 1), ("BA", "sell", 2)]
    assert problems == []


def test_a_stock_order_of_an_unknown_action_or_no_shares_is_refused_saying_which_6_1_10_1c(v):
    """§6.1, §10.1C: a stock order buys, sells or shorts 1 share or more of an active road.  An
    unknown action is refused naming it, with the three actions allowed; 0 shares is refused
    saying that 1 or more is needed; the next order still counts."""
    from pbm.cr.orders import StockOrder

    out, problems = v(Orders(stock=[StockOrder("NYC", "swap", 10, 1), StockOrder("BA", "sell", 0, 2),
                                    StockOrder("BA", "sell", 10, 3)]))
    assert [(o.railroad, o.action, o.shares, o.priority) for o in out.stock] == [("BA", "sell", 10, 1)]
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("stock swap NYC", "unknown stock action 'swap'", "buy, sell or short", True),
        ("stock sell BA", "the number of shares must be 1 or more", "", True)]


def test_a_second_order_for_a_road_is_refused_and_the_next_road_still_counts_6_1a(v):
    """§6.1A: one transaction a railroad a turn: a purchase of NYC after its sale is refused (the
    first order counts) and the sale of BA after it still stands, numbered 2."""
    from pbm.cr.orders import StockOrder

    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 10, 1), StockOrder("NYC", "buy", 10, 2),
                                    StockOrder("BA", "sell", 10, 3)]))
    assert [(o.railroad, o.action, o.priority) for o in out.stock] == [("NYC", "sell", 1), ("BA", "sell", 2)]
    assert [(p.where, p.refused) for p in problems] == [("stock buy NYC", True)]
    assert problems[0].message.startswith("only one transaction per railroad")


def _more_roads(v, codes):
    """Active roads ``codes`` of 100 shares, all held by the Public (not cornered, no Director)."""
    from pbm.models import Railroad

    for n, code in enumerate(codes, start=10):
        v.session.add(Railroad(game_id=v.s.game.id, code=code, name=code, number=n, status="active", price=10,
                               shares_authorized=100, shares_issued=100, shares_public=100))
    v.session.flush()


def test_stock_orders_over_the_limits_are_each_refused_and_later_orders_still_count_6_1a(v):
    """§6.1A, §10.1C2: at most 3 stock bids (fewer than 16 active roads) and at most 6 stock
    transactions a turn.  A fourth bid is refused and a sale after it still counts; a seventh and
    an eighth transaction are each refused, by itself."""
    from pbm.cr.orders import StockOrder

    _more_roads(v, ("X1", "X2", "X3", "X4", "X5"))
    buys = [StockOrder(c, "buy", 5, i) for i, c in enumerate(("BA", "X1", "X2", "X3"), start=1)]
    out, problems = v(Orders(borrow=7000, stock=[*buys, StockOrder("NYC", "sell", 10, 5)]), player=3)
    assert [(o.railroad, o.action) for o in out.stock] == [("BA", "buy"), ("X1", "buy"), ("X2", "buy"),
                                                            ("NYC", "sell")]
    assert [(p.where, p.refused) for p in problems] == [("stock buy X3", True)]
    orders = [StockOrder("NYC", "sell", 10, 1), StockOrder("BA", "sell", 10, 2)]
    orders += [StockOrder(c, "short", 5, i) for i, c in enumerate(("X1", "X2", "X3", "X4", "X5"), start=3)]
    orders.append(StockOrder("PENN", "short", 5, 8))
    out, problems = v(Orders(stock=orders))
    assert [o.railroad for o in out.stock] == ["NYC", "BA", "X1", "X2", "X3", "X4"]
    most = ("at most 6 stock transactions a turn (§6.1A, §10.1C2); the lowest priority is dropped")
    assert [(p.where, p.message) for p in problems] == [("stock short X5", most), ("stock short PENN", most)]


def test_a_bid_refused_at_the_51_percent_cap_leaves_the_next_order_standing_6_1a(v):
    """§6.1A: a tycoon may not own more than 51 % of a road: holding 51 of X1's 100 shares, his bid
    for X1 is refused, saying why, and his sale of NYC after it still stands."""
    from pbm.cr.orders import StockOrder
    from pbm.models import Holding

    _more_roads(v, ("X1",))
    x1 = v.session.query(type(v.s.railroads["NYC"])).filter_by(game_id=v.s.game.id, code="X1").one()
    v.session.add(Holding(player_id=v.s.players[1].id, railroad_id=x1.id, shares=51, director=True))
    x1.shares_public = 49
    v.session.flush()
    out, problems = v(Orders(stock=[StockOrder("X1", "buy", 5, 1), StockOrder("NYC", "sell", 10, 2)]))
    assert [(o.railroad, o.action, o.priority) for o in out.stock] == [("NYC", "sell", 1)]
    assert [(p.where, p.message) for p in problems] == [
        ("stock buy X1", "you may not bid for X1 stock: you already own 51 of 100 shares, the 51 % cap (§6.1A)")]


def test_a_stock_bid_over_the_maximum_is_lowered_saying_the_limits_6_1a_b(v):
    """§6.1A/B: a bid is at most 20 % of the shares available to the bidder and never takes him
    over 51 %: player 2's bid for 500 NYC is lowered to 102, and he is told the two limits."""
    from pbm.cr.orders import StockOrder

    out, problems = v(Orders(borrow=1000, stock=[StockOrder("NYC", "buy", 500, 1)]), player=2)
    assert out.stock[0].shares == 102
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("stock buy NYC", "500 shares is more than your maximum bid; lowered to 102 (§6.1A/B: 20 % of available "
         "shares, never over 51 %)", "up to 102 shares", True)]


def test_a_sale_of_no_shares_is_refused_with_the_reason_if_any_and_the_next_order_counts_6_2a_10_1c4(v):
    """§6.2A: a tycoon with no shares may sell short up to 10 % of the issued stock, except in a
    cornered stock (§10.1C4).  Player 1 owns no PENN (cornered): his sale is refused naming the
    corner, and his sale of NYC after it stands.  A road of 5 shares leaves no short sale at all
    (10 % is 0 shares): refused with no reason added."""
    from pbm.cr.orders import StockOrder

    out, problems = v(Orders(stock=[StockOrder("PENN", "sell", 10, 1), StockOrder("NYC", "sell", 10, 2)]))
    assert [(o.railroad, o.priority) for o in out.stock] == [("NYC", 1)]
    assert [(p.where, p.message) for p in problems] == [
        ("stock sell PENN", "you own no PENN shares and may not sell short: PENN is cornered (§6.4, §10.1C4)")]
    _more_roads(v, ("X1",))
    x1 = v.session.query(type(v.s.railroads["NYC"])).filter_by(game_id=v.s.game.id, code="X1").one()
    x1.shares_authorized = x1.shares_issued = x1.shares_public = 5
    v.session.flush()
    out, problems = v(Orders(stock=[StockOrder("X1", "sell", 1, 1)]))
    assert out.stock == []
    assert [(p.where, p.message) for p in problems] == [
        ("stock sell X1", "you own no X1 shares and may not sell short")]


# --------------------------------------------------------------------------- §10.1B PC actions
def test_pc_actions_refused_one_by_one_and_the_later_actions_still_count_10_1b(v):
    """§10.1B: ONE action a turn for each PC the tycoon owns.  Player 2 (B&O and LS): an action on
    HRL, which he does not own, is refused; a second action for B&O is refused at its own line
    (``PC B&O merge``; the first counts); his action for LS after both still counts."""
    from pbm.cr.orders import PCAction

    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id, v.s.pcs["LS"].paid = "owned", v.s.players[2].id, 900
    out, problems = v(Orders(pc_actions=[PCAction("HRL", "sell", price=900), PCAction("B&O", "sell", price=1600),
                                         PCAction("B&O", "merge", railroad="PENN"),
                                         PCAction("LS", "sell", price=1800)]), player=2)
    assert [(a.pc, a.action) for a in out.pc_actions] == [("B&O", "sell"), ("LS", "sell")]
    assert [(p.where, p.message) for p in problems if p.refused] == [
        ("PC HRL sell", "you do not own HRL at the start of the turn"),
        ("PC B&O merge", "only ONE action per PC each turn (§10.1B); the first order for B&O counts")]


def test_a_pc_sale_without_a_price_is_refused_and_one_under_a_dollar_a_mile_raised_saying_so_10_1b1(v):
    """§10.1B1a: a PC is offered at a minimum asking price of at least $1 a mile (B&O, 160 miles:
    $160 to $1,600 for player 2).  A sale without a price is refused saying it needs one, and the
    next action still counts; $159 is raised to $160, the tycoon told why and what is allowed."""
    from pbm.cr.orders import PCAction

    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id, v.s.pcs["LS"].paid = "owned", v.s.players[2].id, 900
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell"), PCAction("LS", "sell", price=1800)]), player=2)
    assert [(a.pc, a.action) for a in out.pc_actions] == [("LS", "sell")]
    assert [(p.where, p.message, p.allowed) for p in problems] == [
        ("PC B&O sell", "a sale needs a minimum asking price", "$160–$1,600")]
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=159)]), player=2)
    assert [(p.where, p.message, p.allowed) for p in problems if p.adjusted] == [
        ("PC B&O sell", "asking $159 is under $1 per mile; raised to $160 (§10.1B1a)", "$160–$1,600")]


def test_a_refused_pc_merger_leaves_the_next_pc_action_standing_10_1b2(v):
    """§10.1B2a: a PC merges into an active road it connects to.  Player 2's merger of B&O into a
    road that does not exist, or into NYC (which B&O does not reach), is refused, and his sale of
    LS after it still counts."""
    from pbm.cr.orders import PCAction

    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id, v.s.pcs["LS"].paid = "owned", v.s.players[2].id, 900
    for target in ("ZZ", "NYC"):
        out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad=target),
                                             PCAction("LS", "sell", price=1800)]), player=2)
        assert [(a.pc, a.action) for a in out.pc_actions] == [("LS", "sell")], target
        assert [(p.where, p.allowed) for p in problems if p.refused] == [("PC B&O merge", "PENN")], target


def test_an_unknown_pc_action_is_refused_and_the_next_pc_action_stands_10_1b(v):
    """§10.1B: a PC is sold, merged or incorporated; another action (``hold``) is refused and
    player 2's sale of LS after it still counts."""
    from pbm.cr.orders import PCAction

    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id, v.s.pcs["LS"].paid = "owned", v.s.players[2].id, 900
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "hold"), PCAction("LS", "sell", price=1800)]), player=2)
    assert [(a.pc, a.action) for a in out.pc_actions] == [("LS", "sell")]
    assert [(p.where, p.allowed) for p in problems if p.refused] == [("PC B&O hold", "sell, merge or incorporate")]


# --------------------------------------------------------------------------- §10.1D control
def test_more_than_two_control_slots_are_refused_saying_there_are_two_10_1d1(v):
    """§10.1D1: a tycoon has two control slots (RR1, RR2); a third is dropped and he is told so."""
    out, problems = v(Orders(control=["NYC", "BA", "PENN"]))
    assert out.control == ["NYC", "BA"]
    assert [(p.where, p.message, p.refused) for p in problems if p.refused] == [
        ("control", "you have two control slots (RR1, RR2); the others are dropped (§10.1D1)", True)]


def test_a_control_slot_naming_a_pc_incorporated_makes_only_that_road_presided_and_the_next_slot_stands_10_1d2(v):
    """§10.1D2: a control slot may name a PC the tycoon incorporates this turn; only that PC's
    incorporation is marked as sought for the presidency (not his other incorporation), and his
    other slot (PENN) is still checked and kept."""
    from pbm.cr.orders import PCAction

    v.s.pcs["LS"].status, v.s.pcs["LS"].owner_id, v.s.pcs["LS"].paid = "owned", v.s.players[2].id, 900
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "incorporate"), PCAction("LS", "incorporate")],
                             control=["B&O", "PENN"]), player=2)
    assert out.control == ["B&O", "PENN"]
    assert [(a.pc, a.president) for a in out.pc_actions] == [("B&O", True), ("LS", False)]

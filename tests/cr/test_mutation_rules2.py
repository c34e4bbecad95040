"""Continental Rails II rules of the smaller engine modules that mutation testing found untested
(issue 31, part 2: financing, tycoons, construction, rights, privates, elections, treasury, ...).

Each test pins one rule's outcome (a figure, a limit, a boundary) so that changing the rule in
the engine makes it fail; each names its rule section.  ``scripts/mutation_cr.py`` reruns the
mutation tests; the scores and the equivalent mutants that survive are in docs/cr/rules-map.md,
"Mutation testing".  All on a tiny hand-built game (SQLite), each well under a second.
"""

from __future__ import annotations

import pytest

from pbm.cr.engine.context import TurnContext
from pbm.cr.resolve import begin_turn
from pbm.db import session_scope
from tests.cr.helpers import tiny_game


def _ctx(s, game, orders=None) -> TurnContext:
    ctx = TurnContext(s, game, orders or {})
    begin_turn(ctx)
    return ctx


def _kinds(ctx, kind):
    return [e for e in ctx.events if e["kind"] == kind]


@pytest.fixture
def game(sqlite_url):
    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)


def _ledger(ctx, step=None):
    return [(e["source"], e["target"], e["amount"]) for e in ctx.ledger if step is None or e["step"] == step]


# --------------------------------------------------------------------------- §4.6E financing
def test_finance_half_by_bonds_rounded_up_cash_above_the_political_reserve_then_loans_4_6e_4_9c(game):
    """§4.6E: at least half of a cost is paid by new bonds (the Bank rounds up, §1.0); the rest
    out of cash above the political reserve the president ordered (§4.9C), and a short-term
    loan for what is lacking (§10.2B3)."""
    from pbm.cr.engine.financing import finance, political_reserve
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.cash, nyc.bond_debt, nyc.loan_debt = 10_000, 2_000, 1_000
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=9_800)
    assert political_reserve(ctx, nyc) == 9_800
    parts = finance(ctx, nyc, 1_001, "9.1", "building X")
    assert parts == {"bonds": 501, "cash": 200, "loans": 300}
    assert (nyc.bond_debt, nyc.loan_debt, nyc.cash) == (2_501, 1_300, 9_800)  # added to the debts
    assert _ledger(ctx, "9.1") == [("bank", "rr:NYC", 501), ("bank", "rr:NYC", 300), ("rr:NYC", "public", 1_001)]


def test_finance_without_a_reserve_or_cash_and_all_by_bonds_4_6e(game):
    """§4.6E, §4.9C: no orders or a negative political order keep nothing back; a road with no
    cash (or less than none) borrows the whole cash part; a cost of $0 moves nothing; a cost of
    $1 is one bond; ``bonds_fraction`` 1 (a merger's upgrade, §4.13E) is bonds only."""
    from pbm.cr.engine.financing import finance, political_reserve
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.rr_orders.pop("NYC", None)
    assert political_reserve(ctx, nyc) == 0
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", political=-50)
    assert political_reserve(ctx, penn) == 0
    nyc.cash, nyc.bond_debt, nyc.loan_debt = 1_000, 0, 0
    assert finance(ctx, nyc, 0, "9.1", "nothing") == {"bonds": 0, "cash": 0, "loans": 0}
    assert ctx.ledger == []
    assert finance(ctx, nyc, 1, "9.1", "one dollar") == {"bonds": 1, "cash": 0, "loans": 0}
    assert (nyc.bond_debt, nyc.loan_debt, nyc.cash) == (1, 0, 1_000)
    assert finance(ctx, nyc, 3_000, "9.1", "X") == {"bonds": 1_500, "cash": 1_000, "loans": 500}
    assert (nyc.bond_debt, nyc.loan_debt, nyc.cash) == (1_501, 500, 0)
    penn.cash, penn.bond_debt, penn.loan_debt = -100, 0, 0
    assert finance(ctx, penn, 400, "9.1", "Y") == {"bonds": 200, "cash": 0, "loans": 200}
    assert (penn.bond_debt, penn.loan_debt, penn.cash) == (200, 200, -100)
    assert finance(ctx, penn, 777, "12", "Z", bonds_fraction=1.0) == {"bonds": 777, "cash": 0, "loans": 0}
    assert penn.bond_debt == 977 and penn.cash == -100


def test_finance_pays_the_directors_their_parts_and_the_rest_to_the_world_4_6c(game):
    """§4.6C: the directors' overspending goes to them; the rest of the cost to the outside world."""
    from pbm.cr.engine.financing import finance

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.cash, nyc.bond_debt, nyc.loan_debt = 100_000, 0, 0
    ctx.rr_orders.pop("NYC", None)
    before = {n: p.cash for n, p in ctx.players.items()}
    finance(ctx, nyc, 10_000, "9.1", "building X", payees=[("player:1", 700), ("player:3", 300)])
    assert ctx.players[1].cash == before[1] + 700 and ctx.players[3].cash == before[3] + 300
    assert ctx.players[2].cash == before[2]
    assert _ledger(ctx, "9.1")[-3:] == [("rr:NYC", "player:1", 700), ("rr:NYC", "player:3", 300),
                                        ("rr:NYC", "public", 9_000)]
    assert nyc.cash == 100_000 - 5_000


# --------------------------------------------------------------------------- tycoons: §6.2B, §1.2, §5, §3.4–3.5
def test_emergency_loan_lends_exactly_what_is_lacking_6_2b(game):
    """§6.2B, App. A 14.2: the Bank lends what a tycoon lacks to pay what he must, nothing if he
    has it (to the dollar)."""
    from pbm.cr.engine.tycoons import emergency_loan

    s, g = game
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    p1.cash, p1.loan = 100, 0
    assert emergency_loan(ctx, p1, 100, "7.1", "x") == 0
    assert (p1.cash, p1.loan) == (100, 0) and not _kinds(ctx, "emergency-loan")
    assert emergency_loan(ctx, p1, 101, "7.1", "x") == 1
    assert (p1.cash, p1.loan) == (101, 1)
    assert emergency_loan(ctx, p1, 1_000, "14.2", "x") == 899
    assert (p1.cash, p1.loan) == (1_000, 900)
    assert [(e["amount"], e["player_number"]) for e in _kinds(ctx, "emergency-loan")] == [(1, 1), (899, 1)]
    assert _ledger(ctx) == [("bank", "player:1", 1), ("bank", "player:1", 899)]


def test_prodigal_spending_of_at_least_1000_out_of_cash_1_2(game):
    """§1.2 Rail Prodigal: spending is out of cash (an order above the cash spends the cash) and
    must be at least $1,000; a void order does not stop the next tycoon's."""
    from pbm.cr.engine.tycoons import prodigal_spending
    from pbm.cr.orders import Orders

    s, g = game
    ctx = _ctx(s, g)
    cash = {1: 5_000, 2: 2_000, 3: 999, 4: 1_500}
    order = {1: 0, 2: 1_000, 3: 1, 4: 3_000}  # no order; exactly $1,000; $1: void; more than the cash
    for n, p in ctx.players.items():
        p.cash = cash[n]
        ctx.orders[n] = Orders(prodigal=order[n])
    prodigal_spending(ctx)
    assert {n: p.cash for n, p in ctx.players.items()} == {1: 5_000, 2: 1_000, 3: 999, 4: 0}
    assert dict(ctx.scratch.prodigal) == {2: 1_000, 4: 1_500}
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "prodigal")] == [(2, 1_000), (4, 1_500)]
    assert [e["player_number"] for e in _kinds(ctx, "prodigal-void")] == [3]
    assert _ledger(ctx, "7.2") == [("player:2", "public", 1_000), ("player:4", "public", 1_500)]
    ctx.players[3].cash = 50_000
    ctx.orders[3] = Orders(prodigal=999)
    for n in (1, 2, 4):
        ctx.orders[n] = Orders()
    prodigal_spending(ctx)
    assert ctx.players[3].cash == 50_000 and [e["player_number"] for e in _kinds(ctx, "prodigal-void")] == [3, 3]


def test_interest_on_cash_is_half_the_loan_rate_rounded_down_and_none_on_debt_5(game):
    """§5: tycoons earn half the loan rate (Normal 12 % → 6 %) on cash, rounded down; none on
    negative cash."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.tycoons import interest_on_cash

    s, g = game
    ctx = _ctx(s, g)
    ctx.new_climate = tables.climate("Boom")  # the start climate's rate counts
    for n, c in {1: 1_000, 2: 1_016, 3: -500, 4: 0}.items():
        ctx.players[n].cash = c
    interest_on_cash(ctx)
    assert {n: p.cash for n, p in ctx.players.items()} == {1: 1_060, 2: 1_076, 3: -500, 4: 0}
    assert _ledger(ctx, "7.3") == [("bank", "player:1", 60), ("bank", "player:2", 60)]


def test_loan_interest_is_rounded_up_and_lent_when_cash_lacks_3_4_5(game):
    """§3.4, §5 (step 14.1): interest at the start climate's loan rate, rounded up by the Bank
    (§1.0); what cash lacks is an emergency loan (14.2); no loan, no interest."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.tycoons import pay_loan_interest

    s, g = game
    ctx = _ctx(s, g)
    ctx.new_climate = tables.climate("Boom")
    p1, p2, p3 = ctx.players[1], ctx.players[2], ctx.players[3]
    p1.cash, p1.loan = 1_000, 1_001  # 12 % of 1,001 = 120.12 → 121
    p2.cash, p2.loan = 1_000, 0
    p3.cash, p3.loan = 20, 1_000  # 120 due, 20 in cash: 100 lent
    p4 = ctx.players[4]
    p4.cash, p4.loan = 10, 1  # 12 cents → $1
    for p in (p1, p2, p3, p4):
        pay_loan_interest(ctx, p)
    assert (p1.cash, p1.loan) == (879, 1_001)
    assert (p2.cash, p2.loan) == (1_000, 0)
    assert (p3.cash, p3.loan) == (0, 1_100)
    assert (p4.cash, p4.loan) == (9, 1)
    assert _ledger(ctx, "14.1") == [("player:1", "bank", 121), ("player:3", "bank", 120), ("player:4", "bank", 1)]
    assert _ledger(ctx, "14.2") == [("bank", "player:3", 100)]
    assert [e["amount"] for e in _kinds(ctx, "emergency-loan")] == [100]


def test_only_a_tycoon_with_a_loan_and_debts_above_assets_is_bankrupt_3_5b(game):
    """§3.5B: a tycoon is bankrupt when his debt exceeds his assets (net worth below 0); one
    without a loan never is."""
    from pbm.cr.engine.tycoons import tycoon_bankrupt

    s, g = game
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    for h in p1.holdings:
        h.shares = 0
    for cash, loan, bankrupt in ((-5, 0, False), (0, 1, True), (1, 1, False), (0, 0, False), (10, 11, True)):
        p1.cash, p1.loan = cash, loan
        assert tycoon_bankrupt(ctx, p1) is bankrupt, (cash, loan)


def test_final_phase_lends_negative_cash_back_to_zero_and_sets_credit_at_the_new_climate_14(game):
    """App. A 14.2: a tycoon with negative cash gets an emergency loan to $0; 14.4 (§3.5A): the
    credit limit is net worth × the *new* climate's margin."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.tycoons import tycoon_final_financial_phase

    s, g = game
    ctx = _ctx(s, g)
    ctx.new_climate = tables.climate("Boom")  # margin 0.8 (Normal 0.7)
    p1, p2 = ctx.players[1], ctx.players[2]
    p1.cash, p1.loan = -300, 0
    tycoon_final_financial_phase(ctx)
    assert (p1.cash, p1.loan) == (0, 300)
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "emergency-loan")] == [(1, 300)]
    assert _ledger(ctx, "14.2") == [("bank", "player:1", 300)]
    assert p2.net_worth == ctx.net_worth(p2) and p2.credit_limit == int(p2.net_worth * 0.8)
    assert p1.credit_limit == int(p1.net_worth * 0.8) and p1.net_worth == ctx.net_worth(p1)


# --------------------------------------------------------------------------- construction: §4.3, §4.15
def test_new_stock_five_a_mile_treasury_owner_directors_at_half_the_start_price_public_4_3(game):
    """§4.3A–C: 5 shares a mile; 10 % to the treasury; 20 % to a merging PC's owner; 10 % to each
    start-of-turn director at half the *start* price, lent by the Bank (§4.3B); the rest brokered
    to the Public at 10 % under the start price."""
    from pbm.cr.engine.construction import issue_new_stock

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    p1, p2, p3 = ctx.players[1], ctx.players[2], ctx.players[3]
    for p in (p1, p2, p3):
        p.cash, p.loan = 0, 0
    ctx.scratch.directors_at_start["NYC"] = [1, 2]
    ctx.scratch.start_price["NYC"] = 21.0
    nyc.price = 30.0
    before = (nyc.shares_authorized, nyc.treasury_shares, nyc.shares_issued, nyc.shares_public, nyc.cash)
    held = {n: ctx.shares(ctx.players[n], nyc) for n in (1, 2, 3)}
    issue_new_stock(ctx, nyc, 100, "9.1", "test", owner=p3)
    # 500 new: 50 treasury, 100 to the owner, 50 to each of 2 directors, 250 to the public
    assert nyc.shares_authorized == before[0] + 500
    assert nyc.treasury_shares == before[1] + 50
    assert nyc.shares_issued == before[2] + 450
    assert nyc.shares_public == before[3] + 250
    assert {n: ctx.shares(ctx.players[n], nyc) - held[n] for n in (1, 2, 3)} == {1: 50, 2: 50, 3: 100}
    assert (p1.loan, p1.cash, p2.loan, p3.loan) == (525, 0, 525, 0)  # ⌊50 × 21 / 2⌋
    assert nyc.cash == before[4] + 2 * 525 + 4_725  # ⌊250 × 21 × 0.9⌋
    assert _ledger(ctx) == [("bank", "player:1", 525), ("player:1", "rr:NYC", 525),
                            ("bank", "player:2", 525), ("player:2", "rr:NYC", 525), ("public", "rr:NYC", 4_725)]
    assert [e["data"] for e in _kinds(ctx, "stock-issued")] == [
        {"new": 500, "treasury": 50, "owner": 100, "director_each": 50, "public": 250}]


def test_new_stock_without_an_owner_and_with_six_directors_4_3b(game):
    """§4.3B: with more than 5 directors, 50 % of the new stock is divided among them; a RoW
    built (no PC owner) gives nobody 20 %; a road with no start price yet uses its price."""
    from pbm.cr.engine.construction import issue_new_stock
    from tests.cr.helpers import build_game, TINY_ROUTES, TINY_TOWNS

    s, _ = game
    g = build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": "NYC", "price": 20}], players=6, name="six")
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    ctx.scratch.directors_at_start["NYC"] = [1, 2, 3, 4, 5, 6]
    ctx.scratch.start_price.pop("NYC", None)
    nyc.price = 20.0
    public0, issued0 = nyc.shares_public, nyc.shares_issued
    issue_new_stock(ctx, nyc, 100, "9.1", "test")
    # 500 new: 50 treasury; 500 × 50 % ÷ 6 = 41 each (246); 204 public
    assert [e["data"] for e in _kinds(ctx, "stock-issued")] == [
        {"new": 500, "treasury": 50, "owner": 0, "director_each": 41, "public": 204}]
    assert nyc.shares_public == public0 + 204 and nyc.shares_issued == issued0 + 450
    assert [ctx.players[n].loan for n in range(1, 7)] == [410] * 6  # ⌊41 × 20 / 2⌋


def test_no_director_bonus_without_directors_4_3b(game):
    """§4.3B: no directors at the start of the turn, no bonus: all but the treasury's 10 % is
    brokered to the public."""
    from pbm.cr.engine.construction import director_bonus_each, issue_new_stock

    assert director_bonus_each(1000, 0) == 0 and director_bonus_each(1000, -1) == 0
    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    ctx.scratch.directors_at_start["NYC"] = []
    ctx.scratch.start_price["NYC"] = 20.0
    cash = nyc.cash
    issue_new_stock(ctx, nyc, 10, "9.1", "test")
    assert [e["data"]["public"] for e in _kinds(ctx, "stock-issued")] == [45]
    assert nyc.cash == cash + 810 and not _kinds(ctx, "director-bonus")


def test_double_track_costs_a_quarter_of_the_start_minimum_in_cash_only_4_15(game):
    """§4.15: double track costs 25 % of the minimum track cost per mile (start climate:
    Normal $300 → $75 a mile; NYC's 148 miles $11,100), paid in cash only: exactly the cash is
    enough, a dollar less is not; a line not the road's own, or already double-tracked, is void
    and does not stop the next order or the next road."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.construction import double_track
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    ctx.new_climate = tables.climate("Boom")
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.cash, penn.cash = 11_100, 22_499  # PENN's 300 miles cost $22,500
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", double_track=["PENN", "NYC", "NYC"])
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", double_track=["PENN"])
    double_track(ctx)
    assert [line.double_tracked for line in nyc.lines] == [True]
    assert [line.double_tracked for line in penn.lines] == [False]
    assert (nyc.cash, penn.cash) == (0, 22_499)
    assert _ledger(ctx, "9.2") == [("rr:NYC", "public", 11_100)]
    assert [e["railroad"] for e in _kinds(ctx, "double-track-void")] == ["NYC", "NYC"]
    assert [(e["railroad"], e["amount"]) for e in _kinds(ctx, "double-track-unaffordable")] == [("PENN", 22_500)]
    penn.cash = 22_500
    double_track(ctx)
    assert penn.cash == 0 and [line.double_tracked for line in penn.lines] == [True]


def test_no_double_track_for_a_road_bankrupt_at_the_start_or_without_orders_4_15_4_11b(game):
    """§4.11B: a road bankrupt at the start of the turn may not build, nor double-track; the next
    road still does.  A road without orders does nothing."""
    from pbm.cr.engine.construction import double_track
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.cash = penn.cash = 100_000
    ctx.scratch.bankrupt_at_start.add("NYC")
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", double_track=["NYC"])
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", double_track=["PENN"])
    double_track(ctx)
    assert [line.double_tracked for line in nyc.lines] == [False] and nyc.cash == 100_000
    assert [line.double_tracked for line in penn.lines] == [True] and penn.cash == 100_000 - 22_500
    ctx.scratch.bankrupt_at_start.clear()
    ctx.rr_orders.pop("NYC")
    double_track(ctx)
    assert nyc.cash == 100_000


# --------------------------------------------------------------------------- privates: §2.4, §10.1B, §3.4
def _own(ctx, code, player, *, paid=0, for_sale=False, ask=None, offered=None):
    pc = ctx.pcs[code]
    pc.status, pc.owner_id, pc.paid = "owned", player.id, paid
    pc.for_sale, pc.asking_price, pc.offered_turn = for_sale, ask, offered
    return pc


def test_pc_bids_at_the_asking_price_win_the_highest_takes_it_and_pays_the_bank_2_4e_10_1b3(game):
    """§2.4D–E, §10.1B3: a Bank PC asks $5 a mile; a bid of exactly that is good, a dollar less is
    too low; the highest bid buys it and the money goes to the Bank; a bid for a PC not for sale
    (or one's own) is void and does not stop the tycoon's other bid."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    p1, p2, p3, p4 = (ctx.players[n] for n in (1, 2, 3, 4))
    for p in (p1, p2, p3, p4):
        p.cash = 5_000
    ctx.orders.update({
        1: Orders(pc_bids=[PCBid("LS", 910, 1), PCBid("MC", 760, 2)]),  # LS asks 5 × 182 = 910
        2: Orders(pc_bids=[PCBid("LS", 909, 1), PCBid("NYNH", 550, 2)]),  # NYNH 5 × 110 = 550
        3: Orders(pc_bids=[PCBid("LS", 1_000, 1)]),
        4: Orders(pc_bids=[PCBid("NYC", 900, 1), PCBid("B&A", 1_005, 2)]),  # NYC is a railroad; B&A 5 × 201
    })
    private_company_purchases(ctx)
    owner = {c: ctx.player_by_id[pc.owner_id].number for c, pc in ctx.pcs.items() if pc.status == "owned"}
    assert owner == {"LS": 3, "MC": 1, "NYNH": 2, "B&A": 4}
    assert {c: ctx.pcs[c].paid for c in ("LS", "MC", "NYNH", "B&A")} == {"LS": 1_000, "MC": 760, "NYNH": 550,
                                                                         "B&A": 1_005}
    assert [p.cash for p in (p1, p2, p3, p4)] == [4_240, 4_450, 4_000, 3_995]
    assert [e["player_number"] for e in _kinds(ctx, "pc-bid-low")] == [2]
    assert [e["player_number"] for e in _kinds(ctx, "pc-bid-void")] == [4]
    assert sorted(_ledger(ctx, "5")) == sorted([("player:3", "bank", 1_000), ("player:1", "bank", 760),
                                                ("player:2", "bank", 550), ("player:4", "bank", 1_005)])
    assert all(ctx.pcs[c].for_sale is False and ctx.pcs[c].asking_price is None for c in ("LS", "MC"))


def test_pc_bids_are_cut_to_the_cash_in_sequence_and_to_two_pcs_10_1b4_2_4e(game):
    """§10.1B4: bids beyond the tycoon's cash are cut in reverse sequence (the second bid gets
    what the first leaves); §2.4E: a tycoon owns at most two PCs, so one who owns one keeps only
    his first bid."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    p1.cash, p2.cash = 1_700, 10_000
    _own(ctx, "P&FW", p2, paid=650)
    ctx.orders.update({
        1: Orders(pc_bids=[PCBid("MC", 800, 2), PCBid("LS", 1_000, 1)]),  # LS first: MC gets 700 < 760
        2: Orders(pc_bids=[PCBid("NYNH", 600, 1), PCBid("B&A", 2_000, 2)]),
    })
    private_company_purchases(ctx)
    assert ctx.pcs["LS"].owner_id == p1.id and ctx.pcs["MC"].status == "bank"
    assert ctx.pcs["NYNH"].owner_id == p2.id and ctx.pcs["B&A"].status == "bank"
    assert (p1.cash, p2.cash) == (700, 9_400)
    assert [e["player_number"] for e in _kinds(ctx, "pc-bid-low")] == [1]


def test_pc_bought_from_a_player_pays_him_and_a_cheap_unsold_offer_goes_to_the_public_10_1b1c(game):
    """§10.1B: a PC a player offered on an earlier turn is bought at the highest bid at or over
    his asking price (never under $1 a mile), the money going to him; §10.1B1c: one offered below
    $10 a mile that nobody buys is bought by the Public at the asking price — not one offered this
    turn, nor one at $10 a mile."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    p1, p2, p3, p4 = (ctx.players[n] for n in (1, 2, 3, 4))
    for p in (p1, p2, p3, p4):
        p.cash = 5_000
    _own(ctx, "LS", p1, paid=900, for_sale=True, ask=1_200, offered=0)  # bought by p2
    _own(ctx, "MC", p1, paid=900, for_sale=True, ask=1_519, offered=0)  # < 1,520: the Public
    _own(ctx, "NYNH", p3, paid=900, for_sale=True, ask=1_100, offered=0)  # = $10/mile: kept
    _own(ctx, "P&FW", p4, paid=900, for_sale=True, ask=100, offered=1)  # offered this turn: kept
    ctx.orders.update({2: Orders(pc_bids=[PCBid("LS", 1_200, 1), PCBid("P&FW", 500, 2)]),
                       3: Orders(pc_bids=[PCBid("NYNH", 1_200, 1)])})  # his own: void
    private_company_purchases(ctx)
    assert ctx.pcs["LS"].owner_id == p2.id and ctx.pcs["LS"].paid == 1_200
    assert ctx.pcs["MC"].status == "public" and ctx.pcs["MC"].owner_id is None
    assert ctx.pcs["NYNH"].status == "owned" and ctx.pcs["NYNH"].owner_id == p3.id
    assert ctx.pcs["P&FW"].status == "owned" and ctx.pcs["P&FW"].owner_id == p4.id
    assert (p1.cash, p2.cash, p3.cash, p4.cash) == (5_000 + 1_200 + 1_519, 3_800, 5_000, 5_000)
    assert [e["player_number"] for e in _kinds(ctx, "pc-bid-void")] == [2, 3]
    assert ("public", "player:1", 1_519) in _ledger(ctx, "5") and ("player:2", "player:1", 1_200) in _ledger(ctx, "5")


def test_pc_ask_range_20_percent_over_what_was_paid_or_the_ask_but_10_a_mile_allowed_10_1b1(game):
    """§10.1B1a–b,d (ruling R-O6): the asking price is at least $1 a mile and at most 20 % over
    what was paid and, for a PC already offered, 20 % over the current ask; $10 a mile is always
    allowed.  An offer out of range is set to the nearest bound; the first offer's turn is kept."""
    from pbm.cr.engine.privates import ask_range, private_company_offers
    from pbm.cr.orders import Orders, PCAction

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    ls = _own(ctx, "LS", p1, paid=1_000)  # 182 miles: $10/mile = 1,820
    assert ask_range(ctx, ls) == (182, 1_820)
    ls.paid = 2_000
    assert ask_range(ctx, ls) == (182, 2_400)
    ls.for_sale, ls.asking_price = True, 1_900
    assert ask_range(ctx, ls) == (182, 2_280)
    ls.asking_price = 1_000
    assert ask_range(ctx, ls) == (182, 1_820)
    ls.for_sale, ls.asking_price, ls.paid = False, None, 3_001
    mc = _own(ctx, "MC", p1, paid=1_000, for_sale=True, ask=1_600, offered=0)  # 152 miles
    nynh = _own(ctx, "NYNH", p2, paid=1_000)
    ctx.orders.update({1: Orders(pc_actions=[PCAction("LS", "sell", 9_999), PCAction("MC", "sell", 10)]),
                       2: Orders(pc_actions=[PCAction("NYNH", "sell", None), PCAction("LS", "sell", 2_000)])})
    private_company_offers(ctx)
    assert (ls.for_sale, ls.asking_price, ls.offered_turn) == (True, 3_601, ctx.turn)
    assert (mc.for_sale, mc.asking_price, mc.offered_turn) == (True, 152, 0)
    assert (nynh.for_sale, nynh.asking_price, nynh.offered_turn) == (True, 110, ctx.turn)
    assert [e["player_number"] for e in _kinds(ctx, "pc-ask-adjusted")] == [1, 1, 2]
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "pc-offered")] == [(1, 3_601), (1, 152), (2, 110)]


def test_pc_income_is_a_dollar_a_mile_times_the_start_climate_3_4(game):
    """§3.4 (ruling E-3.4): an owned PC pays its owner $1 a mile a turn times the start climate's
    revenue factor (Boom +20 %), rounded down; a Bank PC pays nobody."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.privates import private_company_income

    s, g = game
    ctx = _ctx(s, g)
    ctx.climate = tables.climate("Boom")
    p1, p2 = ctx.players[1], ctx.players[2]
    _own(ctx, "LS", p1)
    _own(ctx, "NYNH", p2)
    c1, c2 = p1.cash, p2.cash
    private_company_income(ctx)
    assert (p1.cash - c1, p2.cash - c2) == (218, 132)  # ⌊182 × 1.2⌋, 110 × 1.2
    assert _ledger(ctx, "13.6") == [("public", "player:2", 132), ("public", "player:1", 218)]


# --------------------------------------------------------------------------- treasury: §10.2C2
def _treasury_order(ctx, code, president, shares, *, start_price, cash):
    from pbm.cr.orders import RailroadOrders

    rr = ctx.railroads[code]
    rr.president_id = president.id if president is not None else None
    ctx.scratch.start_price[code] = start_price
    if president is not None:
        president.cash = cash
    ctx.rr_orders[code] = RailroadOrders(code, treasury_to_president=shares)
    return rr


def test_treasury_shares_to_the_president_at_half_the_start_price_limited_by_cash_10_2c2(game):
    """§10.2C2: the president buys treasury shares at 50 % of the start price, as many as he
    orders, the treasury holds and his cash pays for (to the dollar); they become issued stock."""
    from pbm.cr.engine.treasury import treasury_stock_to_presidents

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    nyc = _treasury_order(ctx, "NYC", p1, 20, start_price=20.0, cash=95)  # $10 a share: 9
    penn = _treasury_order(ctx, "PENN", p2, 10, start_price=15.0, cash=75)  # $7.50: 10 cost exactly 75
    nyc.price = penn.price = 40.0  # the start price counts, not the current one
    before = {c: (r.treasury_shares, r.shares_issued, r.cash) for c, r in (("NYC", nyc), ("PENN", penn))}
    held = (ctx.shares(p1, nyc), ctx.shares(p2, penn))
    treasury_stock_to_presidents(ctx)
    assert (nyc.treasury_shares, nyc.shares_issued, nyc.cash) == (before["NYC"][0] - 9, before["NYC"][1] + 9,
                                                                  before["NYC"][2] + 90)
    assert (penn.treasury_shares, penn.shares_issued, penn.cash) == (before["PENN"][0] - 10,
                                                                     before["PENN"][1] + 10, before["PENN"][2] + 75)
    assert (ctx.shares(p1, nyc), ctx.shares(p2, penn)) == (held[0] + 9, held[1] + 10)
    assert (p1.cash, p2.cash) == (5, 0)
    assert _ledger(ctx, "4") == [("player:1", "rr:NYC", 90), ("player:2", "rr:PENN", 75)]
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "treasury-to-president")] == [(1, 90), (2, 75)]


def test_treasury_shares_limited_by_the_treasury_and_none_without_president_order_or_cash_10_2c2(game):
    """§10.2C2: never more than the treasury holds; nothing for a road without a president or
    without an order, or for a president who cannot pay for one share (and the next road still
    sells)."""
    from pbm.cr.engine.treasury import treasury_stock_to_presidents

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    nyc = _treasury_order(ctx, "NYC", p1, 50, start_price=20.0, cash=9)  # a share costs $10
    penn = _treasury_order(ctx, "PENN", p2, 50, start_price=15.0, cash=10_000)
    penn.treasury_shares = 7
    t_nyc = nyc.treasury_shares
    treasury_stock_to_presidents(ctx)
    assert nyc.treasury_shares == t_nyc and p1.cash == 9
    assert penn.treasury_shares == 0 and p2.cash == 10_000 - 52  # ⌊7 × 7.5⌋
    _treasury_order(ctx, "NYC", None, 50, start_price=20.0, cash=0)
    _treasury_order(ctx, "PENN", p2, 0, start_price=15.0, cash=10_000)
    penn.treasury_shares = 7
    treasury_stock_to_presidents(ctx)
    assert nyc.treasury_shares == t_nyc and penn.treasury_shares == 7
    nyc.president_id = p1.id
    p1.cash = 1_000
    ctx.rr_orders.pop("NYC")
    treasury_stock_to_presidents(ctx)
    assert nyc.treasury_shares == t_nyc and p1.cash == 1_000


# --------------------------------------------------------------------------- elections: §6.5, §4.14A
def test_director_holds_ten_percent_or_more_of_the_issued_stock_4_14a():
    """§4.14A: a director holds 10 % or more of the issued stock (and some stock at all)."""
    from pbm.cr.engine.elections import is_director

    assert is_director(66, 660) and is_director(67, 660) and not is_director(65, 660)
    assert not is_director(0, 0) and not is_director(5, 0) and is_director(1, 1) and is_director(1, 10)
    assert not is_director(0, 10) and not is_director(1, 11)


def test_split_multiplies_every_kind_of_share_and_shorts_and_divides_the_price_6_5(game):
    """§6.5: above $100 a stock splits by the smallest whole ratio that brings it to $100 or
    less: authorized, issued, public, treasury shares, holdings and short sales are multiplied,
    the price divided and rounded down to the cent; a road at $100 does not split."""
    from pbm.cr.engine.elections import split_ratio, stock_splits

    assert split_ratio(200.0) == 2 and split_ratio(200.01) == 3 and split_ratio(99.99) == 1
    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.price, penn.price = 100.0, 200.5
    h = penn.holdings[0]
    h.short = 4
    before = (penn.shares_authorized, penn.shares_issued, penn.shares_public, penn.treasury_shares, h.shares)
    nyc_before = (nyc.shares_authorized, nyc.shares_issued, nyc.price)
    stock_splits(ctx)
    assert (penn.shares_authorized, penn.shares_issued, penn.shares_public, penn.treasury_shares, h.shares) == tuple(
        3 * x for x in before)
    assert h.short == 12 and penn.price == 66.83
    assert (nyc.shares_authorized, nyc.shares_issued, nyc.price) == nyc_before
    assert [(e["railroad"], e["data"]) for e in _kinds(ctx, "split")] == [("PENN", {"ratio": 3})]


# --------------------------------------------------------------------------- rights: §4.7, §4.8, §7D
def test_row_bid_problems_route_kind_owner_connection_4_7c_d(game):
    """§4.7C–D, §10.2G: a bid must name an unowned right-of-way of the map (not a PC) that
    connects to the road's lines or RoW; the code may be written in lower case."""
    from pbm.cr.engine.rights import row_bid_problem

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]  # New York–Albany; Philadelphia–Pittsburgh
    assert row_bid_problem(ctx, nyc, "XX9") is not None
    assert row_bid_problem(ctx, nyc, None) is not None
    assert row_bid_problem(ctx, nyc, "ERIE") is not None  # a PC
    assert row_bid_problem(ctx, nyc, "OH1") is not None  # Cleveland–Toledo: not connected
    assert row_bid_problem(ctx, nyc, "PA1") is None and row_bid_problem(ctx, nyc, "pa1") is None
    assert row_bid_problem(ctx, nyc, "NY2") is None  # Albany–Buffalo
    ctx.routes["PA1"].owner_id = penn.id
    ctx.routes_changed()
    assert row_bid_problem(ctx, nyc, "PA1") is not None  # owned
    # PENN now holds PA1 as its RoW: New York connects it to NY1
    assert row_bid_problem(ctx, penn, "NY1") is None


def test_a_road_may_not_hold_both_routes_of_a_double_connection_nor_two_into_chicago_4_8(game):
    """§4.8.1: never both routes of a double connection (whichever names the other); §4.8.2:
    only one route into Chicago — the route itself does not count against itself."""
    from pbm.cr.engine.rights import prohibited_reason

    s, g = game
    ctx = _ctx(s, g)
    r = ctx.routes
    assert prohibited_reason(ctx, [r["NY1"]], r["NYNH"]) is not None
    r["NYNH"].double_with = None  # only the held route names the other
    assert prohibited_reason(ctx, [r["NY1"]], r["NYNH"]) is not None
    r["NY1"].double_with = None
    assert prohibited_reason(ctx, [r["NY1"]], r["NYNH"]) is None
    assert prohibited_reason(ctx, [r["MC"]], r["IN2"]) is not None  # Toledo–Chicago, Indianapolis–Chicago
    assert prohibited_reason(ctx, [r["MC"]], r["IL1"]) is not None  # Chicago–St. Louis
    assert prohibited_reason(ctx, [r["MC"]], r["MC"]) is None
    assert prohibited_reason(ctx, [r["MC"]], r["IN4"]) is None  # Toledo–Indianapolis
    assert prohibited_reason(ctx, [r["IN4"]], r["IN2"]) is None  # Indianapolis is not Chicago


def test_valid_rows_are_the_unowned_connected_permitted_rows_by_number_4_7(game):
    """§4.7–4.8: the RoWs a road may bid for: connected, unowned, not prohibited, by number."""
    from pbm.cr.engine.rights import valid_rows

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    assert [r.code for r in valid_rows(ctx, nyc)] == ["NY1", "NY2", "PA1"]
    assert [r.code for r in valid_rows(ctx, penn)] == ["PA1", "OH2"]
    ctx.routes["PA1"].owner_id = penn.id
    ctx.routes_changed()
    assert [r.code for r in valid_rows(ctx, nyc)] == ["NY1", "NY2"]


def test_may_bid_only_an_active_road_not_bankrupt_not_new_without_a_row_4_7a_b_i(game):
    """§4.7A–B, §4.7I: a road bankrupt at the start, incorporated this turn, or holding an
    unbuilt RoW may not bid."""
    from pbm.cr.engine.rights import may_bid

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    assert may_bid(ctx, nyc) and may_bid(ctx, penn)
    ctx.scratch.bankrupt_at_start.add("NYC")
    ctx.scratch.incorporated.append("PENN")
    assert not may_bid(ctx, nyc) and not may_bid(ctx, penn)
    ctx.scratch.bankrupt_at_start.clear()
    ctx.scratch.incorporated.clear()
    nyc.status = "bankrupt"
    ctx.routes["OH2"].owner_id = penn.id
    ctx.routes_changed()
    assert not may_bid(ctx, nyc) and not may_bid(ctx, penn)


def test_row_bids_first_choice_then_alternate_and_a_road_that_may_not_bid_is_void_4_7_10_2g(game):
    """§4.7, §10.2G: a failed first choice falls to the alternate; a road that got its first
    choice does not use its alternate; a road holding an unbuilt RoW may not bid (and the next
    road still does)."""
    from pbm.cr.engine.rights import rights_of_way
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", row_first="OH1", row_alternate="PA1")
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first="OH2", row_alternate="PA1")
    rights_of_way(ctx)
    assert ctx.routes["PA1"].owner_id == nyc.id and ctx.routes["OH2"].owner_id == penn.id
    assert ctx.routes["OH1"].owner_id is None
    assert [e["railroad"] for e in _kinds(ctx, "row-bid-invalid")] == ["NYC"]
    assert [(e["railroad"], e["data"]["row"]) for e in _kinds(ctx, "row-acquired")] == [("PENN", "OH2"),
                                                                                        ("NYC", "PA1")]
    assert all(ctx.routes[c].land_grant == e["data"]["grant"] >= 0
               for c, e in zip(("OH2", "PA1"), _kinds(ctx, "row-acquired")))
    ctx2_events = len(ctx.events)
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", row_first="NY1")  # holds PA1 unbuilt
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first=None, row_alternate=None)
    rights_of_way(ctx)
    assert ctx.routes["NY1"].owner_id is None
    assert [e["railroad"] for e in ctx.events[ctx2_events:] if e["kind"] == "row-bid-void"] == ["NYC"]


def test_row_contested_goes_to_the_greater_influence_4_7g(game):
    """§4.7G: two roads bidding for the same RoW: the greater political influence wins it."""
    from pbm.cr.engine.rights import rights_of_way
    from pbm.cr.orders import RailroadOrders

    s, g = game
    for influence, winner in (({"NYC": 0, "PENN": 1}, "PENN"), ({"NYC": 3, "PENN": 1}, "NYC")):
        ctx = _ctx(s, g)
        ctx.scratch.influence = dict(influence)
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", row_first="PA1")
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first="PA1")
        rights_of_way(ctx)
        assert ctx.routes["PA1"].owner_id == ctx.railroads[winner].id
        assert [e["railroad"] for e in _kinds(ctx, "row-lost")] == [({"NYC", "PENN"} - {winner}).pop()]


def test_land_sells_30_percent_at_40_dollars_in_a_normal_climate_7d(game):
    """§7D (ruling E-7D): 10 % of the unsold land in a Panic, +5 % a climate step, at $20 a
    section +$5 a step — Normal (step 4): 30 % at $40; a road with no land sells none and the
    next road still sells."""
    from pbm.cr.engine.rights import land_sales

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.land, penn.land = 0, 81
    cash = (nyc.cash, penn.cash)
    land_sales(ctx)
    assert (nyc.land, penn.land) == (0, 57) and (nyc.cash, penn.cash) == (cash[0], cash[1] + 24 * 40)
    assert _ledger(ctx, "11") == [("public", "rr:PENN", 960)]


# --------------------------------------------------------------------------- construction: §4.3A, §4.6, §10.1B
def test_pc_merge_problems_active_not_bankrupt_connected_at_the_start_permitted_10_1b2a(game):
    """§10.1B2a, §4.8, §4.11B: a PC merges only into an active road (active at the start of the
    turn, not bankrupt then) that it connected to at the start, and not as the second route of
    a double connection."""
    from pbm.cr.engine.construction import pc_merge_problem

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    pcs = ctx.pcs
    assert pc_merge_problem(ctx, pcs["B&A"], nyc) is None  # Boston–Albany meets New York–Albany
    assert pc_merge_problem(ctx, pcs["NYNH"], nyc) is None  # New York–Boston
    assert pc_merge_problem(ctx, pcs["B&A"], None) is not None
    assert pc_merge_problem(ctx, pcs["LS"], nyc) is not None  # Buffalo–Cleveland: not connected
    assert pc_merge_problem(ctx, pcs["P&FW"], penn) is None  # Pittsburgh–Cleveland
    ctx.scratch.start_towns["PENN"] = set()
    assert pc_merge_problem(ctx, pcs["P&FW"], penn) is not None  # not at the start of the turn
    ctx.routes["NY1"].owner_id = nyc.id  # NYC holds NY1 unbuilt: NYNH is its double
    ctx.routes_changed()
    assert pc_merge_problem(ctx, pcs["NYNH"], nyc) is not None
    ctx.scratch.bankrupt_at_start.add("NYC")
    assert pc_merge_problem(ctx, pcs["B&A"], nyc) is not None
    ctx.scratch.bankrupt_at_start.clear()
    ctx.scratch.active_at_start.remove("NYC")
    assert pc_merge_problem(ctx, pcs["B&A"], nyc) is not None
    ctx.scratch.active_at_start.append("NYC")
    nyc.status = "bankrupt"
    assert pc_merge_problem(ctx, pcs["B&A"], nyc) is not None


def test_pc_merger_only_by_its_owner_into_a_road_it_may_join_10_1b2(game):
    """§10.1B2: a merger ordered for a PC the tycoon does not own, or into a road it may not
    join, is void (and does not stop the next order); the merged PC is the road's line."""
    from pbm.cr.engine.construction import merge_private_companies
    from pbm.cr.orders import Orders, PCAction

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    p1, p2 = ctx.players[1], ctx.players[2]
    _own(ctx, "B&A", p1, paid=1_000)
    _own(ctx, "P&FW", p2, paid=1_000)
    _own(ctx, "LS", p2, paid=1_000)
    ctx.orders.update({1: Orders(pc_actions=[PCAction("ERIE", "merge", railroad="NYC"),  # not his
                                             PCAction("P&FW", "merge", railroad="PENN"),  # p2's
                                             PCAction("B&A", "merge", railroad="NYC")]),
                       2: Orders(pc_actions=[PCAction("LS", "merge", railroad="NYC"),  # not connected
                                             PCAction("P&FW", "merge", railroad="PENN")])})
    auth = (nyc.shares_authorized, penn.shares_authorized)
    merge_private_companies(ctx)
    assert (ctx.pcs["B&A"].status, ctx.pcs["B&A"].railroad_id, ctx.pcs["B&A"].owner_id) == ("merged", nyc.id, None)
    assert ctx.pcs["B&A"].for_sale is False and ctx.pcs["B&A"].asking_price is None
    assert {e["step"] for e in ctx.ledger} == {"9.1"}
    assert (ctx.pcs["P&FW"].status, ctx.pcs["P&FW"].railroad_id) == ("merged", penn.id)
    assert ctx.pcs["LS"].status == "owned" and ctx.pcs["ERIE"].status == "bank"
    assert (nyc.shares_authorized - auth[0], penn.shares_authorized - auth[1]) == (5 * 201, 5 * 130)
    assert {ctx.route_by_id[x.route_id].code for x in nyc.lines} == {"NYC", "B&A"}
    assert ctx.routes["B&A"].owner_id == nyc.id
    assert [e["player_number"] for e in _kinds(ctx, "pc-merge-void")] == [1, 1, 2]
    assert [(e["player_number"], e["railroad"]) for e in _kinds(ctx, "pc-merged")] == [(1, "NYC"), (2, "PENN")]


def test_incorporation_numbers_the_new_roads_and_voids_a_pc_not_owned_4_3a1_10_1b3(game):
    """§4.3A1, §10.1B3: each incorporated PC becomes a railroad numbered after the others, with
    the best engine and the technologies available (but A), its line, 20 % to its owner, 10 %
    treasury and 70 % brokered at 10 % under its start price; a PC not owned (or already
    incorporated by an earlier order) is void; the owner who asks for it seeks its presidency."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.construction import incorporate_private_companies
    from pbm.cr.orders import Orders, PCAction

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    _own(ctx, "MC", p1, paid=800)
    _own(ctx, "LS", p2, paid=900)
    ctx.orders.update({1: Orders(pc_actions=[PCAction("LS", "incorporate"),  # p2's: void
                                             PCAction("MC", "incorporate", president=True),
                                             PCAction("MC", "incorporate"), PCAction("ERIE", "incorporate")]),
                       2: Orders(pc_actions=[PCAction("LS", "incorporate")])})
    incorporate_private_companies(ctx)
    mc, ls = ctx.railroads["MC"], ctx.railroads["LS"]
    assert (mc.number, ls.number) == (3, 4)
    assert ctx.scratch.incorporated == ["MC", "LS"]
    assert ctx.scratch.start_price == {**ctx.scratch.start_price, "MC": mc.price, "LS": ls.price}
    assert ctx.scratch.president_wants == {"MC": [1]}
    assert [e["player_number"] for e in _kinds(ctx, "incorporation-void")] == [1, 1, 1]
    for rr, miles, owner in ((mc, 152, p1), (ls, 182, p2)):
        new = 5 * miles
        assert (rr.shares_authorized, rr.treasury_shares, rr.shares_issued) == (new, new // 10, new - new // 10)
        assert rr.shares_public == new - new // 10 - new // 5 and ctx.shares(owner, rr) == new // 5
        assert rr.cash == int(rr.shares_public * rr.price * 0.9) and 10 <= rr.price <= 18
        assert rr.locomotive == tables.best_locomotive(ctx.turn) and rr.status == "active"
        assert rr.technologies == [t for t in tables.technologies_available(ctx.turn) if t != "A"]
        assert rr.efficiency <= 95 and rr.founded_turn == ctx.turn
        assert [ctx.route_by_id[x.route_id].code for x in rr.lines] == [rr.code]
        assert ctx.pcs[rr.code].status == "incorporated" and ctx.pcs[rr.code].owner_id is None
        assert ctx.pcs[rr.code].railroad_id == rr.id
    assert [(e["player_number"], e["railroad"], e["amount"]) for e in _kinds(ctx, "incorporated")] == [
        (1, "MC", mc.cash), (2, "LS", ls.cash)]


def test_build_cost_is_clamped_between_the_minimum_and_double_and_towns_cost_300_a_point_4_6b_d(game):
    """§4.6B–D: a road builds its RoW at the ordered cost per mile, but never below the start
    climate's minimum (Normal $300) nor above double it; each end town costs $300 × its value
    (PA1: 90 miles, Philadelphia 16, New York 25: $12,300)."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import RailroadOrders

    s, g = game
    for order, per_mile in ((900, 600), (100, 300), (450, 450)):
        ctx = _ctx(s, g)
        ctx.new_climate = tables.climate("Boom")
        nyc = ctx.railroads["NYC"]
        nyc.cash, bonds = 10**6, nyc.bond_debt
        ctx.routes["PA1"].owner_id = nyc.id
        ctx.routes_changed()
        ctx.scratch.start_row["NYC"] = "PA1"
        ctx.scratch.directors_at_start["NYC"] = []
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", build_per_mile=order)
        build_or_abandon_rows(ctx)
        cost = per_mile * 90 + 12_300
        assert [e["amount"] for e in _kinds(ctx, "row-built")] == [cost]
        # half by bonds, half from cash; 405 new shares brokered at 90 % of $20 bring $7,290
        assert nyc.bond_debt - bonds == cost // 2 and nyc.cash == 10**6 - cost // 2 + 7_290


def test_no_building_without_a_build_order_or_a_row_of_ones_own_4_6(game):
    """§4.6, §10.2E: a road builds only the RoW it held at the start of the turn and still
    owns, and only when ordered to; the next road still builds."""
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.routes["PA1"].owner_id = penn.id  # NYC's start-of-turn RoW went to PENN
    ctx.routes["OH2"].owner_id = penn.id
    ctx.routes_changed()
    ctx.scratch.start_row.update({"NYC": "PA1", "PENN": "OH2"})
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", build_per_mile=300)
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", build_per_mile=None)
    build_or_abandon_rows(ctx)
    assert not _kinds(ctx, "row-built")
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", build_per_mile=300)
    ctx.rr_orders.pop("NYC")
    build_or_abandon_rows(ctx)
    assert [e["data"]["row"] for e in _kinds(ctx, "row-built")] == ["OH2"]
    assert [ctx.route_by_id[x.route_id].code for x in nyc.lines] == ["NYC"]


# --------------------------------------------------------------------------- elections: §4.14, §10.1D
def _give(ctx, code, number, shares):
    rr = ctx.railroads[code]
    h = ctx.holding(ctx.players[number], rr)
    rr.shares_public -= shares - h.shares
    h.shares = shares
    return h


def _preside(ctx, code, number, slot=1):
    rr, p = ctx.railroads[code], ctx.players[number]
    rr.president_id = p.id
    setattr(p, f"slot{slot}_id", rr.id)


def test_a_resigning_president_leaves_the_road_to_an_anonymous_president_10_1d(game):
    """§10.1D: a president who resigns gives up the road; with no director seeking it the
    president is anonymous (§4.14C) and the slot is empty; his other road is kept."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = game
    ctx = _ctx(s, g)
    _give(ctx, "NYC", 1, 100)
    _give(ctx, "PENN", 1, 200)
    _preside(ctx, "NYC", 1, 1)
    _preside(ctx, "PENN", 1, 2)
    ctx.orders[1] = Orders(resign=["NYC"])
    elections(ctx)
    nyc, penn, p1 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.players[1]
    assert nyc.president_id is None and penn.president_id == p1.id
    assert (p1.slot1_id, p1.slot2_id) == (None, penn.id)
    assert [(e["railroad"], e["player_number"]) for e in _kinds(ctx, "new-president")] == [("NYC", None)]
    assert nyc.chairman_id == p1.id  # still the largest director (§4.14B)


def test_the_owner_of_an_incorporated_pc_takes_a_free_slot_and_one_road_fills_one_slot_10_1b3d(game):
    """§10.1B3d: the owner who asked to preside over his new road seeks it in a free control
    slot; §10.1D: one road wished for in both slots fills only one (the other keeps its road)."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = game
    ctx = _ctx(s, g)
    _give(ctx, "PENN", 2, 150)
    _give(ctx, "NYC", 3, 100)
    _give(ctx, "PENN", 3, 100)
    _preside(ctx, "PENN", 3, 2)
    ctx.scratch.president_wants["PENN"] = [2]
    ctx.orders[3] = Orders(control=["NYC", "NYC"])
    elections(ctx)
    nyc, penn, p2, p3 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.players[2], ctx.players[3]
    assert penn.president_id == p2.id and (p2.slot1_id, p2.slot2_id) == (penn.id, None)
    assert nyc.president_id == p3.id and (p3.slot1_id, p3.slot2_id) == (nyc.id, None)
    assert sorted((e["railroad"], e["player_number"]) for e in _kinds(ctx, "new-president")) == [
        ("NYC", 3), ("PENN", 2)]


def test_chairman_is_the_largest_director_and_keeps_the_chair_on_a_tie_4_14b(game):
    """§4.14B: the chairman is the director with the most shares; on a tie the sitting chairman
    keeps it, else the lower player number; no directors, no chairman."""
    from pbm.cr.engine.elections import elections

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    _give(ctx, "NYC", 2, 100)
    _give(ctx, "NYC", 3, 100)
    nyc.chairman_id = ctx.players[3].id
    _give(ctx, "PENN", 2, 150)
    _give(ctx, "PENN", 4, 150)
    penn.chairman_id = None
    elections(ctx)
    assert nyc.chairman_id == ctx.players[3].id and penn.chairman_id == ctx.players[2].id
    ctx = _ctx(s, g)
    elections(ctx)  # 4 % each: no director
    assert ctx.railroads["NYC"].chairman_id is None


def test_a_merged_road_has_no_directors_4_13(game):
    """§4.13: a merged road's holders are no longer its directors."""
    from pbm.cr.engine.elections import elections

    s, g = game
    ctx = _ctx(s, g)
    penn = ctx.railroads["PENN"]
    h = _give(ctx, "PENN", 1, 300)
    h.director = True
    penn.status = "merged"
    elections(ctx)
    assert h.director is False


# --------------------------------------------------------------------------- politics: §4.9; climate: §5, §8
def test_political_influence_a_level_per_dollar_a_mile_out_of_cash_4_9(game):
    """§4.9A–B (ruling E-4.9B): $1 a mile of start-of-turn track buys one level, out of cash
    only (an order above the cash spends the cash); less than $1 a mile buys nothing and is not
    spent; a road bankrupt at the start may not lobby (§4.11B) and the next road still does."""
    from pbm.cr.engine.politics import political_influence
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    assert ctx.scratch.start_miles == {"NYC": 148, "PENN": 300}
    for cash, order, spent, level in ((10_000, 900, 900, 3), (299, 1_000, None, None), (300, 1_000, 300, 1),
                                      (10_000, 899, 899, 2), (10_000, 0, None, None), (-5, 400, None, None)):
        ctx.scratch.influence.clear()
        ctx.scratch.political_spent.clear()
        nyc.cash = penn.cash = cash
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=order)
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", political=order)
        ctx.scratch.start_miles["NYC"] = 300  # both 300 miles
        political_influence(ctx)
        want = {} if spent is None else {"NYC": level, "PENN": level}
        assert ctx.scratch.influence == want, (cash, order)
        assert ctx.scratch.political_spent == ({} if spent is None else {"NYC": spent, "PENN": spent})
        assert (nyc.cash, penn.cash) == ((cash - (spent or 0),) * 2)
    ctx.scratch.influence.clear()
    nyc.cash = penn.cash = 10_000
    ctx.scratch.bankrupt_at_start.add("NYC")
    political_influence(ctx)
    assert ctx.scratch.influence == {"PENN": 1} and nyc.cash == 10_000


def test_climate_drift_boundaries_e_5():
    """Ruling E-5: Good 15 %, Great 25 %, Boom 40 % chance of a Panic; from a Panic +1 at 50 %,
    +2 at 35 %; elsewhere +1 at 55 %, same at 30 %, −1 at 15 % (never below Depression); a Boom
    stays at 60 %."""
    from pbm.cr.engine.climate import next_rank

    assert [next_rank(r, p - 1e-9, 0.0) for r, p in ((6, 0.15), (7, 0.25), (8, 0.40))] == [0, 0, 0]
    assert [next_rank(r, p, 0.0) for r, p in ((6, 0.15), (7, 0.25))] == [7, 8]
    assert next_rank(8, 0.40, 0.0) == 8
    assert [next_rank(0, 0.0, v) for v in (0.0, 0.4999, 0.5, 0.8499, 0.85, 0.99)] == [1, 1, 2, 2, 0, 0]
    assert [next_rank(8, 0.99, v) for v in (0.5999, 0.6, 0.99)] == [8, 7, 7]
    assert [next_rank(4, 0.0, v) for v in (0.5499, 0.55, 0.8499, 0.85)] == [5, 4, 4, 3]
    assert [next_rank(1, 0.0, 0.9), next_rank(2, 0.0, 0.9), next_rank(5, 0.99, 0.9)] == [1, 1, 4]


def test_climate_change_is_the_new_climate_and_never_below_normal_in_the_civil_war_5_8(game):
    """§5: the change sets the *new* climate (the start climate stays for this turn's revenue,
    interest and building); §8 (ruling E-8): on turns 10–12 it cannot fall below Normal."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.climate import change_climate, next_rank
    from pbm.rng import generator

    s, g = game
    for turn in (9, 10, 11, 12, 13):
        for start in ("Panic", "Depression", "Good", "Boom"):
            ctx = _ctx(s, g)
            ctx.turn = turn
            ctx.climate = tables.climate(start)
            rng = generator(g.seed, turn, "climate")
            u, v = float(rng.random()), float(rng.random())
            rank = next_rank(ctx.climate.rank, u, v)
            if turn in (10, 11, 12):
                rank = max(rank, 4)
            change_climate(ctx)
            assert ctx.new_climate == tables.CLIMATES[rank] and ctx.climate == tables.climate(start)
            changes = _kinds(ctx, "climate")
            assert [e["data"] for e in changes] == ([] if rank == ctx.climate.rank else
                                                    [{"from": start, "to": tables.CLIMATES[rank].name}])


# --------------------------------------------------------------------------- checks: the conservation checks
def test_money_check_finds_each_unrecorded_or_impossible_balance(game):
    """The end-of-turn money check: every account's start plus its ledger is its end; no
    negative cash, loan or debt.  A clean turn has no problem; each corruption is one problem."""
    from pbm.cr.engine.checks import check_money

    s, g = game
    ctx = _ctx(s, g)
    ctx.start_balances = ctx.balances()
    ctx.pay("bank", "player:1", 500, "1", "x")
    ctx.pay("rr:NYC", "public", 200, "1", "x")
    assert check_money(ctx) == []
    ctx.players[2].cash += 1  # unrecorded
    assert len(check_money(ctx)) == 1
    ctx.players[2].cash -= 1
    ctx.railroads["PENN"].cash -= 1
    assert len(check_money(ctx)) == 1
    ctx.railroads["PENN"].cash += 1
    for attr in ("bond_debt", "loan_debt", "president_debt"):
        setattr(ctx.railroads["NYC"], attr, -1)
        assert len(check_money(ctx)) == 1, attr
        setattr(ctx.railroads["NYC"], attr, 0)
    ctx.players[3].loan = -1
    assert len(check_money(ctx)) == 1
    ctx.players[3].loan = 0
    ctx.start_balances["player:4"] -= 10  # a negative end balance is a problem besides the mismatch
    ctx.players[4].cash = -10
    ctx.start_balances["player:4"] = -10
    assert len(check_money(ctx)) == 1
    ctx.players[4].cash = 0
    ctx.start_balances["player:4"] = 0
    assert check_money(ctx) == []


def test_share_check_finds_each_count_that_does_not_add_up(game):
    """Issued = players' + public; authorized = issued + treasury; nothing negative; a merged
    road holds nothing."""
    from pbm.cr.engine.checks import check_shares

    s, g = game
    ctx = _ctx(s, g)
    assert check_shares(ctx) == []
    nyc = ctx.railroads["NYC"]
    h = nyc.holdings[0]
    h.short = -1
    assert len(check_shares(ctx)) == 1
    h.short = 0
    h.shares, nyc.shares_public = -1, nyc.shares_public + h.shares + 1
    assert len(check_shares(ctx)) == 1
    h.shares, nyc.shares_public = 26, nyc.shares_public - 27
    assert check_shares(ctx) == []
    nyc.shares_public += 1
    assert len(check_shares(ctx)) == 1
    nyc.shares_public -= 1
    nyc.treasury_shares += 1
    assert len(check_shares(ctx)) == 1
    nyc.treasury_shares = -1
    nyc.shares_authorized = nyc.shares_issued - 1
    assert len(check_shares(ctx)) == 1
    nyc.treasury_shares, nyc.shares_authorized = 74, nyc.shares_issued + 74
    assert check_shares(ctx) == []
    nyc.status = "merged"
    assert len(check_shares(ctx)) == 1


def test_officer_and_route_checks_find_each_inconsistency(game):
    """Officers: the director flag follows 10 %; the president and chairman are directors; a
    road with directors has a chairman; control slots match presidencies.  Routes: at most one
    unbuilt RoW; a line's route is owned by its road."""
    from pbm.cr.engine.checks import check_officers, check_routes

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    p1 = ctx.players[1]
    assert check_officers(ctx) == [] and check_routes(ctx) == []
    h = _give(ctx, "NYC", 1, 100)
    assert len(check_officers(ctx)) == 1  # 100 of 666 but not flagged
    h.director = True
    nyc.chairman_id = p1.id
    assert check_officers(ctx) == []
    nyc.president_id = p1.id
    assert len(check_officers(ctx)) == 1  # slots do not match
    p1.slot2_id = nyc.id
    assert check_officers(ctx) == []
    nyc.chairman_id = None
    assert len(check_officers(ctx)) == 1  # directors, no chairman
    nyc.chairman_id = ctx.players[2].id
    assert len(check_officers(ctx)) == 1  # chairman not a director
    nyc.chairman_id = p1.id
    penn.president_id = ctx.players[2].id
    ctx.players[2].slot1_id = penn.id
    assert len(check_officers(ctx)) == 1  # president not a director
    penn.president_id, ctx.players[2].slot1_id = None, None
    nyc.status = "merged"
    nyc.chairman_id = None
    h.shares = 0  # merged: flags are not checked, nor the chairman
    assert check_officers(ctx) == []
    nyc.status = "active"
    h.shares = 100
    nyc.chairman_id = p1.id
    ctx.routes["PA1"].owner_id = penn.id
    assert check_routes(ctx) == []
    ctx.routes["OH2"].owner_id = penn.id
    assert len(check_routes(ctx)) == 1
    ctx.routes["OH2"].owner_id = None
    ctx.routes["NYC"].owner_id = penn.id
    assert len(check_routes(ctx)) == 1


def test_bankruptcy_seizes_cash_stock_shorts_and_pcs_and_forgives_a_president_loan_3_5b(game):
    """§3.5B (ruling E-3.5B): the Bank seizes the cash, the stock (back to the public) and the
    PCs (back to the Bank at $5 a mile, no longer offered); short sales are cleared; the loan,
    the recall and a loan to a road he presides are forgiven; $2,000 fresh start."""
    from pbm.cr.engine.tycoons import bankrupt_tycoon

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    h = ctx.holding(p1, nyc)
    h.short = 30
    nyc.president_id, nyc.president_debt = p1.id, 4_000
    penn.president_id, penn.president_debt = p2.id, 3_000
    ls = _own(ctx, "LS", p1, paid=3_000, for_sale=True, ask=3_600, offered=0)
    mc = _own(ctx, "MC", p2, paid=1_000)
    p1.cash, p1.loan, p1.recall, p1.bankruptcies = 700, 90_000, 5_000, 1
    public = {code: rr.shares_public + ctx.shares(p1, rr) for code, rr in (("NYC", nyc), ("PENN", penn))}
    bankrupt_tycoon(ctx, p1)
    assert (p1.cash, p1.loan, p1.recall, p1.bankruptcies) == (2_000, 0, 0, 2)
    assert all(x.shares == 0 and x.short == 0 for x in p1.holdings)
    assert (nyc.shares_public, penn.shares_public) == (public["NYC"], public["PENN"])
    assert (nyc.president_debt, penn.president_debt) == (0, 3_000)
    assert (ls.status, ls.owner_id, ls.paid, ls.for_sale, ls.offered_turn, ls.asking_price) == (
        "bank", None, 0, False, None, 5 * 182)
    assert mc.status == "owned" and mc.owner_id == p2.id
    assert ctx.scratch.bankrupt_players == {1}
    assert _ledger(ctx, "14.3") == [("player:1", "bank", 700), ("bank", "player:1", 2_000)]


def test_recall_sells_pcs_at_their_appraisal_only_while_cash_lacks_3_5c(game):
    """§3.5C: with no stock left, an unpaid recall is met by selling PCs to the Bank at their
    appraised value (what was paid, at most $20 a mile), one by one until the cash covers it."""
    from pbm.cr.engine.tycoons import compel_recall

    s, g = game
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    for x in p1.holdings:
        ctx.railroad_by_id[x.railroad_id].shares_public += x.shares
        x.shares = 0
    ls = _own(ctx, "LS", p1, paid=5_000)  # 182 miles: appraised at $3,640
    mc = _own(ctx, "MC", p1, paid=1_000)
    p1.cash, p1.loan, p1.recall = 100, 10_000, 3_000
    compel_recall(ctx, p1)
    assert ls.status == "bank" and mc.status == "owned" and mc.owner_id == p1.id  # LS sold first, enough
    assert (p1.cash, p1.loan, p1.recall) == (100 + 3_640 - 3_000, 7_000, 0)
    assert [e["amount"] for e in _kinds(ctx, "forced-sale")] == [3_640]
    assert _ledger(ctx, "14.4") == [("bank", "player:1", 3_640), ("player:1", "bank", 3_000)]
    assert [e["amount"] for e in _kinds(ctx, "recall-paid")] == [3_000]
    p1.recall = 0
    compel_recall(ctx, p1)
    assert p1.loan == 7_000 and mc.status == "owned"


def test_settlement_rounds_each_trade_down_and_reports_it_7_1_6_2b(game):
    """App. A 7.1, §6.3G, §6.2B: each trade's proceeds and cost are rounded down (§1.0); sales
    (owned and short) come in, the short is covered at the end price and the purchase paid;
    the profit or loss of a short is told; tycoons settle in player order."""
    from pbm.cr.engine.context import Trade
    from pbm.cr.engine.tycoons import settle_stock_trades

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    p1.cash, p2.cash = 1_000, 1_000
    ctx.scratch.trades = [
        Trade("player:2", "NYC", bought=3, price=10.99, cover_price=12.5),  # $32.97 → 32
        Trade("player:1", "NYC", sold=5, shorted=2, price=10.99, cover_price=9.99),  # 76.93 → 76; cover 19.98 → 19
        Trade("player:1", "PENN", bought=1, shorted=3, price=7.5, cover_price=8.5),  # buy 7; 22.5 → 22; cover 25.5 → 25
    ]
    settle_stock_trades(ctx)
    assert p2.cash == 1_000 - 32
    assert p1.cash == 1_000 + 76 + 22 - 19 - 7 - 25
    assert (p1.loan, p2.loan) == (0, 0) and not _kinds(ctx, "emergency-loan")
    assert [(e["player_number"], e["railroad"], e["amount"]) for e in _kinds(ctx, "short-covered")] == [
        (1, "NYC", 21 - 19), (1, "PENN", 22 - 25)]
    assert [(e["player_number"], e["data"]) for e in _kinds(ctx, "stock-trade")] == [
        (1, {"bought": 0, "sold": 5, "short": 2, "price": 10.99}),
        (1, {"bought": 1, "sold": 0, "short": 3, "price": 7.5}),
        (2, {"bought": 3, "sold": 0, "short": 0, "price": 10.99})]
    assert _ledger(ctx, "7.1") == [("public", "player:1", 76), ("public", "player:1", 22),
                                   ("player:1", "public", 19), ("player:1", "public", 25),
                                   ("player:1", "public", 7), ("player:2", "public", 32)]


def test_a_short_covered_above_its_proceeds_is_lent_what_the_cash_lacks_6_2b(game):
    """§6.2B with App. A 7.1: a short sale covered at a higher end price costs more than it
    brought; the Bank lends the tycoon exactly what his cash lacks (step 7.1)."""
    from pbm.cr.engine.context import Trade
    from pbm.cr.engine.tycoons import settle_stock_trades

    s, g = game
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    p1.cash, p1.loan = 0, 0
    ctx.scratch.trades = [Trade("player:1", "NYC", shorted=10, price=10.0, cover_price=20.0)]
    settle_stock_trades(ctx)
    assert (p1.cash, p1.loan) == (0, 100)
    assert _ledger(ctx, "7.1") == [("public", "player:1", 100), ("bank", "player:1", 100),
                                   ("player:1", "public", 200)]
    assert [e["amount"] for e in _kinds(ctx, "short-covered")] == [-100]


def test_set_credit_reads_the_net_worth_when_not_given_3_5a(game):
    """§3.5A (step 14.4): the credit limit is the tycoon's net worth (cash + stock + PCs − loan)
    times the new climate's margin."""
    from pbm.cr.engine.tycoons import set_credit

    s, g = game
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    p1.cash, p1.loan = 10_000, 0
    set_credit(ctx, p1)
    worth = 10_000 + 26 * 20 + 54 * 15  # 26 NYC at $20, 54 PENN at $15
    assert (p1.net_worth, p1.credit_limit, p1.recall) == (11_330, 7_931, 0) and worth == 11_330


def _only_shares(ctx, player, shares):
    """Give ``player`` exactly ``shares`` ({code: n}) and nothing else."""
    for code, rr in ctx.railroads.items():
        h = ctx.holding(player, rr)
        rr.shares_public += h.shares - shares.get(code, 0)
        h.shares = shares.get(code, 0)


def test_recall_edges_a_dollar_due_exact_cash_one_share_cheap_stock_3_5c(game):
    """§3.5C: a recall of $1 is paid; cash that exactly covers the recall sells nothing; a
    holding of one share is sold; the shares sold are just enough (⌈need ÷ price⌉, at least 1),
    also for a stock under $1; a worthless stock goes whole; only the tycoon's own PCs are
    sold, and none once the cash covers the recall; a recall with no loan left is dropped."""
    from pbm.cr.engine.tycoons import compel_recall

    s, g = game
    ctx = _ctx(s, g)
    p1, p2, p3, p4 = (ctx.players[n] for n in (1, 2, 3, 4))
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    p1.cash, p1.loan, p1.recall = 100, 1_000, 1
    compel_recall(ctx, p1)
    assert (p1.cash, p1.loan, p1.recall) == (99, 999, 0)
    p1.cash, p1.loan, p1.recall = 1_200, 1_500, 1_200
    compel_recall(ctx, p1)
    assert (p1.cash, p1.loan) == (0, 300) and not _kinds(ctx, "forced-sale")
    p1.cash, p1.loan, p1.recall = 0, 0, 5
    compel_recall(ctx, p1)
    assert p1.recall == 0 and not _kinds(ctx, "forced-sale")
    # one share of NYC ($20), nothing else; $19 in cash and $20 due: that share is sold
    _only_shares(ctx, p2, {"NYC": 1})
    p2.cash, p2.loan, p2.recall = 19, 5_000, 20
    compel_recall(ctx, p2)
    assert ctx.shares(p2, nyc) == 0 and (p2.cash, p2.loan) == (19, 4_980)
    # need $1 at $20 a share: one share, not two
    _only_shares(ctx, p3, {"NYC": 10})
    p3.cash, p3.loan, p3.recall = 99, 5_000, 100
    compel_recall(ctx, p3)
    assert ctx.shares(p3, nyc) == 9 and (p3.cash, p3.loan) == (19, 4_900)
    # PENN at $0.50: $10 needs 20 shares; at $0 all go for nothing
    _only_shares(ctx, p4, {"PENN": 54})
    penn.price = 0.5
    p4.cash, p4.loan, p4.recall = 0, 5_000, 10
    compel_recall(ctx, p4)
    assert ctx.shares(p4, penn) == 34 and (p4.cash, p4.loan) == (0, 4_990)
    penn.price = 0.0
    p4.recall = 10
    compel_recall(ctx, p4)
    assert ctx.shares(p4, penn) == 0 and p4.loan == 4_990


def test_recall_sells_only_the_tycoons_own_pcs_and_none_once_covered_3_5c(game):
    """§3.5C: the forced sale of PCs takes only the tycoon's own, and none when his cash
    already covers the recall."""
    from pbm.cr.engine.tycoons import compel_recall

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    _only_shares(ctx, p1, {})
    ls = _own(ctx, "LS", p2, paid=1_000)
    mc = _own(ctx, "MC", p1, paid=1_000)
    p1.cash, p1.loan, p1.recall = 500, 5_000, 500
    compel_recall(ctx, p1)
    assert ls.owner_id == p2.id and mc.owner_id == p1.id and (p1.cash, p1.loan) == (0, 4_500)
    p1.cash, p1.recall = 100, 900
    compel_recall(ctx, p1)
    assert ls.owner_id == p2.id and ls.status == "owned" and mc.status == "bank"
    assert (p1.cash, p1.loan) == (100 + 1_000 - 900, 3_600)


# --------------------------------------------------------------------------- construction survivors (h-mut-a)
def test_double_track_a_road_without_orders_or_lacking_cash_does_not_stop_the_next_4_15(game):
    """§4.15: double track is paid out of cash only; an order the road cannot afford is told
    and skipped, and the road's next order (a cheaper line) is still carried out; a road with
    no double-track order does not stop the next road's."""
    from pbm.cr.engine.construction import double_track
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.rr_orders["NYC"] = RailroadOrders("NYC")
    penn.cash = 100_000
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", double_track=["PENN"])
    double_track(ctx)
    assert [line.double_tracked for line in penn.lines] == [True] and penn.cash == 100_000 - 22_500
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.routes["B&A"].owner_id = nyc.id
    ctx.routes_changed()
    from pbm.cr.engine.construction import _add_line
    _add_line(ctx, nyc, ctx.routes["B&A"])  # 201 miles: $15,075; NYC's own 148: $11,100
    nyc.cash = 12_000
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", double_track=["B&A", "NYC"])
    ctx.rr_orders["PENN"] = RailroadOrders("PENN")
    double_track(ctx)
    assert {ctx.route_by_id[x.route_id].code: x.double_tracked for x in nyc.lines} == {"NYC": True, "B&A": False}
    assert nyc.cash == 900
    assert [(e["railroad"], e["amount"]) for e in _kinds(ctx, "double-track-unaffordable")] == [("NYC", 15_075)]


class _EdgeDraws:
    """A stand-in for a turn's random generator (numpy's ``integers`` signature): every draw is
    the lowest value of its range, or the highest; the purposes asked for are recorded."""

    def __init__(self, high: bool, purposes: list):
        self.high, self.purposes = high, purposes

    def __call__(self, purpose):
        self.purposes.append(purpose)
        return self

    def integers(self, low, high=None):
        if high is None:
            low, high = 0, low
        return high - 1 if self.high else low


def test_incorporation_draws_a_start_price_of_10_to_18_and_an_efficiency_of_85_to_95_4_3a1_4_5a(game):
    """§4.3A1: "The initial stock price is $10 to $18 per share"; §4.5A: a new railroad begins
    with good efficiency (85–95, docs/cr/formulas.md), below the maximum of §4.5C; §4.17: "it
    begins with the best locomotive available"; §4.18: "with all technologies currently
    available except Grand Station" (turn 9: the Hercules, B and C).  The first
    railroad of a game without any is number 1; a road founded this turn reached no region at
    the start of it, and has paid no dividend."""
    from pbm.cr.engine.construction import incorporate_private_companies
    from pbm.cr.orders import Orders, PCAction
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    s, g = game
    for high, code, price, efficiency, number, turn in ((False, "B&A", 10.0, 85, 3, 1), (True, "LS", 18.0, 95, 4, 9)):
        ctx = _ctx(s, g)
        ctx.turn = turn
        purposes: list = []
        ctx.rng = _EdgeDraws(high, purposes)
        _own(ctx, code, ctx.players[1], paid=800, for_sale=True, ask=2_000, offered=turn - 1)  # unsold
        ctx.orders[1] = Orders(pc_actions=[PCAction(code, "incorporate")])
        incorporate_private_companies(ctx)
        rr = ctx.railroads[code]
        assert (rr.price, rr.efficiency, rr.number) == (price, efficiency, number)
        assert purposes == [f"incorporate-{code}"] and rr.regions_at_start == []
        # §4.17, §4.18: the best engine and every technology available but the Grand Station
        assert (rr.locomotive, rr.technologies) == ((1, []) if turn == 1 else (3, ["B", "C"]))
        assert rr.grand_station is False and rr.dividend == 0  # no Grand Station, no dividend paid yet
        new = 5 * ctx.routes[code].miles  # B&A 201 miles: 1,005 shares, 100 to the treasury (rounded down)
        assert (rr.treasury_shares, rr.shares_issued, ctx.shares(ctx.players[1], rr)) == (
            new // 10, new - new // 10, new // 5)
        assert rr.cash == int((new - new // 10 - new // 5) * price * 0.9)  # 70 % brokered at 10 % under
        pc = ctx.pcs[code]  # §10.1B3: its offer for sale ends with it
        assert (pc.status, pc.for_sale, pc.asking_price, pc.owner_id) == ("incorporated", False, None, None)
    empty = build_game(s, TINY_TOWNS, TINY_ROUTES, [], name="empty")
    ctx = _ctx(s, empty)
    _own(ctx, "LS", ctx.players[2], paid=900)
    ctx.orders[2] = Orders(pc_actions=[PCAction("LS", "incorporate")])
    incorporate_private_companies(ctx)
    assert ctx.railroads["LS"].number == 1


def test_overspend_is_split_in_whole_dollars_among_directors_plus_one_4_6c():
    """§4.6C: "The excess is divided by the number of Directors plus 1" — $100 a mile over on
    100 miles with 2 directors is $3,333 each (whole dollars, §1.0), $3,334 left to the road's
    builders; nothing over, nothing to split; a negative excess is none."""
    from pbm.cr.engine.construction import overspend_split

    assert overspend_split(100, 100, 2) == (3_333, 3_334)
    assert overspend_split(90, 100, 2) == (3_000, 3_000)  # the rulebook's $30 a mile each
    assert overspend_split(0, 100, 2) == (0, 0) and overspend_split(-50, 100, 2) == (0, 0)


def test_a_land_grant_is_added_to_the_unsold_land_when_the_row_is_built_7c(game):
    """§7C: "When the route is built, the land grant is added to any other unsold land the
    railroad owns" (81 sections unsold + PA1's grant of 45 = 126); the RoW's grant is then
    used up."""
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.cash, nyc.land = 10**6, 81
    pa1 = ctx.routes["PA1"]
    pa1.owner_id, pa1.land_grant = nyc.id, 45
    ctx.routes_changed()
    ctx.scratch.start_row["NYC"] = "PA1"
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", build_per_mile=300)
    build_or_abandon_rows(ctx)
    assert [e["data"]["row"] for e in _kinds(ctx, "row-built")] == ["PA1"]
    assert (nyc.land, pa1.land_grant) == (126, 0)


def test_director_bonus_loan_adds_to_a_directors_loan_and_a_bonus_rounded_to_none_still_brokers_4_3b(game):
    """§4.3B: the Director bonus "is paid for by an automatic loan from the Bank": it adds to a
    loan the director already has ($500 + ⌊50 × $21 ÷ 2⌋ = $1,025).  A bonus that rounds down to
    no share (§1.0; one mile: 5 new shares, 10 % of them is none) gives the directors nothing,
    and the new stock is still brokered to the Public."""
    from pbm.cr.engine.construction import issue_new_stock

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    p1, p2 = ctx.players[1], ctx.players[2]
    p1.loan, p2.loan = 500, 0
    ctx.scratch.directors_at_start["NYC"] = [1, 2]
    ctx.scratch.start_price["NYC"] = 21.0
    issue_new_stock(ctx, nyc, 100, "9.1", "test")
    assert (p1.loan, p2.loan) == (500 + 525, 525)
    cash, public, held = nyc.cash, nyc.shares_public, ctx.shares(p1, nyc)
    issue_new_stock(ctx, nyc, 1, "9.1", "test")
    assert [e["data"] for e in _kinds(ctx, "stock-issued")][-1] == {
        "new": 5, "treasury": 0, "owner": 0, "director_each": 0, "public": 5}
    assert (nyc.shares_public, ctx.shares(p1, nyc), p1.loan) == (public + 5, held, 1_025)
    assert nyc.cash == cash + 94  # ⌊5 × $21 × 0.9⌋


def test_a_road_that_abandons_or_lost_its_row_does_not_stop_the_next_from_building_4_6_10_2e(game):
    """§4.6, §10.2E3: a road that abandons its RoW (it goes back to the map) or whose start-of-
    turn RoW is no longer its own builds nothing, and the next road still builds its own; the
    line built is new this turn and single-tracked until double-tracked (§4.15)."""
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import RailroadOrders

    s, g = game
    for nyc_row_owner, nyc_orders in (("NYC", RailroadOrders("NYC", abandon=True)),
                                      ("PENN", RailroadOrders("NYC", build_per_mile=300))):
        ctx = _ctx(s, g)
        ctx.turn = 3
        nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
        nyc.cash = penn.cash = 10**6
        ctx.routes["NY1"].owner_id = ctx.railroads[nyc_row_owner].id
        ctx.routes["OH2"].owner_id = penn.id
        ctx.routes_changed()
        ctx.scratch.start_row.update({"NYC": "NY1", "PENN": "OH2"})
        ctx.rr_orders["NYC"] = nyc_orders
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", build_per_mile=300)
        build_or_abandon_rows(ctx)
        assert [e["data"]["row"] for e in _kinds(ctx, "row-built")] == ["OH2"]
        assert ctx.routes["NY1"].owner_id == (None if nyc_row_owner == "NYC" else penn.id)
        assert [ctx.route_by_id[x.route_id].code for x in nyc.lines] == ["NYC"]
        built = [x for x in penn.lines if ctx.route_by_id[x.route_id].code == "OH2"]
        assert [(x.built_turn, x.double_tracked) for x in built] == [(3, False)]


def test_no_building_by_a_road_bankrupt_at_the_start_nor_in_the_civil_war_and_the_next_road_goes_on_4_11b_8(game):
    """§4.11B: "A bankrupt railroad cannot build track" — a road bankrupt at the start of the
    turn builds nothing even if its status is active again, and the next road still builds;
    §8 1): "No railroad may build a RoW during the Civil War turns" (turn 11), each road is
    told, and a later road may still abandon its RoW (abandoning is not building)."""
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import RailroadOrders

    s, g = game
    for turn in (3, 11):
        ctx = _ctx(s, g)
        ctx.turn = turn
        nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
        nyc.cash = penn.cash = 10**6
        ctx.routes["NY1"].owner_id = nyc.id
        ctx.routes["OH2"].owner_id = penn.id
        ctx.routes_changed()
        ctx.scratch.start_row.update({"NYC": "NY1", "PENN": "OH2"})
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", build_per_mile=300)
        if turn == 3:
            ctx.scratch.bankrupt_at_start.add("NYC")
            ctx.rr_orders["PENN"] = RailroadOrders("PENN", build_per_mile=300)
        else:
            ctx.rr_orders["PENN"] = RailroadOrders("PENN", abandon=True)
        build_or_abandon_rows(ctx)
        assert ctx.routes["NY1"].owner_id == nyc.id and [ctx.route_by_id[x.route_id].code for x in nyc.lines] == ["NYC"]
        assert [e["railroad"] for e in _kinds(ctx, "no-building")] == ["NYC"]
        if turn == 3:
            assert [e["data"]["row"] for e in _kinds(ctx, "row-built")] == ["OH2"]
        else:
            assert not _kinds(ctx, "row-built") and ctx.routes["OH2"].owner_id is None
            assert [e["railroad"] for e in _kinds(ctx, "row-abandoned")] == ["PENN"]


# --------------------------------------------------------------------------- rights survivors (h-mut-a)
def test_the_five_cities_a_road_may_not_run_through_whatever_their_spelling_4_8_2(game):
    """§4.8.2: "No Railroad may have more than ONE route linking to Chicago, St. Louis, Memphis,
    Vicksburg, or New Orleans" — the map's list, matched whatever the spelling of "St." or
    "Saint" and the case."""
    from pbm.cr.engine.rights import _norm_city, is_no_through, no_through_cities

    assert no_through_cities() == {"chicago", "st louis", "memphis", "vicksburg", "new orleans"}
    assert _norm_city(" Saint  Louis ") == _norm_city("St. Louis") == _norm_city("ST LOUIS") == "st louis"
    s, g = game
    ctx = _ctx(s, g)
    ids = {t.name: i for i, t in ctx.towns.items()}
    assert is_no_through(ctx, ids["Chicago"]) and is_no_through(ctx, ids["St. Louis"])
    assert not is_no_through(ctx, ids["Indianapolis"])


def test_a_road_without_bids_or_that_may_not_bid_or_bids_only_an_alternate_does_not_stop_the_next_4_7_10_2g(game):
    """§4.7, §10.2G: each road's bid stands on its own — a road that bids for nothing, one
    that may not bid (it holds an unbuilt RoW, §4.7A), or one whose first choice is blank (it
    bids with its alternate in the second round) does not stop the next road's first choice."""
    from pbm.cr.engine.rights import rights_of_way
    from pbm.cr.orders import RailroadOrders

    s, g = game
    for nyc_orders, nyc_gets in ((RailroadOrders("NYC"), None),
                                 (RailroadOrders("NYC", row_first="NY1"), None),  # holds PA1
                                 (RailroadOrders("NYC", row_first=None, row_alternate="NY1"), "NY1")):
        ctx = _ctx(s, g)
        nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
        if nyc_orders.row_first == "NY1":
            ctx.routes["PA1"].owner_id = nyc.id
            ctx.routes_changed()
        ctx.rr_orders["NYC"] = nyc_orders
        ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first="OH2")
        rights_of_way(ctx)
        assert ctx.routes["OH2"].owner_id == penn.id
        assert ctx.routes["NY1"].owner_id == (nyc.id if nyc_gets else None)
        assert [e["data"]["row"] for e in _kinds(ctx, "row-acquired")] == ["OH2"] + ([nyc_gets] if nyc_gets else [])
        assert [e["railroad"] for e in _kinds(ctx, "row-bid-void")] == (["NYC"] if nyc_orders.row_first else [])


def test_row_bids_written_in_lower_case_are_awarded_in_route_number_order_4_7_10_2g(game):
    """§10.2G: a bid may name the RoW in lower case ("pa1") and wins it like "PA1"; the RoWs
    won in a round are awarded (and reported) by route number, PA1 (11) before OH2 (13)."""
    from pbm.cr.engine.rights import rights_of_way
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", row_first="pa1")
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first="oh2")
    rights_of_way(ctx)
    assert (ctx.routes["PA1"].owner_id, ctx.routes["OH2"].owner_id) == (nyc.id, penn.id)
    assert [(e["railroad"], e["data"]["row"]) for e in _kinds(ctx, "row-acquired")] == [("NYC", "PA1"),
                                                                                        ("PENN", "OH2")]


class _Draws:
    """A stand-in for a turn's random generator whose ``random()`` draws are given in order."""

    def __init__(self, draws):
        self.draws = list(draws)

    def __call__(self, purpose):
        return self

    def random(self):
        return self.draws.pop(0)


def test_row_contest_and_land_grant_count_no_influence_as_level_0_4_7g_4_9d_7b(game):
    """§4.7G: a road with political influence (level 1) beats a road that bought none, whatever
    the tie-break draw; §4.9D, §7B (ruling E-7): the land grant's size is 40 % of a section a
    mile without influence (OH2, 290 miles: 116) and a section a mile from level 5 (NY2, 203)."""
    from pbm.cr.engine.rights import rights_of_way
    from pbm.cr.orders import RailroadOrders

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    ctx.scratch.influence = {"NYC": 1}
    ctx.rng = _Draws([0.9, 0.1, 0.99])  # PENN's tie-break draw is the lower
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", row_first="PA1")
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first="PA1")
    rights_of_way(ctx)
    assert ctx.routes["PA1"].owner_id == nyc.id
    ctx = _ctx(s, g)
    ctx.scratch.influence = {"NYC": 5}
    ctx.rng = _Draws([0.0] * 4)  # a grant is then certain on both
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", row_first="NY2")
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", row_first="OH2")
    rights_of_way(ctx)
    assert (ctx.routes["NY2"].land_grant, ctx.routes["OH2"].land_grant) == (203, 116)
    assert [e["data"]["grant"] for e in _kinds(ctx, "row-acquired")] == [203, 116]


def test_land_grant_between_two_one_point_towns_is_almost_certain_98_percent_7b(game):
    """§7B: "it is almost certain that land grants will be awarded for a route connecting two
    one-point towns" (ruling E-7: 98 %, never certain): a draw of 0.979 gets the grant, 0.98 none."""
    from pbm.cr.engine.rights import land_grant

    s, g = game
    ctx = _ctx(s, g)
    in1 = ctx.routes["IN1"]  # Cincinnati – Indianapolis, 110 miles
    ctx.towns[in1.a_id].size = ctx.towns[in1.b_id].size = 1
    assert land_grant(ctx, in1, 0, 0.979) == 44
    assert land_grant(ctx, in1, 0, 0.98) == 0 == land_grant(ctx, in1, 0, 0.999)


def test_the_last_section_of_land_sells_too_7d(game):
    """§7D: "Unsold land from land grants is automatically offered for sale each turn" (ruling
    E-7D: at least one section sells) — a road with one section left sells it ($40 in a Normal
    climate)."""
    from pbm.cr.engine.rights import land_sales

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.land, cash = 1, nyc.cash
    land_sales(ctx)
    assert (nyc.land, nyc.cash) == (0, cash + 40)

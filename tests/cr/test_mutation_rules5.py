"""Continental Rails II rules of the engine modules `elections`, `privates` and `tables` that
mutation testing found untested (issue 31, part 2, helper h-mut-a, 2026-11-28).

Each test pins one rule's outcome (a figure, a limit, a boundary) so that changing the rule in
the engine makes it fail; each names its rule section of the rulebook
(/work/shared/seeds/continental-rails-II-rules.txt) or the ruling it follows.
``scripts/mutation_cr.py`` reruns the mutation tests; the scores and the equivalent mutants that
survive are in docs/cr/rules-map.md, "Mutation testing".  All on the tiny hand-built game of
``tests/cr/helpers.py`` (SQLite), each well under a second.
"""

from __future__ import annotations

import pytest

from pbm.db import session_scope
from tests.cr.helpers import tiny_game
from tests.cr.test_mutation_rules2 import _give, _preside  # shares and presidents set by hand
from tests.cr.test_mutation_rules4 import _ctx, _kinds  # the turn begun, its events of a kind


@pytest.fixture
def game(sqlite_url):
    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)


class _Draws:
    """A stand-in for a turn's random generator: ``random()`` gives the listed draws in turn;
    the purposes asked for are recorded."""

    def __init__(self, draws, purposes=None):
        self.draws, self.purposes = list(draws), purposes if purposes is not None else []

    def __call__(self, purpose):
        self.purposes.append(purpose)
        return self

    def random(self):
        return self.draws.pop(0)


# --------------------------------------------------------------------------- privates: §2.4C appearance
def test_pcs_appear_by_era_with_a_chance_rising_15_points_a_turn_up_to_90_percent_2_4c(game):
    """§2.4C: PCs become eligible by era and appear at random, with a chance that rises each
    turn a PC did not appear (ruling E-2.4C: era 1 from turn 1, era 2 from turn 5, era 3 from
    turn 13; 25 % + 15 % a turn waited, at most 90 %); §2.4D: a new PC is offered by the Bank at
    $5 a mile.  One draw of the turn's `pc-appear` stream a PC, in route-number order, whether or
    not the PC is waiting (so that one PC's fate does not shift another's)."""
    from pbm.cr.engine.privates import private_companies_appear

    s, g = game
    ctx = _ctx(s, g)
    ctx.turn = 4  # for next turn, 5: the first of era 2
    route = {r.code: r for r in ctx.route_by_id.values()}
    pcs = ctx.pcs  # NYC, PENN (incorporated), B&A, ERIE, NYNH, LS, MC, P&FW in route-number order
    setup = {"B&A": (1, 0), "ERIE": (1, 0), "NYNH": (2, 2), "LS": (2, 5), "MC": (3, 0), "P&FW": (2, 5)}
    for code, (era, waited) in setup.items():
        pcs[code].status, pcs[code].eligible_turns, pcs[code].for_sale = "unavailable", waited, True
        pcs[code].asking_price = None
        route[code].era = era
    draws = [0.0, 0.0, 0.2499, 0.25, 0.5499, 0.95, 0.0, 0.8999]  # NYC, PENN: incorporated
    purposes: list = []
    ctx.rng = _Draws(draws, purposes)
    private_companies_appear(ctx)
    assert purposes == ["pc-appear"]
    appeared = {c for c, pc in pcs.items() if pc.status == "bank"}
    assert appeared == {"B&A", "NYNH", "P&FW"}  # 25 %; 25 + 2 × 15 %; 90 % (not 100 %)
    for code in appeared:
        pc = pcs[code]
        assert (pc.appeared_turn, pc.asking_price, pc.for_sale) == (5, 5 * route[code].miles, False)
    assert pcs["B&A"].asking_price == 1_005 and pcs["B&A"].eligible_turns == 0
    assert {c: pcs[c].eligible_turns for c in ("ERIE", "LS", "MC")} == {"ERIE": 1, "LS": 6, "MC": 0}
    assert pcs["MC"].status == "unavailable"  # era 3 waits for turn 13 even with a draw of 0
    assert [e["data"]["pcs"] for e in _kinds(ctx, "pcs-appear")] == [["B&A", "NYNH", "P&FW"]]

    ctx = _ctx(s, g)  # a fresh turn: the rows as stored
    ctx.turn = 3  # for next turn, 4: era 2 not yet
    route = {r.code: r for r in ctx.route_by_id.values()}
    pcs = ctx.pcs
    pcs["B&A"].status = "owned"  # not waiting: its draw is taken all the same
    for code, era in (("ERIE", 1), ("LS", 2), ("MC", 3)):
        pcs[code].status, pcs[code].eligible_turns = "unavailable", 0
        route[code].era = era
    ctx.rng = _Draws([0.0, 0.0, 0.9, 0.0, 0.0, 0.0, 0.0, 0.0])
    private_companies_appear(ctx)
    assert pcs["ERIE"].status == "bank" and pcs["ERIE"].appeared_turn == 4
    assert pcs["LS"].status == "unavailable" and pcs["MC"].status == "unavailable"
    assert (pcs["LS"].eligible_turns, pcs["MC"].eligible_turns) == (0, 0)  # not yet eligible: not waiting
    assert [e["data"]["pcs"] for e in _kinds(ctx, "pcs-appear")] == [["ERIE"]]
    ctx.events.clear()
    pcs["ERIE"].status = "owned"
    ctx.rng = _Draws([0.0] * 8)
    private_companies_appear(ctx)
    assert _kinds(ctx, "pcs-appear") == []  # nothing waiting, nothing told


# --------------------------------------------------------------------------- elections: §4.4D looting


@pytest.mark.parametrize("cash, loot", [(3_000, 1_500), (100_000, 2_500), (-40, 0), (0, 0)])
def test_looting_takes_the_draw_times_the_cancelled_debt_up_to_the_cash_4_4d(game, cash, loot):
    """§4.4D: "the Railroad's cash may be reduced up to the amount of the cancelled debt as other
    (non-player) tycoons loot the treasury" (docs/cr/formulas.md: U(0,1) × min(debt, cash), the
    turn's stream `looting-CODE`, rounded down): with a draw of ½ a debt of $5,000 loots $1,500
    of $3,000 cash and $2,500 of $100,000; a road without cash (or below $0) loses nothing.  The
    loot goes to the Public at step 15; the debt is gone either way."""
    from pbm.cr.engine.elections import cancel_president_debt

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.president_debt, nyc.cash = 5_000, cash
    purposes: list = []
    ctx.rng = _Draws([0.5], purposes)
    cancel_president_debt(ctx, nyc)
    assert purposes == ["looting-NYC"]
    assert (nyc.president_debt, nyc.cash) == (0, cash - loot)
    assert [(e["source"], e["target"], e["amount"], e["step"]) for e in ctx.ledger] == (
        [("rr:NYC", "public", loot, "15")] if loot else [])
    assert [e["amount"] for e in _kinds(ctx, "president-debt-cancelled", "NYC")] == [5_000]


def test_the_debt_to_the_president_is_cancelled_only_on_a_change_of_president_4_4d_4_14c(game):
    """§4.4D: "The debt to the President is cancelled ... if there is any change in Presidents at
    the end of the turn": a president re-elected keeps the debt owed to him; a road whose
    president resigns (an anonymous president follows, §4.14C) loses it and is looted."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    _give(ctx, "NYC", 1, 100)
    _give(ctx, "PENN", 2, 300)
    _preside(ctx, "NYC", 1, 1)
    _preside(ctx, "PENN", 2, 1)
    nyc.president_debt = penn.president_debt = 1_000
    nyc.cash = penn.cash = 10_000
    ctx.orders[2] = Orders(resign=["PENN"])
    ctx.rng = _Draws([0.25])
    elections(ctx)
    assert (nyc.president_id, nyc.president_debt, nyc.cash) == (ctx.players[1].id, 1_000, 10_000)
    assert (penn.president_id, penn.president_debt, penn.cash) == (None, 0, 9_750)
    assert [e["railroad"] for e in _kinds(ctx, "president-debt-cancelled")] == ["PENN"]


# --------------------------------------------------------------------------- elections: §10.1D control slots
@pytest.fixture
def three_roads(sqlite_url):
    """The tiny map with a third railroad, the B&A (Boston–Albany, 201 miles)."""
    from tests.cr.helpers import TINY_ROUTES, TINY_TOWNS, build_game

    with session_scope(sqlite_url) as s:
        yield s, build_game(s, TINY_TOWNS, TINY_ROUTES, [{"code": "NYC", "price": 20}, {"code": "PENN", "price": 15},
                                                        {"code": "B&A", "price": 12}], bank_pcs=["LS", "MC"])


def test_a_slot_whose_road_merged_away_holds_the_survivor_4_13_4_4f_10_1d(three_roads):
    """§4.13, §4.4F: a merger joins two roads "controlled by the same President", who presides the
    survivor; the slot that held the merged road holds the survivor (§10.1D: "If you do not specify
    ... we assume you intend to continue controlling the same railroad(s)").  So a tycoon who
    presided the NYC (slot 1) and the B&A (slot 2), merged into the NYC this turn, and who seeks
    the PENN in slot 1 and wins it, keeps the NYC in slot 2."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = three_roads
    ctx = _ctx(s, g)
    nyc, penn, ba, p1 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.railroads["B&A"], ctx.players[1]
    _give(ctx, "NYC", 1, 200)
    _give(ctx, "PENN", 1, 200)
    _preside(ctx, "NYC", 1, 1)
    _preside(ctx, "B&A", 1, 2)
    ba.status, ba.president_id = "merged", None
    ctx.scratch.merged_into["B&A"] = "NYC"
    ctx.orders[1] = Orders(control=["PENN", None])
    elections(ctx)
    assert (penn.president_id, nyc.president_id) == (p1.id, p1.id)
    assert (p1.slot1_id, p1.slot2_id) == (penn.id, nyc.id)
    assert [e["railroad"] for e in _kinds(ctx, "new-president")] == ["PENN"]


@pytest.mark.parametrize("slot", [1, 2])
def test_the_owner_seeking_his_new_road_in_a_slot_needs_no_free_slot_10_1b3d_10_1d(game, slot):
    """§10.1B3d: "You can be first President by asking to control this new RR"; §10.1D2: "If you
    incorporate a PC, you can circle that PC for one of your two choices."  An owner who names
    the new road in a slot himself already seeks it there: with his other slot held he is not
    told that no slot was free, and he presides both, in the slots he named."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn, p2 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.players[2]
    _give(ctx, "NYC", 2, 100)
    _give(ctx, "PENN", 2, 200)
    _preside(ctx, "NYC", 2, 3 - slot)
    penn.president_id = None
    ctx.scratch.president_wants["PENN"] = [2]
    ctx.orders[2] = Orders(control=["PENN", None] if slot == 1 else [None, "PENN"])
    elections(ctx)
    assert _kinds(ctx, "control-void") == []
    assert (penn.president_id, nyc.president_id) == (p2.id, p2.id)
    assert (p2.slot1_id, p2.slot2_id) == ((penn.id, nyc.id) if slot == 1 else (nyc.id, penn.id))


def test_the_owner_of_a_new_road_takes_the_empty_slot_and_keeps_the_held_one_10_1b3d_10_1d(three_roads):
    """§10.1B3d, §10.1D1 ("You may seek to be elected President of TWO Railroads"): the owner
    who asked to preside over his new road seeks it in his empty slot, never in the slot of the
    road he presides (which he keeps); with both slots held he is told that no slot was free and
    keeps both."""
    from pbm.cr.engine.elections import elections

    s, g = three_roads
    ctx = _ctx(s, g)
    nyc, penn, ba, p2, p3 = (ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.railroads["B&A"], ctx.players[2],
                             ctx.players[3])
    _give(ctx, "NYC", 2, 100)
    _give(ctx, "PENN", 2, 200)
    _preside(ctx, "NYC", 2, 1)
    _give(ctx, "B&A", 3, 100)
    _give(ctx, "PENN", 3, 150)
    _give(ctx, "NYC", 3, 70)
    _preside(ctx, "B&A", 3, 1)
    _preside(ctx, "NYC", 3, 2)  # (as if he presided it: he is outvoted there)
    penn.president_id = None
    ctx.scratch.president_wants["PENN"] = [2, 3]
    elections(ctx)
    assert (nyc.president_id, penn.president_id, ba.president_id) == (p2.id, p2.id, p3.id)
    assert (p2.slot1_id, p2.slot2_id) == (nyc.id, penn.id)
    assert [e["player_number"] for e in _kinds(ctx, "control-void")] == [3]
    assert (p3.slot1_id, p3.slot2_id) == (ba.id, None)


def test_a_failed_bid_falling_back_to_the_survivor_of_a_merger_fills_one_slot_not_two_10_1d4(three_roads):
    """§10.1D4: "If you change a RR in one slot and fail, the computer will only attempt to return
    you to the presidency of the original RR in that slot."  A tycoon who presided the NYC (slot 1)
    and the B&A (slot 2, merged into the NYC this turn) and who seeks the PENN in slot 1 but is
    outvoted falls back to the NYC in slot 1; the NYC is then his road in one slot only (§10.1D1:
    two slots for two railroads), and slot 2 is free for another road."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = three_roads
    ctx = _ctx(s, g)
    nyc, penn, ba, p1, p2 = (ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.railroads["B&A"], ctx.players[1],
                             ctx.players[2])
    _give(ctx, "NYC", 1, 200)
    _give(ctx, "PENN", 1, 200)
    _give(ctx, "PENN", 2, 300)
    _preside(ctx, "NYC", 1, 1)
    _preside(ctx, "B&A", 1, 2)
    _preside(ctx, "PENN", 2, 1)
    ba.status, ba.president_id = "merged", None
    ctx.scratch.merged_into["B&A"] = "NYC"
    ctx.orders[1] = Orders(control=["PENN", None])
    elections(ctx)
    assert (penn.president_id, nyc.president_id) == (p2.id, p1.id)
    assert (p1.slot1_id, p1.slot2_id) == (nyc.id, None)


@pytest.mark.parametrize("merged", [False, True])
def test_one_road_named_in_both_slots_fills_one_and_the_other_keeps_its_road_10_1d(three_roads, merged):
    """§10.1D1: two slots for two railroads; a road named in both fills one slot, and the other
    slot keeps the road held there ("If you substitute another railroad for control, if the
    substituted control attempt fails, you will try to keep control of the original railroad in
    that spot").  Also when the road held in slot 2 is the B&A merged this turn into the NYC of
    slot 1 (§4.13: the slot holds the survivor)."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = three_roads
    ctx = _ctx(s, g)
    nyc, penn, ba, p1 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.railroads["B&A"], ctx.players[1]
    _give(ctx, "NYC", 1, 200)
    _give(ctx, "PENN", 1, 200)
    _give(ctx, "B&A", 1, 100)
    if merged:
        _preside(ctx, "NYC", 1, 1)
        _preside(ctx, "B&A", 1, 2)
        ba.status, ba.president_id = "merged", None
        ctx.scratch.merged_into["B&A"] = "NYC"
    else:
        _preside(ctx, "B&A", 1, 2)
    ctx.orders[1] = Orders(control=["PENN", "PENN"])
    elections(ctx)
    kept = nyc if merged else ba
    assert (penn.president_id, kept.president_id) == (p1.id, p1.id)
    assert (p1.slot1_id, p1.slot2_id) == (penn.id, kept.id)


def test_a_tie_for_president_goes_to_the_incumbent_even_with_the_higher_number_4_14c_e_10_1d(game):
    """§4.14C: "The Director with the highest number of shares who wants to be President is
    elected"; ruling E-10.1D: a tie goes to the incumbent, then to the lower player number.  Tycoon
    3 presides the NYC with 200 shares; tycoon 2, with 200 too, seeks it and is not elected (the
    lower number does not beat the incumbent); on the PENN, with no incumbent, tycoon 1 beats
    tycoon 4 on a tie."""
    from pbm.cr.engine.elections import elections
    from pbm.cr.orders import Orders

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    _give(ctx, "NYC", 2, 200)
    _give(ctx, "NYC", 3, 200)
    _preside(ctx, "NYC", 3, 1)
    _give(ctx, "PENN", 1, 300)
    _give(ctx, "PENN", 4, 300)
    penn.president_id = None
    ctx.orders.update({2: Orders(control=["NYC", None]), 4: Orders(control=["PENN", None]),
                       1: Orders(control=["PENN", None])})
    elections(ctx)
    assert nyc.president_id == ctx.players[3].id and ctx.players[2].slot1_id is None
    assert penn.president_id == ctx.players[1].id and ctx.players[4].slot1_id is None


# --------------------------------------------------------------------------- privates: §2.4E ties
def test_equal_pc_bids_are_settled_by_the_turns_pc_ties_draws_not_by_player_number_2_4e(game):
    """§2.4E: "PCs are sold to the player bidding the highest price"; equal highest bids are
    settled at random (``private_company_purchases``: "ties are broken at random"), one draw of
    the turn's `pc-ties` stream a bidder in player-number order, the lowest draw winning.  With
    draws 0.9 for tycoon 1 and 0.1 for tycoon 2, tycoon 2 buys the LS; a higher bid still beats
    any draw (tycoon 3's MC)."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    for n in (1, 2, 3, 4):
        ctx.players[n].cash = 5_000
    ctx.orders.update({1: Orders(pc_bids=[PCBid("LS", 1_000, 1), PCBid("MC", 800, 2)]),
                       2: Orders(pc_bids=[PCBid("LS", 1_000, 1)]),
                       3: Orders(pc_bids=[PCBid("MC", 801, 1)]),
                       4: Orders(pc_bids=[PCBid("MC", 800, 1)])})
    purposes: list = []
    ctx.rng = _Draws([0.9, 0.1, 0.0, 0.5, 0.6], purposes)  # LS: p1, p2; MC: p3, p1, p4
    private_company_purchases(ctx)
    assert purposes == ["pc-ties"]
    assert ctx.pcs["LS"].owner_id == ctx.players[2].id and ctx.pcs["MC"].owner_id == ctx.players[3].id
    assert [ctx.players[n].cash for n in (1, 2, 3, 4)] == [5_000, 4_000, 4_199, 5_000]
    assert [(e["player_number"], e["amount"], e["data"]) for e in _kinds(ctx, "pc-sold")] == [
        (2, 1_000, {"pc": "LS"}), (3, 801, {"pc": "MC"})]  # what the turn's news and reports read


def _own(ctx, code, player, *, paid=0, for_sale=False, ask=None, offered=None):
    pc = ctx.pcs[code]
    pc.status, pc.owner_id, pc.paid = "owned", player.id, paid
    pc.for_sale, pc.asking_price, pc.offered_turn = for_sale, ask, offered
    return pc


def test_a_tycoon_with_one_pc_keeps_only_his_first_bid_in_sequence_whatever_the_map_order_10_1b1_2_4e(game):
    """§10.1B ("If you own one PC, you can bid for one more PC"): a tycoon who owns one PC and bids
    for two keeps only the bid of sequence 1 — the MC, though the LS (bid second) comes first on
    the map and would be sold first — and is not told that the dropped bid was low; a tycoon who
    owns two may not bid at all ("If you do not own two Private Companies, you may BID FOR a PC")."""
    from pbm.cr.engine.privates import private_company_purchases
    from pbm.cr.orders import Orders, PCBid

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    p1.cash = p2.cash = 5_000
    _own(ctx, "P&FW", p1, paid=650)
    _own(ctx, "ERIE", p2, paid=650)
    _own(ctx, "B&A", p2, paid=650)
    ctx.orders[1] = Orders(pc_bids=[PCBid("MC", 760, 1), PCBid("LS", 1_000, 2), PCBid("NYNH", 1, 3)])
    ctx.orders[2] = Orders(pc_bids=[PCBid("NYNH", 1, 1)])  # owns two: may not bid at all
    private_company_purchases(ctx)
    assert ctx.pcs["MC"].owner_id == p1.id and ctx.pcs["LS"].status == "bank" and p1.cash == 4_240
    assert _kinds(ctx, "pc-bid-low") == [] and p2.cash == 5_000


def test_an_owner_offers_each_pc_he_names_to_sell_whatever_his_other_pc_orders_10_1b1(game):
    """§10.1B: "For any PC you own you may take ONE of these actions": SELL (1), MERGE (2) or
    INCORPORATE (3).  Offering a PC for sale is decided PC by PC: a merge order for one PC, or a
    sell order for a PC that is not his (or another's bought this turn), does not stop his order to
    sell the next one."""
    from pbm.cr.engine.privates import private_company_offers
    from pbm.cr.orders import Orders, PCAction

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    _own(ctx, "LS", p1, paid=1_000)
    mc = _own(ctx, "MC", p1, paid=1_000)
    nynh = _own(ctx, "NYNH", p2, paid=1_000)
    ctx.orders.update({1: Orders(pc_actions=[PCAction("LS", "merge", railroad="NYC"), PCAction("MC", "sell", 1_000)]),
                       2: Orders(pc_actions=[PCAction("LS", "sell", 1_000), PCAction("NYNH", "sell", 1_000)])})
    private_company_offers(ctx)
    assert ctx.pcs["LS"].for_sale is False
    assert (mc.for_sale, mc.asking_price, nynh.for_sale, nynh.asking_price) == (True, 1_000, True, 1_000)


# --------------------------------------------------------------------------- tables: §4.5C, §4.17
def test_maximum_efficiency_of_a_road_with_lion_engines_by_default_4_5c_4_17():
    """§4.17: "In 1841, only the Lion engine is available": a railroad's engine, unless named, is
    the Lion (1); its maximum efficiency falls 3 points a generation behind the best (ruling
    E-4.17): with the American (3) the best, a road with Lions tops out at 93."""
    from pbm.cr.engine.tables import max_efficiency

    assert max_efficiency(1000, best=3) == 93 == max_efficiency(1000, 1, 3)
    assert max_efficiency(1000) == 99


# --------------------------------------------------------------------------- elections: §6.5 splits
def test_a_stock_between_100_and_200_splits_2_for_1_6_5(game):
    """§6.5: "If the price of a stock should exceed $100 at the end of a turn, the stock will
    split.  A stock can split 2 for 1, 3 for 1, or some higher integer ratio": at $150.01 the
    smallest ratio is 2 (shares doubled, price halved and rounded down: $75.00)."""
    from pbm.cr.engine.elections import stock_splits

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.price = 150.01
    issued, held = nyc.shares_issued, nyc.holdings[0].shares
    stock_splits(ctx)
    assert (nyc.price, nyc.shares_issued, nyc.holdings[0].shares) == (75.0, 2 * issued, 2 * held)
    assert [(e["railroad"], e["data"]) for e in _kinds(ctx, "split")] == [("NYC", {"ratio": 2})]

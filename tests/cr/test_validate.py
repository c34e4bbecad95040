"""The order validator (pbm.cr.validate) on a small hand-built state: good and bad orders for every rule."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, PCAction, PCBid, Problem, RailroadOrders, RateWar, StockOrder
from pbm.cr.validate import validate
from pbm.db import get_engine
from pbm.models import Event, Line
from tests.cr.orders_helpers import build_small


class Setup:
    def __init__(self, session: Session, small) -> None:
        self.session, self.s = session, small

    def __call__(self, orders: Orders, player: int = 1) -> tuple[Orders, list[Problem]]:
        before = Orders.from_dict(orders.to_dict())
        out, problems = validate(self.session, self.s.game, self.s.players[player], orders)
        assert orders == before, "validate must not modify the orders it is given"
        # the result is itself valid: validating it again finds nothing to refuse or adjust
        again, second = validate(self.session, self.s.game, self.s.players[player], out)
        assert again == out
        assert not [p for p in second if not p.warning], second
        return out, problems


@pytest.fixture
def v(db_url):
    session = Session(get_engine(db_url))
    try:
        yield Setup(session, build_small(session))
    finally:
        session.rollback()
        session.close()


def only(problems, where_part: str) -> Problem:
    found = [p for p in problems if where_part in p.where]
    assert len(found) == 1, problems
    return found[0]


def test_clean_orders_have_no_problems(v):
    orders = Orders(
        borrow=1000, pc_bids=[PCBid("HRL", 800, 1)],
        stock=[StockOrder("NYC", "sell", 100, 1), StockOrder("BA", "buy", 20, 2)],
        control=["NYC", None], spy_player=2, spy_railroad="PENN", message="Westward!",
        railroads=[RailroadOrders("NYC", capital_per_mile=12, political=300, row_first="NY2", row_alternate="VT1",
                                  dividend=3)],
    )
    out, problems = v(orders)
    assert problems == []
    assert out == Orders.from_dict(orders.to_dict())


def test_borrow_cut_to_available_credit(v):
    out, problems = v(Orders(borrow=9000))
    assert out.borrow == 7000  # $10,000 net worth × 70 % (Normal)
    p = only(problems, "borrow")
    assert p.adjusted and "$7,000" in p.allowed and "§3.5A" in p.message


def test_repay_limited_by_cash_and_loan(v):
    v.s.players[1].loan = 500
    out, problems = v(Orders(repay=1500))
    assert out.repay == 500 and only(problems, "repay").adjusted
    v.s.players[1].loan = 5000
    out, problems = v(Orders(repay=3000))
    assert out.repay == 2000 and "your cash" in only(problems, "repay").message


def test_recall_warning(v):
    v.s.players[1].loan, v.s.players[1].recall = 5000, 800
    out, problems = v(Orders(repay=300))
    p = only(problems, "repay")
    assert p.warning and "$800" in p.message and out.repay == 300


def test_borrow_and_repay_are_netted(v):
    v.s.players[1].loan = 5000
    out, problems = v(Orders(borrow=1000, repay=400))
    assert (out.borrow, out.repay) == (600, 0)
    assert only(problems, "loan").adjusted


def test_stock_bid_lowered_to_maximum(v):
    out, problems = v(Orders(stock=[StockOrder("NYC", "buy", 500, 1)]), player=2)
    assert out.stock[0].shares == 102
    p = only(problems, "stock buy NYC")
    assert p.adjusted and "102" in p.allowed


def test_stock_bid_count_limit(v):
    orders = Orders(borrow=7000, stock=[StockOrder("NYC", "buy", 10, 1), StockOrder("BA", "buy", 10, 2),
                                        StockOrder("PENN", "buy", 1, 3)])
    # 3 active railroads -> 3 bids; all fine
    out, problems = v(orders, player=3)
    assert len(out.stock) == 3 and not [p for p in problems if p.refused]
    # a fourth buy would be over the limit, but there are only three railroads: add one more order on NYC (dup)
    orders.stock.append(StockOrder("NYC", "sell", 10, 4))
    out, problems = v(orders, player=3)
    assert "only one transaction per railroad" in only(problems, "stock sell NYC").message
    assert len(out.stock) == 3


def test_more_than_three_bids_refused(v):
    # add railroads so that four distinct buys are possible
    from pbm.models import Railroad

    session, s = v.session, v.s
    for n, code in enumerate(("X1", "X2"), start=10):
        rr = Railroad(game_id=s.game.id, code=code, name=code, number=n, status="active", price=10,
                      shares_authorized=100, shares_issued=100, shares_public=100)
        session.add(rr)
    session.flush()
    orders = Orders(borrow=7000, stock=[StockOrder(c, "buy", 5, i) for i, c in enumerate(("NYC", "BA", "X1", "X2"), 1)])
    out, problems = v(orders, player=3)
    assert [o.railroad for o in out.stock] == ["NYC", "BA", "X1"]
    p = only(problems, "stock buy X2")
    assert p.refused and "at most 3 stock bids" in p.message


def test_short_sale_rules(v):
    # player 2 owns 40 NYC: may sell 100 (60 short)
    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 150, 1)]), player=2)
    assert out.stock[0].shares == 100 and out.stock[0].action == "short"
    assert "10 %" in only(problems, "stock sell NYC").message
    out, problems = v(Orders(stock=[StockOrder("NYC", "sell", 30, 1)]), player=2)
    assert out.stock[0].action == "sell" and problems == []
    # a Director cannot sell short: player 1 owns 300 NYC
    out, problems = v(Orders(stock=[StockOrder("NYC", "short", 350, 1)]), player=1)
    assert out.stock[0].shares == 300 and out.stock[0].action == "sell"
    assert "Director" in only(problems, "NYC").message
    # cornered stock: PENN; player 1 owns none
    out, problems = v(Orders(stock=[StockOrder("PENN", "short", 10, 1)]), player=1)
    assert out.stock == [] and "cornered" in only(problems, "PENN").message


def test_stock_priorities_normalized_sales_first(v):
    orders = Orders(stock=[StockOrder("BA", "buy", 10), StockOrder("NYC", "sell", 10)])
    out, problems = v(orders, player=3)
    assert [(o.railroad, o.action, o.priority) for o in out.stock] == [("NYC", "sell", 1), ("BA", "buy", 2)]


def test_stock_unknown_railroad_and_bad_counts(v):
    out, problems = v(Orders(stock=[StockOrder("ZZZ", "buy", 10, 1), StockOrder("NYC", "buy", 0, 2),
                                    StockOrder("BA", "hold", 5, 3)]))
    assert out.stock == []
    assert len(problems) == 3 and all(p.refused for p in problems)


def test_seven_orders_refused(v):
    from pbm.models import Railroad

    session, s = v.session, v.s
    for n in range(4):
        session.add(Railroad(game_id=s.game.id, code=f"Y{n}", name="y", number=20 + n, status="active", price=10,
                             shares_authorized=100, shares_issued=100, shares_public=100))
    session.flush()
    session.expire_all()
    orders = Orders(stock=[StockOrder(c, "sell", 5, i) for i, c in enumerate(("NYC", "BA", "Y0", "Y1", "Y2", "Y3"), 1)]
                    + [StockOrder("PENN", "buy", 1, 7)])
    out, problems = v(orders, player=2)
    assert len(out.stock) == 6
    assert "at most 6" in only(problems, "PENN").message


def test_stock_cash_check_warns_when_pc_bids_may_win(v):
    orders = Orders(pc_bids=[PCBid("LS", 1500, 1)], stock=[StockOrder("BA", "buy", 100, 1)])
    out, problems = v(orders, player=3)
    p = only(problems, "stock 1 buy BA")
    assert p.warning and "cut it to 50" in p.message  # $500 left × 1 / $10
    assert out.stock[0].shares == 100  # not cut here: the engine cuts at step 6.1 with real cash


def test_pc_bids(v):
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("LS", 900, 2)]), player=1)
    assert problems == [] and [b.pc for b in out.pc_bids] == ["HRL", "LS"]
    # player 2 owns one PC: one bid only
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 700, 1), PCBid("LS", 900, 2)]), player=2)
    assert [b.pc for b in out.pc_bids] == ["HRL"] and "extra bid" in only(problems, "LS").message
    # below the asking price; unknown; not for sale
    out, problems = v(Orders(pc_bids=[PCBid("HRL", 100, 1), PCBid("PENN", 900, 2)]))
    assert out.pc_bids == []
    assert "below the asking price $700" in only(problems, "HRL").message
    assert "not offered for sale" in only(problems, "PENN").message


def test_pc_bids_reduced_in_reverse_sequence(v):
    # $2,000 cash: 1200 + 1000 -> the second (by sequence) would be cut to 800,
    # but LS asks $900, so 800 cannot stand: dropped
    out, problems = v(Orders(pc_bids=[PCBid("LS", 1000, 2), PCBid("HRL", 1200, 1)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 1200)]
    assert "dropped" in only(problems, "LS").message
    out, problems = v(Orders(pc_bids=[PCBid("LS", 1100, 2), PCBid("HRL", 1000, 1)]))
    assert [(b.pc, b.amount) for b in out.pc_bids] == [("HRL", 1000), ("LS", 1000)]
    assert only(problems, "LS").adjusted


def test_own_pc_cannot_be_bid(v):
    bo = v.s.pcs["B&O"]
    bo.for_sale, bo.asking_price, bo.offered_turn = True, 900, 1
    out, problems = v(Orders(pc_bids=[PCBid("B&O", 900, 1)]), player=2)
    assert "your own" in only(problems, "B&O").message
    out, problems = v(Orders(pc_bids=[PCBid("B&O", 900, 1)]), player=3)
    assert problems == []


def test_pc_sell_price_limits(v):
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=5000)]), player=2)
    assert out.pc_actions[0].price == 1600 and only(problems, "B&O").adjusted
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=50)]), player=2)
    assert out.pc_actions[0].price == 160
    assert any(p.adjusted for p in problems) and any(p.warning and "Public" in p.message for p in problems)
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "sell", price=1600)]), player=2)
    assert problems == []


def test_pc_actions_need_ownership_and_one_each(v):
    out, problems = v(Orders(pc_actions=[PCAction("HRL", "incorporate")]), player=2)
    assert out.pc_actions == [] and "do not own HRL" in problems[0].message
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "incorporate"), PCAction("B&O", "sell", price=900)]),
                      player=2)
    assert [a.action for a in out.pc_actions] == ["incorporate"]
    assert "only ONE action" in problems[0].message


def test_pc_merge_targets(v):
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad="PENN")]), player=2)
    assert problems == []
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "merge", railroad="NYC")]), player=2)
    p = only(problems, "B&O")
    assert "does not connect" in p.message and p.allowed == "PENN"


def test_incorporate_and_control_slot(v):
    out, problems = v(Orders(pc_actions=[PCAction("B&O", "incorporate")], control=["PENN", "b&o"]), player=2)
    assert problems == []
    assert out.control == ["PENN", "B&O"] and out.pc_actions[0].president is True


def test_control_problems(v):
    out, problems = v(Orders(control=["NYC", "NYC", "ZZ"]), player=1)
    assert out.control == ["NYC", None]
    assert any("two control slots" in p.message for p in problems)
    assert any("already in your other slot" in p.message for p in problems)
    out, problems = v(Orders(control=["BA", "PENN"]), player=3)
    assert any(p.warning and "not a Director of BA" in p.message for p in problems)


def test_resign(v):
    out, problems = v(Orders(resign=["BA", "PENN"]))
    assert out.resign == ["BA"] and "not President of PENN" in problems[0].message


def test_merge_railroads(v):
    out, problems = v(Orders(merge=("BA", "NYC")))
    assert out.merge == ("BA", "NYC") and problems == []
    out, problems = v(Orders(merge=("BA", "PENN")))
    assert out.merge is None and "not President of PENN" in problems[0].message


def test_spy_and_message(v):
    long = "x" * 100
    out, problems = v(Orders(spy_player=1, spy_railroad="NYC", message=long + "\n"))
    assert out.spy_player is None and out.message == "x" * 80
    assert any("yourself" in p.message for p in problems)
    assert any(p.warning and "preside NYC" in p.message for p in problems)
    assert only(problems, "message").adjusted
    out, problems = v(Orders(spy_player=16))
    assert "no player 16" in problems[0].message


def test_prodigal(v):
    out, problems = v(Orders(prodigal=500))
    assert out.prodigal == 0 and "at least $1,000" in problems[0].message
    out, problems = v(Orders(prodigal=1500))
    assert out.prodigal == 1500 and problems == []


def test_character_choice(v):
    out, problems = v(Orders(character="Jay Gould"))
    assert out.character is None and "§3.2" in problems[0].message
    v.s.game.turn = 1
    out, problems = v(Orders(character="Tycoon 2"))
    assert out.character is None and "another tycoon" in problems[0].message
    out, problems = v(Orders(character="  Jay   Gould "))
    assert out.character == "Jay Gould" and problems == []


def test_character_after_bankruptcy(v):
    v.session.add(Event(game_id=v.s.game.id, turn=v.s.game.turn - 1, seq=1, step="14.3", kind="player_bankrupt",
                        player_number=1))
    v.session.flush()
    out, problems = v(Orders(character="Jay Gould"))
    assert out.character == "Jay Gould" and problems == []


def test_railroad_orders_only_for_presidents(v):
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", dividend=2)]), player=1)
    assert out.railroads == [] and "not President of PENN" in problems[0].message
    assert problems[0].allowed == "NYC, BA"


def test_president_loans_and_debt(v):
    nyc = v.s.railroads["NYC"]
    nyc.president_debt, nyc.loan_debt, nyc.cash = 3000, 1000, 2500
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=5000)]))
    assert out.railroads[0].lend == 2000 and only(problems, "NYC president loan").adjusted
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_president=4000, repay_debt=2000)]))
    ro = out.railroads[0]
    assert ro.repay_president == 2500  # its starting cash
    assert ro.repay_debt == 0 or any("repay debt" in p.where for p in problems)
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", repay_debt=5000)]))
    assert out.railroads[0].repay_debt == 1000 and "its debt" in only(problems, "repay debt").message


def test_treasury_sales(v):
    nyc = v.s.railroads["NYC"]  # 111 treasury shares at $20: president pays $10
    assert nyc.treasury_shares == 111  # the premise: the cap below is the treasury's whole holding
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=300, treasury_to_market=50)]))
    ro = out.railroads[0]
    assert ro.treasury_to_president == 111 and ro.treasury_to_market == 0
    assert len(problems) == 2
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", treasury_to_president=100)]))
    assert problems == []
    # cash limits: $2,000 buys 200 at $10 -> but lend 1500 first leaves 500 -> 50 shares
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=1500, treasury_to_president=100)]))
    assert out.railroads[0].treasury_to_president == 50


def test_capital_improvements_max_50(v):
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", capital_per_mile=100)]))
    assert out.railroads[0].capital_per_mile == 50
    assert "R-O1" in only(problems, "capital").message


def test_build_and_abandon(v):
    # PENN (player 2) owns PA1; Normal climate: $300–600 per mile
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=250)]), player=2)
    assert out.railroads[0].build_per_mile == 300 and only(problems, "build").adjusted
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=900)]), player=2)
    assert out.railroads[0].build_per_mile == 600
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", build_per_mile=300, abandon=True)]), player=1)
    assert out.railroads[0].build_per_mile is None and not out.railroads[0].abandon
    assert len(problems) == 2
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300, abandon=True)]), player=2)
    assert out.railroads[0].build_per_mile == 300 and not out.railroads[0].abandon


def test_civil_war_no_building(v):
    v.s.game.turn = 11
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300)]), player=2)
    assert out.railroads[0].build_per_mile is None and "Civil War" in problems[0].message


def test_bankrupt_railroad_limits(v):
    v.s.railroads["NYC"].status = "bankrupt"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", capital_per_mile=10, political=200, row_first="NY2",
                                                       dividend=2)]))
    ro = out.railroads[0]
    assert (ro.capital_per_mile, ro.political, ro.row_first) == (0, 0, None)
    assert ro.dividend == 2
    assert sum(p.refused for p in problems) == 3 and sum(p.warning for p in problems) == 1


def test_political_minimum(v):
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=100)]))
    assert out.railroads[0].political == 0 and "$150" in problems[0].message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", political=9000)]))
    assert out.railroads[0].political == 9000 and problems[0].warning


def test_row_bids(v):
    # PENN owns PA1: may bid only when building or abandoning it
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", row_first="NY2")]), player=2)
    assert out.railroads[0].row_first is None and "already owns the RoW PA1" in problems[0].message
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", build_per_mile=300, row_first="IN2")]), player=2)
    assert out.railroads[0].row_first == "IN2" and problems == []
    # abandoning: IN2 was reached only through PA1 -> no longer connected: kept as write-in
    out, problems = v(Orders(railroads=[RailroadOrders("PENN", abandon=True, row_first="IN2")]), player=2)
    assert out.railroads[0].row_first == "IN2" and problems[0].warning
    # prohibited (double connection with a line) is refused with the valid list
    v.session.add(Line(railroad_id=v.s.railroads["NYC"].id, route_id=v.s.routes["HRL"].id))
    v.session.flush()
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="NY1", row_alternate="NY1")]))
    p = problems[0]
    assert out.railroads[0].row_first is None and "double connection" in p.message and "NY2" in p.allowed


def test_row_write_in_and_unknown(v):
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="PA1", row_alternate="XX9")]))
    ro = out.railroads[0]
    assert ro.row_first == "PA1" and ro.row_alternate is None
    assert only(problems, "RoW first").warning and "write-in" in only(problems, "RoW first").message
    assert "no route 'XX9'" in only(problems, "RoW alternate").message
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", row_first="HRL")]))
    assert out.railroads[0].row_first is None and "private company" in problems[0].message


def test_dividend_capped(v):
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", dividend=150)]))
    assert out.railroads[0].dividend == 99 and only(problems, "dividend").adjusted


def test_equipment_orders(v):
    v.s.game.state = {"locomotive": 3, "technologies": ["A", "B"]}
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", locomotive=3, technology="b")]))
    assert problems == [] and out.railroads[0].technology == "B"
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", locomotive=5, technology="A")]))
    assert out.railroads[0].locomotive is None and out.railroads[0].technology is None
    assert "2 Norris" in only(problems, "locomotive").allowed
    assert "size 4 or 5" in only(problems, "technology").message
    out, problems = v(Orders(railroads=[RailroadOrders("BA", technology="A")]))
    assert problems[0].warning and "$10,000" in problems[0].message  # BA has $5,000


def test_double_track_and_rate_war(v):
    session, s = v.session, v.s
    session.add(Line(railroad_id=s.railroads["NYC"].id, route_id=s.routes["HRL"].id))
    session.add(Line(railroad_id=s.railroads["BA"].id, route_id=s.routes["NY1"].id, double_tracked=True))
    session.flush()
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", double_track=["hrl", "NY1", "HRL"],
                                                       rate_wars=[RateWar("BA", 25), RateWar("PENN", 10)])]))
    ro = out.railroads[0]
    assert ro.double_track == ["HRL"] and ro.rate_wars == [RateWar("BA", 25)]
    assert sum(p.refused for p in problems) == 3
    assert any(p.warning and "$10,500" in p.message for p in problems)  # 25 % × $300 × 140 miles, NYC has $5,000
    out, problems = v(Orders(railroads=[RailroadOrders("BA", double_track=["NY1"], rate_wars=[RateWar("NYC", 0)])]))
    assert "already double-tracked" in problems[0].message and "1–99" in problems[1].allowed
    assert len(problems) == 2


def test_problem_round_trip():
    p = Problem("stock 4", "cut", "50 shares", line=12, adjusted=True)
    assert Problem.from_dict(p.to_dict()) == p
    assert not p.refused and Problem("x", "y").refused
    assert str(p) == "line 12: stock 4: cut (allowed: 50 shares)"


def test_copy_and_dict_of_orders_are_deepcopy_and_asdict():
    """``copy_orders`` (the validator's working copy) is ``copy.deepcopy`` and ``Orders.to_dict``
    is ``dataclasses.asdict`` (merge as a list), written without their generic machinery."""
    import copy
    from dataclasses import asdict

    from pbm.cr.orders import copy_orders

    stock = StockOrder("B&O", "buy", 5, 1)
    orders = Orders(borrow=10, pc_actions=[PCAction("PC1", "incorporate", president=True)],
                    pc_bids=[PCBid("PC2", 300, 2)], stock=[stock, StockOrder("NYC", "short", 2), stock],
                    control=["B&O", None], resign=["PRR"], merge=("B&O", "NYC"), spy_player=3,
                    message="hé", character="Jay Gould",
                    railroads=[RailroadOrders("B&O", build_per_mile=40, double_track=["R12"],
                                              rate_wars=[RateWar("NYC", 20)], dividend=None)])
    got = copy_orders(orders)
    assert got == copy.deepcopy(orders) and repr(got) == repr(orders)
    assert got.stock[0] is got.stock[2] and got.stock[0] is not stock  # one copy of an object met twice
    assert got.railroads[0].rate_wars is not orders.railroads[0].rate_wars
    got.railroads[0].double_track.append("R13")
    assert orders.railroads[0].double_track == ["R12"]
    expected = asdict(orders)
    expected["merge"] = ["B&O", "NYC"]
    assert orders.to_dict() == expected and repr(orders.to_dict()) == repr(expected)
    assert Orders.from_dict(orders.to_dict()) == orders


def test_no_loan_to_the_railroad_is_not_lowered_when_the_president_is_in_the_red(v):
    """A president with less than nothing who lends nothing is told nothing (was: 'you lend $0 but have
    $0 ...; lowered'): §10.2A1 lowers a loan only where there is one to lower."""
    v.s.players[1].cash = -250
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", capital_per_mile=10)]))
    assert out.railroads[0].lend == 0
    assert not [p for p in problems if "president loan" in p.where], problems
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=300)]))
    assert out.railroads[0].lend == 0
    assert "you lend $300 but have $0" in only(problems, "NYC president loan").message

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

from pbm.cr.orders import Orders, PCAction, PCBid, RailroadOrders, RateWar, StockOrder
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
    out, problems = v(Orders(railroads=[RailroadOrders("NYC", lend=-5, political=-1)]))
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems if not p.warning] == [
        ("NYC lend", "cannot be negative", "0 or more", True),
        ("NYC political", "cannot be negative", "0 or more", True)]
    assert (_ro(out, "NYC").lend, _ro(out, "NYC").political) == (0, 0)


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

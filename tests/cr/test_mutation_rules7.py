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
from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, RailroadOrders, RateWar
from pbm.db import get_engine
from tests.cr.orders_helpers import build_small
from tests.cr.test_validate import Setup, only


@pytest.fixture
def v(sqlite_url):
    """The validator on the small state: ``v(orders, player)`` checks the orders (and that the
    result validates again without refusals) and returns ``(orders, problems)``."""
    session = Session(get_engine(sqlite_url))
    try:
        yield Setup(session, build_small(session))
    finally:
        session.rollback()
        session.close()


def _ro(out, code):
    (ro,) = [r for r in out.railroads if r.railroad == code]
    return ro


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

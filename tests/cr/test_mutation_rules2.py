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
    nyc.cash, nyc.bond_debt, nyc.loan_debt = 10_000, 0, 0
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=9_800)
    assert political_reserve(ctx, nyc) == 9_800
    parts = finance(ctx, nyc, 1_001, "9.1", "building X")
    assert parts == {"bonds": 501, "cash": 200, "loans": 300}
    assert (nyc.bond_debt, nyc.loan_debt, nyc.cash) == (501, 300, 9_800)
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

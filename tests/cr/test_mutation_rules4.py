"""Continental Rails II rules of the engine modules measured last by mutation testing (issue 31,
part 2: politics, treasury, autopilot, climate, tables, checks, ...).

Each test pins one rule's outcome (a figure, a limit, a boundary, what a player is told) so that
changing the rule in the engine makes it fail; each names its rule section of the rulebook
(/work/shared/seeds/continental-rails-II-rules.txt).  ``scripts/mutation_cr.py`` reruns the
mutation tests; the scores and the equivalent mutants that survive are in docs/cr/rules-map.md,
"Mutation testing".  All on the tiny hand-built game of ``tests/cr/helpers.py`` (SQLite), each
well under a second.
"""

from __future__ import annotations

import pytest

from pbm.cr.engine.context import TurnContext
from pbm.cr.orders import RailroadOrders
from pbm.cr.resolve import begin_turn
from pbm.db import session_scope
from tests.cr.helpers import tiny_game


def _ctx(s, game, orders=None) -> TurnContext:
    ctx = TurnContext(s, game, orders or {})
    begin_turn(ctx)
    return ctx


def _kinds(ctx, kind, railroad=None):
    return [e for e in ctx.events if e["kind"] == kind and railroad in (None, e["railroad"])]


@pytest.fixture
def game(sqlite_url):
    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)


# --------------------------------------------------------------------------- politics: §4.9
def test_no_political_order_is_no_lobbying_and_one_dollar_is_below_the_minimum_4_9b(game):
    """§4.9B: "A railroad must spend at least $1 per mile to gain any political influence."  A
    road whose president ordered nothing is not lobbying: it is not told it fell short of the
    minimum.  An order of $1 for a 148-mile road is an attempt below the minimum: the road is told
    so (ruling E-4.9B), buys nothing and spends nothing."""
    from pbm.cr.engine.politics import political_influence

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.cash = 10_000
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=0)
    political_influence(ctx)
    assert _kinds(ctx, "influence-none", "NYC") == [] and _kinds(ctx, "influence", "NYC") == []
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=1)
    political_influence(ctx)
    assert [e["amount"] for e in _kinds(ctx, "influence-none", "NYC")] == [None]
    assert "NYC" not in ctx.scratch.influence and nyc.cash == 10_000


def test_influence_per_mile_of_start_track_a_road_without_track_counts_one_mile_4_9a_b(game):
    """§4.9A: influence is what a road spends per mile of its start-of-turn track; a road with
    no track at the start (a new road with only its RoW) counts one mile (ruling E-4.9B), so
    its $50 buys level 50.  A road founded during the turn (not in the start-of-turn figures)
    counts the track it has.  A road whose president ordered no influence does not stop the
    roads after it from lobbying (either order of the two roads)."""
    from pbm.cr.engine.politics import political_influence

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.cash = penn.cash = 10_000
    ctx.scratch.start_miles["NYC"] = 0
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=50)
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", political=0)
    political_influence(ctx)
    assert ctx.scratch.influence == {"NYC": 50} and nyc.cash == 9_950
    assert [(e["source"], e["target"], e["amount"], e["step"], e["memo"]) for e in ctx.ledger] == [
        ("rr:NYC", "public", 50, "10", "political influence")]  # Appendix A step 10
    del ctx.scratch.start_miles["NYC"]  # as if founded this turn: its 148 miles now
    assert ctx.miles(nyc) == 148
    ctx.scratch.influence.clear()
    ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=2 * 148)
    political_influence(ctx)
    assert ctx.scratch.influence == {"NYC": 2}
    for silent, lobbying in (("NYC", "PENN"), ("PENN", "NYC")):
        ctx.scratch.influence.clear()
        ctx.scratch.start_miles.update({"NYC": 148, "PENN": 300})
        ctx.rr_orders[silent] = RailroadOrders(silent, political=0)
        ctx.rr_orders[lobbying] = RailroadOrders(lobbying, political=900)
        political_influence(ctx)
        assert ctx.scratch.influence == {lobbying: 900 // ctx.scratch.start_miles[lobbying]}


def test_influence_is_paid_out_of_cash_only_and_a_short_road_does_not_stop_the_next_4_9b(game):
    """§4.9B: "It may spend as much as it can afford out of its cash available.  The Bank will not
    loan any money for this action": a road with no track (one mile, ruling E-4.9B) and $0 or
    less in cash buys nothing and spends nothing, not even $1.  A road that falls short of the
    minimum does not stop the road after it (either order)."""
    from pbm.cr.engine.politics import political_influence

    s, g = game
    ctx = _ctx(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    ctx.rr_orders["PENN"] = RailroadOrders("PENN", political=0)
    for cash in (0, -40):
        nyc.cash = cash
        ctx.scratch.start_miles["NYC"] = 0
        ctx.rr_orders["NYC"] = RailroadOrders("NYC", political=50)
        political_influence(ctx)
        assert ctx.scratch.influence == {} and nyc.cash == cash
        assert [e["railroad"] for e in _kinds(ctx, "influence-none")][-1] == "NYC"
    ctx.scratch.start_miles.update({"NYC": 148, "PENN": 300})
    for short, lobbying in (("NYC", "PENN"), ("PENN", "NYC")):
        ctx.scratch.influence.clear()
        nyc.cash = penn.cash = 10_000
        ctx.rr_orders[short] = RailroadOrders(short, political=100)  # under $1 a mile for both
        ctx.rr_orders[lobbying] = RailroadOrders(lobbying, political=900)
        political_influence(ctx)
        assert ctx.scratch.influence == {lobbying: 900 // ctx.scratch.start_miles[lobbying]}


# --------------------------------------------------------------------------- treasury: §10.2C2
def _treasury_order(ctx, code, president, shares, *, start_price, cash):
    rr = ctx.railroads[code]
    rr.president_id = president.id
    ctx.scratch.start_price[code] = start_price
    president.cash = cash
    ctx.rr_orders[code] = RailroadOrders(code, treasury_to_president=shares)
    return rr


def test_one_treasury_share_and_cheap_shares_to_the_dollar_10_2c2(game):
    """§10.2C2: the president buys treasury shares at 50 % of the start price: an order for one
    share is an order (he gets it); at a start price of $1 (50¢ a share) $10 buys 20 shares, not
    21 — a share costs its half price, fractions of a dollar are not free (§1.0 rounds the total
    down, not the count of shares up).  A road with no order does not stop the next road's sale,
    whichever comes first."""
    from pbm.cr.engine.treasury import treasury_stock_to_presidents

    s, g = game
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    nyc = _treasury_order(ctx, "NYC", p1, 1, start_price=20.0, cash=100)
    penn = _treasury_order(ctx, "PENN", p2, 50, start_price=1.0, cash=10)
    t_nyc, t_penn = nyc.treasury_shares, penn.treasury_shares
    assert t_penn >= 50
    treasury_stock_to_presidents(ctx)
    assert (t_nyc - nyc.treasury_shares, p1.cash) == (1, 90)
    assert (t_penn - penn.treasury_shares, p2.cash) == (20, 0)
    for silent, buying in (("NYC", "PENN"), ("PENN", "NYC")):
        t = ctx.railroads[buying].treasury_shares
        ctx.rr_orders.pop(silent)
        _treasury_order(ctx, buying, ctx.players[1 if buying == "NYC" else 2], 2, start_price=20.0, cash=100)
        treasury_stock_to_presidents(ctx)
        assert t - ctx.railroads[buying].treasury_shares == 2
        ctx.rr_orders[silent] = RailroadOrders(silent)


def test_a_treasury_share_is_not_sold_for_less_than_its_half_price_10_2c2(game):
    """§10.2C2: at a start price of $21 a treasury share costs $10.50; a president with $10
    cannot buy one (his $10 would buy it only if the price were rounded down first: §1.0 rounds
    what is paid, not the price of a share).  With $21 he buys two for $21."""
    from pbm.cr.engine.treasury import treasury_stock_to_presidents

    s, g = game
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    nyc = _treasury_order(ctx, "NYC", p1, 5, start_price=21.0, cash=10)
    ctx.rr_orders["PENN"] = RailroadOrders("PENN")
    t = nyc.treasury_shares
    treasury_stock_to_presidents(ctx)
    assert (nyc.treasury_shares, p1.cash, _kinds(ctx, "treasury-to-president")) == (t, 10, [])
    p1.cash = 21
    treasury_stock_to_presidents(ctx)
    assert (t - nyc.treasury_shares, p1.cash) == (2, 0)


# --------------------------------------------------------------------------- autopilot: ruling E-10.2
def test_autopilot_road_without_track_buys_influence_for_one_mile_e_10_2_4_9b(game):
    """Ruling E-10.2: a road nobody gives orders to, seeking a RoW, buys $1 a mile of influence
    when its cash is more than twice that; a road with no track counts one mile (ruling
    E-4.9B, as in step 10), so $3 is enough for its $1 and $2 is not."""
    from pbm.cr.engine.autopilot import autopilot_orders

    s, g = game
    ctx = _ctx(s, g)
    nyc = ctx.railroads["NYC"]
    ctx.miles = lambda rr: 0  # NYC's track gone: a road with only a charter
    assert ctx.row_of(nyc) is None
    nyc.cash = 3
    ro = autopilot_orders(ctx, nyc)
    assert ro.row_first is not None and ro.political == 1
    nyc.cash = 2
    assert autopilot_orders(ctx, nyc).political == 0


# --------------------------------------------------------------------------- climate: §11.1 bank failures
class _BankDraws:
    """A stand-in generator: ``random()`` gives the hit draws, ``uniform`` the loss fractions."""

    def __init__(self, hits, fractions):
        self.hits, self.fractions = list(hits), list(fractions)

    def random(self):
        return self.hits.pop(0)

    def uniform(self, low, high):
        assert (low, high) == (0.05, 0.33)  # §11.1: 5 % … 33 % (ruling E-11.1)
        return self.fractions.pop(0)


def test_a_bank_fails_below_its_chance_not_at_it_and_the_draws_are_the_turns_own_11_1(game):
    """§11.1 (ruling E-11.1): in a Recession a tycoon's bank fails with chance 5 %: a draw under
    0.05 fails it, a draw of exactly 0.05 does not.  The draws are this turn's "bank-failures"
    stream of the game's seed (``pbm.rng``), so a rerun of the turn fails the same banks."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.climate import bank_failures
    from pbm.rng import generator

    s, g = game
    ctx = _ctx(s, g)
    ctx.climate = tables.climate("Recession")
    p1, p2 = ctx.players[1], ctx.players[2]
    for p in ctx.players.values():
        p.cash = 10_000
    others = len(ctx.players) - 2
    ctx.rng = lambda purpose: _BankDraws([0.0499999, 0.05] + [0.9] * others, [0.10] * (others + 2))
    bank_failures(ctx)
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "bank-failure")] == [(1, 1_000)]
    assert (p1.cash, p2.cash) == (9_000, 10_000)
    del ctx.rng  # the context's own generator again
    ctx.climate = tables.climate("Panic")  # 20 %
    for turn in range(1, 40):
        ctx.turn = turn
        for p in ctx.players.values():
            p.cash = 10_000
        rng = generator(g.seed, turn, "bank-failures")
        want = []
        for number in ctx.players:
            hit, fraction = float(rng.random()), float(rng.uniform(0.05, 0.33))
            if hit < 0.20:
                want.append((number, int(10_000 * fraction + 1e-9)))
        before = len(ctx.events)
        bank_failures(ctx)
        assert [(e["player_number"], e["amount"]) for e in ctx.events[before:]] == want, turn


def test_a_bank_failure_costs_whole_dollars_and_a_loss_under_a_dollar_is_no_failure_11_1(game):
    """§11.1 (ruling E-11.1), §1.0: the loss is the fraction of the cash rounded down; a tycoon
    with $3 who draws a 10 % loss loses nothing and is not told of a failure, and the next tycoon
    still loses his; $10 at 10 % is a $1 failure.  The money goes to the Public in step 7.4."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.climate import bank_failures

    s, g = game
    ctx = _ctx(s, g)
    ctx.climate = tables.climate("Panic")
    numbers = list(ctx.players)
    ctx.players[numbers[0]].cash = 3
    ctx.players[numbers[1]].cash = 10
    for n in numbers[2:]:
        ctx.players[n].cash = 0
    ctx.rng = lambda purpose: _BankDraws([0.0] * len(numbers), [0.10] * len(numbers))
    bank_failures(ctx)
    assert [(e["player_number"], e["amount"]) for e in _kinds(ctx, "bank-failure")] == [(numbers[1], 1)]
    assert (ctx.players[numbers[0]].cash, ctx.players[numbers[1]].cash) == (3, 9)
    assert [(e["source"], e["target"], e["amount"], e["step"], e["memo"]) for e in ctx.ledger] == [
        (f"player:{numbers[1]}", "public", 1, "7.4", "bank failure")]


# --------------------------------------------------------------------------- climate: §5 headlines
class _ClimateDraws:
    def __init__(self, *values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


def test_a_panic_is_a_headline_that_says_panic_and_a_drift_says_the_economy_5(game):
    """§5: "a panic often follows" a peak; the turn's headline says "PANIC!" when the climate
    falls to Panic; any other change is told in a plain sentence (it read "The economy The economic
    climate changes …" before), with the old and new climate and the market (§5's chart)."""
    from pbm.cr.engine import tables
    from pbm.cr.engine.climate import change_climate

    s, g = game
    ctx = _ctx(s, g)
    ctx.turn = 5
    ctx.climate = tables.climate("Good")
    ctx.rng = lambda purpose: _ClimateDraws(0.0, 0.0)  # under Good's 15 %: a Panic
    change_climate(ctx)
    ctx.climate = tables.climate("Normal")
    ctx.rng = lambda purpose: _ClimateDraws(0.99, 0.0)  # no panic from Normal; +1 at 55 %
    change_climate(ctx)
    assert [(e["text"], e["headline"]) for e in _kinds(ctx, "climate")] == [
        ("PANIC! The economic climate changes from Good to Panic (panic bear market).", True),
        ("The economic climate changes from Normal to Improved (mild bull market).", True)]


# --------------------------------------------------------------------------- checks: the conservation checks
def test_a_broken_turn_is_refused_naming_its_first_twenty_problems(game):
    """The end-of-turn checks (docs/cr/engine.md: a violation is a bug, the turn is rolled back):
    ``run_checks`` raises a ConservationError naming the turn, the game and the first 20 problems,
    one after another; a clean turn passes.  A line owned by another road than the one it belongs
    to is named (§4.7: a RoW is its road's)."""
    from pbm.cr.engine.checks import (ConservationError, check_money, check_officers, check_routes,
                                      check_shares, run_checks)

    s, g = game
    ctx = _ctx(s, g)
    ctx.start_balances = ctx.balances()
    run_checks(ctx)  # a clean turn
    for p in ctx.players.values():
        p.cash, p.loan = -7, -1
    for rr in ctx.railroads.values():
        rr.cash += 3
        rr.bond_debt, rr.shares_public = -1, -1
        rr.shares_authorized += 1
    problems = check_money(ctx) + check_shares(ctx) + check_officers(ctx) + check_routes(ctx)
    assert len(problems) > 20
    with pytest.raises(ConservationError) as err:
        run_checks(ctx)
    assert str(err.value) == f"turn {ctx.turn} of game {g.name}: " + "; ".join(problems[:20])
    nyc_problems = [x for x in check_shares(ctx) if x.startswith("shares: NYC")]
    assert nyc_problems[:2] == ["shares: NYC has a negative share count",
                                f"shares: NYC issued {ctx.railroads['NYC'].shares_issued} != players "
                                f"{sum(h.shares for h in ctx.railroads['NYC'].holdings)} + public -1"]
    line = ctx.railroads["NYC"].lines[0]
    route = next(r for r in ctx.routes.values() if r.id == line.route_id)
    route.owner_id = ctx.railroads["PENN"].id
    assert check_routes(ctx) == [f"routes: {route.code} is a line of NYC but owned by another"]
    ctx.holding(ctx.players[1], ctx.railroads["NYC"]).short = -1
    assert "shares: NYC has a negative holding" in check_shares(ctx)


def test_the_director_check_holds_exactly_ten_percent_and_one_share_4_14a(game):
    """§4.14A: a director holds 10 % or more of the issued stock.  The officers' check accepts a
    director flag on exactly 10 % (10 of 100 issued) and on a single share of 10 issued, and asks
    for no flag where no stock is issued; two unbuilt RoWs of one road are named."""
    from pbm.cr.engine.checks import check_officers, check_routes

    s, g = game
    ctx = _ctx(s, g)
    nyc, p1 = ctx.railroads["NYC"], ctx.players[1]
    for h in nyc.holdings:
        h.shares, h.director = 0, False
    nyc.chairman_id = nyc.president_id = None
    for p in ctx.players.values():
        p.slot1_id = p.slot2_id = None
    for rr in ctx.railroads.values():
        rr.president_id = None
    h = ctx.holding(p1, nyc)
    for issued, shares, flag in ((100, 10, True), (100, 9, False), (10, 1, True), (1, 1, True), (0, 5, False)):
        nyc.shares_issued, h.shares, h.director = issued, shares, flag
        nyc.chairman_id = p1.id if flag else None
        assert [x for x in check_officers(ctx) if "NYC" in x] == [], (issued, shares)
    nyc.shares_issued, h.shares, h.director, nyc.chairman_id = 100, 9, True, p1.id
    assert [x for x in check_officers(ctx) if "NYC" in x] == [
        f"officers: NYC director flag of player id {p1.id} is wrong"]
    h.director, nyc.president_id, nyc.chairman_id = False, p1.id, ctx.players[2].id
    p1.slot1_id = nyc.id
    assert [x for x in check_officers(ctx) if "NYC" in x] == [
        "officers: NYC president is not a director", "officers: NYC chairman is not a director"]
    nyc.president_id, nyc.chairman_id, p1.slot1_id = None, None, None
    h.shares, h.director = 10, True
    assert [x for x in check_officers(ctx) if "NYC" in x] == ["officers: NYC has directors but no chairman"]
    nyc.chairman_id, p1.slot2_id = p1.id, nyc.id  # a control slot without the presidency
    assert check_officers(ctx) == [
        f"officers: player {p1.number}'s slots do not match the railroads he presides"]
    p1.slot2_id = None
    nyc.lines.clear()
    unbuilt = [r for r in ctx.routes.values() if r.owner_id is None][:2]
    for r in unbuilt:
        r.owner_id = nyc.id
    owned = sum(1 for r in ctx.routes.values() if r.owner_id == nyc.id)  # its old lines' routes too
    assert owned >= 2
    assert [x for x in check_routes(ctx) if x.startswith("routes: railroad id")] == [
        f"routes: railroad id {nyc.id} owns {owned} unbuilt RoWs"]

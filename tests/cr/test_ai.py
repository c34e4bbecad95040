"""Computer players (pbm.cr.ai): legal, deterministic, and in character."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from pbm.cr import queries as q
from pbm.cr.ai import computer_orders
from pbm.cr.validate import validate
from pbm.db import get_engine
from pbm.models import Line
from tests.cr.orders_helpers import build_small, real_game


def assert_legal(session, game, player, orders):
    out, problems = validate(session, game, player, orders)
    assert problems == [], f"player {player.number} ({player.personality}): {[str(p) for p in problems]}"
    assert out == orders


@pytest.fixture
def session(db_url):
    s = Session(get_engine(db_url))
    try:
        yield s
    finally:
        s.rollback()
        s.close()


def test_every_seat_of_a_new_game_gives_legal_orders(session):
    game = real_game(session, seed=11)
    all_orders = {}
    for player in game.players:
        orders = computer_orders(session, game, player)
        assert_legal(session, game, player, orders)
        all_orders[player.number] = orders
    # alive: PCs are bid for, stock is traded, presidencies are sought, loans taken
    assert sum(len(o.pc_bids) for o in all_orders.values()) >= 10
    assert sum(1 for o in all_orders.values() if any(s.action == "buy" for s in o.stock)) >= 10
    assert sum(1 for o in all_orders.values() if o.control and any(o.control)) >= 8
    assert sum(1 for o in all_orders.values() if o.borrow > 0) >= 7


def test_orders_are_deterministic(session):
    game = real_game(session, seed=5)
    first = [computer_orders(session, game, p).to_dict() for p in game.players]
    second = [computer_orders(session, game, p).to_dict() for p in game.players]
    assert first == second
    game.turn = 2
    third = [computer_orders(session, game, p).to_dict() for p in game.players]
    assert third != first


def test_one_shared_frozen_view_gives_each_seat_the_orders_of_its_own_view(session):
    """run_turn shares one frozen (memoizing) view between the 15 seats (issue 15): every seat's
    computer orders and validation must be those it gets on a fresh view of its own."""
    from pbm.cr.resolve import SeatChecks

    game = real_game(session, seed=5)
    seats = SeatChecks(session, game)
    for player in sorted(game.players, key=lambda p: p.number):
        shared = seats.computer_orders(player)
        assert seats.view.frozen
        alone = computer_orders(session, game, player, view=q.load(session, game))
        assert shared.to_dict() == alone.to_dict()
        checked, problems = seats.validate(player, shared)
        assert (checked, problems) == validate(session, game, player, alone)
    assert seats.view.memo  # the answers were shared


def test_builder_runs_its_railroads(session):
    s = build_small(session, climate="Good")
    p1 = s.players[1]  # builder, presides NYC and BA
    s.railroads["NYC"].last_profit = 4000
    orders = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, orders)
    nyc = orders.for_railroad("NYC")
    assert 10 <= nyc.capital_per_mile <= 15
    view = q.load(session, s.game)
    assert nyc.row_first in q.valid_rows(view, s.railroads["NYC"])
    # §4.12: half the profit a share the road expects (its revenue this climate at efficiency 85,
    # no debt: $3,860 on 1,000 shares), in whole dollars: $1.93 → $1 (no hoard to round it up)
    expected = _expected_profit(session, s, p1, "NYC")
    assert 3_800 < expected < 3_900 and nyc.dividend == 1
    assert orders.borrow > 0
    assert orders.control and set(orders.control) >= {"NYC", "BA"}
    # two connected railroads under one President are merged (§4.13)
    assert orders.merge in (("BA", "NYC"), ("NYC", "BA"))


def _expected_profit(session, s, player, code: str) -> float:
    """The profit a careful president expects of ``code`` this turn (operating profit − interest)."""
    from pbm.cr.ai import Planner
    from pbm.rng import generator

    view = q.load(session, s.game)
    planner = Planner(view, view.players[player.id], generator(1, 1, "t"), "builder")
    rr = view.railroad(code)
    return planner.road_profit(rr) - planner.interest(rr)


def test_builder_builds_its_row_but_not_in_the_civil_war(session):
    s = build_small(session, turn=11)
    p2 = s.players[2]
    p2.personality = "builder"
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert orders.for_railroad("PENN").build_per_mile is None
    s.game.turn = 13
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    penn = orders.for_railroad("PENN")
    # §4.6C: player 2 (20 % of PENN, one of its two directors) pockets a third of an overspend
    # and his stake pays a fifth of it: he overspends a quarter of the minimum ($300 in Normal),
    # as far as the road stays sound (see test_a_sole_director_overspends_when_it_pays_him)
    assert penn.build_per_mile == 375 and penn.row_first is not None


def test_speculator_sells_short_in_bad_climates(session):
    s = build_small(session, climate="Depression")
    p3 = s.players[3]  # speculator in this state? make sure
    p3.personality = "speculator"
    s.railroads["BA"].price = 90.0
    orders = computer_orders(session, s.game, p3)
    assert_legal(session, s.game, p3, orders)
    assert any(o.action == "short" for o in orders.stock)
    assert orders.borrow == 0


def test_owned_pc_is_incorporated_or_merged(session):
    s = build_small(session)
    p2 = s.players[2]  # owns B&O, presides PENN (B&O connects to PENN at Pittsburgh)
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert [(a.pc, a.action, a.railroad) for a in orders.pc_actions] == [("B&O", "merge", "PENN")]
    s.railroads["PENN"].president_id = None
    p2.personality = "builder"
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert [(a.pc, a.action) for a in orders.pc_actions] == [("B&O", "incorporate")]
    assert "B&O" in orders.control


def test_bankrupt_railroad_and_recall(session):
    s = build_small(session, climate="Recession")
    p1 = s.players[1]
    s.railroads["NYC"].status = "bankrupt"
    s.railroads["NYC"].cash = -800
    p1.loan, p1.recall = 4000, 500
    orders = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, orders)
    assert orders.repay >= 500
    nyc = orders.for_railroad("NYC")
    assert nyc.lend > 0 and nyc.capital_per_mile == 0 and nyc.row_first is None


def test_a_raid_is_answered(session):
    """A rival holding nearly as much of a railroad as its president (PENN: player 3 holds 200,
    the president 100) draws the president's maximum bid there before anything else."""
    s = build_small(session, climate="Normal")
    p2 = s.players[2]
    p2.cash = 20_000
    for style in ("builder", "speculator", "empire"):
        p2.personality = style
        orders = computer_orders(session, s.game, p2)
        assert_legal(session, s.game, p2, orders)
        buys = [o for o in orders.stock if o.action == "buy"]
        view = q.load(session, s.game)
        assert buys and buys[0].railroad == "PENN", (style, orders.stock)
        assert buys[0].shares == q.max_stock_bid(view, p2, s.railroads["PENN"])


def test_empire_builder_collects_pcs_and_keeps_cash_in_track(session):
    s = build_small(session, climate="Good")
    p1 = s.players[1]  # presides NYC and BA
    s.railroads["NYC"].last_profit = 2_000  # $2 a share
    p1.cash = 30_000
    p1.personality = "empire"
    empire = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, empire)
    p1.personality = "speculator"
    spec = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, spec)
    assert len(empire.pc_bids) > len(spec.pc_bids) == 1
    expected = _expected_profit(session, s, p1, "NYC") / 1000  # $3.86 a share
    assert empire.for_railroad("NYC").dividend == int(0.3 * expected) == 1  # 30 % vs 75 % of the profit
    assert spec.for_railroad("NYC").dividend == int(0.75 * expected) == 2
    assert empire.merge in (("BA", "NYC"), ("NYC", "BA"))


def test_naive_baseline_gives_legal_random_orders(session):
    """The tournament's yardstick (scripts/tournament.py): random, but legal and deterministic."""
    game = real_game(session, seed=13)
    first = []
    for player in game.players:
        player.personality = "naive"
        orders = computer_orders(session, game, player)
        assert_legal(session, game, player, orders)
        first.append(orders.to_dict())
    assert first == [computer_orders(session, game, p).to_dict() for p in game.players]
    assert sum(1 for o in first if o["stock"]) >= 5


# --------------------------------------------------------------------------- a careful president (issue 31)
def test_a_careful_president_weighs_what_the_row_costs(session):
    """§4.6B–D, §4.6E: PENN (Philadelphia 25 – Pittsburgh 16, 100 miles) owns PA1 (130 miles to
    Cleveland, 9, Great Lakes).  In Normal times the line costs 130 × $300 + $300 × (16 + 9) =
    $46,500 and earns its interest (the new miles, Cleveland, a third region): it is built.  A
    road that owes $400,000 of 12 % loans and has no cash waits; a road that already reaches
    Cleveland and runs at efficiency 55 would never earn the line's interest: it abandons it and
    bids again (§4.6 5, §4.7B)."""
    from pbm.cr.ai import Planner, RowOutlook
    from pbm.cr.engine import tables
    from pbm.rng import generator

    s = build_small(session, turn=13)
    p2 = s.players[2]
    p2.personality = "builder"
    session.flush()
    view = q.load(session, s.game)
    planner = Planner(view, view.players[p2.id], generator(1, 13, "t"), "builder")
    penn, pa1 = view.railroad("PENN"), view.route("PA1")
    out = planner.row_outlook(penn, pa1)
    assert isinstance(out, RowOutlook) and out.cost == 130 * 300 + tables.TOWN_BUILD_COST * (16 + 9)
    assert out.new_regions == 1
    # 650 new shares: 65 to each of the two directors at $10, 455 brokered at 90 % of $20
    assert out.stock_cash == 130 * 10 + 455 * 20 * 0.9
    assert out.pays > 0 and planner.build_decision(penn, pa1, penn.cash) == "build"
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert orders.for_railroad("PENN").build_per_mile == 375  # built; overspent (§4.6C, see below)

    rr = s.railroads["PENN"]
    rr.loan_debt, rr.cash, rr.last_revenue, rr.last_expenses = 400_000, 0, 30_000, 24_000
    session.flush()
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    penn_o = orders.for_railroad("PENN")
    assert penn_o.build_per_mile is None and not penn_o.abandon and penn_o.row_first is None  # waits

    rr.loan_debt, rr.cash, rr.last_revenue, rr.last_expenses, rr.efficiency = 0, 5_000, 0, 0, 55
    ls = s.routes["LS"]
    session.add(Line(railroad_id=rr.id, route_id=ls.id, built_turn=0))
    ls.owner_id = rr.id
    s.pcs["LS"].status, s.pcs["LS"].railroad_id = "merged", rr.id
    session.flush()
    session.expire_all()
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    penn_o = orders.for_railroad("PENN")
    assert penn_o.abandon and penn_o.build_per_mile is None


def test_a_careful_president_repays_short_term_loans_from_spare_cash(session):
    """§10.2B: a road with $200,000 cash and $50,000 of short-term loans (12 % in Normal) repays
    them all; a road with no spare cash repays nothing."""
    s = build_small(session, turn=13)
    p2 = s.players[2]
    p2.personality = "builder"
    rr = s.railroads["PENN"]
    rr.cash, rr.loan_debt, rr.bond_debt = 200_000, 50_000, 20_000
    session.flush()
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert orders.for_railroad("PENN").repay_debt == 50_000
    rr.cash = 0
    session.flush()
    orders = computer_orders(session, s.game, p2)
    assert orders.for_railroad("PENN").repay_debt == 0


def test_a_rich_road_pays_a_dividend_after_a_split(session):
    """§4.12, §6.5: dividends are whole dollars a share.  NYC, split to 2,500 shares, expects
    about $3,860 of profit ($1.54 a share): the builder's half is $0.77 — the old rule paid $0;
    a road sitting on $200,000 (more than ten times $1 × 2,500 spare) pays $1, one without
    cash pays nothing."""
    s = build_small(session, climate="Good")
    p1 = s.players[1]
    rr = s.railroads["NYC"]
    rr.shares_issued, rr.cash = 2_500, 200_000
    session.flush()
    per = 0.5 * _expected_profit(session, s, p1, "NYC") / 2_500
    assert 0.5 <= per < 1
    orders = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, orders)
    assert orders.for_railroad("NYC").dividend == 1
    rr.cash = 0
    session.flush()
    assert computer_orders(session, s.game, p1).for_railroad("NYC").dividend == 0


def test_a_road_in_debt_sells_treasury_stock_when_it_is_dear(session):
    """§10.2C3: at $70 a share PENN, owing $10,000 of short-term loans, offers what is left of its
    treasury after the president's half-price purchase (§10.2C2) to the market; at $30 it keeps it."""
    s = build_small(session, turn=13)
    p2 = s.players[2]
    p2.personality = "builder"
    rr = s.railroads["PENN"]
    rr.price, rr.loan_debt = 70.0, 10_000
    session.flush()
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    penn = orders.for_railroad("PENN")
    assert penn.treasury_to_market == rr.treasury_shares - penn.treasury_to_president > 0
    rr.price = 30.0
    session.flush()
    assert computer_orders(session, s.game, p2).for_railroad("PENN").treasury_to_market == 0


# --------------------------------------------------------------------------- a careful player's tactics (issue 31)
def _planner(session, s, player, style: str = "builder"):
    """A computer planner for ``player`` on a fresh view, its orders planned (``.tactics`` filled)."""
    from pbm.cr.ai import Planner
    from pbm.rng import generator

    session.flush()
    session.expire_all()
    view = q.load(session, s.game)
    planner = Planner(view, view.players[player.id], generator(s.game.seed, s.game.turn, "t"), style)
    planner.plan()
    return planner


def test_a_careful_president_double_tracks_a_busy_line_when_it_pays(session):
    """§4.15: double track costs 25 % of the minimum a mile, from cash, and adds (value + value) %
    to the line's revenue.  PENN (Philadelphia 25 – Pittsburgh 16, 100 miles) pays $7,500 for
    41 % more of a $12,150 line — about $1,490 more profit a turn at efficiency 85, repaid in
    five turns: a road with the cash does it.  B&A (Boston 16 – Albany 4, 200 miles) would pay
    $15,000 for 20 % more — eighteen turns to repay: it does not; nor does PENN without cash."""
    s = build_small(session, turn=3)
    p1, p2 = s.players[1], s.players[2]
    p1.personality = p2.personality = "builder"
    s.railroads["PENN"].cash = s.railroads["BA"].cash = 80_000
    planner = _planner(session, s, p2)
    penn = planner.o.for_railroad("PENN")
    assert penn.double_track == ["PENN"] and ("double-track", "PENN") in planner.tactics
    assert planner.double_track_gain(planner.view.railroad("PENN"), planner.view.route("PENN")) * 6 >= 7_500
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert orders.for_railroad("PENN").double_track == ["PENN"]
    orders = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, orders)
    assert orders.for_railroad("BA").double_track == []  # does not pay
    s.railroads["PENN"].efficiency = 75  # margin 19 %: seven turns to repay
    assert _planner(session, s, p2).o.for_railroad("PENN").double_track == []
    s.railroads["PENN"].efficiency = 85
    s.game.turn = 17  # §1.3: the game may end after turn 21, before the five turns are up
    assert _planner(session, s, p2).o.for_railroad("PENN").double_track == []
    s.game.turn = 3
    s.railroads["PENN"].cash = 5_000
    assert _planner(session, s, p2).o.for_railroad("PENN").double_track == []  # no cash to spare


def _rate_war_state(session, *, hrl_efficiency: int, nyc_efficiency: int, hrl_holding: int = 420):
    """NYC (player 1) also runs NY1 (New York – Albany); the HRL (player 3 holds 60 %) runs the
    parallel HRL route (§4.16: the two routes of a double connection)."""
    from pbm.models import Holding, Railroad

    s = build_small(session, turn=3)
    nyc = s.railroads["NYC"]
    nyc.efficiency = nyc_efficiency
    session.add(Line(railroad_id=nyc.id, route_id=s.routes["NY1"].id, built_turn=1))
    s.routes["NY1"].owner_id = nyc.id
    hrl = Railroad(game_id=s.game.id, code="HRL", name="HRL", number=4, status="active", founded_turn=1, price=15.0,
                   shares_authorized=800, shares_issued=700, shares_public=280, treasury_shares=100, cash=5000,
                   efficiency=hrl_efficiency, locomotive=1, technologies=[], dividend=1,
                   president_id=s.players[3].id)
    session.add(hrl)
    session.flush()
    session.add(Line(railroad_id=hrl.id, route_id=s.routes["HRL"].id, built_turn=1))
    s.routes["HRL"].owner_id = hrl.id
    s.pcs["HRL"].status, s.pcs["HRL"].railroad_id = "incorporated", hrl.id
    hrl.shares_public = 700 - hrl_holding
    session.add(Holding(player_id=s.players[3].id, railroad_id=hrl.id, shares=hrl_holding, director=True))
    s.players[1].personality = "builder"
    return s


def test_a_careful_president_declares_a_rate_war_when_it_pays(session):
    """§4.16: both roads lose the same percentage of their revenue along the parallel lines, and
    keep their operating costs.  The NYC at efficiency 95 earns on two lines; the HRL at 60 lives
    on its one line and a thin margin: a 10 % cut turns the HRL's profit into a loss while the NYC
    keeps a profit, and it costs player 1 (30 % of the NYC) less than player 3 (60 % of the HRL):
    player 1 declares it.  With the roles reversed (NYC at 60, HRL at 95) the NYC would be the
    one in loss: no war."""
    s = _rate_war_state(session, hrl_efficiency=60, nyc_efficiency=95)
    p1 = s.players[1]
    planner = _planner(session, s, p1)
    wars = planner.o.for_railroad("NYC").rate_wars
    assert [(w.target, w.percent) for w in wars] == [("HRL", 10)] and ("rate-war", "HRL") in planner.tactics
    orders = computer_orders(session, s.game, p1)
    assert_legal(session, s.game, p1, orders)
    assert [w.target for w in orders.for_railroad("NYC").rate_wars] == ["HRL"]
    session.rollback()
    s = _rate_war_state(session, hrl_efficiency=95, nyc_efficiency=60)
    assert _planner(session, s, s.players[1]).o.for_railroad("NYC").rate_wars == []
    # the NYC would lose more revenue along New York – Albany than the HRL: with the HRL's
    # largest holder at 20 % the war costs player 1 (30 % of the NYC) more than him: no war
    session.rollback()
    s = _rate_war_state(session, hrl_efficiency=60, nyc_efficiency=95, hrl_holding=140)
    assert _planner(session, s, s.players[1]).o.for_railroad("NYC").rate_wars == []


def test_a_rate_war_is_never_declared_on_a_road_the_president_holds(session):
    """§4.16: the war would cut the value of his own holding as well."""
    from pbm.models import Holding

    s = _rate_war_state(session, hrl_efficiency=60, nyc_efficiency=95)
    hrl = session.query(type(s.railroads["NYC"])).filter_by(game_id=s.game.id, code="HRL").one()
    session.add(Holding(player_id=s.players[1].id, railroad_id=hrl.id, shares=20, director=False))
    assert _planner(session, s, s.players[1]).o.for_railroad("NYC").rate_wars == []


def test_a_careful_player_sells_short_when_it_pays(session):
    """§6.2: a short sale gains what the price falls by the end of the turn; the Public sells a
    stock priced over its fair value down (§6.3A, docs/cr/formulas.md).  B&A at $90 with a $0
    dividend and no profit is worth a fraction of that to the Public: a builder in Normal times
    sells it short (the 10 % of §6.2A).  At $90 with a $9 dividend on a $9 profit a share the
    Public values it over $200: no short."""
    s = build_small(session, turn=3)
    p3 = s.players[3]
    p3.personality, p3.cash = "builder", 20_000
    ba = s.railroads["BA"]
    ba.price, ba.dividend, ba.last_profit, ba.last_revenue = 90.0, 0, 0, 1
    planner = _planner(session, s, p3)
    assert planner.short_pays(planner.view.railroad("BA"))
    assert [(o.railroad, o.action, o.shares) for o in planner.o.stock if o.action == "short"] == [("BA", "short", 90)]
    orders = computer_orders(session, s.game, p3)
    assert_legal(session, s.game, p3, orders)
    assert any(o.action == "short" and o.railroad == "BA" for o in orders.stock)
    ba.dividend, ba.last_profit = 9, 9 * ba.shares_issued
    planner = _planner(session, s, p3)
    assert not planner.short_pays(planner.view.railroad("BA"))
    assert not any(o.action == "short" for o in planner.o.stock)


def test_a_sole_director_overspends_when_it_pays_him(session):
    """§4.6C: the excess over the minimum goes to the directors counted at the start of the turn,
    divided by their number plus one.  Player 2, PENN's only director with 20 % of its stock,
    pockets half of an excess while his stake loses a fifth of it: he overspends — as far as the
    road stays sound (§4.11C: a failed road's stock is cancelled): PENN, without debt, building
    PA1 (130 miles, $46,500 at the minimum) may owe at most 1.5 turns of revenue (about $51,800)
    after it, so he overspends a quarter of the minimum ($75 a mile: he pockets $4,875).  A PENN
    that already owes $60,000 does not overspend; nor does player 2 owning 70 % of the road (he
    would lose more than he pockets)."""
    from pbm.models import Holding

    s = build_small(session, turn=13)
    p2, p3 = s.players[2], s.players[3]
    p2.personality = "builder"
    h3 = session.query(Holding).filter_by(player_id=p3.id, railroad_id=s.railroads["PENN"].id).one()
    h3.shares, h3.director = 20, False  # player 3 is no longer a director: player 2 is alone
    s.railroads["PENN"].shares_public += 180
    planner = _planner(session, s, p2)
    assert planner.o.for_railroad("PENN").build_per_mile == 375 and ("overspend", "PENN") in planner.tactics
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert orders.for_railroad("PENN").build_per_mile == 375
    s.railroads["PENN"].bond_debt = 60_000
    planner = _planner(session, s, p2)
    assert planner.o.for_railroad("PENN").build_per_mile == 300 and not planner.looting
    s.railroads["PENN"].bond_debt = 0
    h2 = session.query(Holding).filter_by(player_id=p2.id, railroad_id=s.railroads["PENN"].id).one()
    h2.shares = 350
    s.railroads["PENN"].shares_public -= 250
    planner = _planner(session, s, p2)
    assert planner.o.for_railroad("PENN").build_per_mile == 300 and not planner.looting


def test_a_holder_leaves_a_road_a_rival_can_loot(session):
    """§4.6C defence: player 2 presides PENN as its only director with 20 % of the stock, and PENN
    owns a RoW it can build this turn at double the minimum: he would pocket half the excess and
    the road's other holders pay for it.  Player 3 (20 shares, not a director) sells out.  When
    player 2 owns 70 % (an overspend would cost him more than he pockets) player 3 stays."""
    from pbm.models import Holding

    s = build_small(session, turn=13)
    p2, p3 = s.players[2], s.players[3]
    p3.personality, p3.cash = "builder", 5_000
    penn = s.railroads["PENN"]
    h3 = session.query(Holding).filter_by(player_id=p3.id, railroad_id=penn.id).one()
    h3.shares, h3.director = 20, False
    penn.shares_public += 180
    planner = _planner(session, s, p3)
    assert planner.loot_exposure(planner.view.railroad("PENN"))
    assert ("loot-defence", "PENN") in planner.tactics
    assert ("PENN", "sell", 20) in [(o.railroad, o.action, o.shares) for o in planner.o.stock]
    assert not any(o.railroad == "PENN" and o.action == "buy" for o in planner.o.stock)
    h2 = session.query(Holding).filter_by(player_id=p2.id, railroad_id=penn.id).one()
    h2.shares = 350
    penn.shares_public -= 250
    planner = _planner(session, s, p3)
    assert not planner.loot_exposure(planner.view.railroad("PENN"))
    assert ("loot-defence", "PENN") not in planner.tactics


def test_the_looter_overspends_and_sells_out_the_same_turn(session):
    """scripts/tournament.py's overspend looter (issue 31): presiding PENN with a RoW to build, it
    builds at double the minimum (§4.6C) and sells all its PENN shares in the same turn (stock
    trading, step 6, comes before building, step 9; the directors are those of the start)."""
    s = build_small(session, turn=13)
    p2 = s.players[2]
    p2.personality = "looter"
    orders = computer_orders(session, s.game, p2)
    assert_legal(session, s.game, p2, orders)
    assert orders.for_railroad("PENN").build_per_mile == 600
    assert ("PENN", "sell", 100) in [(o.railroad, o.action, o.shares) for o in orders.stock]
    assert "PENN" not in (orders.control or [])


def test_a_careful_president_counts_the_efficiency_a_long_road_loses(session):
    """§4.5C: past 3,000 miles each 50 more take a point off the road's highest efficiency.  A
    2,800-mile PENN at efficiency 85 builds PA1 (130 miles: 2,930, no loss); a 3,800-mile PENN
    would fall to at most 80 (3,930 miles) — its margin on all it earns, more than the new line
    brings: the line does not pay and is not built (issue 31: most roads that went bankrupt late
    in a season were 4,000–7,000 miles long, capped at efficiency 30–60)."""
    s = build_small(session, turn=13)
    p2 = s.players[2]
    p2.personality = "builder"
    s.routes["PENN"].miles = 2_800
    planner = _planner(session, s, p2)
    penn, pa1 = planner.view.railroad("PENN"), planner.view.route("PA1")
    assert planner.row_outlook(penn, pa1).earns > 0
    assert planner.build_decision(penn, pa1, penn.cash) == "build"
    s.routes["PENN"].miles = 3_800
    planner = _planner(session, s, p2)
    penn, pa1 = planner.view.railroad("PENN"), planner.view.route("PA1")
    assert planner.row_outlook(penn, pa1).earns < 0
    assert planner.build_decision(penn, pa1, penn.cash) != "build"
    assert planner.o.for_railroad("PENN").build_per_mile is None

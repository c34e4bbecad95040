"""Continental Rails by the book, round 2 (issue 31): rules the engine got wrong, each
with the figures the rulebook gives (or that follow from it).

Each test names its section; every one of them failed on the engine before its fix.
"""

from __future__ import annotations

import math

from pbm.cr.engine.checks import check_money, check_shares
from pbm.cr.engine.context import Trade
from pbm.db import session_scope
from tests.cr.helpers import kinds as _kinds
from tests.cr.helpers import tiny_game
from tests.cr.helpers import turn_context as _ctx


# --------------------------------------------------------------------------- §6.1C, App. A 7.1
def test_stock_settlement_is_a_whole_a_sale_pays_for_a_purchase_6_1c_7_1(tiny):
    """App. A 7.1 "Stock market purchases deducted; sales added": a tycoon's trades are settled
    as a whole, so the sale of one stock pays for the purchase of another in the same turn.
    The issue's reproduction: $0 cash, sell 54 PENN at $16.47 ($889), buy 10 NYC at $25.90
    ($259) → no emergency loan, $630 cash (the engine lent $259 because the NYC, founded
    first, was settled before the PENN)."""
    from pbm.cr.engine.tycoons import settle_stock_trades

    s, g = tiny
    g.players[0].cash, g.players[1].cash = 0, 100
    s.flush()
    ctx = _ctx(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    ctx.scratch.trades = [  # railroad by railroad, in founding order, as trade_all leaves them
        Trade("player:1", "NYC", bought=10, price=25.90, cover_price=27.0),
        Trade("player:2", "NYC", bought=40, price=25.90, cover_price=27.0),
        Trade("player:1", "PENN", sold=54, price=16.47, cover_price=15.0),
        Trade("player:2", "PENN", sold=54, price=16.47, cover_price=15.0),
    ]
    settle_stock_trades(ctx)
    assert p1.loan == 0 and not _kinds(ctx, "emergency-loan", 1)
    assert p1.cash == 889 - 259 == 630
    # net cash short: the Bank lends only what the whole lacks: 100 + 889 − 1,036 → $0 and a $47 loan
    assert p2.loan == 47 and p2.cash == 0
    assert [e["amount"] for e in _kinds(ctx, "emergency-loan", 2)] == [47]
    assert not check_money(ctx)


def test_short_cover_is_settled_with_the_sales_6_2b_7_1(tiny):
    """§6.2B with 7.1: a short sale's cover is paid from the turn's proceeds as a whole; the
    Bank lends only what the whole lacks."""
    from pbm.cr.engine.tycoons import settle_stock_trades

    s, g = tiny
    g.players[0].cash = 0
    s.flush()
    ctx = _ctx(s, g)
    p1 = ctx.players[1]
    ctx.scratch.trades = [  # short 20 NYC at $20 (proceeds $400), covered at $30 ($600); sell 40 PENN at $10
        Trade("player:1", "NYC", shorted=20, price=20.0, cover_price=30.0),
        Trade("player:1", "PENN", sold=40, price=10.0, cover_price=9.0),
    ]
    settle_stock_trades(ctx)
    assert p1.loan == 0 and p1.cash == 400 + 400 - 600
    assert [e["amount"] for e in _kinds(ctx, "short-covered", 1)] == [-200]
    assert not check_money(ctx)


# --------------------------------------------------------------------------- §4.6D
def test_building_pays_for_every_town_on_the_route_4_6d(tiny):
    """§4.6D: "the railroad must pay to build into the Towns on the route": $300 × value of
    each end town, including the one the road already reaches.  NYC (New York–Albany)
    builds NY2 (Albany–Buffalo, 203 miles) at the Normal minimum of $300 a mile:
    203 × $300 + $300 × (Albany 2² + Buffalo 3²) = $60,900 + $3,900 = $64,800 (the engine
    charged $63,600: Albany free)."""
    from pbm.cr import queries as q
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import Orders, RailroadOrders
    from pbm.models import Railroad, Route

    s, g = tiny
    nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
    ny2 = s.query(Route).filter_by(game_id=g.id, code="NY2").one()
    ny2.owner_id = nyc.id
    nyc.president_id, g.players[0].slot1_id = g.players[0].id, nyc.id
    s.flush()
    view = q.load(s, g)
    assert q.build_cost(view, view.railroad("NYC"), 300) == 64_800  # what the turnsheet shows
    ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("NYC", build_per_mile=300)])})
    build_or_abandon_rows(ctx)
    [built] = _kinds(ctx, "row-built")
    assert built["amount"] == 64_800
    assert not check_money(ctx) and not check_shares(ctx)


def test_b_and_a_builds_ny1_on_the_real_map_4_6d(sqlite_url):
    """Issue 31's example on the real map: the B&A (Boston–Albany) builds NY1 (Albany–Montreal,
    210 miles) on turn 2 at $500 a mile.  The book: 210 × $500 + $300 × (Albany 4² + Montreal 5²)
    = $105,000 + $12,300 = $117,300; the engine charged $112,500 (Albany free).  (The issue
    quotes $113,700, valuing Albany at 4, its size; §2.6 makes the value the square of the size.)"""
    from pbm.cr.engine.construction import build_or_abandon_rows
    from pbm.cr.orders import Orders, RailroadOrders
    from pbm.cr.setup import create_game
    from pbm.models import Game, Railroad, Route

    with session_scope(sqlite_url) as s:
        create_game(s, seed=1841, name="real-4-6d")
        g = s.query(Game).filter_by(name="real-4-6d").one()
        g.turn, g.climate = 2, "Normal"
        ba = s.query(Railroad).filter_by(game_id=g.id, code="B&A").one()
        ny1 = s.query(Route).filter_by(game_id=g.id, code="NY1").one()
        assert {ny1.a.name, ny1.b.name, ny1.miles} == {"Albany", "Montreal", 210}
        ny1.owner_id = ba.id
        president = min(g.players, key=lambda p: p.number)
        ba.president_id, president.slot1_id = president.id, ba.id
        s.flush()
        ctx = _ctx(s, g, {president.number: Orders(railroads=[RailroadOrders("B&A", build_per_mile=500)])})
        build_or_abandon_rows(ctx)
        [built] = _kinds(ctx, "row-built")
        assert built["amount"] == 210 * 500 + 300 * (16 + 25) == 117_300
        assert not check_money(ctx)


# --------------------------------------------------------------------------- §4.16
def _penn_read(s, pct_orders):
    """PENN and READ, each a single line Philadelphia–Pittsburgh: the two routes of a double
    connection (§2.2), so the roads are parallel (§4.16)."""
    from pbm.models import Railroad
    from tests.cr.helpers import R, TINY_TOWNS, build_game

    routes = [R("PENN", "PC", "Philadelphia", "Pittsburgh", 300, double_with="READ"),
              R("READ", "PC", "Philadelphia", "Pittsburgh", 320, double_with="PENN"),
              R("NYC", "PC", "New York", "Albany", 148)]
    g = build_game(s, TINY_TOWNS, routes, [{"code": "PENN", "price": 15}, {"code": "READ", "price": 12}],
                   bank_pcs=[])
    penn = s.query(Railroad).filter_by(game_id=g.id, code="PENN").one()
    penn.president_id, g.players[0].slot1_id = g.players[0].id, penn.id
    s.flush()
    return g


def test_rate_war_example_both_roads_receive_75_percent_4_16(sqlite_url):
    """§4.16: "the Penn railroad could declare a 25% rate war with the READ railroad, meaning
    both railroads would only receive 75% of normal gross revenues".  Each road's revenue is
    ⌊75 % of its gross⌋ (the engine left two single-line roads 82.8 %: it cut only half of
    each end town's revenue).  Operating costs stay those of the full gross."""
    from pbm.cr.engine.operations import operating_expenses, operations
    from pbm.cr.orders import Orders, RailroadOrders, RateWar

    with session_scope(sqlite_url) as s:
        g = _penn_read(s, 25)
        ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("PENN", rate_wars=[RateWar("READ", 25)])])})
        operations(ctx)
        for code in ("PENN", "READ"):
            ops = ctx.scratch.operations[code]
            assert ops["gross"] > 0
            assert ops["revenue"] == math.floor(ops["gross"] * 75 / 100)
            assert ops["rate_war"] == ops["gross"] - ops["revenue"]
            assert ops["expenses"] == operating_expenses(ctx.railroads[code], ops["gross"])
        [war] = _kinds(ctx, "rate-war")
        assert war["data"] == {"percent": 25, "with": "READ"}


def test_rate_war_cuts_only_the_revenue_along_the_parallel_lines_4_16(tiny):
    """§4.16 "reduce revenues along any parallel lines" (ruling E-4.16): a road with other
    lines loses the percentage of what its parallel line earns — its $60 a mile and its end
    towns' $300 × value, a town shared equally by the road's lines that end there.  NYC (New
    York–Albany 148 mi, New York–Boston NYNH 110 mi) against PENN (Philadelphia–Pittsburgh
    300 mi, New York–Boston NY1 110 mi) at 25 %:
      NYC  base 60 × 258 + 300 × (25 + 4 + 16) = 28,980; NYNH 6,600 + 300 × (25/2 + 16) = 15,150
      PENN base 60 × 410 + 300 × (16 + 9 + 25 + 16) = 44,400; NY1 6,600 + 300 × 41 = 18,900."""
    from fractions import Fraction

    from pbm.cr.engine.operations import rate_war_losses, revenue_parts
    from pbm.cr.orders import Orders, RailroadOrders, RateWar
    from .helpers import tiny_parallel_lines

    s, g = tiny
    rr = tiny_parallel_lines(s, g)
    rr["NYC"].president_id, g.players[0].slot1_id = g.players[0].id, rr["NYC"].id
    s.flush()
    s.expire_all()
    ctx = _ctx(s, g, {1: Orders(railroads=[RailroadOrders("NYC", rate_wars=[RateWar("PENN", 25)])])})
    parts = {c: revenue_parts(ctx, ctx.railroads[c]) for c in ("NYC", "PENN")}
    assert (parts["NYC"]["base"], parts["PENN"]["base"]) == (28_980, 44_400)
    losses = rate_war_losses(ctx, parts)
    for code, line, base in (("NYC", 15_150, 28_980), ("PENN", 18_900, 44_400)):
        gross = parts[code]["gross"]
        assert losses[code] == gross - math.floor(gross * (1 - Fraction(25, 100) * Fraction(line, base)))


# --------------------------------------------------------------------------- §6.3G
def test_allocation_divides_by_supply_with_half_the_short_sales_6_3g():
    """§6.3B/G: "each player can only purchase a number of shares equal to his bid times the
    Supply divided by the Demand", Supply counting one half of the short sales.  100 shares
    offered and 100 sold short: 200 traded, Supply 150; a player bids 300 and the Public 100
    (Demand 400) → the player gets ⌊300 × 150 / 400⌋ = 112 (the engine gave 300 × 200 / 400
    = 150); the Public takes the other 88 of the 200 traded (§6.3E)."""
    from pbm.cr.engine.market import allocate

    assert allocate(200, {"1": 300}, 100, supply=150) == {"1": 112, "public": 88}
    assert allocate(200, {"1": 100}, 50, supply=150) == {"1": 100, "public": 100}  # Demand ≤ Supply: all of it
    assert allocate(200, {"1": 300}, 100) == {"1": 150, "public": 50}  # no short sales: Supply = shares sold


def test_market_allocates_bids_by_supply_with_shorts_6_3g(sqlite_url):
    """§6.3G in the market step: player 1 bids for 128 NYC while players 2 and 3 sell 26 and
    short 40 each; player 1 receives ⌊128 × Supply / Demand⌋ with the Supply of §6.3B."""
    from fractions import Fraction

    from pbm.cr.engine.market import stock_market
    from pbm.cr.orders import Orders, StockOrder

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, cash=10_000)
        orders = {1: Orders(stock=[StockOrder("NYC", "buy", 128, priority=1)]),
                  2: Orders(stock=[StockOrder("NYC", "sell", 66, priority=1)]),
                  3: Orders(stock=[StockOrder("NYC", "sell", 66, priority=1)])}
        ctx = _ctx(s, g, orders)
        stock_market(ctx)
        m = ctx.scratch.market["NYC"]
        assert m["short_sales"] == 80 and m["player_sales"] == 52 and m["player_bids"] == 128
        assert m["supply"] == m["public_offer"] + 52 + 80 / 2
        assert m["demand"] > m["supply"]  # bids are cut
        [trade] = [t for t in ctx.scratch.trades if t.account == "player:1"]
        assert trade.bought == math.floor(128 * Fraction(m["supply"]) / Fraction(m["demand"]))
        assert not check_shares(ctx)


# --------------------------------------------------------------------------- §10.1B1b/d, R-O6
def _owned_pc(s, g, code, paid, asking=None):
    from pbm.models import PrivateCompany, Route

    pc = s.query(PrivateCompany).join(Route).filter(Route.code == code, PrivateCompany.game_id == g.id).one()
    pc.status, pc.owner_id, pc.paid = "owned", g.players[0].id, paid
    pc.for_sale, pc.asking_price, pc.offered_turn = asking is not None, asking, (g.turn - 1 if asking else None)
    s.flush()
    return pc


def test_asking_price_never_passes_20_percent_over_what_was_paid_10_1b1b(sqlite_url):
    """§10.1B1b: "The minimum price cannot be more than 20% more [than] you paid for it, but you
    can always set a price of $10 per mile"; §10.1B1d lets an offered PC's price be raised "up
    to 20% higher" — within that limit, not compounding.  LS (182 miles) paid $3,000 and
    offered at $3,600: an ask of $4,320 stays $3,600 (the engine allowed $4,320, then $5,184,
    $6,220 …).  ERIE (287 miles) paid $5,000, lowered to $3,000: $3,600 at most (§10.1B1d);
    MC (152 miles) paid $500: $10 a mile, $1,520, is always allowed."""
    from pbm.cr import queries as q
    from pbm.cr.engine.privates import private_company_offers
    from pbm.cr.orders import Orders, PCAction

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, turn=3)
        _owned_pc(s, g, "LS", 3000, asking=3600)
        _owned_pc(s, g, "ERIE", 5000, asking=3000)
        _owned_pc(s, g, "MC", 500)
        view = q.load(s, g)
        assert q.pc_ask_range(view, view.pc("LS")) == (182, 3600)
        assert q.pc_ask_range(view, view.pc("ERIE")) == (287, 3600)
        assert q.pc_ask_range(view, view.pc("MC")) == (152, 1520)
        ctx = _ctx(s, g, {1: Orders(pc_actions=[PCAction("LS", "sell", price=4320),
                                                PCAction("ERIE", "sell", price=6000),
                                                PCAction("MC", "sell", price=5000)])})
        private_company_offers(ctx)
        assert {c: ctx.pcs[c].asking_price for c in ("LS", "ERIE", "MC")} == {"LS": 3600, "ERIE": 3600, "MC": 1520}
        assert len(_kinds(ctx, "pc-ask-adjusted", 1)) == 3


# --------------------------------------------------------------------------- ruling E-6.2
def test_short_sales_cut_pro_rata_are_told_in_the_report_e_6_2(sqlite_url):
    """Ruling E-6.2: shorts are covered from the Public, so together they cannot exceed what the
    Public keeps after its own offer; when they are cut pro rata each short seller is told, in
    his own report (§9.6), and only he.  NYC: 666 issued, players 1–2 hold 300 each, the Public
    66; players 3 and 4 (no shares) each short the 10 % limit, 66."""
    from pbm.cr.orders import Orders, StockOrder
    from pbm.cr.resolve import resolve_turn
    from pbm.models import Holding, Railroad
    from pbm.report.sections import private_report
    from pbm.report.view import load_turn
    from pbm.report.visibility import visibility

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, cash=10_000)
        nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
        for h in s.query(Holding).filter_by(railroad_id=nyc.id):
            h.shares = 300 if h.player.number <= 2 else 0
        nyc.shares_public = nyc.shares_issued - 600
        assert nyc.shares_public == 66
        s.flush()
        turn = g.turn
        resolve_turn(s, g, {n: Orders(stock=[StockOrder("NYC", "sell", 66, priority=1)]) for n in (3, 4)})
        g.turn = turn + 1  # as run_turn leaves it: the turn resolved is the one reported
        s.flush()
        data = load_turn(s, g, turn)
        cuts = [e for e in data.events if e["kind"] == "short-cut"]
        assert sorted(e["player"] for e in cuts) == [3, 4]
        for e in cuts:
            assert e["private_to"] == [e["player"]]
            d = e["data"]
            assert d["asked"] == 66 and d["total"] == 132 and d["room"] < 132
            assert d["allowed"] == math.floor(66 * d["room"] / 132)
        text = cuts[0]["text"]
        assert f"Your short sale of 66 NYC was cut to {cuts[0]['data']['allowed']}" in text
        assert text in private_report(data, visibility(data, cuts[0]["player"])).news
        assert not any("short sale of 66 NYC" in t for t in private_report(data, visibility(data, 1)).news)


# --------------------------------------------------------------------------- display (§9.3 Div/sh)
def test_show_div_column_is_the_dividend_paid_9_3(tiny):
    """``pbm show``'s "div" column is the dividend paid a share last turn (§9.3 "Div/sh: the
    actual dividend rate paid per share that turn"), not the standing rate the president
    set: NYC stands at $99 but paid $21 (its cash allowed no more)."""
    from pbm.cr.show import summary
    from pbm.models import Railroad

    s, g = tiny
    nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
    nyc.dividend, nyc.last_dividend = 99, 21
    s.flush()
    text = summary(s, g)
    header = next(line for line in text.splitlines() if line.strip().startswith("code"))
    row = next(line for line in text.splitlines() if line.strip().startswith("NYC "))
    col = header.index("div")
    assert row[col - 2:col + 3].strip() == "$21"
    assert " 99 " not in row


def test_turnsheet_never_offers_a_negative_repayment_10_2a(sqlite_url):
    """§10.2A2: a railroad repays its President out of its cash.  With $-1,796 cash and $5,000
    owed, the sheet offered "REPAY PRESIDENT: 0 to $-1,796"; it now says there is nothing to
    repay with, and never prints a negative limit."""
    from pbm.models import Railroad
    from pbm.turnsheet.facts import sheet_facts
    from pbm.turnsheet.text import railroad_lines, render_text

    with session_scope(sqlite_url) as s:
        g = tiny_game(s, humans=1)
        nyc = s.query(Railroad).filter_by(game_id=g.id, code="NYC").one()
        p1 = g.players[0]
        nyc.president_id, p1.slot1_id = p1.id, nyc.id
        nyc.cash, nyc.president_debt = -1796, 5000
        s.flush()
        facts = sheet_facts(s, g, p1)
        [block] = [b for b in facts.railroads if b.code == "NYC"]
        assert block.max_repay_president == 0 and block.max_lend >= 0 and block.max_repay_debt >= 0
        lines = dict(railroad_lines(block))
        assert "$-" not in lines["NYC REPAY PRESIDENT"]
        assert "no cash" in lines["NYC REPAY PRESIDENT"] and "$5,000" in lines["NYC REPAY PRESIDENT"]
        assert "$-" not in render_text(facts).replace("$-1,796", "")  # the cash itself may be shown


# --------------------------------------------------------------------------- §6.3H (ruling E-6.3D)
def test_stock_market_example_6_3h_as_the_engine_plays_it():
    """Ruling E-6.3D: §6.3H prints its prices with the plain ratio (exponent 1: $40/$30, $10/$15)
    and lets Player 2 bid 200 shares, over §6.1B's limit of 20 % of (1,000 issued − 350 held by
    the directors, Players 1 and 2) = 130.  The engine plays the formula (§6.3D, 0.7) and the
    limit: 400 bid / 200 offered → $32.49 end, $26.25 trade; reversed → $12.31, $16.16.  With
    Player 2's bid lowered to 130 the 200 shares go 30 / 78 / 92 (Public)."""
    from pbm.cr.engine.market import BID_PCT, allocate, market_price, trade_price

    assert (market_price(20, 400, 200), trade_price(20, 32.49)) == (32.49, 26.25)
    assert (market_price(20, 200, 400), trade_price(20, 12.31)) == (12.31, 16.16)
    assert math.floor(BID_PCT * (1000 - (200 + 150))) == 130 < 200
    assert allocate(200, {"1": 50, "2": 130}, 150) == {"1": 30, "2": 78, "public": 92}

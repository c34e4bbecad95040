"""The turn context, its plain rows and its writes, measured by mutation testing (issue 31, part 2:
``pbm/cr/engine/context.py``, ``rows.py``, ``writes.py``).

Each test pins an outcome the rules or the engine's bookkeeping depend on (the ledger that moves
every dollar, net worth as §3.5A defines it, the rounding of §1.0, the rows a turn writes back), so
that changing it in the engine makes the test fail; the rule section is named where there is one
(/work/shared/seeds/continental-rails-II-rules.txt).  ``scripts/mutation_cr.py`` reruns the
mutation tests; the scores and the equivalent mutants that survive are in docs/cr/rules-map.md,
"Mutation testing".  All on the tiny hand-built game of ``tests/cr/helpers.py`` (SQLite), each
well under a second.
"""

from __future__ import annotations

import pytest

from pbm.cr.engine.context import EngineError, TurnContext
from pbm.db import session_scope
from tests.cr.helpers import tiny_game


@pytest.fixture
def game(sqlite_url):
    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)


# ------------------------------------------------------------------------- the ledger (§1.0)
def test_the_ledger_moves_every_dollar_and_records_each_payment_in_order(game):
    """Every movement of money goes through ``ctx.pay``: the payer loses and the payee gains the
    amount in whole dollars (fractions rounded down, §1.0), the Bank and the Public are unbounded
    sources, each payment is one ledger entry numbered in order, a payment of $0 is no entry, and
    a negative payment, a payment to oneself or to an unknown account is an engine error."""
    s, g = game
    ctx = TurnContext(s, g)
    p1, nyc = ctx.players[1], ctx.railroads["NYC"]
    cash, rr_cash = p1.cash, nyc.cash
    assert ctx.pay("rr:NYC", "player:1", 100.9, "13.2", "dividend") == 100
    assert (p1.cash, nyc.cash) == (cash + 100, rr_cash - 100)
    assert ctx.pay("bank", "player:1", 0, "1", "loan") == 0
    assert ctx.pay("bank", "public", 7, "1", "x" * 130) == 7
    assert ctx.pay("player:1", "bank", 30, "2", "repay") == 30
    assert p1.cash == cash + 70 and nyc.cash == rr_cash - 100
    assert [(e["seq"], e["step"], e["source"], e["target"], e["amount"], e["turn"], e["game_id"])
            for e in ctx.ledger] == [(1, "13.2", "rr:NYC", "player:1", 100, g.turn, g.id),
                                     (2, "1", "bank", "public", 7, g.turn, g.id),
                                     (3, "2", "player:1", "bank", 30, g.turn, g.id)]
    assert [e["memo"] for e in ctx.ledger] == ["dividend", "x" * 120, "repay"]
    with pytest.raises(EngineError):
        ctx.pay("bank", "player:1", -1, "1", "loan")
    with pytest.raises(EngineError):
        ctx.pay("player:1", "player:1", 5, "1", "loan")
    with pytest.raises(EngineError):
        ctx.pay("treasury:NYC", "player:1", 5, "1", "loan")
    # a payment to an account that names nobody moves nothing (session 15: the payer was charged first)
    for bad in ("rr:NOPE", "player:99", "player:x", "nobody"):
        with pytest.raises(EngineError, match="unknown ledger account"):
            ctx.pay("player:1", bad, 5, "1", "loan")
    assert len(ctx.ledger) == 3 and p1.cash == cash + 70
    assert ctx.start_balances["player:1"] == cash and ctx.start_balances["rr:NYC"] == rr_cash
    assert set(ctx.balances()) == {f"player:{n}" for n in (1, 2, 3, 4)} | {"rr:NYC", "rr:PENN"}
    assert ctx.balances()["player:1"] == cash + 70 and ctx.balances()["rr:NYC"] == rr_cash - 100


def test_events_are_numbered_in_order_with_whole_dollar_amounts_and_their_readers(game):
    """The turn log the reports are made from: each event numbered in order, its amount in whole
    dollars (None when it has none), the tycoons it is private to listed once each in order."""
    s, g = game
    ctx = TurnContext(s, g)
    ctx.event("6.2", "§6.3", "trade", "A trade.", player=2, railroad="NYC", amount=12.7)
    ctx.event("7.4", "§11.1", "bank-failure", "A bank fails.", private_to=[3, 1, 3])
    first, second = ctx.events
    assert (first["seq"], first["amount"], first["player_number"], first["railroad"], first["private_to"],
            first["data"], first["headline"], first["turn"], first["game_id"]) == \
        (1, 12, 2, "NYC", None, {}, False, g.turn, g.id)
    assert (second["seq"], second["amount"], second["private_to"], second["kind"]) == (2, None, [1, 3], "bank-failure")


def test_a_turn_starts_in_the_games_climate_with_the_orders_given(game):
    """§5: the turn is resolved in the climate it starts in; the climate for the rest of the
    turn (the market's mood, the next credit limits) is the same until step 5 changes it.  The
    context keeps its own copy of the tycoons' orders."""
    from pbm.cr.engine import tables
    from pbm.cr.orders import Orders

    s, g = game
    g.climate = "Recession"
    orders = {1: Orders()}
    ctx = TurnContext(s, g, orders)
    assert ctx.climate is tables.climate("Recession") and ctx.new_climate is ctx.climate
    assert ctx.orders == orders and ctx.orders is not orders and ctx.rr_orders == {}
    assert ctx.turn == g.turn and ctx.game is g and ctx.session is s
    assert TurnContext(s, g).orders == {}


# ---------------------------------------------------------------------- rounding (§1.0)
def test_money_is_rounded_down_and_interest_up_to_the_dollar_and_the_cent_1_0():
    """§1.0: "Any fractions are rounded down, except that the Bank rounds up when charging
    interest on loans".  A whole amount stays as it is (a float a hair off it, from arithmetic,
    is read as the whole amount); prices round to the cent the same way."""
    from pbm.cr.engine.context import ceil_cents, ceil_money, floor_cents, floor_money

    assert [floor_money(x) for x in (5.0, 5.999, 4.9999999999, -0.5, 0.1 + 0.2)] == [5, 5, 5, -1, 0]
    assert [ceil_money(x) for x in (5.0, 5.001, 5.0000000001, 0.0, -0.5)] == [5, 6, 5, 0, 0]
    assert [floor_cents(x) for x in (1.239, 1.23, 0.1 + 0.2, 2.0)] == [1.23, 1.23, 0.3, 2.0]
    assert [ceil_cents(x) for x in (1.231, 1.23, 0.1 + 0.2, 2.0)] == [1.24, 1.23, 0.3, 2.0]


# ------------------------------------------------------------------------ net worth (§3.5A)
def test_net_worth_is_cash_plus_stock_plus_pcs_at_most_20_a_mile_minus_the_loan_3_5a(game):
    """§3.5A: "cash plus stock value plus PC value minus debt"; stock at the current price per
    share (each holding's value rounded down, §1.0), a short sale owing its shares at that price
    (§6.2); a PC at what was paid, "but the bank will not appraise them at any figure higher than
    $20/mile"; only PCs the tycoon owns; the loan to a railroad is not counted (§4.4E).
    ``net_worths`` gives every tycoon's figure in one pass, the same as ``net_worth``."""
    s, g = game
    ctx = TurnContext(s, g)
    p1, p2 = ctx.players[1], ctx.players[2]
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    for p in ctx.players.values():
        for h in p.holdings:
            h.shares = 0
    p1.cash, p1.loan = 1_000, 300
    nyc.price, penn.price = 20.5, 3.3
    ctx.holding(p1, nyc).shares = 3  # 61.5: $61
    h = ctx.holding(p1, penn)
    h.shares, h.short = 10, 7  # 33 - 23.1: 33 - 23 = $10
    nyc.president_id, nyc.president_debt = p1.id, 5_000  # owed to him by his road: not counted
    erie, lake_shore, boston = ctx.pcs["ERIE"], ctx.pcs["LS"], ctx.pcs["B&A"]
    erie.status, erie.owner_id, erie.paid = "owned", p1.id, 9_000  # 287 miles: appraised at $5,740
    lake_shore.status, lake_shore.owner_id, lake_shore.paid = "owned", p1.id, 1_000  # under $20 a mile
    boston.status, boston.owner_id, boston.paid = "bank", p1.id, 4_000  # not owned: not counted
    assert ctx.pc_value(erie) == 5_740 and ctx.pc_value(lake_shore) == 1_000
    assert ctx.net_worth(p1) == 1_000 + 61 + 10 + 5_740 + 1_000 - 300
    p2.cash, p2.loan = 50, 80
    assert ctx.net_worth(p2) == -30
    assert ctx.net_worths() == {1: 7_511, 2: -30, 3: ctx.players[3].cash, 4: ctx.players[4].cash}
    assert ctx.shares(p1, nyc) == 3 and ctx.shares(p2, nyc) == 0
    assert ctx.player_shares(penn) == 10


def test_a_holding_is_made_empty_once_and_directors_are_listed_by_number_4_14a(game):
    """A tycoon's first shares of a road go into a new, empty holding (no shares, no short sale,
    not a director: §4.14A elects directors at the end of the turn), listed with the tycoon's and
    the road's holdings and found again the next time.  The directors are those elected last
    turn, by tycoon number."""
    s, g = game
    ctx = TurnContext(s, g)
    p1, p3, nyc = ctx.players[1], ctx.players[3], ctx.railroads["NYC"]
    old = ctx.holdings.pop((p1.id, nyc.id))
    p1.holdings.remove(old)
    nyc.holdings.remove(old)
    assert ctx.shares(p1, nyc) == 0  # no holding: no shares
    h = ctx.holding(p1, nyc)
    assert (h.shares, h.short, h.director, h.player_id, h.railroad_id) == (0, 0, False, p1.id, nyc.id)
    assert h.player is p1 and h.railroad is nyc
    assert h in p1.holdings and h in nyc.holdings and ctx.holdings[(p1.id, nyc.id)] is h
    assert ctx.holding(p1, nyc) is h and p1.holdings.count(h) == 1 and nyc.holdings.count(h) == 1
    assert ctx.directors(nyc) == []
    ctx.holding(p3, nyc).director = True
    h.director = True
    assert [p.number for p in ctx.directors(nyc)] == [1, 3]


# --------------------------------------------------------------------- the map and the roads
def test_roads_lines_rows_towns_and_regions_as_the_rules_read_them_2_7b_4_7a(game):
    """The queries every step asks: the roads that operate (active or bankrupt, §4.11B) in
    founding order; a road's lines by route number, its miles, its one unbuilt RoW (§4.7A: found
    again after the routes change), the towns its lines reach and the regions of their starred
    towns (§2.7B); the routes at a town (a route from a town to itself listed once)."""
    s, g = game
    ctx = TurnContext(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    assert [r.code for r in ctx.active()] == ["NYC", "PENN"]
    nyc.status = "bankrupt"
    penn.status = "merged"
    assert [r.code for r in ctx.active()] == ["NYC"]
    penn.status = "active"
    assert ctx.row_of(nyc) is None
    row = ctx.routes["NY2"]
    row.owner_id = nyc.id
    assert ctx.row_of(nyc) is None  # remembered until the routes change
    ctx.routes_changed()
    assert ctx.row_of(nyc) is row and ctx.row_of(penn) is None
    ctx.routes["ERIE"].owner_id = penn.id  # a PC line owned, not a RoW
    ctx.routes_changed()
    assert ctx.row_of(penn) is None
    from pbm.cr.engine.construction import _add_line

    _add_line(ctx, nyc, ctx.routes["PA1"])  # route 11
    _add_line(ctx, nyc, row)  # route 10: built, no longer a RoW
    ctx.routes_changed()
    assert ctx.row_of(nyc) is None
    assert [r.code for r in ctx.line_routes(nyc)] == ["NYC", "NY2", "PA1"]
    assert [ctx.route_by_id[line.route_id].code for line in ctx.lines_of(nyc)] == ["NYC", "NY2", "PA1"]
    assert ctx.miles(nyc) == 148 + 203 + 90
    names = {t.id: t.name for t in ctx.towns.values()}
    assert {names[t] for t in ctx.towns_of(nyc)} == {"New York", "Albany", "Buffalo", "Philadelphia"}
    assert ctx.regions_of(nyc) == {"Atlantic", "Great Lakes"}  # Albany has no star
    assert ctx.regions_of(penn) == {"Atlantic", "Ohio"}
    albany = next(t for t in ctx.towns.values() if t.name == "Albany")
    assert sorted(r.code for r in ctx.routes_at(albany.id)) == ["B&A", "ERIE", "NY2", "NYC"]
    assert ctx.routes_at(-1) == []
    loop = ctx.routes["IN4"]
    loop.b_id = loop.a_id
    ctx._routes_at = None
    assert [r.code for r in ctx.routes_at(loop.a_id)].count("IN4") == 1


def test_a_road_is_run_by_the_computer_without_a_human_president_3_1(game):
    """§3.1: open seats are played by the computer; a road with no president is run by it too."""
    s, g = game
    ctx = TurnContext(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.president_id = None
    assert ctx.president_is_computer(nyc)
    nyc.president_id = ctx.players[2].id
    assert ctx.president_is_computer(nyc)
    ctx.players[2].human = True
    assert not ctx.president_is_computer(nyc)
    assert ctx.player(2) is ctx.players[2] and ctx.player(None) is None and ctx.player(9) is None


def test_the_turns_randomness_is_its_own_stream_per_purpose(game):
    """Every draw comes from ``ctx.rng(purpose)``: the game's seed, the turn and the purpose fix
    it, so a turn replays exactly, and two purposes draw independently."""
    from pbm.rng import generator

    s, g = game
    ctx = TurnContext(s, g)
    assert ctx.rng("public-market").integers(0, 10**9, 5).tolist() == \
        generator(g.seed, g.turn, "public-market").integers(0, 10**9, 5).tolist()
    assert ctx.rng("public-market").random() != ctx.rng("bank-failures").random()


# ------------------------------------------------------------ the turn's rows (rows.py)
def _statements(s):
    """The statements the session's engine sends, as a list filled while the test runs."""
    from sqlalchemy import event

    sent: list[str] = []
    engine = s.get_bind()

    def seen(_conn, _cursor, statement, *_args) -> None:
        sent.append(statement.split()[0].upper())

    event.listen(engine, "before_cursor_execute", seen)
    return sent, lambda: event.remove(engine, "before_cursor_execute", seen)


def test_a_new_row_has_the_models_defaults_and_its_key_when_inserted_now(game):
    """A row the turn makes (a new railroad at §4.3A1's incorporation, a new holding) has the
    model's Python-side defaults, as the ORM's insert would give it (each list its own), the
    values given, and no key until it is inserted: ``insert_now`` gives the rows named their
    keys (the next ones the database would give) and inserts them at once, the others wait for
    the turn's write; a change made afterwards to a row inserted now is written by that write."""
    from sqlalchemy import select

    from pbm.models import Player, Railroad

    s, g = game
    ctx = TurnContext(s, g)
    top = s.scalar(select(Player.id).order_by(Player.id.desc()).limit(1))
    first = ctx.rows.new(Player, game_id=g.id, number=5, character="Tycoon 5")
    second = ctx.rows.new(Player, game_id=g.id, number=6, character="Tycoon 6", cash=77)
    assert (first.id, first.cash, first.loan, first.name, first.human, first.personality, first.slot1_id,
            first.bonuses_claimed, first.mogul_fraction) == (None, 0, 0, "", False, "builder", None, [], 0.0)
    assert second.cash == 77 and first.bonuses_claimed is not second.bonuses_claimed
    rr = ctx.rows.new(Railroad, game_id=g.id, code="LS", name="LS line", number=3, status="active",
                      founded_turn=1, price=12.0, efficiency=90, locomotive=1)
    assert rr.technologies == [] and rr.regions_at_start == [] and rr.president_id is None
    ctx.rows.insert_now([second])
    assert second.id == top + 1 and first.id is None
    assert s.scalar(select(Player.cash).where(Player.id == second.id)) == 77
    second.cash = 88  # changed after its insert: written by the turn's write
    ctx.write_rows()
    assert first.id == top + 2
    got = dict(s.execute(select(Player.number, Player.cash).where(Player.game_id == g.id)).all())
    assert got[5] == 0 and got[6] == 88
    assert s.scalar(select(Railroad.technologies).where(Railroad.id == rr.id)) == []


def test_a_row_made_and_deleted_in_the_same_turn_is_never_written(game):
    """A new row deleted before the write (a line built and lost in one turn) costs no
    statement; a loaded row deleted is one DELETE (whatever was changed on it first), and the
    session lets go of its ORM row."""
    from sqlalchemy import inspect, select

    from pbm.models import Holding, Line

    s, g = game
    ctx = TurnContext(s, g)
    from pbm.cr.engine.construction import _add_line

    nyc = ctx.railroads["NYC"]
    _add_line(ctx, nyc, ctx.routes["PA1"])
    made = nyc.lines.pop()
    ctx.rows.delete(made)
    ctx.routes["PA1"].owner_id = None
    sent, stop = _statements(s)
    try:
        ctx.write_rows()
    finally:
        stop()
    assert sent == []  # nothing changed, nothing made, nothing deleted
    assert s.scalar(select(Line.id).where(Line.route_id == ctx.routes["PA1"].id)) is None
    first = min(ctx.holdings.values(), key=lambda h: h.id)
    orm = s.get(Holding, first.id)
    first.shares += 5  # changed, then deleted: only the DELETE is sent
    ctx.rows.delete(first)
    sent, stop = _statements(s)
    try:
        ctx.write_rows()
    finally:
        stop()
    assert sent == ["DELETE"]
    assert inspect(orm).detached and s.get(Holding, first.id) is None


def test_a_json_value_changed_deep_in_place_is_a_change(game):
    """The loaded values of JSON columns are kept as frozen copies: a list appended to or a value
    changed in a nested list is written; a list set to an equal list is no change."""
    from sqlalchemy import select

    from pbm.models import Railroad

    s, g = game
    ctx = TurnContext(s, g)
    nyc, penn = ctx.railroads["NYC"], ctx.railroads["PENN"]
    nyc.regions_at_start = ["Atlantic", ["x"]]
    ctx.write_rows()
    nyc.regions_at_start[1].append("y")
    penn.technologies = list(penn.technologies)  # equal: not written
    sent, stop = _statements(s)
    try:
        ctx.write_rows()
    finally:
        stop()
    assert sent == ["UPDATE"]
    assert s.scalar(select(Railroad.regions_at_start).where(Railroad.id == nyc.id)) == ["Atlantic", ["x", "y"]]


def test_a_value_not_loaded_is_read_through_the_orm(game):
    """``loaded`` reads two values from a row's loaded values, and an attribute not loaded (an
    ORM row expired) through the ORM, which loads it: the value is always the attribute's."""
    from sqlalchemy import select

    from pbm.cr.engine.context import loaded
    from pbm.models import Route

    s, g = game
    route = s.scalar(select(Route).where(Route.game_id == g.id, Route.code == "NYC"))
    a, b = route.a_id, route.b_id
    s.expire(route)
    assert "a_id" not in route.__dict__
    assert loaded(route, "a_id", "b_id") == (a, b)
    assert loaded(route, "b_id", "a_id") == (b, a)


def test_the_turns_log_goes_in_one_driver_level_insert_a_table_on_sqlite(game):
    """The turn's ledger and events are written at the end of the turn in one statement a table
    (on SQLite a driver-level executemany of the values SQLAlchemy would bind, the table's name
    quoted; on an engine with its own JSON encoder, SQLAlchemy's own insert): every column as
    given, JSON ``None`` as ``null`` and an empty dict as ``{}``, an empty list as ``[]``."""
    import json

    from sqlalchemy import create_engine, select, text

    from pbm.cr.engine.context import insert_rows
    from pbm.models import Event, LedgerEntry

    s, g = game
    ctx = TurnContext(s, g)
    ctx.pay("bank", "player:1", 5, "1", "loan")
    ctx.event("1", "§10.1A", "loan", "A loan.", player=1, amount=5, private_to=[])
    ctx.event("2", "§10.1A", "loan", "Another.", data={"x": [1, None]}, headline=True)
    sent: list[str] = []
    from sqlalchemy import event

    engine = s.get_bind()

    def seen(_conn, _cursor, statement, *_args) -> None:
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        ctx.flush_log()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert [x.split("(")[0].strip() for x in sent] == ['INSERT INTO "ledger"', 'INSERT INTO "events"']
    assert s.execute(select(LedgerEntry.seq, LedgerEntry.source, LedgerEntry.target, LedgerEntry.amount,
                            LedgerEntry.memo).where(LedgerEntry.game_id == g.id)).all() == \
        [(1, "bank", "player:1", 5, "loan")]
    got = s.execute(text("SELECT seq, kind, player_number, amount, headline, private_to, data, text FROM events "
                         "WHERE game_id = :g ORDER BY seq"), {"g": g.id}).all()
    assert [tuple(r) for r in got] == [(1, "loan", 1, 5, 0, "[]", "{}", "A loan."),
                                       (2, "loan", None, None, 1, "null", '{"x": [1, null]}', "Another.")]
    other = create_engine("sqlite://", json_serializer=json.dumps)  # the ORM's insert: the same values
    Event.__table__.create(other)
    with other.begin() as c:
        insert_rows(c, Event.__table__, [dict(e, game_id=1) for e in ctx.events])
        insert_rows(c, Event.__table__, [])
        again = c.execute(text("SELECT seq, kind, player_number, amount, headline, private_to, data, text "
                               "FROM events ORDER BY seq")).all()
    assert [tuple(r) for r in again] == [tuple(r) for r in got]


def test_a_json_value_equal_in_another_key_order_is_no_change(game):
    """JSON objects compare as the values they are: the same keys and values in another order
    are no change and cost no statement; another value under a key is a change."""
    from sqlalchemy import select

    from pbm.models import Railroad

    s, g = game
    ctx = TurnContext(s, g)
    nyc = ctx.railroads["NYC"]
    nyc.regions_at_start = {"a": 1, "b": [2, {"c": 3, "d": 4}]}
    ctx.write_rows()
    nyc.regions_at_start = {"b": [2, {"d": 4, "c": 3}], "a": 1}
    sent, stop = _statements(s)
    try:
        ctx.write_rows()
        assert sent == []
        nyc.regions_at_start = {"b": [2, {"d": 4, "c": 5}], "a": 1}
        ctx.write_rows()
        assert sent == ["UPDATE"]
        nyc.regions_at_start = [["a", 1]]  # a list is not an object with the same items
        ctx.write_rows()
        nyc.regions_at_start = {"a": 1}
        ctx.write_rows()
        assert sent == ["UPDATE"] * 3
    finally:
        stop()
    assert s.scalar(select(Railroad.regions_at_start).where(Railroad.id == nyc.id)) == {"a": 1}


def test_only_the_rows_named_are_inserted_now_and_only_once(game):
    """``insert_now`` inserts the new rows named (whatever order they are named in) and leaves
    the others to the turn's write; a row inserted now is not inserted again."""
    from sqlalchemy import func, select

    from pbm.models import Player

    s, g = game
    ctx = TurnContext(s, g)
    made = [ctx.rows.new(Player, game_id=g.id, number=n, character=f"T{n}") for n in (5, 6, 7)]
    ctx.rows.insert_now([made[2], made[0]])
    assert made[1].id is None and made[0].id is not None and made[2].id is not None
    assert s.scalar(select(func.count()).select_from(Player).where(Player.game_id == g.id)) == 6
    ctx.write_rows()
    assert s.scalar(select(func.count()).select_from(Player).where(Player.game_id == g.id)) == 7
    assert sorted(s.scalars(select(Player.number).where(Player.game_id == g.id))) == [1, 2, 3, 4, 5, 6, 7]


# --------------------------------------------------------- the few-statement writes (writes.py)
def test_postgresql_reads_each_value_as_its_columns_type():
    """The PostgreSQL statements (``UPDATE ... FROM json_array_elements``, the JSON INSERT) read
    each value from JSON text cast to its column's type: JSON, a naive timestamp, boolean, big and
    plain integers, float, text; a type with no cast (a zoned timestamp, bytes) is refused, and
    such a value is left to SQLAlchemy (``_plain_values``: only values of the column's own Python
    type go by JSON).  Plain functions: checked here without a PostgreSQL server."""
    from datetime import datetime, timezone

    from sqlalchemy import BigInteger, Boolean, Column, DateTime, Integer, LargeBinary, String

    from pbm.cr.engine.writes import _as_json_text, _pg_cast, _plain_values
    from pbm.models import OrderSet, Railroad

    rr = Railroad.__table__.c
    assert [_pg_cast(c) for c in (rr.technologies, rr.grand_station, rr.number, rr.price, rr.code)] == \
        ["JSON", "BOOLEAN", "INTEGER", "FLOAT8", "TEXT"]
    assert _pg_cast(Column("x", BigInteger)) == "BIGINT" and _pg_cast(Column("x", Integer)) == "INTEGER"
    assert _pg_cast(OrderSet.__table__.c.received_at) == "TIMESTAMP"
    for odd in (Column("x", DateTime(timezone=True)), Column("x", LargeBinary)):
        with pytest.raises(TypeError):
            _pg_cast(odd)
    columns = [rr.technologies, OrderSet.__table__.c.received_at, rr.code, Column("j", rr.technologies.type)]
    columns[3].type = type(rr.technologies.type)(none_as_null=True)
    casts = ["JSON", "TIMESTAMP", "TEXT", "JSON"]
    rows = [[["A", 'é "q"'], datetime(2026, 1, 2, 3, 4, 5, 6), "x", None],
            [None, None, None, {"a": 1}]]
    _as_json_text(columns, casts, rows)
    assert rows == [['["A", "\\u00e9 \\"q\\""]', "2026-01-02 03:04:05.000006", "x", None],
                    ["null", None, None, '{"a": 1}']]
    text, flag = Column("t", String), Column("b", Boolean)
    assert _plain_values([text, flag, rr.price], [(1, ["x", True, 2]), (2, [None, None, 2.5])])
    assert not _plain_values([text], [(1, [3])])
    assert not _plain_values([flag], [(1, [1])])
    assert not _plain_values([rr.price], [(1, ["2.5"])])
    assert not _plain_values([Column("x", LargeBinary)], [(1, [None])])
    stamp = OrderSet.__table__.c.received_at
    assert _plain_values([rr.technologies, stamp], [(1, [{"a": [1]}, None]), (2, [None, datetime(2026, 1, 2)])])
    assert not _plain_values([stamp], [(1, [datetime(2026, 1, 2, tzinfo=timezone.utc)])])
    assert not _plain_values([stamp], [(1, ["2026-01-02"])])

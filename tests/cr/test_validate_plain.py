"""The validator's plain view (pbm.cr.queries.load_plain) holds what the ORM view (load) holds.

One mailed sheet is checked on plain copies of the game's rows read with Core selects; every row,
its column values, the model properties, the relationships among the view's rows and every index
must be the ORM view's, and validating on either gives the same orders and problems."""

from __future__ import annotations

from sqlalchemy import inspect
from sqlalchemy.orm import Session

from pbm.cr import ai
from pbm.cr import queries as q
from pbm.cr.orders import Orders, PCBid, RailroadOrders, StockOrder
from pbm.cr.resolve import run_turn
from pbm.cr.validate import check, validate
from pbm.db import get_engine
from pbm.models import Holding, Line, Player, PrivateCompany, Railroad, Route, Town
from tests.cr.orders_helpers import build_small, real_game

PROPERTIES = {Town: ("value",), Railroad: ("miles",), PrivateCompany: ("code",)}
RELATIONS = {Railroad: ("lines", "holdings", "president", "chairman"), Player: ("holdings",),
             Route: ("a", "b"), PrivateCompany: ("route", "owner"), Line: ("railroad", "route"),
             Holding: ("player", "railroad")}


def _ids(value):
    if value is None:
        return None
    if isinstance(value, list):
        return [x.id for x in value]
    return value.id


def _same_row(model, orm, plain) -> None:
    for attr in inspect(model).column_attrs:
        assert getattr(plain, attr.key) == getattr(orm, attr.key), (model.__name__, orm.id, attr.key)
    for name in PROPERTIES.get(model, ()):
        assert getattr(plain, name) == getattr(orm, name), (model.__name__, orm.id, name)
    for name in RELATIONS.get(model, ()):
        assert _ids(getattr(plain, name)) == _ids(getattr(orm, name)), (model.__name__, orm.id, name)


def _same_view(orm: q.View, plain: q.View) -> None:
    assert plain.game is orm.game
    for name, model in (("players", Player), ("railroads", Railroad), ("towns", Town), ("routes", Route),
                        ("pcs", PrivateCompany)):
        a, b = getattr(orm, name), getattr(plain, name)
        assert list(a) == list(b), name  # the same rows in the same order
        for key in a:
            _same_row(model, a[key], b[key])
    for name in ("by_number", "rr_by_code", "route_by_code", "pc_by_code"):
        assert {k: v.id for k, v in getattr(orm, name).items()} == {k: v.id for k, v in getattr(plain, name).items()}
    for name in ("lines_of", "routes_at"):
        assert {k: _ids(v) for k, v in getattr(orm, name).items()} == \
            {k: _ids(v) for k, v in getattr(plain, name).items()}
    assert {k: v.id for k, v in orm.row_of.items()} == {k: v.id for k, v in plain.row_of.items()}
    assert orm.built_route_ids == plain.built_route_ids
    assert {r: {p: h.id for p, h in hs.items()} for r, hs in orm.holdings_of.items()} == \
        {r: {p: h.id for p, h in hs.items()} for r, hs in plain.holdings_of.items()}
    for rr in orm.railroads.values():
        for row in rr.lines:
            _same_row(Line, row, next(x for x in plain.railroads[rr.id].lines if x.id == row.id))
    for player in orm.players.values():
        for h in player.holdings:
            _same_row(Holding, h, next(x for x in plain.players[player.id].holdings if x.id == h.id))


def _orders(view: q.View, session: Session, player: Player) -> list[Orders]:
    """The computer's orders and some that go wrong in many ways."""
    wild = Orders(borrow=10**8, repay=5, pc_bids=[PCBid("HRL", 10**6, 1), PCBid("NY2", 1, 2)],
                  stock=[StockOrder(code, "buy", 500, i + 1) for i, code in enumerate(list(view.rr_by_code)[:4])]
                  + [StockOrder("1", "sell", 3, 5)],
                  railroads=[RailroadOrders(code, capital_per_mile=99, political=-1, row_first="NY2", dividend=150)
                             for code in list(view.rr_by_code)[:3]],
                  control=["2", "NOPE"], spy_player=player.number, spy_railroad="99", merge=("1", "2"),
                  character=next(iter(view.players.values())).character, message="x" * 400)
    mine = Orders(railroads=[
        RailroadOrders(rr.code, double_track=[r.code for r in view.lines_of.get(rr.id, [])] + ["XX9"],
                       technology="A", locomotive=9, build_per_mile=5, abandon=i % 2 == 1,
                       row_first=(q.valid_rows(view, rr) or ["NY2"])[0], row_alternate="NY2", political=10**6)
        for i, rr in enumerate(view.presided_by(player))])
    return [ai.computer_orders(session, view.game, player, view=view), wild, mine]


def _check_game(session: Session, game) -> None:
    session.flush()
    session.expire_all()  # relationship lists as loaded (in their order_by), not as changed in this session
    orm, plain = q.load(session, game), q.load_plain(session, game)
    _same_view(orm, plain)
    for player in orm.players.values():
        for orders in _orders(orm, session, player):
            expected = check(orm, player, orders)
            assert check(plain, plain.players[player.id], orders) == expected
            assert validate(session, game, player, orders) == expected  # validate's own view is the plain one


def test_plain_view_of_the_small_state(db_url):
    session = Session(get_engine(db_url))
    try:
        small = build_small(session)
        session.add(Line(railroad_id=small.railroads["NYC"].id, route_id=small.routes["NY2"].id, built_turn=1,
                         double_tracked=True))
        session.flush()
        _check_game(session, small.game)
    finally:
        session.rollback()
        session.close()


def test_plain_view_of_a_played_game(db_url):
    session = Session(get_engine(db_url))
    try:
        game = real_game(session, seed=11)
        _check_game(session, game)
        for _ in range(3):
            run_turn(session, game, computer_for_missing=True)
            session.flush()
        _check_game(session, game)
    finally:
        session.rollback()
        session.close()


def test_released_view_is_freed_without_the_collector(db_url):
    """After the check, a plain view's rows are freed by reference counting alone (release_plain breaks
    the railroad-lines and holdings cycles), not left for the garbage collector."""
    import gc
    import weakref

    session = Session(get_engine(db_url))
    enabled = gc.isenabled()
    try:
        game = real_game(session, seed=11)
        run_turn(session, game, computer_for_missing=True)
        session.flush()
        gc.collect()
        gc.disable()
        view = q.load_plain(session, game)
        rows = [*view.players.values(), *view.railroads.values(),
                *(h for p in view.players.values() for h in p.holdings),
                *(line for r in view.railroads.values() for line in r.lines)]
        assert any(r.lines for r in view.railroads.values()) and any(p.holdings for p in view.players.values())
        refs = [weakref.ref(r) for r in rows]
        del rows
        q.release_plain(view)
        del view
        assert [r for r in refs if r() is not None] == []
    finally:
        if enabled:
            gc.enable()
        session.rollback()
        session.close()


def test_collector_paused_restores_the_collector():
    """No collection inside the block; afterwards the collector is as it was, even after an error."""
    import gc

    enabled = gc.isenabled()
    try:
        gc.enable()
        with q.collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled()
        try:
            with q.collector_paused():
                raise KeyError
        except KeyError:
            pass
        assert gc.isenabled()
        gc.disable()  # a caller that turned it off keeps it off
        with q.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        (gc.enable if enabled else gc.disable)()

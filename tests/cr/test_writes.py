"""The turn's few-statement writes (``pbm.cr.engine.rows``, ``pbm.cr.engine.writes``): the same
rows, ids included, as the ORM's own flush of the same changes gives, in far fewer statements."""

from __future__ import annotations

import numpy as np
from sqlalchemy import event, select
from sqlalchemy.orm import sessionmaker

from pbm.cr import resolve as resolve_module
from pbm.cr.engine import writes
from pbm.cr.engine.rows import Rows, model_of, table_of
from pbm.db import get_engine, session_scope
from pbm.models import Event, Game, Holding, LedgerEntry, Line, OrderSet, Player, PrivateCompany, Railroad, Route
from tests.cr.helpers import scripted_orders, synthetic_game

TABLES = (Railroad, Line, Holding, Player, Route, PrivateCompany, OrderSet, Event, LedgerEntry)


def _rows(s, gid: int) -> dict[str, list[tuple]]:
    """Every column of the game's rows (lines and holdings through their railroads), by id."""
    rr_ids = select(Railroad.id).where(Railroad.game_id == gid)
    out = {}
    for model in TABLES:
        table = model.__table__
        if model is Line:
            where = Line.railroad_id.in_(rr_ids)
        elif model is Holding:
            where = Holding.railroad_id.in_(rr_ids)
        else:
            where = model.game_id == gid
        out[table.name] = [tuple(r) for r in s.execute(select(table).where(where).order_by(table.c.id))]
    return out


def _orm_insert(rows: Rows, new: list) -> None:
    """The reference for :meth:`Rows._insert`: each new row as an ORM row, numbered by the ORM's flush."""
    session, made = rows.session, []
    for row in new:
        model = model_of(row)
        spec = table_of(model)
        orm = model(**{k: row.__dict__[k] for k in spec.keys if k != spec.key})
        session.add(orm)
        made.append((row, orm, model, spec))
    session.flush()
    for row, orm, model, spec in made:
        row.__dict__[spec.key] = getattr(orm, spec.key)
        rows.track(model, [row])


def _orm_write(rows: Rows) -> None:
    """The reference for :meth:`Rows.write`: the turn's changes made to the session's ORM rows,
    written by the ORM's own flush."""
    session = rows.session
    for model, pairs in rows._loaded.items():
        spec = table_of(model)
        for row, before in pairs:
            now = spec.compared(row.__dict__)
            if now != before:
                orm = session.get(model, row.__dict__[spec.key])
                for key, a, b in zip(spec.keys, now, before):
                    if a != b:
                        setattr(orm, key, row.__dict__[key])
    new, rows._new = rows._new, []
    _orm_insert(rows, new)
    for row in rows._deleted:
        model = model_of(row)
        session.delete(session.get(model, row.__dict__[table_of(model).key]))
    rows._deleted = []
    session.flush()


def _turn(url: str, plain: bool, monkeypatch) -> tuple[dict[str, list[tuple]], int]:
    """Resolve the same busy turn (rolled back afterwards); its rows and the statements sent.
    ``plain``: the turn's rows written by the ORM (:func:`_orm_write`) instead."""
    if plain:  # what the ORM alone does with the same changes
        monkeypatch.setattr(resolve_module, "prepare_flush", lambda session: None)
        monkeypatch.setattr(Rows, "write", _orm_write)
        monkeypatch.setattr(Rows, "_insert", _orm_insert)
    engine = get_engine(url)
    count = [0]

    def counted(*_args) -> None:
        count[0] += 1

    s = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        g = s.scalar(select(Game).where(Game.name == "busy"))
        orders = scripted_orders(s, g, np.random.default_rng(3))
        event.listen(engine, "before_cursor_execute", counted)
        try:
            resolve_module.run_turn(s, g, computer_for_missing=True, resolver=lambda s, g, _o: (
                resolve_module.resolve_turn(s, g, orders)))
        finally:
            event.remove(engine, "before_cursor_execute", counted)
        rows = _rows(s, g.id)
    finally:
        s.rollback()
        s.close()
        monkeypatch.undo()
    return rows, count[0]


def _relative(rows: dict[str, list[tuple]], before: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    """New rows' ids (and the keys naming them) counted from the table's first new id: a
    PostgreSQL sequence is not rolled back, so the second turn's new rows have higher ids."""
    names = {}
    for table, got in rows.items():
        old = {r[0] for r in before[table]}
        names[table] = {i: f"new+{k}" for k, i in enumerate(sorted(r[0] for r in got if r[0] not in old))}
    out = {}
    for model in TABLES:
        table = model.__table__
        targets = [next((fk.column.table.name for fk in c.foreign_keys), None) for c in table.columns]
        out[table.name] = [tuple(names.get(t, {}).get(v, v) if t else v for v, t in zip(r, [table.name] + targets[1:]))
                           for r in rows[table.name]]
    return out


def test_a_turn_writes_the_same_rows_and_ids_as_a_plain_flush_in_few_statements(db_url, monkeypatch):
    with session_scope(db_url) as s:
        synthetic_game(s, name="busy", railroads=30, players=15, cols=16, rows=10, turn=18)
    rng = np.random.default_rng(1)
    for _ in range(2):  # presidents, PCs bought, RoWs: the turn below incorporates, builds and merges
        with session_scope(db_url) as s:
            g = s.scalar(select(Game).where(Game.name == "busy"))
            resolve_module.resolve_turn(s, g, scripted_orders(s, g, rng))
            g.turn += 1
    with session_scope(db_url) as s:
        before = _rows(s, s.scalar(select(Game.id).where(Game.name == "busy")))
    plain, plain_statements = _turn(db_url, True, monkeypatch)
    fast, fast_statements = _turn(db_url, False, monkeypatch)
    assert len(plain["lines"]) > len(before["lines"]) and len(plain["holdings"]) > len(before["holdings"])
    assert len(plain["railroads"]) > len(before["railroads"])  # a PC was incorporated
    if db_url.startswith("sqlite"):
        assert fast == plain  # ids included: SQLite numbers max(id) + 1, as the ORM's inserts get
    else:
        assert _relative(fast, before) == _relative(plain, before)
    assert fast_statements < plain_statements / 2


def test_ids_given_before_a_flush_follow_the_order_rows_were_added(sqlite_url):
    with session_scope(sqlite_url) as s:
        synthetic_game(s, name="ids", railroads=3, players=2)
    with session_scope(sqlite_url) as s:
        g = s.scalar(select(Game).where(Game.name == "ids"))
        p = sorted(g.players, key=lambda p: p.number)[0]
        s.add(OrderSet(game_id=g.id, turn=1, player_id=p.id, source="file", orders={}, problems=[]))
        s.flush()
        top = s.scalar(select(OrderSet.id))
        first = OrderSet(game_id=g.id, turn=1, player_id=p.id, source="computer")
        second = OrderSet(game_id=g.id, turn=1, player_id=p.id, source="standing", status=None)
        s.add_all([first, second])
        writes.assign_ids(s)
        assert (first.id, second.id) == (top + 1, top + 2)
        assert (second.status, second.orders, second.problems, second.received_seq) == ("accepted", {}, [], 0)
        third = OrderSet(game_id=g.id, turn=1, player_id=p.id, source="file")
        s.add(third)
        writes.assign_ids(s)  # the rows given ids above are not inserted yet: counted all the same
        assert third.id == top + 3
        s.flush()
        assert list(s.execute(select(OrderSet.id, OrderSet.source, OrderSet.status).where(OrderSet.id > top)
                              .order_by(OrderSet.id))) == \
            [(top + 1, "computer", "accepted"), (top + 2, "standing", "accepted"), (top + 3, "file", "accepted")]


def test_bulk_insert_stores_what_sqlalchemys_insert_stores(db_url):
    """``context.insert_rows`` (COPY on PostgreSQL, a driver-level executemany on SQLite) stores the
    values SQLAlchemy's own executemany stores: JSON None as ``null``, ``{}``, lists, booleans,
    NULLs, text with quotes and line breaks."""
    from sqlalchemy import insert, text

    from pbm.cr.engine.context import insert_rows
    from pbm.models import PlayerTurn

    with session_scope(db_url) as s:
        synthetic_game(s, name="rows", railroads=2, players=2)
    engine = get_engine(db_url)
    events = [{"game_id": 0, "turn": t, "seq": k, "step": "6.2", "rule": "§6.3", "kind": "trade",
               "player_number": None if k % 2 else k, "railroad": None if k % 3 else "B&O",
               "amount": None if k % 4 else 10**12 + k, "headline": bool(k % 2),
               "private_to": [None, [], [1, 3]][k % 3], "text": 'a "quoted"\nline é\\ ✓',
               "data": [{}, {"x": [1, 2.5, None, True], "é": "ü"}][k % 2]}
              for t in (1, 2) for k in range(1, 7)]
    history = [{"game_id": 0, "turn": t, "player_number": 1, "cash": -5, "loan": 0, "net_worth": 2**40,
                "vp": {"robber_baron": 0.5, "rail_builder": None}} for t in (1, 2)]
    stored = {}
    with engine.begin() as c:
        gid = c.execute(select(Game.id).where(Game.name == "rows")).scalar_one()
        for row in events + history:
            row["game_id"] = gid
        for table, rows in ((Event.__table__, events), (PlayerTurn.__table__, history)):
            first = [r for r in rows if r["turn"] == 1]
            second = [r for r in rows if r["turn"] == 2]
            c.execute(insert(table), first)
            insert_rows(c, table, second)
            cols = [col for col in table.columns if col.name not in ("id", "turn")]
            if c.dialect.name == "postgresql":  # JSON as stored, SQL NULL apart from JSON null
                got = c.execute(text(f"SELECT turn, ROW({', '.join(col.name for col in cols)})::text "
                                     f"FROM {table.name} WHERE game_id = :g ORDER BY id"), {"g": gid}).all()
            else:
                got = c.execute(text(f"SELECT turn, {', '.join(col.name for col in cols)}, "
                                     f"{', '.join(f'typeof({col.name})' for col in cols)} "
                                     f"FROM {table.name} WHERE game_id = :g ORDER BY id"), {"g": gid}).all()
            stored[table.name] = got
            by_turn = {1: [tuple(r[1:]) for r in got if r[0] == 1], 2: [tuple(r[1:]) for r in got if r[0] == 2]}
            assert len(by_turn[1]) == len(first) and by_turn[1] == by_turn[2]
        c.rollback()


def _changed_rows(url: str, fast: bool) -> tuple[list, list[str]]:
    """Change columns of every type on a few rows (different columns on different rows, a float
    that is no short decimal, JSON lists, text with quotes and accents, a key set to NULL), write
    them by ``write_updates`` and a flush (``fast``) or by a plain flush; the rows as stored (on
    PostgreSQL as ``ROW(...)::text``: JSON text as stored) and the UPDATEs sent.  Rolled back."""
    from sqlalchemy import text

    engine = get_engine(url)
    sent: list[str] = []

    def seen(_conn, _cursor, statement, *_args) -> None:
        if statement.lstrip().upper().startswith("UPDATE"):
            sent.append(statement.split()[1].strip('"'))

    s = sessionmaker(bind=engine, expire_on_commit=False)()
    try:
        g = s.scalar(select(Game).where(Game.name == "upd"))
        rrs = list(s.scalars(select(Railroad).where(Railroad.game_id == g.id).order_by(Railroad.id)))
        players = list(s.scalars(select(Player).where(Player.game_id == g.id).order_by(Player.number)))
        built = set(s.scalars(select(Line.route_id)))
        routes = s.scalars(select(Route).where(Route.game_id == g.id).order_by(Route.id))
        free = next(r for r in routes if r.id not in built)
        lines = rrs[0].lines  # (loaded now: a lazy load would flush the changes below)
        rrs[0].price, rrs[0].technologies = 0.1 + 0.2, ["A", 'é "q" \\ ✓']
        rrs[1].cash, rrs[1].regions_at_start = 10**12 + 7, []
        rrs[2].name, rrs[2].president_id = "x\n\"y' ü", None
        rrs[2].efficiency = rrs[2].efficiency  # set to its own value: not a change
        players[0].cash, players[1].loan = -5, 123
        g.climate = "boom"
        from datetime import datetime

        s.add(OrderSet(game_id=g.id, turn=1, player_id=players[0].id, source="file", orders={"x": [1.5, None]},
                       problems=[], received_at=datetime(2026, 1, 2, 3, 4, 5, 678901)))
        lines.append(Line(route_id=free.id, built_turn=1, double_tracked=False))  # railroad_id: by the relationship
        event.listen(engine, "before_cursor_execute", seen)
        try:
            if fast:
                writes.assign_ids(s)
                writes.write_updates(s)
                writes.write_inserts(s)
                assert not s.new
            s.flush()
        finally:
            event.remove(engine, "before_cursor_execute", seen)
        assert not s.dirty
        out = []
        for table, where, columns in (("railroads", "game_id", "t.*"), ("players", "game_id", "t.*"),
                                      ("games", "id", "t.*"),
                                      ("order_sets", "game_id", "game_id, turn, player_id, source, status, orders, "
                                       "problems, message_id, received_seq, received_at"),
                                      ("lines", "railroad_id IN (SELECT id FROM railroads WHERE game_id = :g)",
                                       "railroad_id, route_id, built_turn, double_tracked")):
            where = where if " IN " in where else f"{where} = :g"
            if url.startswith("postgresql"):
                query = f"SELECT ROW({columns})::text FROM {table} t WHERE {where} ORDER BY id"
            else:
                query = f"SELECT {columns} FROM {table} t WHERE {where} ORDER BY id"
            out.append([tuple(r) for r in s.execute(text(query), {"g": g.id})])
    finally:
        s.rollback()
        s.close()
    return out, sent


def test_changed_rows_written_in_one_statement_a_table_are_stored_as_the_flush_stores_them(db_url):
    with session_scope(db_url) as s:
        synthetic_game(s, name="upd", railroads=3, players=2)
        g = s.scalar(select(Game).where(Game.name == "upd"))
        for rr in g.railroads:
            rr.president_id = g.players[0].id
    plain, plain_sent = _changed_rows(db_url, fast=False)
    fast, fast_sent = _changed_rows(db_url, fast=True)
    assert fast == plain
    assert sorted(fast_sent) == ["games", "players", "railroads"]  # one statement a table, none left to the flush
    assert len(fast[3]) == len(plain[3]) > 0 and "2026-01-02 03:04:05.678901" in str(fast[3][-1])
    assert len(fast[4]) == len(plain[4]) > 0
    assert plain_sent.count("railroads") == 3  # (the flush: one statement per set of changed columns)


def test_a_float_in_an_integer_column_is_left_to_the_flush():
    """(the PostgreSQL statement reads an integer column's value as an integer: a float there is
    written by the ORM, which rounds it as before)"""
    from pbm.cr.engine.writes import _plain_values

    columns = [Railroad.__table__.c.cash, Railroad.__table__.c.price, Railroad.__table__.c.technologies]
    assert _plain_values(columns, [(1, [5, 2, ["A"]]), (2, [None, 2.5, None])])
    assert not _plain_values(columns, [(1, [5.0, 2.5, []])])
    assert not _plain_values(columns, [(1, [True, 2.5, []])])
    from datetime import datetime, timezone

    stamp = [OrderSet.__table__.c.received_at]
    assert _plain_values(stamp, [(1, [datetime(2026, 1, 2)]), (2, [None])])
    assert not _plain_values(stamp, [(1, [datetime(2026, 1, 2, tzinfo=timezone.utc)])])

"""Writing a turn's rows in few statements (issue 15).

The ORM inserts a new row one statement at a time when it must fetch the row's new
primary key, and updates changed rows in one statement per distinct set of changed
columns (a late-game turn: ~90 single-row INSERTs and ~100 UPDATEs).  Before the turn's
flush :func:`prepare_flush`

* gives every new row its primary key, exactly the one the database would have given
  it: on PostgreSQL the next values of the table's sequence (one ``SELECT nextval(...)
  FROM generate_series(...)`` for all tables), on SQLite max(id) + 1, + 2, … (the rowid
  SQLite itself would choose: the tables are not ``AUTOINCREMENT``), taken under the
  write lock; ids go in the order the rows were added to the session, the order the ORM
  inserts them in.  With its key known the ORM inserts each table in one executemany;
* writes the changed rows itself (:func:`write_updates`), one statement per table — on
  PostgreSQL one ``UPDATE ... FROM json_array_elements(%s::json)`` whose one parameter holds
  the rows (psycopg converts no placeholders and adapts no values one by one), on SQLite one
  driver-level executemany — every column changed on any row of the table set on each of its
  changed rows (its current value written again where it did not change), and marks those
  columns committed;
* inserts the new rows itself (:func:`write_inserts`) the same way, one statement per table,
  and makes them persistent rows of the session, so the ORM's flush has only the deletes and
  whatever these two left to it: those rows get one changed-column set per table
  (:func:`uniform_updates`), so the ORM still updates each table in one executemany.
  (The ORM would send one executemany per table, on PostgreSQL one round of the pipeline per
  row, ~30 µs of Python each, and compile each row's parameters.)

The database content is the same as with plain flushes, ids included.

The turn's own rows (players, railroads, routes, ...) are not ORM rows: the engine works on plain
objects and :mod:`pbm.cr.engine.rows` writes them, with this module's statement builders
(:func:`_update_rows`, :func:`_insert_objects`).  What is left here for the ORM's rows of a turn:
the computer's order sets, the snapshot, the game row.
"""

from __future__ import annotations

import json
from collections import defaultdict

from sqlalchemy import Integer, insert, text
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.attributes import NO_VALUE, flag_modified, instance_state
from sqlalchemy.orm.interfaces import MANYTOONE


def prepare_flush(session: Session) -> None:
    """Keys for the session's new rows, then their inserts and the changed rows' updates, one
    statement per table (see the module)."""
    assign_ids(session)
    write_updates(session)
    write_inserts(session)
    uniform_updates(session)


def _auto_key(mapper):
    """The single integer primary-key column the database numbers, or None."""
    keys = mapper.primary_key
    if len(keys) != 1:
        return None
    column = keys[0]
    if not isinstance(column.type, Integer) or column.autoincrement not in ("auto", True):
        return None
    return column


def assign_ids(session: Session) -> None:
    """Give each new row of the session (of a table the database numbers) its primary key now."""
    waiting: dict = defaultdict(list)  # table -> [(insert order, state, key attribute)]
    given: dict = defaultdict(int)  # table -> the highest key already given to a row not yet inserted
    for obj in list(session.new):
        state = instance_state(obj)
        mapper = state.mapper
        column = _auto_key(mapper)
        if column is None:
            continue
        attr = mapper.get_property_by_column(column).key
        if state.dict.get(attr) is not None:
            given[column.table] = max(given[column.table], state.dict[attr])
            continue
        waiting[column.table].append((state.insert_order, obj, attr))
        _fill_defaults(mapper, state)
    if not waiting:
        return
    ids = next_ids(session.connection(), {table: len(rows) for table, rows in waiting.items()}, given)
    for table, rows in waiting.items():
        for (_, obj, attr), new_id in zip(sorted(rows, key=lambda w: w[0]), ids[table]):
            setattr(obj, attr, new_id)


def next_ids(connection, wanted: dict, given: dict | None = None) -> dict:
    """``{table: n}`` → ``{table: [n new keys]}``: the keys the database would give the next n
    rows of each table — on PostgreSQL the next values of its sequence (one statement for all
    the tables), on SQLite max(key) + 1, + 2, … (the rowid SQLite itself would choose: the tables
    are not ``AUTOINCREMENT``), read under the write lock, and above ``given[table]`` (the highest
    key already given to a row not inserted yet)."""
    tables = sorted(wanted, key=lambda t: t.name)
    names = {t: next(iter(t.primary_key.columns)).name for t in tables}
    if connection.dialect.name == "postgresql":
        parts, params = [], {}
        for i, table in enumerate(tables):
            parts.append(f"SELECT {i} AS t, nextval(pg_get_serial_sequence(:name{i}, :col{i})) AS v "
                         f"FROM generate_series(1, :n{i})")
            params.update({f"name{i}": table.name, f"col{i}": names[table], f"n{i}": wanted[table]})
        got: dict[int, list[int]] = defaultdict(list)
        for t, v in connection.execute(text(" UNION ALL ".join(parts)), params):
            got[t].append(v)
        return {table: sorted(got[i]) for i, table in enumerate(tables)}
    _sqlite_write_lock(connection)
    row = connection.execute(text("SELECT " + ", ".join(
        f'(SELECT max("{names[t]}") FROM "{t.name}")' for t in tables))).one()
    given = given or {}
    return {t: [max(top or 0, given.get(t, 0)) + k for k in range(1, wanted[t] + 1)] for t, top in zip(tables, row)}


def write_inserts(session: Session) -> None:
    """Insert the session's new rows now, one statement per table, and make them persistent rows
    of the session, so the flush has none left to insert.  Rows go
    in the order they were added; their keys are given (:func:`assign_ids`) before.  Left to the
    flush: a table whose rows point at another table's new rows (the flush orders them), or
    without a single key given to every row."""
    pending = sorted(session.new, key=lambda obj: instance_state(obj).insert_order)
    if not pending:
        return
    by_mapper: dict = defaultdict(list)
    for obj in pending:
        by_mapper[instance_state(obj).mapper].append(obj)
    new_tables = {mapper.local_table for mapper in by_mapper}
    connection = session.connection()
    for mapper, objs in by_mapper.items():
        table = mapper.local_table
        if len(mapper.tables) != 1 or len(mapper.primary_key) != 1 or any(
                fk.column.table in new_tables for column in table.columns for fk in column.foreign_keys):
            continue
        key = mapper.get_property_by_column(mapper.primary_key[0]).key
        if any(obj.__dict__.get(key) is None for obj in objs) or not _synced_keys(mapper, objs):
            continue
        for obj in objs:  # (the column defaults the flush would apply; assign_ids set them on the rows it numbered)
            _fill_defaults(mapper, instance_state(obj))
        _insert_objects(connection, mapper, objs)
        for obj in objs:
            session.expunge(obj)
            make_transient_to_detached(obj)
            session.add(obj)


def _synced_keys(mapper, objs: list) -> bool:
    """Set each object's key columns from its many-to-one relationships, as the flush would (a
    line appended to a railroad's lines has its railroad, not yet its railroad_id).  False (the
    flush must do it) where a related row has no key yet, or where a one-to-many relationship
    onto this mapper has no many-to-one counterpart here (it would set keys this cannot see)."""
    pairs = _key_pairs(mapper)
    if pairs is None:
        return False
    for obj in objs:
        values = obj.__dict__
        for key, local_remote in pairs:
            if key not in values:
                continue
            related = values[key]
            for local, remote in local_remote:
                value = None if related is None else related.__dict__.get(remote)
                if related is not None and value is None:
                    return False
                if values.get(local) != value:
                    setattr(obj, local, value)
    return True


_KEY_PAIRS: dict = {}


def _key_pairs(mapper):
    """[(many-to-one relationship, [(local key attribute, remote key attribute)])], or None when a
    one-to-many relationship onto ``mapper`` has no many-to-one counterpart on it."""
    if mapper in _KEY_PAIRS:
        return _KEY_PAIRS[mapper]
    found: list | None = []
    for other in mapper.registry.mappers:
        for prop in other.relationships:
            if prop.mapper is mapper and prop.direction is not MANYTOONE and not any(
                    reverse.direction is MANYTOONE for reverse in prop._reverse_property):
                found = None
    if found is not None:
        for prop in mapper.relationships:
            if prop.direction is MANYTOONE:
                found.append((prop.key, [(mapper.get_property_by_column(local).key,
                                          prop.mapper.get_property_by_column(remote).key)
                                         for local, remote in prop.local_remote_pairs]))
    _KEY_PAIRS[mapper] = found
    return found


def _insert_objects(connection, mapper, objs: list) -> None:
    """INSERT the new objects' rows, every column (one not set is set to None on the object: loaded,
    not expired, once the row is persistent), in one statement: as :func:`_update_rows` writes
    (PostgreSQL: one JSON parameter; SQLite: a driver-level executemany), else SQLAlchemy's
    executemany."""
    props = list(mapper.column_attrs)
    keys = [prop.key for prop in props]
    columns = [prop.columns[0] for prop in props]
    values = []
    for obj in objs:
        row = obj.__dict__
        for key in keys:
            if key not in row:
                setattr(obj, key, None)
        values.append([row[key] for key in keys])
    dialect = connection.dialect
    if dialect.name == "postgresql" and dialect._json_serializer is None and \
            _plain_values(columns, [(None, row) for row in values]):
        quote = dialect.identifier_preparer.quote
        casts = [_pg_cast(c) for c in columns]
        _as_json_text(columns, casts, values)
        names = ", ".join(quote(c.name) for c in columns)
        reads = ", ".join(f"(r->>{k})::{cast}" for k, cast in enumerate(casts))
        connection.exec_driver_sql(f"INSERT INTO {quote(mapper.local_table.name)} ({names}) SELECT {reads} "
                                   f"FROM json_array_elements(%s::json) AS r",
                                   (json.dumps(values, allow_nan=False),))
    elif dialect.name == "sqlite" and dialect.driver == "pysqlite":
        quote = dialect.identifier_preparer.quote
        _bind_values(columns, dialect, values)
        connection.exec_driver_sql(f"INSERT INTO {quote(mapper.local_table.name)} "
                                   f"({', '.join(quote(c.name) for c in columns)}) "
                                   f"VALUES ({', '.join('?' for _ in columns)})", [tuple(row) for row in values])
    else:
        connection.execute(insert(mapper.local_table), [{c.key: v for c, v in zip(columns, row)} for row in values])


def _fill_defaults(mapper, state) -> None:
    """Set the column defaults a row not yet inserted leaves empty (the ORM sets them on the
    object when it inserts it; the turn's later steps read them before that now)."""
    values = state.dict
    obj = None
    for key, default in _defaults(mapper):
        if values.get(key) is None:
            obj = obj or state.obj()
            setattr(obj, key, default.arg if default.is_scalar else default.arg(None))


_DEFAULTS: dict = {}


def _defaults(mapper) -> list:
    """(attribute, column default) of the mapper's columns with a Python-side scalar or callable default."""
    found = _DEFAULTS.get(mapper)
    if found is None:
        found = []
        for prop in mapper.column_attrs:
            default = prop.columns[0].default
            if default is not None and (default.is_scalar or default.is_callable):
                found.append((prop.key, default))
        _DEFAULTS[mapper] = found
    return found


def _sqlite_write_lock(connection) -> None:
    """Hold SQLite's write lock before reading max(id): no other writer can then add a row
    before this transaction's INSERTs.  (pysqlite opens a transaction only at the first
    write; a transaction that has written holds the lock already.)"""
    raw = connection.connection.dbapi_connection
    if not getattr(raw, "in_transaction", True):
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def uniform_updates(session: Session) -> None:
    """On every changed row of a table, mark every column that changed on any row of it."""
    changed_rows: dict = defaultdict(list)  # mapper -> [(state, keys changed)]
    for obj in session.dirty:  # (persistent rows marked changed, not deleted)
        state = instance_state(obj)
        if not state.committed_state:
            continue
        mapper = state.mapper
        columns = _column_keys(mapper)
        values = state.dict
        changed = set()
        for key, before in state.committed_state.items():
            if key in columns and (before is NO_VALUE or values.get(key, NO_VALUE) != before):
                changed.add(key)
        if changed:
            changed_rows[mapper].append((state, changed))
    for mapper, rows in changed_rows.items():
        if len(rows) < 2:
            continue
        union = set().union(*(keys for _, keys in rows))
        for state, keys in rows:
            missing = union - keys
            if missing:
                values, obj = state.dict, state.obj()
                for key in missing:
                    if key in values:  # (a column never loaded, e.g. left empty at an insert, is left out)
                        flag_modified(obj, key)


_COLUMN_KEYS: dict = {}


def _column_keys(mapper) -> frozenset[str]:
    """The mapper's attributes that are plain columns (not keys: those never change here)."""
    keys = _COLUMN_KEYS.get(mapper)
    if keys is None:
        pk = set(mapper.primary_key)
        keys = frozenset(p.key for p in mapper.column_attrs if not (set(p.columns) & pk))
        _COLUMN_KEYS[mapper] = keys
    return keys


def write_updates(session: Session) -> None:
    """Write the session's changed persistent rows now, one statement per table, and mark the
    written columns committed (the flush then has nothing to update on those rows).

    Left to the flush: a row it will delete, a row with a many-to-one relationship changed (its key column is set
    only by the flush: a line moved to another railroad), a table with a changed column the
    flush would give a row not loaded in full, and a table whose changed columns may point at
    a row not inserted yet (the flush inserts first what others point at).  The rows are
    written before the flush's inserts and deletes; nothing the turn inserts or deletes
    depends on the values written."""
    changed_rows: dict = defaultdict(list)  # mapper -> [(state, its dict, keys changed)]
    deleted = session._deleted  # (rows the flush will delete)
    for state in list(session.identity_map._modified):
        committed = state.committed_state
        if not state.modified or not committed or state.key is None or state._deleted or state in deleted:
            continue
        mapper = state.mapper
        columns, pulled = _column_keys(mapper), _many_to_one_keys(mapper)
        if pulled and not pulled.isdisjoint(committed):
            continue
        values = state.dict
        changed = {key for key, before in committed.items()
                   if key in columns and (before is NO_VALUE or values.get(key, NO_VALUE) != before)}
        if changed:
            changed_rows[mapper].append((state, values, changed))
    if not changed_rows:
        return
    new_tables = {instance_state(obj).mapper.local_table for obj in session.new}
    connection = session.connection()
    identity_map = session.identity_map
    for mapper in sorted(changed_rows, key=lambda m: m.local_table.name):
        rows = changed_rows[mapper]
        key_set = set().union(*(changed for _, _, changed in rows))
        if len(mapper.primary_key) != 1 or not all(key_set <= values.keys() for _, values, _ in rows):
            continue
        keys = sorted(key_set)
        columns = [mapper.get_property(key).columns[0] for key in keys]
        if any(fk.column.table in new_tables for column in columns for fk in column.foreign_keys):
            continue
        rows.sort(key=lambda row: row[0].key[1])  # by primary key, as the flush orders its updates
        values = [(state.key[1][0], [row_values[key] for key in keys]) for state, row_values, _ in rows]
        if connection.dialect.name == "postgresql" and (
                connection.dialect._json_serializer is not None or not _plain_values(columns, values)):
            continue
        _update_rows(connection, mapper.local_table, mapper.primary_key[0], columns, values)
        column_keys = _column_keys(mapper)
        for state, row_values, _ in rows:  # every column committed (one set to its old value: the flush skips it too)
            committed = state.committed_state
            for key in [key for key in committed if key in column_keys]:
                del committed[key]
            if not committed:  # (else a collection changed: the flush still has it to do)
                state._commit_all(row_values, identity_map)


_MANY_TO_ONE: dict = {}


def _many_to_one_keys(mapper) -> frozenset[str]:
    """The mapper's many-to-one relationships: the flush sets their key columns from them."""
    keys = _MANY_TO_ONE.get(mapper)
    if keys is None:
        keys = _MANY_TO_ONE[mapper] = frozenset(p.key for p in mapper.relationships if p.direction is MANYTOONE)
    return keys


def _update_rows(connection, table, key_column, columns, rows: list[tuple]) -> None:
    """Set ``columns`` of each row (key, [values]) in one statement.

    SQLite: a driver-level executemany of the values through each column type's own bind
    processor, as the ORM's UPDATE sends them.  PostgreSQL: one parameter, the rows as a JSON
    array of arrays, each value cast to its column's type on the server (few parameters: psycopg
    neither converts thousands of placeholders nor adapts each value).  A float goes as its
    ``repr`` (read back exactly), a JSON column's value as the text ``json.dumps`` writes (what
    psycopg's ``Json`` sends), so the stored values are the ORM's."""
    dialect = connection.dialect
    quote = dialect.identifier_preparer.quote
    name, key_name = quote(table.name), quote(key_column.name)
    if dialect.name == "postgresql":
        casts = [_pg_cast(c) for c in columns]
        _as_json_text(columns, casts, [row for _, row in rows])
        sets = ", ".join(f"{quote(c.name)} = (r->>{k})::{cast}"
                         for k, (c, cast) in enumerate(zip(columns, casts), start=1))
        document = json.dumps([[key, *row] for key, row in rows], allow_nan=False)
        connection.exec_driver_sql(
            f"UPDATE {name} SET {sets} FROM json_array_elements(%s::json) AS r "
            f"WHERE {name}.{key_name} = (r->>0)::{_pg_cast(key_column)}", (document,))
    else:
        _bind_values(columns, dialect, [row for _, row in rows])
        sets = ", ".join(f"{quote(c.name)} = ?" for c in columns)
        connection.exec_driver_sql(f"UPDATE {name} SET {sets} WHERE {key_name} = ?",
                                   [(*row, key) for key, row in rows])


def _as_json_text(columns, casts, rows: list[list]) -> None:
    """A JSON column's values as the text psycopg's ``Json`` sends (``json.dumps``; None as JSON
    ``null`` unless the column stores None as SQL NULL), a (naive) datetime's as its ISO text,
    in place."""
    for i, cast in enumerate(casts):
        if cast == "TIMESTAMP":
            for row in rows:
                if row[i] is not None:
                    row[i] = row[i].isoformat(sep=" ")
        elif cast == "JSON":
            null = None if columns[i].type.none_as_null else "null"
            for row in rows:
                value = row[i]
                row[i] = null if value is None else json.dumps(value)


def _bind_values(columns, dialect, rows: list[list]) -> None:
    """The values through each column type's bind processor, in place."""
    processors = [c.type._cached_bind_processor(dialect) for c in columns]
    process = [(i, p) for i, p in enumerate(processors) if p is not None]
    for row in rows:
        for i, p in process:
            row[i] = p(row[i])


def _pg_cast(column) -> str:
    """The type a value of ``column`` is read as from the JSON text (character types without
    their length: a value too long fails at the assignment, as the ORM's UPDATE does)."""
    from sqlalchemy import JSON, BigInteger, Boolean, Float, Integer, SmallInteger, String

    from sqlalchemy import DateTime

    kind = column.type
    if isinstance(kind, JSON):
        return "JSON"
    if isinstance(kind, DateTime) and not kind.timezone:
        return "TIMESTAMP"
    if isinstance(kind, Boolean):
        return "BOOLEAN"
    if isinstance(kind, BigInteger):
        return "BIGINT"
    if isinstance(kind, (Integer, SmallInteger)):
        return "INTEGER"
    if isinstance(kind, Float):
        return "FLOAT8"
    if isinstance(kind, String):
        return "TEXT"
    raise TypeError(f"no JSON cast for {column}")


def _plain_values(columns, rows) -> bool:
    """Whether every value is of the Python type its column's JSON cast reads exactly (else the
    ORM writes the table: a float in an integer column, say, which its cast would round)."""
    from datetime import datetime

    from sqlalchemy import JSON, Boolean, DateTime, Float, Integer, String

    allowed = []
    naive = []
    for i, c in enumerate(columns):
        kind = c.type
        if isinstance(kind, JSON):
            allowed.append(None)  # anything json.dumps writes
        elif isinstance(kind, DateTime) and not kind.timezone:
            allowed.append((datetime,))
            naive.append(i)
        elif isinstance(kind, Boolean):
            allowed.append((bool,))
        elif isinstance(kind, Integer):
            allowed.append((int,))
        elif isinstance(kind, Float):
            allowed.append((float, int))
        elif isinstance(kind, String):
            allowed.append((str,))
        else:
            return False
    for _, row in rows:
        for value, types in zip(row, allowed):
            if value is not None and types is not None and type(value) not in types:
                return False
        for i in naive:  # (an aware datetime: its zone would be dropped by the cast, not converted)
            if row[i] is not None and row[i].tzinfo is not None:
                return False
    return True

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
* marks, on every changed row of a table, every column changed on any row of that table
  (its current value is written again where it did not change), so the ORM updates each
  table in one executemany.

:func:`insert_now` inserts new rows at once (the railroads a turn incorporates, whose ids
later steps need) without flushing the rest of the session.  The database content is the
same as with plain flushes, ids included.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import Integer, insert, text
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.attributes import NO_VALUE, flag_modified, instance_state


def prepare_flush(session: Session) -> None:
    """Keys for the session's new rows and one set of changed columns per table (see the module)."""
    assign_ids(session)
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


def assign_ids(session: Session, extra: list | tuple = ()) -> None:
    """Give each new row (of a table the database numbers) its primary key now: the session's
    new rows, then the rows ``extra`` not (yet) in the session, in that order."""
    waiting: dict = defaultdict(list)  # table -> [(insert order, state, key attribute)]
    given: dict = defaultdict(int)  # table -> the highest key already given to a row not yet inserted
    later = {id(obj): k for k, obj in enumerate(extra)}
    for obj in list(session.new) + [obj for obj in extra if obj not in session]:
        state = instance_state(obj)
        mapper = state.mapper
        column = _auto_key(mapper)
        if column is None:
            continue
        attr = mapper.get_property_by_column(column).key
        if state.dict.get(attr) is not None:
            given[column.table] = max(given[column.table], state.dict[attr])
            continue
        order = (1, later[id(obj)]) if id(obj) in later else (0, state.insert_order)
        waiting[column.table].append((order, obj, attr))
        _fill_defaults(mapper, state)
    if not waiting:
        return
    tables = sorted(waiting, key=lambda t: t.name)
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        parts, params = [], {}
        for i, table in enumerate(tables):
            parts.append(f"SELECT {i} AS t, nextval(pg_get_serial_sequence(:name{i}, :col{i})) AS v "
                         f"FROM generate_series(1, :n{i})")
            params.update({f"name{i}": table.name, f"col{i}": _auto_key_of_table(waiting[table]),
                           f"n{i}": len(waiting[table])})
        got: dict[int, list[int]] = defaultdict(list)
        for t, v in connection.execute(text(" UNION ALL ".join(parts)), params):
            got[t].append(v)
        ids = {table: sorted(got[i]) for i, table in enumerate(tables)}
    else:
        _sqlite_write_lock(connection)
        row = connection.execute(text("SELECT " + ", ".join(
            f'(SELECT max("{_auto_key_of_table(waiting[t])}") FROM "{t.name}")' for t in tables))).one()
        ids = {t: [max(top or 0, given[t]) + k for k in range(1, len(waiting[t]) + 1)]
               for t, top in zip(tables, row)}
    for table in tables:
        for (_, obj, attr), new_id in zip(sorted(waiting[table], key=lambda w: w[0]), ids[table]):
            setattr(obj, attr, new_id)


def insert_now(session: Session, rows: list) -> None:
    """Insert ``rows`` (new ORM objects not in the session) at once, one executemany per table,
    and make them the session's persistent rows, as a flush of them alone would (the rest of the
    session's changes stay for the turn's one flush).  The session's new rows get their keys
    first, as that flush would have given them."""
    assign_ids(session, rows)
    connection = session.connection()
    by_mapper: dict = defaultdict(list)
    for obj in rows:
        by_mapper[instance_state(obj).mapper].append(obj)
    for mapper, objs in by_mapper.items():
        values = []
        for obj in objs:
            row = {}
            for prop in mapper.column_attrs:
                if prop.key not in obj.__dict__:
                    setattr(obj, prop.key, None)  # (loaded, not expired, once the row is persistent)
                row[prop.columns[0].key] = obj.__dict__[prop.key]
            values.append(row)
        connection.execute(insert(mapper.local_table), values)
    for obj in rows:
        make_transient_to_detached(obj)
        session.add(obj)


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


def _auto_key_of_table(items) -> str:
    _, obj, attr = items[0]
    return instance_state(obj).mapper.get_property(attr).columns[0].name


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

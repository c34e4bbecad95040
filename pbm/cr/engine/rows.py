"""The turn's rows as plain objects, and writing back what the turn changed (issue 15).

The turn engine reads and changes a game's players, railroads, towns, routes, private
companies, lines and holdings tens of thousands of times a turn.  As ORM rows, each read went
through SQLAlchemy's instrumented attribute (~0.2 µs) and each change through its change
tracking, and loading the ~1,900 rows of a late game built an ORM instance for each: together
about a third of a late-game turn.

So the turn works on plain objects (:func:`pbm.cr.queries.load_plain`: every column as a plain
attribute, the model's Python properties, the lists ``Railroad.lines``, ``Railroad.holdings``
and ``Player.holdings``), and a :class:`Rows` remembers each loaded row's values, the rows the
turn makes and the rows it deletes.  :meth:`Rows.write` then writes the difference, one
statement per table and kind: the changed columns of the changed rows (``UPDATE ... FROM
json_array_elements`` on PostgreSQL, an executemany on SQLite: :func:`writes._update_rows`), the
new rows with the keys the database would have given them (:func:`~pbm.cr.engine.writes.next_ids`),
the deleted rows.

What the database holds afterwards is what the ORM's flush of the same changes wrote, keys
included.  A JSON value changed in place (a list appended to) is a change too: the loaded
values of JSON columns are kept as frozen copies (:func:`_frozen`), not as the objects the
engine may change.

The references between the loaded rows that :func:`~pbm.cr.queries.load_plain` sets
(``Railroad.president``, ``Holding.player``, ``Line.railroad``, ``PrivateCompany.owner``, …) are
as loaded: the engine reads the keys (``president_id``, ``railroad_id``), which it keeps current.
ORM rows of these tables that the session already holds are expired after the write, so whoever
reads them next reads what was written.
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, bindparam, delete, inspect, update
from sqlalchemy.orm import Session

from pbm.cr.engine.writes import _insert_objects, _plain_values, _update_rows, next_ids
from pbm.cr.queries import plain_class
from pbm.models import Holding, Line, Player, PrivateCompany, Railroad, Route, Town

MODELS = (Player, Railroad, Town, Route, PrivateCompany, Line, Holding)
"""The tables the turn holds as plain rows (:class:`Rows`)."""


class _Table:
    """One model's mapping facts, worked out once: its column attributes (in mapper order, as
    :func:`~pbm.cr.queries.plain_class` takes them), its key and its Python-side defaults."""

    __slots__ = ("model", "mapper", "table", "keys", "values_of", "key", "key_column", "defaults", "json",
                 "compared")

    def __init__(self, model: type) -> None:
        mapper = inspect(model)
        self.model, self.mapper, self.table = model, mapper, mapper.local_table
        self.keys = [prop.key for prop in mapper.column_attrs]
        self.values_of = itemgetter(*self.keys)
        (self.key_column,) = mapper.primary_key
        self.key = mapper.get_property_by_column(self.key_column).key
        self.defaults = []
        for prop in mapper.column_attrs:
            default = prop.columns[0].default
            if default is not None and (default.is_scalar or default.is_callable):
                self.defaults.append((prop.key, default))
        self.json = [i for i, prop in enumerate(mapper.column_attrs) if isinstance(prop.columns[0].type, JSON)]

        # the row's values as Rows.write compares them (the plain getter where no JSON is frozen)
        self.compared = self._compared if self.json else self.values_of

    def _compared(self, data: dict) -> tuple:
        """The row's values as :meth:`Rows.write` compares them: JSON values frozen."""
        values = list(self.values_of(data))
        for i in self.json:
            values[i] = _frozen(values[i])
        return tuple(values)


def _frozen(value: Any) -> Any:
    """A JSON value as an immutable copy that compares equal exactly when the values do."""
    if isinstance(value, list):
        return ("[", *(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("{", *sorted((k, _frozen(v)) for k, v in value.items()))
    return value


_TABLES: dict[type, _Table] = {}


def table_of(model: type) -> _Table:
    found = _TABLES.get(model)
    if found is None:
        found = _TABLES[model] = _Table(model)
    return found


_MODEL_OF: dict[type, type] = {}


def model_of(obj: Any) -> type:
    """The model a plain row stands for."""
    return _MODEL_OF[type(obj)]


def _register() -> None:
    for model in MODELS:
        _MODEL_OF[plain_class(model)] = model


class Rows:
    """What one turn loaded, made and deleted of the :data:`MODELS` tables (see the module)."""

    def __init__(self, session: Session) -> None:
        if not _MODEL_OF:
            _register()
        self.session = session
        self._loaded: dict[type, list[tuple[Any, tuple]]] = defaultdict(list)  # model -> [(row, values as loaded)]
        self._new: list[Any] = []  # in the order made
        self._deleted: list[Any] = []

    # ----------------------------------------------------------------- recording
    def track(self, model: type, rows) -> None:
        """Remember the values of ``rows`` (plain rows of ``model`` just loaded)."""
        compared = table_of(model).compared
        self._loaded[model].extend((row, compared(row.__dict__)) for row in rows)

    def new(self, model: type, **values: Any) -> Any:
        """A new plain row of ``model`` with ``values`` (the model's Python-side defaults and None
        for the other columns, as the ORM's insert would give them), to be inserted by
        :meth:`write`; its key is given then (or by :meth:`insert_now`)."""
        spec = table_of(model)
        row = plain_class(model).__new__(plain_class(model))
        data = row.__dict__
        for key in spec.keys:
            data[key] = None
        for key, default in spec.defaults:
            data[key] = default.arg if default.is_scalar else default.arg(None)
        data.update(values)
        self._new.append(row)
        return row

    def delete(self, row: Any) -> None:
        """Delete ``row``: a loaded row at :meth:`write`; a new one is simply not inserted."""
        for k, other in enumerate(self._new):
            if other is row:
                del self._new[k]
                return
        self._deleted.append(row)

    def insert_now(self, rows: list) -> None:
        """Give the new ``rows`` their keys and insert them now (their keys are needed before the
        turn's write); from then on they are loaded rows whose changes :meth:`write` writes."""
        rows = [row for row in self._new if any(row is r for r in rows)]
        self._new = [row for row in self._new if not any(row is r for r in rows)]
        self._insert(rows)

    # ------------------------------------------------------------------- writing
    def write(self) -> None:
        """Write the turn's changes: changed columns, new rows, deleted rows (see the module).
        Afterwards the rows' current values are the loaded ones, so a second write writes only
        what changed since."""
        connection = self.session.connection()
        by_model: dict[type, list] = defaultdict(list)  # the rows to delete (no longer written)
        for row in self._deleted:
            by_model[model_of(row)].append(row)
        for model, rows in by_model.items():
            gone = {id(row) for row in rows}
            self._loaded[model] = [pair for pair in self._loaded[model] if id(pair[0]) not in gone]
        for model in sorted(self._loaded, key=lambda m: m.__tablename__):
            self._update(connection, model, self._loaded[model])
        new, self._new = self._new, []
        self._insert(new)
        for model, rows in by_model.items():
            spec = table_of(model)
            connection.execute(delete(spec.table).where(spec.key_column.in_([r.__dict__[spec.key] for r in rows])))
        self._deleted = []
        expire_orm_rows(self.session, by_model)

    def _update(self, connection, model: type, pairs: list[tuple[Any, tuple]]) -> None:
        spec = table_of(model)
        compared, key_index = spec.compared, spec.keys.index(spec.key)
        changed_rows = []
        changed_columns: set[int] = set()
        for k, (row, before) in enumerate(pairs):
            now = compared(row.__dict__)
            if now != before:
                changed_columns.update(i for i, (a, b) in enumerate(zip(now, before)) if a != b)
                changed_rows.append((k, row, now))
        if not changed_rows:
            return
        changed_columns.discard(key_index)  # (keys never change)
        indexes = sorted(changed_columns)
        if indexes:
            columns = [spec.mapper.get_property(spec.keys[i]).columns[0] for i in indexes]
            values_of = spec.values_of
            values = sorted((now[key_index], [current[i] for i in indexes])
                            for _, row, now in changed_rows for current in (values_of(row.__dict__),))
            if connection.dialect.name == "postgresql" and (
                    connection.dialect._json_serializer is not None or not _plain_values(columns, values)):
                # (a value its JSON cast would not read exactly, a float in an integer column say:
                # SQLAlchemy's executemany, each value bound by its column's type)
                params = [{"row_key": key, **{f"new_{c.key}": v for c, v in zip(columns, row)}}
                          for key, row in values]
                connection.execute(update(spec.table).where(spec.key_column == bindparam("row_key"))
                                   .values({c.key: bindparam(f"new_{c.key}") for c in columns}), params)
            else:
                _update_rows(connection, spec.table, spec.key_column, columns, values)
        for k, row, now in changed_rows:  # written: these are now the rows' loaded values
            pairs[k] = (row, now)

    def _insert(self, rows: list) -> None:
        if not rows:
            return
        connection = self.session.connection()
        by_model: dict[type, list] = defaultdict(list)
        for row in rows:
            by_model[model_of(row)].append(row)
        ids = next_ids(connection, {table_of(model).table: len(objs) for model, objs in by_model.items()})
        order = [t.name for t in table_of(Player).table.metadata.sorted_tables]  # parents first
        for model in sorted(by_model, key=lambda m: order.index(m.__tablename__)):
            spec, objs = table_of(model), by_model[model]
            for row, new_id in zip(objs, ids[spec.table]):
                row.__dict__[spec.key] = new_id
            _insert_objects(connection, spec.mapper, objs)
            self.track(model, objs)


def expire_orm_rows(session: Session, deleted: dict[type, list] | None = None) -> None:
    """Expire the session's ORM rows of the :data:`MODELS` tables (the turn wrote their rows
    without them), and let go of those whose rows it deleted."""
    gone = {(model, row.__dict__[table_of(model).key]) for model, rows in (deleted or {}).items() for row in rows}
    for obj in list(session.identity_map.values()):
        model = type(obj)
        if model in MODELS:
            if gone and (model, inspect(obj).identity[0]) in gone:
                session.expunge(obj)
            else:
                session.expire(obj)

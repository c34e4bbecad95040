"""The start-of-turn view of a Continental Rails game, read once for a batch of mailed sheets (issue 32).

A week's fifteen sheets of one game arrive together and are checked one after the other, each in its
own transaction (:func:`pbm.turnsheet.check.check`); each check reads the same ~900 rows of the
game's start-of-turn state (:func:`pbm.cr.queries.load_plain`), about a sixth of a sheet's intake.
Checking a sheet writes none of them (it stores an order set, the mail and its answer), so the view
read for the first sheet is the view the next one would read — unless something else changed a row
in between: a moderator's fix, ``pbm rerun-turn`` restoring a snapshot under the same turn number,
another process, a secret change handled between two sheets.  No column or counter of the game
changes with every such write, so the view is kept only where the database itself can prove that
nothing changed.

**The proof (SQLite only; on PostgreSQL every sheet reads its view, as before).**  A view read on a
connection is used again on the same DBAPI connection for the same game at the same turn only if all
of these hold:

1. **It was read in a transaction that holds SQLite's write lock, and that transaction committed.**
   The intake reads it after locking the game (:func:`pbm.locks.lock_game` writes the game's row), so
   no other connection can commit while it is read; the rows it saw — this transaction's own writes
   included — are then the database's committed state.  A rollback of that transaction, or of any
   savepoint, before the commit drops the view (the connection's ``rollback`` events, and any
   ``ROLLBACK`` statement).
2. **No other connection has committed since** (``PRAGMA data_version`` unchanged: SQLite changes it on
   a connection whenever another connection, in any process, commits a change to the file).
3. **This connection has changed no row of the view's tables since.**  ``sqlite3``'s ``total_changes``
   counts every row this connection inserted, updated or deleted, by whatever path (the ORM, Core,
   ``exec_driver_sql``, the raw DBAPI connection).  Each statement SQLAlchemy runs on the connection is
   watched (the engine's ``before_cursor_execute`` / ``after_cursor_execute``): the rows it changed are
   "explained" only when it is an INSERT, UPDATE or DELETE whose table is not one of the view's
   (:data:`VIEW_TABLES`); the view is used only when every row changed since it was read is explained.
   A write to a view table, a statement of unknown target (text, DDL), a statement that failed, or a
   write outside SQLAlchemy leaves changes unexplained, and the view is read again.  Rows a foreign key's
   action changes are not counted by SQLite, so a DELETE of a game (whose rows cascade) is never
   explained (:data:`CASCADING`; the view tables' other foreign keys point at view tables).
4. **The schema is the same** (``PRAGMA schema_version``: a trigger or a table changed on this
   connection), and when the view was read the database had no triggers (a trigger fired by a write
   to another table could write a view table within an "explained" statement).
5. **The current transaction holds the write lock too** (the intake locked the game first), so no one
   commits between this check and the sheet's check; pending ORM changes are flushed first (and so
   watched), as :func:`~pbm.cr.queries.load_plain` does.

The game's own row is read by the ORM for every sheet as before (turn, climate, status); the kept
rows are pointed at that fresh ``game`` each time.  The view is read, never written, by the validator
(as the turn engine's checks of all fifteen seats already share one view).

``tests/cr/test_kept_view.py`` changes the game between two sheets in each of these ways and checks
that the next sheet sees the change.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import event
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Delete, Insert, Update

from pbm.cr import queries as q
from pbm.models import Game

VIEW_TABLES = frozenset({"players", "railroads", "towns", "routes", "private_companies", "lines", "holdings"})
# tables whose rows' deletion deletes view rows (ON DELETE CASCADE); SQLite does not count rows a foreign
# key's action changes in total_changes, so a DELETE on one of these is never explained
CASCADING = frozenset({"games"})
_KEY = "pbm_kept_view"  # in the DBAPI connection's ``info``: the view kept on that connection
_BEFORE = "pbm_kept_view_changes"


@dataclass
class _Kept:
    game_id: int
    turn: int
    view: q.View
    data_version: int
    schema_version: int
    base: int  # the connection's total_changes when the view was read
    explained: int = 0  # rows changed since by statements on tables not in the view
    committed: bool = False


def start_of_turn_view(session: Session, game: Game) -> tuple[q.View, bool]:
    """(the start-of-turn view of ``game`` as :func:`~pbm.cr.queries.load_plain` reads it, whether it is
    kept for the next sheet).  A kept view must not be released (:func:`~pbm.cr.queries.release_plain`);
    one that is not kept may be."""
    if session.autoflush:  # what load_plain would flush, written (and watched) before the proof
        session.flush()
    conn = session.connection()
    if conn.dialect.name != "sqlite":
        return q.load_plain(session, game), False
    dbapi = conn.connection.dbapi_connection
    if not getattr(dbapi, "in_transaction", False):  # no write lock held: nothing proves the view current
        return q.load_plain(session, game), False
    _watch(conn.engine)
    info = conn.info
    kept: _Kept | None = info.get(_KEY)
    data_version, schema_version = _versions(dbapi)
    if kept is not None:
        if (kept.committed and kept.game_id == game.id and kept.turn == game.turn
                and kept.data_version == data_version and kept.schema_version == schema_version
                and dbapi.total_changes - kept.base == kept.explained):
            view = kept.view
            view.game = game
            for rows in (view.players, view.railroads, view.towns, view.routes, view.pcs):
                for row in rows.values():
                    row.game = game
            return view, True
        _drop(info)
    view = q.load_plain(session, game)
    if _has_triggers(dbapi):
        return view, False
    info[_KEY] = _Kept(game.id, game.turn, view, data_version, schema_version, dbapi.total_changes)
    return view, True


def forget(session: Session) -> None:
    """Drop the view kept on ``session``'s connection (if any)."""
    _drop(session.connection().info)


def _versions(dbapi) -> tuple[int, int]:
    cursor = dbapi.cursor()  # the DBAPI cursor: not a statement SQLAlchemy watches
    try:
        data_version = cursor.execute("PRAGMA data_version").fetchone()[0]
        schema_version = cursor.execute("PRAGMA schema_version").fetchone()[0]
    finally:
        cursor.close()
    return data_version, schema_version


def _has_triggers(dbapi) -> bool:
    cursor = dbapi.cursor()
    try:
        return cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' LIMIT 1").fetchone() is not None
    finally:
        cursor.close()


def _drop(info) -> None:
    kept = info.pop(_KEY, None)
    if kept is not None:
        q.release_plain(kept.view)


_WATCHED: set[int] = set()


def _watch(engine) -> None:
    """Listen to ``engine``'s statements, commits and rollbacks (once per engine)."""
    if id(engine) in _WATCHED and event.contains(engine, "after_cursor_execute", _after):
        return
    event.listen(engine, "before_cursor_execute", _before)
    event.listen(engine, "after_cursor_execute", _after)
    event.listen(engine, "commit", _commit)
    event.listen(engine, "rollback", _rollback)
    event.listen(engine, "rollback_savepoint", _rollback_savepoint)
    _WATCHED.add(id(engine))


def _before(conn, cursor, statement, parameters, context, executemany) -> None:
    info = conn.info
    if _KEY in info:
        info[_BEFORE] = conn.connection.dbapi_connection.total_changes


def _after(conn, cursor, statement, parameters, context, executemany) -> None:
    info = conn.info
    kept = info.get(_KEY)
    if kept is None:
        return
    before = info.pop(_BEFORE, None)
    if statement.lstrip()[:8].upper().startswith("ROLLBACK"):
        _drop(info)  # a savepoint's writes undone: what the view saw may be gone
        return
    if before is None:
        return
    changed = conn.connection.dbapi_connection.total_changes - before
    if changed:
        statement_object = getattr(getattr(context, "compiled", None), "statement", None)
        if isinstance(statement_object, (Insert, Update, Delete)):
            table = getattr(statement_object.table, "name", None)
            cascades = isinstance(statement_object, Delete) and table in CASCADING
            if table is not None and table not in VIEW_TABLES and not cascades:
                kept.explained += changed
        # else: left unexplained, and the view is read again


def _commit(conn) -> None:
    kept = conn.info.get(_KEY)
    if kept is not None:
        kept.committed = True


def _rollback(conn) -> None:
    kept = conn.info.get(_KEY)
    if kept is not None and not kept.committed:
        _drop(conn.info)


def _rollback_savepoint(conn, name, context) -> None:
    _drop(conn.info)

"""The turn's plain rows (``pbm.cr.engine.rows``): what a turn changes, makes and deletes is what
the database holds afterwards, and the session's ORM rows read it back."""

from __future__ import annotations

from sqlalchemy import func, select

from pbm.cr.engine.context import TurnContext
from pbm.cr.engine.construction import _add_line
from pbm.db import session_scope
from pbm.models import Game, Holding, Line, Player, Railroad, Route
from tests.cr.helpers import tiny_game


def _game(s) -> Game:
    return s.scalar(select(Game).where(Game.name == "rows"))


def test_changes_new_rows_and_deletions_are_written(db_url):
    with session_scope(db_url) as s:
        tiny_game(s, name="rows")
    with session_scope(db_url) as s:
        g = _game(s)
        orm_nyc = s.scalar(select(Railroad).where(Railroad.game_id == g.id, Railroad.code == "NYC"))
        orm_lines = len(orm_nyc.lines)
        ctx = TurnContext(s, g)
        nyc, penn, p1 = ctx.railroads["NYC"], ctx.railroads["PENN"], ctx.players[1]
        nyc.cash, p1.loan = 123_456, 789  # changed columns
        nyc.technologies.append("B")  # a JSON value changed in place is a change too
        ny2, oh2 = ctx.routes["NY2"], ctx.routes["OH2"]
        _add_line(ctx, nyc, ny2)  # a new row, inserted
        _add_line(ctx, penn, oh2)  # a new row deleted before the write: never inserted
        gone = penn.lines.pop()
        ctx.rows.delete(gone)
        old = nyc.lines[0]  # a loaded row deleted
        nyc.lines.remove(old)
        ctx.rows.delete(old)
        ctx.write_rows()
        # the session's ORM rows read what was written (they were expired)
        assert orm_nyc.cash == 123_456 and orm_nyc.technologies == ["B"]
        assert len(orm_nyc.lines) == orm_lines  # one built, one deleted
        assert s.get(Player, p1.id).loan == 789
    with session_scope(db_url) as s:
        g = _game(s)
        nyc = s.scalar(select(Railroad).where(Railroad.game_id == g.id, Railroad.code == "NYC"))
        built = {s.get(Route, line.route_id).code for line in nyc.lines}
        assert "NY2" in built and s.get(Route, old.route_id).code not in built
        assert nyc.cash == 123_456 and nyc.technologies == ["B"]
        assert s.scalar(select(func.count()).select_from(Line).where(Line.route_id == oh2.id)) == 0
        assert s.get(Line, old.id) is None


def test_a_second_write_writes_only_what_changed_since(sqlite_url):
    with session_scope(sqlite_url) as s:
        tiny_game(s, name="rows")
    with session_scope(sqlite_url) as s:
        g = _game(s)
        ctx = TurnContext(s, g)
        nyc = ctx.railroads["NYC"]
        nyc.cash = 1_000
        ctx.write_rows()
        s.execute(Railroad.__table__.update().where(Railroad.id == nyc.id).values(cash=2_000))  # written by someone else
        ctx.players[1].cash = 5
        ctx.write_rows()  # the railroad is unchanged since the first write: not written again
        assert s.scalar(select(Railroad.cash).where(Railroad.id == nyc.id)) == 2_000
        assert s.scalar(select(Player.cash).where(Player.id == ctx.players[1].id)) == 5


def test_a_new_holding_gets_the_key_the_database_would_give(db_url):
    with session_scope(db_url) as s:
        tiny_game(s, name="rows")
    with session_scope(db_url) as s:
        g = _game(s)
        top = s.scalar(select(func.max(Holding.id)))
        ctx = TurnContext(s, g)
        rr = ctx.railroads["NYC"]
        player = ctx.players[1]
        h = ctx.holdings.pop((player.id, rr.id))  # as if the player had never held NYC
        s.execute(Holding.__table__.delete().where(Holding.id == h.id))
        player.holdings.remove(h)
        rr.holdings.remove(h)
        new = ctx.holding(player, rr)
        new.shares = 7
        ctx.write_rows()
        assert new.id == top + 1
        assert s.scalar(select(Holding.shares).where(Holding.id == new.id)) == 7


def test_rows_written_after_a_deletion_are_still_followed(sqlite_url):
    """A write that deletes one row of a table and updates others keeps following every row
    left: a change made after it is written by the next write."""
    with session_scope(sqlite_url) as s:
        tiny_game(s, name="rows")
    with session_scope(sqlite_url) as s:
        g = _game(s)
        ctx = TurnContext(s, g)
        first, second, third = sorted(ctx.holdings.values(), key=lambda h: h.id)[:3]
        ctx.rows.delete(first)
        third.shares = 11
        ctx.write_rows()
        second.shares, third.shares = 22, 33
        ctx.write_rows()
        got = dict(s.execute(select(Holding.id, Holding.shares).where(Holding.id.in_([second.id, third.id]))).all())
        assert got == {second.id: 22, third.id: 33}
        assert s.get(Holding, first.id) is None


def test_a_value_the_fast_update_cannot_carry_is_written_all_the_same(db_url):
    """A float in an integer column (the JSON-array UPDATE on PostgreSQL would round it on the
    server): written through SQLAlchemy's executemany instead, as the ORM would."""
    with session_scope(db_url) as s:
        tiny_game(s, name="rows")
    with session_scope(db_url) as s:
        g = _game(s)
        ctx = TurnContext(s, g)
        ctx.players[1].loan, ctx.players[2].cash = 789.0, 1_234
        ctx.write_rows()
        got = dict(s.execute(select(Player.number, Player.loan).where(Player.game_id == g.id)).all())
        assert got[1] == 789 and s.scalar(select(Player.cash).where(Player.id == ctx.players[2].id)) == 1_234

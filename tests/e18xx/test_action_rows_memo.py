"""The game's action rows kept for one session (issue 32 target 1, ``games.action_rows``): what is
kept always equals what a fresh query reads, whatever the session writes to the actions."""
from __future__ import annotations

from sqlalchemy import delete, select, update

from pbm.db import session_scope
from pbm.models import Action18, Game

from .db_games import stored_playthrough


def fresh(s, game) -> list[tuple[int, dict]]:
    return [(r.seq, r.action) for r in s.scalars(select(Action18).where(Action18.game_id == game.id)
                                                  .order_by(Action18.seq).execution_options(populate_existing=True))]


def kept(s, game) -> list[tuple[int, dict]]:
    from pbm.e18xx.pbem.games import action_rows

    return [(r.seq, r.action) for r in action_rows(s, game)]


def test_kept_rows_follow_every_write_of_the_session(tmp_path):
    url = stored_playthrough(tmp_path, "ga", 20, seed=29, suffix="-s10", name="ga")
    from pbm.e18xx.pbem.games import action_rows

    with session_scope(url) as s:
        game = s.scalars(select(Game).where(Game.name == "ga")).one()
        first = action_rows(s, game)
        assert len(first) == 20 and kept(s, game) == fresh(s, game)
        assert action_rows(s, game)[0] is first[0]  # kept: the same rows, not read again
        first.clear()  # a caller's list is its own
        assert len(action_rows(s, game)) == 20
        # an action added by the ORM (a move stored): kept at the end without a second load
        s.add(Action18(game_id=game.id, seq=21, player_number=1, action={"type": "pass", "entity": "Ann"}))
        s.flush()
        assert kept(s, game) == fresh(s, game) and len(kept(s, game)) == 21
        # deleted by a statement (an undo)
        s.execute(delete(Action18).where(Action18.game_id == game.id, Action18.seq == 21))
        assert kept(s, game) == fresh(s, game) and len(kept(s, game)) == 20
        # changed by a statement, then by the ORM
        s.execute(update(Action18).where(Action18.game_id == game.id, Action18.seq == 20)
                  .values(action={"type": "pass", "entity": "Bob"}))
        assert kept(s, game)[-1][1] == {"type": "pass", "entity": "Bob"} == fresh(s, game)[-1][1]
        row = action_rows(s, game)[-1]
        row.action = {"type": "pass", "entity": "Cy"}
        s.flush()
        assert kept(s, game) == fresh(s, game)
        # an action added out of order (not at the end): read again
        s.add(Action18(game_id=game.id, seq=0, player_number=1, action={"type": "pass", "entity": "Di"}))
        s.flush()
        assert kept(s, game) == fresh(s, game) and kept(s, game)[0][0] == 0
        s.rollback()
        assert kept(s, game) == fresh(s, game) and len(kept(s, game)) == 20
    # another session sees what was committed, never what this one kept
    with session_scope(url) as s:
        game = s.scalars(select(Game).where(Game.name == "ga")).one()
        action_rows(s, game)
    with session_scope(url) as other:
        g2 = other.scalars(select(Game).where(Game.name == "ga")).one()
        other.add(Action18(game_id=g2.id, seq=21, player_number=1, action={"type": "pass", "entity": "Ann"}))
    with session_scope(url) as s:
        game = s.scalars(select(Game).where(Game.name == "ga")).one()
        assert len(kept(s, game)) == 21

"""Finding a game row by what a moderator types: its name or id, or nothing when there is one game."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.errors import PbmError
from pbm.models import Game


def pick_game(s: Session, game: str | None, title: str | None = None) -> Game:
    """The game named (by name or id), or the only game in the database."""
    query = select(Game).order_by(Game.id)
    if title is not None:
        query = query.where(Game.title == title)
    games = list(s.scalars(query))
    if game is None:
        if len(games) == 1:
            return games[0]
        if not games:
            raise PbmError("no game in this database (create one with `pbm new-game`)")
        names = ", ".join(g.name for g in games)
        raise PbmError(f"this database holds {len(games)} games ({names}); name one")
    for g in games:
        if g.name == game or str(g.id) == game:
            return g
    known = ", ".join(g.name for g in games) or "none"
    raise PbmError(f"no game {game!r} (games: {known})")

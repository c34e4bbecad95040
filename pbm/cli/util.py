"""Small helpers shared by the CLI commands: the database and the game argument.

Only typer is imported at load time (``pbm --help`` must not load SQLAlchemy)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from pbm.errors import PbmError

if TYPE_CHECKING:  # typing only
    from sqlalchemy.orm import Session

    from pbm.models import Game

GAME_ARG = typer.Argument(None, help="Game name or id; may be omitted when the database holds one game.")


def db_url(ctx: typer.Context) -> str | None:
    """The ``--db`` given to the root command (None: PBM_DATABASE_URL or pbm.db)."""
    root = ctx.find_root()
    return (root.obj or {}).get("db")


@contextmanager
def session(ctx: typer.Context) -> Iterator["Session"]:
    """One transaction on the chosen database; a database refusal is a one-line error, not a traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    from pbm.db import explain, session_scope

    try:
        with session_scope(db_url(ctx)) as s:
            yield s
    except SQLAlchemyError as exc:
        raise PbmError(f"the database refused the change: {explain(exc)}") from None


def pick_game(s: "Session", game: str | None, title: str | None = None) -> "Game":
    """The game named (by name or id), or the only game in the database (:func:`pbm.games.pick_game`)."""
    from pbm.games import pick_game as pick

    return pick(s, game, title)


def progress(label: str, enabled: bool):
    """A typer progress bar over an iterable (shown only on a terminal)."""
    def wrap(items):
        items = list(items)
        if not enabled or len(items) < 2:
            yield from items
            return
        with typer.progressbar(items, label=label, file=None) as bar:
            yield from bar
    return wrap


def interactive() -> bool:
    import sys

    return sys.stderr.isatty()


def pick_weekly_game(s: "Session", game: str | None, command: str) -> "Game":
    """For ``pbm <command>``, a command of weekly turns: the game named, or the only game of a weekly kind
    (Continental Rails); a game of a kind without weekly turns is refused in one line naming what to use
    instead (issue 18, item 11)."""
    from sqlalchemy import select

    from pbm.kinds import weekly_only, weekly_titles
    from pbm.models import Game

    if game is None:
        weekly = list(s.scalars(select(Game).where(Game.title.in_(weekly_titles())).order_by(Game.id)))
        if len(weekly) == 1:
            return weekly[0]
    g = pick_game(s, game)
    weekly_only(g, command)
    return g


CLOCK_HELP = ("Pretend it is this time (UTC), for testing and catching up: 2026-12-01T18:00, "
              "'2026-12-01 18:00:30', 2026-12-01 (midnight) or 18:00 (today); an offset such as +02:00 is "
              "turned into UTC.")


def parse_clock(text: str | None):
    """``--clock``: an ISO date, a date and time with or without seconds (T or a space between), with an
    optional offset (converted to UTC), or a time alone (today, UTC); None for no text."""
    from datetime import datetime, timezone

    from pbm.clock import utcnow

    if text is None or not text.strip():
        return None
    t = text.strip()
    if t[-1:] in ("Z", "z"):
        t = t[:-1] + "+00:00"
    try:
        if ":" in t and "-" not in t.split(":")[0] and len(t) <= 8:  # 18:00 or 18:00:30: today
            from datetime import time

            return datetime.combine(utcnow().date(), time.fromisoformat(t))
        at = datetime.fromisoformat(t)
    except ValueError:
        raise PbmError(f"--clock must be a date and time such as 2026-12-01T18:00 (or 2026-12-01, or 18:00), "
                       f"not {text!r}") from None
    if at.tzinfo is not None:
        at = at.astimezone(timezone.utc).replace(tzinfo=None)
    return at

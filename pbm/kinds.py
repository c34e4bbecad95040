"""Game kinds: the interface every game pbm plays implements, and the registry that finds them.

The core (games and seats, secrets, mail transport, the pipeline, the CLI) knows no game: it asks
this registry for the kind of a game row (:func:`kind_of`) or of a title the moderator typed
(:func:`kind_for_title`) and calls the :class:`GameKind` methods.  Each kind lives in its own
package and is loaded on first use, so ``pbm --help`` loads none of them::

    continental-rails  pbm.cr.kind     Continental Rails II: weekly turns of sealed orders
    18xx               pbm.e18xx.kind  the 18xx family: one title per folder, moves by email

Adding a game is adding a package with a ``kind`` module whose ``KIND`` implements
:class:`GameKind`, and one line in :data:`KINDS` (docs/architecture.md).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

if TYPE_CHECKING:  # typing only
    from sqlalchemy.orm import Session

    from pbm.models import Game

# The composition root: kind name -> module whose ``KIND`` implements GameKind, in the order the
# mail intake asks them (the first kind that claims a mail handles it).
KINDS: dict[str, str] = {
    "18xx": "pbm.e18xx.kind",
    "continental-rails": "pbm.cr.kind",
}


@dataclass
class Created:
    """A new game: its row and the lines to print once the transaction is committed
    (player secrets are shown there once; only their hashes are stored)."""

    game: Any
    lines: list[str] = field(default_factory=list)
    secrets: dict[int, str] = field(default_factory=dict)  # seat number -> secret, for the welcome mail


@runtime_checkable
class GameKind(Protocol):
    """What the core asks of a game.  Every method takes the open database session; none commits."""

    name: str  # the registry key, e.g. "continental-rails"
    weekly: bool  # True: turns of sealed orders run by the weekly cycle (close, resolve, report, send, archive)
    mail_moves: bool  # True: asked to :meth:`claim` a mail before the kinds without (which may claim any mail left)

    def titles(self) -> list[str]:
        """The titles this kind plays, as a moderator would type them."""

    def title_of(self, text: str) -> str | None:
        """The canonical title if ``text`` names one of this kind's titles, else None."""

    def plays(self, game: "Game") -> bool:
        """True if this game row is of this kind."""

    def new_game(self, *, title: str, seed: int, name: str | None, players: Path | None, anonymous: bool,
                 rules: tuple[str, ...]) -> Callable[["Session"], Created]:
        """``pbm new-game``: check everything that needs no database (the players file, the options),
        then return the step that creates the game in an open session."""

    def summary(self, session: "Session", game: "Game") -> str:
        """A readable summary of the game's state, ending in a newline (``pbm show``)."""

    def export(self, session: "Session", game: "Game") -> str:
        """The complete state of the game as JSON text, ending in a newline (``pbm export``)."""

    def read_orders(self, stored: dict | None) -> Any:
        """A seat's orders from a stored sheet (None: blank orders), for the gather step."""

    def resolve(self, session: "Session", game: "Game") -> Any:
        """Resolve the current turn with the gathered orders (weekly kinds)."""

    def render_reports(self, session: "Session", game: "Game", turn: int, out: Path, progress: Any = None) -> Any:
        """Write the PDF reports of a resolved turn (every player's and the moderator's) under ``out``
        (weekly kinds); the result has ``paths`` and ``warnings``."""

    def queue_reports(self, session: "Session", game: "Game", turn: int, reports: Path) -> Any:
        """Put a resolved turn's report mails into the outbox, once each (weekly kinds); the result has
        ``queued`` and ``already`` (seat numbers)."""

    def archive_turn(self, session: "Session", game: "Game", turn: int, reports: Path, archive: Path) -> Any:
        """The cycle's "sent → archived" step (weekly kinds): the turn's immutable bundle
        (:class:`pbm.bundle.Archived`)."""

    def archive_game(self, session: "Session", game: "Game", reports: Path, archive: Path) -> tuple[Any, list[str]]:
        """A finished game's whole record (weekly kinds): its final bundle, and what changed in the hall of
        records (one line each)."""

    def build_site(self, session: "Session", game: "Game", folder: Path) -> Any:
        """The game's static HTML pages, ``index.html`` first, written under ``folder`` (weekly kinds)."""

    def sample_orders(self, session: "Session", game: "Game", number: int, secret: str) -> str:
        """The text seat ``number``'s player could mail now, filled in with the orders the computer would
        give and the seat's ``secret`` (``pbm demo`` and the benchmarks play with it)."""

    def claim(self, session: "Session", msg: Any) -> Any | None:
        """Is this parsed mail a move for one of this kind's games?  A claim for :meth:`handle`, or None."""

    def handle(self, session: "Session", row: Any, ctx: Any, sender: str, claim: Any) -> Any:
        """Act on a claimed mail; returns the intake's ``Outcome`` (:mod:`pbm.mail.answer`)."""

    def paced_games(self, session: "Session") -> list[str]:
        """Open games that keep their own move clocks (run by ``pbm cycle``)."""

    def tick(self, session: "Session", sender: str, now: Any, moderator: str = "",
             names: list[str] | None = None) -> dict[str, list[str]]:
        """Reminders and time-outs due on the move clocks: {game name: what was done}."""

    def remind_due(self, session: "Session", game: "Game", sender: str, now: Any) -> tuple[str | None, list[int]]:
        """A weekly game's reminders on its schedule (``pbm deadline --remind``): queue the point due at
        ``now`` (once each) and return it with the seats it was queued for; (None, []) when none is due."""

    def started(self, session: "Session", game: "Game", sender: str) -> list[str]:
        """``pbm new-game``, in the creating transaction: queue the mails that tell the players the game has
        started; returns the lines to print (none: this kind's first mails go another way)."""

    def status(self, session: "Session", game: "Game") -> str | None:
        """``pbm status`` of a game without weekly turns: whose move, since when, the move clock (ending in
        a newline).  None: a weekly kind, whose turn the core's turnsheet status shows."""

    def instead(self, command: str, game: "Game") -> str:
        """What to use on this kind's ``game`` instead of the weekly-turn command ``pbm <command>`` (one
        line); "" when the command applies to this kind."""


class UnknownKind(LookupError):
    """No registered kind plays this game or title."""


@lru_cache(maxsize=None)
def get_kind(name: str) -> GameKind:
    """The kind registered as ``name``, loaded on first use."""
    return importlib.import_module(KINDS[name]).KIND


def all_kinds() -> tuple[GameKind, ...]:
    """Every registered kind, in registry order (loads them all)."""
    return tuple(get_kind(name) for name in KINDS)


def kind_for_title(text: str) -> tuple[GameKind, str]:
    """The kind that plays the title ``text`` and its canonical title."""
    for kind in all_kinds():
        title = kind.title_of(text)
        if title is not None:
            return kind, title
    raise UnknownKind(text)


def kind_of(game: "Game") -> GameKind:
    """The kind of a game row."""
    for kind in all_kinds():
        if kind.plays(game):
            return kind
    raise UnknownKind(game.title)


def known_titles() -> list[str]:
    """Every title of every kind, kind by kind (Continental Rails first, as ``pbm new-game`` lists them)."""
    return [t for name in sorted(KINDS, key=lambda n: n != "continental-rails") for t in get_kind(name).titles()]


def weekly_titles() -> list[str]:
    """The titles whose turns the weekly cycle runs."""
    return [t for kind in all_kinds() if kind.weekly for t in kind.titles()]


def weekly_only(game: "Game", command: str) -> None:
    """Refuse ``pbm <command>``, a command of weekly turns, on a game of a kind without them, saying in
    one line what to use instead (issue 18, item 11)."""
    from pbm.errors import PbmError

    kind = kind_of(game)
    if not kind.weekly:
        raise PbmError(f"`pbm {command}` is for Continental Rails turns; {game.name} is an {game.title} game played "
                       f"move by move: {kind.instead(command, game)}")


def mail_kinds() -> tuple[GameKind, ...]:
    """The kinds that take moves by mail, asked before the others (Continental Rails claims any mail left),
    in registry order."""
    return tuple(kind for kind in all_kinds() if kind.mail_moves)

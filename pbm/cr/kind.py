"""Continental Rails II as a game kind (:class:`pbm.kinds.GameKind`): weekly turns of sealed
orders on printed turnsheets, resolved all at once (Appendix A) by the weekly cycle.

Everything heavy is imported when used, so finding the kind costs nothing.  Its turnsheets come in
through :meth:`claim` and :meth:`handle` (:mod:`pbm.turnsheet.intake`), asked after the kinds that
take moves by mail.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pbm.errors import PbmError
from pbm.kinds import Created

if TYPE_CHECKING:  # typing only
    from sqlalchemy.orm import Session

    from pbm.models import Game

TITLE = "continental-rails"  # pbm.cr.setup.TITLE, the Game.title of every Continental Rails game
ALIASES = ("continental-rails", "continental-rails-ii", "cr", "cr2")


class ContinentalRails:
    name = TITLE
    weekly = True
    mail_moves = False

    def titles(self) -> list[str]:
        return [TITLE]

    def title_of(self, text: str) -> str | None:
        return TITLE if text.lower() in ALIASES else None

    def plays(self, game: "Game") -> bool:
        return game.title == TITLE

    def new_game(self, *, title: str, seed: int, name: str | None, players: Path | None, anonymous: bool,
                 rules: tuple[str, ...]) -> Callable[["Session"], Created]:
        """15 positions (§3.1): humans from the players file, the rest played by the computer."""
        from pbm.cr import setup

        if rules:
            raise PbmError("--rule is for 18xx titles")
        seats = setup.read_players_file(players) if players else []

        def create(session: "Session") -> Created:
            created = setup.create_game(session, seed=seed, name=name, seats=seats, anonymous=anonymous)
            game = created.game
            lines = [f"Created game {game.name} (id {game.id}): Continental Rails II, seed {game.seed}, "
                     f"turn {game.turn} ({game.year}), climate {game.climate}.",
                     f"{len(seats)} human player(s); {setup.POSITIONS - len(seats)} position(s) played by the "
                     "computer."]
            lines += [f"note: {note}" for note in created.notes]
            if created.secrets:
                lines.append("Player secrets (shown once; pbm stores only a hash — give each to its player):")
                for player in sorted(game.players, key=lambda p: p.number):
                    if player.number in created.secrets:
                        lines.append(f"  #{player.number:2d} {player.name} <{player.email}> as "
                                     f"{player.character}: {created.secrets[player.number]}")
            return Created(game, lines, dict(created.secrets))

        return create

    def summary(self, session: "Session", game: "Game") -> str:
        from pbm.cr.show import summary

        return summary(session, game)

    def export(self, session: "Session", game: "Game") -> str:
        """Canonical JSON (``pbm-continental-rails/1``): the same state always gives the same bytes."""
        from pbm.cr.state import dumps, export_game

        return dumps(export_game(session, game))

    def read_orders(self, stored: dict | None) -> Any:
        from pbm.cr.orders import Orders

        return Orders() if stored is None else Orders.from_dict(stored)

    def resolve(self, session: "Session", game: "Game") -> Any:
        from pbm.cr.resolve import run_turn

        return run_turn(session, game)

    def render_reports(self, session: "Session", game: "Game", turn: int, out: Path, progress: Any = None) -> Any:
        """The turn reports of §9, every player's and the moderator's (:mod:`pbm.report.render`)."""
        from pbm.report.render import render_turn

        return render_turn(session, game, turn=turn, moderator=True, out=out, progress=progress)

    def queue_reports(self, session: "Session", game: "Game", turn: int, reports: Path) -> Any:
        """Each human's report with the next turnsheets, and the seat notices (:mod:`pbm.report.send`)."""
        from pbm.report.send import queue_reports

        return queue_reports(session, game, turn=turn, reports=reports)

    def archive_turn(self, session: "Session", game: "Game", turn: int, reports: Path, archive: Path) -> Any:
        """Mails, orders, state, log and reports of the turn (:mod:`pbm.report.archive`)."""
        from pbm.report.archive import archive_turn

        return archive_turn(session, game, turn, reports=reports, archive=archive)

    def archive_game(self, session: "Session", game: "Game", reports: Path, archive: Path) -> tuple[Any, list[str]]:
        """The hall of records first (§11.3), then tables, final state and site."""
        from pbm.report.archive import archive_final, update_records

        changes = update_records(session, game)
        return archive_final(session, game, reports=reports, archive=archive), changes

    def build_site(self, session: "Session", game: "Game", folder: Path) -> Any:
        from pbm.report.site import build_site

        return build_site(session, game, folder)

    def sample_orders(self, session: "Session", game: "Game", number: int, secret: str) -> str:
        """A filled-in text turnsheet for the current turn (:func:`pbm.turnsheet.seed.sheet_text`)."""
        from sqlalchemy import select

        from pbm.models import Player
        from pbm.turnsheet.seed import sheet_text

        player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
        return sheet_text(session, game, player, secret, game.turn)

    def claim(self, session: "Session", msg: Any) -> Any:
        """Asked last (``mail_moves`` is False), it claims every mail left: a turnsheet, or mail to refuse
        saying how to send one."""
        from pbm.turnsheet import intake

        return intake.claim(session, msg)

    def handle(self, session: "Session", row: Any, ctx: Any, sender: str, claim: Any) -> Any:
        from pbm.turnsheet import intake

        return intake.handle(session, row, ctx, sender, claim)

    def paced_games(self, session: "Session") -> list[str]:
        return []  # turns are run by the weekly cycle, not by move clocks

    def tick(self, session: "Session", sender: str, now: Any, moderator: str = "",
             names: list[str] | None = None) -> dict[str, list[str]]:
        return {}

    def remind_due(self, session: "Session", game: "Game", sender: str, now: Any) -> tuple[str | None, list[int]]:
        from pbm.turnsheet.notify import scheduled_reminders

        return scheduled_reminders(session, game, sender, now)

    def started(self, session: "Session", game: "Game", sender: str) -> list[str]:
        return []  # its first turnsheets go out with `pbm turnsheet --mail` once the moderator is ready

    def status(self, session: "Session", game: "Game") -> str | None:
        return None  # the core's turnsheet status (pbm.mail.status)

    def instead(self, command: str, game: "Game") -> str:
        return ""  # every weekly-turn command is Continental Rails'


KIND = ContinentalRails()

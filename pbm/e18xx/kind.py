"""The 18xx family as a game kind (:class:`pbm.kinds.GameKind`): each title a folder of data and
one hooks module (docs/18xx/engine.md); moves by email, one at a time, with move clocks instead
of weekly turns (docs/18xx/email.md, docs/18xx/pacing.md).

Everything heavy is imported when used, so finding the kind costs nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pbm.errors import PbmError
from pbm.kinds import Created

if TYPE_CHECKING:  # typing only
    from sqlalchemy.orm import Session

    from pbm.models import Game


class Family18xx:
    name = "18xx"
    weekly = False
    mail_moves = True

    def titles(self) -> list[str]:
        from pbm.e18xx.core.title import known_titles

        return list(known_titles())

    def title_of(self, text: str) -> str | None:
        from pbm.e18xx.core.title import canonical_title

        return canonical_title(text)

    def plays(self, game: "Game") -> bool:
        return self.title_of(game.title) is not None

    def new_game(self, *, title: str, seed: int, name: str | None, players: Path | None, anonymous: bool,
                 rules: tuple[str, ...]) -> Callable[["Session"], Created]:
        """The title's players, in seat order, from the players file (its optional rules by name)."""
        from pbm.e18xx.core.title import load_title
        from pbm.seats import read_players_file

        if players is None:
            rng = load_title(title).data["players"]
            raise PbmError(f"{title} needs --players FILE.csv (name,email; {rng['min']} to {rng['max']} players, "
                           "in seat order)")
        seats = read_players_file(players)

        def create(session: "Session") -> Created:
            from pbm.e18xx.pbem.games import create_game

            row, secrets = create_game(session, title=title, seed=seed, name=name, seats=seats,
                                       optional_rules=rules, anonymous=anonymous)
            lines = [f"Created game {row.name} (id {row.id}): {title}, seed {row.seed}, {len(seats)} players"
                     + (f", optional rules {', '.join(rules)}" if rules else "") + ".",
                     "Player secrets (shown once; pbm stores only a hash — give each to its player):"]
            lines += [f"  #{number} {seat.name} <{seat.email}>: {secrets[number]}"
                      for number, seat in enumerate(seats, start=1)]
            return Created(row, lines, dict(secrets))

        return create

    def summary(self, session: "Session", game: "Game") -> str:
        """The state after the latest move, as ``pbm 18xx show`` prints it."""
        from pbm.e18xx.pbem.games import replay_rows
        from pbm.e18xx.render.view import describe

        return describe(replay_rows(session, game).game) + "\n"

    def export(self, session: "Session", game: "Game") -> str:
        """The 18xx.games export format, as ``pbm 18xx export`` writes it (``pbm 18xx replay`` reads it)."""
        import json

        from pbm.e18xx.pbem.exchange import export_game

        return json.dumps(export_game(session, game), indent=1, sort_keys=True) + "\n"

    def read_orders(self, stored: dict | None) -> Any:
        raise PbmError("18xx games take moves one at a time, not turnsheets")

    def resolve(self, session: "Session", game: "Game") -> Any:
        raise PbmError(f"{game.name} is an 18xx game: it moves by email, not in weekly turns")

    def render_reports(self, session: "Session", game: "Game", turn: int, out: Path, progress: Any = None) -> Any:
        raise PbmError(f"{game.name} is played move by move: it has no weekly turn reports")

    def queue_reports(self, session: "Session", game: "Game", turn: int, reports: Path) -> Any:
        raise PbmError(f"{game.name} is played move by move: it has no weekly turn reports")

    def archive_turn(self, session: "Session", game: "Game", turn: int, reports: Path, archive: Path) -> Any:
        raise PbmError(f"{game.name} is played move by move: its record is its action log (`pbm export`)")

    def archive_game(self, session: "Session", game: "Game", reports: Path, archive: Path) -> tuple[Any, list[str]]:
        raise PbmError(f"{game.name} is played move by move: its record is its action log (`pbm export`)")

    def build_site(self, session: "Session", game: "Game", folder: Path) -> Any:
        raise PbmError(f"{game.name} is played move by move: its pages are the state mails and `pbm 18xx show`")

    def sample_orders(self, session: "Session", game: "Game", number: int, secret: str) -> str:
        """A move mail (docs/18xx/email.md): the move the computer would make if it is the seat's turn,
        else the header alone."""
        from sqlalchemy import select

        from pbm.e18xx.pbem.computer import choose
        from pbm.e18xx.pbem.games import load, move_text
        from pbm.models import Player

        engine = load(session, game)
        name = session.scalar(select(Player.name).where(Player.game_id == game.id, Player.number == number))
        action = choose(engine)
        acts = action is not None and engine.controller(engine.current_entity()) == name
        return f"GAME: {game.name}\nPLAYER: {number}\nSECRET: {secret}\n" + (move_text(engine, action) if acts else "") + "\n"

    def claim(self, session: "Session", msg: Any) -> Any | None:
        if not self.has_games(session):
            return None  # a mail for another kind: no need to load the engine to say so
        from pbm.e18xx.pbem import mailplay

        return mailplay.claim(session, msg)

    def has_games(self, session: "Session") -> bool:
        """One query: does this database hold any 18xx game?"""
        from sqlalchemy import select

        from pbm.models import Game

        return any(self.title_of(title) is not None for title in session.scalars(select(Game.title).distinct()))

    def handle(self, session: "Session", row: Any, ctx: Any, sender: str, claim: Any) -> Any:
        from pbm.collector import paused
        from pbm.e18xx.pbem import mailplay

        # (pbm.collector) a move's replay copies the kept state, ~20,000 objects with cycles, dropped when
        # the mail is answered: collections during the mail only moved them to older generations, and
        # about every tenth mail a full collection (~100 ms) walked the whole process.  Paused, they die
        # young: after the mail one young-generation collection frees them (issue 32: the collector's
        # time 12 -> 4 ms a mail, full collections about one in thirty mails instead of one in ten)
        with paused():
            return mailplay.handle(session, row, ctx, sender, claim)

    def paced_games(self, session: "Session") -> list[str]:
        from pbm.e18xx.pbem import mailplay

        return mailplay.paced_games(session)

    def tick(self, session: "Session", sender: str, now: Any, moderator: str = "",
             names: list[str] | None = None) -> dict[str, list[str]]:
        from pbm.e18xx.pbem.ticks import tick_all

        return tick_all(session, sender, now, moderator, names)

    def remind_due(self, session: "Session", game: "Game", sender: str, now: Any) -> tuple[str | None, list[int]]:
        return None, []  # the move clocks remind (tick), not a weekly schedule

    def started(self, session: "Session", game: "Game", sender: str) -> list[str]:
        """Every player is mailed that the game has started, with the state; the first to act is told it is
        his move, with the legal moves and the lines to reply with (issue 18, item 11)."""
        from pbm.e18xx.pbem import mailplay

        told = mailplay.announce_start(session, game, sender)
        if not told:
            return []
        return [f"Start of the game mailed to {told} player(s) (the first to act is told it is his move); "
                "`pbm send-mail` sends it."]

    def demo(self, folder: Path, title: str, *, url: str, read_mail: Callable[[Path], list], seed: int,
             moves: int, log: Callable[[str], None]) -> Any:
        """``pbm demo --title T``: a game of ``title`` by email in ``folder`` (:mod:`pbm.e18xx.pbem.demo`)."""
        from pbm.e18xx.pbem.demo import run_demo_18xx

        return run_demo_18xx(self, folder, title, url=url, read_mail=read_mail, seed=seed, moves=moves, log=log)

    def status(self, session: "Session", game: "Game") -> str | None:
        from pbm.e18xx.pbem import mailplay

        return mailplay.move_status(session, game)

    def instead(self, command: str, game: "Game") -> str:
        name = game.name
        return INSTEAD.get(command, INSTEAD[""]).format(name=name)

    def hide_names(self, session: "Session", game: "Game", message: Any, recipients: list[str]) -> None:
        """An anonymous game's mail as its readers may see it: the other players are "Player N"
        (pbm/e18xx/pbem/anon.py; called by the outbox as a message is queued)."""
        from pbm.e18xx.pbem.anon import hide_in_message

        hide_in_message(session, game, message, recipients)


# What to use instead of each weekly-turn command (issue 18, item 11); {name} is the game's name.
INSTEAD = {
    "": "`pbm status {name}` shows whose move it is, `pbm 18xx move {name} --player N MOVE` enters one",
    "remind": "`pbm 18xx pacing {name}` sets its reminders and `pbm 18xx tick` sends the due ones",
    "deadline": "an 18xx game has no weekly deadline: `pbm 18xx pacing {name}` sets its move clock",
    "run-turn": "there are no turns to run; `pbm 18xx move {name} --player N MOVE` enters a move for a player "
                "and `pbm 18xx tick {name}` applies a time-out that is due",
    "rerun-turn": "`pbm 18xx undo {name}` takes back the last move (and mails the new state)",
    "turnsheet": "it has no turnsheets; each player gets the state by mail after every move, and "
                 "`pbm 18xx status {name}` / `pbm 18xx pdf {name}` show it",
    "accept-late": "a move is never late; `pbm 18xx move {name} --player N MOVE` enters one for a player",
    "report": "it has no turn reports; `pbm 18xx pdf {name}` draws its state (mailed after every move)",
    "send": "its state is mailed after every move; `pbm send-mail` sends what is queued",
    "archive": "`pbm 18xx export {name}` writes its whole record (the 18xx.games format)",
}


KIND = Family18xx()

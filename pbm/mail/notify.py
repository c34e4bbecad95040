"""Mail pbm starts itself: turnsheets to players and reminders to those without orders."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import clean_address
from pbm.mail.policy import accepted_orderset, deadline_for, missed_turns_limit
from pbm.models import Game
from pbm.turnsheet.files import Sheet, human_players, make_sheets, safe_name


def _deadline_text(session: Session, game: Game) -> str:
    deadline = deadline_for(session, game)
    return deadline.strftime("%Y-%m-%d %H:%M UTC") if deadline else "not set yet"


def queue_turnsheets(session: Session, game: Game, sheets: list[Sheet], sender: str) -> list[str]:
    """Queue each player's turnsheet (text in the body, PDF attached); returns who gets one."""
    queued = []
    for s in sheets:
        address = clean_address(s.player.email or "")
        if address is None:
            continue
        body = (f"Your turnsheet for game {game.name}, turn {game.turn} ({game.year}). "
                f"Deadline: {_deadline_text(session, game)}.\n\n"
                "Fill in the attached PDF and send it back, or reply with the text sheet below filled in "
                "(after the colons). Write your secret on the SECRET line.\n\n" + (s.text or ""))
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Turnsheet for turn {game.turn}", body)
        if s.pdf is not None:
            msg.add_attachment(s.pdf, maintype="application", subtype="pdf",
                               filename=f"{safe_name(game.name)}-turn-{game.turn}-player-{s.player.number:02d}.pdf")
        outbox.queue(session, f"turnsheet:{game.id}:{game.turn}:{s.player.number}", "turnsheet", [address], msg,
                     game=game)
        queued.append(address)
    return queued


def remind(session: Session, game: Game, sender: str, today: datetime | None = None) -> list[int]:
    """Queue a reminder (with the text sheet) for each human player without an accepted sheet this turn.

    One reminder per player and day: running it twice the same day queues nothing new."""
    day = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    reminded = []
    limit = missed_turns_limit(game)
    for player in human_players(session, game):
        if accepted_orderset(session, game, player, game.turn) is not None:
            continue
        address = clean_address(player.email or "")
        if address is None:
            continue
        sheet = make_sheets(session, game, player.number, "text")[0]
        missed = player.missed_turns
        warning = (f"You have missed {missed} turn(s) in a row; the computer is playing your position until "
                   "you send a sheet again (§3.1)." if missed >= limit else
                   f"If we receive no sheet, standing orders apply: control of your railroads and their dividends "
                   f"stay unchanged and nothing else is ordered (§10.1D, §10.2H). After {limit} missed turns in a "
                   "row the computer plays your position until you return (§3.1).")
        body = (f"We have no turnsheet from you (player {player.number}) for game {game.name}, turn {game.turn}. "
                f"Deadline: {_deadline_text(session, game)}.\n\n{warning}\n\nYour text sheet:\n\n{sheet.text}")
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Reminder: turn {game.turn} orders",
                           body)
        outbox.queue(session, f"reminder:{game.id}:{game.turn}:{player.number}:{day}", "reminder", [address], msg,
                     game=game)
        reminded.append(player.number)
    return reminded

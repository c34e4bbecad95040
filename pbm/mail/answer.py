"""What handling a stored message ends with: its outcome, its status, and the answer queued.

Shared by the Continental Rails intake (:mod:`pbm.mail.ingest`) and every game
kind that takes mail (found through :mod:`pbm.kinds`), so a kind needs nothing
from the intake module itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.orm import Session

from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.models import Game, InboundMessage


class Sending(Protocol):
    """The part of the intake's configuration an answer needs."""

    sender: str


@dataclass
class Outcome:
    inbound_id: int
    seq: int
    status: str  # accepted, superseded, late, rejected, ignored, duplicate, error
    reason: str = ""
    replied_to: list[str] = field(default_factory=list)
    problems: int = 0
    player: int | None = None

    def line(self) -> str:
        who = f" player {self.player}" if self.player is not None else ""
        extra = f": {self.reason}" if self.reason else ""
        probs = f" ({self.problems} problem(s))" if self.problems else ""
        return f"#{self.seq}{who} {self.status}{probs}{extra}"


def finish(row: InboundMessage, status: str, reason: str, **extra: Any) -> None:
    """Record how a stored message was handled."""
    row.status = status
    row.outcome = {"reason": reason, **extra}


def reply(session: Session, ctx: Sending, row: InboundMessage, recipients: list[str], subject: str, body: str,
          game: Game | None) -> list[str]:
    """Queue one answer to ``row`` (each address once); returns the addresses."""
    unique: list[str] = []
    for r in recipients:
        if r and r.lower() not in {u.lower() for u in unique}:
            unique.append(r)
    if not unique:
        return []
    msg = make_message(ctx.sender, unique, subject, body, in_reply_to=row.message_id)
    outbox.queue(session, f"receipt:{row.sha256[:24]}", "receipt", unique, msg, game=game)
    return unique


def ignored_text(ignored: list[tuple[int, str]]) -> str:
    """One line for the prose read after the orders (docs/mail.md): where it starts and how it begins."""
    first, last = ignored[0][0], ignored[-1][0]
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    def words(text: str) -> str:  # at most 60 characters, cut between words
        text = one_line(text, 1000)
        return text if len(text) <= 60 else text[:61].rsplit(" ", 1)[0] + " ..."

    quoted = " / ".join(words(text) for _, text in ignored[:2]) + (" ..." if len(ignored) > 2 else "")
    return f"IGNORED TEXT ({where}, after your orders, not read as orders): \"{quoted}\""


# why a mail was refused, in whole words, for the subject line (docs/mail.md "Refusals"); the first match counts
_SUBJECT_WORDS = (
    ("no turnsheet found", "no turnsheet found"),
    ("the GAME line is missing", "the GAME line is missing"),
    ("there is no game", "unknown game name"),
    ("takes moves, not turnsheets", "send moves, not a turnsheet"),
    ("but this address takes", "sent to another game's address"),
    ("it takes no more", "the game is closed"),
    ("the PLAYER line", "the player number is missing"),
    ("has no player", "no such player"),
    ("the SECRET line", "the secret is missing"),
    ("the secret does not match", "wrong secret"),
    ("the TURN line", "the turn number is missing"),
    ("which is over", "sheet for a past turn"),
    ("which has not started", "sheet for a future turn"),
    ("the CODE line is empty", "the turn code is missing"),
    ("code for turn", "wrong turn code"),
    ("could not handle", "an error; the moderator was told"),
    ("the SEEN line", "the SEEN line is missing or wrong"),
    ("code of action", "the SEEN line is missing or wrong"),
    ("you wrote against action", "written against an older position"),
    ("line ", "a move was refused"),
)


def refusal_subject(seq: int, reason: str, tag: str = "pbm") -> str:
    """``[tag] Not accepted: your message #N (wrong secret)`` - whole words, nothing cut off."""
    words = next((w for key, w in _SUBJECT_WORDS if key.lower() in reason.lower()), "see the reason inside")
    return f"[{tag}] Not accepted: your message #{seq} ({words})"


def contact_line(moderator: str) -> str:
    """The moderator's contact, for every refusal (replies to pbm are read as turnsheets)."""
    if moderator:
        return f"Questions: write to the moderator at {moderator} (replies to this address are read by a program)."
    return "Questions: write to your game's moderator (replies to this address are read by a program)."

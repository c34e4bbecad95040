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
    quoted = " / ".join(one_line(text, 60) for _, text in ignored[:2]) + (" ..." if len(ignored) > 2 else "")
    return f"IGNORED TEXT ({where}, after your orders, not read as orders): \"{quoted}\""

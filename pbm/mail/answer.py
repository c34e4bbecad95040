"""What handling a stored message ends with: its outcome, its status, and the answer queued.

Shared by the Continental Rails intake (:mod:`pbm.mail.ingest`) and every game
kind that takes mail (found through :mod:`pbm.kinds`), so a kind needs nothing
from the intake module itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm.clock import utcnow
from pbm.db import savepoint
from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.models import AnswerLimit, Game, InboundMessage, Player


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


def ignored_text(ignored: list[tuple[int, str]], said: str = "after your orders") -> str:
    """One line for the prose read after the orders (docs/mail.md), or above them (``said``, a greeting):
    where it starts and how it begins."""
    first, last = ignored[0][0], ignored[-1][0]
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    def words(text: str) -> str:  # at most 60 characters, cut between words
        text = one_line(text, 1000)
        return text if len(text) <= 60 else text[:61].rsplit(" ", 1)[0] + " ..."

    quoted = " / ".join(words(text) for _, text in ignored[:2]) + (" ..." if len(ignored) > 2 else "")
    return f"IGNORED TEXT ({where}, {said}, not read as orders): \"{quoted}\""


# why a mail was refused, in whole words, for the subject line (docs/mail.md "Refusals"); the first match counts
_SUBJECT_WORDS = (
    ("no turnsheet found", "no turnsheet found"),
    ("the GAME line is missing", "the GAME line is missing"),
    ("there is no game", "unknown game name"),
    ("names no game here", "unknown game name"),  # a misspelt GAME line of a move mail, not "a move was refused"
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


HELP = ("A turnsheet starts with the lines GAME, PLAYER, TURN, CODE and SECRET as printed on your sheet; "
        "paste the text sheet into the body of a plain-text email, attach it as a .txt file, "
        "or attach the filled and saved PDF.")


class Answering(Sending, Protocol):
    """The part of the intake's configuration a refusal needs."""

    moderator: str


REFUSALS_PER_DAY_UNKNOWN = 1  # refusals a day to an address not on file for any player (issue 13, item 11)
# refusals of unauthenticated mail a day to a player's own address: enough for a player fumbling his secret,
# too few for a forger to flood a player's mailbox with pbm's answers to mail sent in his name
REFUSALS_PER_DAY_KNOWN = 10


def on_file(session: Session, address: str) -> bool:
    low = address.lower()
    return any(low == (e or "").lower() for e in session.scalars(select(Player.email).where(Player.email != "")))


def count_answer(session: Session, row: InboundMessage, address: str, limit: int = REFUSALS_PER_DAY_UNKNOWN) -> bool:
    """Count one more answer to ``address`` today; False if its allowance (``limit``) is used up."""
    day = (row.received_at or utcnow()).strftime("%Y-%m-%d")
    used = session.get(AnswerLimit, (address, day))
    if used is not None and used.count >= limit:
        return False
    try:
        with savepoint(session):
            if used is None:
                session.add(AnswerLimit(address=address, day=day, count=1))
            else:
                used.count += 1
            session.flush()
    except IntegrityError:  # a concurrent reader answered the same address first
        used = session.get(AnswerLimit, (address, day), populate_existing=True)
        if used is None or used.count >= limit:
            return False
        used.count += 1
    return True


def refuse(session: Session, ctx: Answering, row: InboundMessage, sender: str, reason: str, notes: list[str],
            *, key: str = "receipt", tag: str = "pbm", body: str | None = None) -> list[str]:
    """Queue one refusal of a message that did not authenticate to its (unverified) sender, or none if the
    sender's daily allowance is used up.  Every game kind refuses through here (issue 34, items 6 and 10).

    The sender is not proven to be anyone, so nothing of the message goes into the answer: no header
    refers to it (no In-Reply-To or References to its Message-ID), and ``reason``, ``notes`` and ``body``
    must be fixed words — never a line, an attachment name or the subject of the message.  An address on
    file for a player gets the reason and the notes (``body``: a kind's own text instead, with the same
    rule); any other address gets one short fixed answer a day, so pbm cannot be used to mail chosen text
    to a third party."""
    known = on_file(session, sender)
    if not known and not count_answer(session, row, sender.lower()[:254]):
        row.outcome = {**(row.outcome or {}), "answer": f"not answered: already {REFUSALS_PER_DAY_UNKNOWN} "
                       "answer(s) today to this unknown address"}
        return []
    if known and not count_answer(session, row, sender.lower()[:254], REFUSALS_PER_DAY_KNOWN):
        row.outcome = {**(row.outcome or {}), "answer": f"not answered: already {REFUSALS_PER_DAY_KNOWN} "
                       "refusals today to this player's address (mail in his name that did not authenticate)"}
        return []
    if known:
        subject = refusal_subject(row.seq, reason, tag)
        text = body if body is not None else refusal_text(row, reason, notes, ctx.moderator)
    else:
        subject = f"[{tag}] Not accepted: your message #{row.seq} (sender address not on file)"
        text = STRANGER_TEXT.format(seq=row.seq, help=HELP + MOVES_HELP, contact=contact_line(ctx.moderator))
    msg = make_message(ctx.sender, [sender], subject, text)
    outbox.queue(session, f"{key}:{row.sha256[:24]}", "receipt", [sender], msg)
    return [sender]


MOVES_HELP = " Moves in a game played move by move start with the lines GAME, PLAYER and SECRET."
STRANGER_TEXT = (
    "Your message #{seq} to this address was received but NOT accepted.\n\n"
    "{help}\n\nIf you play in a game here, send your sheet or your moves from the address you gave the "
    "moderator to get the reason. At most one answer a day goes to an address pbm does not know.\n\n"
    "{contact}\n\n-- \npbm (automatic answer)\n")


def refusal_text(row: InboundMessage, reason: str, notes: list[str], moderator: str = "") -> str:
    lines = [
        f"Your message #{row.seq} was received and stored, but it was NOT accepted as a turnsheet.",
        "",
        f"Why: {reason}",
    ]
    if notes:
        lines += ["", "What we found in the message:"] + [f"  - {one_line(n, 160)}" for n in notes]
    lines += ["", "Nothing in it will be used. Please correct the sheet and send it again before the deadline.",
              "", contact_line(moderator),
              "", "-- ", "pbm (automatic answer; replies to this message are read as turnsheets)"]
    return "\n".join(lines) + "\n"


def find_message(session: Session, ref: str) -> InboundMessage | None:
    """A stored message by its arrival number (``12`` or ``#12``) or its Message-ID (with or without <>)."""
    text = ref.strip()
    if text.lstrip("#").isascii() and text.lstrip("#").isdigit():
        return session.scalar(select(InboundMessage).where(InboundMessage.seq == int(text.lstrip("#"))))
    mid = text if text.startswith("<") else f"<{text}>"
    return session.scalar(select(InboundMessage).where(InboundMessage.message_id == mid)
                          .order_by(InboundMessage.seq).limit(1))

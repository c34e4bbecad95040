"""Mail in: every arrived message is stored raw first, then read and handed to the game kind it is for.

For each message (§10, docs/mail.md):

1. store the raw bytes (:class:`InboundMessage`: sha256, Message-ID, arrival
   number) and commit — nothing is lost whatever happens next.  The same bytes
   again are recognised by their hash; the same Message-ID with other bytes (a
   redelivery) is stored as ``duplicate``; neither is applied twice;
2. bounces, auto-replies and our own mail are stored (``ignored``), never answered;
3. a player choosing a new secret is handled here (:mod:`pbm.mail.account`);
4. every other mail is offered to the game kinds (:mod:`pbm.kinds`): those that take moves by mail
   first (18xx), then the rest; the first kind that claims it handles it and queues the answer.
   Continental Rails claims whatever is left as a turnsheet (:mod:`pbm.turnsheet.intake`);
5. a bug while handling marks the message ``error``, answers the sender once, and loses nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm import kinds
from pbm.clock import utcnow
from pbm.mail.answer import Outcome, finish, refuse
from pbm.mail.compose import one_line
from pbm.mail.message import (
    MAX_MESSAGE_BYTES,
    TRUNCATED_MARK,
    Unreadable,
    classify,
    content_digest,
    header,
    message_id,
    parse_bytes,
    parse_headers,
    sender_address,
    truncated,
)
from pbm.models import Game, InboundMessage


@dataclass
class Context:
    """What ingestion needs from the configuration."""

    sender: str = "pbm@localhost"  # From: of replies
    own_addresses: tuple[str, ...] = ()  # mail from these is ours: never answered
    game: Game | None = None  # this mailbox serves only this game (None: any game named in a sheet)
    now: datetime | None = None  # arrival time when the source does not give one (tests)
    moderator: str = ""


def store_raw(session: Session, raw: bytes, source: str = "", received_at: datetime | None = None
              ) -> tuple[InboundMessage, bool]:
    """Store the message as it came; (row, True) if new, (existing row, False) if these bytes were seen.

    Only the header block is read here (bounded, never the body), so any bytes at all are stored."""
    digest = hashlib.sha256(raw).hexdigest()
    existing = session.scalar(select(InboundMessage).where(InboundMessage.sha256 == digest))
    if existing is not None:
        return existing, False
    head = parse_headers(raw)
    row = InboundMessage(
        sha256=digest, message_id=message_id(head), raw=raw, source=one_line(source, 200),
        received_at=received_at or utcnow(), seq=0, from_addr=one_line(header(head, "From"), 300),
        subject=one_line(header(head, "Subject"), 500), status="stored", outcome={},
        content_sha256=content_digest(raw, head),
    )
    session.add(row)
    session.flush()
    row.seq = row.id  # the arrival number: the row id is given out atomically, even to concurrent readers
    session.flush()
    return row, True


def ingest(session: Session, raw: bytes, ctx: Context, *, source: str = "",
           received_at: datetime | None = None) -> Outcome:
    """Store, commit, then handle one message (committing again); never raises for bad mail.

    A message stored earlier but never handled (a crash between the two commits) is handled now:
    reading the same bytes again is how the source gives it back (issue 13, item 1)."""
    if len(raw) > MAX_MESSAGE_BYTES and not raw.startswith(TRUNCATED_MARK):
        raw = truncated(raw, len(raw))  # a caller that read it all: still store only the start
    try:
        row, new = store_raw(session, raw, source, received_at or ctx.now)
        session.commit()
    except IntegrityError:  # another reader stored the same bytes at the same moment
        session.rollback()
        row = session.scalar(select(InboundMessage).where(InboundMessage.sha256 == hashlib.sha256(raw).hexdigest()))
        if row is None:  # pragma: no cover - the other insert was rolled back: store it ourselves
            row, new = store_raw(session, raw, source, received_at or ctx.now)
            session.commit()
        else:
            new = False
    if not new:
        if row.status == "stored":  # stored, never handled: handle it now
            return handle(session, row, ctx)
        return Outcome(row.id, row.seq, "duplicate", f"the same message as #{row.seq} (already handled)")
    return handle(session, row, ctx)


def handle(session: Session, row: InboundMessage, ctx: Context, msg=None) -> Outcome:
    """Handle a stored message; a bug here marks it ``error`` (for the moderator) and loses nothing.

    The sender still gets one short answer (the moderator has been told), so no message ends
    ``error`` unanswered.  ``msg``: the message object already parsed from ``row.raw`` by
    :func:`~pbm.mail.message.parse_bytes` (by the intake, to find its lane), handed along so that the
    same bytes are not parsed again; None: parsed here."""
    from pbm.mail.redact import redact_stored, redact_text

    try:
        outcome = _handle(session, row, ctx, msg)
        redact_stored(row, outcome)  # every outcome, every game kind: no secret stays in the stored mail (issue 34)
        session.commit()
        return outcome
    except Exception as exc:  # the message stays stored; `pbm status` shows it, `pbm ingest --retry` redoes it
        session.rollback()
        row = session.get(InboundMessage, row.id)
        assert row is not None
        row.status = "error"
        row.outcome = {"reason": redact_text(f"internal error {exc.__class__.__name__}: {str(exc)[:300]}")}
        try:
            with session.begin_nested():
                sender = _sender_of(parse_headers(row.raw), ctx)
                if sender is not None:
                    replied = refuse(session, ctx, row, sender, "pbm could not handle your message; the moderator "
                                      "has been told and will look at it", [], key="error")
                    row.outcome = {**row.outcome, "answered": replied}
        except Exception:  # pragma: no cover - the answer itself failed: the status shows the error
            pass
        session.commit()
        return Outcome(row.id, row.seq, "error", row.outcome["reason"])


def _sender_of(msg, ctx: Context) -> str | None:
    """Where an answer may go: None for mail that must not be answered (bounces, loops, lists)."""
    if not classify(msg, (*ctx.own_addresses, ctx.sender)).answerable:
        return None
    return sender_address(msg, "Reply-To") or sender_address(msg, "From")


def _handle(session: Session, row: InboundMessage, ctx: Context, parsed=None) -> Outcome:
    try:
        msg = parsed if parsed is not None else parse_bytes(row.raw)
    except Unreadable as exc:  # stored, marked, answered once (issue 13, item 9)
        reason = str(exc)
        finish(row, "rejected", reason)
        sender = _sender_of(parse_headers(row.raw), ctx)
        replied = refuse(session, ctx, row, sender, reason, []) if sender else []
        if sender is None:
            row.outcome = {**row.outcome, "answer": "not answered: no address that may be answered"}
        return Outcome(row.id, row.seq, "rejected", reason, replied)
    # a redelivery: the same Message-ID *and* the same content as a message stored earlier; a stranger
    # who copies a Message-ID with other content does not make the real message a duplicate (item 3)
    if row.message_id:
        digest = row.content_sha256 or content_digest(row.raw)
        earlier = session.scalar(select(InboundMessage).where(
            InboundMessage.message_id == row.message_id, InboundMessage.id != row.id,
            InboundMessage.content_sha256 == digest,
            InboundMessage.seq < row.seq).order_by(InboundMessage.seq).limit(1))
        if earlier is not None:
            finish(row, "duplicate", f"redelivery of message #{earlier.seq} (same Message-ID and content); "
                    "not applied again")
            return Outcome(row.id, row.seq, "duplicate", row.outcome["reason"])
    kind = classify(msg, (*ctx.own_addresses, ctx.sender))
    if not kind.answerable:
        finish(row, "ignored", f"{kind.reason}; stored, not answered")
        return Outcome(row.id, row.seq, "ignored", row.outcome["reason"])
    sender = sender_address(msg, "Reply-To") or sender_address(msg, "From")
    assert sender is not None  # classify() refuses mail without a usable From
    from pbm.mail import account

    chosen = account.claim(msg)  # a player choosing a new secret (issue 18, item 10; docs/mail.md)
    if chosen is not None:
        return account.handle(session, row, ctx, sender, chosen, refuse)
    for kind in (*kinds.mail_kinds(), *(k for k in kinds.all_kinds() if not k.mail_moves)):
        claimed = kind.claim(session, msg)  # moves for a game kind (e.g. 18xx, docs/18xx/email.md); Continental
        if claimed is not None:             # Rails, asked last, claims the rest as turnsheets (pbm.turnsheet.intake)
            return kind.handle(session, row, ctx, sender, claimed)
    reason = "no game here reads this message"  # no kind registered takes mail
    finish(row, "rejected", reason)
    return Outcome(row.id, row.seq, "rejected", reason, refuse(session, ctx, row, sender, reason, []))

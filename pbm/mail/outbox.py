"""The outbox: every message pbm sends is queued here first, then sent once per recipient.

The API other parts use (receipts, reminders, turnsheets, turn reports)::

    from pbm.mail.outbox import queue, flush

    msg = EmailMessage()                      # build it with email.message.EmailMessage
    msg["To"] = "ada@example.org"             # To/Subject as you like; From is filled in at
    msg["Subject"] = "Turn 3 report"          #   sending time from [smtp] from if absent
    msg.set_content("...")                    # attachments with msg.add_attachment(...)
    queue(session, key="report:cr-7:3:1", kind="report", recipients=["ada@example.org"],
          message=msg, game=game)             # same key again: nothing new is queued
    ...
    flush(session, smtp_config("pbm.toml"))   # sends what is not sent yet; returns a FlushResult

``queue`` is idempotent by ``key`` (choose keys that name the thing sent:
``report:<game>:<turn>:<player>``).  ``flush`` writes a :class:`SendLog` row per
recipient *before* talking to the server and marks it ``sent`` after, committing
each step: a retry never sends a message twice to anyone.  A crash in between
leaves the row ``sending`` (uncertain); such rows are not retried unless asked
(``pbm send-mail --retry-uncertain``).  Flushes never overlap (the ``outbox`` process lock)
and each delivery is claimed atomically (issue 13, item 7).
"""

from __future__ import annotations

import email.utils
import hashlib
import smtplib
import ssl
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer

from pbm.clock import utcnow
from pbm.db import savepoint
from pbm.errors import PbmError
from pbm.mail.config import SmtpConfig
from pbm.mail.message import SMTP_POLICY, clean_address, loop_headers, parse_bytes
from pbm.models import Game, OutboxMessage, SendLog

KINDS = ("receipt", "reminder", "report", "turnsheet", "notice", "secret", "18xx", "digest", "webhook")


class OutboxError(PbmError):
    """A message cannot be queued or the mail server cannot be reached."""


def message_id_for(key: str, domain: str = "pbm.invalid") -> str:
    """A stable Message-ID derived from the outbox key."""
    return f"<{hashlib.sha256(key.encode()).hexdigest()[:32]}@{domain}>"


def queue(session: Session, key: str, kind: str, recipients: list[str], message: EmailMessage,
          *, game: Game | None = None) -> OutboxMessage:
    """Queue ``message`` for ``recipients`` under ``key`` (idempotent: an existing key is returned as is)."""
    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.key == key))
    if existing is not None:
        return existing
    return _insert_once(session, _new_row(session, key, kind, recipients, message, game))


def _insert_once(session: Session, row: OutboxMessage) -> OutboxMessage:
    """Write a new outbox ``row``, or return the row of its key that a concurrent run queued first
    (keep theirs); the row's queue order is its id, given out atomically."""
    try:
        with savepoint(session):
            session.add(row)
            session.flush()
    except IntegrityError:
        existing = session.scalar(select(OutboxMessage).where(OutboxMessage.key == row.key))
        if existing is None:  # pragma: no cover
            raise
        return existing
    row.created_seq = row.id
    session.flush()
    return row


def queue_many(session: Session, items: list[tuple[str, str, list[str], EmailMessage]],
               *, game: Game | None = None) -> list[OutboxMessage]:
    """:func:`queue` of several ``(key, kind, recipients, message)`` in their order, with one query for
    the keys already queued and the new rows written together (an 18xx move's state mails: five or six
    messages, four statements each before; issue 32).  The same rows and bytes as :func:`queue` called
    for each in turn; if a concurrent run queued one of the keys meanwhile, they are queued one by one."""
    if not items:
        return []
    existing = {m.key: m for m in session.scalars(
        select(OutboxMessage).where(OutboxMessage.key.in_([key for key, *_ in items])))}
    out: list[OutboxMessage] = []
    new: list[OutboxMessage] = []
    for key, kind, recipients, message in items:
        if key not in existing:  # (a key twice in the list: the first message, as queue would keep it)
            existing[key] = _new_row(session, key, kind, recipients, message, game)
            new.append(existing[key])
        out.append(existing[key])
    if not new:
        return out
    try:
        with savepoint(session):
            session.add_all(new)
            session.flush()
    except IntegrityError:
        return [queue(session, key, kind, recipients, message, game=game) for key, kind, recipients, message in items]
    for row in new:
        row.created_seq = row.id  # queue order, given out atomically
    session.flush()
    return out


def _new_row(session: Session, key: str, kind: str, recipients: list[str], message: EmailMessage,
             game: Game | None) -> OutboxMessage:
    """The outbox row of a message not yet queued: its key and recipients checked, its headers completed."""
    if kind not in KINDS:
        raise OutboxError(f"unknown outbox kind {kind!r}; known: {', '.join(KINDS)}")
    if not key or len(key) > 200:
        raise OutboxError("an outbox key must be 1 to 200 characters")
    clean: list[str] = []
    for r in recipients:
        address = clean_address(r)
        if address is None:
            raise OutboxError(f"{r!r} is not a usable email address")
        if address.lower() not in {c.lower() for c in clean}:
            clean.append(address)
    if not clean:
        raise OutboxError("a message needs at least one recipient")
    if message["Message-ID"] is None:
        sender = clean_address(str(message["From"] or "")) or ""
        message["Message-ID"] = message_id_for(key, sender.split("@", 1)[1] if "@" in sender else "pbm.invalid")
    if message["Date"] is None:
        message["Date"] = email.utils.format_datetime(datetime.now(UTC))
    if message["To"] is None:
        message["To"] = ", ".join(clean)
    loop_headers(message, kind, "auto-replied" if kind == "receipt" else "auto-generated")
    if game is not None and getattr(game, "anonymous", False):
        # an anonymous game whose kind hides names in mail (18xx: the others become "Player N", as on its
        # web page); found through the registry, as the intake finds every game kind
        from pbm.kinds import kind_of

        hide = getattr(kind_of(game), "hide_names", None)
        if hide is not None:
            hide(session, game, message, clean)
    return OutboxMessage(key=key, game_id=game.id if game is not None else None, kind=kind, recipients=clean,
                         raw=message.as_bytes(policy=SMTP_POLICY), created_seq=0)


@dataclass
class FlushResult:
    sent: int = 0
    failed: int = 0
    already: int = 0
    uncertain: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = f"sent {self.sent}, failed {self.failed}, already sent {self.already}, uncertain {self.uncertain}"
        return text


def pending(session: Session) -> list[tuple[OutboxMessage, str, str]]:
    """(message, recipient, state) for every delivery not yet sent; state is new, failed or sending.

    The outbox keeps every message ever sent (a year of reports, with their PDFs), so the database
    picks the candidates: messages with fewer ``sent`` logs than recipients.  Only those are loaded,
    without their bytes (read when a delivery is made), and checked recipient by recipient here."""
    sent = (select(func.count(SendLog.id)).where(SendLog.outbox_id == OutboxMessage.id, SendLog.status == "sent")
            .correlate(OutboxMessage).scalar_subquery())
    ids = select(OutboxMessage.id).where(sent < func.json_array_length(OutboxMessage.recipients))
    rows = session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_(ids))
                           .options(defer(OutboxMessage.raw)).order_by(OutboxMessage.created_seq)).all()
    if not rows:
        return []
    logs = {(log.outbox_id, log.recipient.lower()): log
            for log in session.scalars(select(SendLog).where(SendLog.outbox_id.in_([m.id for m in rows])))}
    out = []
    for m in rows:
        for r in m.recipients:
            log = logs.get((m.id, r.lower()))
            if log is None:
                out.append((m, r, "new"))
            elif log.status != "sent":
                out.append((m, r, log.status))
    return out


def _connect(cfg: SmtpConfig) -> smtplib.SMTP:
    try:
        if cfg.ssl:
            server: smtplib.SMTP = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout,
                                                   context=ssl.create_default_context())
        else:
            server = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout)
            if cfg.starttls:
                server.starttls(context=ssl.create_default_context())
        if cfg.user:
            server.login(cfg.user, cfg.password)
        return server
    except (OSError, smtplib.SMTPException) as exc:
        raise OutboxError(f"cannot send through {cfg.host}:{cfg.port}: {exc.__class__.__name__}: {exc}") from None


def _scrub_if_done(session: Session, m: OutboxMessage) -> None:
    """Once a mail carrying a player's secret has reached every recipient, keep only its headers: pbm
    stores no secret, only its hash (issue 18, item 10).  Until then the body is needed for a retry."""
    if m.kind != "secret" or b"X-PBM-Scrubbed" in bytes(m.raw[:4000]):
        return
    done = {log.recipient.lower() for log in session.scalars(select(SendLog).where(
        SendLog.outbox_id == m.id, SendLog.status == "sent"))}
    if all(r.lower() in done for r in m.recipients):
        from pbm.mail.message import split_head

        import re

        head, _ = split_head(bytes(m.raw))
        head = re.sub(rb"(?im)^Content-Transfer-Encoding:[^\r\n]*\r?\n?", b"", head).rstrip(b"\r\n")
        m.raw = (head + b"\r\nX-PBM-Scrubbed: body removed once sent (it held a player's secret)\r\n\r\n"
                 b"[body removed by pbm once delivered: it held a player's secret]\r\n")
        session.commit()


def _with_sender(m: OutboxMessage, sender: str) -> bytes:
    msg = parse_bytes(m.raw)
    if msg["From"] is None:
        msg["From"] = sender
        m.raw = msg.as_bytes(policy=SMTP_POLICY)
    return m.raw


def _claim(session: Session, m: OutboxMessage, recipient: str, state: str) -> SendLog | None:
    """Claim one delivery for this flush, atomically: the row goes to ``claimed`` for exactly one flusher.

    A new delivery is claimed by inserting its row (the unique (outbox, recipient) key lets only one
    insert win); an existing one by a conditional update that only one flusher can make."""
    session.commit()
    if state == "new":
        try:
            session.add(SendLog(outbox_id=m.id, recipient=recipient, status="claimed", attempts=1, error=""))
            session.commit()
        except IntegrityError:  # another flusher claimed it first
            session.rollback()
            return None
    else:
        log = session.scalar(select(SendLog).where(SendLog.outbox_id == m.id, SendLog.recipient == recipient))
        if log is None or log.status != state:
            return None
        done = session.execute(update(SendLog).where(SendLog.id == log.id, SendLog.status == state,
                                                     SendLog.attempts == log.attempts)
                               .values(status="claimed", attempts=log.attempts + 1)
                               .execution_options(synchronize_session=False))
        session.commit()
        if done.rowcount != 1:
            return None
    return session.scalar(select(SendLog).where(SendLog.outbox_id == m.id, SendLog.recipient == recipient)
                          .execution_options(populate_existing=True))


def queue_webhook(session: Session, key: str, url: str, payload: dict, *, game: Game | None = None) -> OutboxMessage:
    """Queue a JSON POST to ``url`` (kind ``webhook``); idempotent by key like :func:`queue`.

    It is flushed with the mail, with the same per-delivery bookkeeping (claimed, sending, sent):
    a retry never posts twice, and an interrupted post is uncertain.  Every post carries the
    header ``X-PBM-Delivery: <key>`` so a receiver can drop a copy it already has."""
    import json

    existing = session.scalar(select(OutboxMessage).where(OutboxMessage.key == key))
    if existing is not None:
        return existing
    if not url.lower().startswith(("http://", "https://")):
        raise OutboxError(f"a webhook address must be an http(s) URL, not {url!r}")
    row = OutboxMessage(key=key, game_id=game.id if game is not None else None, kind="webhook", recipients=[url],
                        raw=json.dumps(payload, sort_keys=True).encode("utf-8"), created_seq=0)
    return _insert_once(session, row)


def _post(url: str, body: bytes, key: str, timeout: float = 20.0) -> None:
    """POST ``body``; raises OSError for a failure before the request went out or an error status."""
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={"Content-Type": "application/json", "X-PBM-Delivery": key,
                                          "User-Agent": "pbm"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the moderator's URL
            resp.read()
    except urllib.error.HTTPError as exc:
        raise _Refused(f"HTTP {exc.code}") from None


class _Refused(Exception):
    """The webhook answered with an error status: not delivered (failed, retried by the next flush)."""


def _flush_webhook(session: Session, m: OutboxMessage, recipient: str, log: SendLog, result) -> None:
    log.status = "sending"
    session.commit()
    try:
        _post(recipient, bytes(m.raw), m.key)
    except _Refused as exc:
        log.status, log.error = "failed", str(exc)
    except ConnectionRefusedError as exc:  # nothing went out
        log.status, log.error = "failed", f"{exc.__class__.__name__}: {exc}"
    except OSError as exc:  # cut off after sending, perhaps: uncertain
        log.error = f"{exc.__class__.__name__}: {exc}"[:2000]
        if "refused" in str(exc).lower() or "Name or service" in str(exc):
            log.status = "failed"
    else:
        log.status, log.sent_at, log.error = "sent", utcnow(), ""
        session.commit()
        result.sent += 1
        return
    session.commit()
    if log.status == "sending":
        result.uncertain += 1
    else:
        result.failed += 1
    result.errors.append(f"{recipient}: {log.error}")


def _message_id_of(raw: bytes) -> str:
    import re

    found = re.search(rb"(?im)^Message-ID:[ \t]*(<[^>\r\n]{1,300}>)", bytes(raw[:20000]))
    return found.group(1).decode("ascii", "replace") if found else "(none)"


def _reply(code: int, resp: bytes | str) -> str:
    text = resp.decode("utf-8", "replace") if isinstance(resp, bytes) else str(resp)
    return " ".join(f"{code} {text}".split())[:300]


def uncertain_line(log: SendLog, m: OutboxMessage) -> str:
    """One delivery left uncertain, with what the moderator needs to ask the relay before deciding."""
    what = log.error or "handed to the server (no details recorded)"
    return (f"#{log.id} {m.key} to {log.recipient}: {what}. Search the relay's log for that Message-ID: "
            f"if it arrived, `pbm send-mail --mark-sent {log.id}`; if not, `pbm send-mail --resend {log.id}`")


def uncertain(session: Session) -> list[str]:
    """Every delivery left uncertain (``sending``: interrupted while its data went to the server), one line
    each (:func:`uncertain_line`), oldest first."""
    rows = session.execute(select(SendLog, OutboxMessage).join(OutboxMessage, OutboxMessage.id == SendLog.outbox_id)
                           .where(SendLog.status == "sending").options(defer(OutboxMessage.raw))
                           .order_by(SendLog.id)).all()
    return [uncertain_line(log, m) for log, m in rows]


def resolve_uncertain(session: Session, arrived: list[int] = (), again: list[int] = ()) -> list[str]:
    """The moderator's word on uncertain deliveries, after asking the relay: those in ``arrived`` are marked
    ``sent`` (never sent again); those in ``again`` go back to ``failed``, so the next flush sends each once
    more.  An id that is not an uncertain delivery is refused (:class:`OutboxError`) and nothing is changed."""
    if set(arrived) & set(again):
        raise OutboxError("a delivery is either marked sent or resent, not both")
    logs = []
    for i in [*arrived, *again]:
        log = session.get(SendLog, i)
        if log is None or log.status != "sending":
            state = "no such delivery" if log is None else f"it is {log.status}"
            raise OutboxError(f"#{i} is not an uncertain delivery ({state}); `pbm status` lists those")
        logs.append(log)
    out = []
    for log in logs:
        note = f"{log.error}; " if log.error else ""
        if log.id in arrived:
            log.status, log.sent_at = "sent", log.sent_at or utcnow()
            log.error = f"{note}marked sent by the moderator {utcnow():%Y-%m-%d %H:%M} UTC"[:2000]
            out.append(f"#{log.id} to {log.recipient}: marked sent (it arrived; not sent again)")
        else:
            log.status = "failed"
            log.error = f"{note}to be resent: the moderator found it had not arrived"[:2000]
            out.append(f"#{log.id} to {log.recipient}: to be sent again")
    session.commit()
    for log in logs:
        m = session.get(OutboxMessage, log.outbox_id)
        if m is not None:
            _scrub_if_done(session, m)
    return out


def _url_of(session: Session) -> str:
    return session.get_bind().url.render_as_string(hide_password=False)


def flush(session: Session, smtp: SmtpConfig, *, retry_uncertain: bool = False, limit: int | None = None) -> FlushResult:
    """Send every queued delivery not yet sent; commits after each step (see the module docstring).

    Flushes never overlap: each holds the ``outbox`` process lock (waiting for a running one), and
    each delivery is claimed atomically besides.  A delivery goes ``claimed`` (nothing handed to the
    server yet: safe to retry) → ``sending`` (committed just before the message data goes to the
    server: if we die now we cannot know) → ``sent``.  ``claimed`` rows left by a dead flusher are
    retried; ``sending`` ones only with ``retry_uncertain``."""
    from pbm.locks import process_lock

    session.commit()  # the caller's queued mail is on record before anything is sent
    with process_lock(_url_of(session), "outbox", wait=True, what="mail flush"):
        return _flush(session, smtp, retry_uncertain=retry_uncertain, limit=limit)


def _flush(session: Session, smtp: SmtpConfig, *, retry_uncertain: bool, limit: int | None) -> FlushResult:
    result = FlushResult()
    server: smtplib.SMTP | None = None
    todo = pending(session)
    result.already = session.scalar(select(func.count(SendLog.id)).where(SendLog.status == "sent")) or 0
    try:
        for m, recipient, state in todo:
            if limit is not None and result.sent >= limit:
                break
            if state == "sending" and not retry_uncertain:
                result.uncertain += 1
                log = session.scalar(select(SendLog).where(SendLog.outbox_id == m.id, SendLog.recipient == recipient))
                if log is not None:
                    result.errors.append(uncertain_line(log, m))
                continue
            log = _claim(session, m, recipient, state)
            if log is None:
                result.already += 1
                continue
            if m.kind == "webhook":
                _flush_webhook(session, m, recipient, log, result)
                continue
            raw = _with_sender(m, smtp.sender)
            session.commit()
            if server is None:
                try:
                    server = _connect(smtp)
                except OutboxError as exc:
                    log.status, log.error = "failed", str(exc)
                    session.commit()
                    result.failed += 1
                    result.errors.append(str(exc))
                    break
            try:
                server.ehlo_or_helo_if_needed()
                code, resp = server.mail(smtp.sender)
                if code != 250:
                    raise smtplib.SMTPSenderRefused(code, resp, smtp.sender)
                code, resp = server.rcpt(recipient)
                if code not in (250, 251):
                    raise smtplib.SMTPRecipientsRefused({recipient: (code, resp)})
                log.status = "sending"
                # what the moderator needs to ask the relay if we never learn the outcome (issue 34, item 12)
                log.error = (f"handed to {smtp.host}:{smtp.port} at {utcnow():%Y-%m-%d %H:%M:%S} UTC, Message-ID "
                             f"{_message_id_of(raw)}, RCPT {_reply(code, resp)}; no reply to DATA recorded")
                session.commit()  # from here on the server may have the message: uncertain if we die
                code, resp = server.data(raw)
                if code != 250:
                    raise smtplib.SMTPDataError(code, resp)
                handed = log.error.replace("; no reply to DATA recorded", "")
            except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as exc:
                log.status, log.error = "failed", f"{exc.__class__.__name__}: {exc}"[:2000]
                session.commit()
                result.failed += 1
                result.errors.append(f"{recipient}: {log.error}")
                try:
                    server.rset()
                except (OSError, smtplib.SMTPException):
                    server = None
                continue
            except (OSError, smtplib.SMTPException) as exc:
                # cut off before the data: nothing was delivered (failed, retried); during it: uncertain
                reason = f"{exc.__class__.__name__}: {exc}"
                if log.status == "sending":
                    log.error = f"{log.error} (interrupted: {reason})"[:2000]
                    session.commit()
                    result.uncertain += 1
                    result.errors.append(uncertain_line(log, m))
                else:
                    log.status, log.error = "failed", reason[:2000]
                    session.commit()
                    result.failed += 1
                    result.errors.append(f"{recipient}: {log.error}")
                server = None
                break
            # the relay's word, kept: its 250 reply names its queue id ("queued as 4F2A1B9C0D")
            log.status, log.sent_at, log.error = "sent", utcnow(), f"{handed}; DATA {_reply(code, resp)}"[:2000]
            session.commit()
            result.sent += 1
            _scrub_if_done(session, m)
    finally:
        if server is not None:
            try:
                server.quit()
            except (OSError, smtplib.SMTPException):
                pass
    return result


def deliver(session: Session, config: Path | None) -> str:
    """Flush the outbox through SMTP when it is configured; otherwise say what is waiting."""
    from pbm.mail.config import smtp_config

    try:
        smtp = smtp_config(config)
    except PbmError as exc:
        return f"queued; not delivered: {exc}"
    return flush(session, smtp).summary()

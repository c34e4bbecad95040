"""Building test messages and reading pbm's answers."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.models import InboundMessage, OutboxMessage


def mk(body: str | None = "", *, sender: str | None = "Ada <ada@example.org>", subject: str = "orders",
       msgid: str | None = None, headers: dict[str, str] | None = None, charset: str = "utf-8",
       attachments: list[tuple[bytes | str, str, str, str]] = (), html: str | None = None) -> bytes:
    """A message; attachments are (content, maintype, subtype, filename)."""
    m = EmailMessage()
    if sender is not None:
        m["From"] = sender
    m["To"] = "orders@pbm.example"
    m["Subject"] = subject
    if msgid:
        m["Message-ID"] = msgid
    for k, v in (headers or {}).items():
        m[k] = v
    if body is not None:
        m.set_content(body, charset=charset) if charset == "utf-8" else m.set_content(
            body.encode(charset), maintype="text", subtype="plain", params={"charset": charset})
    if html is not None:
        if body is None:
            m.set_content(html, subtype="html")
        else:
            m.add_alternative(html, subtype="html")
    for content, maintype, subtype, filename in attachments:
        if isinstance(content, str):
            m.add_attachment(content, subtype=subtype, filename=filename)
        else:
            m.add_attachment(content, maintype=maintype, subtype=subtype, filename=filename)
    return m.as_bytes(policy=email.policy.SMTP)


def reply_for(session: Session, inbound_id: int) -> tuple[EmailMessage, str] | None:
    """pbm's answer to a stored message (the parsed message and its text), or None."""
    row = session.get(InboundMessage, inbound_id)
    out = session.scalar(select(OutboxMessage).where(OutboxMessage.key == f"receipt:{row.sha256[:24]}"))
    if out is None:
        return None
    msg = email.message_from_bytes(out.raw, policy=email.policy.default)
    text = msg.get_content() if not msg.is_multipart() else msg.get_body(("plain",)).get_content()
    return msg, text.replace("\r\n", "\n")

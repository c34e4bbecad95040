"""Building the messages pbm sends, safely.

Headers are set through :class:`email.message.EmailMessage` and
:mod:`email.headerregistry` only, from cleaned one-line values: no text a
player wrote can add a header or a line to one (the default policy also
refuses CR and LF in header values).
"""

from __future__ import annotations

import unicodedata
from email.headerregistry import Address
from email.message import EmailMessage

from pbm.mail.message import _MSGID, POLICY, clean_address


def one_line(text: str, limit: int = 200) -> str:
    """Text fit for a header: printable, single-spaced, at most ``limit`` characters."""
    cleaned = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in str(text))
    return " ".join(cleaned.split())[:limit]


def address(addr: str, name: str = "") -> Address:
    plain = clean_address(addr)
    if plain is None:
        raise ValueError(f"not a usable address: {addr!r}")
    local, _, domain = plain.rpartition("@")
    return Address(display_name=one_line(name, 80), username=local, domain=domain)


def make_message(sender: str, to: list[str], subject: str, body: str, *, in_reply_to: str | None = None,
                 sender_name: str = "pbm") -> EmailMessage:
    """A plain-text UTF-8 message; ``in_reply_to`` is used only if it is a well-formed Message-ID."""
    msg = EmailMessage(policy=POLICY)
    msg["From"] = address(sender, sender_name)
    msg["To"] = [address(a) for a in to]
    msg["Subject"] = one_line(subject)
    if in_reply_to and _MSGID.match(in_reply_to):
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = in_reply_to
    msg.set_content(body, charset="utf-8")
    return msg

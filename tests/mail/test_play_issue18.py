"""Issue 18: email play as players live it, as round trips through real IMAP (Dovecot) and SMTP (aiosmtpd)."""

from __future__ import annotations

import email
from datetime import datetime, timezone

import imapclient
import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import OrderSet
from tests.mail.dovecot import PASSWORD, USER, Dovecot, available, mail_servers
from tests.mail.game import SECRETS, sheet
from tests.mail.helpers import mk
from tests.mail.smtp import SmtpServer

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")


@pytest.fixture
def servers(tmp_path_factory, monkeypatch, tmp_path):
    config = tmp_path / "smtp.toml"
    with mail_servers(tmp_path_factory, monkeypatch, config) as (imap, smtp):
        yield imap, smtp, config


def _deliver(imap: Dovecot, raw: bytes) -> None:
    c = imapclient.IMAPClient("127.0.0.1", port=imap.port, ssl=False)
    c.login(USER, PASSWORD)
    c.append("INBOX", raw, msg_time=datetime(2025, 1, 1, 11, 0, tzinfo=timezone.utc))
    c.logout()


def _answers(smtp: SmtpServer) -> list[tuple[str, str]]:
    out = []
    for m in smtp.messages:
        msg = email.message_from_bytes(m.data)
        body = msg.get_payload(decode=True) if not msg.is_multipart() else next(
            p.get_payload(decode=True) for p in msg.walk() if p.get_content_type() == "text/plain")
        out.append((str(msg["Subject"]), body.decode("utf-8")))
    return out


def _orders(url: str, game_id: int) -> list[OrderSet]:
    with session_scope(url) as s:
        rows = list(s.scalars(select(OrderSet).where(OrderSet.game_id == game_id).order_by(OrderSet.id)))
        s.expunge_all()
        return rows


# -- item 4: top-posted orders above a quoted original are read; a sheet with no orders is answered loudly ----

def test_outlook_top_posted_orders_above_original_message_are_read(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        original = sheet(s, game.game_id, 1, "BORROW:\nREPAY:\n", secret="")
    body = (f"Hi, my orders:\n\nSECRET: {SECRETS[1]}\nBORROW: 50\n\nThanks, Ada\n\n"
            "-----Original Message-----\nFrom: moderator@pbm.example\nSent: Sunday\nSubject: turn 3\n\n" + original)
    _deliver(imap, mk(body))
    assert "#1 player 1 accepted" in cli("ingest", "--imap").stdout
    assert _orders(cli.url, game.game_id)[-1].orders["borrow"] == 50
    cli("send-mail", "--config", str(config))
    [(subject, text)] = _answers(smtp)
    assert "Receipt" in subject and "BORROW: 50" in text and "NO ORDERS" not in text


def test_gmail_top_posted_orders_above_on_wrote_are_read(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        original = sheet(s, game.game_id, 1, "BORROW:\n", secret="")
    quoted = "\n".join("> " + ln for ln in original.splitlines())
    body = f"SECRET: {SECRETS[1]}\nBORROW: 70\n\nOn Sun, 22 Nov 2026 at 17:21, pbm <moderator@pbm.example> wrote:\n{quoted}\n"
    _deliver(imap, mk(body))
    assert "#1 player 1 accepted" in cli("ingest", "--imap").stdout
    assert _orders(cli.url, game.game_id)[-1].orders["borrow"] == 70


def test_a_sheet_with_no_orders_is_answered_loudly(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        _deliver(imap, mk("I will buy stock this turn, please.\n\n" + sheet(s, game.game_id, 1, "")))
    cli("ingest", "--imap")
    cli("send-mail", "--config", str(config))
    [(subject, text)] = _answers(smtp)
    assert "Receipt" in subject
    assert "No problems found." not in text
    assert "WARNING: NO ORDERS WERE FOUND ON THIS SHEET" in text

"""Issue 18, items 8-10: the moderator's side of email play, as round trips through real IMAP (Dovecot)
and SMTP (aiosmtpd) on loopback: a message in or a command run, the exact answer out, the state after."""

from __future__ import annotations

import email
import email.policy
from datetime import datetime

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, InboundMessage, OrderSet, OutboxMessage, Player
from tests.mail.dovecot import available
from tests.mail.game import EMAILS, SECRETS, sheet
from tests.mail.helpers import mk
from tests.mail.test_play_issue18 import _deliver, servers  # noqa: F401 (the fixture)

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")


def _mails(smtp) -> list[tuple[list[str], str, str]]:
    """(recipients, subject, text body) of every message the SMTP server received, in order."""
    out = []
    for m in smtp.messages:
        msg = email.message_from_bytes(m.data, policy=email.policy.default)
        body = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
        out.append((sorted(m.rcpt_tos), str(msg["Subject"]), body))
    return out


def _status(url: str, game_id: int) -> list[tuple[int, str, str]]:
    with session_scope(url) as s:
        numbers = {p.id: p.number for p in s.scalars(select(Player).where(Player.game_id == game_id))}
        return [(numbers[o.player_id], o.source, o.status) for o in
                s.scalars(select(OrderSet).where(OrderSet.game_id == game_id).order_by(OrderSet.id))]


# -- item 8: a grace period after the deadline ----------------------------------------------------------

def test_a_sheet_in_the_grace_period_counts_and_its_receipt_says_so(cli, game, servers):
    imap, smtp, config = servers
    out = cli("deadline", "2025-01-01 10:30", "--grace", "1h", "--config", config).stdout
    assert "deadline 2025-01-01 10:30 UTC, grace 1h (sheets count until 2025-01-01 11:30 UTC)" in out
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 50\n")))  # arrives 11:00: after 10:30, in the grace
    assert "#1 player 1 accepted" in cli("ingest", "--imap").stdout
    cli("send-mail", "--config", config)
    receipt = [m for m in _mails(smtp) if "Receipt" in m[1]]
    assert len(receipt) == 1
    assert ("It arrived after the deadline, in the grace period (until 2025-01-01 11:30 UTC): it counts as on "
            "time.") in receipt[0][2]
    assert _status(cli.url, game.game_id) == [(1, "email", "accepted")]


def test_without_grace_the_same_sheet_is_late(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 10:30", "--quiet")
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 50\n")))
    assert "#1 player 1 late" in cli("ingest", "--imap").stdout
    assert _status(cli.url, game.game_id) == [(1, "email", "late")]


def test_bad_grace_is_answered_with_what_is_allowed(cli, game):
    result = cli("deadline", "--grace", "two hours", expect=2)
    assert "'two hours' is not a grace period; write e.g. 2h, 90m, 1d or 1h30m (0 for none)" in result.output


# -- item 9: announcements --------------------------------------------------------------------------------

def test_a_deadline_change_is_mailed_to_every_human_seat_once(cli, game, servers):
    imap, smtp, config = servers
    out = cli("deadline", "2025-01-05 18:00", "--config", config).stdout
    assert "Deadline change mailed to player(s) 1, 2, 3" in out
    again = cli("deadline", "2025-01-05 18:00", "--config", config).stdout  # unchanged: nobody is told again
    assert "mailed" not in again
    cli("send-mail", "--config", config)
    mails = _mails(smtp)
    assert sorted(m[0][0] for m in mails) == sorted(EMAILS.values())
    to, subject, body = next(m for m in mails if m[0] == ["ada@example.org"])
    assert subject == "[cr-test] Turn 3: deadline changed"
    assert "New deadline: Sunday 05 January 2025 18:00 UTC\nIt was: none (the moderator will set one)" in body
    assert "We have no sheet from you for this turn yet." in body


def test_an_extension_lets_a_late_sheet_count_and_its_player_is_told(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 10:30", "--quiet")
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 2, "BORROW: 40\n"), sender="ike.other@example.net"))
    assert "#1 player 2 late" in cli("ingest", "--imap").stdout
    out = cli("deadline", "2025-01-01 12:00", "--config", config).stdout
    assert "Late sheet #1 of player 2 now counts (the player is told)." in out
    assert _status(cli.url, game.game_id) == [(2, "email", "accepted")]
    cli("send-mail", "--config", config)
    counts = [m for m in _mails(smtp) if "now counts" in m[1]]
    assert [(m[0], m[1]) for m in counts] == [(["ike@example.org"], "[cr-test] Turn 3: your late sheet now counts")]
    assert "Your sheet (message #1), which arrived late, NOW COUNTS" in counts[0][2]
    with session_scope(cli.url) as s:
        assert s.scalar(select(InboundMessage.status)) == "accepted"
    assert "now counts" not in cli("deadline", "2025-01-01 12:00", "--config", config).stdout  # once

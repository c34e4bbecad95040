"""An 18GA game by mail through a real Dovecot IMAP server and a real SMTP server on loopback, with a
test clock: SEEN lines from the mails, a stale copy refused, reminders and a time-out sent once."""
from __future__ import annotations

import email
import email.policy
import re
from datetime import timedelta

import imapclient
import pytest

from tests.e18xx.test_pacing import _since, log
from tests.mail.dovecot import PASSWORD, USER, available, mail_servers, new_18xx_game
from tests.mail.helpers import mk

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


@pytest.fixture
def world(cli, tmp_path, tmp_path_factory, monkeypatch):
    cfg = tmp_path / "pbm.toml"
    with mail_servers(tmp_path_factory, monkeypatch, cfg) as (server, smtp):
        secrets = new_18xx_game(cli, tmp_path, PLAYERS, "18GA", "ga-1")
        yield cli, server, smtp, cfg, secrets


_N = [0]


def deliver(world, seat: int, lines: str) -> str:
    cli, server, _, cfg, secrets = world
    c = imapclient.IMAPClient("127.0.0.1", port=server.port, ssl=False)
    c.login(USER, PASSWORD)
    _N[0] += 1
    name, addr = PLAYERS[seat - 1]
    c.append("INBOX", mk(f"GAME: ga-1\nPLAYER: {seat}\nSECRET: {secrets[seat]}\n{lines}\n",
                         sender=f"{name} <{addr}>", msgid=f"<imap{_N[0]}@test.example>"))
    c.logout()
    return cli("ingest", "--imap", "--send", "--config", str(cfg)).stdout


def last_to(smtp, addr: str) -> str:
    msgs = [email.message_from_bytes(m.data, policy=email.policy.default) for m in smtp.messages
            if addr in m.rcpt_tos]
    body = msgs[-1].get_body(("plain",)).get_content()
    return body.replace("\r\n", "\n")


def seen_in(text: str) -> str:
    return re.findall(r"^SEEN: \d+ \w+$", text, re.MULTILINE)[-1]


def test_a_game_by_imap_and_smtp_with_a_test_clock(world):
    cli, server, smtp, cfg, secrets = world
    cli("18xx", "pacing", "ga-1", "--clock", "24", "--remind", "2", "--on-timeout", "default", "--stale", "strict")
    out = deliver(world, 1, "SEEN: 0\npass")
    assert "player 1 accepted" in out
    bob = last_to(smtp, "bob@example.org")
    assert "IT IS YOUR TURN" in bob and "In short:" in bob and "You may:" in bob
    seen = seen_in(bob)
    assert seen.startswith("SEEN: 1 ")
    assert "player 2 accepted" in deliver(world, 2, f"{seen}\npass")
    # Bob's mail captured and delivered again: the game moved on, strict refuses it
    out = deliver(world, 2, f"{seen}\npass")
    assert "player 2 rejected" in out
    assert "you wrote against action 1; the game is at action 2" in last_to(smtp, "bob@example.org")
    assert len(log(cli)) == 2
    # Cy's clock: a reminder at half time and 2 h before, each once; then the default pass
    t0 = _since(cli)
    for h in (11, 12.5, 13, 22.5, 23, 24.1, 24.5):
        cli("cycle", "--clock", (t0 + timedelta(hours=h)).isoformat(timespec="seconds"), "--config", str(cfg))
    reminders = [m for m in smtp.messages if "Reminder" in
                 email.message_from_bytes(m.data, policy=email.policy.default)["Subject"]]
    assert [m.rcpt_tos for m in reminders] == [["cy@example.org"], ["cy@example.org"]]
    entries = log(cli)
    assert len(entries) == 3 and entries[-1]["_via"] == "timeout" and entries[-1]["player"] == 3
    assert "Time-out: the move clock of Cy ran out" in last_to(smtp, "ann@example.org")
    assert seen_in(last_to(smtp, "ann@example.org")).startswith("SEEN: 3 ")

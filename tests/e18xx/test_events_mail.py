"""Issue 29 item 2 through a real round trip: move mails into a Dovecot IMAP mailbox, `pbm ingest --imap
--send`, the state mails read off a real SMTP server (aiosmtpd) on loopback.  Each state mail shows the
events since the reader's last mail, newest last."""
from __future__ import annotations

import email
import email.policy

import imapclient
import pytest

from tests.mail.dovecot import PASSWORD, USER, available, mail_servers, new_18xx_game
from tests.mail.helpers import mk

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


@pytest.fixture
def world(cli, tmp_path, tmp_path_factory, monkeypatch):
    cfg = tmp_path / "pbm.toml"
    with mail_servers(tmp_path_factory, monkeypatch, cfg) as (server, smtp):
        secrets = new_18xx_game(cli, tmp_path, PLAYERS, "18GA", "ev-1")
        yield cli, server, smtp, cfg, secrets


_N = [0]


def deliver(world, seat: int, lines: str) -> str:
    cli, server, _, cfg, secrets = world
    c = imapclient.IMAPClient("127.0.0.1", port=server.port, ssl=False)
    c.login(USER, PASSWORD)
    _N[0] += 1
    name, addr = PLAYERS[seat - 1]
    c.append("INBOX", mk(f"GAME: ev-1\nPLAYER: {seat}\nSECRET: {secrets[seat]}\n{lines}\n",
                         sender=f"{name} <{addr}>", msgid=f"<ev{_N[0]}@test.example>"))
    c.logout()
    return cli("ingest", "--imap", "--send", "--config", str(cfg)).stdout


def bodies(smtp, addr: str) -> list[str]:
    msgs = [email.message_from_bytes(m.data, policy=email.policy.default) for m in smtp.messages
            if addr in m.rcpt_tos]
    return [m.get_body(("plain",)).get_content().replace("\r\n", "\n") for m in msgs]


def events_block(text: str) -> list[str]:
    """The lines of a state mail's events block ([] when it has none)."""
    lines = text.split("\n")
    start = next((i for i, x in enumerate(lines) if x.startswith("Events since your last mail")), None)
    if start is None:
        return []
    out = []
    for x in lines[start + 1:]:
        if not x.strip():
            break
        out.append(x.strip())
    return out


def test_state_mails_tell_each_reader_the_events_since_his_last_mail(world):
    cli, server, smtp, cfg, secrets = world
    out = deliver(world, 3, "NOTIFY: turn")  # Cy: a mail only on his turn
    assert "accepted" in out
    deliver(world, 1, "bid 20 LTR")
    ann1, bob1 = bodies(smtp, "ann@example.org")[-1], bodies(smtp, "bob@example.org")[-1]
    assert events_block(ann1) == ["#1 Ann: bid 20 LTR", "Ann gets LTR for $20"]  # the mover's receipt too
    assert events_block(bob1) == ["#1 Ann: bid 20 LTR", "Ann gets LTR for $20"]
    cy_before = len(bodies(smtp, "cy@example.org"))
    deliver(world, 2, "bid 45 MRC")  # the cheapest private: bought at its price
    # Ann heard of LTR in her last mail: only what came after it
    ann2 = events_block(bodies(smtp, "ann@example.org")[-1])
    assert len(ann2) == 2 and ann2[0].startswith("#2 Bob: bid ") and ann2[0].endswith(" MRC")
    assert ann2[1] == f"Bob gets MRC for ${ann2[0].split()[3]}"  # the price the bid paid
    # Cy had no mail since the start (NOTIFY: turn): now it is his turn and he hears of both, newest last
    cy = bodies(smtp, "cy@example.org")
    assert len(cy) == cy_before + 1
    assert events_block(cy[-1]) == ["#1 Ann: bid 20 LTR", "Ann gets LTR for $20"] + ann2
    # the moderator takes Bob's purchase back (Cy, not to act, is not mailed) and Bob makes it again:
    # Cy's next mail tells him of the new action 2, though his last mail showed an action 2 too
    cli("18xx", "undo", "ev-1")
    cli("send-mail", "--config", str(cfg))
    assert len(bodies(smtp, "cy@example.org")) == cy_before + 1
    deliver(world, 2, f"bid {ann2[0].split()[3]} MRC")
    cy = bodies(smtp, "cy@example.org")
    assert len(cy) == cy_before + 2
    assert events_block(cy[-1])[-2:] == ann2
    assert "Your turn" in str([m for m in smtp.messages if "cy@example.org" in m.rcpt_tos][-1].data[:2000]) or \
        "IT IS YOUR TURN" in cy[-1]


def test_digest_and_webhook_carry_the_events(world):
    from datetime import datetime, timedelta

    from tests.e18xx.test_notify import Hooks

    cli, server, smtp, cfg, secrets = world
    with Hooks() as hooks:
        cli("18xx", "webhook", "ev-1", "--url", f"{hooks.url}/game")
        deliver(world, 3, "NOTIFY: digest")
        deliver(world, 1, "bid 20 LTR")
        cli("send-mail", "--config", str(cfg))
        posts = [body for path, key, body in hooks.posts if path == "/game"]
        assert posts and posts[-1]["action"] == 1
        assert [(e["kind"], e["company"], e["player"], e["price"], e["text"]) for e in posts[-1]["events"]] == [
            ("auction_won", "LTR", "Ann", 20, "Ann gets LTR for $20")]
    day = datetime.utcnow() + timedelta(hours=1)
    out = cli("18xx", "tick", "--clock", day.isoformat(timespec="seconds")).stdout
    assert "digest to cy@example.org" in out
    cli("send-mail", "--config", str(cfg))
    msgs = [email.message_from_bytes(m.data, policy=email.policy.default) for m in smtp.messages
            if "cy@example.org" in m.rcpt_tos]
    digest = [m for m in msgs if "digest" in str(m["Subject"])][-1].get_content().replace("\r\n", "\n")
    lines = digest.split("\n")
    i = next(k for k, x in enumerate(lines) if x.strip().startswith("#1 Ann: bid 20 LTR"))
    assert lines[i + 1].strip() == "Ann gets LTR for $20"

"""Issue 34, item 12: a delivery left "uncertain" (the connection lost while the message data went to the
relay) is not resent blindly.  The outbox records what the moderator needs to ask the relay — when it was
handed over, to which server, its Message-ID, the server's replies (and, for a delivery that completed, the
250 reply to DATA with the relay's queue id) — and ``pbm send-mail`` and ``pbm status`` show it.  He then
says per delivery what happened: ``--mark-sent ID`` (it arrived) or ``--resend ID`` (it did not).  ``pbm
cycle`` exits non-zero while a delivery is uncertain.

The relay is a real aiosmtpd server on loopback that, for the first message, takes all of the data and then
drops the connection without answering: the message arrived, the client cannot know."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.mail.config import SmtpConfig
from pbm.mail.outbox import flush, queue
from pbm.models import OutboxMessage, SendLog
from tests.mail.smtp import Received, Recorder, SmtpServer

QUEUE_ID = "4F2A1B9C0D"


class DropsFirstReply(Recorder):
    """Takes the message, records it, and (the first time) hangs up instead of answering 250."""

    dropped = 0

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content)))
        if not self.dropped:
            self.dropped += 1
            server.transport.close()
            return "421 closing"
        return f"250 2.0.0 Ok: queued as {QUEUE_ID}"


@pytest.fixture
def relay():
    server = SmtpServer()
    server.recorder = DropsFirstReply()
    from aiosmtpd.controller import Controller

    server.controller = Controller(server.recorder, hostname="127.0.0.1", port=server.port)
    with server:
        yield server


def _cfg(server) -> SmtpConfig:
    return SmtpConfig(host="127.0.0.1", port=server.port, starttls=False, sender="moderator@pbm.example", timeout=10)


def _msg(subject: str) -> EmailMessage:
    m = EmailMessage()
    m["Subject"] = subject
    m.set_content("The report.\n")
    return m


def _queue_two(url: str) -> tuple[str, str]:
    with session_scope(url) as s:
        a = queue(s, "report:g:1:1", "report", ["ada@example.org"], _msg("Turn 1 report"))
        b = queue(s, "report:g:1:2", "report", ["ike@example.org"], _msg("Turn 1 report"))
        return a.raw.decode(), b.raw.decode()


def _message_id(raw: str) -> str:
    return re.search(r"(?im)^Message-ID:\s*(<[^>]+>)", raw).group(1)


def _logs(url: str) -> dict[str, SendLog]:
    with session_scope(url) as s:
        return {log.recipient: log for log in s.scalars(select(SendLog))}


def test_the_outbox_records_the_handover_and_the_relays_reply(db_url, relay):
    raw_a, _ = _queue_two(db_url)
    with session_scope(db_url) as s:
        first = flush(s, _cfg(relay))
    assert (first.sent, first.uncertain) == (0, 1)
    assert len(relay.messages) == 1  # it did arrive
    ada = _logs(db_url)["ada@example.org"]
    assert ada.status == "sending"
    assert f"127.0.0.1:{relay.port}" in ada.error and _message_id(raw_a) in ada.error
    assert "RCPT 250" in ada.error and "no reply to DATA" in ada.error
    assert any(_message_id(raw_a) in line for line in first.errors)
    with session_scope(db_url) as s:  # the next flush sends the other one and says the first is uncertain
        second = flush(s, _cfg(relay))
    assert (second.sent, second.uncertain) == (1, 1)
    ike = _logs(db_url)["ike@example.org"]
    assert ike.status == "sent" and f"queued as {QUEUE_ID}" in ike.error
    assert any(f"#{ada.id} " in line and _message_id(raw_a) in line for line in second.errors)


def test_send_mail_and_status_show_it_and_the_moderator_decides_per_delivery(cli, relay, tmp_path, players_csv):
    config = tmp_path / "pbm.toml"
    config.write_text(relay.config_toml())
    cli("new-game", "continental-rails", "--players", players_csv, "--name", "g", "--no-welcome")
    raw_a, _ = _queue_two(cli.url)
    done = cli("send-mail", "--config", config, expect=2)
    assert "uncertain 1" in done.stdout and "interrupted mid-send" in done.stderr
    ada = _logs(cli.url)["ada@example.org"]
    assert _message_id(raw_a) in done.stdout and f"--mark-sent {ada.id}" in done.stdout
    status = cli("status", "g").stdout
    assert "INTERRUPTED MID-SEND" in status and _message_id(raw_a) in status and f"#{ada.id}" in status
    # pbm cycle does not call this done while a delivery is uncertain
    cycle = cli("cycle", "--config", config, "--reports", tmp_path / "r", "--archive", tmp_path / "a", expect=2)
    assert "uncertain" in cycle.stderr and _message_id(raw_a) in cycle.stdout
    # the moderator asked the relay: it arrived
    marked = cli("send-mail", "--config", config, "--mark-sent", str(ada.id)).stdout
    assert f"#{ada.id}" in marked and "marked sent" in marked
    assert _logs(cli.url)["ada@example.org"].status == "sent"
    assert len([m for m in relay.messages if "ada@example.org" in m.rcpt_tos]) == 1  # never sent twice
    assert "uncertain 0" in cli("send-mail", "--config", config).stdout
    assert "INTERRUPTED" not in cli("status", "g").stdout
    cli("cycle", "--config", config, "--reports", tmp_path / "r", "--archive", tmp_path / "a")


def test_resend_one_uncertain_delivery(cli, relay, tmp_path):
    config = tmp_path / "pbm.toml"
    config.write_text(relay.config_toml())
    _queue_two(cli.url)
    cli("send-mail", "--config", config, expect=2)
    ada = _logs(cli.url)["ada@example.org"]
    out = cli("send-mail", "--config", config, "--resend", str(ada.id)).stdout
    assert "sent 2" in out  # ada's again (the relay said it had not arrived, in this story), and ike's
    assert _logs(cli.url)["ada@example.org"].status == "sent"
    assert len([m for m in relay.messages if "ada@example.org" in m.rcpt_tos]) == 2
    # an id that is not an uncertain delivery is refused in one line
    bad = cli("send-mail", "--config", config, "--mark-sent", str(ada.id), expect=2)
    assert f"#{ada.id}" in bad.stderr and "not an uncertain delivery" in bad.stderr


def test_a_worker_run_for_cron_exits_non_zero_while_a_delivery_is_uncertain(cli, relay, tmp_path):
    config = tmp_path / "pbm.toml"
    config.write_text(relay.config_toml())
    _queue_two(cli.url)
    cli("send-mail", "--config", config, expect=2)
    args = ("worker", "--once", "--config", config, "--reports", tmp_path / "r", "--archive", tmp_path / "a")
    done = cli(*args, expect=1)
    assert "uncertain delivery #" in done.stdout and "interrupted mid-send" in done.stderr
    ada = _logs(cli.url)["ada@example.org"]
    cli("send-mail", "--config", config, "--mark-sent", str(ada.id))
    cli(*args)

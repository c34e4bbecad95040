"""The outbox (queue/flush) against a real SMTP server on loopback: every recipient gets a message once."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.mail.config import SmtpConfig
from pbm.mail.outbox import OutboxError, flush, pending, queue
from pbm.models import OutboxMessage, SendLog
from tests.mail.smtp import SmtpServer, free_port


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def _cfg(server: SmtpServer) -> SmtpConfig:
    return SmtpConfig(host="127.0.0.1", port=server.port, starttls=False, sender="moderator@pbm.example", timeout=10)


def _msg(subject: str = "Turn 3 report") -> EmailMessage:
    m = EmailMessage()
    m["Subject"] = subject
    m.set_content("The report.\n")
    return m


def test_queue_is_idempotent_and_flush_sends_once(db_url, smtp):
    with session_scope(db_url) as s:
        first = queue(s, "report:g:3:1", "report", ["ada@example.org", "ADA@example.org", "ike@example.org"], _msg())
        again = queue(s, "report:g:3:1", "report", ["someone@else.org"], _msg("other"))
        assert again.id == first.id and first.recipients == ["ada@example.org", "ike@example.org"]
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.failed) == (2, 0)
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.already) == (0, 2)
        assert pending(s) == []
    assert [m.rcpt_tos for m in smtp.messages] == [["ada@example.org"], ["ike@example.org"]]
    got = email.message_from_bytes(smtp.messages[0].data, policy=email.policy.default)
    assert got["From"] == "moderator@pbm.example"  # filled in at sending time
    assert got["Subject"] == "Turn 3 report"
    assert got["Auto-Submitted"] == "auto-generated" and got["X-Loop"] == "pbm-turn-processor"
    assert got["Message-ID"].endswith("@pbm.invalid>")


def test_refused_recipient_is_retried_alone(db_url, smtp):
    smtp.recorder.refuse.add("ike@example.org")
    with session_scope(db_url) as s:
        queue(s, "k1", "notice", ["ada@example.org", "ike@example.org"], _msg())
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.failed) == (1, 1)
        assert "550" in result.errors[0]
        log = s.scalar(select(SendLog).where(SendLog.recipient == "ike@example.org"))
        assert (log.status, log.attempts) == ("failed", 1)
    smtp.recorder.refuse.clear()
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.failed) == (1, 0)
    assert [m.rcpt_tos for m in smtp.messages] == [["ada@example.org"], ["ike@example.org"]]


def test_server_down_records_failure_and_nothing_is_lost(db_url):
    with session_scope(db_url) as s:
        queue(s, "k2", "notice", ["ada@example.org"], _msg())
    with session_scope(db_url) as s:
        result = flush(s, SmtpConfig(host="127.0.0.1", port=free_port(), starttls=False, sender="m@pbm.example",
                                     timeout=2))
        assert result.failed == 1 and "cannot send through 127.0.0.1" in result.errors[0]
        assert [(m.key, r, state) for m, r, state in pending(s)] == [("k2", "ada@example.org", "failed")]


def test_interrupted_send_is_not_repeated_unless_asked(db_url, smtp):
    with session_scope(db_url) as s:
        row = queue(s, "k3", "notice", ["ada@example.org"], _msg())
        s.add(SendLog(outbox_id=row.id, recipient="ada@example.org", status="sending", attempts=1, error=""))
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.uncertain) == (0, 1)
    with session_scope(db_url) as s:
        assert flush(s, _cfg(smtp), retry_uncertain=True).sent == 1
    assert len(smtp.messages) == 1


def test_queue_refuses_bad_input(db_url):
    with session_scope(db_url) as s:
        with pytest.raises(OutboxError, match="not a usable email address"):
            queue(s, "k4", "notice", ["ada@example.org\r\nBcc: all@x.org"], _msg())
        with pytest.raises(OutboxError, match="unknown outbox kind"):
            queue(s, "k5", "spam", ["ada@example.org"], _msg())
        with pytest.raises(OutboxError, match="at least one recipient"):
            queue(s, "k6", "notice", [], _msg())
        assert s.scalar(select(OutboxMessage)) is None


def test_cli_send_mail(cli, smtp, tmp_path, monkeypatch):
    config = tmp_path / "pbm.toml"
    config.write_text(smtp.config_toml(), encoding="utf-8")
    with session_scope(cli.url) as s:
        queue(s, "k7", "notice", ["ada@example.org"], _msg())
    result = cli("send-mail", "--config", str(config))
    assert "Mail: sent 1, failed 0" in result.stdout
    result = cli("send-mail", "--config", str(config))
    assert "Mail: sent 0, failed 0, already sent 1" in result.stdout
    result = cli("send-mail", "--config", str(tmp_path / "missing.toml"), expect=2)
    assert "no such config file" in result.stderr
    monkeypatch.setenv("PBM_SMTP_HOST", "")
    (tmp_path / "empty.toml").write_text("[smtp]\n", encoding="utf-8")
    result = cli("send-mail", "--config", str(tmp_path / "empty.toml"), expect=2)
    assert "no SMTP host" in result.stderr


# -- issue 13, item 7: overlapping flushes never send twice ------------------------------------------

def test_overlapping_flushes_send_each_delivery_exactly_once(db_url, smtp):
    import threading

    with session_scope(db_url) as s:
        for i in range(30):
            queue(s, f"notice:{i}", "notice", [f"p{i}@example.org", f"q{i}@example.org"], _msg(f"n{i}"))
    results, errors = [], []

    def run():
        try:
            with session_scope(db_url) as s:
                results.append(flush(s, _cfg(smtp)))
        except Exception as exc:  # pragma: no cover - the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert sum(r.sent for r in results) == 60
    got = sorted(r for m in smtp.messages for r in m.rcpt_tos)
    assert got == sorted({*got}) and len(got) == 60  # each recipient once


def test_a_delivery_is_claimed_by_one_flusher_only(db_url):
    from pbm.mail.outbox import _claim

    with session_scope(db_url) as s:
        m = queue(s, "notice:c", "notice", ["ada@example.org"], _msg())
    with session_scope(db_url) as s1, session_scope(db_url) as s2:
        m1, m2 = s1.get(OutboxMessage, m.id), s2.get(OutboxMessage, m.id)
        assert _claim(s1, m1, "ada@example.org", "new") is not None
        assert _claim(s2, m2, "ada@example.org", "new") is None
        s1.scalar(select(SendLog)).status = "failed"
        s1.commit()
        log2 = _claim(s2, m2, "ada@example.org", "failed")
        assert log2 is not None and log2.status == "claimed" and log2.attempts == 2
        assert _claim(s1, m1, "ada@example.org", "failed") is None


def test_claimed_by_a_dead_flusher_is_sent_uncertain_is_not(db_url, smtp):
    """``claimed``: nothing reached the server (retried); ``sending``: it may have (only --retry-uncertain)."""
    with session_scope(db_url) as s:
        a = queue(s, "notice:a", "notice", ["ada@example.org"], _msg())
        b = queue(s, "notice:b", "notice", ["ike@example.org"], _msg())
        s.add_all([SendLog(outbox_id=a.id, recipient="ada@example.org", status="claimed", attempts=1, error=""),
                   SendLog(outbox_id=b.id, recipient="ike@example.org", status="sending", attempts=1, error="")])
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.uncertain) == (1, 1)
    assert [m.rcpt_tos for m in smtp.messages] == [["ada@example.org"]]


def test_pending_reads_only_messages_not_yet_sent_to_everyone(db_url, smtp):
    """The outbox keeps every message ever sent; a flush (now after every handled mail in a worker)
    must not read them all back with their bytes.  A message half sent is still pending for the
    recipient left; one sent to everyone is not read at all."""
    with session_scope(db_url) as s:
        for n in range(5):
            queue(s, f"old:{n}", "report", [f"p{n}@example.org"], _msg(f"old {n}"))
    with session_scope(db_url) as s:
        assert flush(s, _cfg(smtp)).sent == 5
    smtp.recorder.refuse.add("ike@example.org")
    with session_scope(db_url) as s:
        queue(s, "half", "notice", ["ada@example.org", "ike@example.org"], _msg("half"))
        queue(s, "new", "notice", ["bo@example.org"], _msg("new"))
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.failed, result.already) == (2, 1, 5)
    with session_scope(db_url) as s:
        waiting = pending(s)
        assert [(m.key, r, state) for m, r, state in waiting] == [("half", "ike@example.org", "failed")]
        assert "raw" not in waiting[0][0].__dict__  # the bytes are read only to send
        loaded = {m.key for m in s.identity_map.values() if isinstance(m, OutboxMessage)}
        assert loaded == {"half"}
    smtp.recorder.refuse.clear()
    with session_scope(db_url) as s:
        result = flush(s, _cfg(smtp))
        assert (result.sent, result.failed, result.already) == (1, 0, 7)
        assert pending(s) == []
    assert [m.rcpt_tos for m in smtp.messages][-3:] == [["ada@example.org"], ["bo@example.org"], ["ike@example.org"]]


def _rows(s) -> list[tuple]:
    """(key, kind, recipients, bytes without the Date line) of every queued message, in queue order."""
    import re

    return [(m.key, m.kind, m.recipients, re.sub(rb"Date: [^\r\n]*\r\n", b"", m.raw))
            for m in s.scalars(select(OutboxMessage).order_by(OutboxMessage.created_seq))]


def _items(n: int) -> list[tuple]:
    return [(f"state:g:{i}", "18xx" if i else "receipt", [f"p{i}@example.org", f"P{i}@example.org"],
             _msg(f"state {i}")) for i in range(n)]


def test_queue_many_queues_what_queue_would_one_by_one(db_url, tmp_path):
    """An 18xx move's state mails are queued together (issue 32): the same rows, bytes and order."""
    from pbm.mail.outbox import queue_many

    with session_scope(db_url) as s:
        one_by_one = [queue(s, *item) for item in _items(4)]
        assert [m.created_seq for m in one_by_one] == sorted(m.created_seq for m in one_by_one)
        expected = _rows(s)
        s.execute(OutboxMessage.__table__.delete())
    with session_scope(db_url) as s:
        together = queue_many(s, _items(4))
        assert [m.key for m in together] == [f"state:g:{i}" for i in range(4)]
        assert [m.created_seq for m in together] == sorted(m.created_seq for m in together) and together[0].id
        assert _rows(s) == expected
    with session_scope(db_url) as s:  # keys queued already: those rows as they are, the new ones after them
        first = s.scalar(select(OutboxMessage).where(OutboxMessage.key == "state:g:1"))
        more = [("state:g:1", "18xx", ["else@example.org"], _msg("other")), *_items(6)[4:],
                ("state:g:4", "18xx", ["twice@example.org"], _msg("twice"))]
        got = queue_many(s, more)
        assert got[0].id == first.id and got[0].recipients == ["p1@example.org"]
        assert got[-1] is got[1] and got[1].recipients == ["p4@example.org"]  # the first of a key given twice
        assert [r[0] for r in _rows(s)] == [f"state:g:{i}" for i in range(6)]
        assert queue_many(s, []) == []
    with session_scope(db_url) as s:
        with pytest.raises(OutboxError, match="not a usable email address"):
            queue_many(s, [("k7", "notice", ["ada@example.org"], _msg()), ("k8", "notice", ["x\r\nBcc: y"], _msg())])
        assert s.scalar(select(OutboxMessage).where(OutboxMessage.key.in_(["k7", "k8"]))) is None


def test_queue_many_keeps_a_key_a_concurrent_run_queued_first(db_url, monkeypatch):
    """Between its look at the keys and its insert another run queued one: that row is kept (as queue
    keeps it), the others are queued (PostgreSQL: SQLite has one writer at a time, and no savepoint)."""
    from pbm.mail import outbox

    if db_url.startswith("sqlite"):
        pytest.skip("SQLite: one writer at a time (pbm.db.savepoint is a no-op there)")
    pg_url = db_url
    with session_scope(pg_url) as s:
        theirs = queue(s, "state:g:1", "18xx", ["them@example.org"], _msg("theirs"))
        theirs_id = theirs.id
    real = outbox.select
    looks = []

    def blind_first_look(*args):  # the batch's one look at the keys finds none of them
        stmt = real(*args)
        looks.append(1)
        return stmt.where(OutboxMessage.key == "nothing") if len(looks) == 1 else stmt

    monkeypatch.setattr(outbox, "select", blind_first_look)
    with session_scope(pg_url) as s:
        got = outbox.queue_many(s, _items(3))
        assert got[1].id == theirs_id and got[1].recipients == ["them@example.org"]
        assert [m.key for m in got] == ["state:g:0", "state:g:1", "state:g:2"]
    monkeypatch.setattr(outbox, "select", real)
    with session_scope(pg_url) as s:
        assert [r[0] for r in _rows(s)] == ["state:g:1", "state:g:0", "state:g:2"]

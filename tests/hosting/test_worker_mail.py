"""A running `pbm worker` answers mail as it lands (issue 15, "one mail end to end"): between passes it
watches its Maildir (:class:`pbm.intake.MaildirWatch`), so a sheet delivered while it waits is read at
once rather than at the next pass, and once mail is handled the answers go out at once when SMTP is
configured (before, they waited in the outbox for the next turn's or reminder's flush).

The worker here runs as a user runs it (`pbm worker --maildir DIR --poll 3600`, its own process),
against a real SMTP server on loopback, on SQLite and PostgreSQL.  Its poll is an hour, so an answer
that arrives at all within the test's wait arrived because the worker woke for it."""

from __future__ import annotations

import email
import email.policy
import mailbox
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pbm.intake import MaildirWatch
from pbm.turnsheet.seed import populate
from tests.conftest import ROOT, _pg_database
from tests.mail.smtp import SmtpServer

WAIT = 180.0  # seconds: generous for a loaded 2-core machine; the worker's own poll is 3600


@pytest.fixture
def pg_url(pg_template):
    yield from _pg_database(pg_template)


def _deliver(box: mailbox.Maildir, message: mailbox.MaildirMessage) -> None:
    box.add(message)  # as an MTA does: written in tmp/, then renamed into new/


def test_watch_sees_a_delivery_and_nothing_else(tmp_path):
    box = mailbox.Maildir(str(tmp_path / "md"), create=True)
    watch = MaildirWatch(tmp_path / "md")
    assert watch.changed()  # never looked: read it
    watch.look()
    assert not watch.changed()
    (tmp_path / "md" / "tmp" / "half-written").write_bytes(b"Subject: x\n\n")  # an MTA still writing
    assert not watch.changed()
    _deliver(box, mailbox.MaildirMessage(b"Subject: hello\n\nbody\n"))
    assert watch.changed()
    assert watch.changed()  # until the next look
    watch.look()
    assert not watch.changed()


def test_watch_of_a_folder_that_is_not_a_maildir_yet(tmp_path):
    watch = MaildirWatch(tmp_path / "later")
    watch.look()
    assert not watch.changed()
    mailbox.Maildir(str(tmp_path / "later"), create=True)
    assert watch.changed()  # the folders appeared: the pass reads (or says what is wrong)


def _lines(proc: subprocess.Popen, out: queue.Queue) -> None:
    for line in proc.stdout:
        out.put(line.rstrip("\n"))
    out.put(None)


def _wait_for(lines: queue.Queue, seen: list[str], pattern: str) -> None:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            raise AssertionError("the worker stopped:\n" + "\n".join(seen))
        seen.append(line)
        if pattern in line:
            return
    raise AssertionError(f"no {pattern!r} from the worker in {WAIT:.0f}s:\n" + "\n".join(seen))


def _wait_for_mail(smtp: SmtpServer, count: int) -> None:
    end = time.monotonic() + WAIT
    while len(smtp.messages) < count and time.monotonic() < end:
        time.sleep(0.05)
    assert len(smtp.messages) >= count, f"{len(smtp.messages)} answer(s) received, {count} expected"


def test_a_waiting_worker_answers_each_sheet_as_it_lands(db_url, tmp_path):
    staging = tmp_path / "staging"
    [name] = populate(db_url, games=1, humans=2, maildir=staging, seed=4242, prefix="wake",
                      deadline=datetime.now() + timedelta(days=7))
    sheets = sorted((mailbox.Maildir(str(staging))[k] for k in mailbox.Maildir(str(staging)).keys()),
                    key=lambda m: m["Message-ID"])
    watched = mailbox.Maildir(str(tmp_path / "maildir"), create=True)
    _deliver(watched, sheets[0])  # in before the worker starts: read by its first pass
    with SmtpServer() as smtp:
        config = tmp_path / "pbm.toml"
        config.write_text(smtp.config_toml())
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")} | {"PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "pbm", "--db", db_url, "worker", "--maildir", str(tmp_path / "maildir"),
             "--poll", "3600", "--config", str(config), "--reports", str(tmp_path / "reports"),
             "--archive", str(tmp_path / "archive")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_lines, args=(proc, lines), daemon=True).start()
        seen: list[str] = []
        try:
            _wait_for(lines, seen, "mail answers: sent 1")
            _wait_for_mail(smtp, 1)
            # the worker is now between passes, with an hour to wait: the second sheet wakes it
            _deliver(watched, sheets[1])
            _wait_for(lines, seen, "mail answers: sent 1")
            _wait_for_mail(smtp, 2)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=120)
            while (line := lines.get(timeout=60)) is not None:  # the rest, up to the closing summary
                seen.append(line)
    assert proc.returncode == 0, "\n".join(seen)
    assert [line for line in seen if line.startswith("mail: ")] == ["mail: 1 accepted (1 read from the mailbox)"] * 2
    assert [m.rcpt_tos for m in smtp.messages] == [[f"p1.{name}@example.org"], [f"p2.{name}@example.org"]]
    for m in smtp.messages:
        answer = email.message_from_bytes(m.data, policy=email.policy.default)
        assert "accepted" in answer.get_body(("plain",)).get_content().lower(), answer["Subject"]
        assert "Not accepted" not in answer["Subject"]
    summary = seen[-1]
    assert summary.startswith("worker ") and "mail handled: 2 accepted" in summary
    assert summary.endswith("s") and "answers to mail: 2 sent" in summary


def test_without_smtp_the_answers_wait_in_the_outbox(sqlite_url, tmp_path, monkeypatch):
    """No [smtp]: the moderator sends with `pbm send-mail`; the worker says nothing about answers."""
    from tests.conftest import Cli

    monkeypatch.chdir(tmp_path)
    populate(sqlite_url, games=1, humans=1, maildir=tmp_path / "maildir", seed=4343, prefix="quiet",
             deadline=datetime.now() + timedelta(days=7))
    (tmp_path / "pbm.toml").write_text("")
    out = Cli(sqlite_url)("worker", "--once", "--maildir", str(tmp_path / "maildir"),
                          "--config", str(tmp_path / "pbm.toml")).stdout
    assert "mail: 1 accepted" in out
    assert "mail answers" not in out and "answers to mail" not in out
    from pbm.db import session_scope
    from pbm.mail.outbox import pending

    with session_scope(sqlite_url) as s:
        assert [(m.kind, state) for m, _r, state in pending(s)] == [("receipt", "new")]


def test_maildir_wait_ends_when_mail_lands_or_time_is_up(tmp_path):
    box = mailbox.Maildir(str(tmp_path / "md"), create=True)
    watch = MaildirWatch(tmp_path / "md")
    watch.look()
    assert watch.wait(0.2, lambda: False) is False  # nothing came: the time ran out
    assert watch.wait(3600, lambda: True) is False  # a stop asked for ends it at once
    threading.Timer(0.3, lambda: _deliver(box, mailbox.MaildirMessage(b"Subject: hi\n\nx\n"))).start()
    assert watch.wait(3600, lambda: False) is True


PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


def test_a_worker_on_imap_applies_an_18xx_move_and_mails_everyone_at_once(cli, db_url, tmp_path, tmp_path_factory):
    """18GA by mail under `pbm worker --imap`: the worker idles on the IMAP folder (IDLE), so a move
    appended while it waits is applied at once, and the new state goes to every player at once."""
    import re

    import imapclient

    from tests.mail.dovecot import PASSWORD, USER, Dovecot, available
    from tests.mail.helpers import mk

    if available() is not None:
        pytest.skip(available())
    server = Dovecot(tmp_path_factory.mktemp("dovecot")).start()
    try:
        with SmtpServer() as smtp:
            config = tmp_path / "pbm.toml"
            config.write_text(smtp.config_toml())
            csv = tmp_path / "players.csv"
            csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
            out = cli("new-game", "18GA", "--players", str(csv), "--seed", "11", "--name", "ga-w").stdout
            secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
            env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")} | {"PYTHONPATH": str(ROOT)}
            env |= {"PBM_IMAP_HOST": "127.0.0.1", "PBM_IMAP_PORT": str(server.port), "PBM_IMAP_USER": USER,
                    "PBM_IMAP_PASSWORD": PASSWORD, "PBM_IMAP_SSL": "false", "PBM_IMAP_FOLDER": "INBOX"}
            proc = subprocess.Popen(
                [sys.executable, "-m", "pbm", "--db", db_url, "worker", "--imap", "--poll", "3600",
                 "--config", str(config), "--reports", str(tmp_path / "reports"), "--archive", str(tmp_path / "archive")],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=_lines, args=(proc, lines), daemon=True).start()
            seen: list[str] = []

            def append(seat: int, text: str, n: int) -> None:
                c = imapclient.IMAPClient("127.0.0.1", port=server.port, ssl=False)
                c.login(USER, PASSWORD)
                name, addr = PLAYERS[seat - 1]
                c.append("INBOX", mk(f"GAME: ga-w\nPLAYER: {seat}\nSECRET: {secrets[seat]}\n{text}\n",
                                     sender=f"{name} <{addr}>", msgid=f"<w{n}@test.example>"))
                c.logout()

            try:
                before = len(smtp.messages)
                append(1, "pass", 1)  # may land before the worker's first pass or while it idles: either way
                _wait_for(lines, seen, "mail answers: sent")
                _wait_for_mail(smtp, before + 1)
                first = len(smtp.messages)
                time.sleep(1.0)  # the worker is idling on the folder now, with an hour to wait
                append(2, "pass", 2)
                _wait_for(lines, seen, "mail answers: sent")
                _wait_for_mail(smtp, first + 1)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=120)
                while (line := lines.get(timeout=60)) is not None:
                    seen.append(line)
            assert proc.returncode == 0, "\n".join(seen)
            to = {addr: [] for _, addr in PLAYERS}
            for m in smtp.messages[before:]:
                for r in m.rcpt_tos:
                    to[r].append(email.message_from_bytes(m.data, policy=email.policy.default))
            # every player heard of both moves; the third seat is now to move
            assert all(len(msgs) >= 2 for msgs in to.values()), {k: len(v) for k, v in to.items()}
            cy = to["cy@example.org"][-1].get_body(("plain",)).get_content()
            assert "IT IS YOUR TURN" in cy, cy[:400]
            assert "without it" not in "\n".join(seen)  # the IDLE watch worked: no fallback said
    finally:
        server.stop()


def test_imap_watch_without_a_server_waits_plainly_and_says_so_once():
    from pbm.mail.config import ImapConfig
    from pbm.mail.sources import ImapWatch
    from tests.mail.smtp import free_port

    said: list[str] = []
    cfg = ImapConfig(host="127.0.0.1", port=free_port(), user="u", password="p", folder="INBOX", ssl=False,
                     starttls=False, processed_folder="")
    watch = ImapWatch(cfg, said.append)
    t0 = time.monotonic()
    assert watch.wait(0.3, lambda: False) is False
    assert time.monotonic() - t0 >= 0.3  # the whole wait, not a busy loop of passes
    assert watch.wait(0.1, lambda: False) is False
    assert len(said) == 1 and said[0].startswith("mail: cannot watch the IMAP folder (cannot read IMAP u@127.0.0.1:")
    assert said[0].endswith("; waiting between passes without it")


def test_on_postgresql_one_worker_at_a_time_idles_on_the_imap_folder(pg_url, tmp_path):
    """N workers on one IMAP mailbox hold one IDLE connection between them (the `imap-watch` claim);
    the others wait their poll, as before."""
    from pbm.locks import process_lock
    from pbm.mail.config import ImapConfig
    from pbm.mail.sources import ImapWatch
    from pbm.pipeline.worker import Worker, worker_options

    cfg = ImapConfig(host="127.0.0.1", port=1, user="u", password="p", folder="INBOX", ssl=False,
                     starttls=False, processed_folder="")
    opts = worker_options(reports=tmp_path / "r", archive=tmp_path / "a", maildir=None, config=None,
                          once=False, poll=0.3, log=lambda _line: None, imap=True)
    worker = Worker(pg_url, opts)
    watched: list[float] = []

    class Watch(ImapWatch):
        def wait(self, seconds, stopped):
            watched.append(seconds)
            return False

    worker._watch = Watch(cfg, lambda _line: None)
    with process_lock(pg_url, "imap-watch", what="another worker's IMAP watch"):
        t0 = time.monotonic()
        worker._sleep(0.3)
        assert watched == [] and time.monotonic() - t0 >= 0.3  # another worker watches: a plain wait
    worker._sleep(0.3)
    assert watched == [0.3]  # the claim is free: this worker watches


def test_the_answers_line_says_what_was_sent_and_what_failed(sqlite_url, tmp_path):
    from email.message import EmailMessage

    from pbm.db import session_scope
    from pbm.mail.outbox import queue as queue_mail
    from pbm.pipeline.worker import Worker, worker_options

    with SmtpServer() as smtp:
        smtp.recorder.refuse.add("ike@example.org")
        config = tmp_path / "pbm.toml"
        config.write_text(smtp.config_toml())
        said: list[str] = []
        worker = Worker(sqlite_url, worker_options(reports=tmp_path / "r", archive=tmp_path / "a", maildir=None,
                                                   config=config, once=True, poll=1, log=said.append))
        for n, to in enumerate(["ada@example.org", "ike@example.org"]):
            m = EmailMessage()
            m["Subject"] = f"receipt {n}"
            m.set_content("ok\n")
            with session_scope(sqlite_url) as s:
                queue_mail(s, f"receipt:{n}", "receipt", [to], m)
        worker._send_answers()
        worker._send_answers()  # Ada's is not counted again; Ike's is tried again
    assert said[0].startswith("mail answers: sent 1, failed 1 (tried again by the next flush: ike@example.org: ")
    assert said[1].startswith("mail answers: sent 0, failed 1 (tried again by the next flush: ike@example.org: ")
    assert worker.stats.answers_sent == 1

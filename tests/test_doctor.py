"""`pbm doctor` and `pbm --version`: what is configured and reachable, never a password (issue 14)."""

from __future__ import annotations

import json
import re
import socket

from pbm import __version__
from tests.conftest import Cli


def test_version(sqlite_url):
    assert Cli(sqlite_url)("--version").stdout.strip() == f"pbm {__version__}"


def test_doctor_reports_database_revision_fonts_disk_and_hides_passwords(db_url, monkeypatch, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBM_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PBM_SMTP_PORT", str(port))
    monkeypatch.setenv("PBM_SMTP_FROM", "moderator@example.org")
    monkeypatch.setenv("PBM_SMTP_PASSWORD", "hunter2-secret")
    monkeypatch.delenv("PBM_IMAP_HOST", raising=False)
    cli = Cli(db_url)
    cli("games")  # creates the schema
    out = cli("doctor").stdout
    assert "hunter2" not in out
    assert "password set" in out
    assert "(up to date); 0 game(s)" in out and "schema: revision 0" in out
    assert "mail in (IMAP): -" in out and "not configured" in out
    assert f"127.0.0.1:{port} reachable" in out
    assert "covers Latin Extended, Greek, Cyrillic: yes" in out
    assert "GiB free" in out
    if db_url.startswith("postgresql"):  # the bounds and the pool of many workers (docs/hosting.md)
        assert re.search(r"statement_timeout \S+, lock_timeout \S+ \(0: none; .*\); pool 5 \+ 10 connections", out)
    facts = json.loads(cli("doctor", "--json").stdout)
    assert "hunter2" not in json.dumps(facts)
    assert facts["database"]["revision"] == facts["database"]["head"] is not None
    assert facts["mail out (SMTP)"]["password"] == "set" and facts["mail out (SMTP)"]["reachable"] is True
    assert facts["fonts"]["unicode"] is True
    listener.close()
    # nothing listens there now: a configured but unreachable relay is a problem (exit 1)
    out = cli("doctor", expect=1).stdout
    assert "mail out (SMTP): PROBLEM" in out and "not reachable" in out


def test_doctor_on_an_unreachable_database_fails_plainly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = Cli("postgresql://nobody@127.0.0.1:9/none")("doctor", expect=1).stdout
    assert "database: PROBLEM" in out and "cannot connect" in out

"""IMAP intake against a real Dovecot server started for the test (no system service)."""

from __future__ import annotations

from datetime import datetime, timezone

import imapclient
import pytest

from pbm.db import session_scope
from tests.mail.dovecot import PASSWORD, USER, Dovecot, available
from tests.mail.game import sheet
from tests.mail.helpers import mk

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")


@pytest.fixture
def dovecot(tmp_path_factory):
    server = Dovecot(tmp_path_factory.mktemp("dovecot")).start()
    try:
        yield server
    finally:
        server.stop()


def _client(server: Dovecot) -> imapclient.IMAPClient:
    c = imapclient.IMAPClient("127.0.0.1", port=server.port, ssl=False)
    c.login(USER, PASSWORD)
    return c


def test_ingest_from_imap(cli, game, dovecot, monkeypatch):
    for key, value in {"HOST": "127.0.0.1", "PORT": str(dovecot.port), "USER": USER, "PASSWORD": PASSWORD,
                       "SSL": "false", "FOLDER": "INBOX"}.items():
        monkeypatch.setenv(f"PBM_IMAP_{key}", value)
    cli("deadline", "2025-01-01 12:00")  # Dovecot keeps only past INTERNALDATEs
    c = _client(dovecot)
    with session_scope(cli.url) as s:
        c.append("INBOX", mk(sheet(s, game.game_id, 1, "BORROW: 5\n")),
                 msg_time=datetime(2025, 1, 1, 11, 0, tzinfo=timezone.utc))
        c.append("INBOX", mk("Delivery failed", sender="MAILER-DAEMON@mx.example"))
        # INTERNALDATE (when the server got it) decides lateness, not when pbm reads it
        c.append("INBOX", mk(sheet(s, game.game_id, 2, "BORROW: 6\n"), sender="ike@example.org"),
                 msg_time=datetime(2025, 1, 1, 13, 0, tzinfo=timezone.utc))
    c.logout()
    result = cli("ingest", "--imap")
    assert "#1 player 1 accepted" in result.stdout
    assert "#2 ignored: a delivery report (bounce)" in result.stdout
    assert "#3 player 2 late" in result.stdout
    assert "nothing new" in cli("ingest", "--imap").stdout  # marked PbmStored on the server
    c = _client(dovecot)
    c.select_folder("INBOX")
    assert sorted(c.search(["KEYWORD", "PbmStored"])) == [1, 2, 3]
    c.create_folder("Done")
    with session_scope(cli.url) as s:
        c.append("INBOX", mk(sheet(s, game.game_id, 3, "BORROW: 7\n"), sender="carl@example.org"),
                 msg_time=datetime(2025, 1, 1, 9, 0, tzinfo=timezone.utc))
    monkeypatch.setenv("PBM_IMAP_PROCESSED_FOLDER", "Done")
    assert "#4 player 3 accepted" in cli("ingest", "cr-test", "--imap").stdout
    c.select_folder("INBOX")
    assert len(c.search(["ALL"])) == 3  # moved out of the INBOX
    c.select_folder("Done")
    assert len(c.search(["ALL"])) == 1
    c.logout()


def test_imap_errors_are_one_line(cli, game, dovecot, monkeypatch, tmp_path):
    config = tmp_path / "pbm.toml"
    config.write_text(f'[mail]\nimap_host = "127.0.0.1"\nimap_port = {dovecot.port}\nimap_user = "{USER}"\n'
                      'imap_password = "wrong"\nimap_ssl = false\n', encoding="utf-8")
    result = cli("ingest", "--imap", "--config", str(config), expect=2)
    assert "cannot read IMAP moderator@127.0.0.1" in result.stderr and "Traceback" not in result.stderr
    config.write_text("[mail]\n", encoding="utf-8")
    result = cli("ingest", "--imap", "--config", str(config), expect=2)
    assert "no IMAP host" in result.stderr


def test_imap_message_over_the_limit_is_fetched_cut(cli, game, dovecot, monkeypatch):
    """Issue 13, item 12: only the start of a mail over 15 MB is fetched; it is stored marked and refused."""
    from pbm.mail.message import MAX_MESSAGE_BYTES

    for key, value in {"HOST": "127.0.0.1", "PORT": str(dovecot.port), "USER": USER, "PASSWORD": PASSWORD,
                       "SSL": "false", "FOLDER": "INBOX"}.items():
        monkeypatch.setenv(f"PBM_IMAP_{key}", value)
    c = _client(dovecot)
    big = mk("x", attachments=[(b"A" * (MAX_MESSAGE_BYTES + 4096), "application", "octet-stream", "big.bin")])
    c.append("INBOX", big)
    c.logout()
    result = cli("ingest", "--imap")
    assert "#1 rejected: the message is larger than 15 MB" in result.stdout
    from sqlalchemy import select

    from pbm.models import InboundMessage

    with session_scope(cli.url) as s:
        raw = s.scalar(select(InboundMessage.raw))
        assert raw.startswith(b"X-PBM-Truncated: ") and len(raw) < 2 * 1024 * 1024


def _imap_env(monkeypatch, dovecot, password: str = PASSWORD) -> None:
    for key, value in {"HOST": "127.0.0.1", "PORT": str(dovecot.port), "USER": USER, "PASSWORD": password,
                       "SSL": "false", "FOLDER": "INBOX"}.items():
        monkeypatch.setenv(f"PBM_IMAP_{key}", value)


def _turn_state(cli, turn: int) -> str | None:
    from sqlalchemy import select

    from pbm.models import TurnState

    with session_scope(cli.url) as s:
        row = s.scalar(select(TurnState).where(TurnState.turn == turn))
        return row.state if row is not None else None


def _new_game_sheet(cli, players_csv, tmp_path) -> str:
    """A new Continental Rails game with a past deadline; player 1's text sheet filled in (BORROW: 100)."""
    import re

    created = cli("new-game", "continental-rails", "--seed", "7", "--players", str(players_csv)).stdout
    secret = re.search(r"#\s*1 Ada Lovelace .*: (\S+)$", created, re.MULTILINE).group(1)
    cli("deadline", "2025-01-01 12:00")
    cli("turnsheet", "--player", "1", "--format", "text", "--out", str(tmp_path / "sheets"))
    text = (tmp_path / "sheets" / "player-01.txt").read_text(encoding="utf-8")
    return text.replace("SECRET:", f"SECRET: {secret}", 1).replace("BORROW:", "BORROW: 100", 1)


def test_cycle_reads_the_configured_imap_mailbox(cli, players_csv, dovecot, monkeypatch, tmp_path):
    """Issue 18, item 13: `pbm cycle` reads the IMAP mailbox it is configured with before the game
    closes, so a sheet mailed before the deadline is used; the message is marked stored on the server."""
    from sqlalchemy import select

    from pbm.models import OrderSet

    _imap_env(monkeypatch, dovecot)
    filled = _new_game_sheet(cli, players_csv, tmp_path)
    c = _client(dovecot)
    c.append("INBOX", mk("My orders:\n\n" + filled, sender="Ada Lovelace <ada@example.org>"),
             msg_time=datetime(2025, 1, 1, 11, 0, tzinfo=timezone.utc))
    c.logout()
    args = ["--clock", "2025-01-02T00:00:00", "--reports", str(tmp_path / "r"), "--archive", str(tmp_path / "a")]
    out = cli("cycle", *args).stdout
    assert "Mail: reading the IMAP mailbox configured for pbm" in out
    assert ": turn 1: mail read: 1 accepted" in out
    assert ": turn 1 resolved" in out
    with session_scope(cli.url) as s:
        [used] = s.scalars(select(OrderSet).where(OrderSet.turn == 1, OrderSet.source == "email")).all()
        assert used.orders["borrow"] == 100 and used.status in ("accepted", "used")
    c = _client(dovecot)
    c.select_folder("INBOX")
    assert sorted(c.search(["KEYWORD", "PbmStored"])) == [1]
    c.logout()


def test_cycle_leaves_the_turn_open_when_the_mailbox_cannot_be_read(cli, players_csv, dovecot, monkeypatch,
                                                                     tmp_path):
    _imap_env(monkeypatch, dovecot, password="wrong")
    _new_game_sheet(cli, players_csv, tmp_path)
    args = ["--clock", "2025-01-02T00:00:00", "--reports", str(tmp_path / "r"), "--archive", str(tmp_path / "a")]
    result = cli("cycle", *args, expect=2)
    assert "mail not read, so the turn stays open: cannot read IMAP moderator@127.0.0.1" in result.stderr
    assert "Traceback" not in result.stderr
    assert _turn_state(cli, 1) == "open"
    # the moderator may run the cycle without the mailbox, knowingly
    out = cli("cycle", "--no-imap", *args).stdout
    assert "Mail: reading" not in out and ": turn 1 resolved" in out
    assert "name one mail source" in cli("cycle", "--imap", "--maildir", str(tmp_path), *args, expect=2).stderr

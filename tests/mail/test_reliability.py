"""Issue 13 ("nothing lost, nothing twice"): each reproduction of the campaign, on SQLite and PostgreSQL."""

from __future__ import annotations

import email
import email.policy
import hashlib
import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from pbm.db import session_scope
from pbm.mail.ingest import Context, ingest, store_raw
from pbm.models import Game, InboundMessage, OrderSet, OutboxMessage, TurnState
from pbm.pipeline.cycle import CycleOptions, run_cycle
from tests.mail.game import SECRETS, sheet
from tests.mail.helpers import mk, reply_for

CTX = Context(sender="orders@pbm.example")


class Stop(Exception):
    pass


def _stop_at(state: str):
    def hook(game, reached, turn):
        if reached == state:
            raise Stop(reached)
    return hook


def _maildir(tmp_path: Path, *raws: bytes) -> Path:
    md = tmp_path / "md"
    for sub in ("new", "cur", "tmp"):
        (md / sub).mkdir(parents=True, exist_ok=True)
    for i, raw in enumerate(raws):
        (md / "new" / f"{i:04d}.eml").write_bytes(raw)
    return md


def _accepted(url, player: int) -> list[OrderSet]:
    with session_scope(url) as s:
        from pbm.models import Player

        return list(s.scalars(select(OrderSet).join(Player, Player.id == OrderSet.player_id)
                              .where(Player.number == player, OrderSet.status == "accepted")))


# -- item 1: a crash between storing and handling loses nothing ---------------------------------

def test_item1_stored_but_unhandled_sheet_is_handled_when_read_again(db_url, game):
    with session_scope(db_url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"), msgid="<one@x>")
        row, new = store_raw(s, raw)  # then the process died: committed, never handled
        assert new
    with session_scope(db_url) as s:
        outcome = ingest(s, raw, CTX)
        assert outcome.status == "accepted", outcome.line()  # not "duplicate"
        again = ingest(s, raw, CTX)
        assert again.status == "duplicate"
    assert len(_accepted(db_url, 1)) == 1


def test_item1_the_cycle_handles_stored_mail_before_the_turn_closes(db_url, game, tmp_path):
    with session_scope(db_url) as s:
        a = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"), msgid="<a@x>")
        b = mk(sheet(s, game.game_id, 2, "BORROW: 3\n"), sender="ike@example.org", msgid="<b@x>")
        store_raw(s, a)  # stored by a run that died; the Maildir still has it
        store_raw(s, b)  # stored by a run that died; its source has moved it away (IMAP processed folder)
    opts = CycleOptions(maildir=_maildir(tmp_path, a), force=True, after_step=_stop_at("closed"),
                        reports=tmp_path / "r", archive=tmp_path / "a", log=lambda _: None)
    with pytest.raises(Stop):
        run_cycle(db_url, opts, ["cr-test"])
    assert len(_accepted(db_url, 1)) == 1 and len(_accepted(db_url, 2)) == 1
    with session_scope(db_url) as s:
        assert set(s.scalars(select(InboundMessage.status))) == {"accepted"}
        assert s.scalar(select(TurnState.state)) == "closed"


# -- item 2: no sheet is accepted into a turn that is closed -------------------------------------

def test_item2_sheet_after_the_close_is_late_and_not_used_by_a_rerun(db_url, game):
    with session_scope(db_url) as s:
        g = s.get(Game, game.game_id)
        s.add(TurnState(game_id=g.id, turn=g.turn, state="closed", history=[]))
    with session_scope(db_url) as s:
        outcome = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n")), CTX)
        assert outcome.status == "late"
        _, body = reply_for(s, outcome.inbound_id)
        assert "LATE — NOT USED" in body and "after the turn was closed" in body
    assert _accepted(db_url, 1) == []
    # the moderator cannot accept it into the closed turn either
    from pbm.errors import PbmError
    from pbm.turnsheet.intake import accept_late

    with session_scope(db_url) as s, pytest.raises(PbmError, match="is closed"):
        accept_late(s, s.get(Game, game.game_id), str(outcome.seq), CTX)


def test_item2_accepting_waits_for_the_close_and_is_then_late(db_url, game):
    """The close holds the game's row lock; a sheet read meanwhile waits for it and is found late."""
    from pbm.locks import lock_game

    with session_scope(db_url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"))
    result = {}

    def reader():
        with session_scope(db_url) as s2:
            result["outcome"] = ingest(s2, raw, CTX)

    with session_scope(db_url) as s:
        g = s.get(Game, game.game_id)
        lock_game(s, g)
        worker = threading.Thread(target=reader)
        worker.start()
        if db_url.startswith("postgresql"):  # wait until the reader is provably blocked on our lock
            from pbm.db import get_engine

            with get_engine(db_url).connect() as c:
                for _ in range(2000):
                    if c.execute(text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                      "AND datname = current_database()")).scalar():
                        break
                    c.rollback()
                else:
                    pytest.fail("the reader never waited for the game lock")
        s.add(TurnState(game_id=g.id, turn=g.turn, state="closed", history=[]))
    worker.join(120)
    assert result["outcome"].status == "late", result["outcome"].line()


# -- item 3: a Message-ID alone does not make a message a duplicate ------------------------------

def test_item3_a_strangers_message_id_does_not_drop_the_real_sheet(db_url, game):
    with session_scope(db_url) as s:
        stranger = mk("hello", sender="mallory@evil.example", msgid="<predictable@example.org>")
        assert ingest(s, stranger, CTX).status == "rejected"
        real = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"), msgid="<predictable@example.org>")
        assert ingest(s, real, CTX).status == "accepted"
        # a true redelivery (another relay added a trace header): same Message-ID and content
        relayed = b"Received: from relay2.example by mx.example; Sun, 1 Nov 2026 10:00:00 +0000\r\n" + real
        outcome = ingest(s, relayed, CTX)
        assert outcome.status == "duplicate" and "same Message-ID and content" in outcome.reason
    assert len(_accepted(db_url, 1)) == 1


# -- item 9: a hostile MIME tree does not block intake --------------------------------------------

def _nested(depth: int) -> bytes:
    head = b"From: x@evil.example\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    body = b""
    for i in range(depth):
        body += f"Content-Type: multipart/mixed; boundary=\"b{i}\"\r\n\r\n--b{i}\r\n".encode()
    return head + body + b"Content-Type: text/plain\r\n\r\nhi\r\n"


def test_item9_nested_multiparts_are_stored_refused_once_and_later_mail_still_read(db_url, game, tmp_path):
    bomb = _nested(990)
    with session_scope(db_url) as s:
        good = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"))
        first = ingest(s, bomb, CTX)
        assert first.status == "rejected" and "MIME parts" in first.reason
        assert first.replied_to == ["x@evil.example"]
        assert ingest(s, bomb, CTX).status == "duplicate"  # answered once
        assert ingest(s, good, CTX).status == "accepted"
        stored = s.get(InboundMessage, first.inbound_id)
        assert stored.raw == bomb
        assert s.scalar(select(func.count()).select_from(OutboxMessage)) == 2


# -- item 10: non-ASCII codes, NUL charsets; no error without an answer ------------------------------

def test_item10_non_ascii_code_and_nul_charset_are_answered_not_errors(db_url, game):
    with session_scope(db_url) as s:
        bad_code = mk(sheet(s, game.game_id, 1, "BORROW: 5\n", code="DBFRGÉ"))
        outcome = ingest(s, bad_code, CTX)
        assert outcome.status == "rejected" and "is not player 1's code" in outcome.reason
        nul = (b"From: Ada <ada@example.org>\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
               b"Content-Type: text/plain; charset=\"utf-8\\0\"\r\n\r\n"
               + sheet(s, game.game_id, 1, "BORROW: 4\n").replace("\n", "\r\n").encode())
        outcome = ingest(s, nul, CTX)
        assert outcome.status == "accepted", outcome.line()


def test_item10_a_bug_while_handling_still_answers_once(db_url, game, monkeypatch):
    import pbm.turnsheet.intake as intake_mod

    def broken(*a, **k):
        raise RuntimeError("a bug")

    monkeypatch.setattr(intake_mod, "_find_sheet", broken)
    with session_scope(db_url) as s:
        outcome = ingest(s, mk("anything"), CTX)
        assert outcome.status == "error"
        row = s.get(InboundMessage, outcome.inbound_id)
        assert row.outcome["answered"] == ["ada@example.org"]
        assert s.scalar(select(OutboxMessage.key)).startswith("error:")
    monkeypatch.undo()
    # fixed: --retry (the intake's retry_errors) handles it and the real answer goes out
    from pbm.intake import take_mail

    assert [o.status for o in take_mail(db_url, (), CTX, retry_errors=True)[1]] == ["rejected"]


# -- item 11: refusals cannot be used to mail chosen text to someone ----------------------------------

def test_item11_refusals_to_unknown_addresses_carry_no_message_text_and_are_rate_limited(db_url, game):
    with session_scope(db_url) as s:
        evil = "GAME: Buy cheap pills at evil.example now\nPLAYER: 1\n"
        first = ingest(s, mk(evil, sender="victim@else.example", subject="x", msgid="<m1@evil>"), CTX)
        assert first.status == "rejected" and first.replied_to == ["victim@else.example"]
        msg, body = reply_for(s, first.inbound_id)
        assert msg["Subject"] == f"[pbm] Not accepted: your message #{first.seq} (sender address not on file)"
        assert msg["In-Reply-To"] is None
        assert "pills" not in body and "pills" not in msg.as_string()
        second = ingest(s, mk(evil + "\n2", sender="victim@else.example", msgid="<m2@evil>"), CTX)
        assert second.status == "rejected" and second.replied_to == []  # one answer a day
        # a player on file still gets the reason, in fixed words: nothing of an unauthenticated mail is
        # quoted, not even to a player's address (a forged From:, issue 34 item 10)
        own = ingest(s, mk(evil, sender="ada@example.org", msgid="<m3@x>"), CTX)
        msg, body = reply_for(s, own.inbound_id)
        assert "there is no game here by the name on your GAME line" in body
        assert "pills" not in body and "pills" not in msg["Subject"] and msg["In-Reply-To"] is None


# -- item 12: a huge mail is cut while it is read ----------------------------------------------------

def test_item12_huge_maildir_file_is_stored_truncated_with_a_marker(db_url, game, tmp_path):
    from pbm.mail import sources
    from pbm.mail.message import MAX_MESSAGE_BYTES, TRUNCATED_MARK

    big = mk("x", attachments=[(b"\0" * (MAX_MESSAGE_BYTES + 1024), "application", "octet-stream", "a.bin")])
    md = _maildir(tmp_path, big)
    items = list(sources.read_maildir(md))
    assert len(items[0].raw) < 2 * 1024 * 1024 and items[0].raw.startswith(TRUNCATED_MARK)
    with session_scope(db_url) as s:
        outcome = ingest(s, items[0].raw, CTX)
        assert outcome.status == "rejected" and "larger than" in outcome.reason
        assert outcome.replied_to == ["ada@example.org"]
        assert ingest(s, list(sources.read_maildir(md))[0].raw, CTX).status == "duplicate"


# -- item 13: secrets are not kept in stored mail -------------------------------------------------------

def test_item13_secret_redacted_from_stored_mail_hash_kept(db_url, game):
    with session_scope(db_url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"))
        b64 = mk(None, attachments=[(sheet(s, game.game_id, 2, "BORROW: 1\n").encode(), "text", "plain",
                                     "sheet.txt")], sender="ike@example.org")
        o1, o2 = ingest(s, raw, CTX), ingest(s, b64, CTX)
        assert o1.status == o2.status == "accepted"
        for o, original, secret in ((o1, raw, SECRETS[1]), (o2, b64, SECRETS[2])):
            row = s.get(InboundMessage, o.inbound_id)
            assert row.sha256 == hashlib.sha256(original).hexdigest()
            assert secret.encode() not in row.raw and row.outcome["redacted"]
            parsed = email.message_from_bytes(row.raw, policy=email.policy.default)
            assert all(secret not in (p.get_content() if p.get_content_maintype() == "text" else "")
                       for p in parsed.walk() if not p.is_multipart())
        assert ingest(s, raw, CTX).status == "duplicate"  # the same bytes again are still recognised

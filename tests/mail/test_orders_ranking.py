"""Issue 34, item 9 and the replay of item 12: which sheet counts is decided by arrival time (ruling M14),
not by the order pbm happens to read the mail.

* orders the moderator enters (`pbm orders set`) arrive when he enters them: a sheet that reached the
  mailbox before that, read afterwards, does not override them;
* a sheet read late (a second pass over the Maildir) that arrived before the player's current sheet does
  not replace it;
* a copy of an earlier sheet (the same content under a new Message-ID, as a relay may deliver it again)
  counts from the first copy's arrival: it never replaces a sheet the player sent after it;
* a sheet that arrived later still replaces the earlier one (M1).

Each player whose sheet does not count is told so plainly.  SQLite and PostgreSQL."""

from __future__ import annotations

import mailbox
import os
from datetime import datetime, timedelta

from sqlalchemy import select

from pbm.clock import utcnow
from pbm.db import session_scope
from pbm.mail.ingest import Context, ingest
from pbm.models import Game, InboundMessage
from pbm.pipeline.gather import orders_for_turn
from tests.mail.game import sheet
from tests.mail.helpers import mk, reply_for

CTX = Context(sender="orders@pbm.example")


def _deliver(path, raw: bytes, when: datetime) -> None:
    """Put ``raw`` into the Maildir as delivered at ``when`` (UTC): its file time is its arrival."""
    box = mailbox.Maildir(str(path), create=True)
    key = box.add(raw)
    stamp = (when - datetime(1970, 1, 1)).total_seconds()
    os.utime(os.path.join(str(path), box._lookup(key)), (stamp, stamp))


def _counts(url: str, game_id: int, number: int) -> tuple[int | None, str]:
    """(the loan in the orders that count for the seat, their source)."""
    with session_scope(url) as s:
        orders, source = orders_for_turn(s, s.get(Game, game_id))[number]
        return (orders.borrow if orders is not None else None), source


def _answer(url: str, seq: int) -> str:
    with session_scope(url) as s:
        row = s.scalar(select(InboundMessage).where(InboundMessage.seq == seq))
        return reply_for(s, row.id)[1]


def test_item9_the_moderators_orders_are_not_overridden_by_an_earlier_sheet_read_afterwards(cli, game, tmp_path):
    md = tmp_path / "md"
    with session_scope(cli.url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 60\n"), msgid="<early@example.org>")
    _deliver(md, raw, utcnow() - timedelta(minutes=30))  # in the mailbox before the moderator acts
    out = cli("orders", "set", game.name, "--player", "1", input="BORROW: 7\n").stdout
    assert "stored (they count" in out
    assert _counts(cli.url, game.game_id, 1) == (7, "moderator")
    read = cli("ingest", "--maildir", str(md)).stdout
    assert "#1 player 1 superseded" in read, read
    assert _counts(cli.url, game.game_id, 1) == (7, "moderator")  # what `orders set` said still holds
    text = _answer(cli.url, 1)
    assert "Received, but NOT USED" in text
    assert "the orders the moderator entered for you at " in text and "count" in text


def test_item9_a_later_sheet_still_replaces_the_moderators_orders(cli, game, tmp_path):
    md = tmp_path / "md"
    cli("orders", "set", game.name, "--player", "1", input="BORROW: 7\n")
    with session_scope(cli.url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 60\n"), msgid="<late@example.org>")
    _deliver(md, raw, utcnow() + timedelta(seconds=5))
    assert "#1 player 1 accepted" in cli("ingest", "--maildir", str(md)).stdout
    assert _counts(cli.url, game.game_id, 1) == (60, "email")


def test_item9_a_sheet_read_in_a_later_pass_that_arrived_earlier_does_not_replace_the_current_one(cli, game,
                                                                                                  tmp_path):
    md = tmp_path / "md"
    now = utcnow()
    with session_scope(cli.url) as s:
        first = mk(sheet(s, game.game_id, 1, "BORROW: 10\n"), msgid="<first@example.org>")
        second = mk(sheet(s, game.game_id, 1, "BORROW: 20\n"), msgid="<second@example.org>")
    _deliver(md, second, now - timedelta(minutes=10))
    assert "#1 player 1 accepted" in cli("ingest", "--maildir", str(md)).stdout
    _deliver(md, first, now - timedelta(minutes=20))  # a relay held it back: it came into the mailbox late
    assert "#2 player 1 superseded" in cli("ingest", "--maildir", str(md)).stdout
    assert _counts(cli.url, game.game_id, 1) == (20, "email")
    assert "your message #1, which arrived later" in _answer(cli.url, 2)


def test_item12_a_sheet_replayed_with_a_new_message_id_does_not_replace_the_later_sheet(db_url, game):
    t0 = datetime(2026, 11, 20, 12, 0)
    with session_scope(db_url) as s:
        a = mk(sheet(s, game.game_id, 1, "BORROW: 10\n"), msgid="<a@example.org>")
        b = mk(sheet(s, game.game_id, 1, "BORROW: 20\n"), msgid="<b@example.org>")
        assert ingest(s, a, CTX, received_at=t0).status == "accepted"
        assert ingest(s, b, CTX, received_at=t0 + timedelta(hours=1)).status == "accepted"
        replay = a.replace(b"<a@example.org>", b"<a-again@relay.example>")
        out = ingest(s, replay, CTX, received_at=t0 + timedelta(hours=2))
        assert out.status == "superseded", out
        _, text = reply_for(s, out.inbound_id)
        assert "the same sheet as your message #1" in text
        assert "your message #2, which arrived later" in text
    assert _counts(db_url, game.game_id, 1) == (20, "email")
    with session_scope(db_url) as s:  # a copy of the sheet that counts changes nothing either
        again = b.replace(b"<b@example.org>", b"<b-again@relay.example>")
        assert ingest(s, again, CTX, received_at=t0 + timedelta(hours=3)).status in ("accepted", "superseded")
    assert _counts(db_url, game.game_id, 1) == (20, "email")


def test_item9_sheets_with_the_same_arrival_time_count_in_the_order_read(db_url, game):
    t0 = datetime(2026, 11, 20, 12, 0)
    with session_scope(db_url) as s:
        a = mk(sheet(s, game.game_id, 1, "BORROW: 10\n"), msgid="<a@example.org>")
        b = mk(sheet(s, game.game_id, 1, "BORROW: 20\n"), msgid="<b@example.org>")
        assert ingest(s, a, CTX, received_at=t0).status == "accepted"
        assert ingest(s, b, CTX, received_at=t0).status == "accepted"
    assert _counts(db_url, game.game_id, 1) == (20, "email")

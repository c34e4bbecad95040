"""End to end: a new game's text sheet, filled and emailed, is answered and used by `pbm run-turn`."""

from __future__ import annotations

import re

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, LedgerEntry, OrderSet, Player
from tests.mail.helpers import mk, reply_for


def test_sheet_to_receipt_to_resolved_turn(cli, players_csv, tmp_path):
    created = cli("new-game", "continental-rails", "--seed", "7", "--players", str(players_csv)).stdout
    secret = re.search(r"#\s*1 Ada Lovelace .*: (\S+)$", created, re.MULTILINE).group(1)
    out = tmp_path / "sheets"
    cli("turnsheet", "--player", "1", "--format", "both", "--out", str(out))
    text = (out / "player-01.txt").read_text(encoding="utf-8")
    assert (out / "player-01.pdf").read_bytes().startswith(b"%PDF")
    credit = int(re.search(r"^BORROW: +# 0 to \$([\d,]+)", text, re.MULTILINE).group(1).replace(",", ""))
    assert credit > 100
    filled = text.replace("SECRET:", f"SECRET: {secret}", 1).replace("BORROW:", "BORROW: 100", 1)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "1.eml").write_bytes(mk("My orders:\n\n" + filled, sender="Ada Lovelace <ada@example.org>"))
    result = cli("ingest", "--eml-dir", str(inbox))
    assert "#1 player 1 accepted" in result.stdout
    with session_scope(cli.url) as s:
        game = s.scalar(select(Game))
        row = s.scalar(select(OrderSet).where(OrderSet.source == "email"))
        _, receipt = reply_for(s, row.message_id)
        assert "ACCEPTED" in receipt and "  BORROW: 100\n" in receipt and "No problems found." in receipt
        loan_before = s.scalar(select(Player.loan).where(Player.game_id == game.id, Player.number == 1))
    assert "   1  " in cli("status").stdout and "1 of 3 human player(s) have orders in" in cli("status").stdout
    cli("run-turn")
    with session_scope(cli.url) as s:
        game = s.scalar(select(Game))
        assert game.turn == 2
        ada = s.scalar(select(Player).where(Player.game_id == game.id, Player.number == 1))
        assert ada.loan >= loan_before + 100
        assert s.scalar(select(LedgerEntry).where(LedgerEntry.target == "player:1", LedgerEntry.amount == 100,
                                                  LedgerEntry.turn == 1)) is not None
    # the new turn's status counts the last turn's mail but does not list it again (issue 18, item 13)
    status = cli("status", "--messages").stdout
    assert "Messages: none this turn (1 of earlier turns)" in status and "#1 " not in status
    status = cli("status", "--messages", "--all").stdout
    assert "Messages: 1 accepted\n" in status and "#1 " in status
    # the turn-1 sheet is now for a turn that is over
    (inbox / "2.eml").write_bytes(mk("again\n" + filled.replace("BORROW: 100", "BORROW: 50"),
                                     sender="ada@example.org"))
    result = cli("ingest", "--eml-dir", str(inbox))
    assert "#2 player 1 rejected: this sheet is for turn 1, which is over; turn 2 is being played now" in result.stdout


def test_top_posted_orders_and_a_sheet_without_orders(cli, players_csv, tmp_path):
    """Issue 18 item 4: orders typed above "-----Original Message-----" are used, and a sheet
    that yields no orders is answered with a loud warning, never a quiet "No problems found"."""
    created = cli("new-game", "continental-rails", "--seed", "7", "--players", str(players_csv)).stdout
    secret = re.search(r"#\s*1 Ada Lovelace .*: (\S+)$", created, re.MULTILINE).group(1)
    out = tmp_path / "sheets"
    cli("turnsheet", "--player", "1", "--format", "text", "--out", str(out))
    text = (out / "player-01.txt").read_text(encoding="utf-8").replace("SECRET:", f"SECRET: {secret}", 1)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    outlook = "BORROW: 100\n\nAda\n\n-----Original Message-----\nFrom: pbm\nSubject: turn 1\n\n" + text
    (inbox / "1.eml").write_bytes(mk(outlook, sender="Ada Lovelace <ada@example.org>"))
    assert "#1 player 1 accepted" in cli("ingest", "--eml-dir", str(inbox)).stdout
    with session_scope(cli.url) as s:
        row = s.scalar(select(OrderSet).where(OrderSet.source == "email"))
        _, receipt = reply_for(s, row.message_id)
    assert "  BORROW: 100\n" in receipt and "NO ORDERS" not in receipt
    (inbox / "2.eml").write_bytes(mk("Here it is\n\n" + text, sender="Ada Lovelace <ada@example.org>"))
    cli("ingest", "--eml-dir", str(inbox))
    with session_scope(cli.url) as s:
        row = s.scalars(select(OrderSet).where(OrderSet.source == "email").order_by(OrderSet.id.desc())).first()
        _, receipt = reply_for(s, row.message_id)
    assert "WARNING: NO ORDERS WERE FOUND ON THIS SHEET" in receipt
    assert "No problems found." not in receipt


def test_the_report_mail_carries_the_next_text_sheet_and_a_reply_with_it_is_used(cli, players_csv, tmp_path):
    """Issue 18, item 6: a text-only player finds TURN and CODE in the report mail's body and sends
    orders by replying to it: a quoting reply (Gmail, Thunderbird) and a plain copy are both used."""
    import email
    import email.policy

    from pbm.models import OutboxMessage

    created = cli("new-game", "continental-rails", "--seed", "7", "--players", str(players_csv)).stdout
    secret = re.search(r"#\s*1 Ada Lovelace .*: (\S+)$", created, re.MULTILINE).group(1)
    cli("run-turn")
    cli("send", "--reports", str(tmp_path / "reports"))
    with session_scope(cli.url) as s:
        raw = s.scalar(select(OutboxMessage.raw).where(OutboxMessage.key.like("report:%:1:1")))
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(("plain",)).get_content()
    assert "Your turnsheet for turn 2 as text follows" in body
    assert re.search(r"^TURN: +2\b", body, re.MULTILINE) and re.search(r"^CODE: +\S+", body, re.MULTILINE)
    assert re.search(r"^SECRET: +#", body, re.MULTILINE) and secret not in body  # never the secret
    assert [p.get_filename() for p in msg.iter_attachments()] == [
        "cr-7-turn-1-player-1.pdf", "cr-7-turnsheet-2-player-1.pdf"]
    filled = body.replace("SECRET:", f"SECRET: {secret}", 1).replace("BORROW:", "BORROW: 100", 1)
    quoted = "Here are my orders.\n\nOn Sun, 22 Nov 2026, moderator wrote:\n" + "".join(
        f"> {line}\n" for line in filled.splitlines())
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "1.eml").write_bytes(mk(quoted, sender="Ada Lovelace <ada@example.org>"))
    assert "#1 player 1 accepted" in cli("ingest", "--eml-dir", str(inbox)).stdout
    (inbox / "2.eml").write_bytes(mk(filled.replace("BORROW: 100", "BORROW: 60"), sender="ada@example.org"))
    assert "#2 player 1 accepted" in cli("ingest", "--eml-dir", str(inbox)).stdout
    with session_scope(cli.url) as s:
        sets = s.scalars(select(OrderSet).where(OrderSet.source == "email").order_by(OrderSet.id)).all()
        assert [(o.turn, o.orders["borrow"], o.problems) for o in sets] == [(2, 100, []), (2, 60, [])]

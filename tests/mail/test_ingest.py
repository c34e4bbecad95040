"""Orders in: a sheet emailed in is stored, authenticated, checked, answered, and used — the last one counts."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from pbm.cr.orders import Orders
from pbm.db import session_scope
from pbm.mail.ingest import Context, ingest
from pbm.cr.resolve import count_missed_turns
from pbm.mail.policy import set_deadline
from pbm.pipeline.gather import orders_for_turn
from pbm.models import Game, InboundMessage, OrderSet, OutboxMessage, Player
from tests.mail.game import sheet
from tests.mail.helpers import mk, reply_for

T0 = datetime(2030, 1, 1, 10, 0)


def _ctx(**kw) -> Context:
    return Context(sender="orders@pbm.example", now=kw.pop("now", T0), **kw)


def test_accepted_sheet_is_answered_and_used(db_url, game):
    with session_scope(db_url) as s:
        body = "Hello!\n" + sheet(s, game.game_id, 1, "BORROW: 1000\nSTOCK 1: BUY 500 ERIE\nB&O DIVIDEND: 120\n"
                                                      "PC VA2: merge B&O\nB&O CAPITAL: 10\n")
        out = ingest(s, mk(body, msgid="<m1@x>"), _ctx())
        assert (out.status, out.player, out.problems, out.replied_to) == ("accepted", 1, 2, ["ada@example.org"])
        msg, text = reply_for(s, out.inbound_id)
        assert msg["To"] == "ada@example.org" and msg["In-Reply-To"] == "<m1@x>"
        assert msg["Auto-Submitted"] == "auto-replied" and msg["X-Loop"] == "pbm-turn-processor"
        assert "ACCEPTED" in text and "Receipt: " in text
        assert ("  BORROW: 1000\n  PC VA2: MERGE B&O\n  STOCK 1: BUY 121 ERIE\n  B&O CAPITAL: 10\n"
                "  B&O DIVIDEND: 99\n") in text
        assert "[ADJUSTED] line 8, stock buy ERIE: 500 shares is more than your maximum bid; lowered to 121" in text
        assert "[ADJUSTED] line 9, B&O dividend: $120 per share is over the maximum; lowered to $99 (§4.12)" in text
        assert "standing: control: unchanged (§10.1D); ERIE dividend: unchanged (§10.2H)\n" in text
        g = s.get(Game, game.game_id)
        plan = orders_for_turn(s, g)
        orders, source = plan[1]
        assert source == "email" and orders.borrow == 1000 and orders.stock[0].shares == 121
        assert plan[2] == (Orders(), "standing") and plan[7] == (Orders(), "computer")


def test_last_sheet_counts_by_arrival(db_url, game):
    with session_scope(db_url) as s:
        first = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 100\n")), _ctx())
        second = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 200\n")), _ctx())
        assert (first.status, second.status) == ("accepted", "accepted")
        _, text = reply_for(s, second.inbound_id)
        assert f"It replaces your earlier sheet(s): message #{first.seq}." in text
        statuses = [o.status for o in s.scalars(select(OrderSet).order_by(OrderSet.received_seq))]
        assert statuses == ["superseded", "accepted"]
        assert orders_for_turn(s, s.get(Game, game.game_id))[1][0].borrow == 200


def test_late_sheet_is_not_used_until_accepted(cli, game):
    cli("deadline", "2030-01-01 12:00")
    with session_scope(cli.url) as s:
        on_time = ingest(s, mk(sheet(s, game.game_id, 3, "BORROW: 1\n")), _ctx(now=datetime(2030, 1, 1, 11, 59)))
        late = ingest(s, mk(sheet(s, game.game_id, 3, "BORROW: 2\n")), _ctx(now=datetime(2030, 1, 1, 12, 1)))
        assert (on_time.status, late.status) == ("accepted", "late")
        msg, text = reply_for(s, late.inbound_id)
        assert "LATE — not used" in msg["Subject"] and "LATE — NOT USED" in text
        assert orders_for_turn(s, s.get(Game, game.game_id))[3][0].borrow == 1
    status = cli("status").stdout
    assert "Late sheets (not used; `pbm accept-late MESSAGE` to use one):" in status
    assert f"  #{late.seq} player 3 received 2030-01-01 12:01" in status
    result = cli("accept-late", str(late.seq))
    assert f"Message #{late.seq} of player 3: accepted." in result.stdout
    with session_scope(cli.url) as s:
        assert orders_for_turn(s, s.get(Game, game.game_id))[3][0].borrow == 2
        notice = s.scalar(select(OutboxMessage).where(OutboxMessage.key.startswith("accept-late:")))
        assert b"has accepted your late sheet" in notice.raw
    result = cli("accept-late", str(late.seq), expect=2)
    assert "is not a late sheet" in result.stderr
    result = cli("accept-late", "cr-test", "999", expect=2)
    assert "no stored message '999'" in result.stderr


def test_forged_from_gets_a_copy_but_never_authenticates(db_url, game):
    with session_scope(db_url) as s:
        ok = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n"), sender="mallory@evil.example"), _ctx())
        assert ok.status == "accepted" and ok.replied_to == ["ada@example.org", "mallory@evil.example"]
        bad = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 6\n", secret="GUESS-GUESS"),
                           sender="Ada <ada@example.org>"), _ctx())
        assert bad.status == "rejected" and bad.replied_to == ["ada@example.org"]
        forged = ingest(s, mk(sheet(s, game.game_id, 2, "BORROW: 6\n", secret="GUESS"),
                              sender="mallory@evil.example"), _ctx())
        assert forged.replied_to == ["mallory@evil.example"]  # the player on file is not bothered
        assert orders_for_turn(s, s.get(Game, game.game_id))[1][0].borrow == 5


def test_redelivery_is_applied_once(db_url, game):
    with session_scope(db_url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"), msgid="<same@x>")
        first = ingest(s, raw, _ctx())
        again = ingest(s, raw, _ctx())
        relayed = ingest(s, b"Received: from relay2 by mx\r\n" + raw, _ctx())
        assert (first.status, again.status, relayed.status) == ("accepted", "duplicate", "duplicate")
        assert "redelivery of message #1" in relayed.reason
        assert len(s.scalars(select(OrderSet)).all()) == 1
        assert len(s.scalars(select(OutboxMessage)).all()) == 1
        assert len(s.scalars(select(InboundMessage)).all()) == 2  # both stored, raw, nothing lost


def test_mailbox_for_one_game_refuses_others(db_url, game):
    from tests.mail.game import build_game

    with session_scope(db_url) as s:
        other = build_game(s, name="cr-other")
        mine = s.get(Game, game.game_id)
        out = ingest(s, mk(sheet(s, other.game_id, 1, "BORROW: 5\n")), _ctx(game=mine))
        assert out.status == "rejected"
        assert "your sheet is for game cr-other, but this address takes sheets for game cr-test" in out.reason


def test_cli_ingest_status_remind(cli, game, tmp_path):
    folder = tmp_path / "eml"
    folder.mkdir()
    with session_scope(cli.url) as s:
        (folder / "1.eml").write_bytes(mk(sheet(s, game.game_id, 1, "BORROW: 5\nfoo\n")))
        (folder / "2.eml").write_bytes(mk("no sheet here", sender="carl@example.org"))
        (folder / "3.eml").write_bytes(mk("x", sender="MAILER-DAEMON@mx.example"))
    result = cli("ingest", "--eml-dir", str(folder), "--at", "2030-01-01 10:00")
    assert "#1 player 1 accepted (1 problem(s))" in result.stdout
    assert "#2 rejected: no turnsheet found in the message" in result.stdout
    assert "#3 ignored: a delivery report (bounce); stored, not answered" in result.stdout
    assert "3 message(s): 1 accepted, 1 ignored, 1 rejected." in result.stdout
    # a folder read again: nothing is listed again (issue 18, item 13); --all reads it all again
    assert cli("ingest", "--eml-dir", str(folder)).stdout == \
        "No new message; 3 read before, not read again (--all reads them again).\n"
    assert "3 message(s): 3 duplicate." in cli("ingest", "--eml-dir", str(folder), "--all").stdout
    status = cli("status").stdout
    assert "   1  Countess <of> Rails & Co ada@example.org            #1      2030-01-01 10:00     1" in status
    assert "   2  Jay Gould                ike@example.org            NONE" in status
    assert "1 of 3 human player(s) have orders in; 12 seat(s) played by the computer." in status
    assert "Messages: 1 accepted, 1 ignored, 1 rejected" in status
    result = cli("remind")
    assert "Reminders queued for player(s) 2, 3." in result.stdout
    cli("remind")
    with session_scope(cli.url) as s:
        reminders = s.scalars(select(OutboxMessage).where(OutboxMessage.kind == "reminder")).all()
        assert len(reminders) == 2  # once per player and day
        assert b"standing orders apply" in reminders[0].raw
    result = cli("ingest", expect=2)
    assert "name one source" in result.stderr
    result = cli("ingest", "--maildir", str(tmp_path / "nope"), expect=2)
    assert "not a Maildir" in result.stderr


def test_cli_maildir_and_mbox(cli, game, tmp_path):
    import mailbox

    with session_scope(cli.url) as s:
        raw1 = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"))
        raw2 = mk(sheet(s, game.game_id, 2, "BORROW: 6\n"), sender="ike@example.org")
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    md.add(raw1)
    box = mailbox.mbox(str(tmp_path / "in.mbox"))
    box.add(raw2)
    box.flush()
    box.close()
    assert "1 message(s): 1 accepted." in cli("ingest", "--maildir", str(tmp_path / "Maildir")).stdout
    assert "No new message; 1 read before" in cli("ingest", "--maildir", str(tmp_path / "Maildir")).stdout
    assert "1 message(s): 1 duplicate." in cli("ingest", "--maildir", str(tmp_path / "Maildir"), "--all").stdout
    md.add(mk("no sheet here", sender="zed@example.org"))
    out = cli("ingest", "--maildir", str(tmp_path / "Maildir")).stdout
    assert "1 message(s): 1 rejected. 1 read before, not read again" in out and "duplicate" not in out
    assert "1 message(s): 1 accepted." in cli("ingest", "cr-test", "--mbox", str(tmp_path / "in.mbox")).stdout


def test_deadline_command(cli, game):
    result = cli("deadline", "cr-test", "2030-02-03T18:00+01:00", "--missed-limit", "3")
    assert "deadline 2030-02-03 17:00 UTC; the computer takes a seat after 3 missed turn(s)" in result.stdout
    assert "deadline none" in cli("deadline", "none").stdout
    assert "is not a date and time" in cli("deadline", "friday", expect=2).stderr


def _count(s, g):
    """What run_turn does after resolving: count missed turns of human seats."""
    count_missed_turns(s, g)
    return {p.number: p.missed_turns for p in g.players if p.human}


def test_missed_turns_hand_the_seat_to_the_computer_and_back(db_url, game):
    """§3.1 and ruling M3: after 2 missed turns the computer plays the seat until the player returns."""
    with session_scope(db_url) as s:
        g = s.get(Game, game.game_id)
        ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n")), _ctx())
        assert _count(s, g) == {1: 0, 2: 1, 3: 1}
        g.turn += 1
        assert orders_for_turn(s, g)[2][1] == "standing"
        _count(s, g)
        g.turn += 1
        plan = orders_for_turn(s, g)
        assert plan[2][1] == "computer" and plan[1][1] == "standing"  # player 1 missed only turn 4
        ingest(s, mk(sheet(s, game.game_id, 2, "BORROW: 7\n"), sender="ike@example.org"), _ctx())
        assert orders_for_turn(s, g)[2] == (Orders(borrow=7), "email")  # the player is back
        _count(s, g)
        assert s.scalar(select(Player).where(Player.game_id == g.id, Player.number == 2)).missed_turns == 0
        set_deadline(s, g, None)


def test_top_posted_orders_above_an_original_message_are_read(db_url, game):
    """Issue 18 item 4: an Outlook-style reply writes the orders above the quoted original sheet."""
    with session_scope(db_url) as s:
        original = sheet(s, game.game_id, 1, "BORROW:\nB&O DIVIDEND:\n")
        for sep in ("-----Original Message-----", "On Sun, 22 Nov 2026 at 17:21, pbm <orders@pbm.example> wrote:"):
            body = "BORROW: 1000\nB&O DIVIDEND: 20\n\nThanks, Ada\n\n" + sep + "\n" + original
            out = ingest(s, mk(body, msgid=f"<top{len(sep)}@x>"), _ctx())
            assert out.status == "accepted", out
            _, text = reply_for(s, out.inbound_id)
            assert "  BORROW: 1000\n" in text and "  B&O DIVIDEND: 20\n" in text
            assert "NO ORDERS WERE" not in text
            orders, source = orders_for_turn(s, s.get(Game, game.game_id))[1]
            assert orders.borrow == 1000 and source == "email"



def test_a_new_file_with_an_old_files_name_is_read(cli, game, tmp_path):
    """Nothing is lost (session 14): a folder of .eml files or an mbox whose names were seen before
    holds new mail when the moderator saves each week's mail under the same names (``1.eml`` in a new
    folder, a fresh ``in.mbox``); only the same bytes under the same name are 'read before'."""
    import mailbox

    with session_scope(cli.url) as s:
        raw1 = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"))
        raw2 = mk(sheet(s, game.game_id, 2, "BORROW: 6\n"), sender="ike@example.org")
    for week, raw in (("w1", raw1), ("w2", raw2)):
        (tmp_path / week).mkdir()
        (tmp_path / week / "1.eml").write_bytes(raw)
    assert "1 message(s): 1 accepted." in cli("ingest", "--eml-dir", str(tmp_path / "w1")).stdout
    assert "1 message(s): 1 accepted." in cli("ingest", "--eml-dir", str(tmp_path / "w2")).stdout
    assert "No new message; 1 read before" in cli("ingest", "--eml-dir", str(tmp_path / "w2")).stdout
    (tmp_path / "w3").mkdir()
    (tmp_path / "w3" / "1.eml").write_bytes(raw1)  # the same mail saved again under its name: read before
    (tmp_path / "w3" / "copy.eml").write_bytes(raw1)  # ... and under another name: one answer only
    assert "1 message(s): 1 duplicate. 1 read before" in cli("ingest", "--eml-dir", str(tmp_path / "w3")).stdout
    for n, raw in enumerate((mk("no sheet here", sender="zed@example.org"),
                             mk("nor here", sender="yan@example.org"))):
        path = tmp_path / "in.mbox"
        path.unlink(missing_ok=True)  # this week's mbox replaces last week's, under the same name
        box = mailbox.mbox(str(path))
        box.add(raw)
        box.flush()
        box.close()
        assert "1 message(s): 1 rejected." in cli("ingest", "--mbox", str(path)).stdout, n
    assert "No new message; 1 read before" in cli("ingest", "--mbox", str(tmp_path / "in.mbox")).stdout

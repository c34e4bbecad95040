"""Issue 18, items 8 and 9 on a real Continental Rails game: the moderator corrects a resolved turn
(orders entered by hand, a late sheet accepted after the turn ran), reruns it, and the players get
corrected reports — once per rerun; the computer taking a seat and handing it back is announced.
Round trips through real IMAP (Dovecot) and SMTP (aiosmtpd) on loopback, SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, LedgerEntry, OrderSet, Player
from tests.mail.dovecot import available
from tests.mail.helpers import mk
from tests.mail.test_moderator_issue18 import _mails
from tests.mail.test_play_issue18 import _deliver, servers  # noqa: F401 (the fixture)

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")


@pytest.fixture
def real(cli, players_csv, tmp_path):
    """A real game (the map, the engine) with three humans; returns their secrets and a sheet filler."""
    created = cli("new-game", "continental-rails", "--seed", "7", "--players", players_csv, "--name", "rr",
                  "--no-welcome").stdout
    secrets = dict(re.findall(r"#\s*(\d+) .*: (\S+)$", created, re.M))

    def filled(number: int, orders: dict[str, str]) -> str:
        out = tmp_path / f"sheets-{number}"
        cli("turnsheet", "rr", "--player", number, "--format", "text", "--out", out)
        text = (out / f"player-{number:02d}.txt").read_text(encoding="utf-8")
        text = text.replace("SECRET:", f"SECRET: {secrets[str(number)]}", 1)
        for key, value in orders.items():
            text = re.sub(rf"(?m)^{re.escape(key)}:", f"{key}: {value}", text, count=1)
        return text

    return secrets, filled


def _borrowed(url: str, number: int, turn: int) -> int:
    """What player ``number`` borrowed in ``turn`` (§3.5A; the ledger's loan entries to him)."""
    with session_scope(url) as s:
        rows = s.execute(select(LedgerEntry.amount, LedgerEntry.memo).where(
            LedgerEntry.target == f"player:{number}", LedgerEntry.turn == turn)).all()
    return sum(a for a, memo in rows if memo == "bank loan")


def test_orders_entered_for_a_resolved_turn_then_rerun_send_corrected_reports_once(cli, real, servers, tmp_path):
    imap, smtp, config = servers
    reports = tmp_path / "reports"
    cli("run-turn", "rr")
    sent = cli("send", "rr", "--turn", "1", "--reports", reports, "--config", config).stdout
    assert "Turn 1 of rr: 3 report mail(s) queued" in sent
    assert _borrowed(cli.url, 1, 1) == 0
    out = cli("orders", "set", "rr", "--player", "1", "--turn", "1", "--config", config,
              input="BORROW: 100\nSELL STOCK: lots\n").stdout
    assert out.startswith("Orders of player 1 for turn 1 of rr stored (they count: the last sheet counts).\n"
                          "ORDERS (as they will be read):\n  BORROW: 100\nPROBLEMS (1):\n  [NOT USED] line 2")
    assert out.endswith("Turn 1 is already resolved: `pbm rerun-turn rr 1` resolves it again with these orders "
                        "and queues the corrected reports.\n")
    rerun = cli("rerun-turn", "rr", "1", "--reports", reports, "--reason", "player 1's orders were lost").stdout
    assert "Rerun 1 of turn 1: 3 corrected report mail(s) queued (turn(s) 1); `pbm send-mail` sends them." in rerun
    assert _borrowed(cli.url, 1, 1) == 100  # the rerun used the moderator's orders
    smtp.messages.clear()
    cli("send-mail", "--config", config)
    mails = _mails(smtp)
    entered = [m for m in mails if "entered by the moderator" in m[1]]
    assert [(m[0], m[1]) for m in entered] == [(["ada@example.org"], "[rr] Turn 1: orders entered by the moderator")]
    assert "ORDERS (as they will be read):\n  BORROW: 100\n" in entered[0][2]
    assert "it will be resolved again with these orders, and you will get a corrected report" in entered[0][2]
    corrected = [m for m in mails if m[1].startswith("CORRECTED: ")]
    assert sorted(m[0][0] for m in corrected) == ["ada@example.org", "carl@example.org", "ike@example.org"]
    assert all(m[1].startswith("CORRECTED: [rr] Turn 1 report for #") for m in corrected)
    assert corrected[0][2].startswith("CORRECTION: turn 1 has been resolved again by the moderator (player 1's "
                                      "orders were lost). This report replaces the turn 1 report you received "
                                      "before.\n")
    smtp.messages.clear()
    cli("send-mail", "--config", config)  # the same rerun: nothing again
    assert cli("send", "rr", "--turn", "1", "--reports", reports, "--config", config).stdout.startswith(
        "Turn 1 of rr: 0 report mail(s) queued, 3 already queued before (not sent again).\n"
        "  3 corrected report mail(s) of turn 1 were queued by `pbm rerun-turn` (each rerun mails its corrections "
        "once)\n")
    assert smtp.messages == []
    again = cli("rerun-turn", "rr", "1", "--reports", reports).stdout  # a new rerun is a new correction
    assert "Rerun 2 of turn 1: 3 corrected report mail(s) queued" in again
    cli("send-mail", "--config", config)
    assert len(smtp.messages) == 3


def test_orders_set_refuses_what_it_cannot_use(cli, real, tmp_path):
    assert "turn 4 of rr has not started (turn 1 is being played)" in cli(
        "orders", "set", "rr", "--player", "1", "--turn", "4", input="BORROW: 1\n", expect=2).stderr
    assert "game rr has no player 16" in cli("orders", "set", "rr", "--player", "16", input="", expect=2).stderr
    assert ("the sheet's PLAYER line says 2, but you are entering orders for game rr, player 1, turn 1" in cli(
        "orders", "set", "rr", "--player", "1", input="GAME: rr\nPLAYER: 2\nTURN: 1\nBORROW: 5\n", expect=2).stderr)
    assert f"{tmp_path / 'nope.txt'}: no such file" in cli(
        "orders", "set", "rr", tmp_path / "nope.txt", "--player", "1", expect=2).stderr


def test_orders_set_for_the_current_turn_counts_over_a_mailed_sheet(cli, real, servers):
    imap, smtp, config = servers
    secrets, filled = real
    _deliver(imap, mk(filled(2, {"BORROW": "70"}), sender="ike@example.org"))
    assert "#1 player 2 accepted" in cli("ingest", "--imap").stdout
    cli("orders", "set", "rr", "--player", "2", "--no-mail", input="BORROW: 30\n")
    with session_scope(cli.url) as s:
        rows = [(o.source, o.status, o.orders.get("borrow")) for o in s.scalars(select(OrderSet).order_by(OrderSet.id))]
    assert rows == [("email", "superseded", 70), ("moderator", "accepted", 30)]
    cli("run-turn", "rr")
    assert _borrowed(cli.url, 2, 1) == 30


def test_a_late_sheet_accepted_after_the_turn_ran_counts_on_rerun(cli, real, servers, tmp_path):
    imap, smtp, config = servers
    secrets, filled = real
    cli("deadline", "rr", "2025-01-01 10:30", "--quiet")
    _deliver(imap, mk(filled(1, {"BORROW": "100"})))  # arrives 11:00: late
    assert "#1 player 1 late" in cli("ingest", "--imap").stdout
    cli("run-turn", "rr")
    assert _borrowed(cli.url, 1, 1) == 0
    out = cli("accept-late", "rr", "1", "--config", config).stdout
    assert out == ("Message #1 of player 1: accepted.\nTurn 1 is already resolved: `pbm rerun-turn rr 1` resolves it "
                   "again with this sheet and queues the corrected reports.\n")
    assert "3 corrected report mail(s) queued" in cli("rerun-turn", "rr", "1", "--reports", tmp_path / "r").stdout
    assert _borrowed(cli.url, 1, 1) == 100
    cli("send-mail", "--config", config)
    mails = _mails(smtp)
    [accepted] = [m for m in mails if "late sheet accepted" in m[1]]
    assert accepted[:2] == (["ada@example.org"], "[rr] Turn 1: late sheet accepted")
    assert ("It counts: it will be resolved as shown in its receipt" in accepted[2]
            and "Turn 1 has already been resolved: it will be resolved again with your sheet, and you will get a "
                "corrected report." in accepted[2])
    assert len([m for m in mails if m[1].startswith("CORRECTED: ")]) == 3


def test_the_computer_taking_a_seat_and_handing_it_back_is_announced(cli, real, servers, tmp_path):
    imap, smtp, config = servers
    secrets, filled = real
    reports = tmp_path / "reports"
    cli("deadline", "rr", "--missed-limit", "1", "--quiet")
    _deliver(imap, mk(filled(1, {"BORROW": "10"})))
    cli("ingest", "--imap")
    cli("run-turn", "rr")  # players 2 and 3 sent nothing: the computer takes their seats (limit 1)
    out = cli("send", "rr", "--turn", "1", "--reports", reports, "--config", config).stdout
    assert "told player 2: the computer plays your position" in out
    assert "told player 3: the computer plays your position" in out and "told player 1" not in out
    _deliver(imap, mk(filled(2, {"BORROW": "20"}), sender="ike@example.org"))
    assert "player 2 accepted" in cli("ingest", "--imap").stdout
    cli("run-turn", "rr")
    out = cli("send", "rr", "--turn", "2", "--reports", reports, "--config", config).stdout
    assert "told player 2: your seat is yours again" in out and "player 3" not in out.split("Delivery")[0]
    assert "told player 1: the computer plays your position" in out  # Ada sent nothing for turn 2
    assert "told" not in cli("send", "rr", "--turn", "2", "--reports", reports, "--config", config).stdout  # once
    mails = _mails(smtp)
    taken = [m for m in mails if "computer plays your position" in m[1]]
    assert [(m[0], m[1]) for m in taken] == [(["ike@example.org"], "[rr] Turn 2: the computer plays your position"),
                                             (["carl@example.org"], "[rr] Turn 2: the computer plays your position"),
                                             (["ada@example.org"], "[rr] Turn 3: the computer plays your position")]
    assert ("We received no sheet from you for 1 turn(s) in a row (up to turn 1). From turn 2 the computer plays "
            "your position in game rr (§3.1)") in taken[0][2]
    [back] = [m for m in mails if "yours again" in m[1]]
    assert back[:2] == (["ike@example.org"], "[rr] Turn 3: your seat is yours again")


def test_a_late_sheet_accepted_for_a_seat_the_computer_played_replaces_the_computers_orders(cli, real, servers,
                                                                                            tmp_path):
    imap, smtp, config = servers
    secrets, filled = real
    cli("deadline", "rr", "--missed-limit", "1", "--quiet")
    cli("run-turn", "rr")  # nobody sent a sheet: the computer plays every human seat in turn 2
    cli("deadline", "rr", "2025-01-01 10:30", "--quiet")
    _deliver(imap, mk(filled(2, {"BORROW": "60"}), sender="ike@example.org"))  # arrives 11:00: late
    assert "#1 player 2 late" in cli("ingest", "--imap").stdout
    cli("run-turn", "rr")
    with session_scope(cli.url) as s:
        ike = s.scalar(select(Player).where(Player.number == 2)).id
        assert [(o.source, o.status) for o in s.scalars(select(OrderSet).where(
            OrderSet.turn == 2, OrderSet.player_id == ike).order_by(OrderSet.id))] == [
            ("email", "late"), ("computer", "accepted")]
    cli("accept-late", "rr", "1")
    cli("rerun-turn", "rr", "2", "--no-mail")
    with session_scope(cli.url) as s:
        assert [(o.source, o.status) for o in s.scalars(select(OrderSet).where(
            OrderSet.turn == 2, OrderSet.player_id == ike).order_by(OrderSet.id))] == [
            ("email", "accepted"), ("computer", "superseded")]
    assert _borrowed(cli.url, 2, 2) == 60

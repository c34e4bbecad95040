"""Issue 18, items 8-10: the moderator's side of email play, as round trips through real IMAP (Dovecot)
and SMTP (aiosmtpd) on loopback: a message in or a command run, the exact answer out, the state after."""

from __future__ import annotations

import email
import email.policy
from datetime import datetime

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, InboundMessage, OrderSet, OutboxMessage, Player
from tests.mail.dovecot import available
from tests.mail.game import EMAILS, SECRETS, sheet
from tests.mail.helpers import mk
from tests.mail.test_play_issue18 import _deliver, servers  # noqa: F401 (the fixture)

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")


def _mails(smtp) -> list[tuple[list[str], str, str]]:
    """(recipients, subject, text body) of every message the SMTP server received, in order."""
    out = []
    for m in smtp.messages:
        msg = email.message_from_bytes(m.data, policy=email.policy.default)
        body = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
        out.append((sorted(m.rcpt_tos), str(msg["Subject"]), body))
    return out


def _status(url: str, game_id: int) -> list[tuple[int, str, str]]:
    with session_scope(url) as s:
        numbers = {p.id: p.number for p in s.scalars(select(Player).where(Player.game_id == game_id))}
        return [(numbers[o.player_id], o.source, o.status) for o in
                s.scalars(select(OrderSet).where(OrderSet.game_id == game_id).order_by(OrderSet.id))]


# -- item 8: a grace period after the deadline ----------------------------------------------------------

def test_a_sheet_in_the_grace_period_counts_and_its_receipt_says_so(cli, game, servers):
    imap, smtp, config = servers
    out = cli("deadline", "2025-01-01 10:30", "--grace", "1h", "--config", config).stdout
    assert "deadline 2025-01-01 10:30 UTC, grace 1h (sheets count until 2025-01-01 11:30 UTC)" in out
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 50\n")))  # arrives 11:00: after 10:30, in the grace
    assert "#1 player 1 accepted" in cli("ingest", "--imap").stdout
    cli("send-mail", "--config", config)
    receipt = [m for m in _mails(smtp) if "Receipt" in m[1]]
    assert len(receipt) == 1
    assert ("It arrived after the deadline, in the grace period (until 2025-01-01 11:30 UTC): it counts as on "
            "time.") in receipt[0][2]
    assert _status(cli.url, game.game_id) == [(1, "email", "accepted")]


def test_without_grace_the_same_sheet_is_late(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 10:30", "--quiet")
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 50\n")))
    assert "#1 player 1 late" in cli("ingest", "--imap").stdout
    assert _status(cli.url, game.game_id) == [(1, "email", "late")]


def test_bad_grace_is_answered_with_what_is_allowed(cli, game):
    result = cli("deadline", "--grace", "two hours", expect=2)
    assert "'two hours' is not a grace period; write e.g. 2h, 90m, 1d or 1h30m (0 for none)" in result.output


# -- item 9: announcements --------------------------------------------------------------------------------

def test_a_deadline_change_is_mailed_to_every_human_seat_once(cli, game, servers):
    imap, smtp, config = servers
    assert "mailed" not in cli("deadline", "2025-01-04 18:00", "--config", config).stdout  # the first: not a change
    out = cli("deadline", "2025-01-05 18:00", "--config", config).stdout
    assert "Deadline change mailed to player(s) 1, 2, 3" in out
    again = cli("deadline", "2025-01-05 18:00", "--config", config).stdout  # unchanged: nobody is told again
    assert "mailed" not in again
    cli("send-mail", "--config", config)
    mails = _mails(smtp)
    assert sorted(m[0][0] for m in mails) == sorted(EMAILS.values())
    to, subject, body = next(m for m in mails if m[0] == ["ada@example.org"])
    assert subject == "[cr-test] Turn 3: deadline changed"
    assert "New deadline: Sunday 05 January 2025 18:00 UTC\nIt was: Saturday 04 January 2025 18:00 UTC" in body
    assert "We have no sheet from you for this turn yet." in body


def test_an_extension_lets_a_late_sheet_count_and_its_player_is_told(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 10:30", "--quiet")
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 2, "BORROW: 40\n"), sender="ike.other@example.net"))
    assert "#1 player 2 late" in cli("ingest", "--imap").stdout
    out = cli("deadline", "2025-01-01 12:00", "--config", config).stdout
    assert "Late sheet #1 of player 2 now counts (the player is told)." in out
    assert _status(cli.url, game.game_id) == [(2, "email", "accepted")]
    cli("send-mail", "--config", config)
    counts = [m for m in _mails(smtp) if "now counts" in m[1]]
    assert [(m[0], m[1]) for m in counts] == [(["ike@example.org"], "[cr-test] Turn 3: your late sheet now counts")]
    assert "Your sheet (message #1), which arrived late, NOW COUNTS" in counts[0][2]
    with session_scope(cli.url) as s:
        assert s.scalar(select(InboundMessage.status)) == "accepted"
    assert "now counts" not in cli("deadline", "2025-01-01 12:00", "--config", config).stdout  # once


# -- item 10: welcome, reset, a secret chosen by mail ----------------------------------------------------------

def _secret_in(body: str, label: str) -> str:
    line = next(ln for ln in body.splitlines() if ln.startswith(label))
    return line.split(":", 1)[1].strip()


def test_a_new_game_with_a_players_file_mails_each_player_a_welcome_with_his_secret(cli, players_csv, servers):
    imap, smtp, config = servers
    out = cli("new-game", "continental-rails", "--players", players_csv, "--name", "w", "--config", config).stdout
    assert "Welcome mail with the secret queued for player(s) 1, 2, 3; `pbm send-mail` sends it." in out
    printed = dict(__import__("re").findall(r"#\s*(\d+) .*: (\S+)$", out, __import__("re").M))
    cli("send-mail", "--config", config)
    mails = _mails(smtp)
    assert [(m[0], m[1]) for m in mails] == [
        (["ada@example.org"], "[w] Welcome, player 1: your secret"),
        (["ike@example.org"], "[w] Welcome, player 2: your secret"),
        (["carl@example.org"], "[w] Welcome, player 3: your secret")]
    for number, (_, _, body) in enumerate(mails, start=1):
        assert _secret_in(body, "Your secret:") == printed[str(number)]
        assert "NEW SECRET: (the secret you choose)" in body
    cli("send-mail", "--config", config)
    assert len(smtp.messages) == 3  # once
    with session_scope(cli.url) as s:  # once delivered, pbm keeps no copy of a secret, only its hash
        raws = list(s.scalars(select(OutboxMessage.raw)))
        assert len(raws) == 3 and all(b"X-PBM-Scrubbed" in r for r in raws)
        assert not any(secret.replace("-", "").encode() in r.replace(b"-", b"") for r in raws
                       for secret in printed.values())


def test_no_welcome_when_asked(cli, players_csv):
    out = cli("new-game", "continental-rails", "--players", players_csv, "--name", "w", "--no-welcome").stdout
    assert "Welcome mail" not in out
    with session_scope(cli.url) as s:
        assert s.scalar(select(OutboxMessage.id)) is None


def test_the_moderator_resets_a_secret_mailed_to_the_address_on_file(cli, game, servers):
    imap, smtp, config = servers
    out = cli("secret", "reset", "cr-test", "--player", "2", "--config", config).stdout
    assert out == ("Player 2 of cr-test: new secret set; the old one no longer works.\n"
                   "Mailed to ike@example.org (the address on file); `pbm send-mail` sends it.\n")
    cli("send-mail", "--config", config)
    [(to, subject, body)] = _mails(smtp)
    assert (to, subject) == (["ike@example.org"], "[cr-test] Player 2: your new secret")
    new = _secret_in(body, "Your new secret:")
    cli("deadline", "2025-01-01 12:00", "--quiet")
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 2, "BORROW: 10\n"), sender="ike@example.org"))  # the old secret
        _deliver(imap, mk(sheet(s, game.game_id, 2, "BORROW: 20\n", secret=new), sender="ike@example.org"))
    out = cli("ingest", "--imap").stdout
    assert "#1 player 2 rejected: the secret does not match player 2's secret" in out
    assert "#2 player 2 accepted" in out


def test_reset_of_a_computer_seat_is_refused(cli, game):
    assert "player 7 of cr-test is a computer seat: it has no secret" in cli(
        "secret", "reset", "--player", "7", expect=2).output


def _change(s, game_id: int, player: int, new: str, *, secret: str | None = None, code: str | None = None) -> bytes:
    from tests.mail.game import code_for

    body = (f"Hello,\n\nGAME: cr-test\nPLAYER: {player}\nCODE: {code or code_for(s, game_id, player)}\n"
            f"SECRET: {SECRETS[player] if secret is None else secret}\nNEW SECRET: {new}\n\nAda\n")
    return mk(body, subject="new secret")


def test_a_player_chooses_his_secret_by_mail(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00", "--quiet")
    with session_scope(cli.url) as s:
        _deliver(imap, _change(s, game.game_id, 1, "rail baron 1848"))
    assert "#1 player 1 secret changed: the player chose a new secret" in cli("ingest", "--imap").stdout
    cli("send-mail", "--config", config)
    [(to, subject, body)] = _mails(smtp)
    assert (to, subject) == (["ada@example.org"], "[cr-test] Player 1: secret changed")
    assert "From now on write your new secret (13 letters and digits; we do not repeat it here)" in body
    assert "RAILBARON" not in body.upper().replace("RAILS", "")
    with session_scope(cli.url) as s:
        stored = s.scalar(select(InboundMessage.raw))
        assert b"1848" not in stored and SECRETS[1].encode() not in stored  # neither secret kept
        hashed = s.scalar(select(Player.secret_hash).where(Player.number == 1))
        assert hashed.startswith("pbkdf2$") and "RAILBARON" not in hashed
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 10\n")))  # the old secret
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 20\n", secret="Rail-Baron 1848")))
    out = cli("ingest", "--imap").stdout
    assert "#2 player 1 rejected: the secret does not match" in out and "#3 player 1 accepted" in out


@pytest.mark.parametrize("kwargs, new, reason", [
    ({"secret": "WRONG-WRONG-1"}, "rail baron 1848",
     "secret change refused: the SECRET line does not hold player 1's current secret (only letters and digits "
     "count); your secret is unchanged"),
    ({"code": "ZZZZZZ"}, "rail baron 1848",
     "secret change refused: the code ZZZZZZ is not player 1's code for turn 3 (the turn being played): copy it "
     "from your latest turnsheet"),
    ({}, "short 1",
     "secret change refused: the NEW SECRET has 6 letters and digits; a secret needs 10 to 40 (spaces and "
     "punctuation do not count, case does not matter); your secret is unchanged"),
])
def test_a_bad_secret_change_is_refused_saying_why(cli, game, servers, kwargs, new, reason):
    imap, smtp, config = servers
    with session_scope(cli.url) as s:
        _deliver(imap, _change(s, game.game_id, 1, new, **kwargs))
    assert f"#1 rejected: {reason}" in cli("ingest", "--imap").stdout
    cli("send-mail", "--config", config)
    [(to, subject, body)] = _mails(smtp)
    assert to == ["ada@example.org"] and "Not accepted" in subject and f"Why: {reason}" in body
    with session_scope(cli.url) as s:
        from pbm.auth import check_secret

        assert check_secret(SECRETS[1], s.scalar(select(Player.secret_hash).where(Player.number == 1)))


# -- item 9: reminders on a schedule, run by pbm cycle --------------------------------------------------------

def test_reminders_on_a_schedule_go_once_per_point_to_players_without_a_sheet(cli, game, servers):
    imap, smtp, config = servers
    out = cli("deadline", "2025-01-05 18:00", "--remind", "48h,12h", "--quiet").stdout
    assert "reminders before it: 2d, 12h" in out

    def cycle(clock: str) -> str:
        return cli("cycle", "--clock", clock, "--config", config).stdout

    assert "reminder" not in cycle("2025-01-02T12:00:00")  # before the first point
    assert "cr-test: turn 3: reminder 2d before the deadline queued for player(s) 1, 2, 3" in cycle(
        "2025-01-04T00:00:00")
    assert "reminder" not in cycle("2025-01-04T01:00:00")  # the same point: nothing new
    assert len(smtp.messages) == 3
    with session_scope(cli.url) as s:
        _deliver(imap, mk(sheet(s, game.game_id, 1, "BORROW: 10\n")))  # arrives 2025-01-01 11:00
    cli("ingest", "--imap")
    assert "reminder 12h before the deadline queued for player(s) 2, 3" in cycle("2025-01-05T07:00:00")
    assert "reminder" not in cycle("2025-01-05T08:00:00")
    reminders = [m for m in _mails(smtp) if "Reminder" in m[1]]
    assert [m[0][0] for m in reminders] == ["ada@example.org", "ike@example.org", "carl@example.org",
                                            "ike@example.org", "carl@example.org"]
    assert all(m[1] == "[cr-test] Reminder: turn 3 orders" for m in reminders)
    assert "Deadline: 2025-01-05 18:00 UTC (this reminder is sent 2 days before it)." in reminders[0][2]
    assert "Deadline: 2025-01-05 18:00 UTC (this reminder is sent 12 hours before it)." in reminders[3][2]


def test_a_point_missed_by_the_cycle_is_not_sent_late(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-05 18:00", "--remind", "48h,12h", "--quiet")
    # the cycle did not run between the two points: only the nearer one goes, once
    assert "reminder 12h before" in cli("cycle", "--clock", "2025-01-05T10:00:00", "--config", config).stdout
    assert "reminder" not in cli("cycle", "--clock", "2025-01-05T11:00:00", "--config", config).stdout
    assert len(smtp.messages) == 3


def test_an_18xx_game_welcomes_its_players_and_takes_a_chosen_secret_without_a_code(cli, players_csv, servers):
    import re

    imap, smtp, config = servers
    out = cli("new-game", "18GA", "--players", players_csv, "--name", "ga", "--config", config).stdout
    assert "Welcome mail with the secret queued for player(s) 1, 2, 3" in out
    printed = dict(re.findall(r"#(\d+) .*: (\S+)$", out, re.M))
    cli("send-mail", "--config", config)
    mails = _mails(smtp)
    welcome = [m for m in mails if "Welcome" in m[1]]
    assert [m[1] for m in welcome] == [f"[ga] Welcome, player {n}: your secret" for n in (1, 2, 3)]
    assert mails[:3] == welcome and len(mails) == 6  # then the game-started mails (item 11)
    assert "Welcome to 18GA game ga" in welcome[0][2] and _secret_in(welcome[0][2], "Your secret:") == printed["1"]
    assert "CODE:" not in welcome[0][2]
    _deliver(imap, mk(f"GAME: ga\nPLAYER: 2\nSECRET: {printed['2']}\nNEW SECRET: peach state 1873\n",
                      sender="ike@example.org"))
    assert "#1 player 2 secret changed" in cli("ingest", "--imap").stdout
    with session_scope(cli.url) as s:
        from pbm.auth import check_secret

        hashed = s.scalar(select(Player.secret_hash).join(Game).where(Game.name == "ga", Player.number == 2))
        assert check_secret("PEACHSTATE1873", hashed) and not check_secret(printed["2"], hashed)

"""Issue 18 items 5 and 7: replies people actually write, and refusals, as round trips through real
IMAP (Dovecot) and SMTP (aiosmtpd) on loopback: the message in, the exact answer out, the state after."""

from __future__ import annotations

import email
import email.policy
import re

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, InboundMessage, OrderSet
from tests.mail.dovecot import available
from tests.mail.game import SECRETS, code_for, sheet
from tests.mail.helpers import mk
from tests.mail.test_play_issue18 import _deliver, _orders, servers  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")

MODERATOR = "Mo Derator <mo@pbm.example>"
CONTACT = ("Questions: write to the moderator at Mo Derator <mo@pbm.example> (replies to this address are read "
           "by a program).")


@pytest.fixture
def moderated(monkeypatch):
    monkeypatch.setenv("PBM_MODERATOR", MODERATOR)


def _answers(smtp) -> list[tuple[str, str, list[str]]]:
    out = []
    for m in smtp.messages:
        msg = email.message_from_bytes(m.data, policy=email.policy.default)
        out.append((str(msg["Subject"]).strip(), msg.get_body(("plain",)).get_content().replace("\r\n", "\n"),
                    list(m.rcpt_tos)))
    return out


def _round_trip(cli, imap, smtp, config, raw: bytes) -> tuple[str, str, list[str]]:
    _deliver(imap, raw)
    cli("ingest", "--imap")
    cli("send-mail", "--config", str(config))
    [answer] = _answers(smtp)
    return answer


def _problems(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("  [")]


# -- item 5: Continental Rails sheets -------------------------------------------------------------------

def test_sign_off_name_and_quoted_original_are_ignored_text_not_problems(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        original = sheet(s, game.game_id, 1, "BORROW:\n", secret="")
        body = sheet(s, game.game_id, 1, "BORROW: 50\n\nThanks,\nAda\n\n"
                     "On Sun, 22 Nov 2026 at 17:21, pbm <moderator@pbm.example> wrote:\n"
                     + "".join("> " + ln + "\n" for ln in original.splitlines()))
    subject, text, _ = _round_trip(cli, imap, smtp, config, mk(body))
    assert subject == "[cr-test] Turn 3 player 1: Receipt"
    assert "No problems found." in text and _problems(text) == []
    assert 'IGNORED TEXT (lines 8-9, after your orders, not read as orders): "Thanks, / Ada"' in text
    assert text.count("IGNORED TEXT") == 1
    [orders] = _orders(cli.url, game.game_id)
    assert orders.status == "accepted" and orders.orders["borrow"] == 50 and orders.problems == []


def test_lines_pasted_from_the_report_pdf_are_ignored_text(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    pasted = ("Player 1  Countess <of> Rails & Co   Cash $2,000   Net worth $3,929\n"
              "Game cr-test  Turn 3  1843\n"
              "B&O  Baltimore & Ohio  90 shares  $14.00  dividend $2\n")
    with session_scope(cli.url) as s:
        body = "Hi, here are my orders.\n\n" + sheet(s, game.game_id, 1, "REPAY: 100\n\n" + pasted)
    subject, text, _ = _round_trip(cli, imap, smtp, config, mk(body))
    assert subject == "[cr-test] Turn 3 player 1: Receipt"
    assert _problems(text) == [], text
    assert ('IGNORED TEXT (lines 10-12, after your orders, not read as orders): "Player 1 Countess <of> Rails '
            '& Co Cash $2,000 Net worth ... / Game cr-test Turn 3 1843 ..."') in text
    assert _orders(cli.url, game.game_id)[-1].orders["repay"] == 100


def test_a_mistyped_order_in_the_order_block_is_still_a_problem(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        body = sheet(s, game.game_id, 1, "BORROW: 50\nBORROWW 60\n\nREPAYY: 10\n\nThanks, Ada\n")
    subject, text, _ = _round_trip(cli, imap, smtp, config, mk(body))
    assert subject == "[cr-test] Turn 3 player 1: Receipt"
    assert _problems(text) == [
        "  [NOT USED] line 7, sheet: not an order line: 'BORROWW 60' (did you mean BORROW?) — allowed: "
        "NAME: value, or a comment starting with #",
        "  [NOT USED] line 9, sheet: unknown order 'REPAYY' — allowed: the order names printed on the sheet "
        "(e.g. BORROW, STOCK 1, B&O BUILD)"]
    assert 'IGNORED TEXT (line 11, after your orders, not read as orders): "Thanks, Ada"' in text
    assert len(_orders(cli.url, game.game_id)[-1].problems) == 2


def test_an_html_only_reply_with_an_html_signature_and_quote(cli, game, servers):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        g = s.get(Game, game.game_id)
        code = code_for(s, game.game_id, 1)
        name = g.name
    html = (f'<div dir="ltr"><div>GAME: {name}</div><div>PLAYER: 1</div><div>TURN: 3</div><div>CODE: {code}</div>'
            f'<div>SECRET: {SECRETS[1]}</div><div>BORROW: 40</div><div><br></div><div>Thanks,</div><div>Ada</div>'
            '<div><br></div>-- <br><div dir="ltr" class="gmail_signature"><div><b>Ada Lovelace</b></div>'
            '<div>Analytical Engines Ltd | +44 20 7946 0000</div></div></div><br><div class="gmail_quote">'
            '<div dir="ltr" class="gmail_attr">On Sun, 22 Nov 2026 at 17:21, pbm &lt;moderator@pbm.example&gt; '
            'wrote:<br></div><blockquote class="gmail_quote"><div>GAME: cr-test</div><div>CASH: $2,000</div>'
            '<div>BORROW:</div></blockquote></div>')
    subject, text, _ = _round_trip(cli, imap, smtp, config, mk(None, html=html))
    assert subject == "[cr-test] Turn 3 player 1: Receipt"
    assert _problems(text) == [] and "No problems found." in text
    assert "(sheet read from: HTML body)" in text
    assert 'IGNORED TEXT (lines 8-9, after your orders, not read as orders): "Thanks, / Ada"' in text
    assert _orders(cli.url, game.game_id)[-1].orders["borrow"] == 40


# -- item 7: refusals ----------------------------------------------------------------------------------

def test_a_wrong_code_is_refused_in_whole_words_with_the_valid_code_and_the_moderator(cli, game, servers,
                                                                                       moderated):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        body = sheet(s, game.game_id, 1, "BORROW: 50\n", code="ZZZZZZ")
        mine = code_for(s, game.game_id, 1)
        past = code_for(s, game.game_id, 1, turn=2)
        others = [code_for(s, game.game_id, n) for n in (2, 3, 4)]
    subject, text, rcpt = _round_trip(cli, imap, smtp, config, mk(body))
    assert subject == "[pbm] Not accepted: your message #1 (wrong turn code)"
    assert rcpt == ["ada@example.org"]
    assert (f"Why: the code ZZZZZZ is not player 1's code for turn 3. Valid codes: only one, {mine} (your code "
            "for turn 3, the turn being played; codes of other turns and other players' codes are not accepted). "
            "A code is six letters and digits, printed after CODE: on your turn sheet and in your last receipt"
            ) in text
    assert CONTACT in text
    assert past not in text and not any(c in text for c in others)  # nobody else's code, no stale one
    assert _orders(cli.url, game.game_id) == []
    with session_scope(cli.url) as s:
        assert s.scalar(select(InboundMessage.status)) == "rejected"


def test_a_wrong_secret_never_shows_a_code(cli, game, servers, moderated):
    imap, smtp, config = servers
    cli("deadline", "2025-01-01 12:00")
    with session_scope(cli.url) as s:
        body = sheet(s, game.game_id, 1, "BORROW: 50\n", secret="WRONG-SECRET", code="ZZZZZZ")
        mine = code_for(s, game.game_id, 1)
    subject, text, _ = _round_trip(cli, imap, smtp, config, mk(body))
    assert subject == "[pbm] Not accepted: your message #1 (wrong secret)"
    assert mine not in text and CONTACT in text
    assert _orders(cli.url, game.game_id) == []


def test_a_mail_without_a_sheet_and_a_stranger_get_whole_word_subjects_and_the_moderator(cli, game, servers,
                                                                                         moderated):
    imap, smtp, config = servers
    _deliver(imap, mk("see you Sunday", msgid="<a@x>"))
    _deliver(imap, mk("hello", sender="Eve <eve@example.net>", msgid="<b@x>"))
    cli("ingest", "--imap")
    cli("send-mail", "--config", str(config))
    answers = sorted(_answers(smtp))
    assert [a[0] for a in answers] == [
        "[pbm] Not accepted: your message #1 (no turnsheet found)",
        "[pbm] Not accepted: your message #2 (sender address not on file)"]
    assert all(CONTACT in a[1] for a in answers)


# -- item 5: 18xx move mails ---------------------------------------------------------------------------

@pytest.fixture
def ga(cli, servers, tmp_path, moderated):
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\nAnn,ann@example.org\nBob,bob@example.org\nCy,cy@example.org\n", encoding="utf-8")
    out = cli("new-game", "18GA", "--players", str(csv), "--seed", "11", "--name", "ga-1", "--no-welcome").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    cli("send-mail", "--config", str(servers[2]))  # the game-started mails go first (issue 18, item 11)
    servers[1].messages.clear()
    return servers, secrets


def _ga_round_trip(cli, ga, body: str) -> list[tuple[str, str, list[str]]]:
    (imap, smtp, config), _ = ga
    _deliver(imap, mk(body, sender="Ann <ann@example.org>"))
    cli("ingest", "--imap")
    cli("send-mail", "--config", str(config))
    return _answers(smtp)


def _actions(cli) -> int:
    from pbm.models import Action18 as Action

    with session_scope(cli.url) as s:
        return len(list(s.scalars(select(Action))))


def test_an_18xx_move_mail_signed_with_a_name_is_applied_and_the_name_ignored(cli, ga):
    _, secrets = ga
    answers = _ga_round_trip(cli, ga, f"GAME: ga-1\nPLAYER: 1\nSECRET: {secrets[1]}\npass\nAda\n")
    mine = [a for a in answers if "ann@example.org" in a[2]]
    assert mine and "Not accepted" not in mine[0][0]
    assert 'IGNORED TEXT (line 5, after your orders, not read as orders): "Ada"' in mine[0][1]
    assert _actions(cli) == 1


def test_an_18xx_reply_with_its_header_only_in_the_quote_is_routed_by_its_game_line(cli, ga):
    _, secrets = ga
    body = (f"pass\n\nThanks, Ann\n\nSECRET: {secrets[1]}\n\n"
            "On Sun, 22 Nov 2026 at 17:21, pbm <pbm@localhost> wrote:\n> GAME: ga-1\n> PLAYER: 1\n> SECRET:\n")
    answers = _ga_round_trip(cli, ga, body)
    texts = "\n".join(a[1] for a in answers)
    assert "TURN line" not in texts
    assert _actions(cli) == 1


def test_an_18xx_mail_read_as_a_turnsheet_never_gets_the_turn_line_answer(cli, ga):
    (imap, smtp, config), secrets = ga
    # the GAME line only reaches the turnsheet reader (a PDF-style 'GAME ga-1' quoted in a reply without moves)
    body = "> GAME: ga-1\n> PLAYER: 1\n> TURN:\n> CODE:\n"
    answers = _ga_round_trip(cli, ga, body)
    [(subject, text, _)] = answers
    assert "TURN line" not in text and "TURN line" not in subject
    assert "Not accepted" in subject and CONTACT in text
    assert _actions(cli) == 0

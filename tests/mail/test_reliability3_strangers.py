"""Issue 34, items 6 and 10: pbm cannot be used to mail chosen text to anyone.

Item 6: refusals to an address not on file for any player are one short fixed answer a day, for every
game kind (an 18xx game's mail too), and carry no header taken from the stranger's mail.
Item 10: a refusal of a message that did not authenticate (no or wrong secret) quotes nothing of it —
no attachment name, no line, no subject — even when it goes to a player's address on file (a forged
From:).  After authentication, the player's own lines are quoted in the answer, as before.

Every mail goes through `pbm ingest --maildir` and out through a real SMTP server (aiosmtpd);
SQLite and PostgreSQL."""

from __future__ import annotations

import email
import email.policy
import re
import mailbox
import os
import time

import pytest

from pbm.db import session_scope
from tests.e18xx.test_pbem_mail import ga  # noqa: F401 (the fixture: an 18GA game 'ga-1' by mail)
from tests.mail.game import SECRETS, sheet
from tests.mail.helpers import mk
from tests.mail.smtp import SmtpServer

BAIT = "URGENT confirm your secret at http://evil.example/login"
MARKS = ("URGENT", "evil.example", "http://", "confirm your secret")


@pytest.fixture
def smtp(tmp_path):
    with SmtpServer() as server:
        config = tmp_path / "smtp.toml"
        config.write_text(server.config_toml(), encoding="utf-8")
        server.config = config
        yield server


def _lines(out: str, status: str) -> int:
    """How many messages the ingest listed with ``status``."""
    return len(re.findall(rf"^#\d+ .*\b{status}\b", out, re.M))


def _maildir(tmp_path, name="md"):
    return mailbox.Maildir(str(tmp_path / name), create=True), tmp_path / name


def _sent_to(smtp: SmtpServer, address: str) -> list[tuple[email.message.EmailMessage, bytes]]:
    return [(email.message_from_bytes(m.data, policy=email.policy.default), m.data)
            for m in smtp.messages if address in [r.lower() for r in m.rcpt_tos]]


def _assert_quotes_nothing(msg, data: bytes) -> None:
    """No header refers to the message answered, and no text of it is in the answer."""
    assert msg["In-Reply-To"] is None and msg["References"] is None
    for mark in MARKS:
        assert mark.encode() not in data, (mark, data.decode(errors="replace"))


# -- item 6: 18xx refusals to strangers --------------------------------------------------------------------

def test_item6_18xx_refusals_to_a_stranger_are_one_fixed_answer_a_day_without_their_headers(ga, smtp):
    cli, secrets, md, path = ga
    bodies = [
        f"GAME: ga-1\nPLAYER: 1\nSECRET: WRONG-WRONG-0000\npass\n{BAIT}\n",  # wrong secret
        f"GAME: ga-1\nPLAYER: {BAIT}\nSECRET: x\npass\n",  # a PLAYER line that is not a number
        "GAME: ga-1\nPLAYER: 9\nSECRET: x\npass\n",  # no such seat
        f"GAME: ga-1\nSECRET: x\n{BAIT}\n",  # no PLAYER line
    ]
    for i, body in enumerate(bodies):
        md.add(mk(body, sender="Mallory <mallory@stranger.example>", subject=BAIT, msgid=f"<bait{i}@stranger.example>"))
    md.add(mk(bodies[0], sender="other@stranger.example", subject=BAIT, msgid="<bait9@stranger.example>"))
    out = cli("ingest", "--maildir", str(path)).stdout
    assert _lines(out, "rejected") == 5, out
    cli("send-mail", "--config", str(smtp.config))
    for address in ("mallory@stranger.example", "other@stranger.example"):
        answers = _sent_to(smtp, address)
        assert len(answers) == 1, [m["Subject"] for m, _ in answers]  # one a day, whatever the reason
        msg, data = answers[0]
        assert str(msg["Subject"]).endswith("(sender address not on file)")
        _assert_quotes_nothing(msg, data)
        assert b"bait" not in data  # nothing of its Message-ID either
    # the next day, one more answer
    key = md.add(mk(bodies[0] + "\n", sender="mallory@stranger.example", subject=BAIT, msgid="<bait5@stranger.example>"))
    tomorrow = time.time() + 86400
    os.utime(path / md._lookup(key), (tomorrow, tomorrow))
    cli("ingest", "--maildir", str(path))
    smtp.messages.clear()
    cli("send-mail", "--config", str(smtp.config))
    assert len(_sent_to(smtp, "mallory@stranger.example")) == 1


# -- item 10: refusals of unauthenticated mail quote nothing ------------------------------------------------

def _cr_cases(s, game_id):
    """(what is wrong, raw message from Ada's address, forged) — none of them authenticates."""
    png = (b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "image", "png", f"{BAIT}.png")
    txt = ("hello", "text", "plain", f"{BAIT}.txt")
    return [
        ("attachment names", mk("Please see the attachment.", subject="orders", attachments=[png, txt])),
        ("the subject and body lines", mk(f"Hi\n{BAIT}\n", subject=BAIT)),
        ("the GAME line", mk(f"GAME: {BAIT}\nPLAYER: 1\nTURN: 3\nCODE: X\nSECRET: x\n")),
        ("the PLAYER line", mk(sheet(s, game_id, 1, "", secret="x").replace("PLAYER: 1", f"PLAYER: {BAIT}"))),
        ("a wrong secret", mk(sheet(s, game_id, 1, f"BORROW: 5\n{BAIT}\n", secret="WRONG-WRONG-0000"), subject=BAIT)),
        ("another player's secret", mk(sheet(s, game_id, 1, f"{BAIT}\n", secret=SECRETS[2]))),
        ("a secret change", mk(f"GAME: {BAIT}\nPLAYER: 1\nSECRET: x\nNEW SECRET: {BAIT}\n", subject=BAIT)),
    ]


def test_item10_a_forged_players_address_gets_a_refusal_that_quotes_nothing(cli, game, smtp, tmp_path):
    md, path = _maildir(tmp_path)
    with session_scope(cli.url) as s:
        cases = _cr_cases(s, game.game_id)
    for i, (_, raw) in enumerate(cases):
        md.add(raw.replace(b"Subject:", f"Message-ID: <forged{i}@evil.example>\r\nSubject:".encode(), 1))
    out = cli("ingest", "--maildir", str(path)).stdout
    assert _lines(out, "rejected") == len(cases), out
    cli("send-mail", "--config", str(smtp.config))
    answers = _sent_to(smtp, "ada@example.org")
    assert len(answers) == len(cases)  # Ada is on file: she hears why, in fixed words
    for msg, data in answers:
        _assert_quotes_nothing(msg, data)
        body = msg.get_body(("plain",)).get_content()
        assert "Why: " in body and "NOT accepted" in body
    by_subject = sorted(str(m["Subject"]).split("(", 1)[1] for m, _ in answers)
    assert by_subject == sorted(["no turnsheet found)", "no turnsheet found)", "unknown game name)",
                                 "the player number is missing)", "wrong secret)", "wrong secret)",
                                 "unknown game name)"])
    # what was found is still said, in fixed words: two attachments, one of a kind not opened
    first = next(m for m, _ in answers if "#1 " in str(m["Subject"]))
    text = first.get_body(("plain",)).get_content()
    assert "an attachment of a kind pbm does not open (an image)" in text
    assert "a text attachment without GAME/PLAYER/TURN lines" in text


def test_item10_18xx_unauthenticated_refusals_quote_nothing(ga, smtp):
    cli, secrets, md, path = ga
    forged = [f"GAME: ga-1\nPLAYER: {BAIT}\nSECRET: x\npass\n",
              f"GAME: ga-1\nPLAYER: 1\nSECRET: {secrets[2]}\n{BAIT}\n",  # another seat's secret
              f"GAME: ga-1\nPLAYER: 1\nSECRET:\n{BAIT}\n"]
    for i, body in enumerate(forged):
        md.add(mk(body, sender="Ann <ann@example.org>", subject=BAIT, msgid=f"<forged{i}@evil.example>",
                  attachments=[(b"GIF89a", "image", "gif", f"{BAIT}.gif")]))
    out = cli("ingest", "--maildir", str(path)).stdout
    assert _lines(out, "rejected") == 3, out
    cli("send-mail", "--config", str(smtp.config))
    answers = [(m, d) for m, d in _sent_to(smtp, "ann@example.org") if "Not accepted" in str(m["Subject"])]
    assert len(answers) == 3
    for msg, data in answers:
        _assert_quotes_nothing(msg, data)
        assert str(msg["Subject"]).startswith("[ga-1] Not accepted: your message #")


def test_item10_after_authentication_the_players_own_lines_are_quoted(ga, smtp):
    """The boundary: once the secret matched, an error names the line, what was wrong and what is allowed."""
    cli, secrets, md, path = ga
    md.add(mk(f"GAME: ga-1\nPLAYER: 1\nSECRET: {secrets[1]}\npar ZZZ 90\n", sender="Ann <ann@example.org>",
              msgid="<ok1@example.org>"))
    out = cli("ingest", "--maildir", str(path)).stdout
    assert "rejected" in out
    cli("send-mail", "--config", str(smtp.config))
    (msg, data), = [(m, d) for m, d in _sent_to(smtp, "ann@example.org") if "Not accepted" in str(m["Subject"])]
    assert "ZZZ" in msg.get_body(("plain",)).get_content()
    assert msg["In-Reply-To"] == "<ok1@example.org>"  # the player's own mail: the answer is threaded


# -- item 10, over many shapes of mail: whatever stands where, nothing of an unauthenticated mail is quoted ---

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_DAYS = __import__("itertools").count()
_PLACES = ("GAME", "PLAYER", "TURN", "CODE", "SECRET", "NEW SECRET", "subject", "attachment name", "text attachment",
           "body line", "html body", "quoted line")


def _hostile_mail(places: list[str], game_name: str, mark: str, subtype: str) -> bytes:
    head = {"GAME": game_name, "PLAYER": "1", "TURN": "3", "CODE": "ZZZZZZ", "SECRET": "WRONG-WRONG-0000"}
    for key in ("GAME", "PLAYER", "TURN", "CODE", "SECRET"):
        if key in places:
            head[key] = f"{head[key]} {mark}" if key in ("SECRET", "GAME") and len(places) % 2 else mark
    lines = [f"{k}: {v}" for k, v in head.items()]
    if "NEW SECRET" in places:
        lines.append(f"NEW SECRET: {mark} {mark}")
    if "body line" in places:
        lines.append(f"BORROW: 5 {mark}")
    if "quoted line" in places:
        lines.append(f"> {mark} wrote this")
    attachments = []
    if "attachment name" in places:
        attachments.append((b"\x00\x01" * 20, "application", subtype, f"{mark}.bin"))
    if "text attachment" in places:
        attachments.append((f"{mark}\nhello", "text", "plain", "notes.txt"))
    html = f"<p>{mark}</p>" if "html body" in places else None
    return mk("\n".join(lines) + "\n", subject=mark if "subject" in places else "orders", html=html,
              attachments=attachments)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(places=st.lists(st.sampled_from(_PLACES), min_size=1, max_size=5, unique=True),
       kind=st.sampled_from(["cr", "unknown-game"]), subtype=st.sampled_from(["zip", "octet-stream", "msword"]),
       n=st.integers(0, 10 ** 6))
def test_item10_no_unauthenticated_mail_is_quoted_whatever_stands_where(db_url, game, places, kind, subtype, n):
    from pbm.mail.ingest import Context, ingest
    from pbm.models import OutboxMessage
    from sqlalchemy import select

    mark = f"qqbait{n}qq"
    raw = _hostile_mail(places, game.name if kind == "cr" else "cr-nope", mark, subtype)
    from datetime import datetime, timedelta

    # each drawn mail arrives on a day of its own: Ada is answered at most REFUSALS_PER_DAY_KNOWN times a day
    # (a counter, not n: hypothesis draws the same small n many times, and its examples share one database)
    day = datetime(2030, 1, 1) + timedelta(days=next(_DAYS))
    with session_scope(db_url) as s:
        out = ingest(s, raw, Context(sender="orders@pbm.example", now=day))
        if out.status == "duplicate":  # the same mail drawn twice: answered once, checked then
            return
        assert out.status == "rejected", (places, out)
        assert out.replied_to == ["ada@example.org"]
        for row in s.scalars(select(OutboxMessage)):
            assert mark.encode() not in row.raw, (places, row.raw.decode(errors="replace"))
            assert b"In-Reply-To" not in row.raw and b"References" not in row.raw


def test_item10_forged_mail_in_a_players_name_cannot_flood_his_mailbox(cli, game, smtp, tmp_path):
    """Mail forged in Ada's name that does not authenticate: she hears of the first ten a day (a player
    fumbling his secret is answered), no more (pbm cannot be used to flood her mailbox)."""
    from pbm.mail.answer import REFUSALS_PER_DAY_KNOWN

    md, path = _maildir(tmp_path)
    with session_scope(cli.url) as s:
        _, raw = next(c for c in _cr_cases(s, game.game_id))
    for i in range(REFUSALS_PER_DAY_KNOWN + 5):
        md.add(raw.replace(b"Subject:", f"Message-ID: <flood{i}@evil.example>\r\nSubject:".encode(), 1)
               .replace(b"\r\n\r\n", f"\r\nX-Flood: {i}\r\n\r\n".encode(), 1))
    out = cli("ingest", "--maildir", str(path)).stdout
    assert _lines(out, "rejected") == REFUSALS_PER_DAY_KNOWN + 5, out
    cli("send-mail", "--config", str(smtp.config))
    assert len(_sent_to(smtp, "ada@example.org")) == REFUSALS_PER_DAY_KNOWN

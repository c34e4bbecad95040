"""A corpus of hostile and broken messages: each is stored, and answered precisely — or deliberately not.

Every case is built in code.  Each asserts the outcome's status and the text
of the answer (or that there is none: bounces, auto-replies, loops,
redeliveries).  The whole corpus runs on SQLite case by case, and once more
in one go on PostgreSQL.
"""

from __future__ import annotations

import hashlib

import base64
import io
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

import pytest
from pypdf import PdfReader, PdfWriter
from sqlalchemy import select

from pbm.db import session_scope
from pbm.mail.ingest import Context, ingest
from pbm.models import Game, InboundMessage
from pbm.turnsheet.facts import sheet_facts
from pbm.turnsheet.pdf import render_pdf
from tests.mail.game import SECRETS, build_game, sheet
from tests.mail.helpers import mk, reply_for

CTX = Context(sender="orders@pbm.example", now=datetime(2030, 1, 1, 10, 0))


@dataclass
class Case:
    name: str
    build: Callable  # (session, game_id, name) -> bytes | list[bytes] (the last one is checked)
    status: str
    says: list[str] = field(default_factory=list)  # substrings of the answer; [] with answered=False: no answer
    answered: bool = True
    to: list[str] | None = None
    check: Callable | None = None  # extra check (session, outcome, answer message)


def S(player: int = 1, body: str = "BORROW: 5\n", **kw) -> Callable:
    return lambda s, gid, name: sheet(s, gid, player, f"# case {name}\n" + body, **kw)


def plain(player: int = 1, body: str = "BORROW: 5\n", sender: str = "Ada <ada@example.org>", **kw) -> Callable:
    return lambda s, gid, name: mk(S(player, body, **kw)(s, gid, name), sender=sender)


def _filled_pdf(s, gid, values: dict[str, str]) -> bytes:
    g = s.get(Game, gid)
    facts = sheet_facts(s, g, g.players[0])
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(render_pdf(facts))))
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _plain_pdf() -> bytes:
    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    c.drawString(72, 720, "GAME: cr-test PLAYER: 1")
    c.save()
    return buf.getvalue()


def _raw(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("latin-1", "replace")


def _with_sheet(s, gid, name, head: str, body_bytes: bytes | None = None) -> bytes:
    body = S()(s, gid, name)
    return _raw(head) + (body_bytes if body_bytes is not None else body.replace("\n", "\r\n").encode())


ACCEPT = "ACCEPTED. These are the orders that will be resolved"
NO_SHEET = "Why: no turnsheet found in the message."

CASES = [
    Case("plain", plain(), "accepted", [ACCEPT, "  BORROW: 5\n", "No problems found."]),
    Case("text-attachment", lambda s, g, n: mk("see attached", attachments=[(S()(s, g, n), "text", "plain",
                                                                             "orders.txt")]),
         "accepted", ["sheet read from: orders.txt", "  BORROW: 5\n"]),
    Case("filled-pdf", lambda s, g, n: mk("my pdf", attachments=[(_filled_pdf(s, g, {
        "SECRET": SECRETS[1], "BORROW": "700", "STOCK 1": "buy 3 B&O"}), "application", "pdf", "sheet.pdf")]),
         "accepted", ["sheet read from: sheet.pdf", "  BORROW: 700\n  STOCK 1: BUY 3 B&O\n"]),
    Case("pdf-wrong-secret", lambda s, g, n: mk("pdf", attachments=[(_filled_pdf(s, g, {
        "SECRET": "nope", "BORROW": "700"}), "application", "pdf", "sheet.pdf")]),
         "rejected", ["Why: the secret does not match player 1's secret"]),
    Case("html-only", lambda s, g, n: mk(None, html="<html><body><p>" + S()(s, g, n).replace("\n", "<br>")
                                          + "</p><script>evil()</script></body></html>"),
         "accepted", ["sheet read from: HTML body", "  BORROW: 5\n"]),
    Case("image-only", lambda s, g, n: mk(None, attachments=[(b"\x89PNG\r\n\x1a\n" + bytes(300), "image", "png",
                                                              "photo.png")]),
         "rejected", [NO_SHEET, "an attachment of a kind pbm does not open (an image)"]),
    Case("empty-body", lambda s, g, n: mk(""), "rejected", [NO_SHEET, "the message text has no GAME/PLAYER/TURN lines"]),
    Case("no-body-at-all", lambda s, g, n: _raw(f"From: ada@example.org\nSubject: {n}\n\n"), "rejected",
         [NO_SHEET]),
    Case("latin-1", plain(body="MESSAGE: Café société, très cher\n"), "accepted",
         ["  MESSAGE: Café société, très cher\n"]),
    Case("latin-1-declared", lambda s, g, n: mk(S(body="MESSAGE: Überall Grüße\n")(s, g, n), charset="latin-1"),
         "accepted", ["  MESSAGE: Überall Grüße\n"]),
    Case("shift-jis", lambda s, g, n: mk(S(body="MESSAGE: 鉄道王\n")(s, g, n), charset="shift_jis"), "accepted",
         ["  MESSAGE: 鉄道王\n"]),
    Case("unknown-charset", lambda s, g, n: _with_sheet(
        s, g, n, f"From: ada@example.org\nSubject: {n}\nContent-Type: text/plain; charset=x-klingon\n\n"),
         "accepted", ["  BORROW: 5\n"]),
    Case("utf8-declared-latin1-bytes", lambda s, g, n: _with_sheet(
        s, g, n, f"From: ada@example.org\nSubject: {n}\nContent-Type: text/plain; charset=utf-8\n\n",
        S(body="MESSAGE: caf\xe9\n")(s, g, n).encode("latin-1")), "accepted", ["  MESSAGE: café\n"]),
    Case("huge-attachment", lambda s, g, n: mk(S()(s, g, n), attachments=[
        ("x" * (2 * 1024 * 1024), "text", "plain", "huge.txt")]),
         "accepted", ["  BORROW: 5\n"]),
    Case("binary-attachment-only", lambda s, g, n: mk(None, attachments=[(bytes(range(256)) * 50, "application",
                                                                           "octet-stream", "data.bin")]),
         "rejected", [NO_SHEET, "an attachment of a kind pbm does not open (a file that is neither text nor PDF)"]),
    Case("zip-only", lambda s, g, n: mk("orders attached", attachments=[(b"PK\x03\x04" + bytes(100), "application",
                                                                         "zip", "orders.zip")]),
         "rejected", ["an attachment of a kind pbm does not open (an archive)"]),
    Case("junk-lines", plain(body="BORROW: 5\nasdf qwer\n!!!!\nWHATEVER: 3\n"), "accepted",
         ["[NOT USED] line 8, sheet: not an order line: 'asdf qwer'", "line 9, sheet: not an order line: '!!!!'",
          "line 10, sheet: unknown order 'WHATEVER'"]),
    Case("borrow-too-much", plain(body="BORROW: 999999\n"), "accepted",
         ["[ADJUSTED] line 7, borrow: $999,999 is more than your available credit; lowered to $2,500 (§3.5A, "
          "§10.1A1) — allowed: up to $2,500", "  BORROW: 2500\n"]),
    Case("dividend-too-high", plain(body="B&O DIVIDEND: 150\n"), "accepted",
         ["[ADJUSTED] line 7, B&O dividend: $150 per share is over the maximum; lowered to $99 (§4.12)",
          "  B&O DIVIDEND: 99\n"]),
    Case("capital-too-high", plain(body="ERIE CAPITAL: 80\n"), "accepted",
         ["[ADJUSTED] line 7, ERIE capital: $80 per mile is more than the $50 per mile allowed",
          "— allowed: $1–50 per mile", "  ERIE CAPITAL: 50\n"]),
    Case("negative", plain(body="REPAY: -100\n"), "accepted", ["line 7, repay: '-100' is negative — allowed: 0 or more"]),
    Case("astronomic", plain(body="BORROW: 1" + "0" * 40 + "\n"), "accepted", ["is far too large"]),
    Case("unknown-railroad", plain(body="STOCK 1: BUY 5 XYZ\n"), "accepted",
         ["[NOT USED] line 7, stock buy XYZ: XYZ is not a railroad active at the start of the turn (§6.1B)"]),
    Case("railroad-number", plain(body="STOCK 1: BUY 5 2\n1 DIVIDEND: 3\n"), "accepted",
         ["  STOCK 1: BUY 5 ERIE\n", "  B&O DIVIDEND: 3\n"]),
    Case("bid-not-for-sale", plain(body="BID NY2: 100\n"), "accepted",
         ["[NOT USED] line 7, PC bid NY2: NY2 is not a private company — allowed: VA1 (asking $400), VA3 "
          "(asking $700)"]),
    Case("not-president", plain(2, body="B&O DIVIDEND: 3\n", sender="ike@example.org"), "accepted",
         ["[NOT USED] line 7, B&O orders: you are not President of B&O at the start of the turn"]),
    Case("pc-merge-wrong", plain(body="PC VA2: MERGE ERIE\n"), "accepted",
         ["[NOT USED] line 7, PC VA2 merge: VA2 cannot merge into ERIE", "— allowed: B&O"]),
    Case("wrong-secret", plain(secret="AAAA-BBBB-CCC9"), "rejected",
         ["Why: the secret does not match player 1's secret", "NOT accepted"]),
    Case("empty-secret", plain(secret=""), "rejected", ["Why: the SECRET line is empty"]),
    Case("secret-lowercase-no-dashes", plain(secret=SECRETS[1].lower().replace("-", " ")), "accepted", [ACCEPT]),
    Case("old-turn", plain(turn=2), "rejected",
         ["Why: this sheet is for turn 2, which is over; turn 3 is being played now: use your turn-3 sheet"]),
    Case("future-turn", plain(turn=4), "rejected", ["Why: this sheet is for turn 4, which has not started"]),
    Case("someone-elses-sheet", lambda s, g, n: mk(sheet(s, g, 1, "BORROW: 5\n", code=sheet(s, g, 2, "").split(
        "CODE: ")[1].split("\n")[0])), "rejected", ["Why: the code", "is not player 1's code for turn 3"]),
    Case("empty-code", plain(code=" "), "rejected", ["Why: the CODE line is empty"]),
    Case("unknown-game", plain(game_name="cr-nope"), "rejected", ["Why: there is no game here by the name on your GAME line"]),
    Case("computer-seat", plain(7, secret="AAAA-BBBB-CCC1"), "rejected",
         ["Why: the secret does not match player 7's secret"]),
    Case("no-such-player", lambda s, g, n: mk(S()(s, g, n).replace("PLAYER: 1", "PLAYER: 99")), "rejected",
         ["Why: game cr-test has no player 99"]),
    Case("player-not-a-number", lambda s, g, n: mk(S()(s, g, n).replace("PLAYER: 1", "PLAYER: one")), "rejected",
         ["Why: the PLAYER line is missing or not a number"]),
    Case("forged-from", plain(sender="Ada <mallory@evil.example>"), "accepted", [ACCEPT],
         to=["ada@example.org", "mallory@evil.example"]),
    Case("forged-from-wrong-secret", plain(sender="ada@example.org", secret="X"), "rejected",
         ["the secret does not match"], to=["ada@example.org"]),
    Case("reply-to-used", lambda s, g, n: mk(S()(s, g, n), headers={"Reply-To": "ada.home@example.org"}),
         "accepted", [ACCEPT], to=["ada@example.org", "ada.home@example.org"]),
    Case("reply-to-two-addresses", lambda s, g, n: mk(S()(s, g, n), headers={
        "Reply-To": "a@example.org, b@example.org"}), "accepted", [ACCEPT], to=["ada@example.org"]),
    Case("duplicate-bytes", lambda s, g, n: [mk(S()(s, g, n), msgid=f"<{n}@x>")] * 2, "duplicate", answered=False),
    Case("redelivered", lambda s, g, n: [mk(S()(s, g, n), msgid=f"<{n}@x>"),
                                         b"Received: by relay\r\n" + mk(S()(s, g, n), msgid=f"<{n}@x>")],
         "duplicate", answered=False),
    Case("loop-x-loop", lambda s, g, n: mk(S()(s, g, n), headers={"X-Loop": "pbm-turn-processor"}), "ignored",
         answered=False),
    Case("loop-own-address", plain(sender="orders@pbm.example"), "ignored", answered=False),
    Case("loop-our-receipt", lambda s, g, n: mk("Receipt: ...", headers={"X-PBM": "receipt"}), "ignored",
         answered=False),
    Case("bounce-mailer-daemon", lambda s, g, n: mk("Delivery failed", sender="MAILER-DAEMON@mx.example.org"),
         "ignored", answered=False),
    Case("bounce-postmaster", lambda s, g, n: mk("Undeliverable", sender="postmaster@example.org"), "ignored",
         answered=False),
    Case("bounce-multipart-report", lambda s, g, n: _raw(
        f"From: mx@example.org\nSubject: {n}\nMIME-Version: 1.0\nContent-Type: multipart/report; "
        "report-type=delivery-status; boundary=XX\n\n--XX\nContent-Type: text/plain\n\nfailed\n--XX--\n"),
         "ignored", answered=False),
    Case("empty-return-path", lambda s, g, n: _raw(f"Return-Path: <>\nFrom: ada@example.org\nSubject: {n}\n\nhi\n"),
         "ignored", answered=False),
    Case("auto-replied", lambda s, g, n: mk("I am on holiday", headers={"Auto-Submitted": "auto-replied"}),
         "ignored", answered=False),
    Case("precedence-bulk", lambda s, g, n: mk("news", headers={"Precedence": "bulk"}), "ignored", answered=False),
    Case("precedence-junk", lambda s, g, n: mk("news", headers={"Precedence": "junk"}), "ignored", answered=False),
    Case("x-autoreply", lambda s, g, n: mk("away", headers={"X-Autoreply": "yes"}), "ignored", answered=False),
    Case("mailing-list", lambda s, g, n: mk("digest", headers={"List-Id": "<rails.lists.example>"}), "ignored",
         answered=False),
    Case("no-from", lambda s, g, n: mk(S()(s, g, n), sender=None), "ignored", answered=False),
    Case("garbage-from", lambda s, g, n: _with_sheet(s, g, n, f"From: <<<not an address>>>\nSubject: {n}\n\n"),
         "ignored", answered=False),
    Case("subject-injection", lambda s, g, n: _with_sheet(
        s, g, n, f"From: ada@example.org\nSubject: =?utf-8?q?hi=0D=0ABcc=3A_all=40evil.example?= {n}\n\n"),
         "accepted", [ACCEPT], check=lambda s, o, m: m["Bcc"] is None and m["Subject"].startswith("[cr-test]")),
    Case("from-injection", lambda s, g, n: _with_sheet(
        s, g, n, f"From: =?utf-8?q?Ada=0D=0ABcc=3A_x=40evil.example?= <ada@example.org>\nSubject: {n}\n\n"),
         "accepted", [ACCEPT], to=["ada@example.org"], check=lambda s, o, m: m["Bcc"] is None),
    Case("reply-to-injection", lambda s, g, n: _with_sheet(
        s, g, n, f"From: ada@example.org\nReply-To: =?utf-8?q?x=40y.org=0D=0ABcc=3A_z=40evil.example?=\n"
                 f"Subject: {n}\n\n"), "accepted", [ACCEPT], to=["ada@example.org"],
         check=lambda s, o, m: m["Bcc"] is None),
    Case("message-id-injection", lambda s, g, n: _with_sheet(
        s, g, n, f"From: ada@example.org\nMessage-ID: <a@b>\r\n\tBcc: evil@x\nSubject: {n}\n\n"), "accepted",
         [ACCEPT], check=lambda s, o, m: m["Bcc"] is None and m["In-Reply-To"] in (None, "<a@b>")),
    Case("message-overflow", plain(body="MESSAGE: " + "Gould is a scoundrel! " * 6 + "\n"), "accepted",
         ["[ADJUSTED] line 7, message: 131 characters; shortened to the first 80 (§10.1G)"]),
    Case("message-markup", plain(body="MESSAGE: <b>bold</b> & <script>x</script>\n"), "accepted",
         ["  MESSAGE: <b>bold</b> & <script>x</script>\n"]),
    Case("character-too-long", plain(body="CHARACTER: " + "X" * 50 + "\n"), "accepted",
         ["character: character name of 50 characters — allowed: at most 40 characters (§3.2)"]),
    Case("many-lines", plain(body="# x\n" * 3500), "accepted", ["only the first 3000 were read"]),
    Case("long-line", plain(body="BORROW: 5 " + "9" * 5000 + "\nREPAY: 1\n"), "accepted",
         ["a line of 5010 characters was ignored", "  REPAY: 1\n"]),
    Case("control-characters", plain(body="BORROW:\x00 5\x07\nREPAY: 1\x1b[31m\n"), "accepted",
         ["  BORROW: 5\n"]),
    Case("quoted-receipt-reply", lambda s, g, n: mk("Changed my mind:\n" + "".join(
        "> " + line + "\n" for line in S(body="BORROW: 9\n")(s, g, n).splitlines())), "accepted", ["  BORROW: 9\n"]),
    Case("two-sheets", lambda s, g, n: mk(S(body="BORROW: 1\n")(s, g, n) + S(body="BORROW: 2\n")(s, g, n)),
         "accepted", ["  BORROW: 1\n", "a second sheet starts here"]),
    Case("plain-pdf", lambda s, g, n: mk(None, attachments=[(_plain_pdf(), "application", "pdf", "scan.pdf")]),
         "rejected", ["a PDF without pbm turnsheet form fields"]),
    Case("corrupt-pdf", lambda s, g, n: mk("", attachments=[(b"%PDF-1.7\n" + bytes(500), "application", "pdf",
                                                             "broken.pdf")]),
         "rejected", ["a PDF without pbm turnsheet form fields"]),
    Case("broken-base64", lambda s, g, n: _raw(
        f"From: ada@example.org\nSubject: {n}\nContent-Transfer-Encoding: base64\n\n!!!notbase64***\n"),
         "rejected", [NO_SHEET]),
    Case("base64-sheet", lambda s, g, n: _raw(
        f"From: ada@example.org\nSubject: {n}\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: base64\n\n") + base64.encodebytes(S()(s, g, n).encode()).replace(b"\n", b"\r\n"),
         "accepted", ["  BORROW: 5\n"]),
    Case("forwarded-rfc822", lambda s, g, n: mk("fwd", attachments=[]) if False else _forwarded(s, g, n),
         "accepted", ["  BORROW: 5\n"]),
    Case("sheet-in-body-and-pdf", lambda s, g, n: mk(S(body="BORROW: 11\n")(s, g, n), attachments=[(_filled_pdf(
        s, g, {"SECRET": SECRETS[1], "BORROW": "22"}), "application", "pdf", "sheet.pdf")]),
         "accepted", ["sheet read from: message body", "  BORROW: 11\n"]),
    Case("non-ascii-from-and-subject", lambda s, g, n: mk(S()(s, g, n), sender="Ádá Lövelace <ada@example.org>",
                                                          subject="Zugzüge ✓ " + n), "accepted", [ACCEPT]),
    Case("bad-message-id", lambda s, g, n: mk(S()(s, g, n), msgid="no angle brackets"), "accepted", [ACCEPT],
         check=lambda s, o, m: m["In-Reply-To"] is None),
    Case("too-large", lambda s, g, n: mk(S()(s, g, n), attachments=[(b"\0" * (16 * 1024 * 1024), "application",
                                                                      "octet-stream", "big.bin")]),
         "rejected", ["Why: the message is larger than 15 MB"]),
    Case("greeting-and-signature", lambda s, g, n: mk("Dear GM,\nhere you go:\n\n" + S()(s, g, n)
                                                      + "\n--\nAda\nPhone: 555\n"), "accepted", ["No problems found."]),
]


def _forwarded(s, g, n) -> bytes:
    from email.message import EmailMessage

    inner = EmailMessage()
    inner["From"] = "ada@example.org"
    inner["Subject"] = "my orders"
    inner.set_content(S()(s, g, n))
    outer = EmailMessage()
    outer["From"] = "ada@example.org"
    outer["Subject"] = f"Fwd: {n}"
    outer.set_content("forwarding")
    outer.add_attachment(inner)
    return bytes(outer)


def _run(s, gid, case: Case):
    from sqlalchemy import delete

    from pbm.models import AnswerLimit

    # each case is answered as if it were the first mail of the day: the daily caps on refusals have tests of
    # their own (test_reliability3_strangers.py), and dozens of cases in one day would run into them
    s.execute(delete(AnswerLimit))
    built = case.build(s, gid, case.name)
    raws = built if isinstance(built, list) else [built]
    before = s.scalar(select(InboundMessage.id).order_by(InboundMessage.id.desc()).limit(1)) or 0
    outcome = None
    for raw in raws:
        outcome = ingest(s, raw, CTX)
    assert outcome is not None
    assert outcome.status == case.status, f"{case.name}: {outcome.status} {outcome.reason}"
    stored = s.scalar(select(InboundMessage).where(InboundMessage.id == outcome.inbound_id))
    # stored raw, first (a checked sheet's secret is redacted since; the hash is of the bytes as they came)
    assert stored is not None and (stored.sha256 in {hashlib.sha256(r).hexdigest() for r in raws}
                                   or stored.raw.startswith(b"X-PBM-Truncated: "))  # over the limit: cut
    assert stored.raw in raws or stored.raw.startswith(b"X-PBM-Truncated: ") or (stored.outcome.get("redacted") and b"AAAA-BBBB-CCC" not in stored.raw)
    assert s.scalars(select(InboundMessage).where(InboundMessage.id > before)).all()
    answer = reply_for(s, outcome.inbound_id)
    if case.status == "duplicate":
        assert outcome.replied_to == [], case.name
        return
    if not case.answered:
        assert answer is None and outcome.replied_to == [], case.name
        return
    assert answer is not None, case.name
    msg, text = answer
    for expected in case.says:
        assert expected in text, f"{case.name}: {expected!r} not in answer:\n{text}"
    if case.to is not None:
        assert outcome.replied_to == case.to, case.name
    assert msg["Auto-Submitted"] == "auto-replied" and msg["X-Loop"] == "pbm-turn-processor"
    if case.check is not None:
        assert case.check(s, outcome, msg), case.name


def test_corpus_is_big_enough():
    assert len(CASES) >= 50
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('corpus') / 'pbm.db'}"
    with session_scope(url) as s:
        built = build_game(s)
    return url, built.game_id


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_sqlite(corpus_db, case):
    url, gid = corpus_db
    with session_scope(url) as s:
        _run(s, gid, case)


def test_corpus_postgresql(pg_template):
    from tests.conftest import _pg_database

    gen = _pg_database(pg_template)
    url = next(gen)
    try:
        with session_scope(url) as s:
            gid = build_game(s).game_id
            for case in CASES:
                _run(s, gid, case)
    finally:
        next(gen, None)

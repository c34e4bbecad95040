"""Property test of the whole intake (issue 13, item 10): any bytes, any MIME tree, any sheet text.

For every message: it is stored (its bytes, or the marked cut of an over-large one), it is never left
``stored`` or ``error``, and a refusal is answered unless the sender must not be answered (bounces,
loops, no address) or has used up its one answer a day.  ``PBM_SLOW=1`` tries many more examples.
"""

from __future__ import annotations

import hashlib
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbm.db import session_scope
from pbm.mail.ingest import Context, ingest
from pbm.models import InboundMessage
from tests.mail.game import SECRETS

CTX = Context(sender="orders@pbm.example")
EXAMPLES = 2000 if os.environ.get("PBM_SLOW") == "1" else 120
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

CHARSETS = st.sampled_from(["utf-8", "us-ascii", "latin-1", "utf-8\0", "x-unknown", "", "utf-16", "cp1252",
                            "utf-8\"; foo=\"", "\u00e9", "koi8-r"])
ENCODINGS = st.sampled_from(["7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "binary", "bogus"])
CTYPES = st.sampled_from(["text/plain", "text/html", "application/pdf", "text/x-turnsheet", "image/png",
                          "message/rfc822", "multipart/report", "application/octet-stream", "text/plain; name=a.txt"])
LINES = st.sampled_from(["GAME: cr-test", "PLAYER: 1", "PLAYER: 99", "TURN: 3", "TURN: -1", "CODE: DBFRG\u00c9",
                         f"SECRET: {SECRETS[1]}", "SECRET: \u0000", "BORROW: 5", "BID VA1: 450", "MESSAGE: hi # x",
                         "STOCK 1: BUY 10 B&O", "CHARACTER: Ada", "GAME: " + "x" * 300, "\u202e", "=?utf-8?b?AA==?="])
TEXT = st.one_of(st.lists(LINES, max_size=12).map("\n".join), st.text(max_size=300))


def _leaf(draw_ctype: str, charset: str, encoding: str, body: bytes) -> bytes:
    params = f"; charset=\"{charset}\"" if charset else ""
    return (f"Content-Type: {draw_ctype}{params}\r\nContent-Transfer-Encoding: {encoding}\r\n\r\n").encode(
        "utf-8", "surrogateescape") + body + b"\r\n"


@st.composite
def mime_tree(draw, depth: int = 0) -> bytes:
    if depth >= 4 or draw(st.booleans()):
        body = draw(st.one_of(TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=300)))
        return _leaf(draw(CTYPES), draw(CHARSETS), draw(ENCODINGS), body)
    boundary = draw(st.sampled_from(["b1", "b2", "==x==", "", "a" * 80, "b1--"]))
    children = draw(st.lists(mime_tree(depth + 1), max_size=3))
    out = f"Content-Type: multipart/{draw(st.sampled_from(['mixed', 'alternative', 'report']))}; " \
          f"boundary=\"{boundary}\"\r\n\r\n".encode()
    for child in children:
        out += f"--{boundary}\r\n".encode() + child
    if draw(st.booleans()):
        out += f"--{boundary}--\r\n".encode()
    return out


@st.composite
def message(draw) -> bytes:
    headers = {
        "From": draw(st.sampled_from(["Ada <ada@example.org>", "x@evil.example", "", "a@b, c@d", "<>",
                                      "=?utf-8?q?A=0D=0ABcc:_x@y?= <ada@example.org>", "MAILER-DAEMON@x"])),
        "Subject": draw(st.text(max_size=80)),
        "Message-ID": draw(st.sampled_from(["<a@b>", "<fixed@example.org>", "", "<\u00e9@x>", "a" * 400])),
    }
    if draw(st.booleans()):
        headers["Reply-To"] = draw(st.sampled_from(["victim@else.example", "bad", "a@b\r\nBcc: c@d"]))
    if draw(st.booleans()):
        headers[draw(st.sampled_from(["Auto-Submitted", "Precedence", "X-Loop", "Return-Path"]))] = \
            draw(st.sampled_from(["auto-replied", "bulk", "pbm-turn-processor", "<>", "no"]))
    head = b"".join(f"{k}: {v}\r\n".encode("utf-8", "surrogatepass") for k, v in headers.items() if v)
    return head + b"MIME-Version: 1.0\r\n" + draw(mime_tree())


def _check(s, raw: bytes) -> None:
    outcome = ingest(s, raw, CTX)
    row = s.get(InboundMessage, outcome.inbound_id)
    assert row is not None
    assert row.sha256 == hashlib.sha256(raw).hexdigest() or row.raw.startswith(b"X-PBM-Truncated: ")
    assert outcome.status not in ("stored", "error"), outcome.line()
    if outcome.status == "rejected" and not outcome.replied_to:
        assert (row.outcome or {}).get("answer", "").startswith("not answered"), outcome.line()


def test_any_bytes_are_stored_and_handled(db_url, game):
    with session_scope(db_url) as s:
        @FUZZ
        @given(st.one_of(st.binary(max_size=3000), TEXT.map(lambda t: t.encode("utf-8", "surrogatepass"))))
        def run(raw: bytes) -> None:
            _check(s, raw)

        run()
        assert s.scalar(select(InboundMessage.id).where(InboundMessage.status.in_(("stored", "error")))) is None


def test_any_mime_tree_is_stored_and_handled(db_url, game):
    with session_scope(db_url) as s:
        @FUZZ
        @given(message())
        def run(raw: bytes) -> None:
            _check(s, raw)

        run()
        assert s.scalar(select(InboundMessage.id).where(InboundMessage.status.in_(("stored", "error")))) is None

"""pbm's email policy (pbm.mail.message.POLICY) reads and writes exactly what email.policy.default does,
making each header class once instead of once per header."""

from __future__ import annotations

import email
import email.message
import email.policy

from pbm.mail.compose import address, make_message
from pbm.mail.message import POLICY, SMTP_POLICY, parse_bytes

RAW = (b"From: =?utf-8?q?Ad=C3=A1_L?= <ada@example.org>, bob@example.org\r\n"
       b"To: Undisclosed recipients:;\r\n"
       b"Subject: =?iso-8859-1?q?Gr=FC=DFe?= and a very long subject line that goes on and on past the fold width\r\n"
       b"Message-ID: <x1@example.org>\r\n"
       b"Date: Wed, 25 Nov 2026 10:00:00 +0000\r\n"
       b"Content-Type: multipart/mixed; boundary=\"b1\"\r\n"
       b"MIME-Version: 1.0\r\n\r\n"
       b"--b1\r\nContent-Type: text/plain; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
       b"GAME: x=C3=A9\r\n--b1\r\nContent-Type: text/plain; name=\"sheet.txt\"\r\n"
       b"Content-Disposition: attachment; filename=\"sheet.txt\"\r\n\r\nPLAYER: 3\r\n--b1--\r\n")


def test_reading_is_the_default_policys():
    ours, theirs = parse_bytes(RAW), email.message_from_bytes(RAW, policy=email.policy.default)
    for name in ("From", "To", "Subject", "Message-ID", "Date", "Content-Type"):
        a, b = ours[name], theirs[name]
        assert (str(a), type(a).__mro__[1:]) == (str(b), type(b).__mro__[1:]), name
    assert getattr(ours["From"], "addresses") == getattr(theirs["From"], "addresses")
    assert [p.get_content() for p in ours.iter_parts()] == [p.get_content() for p in theirs.iter_parts()]
    assert [p.get_filename() for p in ours.iter_parts()] == [p.get_filename() for p in theirs.iter_parts()]
    assert ours.as_bytes(policy=SMTP_POLICY) == theirs.as_bytes(policy=email.policy.SMTP)


def test_writing_is_the_default_policys():
    body = "Continental Rails II — game x\n" + "a long line " * 20 + "\n"
    subject = ("Turn 3 — receipt " * 6).strip()
    ours = make_message("pbm@example.org", ["ada@example.org", "bob@example.org"], subject, body,
                        in_reply_to="<x1@example.org>")
    assert ours.policy is POLICY
    theirs = email.message.EmailMessage()  # make_message's steps on the standard policy
    theirs["From"] = address("pbm@example.org", "pbm")
    theirs["To"] = [address("ada@example.org"), address("bob@example.org")]
    theirs["Subject"] = subject
    theirs["In-Reply-To"] = theirs["References"] = "<x1@example.org>"
    theirs.set_content(body, charset="utf-8")
    for msg in (ours, theirs):
        msg["Date"] = "Wed, 25 Nov 2026 10:00:00 +0000"
    assert ours.as_bytes(policy=SMTP_POLICY) == theirs.as_bytes(policy=email.policy.SMTP)


def test_each_header_class_is_made_once():
    a, b = parse_bytes(RAW), parse_bytes(RAW)
    assert type(a["Subject"]) is type(b["Subject"])
    assert type(a["From"]) is type(b["To"])  # both address lists
    assert type(a["Subject"]) is not type(a["From"])
    plain = email.message_from_bytes(RAW, policy=email.policy.default)
    assert type(plain["Subject"]) is not type(plain["Subject"])  # what the standard registry does

"""Issue 29 (undo, moves in the Subject, several moves on a line, a spare pass) through the real
round trip: the mail into a Dovecot IMAP mailbox, `pbm ingest --imap --send`, the answers read
off a real SMTP server (aiosmtpd) on loopback."""
from __future__ import annotations

import pytest

from tests.e18xx.test_mail_round2 import PLAYERS, world  # noqa: F401 (world: fixture)
from tests.mail.dovecot import available
from tests.mail.helpers import mk

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")
ANN, BOB, CY = (a for _, a in PLAYERS)


def test_undo_by_mail_until_another_player_acts(world):
    w = world
    assert "player 1 accepted" in w.deliver(1, "bid 20 LTR")
    assert len(w.log()) == 1
    out = w.deliver(1, "undo")
    assert "player 1 accepted" in out, out
    assert w.log() == []
    subject, body = w.last(ANN)
    assert "UNDONE: Ann took back their last mail (1 action(s): #1 bid 20 LTR)" in body
    assert any("UNDONE: Ann took back" in b for _, b in w.bodies(BOB))  # everyone hears of it
    assert "player 1 accepted" in w.deliver(1, "bid 25 LTR")
    assert "player 2 accepted" in w.deliver(2, "pass")
    out = w.deliver(1, "undo")  # Bob has acted since
    assert "rejected" in out, out
    subject, body = w.last(ANN)
    assert "another move came after yours (#2" in body and "pbm 18xx undo ga-1" in body
    assert len(w.log()) == 2


def test_moves_in_the_subject_and_on_one_line_and_a_spare_pass(world):
    w = world
    raw = mk(f"GAME: ga-1\nPLAYER: 1\nSECRET: {w.secrets[1]}\n", sender=f"Ann <{ANN}>", subject="bid 20 LTR",
             msgid="<subject-1@test.example>")
    out = w.deliver_raw(raw)
    assert "player 1 accepted" in out, out  # was "no moves found"
    assert [a["type"] for a in w.log()] == ["bid"]
    out = w.deliver(2, "pass, pass")  # was "unknown move 'pass,'"; the second pass has nothing to pass
    assert "player 2 accepted" in out, out
    subject, body = w.last(BOB)
    assert "move 2 (pass): nothing left to pass - your turn had already ended; ignored" in body
    assert [a["type"] for a in w.log()] == ["bid", "pass"]

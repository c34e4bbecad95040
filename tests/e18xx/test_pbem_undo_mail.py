"""Issue 18 item 3: after `pbm 18xx undo` every player hears of the undo and of the next move
(outbox keys never reuse an action number from the undone history)."""
from __future__ import annotations

import email
import email.policy

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import OutboxMessage
from tests.e18xx.test_pbem_mail import PLAYERS, _body, ga, send, state  # noqa: F401 (ga: fixture)


def _mails(cli) -> list[tuple[str, str, str]]:
    with session_scope(cli.url) as s:
        rows = s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        out = []
        for r in rows:
            m = email.message_from_bytes(r.raw, policy=email.policy.default)
            out.append((r.key, str(m["To"]), _body(m)))
        return out


def test_undo_is_announced_and_the_next_move_reaches_everyone(ga):
    cli = ga[0]
    line, _ = send(ga, 1, "bid 20 LTR")
    assert "accepted" in line
    before = len(_mails(cli))
    out = cli("18xx", "undo", "ga-1").stdout
    assert "Removed action #1" in out and "Queued the new state to 3 player(s)" in out
    undo_mails = _mails(cli)[before:]
    assert sorted(to for _, to, _ in undo_mails) == sorted(a for _, a in PLAYERS)
    assert all("The moderator took back move #1 ([Ann] bid 20 LTR)" in body for *_, body in undo_mails)
    # the same move again (action #1 of the new history): the two others get its state mail
    mark = len(_mails(cli))
    line, _ = send(ga, 1, "bid 25 LTR")
    assert "accepted" in line
    new = _mails(cli)[mark:]
    assert sorted(to for _, to, _ in new) == sorted(a for _, a in PLAYERS)  # receipt + two state mails
    keys = [k for k, _, _ in _mails(cli)]
    assert len(keys) == len(set(keys))
    assert state(cli)[1] == 1

"""One shared mailbox, many workers (issue 14, pbm/intake.py): messages are stored by one worker at a
time and handled side by side, claimed per lane (the game on the GAME: line), so each 18GA game's moves
are applied in the order they were mailed and every message is handled exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import Counter
from email.message import EmailMessage

import pytest
from sqlalchemy import func, select

from pbm.db import session_scope
from pbm.e18xx.pbem.seed import mail_first_moves
from pbm.turnsheet.seed import populate
from pbm.intake import lane
from pbm.models import Action18, Game, InboundMessage, TurnState
from tests.conftest import ROOT, _pg_database

RUNNER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from pbm.pipeline.worker import Worker, worker_options
    url, out, maildir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    opts = worker_options(reports=out / "reports", archive=out / "archive", maildir=maildir, config=None,
                          once=True, poll=0.2, log=lambda line: print(line, flush=True))
    stats = Worker(url, opts).run()
    print("SUMMARY", stats.summary(), flush=True)
""")


@pytest.fixture
def pg_url(pg_template):
    yield from _pg_database(pg_template)


def _mail(body: str, sender: str = "ann@example.org") -> bytes:
    msg = EmailMessage()
    msg["From"] = f"Ann <{sender}>"
    msg["To"] = "games@example.org"
    msg["Subject"] = "moves"
    msg.set_content(body)
    return msg.as_bytes()


def test_lane_is_the_game_line_else_the_sender():
    assert lane(_mail("GAME: GA-7\nPLAYER: 2\nSECRET: x\npass\n")) == "game:ga-7"
    assert lane(_mail("> GAME: quoted\nhello\n  game = cr-1841\n")) == "game:cr-1841"
    assert lane(_mail("no header lines here\n", sender="Bob@Example.org")) == "from:bob@example.org"
    assert lane(b"\xff\xfe not a mail at all") == "misc"  # any bytes at all get a lane
    assert lane(b"") == "misc"


def test_two_workers_share_one_mailbox_each_message_once_each_game_in_order(pg_url, tmp_path):
    maildir = tmp_path / "maildir"
    mailed = mail_first_moves(pg_url, title="18GA", games=3, moves=5, maildir=maildir, seed=40, prefix="lane")
    names = populate(pg_url, games=3, humans=1, maildir=maildir, seed=41, prefix="cr")
    assert mailed == {"lane-0000": 5, "lane-0001": 5, "lane-0002": 5}
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, str(runner), pg_url, str(tmp_path / "out"), str(maildir)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    with session_scope(pg_url) as s:
        statuses = Counter(dict(s.execute(select(InboundMessage.status, func.count())
                                          .group_by(InboundMessage.status)).all()))
        assert statuses == {"accepted": 15 + 3}, (statuses, outs)  # every move in order: none refused
        for game in s.scalars(select(Game).where(Game.title == "18GA")):
            assert s.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == game.id)) == 5
        for game in s.scalars(select(Game).where(Game.name.in_(names))):
            assert [t.state for t in s.scalars(select(TurnState).where(TurnState.game_id == game.id)
                                               .order_by(TurnState.turn))] == ["archived", "open"]
    handled = Counter()
    for out in outs:
        for line in out.splitlines():
            if line.startswith("SUMMARY"):
                part = line.split("mail handled: ", 1)[1].split(";")[0]
                handled.update({k: int(v) for v, k in (x.split(" ", 1) for x in part.split(", ") if x != "none")})
    assert handled == {"accepted": 18}  # between them the workers handled each message once


def test_store_new_keeps_one_copy_and_only_the_start_of_a_huge_mail(sqlite_url):
    """Storing: the same bytes read twice (two sources, or a crash before the mailbox was told) are one
    message; a mail over the size limit is stored cut, as `pbm ingest` stores it."""
    from pbm.intake import store_new
    from pbm.mail.message import MAX_MESSAGE_BYTES, TRUNCATED_MARK
    from pbm.mail.sources import Arrived

    done: list[str] = []
    small = _mail("GAME: cr-1\nhello\n")
    huge = _mail("GAME: cr-2\n" + "x" * (MAX_MESSAGE_BYTES + 10))
    items = [Arrived(small, "maildir:a", None, lambda: done.append("a")),
             Arrived(small, "maildir:b", None, lambda: done.append("b")),
             Arrived(huge, "maildir:c", None, lambda: done.append("c"))]
    assert store_new(sqlite_url, items, retries=0).read == 3
    assert done == ["a", "b", "c"]  # each marked done in its mailbox once stored (or known)
    with session_scope(sqlite_url) as s:
        rows = list(s.scalars(select(InboundMessage).order_by(InboundMessage.seq)))
    assert [r.source for r in rows] == ["maildir:a", "maildir:c"]
    assert rows[1].raw.startswith(TRUNCATED_MARK) and len(rows[1].raw) < len(huge)

"""Issue 32, target 2: each arrived message is parsed once per handling (the lane's message object is
handed to the handling), and a header read from text is parsed once per (name, text) — with the same
stored rows and answers, byte for byte, as parsing every time."""

from __future__ import annotations

import email.headerregistry
import email.policy
import importlib.util
import mailbox
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from pbm.auth import hash_secret
from pbm.clock import utcnow
from pbm.cr.setup import SeatRequest, create_game
from pbm.db import session_scope
from pbm.models import Player
from pbm.pipeline.cycle import default_ingester
from pbm.pipeline.demo import _write_mails

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_week_for_tests", ROOT / "scripts" / "bench_week.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _game(url: str, players: int = 4) -> dict[int, str]:
    seats = [SeatRequest(line=i + 2, name=f"Player {i + 1}", email=f"p{i + 1}@example.org") for i in range(players)]
    with session_scope(url) as s:
        created = create_game(s, seed=1841, name="bench", seats=seats)
        created.game.deadline = utcnow() + timedelta(days=7)
        created.game.turn_key = "0" * 64
        secrets = {}
        for p in s.scalars(select(Player).where(Player.game_id == created.game.id)):
            secrets[p.number] = f"BNCH-{p.number:04d}-SECR"
            p.secret_hash = hash_secret(secrets[p.number])
    return secrets


def _ingest(tmp_path: Path, name: str, monkeypatch=None) -> tuple[dict, Counter]:
    """A game's first turn of mails ingested; (the tables' digests, parse_bytes calls by raw bytes)."""
    import pbm.mail.ingest
    import pbm.mail.message

    folder = tmp_path / name
    folder.mkdir()
    url = f"sqlite:///{folder / 'pbm.db'}"
    secrets = _game(url)
    box = mailbox.Maildir(str(folder / "maildir"), create=True)
    _write_mails(url, "bench", secrets, box, 1)
    parsed: Counter = Counter()
    real = pbm.mail.message.parse_bytes

    def counting(raw: bytes):
        parsed[raw] += 1
        return real(raw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pbm.mail.message, "parse_bytes", counting)
        mp.setattr(pbm.mail.ingest, "parse_bytes", counting)
        if monkeypatch is not None:
            monkeypatch(mp)
        with session_scope(url) as s:
            summary = default_ingester(s, folder / "maildir")
    assert summary == "4 accepted"
    return _bench().table_digests(url), parsed


def test_each_mail_is_parsed_once_and_the_rows_are_those_of_parsing_it_again(tmp_path):
    import pbm.intake

    digests, parsed = _ingest(tmp_path, "once")
    originals = [raw for raw in parsed if b"BNCH-" in raw]  # the mails as they came (the redacted copies: not)
    assert len(originals) == 4
    assert all(parsed[raw] == 1 for raw in originals), parsed.values()  # the lane's parse, handed along
    # nothing kept from the lane: the handling parses the bytes itself, as before
    again, parsed_again = _ingest(tmp_path, "again", lambda mp: mp.setattr(pbm.intake, "PARSED_KEPT_BYTES", 0))
    assert all(parsed_again[raw] == 2 for raw in parsed_again if b"BNCH-" in raw)
    assert digests == again  # every table, the stored mails and the queued answers: the same bytes


def test_a_changed_message_is_parsed_again(tmp_path, monkeypatch):
    """The object kept from finding the lane is used only while the row holds the bytes it was parsed
    from (a message's bytes changed meanwhile are parsed afresh)."""
    import pbm.intake
    import pbm.mail.ingest

    seen = []
    real = pbm.mail.ingest.handle

    def spy(session, row, ctx, msg=None):
        seen.append(msg)
        return real(session, row, ctx, msg=msg)

    real_stored = pbm.intake._stored

    def changed(url, parsed=None):
        out = real_stored(url, parsed)
        for mid in list(parsed or {})[:2]:
            raw, msg = parsed[mid]
            parsed[mid] = (raw + b" ", msg)  # as if the row's bytes were no longer these
        return out

    monkeypatch.setattr(pbm.mail.ingest, "handle", spy)
    monkeypatch.setattr(pbm.intake, "_stored", changed)
    _ingest(tmp_path, "changed")
    assert [m is None for m in seen] == [True, True, False, False]


HEADERS = [
    ("Content-Type", "text/plain; charset=\"utf-8\""),
    ("Content-Type", "multipart/mixed; boundary=\"===============123==\""),
    ("Content-Disposition", "attachment; filename*=utf-8''turn%20sheet.txt"),
    ("From", "=?utf-8?q?Ren=C3=A9?= <rene@example.org>"),
    ("To", "a@example.org, B <b@example.org>"),
    ("Subject", "=?utf-8?b?w6nDqcOp?= and a long subject " + "word " * 40),
    ("Date", "Sat, 28 Nov 2026 13:50:58 +0000"),
    ("Message-ID", "<x@example.org>"),
    ("X-Odd", "broken =?utf-8?q?=ZZ?= <<>>"),
    ("From", "no closing <bracket@example.org"),
]


@pytest.mark.parametrize("name,value", HEADERS)
def test_a_kept_header_is_the_header_made_anew(name, value):
    from pbm.mail.message import POLICY

    fresh = email.headerregistry.HeaderRegistry()(name, value)
    kept = POLICY.header_factory(name, value)
    assert POLICY.header_factory(name, value) is kept  # made once
    assert str(kept) == str(fresh) and kept.name == fresh.name
    assert type(kept).__mro__[1] is type(fresh).__mro__[1]  # the same specialised class
    assert [type(d) for d in kept.defects] == [type(d) for d in fresh.defects]
    for attr in ("params", "content_type", "addresses", "datetime", "filename"):
        if hasattr(fresh, attr):
            assert getattr(kept, attr) == getattr(fresh, attr)
    for policy in (email.policy.default, email.policy.SMTP, POLICY.clone(max_line_length=40)):
        assert kept.fold(policy=policy) == fresh.fold(policy=policy)
        assert kept.fold(policy=policy) == kept.fold(policy=policy)  # folding leaves it as it was


def test_values_that_are_not_text_are_made_anew():
    from datetime import datetime, timezone

    from pbm.mail.message import POLICY

    when = datetime(2026, 11, 28, 13, 0, tzinfo=timezone.utc)
    assert POLICY.header_factory("Date", when) is not POLICY.header_factory("Date", when)
    long = "x" * 1500
    assert POLICY.header_factory("Subject", long) is not POLICY.header_factory("Subject", long)

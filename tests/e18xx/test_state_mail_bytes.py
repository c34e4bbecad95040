"""The state mails of a move, byte for byte (issue 32, target 1: the work of a move made cheaper —
the replay's copy kept, what every reader's mail shares built once — must not change one byte of
what is queued).

A late computer-played 18GA game (every seat wanting the PDF with every mail, so the attachment goes
to five readers) and an anonymous one (each reader's own PDF) take three move mails each through
``pbm.mail.ingest.ingest``; every message they queue — its headers, its text and its PDF — is hashed.
The expected digest was computed with this file on the tree before the change (``ffd6d34``) and again
after it.  What differs from run to run is masked: the clock (fixed here), the Date header (the time
of queueing), the MIME boundaries (random).

If a mail's WORDING changes on purpose, this digest changes with it: rerun this file, check that only
the intended words moved (``PBM_SHOW_MAILS=DIR`` writes every queued message into DIR, to compare with
the same run before the change), and write the new digest here.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from pbm.db import session_scope

NAMES = ["Ada", "Ben", "Cid", "Dot", "Eve"]
NOW = datetime(2026, 11, 26, 9, 0, 0)
STORED = 300  # actions stored before the mails: operating rounds with tiles, stations, routes and events
MAILS = 3

# computed on ffd6d34 (before issue 32's twelfth session); recomputed in session 13 after the phase and bank words (issue 29: "not in Phase 4"; the text diff was only that)
# session 16: the game read from a kept log (the digests unchanged), then the AWAY hint line under the reply
# block (the text diff was only that line; PBM_SHOW_MAILS compared)
EXPECTED = {"plain": "c12106cacceb0221", "anonymous": "1f31210d4c148608"}


def _fixed_clock(monkeypatch) -> None:
    """Every pbm module's ``utcnow`` says NOW (the move clocks, stored times and texts)."""
    import pbm.clock

    def now() -> datetime:
        return NOW

    monkeypatch.setattr(pbm.clock, "utcnow", now)
    for mod in list(sys.modules.values()):  # (whatever another test left bound there)
        if (getattr(mod, "__name__", "") or "").startswith("pbm.") and callable(getattr(mod, "utcnow", None)):
            monkeypatch.setattr(mod, "utcnow", now)


def _masked(raw: bytes) -> bytes:
    raw = re.sub(rb"(?m)^Date: .*\r?\n", b"Date: <queued>\n", raw)
    return re.sub(rb"={15}\d+==", b"<boundary>", raw)


def _kept_game() -> list:
    """The late 18GA game the digests were computed on: the 303 actions pbm's computer player chose
    (seed 11, five seats) before it drew among equal moves by the game's seed (issue 28, session 16),
    kept as an action log so the digests still hold for the same moves."""
    from pbm.e18xx.core import actions as A

    kept = Path(__file__).parent / "referee_games" / "18GA-5p-computer-11.jsonl"
    return [A.action_from_dict(json.loads(line)) for line in kept.read_text(encoding="utf-8").splitlines()]


def _play(url: str, anonymous: bool) -> str:
    from pbm.auth import hash_secret
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.games import create_game, move_text
    from pbm.e18xx.pbem.notify import set_pdf_preference
    from pbm.mail.ingest import Context, ingest
    from pbm.models import Action18, OutboxMessage, Player
    from pbm.seats import SeatRequest

    name = "bytes-anon" if anonymous else "bytes-plain"
    number = {n: i for i, n in enumerate(NAMES, 1)}
    with session_scope(url) as s:
        seats = [SeatRequest(line=i, name=n, email=f"{n.lower()}@example.org") for i, n in enumerate(NAMES, 1)]
        row, _ = create_game(s, title="18GA", seed=11, name=name, seats=seats, anonymous=anonymous)
        row.turn_key = "0" * 32
        secrets = {}
        for p in s.scalars(select(Player).where(Player.game_id == row.id)):
            secrets[p.number] = f"BYTE-{p.number:04d}-SECR"
            p.secret_hash = hash_secret(secrets[p.number])
            if not anonymous:
                set_pdf_preference(row, p.number, "every")
        engine = Game("18GA", NAMES, 11, (), None)
        kept = iter(_kept_game())
        for seq in range(1, STORED + 1):
            act = next(kept)
            who = engine.controller(act.entity)
            engine.process(act)
            s.add(Action18(game_id=row.id, seq=seq, player_number=number.get(who), action=act.to_dict()))
        row.turn = engine.state.turn
        gid = row.id
    ctx = Context(sender="pbm@example.org", now=NOW)
    for i in range(MAILS):
        act = next(kept)
        who = engine.controller(act.entity)
        line = move_text(engine, act).split("   #")[0]
        engine.process(act)
        seat = number[who]
        raw = (f"From: {who.lower()}@example.org\r\nTo: pbm@example.org\r\nSubject: move {i}\r\n"
               f"Message-ID: <{name}-{i}@example.org>\r\nDate: Thu, 26 Nov 2026 09:00:0{i} +0000\r\n\r\n"
               f"GAME: {name}\r\nPLAYER: {seat}\r\nSECRET: {secrets[seat]}\r\n{line}\r\n").encode()
        with session_scope(url) as s:
            outcome = ingest(s, raw, ctx)
        assert outcome.status == "accepted", outcome.line()
    h = hashlib.sha256()
    show = os.environ.get("PBM_SHOW_MAILS")
    with session_scope(url) as s:
        msgs = list(s.scalars(select(OutboxMessage).where(OutboxMessage.game_id == gid).order_by(OutboxMessage.id)))
        assert len(msgs) == MAILS * len(NAMES)
        pdfs = sum(b"application/pdf" in m.raw for m in msgs)
        assert pdfs == len(msgs) if not anonymous else 0 < pdfs < len(msgs)  # every reader's / some readers'
        for m in msgs:
            data = _masked(m.raw)
            h.update(f"{m.key}\0{m.kind}\0{','.join(m.recipients)}\0{len(data)}\0".encode() + data)
            if show:
                Path(show, f"{name}-{m.id:03d}.eml").write_bytes(data)
    return h.hexdigest()[:16]


@pytest.mark.parametrize("kind", ["plain", "anonymous"])
def test_the_state_mails_of_a_move_are_the_bytes_they_were(sqlite_url, monkeypatch, kind):
    from pbm.e18xx.replay import REPLAYS

    _fixed_clock(monkeypatch)
    REPLAYS.clear()
    got = _play(sqlite_url, kind == "anonymous")
    assert got == EXPECTED[kind], f"the {kind} game's state mails are not the bytes they were (digest {got})"

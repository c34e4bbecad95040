"""pbm.collector: the cyclic collector is paused inside a block and left as it was after it."""

from __future__ import annotations

import gc

import pytest

from pbm import collector


@pytest.mark.parametrize("before", [True, False])
def test_paused_restores_the_collector_as_it_was(before):
    (gc.enable if before else gc.disable)()
    try:
        with collector.paused():
            assert not gc.isenabled()
        assert gc.isenabled() is before
        with pytest.raises(RuntimeError), collector.paused():
            raise RuntimeError("a failure inside")
        assert gc.isenabled() is before
    finally:
        gc.enable()


def test_rendering_in_this_process_leaves_the_collector_on(sqlite_url, tmp_path, monkeypatch):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Game
    from pbm.report.render import render_turn
    from tests.report.helpers import build_game

    monkeypatch.setenv("PBM_RENDER_WORKERS", "1")
    with session_scope(sqlite_url) as s:
        build_game(s, evil=False)
    seen = []
    from pbm.report import pdf

    real = pdf.player_report

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(pdf, "player_report", spy)
    assert gc.isenabled()
    with session_scope(sqlite_url) as s:
        render_turn(s, s.scalar(select(Game)), out=tmp_path)
    assert seen and not any(seen)  # paused while each report is built
    assert gc.isenabled()


def test_an_18xx_move_mail_is_handled_with_the_collector_paused_and_leaves_it_on(sqlite_url, monkeypatch):
    """Its copy of the replayed state dies young (pbm/e18xx/kind.py, issue 32); answered, all is as before."""
    from sqlalchemy import select

    from pbm.auth import hash_secret
    from pbm.db import session_scope
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem import mailplay
    from pbm.e18xx.pbem.computer import choose
    from pbm.e18xx.pbem.games import create_game, move_text
    from pbm.mail.ingest import Context, ingest
    from pbm.models import OutboxMessage, Player
    from pbm.seats import SeatRequest

    names = ["Ann", "Bob", "Cy"]
    with session_scope(sqlite_url) as s:
        row, _ = create_game(s, title="18GA", seed=5, name="gc-1",
                             seats=[SeatRequest(line=i, name=n, email=f"{n.lower()}@example.org")
                                    for i, n in enumerate(names, 1)])
        for p in s.scalars(select(Player).where(Player.game_id == row.id)):
            p.secret_hash = hash_secret(f"GCGC-{p.number:04d}-SECR")
    engine = Game("18GA", names, 5, (), None)
    act = choose(engine)
    seat = names.index(engine.controller(act.entity)) + 1
    seen = []
    real = mailplay.broadcast

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(mailplay, "broadcast", spy)
    raw = (f"From: {names[seat - 1].lower()}@example.org\r\nTo: pbm@example.org\r\nSubject: move\r\n"
           f"Message-ID: <gc-1@example.org>\r\n\r\nGAME: gc-1\r\nPLAYER: {seat}\r\nSECRET: GCGC-{seat:04d}-SECR\r\n"
           f"{move_text(engine, act).split('   #')[0]}\r\n").encode()
    assert gc.isenabled()
    with session_scope(sqlite_url) as s:
        assert ingest(s, raw, Context(sender="pbm@example.org")).status == "accepted"
    assert seen == [False]  # the state mails were made with the collector paused
    assert gc.isenabled()
    with session_scope(sqlite_url) as s:
        assert len(list(s.scalars(select(OutboxMessage)))) == 3

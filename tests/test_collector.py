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

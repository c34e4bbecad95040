"""``PBM_SQLITE_NO_SYNC=1`` (set by the test suite for its throwaway databases) turns off SQLite's fsync per
commit; without it a game's database keeps SQLite's default, FULL (pbm/db.py)."""

from __future__ import annotations

from sqlalchemy import text

from pbm import db as pbm_db


def _synchronous(url: str) -> int:
    engine = pbm_db.get_engine(url, migrate=False)
    try:
        with engine.connect() as c:
            return c.execute(text("PRAGMA synchronous")).scalar()
    finally:
        engine.dispose()


def test_a_real_game_database_waits_for_the_disk_and_a_scratch_one_does_not(tmp_path, monkeypatch):
    monkeypatch.delenv("PBM_SQLITE_NO_SYNC", raising=False)
    assert _synchronous(f"sqlite:///{tmp_path / 'game.db'}") == 2  # FULL
    monkeypatch.setenv("PBM_SQLITE_NO_SYNC", "1")
    assert _synchronous(f"sqlite:///{tmp_path / 'scratch.db'}") == 0  # OFF

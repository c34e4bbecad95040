"""Issue 34, item 12: a run killed while it archives leaves its temporary folders (``.turn-1.*.tmp``,
``.render.*.tmp``, ``.final.*.tmp``) beside the bundles.  ``pbm archive --verify`` reports them (and exits
non-zero); a later archive run removes those no pbm has touched for an hour (a slower one may still be
writing a younger one), never a bundle or anything else."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from pbm.report.archive import STALE_AFTER, leftovers, sweep_leftovers


def _leftover(folder: Path, prefix: str, age: float) -> Path:
    """A temporary folder as ``pbm.bundle.build`` or the archive's render makes it, half filled, its last
    change ``age`` seconds ago (what a SIGKILL at that moment leaves)."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder, prefix=prefix, suffix=".tmp"))
    (tmp / "mails").mkdir()
    (tmp / "mails" / "00001-abc.eml").write_bytes(b"Subject: x\r\n\r\nhalf")
    then = time.time() - age
    for p in [tmp / "mails" / "00001-abc.eml", tmp / "mails", tmp]:
        os.utime(p, (then, then))
    return tmp


@pytest.fixture
def archived(cli, players_csv, tmp_path):
    cli("new-game", "continental-rails", "--players", players_csv, "--name", "lg", "--no-welcome")
    cli("run-turn", "lg")
    out = cli("archive", "lg", "--turn", "1", "--reports", tmp_path / "reports", "--archive", tmp_path / "archive",
              "--no-site").stdout
    assert "(written)" in out
    return tmp_path / "archive" / "lg"


def test_verify_reports_what_a_killed_run_left(cli, archived, tmp_path):
    assert "1 bundle(s) of lg intact." in cli("archive", "lg", "--verify", "--archive", tmp_path / "archive").stdout
    old_turn = _leftover(archived, ".turn-2.", STALE_AFTER + 60)
    new_render = _leftover(archived, ".render.", 5)
    result = cli("archive", "lg", "--verify", "--archive", tmp_path / "archive", expect=2)
    assert f"{old_turn}: left by an interrupted archive run" in result.stdout
    assert f"{new_render}: left by an interrupted archive run" in result.stdout
    assert "2 problem(s) in the archive of lg" in result.stderr


def test_a_later_archive_run_removes_only_stale_leftovers(cli, archived, tmp_path):
    old_turn = _leftover(archived, ".turn-2.", STALE_AFTER + 60)
    old_render = _leftover(archived, ".render.", STALE_AFTER + 60)
    old_final = _leftover(archived, ".final.", STALE_AFTER + 60)
    young = _leftover(archived, ".turn-2.", 5)  # perhaps another pbm writing it now: kept
    other = archived / ".notes.tmp"
    other.mkdir()  # not a name pbm gives: kept
    os.utime(other, (time.time() - 2 * STALE_AFTER,) * 2)
    out = cli("archive", "lg", "--turn", "1", "--reports", tmp_path / "reports", "--archive", tmp_path / "archive",
              "--no-site").stdout
    assert "(unchanged)" in out
    assert not old_turn.exists() and not old_render.exists() and not old_final.exists()
    assert young.exists() and other.exists() and (archived / "turn-1").is_dir()
    assert [p for p, _ in leftovers(archived)] == [young]


def test_a_frozen_leftover_is_removed_too(tmp_path):
    """A kill between freezing the bundle (owner read-only) and renaming it into place."""
    from pbm.bundle import freeze

    tmp = _leftover(tmp_path, ".turn-3.", STALE_AFTER + 60)
    freeze(tmp)
    os.utime(tmp, (time.time() - 2 * STALE_AFTER,) * 2)
    assert sweep_leftovers(tmp_path) == [tmp]
    assert not tmp.exists()

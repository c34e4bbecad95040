"""Workers on separate hosts (issue 34, docs/hosting.md "Workers on separate hosts"): two `pbm worker`
processes, each in its own network namespace, reach a private PostgreSQL server (and an SMTP server)
over their veth links.  Host A's link is cut in the middle of a game turn: the server notices the dead
client (TCP keepalives) and drops A's sessions, its claim on the game with them; host B takes the game
over and finishes the turn; A's link comes back while B holds the game, and A goes on.

Proved: every step of the turn, every mailed sheet, every 18GA move and every mail (receipts, reports,
moves' answers) exactly once; the turn archived once and whole; and with the fence of pbm/locks.py, A
commits nothing after its claim lapsed.  Without the fence (the last two tests) A carries on with work it
no longer owns: it marks a move B applied as an error and tells the player so, and it commits the rest
of a turn B holds.  The synchronisation is the
workers' stop points (files the test writes) and the server's own view of A's sessions, never a sleep.
A cut inside a step's transaction (the game's row held, the turn resolved but not committed) is the
soak's point ``resolving``; the 18GA test below cuts inside a move's transaction.  The soak of many cuts
at random points is scripts/multihost.py."""

from __future__ import annotations

import pytest

from tests.hosting.multihost import run_cut, run_mail_cut, unavailable

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=f"multi-host harness: {unavailable()}")


def _report(result: dict) -> str:
    """The result and the workers' output (not their COMMIT/ROLLBACK lines), for a failure's message."""
    lines = [f"{k}: {v}" for k, v in result.items() if k not in ("outputs", "server_log")]
    for name, seen in result.get("outputs", {}).items():
        lines += [f"--- worker {name}", *[x for x in seen if x not in ("COMMIT", "ROLLBACK")][-80:]]
    return "\n".join(lines)


def test_a_cut_host_loses_its_claim_another_finishes_the_turn_nothing_stale(tmp_path):
    result = run_cut(tmp_path, point="resolved", fence=True, seed=34)
    assert result["problems"] == [], _report(result)
    assert result["a_unit"].startswith("raised ClaimLost"), _report(result)
    assert result["stale"] == 0, _report(result)
    assert result["b_unit"] == "-> archived", _report(result)
    assert result["archives"] == ["shared/archive/mh-0000/turn-1"], _report(result)


def test_an_18xx_move_cut_half_way_is_applied_once_by_the_other_host(tmp_path):
    """18GA by email: six moves in the shared Maildir; A's link is cut inside the transaction of the third
    (the move applied, not committed).  Every move is applied once, in order; every mail accepted once;
    every answer (receipts, the new state to every player) delivered once."""
    result = run_mail_cut(tmp_path, at=3, moves=6, fence=True, seed=37)
    assert result["problems"] == [], _report(result)
    assert result["actions"] == 6 and result["inbound"] == {"accepted": 6}, _report(result)
    assert result["stale"] == 0, _report(result)


def test_with_folders_local_to_each_host_a_turn_taken_over_after_its_report_is_archived_without_the_moderator_s(
        tmp_path):
    """Why docs/hosting.md asks for shared reports and archive folders: the mail still goes out whole and
    once (the host that takes over renders the players' missing PDFs again), but the archive is made
    from the taking-over host's own reports folder, where the moderator's report never was."""
    result = run_cut(tmp_path, point="reported", fence=True, seed=38, shared_files=False)
    assert result["stale"] == 0 and result["b_unit"] == "-> archived", _report(result)
    assert result["problems"] == ["the turn's archive holds reports ['player-1.pdf', 'player-2.pdf'], "
                                  "not ['moderator.pdf', 'player-1.pdf', 'player-2.pdf']"], _report(result)


def test_without_the_fence_the_cut_host_marks_a_move_the_other_host_applied_as_an_error(tmp_path):
    """The hazard the fence closes, on the mail path: A's commit fails on its dead connection, its error
    path reconnects and marks the message `error` — after B applied that very move — and tells the player
    his move could not be handled.  (With the fence, the reconnected transaction is refused: above.)"""
    result = run_mail_cut(tmp_path, at=3, moves=6, fence=False, seed=37)
    assert result["actions"] == 6, _report(result)  # B applied every move once ...
    assert result["inbound"] == {"accepted": 5, "error": 1}, _report(result)  # ... and A undid one's record
    assert result["mails"]["receipt"] == 7, _report(result)  # an extra answer: "could not handle your message"


def test_without_the_fence_the_cut_host_carries_on_with_a_turn_it_no_longer_owns(tmp_path):
    """A's pool reconnects when its link returns and A commits the rest of the turn while B holds the game
    (the turn still looks whole here only because B was held until A was done)."""
    result = run_cut(tmp_path, point="resolved", fence=False, seed=35)
    assert result["stale"] > 0, _report(result)
    assert result["a_unit"] == "-> archived", _report(result)

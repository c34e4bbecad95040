"""Workers on separate hosts (issue 34, docs/hosting.md "Workers on separate hosts"): two `pbm worker`
processes, each in its own network namespace, reach a private PostgreSQL server (and an SMTP server)
over their veth links.  Host A's link is cut in the middle of a game turn: the server notices the dead
client (TCP keepalives) and drops A's sessions, its claim on the game with them; host B takes the game
over and finishes the turn; A's link comes back while B holds the game, and A goes on.

Proved: every step of the turn, every mailed sheet and every mail (receipts, reports) exactly once; the
turn archived once; and with the fence of pbm/locks.py, A commits nothing after its claim lapsed (without
it, A carries on with the turn it no longer owns: see the second test).  The synchronisation is the
workers' stop points (files the test writes) and the server's own view of A's sessions, never a sleep.
The soak of many cuts at random points is scripts/multihost.py."""

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
    assert result["archives"] == {"A": [], "B": ["mh-0000"]}, _report(result)


def test_a_cut_inside_a_step_s_transaction_rolls_it_back_and_another_host_does_the_step(tmp_path):
    """Cut while A holds the game's row inside the resolve step (the turn resolved, not committed): the
    server ends A's session, which rolls the resolution back and frees the row; B resolves the turn once."""
    result = run_cut(tmp_path, point="resolving", fence=True, seed=36)
    assert result["problems"] == [], _report(result)
    assert result["a_unit"].startswith("raised "), _report(result)  # its dead connection, or ClaimLost
    assert result["stale"] == 0, _report(result)
    assert result["b_unit"] == "-> archived", _report(result)


def test_an_18xx_move_cut_half_way_is_applied_once_by_the_other_host(tmp_path):
    """18GA by email: six moves in the shared Maildir; A's link is cut inside the transaction of the third
    (the move applied, not committed).  Every move is applied once, in order; every mail accepted once;
    every answer (receipts, the new state to every player) delivered once."""
    result = run_mail_cut(tmp_path, at=3, moves=6, fence=True, seed=37)
    assert result["problems"] == [], _report(result)
    assert result["actions"] == 6 and result["inbound"] == {"accepted": 6}, _report(result)
    assert result["stale"] == 0, _report(result)


def test_without_the_fence_the_cut_host_carries_on_with_a_turn_it_no_longer_owns(tmp_path):
    """The hazard: A's pool reconnects when its link returns and A commits the rest of the turn while B
    holds the game.  (The turn still looks whole here only because B was held until A was done.)"""
    result = run_cut(tmp_path, point="resolved", fence=False, seed=35)
    assert result["stale"] > 0, _report(result)
    assert result["a_unit"] == "-> archived", _report(result)

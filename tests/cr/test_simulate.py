"""Calibration seasons (pbm.cr.simulate): the measuring on made-up history, a short
real season when the engine is present, and the full calibration behind PBM_SLOW=1."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbm.cr.simulate import Measured, SeasonSummary, measure
from pbm.models import Event, LedgerEntry, RailroadTurn
from tests.cr.orders_helpers import ensure_setup_works

ROOT = Path(__file__).resolve().parents[2]
HAVE_ENGINE = importlib.util.find_spec("pbm.cr.resolve") is not None


def _state(climate: str, cash: int = 1000, rrs: int = 6, pcs: int = 20) -> dict:
    return {
        "game": {"climate": climate},
        "players": [{"number": 1, "cash": cash}],
        "railroads": [{"code": f"R{i}", "miles": 100, "shares_public": 1000, "status": "active"} for i in range(rrs)],
        "private_companies": [{"status": "bank"}] * pcs,
    }


def _by(facts, start):
    return next(f for f in facts if f.fact.startswith(start))


def test_measure_on_made_up_history():
    m = Measured()
    climates = ["Normal", "Good", "Panic", "Recession", "Normal"]
    for t, c in enumerate(climates, start=1):
        m.snapshots[(1, t)] = _state(c)
    m.final_climate[1] = "Improved"
    m.events = [
        Event(game_id=1, turn=1, kind="efficiency", railroad="R0", amount=1000,
              text="efficiency 90 → 91", data={"decay": 5, "gain": 6}),
        Event(game_id=1, turn=2, kind="efficiency", railroad="R0", amount=1000,
              text="efficiency 91 → 90", data={"decay": 5, "gain": 4}),
        Event(game_id=1, turn=2, kind="operations", railroad="R0", data={"revenue": 1000, "expenses": 650}),
        Event(game_id=1, turn=4, kind="bank-failure", player_number=1, amount=300),
        Event(game_id=1, turn=4, kind="tycoon-bankrupt", player_number=1),
    ]
    m.ledger[(1, 4)] = [
        LedgerEntry(game_id=1, turn=4, seq=1, step="6.2", source="public", target="player:1", amount=200, memo="sale"),
        LedgerEntry(game_id=1, turn=4, seq=2, step="7.4", source="player:1", target="public", amount=300,
                    memo="bank failure"),
    ]
    m.railroad_turns = [RailroadTurn(game_id=1, turn=2, code="R0", start_price=10, end_price=12,
                                     data={"market": {"start": 10, "end": 12, "public_offer": 100, "public_bid": 250}})]
    seasons = [SeasonSummary("s", 21, True, 21, 1_200_000, 1, 1.0)]
    facts = measure(m, seasons)
    assert _by(facts, "capital depreciation").passed
    assert _by(facts, "$10/mile").passed  # 10 × 0.5 − 5 = 0
    assert _by(facts, "Excellent").passed
    assert _by(facts, "panics only").passed  # the Panic of turn 3 follows Good
    bank = _by(facts, "bank failures")
    assert bank.passed and "25.0%" in bank.measured  # 300 of 1000 + 200
    assert _by(facts, "public bids").passed and _by(facts, "public seldom").passed
    assert _by(facts, "game ends").passed and _by(facts, "someone passes").passed
    assert _by(facts, "about 6").passed and _by(facts, "about 20").passed
    # a Panic after Normal, a failure in Normal, and a cut-short season are caught
    m.snapshots[(1, 2)] = _state("Normal")
    m.events[3].turn = 1
    facts = measure(m, seasons)
    assert _by(facts, "panics only").passed is False
    assert _by(facts, "bank failures").passed is False


@pytest.mark.skipif(not HAVE_ENGINE, reason="the engine (pbm.cr.resolve) is not merged yet")
def test_a_short_season_runs_and_is_measured(tmp_path):
    from pbm.cr.simulate import simulate

    ensure_setup_works()
    report = simulate(1, 2, 3, f"sqlite:///{tmp_path / 'sim.db'}")
    assert report.seasons[0].turns == 2
    text = report.render()
    assert "capital depreciation per turn" in text and "stock price bounds" in text
    assert report.alive["loans taken"] > 0 and report.alive["PCs sold"] > 0


def test_script_rejects_bad_arguments():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "simulate.py"), "--seasons", "0"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "must be 1 or more" in result.stderr


@pytest.mark.skipif(os.environ.get("PBM_SLOW") != "1", reason="full calibration: set PBM_SLOW=1")
@pytest.mark.skipif(not HAVE_ENGINE, reason="the engine (pbm.cr.resolve) is not merged yet")
def test_full_calibration(tmp_path):
    from pbm.cr.simulate import simulate

    ensure_setup_works()
    seasons = int(os.environ.get("PBM_SEASONS", "8"))
    report = simulate(seasons, None, 1, f"sqlite:///{tmp_path / 'sim.db'}")
    print(report.render())
    assert not report.failed, report.render()


def test_pbm_simulate_command(cli, monkeypatch):
    """`pbm simulate --seasons 1` runs through the engine's CLI into pbm.cr.simulate.main."""
    from pbm.cr import simulate as sim

    calls = {}

    def fake(seasons, turns, seed, url, progress=None):
        calls.update(seasons=seasons, url=url)
        return sim.SimReport(seed=seed, facts=[sim.Fact("x", "§0", "a", "a", True, 1)])

    monkeypatch.setattr(sim, "simulate", fake)
    result = cli("simulate", "--seasons", "2")
    assert calls["seasons"] == 2 and calls["url"].startswith("sqlite:///") and "1 of 1 facts pass" in result.stdout

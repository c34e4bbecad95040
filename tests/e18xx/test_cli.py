import json

import pytest
from typer.testing import CliRunner

from pbm.cli.e18xx import app
from pbm.e18xx.core.game import Game
from pbm.e18xx.replay import expected_result

runner = CliRunner()


@pytest.fixture
def export_file(tmp_path, bank_export):
    p = tmp_path / "game.json"
    p.write_text(json.dumps(bank_export))
    return p


def test_replay_json(export_file, bank_export):
    res = runner.invoke(app, ["replay", str(export_file), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == expected_result(bank_export)


def test_replay_summary(export_file):
    res = runner.invoke(app, ["replay", str(export_file)])
    assert res.exit_code == 0
    assert "finished (bank)" in res.output and "Player 3" in res.output


def test_replay_events(export_file, tmp_path):
    """`pbm 18xx replay FILE --events` (as `pbm 18xx log --events`): each action with what it caused."""
    res = runner.invoke(app, ["replay", str(export_file), "--events"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert "#8 Player 4: bid 20 LTR" in lines and "  Player 4 gets LTR for $20" in lines
    assert any(ln.startswith("  Player 4 sells 2 CoG shares for $120") for ln in lines)
    assert "finished (bank)" in lines[-5]  # the result after the events
    res = runner.invoke(app, ["replay", str(export_file), "--events", "--json"])
    kinds = {e["kind"] for e in json.loads(res.output)["events"]}
    assert {"auction_won", "route", "dividend", "price", "phase", "round_end", "game_over"} <= kinds
    g = Game("18GA", ["Ann", "Bob", "Cy"])  # our own log format too
    g.process(next(a for a in g.legal_actions() if getattr(a, "company", "") == "LTR"))
    p = tmp_path / "log.json"
    p.write_text(json.dumps(g.to_log()))
    res = runner.invoke(app, ["replay", str(p), "--events"])
    assert res.exit_code == 0 and "  Ann gets LTR for $20" in res.output.splitlines(), res.output


def test_show_and_moves(export_file):
    res = runner.invoke(app, ["show", str(export_file)])
    assert res.exit_code == 0
    for word in ("Players", "Corporations", "Stock chart", "Map", "Atlanta", "Game over"):
        assert word in res.output
    res = runner.invoke(app, ["moves", str(export_file)])
    assert res.exit_code == 0 and "game is over" in res.output


def test_own_log_format_and_moves(tmp_path):
    g = Game("18GA", ["Ann", "Bob", "Cy"])
    p = tmp_path / "log.json"
    p.write_text(json.dumps(g.to_log()))
    res = runner.invoke(app, ["moves", str(p)])
    assert res.exit_code == 0
    assert "Ann" in res.output and "bid 20 LTR" in res.output and "pass" in res.output
    res = runner.invoke(app, ["show", str(p)])
    assert res.exit_code == 0 and "Stock Round 1: the sale of the Private Companies" in res.output  # 18GA 3.1's words


@pytest.mark.parametrize("content,needle", [
    (None, "cannot read"),
    ("not json {", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"title": "18ZZ", "players": ["a", "b", "c"], "actions": []}', "unknown title"),
    ('{"foo": 1}', "neither"),
])
def test_bad_input_one_line_no_traceback(tmp_path, content, needle):
    p = tmp_path / "bad.json"
    if content is not None:
        p.write_text(content)
    for cmd in ("replay", "show", "moves"):
        res = runner.invoke(app, [cmd, str(p)])
        assert res.exit_code != 0
        assert needle in res.output
        assert "Traceback" not in res.output
        assert len(res.output.strip().splitlines()) == 1

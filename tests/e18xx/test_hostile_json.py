"""Hostile game files: `pbm 18xx replay/show/moves` and `pbm 18xx import` answer every malformed
export with one specific `error:` line and exit code 1 — never a traceback, never a hang.

The mutations are deterministic (a numpy Generator seeded per case) so a failure replays exactly."""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

import numpy as np
import pytest
from typer.testing import CliRunner

from pbm.cli import app as pbm_app
from pbm.cli.e18xx import app

runner = CliRunner()


def _set_at(data: dict[str, Any], rng: np.random.Generator, value: Any) -> dict[str, Any]:
    """Replace one randomly chosen field of one randomly chosen action by ``value``."""
    acts = data["actions"]
    a = acts[int(rng.integers(len(acts)))]
    if a:
        key = sorted(a)[int(rng.integers(len(a)))]
        a[key] = value
    return data


MUTATIONS: dict[str, Callable[[dict[str, Any], np.random.Generator], Any]] = {
    "actions not a list": lambda d, r: {**d, "actions": {"0": 1}},
    "action not an object": lambda d, r: {**d, "actions": d["actions"][:5] + [17, "x", None]},
    "players not a list": lambda d, r: {**d, "players": "Ann,Bob"},
    "player without name": lambda d, r: {**d, "players": [{"id": 1}] + d["players"][1:]},
    "players empty": lambda d, r: {**d, "players": []},
    "title unknown": lambda d, r: {**d, "title": "18ZZ"},
    "title a number": lambda d, r: {**d, "title": 18},
    "settings a string": lambda d, r: {**d, "settings": "seed=1"},
    "seed not a number": lambda d, r: {**d, "settings": {**(d.get("settings") or {}), "seed": "abc"}},
    "optional rules a number": lambda d, r: {**d, "settings": {**(d.get("settings") or {}), "optional_rules": 5}},
    "field null": lambda d, r: _set_at(d, r, None),
    "field a list": lambda d, r: _set_at(d, r, [1, [2, {}]]),
    "field huge number": lambda d, r: _set_at(d, r, 10 ** 40),
    "field negative": lambda d, r: _set_at(d, r, -7),
    "field an object": lambda d, r: _set_at(d, r, {"a": {"b": 1}}),
    "field a long string": lambda d, r: _set_at(d, r, "\u202e" + "Ω" * 5000),
    "type unknown": lambda d, r: _set_at(d, r, "teleport"),
    "ids shuffled": lambda d, r: {**d, "actions": [d["actions"][i] for i in r.permutation(len(d["actions"]))]},
    "undo past start": lambda d, r: {**d, "actions": [{"type": "undo", "entity": "x", "id": 1,
                                                     "action_id": -5}] + d["actions"]},
    "result a list": lambda d, r: {**d, "result": [1, 2]},
}


@pytest.fixture(scope="module")
def export() -> dict[str, Any]:
    from pbm.e18xx.fixtures import load_fixture

    data, where = load_fixture("18GA/18GA_game_end_bankrupt.json")
    if data is None:
        pytest.skip(where)
    return data


def _answers_cleanly(res, path) -> None:
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"{path}: {type(res.exception).__name__}: {res.exception}")
    assert "Traceback" not in res.output
    if res.exit_code != 0:
        assert res.exit_code in (1, 2)  # `pbm 18xx` commands exit 1, the moderator's commands 2
        assert "error" in res.output.lower()


@pytest.mark.parametrize("name", sorted(MUTATIONS))
@pytest.mark.parametrize("seed", [0, 1])
def test_mutated_export_replay_show_moves(tmp_path, export, name, seed):
    rng = np.random.default_rng([seed, sorted(MUTATIONS).index(name)])
    data = MUTATIONS[name](copy.deepcopy(export), rng)
    p = tmp_path / "g.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    for cmd in ("replay", "show", "moves"):
        _answers_cleanly(runner.invoke(app, [cmd, str(p)]), f"{cmd} {name}")


@pytest.mark.parametrize("raw,needle", [
    (b"\xff\xfe{\x00}\x00", "not UTF-8"),
    ('{"title": "18GA", "players": ["Åsa"]}'.encode("latin-1"), "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"", "not JSON"),
])
def test_undecodable_files(tmp_path, raw, needle):
    p = tmp_path / "g.json"
    p.write_bytes(raw)
    for cmd in ("replay", "show", "moves"):
        res = runner.invoke(app, [cmd, str(p)])
        _answers_cleanly(res, cmd)
        assert res.exit_code == 1 and needle in res.output, res.output


def test_import_refuses_hostile_exports_without_traceback(tmp_path, export, monkeypatch):
    monkeypatch.setenv("PBM_DB", f"sqlite:///{tmp_path / 'pbm.db'}")
    cases = {"latin1.json": '{"players": ["Åsa"], "actions": []}'.encode("latin-1"),
             "deep.json": b"[" * 100_000 + b"]" * 100_000}
    for name in ("action not an object", "players not a list", "title a number", "actions not a list"):
        data = MUTATIONS[name](copy.deepcopy(export), np.random.default_rng(0))
        cases[name.replace(" ", "_") + ".json"] = json.dumps(data).encode()
    for fname, raw in cases.items():
        p = tmp_path / fname
        p.write_bytes(raw)
        res = runner.invoke(pbm_app, ["--db", f"sqlite:///{tmp_path / 'pbm.db'}", "18xx", "import", str(p)])
        _answers_cleanly(res, fname)
        assert res.exit_code == 2, (fname, res.output)


def test_show_after_a_bankruptcy_ends_the_game(tmp_path, export):
    """Found by the mutations above: `show` on a game ended by bankruptcy left two players, fewer
    than the certificate-limit table lists, and crashed. It now shows the final state."""
    p = tmp_path / "g.json"
    p.write_text(json.dumps(export), encoding="utf-8")
    res = runner.invoke(app, ["show", str(p)])
    assert res.exit_code == 0, res.output
    assert "Game over" in res.output

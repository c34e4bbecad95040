"""The family engine: titles found by name, hooks, no title facts in shared code,
every export shape 18xx.games writes, and the state at any action."""
import ast
import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pbm.e18xx
from pbm.cli.e18xx import app
from pbm.e18xx.core.errors import ReplayError
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.hooks import TitleHooks, load_hooks
from pbm.e18xx.core.title import canonical_title, known_titles, load_title
from pbm.e18xx.render.view import state_dict
from pbm.e18xx.replay import Replayer, expected_result, export_players, replay, site_rules, summary

runner = CliRunner()
E18XX = Path(pbm.e18xx.__file__).parent


def hotseat(export):
    """The same game as a hotseat export: players by name only, result keyed by name."""
    ex = copy.deepcopy(export)
    names = {str(p["id"]): p["name"] for p in ex["players"]}
    ids = set(names)
    for a in ex["actions"]:
        for d in [a, *(a.get("auto_actions") or [])]:
            if str(d.get("entity")) in ids:
                d["entity"] = names[str(d["entity"])]
    ex["players"] = [{"name": p["name"]} for p in ex["players"]]
    ex["result"] = {names[k]: v for k, v in ex["result"].items()}
    return ex


def test_registry_finds_titles_by_any_spelling():
    assert "18GA" in known_titles()
    assert canonical_title(" 18ga ") == "18GA"
    assert canonical_title("18ZZ") is None
    assert load_title("18ga") is load_title("18GA")


def test_unknown_title_names_the_known_ones():
    with pytest.raises(Exception) as exc:
        Game("18ZZ", ["a", "b", "c"])
    assert "unknown title '18ZZ'" in str(exc.value) and "18GA" in str(exc.value)


def test_hotseat_export_without_ids_replays_to_the_same_result(bank_export):
    ex = hotseat(bank_export)
    assert "id" not in ex["players"][0]
    assert export_players(ex)[0] == (ex["players"][0]["name"], ex["players"][0]["name"])
    assert replay(ex) == expected_result(ex) == expected_result(bank_export)


def test_export_without_settings_or_title_or_names(bank_export):
    ex = {k: v for k, v in bank_export.items() if k != "settings"}
    ex["actions"] = ex["actions"][:20]
    assert Replayer(ex).run().state.round.kind in ("auction", "stock")
    with pytest.raises(ReplayError, match="names no title"):
        Replayer({**ex, "title": None})
    with pytest.raises(ReplayError, match="unknown title '18ZZ'"):
        Replayer({**ex, "title": "18ZZ"})
    with pytest.raises(ReplayError, match="player 2 of the export has no name"):
        Replayer({**ex, "players": [{"id": 1, "name": "A"}, {"id": 2}, {"id": 3, "name": "C"}]})


def test_site_rules_come_from_the_title():
    rules = site_rules("18GA")
    assert rules and all(r.startswith("site_") for r in rules)
    assert set(rules) <= set(load_title("18GA").data["optional_rules"])


def test_removed_token_rule_is_data():
    plain = Game("18GA", ["a", "b", "c"])
    fewer = Game("18GA", ["a", "b", "c"], optional_rules=["remove_cog_token"])
    (rule, sym), = load_title("18GA").data["token_removed_by_rule"].items()
    assert rule == "remove_cog_token"
    assert len(fewer.state.corporations[sym].token_costs) == len(plain.state.corporations[sym].token_costs) - 1
    others = [c for c in plain.state.corporations if c != sym]
    assert all(len(fewer.state.corporations[c].token_costs) == len(plain.state.corporations[c].token_costs)
               for c in others)


def test_hooks_default_and_title_module(tmp_path):
    assert load_hooks(tmp_path) is TitleHooks
    (tmp_path / "hooks.py").write_text(
        "from pbm.e18xx.core.hooks import TitleHooks\n"
        "class Hooks(TitleHooks):\n"
        "    def describe(self):\n"
        "        return {'marker': len(self.game.state.players)}\n")
    cls = load_hooks(tmp_path)
    assert issubclass(cls, TitleHooks) and cls is not TitleHooks
    g = Game("18GA", ["a", "b", "c"])
    assert cls(g).describe() == {"marker": 3}
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "hooks.py").write_text("class Hooks:\n    pass\n")
    with pytest.raises(TypeError, match="must define class Hooks"):
        load_hooks(bad)


def _title_words() -> set[str]:
    words: set[str] = set()
    for name in known_titles():
        t = load_title(name)
        words.add(name)
        words.update(c["sym"] for c in t.data["corporations"])
        words.update(c["sym"] for c in t.data["companies"])
        words.update(t.hexes)
        words.update(t.data.get("location_names", {}).values())
    return words


def test_shared_engine_code_names_no_title_fact():
    """No string literal in the shared engine is a title's name, hex, company or city."""
    words = _title_words()
    found = []
    for path in E18XX.rglob("*.py"):
        if "titles" in path.relative_to(E18XX).parts:
            continue
        tree = ast.parse(path.read_text())
        doc_nodes = {id(n.body[0].value) for n in ast.walk(tree)
                     if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                     and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in doc_nodes:
                if node.value in words:
                    found.append(f"{path.relative_to(E18XX)}:{node.lineno}: {node.value!r}")
    assert not found, "title facts in shared engine code:\n" + "\n".join(found)


@pytest.fixture
def export_file(tmp_path, bank_export):
    p = tmp_path / "game.json"
    p.write_text(json.dumps(bank_export))
    return p


def test_show_at_n_json_is_the_state_after_action_n(export_file, bank_export):
    at = bank_export["actions"][120]["id"]
    res = runner.invoke(app, ["show", str(export_file), "--at", str(at), "--json"])
    assert res.exit_code == 0, res.output
    mid = json.loads(res.output)
    expected = state_dict(Replayer(bank_export).run(upto=at))
    assert mid == json.loads(json.dumps(expected, sort_keys=True))
    final = json.loads(runner.invoke(app, ["show", str(export_file), "--json"]).output)
    assert final["finished"] and not mid["finished"]
    assert final["result"] == expected_result(bank_export)["result"]
    assert mid["actions"] < final["actions"]
    # money is all accounted for at that point
    total = mid["bank"] + sum(p["cash"] for p in mid["players"].values()) + sum(
        c["cash"] for c in mid["corporations"].values())
    assert total == load_title("18GA").data["bank_cash"]


def test_show_at_zero_is_the_opening(export_file, bank_export):
    res = runner.invoke(app, ["show", str(export_file), "--at", "0", "--json"])
    st = json.loads(res.output)
    assert st["actions"] == 0 and st["round"]["kind"] == "auction" and st["tiles"] == {}
    assert st["to_act"] == bank_export["players"][0]["name"]
    text = runner.invoke(app, ["show", str(export_file), "--at", "0"]).output
    assert "Stock Round 1: the sale of the Private Companies" in text  # 18GA 3.1's words
    assert "may:" in runner.invoke(app, ["moves", str(export_file), "--at", "0"]).output


def test_show_at_negative_is_refused(export_file):
    res = runner.invoke(app, ["show", str(export_file), "--at", "-3"])
    assert res.exit_code == 1 and "--at must be an action number" in res.output


def test_titles_command_lists_titles_and_rules():
    res = runner.invoke(app, ["titles"])
    assert res.exit_code == 0
    for name in known_titles():
        assert name in res.output
    assert "--rule double_yellow_first_or" in res.output


def test_show_game_in_database_at_n(cli, tmp_path, bank_export):
    path = tmp_path / "export.json"
    part = dict(bank_export, actions=bank_export["actions"][:60], status="active")
    path.write_text(json.dumps(part))
    cli("18xx", "import", str(path), "--name", "imp")
    now = json.loads(cli("18xx", "show", "imp", "--json").stdout)
    at5 = json.loads(cli("18xx", "show", "imp", "--at", "5", "--json").stdout)
    assert at5["actions"] == 5 and now["actions"] > 5
    assert now == json.loads(json.dumps(state_dict(Replayer(part).run()), sort_keys=True)) | {"actions": now["actions"]}
    res = cli("18xx", "show", "no-such-game", expect=1)
    assert "neither a game file nor a game in the database" in res.output


def test_summary_of_a_title_game_round_trip():
    g = Game("18GA", ["a", "b", "c"])
    assert summary(g)["finished"] is False


def test_process_without_rollback_marks_a_refused_game_unusable():
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = Game("18GA", ["a", "b", "c"])
    with pytest.raises(GameError):
        g.process(A.Bid("b", "LTR", 20))  # not b's turn: refused, state kept
    assert not g.finished and g.current_entity() == "a"
    with pytest.raises(GameError):
        g.process(A.Bid("b", "LTR", 20), rollback=False)
    assert g.finished and "abandoned" in g.state.end_reason
    with pytest.raises(GameError, match="game is over"):
        g.process(A.Pass("a"))


def test_a_refused_action_ends_a_replay_with_its_id(bank_export):
    ex = copy.deepcopy(bank_export)
    bad = next(a for a in ex["actions"] if a["type"] == "bid")
    bad["price"] = 1
    with pytest.raises(ReplayError, match=rf"action {bad['id']} \(bid by .*\) refused"):
        Replayer(ex).run()

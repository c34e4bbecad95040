"""The engine's shape (issue 30): the game as the Protocol its rounds and steps type against."""
from __future__ import annotations

import ast
from pathlib import Path

from pbm.e18xx.core import protocol
from pbm.e18xx.core.game import Game


def _protocol_members(cls_name: str) -> set[str]:
    tree = ast.parse(Path(protocol.__file__).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    out = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def test_engine_protocol_lists_every_method_of_the_game():
    """A method added to Game or a round mixin is added to ``core/protocol.py::Engine`` (the
    Protocol the mixins and steps type ``self``/``game`` with), and none is left there stale."""
    methods = {n for n in dir(Game) if not n.startswith("__") and n != "from_log"}
    listed = _protocol_members("Engine") | _protocol_members("StepGame")
    assert sorted(methods - listed) == [], "add these to core/protocol.py::Engine"
    g = Game("18GA", ["A", "B", "C"])
    assert sorted(n for n in listed - methods if not hasattr(g, n)) == [], "stale in core/protocol.py::Engine"


def test_steps_use_the_game_only_through_the_small_protocol():
    """A step (rounds/step.py, and the steps in titles/<T>/hooks.py) reaches the game only
    through ``StepGame``: every ``g.<name>`` it uses is listed there."""
    root = Path(protocol.__file__).parents[1]
    allowed = _protocol_members("StepGame")
    used: dict[str, set[str]] = {}
    for path in [root / "rounds" / "step.py", *sorted((root / "titles").glob("*/hooks.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name != "Hooks"):
            for node in ast.walk(cls):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "g":
                    used.setdefault(node.attr, set()).add(f"{path.parent.name}/{path.name}")
    assert len(allowed) < 60
    assert {n: sorted(w) for n, w in used.items() if n not in allowed} == {}, "add them to StepGame"


def test_hooks_protocol_matches_the_default_hooks():
    from pbm.e18xx.core.hooks import TitleHooks
    assert all(callable(getattr(TitleHooks, n, None)) for n in _protocol_members("Hooks"))


# ------------------------------------------------------------------ the operating round's steps
STEPS = {
    "18GA": ["home_token", "track", "token", "route", "dividend", "discard_train", "buy_train", "buy_company"],
    "18AL": ["home_token", "track", "token", "route", "dividend", "discard_train", "buy_train", "buy_company"],
    "1848": ["home_token", "track", "token", "route", "loan_before_dividend", "dividend", "discard_train", "buy_train", "buy_company"],
    "18VA": ["home_token", "convert", "track", "token", "route", "dividend", "discard_train", "buy_train",
             "buy_company"],
}
# by data: a private's forced lay only where a private has one, the par of a private's company
# only where a private carries a president's certificate
INTERRUPTS = {"18GA": ["discard_train"], "18AL": ["discard_train"],
              "1848": ["pay_debt", "forced_lay", "discard_train"],  # the sales before the Tasmania tile (ruling 5.5.3/4.4)
              "18VA": ["discard_train"]}
SALE = {"18GA": ["auction"], "18AL": ["auction"], "1848": ["auction"], "18VA": ["par_on_buy", "auction"]}


def _game(title: str) -> Game:
    from pbm.e18xx.core.title import load_title
    n = load_title(title).data["players"]["min"]
    return Game(title, [f"Player {i}" for i in range(max(n, 3))])


def test_each_title_has_its_operating_steps_in_order():
    for title, names in STEPS.items():
        g = _game(title)
        assert [s.name for s in g.or_steps] == names, title
        assert [s.name for s in g.or_interrupts] == INTERRUPTS[title], title
        # the discard step is one object: an interrupt for the crowded company, a block in the turn
        assert g.or_step("discard_train") in g.or_interrupts


def test_title_steps_live_in_the_title_folder():
    g = _game("1848")
    assert type(g.or_step("buy_company")).__name__ == "BuyCompanyOrLoan"
    assert "take_loan" in g.or_step("buy_company").takes
    assert "take_loan" not in _game("18GA").or_step("buy_company").takes
    assert type(_game("18VA").or_step("convert")).__module__.endswith("18VA")
    assert _game("18GA").or_step("convert") is None and _game("18GA")._step_actions("convert", "GA") == []


def test_every_step_reads_to_a_player_and_has_its_rule_section():
    for title in STEPS:
        g = _game(title)
        for step in [*g.or_steps, *g.or_interrupts, *g.auction_steps, *g.stock_steps]:
            assert step.description and step.takes, (title, step)
            assert ("may skip" in step.description or "may pass" in step.description) == step.player_may_skip, \
                (title, step)
            assert step.name in g.title.data["step_rules"], (title, step.name)
        assert all(step.rule(g.title) for step in [*g.or_steps, g.auction_steps[-1], *g.stock_steps]), title


def test_each_title_has_its_private_sale_and_stock_round():
    sales = {t: type(_game(t).auction_steps[-1]).__name__ for t in STEPS}
    assert sales == {"18GA": "Waterfall", "18AL": "Waterfall", "1848": "DutchAuction", "18VA": "BidAll"}
    assert type(_game("1848").auction_steps[-1]).__module__.endswith("1848")
    for t in STEPS:
        g = _game(t)
        assert [s.name for s in g.auction_steps] == SALE[t]
        assert [s.name for s in g.stock_steps] == ["shares"]


def test_what_now_reads_the_open_step(bank_export):
    from pbm.e18xx.replay import Replayer
    g = _game("18GA")
    now = g.what_now()
    assert now["round"] == "auction" and now["step"] == "auction" and now["entity"] == "Player 0"
    assert now["rule"] == "3.1, 3.1.1, 3.1.2" and set(now["actions"]) == {"bid", "pass"}
    g = Replayer(bank_export).run()
    assert g.what_now()["step"] is None
    rp = Replayer(bank_export)
    seen = {}
    process = rp.game.process

    def watch(action, rollback=True):
        process(action, rollback=rollback)
        now = rp.game.what_now()
        if now["step"]:
            seen.setdefault(now["step"], now)
            assert now["entity"] == rp.game.current_entity()
            assert {a.type for a in rp.game.legal_actions() if a.entity == now["entity"]} <= set(now["actions"])
        return rp.game

    rp.game.process = watch  # type: ignore[method-assign]
    rp.run(upto=400)
    assert {"auction", "shares", "track", "route", "buy_train"} <= set(seen)
    assert seen["track"]["description"] == "Lay or upgrade one tile — may skip" and seen["track"]["rule"] == "4.2.1"


def test_the_list_can_be_changed_by_name():
    from pbm.e18xx.rounds import step as S
    steps = S.operating_steps()
    S.insert_after(steps, "track", S.Track())
    S.remove(steps, "buy_company")
    S.replace(steps, "route", S.Route())
    S.insert_before(steps, "home_token", S.Dividend())
    assert [s.name for s in steps][:3] == ["dividend", "home_token", "track"] and "buy_company" not in [s.name for s in steps]
    import pytest
    with pytest.raises(ValueError, match="no step 'nope'"):
        S.remove(steps, "nope")


def test_after_every_action_the_open_step_is_what_the_company_may_do(bank_export):
    """Through a whole recorded game: in the operating round (nobody interrupting) the open step
    is the first not done that offers something, its actions are ones it takes, and the company
    is offered them plus what later steps offer at any time."""
    from pbm.e18xx.replay import Replayer
    rp = Replayer(bank_export)
    g = rp.game
    seen: set[str] = set()
    process = g.process

    def checked(action, rollback=True):
        process(action, rollback=rollback)
        if g.finished or g.state.round.kind != "operating" or g._interrupt()[0] is not None:
            return g
        corp = g._or_operator()
        block, acts = g._open_block(corp)
        assert block is not None and block.name not in g.state.round.steps_done
        assert acts and set(acts) <= set(block.takes) and set(acts) <= set(g.or_actions(corp))
        earlier = g.or_steps[:g.or_steps.index(block)]
        assert all(st.name in g.state.round.steps_done or not st.once for st in earlier)
        seen.add(block.name)
        return g

    g.process = checked  # type: ignore[method-assign]
    rp.run()
    assert {"track", "token", "route", "dividend", "buy_train"} <= seen


def test_an_interrupt_of_a_title_gives_its_own_legal_moves():
    """1848's pay_debt interrupt (titles/1848/hooks.py) is the open step for the indebted
    director; legal moves come from the step itself."""
    import pytest
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.fixtures import load_fixture
    from pbm.e18xx.replay import Replayer
    export, where = load_fixture("1848/101.json")
    if export is None:
        pytest.skip(where)
    g = Replayer(export).run(upto=475)
    s = g.state
    s.cash["bank"] += s.cash["P:Player 1"] + s.cash["C:SAR"]
    s.cash["P:Player 1"] = s.cash["C:SAR"] = 0
    g.process(A.TakeLoan("SAR"))
    step, who = g.open_step()
    assert step.name == "pay_debt" and who == "Player 1"
    now = g.what_now()
    assert now["rule"] == "5.5.3" and now["actions"] == ["sell_shares"] and "must" in now["description"]
    assert g.legal_actions() == step.legal(g, "Player 1") and g.legal_actions()

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
    listed = _protocol_members("Engine")
    assert sorted(methods - listed) == [], "add these to core/protocol.py::Engine"
    g = Game("18GA", ["A", "B", "C"])
    assert sorted(n for n in listed - methods if not hasattr(g, n)) == [], "stale in core/protocol.py::Engine"


def test_hooks_protocol_matches_the_default_hooks():
    from pbm.e18xx.core.hooks import TitleHooks
    assert all(callable(getattr(TitleHooks, n, None)) for n in _protocol_members("Hooks"))

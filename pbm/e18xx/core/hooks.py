"""Title hooks: the few things a title's data cannot say.

A title is a folder ``pbm/e18xx/titles/<TITLE>/``: ``title.json`` and
``tiles.json`` (facts, see docs/18xx/format.md) and, only when needed, a
``hooks.py`` defining ``Hooks``, a subclass of :class:`TitleHooks`.  The engine
calls ``game.hooks.<name>(...)`` at fixed points; every method here is the
default behaviour (the one 18GA's data needs), so a title overrides only what
differs.  Shared mechanics (several titles use them) belong in the engine and
are switched on by data, not written as hooks.

Adding a hook point: add a method here with a docstring saying when the
engine calls it and what the default does, call it from the engine, and keep
the default behaviour identical for every title that does not override it.
"""
from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbm.e18xx.core.title import TITLES_DIR, Title

if TYPE_CHECKING:  # typing only: the hooks receive the game they serve, as the Protocol it meets
    from pbm.e18xx.core.protocol import Engine, StepView


class TitleHooks:
    """Default behaviour at every hook point (no title-specific rules)."""

    def __init__(self, game: "Engine") -> None:
        self.game = game

    def after_setup(self) -> None:
        """Called once the initial state is built (homes reserved, neutral
        tokens placed), before the first round starts.  Default: nothing."""

    def describe(self) -> dict[str, Any]:
        """Title-specific facts for ``pbm 18xx show --json`` (default: none)."""
        return {}

    def operating_steps(self, steps: list["StepView"]) -> list["StepView"]:
        """The operating company's turn, in order (rounds/step.py::operating_steps); a title
        adds, replaces or removes steps by name (``step.insert_after``, ``replace``, ``remove``),
        defining its own step classes in its ``hooks.py``.  Called once per game.  Default: as given."""
        return steps

    def operating_interrupts(self, interrupts: list["StepView"]) -> list["StepView"]:
        """Who must act before the operating company, first first (rounds/step.py::
        operating_interrupts).  Default: as given."""
        return interrupts

    def auction_steps(self, steps: list["StepView"]) -> list["StepView"]:
        """The private sale's steps (rounds/step.py::auction_steps: the par of a private's
        company, then the sale of title data ``auction.style``).  Default: as given."""
        return steps

    def stock_steps(self, steps: list["StepView"]) -> list["StepView"]:
        """The stock round's steps (rounds/step.py::stock_steps).  Default: as given."""
        return steps


def hooks_for(title: Title) -> type[TitleHooks]:
    """The hooks class of ``title`` (its folder's ``hooks.py``; :class:`TitleHooks` if it has none)."""
    return _hooks_of(title.folder or title.name)


@lru_cache(maxsize=None)
def _hooks_of(folder: str) -> type[TitleHooks]:
    return load_hooks(TITLES_DIR / folder)


def load_hooks(folder: Path) -> type[TitleHooks]:
    """The ``Hooks`` class of ``folder/hooks.py``, or :class:`TitleHooks` if there is none."""
    path = folder / "hooks.py"
    if not path.is_file():
        return TitleHooks
    name = f"pbm.e18xx.titles._hooks_{folder.name}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    hooks = getattr(module, "Hooks", None)
    if not (isinstance(hooks, type) and issubclass(hooks, TitleHooks)):
        raise TypeError(f"{path} must define class Hooks(TitleHooks)")
    return hooks

"""18xx family engine: titles as data plus hooks, games as replays of an action log.

Typical use (no I/O in the engine)::

    from pbm.e18xx import Game
    from pbm.e18xx.core import actions as A
    game = Game("18GA", ["Ann", "Bob", "Cy"])
    game.acting_players()           # ['Ann']
    game.legal_actions()            # [Pass('Ann'), Bid('Ann', 'LTR', 20), ...]
    game.process(A.Bid("Ann", "LTR", 20))
    log = game.to_log()             # JSON-able; Game.from_log(log) rebuilds it

Exports of 18xx.games replay with :func:`pbm.e18xx.replay.replay`; players'
e-mailed moves parse with :func:`pbm.e18xx.pbem.moves.parse_moves`.
"""
from __future__ import annotations

import importlib
from typing import Any

# name -> (module, attribute or None for the module itself); loaded on first use, so importing
# any part of the family (e.g. ``pbm.e18xx.kind``) does not load the whole engine.
_EXPORTS = {
    "Game": ("pbm.e18xx.core.game", "Game"),
    "GameError": ("pbm.e18xx.core.errors", "GameError"),
    "MoveError": ("pbm.e18xx.pbem.moves", "MoveError"),
    "StandingOrders": ("pbm.e18xx.pbem.moves", "StandingOrders"),
    "actions": ("pbm.e18xx.core.actions", None),
    "parse_moves": ("pbm.e18xx.pbem.moves", "parse_moves"),
    "play_text": ("pbm.e18xx.pbem.intent", "play_text"),
    "replay": ("pbm.e18xx.replay", "replay"),
}

__all__ = ["Game", "GameError", "MoveError", "StandingOrders", "actions", "parse_moves", "play_text", "replay"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pbm.e18xx' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = importlib.import_module(module)
    return value if attribute is None else getattr(value, attribute)

"""18xx family engine: titles as data plus hooks, games as replays of an action log.

Typical use (no I/O in the engine)::

    from pbm.e18xx import Game, actions as A
    game = Game("18GA", ["Ann", "Bob", "Cy"])
    game.acting_players()           # ['Ann']
    game.legal_actions()            # [Pass('Ann'), Bid('Ann', 'LTR', 20), ...]
    game.process(A.Bid("Ann", "LTR", 20))
    log = game.to_log()             # JSON-able; Game.from_log(log) rebuilds it

Exports of 18xx.games replay with :func:`pbm.e18xx.replay.replay`; players'
e-mailed moves parse with :func:`pbm.e18xx.moves.parse_moves`.
"""
from . import actions
from .errors import GameError
from .game import Game
from .moves import MoveError, StandingOrders, parse_moves, play_text
from .replay import replay

__all__ = ["Game", "GameError", "MoveError", "StandingOrders", "actions", "parse_moves", "play_text", "replay"]

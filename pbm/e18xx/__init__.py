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
from .core import actions
from .core.errors import GameError
from .core.game import Game
from .pbem.moves import MoveError, StandingOrders, parse_moves, play_text
from .replay import replay

__all__ = ["Game", "GameError", "MoveError", "StandingOrders", "actions", "parse_moves", "play_text", "replay"]

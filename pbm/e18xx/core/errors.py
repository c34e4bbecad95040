"""Exceptions raised by the 18xx engine.

Every refusal of an action is a :class:`GameError` (or a subclass).  The
message says why the action was refused and, where useful, what is legal now.
The game state is never changed by a refused action.
"""
from __future__ import annotations


class GameError(Exception):
    """An action was refused: the message explains why."""


class NotYourTurn(GameError):
    """The acting entity is not the one that must act now."""


class IllegalAction(GameError):
    """The action is of a kind not allowed at this moment."""


class InsufficientFunds(GameError):
    """The entity cannot pay for what it asked for."""


class IllegalTile(GameError):
    """A tile lay or upgrade breaks the track rules."""


class IllegalRoute(GameError):
    """A submitted route breaks the route rules."""


class ReplayError(GameError):
    """An exported game could not be replayed."""

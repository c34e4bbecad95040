"""Authentication by what is inside a turnsheet: the player's secret plus the turn's code.

The From: header only routes the reply; it never authenticates.  The per-turn
code is an HMAC of the game's private key over (game, player, turn): it
changes every turn, so an old sheet cannot be replayed into a new turn.
"""

from __future__ import annotations

import hashlib
import hmac

from pbm.cr.setup import check_secret, hash_secret, new_secret, normalize_secret  # noqa: F401
from pbm.models import Game

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def turn_code(game: Game, player_number: int, turn: int) -> str:
    """The six-character code printed on a player's sheet for ``turn``."""
    digest = hmac.new(game.turn_key.encode(), f"{game.id}:{player_number}:{turn}".encode(), hashlib.sha256).digest()
    return "".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in digest[:6])


def check_turn_code(game: Game, player_number: int, turn: int, code: str) -> bool:
    return hmac.compare_digest(turn_code(game, player_number, turn), normalize_secret(code))

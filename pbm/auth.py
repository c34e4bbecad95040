"""Authentication by what is inside a turnsheet: the player's secret plus the turn's code.

The From: header only routes the reply; it never authenticates.  The per-turn
code is an HMAC of the game's private key over (game, player, turn): it
changes every turn, so an old sheet cannot be replayed into a new turn.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing only
    from pbm.models import Game


def new_secret() -> str:
    """A player secret: 12 unambiguous characters in three groups, e.g. ``K7QM-2XRP-HW4T``."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    chars = "".join(secrets.choice(alphabet) for _ in range(12))
    return f"{chars[:4]}-{chars[4:8]}-{chars[8:]}"


SECRET_ITERATIONS = 20_000  # a 60-bit random secret needs little stretching; ingest checks one per mail


def hash_secret(secret: str, salt: str | None = None, iterations: int = SECRET_ITERATIONS) -> str:
    """A salted PBKDF2 hash of a secret, as ``pbkdf2$iterations$salt$hex``."""
    salt = salt or secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac("sha256", normalize_secret(secret).encode(), salt.encode(), iterations)
    return f"pbkdf2${iterations}${salt}${digest.hex()}"


def normalize_secret(secret: str) -> str:
    return "".join(ch for ch in secret.upper() if ch.isalnum())


def check_secret(secret: str, stored: str) -> bool:
    try:
        scheme, iterations, salt, _ = stored.split("$")
        rounds = int(iterations)
    except ValueError:
        return False
    if scheme != "pbkdf2" or not 1 <= rounds <= 10_000_000:
        return False
    try:
        return secrets.compare_digest(hash_secret(secret, salt, rounds).encode(), stored.encode("utf-8", "replace"))
    except (TypeError, ValueError):
        return False


_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def turn_code(game: "Game", player_number: int, turn: int) -> str:
    """The six-character code printed on a player's sheet for ``turn``."""
    digest = hmac.new(game.turn_key.encode(), f"{game.id}:{player_number}:{turn}".encode(), hashlib.sha256).digest()
    return "".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in digest[:6])


def check_turn_code(game: "Game", player_number: int, turn: int, code: str) -> bool:
    """True if ``code`` is the player's code for ``turn``; any text (non-ASCII too) is simply False."""
    given = normalize_secret(code or "").encode("utf-8", "replace")
    return hmac.compare_digest(turn_code(game, player_number, turn).encode(), given)

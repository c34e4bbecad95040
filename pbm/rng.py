"""Deterministic randomness: every draw comes from a numpy Generator seeded
from (game seed, turn, purpose), so the same inputs always give the same game.

>>> a = generator(7, 3, "stock-market").integers(0, 1000, 3)
>>> b = generator(7, 3, "stock-market").integers(0, 1000, 3)
>>> (a == b).all()
np.True_
"""

from __future__ import annotations

import hashlib

import numpy as np


def _purpose_key(purpose: str) -> int:
    # A stable hash (Python's hash() of str is salted per process).
    return int.from_bytes(hashlib.sha256(purpose.encode("utf-8")).digest()[:8], "big")


def generator(seed: int, turn: int, purpose: str) -> np.random.Generator:
    """A Generator for one purpose in one turn of one game."""
    sequence = np.random.SeedSequence([int(seed) & 0xFFFFFFFFFFFFFFFF, int(turn), _purpose_key(purpose)])
    return np.random.Generator(np.random.PCG64(sequence))

"""Hex coordinates as printed on 18xx maps (``J12``) and their neighbours.

Maps use "doubled" coordinates: on a pointy-topped map the number is the
horizontal axis (x = number - 1) and the letter the vertical one; on a
flat-topped map it is usually the other way round, but some flat maps print the
number on the horizontal axis too: their layout is ``flat_xnum`` (title key
``"axes": "x_number"``).  Edges are numbered 0..5 as in the
published tile definitions; a tile rotated by ``r`` moves its edge ``e`` to
``(e + r) % 6``.
"""
from __future__ import annotations

import re
from functools import lru_cache

_COORD = re.compile(r"^([A-Z]+)(-?\d+)$")

# (dx, dy) in doubled coordinates -> edge number
_DIRS = {
    "pointy": {(-1, 1): 0, (-2, 0): 1, (-1, -1): 2, (1, -1): 3, (2, 0): 4, (1, 1): 5},
    "flat": {(0, 2): 0, (-1, 1): 1, (-1, -1): 2, (0, -2): 3, (1, -1): 4, (1, 1): 5},
}
_DIRS["flat_xnum"] = _DIRS["flat"]
_NUMBER_X = ("pointy", "flat_xnum")  # layouts whose printed number is the horizontal axis
_EDGE_DELTA = {layout: {e: d for d, e in dirs.items()} for layout, dirs in _DIRS.items()}


def _letter_index(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def _letters(index: int) -> str:
    if index < 0:  # beyond row/column A: off every map ("" makes no coordinate)
        return ""
    index += 1
    out = ""
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


@lru_cache(maxsize=None)
def to_xy(coord: str, layout: str) -> tuple[int, int]:
    """Printed coordinate -> doubled (x, y)."""
    m = _COORD.match(coord)
    if not m:
        raise ValueError(f"not a hex coordinate: {coord!r} (expected e.g. 'J12')")
    letter, number = _letter_index(m.group(1)), int(m.group(2)) - 1
    return (number, letter) if layout in _NUMBER_X else (letter, number)


def from_xy(x: int, y: int, layout: str) -> str:
    if layout in _NUMBER_X:
        return f"{_letters(y)}{x + 1}"
    return f"{_letters(x)}{y + 1}"


@lru_cache(maxsize=65536)
def neighbour(coord: str, edge: int, layout: str) -> str:
    """The coordinate across ``edge`` of ``coord`` (it may not be on the map)."""
    x, y = to_xy(coord, layout)
    dx, dy = _EDGE_DELTA[layout][edge]
    return from_xy(x + dx, y + dy, layout)


def opposite(edge: int) -> int:
    return (edge + 3) % 6


def is_coordinate(text: str) -> bool:
    return bool(_COORD.match(text))

"""Fixtures shared by the Continental Rails engine tests."""

from __future__ import annotations

import pytest

from pbm.db import session_scope
from tests.cr.helpers import tiny_game


@pytest.fixture
def tiny(sqlite_url):
    """The tiny two-road game (``helpers.tiny_game``: NYC and PENN, four computer tycoons) in an
    open SQLite session: ``s, g = tiny``."""
    with session_scope(sqlite_url) as s:
        yield s, tiny_game(s)

"""Shared fixtures of the mail and turnsheet tests (imported by their conftest files)."""

from __future__ import annotations

import pytest

from pbm.db import session_scope
from tests.mail.game import Built, build_game


@pytest.fixture
def game(db_url) -> Built:
    """The small test game, in a fresh database (SQLite and PostgreSQL)."""
    with session_scope(db_url) as s:
        return build_game(s)

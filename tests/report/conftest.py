"""Fixtures of the report tests: a built game in the test database, PDF text extraction."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from pbm.db import session_scope
from tests.report.helpers import build_game


def pdf_text(path_or_bytes) -> str:
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() or "" for page in reader.pages)


@pytest.fixture
def game_url(db_url):
    with session_scope(db_url) as s:
        build_game(s)
    return db_url

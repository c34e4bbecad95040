"""pytest plugins for the hand mutation runs of issue 31, part 2 (not part of the test suite).

Loaded with ``-p mutation_cr_plugins`` (``scripts/`` on ``PYTHONPATH``) by
``scripts/mutation_cr_cover.py`` and ``scripts/mutation_cr_hand.py --map``:

* a new SQLite file is a copy of one migrated once per process (the schema is the same; Alembic's
  upgrade of each test's fresh database was most of a validator test's time: 13 s → 3.5 s for
  ``test_validate.py``);
* with ``PBM_MUT_TRACE=<path ending>`` and ``PBM_MUT_TRACE_OUT=<file.json>``, the lines of that
  source file each test runs, and its time, are written to the JSON file at the end of the session.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time

import pytest

import pbm.db as _db

_upgrade = _db.upgrade
_TEMPLATE = f"/tmp/pbm-mutation-template-{os.getpid()}.db"


def _fast_upgrade(engine) -> None:
    if str(engine.url) in _db._migrated:
        return
    path = _db._sqlite_path(engine) if engine.dialect.name == "sqlite" else None
    if path is not None and (not path.exists() or path.stat().st_size == 0):
        if not os.path.exists(_TEMPLATE):
            template = _db._engine(f"sqlite:///{_TEMPLATE}")
            _upgrade(template)
            template.dispose()
        shutil.copyfile(_TEMPLATE, path)
    _upgrade(engine)


_db.upgrade = _fast_upgrade

_TRACE = os.environ.get("PBM_MUT_TRACE")
_lines: dict[str, dict] = {}
_seen: set[int] | None = None


def _local(frame, event, arg):
    if event == "line" and _seen is not None:
        _seen.add(frame.f_lineno)
    return _local


def _global(frame, event, arg):
    if event == "call" and frame.f_code.co_filename.endswith(_TRACE) and _seen is not None:
        _seen.add(frame.f_lineno)
        return _local
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _seen
    if not _TRACE:
        yield
        return
    _seen = set()
    start = time.perf_counter()
    sys.settrace(_global)
    try:
        yield
    finally:
        sys.settrace(None)
        _lines[item.nodeid] = {"lines": sorted(_seen), "t": time.perf_counter() - start}
        _seen = None


def pytest_sessionfinish(session):
    if _TRACE and os.environ.get("PBM_MUT_TRACE_OUT"):
        with open(os.environ["PBM_MUT_TRACE_OUT"], "w", encoding="utf-8") as f:
            json.dump(_lines, f)

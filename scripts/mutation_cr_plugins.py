"""pytest plugins for the hand mutation runs of issue 31, part 2 (not part of the test suite).

Loaded with ``-p mutation_cr_plugins`` (``scripts/`` on ``PYTHONPATH``) by
``scripts/mutation_cr_cover.py`` and ``scripts/mutation_cr_hand.py --map``:

* a new SQLite file is a copy of one migrated once per process (the schema is the same; Alembic's
  upgrade of each test's fresh database was most of a validator test's time: 13 s → 3.5 s for
  ``test_validate.py``);
* with ``PBM_MUT_TRACE=<path ending>`` and ``PBM_MUT_TRACE_OUT=<file.json>``, the lines of that
  source file each test runs, and its time, are written to the JSON file at the end of the session;
  several path endings, comma-separated, trace several files in one run, each written to the
  output name with ``%s`` replaced by the file's stem (``/tmp/cov-%s.json``).
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
_ENDINGS = tuple(x for x in (_TRACE or "").split(",") if x)
_lines: dict[str, dict[str, dict]] = {e: {} for e in _ENDINGS}
_seen: dict[str, set[int]] | None = None


def _tracer(lines: set[int]):
    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    return local


def _global(frame, event, arg):
    if event == "call" and _seen is not None:
        name = frame.f_code.co_filename
        for ending in _ENDINGS:
            if name.endswith(ending):
                _seen[ending].add(frame.f_lineno)
                return _tracer(_seen[ending])
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _seen
    if not _TRACE:
        yield
        return
    _seen = {e: set() for e in _ENDINGS}
    start = time.perf_counter()
    sys.settrace(_global)
    try:
        yield
    finally:
        sys.settrace(None)
        took = time.perf_counter() - start
        for ending in _ENDINGS:
            _lines[ending][item.nodeid] = {"lines": sorted(_seen[ending]), "t": took}
        _seen = None


def pytest_sessionfinish(session):
    out = os.environ.get("PBM_MUT_TRACE_OUT")
    if _TRACE and out:
        for ending in _ENDINGS:
            name = out.replace("%s", os.path.splitext(os.path.basename(ending))[0]) if "%s" in out else out
            with open(name, "w", encoding="utf-8") as f:
                json.dump(_lines[ending], f)

"""Deterministic fault injection for the crash tests (tests/faults/): never used in normal runs.

``PBM_FAULT_EXIT_AT_COMMIT=N`` makes the process die (``os._exit(97)``, no cleanup, like ``kill -9``)
right after its Nth database commit has reached the database.  ``PBM_FAULT_COUNT_FILE=PATH``
writes the number of commits made to PATH when the process ends normally, so a test first
counts a command's commit points, then kills it at each one in turn.  Both are read once, when
``pbm.db`` is imported; without them nothing is installed.
"""

from __future__ import annotations

import atexit
import os
import sys

EXIT_CODE = 97
_count = 0


def install() -> None:
    exit_at = os.environ.get("PBM_FAULT_EXIT_AT_COMMIT", "").strip()
    count_file = os.environ.get("PBM_FAULT_COUNT_FILE", "").strip()
    if not exit_at and not count_file:
        return
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    target = int(exit_at) if exit_at else 0

    @event.listens_for(Session, "after_commit")
    def _after_commit(_session) -> None:  # pragma: no cover - runs in the killed subprocess
        global _count
        _count += 1
        if target and _count == target:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_CODE)

    if count_file:
        def _write() -> None:
            with open(count_file, "w", encoding="ascii") as f:
                f.write(str(_count))

        atexit.register(_write)

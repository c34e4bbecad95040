"""Bounded retries of a unit of work that lost a race in PostgreSQL (docs/hosting.md).

Two PostgreSQL errors mean "nothing is wrong with the work, another transaction was in the way":
serialization failure (SQLSTATE 40001) and deadlock detected (40P01).  The server has rolled the
transaction back, so the unit may simply run again.  pbm's units are written to be repeated — each
step moves a turn's state in the same transaction as its work, and a rerun carries on from that
state — so :func:`run_retrying` repeats the whole unit, a bounded number of times with a short
growing pause, and lets any other error (or the last retryable one) through unchanged.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

RETRYABLE = {"40001": "serialization failure", "40P01": "deadlock"}
DEFAULT_RETRIES = 5

T = TypeVar("T")


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a database error (psycopg 3's ``sqlstate``), else None."""
    orig = getattr(exc, "orig", None)
    return getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)


def retryable(exc: BaseException) -> bool:
    return isinstance(exc, DBAPIError) and sqlstate(exc) in RETRYABLE


def pause(attempt: int) -> float:
    """Seconds to wait before retry ``attempt`` (1, 2, ...): 50 ms doubling, at most 2 s, with jitter so
    that two transactions that deadlocked do not meet again in step."""
    base = min(2.0, 0.05 * 2 ** (attempt - 1))
    return base * (0.5 + random.random() / 2)


def run_retrying(work: Callable[[], T], *, retries: int = DEFAULT_RETRIES,
                 on_retry: Callable[[int, str], None] | None = None,
                 wait: Callable[[float], None] = time.sleep) -> T:
    """``work()``, run again after a serialization failure or a deadlock, at most ``retries`` more times.

    ``on_retry(attempt, what)`` is told of each retry (``what``: "deadlock" or "serialization failure")."""
    attempt = 0
    while True:
        try:
            return work()
        except DBAPIError as exc:
            code = sqlstate(exc)
            if code not in RETRYABLE or attempt >= retries:
                raise
            attempt += 1
            if on_retry is not None:
                on_retry(attempt, RETRYABLE[code])
            wait(pause(attempt))

"""The time pbm compares stored times with: UTC, without a zone (``datetime`` naive), as every time
in the database is stored — deadlines (``pbm deadline`` reads UTC unless a zone is given), mail
arrival, turn states, the 18xx move clocks.  The machine's own zone never enters: a moderator in
Tokyo and a server in UTC close the same turn at the same moment (tests/hosting/test_local_zone.py).

Also :func:`sleep_until`, the wait that a stop request cuts short (a worker between passes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime


def utcnow() -> datetime:
    """Now, in UTC, naive (to the microsecond)."""
    return datetime.now(UTC).replace(tzinfo=None)


def sleep_until(end: float, stopped: Callable[[], bool], tick: float = 0.2) -> bool:
    """Sleep until the monotonic time ``end``, looking every ``tick`` seconds whether ``stopped()``
    (a worker asked to stop by SIGTERM); always False (nothing came: the time ran out)."""
    while not stopped() and time.monotonic() < end:
        time.sleep(max(0.0, min(tick, end - time.monotonic())))
    return False

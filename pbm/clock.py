"""The time pbm compares stored times with: UTC, without a zone (``datetime`` naive), as every time
in the database is stored — deadlines (``pbm deadline`` reads UTC unless a zone is given), mail
arrival, turn states, the 18xx move clocks.  The machine's own zone never enters: a moderator in
Tokyo and a server in UTC close the same turn at the same moment (tests/hosting/test_local_zone.py)."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Now, in UTC, naive (to the microsecond)."""
    return datetime.now(UTC).replace(tzinfo=None)

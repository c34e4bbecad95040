"""Pausing Python's cyclic garbage collector around work that makes many objects and frees them itself.

Reference counting frees almost everything pbm makes; the cyclic collector, set off by the count of
new objects, would walk the whole process to find little.  Four places pause it: the intake's
start-of-turn view (built, used and released per mail), a turn's resolution, an 18xx move mail (its
copy of the replayed state: pbm/e18xx/kind.py), and the rendering of a
turn's reports (about 8 MB of cyclic garbage for 15 reports, collected when the collector is on again;
a render worker process, which ends after the turn, never collects).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; if the collector was on, it is on again after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def off() -> None:
    """Switch the collector off for the rest of this process (a short-lived worker's initializer)."""
    gc.disable()

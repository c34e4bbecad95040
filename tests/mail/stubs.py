"""Until the map part is merged, ``pbm.cr.setup`` (and so ``pbm.auth``) cannot be imported:
it imports ``pbm.cr.mapdata``.  The mail and turnsheet tests build their game straight
into the tables and never touch the map, so an empty stand-in module is enough.  When
the real module exists it is used and this does nothing."""

from __future__ import annotations

import importlib
import sys
import types


def ensure_mapdata() -> None:
    try:
        importlib.import_module("pbm.cr.mapdata")
    except ModuleNotFoundError as exc:
        if exc.name != "pbm.cr.mapdata":
            raise
        import pbm.cr

        stub = types.ModuleType("pbm.cr.mapdata")
        stub.__doc__ = "stand-in for tests until the map part is merged"
        sys.modules["pbm.cr.mapdata"] = stub
        pbm.cr.mapdata = stub  # type: ignore[attr-defined]

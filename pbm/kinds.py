"""The game kinds this installation plays, found by registry rather than by import.

Continental Rails owns the turnsheet intake; other kinds that take mail (the
18xx titles) are listed here by module and loaded on first use.  A kind's
module provides::

    claim(session, msg) -> claim | None      # is this mail for one of my games?
    handle(session, row, ctx, sender, claim) -> pbm.mail.answer.Outcome

so the mail intake never imports a game package (and no game package imports
the intake: answers go through :mod:`pbm.mail.answer`).
"""
from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

# The composition root: one module per game kind that takes moves by mail.
MAIL_KINDS: tuple[str, ...] = ("pbm.e18xx.pbem.mailplay",)


@lru_cache(maxsize=1)
def mail_kinds() -> tuple[ModuleType, ...]:
    """The loaded mail handlers of the registered kinds, in registry order."""
    return tuple(importlib.import_module(name) for name in MAIL_KINDS)

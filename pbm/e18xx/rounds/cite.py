"""Rule sections in refusals: shared engine code names a rule by a key, the title's data
(``rule_refs`` in title.json) gives its section in that title's rulebook."""
from __future__ import annotations

from typing import Any


def section(title: Any, key: str) -> str:
    """The section of rule ``key`` in the title's rulebook ("" if the title names none)."""
    return str(((getattr(title, "data", None) or {}).get("rule_refs") or {}).get(key, ""))


def cite(title: Any, key: str) -> str:
    """``rule 4.2.5(g): `` to start a refusal with, or "" if the title names no section."""
    ref = section(title, key)
    return f"rule {ref}: " if ref else ""


def see(title: Any, key: str) -> str:
    """`` (rule 4.2.5(g))`` to end a refusal with, or ""."""
    ref = section(title, key)
    return f" (rule {ref})" if ref else ""

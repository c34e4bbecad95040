"""Immutable folders with checksums, for any game: where a game's files go, and how a bundle is written
once, frozen, and checked.

A bundle is built in a temporary folder and renamed into place, then made read-only; its
``MANIFEST.sha256`` (``sha256sum -c`` format) lists every file.  Writing the same bundle again checks
that it would be identical and leaves it alone, and refuses if it would differ: archives are never
rewritten.  What goes into a game's bundles is its kind's (Continental Rails: :mod:`pbm.report.archive`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbm.errors import PbmError


def slug(name: str) -> str:
    """A game name made safe as one path component."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return text or "game"


def turn_dir(base: Path, game_name: str, turn: int) -> Path:
    return Path(base) / slug(game_name) / f"turn-{turn}"


MANIFEST = "MANIFEST.sha256"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest_text(folder: Path) -> str:
    """``<sha256>  <path>`` for every file under ``folder`` (but the manifest), sorted by path."""
    lines = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST):
        lines.append(f"{sha256_file(path)}  {path.relative_to(folder).as_posix()}")
    return "\n".join(lines) + "\n"


def verify(folder: Path) -> list[str]:
    """Problems with an archived bundle: missing, changed or extra files (empty: intact)."""
    manifest = folder / MANIFEST
    if not manifest.exists():
        return [f"{folder}: no {MANIFEST}"]
    expected = {}
    for line in manifest.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        expected[name] = digest
    problems = []
    actual = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST}
    for name, digest in sorted(expected.items()):
        if name not in actual:
            problems.append(f"{folder / name}: missing")
        elif sha256_file(actual[name]) != digest:
            problems.append(f"{folder / name}: changed since it was archived")
    for name in sorted(set(actual) - set(expected)):
        problems.append(f"{folder / name}: not in the manifest")
    return problems


def json_bytes(value: Any) -> bytes:
    return (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, default=str) + "\n").encode("utf-8")


def write_file(folder: Path, name: str, content: bytes) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def freeze(folder: Path) -> None:
    """Read-only, and for the owner only: a bundle holds the players' mail (issue 13, item 13)."""
    for path in folder.rglob("*"):
        if path.is_file():
            path.chmod(stat.S_IRUSR)
        elif path.is_dir():
            path.chmod(stat.S_IRWXU)
    folder.chmod(stat.S_IRWXU)


def install(tmp: Path, target: Path) -> str:
    """Move the finished bundle ``tmp`` to ``target`` unless an identical one is there."""
    (tmp / MANIFEST).write_text(manifest_text(tmp), encoding="utf-8")
    if target.exists():
        old = (target / MANIFEST).read_text(encoding="utf-8") if (target / MANIFEST).exists() else ""
        new = (tmp / MANIFEST).read_text(encoding="utf-8")
        shutil.rmtree(tmp)
        problems = verify(target)
        if problems:
            raise PbmError(f"the archive {target} has been tampered with: {problems[0]}"
                           + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        if old != new:
            raise PbmError(f"{target} is already archived with different contents; archives are never "
                           "rewritten (move it away to archive this turn again)")
        return "unchanged"
    freeze(tmp)
    os.replace(tmp, target)
    return "written"


def build(target: Path, fill: Callable[[Path], None], *, prefix: str) -> str:
    """Make the bundle ``target``: ``fill`` writes it into a new temporary folder beside ``target`` (named
    ``prefix...tmp``), which is then installed (:func:`install`); if anything fails, the folder goes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=prefix, suffix=".tmp"))
    try:
        fill(tmp)
        return install(tmp, target)
    except BaseException:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        raise


@dataclass
class Archived:
    path: Path
    outcome: str  # written | unchanged

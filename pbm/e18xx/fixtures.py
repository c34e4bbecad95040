"""Finding 18xx.games export fixtures for tests and benchmarks (never committed).

Search order: ``$PBM_18XX_FIXTURES/<rel>``, ``../shared/fixtures/18xx/<rel>``
beside the repository, then ``public/fixtures/<rel>`` in a fetched git mirror
of tobymao/18xx under ``/work/.mirror`` (read with ``git show``).
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
MIRROR_ROOT = Path(os.environ.get("PBM_18XX_MIRROR", "/work/.mirror"))


def load_fixture(rel: str) -> tuple[dict[str, Any] | None, str]:
    """(export, where) for ``rel`` like ``18GA/18GA_game_end_bank.json``; (None, why) if absent."""
    tried = []
    env = os.environ.get("PBM_18XX_FIXTURES")
    if env:
        p = Path(env) / rel
        tried.append(str(p))
        if p.is_file():
            return json.loads(p.read_text()), str(p)
    p = REPO_ROOT.parent / "shared" / "fixtures" / "18xx" / rel
    tried.append(str(p))
    if p.is_file():
        return json.loads(p.read_text()), str(p)
    if MIRROR_ROOT.is_dir():
        for d in sorted(MIRROR_ROOT.iterdir()):
            if "18xx" not in d.name.lower():
                continue
            for git_dir in (d / "repo", d):
                if not (git_dir / "HEAD").exists():
                    continue
                try:
                    out = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"HEAD:public/fixtures/{rel}"],
                                         capture_output=True, timeout=60, check=True).stdout
                    return json.loads(out), f"{git_dir}:public/fixtures/{rel}"
                except (subprocess.SubprocessError, OSError, json.JSONDecodeError):
                    tried.append(f"{git_dir}:public/fixtures/{rel}")
    return None, "fixture not found (set PBM_18XX_FIXTURES); tried " + ", ".join(tried)

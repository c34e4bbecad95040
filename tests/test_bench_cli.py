"""`scripts/bench_cli.py` runs from end to end (one process per measure, and a waiting worker answering
through an SMTP relay): the benchmark that issue 15's start-up and mail figures come from must not rot.
It asserts what was measured, never how fast (speed lives in the benchmark's own output)."""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import ROOT


def test_bench_cli_measures_every_figure_once_through():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_cli.py"), "--runs", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {m.group(1).strip(): m.group(2) for m in
            re.finditer(r"^(--help|--version|games|ingest 1 mail|1 mail, worker|mail→answer)\s+(\d+)ms", done.stdout, re.M)}
    assert sorted(rows) == sorted(["--help", "--version", "games", "ingest 1 mail", "1 mail, worker", "mail→answer"]), \
        done.stdout
    assert all(int(v) > 0 for v in rows.values())

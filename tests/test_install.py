"""pbm installs like any Python tool (issue 14): a wheel built from the source tree, installed into a fresh
venv outside the checkout, runs `pbm --version`, `pbm doctor` and the whole `pbm demo` from there.

It runs once per suite (one wheel, one venv).  By default the fresh venv borrows the dependencies of the
venv running the tests (a path file to its site-packages, whose own path files - the editable install of
this checkout - are not read) and pip installs the wheel alone: what is proven is the wheel, its data files
and its entry point.  ``PBM_SLOW=1`` lets pip install the dependencies too, as a new user's machine does
(a minute or two of unpacking numpy and pandas from pip's cache).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

SKIP = {".venv", "venv", ".git", "build", "dist", "tests", "pbm-demo", "reports", "turnsheets", "archive",
        ".pytest_cache", ".benchmarks", "__pycache__"}


def _run(args, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(args, capture_output=True, text=True, timeout=900, **kw)
    assert out.returncode == 0, f"{' '.join(map(str, args))} exited {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out


@pytest.mark.install
def test_wheel_installs_into_a_fresh_venv_and_plays_the_demo(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=lambda d, names: [n for n in names if n in SKIP or n.endswith(".egg-info")
                                                           or n.endswith(".db")])
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source), "-w", str(tmp_path / "dist")])
    wheel = next((tmp_path / "dist").glob("pbm-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("pbm/migrations/env.py", "pbm/migrations/versions/0001_initial_schema.py",
                   "pbm/templates/site/index.html", "pbm/fonts/DejaVuSans.ttf", "pbm/fonts/LICENSE-DejaVu.txt"):
        assert needed in names, needed

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    if os.environ.get("PBM_SLOW") == "1":
        _run([python, "-m", "pip", "install", "-q", str(wheel)])
    else:
        site = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
        (Path(site) / "borrowed-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        _run([python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)])
        # the borrowed site-packages holds every dependency the wheel declares
        _run([python, "-c", "import importlib.metadata as m, re; from packaging.requirements import Requirement; "
              "[m.version(Requirement(r).name) for r in m.requires('pbm') or [] if 'extra ==' not in r]"])
    run = tmp_path / "run"
    run.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PBM_", "PYTHON", "VIRTUAL_ENV"))}
    pbm = str(venv / "bin" / "pbm")
    assert _run([pbm, "--version"], cwd=run, env=env).stdout.startswith("pbm ")
    _run([pbm, "demo"], cwd=run, env=env)
    reports = list((run / "pbm-demo" / "reports").rglob("*.pdf"))
    assert len(reports) >= 12
    assert (run / "pbm-demo" / "archive").is_dir()
    doctor = _run([pbm, "--db", f"sqlite:///{run / 'pbm-demo' / 'pbm.db'}", "doctor"], cwd=run, env=env).stdout
    assert f"installed at {venv}" in doctor  # the wheel's copy, not the checkout
    assert "migrations: " + str(venv) in doctor and "templates: " + str(venv) in doctor
    assert "(up to date); 1 game(s)" in doctor

"""The report render pool ends when its turn ends, also inside `pbm worker`.

`pbm worker` handles SIGTERM by setting a flag; forked render processes inherited that handler, so the
SIGTERM with which the pool's `terminate()` ends them at the end of a turn was ignored, and the worker
waited for them for good (seen in issue 34's multi-host and campaign runs, about one turn in ten: it
depends on whether a child was already blocked on the pool's queue)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import ROOT

SCRIPT = textwrap.dedent("""
    import multiprocessing, signal
    from pbm.report import render

    def handlers(_):
        return (signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, signal.getsignal(signal.SIGINT) is signal.SIG_DFL)

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))  # as pbm worker's handler: a flag only
    with multiprocessing.get_context("fork").Pool(2, initializer=render._render_child) as pool:
        print(set(pool.map(handlers, range(8))), flush=True)
    print("ended", flush=True)
""")


def test_render_processes_end_on_sigterm_whatever_handler_their_parent_has():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["{(True, True)}", "ended"]

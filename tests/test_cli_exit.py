"""How a ``pbm`` process ends (``pbm.cli.root.leave``): at once when nothing needs the
interpreter's teardown, with the command's exit code, its output flushed and the exit handlers
run; as Python ends it otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from pbm.cli.root import leave


def _python(code: str, tmp_path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # (buffered, as a user's shell has it)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env=env)


def test_the_exit_code_output_and_exit_handlers_survive_the_quick_exit(tmp_path):
    mark = tmp_path / "handler-ran"
    done = _python(
        "import atexit, sys\n"
        "from pbm.cli.root import leave\n"
        f"atexit.register(lambda: open({str(mark)!r}, 'w').write('ran'))\n"
        "sys.stdout.write('x' * 100_000)\n"  # more than a pipe's buffer: all of it must arrive
        "print('last line')\n"
        "leave(5)\n"
        "print('never')\n", tmp_path)
    assert done.returncode == 5
    assert done.stdout == "x" * 100_000 + "last line\n"
    assert mark.read_text() == "ran"


def test_a_real_command_ends_with_its_code_and_its_whole_output(tmp_path):
    db = f"sqlite:///{tmp_path / 'pbm.db'}"
    done = subprocess.run([sys.executable, "-m", "pbm", "--db", db, "games"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and "No games" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "pbm", "--db", db, "status", "no-such-game"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    assert bad.returncode != 0 and "no-such-game" in (bad.stdout + bad.stderr)


def test_with_another_thread_running_python_ends_the_process_as_usual():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with pytest.raises(SystemExit) as ended:
            leave(3)
        assert ended.value.code == 3
    finally:
        stop.set()
        other.join()


def test_a_message_instead_of_a_code_is_left_to_python():
    with pytest.raises(SystemExit) as ended:
        leave("pbm: something went wrong")
    assert ended.value.code == "pbm: something went wrong"

"""Benchmark: the ``pbm`` command as a user feels it, each run a fresh process.

Measures ``pbm --help``, ``pbm --version``, ``pbm games`` (opens the database) and one emailed
turnsheet ingested end to end (``pbm ingest --maildir``: read, authenticate, check, store the
orders, queue the answer) on a fresh copy of a 15-seat Continental Rails game each time.
Targets (issue 15): at most 150 ms to start, at most 250 ms for one mail.

Then the same mail work as a running ``pbm worker`` does it (one process, started once: each mail
of the other seats stored, read, checked, answered and committed, one after another), which is
what a mail costs once the process is up (docs/architecture.md, "Start-up").

Last, the whole way as a player meets it: ``pbm worker --maildir DIR --poll 3600`` runs with an SMTP
relay on loopback (aiosmtpd, a test dependency); each sheet is delivered into the Maildir as an MTA
does while the worker waits, and the time runs until the answer reaches the relay.

Run: ``python scripts/bench_cli.py [--runs N] [--source DIR]`` from the project folder (uses the
``pbm`` next to this Python, or ``python -m pbm`` from the checkout DIR to compare another version);
prints the median and the worst of each.
"""

from __future__ import annotations

import argparse
import mailbox
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGETS = {"--help": 0.150, "--version": 0.150, "games": 0.250, "ingest 1 mail": 0.250, "1 mail, worker": 0.250,
           "mail→answer": 0.250}


def pbm_command() -> list[str]:
    script = Path(sys.executable).with_name("pbm")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pbm"]


def prepare(folder: Path) -> tuple[Path, Path]:
    """A template database with a 15-seat game and a Maildir holding player 1's sheet for turn 1."""
    from pbm.clock import utcnow
    from pbm.cr.setup import SeatRequest, create_game
    from pbm.db import session_scope
    from pbm.pipeline.demo import _write_mails

    db = folder / "template.db"
    url = f"sqlite:///{db}"
    seats = [SeatRequest(line=i + 2, name=f"Player {i + 1}", email=f"p{i + 1}@example.org") for i in range(15)]
    with session_scope(url) as s:
        created = create_game(s, seed=1841, name="bench", seats=seats)
        created.game.deadline = utcnow() + timedelta(days=7)  # deadlines are UTC (pbm.clock)
        secrets = {1: created.secrets[1]}
    box = mailbox.Maildir(str(folder / "all"), create=True)
    _write_mails(url, "bench", secrets | {n: s for n, s in created.secrets.items() if n != 1}, box, 1)
    one = mailbox.Maildir(str(folder / "template-maildir"), create=True)
    first = min(box.keys(), key=lambda k: box[k]["Message-ID"])  # player 1's
    one.add(box[first])
    return db, folder / "template-maildir"


def in_process(folder: Path, db: Path, runs: int) -> list[float]:
    """Seconds per mail handled by a process already running (the ``pbm worker`` case): the sheets of
    seats 2.. arrive one by one; the first, which pays for imports and the first connection, is not
    counted."""
    from pbm.db import session_scope
    from pbm.mail.ingest import Context, ingest

    run_db = folder / "worker.db"
    shutil.copyfile(db, run_db)
    url = f"sqlite:///{run_db}"
    box = mailbox.Maildir(str(folder / "all"), create=False)
    mails = [bytes(box[k]) for k in sorted(box.keys(), key=lambda k: box[k]["Message-ID"])][1:]
    ctx = Context(sender="pbm@example.org")
    seconds = []
    for raw in mails[: runs + 1]:
        t0 = time.perf_counter()
        with session_scope(url) as s:
            outcome = ingest(s, raw, ctx)
        seconds.append(time.perf_counter() - t0)
        if outcome.status != "accepted":
            raise SystemExit(f"the worker case did not accept a sheet: {outcome.line()}")
    return seconds[1:]


def delivered_to_worker(folder: Path, db: Path, pbm: list[str], env: dict[str, str], runs: int) -> list[float]:
    """Seconds from a sheet landing in a waiting worker's Maildir to its answer reaching the SMTP
    relay; the first mail (imports, first connection) is not counted."""
    import threading

    from aiosmtpd.controller import Controller

    arrived: list[float] = []
    got = threading.Event()

    class Relay:
        async def handle_DATA(self, server, session, envelope):
            arrived.append(time.perf_counter())
            got.set()
            return "250 OK"

    run_db = folder / "waiting.db"
    shutil.copyfile(db, run_db)
    box_dir = folder / "waiting-maildir"
    shutil.rmtree(box_dir, ignore_errors=True)
    target = mailbox.Maildir(str(box_dir), create=True)
    source = mailbox.Maildir(str(folder / "all"), create=False)
    mails = [source[k] for k in sorted(source.keys(), key=lambda k: source[k]["Message-ID"])][1:runs + 2]
    import socket

    with socket.socket() as probe:  # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Relay(), hostname="127.0.0.1", port=port)
    controller.start()
    config = folder / "relay.toml"
    config.write_text(f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nstarttls = false\nfrom = "pbm@example.org"\n')
    proc = subprocess.Popen([*pbm, "--db", f"sqlite:///{run_db}", "worker", "--maildir", str(box_dir), "--poll", "3600",
                             "--config", str(config), "--reports", str(folder / "reports"),
                             "--archive", str(folder / "archive"), "--quiet"],
                            env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = []
    try:
        for mail in mails:
            time.sleep(0.3)  # the worker is waiting between passes
            got.clear()
            t0 = time.perf_counter()
            target.add(mail)
            if not got.wait(120):
                raise SystemExit("the waiting worker did not answer a sheet within 120 s")
            seconds.append(arrived[-1] - t0)
    finally:
        proc.terminate()
        proc.wait(60)
        controller.stop()
    return seconds[1:]


def timed(cmd: list[str], env: dict[str, str], expect: str = "", cwd: Path | None = None) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0 or expect not in done.stdout:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=11, help="processes per measure (default 11)")
    parser.add_argument("--source", type=Path, help="measure the pbm of another checkout (python -m pbm)")
    args = parser.parse_args()
    pbm = pbm_command()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")}
    if args.source is not None:
        pbm = [sys.executable, "-m", "pbm"]
        env["PYTHONPATH"] = str(args.source.resolve())
    figures: dict[str, list[float]] = {name: [] for name in TARGETS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db, maildir = prepare(folder)
        (folder / "pbm.toml").write_text("")  # no mail settings: answers are only queued
        env["PBM_CONFIG"] = str(folder / "pbm.toml")
        for _ in range(args.runs):  # alternated, so a slow moment hits every measure alike
            figures["--help"].append(timed([*pbm, "--help"], env, "Commands", folder))
            figures["--version"].append(timed([*pbm, "--version"], env, "pbm ", folder))
            run_db, run_box = folder / "run.db", folder / "run-maildir"
            shutil.copyfile(db, run_db)
            shutil.rmtree(run_box, ignore_errors=True)
            shutil.copytree(maildir, run_box)
            url = f"sqlite:///{run_db}"
            figures["games"].append(timed([*pbm, "--db", url, "games"], env, "bench", folder))
            figures["ingest 1 mail"].append(
                timed([*pbm, "--db", url, "ingest", "--maildir", str(run_box)], env, "1 accepted", folder))
        figures["1 mail, worker"] = in_process(folder, db, min(args.runs, 13))
        import importlib.util

        if importlib.util.find_spec("aiosmtpd") is None:  # the relay of the last measure, a test dependency
            print("mail→answer: not measured (it needs aiosmtpd, a test dependency: pip install -e '.[test]')")
            del figures["mail→answer"]
        else:
            figures["mail→answer"] = delivered_to_worker(folder, db, pbm, env, min(args.runs, 13))
    print(f"{'measure':<15} {'median':>8} {'worst':>8} {'target':>8}")
    missed = []
    for name, values in figures.items():
        median, worst = statistics.median(values), max(values)
        target = TARGETS[name]
        if median > target:
            missed.append(name)
        print(f"{name:<15} {median * 1000:>6.0f}ms {worst * 1000:>6.0f}ms {target * 1000:>6.0f}ms"
              f"  {'met' if median <= target else 'NOT met'} (median)")
    print(f"{args.runs} processes each; {pbm[0]}")
    if missed:
        print("missed: " + ", ".join(missed))


if __name__ == "__main__":
    main()

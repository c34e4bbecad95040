#!/usr/bin/env python3
"""Benchmark: a running ``pbm worker``'s resident memory over many handled games (issue 32, target 5).

GAMES new 18GA games (three seats each, with addresses) are made in a fresh SQLite database; then a
``pbm worker --maildir DIR --poll 3600`` process is started, and MAILS move mails are delivered into
its Maildir one at a time, going round the games (mail ``i`` is a move in game ``i mod GAMES``, made
by the seat that must move, chosen by the computer player), each after the one before was handled
(its move stored).  Every game is thus handled MAILS / GAMES times, by turns, so whatever the worker
keeps per game (its replay cache, the ORM's statement cache, reportlab's fonts) is kept for every
game.  The worker's resident size (``VmRSS`` of ``/proc/PID/status``) is read after each mail.

Target (issue 32): under 200 MB, and no growth over 1,000 handled games.  Prints the size after the
first round of games, then at each tenth of the run, the largest, and the growth from the end of the
first round to the end (a worker that keeps something for good per mail or per game grows steadily).

    python scripts/bench_worker_memory.py                      # 60 games, 240 mails: a few minutes
    python scripts/bench_worker_memory.py --games 1000 --mails 2000   # the full measure (long)
"""

from __future__ import annotations

import argparse
import mailbox
import os
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["Ann", "Bob", "Cy"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmRSS for the worker")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--mails", type=int, default=240)
    parser.add_argument("--tree", type=Path, help="run the worker from this checkout")
    args = parser.parse_args()
    tree = (args.tree or ROOT).resolve()
    sys.path.insert(0, str(tree))
    from sqlalchemy import func, select

    from pbm.auth import hash_secret
    from pbm.db import close_engines, session_scope
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.computer import choose
    from pbm.e18xx.pbem.games import create_game, move_text
    from pbm.models import Action18, Player
    from pbm.seats import SeatRequest

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'worker.db'}"
        engines: dict[int, Game] = {}
        secret = "MEMB-ENCH-0000"
        with session_scope(url) as s:
            hashed = hash_secret(secret)
            for g in range(args.games):
                seats = [SeatRequest(line=i, name=n, email=f"{n.lower()}{g}@example.org") for i, n in enumerate(NAMES, 1)]
                row, _ = create_game(s, title="18GA", seed=g, name=f"mem-{g}", seats=seats)
                for p in s.scalars(select(Player).where(Player.game_id == row.id)):
                    p.secret_hash = hashed
                engines[row.id] = Game("18GA", NAMES, g, (), None)
        close_engines()
        ids = sorted(engines)
        box_dir = folder / "Maildir"
        box = mailbox.Maildir(str(box_dir), create=True)
        (folder / "pbm.toml").write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")}
        env.update(PBM_CONFIG=str(folder / "pbm.toml"), PYTHONPATH=str(tree))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        proc = subprocess.Popen([sys.executable, "-m", "pbm", "--db", url, "worker", "--maildir", str(box_dir),
                                 "--poll", "3600", "--reports", str(folder / "reports"),
                                 "--archive", str(folder / "archive"), "--quiet"],
                                cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        sizes: list[float] = []
        t0 = time.perf_counter()
        try:
            time.sleep(1.0)
            for i in range(args.mails):
                gid = ids[i % len(ids)]
                game = engines[gid]
                act = choose(game)
                if act is None:
                    raise SystemExit(f"game {gid} is over after {len(game.actions)} actions; use fewer mails")
                seat = NAMES.index(game.controller(act.entity)) + 1
                line = move_text(game, act).split("   #")[0]
                game.process(act)
                msg = EmailMessage()
                msg["From"] = f"{NAMES[seat - 1].lower()}{ids.index(gid)}@example.org"
                msg["To"] = "pbm@example.org"
                msg["Subject"] = f"move {i}"
                msg["Message-ID"] = f"<mem-{i}@example.org>"
                msg.set_content(f"GAME: mem-{ids.index(gid)}\nPLAYER: {seat}\nSECRET: {secret}\n{line}\n")
                box.add(msg)
                deadline = time.monotonic() + 120
                while True:
                    with session_scope(url) as s:
                        stored = s.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == gid))
                    if stored >= len(game.actions):
                        break
                    if proc.poll() is not None:
                        raise SystemExit(f"the worker ended: {proc.stderr.read().decode()[-2000:]}")
                    if time.monotonic() > deadline:
                        raise SystemExit(f"mail {i} (game {gid}: {line!r}) was not handled within 120 s")
                    time.sleep(0.02)
                sizes.append(rss_mb(proc.pid))
        finally:
            proc.terminate()
            proc.wait(60)
            close_engines()
    elapsed = time.perf_counter() - t0
    first_round = sizes[min(len(ids), len(sizes)) - 1]
    print(f"{args.mails} mails to {args.games} 18GA games in {elapsed:.0f} s; load average {os.getloadavg()[0]:.2f}")
    step = max(1, len(sizes) // 10)
    print("resident size after mail: " + ", ".join(f"{i + 1}: {sizes[i]:.0f} MB" for i in range(0, len(sizes), step))
          + f", {len(sizes)}: {sizes[-1]:.0f} MB")
    print(f"largest {max(sizes):.0f} MB (target < 200 MB); after the first round of games {first_round:.0f} MB, "
          f"at the end {sizes[-1]:.0f} MB: growth {sizes[-1] - first_round:+.1f} MB over "
          f"{len(sizes) - min(len(ids), len(sizes))} more mails")


if __name__ == "__main__":
    main()

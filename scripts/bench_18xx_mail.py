#!/usr/bin/env python3
"""Benchmark: an 18xx move by mail, handled by a running worker (issue 32, target 1).

For each game: a new game of TITLE with N seats (each with an address, so every seat gets the state
mail with its PDF) is played by the computer player (``pbm.e18xx.pbem.computer.choose``) in a scratch
engine to its end; the first FRACTION of its actions are stored as the game's log (a late game), and
the actions after them are mailed one by one, each from the seat that must make it, as
``GAME/PLAYER/SECRET`` and one move line.  Each mail is handed to ``pbm.mail.ingest.ingest`` in
this one process, as a ``pbm worker`` does once it has read the mail, and committed: the clock runs
from the mail's bytes to every player's state mail queued in the outbox (the commit included).
The first mail of each game (imports, first statements) is not counted.

Defaults: a late 5-player 18GA game and a late 6-player 1848 game (the brief's), 15 moves each.
Target (issue 32): median <= 150 ms, p95 <= 300 ms.  Prints wall and CPU (this process) per mail.

    python scripts/bench_18xx_mail.py [--moves 15] [--fraction 0.85] [--games 18GA:5,1848:6] [--pg URL] [--pdf every]
    python scripts/bench_18xx_mail.py --tree /tmp/old   # pbm from another checkout (compare alternated)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

NAMES = ["Ada", "Ben", "Cid", "Dot", "Eve", "Fay"]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=15, help="mails measured per game (after a first one)")
    parser.add_argument("--fraction", type=float, default=0.85, help="share of the game already played")
    parser.add_argument("--games", default="18GA:5,1848:6", help="TITLE:SEATS,... (default 18GA:5,1848:6)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pdf", choices=["every", "map", "turn", "never"],
                        help="every seat's PDF choice (default: none made: the PDF on its turn and when the map changed)")
    parser.add_argument("--tree", type=Path, help="import pbm from this checkout instead")
    parser.add_argument("--pg", help="a PostgreSQL admin URL: use a fresh database there instead of SQLite")
    parser.add_argument("--keep", type=Path, help="copy the SQLite database here at the end")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the measured mails (CPU)")
    parser.add_argument("--profile-out", type=Path, help="with --profile: also write the profile's stats here (pstats)")
    return parser.parse_args()


def late_game(title: str, seats: int, seed: int, fraction: float):
    """(actions to store, actions to mail) of a computer-played game of ``title``."""
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.computer import choose

    game = Game(title, NAMES[:seats], seed, (), None)
    while True:
        act = choose(game)
        if act is None:
            break
        game.process(act)
    acts = list(game.actions)
    cut = int(len(acts) * fraction)
    return acts[:cut], acts[cut:]


def outcome_digest(url: str, game_id: int) -> str:
    """SHA-256 (first 12 hex digits) of what the mails left: the game's stored actions and every queued
    message's key, recipients, subject and parts (Date, Message-ID and MIME boundaries, which differ from
    run to run, left out, and the times written in the texts, which are now's), to compare runs (``PBM_REPLAY_CACHE=0`` against the default, another tree)."""
    import email
    import email.policy
    import hashlib
    import json
    import re

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Action18, OutboxMessage

    h = hashlib.sha256()
    with session_scope(url) as s:
        for a in s.scalars(select(Action18).where(Action18.game_id == game_id).order_by(Action18.seq)):
            h.update(json.dumps([a.seq, a.player_number, a.action], sort_keys=True).encode())
        for m in s.scalars(select(OutboxMessage).where(OutboxMessage.game_id == game_id).order_by(OutboxMessage.id)):
            msg = email.message_from_bytes(m.raw, policy=email.policy.default)
            h.update(json.dumps([m.key, m.kind, m.recipients, str(msg["Subject"]), str(msg["To"])]).encode())
            for part in msg.walk():
                if not part.is_multipart():
                    data = re.sub(rb"\d{4}-\d\d-\d\d \d\d:\d\d", b"<time>", part.get_payload(decode=True) or b"")
                    h.update(part.get_content_type().encode() + b"\0" + data)
    return h.hexdigest()[:12]


def main() -> None:
    args = parse_args()
    root = (args.tree or Path(__file__).resolve().parent.parent).resolve()
    sys.path.insert(0, str(root))
    import pbm

    assert Path(pbm.__file__).resolve().is_relative_to(root), pbm.__file__
    from sqlalchemy import func, select

    from pbm.db import session_scope
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.games import create_game, move_text
    from pbm.e18xx.pbem.notify import set_pdf_preference
    from pbm.mail.ingest import Context, ingest
    from pbm.auth import hash_secret
    from pbm.models import Action18, OutboxMessage, Player
    from pbm.seats import SeatRequest

    with tempfile.TemporaryDirectory() as tmp:
        if args.pg:
            import uuid

            from sqlalchemy import create_engine, text

            dbname = f"bench18_{uuid.uuid4().hex[:8]}"
            admin = create_engine(args.pg, isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.execute(text(f'CREATE DATABASE "{dbname}"'))
            url = args.pg.rsplit("/", 1)[0] + "/" + dbname
        else:
            url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        ctx = Context(sender="pbm@example.org")
        profile = None
        if args.profile:
            import cProfile

            profile = cProfile.Profile(time.process_time)
        print(f"pbm from {root}; {url.split('://')[0]}; load average {os.getloadavg()[0]:.2f}")
        print(f"{'game':<10} {'actions':>8} {'median':>8} {'p95':>8} {'worst':>8} {'cpu med':>8}  state mails, digest of the outcome")
        for spec in args.games.split(","):
            title, n = spec.split(":")
            stored, _ = late_game(title, int(n), args.seed, args.fraction)
            name = f"{title.lower()}-bench"
            with session_scope(url) as s:
                seats = [SeatRequest(line=i, name=NAMES[i - 1], email=f"{NAMES[i - 1].lower()}@example.org")
                         for i in range(1, int(n) + 1)]
                row, secrets = create_game(s, title=title, seed=args.seed, name=name, seats=seats)
                # the same secrets and turn key in every run, so runs give the same mails (the digest)
                row.turn_key = "0" * 32
                for p in s.scalars(select(Player).where(Player.game_id == row.id)):
                    secrets[p.number] = f"BNCH-{p.number:04d}-SECR"
                    p.secret_hash = hash_secret(secrets[p.number])
                    if args.pdf:
                        set_pdf_preference(row, p.number, args.pdf)
                fresh = Game(title, NAMES[: int(n)], args.seed, (), None)
                number = {nm: i for i, nm in enumerate(NAMES, 1)}
                for seq, act in enumerate(stored, 1):
                    who = fresh.controller(act.entity)
                    fresh.process(act)
                    s.add(Action18(game_id=row.id, seq=seq, player_number=number.get(who), action=act.to_dict()))
                row.turn = fresh.state.turn
                gid = row.id
            walls, cpus, queued = [], [], []
            from pbm.e18xx.core.actions import action_from_dict
            from pbm.e18xx.pbem.computer import choose

            for i in range(args.moves + 1):
                # the next move is the computer's, chosen in the stored game's own state: a mail may
                # store more than its one line (a stock turn ends as the title's rules say), so the
                # scratch game follows the stored log after every mail, not the first game's plan
                act = choose(fresh)
                if act is None:
                    break
                who = fresh.controller(act.entity)
                seat = number[who]
                line = move_text(fresh, act).split("   #")[0]
                raw = (f"From: {who.lower()}@example.org\r\nTo: pbm@example.org\r\n"
                       f"Subject: move {i}\r\nMessage-ID: <{name}-{i}@example.org>\r\n"
                       f"Date: Thu, 26 Nov 2026 09:00:{i % 60:02d} +0000\r\n\r\n"
                       f"GAME: {name}\r\nPLAYER: {seat}\r\nSECRET: {secrets[seat]}\r\n{line}\r\n").encode()
                if profile is not None and i:
                    profile.enable()
                c0, t0 = time.process_time(), time.perf_counter()
                with session_scope(url) as s:
                    before = s.scalar(select(func.count()).select_from(OutboxMessage))
                    outcome = ingest(s, raw, ctx)
                    after = s.scalar(select(func.count()).select_from(OutboxMessage))
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                if profile is not None:
                    profile.disable()
                if outcome.status != "accepted":
                    raise SystemExit(f"{title} move {i} ({line!r} by seat {seat}) not accepted: {outcome.line()}")
                with session_scope(url) as s:
                    count = s.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == gid))
                if count <= len(fresh.actions):
                    raise SystemExit(f"{title} move {i} was not stored")
                with session_scope(url) as s:
                    for (data,) in s.execute(select(Action18.action).where(Action18.game_id == gid,
                                                                           Action18.seq > len(fresh.actions))
                                             .order_by(Action18.seq)):
                        fresh.process(action_from_dict(data))
                if i:  # the first pays for imports and the first statements
                    walls.append(wall)
                    cpus.append(cpu)
                    queued.append(after - before)
            digest = outcome_digest(url, gid)
            walls.sort()
            p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
            print(f"{title + '/' + n:<10} {len(stored):>8} {statistics.median(walls) * 1000:>6.0f}ms {p95 * 1000:>6.0f}ms "
                  f"{walls[-1] * 1000:>6.0f}ms {statistics.median(cpus) * 1000:>6.0f}ms  "
                  f"{min(queued)}-{max(queued)} a mail  {digest}")
        print(f"load average {os.getloadavg()[0]:.2f}; target: median <= 150 ms, p95 <= 300 ms")
        if profile is not None:
            import pstats

            pstats.Stats(profile).sort_stats("cumulative").print_stats(60)
            if args.profile_out:
                profile.dump_stats(str(args.profile_out))
        if args.keep and not args.pg:
            import shutil

            shutil.copyfile(Path(tmp) / "bench.db", args.keep)
        if args.pg:
            from pbm.db import close_engines

            close_engines()
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE "{dbname}" WITH (FORCE)'))


if __name__ == "__main__":
    main()

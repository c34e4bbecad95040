"""18xx games played by email, seeded with mailed moves: the 18xx half of ``scripts/bench_hosting.py``
and of the hosting tests (docs/hosting.md; the Continental Rails half is :func:`pbm.turnsheet.seed.populate`)."""

from __future__ import annotations

import os
import time
from email.message import EmailMessage
from pathlib import Path

from pbm.db import session_scope
from pbm.e18xx.pbem.computer import choose
from pbm.e18xx.pbem.games import create_game, load, move_text
from pbm.seats import SeatRequest


def mail_first_moves(url: str | None, *, title: str, games: int, moves: int, maildir: Path, seed: int = 1,
                     prefix: str = "ga", players: int = 3, address: str = "games@example.org") -> dict[str, int]:
    """Create ``games`` 18xx games played by email and mail each game's first ``moves`` moves into
    ``maildir`` — each from the seat that must make it, in order (the computer player's choices), one
    move a mail; returns {game: moves mailed}.  The mail of one game must be handled in arrival order,
    different games' mail may be handled side by side.

    The files are named and dated so that a Maildir reader takes them in the order written."""
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    stamp = time.time()
    mailed: dict[str, int] = {}
    count = 0
    for i in range(games):
        name = f"{prefix}-{i:04d}"
        seats = [SeatRequest(line=k + 2, name=f"Player {k + 1} of {name}", email=f"p{k + 1}.{name}@example.org")
                 for k in range(players)]
        with session_scope(url) as s:
            row, secrets = create_game(s, title=title, seed=seed + i, name=name, seats=seats)
            game = load(s, row)
            seat_of = {seat.name: number for number, seat in enumerate(seats, start=1)}
            for k in range(moves):
                action = choose(game)
                if action is None:
                    break
                number = seat_of[game.controller(game.current_entity())]
                msg = EmailMessage()
                msg["From"] = seats[number - 1].email
                msg["To"] = address
                msg["Subject"] = f"{name} move {k + 1}"
                msg["Message-ID"] = f"<bench-{name}-{k + 1}@example.org>"
                msg.set_content(f"GAME: {name}\nPLAYER: {number}\nSECRET: {secrets[number]}\n"
                                f"{move_text(game, action)}\n")
                game.process(action)
                count += 1
                tmp = maildir / "tmp" / f"{count:08d}.bench"
                tmp.write_bytes(msg.as_bytes())
                os.utime(tmp, (stamp, stamp))
                os.rename(tmp, maildir / "new" / tmp.name)
                mailed[name] = mailed.get(name, 0) + 1
    return mailed

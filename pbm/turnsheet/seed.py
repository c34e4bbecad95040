"""Continental Rails games seeded with mailed turnsheets: the sheets of ``pbm demo`` and the Continental
Rails half of ``scripts/bench_hosting.py`` and the hosting tests (docs/hosting.md; the 18xx half is
:mod:`pbm.e18xx.pbem.seed`).  Every sheet holds the orders the computer player would give (§3.1), so
it is legal, and one of a few sample messages to the other players."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

from pbm.db import session_scope
from pbm.models import Game, Player

MESSAGES = ["All aboard!", "My rails will reach Chicago first.", "Buy <font>B&O</font> & prosper!",
            "Watch the Erie.", "Gold in California, friends."]


def sheet_text(session, game: Game, player: Player, secret: str, turn: int) -> str:
    """The player's filled-in text turnsheet for ``turn``: header lines, the computer's orders, END."""
    from pbm.auth import turn_code
    from pbm.cr.ai import computer_orders
    from pbm.turnsheet.text import format_orders

    orders = computer_orders(session, game, player)
    orders.message = MESSAGES[(player.number + turn) % len(MESSAGES)]
    lines = [f"GAME: {game.name}", f"PLAYER: {player.number}", f"TURN: {turn}",
             f"CODE: {turn_code(game, player.number, turn)}", f"SECRET: {secret}", ""]
    lines += format_orders(orders)
    lines.append("END")
    return "\n".join(lines) + "\n"


def populate(url: str | None, *, games: int, humans: int = 1, maildir: Path | None = None, seed: int = 1,
             prefix: str = "host", deadline: datetime | None = None, address: str = "pbm@demo.invalid") -> list[str]:
    """Create ``games`` Continental Rails games due now, each with ``humans`` human seats whose turn-1
    turnsheets (legal orders, chosen as the computer would) are mailed into ``maildir``.

    For ``scripts/bench_hosting.py`` and the hosting tests: a week's work for many workers."""
    import mailbox
    from datetime import timedelta

    from pbm.clock import utcnow
    from email.message import EmailMessage

    from pbm.cr.setup import create_game
    from pbm.seats import SeatRequest

    box = mailbox.Maildir(str(maildir), create=True) if maildir is not None else None
    names = []
    for i in range(games):
        name = f"{prefix}-{i:04d}"
        with session_scope(url) as s:
            seats = [SeatRequest(line=k + 2, name=f"Player {k + 1} of {name}", email=f"p{k + 1}.{name}@example.org")
                     for k in range(humans)]
            created = create_game(s, seed=seed + i, name=name, seats=seats)
            game = created.game
            game.deadline = utcnow() + timedelta(days=7)  # set below, once every sheet is in
            s.flush()
            if box is not None:
                for player in sorted(game.players, key=lambda p: p.number):
                    if not player.human:
                        continue
                    msg = EmailMessage()
                    msg["From"] = player.email
                    msg["To"] = address
                    msg["Subject"] = f"Orders for {name}, turn {game.turn}"
                    msg["Message-ID"] = f"<bench-{name}-{game.turn}-{player.number}@example.org>"
                    msg.set_content(sheet_text(s, game, player, created.secrets[player.number], game.turn))
                    box.add(mailbox.MaildirMessage(msg))
        names.append(name)
    from sqlalchemy import update

    due = deadline or utcnow().replace(microsecond=0) + timedelta(seconds=1)  # after every sheet above
    with session_scope(url) as s:
        s.execute(update(Game).where(Game.name.in_(names)).values(deadline=due))
    time.sleep(max(0.0, (due - utcnow()).total_seconds()) + 0.1 if deadline is None else 0)  # past the deadline: the games are due
    return names


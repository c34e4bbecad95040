"""``pbm demo``: the whole product in one command.

Creates a game with a few human seats in its own folder, writes each human's
filled-in turnsheet as an email into a local Maildir (orders chosen by the
computer player's logic, so they are legal), runs the weekly cycle for a few
turns (ingest → close → resolve → render → send → archive), and leaves:

* ``reports/<game>/turn-<T>/player-<N>.pdf`` and ``moderator.pdf``;
* ``archive/<game>/turn-<T>/`` bundles and the static site ``archive/<game>/site/``;
* ``outbox/`` — every mail pbm would have sent (receipts, reports), as .eml files;
* ``maildir/`` — the players' mails as they arrived; ``players.csv`` — the players file the game was
  created from; ``players.txt`` — the seats and secrets.
"""

from __future__ import annotations

import csv
import mailbox
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from pbm.clock import utcnow
from pbm.db import session_scope
from pbm.errors import PbmError
from pbm.kinds import kind_for_title, kind_of
from pbm.models import Game, OutboxMessage, Player

DEMO_PLAYERS = [
    ("Ada Lovelace", "ada@example.org", "Countess of Rails", "555-0101"),
    ("Isambard Brunel", "ike@example.org", "<b>Evil & Co</b>", ""),
    ("Carl Benz", "carl@example.org", "", "555-0103"),
    ("Dora Dining", "dora@example.org", "Dora of the Diner Car", "555-0104"),
]
GAME_ADDRESS = "pbm@demo.invalid"


@dataclass
class DemoResult:
    folder: Path
    game: str
    turns: int
    reports: list[Path]


def _write_mails(url: str, game_name: str, secrets: dict[int, str], box: mailbox.Maildir, turn: int) -> int:
    count = 0
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == game_name))
        for player in s.scalars(select(Player).where(Player.game_id == game.id, Player.human.is_(True))
                                .order_by(Player.number)):
            msg = EmailMessage()
            msg["From"] = player.email
            msg["To"] = GAME_ADDRESS
            msg["Subject"] = f"Orders for {game.name}, turn {turn}"
            msg["Message-ID"] = f"<demo-{game.name}-{turn}-{player.number}@example.org>"
            msg.set_content(kind_of(game).sample_orders(s, game, player.number, secrets[player.number]))
            box.add(mailbox.MaildirMessage(msg))
            count += 1
    return count


def run_demo(folder: Path, *, url: str | None = None, turns: int = 3, seed: int = 1841,
             log: Callable[[str], None] = print, progress: Callable | None = None) -> DemoResult:
    """Build the demo in ``folder`` (its own SQLite database unless ``url`` is given)."""
    from pbm.pipeline.cycle import CycleOptions, run_cycle

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    url = url or f"sqlite:///{(folder / 'pbm.db').resolve()}"
    name = f"demo-{seed}"
    kind, title = kind_for_title("continental-rails")
    players_csv = folder / "players.csv"  # what a moderator gives `pbm new-game --players`
    with players_csv.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["name", "email", "character", "phone"])
        writer.writerows(DEMO_PLAYERS)
    create = kind.new_game(title=title, seed=seed, name=name, players=players_csv, anonymous=False, rules=())
    with session_scope(url) as s:
        if s.scalar(select(Game.id).where(Game.name == name)) is not None:
            raise PbmError(f"{folder} already holds the demo game {name}; choose another --dir or remove it")
        created = create(s)
        created.game.deadline = utcnow().replace(microsecond=0) + timedelta(days=7)
        secrets = dict(created.secrets)
        players_txt = ["The demo's human seats (secrets are shown once, as `pbm new-game` does):"]
        for p in sorted(created.game.players, key=lambda p: p.number):
            if p.human:
                players_txt.append(f"#{p.number} {p.name} <{p.email}> as {p.character}: secret {secrets[p.number]}")
    (folder / "players.txt").write_text("\n".join(players_txt) + "\n", encoding="utf-8")
    log(f"Created game {name} with {len(DEMO_PLAYERS)} human players and {15 - len(DEMO_PLAYERS)} computer players.")
    box = mailbox.Maildir(str(folder / "maildir"), create=True)
    opts = CycleOptions(reports=folder / "reports", archive=folder / "archive", maildir=folder / "maildir",
                        force=True, log=log, progress=progress)
    for turn in range(1, turns + 1):
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == name))
            if game.status != "open":
                break
        n = _write_mails(url, name, secrets, box, turn)
        log(f"Turn {turn}: {n} players mailed their turnsheets to {folder / 'maildir'}.")
        opts.now = utcnow()
        run_cycle(url, opts, [name])
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == name))
        kind_of(game).build_site(s, game, folder / "archive" / name / "site")
        outbox = folder / "outbox"
        outbox.mkdir(exist_ok=True)
        for m in s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)):
            safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in m.key)
            (outbox / f"{m.id:04d}-{safe}.eml").write_bytes(bytes(m.raw))
        played = game.turn - 1 if game.status == "open" else game.turn
    reports = sorted((folder / "reports").rglob("*.pdf"))
    return DemoResult(folder=folder, game=name, turns=played, reports=reports)

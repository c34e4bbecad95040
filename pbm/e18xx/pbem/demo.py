"""``pbm demo --title 18AL``: an 18xx game played by email in one command (issue 29, item 9).

Creates a game of the title with three players in its own folder, then plays it the way players do:
whoever must act writes a mail (his whole company turn in one mail, as docs/18xx/email.md shows; the
moves are the computer player's sensible choices, so they are legal), the mail lands in a local
Maildir, and the mail intake every pbm command uses (:func:`pbm.intake.take_mail`) reads it, applies
it and queues the answers.  It leaves:

* ``maildir/`` — the players' mails as they arrived;
* ``outbox/`` — every mail pbm would have sent (the start of the game, receipts, state mails with their
  PDFs), as .eml files, numbered in the order they were queued;
* ``pdfs/`` — the state PDF after each mail, as the players got it;
* ``players.csv`` and ``players.txt`` — the players file and the seats with their secrets.

Nothing is sent: the outbox is written to files.  Deterministic for a seed (the times in the mail
headers aside).
"""
from __future__ import annotations

import csv
import mailbox
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from pbm.db import session_scope
from pbm.errors import PbmError

PLAYERS = [("Ada Lovelace", "ada@example.org"), ("Isambard Brunel", "ike@example.org"),
           ("Carl Benz", "carl@example.org")]
GAME_ADDRESS = "pbm@demo.invalid"


@dataclass
class Demo18:
    folder: Path
    game: str
    title: str
    mails: int = 0
    actions: int = 0
    refused: int = 0
    pdfs: list[Path] = field(default_factory=list)
    outbox: list[Path] = field(default_factory=list)
    state: str = ""


def _turn_mail(game, rng_pick: Callable) -> tuple[str, list[str]]:
    """(player, move lines) of the next mail: the acting player's move, or his company's whole turn."""
    from pbm.e18xx.pbem.computer import choose
    from pbm.e18xx.pbem.games import move_text, needs_consent

    entity = game.current_entity()
    player = game.controller(entity)
    lines: list[str] = []
    while not game.finished and game.current_entity() == entity and len(lines) < 12:
        act = choose(game)
        if act is None or needs_consent(game, player, act):
            break
        lines.append(move_text(game, act))
        game.process(act)
        if entity not in game.state.corporations:
            break  # a player's stock or auction turn is one move; a company's turn is all of its steps
    return player, lines


def run_demo_18xx(kind, folder: Path, title: str, *, url: str, read_mail: Callable[[Path], list],
                  seed: int = 1848, moves: int = 40, log: Callable[[str], None] = print) -> Demo18:
    """Play ``moves`` actions (at least) of ``title`` by mail in ``folder`` on the database ``url``.

    ``kind`` is the 18xx game kind (it creates the game and announces its start); ``read_mail(maildir)``
    reads the new mails of the Maildir as ``pbm ingest --maildir`` does and returns the outcomes (the
    command passes the one intake protocol, :func:`pbm.intake.take_mail`)."""
    from pbm.mail.account import queue_welcome
    from pbm.models import Game, OutboxMessage

    from pbm.e18xx.core.title import canonical_title, known_titles
    from pbm.e18xx.pbem.games import action_rows, load, players

    canonical = canonical_title(title)
    if canonical is None:
        raise PbmError(f"--title {title!r} is not an 18xx title here; the demo plays {', '.join(known_titles())} "
                       "by mail (`pbm demo` without --title plays Continental Rails)")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"demo-{canonical.lower()}-{seed}"
    players_csv = folder / "players.csv"
    with players_csv.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["name", "email"])
        writer.writerows(PLAYERS)
    create = kind.new_game(title=canonical, seed=seed, name=name, players=players_csv, anonymous=False, rules=())
    with session_scope(url) as s:
        if s.scalar(select(Game.id).where(Game.name == name)) is not None:
            raise PbmError(f"{folder} already holds the demo game {name}; choose another --dir or remove it")
        created = create(s)
        secrets = dict(created.secrets)
        queue_welcome(s, created.game, secrets, GAME_ADDRESS, "")
        kind.started(s, created.game, GAME_ADDRESS)
    (folder / "players.txt").write_text(
        "The demo's players (secrets are shown once, as `pbm new-game` does):\n"
        + "".join(f"#{n} {p} <{a}>: secret {secrets[n]}\n" for n, (p, a) in enumerate(PLAYERS, 1)), encoding="utf-8")
    log(f"Created {canonical} game {name} with {len(PLAYERS)} players (seed {seed}).")
    box_path = folder / "maildir"
    box = mailbox.Maildir(str(box_path), create=True)
    seat_of = {p: n for n, (p, _) in enumerate(PLAYERS, 1)}
    result = Demo18(folder, name, canonical)
    guard = 0
    while result.actions < moves and guard < moves * 3:
        guard += 1
        with session_scope(url) as s:
            row = s.scalar(select(Game).where(Game.name == name))
            game = load(s, row)
            if game.finished or row.status != "open":
                break
            before = len(action_rows(s, row))
        player, lines = _turn_mail(game, None)
        if not lines:
            break
        seat = seat_of[player]
        msg = EmailMessage()
        msg["From"] = f"{player} <{PLAYERS[seat - 1][1]}>"
        msg["To"] = GAME_ADDRESS
        msg["Subject"] = f"{name}: my move"
        msg["Message-ID"] = f"<{name}-{result.mails + 1}@example.org>"
        msg.set_content(f"GAME: {name}\nPLAYER: {seat}\nSECRET: {secrets[seat]}\n" + "\n".join(lines) + "\n")
        box.add(mailbox.MaildirMessage(msg))
        result.mails += 1
        handled = read_mail(box_path)
        with session_scope(url) as s:
            row = s.scalar(select(Game).where(Game.name == name))
            after = len(action_rows(s, row))
        if after <= before:
            result.refused += 1
            log(f"Mail {result.mails} from {player} was refused: "
                + "; ".join(o.reason or o.status for o in handled))
            break
        result.actions = after
        log(f"Mail {result.mails}: {player} (player {seat}) - {'; '.join(lines)}")
    out_dir, pdf_dir = folder / "outbox", folder / "pdfs"
    out_dir.mkdir(exist_ok=True)
    pdf_dir.mkdir(exist_ok=True)
    import email
    import email.policy

    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == name))
        from pbm.e18xx.pbem.mailplay import state_text
        from pbm.e18xx.pbem.games import replay_rows

        result.state = state_text(s, row, replay_rows(s, row))
        (folder / "state.txt").write_text(result.state + "\n", encoding="utf-8")
        n_seats = len(players(s, row))
        for m in s.scalars(select(OutboxMessage).order_by(OutboxMessage.id)):
            safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in m.key)[:80]
            path = out_dir / f"{m.id:04d}-{safe}.eml"
            path.write_bytes(bytes(m.raw))
            result.outbox.append(path)
            parsed = email.message_from_bytes(bytes(m.raw), policy=email.policy.default)
            for part in parsed.iter_attachments():
                fname = part.get_filename() or ""
                if part.get_content_type() == "application/pdf" and fname:
                    target = pdf_dir / fname
                    if not target.exists():
                        target.write_bytes(part.get_content())
                        result.pdfs.append(target)
    log(f"{result.mails} mail(s) from {n_seats} players, {result.actions} action(s) stored"
        + (f", {result.refused} mail(s) refused" if result.refused else "") + ".")
    return result

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
OPERATING = {"lay", "run", "train"}  # what the demo plays on until its companies have done it


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
    operated: bool = False  # a company's turn laid a tile, ran a route and bought a train


def demo_choose(game, turn: frozenset[str] | set[str] = frozenset()):
    """The demo players' move: they get the game going, so that companies float and operate within
    the demo's few dozen actions (issue 29: a demo of 40 actions that were mostly passes never reached
    an operating turn).  In the private sale a player takes what nobody else wants, at its price, while
    it costs at most half his cash, and otherwise passes; in a stock round a player who presides no
    company starts one at its lowest par, then buys its shares until it floats, and otherwise passes;
    a company's turn is the computer player's (:func:`pbm.e18xx.pbem.computer.choose`: lay, station,
    run, pay out, buy a train), and a company that ran buys one more train from the bank if it may
    (``turn``: what its turn did so far), withholding the revenue when it could not pay for the bank's
    next train, so that an operating turn shows a lay, a run and a purchase."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.computer import choose

    if game.finished:
        return None
    kind = game.state.round.kind
    cur = game.current_entity()
    if kind == "operating" or cur is None or cur in game.state.corporations:
        act = choose(game)
        if isinstance(act, A.Dividend) and cur in game.state.corporations:
            # a company that could not buy the depot's next train keeps its revenue for it
            depot = [t for t in game.state.trains.values() if t.owner == "depot"]
            price = min((t.price for t in depot), default=0)
            withhold = next((a for a in game.legal_actions() if isinstance(a, A.Dividend) and a.kind == "withhold"),
                            None)
            if withhold is not None and price and game.state.cash.get(f"C:{cur}", 0) < price:
                return withhold
        if isinstance(act, A.Pass) and cur in game.state.corporations and "run" in turn and "train" not in turn:
            # the computer keeps two trains; a demo company that ran buys one more from the bank if it may
            buy = [a for a in game.legal_actions() if isinstance(a, A.BuyTrain) and a.entity == cur
                   and game.state.trains[a.train].owner in ("depot", "discard")]
            if buy:
                return min(buy, key=lambda a: (a.price or 0, a.train))
        return act
    s = game.state
    player = game.controller(cur)
    cash = int(s.cash.get(f"P:{player}", 0))
    legal = [a for a in game.legal_actions() if a.entity == cur]
    passing = next((a for a in legal if isinstance(a, A.Pass)), None)
    if kind == "auction":
        bids = s.round.bids if hasattr(s.round, "bids") else {}
        free = [a for a in legal if isinstance(a, A.Bid) and not bids.get(a.company) and a.price * 2 <= cash]
        if free:
            return min(free, key=lambda a: (a.price, a.company))
        pars = [a for a in legal if isinstance(a, A.Par)]  # a private's company (18VA's B&O): its lowest value
        if pars:
            return min(pars, key=lambda a: (a.price, a.corporation))
        return passing or choose(game)
    presides = [c for c in s.corporations if game.president(c) == player]
    last = game.actions[-1] if game.actions else None
    if isinstance(last, (A.BuyShares, A.Par)) and last.entity == cur:
        return passing or choose(game)  # one purchase a turn
    if not presides:
        pars = [a for a in legal if isinstance(a, A.Par) and a.price * 2 <= cash]
        if pars:
            return min(pars, key=lambda a: (a.price, a.corporation))
    unfloated = {c for c, x in s.corporations.items() if x.ipoed and not x.floated}
    buys = [a for a in legal if isinstance(a, A.BuyShares) and (a.corporation or a.shares[0].rsplit("_", 1)[0]) in unfloated]
    mine = [a for a in buys if (a.corporation or a.shares[0].rsplit("_", 1)[0]) in presides]
    if mine or buys:
        return (mine or buys)[0]
    return passing or choose(game)


def _turn_mail(game, rng_pick: Callable, seen: set[str] | None = None) -> tuple[str, list[str]]:
    """(player, move lines) of the next mail: the acting player's move, or his company's whole turn;
    ``seen`` gets ``lay``, ``run`` (a route that earned) and ``train`` when one company turn did all three."""
    from pbm.e18xx.core import actions as A

    from pbm.e18xx.pbem.games import move_text, needs_consent

    entity = game.current_entity()
    player = game.controller(entity)
    lines: list[str] = []
    turn: set[str] = set()  # what this company's turn did
    while not game.finished and game.current_entity() == entity and len(lines) < 12:
        act = demo_choose(game, turn)
        if act is None or needs_consent(game, player, act):
            break
        lines.append(move_text(game, act))
        game.process(act)
        if entity in game.state.corporations:
            if isinstance(act, A.LayTile):
                turn.add("lay")
            elif isinstance(act, A.BuyTrain):
                turn.add("train")
            elif isinstance(act, A.RunRoutes) and getattr(game.state.round, "routes", None):
                turn.add("run")
        if entity not in game.state.corporations:
            break  # a player's stock or auction turn is one move; a company's turn is all of its steps
    if seen is not None and turn >= OPERATING:
        seen |= turn
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
    seen: set[str] = set()  # an operating turn is shown: a tile laid, a route run, a train bought
    while (result.actions < moves or seen < OPERATING) and guard < moves * 3 + 200:
        guard += 1
        with session_scope(url) as s:
            row = s.scalar(select(Game).where(Game.name == name))
            game = load(s, row)
            if game.finished or row.status != "open":
                break
            before = len(action_rows(s, row))
        player, lines = _turn_mail(game, None, seen)
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
        log(f"Mail {result.mails}: {player} (player {seat}) - {'; '.join(ln.split('#')[0].strip() for ln in lines)}")
        if seen >= OPERATING and not result.operated:
            result.operated = True
            log("  (an operating turn in one mail: a tile laid, a route run, a train bought)")
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

"""The moderator corrects a turn (issue 18, item 8): orders entered or fixed by hand, and corrected
report mails after ``pbm rerun-turn``.

Orders entered by the moderator (``pbm orders set``) are read and checked exactly as a mailed text sheet
(:func:`pbm.turnsheet.parse.parse_text`, :func:`pbm.turnsheet.check.check`): for a turn already resolved,
against the game as it stood before that turn (its snapshot, restored inside a savepoint and rolled back).
They are stored as an accepted OrderSet with source ``moderator`` that arrives after every sheet on record,
so it counts (the last sheet counts); the player is told by mail, with the orders and the problem list.

Corrected reports: every rerun of a turn is numbered in the turn's history (``{"event": "rerun", "n": k}``),
and the corrected report of each turn redone is queued under ``correction:<game>:<turn>:<k>:<player>``:
the same rerun never mails twice, a new rerun mails again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm.errors import PbmError
from pbm.models import Game, InboundMessage, OrderSet, Player, Snapshot, TurnState


@dataclass
class Entered:
    orderset: OrderSet
    echo: list[str]
    problems: list[str]
    resolved: bool  # the turn was already resolved: `pbm rerun-turn` makes it count


def _as_sheet(text: str, game: Game, number: int, turn: int) -> tuple[str, int]:
    """The sheet and the lines added before the text: a header is added when the text has none (orders
    only); a header given must name this game, player and turn."""
    from pbm.turnsheet.parse import parse_text

    head = parse_text(text).header
    if head.game is None and head.player is None and head.turn is None:
        return f"GAME: {game.name}\nPLAYER: {number}\nTURN: {turn}\n" + text, 3
    for what, given, wanted in (("GAME", (head.game or "").strip().lower(), game.name.lower()),
                                ("PLAYER", head.player, number), ("TURN", head.turn, turn)):
        if given != wanted:
            raise PbmError(f"the sheet's {what} line says {given!r}, but you are entering orders for game "
                           f"{game.name}, player {number}, turn {turn}; fix the line or leave the header out")
    return text, 0


def _checked(session: Session, game: Game, player: Player, turn: int, text: str):
    """(orders, problems) as a mailed sheet for ``turn`` would get; a resolved turn is checked against the
    game before it (its snapshot), in a savepoint rolled back afterwards."""
    from pbm.turnsheet.check import check
    from pbm.turnsheet.parse import parse_text

    parsed = parse_text(text)
    if turn == game.turn:
        orders, problems = check(session, game, player, parsed.orders, parsed)
    else:
        from pbm.cr.state import restore_game

        snap = session.scalar(select(Snapshot).where(Snapshot.game_id == game.id, Snapshot.turn == turn))
        if snap is None:
            raise PbmError(f"no snapshot was taken before turn {turn} of {game.name}: its orders cannot be "
                           "checked or rerun")
        number = player.number
        session.flush()
        nested = session.begin_nested()
        try:
            restore_game(session, game, json.loads(snap.state))
            before = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
            orders, problems = check(session, game, before, parsed.orders, parsed)
        finally:
            nested.rollback()
        session.expire_all()
    problems = sorted(parsed.problems + problems, key=lambda p: (p.line is None, p.line or 0))
    return orders, problems


def enter_orders(session: Session, game: Game, number: int, turn: int, text: str) -> Entered:
    """Store the moderator's orders for seat ``number`` and ``turn`` (checked like a mailed sheet)."""
    from pbm.clock import utcnow
    from pbm.locks import lock_game
    from pbm.mail.policy import replace_computer_orders, supersede_older
    from pbm.turnsheet.text import format_orders

    lock_game(session, game)
    if game.status != "open" and turn >= game.turn:
        raise PbmError(f"game {game.name} is {game.status}")
    if turn < 1 or turn > game.turn:
        raise PbmError(f"turn {turn} of {game.name} has not started (turn {game.turn} is being played)")
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    if player is None:
        raise PbmError(f"game {game.name} has no player {number} (players are 1-15)")
    state = session.scalar(select(TurnState.state).where(TurnState.game_id == game.id, TurnState.turn == turn))
    if turn == game.turn and state not in (None, "open"):
        raise PbmError(f"turn {turn} of {game.name} is closed (being resolved); enter the orders when it is "
                       f"resolved, then `pbm rerun-turn {game.name} {turn}`")
    sheet, added = _as_sheet(text, game, number, turn)
    orders, problems = _checked(session, game, player, turn, sheet)
    for p in problems:  # line numbers of the moderator's own text
        if p.line is not None and added:
            p.line = p.line - added if p.line > added else None
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    last = max(session.scalar(select(func.max(InboundMessage.seq))) or 0,
               session.scalar(select(func.max(OrderSet.received_seq)).where(OrderSet.game_id == game.id)) or 0)
    row = OrderSet(game_id=game.id, turn=turn, player_id=player.id, source="moderator", status="accepted",
                   orders=orders.to_dict(), problems=[asdict(p) for p in problems], message_id=None,
                   received_seq=last + 1, received_at=utcnow())  # they arrive now (ruling M14)
    session.add(row)
    session.flush()
    replace_computer_orders(session, row)
    supersede_older(session, row)
    from pbm.turnsheet.intake import problem_lines

    return Entered(row, format_orders(orders), problem_lines(problems), resolved=turn < game.turn)




def notify_entered(session: Session, game: Game, number: int, entered: Entered, sender: str) -> str | None:
    """Tell the player the moderator entered his orders (to the address on file); the address, or None."""
    from pbm.mail import outbox
    from pbm.mail.compose import make_message, one_line
    from pbm.mail.message import clean_address

    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    address = clean_address(player.email or "") if player is not None and player.human else None
    if address is None:
        return None
    turn = entered.orderset.turn
    lines = [f"The moderator has entered your orders for game {game.name}, turn {turn}. They replace any "
             "sheet of yours for that turn.", "", "ORDERS (as they will be read):"]
    lines += [f"  {e}" for e in entered.echo] or ["  (no orders)"]
    lines += [""] + ([f"PROBLEMS ({len(entered.problems)}):"] + entered.problems if entered.problems
                     else ["No problems found."])
    if entered.resolved:
        lines += ["", f"Turn {turn} has already been resolved: it will be resolved again with these orders, and you "
                      "will get a corrected report."]
    lines += ["", "-- ", "pbm (automatic message)"]
    msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Turn {turn}: orders entered by the moderator",
                       "\n".join(lines) + "\n")
    outbox.queue(session, f"notice:entered:{entered.orderset.id}", "notice", [address], msg, game=game)
    return address


# -- corrected reports after a rerun -------------------------------------------------------------------------

def record_rerun(session: Session, game: Game, turn: int, reason: str = "") -> int:
    """Number this rerun of ``turn`` in its history; returns the number (1 for the first rerun)."""
    row = session.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == turn))
    if row is None:
        row = TurnState(game_id=game.id, turn=turn, state="archived", history=[])
        session.add(row)
    n = 1 + sum(1 for h in (row.history or []) if isinstance(h, dict) and h.get("event") == "rerun")
    row.history = [*(row.history or []), {"event": "rerun", "n": n, **({"reason": reason} if reason else {})}]
    session.flush()
    return n


@dataclass
class Corrections:
    queued: list[tuple[int, int]] = field(default_factory=list)  # (turn, player)
    already: list[tuple[int, int]] = field(default_factory=list)


def queue_corrections(session: Session, game: Game, turns: list[int], rerun: int, *, reports: Path,
                      reason: str = "") -> Corrections:
    """Render again and queue each human's corrected report of every turn redone, marked as a correction."""
    from pbm.mail import outbox
    from pbm.models import OutboxMessage
    from pbm.report.render import render_turn, turn_dir
    from pbm.report.send import build_message

    out = Corrections()
    humans = [p for p in session.scalars(select(Player).where(Player.game_id == game.id, Player.human.is_(True))
                                         .order_by(Player.number)) if p.email]
    for turn in turns if humans else []:
        render_turn(session, game, turn=turn, moderator=True, out=reports)
        for player in humans:
            key = f"correction:{game.name}:{turn}:{rerun}:{player.number}"
            if session.scalar(select(OutboxMessage.id).where(OutboxMessage.key == key)) is not None:
                out.already.append((turn, player.number))
                continue
            path = turn_dir(reports, game.name, turn) / f"player-{player.number}.pdf"
            msg = build_message(session, game, turn, player, path.read_bytes())
            subject = str(msg["Subject"])
            del msg["Subject"]
            msg["Subject"] = f"CORRECTED: {subject}"
            body = msg.get_body(("plain",))
            text = body.get_content()
            note = (f"CORRECTION: turn {turn} has been resolved again by the moderator"
                    + (f" ({' '.join(reason.split())[:300]})" if reason else "")
                    + f". This report replaces the turn {turn} report you received before.\n\n")
            body.set_content(note + text, charset="utf-8")
            outbox.queue(session, key, "report", [player.email], msg, game=game)
            out.queued.append((turn, player.number))
    return out

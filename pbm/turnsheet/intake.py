"""Continental Rails turnsheets in by mail (§10): Continental Rails' ``claim`` and ``handle``.

The mail intake (:mod:`pbm.mail.ingest`) stores every message, drops redeliveries, bounces and
auto-replies, takes secret changes, and offers the mail to the game kinds (:mod:`pbm.kinds`).
Continental Rails is asked last and claims whatever mail is left; here it:

1. finds the sheet: text body, text attachment, HTML body, filled PDF form;
2. authenticates it by what is inside: the player's secret and the turn's code; the From:
   address only receives a copy of the answer;
3. names the secret it read, so the intake cuts it out of the stored message (:mod:`pbm.mail.redact`);
4. checks the orders (the engine's validator) and stores them as an :class:`OrderSet`; the later
   sheet supersedes the earlier by arrival; after the deadline it is stored ``late`` and not used
   unless the moderator accepts it (``pbm accept-late``, :func:`accept_late`);
5. answers: to the address on file and to the sender if different, with the echo of every order
   that will be resolved, each problem with its line, and a receipt hash.

A mail with no sheet in it is refused here too, saying what was found and how to send a sheet.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm import kinds
from pbm.clock import utcnow
from pbm.cr.orders import Orders, Problem
from pbm.mail import outbox
from pbm.mail.answer import HELP, Outcome, find_message, finish, ignored_text, refuse, reply
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import clean_address, contents_once, plain_note
from pbm.mail.redact import remember
from pbm.mail.policy import (accepted_orderset, arrival, deadline_for, first_copy, grace_for,
                             replace_computer_orders, supersede_older)
from pbm.models import Game, InboundMessage, OrderSet, Player, Railroad, TurnState
from pbm.turnsheet.parse import ParsedSheet, parse_pdf, parse_text

# the sheet found (None: none), notes on the parts (with their names, for the moderator), the same notes in
# fixed words (for a refusal, which quotes nothing of an unauthenticated message), where the sheet was read
Claim = tuple["ParsedSheet | None", list[str], list[str], str]


def claim(session: Session, msg) -> Claim:
    """Every mail no other kind took: the sheet in it (or None), what was noted on its parts, and where
    the sheet was read from."""
    return _find_sheet(msg)


def receipt_hash(game: Game, player: int, turn: int, orders: Orders) -> str:
    """A short fingerprint of exactly what will be resolved (compare it with the turn report)."""
    canonical = json.dumps({"game": game.name, "player": player, "turn": turn, "orders": orders.to_dict()},
                           sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _find_sheet(msg) -> Claim:
    found = contents_once(msg)
    notes, told = list(found.skipped), list(found.told)
    for candidate in found.candidates:
        if candidate.kind == "pdf":
            parsed = parse_pdf(candidate.data or b"")
            if parsed is None:
                notes.append(f"{candidate.name}: a PDF without pbm turnsheet form fields")
                told.append(plain_note(candidate))
                continue
        else:
            parsed = parse_text(candidate.text or "")
        if parsed.found:
            return parsed, notes, told, candidate.name
        notes.append(f"{candidate.name}: no GAME/PLAYER/TURN lines")
        told.append(plain_note(candidate))
    return None, notes, told, ""


def _authenticate(session: Session, ctx: Any, parsed: ParsedSheet) -> tuple[Game, Player] | str:
    """(game, player), or the reason the sheet is refused."""
    from pbm.auth import check_secret, check_turn_code
    from pbm.locks import lock_game

    h = parsed.header
    if not h.game:
        return "the GAME line is missing or empty"
    games = session.scalars(select(Game).order_by(Game.id)).all()
    game = next((g for g in games if g.name.lower() == h.game.strip().lower()), None)
    if game is None:
        return "there is no game here by the name on your GAME line; copy the GAME line from your sheet"
    if not kinds.kind_of(game).weekly:  # routed by its GAME line: never a turnsheet answer (issue 18 item 5)
        return (f"game {game.name} takes moves, not turnsheets: write GAME: {game.name}, PLAYER: <your seat>, "
                "SECRET: <your secret> on their own lines at the top of the mail, then one move per line")
    lock_game(session, game)  # accepting and closing the turn exclude each other (item 2)
    if ctx.game is not None and game.id != ctx.game.id:
        return (f"your sheet is for game {game.name}, but this address takes sheets for game {ctx.game.name}; "
                "send it to the address given for your game")
    if game.status != "open":
        return f"game {game.name} is {game.status}; it takes no more orders"
    if h.player is None:
        return "the PLAYER line is missing or not a number"
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == h.player))
    if player is None:
        return f"game {game.name} has no player {h.player} (players are 1-15)"
    if not h.secret:
        return "the SECRET line is empty: write the secret you were given at the start of the game after SECRET:"
    if not player.human or not player.secret_hash or not check_secret(h.secret, player.secret_hash):
        return (f"the secret does not match player {player.number}'s secret (only letters and digits count; "
                "check for typing slips, or ask the moderator)")
    if h.turn is None:
        return "the TURN line is missing or not a number"
    if h.turn != game.turn:
        if h.turn < game.turn:
            return (f"this sheet is for turn {h.turn}, which is over; turn {game.turn} is being played now: "
                    f"use your turn-{game.turn} sheet")
        return f"this sheet is for turn {h.turn}, which has not started; turn {game.turn} is being played now"
    if not h.code:
        return f"the CODE line is empty: copy it from your turn-{game.turn} sheet"
    if not check_turn_code(game, player.number, game.turn, h.code):
        # the secret matched, so the sender is the player: their own current code is theirs to see (docs/mail.md)
        from pbm.auth import turn_code

        return (f"the code {one_line(h.code, 20)} is not player {player.number}'s code for turn {game.turn}. "
                f"Valid codes: only one, {turn_code(game, player.number, game.turn)} (your code for turn "
                f"{game.turn}, the turn being played; codes of other turns and other players' codes are not "
                "accepted). A code is six letters and digits, printed after CODE: on your turn sheet and in "
                "your last receipt")
    return game, player


def problem_lines(problems: list[Problem]) -> list[str]:
    """Each problem as a receipt shows it: its tag, its line, what was wrong and what is allowed
    (the mail receipt and ``pbm orders set``)."""
    out = []
    for p in problems:
        where = f"line {p.line}, " if p.line is not None else ""
        allowed = f" — allowed: {p.allowed}" if p.allowed else ""
        tag = "ADJUSTED" if p.adjusted else "NOTE" if getattr(p, "warning", False) else "NOT USED"
        out.append(f"  [{tag}] {where}{p.where}: {p.message}{allowed}")
    return out


def handle(session: Session, row: InboundMessage, ctx: Any, sender: str, claim: Claim) -> Outcome:
    """Read, authenticate and check the sheet the mail holds, store its orders, and queue the receipt
    (or the refusal, saying why)."""
    from pbm.turnsheet.check import check
    from pbm.turnsheet.text import format_orders

    parsed, notes, told, where = claim
    if parsed is None:
        reason = "no turnsheet found in the message"
        finish(row, "rejected", reason, notes=notes)
        replied = refuse(session, ctx, row, sender, reason + ". " + HELP, told)
        return Outcome(row.id, row.seq, "rejected", reason, replied)
    auth = _authenticate(session, ctx, parsed)
    if isinstance(auth, str):
        finish(row, "rejected", auth, sheet_in=where)
        remember(row, parsed.header.secret)  # right or wrong, it is cut out of the stored message
        head = parsed.header
        row.player_number = head.player if isinstance(head.player, int) and 0 < head.player < 100 else None
        row.turn = head.turn if isinstance(head.turn, int) and 0 <= head.turn < 100000 else None
        replied = refuse(session, ctx, row, sender, auth, [])
        return Outcome(row.id, row.seq, "rejected", auth, replied, player=row.player_number)
    game, player = auth
    orders, problems = check(session, game, player, parsed.orders, parsed)
    problems = sorted(parsed.problems + problems, key=lambda p: (p.line is None, p.line or 0))
    deadline = deadline_for(session, game, game.turn)
    arrived = row.received_at or utcnow()
    closed = _turn_closed(session, game)
    # the deadline plus the game's grace period (item 8): policy.closes_at, on the deadline just read
    closes = None if deadline is None else deadline + grace_for(game)
    late = closed or (closes is not None and arrived > closes)
    in_grace = not late and deadline is not None and arrived > deadline
    orderset = OrderSet(game_id=game.id, turn=game.turn, player_id=player.id, source="email",
                        status="late" if late else "accepted", orders=orders.to_dict(),
                        problems=[asdict(p) for p in problems], message_id=row.id, received_seq=row.seq,
                        received_at=arrived)
    session.add(orderset)
    session.flush()
    replaced, instead = [], ""
    if not late:  # the last sheet to arrive counts (M1, by arrival time: M14), whatever order pbm reads them in
        others = supersede_older(session, orderset)
        if orderset.status == "accepted":
            replaced = [o for o in others if o.status == "superseded"]
        else:
            instead = _counts_instead(session, game, player, orderset)
    digest = receipt_hash(game, player.number, game.turn, orders)
    status = "late" if late else orderset.status
    why = ("late: the turn was already closed (being resolved) when it arrived" if closed
           else "late: after the deadline" if late else "")
    # the row's changes all at once, after the reads above: one UPDATE of it with the commit, not two
    row.game_id, row.player_number, row.turn = game.id, player.number, game.turn
    remember(row, parsed.header.secret)  # cut out of the stored message by the intake (pbm.mail.redact)
    finish(row, status, why, receipt=digest, problems=len(problems),
            orderset=orderset.id, sheet_in=where)
    presided = sorted(session.scalars(select(Railroad.code).where(Railroad.game_id == game.id,
                                                                Railroad.president_id == player.id)))
    body = _receipt_text(row, game, player, orders, problems, digest, presided=presided, status=status, deadline=deadline,
                         replaced=replaced, where=where, echo=format_orders(orders), ctx=ctx, closed=closed,
                         ignored=parsed.ignored, grace_until=closes if in_grace else None, instead=instead)
    recipients = [player.email] if clean_address(player.email or "") else []
    recipients.append(sender)
    label = {"accepted": "Receipt", "late": "LATE — not used", "superseded": "Received, but a later sheet counts"}
    subject = f"[{one_line(game.name, 40)}] Turn {game.turn} player {player.number}: {label.get(status, status)}"
    replied = reply(session, ctx, row, recipients, subject, body, game)
    return Outcome(row.id, row.seq, status, row.outcome.get("reason", ""), replied, len(problems), player.number)


def _counts_instead(session: Session, game: Game, player: Player, orderset: OrderSet) -> str:
    """Why a sheet just read does not count, plainly (ruling M14): which sheet counts instead, and, for a
    copy of an earlier sheet, that a copy counts from when its first copy arrived."""
    def when(at: datetime | None) -> str:
        return f"{at:%Y-%m-%d %H:%M:%S} UTC" if at is not None else "an unknown time"

    current = accepted_orderset(session, game, player, orderset.turn)
    if current is None:
        counts = "a sheet of yours that arrived later already counts"
    elif current.source == "moderator":
        counts = (f"the orders the moderator entered for you at {when(current.received_at)} count; they came "
                  "after this sheet arrived")
    else:
        message = session.get(InboundMessage, current.message_id) if current.message_id else None
        number = message.seq if message is not None else current.received_seq
        counts = f"your message #{number}, which arrived later ({when(arrival(session, current))}), counts"
    lines = f"Received, but NOT USED: {counts}. The last sheet to arrive counts (ruling M14)."
    copy = first_copy(session, orderset)
    if copy is not None:
        lines = (f"This is the same sheet as your message #{copy.seq}, received {when(copy.received_at)}: a copy "
                 "counts from when its first copy arrived.\n" + lines + " To make these orders count again, send "
                 "them as a new mail (any change to the text makes it new).")
    return lines


def _turn_closed(session: Session, game: Game) -> bool:
    """True once the cycle (or run-turn) has closed the current turn: it takes no more orders.

    Read under the game's row lock (taken in :func:`_authenticate`), so a sheet is either accepted
    before the close or found late after it, never accepted into a turn being resolved (item 2)."""
    state = session.scalar(select(TurnState.state).where(TurnState.game_id == game.id, TurnState.turn == game.turn))
    return state is not None and state != "open"


def _receipt_text(row: InboundMessage, game: Game, player: Player, orders: Orders, problems: list[Problem],
                  digest: str, *, presided: list[str], status: str, deadline: datetime | None, replaced: list[OrderSet], where: str,
                  echo: list[str], ctx: Any, closed: bool = False,
                  ignored: list[tuple[int, str]] = (), grace_until: datetime | None = None,
                  instead: str = "") -> str:
    from pbm.auth import turn_code

    when = row.received_at.strftime("%Y-%m-%d %H:%M UTC") if row.received_at else "?"
    dl = deadline.strftime("%Y-%m-%d %H:%M UTC") if deadline else "none set"
    lines = [
        f"Continental Rails II — game {game.name}, turn {game.turn} ({game.year})",
        f"Player {player.number}: {one_line(player.character, 80)}",
        f"Your message #{row.seq}, received {when} (sheet read from: {where})",
        f"Deadline: {dl}",
        "",
    ]
    if grace_until is not None:
        lines[-1:-1] = [f"It arrived after the deadline, in the grace period (until "
                        f"{grace_until:%Y-%m-%d %H:%M} UTC): it counts as on time."]
    if status == "accepted":
        lines.append("ACCEPTED. These are the orders that will be resolved, unless you send a later sheet "
                     "before the deadline (the last sheet counts, and it replaces the whole earlier sheet).")
        if not echo:
            lines += ["", "WARNING: NO ORDERS WERE FOUND ON THIS SHEET. If you wrote orders, they were not read: "
                      "write them one per line as NAME: value (e.g. BORROW: 100) below the GAME, PLAYER, TURN "
                      "and CODE lines, or above a quoted sheet, and send the whole sheet again."]
    elif status == "late" and closed:
        lines.append("LATE — NOT USED. This sheet arrived after the turn was closed for resolution. It is stored; "
                     "it will not be used.")
    elif status == "late":
        lines.append("LATE — NOT USED. This sheet arrived after the deadline. It is stored; it will be used only "
                     "if the moderator accepts it. Until then your earlier sheet (if any) counts.")
    else:
        lines.append(instead or "Received, but NOT USED: a sheet of yours that arrived later already counts.")
    if replaced:
        lines.append("It replaces your earlier sheet(s): " + ", ".join(
            f"message #{o.received_seq}" if o.source == "email" else "the orders the moderator entered"
            for o in sorted(replaced, key=lambda o: o.received_seq)) + ".")
    lines += ["", f"Receipt: {digest}", "", "ORDERS (as they will be read):"]
    if echo:
        lines += [f"  {e}" for e in echo]
    else:
        lines.append("  (no orders: control of your railroads and their dividends stay unchanged, §10.1D, §10.2H)")
    standing = []
    if orders.control is None:
        standing.append("control: unchanged (§10.1D)")
    given = {r.railroad for r in orders.railroads if r.dividend is not None}
    standing += [f"{code} dividend: unchanged (§10.2H)" for code in presided if code not in given]
    if standing:
        lines.append("  standing: " + "; ".join(standing))
    lines.append("")
    if problems:
        lines.append(f"PROBLEMS ({len(problems)}): orders marked NOT USED are left out above; ADJUSTED ones "
                     "were cut to what is allowed; a NOTE changes nothing.")
        lines += problem_lines(problems)
    elif echo:
        lines.append("No problems found.")
    else:
        lines.append("No problems found, but no orders either (see the WARNING above).")
    if ignored:
        lines += ["", ignored_text(ignored)]
    lines += ["", "To change your orders, send a complete new sheet (you may edit and send back the lines above "
                  "with the header below and your SECRET).",
              f"GAME: {game.name}", f"PLAYER: {player.number}", f"TURN: {game.turn}",
              f"CODE: {turn_code(game, player.number, game.turn)}", "SECRET:", "",
              "-- ", "pbm (automatic answer)"]
    if ctx.moderator:
        lines.append(f"Questions: {ctx.moderator}")
    return "\n".join(lines) + "\n"


def accept_late(session: Session, game: Game, ref: str, ctx: Any) -> Outcome:
    """The moderator accepts a late sheet: it counts as if on time (the last sheet by arrival wins)."""
    from pbm.errors import PbmError

    row = find_message(session, ref)
    if row is None:
        raise PbmError(f"no stored message {ref!r} (give its number from `pbm status` or its Message-ID)")
    orderset = session.scalar(select(OrderSet).where(OrderSet.message_id == row.id))
    if orderset is None or row.game_id != game.id:
        raise PbmError(f"message #{row.seq} holds no sheet of game {game.name} (its status: {row.status})")
    if orderset.status != "late":
        raise PbmError(f"message #{row.seq} is not a late sheet (its sheet is {orderset.status})")
    from pbm.locks import lock_game

    lock_game(session, game)
    resolved = orderset.turn < game.turn  # then `pbm rerun-turn` resolves it again with the sheet (item 8)
    if not resolved and _turn_closed(session, game):
        raise PbmError(f"turn {game.turn} of {game.name} is closed (being resolved); a late sheet can no longer "
                       "be accepted for it")
    orderset.status = "accepted"
    replace_computer_orders(session, orderset)  # the computer played the seat in a turn already run (M12)
    supersede_older(session, orderset)
    row.status = orderset.status
    row.outcome = {**(row.outcome or {}), "reason": "late; accepted by the moderator"}
    player = session.get(Player, orderset.player_id)
    assert player is not None
    text = (f"The moderator has accepted your late sheet (message #{row.seq}) for game {game.name}, turn "
            f"{orderset.turn}. " + ("It counts: it will be resolved as shown in its receipt "
                                    f"(receipt {row.outcome.get('receipt', '?')})."
                                    if orderset.status == "accepted" else
                                    "But a sheet of yours that arrived later counts instead.")
            + (f" Turn {orderset.turn} has already been resolved: it will be resolved again with your sheet, and "
               "you will get a corrected report." if resolved and orderset.status == "accepted" else "") + "\n")
    recipients = [a for a in (clean_address(player.email or ""),) if a]
    replied = []
    if recipients:
        msg = make_message(ctx.sender, recipients, f"[{one_line(game.name, 40)}] Turn {orderset.turn}: late sheet accepted",
                           text, in_reply_to=row.message_id)
        outbox.queue(session, f"accept-late:{row.sha256[:24]}", "notice", recipients, msg, game=game)
        replied = recipients
    return Outcome(row.id, row.seq, orderset.status, "late; accepted by the moderator", replied,
                   len(orderset.problems or []), player.number)

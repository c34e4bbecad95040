"""Orders in: every arrived message is stored raw first, then read, authenticated, checked and answered.

For each message (§10, docs/mail.md):

1. store the raw bytes (:class:`InboundMessage`: sha256, Message-ID, arrival
   number) and commit — nothing is lost whatever happens next.  The same bytes
   again are recognised by their hash; the same Message-ID with other bytes (a
   redelivery) is stored as ``duplicate``; neither is applied twice;
2. bounces, auto-replies and our own mail are stored (``ignored``), never answered;
3. find the sheet: text body, text attachment, HTML body, filled PDF form;
4. authenticate by what is inside: the player's secret and the turn's code;
   the From: address only receives a copy of the answer;
5. check the orders (the engine's validator) and store them as an
   :class:`OrderSet`; the later sheet supersedes the earlier by arrival;
   after the deadline it is stored ``late`` and not used unless the moderator
   accepts it (``pbm accept-late``);
6. answer: to the address on file and to the sender if different, with the
   echo of every order that will be resolved, each problem with its line, and a
   receipt hash.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, Problem
from pbm.db import savepoint
from pbm import kinds
from pbm.mail.answer import Outcome, contact_line, ignored_text, refusal_subject
from pbm.mail.answer import finish as _finish
from pbm.mail.answer import reply as _reply
from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import (
    MAX_MESSAGE_BYTES,
    TRUNCATED_MARK,
    Unreadable,
    classify,
    clean_address,
    content_digest,
    contents,
    header,
    message_id,
    parse_bytes,
    parse_headers,
    sender_address,
    split_head,
    truncated,
)
from pbm.mail.policy import closes_at, deadline_for, replace_computer_orders, supersede_older
from pbm.models import AnswerLimit, Game, InboundMessage, OrderSet, Player, Railroad, TurnState
from pbm.turnsheet.parse import ParsedSheet, parse_pdf, parse_text


@dataclass
class Context:
    """What ingestion needs from the configuration."""

    sender: str = "pbm@localhost"  # From: of replies
    own_addresses: tuple[str, ...] = ()  # mail from these is ours: never answered
    game: Game | None = None  # this mailbox serves only this game (None: any game named in a sheet)
    now: datetime | None = None  # arrival time when the source does not give one (tests)
    moderator: str = ""


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def store_raw(session: Session, raw: bytes, source: str = "", received_at: datetime | None = None
              ) -> tuple[InboundMessage, bool]:
    """Store the message as it came; (row, True) if new, (existing row, False) if these bytes were seen.

    Only the header block is read here (bounded, never the body), so any bytes at all are stored."""
    digest = hashlib.sha256(raw).hexdigest()
    existing = session.scalar(select(InboundMessage).where(InboundMessage.sha256 == digest))
    if existing is not None:
        return existing, False
    head = parse_headers(raw)
    row = InboundMessage(
        sha256=digest, message_id=message_id(head), raw=raw, source=one_line(source, 200),
        received_at=received_at or _now(), seq=0, from_addr=one_line(header(head, "From"), 300),
        subject=one_line(header(head, "Subject"), 500), status="stored", outcome={},
        content_sha256=content_digest(raw),
    )
    session.add(row)
    session.flush()
    row.seq = row.id  # the arrival number: the row id is given out atomically, even to concurrent readers
    session.flush()
    return row, True


def receipt_hash(game: Game, player: int, turn: int, orders: Orders) -> str:
    """A short fingerprint of exactly what will be resolved (compare it with the turn report)."""
    canonical = json.dumps({"game": game.name, "player": player, "turn": turn, "orders": orders.to_dict()},
                           sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def ingest(session: Session, raw: bytes, ctx: Context, *, source: str = "",
           received_at: datetime | None = None) -> Outcome:
    """Store, commit, then handle one message (committing again); never raises for bad mail.

    A message stored earlier but never handled (a crash between the two commits) is handled now:
    reading the same bytes again is how the source gives it back (issue 13, item 1)."""
    if len(raw) > MAX_MESSAGE_BYTES and not raw.startswith(TRUNCATED_MARK):
        raw = truncated(raw, len(raw))  # a caller that read it all: still store only the start
    try:
        row, new = store_raw(session, raw, source, received_at or ctx.now)
        session.commit()
    except IntegrityError:  # another reader stored the same bytes at the same moment
        session.rollback()
        row = session.scalar(select(InboundMessage).where(InboundMessage.sha256 == hashlib.sha256(raw).hexdigest()))
        if row is None:  # pragma: no cover - the other insert was rolled back: store it ourselves
            row, new = store_raw(session, raw, source, received_at or ctx.now)
            session.commit()
        else:
            new = False
    if not new:
        if row.status == "stored":  # stored, never handled: handle it now
            return handle(session, row, ctx)
        return Outcome(row.id, row.seq, "duplicate", f"the same message as #{row.seq} (already handled)")
    return handle(session, row, ctx)


def handle_stored(session: Session, ctx: Context) -> list[Outcome]:
    """Handle every message stored but never handled (a crash between storing and handling).

    Every ingest and every cycle calls this before a turn closes, so no stored sheet is left out."""
    rows = session.scalars(select(InboundMessage).where(InboundMessage.status == "stored")
                           .order_by(InboundMessage.seq)).all()
    return [handle(session, row, ctx) for row in rows]


def handle(session: Session, row: InboundMessage, ctx: Context) -> Outcome:
    """Handle a stored message; a bug here marks it ``error`` (for the moderator) and loses nothing.

    The sender still gets one short answer (the moderator has been told), so no message ends
    ``error`` unanswered."""
    try:
        outcome = _handle(session, row, ctx)
        session.commit()
        return outcome
    except Exception as exc:  # the message stays stored; `pbm status` shows it, `pbm ingest --retry` redoes it
        session.rollback()
        row = session.get(InboundMessage, row.id)
        assert row is not None
        row.status = "error"
        row.outcome = {"reason": f"internal error {exc.__class__.__name__}: {str(exc)[:300]}"}
        try:
            with session.begin_nested():
                sender = _sender_of(parse_headers(row.raw), ctx)
                if sender is not None:
                    replied = _refuse(session, ctx, row, sender, "pbm could not handle your message; the moderator "
                                      "has been told and will look at it", [], key="error")
                    row.outcome = {**row.outcome, "answered": replied}
        except Exception:  # pragma: no cover - the answer itself failed: the status shows the error
            pass
        session.commit()
        return Outcome(row.id, row.seq, "error", row.outcome["reason"])


def _sender_of(msg, ctx: Context) -> str | None:
    """Where an answer may go: None for mail that must not be answered (bounces, loops, lists)."""
    if not classify(msg, (*ctx.own_addresses, ctx.sender)).answerable:
        return None
    return sender_address(msg, "Reply-To") or sender_address(msg, "From")


REFUSALS_PER_DAY_UNKNOWN = 1  # refusals a day to an address not on file for any player (issue 13, item 11)


def _on_file(session: Session, address: str) -> bool:
    low = address.lower()
    return any(low == (e or "").lower() for e in session.scalars(select(Player.email).where(Player.email != "")))


def _count_answer(session: Session, row: InboundMessage, address: str) -> bool:
    """Count one more answer to ``address`` today; False if its allowance is used up."""
    day = (row.received_at or _now()).strftime("%Y-%m-%d")
    used = session.get(AnswerLimit, (address, day))
    if used is not None and used.count >= REFUSALS_PER_DAY_UNKNOWN:
        return False
    try:
        with savepoint(session):
            if used is None:
                session.add(AnswerLimit(address=address, day=day, count=1))
            else:
                used.count += 1
            session.flush()
    except IntegrityError:  # a concurrent reader answered the same address first
        used = session.get(AnswerLimit, (address, day), populate_existing=True)
        if used is None or used.count >= REFUSALS_PER_DAY_UNKNOWN:
            return False
        used.count += 1
    return True


def _refuse(session: Session, ctx: Context, row: InboundMessage, sender: str, reason: str, notes: list[str],
            *, key: str = "receipt") -> list[str]:
    """Queue one refusal to the (unverified) sender, or none if its daily allowance is used up.

    No text of the message goes into a header.  An address on file for a player gets the reason
    and the notes; any other address gets one short fixed answer a day, with nothing from the message,
    so pbm cannot be used to mail chosen text to a third party."""
    known = _on_file(session, sender)
    if not known and not _count_answer(session, row, sender.lower()[:254]):
        row.outcome = {**(row.outcome or {}), "answer": f"not answered: already {REFUSALS_PER_DAY_UNKNOWN} "
                       "answer(s) today to this unknown address"}
        return []
    if known:
        subject = refusal_subject(row.seq, reason)
        body = _refusal_text(row, reason, notes, ctx.moderator)
    else:
        subject = f"[pbm] Not accepted: your message #{row.seq} (sender address not on file)"
        body = (f"Your message #{row.seq} to this address was received but NOT accepted as a turnsheet.\n\n"
                f"{HELP}\n\nIf you play in a game here, send your sheet from the address you gave the moderator "
                "to get the reason. At most one answer a day goes to an address pbm does not know.\n\n"
                f"{contact_line(ctx.moderator)}\n\n"
                "-- \npbm (automatic answer)\n")
    msg = make_message(ctx.sender, [sender], subject, body, in_reply_to=row.message_id if known else None)
    outbox.queue(session, f"{key}:{row.sha256[:24]}", "receipt", [sender], msg)
    return [sender]


def _find_sheet(msg) -> tuple[ParsedSheet | None, list[str], str]:
    found = contents(msg)
    notes = list(found.skipped)
    for candidate in found.candidates:
        if candidate.kind == "pdf":
            parsed = parse_pdf(candidate.data or b"")
            if parsed is None:
                notes.append(f"{candidate.name}: a PDF without pbm turnsheet form fields")
                continue
        else:
            parsed = parse_text(candidate.text or "")
        if parsed.found:
            return parsed, notes, candidate.name
        notes.append(f"{candidate.name}: no GAME/PLAYER/TURN lines")
    return None, notes, ""


HELP = ("A turnsheet starts with the lines GAME, PLAYER, TURN, CODE and SECRET as printed on your sheet; "
        "paste the text sheet into the body of a plain-text email, attach it as a .txt file, "
        "or attach the filled and saved PDF.")


def _authenticate(session: Session, ctx: Context, parsed: ParsedSheet) -> tuple[Game, Player] | str:
    """(game, player), or the reason the sheet is refused."""
    from pbm.auth import check_secret, check_turn_code
    from pbm.locks import lock_game

    h = parsed.header
    if not h.game:
        return "the GAME line is missing or empty"
    games = session.scalars(select(Game).order_by(Game.id)).all()
    game = next((g for g in games if g.name.lower() == h.game.strip().lower()), None)
    if game is None:
        return f"there is no game {one_line(h.game, 60)!r} here; copy the GAME line from your sheet"
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


def _problem_lines(problems: list[Problem]) -> list[str]:
    out = []
    for p in problems:
        where = f"line {p.line}, " if p.line is not None else ""
        allowed = f" — allowed: {p.allowed}" if p.allowed else ""
        tag = "ADJUSTED" if p.adjusted else "NOTE" if getattr(p, "warning", False) else "NOT USED"
        out.append(f"  [{tag}] {where}{p.where}: {p.message}{allowed}")
    return out


def _handle(session: Session, row: InboundMessage, ctx: Context) -> Outcome:
    from pbm.turnsheet.check import check
    from pbm.turnsheet.text import format_orders

    try:
        msg = parse_bytes(row.raw)
    except Unreadable as exc:  # stored, marked, answered once (issue 13, item 9)
        reason = str(exc)
        _finish(row, "rejected", reason)
        sender = _sender_of(parse_headers(row.raw), ctx)
        replied = _refuse(session, ctx, row, sender, reason, []) if sender else []
        if sender is None:
            row.outcome = {**row.outcome, "answer": "not answered: no address that may be answered"}
        return Outcome(row.id, row.seq, "rejected", reason, replied)
    # a redelivery: the same Message-ID *and* the same content as a message stored earlier; a stranger
    # who copies a Message-ID with other content does not make the real message a duplicate (item 3)
    if row.message_id:
        digest = row.content_sha256 or content_digest(row.raw)
        earlier = session.scalar(select(InboundMessage).where(
            InboundMessage.message_id == row.message_id, InboundMessage.id != row.id,
            InboundMessage.content_sha256 == digest,
            InboundMessage.seq < row.seq).order_by(InboundMessage.seq).limit(1))
        if earlier is not None:
            _finish(row, "duplicate", f"redelivery of message #{earlier.seq} (same Message-ID and content); "
                    "not applied again")
            return Outcome(row.id, row.seq, "duplicate", row.outcome["reason"])
    kind = classify(msg, (*ctx.own_addresses, ctx.sender))
    if not kind.answerable:
        _finish(row, "ignored", f"{kind.reason}; stored, not answered")
        return Outcome(row.id, row.seq, "ignored", row.outcome["reason"])
    sender = sender_address(msg, "Reply-To") or sender_address(msg, "From")
    assert sender is not None  # classify() refuses mail without a usable From
    from pbm.mail import account

    chosen = account.claim(msg)  # a player choosing a new secret (issue 18, item 10; docs/mail.md)
    if chosen is not None:
        return account.handle(session, row, ctx, sender, chosen, _refuse)
    for kind in kinds.mail_kinds():  # moves for another game kind, e.g. 18xx (docs/18xx/email.md)
        claimed = kind.claim(session, msg)
        if claimed is not None:
            return kind.handle(session, row, ctx, sender, claimed)
    parsed, notes, where = _find_sheet(msg)
    if parsed is None:
        reason = "no turnsheet found in the message"
        _finish(row, "rejected", reason, notes=notes)
        replied = _refuse(session, ctx, row, sender, reason + ". " + HELP, notes)
        return Outcome(row.id, row.seq, "rejected", reason, replied)
    auth = _authenticate(session, ctx, parsed)
    if isinstance(auth, str):
        _finish(row, "rejected", auth, sheet_in=where)
        head = parsed.header
        row.player_number = head.player if isinstance(head.player, int) and 0 < head.player < 100 else None
        row.turn = head.turn if isinstance(head.turn, int) and 0 <= head.turn < 100000 else None
        replied = _refuse(session, ctx, row, sender, auth, [])
        return Outcome(row.id, row.seq, "rejected", auth, replied, player=row.player_number)
    game, player = auth
    row.game_id, row.player_number, row.turn = game.id, player.number, game.turn
    _redact(row, parsed.header.secret or "", where)
    orders, problems = check(session, game, player, parsed.orders, parsed)
    problems = sorted(parsed.problems + problems, key=lambda p: (p.line is None, p.line or 0))
    deadline = deadline_for(session, game, game.turn)
    arrived = row.received_at or _now()
    closed = _turn_closed(session, game)
    closes = closes_at(session, game, game.turn)  # the deadline plus the game's grace period (item 8)
    late = closed or (closes is not None and arrived > closes)
    in_grace = not late and deadline is not None and arrived > deadline
    orderset = OrderSet(game_id=game.id, turn=game.turn, player_id=player.id, source="email",
                        status="late" if late else "accepted", orders=orders.to_dict(),
                        problems=[asdict(p) for p in problems], message_id=row.id, received_seq=row.seq,
                        received_at=arrived)
    session.add(orderset)
    session.flush()
    replaced = []
    if not late:
        before = {o.id for o in _accepted(session, game, player)}
        supersede_older(session, orderset)
        replaced = [o for o in _accepted_or_superseded(session, game, player) if o.id in before
                    and o.status == "superseded"]
    digest = receipt_hash(game, player.number, game.turn, orders)
    status = "late" if late else orderset.status
    why = ("late: the turn was already closed (being resolved) when it arrived" if closed
           else "late: after the deadline" if late else "")
    _finish(row, status, why, receipt=digest, problems=len(problems),
            orderset=orderset.id, sheet_in=where, **({"redacted": True} if row.outcome.get("redacted") else {}))
    presided = sorted(session.scalars(select(Railroad.code).where(Railroad.game_id == game.id,
                                                                Railroad.president_id == player.id)))
    body = _receipt_text(row, game, player, orders, problems, digest, presided=presided, status=status, deadline=deadline,
                         replaced=replaced, where=where, echo=format_orders(orders), ctx=ctx, closed=closed,
                         ignored=parsed.ignored, grace_until=closes if in_grace else None)
    recipients = [player.email] if clean_address(player.email or "") else []
    recipients.append(sender)
    label = {"accepted": "Receipt", "late": "LATE — not used", "superseded": "Received, but a later sheet counts"}
    subject = f"[{one_line(game.name, 40)}] Turn {game.turn} player {player.number}: {label.get(status, status)}"
    replied = _reply(session, ctx, row, recipients, subject, body, game)
    return Outcome(row.id, row.seq, status, row.outcome.get("reason", ""), replied, len(problems), player.number)


def _turn_closed(session: Session, game: Game) -> bool:
    """True once the cycle (or run-turn) has closed the current turn: it takes no more orders.

    Read under the game's row lock (taken in :func:`_authenticate`), so a sheet is either accepted
    before the close or found late after it, never accepted into a turn being resolved (item 2)."""
    state = session.scalar(select(TurnState.state).where(TurnState.game_id == game.id, TurnState.turn == game.turn))
    return state is not None and state != "open"


def _redact(row: InboundMessage, secret: str, where: str) -> None:
    """Take the player's secret out of the stored raw message once it has been checked (item 13).

    ``sha256`` still holds the hash of the bytes as they came (the audit trail); if the secret cannot
    be cut out where it stands (an encoded part, a PDF form), the body is dropped and only the headers kept."""
    from pbm.auth import normalize_secret

    raw = row.raw
    token = normalize_secret(secret)
    if len(token) < 6:
        return
    import re

    out = re.sub(rb"(?im)^([ \t>]*SECRET[ \t]*:)[^\r\n]*", rb"\1 [REDACTED]", raw)
    for variant in {secret.strip(), secret.strip().upper(), secret.strip().lower(), token}:
        if len(variant) >= 6:
            out = out.replace(variant.encode("utf-8", "replace"), b"[REDACTED]")
    still = where.lower().endswith(".pdf") or "pdf" in where.lower()
    if not still:
        try:
            for candidate in contents(parse_bytes(out)).candidates:
                text = candidate.text if candidate.text is not None else ""
                if candidate.kind == "pdf" or token in normalize_secret(text):
                    still = True
                    break
        except Unreadable:
            still = True
    if still:
        head, _ = split_head(raw)
        out = (head + b"\r\nX-PBM-Redacted: body removed (it held a player's secret)\r\n\r\n"
               b"[body removed by pbm: it held a player's secret; sha256 of the original: "
               + row.sha256.encode() + b"]\r\n")
    if out != raw:
        row.raw = out
        row.outcome = {**(row.outcome or {}), "redacted": True}


def _accepted(session: Session, game: Game, player: Player) -> list[OrderSet]:
    return list(session.scalars(select(OrderSet).where(
        OrderSet.game_id == game.id, OrderSet.turn == game.turn, OrderSet.player_id == player.id,
        OrderSet.status == "accepted")))


def _accepted_or_superseded(session: Session, game: Game, player: Player) -> list[OrderSet]:
    return list(session.scalars(select(OrderSet).where(
        OrderSet.game_id == game.id, OrderSet.turn == game.turn, OrderSet.player_id == player.id,
        OrderSet.status.in_(("accepted", "superseded")))))


def _refusal_text(row: InboundMessage, reason: str, notes: list[str], moderator: str = "") -> str:
    lines = [
        f"Your message #{row.seq} was received and stored, but it was NOT accepted as a turnsheet.",
        "",
        f"Why: {reason}",
    ]
    if notes:
        lines += ["", "What we found in the message:"] + [f"  - {one_line(n, 160)}" for n in notes]
    lines += ["", "Nothing in it will be used. Please correct the sheet and send it again before the deadline.",
              "", contact_line(moderator),
              "", "-- ", "pbm (automatic answer; replies to this message are read as turnsheets)"]
    return "\n".join(lines) + "\n"


def _receipt_text(row: InboundMessage, game: Game, player: Player, orders: Orders, problems: list[Problem],
                  digest: str, *, presided: list[str], status: str, deadline: datetime | None, replaced: list[OrderSet], where: str,
                  echo: list[str], ctx: Context, closed: bool = False,
                  ignored: list[tuple[int, str]] = (), grace_until: datetime | None = None) -> str:
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
        lines.append("Received, but a sheet of yours that arrived later already counts; this one is not used.")
    if replaced:
        lines.append("It replaces your earlier sheet(s): " + ", ".join(
            f"message #{o.received_seq}" for o in sorted(replaced, key=lambda o: o.received_seq)) + ".")
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
        lines += _problem_lines(problems)
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


def retry_errors(session: Session, ctx: Context) -> list[Outcome]:
    """Handle again every message left ``stored`` or ``error`` (after a crash or a bug fix)."""
    rows = session.scalars(select(InboundMessage).where(InboundMessage.status.in_(("stored", "error")))
                           .order_by(InboundMessage.seq)).all()
    return [handle(session, row, ctx) for row in rows]


def find_message(session: Session, ref: str) -> InboundMessage | None:
    """A stored message by its arrival number (``12`` or ``#12``) or its Message-ID (with or without <>)."""
    text = ref.strip()
    if text.lstrip("#").isascii() and text.lstrip("#").isdigit():
        return session.scalar(select(InboundMessage).where(InboundMessage.seq == int(text.lstrip("#"))))
    mid = text if text.startswith("<") else f"<{text}>"
    return session.scalar(select(InboundMessage).where(InboundMessage.message_id == mid)
                          .order_by(InboundMessage.seq).limit(1))


def accept_late(session: Session, game: Game, ref: str, ctx: Context) -> Outcome:
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

"""18xx moves by email (docs/18xx/email.md).

A player's mail holds a small header and moves in the move language
(:mod:`pbm.e18xx.pbem.moves`), one per line::

    GAME: ga-1
    PLAYER: 2
    SECRET: K7QM-2XRP-HW4T
    par W&A 90
    buy CoG ipo

:func:`claim` recognises such a mail (its GAME line names an 18xx game in
the database); :func:`handle` authenticates it by the secret (never by
From:), applies the moves all-or-nothing (:func:`pbm.e18xx.pbem.games.apply`) and
answers: a refusal gives the reason and what is legal now; an accepted mail
sends everyone the new state (text and PDF), the next to act with "your turn"
in the subject.  Ingestion (:mod:`pbm.mail.ingest`) stores the raw mail first
and filters bounces and loops before this module is called.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import clean_address, contents

from pbm.e18xx.pbem.moves import format_action
from pbm.e18xx.pbem.games import Applied, Replayed, apply, is_18xx, legal_lines, players, replay_rows, who_acts

_HEADER = re.compile(r"^\s*(game|player|secret)\s*[:=]\s*(.*?)\s*$", re.IGNORECASE)
_STOP = re.compile(r"^(-- ?|-{3,}\s*original message\s*-{3,}|_{5,}|on .{1,200} wrote:)$", re.IGNORECASE)


@dataclass
class MoveMail:
    """What a mail says: header values and the move text (header lines blanked, so line numbers hold)."""

    game: str = ""
    player: str = ""
    secret: str = ""
    moves: str = ""
    where: str = "message body"


def read_text(text: str, where: str = "message body") -> MoveMail:
    """Split a mail's text into the header values and the moves.

    Quoted lines (``>``) are ignored and reading stops at a signature
    (``-- ``) or a quoted original message, so a reply to our mail works."""
    out = MoveMail(where=where)
    kept: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if _STOP.match(stripped) or _STOP.match(line.rstrip("\n")):
            break
        if stripped.startswith(">"):
            kept.append("")
            continue
        m = _HEADER.match(line)
        if m:
            key, value = m.group(1).lower(), m.group(2)
            if not getattr(out, key):
                setattr(out, key, value)
            kept.append("")
            continue
        kept.append(line)
    out.moves = "\n".join(kept)
    return out


@dataclass
class Claim:
    game: object  # pbm.models.Game
    mail: MoveMail


def claim(session: Session, msg) -> Claim | None:
    """The 18xx game a mail is for (its GAME line names one), or None (not ours: a turnsheet, say)."""
    from pbm.models import Game

    for cand in contents(msg).candidates:
        if cand.text is None:
            continue
        mm = read_text(cand.text, cand.name)
        if not mm.game:
            continue
        wanted = mm.game.strip().lower()
        row = next((g for g in session.scalars(select(Game).order_by(Game.id)) if g.name.lower() == wanted), None)
        if row is not None and is_18xx(row):
            return Claim(row, mm)
        return None
    return None


# ----------------------------------------------------------------- texts
def reply_header(game_row, number: int) -> str:
    return f"GAME: {game_row.name}\nPLAYER: {number}\nSECRET:"


def state_text(session: Session, game_row, rep: Replayed, *, legal: bool = True, last: int = 12) -> str:
    """The state for the terminal and the mails: whose turn, last moves, players, companies, chart, map."""
    from pbm.e18xx.pbem.games import action_rows
    from pbm.e18xx.render.view import describe

    g = rep.game
    rows = action_rows(session, game_row)
    names = {p.number: p.name for p in players(session, game_row)}
    lines = [f"{game_row.title} game {game_row.name} - {len(rows)} action(s) so far"]
    if g.finished:
        lines.append(f"GAME OVER ({g.state.end_reason}). Result: " +
                     ", ".join(f"{n} {v}" for n, v in sorted(g.result().items(), key=lambda kv: -kv[1])))
    else:
        lines.append(f"To act: {who_acts(g)}")
    if rows:
        from pbm.e18xx.core import actions as A

        lines += ["", "Last moves:"]
        for r in rows[-last:]:
            via = " (standing order)" if r.action.get("_via") else ""
            act = A.action_from_dict(r.action)
            who = names.get(r.player_number or 0, "-")
            ent = "" if act.entity == who else f" for {act.entity}"
            lines.append(f"  #{r.seq:<4} {who}{ent}: {format_action(act)}{via}")
    lines += ["", describe(g)]
    if legal and not g.finished:
        lines += ["", f"{who_acts(g)} may:"] + [f"  {x}" for x in legal_lines(g)]
    return "\n".join(lines)


def _seat_lines(number: int, game_row) -> list[str]:
    return ["", "To move, reply with these lines at the top (your secret after SECRET:), then one move per line:",
            "", reply_header(game_row, number), "", "-- ", "pbm (automatic message)"]


def _pdf_name(game_row, seq: int) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", game_row.name).strip("-") or "game"
    return f"{safe}-{seq:04d}.pdf"


def broadcast(session: Session, game_row, game, sender: str, *, mover=None, inbound=None, extra: list[str] | None = None,
              applied: list[Applied] | None = None, note: str = "", rep: Replayed | None = None) -> int:
    """Queue the new state to every player (once each); returns how many messages were queued.

    The mover's message is the receipt of ``inbound`` (key ``receipt:<hash>``);
    the others are keyed by game, action count and seat, so running this again
    queues nothing new."""
    from pbm.e18xx.render.pdf import render_pdf

    rep = rep or replay_rows(session, game_row)
    seq = len(rep.game.actions)
    pdf = render_pdf(rep, game_row.name)
    text = state_text(session, game_row, rep)
    acting = set(rep.game.acting_players())
    done: set[str] = set()
    queued = 0
    happened = []
    if applied:
        happened = ["What happened:"] + [
            f"  #{a.seq} {a.player}: {format_action(a.action)}" + (" (standing order)" if a.via else "")
            for a in applied] + [""]
    seats = players(session, game_row)
    # the mover first, so a shared address gets the receipt
    seats.sort(key=lambda p: (mover is None or p.number != mover.number, p.number))
    for p in seats:
        is_mover = mover is not None and p.number == mover.number
        addrs = [a for a in [clean_address(p.email or "")] + (list(extra or []) if is_mover else []) if a]
        addrs = [a for a in dict.fromkeys(addrs) if a.lower() not in done]
        if not addrs:
            continue
        turn = p.name in acting and not rep.game.finished
        if rep.game.finished:
            subject = f"[{one_line(game_row.name, 40)}] Game over"
        elif turn:
            subject = f"[{one_line(game_row.name, 40)}] Your turn: {who_acts(rep.game)}"
        else:
            subject = f"[{one_line(game_row.name, 40)}] {who_acts(rep.game)} to act"
        head = []
        if is_mover and inbound is not None:
            head = [f"ACCEPTED: your message #{inbound.seq} ({len(applied or [])} action(s) stored).", ""]
        if note:
            head += [note, ""]
        if turn:
            head += [f"IT IS YOUR TURN ({who_acts(rep.game)}).", ""]
        body = "\n".join(head + happened + [text] + _seat_lines(p.number, game_row)) + "\n"
        msg = make_message(sender, addrs, subject, body,
                           in_reply_to=inbound.message_id if (is_mover and inbound is not None) else None)
        msg.add_attachment(pdf, maintype="application", subtype="pdf", filename=_pdf_name(game_row, seq))
        if is_mover and inbound is not None:
            outbox.queue(session, f"receipt:{inbound.sha256[:24]}", "receipt", addrs, msg, game=game_row)
        else:
            outbox.queue(session, f"18xx:{game_row.id}:{seq}:{p.number}", "18xx", addrs, msg, game=game_row)
        done.update(a.lower() for a in addrs)
        queued += 1
    return queued


# ----------------------------------------------------------------- handling a mail
def _authenticate(session: Session, ctx, c: Claim):
    """(game row, player row) or the reason the mail is refused."""
    from pbm.auth import check_secret
    from pbm.models import Player

    game = c.game
    mm = c.mail
    if ctx.game is not None and game.id != ctx.game.id:
        return (f"your mail is for game {game.name}, but this address takes mail for game {ctx.game.name}; "
                "send it to the address given for your game")
    if game.status != "open":
        return f"game {game.name} is {game.status}; it takes no more moves"
    if not mm.player.strip():
        return "the PLAYER line is missing or empty: write your seat number, e.g. PLAYER: 2"
    if not mm.player.strip().isdigit() or len(mm.player.strip()) > 3:
        return f"the PLAYER line must be your seat number, not {one_line(mm.player, 20)!r}"
    number = int(mm.player.strip())
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    if player is None:
        n = len(players(session, game))
        return f"game {game.name} has no player {number} (seats are 1-{n})"
    if not mm.secret.strip():
        return "the SECRET line is missing or empty: write the secret you were given after SECRET:"
    if not player.secret_hash or not check_secret(mm.secret, player.secret_hash):
        return (f"the secret does not match player {number}'s secret (only letters and digits count; "
                "check for typing slips, or ask the moderator)")
    return game, player


def handle(session: Session, row, ctx, sender: str, c: Claim):
    """Handle one stored mail for an 18xx game; returns an ingest Outcome."""
    from pbm.mail.answer import Outcome
    from pbm.mail.answer import finish as _finish
    from pbm.mail.answer import reply as _reply

    tag = one_line(c.game.name, 40)
    auth = _authenticate(session, ctx, c)
    if isinstance(auth, str):
        _finish(row, "rejected", auth, sheet_in=c.mail.where)
        body = (f"Your message #{row.seq} was received and stored, but NOT accepted.\n\nWhy: {auth}\n\n"
                f"Nothing in it was used. A move mail starts with:\n\n{reply_header(c.game, 0).replace('PLAYER: 0', 'PLAYER: <your seat number>')}"
                " <your secret>\n\nthen one move per line.\n\n-- \npbm (automatic answer)\n")
        replied = _reply(session, ctx, row, [sender], f"[{tag}] Not accepted: your message #{row.seq}", body, None)
        return Outcome(row.id, row.seq, "rejected", auth, replied)
    game, player = auth
    row.game_id, row.player_number, row.turn = game.id, player.number, game.turn
    out = apply(session, game, player.number, c.mail.moves, message_id=row.id)
    recipients = [a for a in (clean_address(player.email or ""), sender) if a]
    if not out.accepted:
        _finish(row, "rejected", out.error, sheet_in=c.mail.where)
        assert out.game is not None
        rep = out.replayed or replay_rows(session, game)
        body = "\n".join([
            f"Your message #{row.seq} was received, but NOTHING in it was used (a mail is applied whole or not at all).",
            "", f"Why: {out.error}", "",
            f"Now: {who_acts(out.game)} to act. {who_acts(out.game)} may:"] + [f"  {x}" for x in out.legal] + [
            "", "Correct the moves and send them again.", "", state_text(session, game, rep, legal=False)]
            + _seat_lines(player.number, game)) + "\n"
        replied = _reply(session, ctx, row, recipients, f"[{tag}] Not accepted: your message #{row.seq}", body, game)
        return Outcome(row.id, row.seq, "rejected", out.error, replied, 1, player.number)
    _finish(row, "accepted", "", actions=[a.seq for a in out.applied], sheet_in=c.mail.where,
            standing=out.standing_added)
    extra = [sender] if sender else []
    broadcast(session, game, out.game, ctx.sender, mover=player, inbound=row, extra=extra, applied=out.applied,
              rep=out.replayed)
    return Outcome(row.id, row.seq, "accepted", "", recipients, 0, player.number)

"""``pbm status``: who has sent orders for the current turn, late sheets, rejected mail, the outbox."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm.clock import utcnow
from pbm.mail.outbox import pending
from pbm.mail.policy import accepted_orderset, computer_seated, deadline_for, missed_turns_limit
from pbm.models import TurnState, Game, InboundMessage, OrderSet, OutboxMessage, Player


def _when(dt: datetime | None) -> str:
    return dt.strftime("%Y-%m-%d %H:%M") if dt else "-"


def _turn_opened(session: Session, game: Game) -> datetime | None:
    """When the current turn opened: when the turn before it closed (None: the first turn, or unknown)."""
    prev = session.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == game.turn - 1))
    for entry in (prev.history or []) if prev is not None else []:
        if entry.get("state") == "closed":
            try:
                return datetime.fromisoformat(entry["at"]).replace(tzinfo=None)
            except (KeyError, TypeError, ValueError):
                return None
    return None


def status_text(session: Session, game: Game, *, messages: bool = False, now: datetime | None = None,
                every: bool = False) -> str:
    """The moderator's view of the current turn.  Messages are those of this turn (of earlier turns
    only counted) unless ``every``; messages in error or not handled are listed whatever their turn."""
    now = now or utcnow()
    deadline = deadline_for(session, game)
    out: list[str] = []
    if deadline is None:
        dl = "no deadline set (pbm deadline)"
    else:
        hours = (deadline - now).total_seconds() / 3600
        dl = f"deadline {_when(deadline)} UTC ({'passed' if hours < 0 else f'in {hours:.0f} h'})"
    out.append(f"Game {game.name}, turn {game.turn} ({game.year}): {dl}")
    out.append("")
    out.append(f"  {'#':>2}  {'character':<24} {'email':<26} {'sheet':<7} {'received (UTC)':<16} "
               f"{'probs':>5} {'sheets':>6}  seat")
    players = session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)).all()
    sent = 0
    humans = 0
    limit = missed_turns_limit(game)
    for p in players:
        if not p.human:
            continue
        humans += 1
        chosen = accepted_orderset(session, game, p, game.turn)
        count = session.scalar(select(func.count()).select_from(OrderSet).where(
            OrderSet.game_id == game.id, OrderSet.turn == game.turn, OrderSet.player_id == p.id)) or 0
        if chosen is not None:
            sent += 1
            msg = session.get(InboundMessage, chosen.message_id) if chosen.message_id else None
            ref = f"#{msg.seq}" if msg else chosen.source
            problems = str(len(chosen.problems or []))
            when = _when(chosen.received_at)
        else:
            ref, problems, when = "NONE", "-", "-"
        seat = (f"computer (missed {p.missed_turns})" if computer_seated(p, game)
                else f"human (missed {p.missed_turns}/{limit})" if p.missed_turns else "human")
        character = " ".join(p.character.split())[:24]
        email = (p.email or "-")[:26]
        out.append(f"  {p.number:>2}  {character:<24} {email:<26} {ref:<7} {when:<16} {problems:>5} {count:>6}  {seat}")
    computers = len(players) - humans
    out.append(f"  {sent} of {humans} human player(s) have orders in; {computers} seat(s) played by the computer.")
    late = session.execute(select(OrderSet, InboundMessage).join(InboundMessage, OrderSet.message_id == InboundMessage.id)
                           .where(OrderSet.game_id == game.id, OrderSet.turn == game.turn, OrderSet.status == "late")
                           .order_by(InboundMessage.seq)).all()
    if late:
        out.append("")
        out.append("Late sheets (not used; `pbm accept-late MESSAGE` to use one):")
        numbers = {p.id: p.number for p in players}
        for orderset, msg in late:
            out.append(f"  #{msg.seq} player {numbers.get(orderset.player_id)} received {_when(msg.received_at)}")
    rows = session.scalars(select(InboundMessage).where(
        (InboundMessage.game_id == game.id) | InboundMessage.game_id.is_(None)).order_by(InboundMessage.seq)).all()
    since = _turn_opened(session, game)
    # this turn's messages: those of this game's turn, and mail of no known game that came since it opened;
    # earlier turns' messages are counted, not listed again every week
    def now_playing(r: InboundMessage) -> bool:
        if every:
            return True
        if r.game_id == game.id and r.turn is not None:
            return r.turn == game.turn
        if since is not None:  # mail of no known game (or turn): by when it came
            return r.received_at is not None and r.received_at > since
        return True

    this_turn = [r for r in rows if now_playing(r)]
    counts: dict[str, int] = {}
    for r in this_turn:
        counts[r.status] = counts.get(r.status, 0) + 1
    out.append("")
    earlier = len(rows) - len(this_turn)
    out.append("Messages: " + (", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none")
               + (f" this turn ({earlier} of earlier turns)" if earlier else ""))
    problems = [r for r in rows if r.status in ("error", "stored")]  # waiting for the moderator, whatever turn
    for r in problems:
        out.append(f"  #{r.seq} {r.status}: {_waiting_reason(r)} (pbm ingest --retry)")
    if messages:
        for r in this_turn:
            who = f"player {r.player_number}" if r.player_number is not None else "?"
            reason = (r.outcome or {}).get("reason", "")
            out.append(f"  #{r.seq} {_when(r.received_at)} {r.status:<10} {who:<10} {r.from_addr[:40]:<40} "
                       f"{reason[:60]}")
    out += _outbox_lines(session)
    stuck = session.scalars(select(TurnState).where(TurnState.game_id == game.id, TurnState.state == "reported"))
    for row in stuck:
        out.append(f"  Turn {row.turn} is waiting for its reports to be delivered; `pbm cycle` retries.")
    return "\n".join(out) + "\n"


def mail_text(session: Session, game: Game, *, messages: bool = False, every: bool = False) -> str:
    """The mail part of ``pbm status`` for a game without weekly turns (18xx): its messages counted, those
    waiting for the moderator listed, the last ten listed with ``messages`` (all with ``every``); the outbox."""
    rows = session.scalars(select(InboundMessage).where(InboundMessage.game_id == game.id)
                           .order_by(InboundMessage.seq)).all()
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    out = ["", "Messages: " + (", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none")]
    for r in rows:
        if r.status in ("error", "stored"):
            out.append(f"  #{r.seq} {r.status}: {_waiting_reason(r)} "
                       "(pbm ingest --retry)")
    if messages:
        shown = rows if every else rows[-10:]
        if len(shown) < len(rows):
            out.append(f"  (the last {len(shown)}; --all lists every one)")
        for r in shown:
            who = f"player {r.player_number}" if r.player_number is not None else "?"
            reason = (r.outcome or {}).get("reason", "")
            out.append(f"  #{r.seq} {_when(r.received_at)} {r.status:<10} {who:<10} {r.from_addr[:40]:<40} "
                       f"{reason[:60]}")
    return "\n".join(out + _outbox_lines(session)) + "\n"


def _waiting_reason(r: InboundMessage) -> str:
    """Why a message waits for the moderator: its error, the earlier error it is held behind, or none yet."""
    outcome = r.outcome or {}
    return outcome.get("reason") or outcome.get("held") or "not handled yet"


def _outbox_lines(session: Session) -> list[str]:
    out = []
    waiting = pending(session)
    total = session.scalar(select(func.count()).select_from(OutboxMessage)) or 0
    out.append(f"Outbox: {total} message(s); {len(waiting)} delivery(ies) not yet sent (pbm send-mail).")
    failed = [(m, r) for m, r, state in waiting if state == "failed"]
    uncertain = [(m, r) for m, r, state in waiting if state == "sending"]
    if failed:
        out.append(f"  DELIVERY FAILED: {len(failed)}: " + ", ".join(f"{m.key} to {r}" for m, r in failed[:5])
                   + (" ..." if len(failed) > 5 else "") + " (retried by the next send-mail or cycle)")
    if uncertain:  # issue 34, item 12: what to ask the relay, then how to settle each
        from pbm.mail.outbox import uncertain as uncertain_lines

        out.append(f"  INTERRUPTED MID-SEND: {len(uncertain)} delivery(ies) may have arrived; ask the relay before "
                   "resending:")
        out += [f"    {line}" for line in uncertain_lines(session)]
    return out

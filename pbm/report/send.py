"""Mailing the turn reports: each human player gets his PDF and the next turnsheet, once.

Messages go through the mail part's outbox (``pbm.mail.outbox.queue``),
keyed ``report:<game>:<turn>:<player>``: queuing again is a no-op, and the
outbox's send log delivers each message once per recipient, so ``pbm send``
and ``pbm cycle`` can be rerun after any crash without anyone receiving a
report twice.  Replies go to the address on file, never to an address taken
from a message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import EmailMessage
from email.headerregistry import Address
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm.errors import PbmError
from pbm.models import Game, OutboxMessage, Player
from pbm.report.render import render_turn, turn_dir
from pbm.report.view import check_turn


def _one_line(text: str, limit: int = 120) -> str:
    """Header-safe text: no line breaks (no header injection), bounded length."""
    return " ".join(str(text).split())[:limit]


def report_key(game: Game, turn: int, player: int) -> str:
    return f"report:{game.name}:{turn}:{player}"


def _turnsheets(session: Session, game: Game, player: Player) -> tuple[bytes | None, str | None]:
    """The player's next turnsheet as a fillable PDF and as plain text (§10), or None for a form the
    turnsheet part could not make (the mail then goes without it and says so)."""
    try:
        from pbm.turnsheet.facts import sheet_facts
        from pbm.turnsheet.pdf import render_pdf
        from pbm.turnsheet.text import render_text
    except ImportError:
        return None, None
    try:
        with session.begin_nested():
            facts = sheet_facts(session, game, player)
    except Exception:  # the turnsheet part failed: the mail goes without it and says so
        return None, None
    pdf = text = None
    try:
        pdf = render_pdf(facts)
    except Exception:  # noqa: BLE001 - as above, for the PDF alone
        pass
    try:
        text = render_text(facts)
    except Exception:  # noqa: BLE001 - as above, for the text alone
        pass
    return pdf, text


def build_message(session: Session, game: Game, turn: int, player: Player, report: bytes) -> EmailMessage:
    """The report mail: a short text, the report PDF and (while the game goes on) the fillable turnsheet."""
    msg = EmailMessage()
    msg["To"] = Address(display_name=_one_line(player.name, 80), addr_spec=player.email)
    msg["Subject"] = _one_line(f"[{game.name}] Turn {turn} report for #{player.number} {player.character}")
    sheet, text_sheet = _turnsheets(session, game, player) if game.status == "open" and turn == game.turn - 1 \
        else (None, None)
    body = [
        f"Continental Rails II, game {game.name}.",
        f"Attached: your report of turn {turn}" + (f" and your turnsheet for turn {game.turn}." if sheet else "."),
    ]
    if game.status == "open" and turn == game.turn - 1 and not sheet:
        body.append(f"Your turnsheet for turn {game.turn} will follow in a separate message.")
    if game.status == "open" and turn == game.turn - 1:
        # the deadline of the turn now open, read after the cycle has set it (issue 18, item 2); stored in UTC
        from pbm.mail.policy import deadline_for

        when = deadline_for(session, game, game.turn)
        deadline = f" by {when:%A %d %B %Y %H:%M} UTC" if when else ""
        body.append(f"Fill in the turnsheet and send it back{deadline}, as an attachment or as text in the reply."
                    if sheet else f"Turn {game.turn} orders are due{deadline or ' when the moderator says'}.")
    from pbm.web.links import mail_lines

    body += mail_lines(game)  # the game's live page, once the moderator serves one (docs/web.md)
    if text_sheet:  # a player who reads mail as text replies with this, filled in (issue 18, item 6)
        body += ["", f"Your turnsheet for turn {game.turn} as text follows. To send orders by text, reply to this "
                     "mail and fill in the lines below after the colons (quoted lines are read too); write "
                     "your secret after SECRET and keep the GAME, PLAYER, TURN and CODE lines as they are.",
                 "", text_sheet.rstrip("\n")]
    msg.set_content("\n".join(body) + "\n", charset="utf-8")
    msg.add_attachment(report, maintype="application", subtype="pdf",
                       filename=f"{game.name}-turn-{turn}-player-{player.number}.pdf")
    if sheet:
        msg.add_attachment(sheet, maintype="application", subtype="pdf",
                           filename=f"{game.name}-turnsheet-{game.turn}-player-{player.number}.pdf")
    return msg


def _queue(session: Session, key: str, recipients: list[str], msg: EmailMessage, game: Game) -> bool:
    """Queue through the mail part's outbox; True if newly queued."""
    before = session.scalar(select(OutboxMessage.id).where(OutboxMessage.key == key))
    if before is not None:
        return False
    try:
        from pbm.mail.outbox import queue
    except ImportError:  # the mail part is absent: the same table, the same key rule
        seq = (session.scalar(select(func.max(OutboxMessage.created_seq))) or 0) + 1
        session.add(OutboxMessage(key=key, game_id=game.id, kind="report", recipients=recipients,
                                  raw=msg.as_bytes(), created_seq=seq))
        session.flush()
        return True
    queue(session, key=key, kind="report", recipients=recipients, message=msg, game=game)
    return True


@dataclass
class SendResult:
    turn: int
    queued: list[int] = field(default_factory=list)
    already: list[int] = field(default_factory=list)
    no_address: list[int] = field(default_factory=list)
    delivery: str = ""
    notices: list[str] = field(default_factory=list)  # seats the computer took or gave back (issue 18, item 9)


def queue_reports(session: Session, game: Game, *, turn: int | None = None, reports: Path = Path("reports"),
                  render_missing: bool = True, sender: str | None = None) -> SendResult:
    """Queue each human player's report of ``turn`` (rendering it first if its PDF is missing), and tell a
    player whose seat the computer took, or gave back, in that turn."""
    turn = check_turn(game, turn)
    result = SendResult(turn=turn)
    folder = turn_dir(reports, game.name, turn)
    humans = list(session.scalars(select(Player).where(Player.game_id == game.id, Player.human.is_(True))
                                  .order_by(Player.number)))
    for player in humans:
        key = report_key(game, turn, player.number)
        if session.scalar(select(OutboxMessage.id).where(OutboxMessage.key == key)) is not None:
            result.already.append(player.number)
            continue
        if not player.email:
            result.no_address.append(player.number)
            continue
        path = folder / f"player-{player.number}.pdf"
        if not path.exists():
            if not render_missing:
                raise PbmError(f"{path} is missing; render it with `pbm report {game.name} --turn {turn}`")
            render_turn(session, game, turn=turn, players=[player.number], out=reports)
        msg = build_message(session, game, turn, player, path.read_bytes())
        if _queue(session, key, [player.email], msg, game):
            result.queued.append(player.number)
        else:
            result.already.append(player.number)
    try:
        from pbm.mail.config import reply_sender
        from pbm.turnsheet.notify import seat_notices
    except ImportError:  # the mail part is absent
        return result
    result.notices = seat_notices(session, game, turn, sender or reply_sender(None))
    return result


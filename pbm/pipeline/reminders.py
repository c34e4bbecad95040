"""Reminders on a schedule (issue 18, item 9): each pass of `pbm cycle` and `pbm worker` queues the
reminder point now due of every open weekly game (``pbm deadline --remind 48h,12h``), then sends.

Crash-safe by the outbox: a point's reminders are queued under keys naming the point and the deadline
(``reminder:<game>:<turn>:<player>:before-<point>:<deadline>``) and committed before anything is sent, so
a pass that dies between queueing and sending leaves them for the next flush, and a pass run again
queues nothing new: each player gets each point's reminder once."""

from __future__ import annotations

from sqlalchemy import select

from pbm.db import session_scope
from pbm.kinds import kind_of, weekly_titles
from pbm.models import Game


def remind_on_schedule(url: str | None, opts, names: list[str] | None = None) -> int:
    """Queue the due reminder points of the open weekly games (or those named); returns how many mails
    were queued.  Sends them at once when SMTP is configured (else `pbm send-mail` does)."""
    from pbm.mail.config import reply_sender

    queued = 0
    with session_scope(url) as s:
        query = select(Game).where(Game.title.in_(weekly_titles()), Game.status == "open").order_by(Game.id)
        for game in s.scalars(query):
            if names is not None and game.name not in names or not (game.options or {}).get("reminders"):
                continue
            point, players = kind_of(game).remind_due(s, game, reply_sender(opts.mail_config), opts.now)
            if players:
                opts.log(f"{game.name}: turn {game.turn}: reminder {point} before the deadline queued for "
                         f"player(s) {', '.join(map(str, players))}")
                queued += len(players)
    from pbm.errors import PbmError
    from pbm.mail.config import smtp_config
    from pbm.mail.outbox import flush, pending

    try:
        smtp = smtp_config(opts.mail_config)
    except PbmError:
        smtp = None  # no SMTP: the reminders wait in the outbox for `pbm send-mail`
    if smtp is not None:
        with session_scope(url) as s:
            # also reminders queued by a pass that died before sending them (nothing new is queued then)
            if queued or any(m.kind == "reminder" and state != "sending" for m, _, state in pending(s)):
                opts.log(f"reminders: {flush(s, smtp).summary()}")
    return queued

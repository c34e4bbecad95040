"""Player names in the mails and PDFs of an anonymous 18xx game (``pbm new-game --anonymous``):
as on the game's web page (pbm/web/pages.py ``Names``), every other player is "Player N"; a
player's own name is shown to himself.  Mail is rewritten as it is queued (pbm/mail/outbox.py
calls :func:`hide_in_message` for a message of an anonymous 18xx game); the PDF is drawn per
reader (:func:`names_for`)."""
from __future__ import annotations

from typing import Any, Iterable

from sqlalchemy.orm import Session


def anonymous_18xx(game_row: Any) -> bool:
    from pbm.e18xx.pbem.games import is_18xx

    return bool(getattr(game_row, "anonymous", False)) and is_18xx(game_row)


def names_for(session: Session, game_row: Any, own: Iterable[str] = ()):
    """The names a reader of ``game_row`` may see (a callable on text); ``own``: his own seat name(s)."""
    from pbm.e18xx.pbem.games import players
    from pbm.web.pages import Names

    return Names(players(session, game_row), anonymous_18xx(game_row), keep=set(own))


def own_names(session: Session, game_row: Any, recipients: Iterable[str]) -> set[str]:
    """The seat names whose address is among ``recipients``."""
    from pbm.e18xx.pbem.games import players
    from pbm.mail.message import clean_address

    to = {(clean_address(r) or r).lower() for r in recipients}
    return {p.name for p in players(session, game_row) if p.email and (clean_address(p.email) or "").lower() in to}


def hide_in_message(session: Session, game_row: Any, msg: Any, recipients: list[str]) -> None:
    """Rewrite the subject and the plain text of ``msg`` for ``recipients`` (their own names kept)."""
    if not anonymous_18xx(game_row):
        return
    names = names_for(session, game_row, own_names(session, game_row, recipients))
    subject = msg["Subject"]
    if subject is not None:
        msg.replace_header("Subject", names(str(subject)))
    body = msg.get_body(("plain",))
    if body is not None:
        text = body.get_content()
        hidden = names(text)
        if hidden != text:
            body.set_content(hidden, charset="utf-8")

"""The addresses of the web pages (issue 33): a game's public page, and each player's own page
reached by a secret link.

A player's link carries a long random token (``secrets.token_urlsafe(32)``: 256 bits), never his
mail secret.  Only its SHA-256 is stored (:class:`pbm.models.WebLink`); the token itself is shown
once, when :func:`reset_link` makes it, and is in no public page, no other URL and no log line.
``pbm link reset`` revokes the seat's live link and makes a new one.

Mails link to the pages through :func:`game_url` and :func:`player_url`; the site's address is the
``PBM_WEB_URL`` environment variable (e.g. ``https://games.example.org``), default
``http://127.0.0.1:8000`` (what ``pbm serve`` listens on by default).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.clock import utcnow

DEFAULT_BASE = "http://127.0.0.1:8000"
TOKEN_BYTES = 32
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{40,64}$")


def base_url(base: str | None = None) -> str:
    """The site's address, without a trailing slash."""
    return (base or os.environ.get("PBM_WEB_URL") or DEFAULT_BASE).rstrip("/")


def game_path(game: Any) -> str:
    """The path of a game's public page: ``/g/<id>/`` (ids: a game's name may hold any character)."""
    return f"/g/{int(game.id)}/"


def game_url(game: Any, base: str | None = None) -> str:
    """The full address of a game's public page (for its state and report mails)."""
    return base_url(base) + game_path(game)


def mail_lines(game: Any, base: str | None = None) -> list[str]:
    """The lines a state or report mail adds about the game's page (public: fit for every player) — none
    while the moderator has not said where the pages are served (``PBM_WEB_URL``): a link to this
    machine's loopback address would lead a player nowhere."""
    if base is None and not os.environ.get("PBM_WEB_URL"):
        return []
    return [f"The game's page (map, market, players, history): {game_url(game, base)}"]


def player_url(token: str, base: str | None = None) -> str:
    """The full address of a player's own page, from the token :func:`reset_link` returned.  Only the
    token's holder (the player's mail, the moderator's terminal once) may see it: the token is
    kept nowhere else, so a mail can carry it only when it is sent right after a reset."""
    return base_url(base) + f"/p/{token}/"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def mask(path: str) -> str:
    """A request path fit for a log line: a player's token is replaced by ``***``."""
    return re.sub(r"^/p/[^/?#]*", "/p/***", path)


def reset_link(session: Session, game: Any, number: int) -> str:
    """Revoke the live link of seat ``number`` of ``game`` and make a new one; returns the new token
    (show it once, after the commit).  Raises LookupError for a seat the game does not have."""
    from pbm.models import Player, WebLink

    seat = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    if seat is None:
        raise LookupError(f"{game.name} has no player {number}")
    now = utcnow()
    for old in session.scalars(select(WebLink).where(WebLink.game_id == game.id, WebLink.player_number == number,
                                                     WebLink.revoked_at.is_(None))):
        old.revoked_at = now
    token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(WebLink(game_id=game.id, player_number=number, token_hash=token_hash(token), created_at=now))
    session.flush()
    return token


def revoke(session: Session, game: Any, number: int) -> int:
    """Revoke seat ``number``'s live link (no new one); returns how many were revoked."""
    from pbm.models import WebLink

    count = 0
    for old in session.scalars(select(WebLink).where(WebLink.game_id == game.id, WebLink.player_number == number,
                                                     WebLink.revoked_at.is_(None))):
        old.revoked_at = utcnow()
        count += 1
    return count


def live_links(session: Session, game: Any) -> list[Any]:
    """The live links of a game (rows: player_number, created_at; never a token)."""
    from pbm.models import WebLink

    return list(session.scalars(select(WebLink).where(WebLink.game_id == game.id, WebLink.revoked_at.is_(None))
                                .order_by(WebLink.player_number)))


def resolve(session: Session, token: str) -> tuple[Any, Any] | None:
    """(game, player) of a live token, or None (unknown, malformed or revoked: the caller answers 404)."""
    from pbm.models import Game, Player, WebLink

    if not _TOKEN_RE.match(token or ""):
        return None
    digest = token_hash(token)
    link = session.scalar(select(WebLink).where(WebLink.token_hash == digest, WebLink.revoked_at.is_(None)))
    if link is None or not hmac.compare_digest(link.token_hash, digest):
        return None
    game = session.get(Game, link.game_id)
    if game is None:
        return None
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == link.player_number))
    if player is None:
        return None
    return game, player


def mail_link(session: Session, game: Any, number: int, token: str, sender: str, base: str | None = None) -> str | None:
    """Queue a mail to seat ``number`` with his new link (outbox kind ``secret``, like the welcome mail
    with the mail secret); returns the address, or None when he has none on file."""
    from pbm.mail import outbox
    from pbm.mail.compose import make_message, one_line
    from pbm.mail.message import clean_address
    from pbm.models import Player

    seat = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    address = clean_address(seat.email or "") if seat is not None else None
    if not address:
        return None
    lines = [f"Your own page of game {one_line(game.name, 80)} (player {number}):", "",
             player_url(token, base), "",
             "It shows what only you may see: your report, your settings, offers made to you. The address is a "
             "secret: keep it to yourself. A new one replaces it whenever the moderator resets it; the old one "
             "then stops working.", "",
             f"The game's public page: {game_url(game, base)}", ""]
    msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Your own page, player {number}",
                       "\n".join(lines))
    outbox.queue(session, f"web-link:{int(game.id)}:{number}:{token_hash(token)[-16:]}", "secret", [address], msg,
                 game=game)
    return address

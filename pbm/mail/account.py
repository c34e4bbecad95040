"""A player's secret over its life (issue 18, item 10): the welcome mail that gives it, the moderator's
reset, and a secret the player chooses by mail.  Any game kind; only the secret's hash is stored
(:mod:`pbm.auth`), every mail goes to the address on file through the outbox, keyed once.

Choosing a secret by mail: a plain-text message (any subject) with these lines::

    GAME: cr-12
    PLAYER: 3
    CODE: K7QM2X            (Continental Rails: this turn's code from your sheet; 18xx games have none)
    SECRET: your current secret
    NEW SECRET: the secret you choose

Only letters and digits of a secret count and case does not matter (``rail baron 1848`` is read as
``RAILBARON1848``); a chosen secret has 10 to 40 of them.  The answer goes to the address on file, never
to the sender only; the stored message keeps its headers, its body (which held two secrets) is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.auth import check_secret, check_turn_code, hash_secret, new_secret, normalize_secret
from pbm.errors import PbmError
from pbm.mail import outbox
from pbm.mail.answer import Outcome, finish
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import clean_address, contents_once, split_head
from pbm.models import Game, InboundMessage, Player

MIN_CHOSEN, MAX_CHOSEN = 10, 40
_LINE = re.compile(r"^[ \t>]*(game|player|code|secret|new[ \t]+secret)[ \t]*:[ \t]*(.*?)[ \t]*$", re.I | re.M)


def _sign_off(moderator: str = "") -> list[str]:
    return ["", "-- ", "pbm (automatic message)"] + ([f"Questions: {moderator}"] if moderator else [])


def _kind_words(game: Game) -> tuple[bool, str]:
    from pbm.kinds import kind_of

    weekly = kind_of(game).weekly
    return weekly, ("Continental Rails II" if weekly else game.title)


def _how_to_choose(game: Game, number: int, weekly: bool) -> list[str]:
    return ["To choose your own secret, mail these lines (letters and digits count, 10 to 40 of them):",
            f"  GAME: {game.name}", f"  PLAYER: {number}"] \
        + (["  CODE: (this turn's code, from your turnsheet)"] if weekly else []) \
        + ["  SECRET: (your current secret)", "  NEW SECRET: (the secret you choose)"]


def queue_welcome(session: Session, game: Game, secrets: dict[int, str], sender: str, moderator: str = "") -> list[int]:
    """A welcome mail with the secret to each seat given one (new game, or a seat filled); keyed by the
    secret's hash, so it goes once and a later reset is a new mail.  Returns the seats mailed."""
    weekly, title = _kind_words(game)
    done = []
    for player in session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)):
        secret = secrets.get(player.number)
        address = clean_address(player.email or "")
        if not secret or address is None:
            continue
        who = f"player {player.number}" + (f", {one_line(player.character, 60)}" if player.character else "")
        lines = [f"Welcome to {title} game {game.name}, {one_line(player.name, 80) or 'player'}.", "",
                 f"You play {who}.", "", f"Your secret: {secret}", "",
                 "Every sheet or move you mail must carry it on its SECRET: line; it is how pbm knows the orders "
                 "are yours (the address you mail from does not count). Keep it to yourself. pbm stores only a "
                 "scrambled form of it: if you lose it, the moderator can give you a new one.", ""]
        lines += (["Your turnsheet comes with each turn's mail: fill in the PDF, or reply with the text sheet "
                   "filled in after the colons."] if weekly else
                  ["The game's state comes by mail; reply with GAME, PLAYER and SECRET lines, then one move a "
                   "line."])
        lines += [""] + _how_to_choose(game, player.number, weekly) + _sign_off(moderator)
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Welcome, player {player.number}: "
                           "your secret", "\n".join(lines) + "\n")
        outbox.queue(session, f"welcome:{game.id}:{player.number}:{player.secret_hash[-16:]}", "secret",
                     [address], msg, game=game)
        done.append(player.number)
    return done


def reset_secret(session: Session, game: Game, number: int, sender: str,
                 moderator: str = "") -> tuple[Player, str, str | None]:
    """A new secret for seat ``number`` (the old one stops working at once), mailed to the address on
    file; returns the player, the secret and the address mailed (None: no address on file)."""
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    if player is None:
        raise PbmError(f"game {game.name} has no player {number}")
    if not player.human:
        raise PbmError(f"player {number} of {game.name} is a computer seat: it has no secret")
    secret = new_secret()
    player.secret_hash = hash_secret(secret)
    session.flush()
    address = clean_address(player.email or "")
    if address is not None:
        weekly, title = _kind_words(game)
        lines = [f"The moderator of {title} game {game.name} has given you (player {player.number}) a new "
                 "secret. Your old secret no longer works.", "", f"Your new secret: {secret}", "",
                 "Write it on the SECRET: line of every sheet or move you mail.", ""] \
            + _how_to_choose(game, player.number, weekly) + _sign_off(moderator)
        msg = make_message(sender, [address], f"[{one_line(game.name, 40)}] Player {player.number}: your new secret",
                           "\n".join(lines) + "\n")
        outbox.queue(session, f"secret:{game.id}:{player.number}:{player.secret_hash[-16:]}", "secret", [address],
                     msg, game=game)
    return player, secret, address


# -- a secret chosen by mail ------------------------------------------------------------------------------

def claim(msg) -> dict[str, str] | None:
    """The command's lines if a text part of ``msg`` has a ``NEW SECRET:`` line, else None."""
    for candidate in contents_once(msg).candidates:
        if candidate.kind == "pdf" or not candidate.text:
            continue
        fields: dict[str, str] = {}
        for key, value in _LINE.findall(candidate.text[:20000]):
            fields.setdefault(" ".join(key.lower().split()), value.strip())
        if "new secret" in fields:
            return fields
    return None


def _drop_body(row: InboundMessage) -> None:
    head, _ = split_head(row.raw)
    row.raw = (head + b"\r\nX-PBM-Redacted: body removed (it held a player's secrets)\r\n\r\n"
               b"[body removed by pbm: a secret change; sha256 of the original: " + row.sha256.encode() + b"]\r\n")


def _check(session: Session, fields: dict[str, str]) -> tuple[Game, Player, str] | str:
    """(game, player, chosen secret) or the reason the change is refused."""
    from pbm.kinds import kind_of
    from pbm.locks import lock_game

    name = fields.get("game", "")
    game = next((g for g in session.scalars(select(Game).order_by(Game.id)) if g.name.lower() == name.lower()), None)
    if not name:
        return "the GAME line is missing or empty"
    if game is None:
        return "there is no game here by the name on your GAME line; copy the GAME line from your sheet"
    lock_game(session, game)
    if game.status != "open":
        return f"game {game.name} is {game.status}"
    try:
        number = int(fields.get("player", "").strip().lstrip("#"))
    except ValueError:
        return "the PLAYER line is missing or not a number"
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    if player is None or not player.human or not player.secret_hash:
        return f"game {game.name} has no human player {number}"
    if not fields.get("secret") or not check_secret(fields["secret"], player.secret_hash):
        return (f"the SECRET line does not hold player {number}'s current secret (only letters and digits "
                "count); your secret is unchanged")
    if kind_of(game).weekly:
        code = fields.get("code", "")
        if not code:
            return f"the CODE line is missing: copy this turn's code (turn {game.turn}) from your turnsheet"
        if not check_turn_code(game, number, game.turn, code):
            return (f"the code {one_line(code, 20)} is not player {number}'s code for turn {game.turn} (the turn "
                    "being played): copy it from your latest turnsheet")
    chosen = fields.get("new secret", "")
    token = normalize_secret(chosen)
    if not MIN_CHOSEN <= len(token) <= MAX_CHOSEN:
        return (f"the NEW SECRET has {len(token)} letters and digits; a secret needs {MIN_CHOSEN} to {MAX_CHOSEN} "
                "(spaces and punctuation do not count, case does not matter); your secret is unchanged")
    if check_secret(chosen, player.secret_hash):
        return "the NEW SECRET is the same as your current one; nothing changed"
    return game, player, token


def handle(session: Session, row: InboundMessage, ctx, sender: str, fields: dict[str, str],
           refuse: Callable[..., list[str]]) -> Outcome:
    """Change the player's secret, or refuse saying why (``refuse``: the intake's answer to a sender)."""
    from pbm.mail.redact import remember

    checked = _check(session, fields)
    _drop_body(row)
    for name in ("secret", "new secret"):  # the subject may repeat them: the intake cuts them there too
        remember(row, fields.get(name))
    if isinstance(checked, str):
        finish(row, "rejected", f"secret change refused: {checked}", redacted=True)
        replied = refuse(session, ctx, row, sender, f"secret change refused: {checked}", [])
        return Outcome(row.id, row.seq, "rejected", row.outcome["reason"], replied)
    game, player, token = checked
    player.secret_hash = hash_secret(token)
    row.game_id, row.player_number, row.turn = game.id, player.number, game.turn
    finish(row, "secret changed", "the player chose a new secret", redacted=True)
    address = clean_address(player.email or "")
    replied = []
    if address is not None:
        lines = [f"Your secret for game {game.name} (player {player.number}) has been changed as you asked "
                 f"(message #{row.seq}).", "",
                 f"From now on write your new secret ({len(token)} letters and digits; we do not repeat it here) "
                 "on the SECRET: line. Your old secret no longer works.", "",
                 "If you did not ask for this, write to the moderator at once."] + _sign_off(ctx.moderator)
        msg = make_message(ctx.sender, [address], f"[{one_line(game.name, 40)}] Player {player.number}: "
                           "secret changed", "\n".join(lines) + "\n", in_reply_to=row.message_id)
        outbox.queue(session, f"receipt:{row.sha256[:24]}", "receipt", [address], msg, game=game)
        replied = [address]
    return Outcome(row.id, row.seq, "secret changed", "the player chose a new secret", replied,
                   player=player.number)

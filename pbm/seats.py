"""Seats of a game, whatever the game: the players file a moderator writes, and who
sits at the computer.

A players file is CSV with a header: ``name,email`` and optionally
``character``, ``phone``, ``address``, ``anonymous`` (hides address and phone),
``hide_address``, ``hide_phone``.  Every mistake is reported with its line.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pbm.errors import PbmError

if TYPE_CHECKING:  # typing only
    from pbm.models import Game, Player

DEFAULT_MISSED_TURNS_LIMIT = 2  # ruling M3 (§3.1, docs/rulings/mail.md)


def missed_turns_limit(game: "Game") -> int:
    """How many turns in a row a human may miss before the computer takes the seat (ruling M3;
    ``Game.options["missed_turns_limit"]``, default 2, at least 1)."""
    try:
        value = int((game.options or {}).get("missed_turns_limit", DEFAULT_MISSED_TURNS_LIMIT))
    except (TypeError, ValueError):
        return DEFAULT_MISSED_TURNS_LIMIT
    return max(1, value)


def computer_seated(player: "Player", game: "Game") -> bool:
    """§3.1: a computer seat, or a human seat the computer has taken over after too many
    missed turns (ruling M3) until the player sends a sheet again."""
    return not player.human or player.missed_turns >= missed_turns_limit(game)


class PlayersFileError(PbmError):
    """The players file cannot be used; the message names the line and the problem."""


@dataclass
class SeatRequest:
    """One row of the players file."""

    line: int
    name: str
    email: str
    character: str = ""
    phone: str = ""
    address: str = ""
    hide_address: bool = False
    hide_phone: bool = False


_TRUE = {"1", "y", "yes", "true", "x"}
_FALSE = {"", "0", "n", "no", "false"}


def _flag(value: str | None, where: str, column: str) -> bool:
    text = (value or "").strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise PlayersFileError(f"{where}: column {column!r} must be yes or no, not {value!r}")


def read_players_file(path: Path, *, max_seats: int | None = None, why: str = "") -> list[SeatRequest]:
    """Read the players CSV: name, email, and optionally character, phone, address,
    anonymous (hides address and phone), hide_address, hide_phone.  ``max_seats``
    bounds the number of players (``why`` says which rule sets it)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PlayersFileError(f"{path}: no such players file") from None
    except OSError as exc:
        raise PlayersFileError(f"{path}: cannot read players file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PlayersFileError(f"{path}: not a UTF-8 text file") from None
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise PlayersFileError(f"{path}: not a valid CSV file: {exc}") from None
    if not header:
        raise PlayersFileError(f"{path}: empty players file (expected a header line: name,email,...)")
    for required in ("name", "email"):
        if required not in header:
            raise PlayersFileError(f"{path}:1: header must have a {required!r} column (found: {', '.join(header)})")
    known = {"name", "email", "character", "phone", "address", "anonymous", "hide_address", "hide_phone"}
    unknown = [h for h in header if h not in known]
    if unknown:
        raise PlayersFileError(f"{path}:1: unknown column(s) {', '.join(unknown)}; allowed: {', '.join(sorted(known))}")
    reader.fieldnames = header
    seats: list[SeatRequest] = []
    seen_names: dict[str, int] = {}
    seen_emails: dict[str, int] = {}
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise PlayersFileError(f"{path}:{reader.line_num}: bad CSV: {exc}") from None
    for index, row in enumerate(rows, start=2):
        where = f"{path}:{index}"
        if None in row:
            raise PlayersFileError(f"{where}: more fields than the header has columns")
        values = {k: (v or "").strip() for k, v in row.items()}
        if not any(values.values()):
            continue
        name, email = values.get("name", ""), values.get("email", "")
        if not name:
            raise PlayersFileError(f"{where}: missing name")
        if not email:
            raise PlayersFileError(f"{where}: missing email for {name!r}")
        if "@" not in email or " " in email or email.startswith("@") or email.endswith("@"):
            raise PlayersFileError(f"{where}: {email!r} is not an email address")
        if name.lower() in seen_names:
            raise PlayersFileError(f"{where}: duplicate name {name!r} (first on line {seen_names[name.lower()]})")
        if email.lower() in seen_emails:
            raise PlayersFileError(f"{where}: duplicate email {email!r} (first on line {seen_emails[email.lower()]})")
        seen_names[name.lower()] = index
        seen_emails[email.lower()] = index
        anonymous = _flag(values.get("anonymous"), where, "anonymous")
        character = values.get("character", "")
        if len(character) > 40:
            raise PlayersFileError(f"{where}: character name longer than 40 characters")
        seats.append(
            SeatRequest(
                line=index,
                name=name,
                email=email,
                character=character,
                phone=values.get("phone", ""),
                address=values.get("address", ""),
                hide_address=anonymous or _flag(values.get("hide_address"), where, "hide_address"),
                hide_phone=anonymous or _flag(values.get("hide_phone"), where, "hide_phone"),
            )
        )
        if max_seats is not None and len(seats) > max_seats:
            raise PlayersFileError(f"{where}: more than {max_seats} players" + (f" ({why})" if why else ""))
    return seats

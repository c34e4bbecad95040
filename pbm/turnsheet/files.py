"""Writing turnsheets to files: ``turnsheets/<game>/turn-<T>/player-NN.pdf`` and ``.txt``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.errors import PbmError
from pbm.models import Game, Player
from pbm.cr import queries
from pbm.turnsheet.facts import sheet_facts
from pbm.turnsheet.pdf import render_pdf
from pbm.turnsheet.text import render_text

FORMATS = ("pdf", "text", "both")


def safe_name(text: str) -> str:
    """A file-system-safe form of a game name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "game"


def default_dir(game: Game) -> Path:
    return Path("turnsheets") / safe_name(game.name) / f"turn-{game.turn}"


@dataclass
class Sheet:
    player: Player
    text: str | None
    pdf: bytes | None


def human_players(session: Session, game: Game, number: int | None = None) -> list[Player]:
    players = session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)).all()
    if number is not None:
        chosen = [p for p in players if p.number == number]
        if not chosen:
            raise PbmError(f"game {game.name} has no player {number} (players are 1-15)")
        if not chosen[0].human:
            raise PbmError(f"player {number} of {game.name} is played by the computer; it gets no turnsheet")
        return chosen
    return [p for p in players if p.human]


def make_sheets(session: Session, game: Game, number: int | None = None, fmt: str = "both") -> list[Sheet]:
    if fmt not in FORMATS:
        raise PbmError(f"unknown format {fmt!r}; use pdf, text or both")
    if game.status != "open":
        raise PbmError(f"game {game.name} is {game.status}: no turnsheets")
    sheets = []
    view = queries.load(session, game)  # one start-of-turn view for every sheet
    for player in human_players(session, game, number):
        facts = sheet_facts(session, game, player, view=view)
        sheets.append(Sheet(player, render_text(facts) if fmt in ("text", "both") else None,
                            render_pdf(facts) if fmt in ("pdf", "both") else None))
    return sheets


def write_sheets(sheets: list[Sheet], out: Path) -> list[Path]:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PbmError(f"{out}: cannot create the folder: {exc.strerror}") from None
    written = []
    for s in sheets:
        stem = out / f"player-{s.player.number:02d}"
        if s.pdf is not None:
            stem.with_suffix(".pdf").write_bytes(s.pdf)
            written.append(stem.with_suffix(".pdf"))
        if s.text is not None:
            stem.with_suffix(".txt").write_text(s.text, encoding="utf-8")
            written.append(stem.with_suffix(".txt"))
    return written

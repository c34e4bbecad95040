"""A play-through game (tests/e18xx/playthrough/) stored in a database as pbm stores a game by mail:
a ``games`` row made by ``pbm new-game`` and its actions as ``actions_18xx`` rows."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from pbm.e18xx.core import actions as A

from .helpers import PLAYTHROUGH, PLAYTHROUGH_TITLES, playthrough_game

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve"]


def stored_playthrough(folder: Path, key: str, upto: int, *, seed: int, suffix: str = "", players: int = 3,
                       name: str = "pt") -> str:
    """The play-through ``key`` after ``upto`` actions as game ``name`` of a new SQLite database in
    ``folder`` (players Ann, Bob, Cy[, Di] at ann@example.org...); returns the database URL."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Action18, Game

    from ..conftest import Cli

    url = f"sqlite:///{folder / 'pbm.db'}"
    names = NAMES[:players]
    roster = folder / "players.csv"
    with roster.open("w", newline="") as fh:
        csv.writer(fh).writerows([["name", "email"], *[[n, f"{n.lower()}@example.org"] for n in names]])
    Cli(url)("new-game", PLAYTHROUGH_TITLES[key], "--players", roster, "--name", name, "--seed", str(seed),
             "--no-welcome")
    lines = (PLAYTHROUGH / f"{key}{suffix}.jsonl").read_text(encoding="utf-8").splitlines()[:upto]
    seat = {n: i for i, n in enumerate(names, 1)}
    g = playthrough_game(key, 0, seed=seed, suffix=suffix, players=players)
    with session_scope(url) as s:
        game = s.scalars(select(Game).where(Game.name == name)).one()
        for seq, line in enumerate(lines, 1):
            act = json.loads(line)
            mover = g.controller(act["entity"])  # the seat that mailed it: the president of a company
            g.process(A.action_from_dict(act))
            s.add(Action18(game_id=game.id, seq=seq, player_number=seat.get(mover), action=act))
    return url


def offer_then_answer(url: str, name: str, buyer: int, mail: str, owner: int, answer: str):
    """Seat ``buyer``'s ``mail``, which must end in an offer, then seat ``owner``'s ``answer`` to it, in
    game ``name`` of ``url``: (the offer's outcome, the answer's outcome)."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game

    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == name))
        made = apply(s, row, buyer, mail)
        assert made.accepted and made.offer is not None, made.error
        answered, _ = answer_offer(s, row, owner, answer)
        assert answered.accepted, answered.error
        return made, answered

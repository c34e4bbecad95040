"""The action log of an 18xx game's page says a move in the mails' words (issue 29, play-through
s10 finding 7, left for the page in the tenth session): a train bought with a private's discount is
its owning company's move with its price (``N&W: buy train 3 with P2 for $0 ($200 off)``), never
the private's own (``P2: buy train 3 with P2``)."""
from __future__ import annotations

import csv
import json
import re

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Action18, Game

from ..conftest import Cli
from ..e18xx.helpers import PLAYTHROUGH


def test_a_private_discount_purchase_is_the_companys_move_on_the_page(tmp_path):
    url = f"sqlite:///{tmp_path / 'pbm.db'}"
    players = tmp_path / "players.csv"
    with players.open("w", newline="") as fh:
        csv.writer(fh).writerows([["name", "email"], ["Ann", "ann@example.org"], ["Bob", "bob@example.org"],
                                  ["Cy", "cy@example.org"]])
    Cli(url)("new-game", "18VA", "--players", players, "--name", "va", "--seed", "29", "--no-welcome")
    lines = (PLAYTHROUGH / "va-s10.jsonl").read_text(encoding="utf-8").splitlines()[:63]
    assert json.loads(lines[-1])["entity"] == "P2"
    with session_scope(url) as s:
        game = s.scalars(select(Game).where(Game.name == "va")).one()
        seat = {"Ann": 1, "Bob": 2, "Cy": 3}
        for seq, line in enumerate(lines, 1):
            act = json.loads(line)
            s.add(Action18(game_id=game.id, seq=seq, player_number=seat.get(act["entity"]), action=act))
    from pbm.e18xx.render.web import game_page

    with session_scope(url) as s:
        html = game_page(s, s.scalars(select(Game).where(Game.name == "va")).one(), None)
    text = re.sub(r"<[^>]+>", " ", html)
    text = re.sub(r"\s+", " ", text)
    assert "P2: buy train 3" not in text
    assert re.search(r"N&amp;W: buy train 3 with P2 for \$0 \(\$\d+ off\)", text), text[:3000]

"""The action log of an 18xx game's page says a move in the mails' words (issue 29, play-through
s10 finding 7, left for the page in the tenth session): a train bought with a private's discount is
its owning company's move with its price (``N&W: buy train 3 with P2 for $0 ($200 off)``), never
the private's own (``P2: buy train 3 with P2``)."""
from __future__ import annotations

import json
import re

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game

from ..e18xx.db_games import stored_playthrough
from ..e18xx.helpers import PLAYTHROUGH


def test_a_private_discount_purchase_is_the_companys_move_on_the_page(tmp_path):
    last = (PLAYTHROUGH / "va-s10.jsonl").read_text(encoding="utf-8").splitlines()[62]
    assert json.loads(last)["entity"] == "P2"
    url = stored_playthrough(tmp_path, "va", 63, seed=29, suffix="-s10", name="va")
    from pbm.e18xx.render.web import game_page

    with session_scope(url) as s:
        html = game_page(s, s.scalars(select(Game).where(Game.name == "va")).one(), None)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "P2: buy train 3" not in text
    assert re.search(r"N&amp;W: buy train 3 with P2 for \$0 \(\$\d+ off\)", text), text[:3000]

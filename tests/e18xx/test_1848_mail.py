"""1848 Australia by email, end to end: move mails in a Maildir, `pbm ingest --maildir`,
receipts with the state PDF; random legal play from the sale of the privates into the
operating rounds, loans included, every move sent by the seat that must act."""
from __future__ import annotations

import random
import re

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem.games import action_rows, load, move_text
from pbm.models import Game
from tests.e18xx.helpers import pick
from tests.e18xx.test_pbem_mail import PLAYERS, answer, send


@pytest.fixture
def aus(cli, tmp_path):
    import mailbox
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "1848", "--players", str(csv), "--seed", "5", "--name", "aus-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


def _state(cli):
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "aus-1"))
        return load(s, row), len(action_rows(s, row))


def test_1848_by_email_from_the_sale_into_the_operating_rounds(aus):
    cli, *_ = aus
    rng = random.Random(7)
    seat_of = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}
    game, _ = _state(cli)
    total = game.total_cash()
    kinds, types = set(), set()
    line, inbound = send(aus, 1, "pass", game="aus-1")  # 3.1.1: owning nothing, Ann may not pass
    assert "refused" in line.lower() or "rejected" in line.lower(), line
    _, text = answer(cli, inbound)
    assert "3.1.1" in text
    for _ in range(120):
        game, n_before = _state(cli)
        if game.finished or ("operating" in kinds and game.state.turn >= 3):
            break
        entity = game.current_entity()
        player = game.controller(entity)
        texts = []
        while not game.finished and game.current_entity() == entity:
            # a train of another president's company is bought by an offer, not a move (8.1, 8.3.4)
            legal = [a for a in game.legal_actions() if not (isinstance(a, A.BuyTrain) and a.seller
                                                             and game.controller(a.seller) != player)]
            act = pick(rng, legal)
            texts.append(move_text(game, act))
            types.add(act.type)
            game.process(act)
            if entity not in game.state.corporations and not (game.state.round.kind == "stock"
                                                              and game.state.round.turn_actions):
                break  # a mail is the whole turn: a stock turn's moves up to its end (issue 29)
        line, inbound = send(aus, seat_of[player], "\n".join(texts), game="aus-1")
        assert f"player {seat_of[player]} accepted" in line, (line, texts)
        game, n_after = _state(cli)
        assert n_after >= n_before + len(texts) and game.total_cash() == total
        kinds.add(game.state.round.kind)
        msg, text = answer(cli, inbound)
        assert "ACCEPTED" in text
        # the PDF comes on the reader's turn and when the map changed (issue 29, item 8), and says so
        attached = any(p.get_content_type() == "application/pdf" for p in msg.iter_attachments())
        assert ("The PDF of the state is attached" in text) == attached
        assert attached or "No PDF with this mail" in text
    assert {"stock", "operating"} <= kinds and {"assign", "bid", "par", "buy_train"} <= types

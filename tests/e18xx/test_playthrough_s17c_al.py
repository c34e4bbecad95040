"""Play-through by mail s17c of 18AL (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 294, four seats Ann, Bob, Cy and Di): 77 actions to the end of stock round 3,
6 company turns (ABC, WRA and TAG twice each, every one in one mail). These tests pin each finding
with the mail that showed it (tests/e18xx/playthrough/al-s17c.jsonl holds the game)."""
from __future__ import annotations

import mailbox
import re

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem.games import offer_answer, offer_said

from .helpers import playthrough_game


def game(upto: int):
    """The s17c game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=294, suffix="-s17c", players=4)


def test_the_game_replays():
    """The game to the end of stock round 3 (77 actions): ABC, WRA and TAG floated in stock round 1,
    TAG bought the first 3 train (phase 3) and Brown & Sons from Di; Di bought NDY from Cy for $150."""
    assert game(24).current_entity() == "ABC"
    g = game(71)
    assert g.current_entity() == "Di"
    g = game(77)
    assert g.current_entity() == "ABC"
    assert g.state.companies["NDY"].owner == "P:Di"
    assert g.state.companies["BLC"].owner == "C:TAG"


@pytest.mark.parametrize("line", [
    "I accept Di's offer for NDY",  # mail 43, as written
    "I accept Di's offer of $150 for NDY",
    "Accept the offer for NDY",
    "I accept Di's offer for the New Decatur Yards",
    "accept NDY",
])
def test_an_answer_naming_the_buyers_offer(line):
    """Stock round 3 (mail 43): Di offered Cy $150 for NDY; Cy's 'I accept Di's offer for NDY' was
    refused "the offer waiting is for NDY; write 'accept NDY'" (class b: the line named NDY, and the
    answer took "Di's" for the private). The buyer's offer and its price are words around the answer,
    the private by its symbol or its Table III name (the reader main gained the same hour from 18GA s17c
    mail 40 and 18VA s17 mail 46)."""
    g, offer = game(71), {"company": "NDY"}
    verb, said = offer_answer(line)
    assert verb == "accept" and offer_said(g, offer, said), said
    verb, said = offer_answer(line.replace("accept", "decline").replace("Accept", "Decline"))
    assert verb == "decline" and offer_said(g, offer, said), said
    assert not offer_said(g, offer, offer_answer(line.replace("NDY", "TR"))[1]) or "NDY" not in line


def test_an_answer_naming_no_private_still_answers():
    """'I accept Di's offer.' names the offer and no private: the one offer waiting is answered."""
    assert offer_answer("I accept Di's offer.") == ("accept", "")
    assert offer_answer("I accept the offer.") == ("accept", "")
    assert offer_answer("accept 4") == ("accept", "4")


FOUR = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org"), ("Di", "di@example.org")]


@pytest.fixture
def al71(cli, tmp_path):
    """The s17c game after 71 actions, stored as 'al-c' (Di to act in stock round 3)."""
    import json

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Action18, Game

    from .helpers import PLAYTHROUGH

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in FOUR), encoding="utf-8")
    out = cli("new-game", "18AL", "--players", str(csv), "--seed", "294", "--name", "al-c").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    lines = (PLAYTHROUGH / "al-s17c.jsonl").read_text(encoding="utf-8").splitlines()[:71]
    g = game(0)
    seat = {n: i for i, (n, _) in enumerate(FOUR, 1)}
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "al-c"))
        for seq, line in enumerate(lines, 1):
            data = json.loads(line)
            mover = g.controller(data["entity"])
            g.process(A.action_from_dict(data))
            s.add(Action18(game_id=row.id, seq=seq, player_number=seat.get(mover), action=data))
        row.turn = g.state.turn
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


def test_the_owner_answers_in_his_own_words_by_mail(al71):
    """Mails 42-43 by mail: Di's 'Buy the New Decatur Yards from Cy for $150' makes the offer, and Cy's
    'I accept Di's offer for NDY' is the sale."""
    from tests.e18xx.test_pbem_mail import answer, send

    cli = al71[0]
    line, _ = send(al71, 4, "Buy the New Decatur Yards from Cy for $150", game="al-c")
    assert "accepted" in line, line
    line, inbound = send(al71, 3, "I accept Di's offer for NDY", game="al-c")
    assert "accepted" in line, line
    assert "SALE AGREED: Cy accepted Di's offer: NDY for $150" in answer(cli, inbound)[1]


def test_a_refused_answer_lists_the_owners_answers(al71):
    """Noted at mail 43 (no mail lost): the refusal of Cy's answer went on "Now: Di to act. Di may:"
    with Di's stock moves (buy, par, sell) - none of them Cy's to write. A refused answer from the
    player the offer waits for lists his two answers (mailplay's _now_lines, from 18GA s17c mail 40)."""
    from tests.e18xx.test_pbem_mail import answer, send

    cli = al71[0]
    line, _ = send(al71, 4, "Buy the New Decatur Yards from Cy for $150", game="al-c")
    assert "accepted" in line, line
    line, inbound = send(al71, 3, "accept TR", game="al-c")
    assert "rejected" in line, line
    text = answer(cli, inbound)[1]
    assert "Now: Di's offer for NDY waits for your answer:\n  accept NDY\n  decline NDY\n" in text
    assert "par ATN 60" not in text.split("Correct the moves")[0]


def test_the_outline_says_a_private_waits_for_the_3_train():
    """Noted at TAG's turn in OR 2.1 (mail 38, no mail lost): the outline listed "...; buy trains (3 for
    $180; ...); buy a private." in phase 2, where no company may buy a private (4.2.6: "Once a 3 Train has
    been purchased"); it is open only because the example buys the first 3 train. It says so (the
    wording of main's fix for 1848 s17c mail 035, made the same hour); in phase 3 it is plain "buy a
    private"."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(58)
    assert g.current_entity() == "TAG" and "can_buy_companies" not in g.phase.status
    outline = "\n".join(turn_outline(g))
    assert "buy a private (once the train bought starts Phase 3)." in outline
    g = game(77)
    assert "can_buy_companies" in g.phase.status
    assert "buy a private (once" not in "\n".join(turn_outline(g))

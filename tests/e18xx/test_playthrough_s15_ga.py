"""Play-through by mail s15 of 18GA (issue 29 acceptance; seed 191, Ann, Bob, Cy, Di, every seat
written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s15.jsonl holds the game, 356 actions, 57 company turns: the count
stopped at 279 actions and 39 turns; the rest was played with the fixes as they were made)."""
import pytest

from .helpers import PLAYTHROUGH, intent_mail, playthrough_game


def game(upto: int):
    """The s15 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=191, suffix="-s15", players=4)


def test_a_private_bought_from_its_owner_by_the_first_word_of_its_name():
    """W&A, OR 5.1 (finding F1, mail #67): 'buy the Midland from Di for $60' was refused "unknown
    private company 'MIDLAND'; known: LTR, MRC, ..." - Table III calls MRC "the Midland" - while 'buy
    the Ocilla Southern from Bob for $150' was taken (mail #55). The name named with its owner is read
    as a name is everywhere else (4.2.6)."""
    g = game(108)
    made, _ = intent_mail(g, "lay 14 C3 2\nrun 2 D4-1 C3\nrun 2 C3 A3\npayout\nbuy a 3 train from the bank\n"
                             "buy the Midland from Di for $60")
    assert made[:3] == ["lay 14 C3 2", "pass", "run 2 D4-1 C3; 2 C3 A3"]
    assert "buy train 3" in made
    assert g.state.companies["MRC"].owner.endswith("W&A")


def test_a_share_from_the_initial_offering_at_par():
    """SR 6 (finding F2, mail #76): 'buy a W&A share from the Initial Offering at par' was refused
    "say 'ipo' or 'market': 'ipo' for the Initial Offering, ..." though it named the Initial Offering:
    the closing 'at par' (3.2(c)(2): "The player pays the bank the par value") hid it."""
    for text in ("buy a W&A share from the Initial Offering at par", "buy a W&A share at par",
                 "buy 1 W&A at par value"):
        made, _ = intent_mail(game(156), text)
        assert made[0] == "buy W&A ipo", (text, made)


# ------------------------------------------------------------------ an offer for a train, by mail
@pytest.fixture
def s15(cli, tmp_path):
    """The s15 game stored as 'ga-1' up to SAL's turn in OR 8.1 (action 300), where SAL offered for
    CoG's and then GA's 3 train; returns the mail fixture of tests/e18xx/test_pbem_mail.py."""
    import json
    import mailbox
    import re

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.core import actions as A
    from pbm.models import Action18, Game

    names = ["Ann", "Bob", "Cy", "Di"]
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{n.lower()}@example.org\n" for n in names), encoding="utf-8")
    out = cli("new-game", "18GA", "--players", str(csv), "--seed", "191", "--name", "ga-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    g = game(0)
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        for seq, line in enumerate((PLAYTHROUGH / "ga-s15.jsonl").read_text(encoding="utf-8").splitlines()[:300], 1):
            a = A.action_from_dict(json.loads(line))
            s.add(Action18(game_id=row.id, seq=seq, player_number=names.index(g.controller(a.entity)) + 1,
                           action=a.to_dict()))
            g.process(a)
        row.turn = g.state.turn
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


def _stored(cli):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import load
    from pbm.models import Game

    with session_scope(cli.url) as s:
        return load(s, s.scalar(select(Game).where(Game.name == "ga-1")))


def test_an_offer_accepted_in_the_first_person(s15):
    """SAL, OR 8.1 (finding F3, mail #134): SAL offered Ann $200 for GA's 3 train; Ann's 'I accept' was
    refused "unknown move 'accept'; moves are: pass, done, ..." and the list under it was Bob's moves,
    not the line to write. An answer in the first person is the answer (4.2.5(d): "any agreed price")."""
    from tests.e18xx.test_pbem_mail import answer, send

    line, _ = send(s15, 2, "run auto\nwithhold\nbuy the 3 train from GA for $200")
    assert "accepted" in line, line
    line, inbound = send(s15, 1, "I accept")
    assert "accepted" in line, line
    assert "SALE AGREED: Ann accepted SAL's offer: GA's 3 train for $200." in answer(s15[0], inbound)[1]
    g = _stored(s15[0])
    assert [g.train_label(t) for t in g.state.corporations["SAL"].trains] == ["4", "3"]


def test_the_buyer_told_of_a_declined_offer_is_told_what_he_may_do(s15):
    """SAL, OR 8.1 (finding F4, mail #132): Cy declined SAL's offer for CoG's 3 train; Bob's mail said
    only "OFFER DECLINED: ...; Bob is still to act. Make another move (or another offer)." - not what
    SAL may do now (every other mail that asks for a move lists it)."""
    from tests.e18xx.test_pbem_mail import send
    from tests.e18xx.test_train_offers import _outbox

    send(s15, 2, "run auto\nwithhold\nbuy the 3 train from CoG for $150")
    line, _ = send(s15, 3, "decline 3")
    assert "accepted" in line, line
    [(to, subject, body)] = _outbox(s15[0], "offer-declined:")
    assert to == ["bob@example.org"] and subject.endswith("Offer declined: CoG's 3 train")
    assert "Bob for SAL may:" in body and "  buy train 3 from GA for 180" in body, body
    assert "  done" in body or "  pass" in body, body

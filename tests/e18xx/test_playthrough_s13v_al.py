"""Play-through by mail s13v of 18AL (issue 29 acceptance, session 13 second verification round; seed
142, Ann, Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail
that showed it (tests/e18xx/playthrough/al-s13v.jsonl holds the game, 459 actions, 74 company turns,
to the bank breaking in operating round 7.2)."""
from datetime import datetime, timedelta

import pytest

from .helpers import playthrough_game


def game(upto: int):
    """The s13v game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=142, suffix="-s13v", players=4)


def test_the_game_replays_to_the_bank_breaking():
    """The whole game, as the mails played it: six companies, 4D trains, the bank broken in OR 7.2
    (rule 5(a): the round in which the bank broke is completed, and no more)."""
    g = game(459)
    assert g.finished
    from pbm.e18xx.events import end_reason_words
    assert "bank" in end_reason_words(g)


@pytest.fixture
def al_world(cli, tmp_path, tmp_path_factory, monkeypatch):
    """A new 18AL game by mail, Ann, Bob and Cy, through Dovecot and aiosmtpd (test_mail_round2.py)."""
    from .test_mail_round2 import _world

    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18AL", "al-1")


def test_the_proxy_named_in_the_absent_seats_own_turn_is_told_it_is_that_turn(al_world):
    """Stock round 4 (finding F1, mails #75-#76): Bob, to act, mailed only 'AWAY: 2026-11-28
    2026-12-01 proxy 3'. Cy's notice said "You are told when it is their turn" - but the turn was
    Bob's already, his clock paused while away, and no other mail was to come: a proxy who waits as
    told stalls the game. The notice says the absent seat is to act now, and the line to write. A
    round trip through real mail servers."""
    from .test_mail_round2 import available

    if available() is not None:
        pytest.skip(available())
    w = al_world
    today = datetime.utcnow().date()
    before = len(w.mails("bob@example.org"))
    assert "accepted" in w.deliver(1, f"AWAY: {today} {today + timedelta(days=2)} proxy 2")  # Ann is to act
    told = w.bodies("bob@example.org")[before:]
    assert [s for s, _ in told] == ["[al-1] You are Ann's proxy"], told
    assert "It is Ann's turn now (Ann): you may move for them at once." in told[0][1]
    assert "FOR: 1\n" in told[0][1]
    assert "player 1 accepted" in w.deliver(2, "FOR: 1\npass")


def test_the_proxy_named_out_of_turn_is_told_later(al_world):
    """The same notice when the absent seat is not to act: "You are told when it is their turn"."""
    from .test_mail_round2 import available

    if available() is not None:
        pytest.skip(available())
    w = al_world
    today = datetime.utcnow().date()
    before = len(w.mails("ann@example.org"))
    assert "accepted" in w.deliver(3, f"AWAY: {today} {today + timedelta(days=2)} proxy 1")  # Ann is to act
    told = w.bodies("ann@example.org")[before:]
    assert [s for s, _ in told] == ["[al-1] You are Cy's proxy"], told
    assert "You are told when it is their turn." in told[0][1] and "turn now" not in told[0][1]


def test_a_route_written_with_place_names_is_shown_in_the_maps_spelling():
    """M&O, OR 5.1 (finding F2, mail #106): 'run 4 Mobile - York - Meridian' was taken, and every
    mail's list of moves then showed it as "run 4 MOBILE YORK MERIDIAN" - the parser's upper case,
    the stops run together. The stops are shown as the map spells them, joined by ' - '; a route of
    hexes stays as written."""
    import json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.moves import action_words

    from .helpers import PLAYTHROUGH

    g = game(229)
    line = (PLAYTHROUGH / "al-s13v.jsonl").read_text(encoding="utf-8").splitlines()[229]
    run = A.action_from_dict(json.loads(line))
    assert run.routes[0].nodes == ("MOBILE", "YORK", "MERIDIAN")
    assert action_words(g, run, 230)[1] == "run 4 Mobile - York - Meridian"
    by_hex = A.RunRoutes("M&O", (A.RouteSpec("4-2", ("Q2", "K2", "L1")),))
    assert action_words(g, by_hex, 230)[1] == "run 4 Q2 K2 L1"


def test_the_seller_reads_why_the_buyers_turn_ended_with_the_sale(tmp_path):
    """ABC, OR 5.1 (finding F3, mails #107-#108): ABC's mail ended with 'buy WRA's 4 train for
    $200'; Di's 'accept 4' was answered "SALE AGREED ..." and "IT IS YOUR TURN (Di for WRA)" with
    nothing on ABC's turn - which ended by itself, ABC at its train limit (4.2.5(g)) - where every
    other accepted offer said how the buyer's turn ended. It says so, and who is next."""
    from .db_games import offer_then_answer, stored_playthrough

    url = stored_playthrough(tmp_path, "al", 235, seed=142, suffix="-s13v", players=4, name="al-v")
    _, out = offer_then_answer(url, "al-v", 2, "buy WRA's 4 train for $200", 4, "accept 4")
    assert ("Bob's turn ended with the sale: nothing more was allowed in it; next to act: Di for WRA"
            in out.notes), out.notes

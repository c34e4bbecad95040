"""Play-through by mail s13w of 18VA (issue 29 acceptance, third verification round; seed 154, Ann,
Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/va-s13w.jsonl holds the game, 479 actions, 87 company turns, to stock round 10)."""
from datetime import datetime, timedelta

import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s13w game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=154, suffix="-s13w", players=4)


mail = intent_mail


def test_tredegar_by_its_name_after_an_offer_for_it(tmp_path):
    """B&O, OR 5.1 (finding F2, mail #61): 'buy private P2 60 / buy train 3 with Tredegar' - the
    offer to Cy, then the train with the private's $200 off (18VA 4.2 (2)). The moves after the
    offer wait for the answer; they were kept as 'buy train 3', the 'with Tredegar' dropped, so Cy's
    'accept P2' was answered "B&O has $100, the train costs $200; P2 takes $200 off it: write 'buy
    train 3 with P2'" and B&O's turn took a second mail. The private's name is kept."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply, load
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "va", 105, seed=154, suffix="-s13w", players=4, name="va-w")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "va-w"))
        out = apply(s, row, 1, "lay 15 F7 0\nrun 2 H3 H1\nrun 2 G4 F5\npay out\nbuy private P2 60\n"
                               "buy train 3 with Tredegar")
        assert out.accepted and out.offer is not None, out.error
        assert "with P2" in "\n".join(out.notes) or "with P2" in str(out.offer.get("rest"))
        out, _ = answer_offer(s, row, 3, "accept P2")
        notes = "\n".join(out.notes)
        assert out.accepted, out.error
        assert "NOT made" not in notes, notes
        g = load(s, row)
        assert sorted(g.state.trains[t].name for t in g.corp_trains("B&O")) == ["2", "2", "3"]


def test_potomac_yards_by_its_name_and_a_hex():
    """C&O, OR 5.2 (finding F3, mails #72-#73): 'use Potomac Yards A6' - the private by the
    rulebook's name and the CMD for its extra station (18VA 4.2 (3)) - was refused "name the private
    (and the hex of its station or marker)"; 'use P3 A6' was taken. The name of several words is
    read as the private."""
    assert [(m.entity, m.city) for m in parse_moves("use Potomac Yards A6", "Cy")] == [("POTOMAC YARDS", "A6")]
    g = game(150)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay 58 B5 4\nuse Potomac Yards A6\nrun 2 D9 E8\nrun 2G D9 C8 B7 A6\npay out")
    assert any("A6" in m for m in made), made
    assert "P3" not in g.state.companies or g.state.companies["P3"].closed


@pytest.fixture
def mail_world(cli, tmp_path, tmp_path_factory, monkeypatch):
    """A new game by mail, Ann, Bob and Cy, through Dovecot and aiosmtpd (test_mail_round2.py)."""
    from .test_mail_round2 import _world

    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18AL", "al-w")


def test_the_proxy_is_told_whose_turn_it_is_after_the_mails_moves(mail_world):
    """Stock round 3 (finding F1, mail #35): Di mailed 'AWAY: 2026-11-28 2026-12-02 proxy 2 / pass'
    in her own stock turn. Her pass ended the turn (Cy to act), but Bob's notice said "It is Di's
    turn now (Di): you may move for them at once" - written before the pass was made. The notice
    is written after the mail's moves. A round trip through real mail servers."""
    from .test_mail_round2 import available

    if available() is not None:
        pytest.skip(available())
    w = mail_world
    today = datetime.utcnow().date()
    before = len(w.mails("bob@example.org"))
    assert "accepted" in w.deliver(1, f"AWAY: {today} {today + timedelta(days=2)} proxy 2\npass")  # Ann's turn
    told = [b for s, b in w.bodies("bob@example.org")[before:] if "proxy" in s]
    assert len(told) == 1, told
    assert "It is Ann's turn now" not in told[0]
    assert "You are told when it is their turn." in told[0]


def test_the_move_list_offers_potomac_yards_station():
    """C&O, OR 5.2 (finding F4, mails #72-#73): C&O owned P3 Potomac Yards, whose power is an extra
    station in any hex with a city circle, CMDs included (18VA 4.2 (3)); the mail's "You may" list
    had the lays, 'convert' and 'pass', but no line for the station, so the player had to guess the
    form ('use P3 A6'). The token step lists 'token A6 with P3', but the list of the turn's start,
    which the whole-turn mail is written from, does not. A line for P3's station is listed."""
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game(150)
    assert g.current_entity() == "C&O"
    assert any("P3" in line for line in legal_lines(g, 400))

"""Play-through by mail s13 of 18VA (issue 29 acceptance, session 13 verification round; seed 134,
Ann, Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/va-s13.jsonl holds the game, 643 actions, to the bank's end)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s13 game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=134, suffix="-s13", players=4)


mail, refusal = intent_mail, intent_refusal


def test_a_train_bought_with_tredegar_named_by_its_name():
    """C&O, OR 3.1 (finding F1, mail #36): 'buy train 3 with Tredegar' - the private as the rulebook
    (4.2) and every mail name it, "P2 Tredegar Iron Works" - was refused "Cy may not act for
    TREDEGAR (controlled by TREDEGAR)". A private is named by its symbol, its name or the first
    words of its name."""
    for words in ("Tredegar", "Tredegar Iron Works", "the Tredegar Iron Works"):
        g = game(69)
        assert g.current_entity() == "C&O"
        made, _ = mail(g, f"convert\nlay 5 C8 4\nbuy private P2 90\nrun auto\nwithhold\nbuy a 3 train using {words}")
        assert "buy train 3 with P2" in made, (words, made)
    assert [m.entity for m in parse_moves("buy train 3 with Tredegar Iron Works for 0", "Cy")] == \
        ["TREDEGAR IRON WORKS"]  # the words kept whole; the game reads the name (moves.private_by_name)


def test_a_private_named_by_no_name_is_said_plainly(tmp_path):
    """The same mail with a private that is none of the game's (F1): the reason names the privates,
    not "may not act for X (controlled by X)"."""
    from pbm.e18xx.pbem.games import _authorize
    import pytest

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = game(69)
    with pytest.raises(GameError) as err:
        _authorize(g, "Cy", A.BuyTrain("SMOKESTACK", "3"))
    assert "no company or private here is called 'SMOKESTACK'" in str(err.value)
    assert "P2 Tredegar Iron Works" in str(err.value) and "controlled by" not in str(err.value)


def test_the_railway_express_marker_on_a_hex_and_its_name():
    """SR, OR 5.1 (finding F2, mail #50): 'use P1 on F11 Richmond' - the hex and the city's name, as
    every mail prints a city - was refused "name the private (and the hex of its station or
    marker)"; 'use P1 F11' was taken. The hex with its name is the hex; a name that is not the
    hex's is refused, saying what the hex is (as 'token I11 Brunswick', s12v)."""
    for line in ("use P1 on F11 Richmond", "use P1 F11 Richmond", "use P1 on Richmond"):
        g = game(114)
        assert g.current_entity() == "SR"
        made, _ = mail(g, f"buy private P1 30\nlay 8 E12 5\n{line}\nrun auto\npayout")
        assert "assign P1 F11" in made, (line, made)
    why = refusal(game(114), "buy private P1 30\nlay 8 E12 5\nuse P1 on F11 Petersburg\nrun auto\npayout")
    assert "F11 is Richmond, not Petersburg" in why


def test_an_offer_ending_the_mail_ends_the_turn_with_the_sale(tmp_path):
    """B&O, OR 6.1 (finding F3, mails #84-#86): B&O's mail 'lay 9 G2 2 / buy train 3 from SR for
    $200' ended with the offer; Di accepted, and B&O's turn stayed open: it took a third mail,
    'done', though every mail says "the mail ends the turn (as if 'done'), unless its last line is
    'more'". The offer as a mail's last move ends the turn once the sale is agreed; the buyer's
    receipt says so; 'offer / more' still keeps it open."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.e18xx.pbem.mailplay import _offer_note
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "va", 214, seed=134, suffix="-s13", players=4, name="va-13")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "va-13"))
        out = apply(s, row, 1, "lay 9 G2 2\nbuy train 3 from SR for $200")
        assert out.accepted and out.offer is not None, out.error
        assert out.offer.get("implied_done") and "the sale ends the turn" in _offer_note(out.offer, row)
        out, _ = answer_offer(s, row, 4, "accept 3")
        assert out.accepted, out.error
        g = out.game
        assert g.current_entity() == "WMR", g.current_entity()  # B&O's turn is over: WMR (Di) acts
        assert any("the turn ends with the sale" in n for n in out.notes), out.notes


def test_an_offer_then_more_keeps_the_turn_open(tmp_path):
    """The same offer with 'more' after it (F3): the turn stays open after the sale, as 'more' says."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "va", 214, seed=134, suffix="-s13", players=4, name="va-13m")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "va-13m"))
        out = apply(s, row, 1, "lay 9 G2 2\nbuy train 3 from SR for $200\nmore")
        assert out.accepted and out.offer is not None and not out.offer.get("implied_done"), out.error
        out, _ = answer_offer(s, row, 4, "accept 3")
        assert out.accepted and out.game.current_entity() == "B&O"

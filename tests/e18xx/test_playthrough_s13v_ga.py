"""Play-through by mail s13v of 18GA (issue 29 acceptance, second verification round; seed 141,
Ann, Bob, Cy, Di, Eve, every seat written from the rulebook alone): the findings, each with the
mail that showed it (tests/e18xx/playthrough/ga-s13v.jsonl holds the game, 498 actions, to the
bank breaking)."""
from sqlalchemy import select

from .helpers import playthrough_game


def game(upto: int):
    """The s13v game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=141, suffix="-s13v", players=5)


def test_the_game_replays_to_its_end():
    g = game(498)
    assert g.finished


def test_a_turn_ended_by_its_mail_ends_after_another_companys_discard(tmp_path):
    """ACL, OR 7.1 (finding F1, mails #113-#115): ACL's mail 'lay 8 J10 2 / buy train 5' bought
    the first 5 (4.2.5(g): the limit falls to 2) and W&A, with three trains, had to discard one.
    The mail ended ACL's turn (as if 'done'), but after W&A's 'discard 3' the reply said "The turn
    is not over: ACL (Eve) must first "Buy trains"", and ACL's president had to mail 'done' for a
    turn his mail had already ended. The turn now ends once the discard is made; the ACL mail's
    reply says so."""
    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "ga", 222, seed=141, suffix="-s13v", players=5, name="ga-v")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-v"))
        out = apply(s, row, 5, "lay 8 J10 2\nbuy train 5")
        assert out.accepted, out.error
        notes = "\n".join(out.notes)
        assert "W&A (Ann) must first" in notes and "ACL's turn ends after that" in notes, notes
        out = apply(s, row, 1, "discard 3")
        assert out.accepted, out.error
        assert out.game.current_entity() == "SAL"
        notes = "\n".join(out.notes)
        assert "ACL's turn is over" in notes and "must first" not in notes, notes


def test_a_mail_written_after_the_discard_keeps_the_turn_going(tmp_path):
    """The same turn, when ACL's mail ended with 'more': the turn stays open after the discard
    (the end of that mail did not end it)."""
    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "ga", 222, seed=141, suffix="-s13v", players=5, name="ga-v")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-v"))
        out = apply(s, row, 5, "lay 8 J10 2\nbuy train 5\nmore")
        assert out.accepted, out.error
        out = apply(s, row, 1, "discard 3")
        assert out.accepted, out.error
        assert out.game.current_entity() == "ACL"


def test_a_discard_inside_another_companys_turn_is_not_told_to_write_a_whole_turn():
    """W&A, OR 7.1 (finding F2, mail #114): the mail asking W&A to discard (4.2.5(g), inside ACL's
    turn) ended "Write W&A's whole turn in this one mail ... e.g.: lay <tile> <hex> <rotation> /
    token <city> / run auto ...", a turn W&A did not have. It says the one move to write."""
    from pbm.e18xx.pbem.mailplay import whole_turn_lines

    g = game(224)
    assert g.current_entity() == "W&A"
    text = "\n".join(whole_turn_lines(g))
    assert "W&A acts inside ACL's turn" in text and "'discard 3'" in text, text
    assert "lay <tile>" not in text


def test_the_seller_accepting_is_not_shown_a_done_nobody_wrote(tmp_path):
    """CoG, OR 3.1 (finding F3, mails #52-#53): CoG's mail ended with its offer for OSR; Eve's
    'accept OSR' was answered "... the mail ended with the offer (as if 'done') / move 1 (done):
    CoG's turn is over" - a move 1 that neither Eve nor Di wrote. The first line says it."""
    from .db_games import offer_then_answer, stored_playthrough

    url = stored_playthrough(tmp_path, "ga", 75, seed=141, suffix="-s13v", players=5, name="ga-v")
    _, out = offer_then_answer(url, "ga-v", 4, "lay 452a D4 0\nrun auto\npayout\nbuy train 3\nbuy private OSR 120",
                               5, "accept OSR")
    notes = "\n".join(out.notes)
    assert "turn ended with the sale" in notes and "move 1 (done)" not in notes, notes

"""Play-through by mail s12v of 18GA (issue 29 acceptance, verification round; seed 111, Ann, Bob,
Cy, every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s12v.jsonl holds the game, 415 actions, to the bank breaking)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s12v game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=111, suffix="-s12v", players=3)


mail, refusal = intent_mail, intent_refusal


def test_a_station_written_as_the_hex_and_its_citys_name():
    """ACL, OR 1.1 (finding F1, mail #29): 'token I11 Brunswick' - the hex and the city's name, as
    every mail prints a city ("I11 Brunswick") - was refused "unknown city 'I11 Brunswick'". The
    name is read as the hex's; a name that is not the hex's is refused, saying what the hex is."""
    g = game(32)
    assert g.current_entity() == "ACL"
    made, _ = mail(g, "lay 6 I11 5\ntoken I11 Brunswick\nbuy a 2 train\ndone")
    assert made[:3] == ["lay 6 I11 5", "token I11 Brunswick", "buy train 2"]
    assert g.state.map.tokens[("I11", 0)][0] == "ACL"
    why = refusal(game(32), "lay 6 I11 5\ntoken I11 Macon\nbuy a 2 train\ndone")
    assert "I11 is Brunswick, not Macon" in why


def test_another_train_of_the_same_type():
    """GA, OR 5.1 (finding F2, mail #73): 'buy a 4 train / buy another 4 train' was refused
    "'buy another 4 train': say 'ipo' or 'market' ..." - 'another' read as a corporation, the
    reason about shares. A second train of a type is 'another' or 'a second' one (4.2.5(f): after
    the first 4 a company may buy several from the bank)."""
    g = game(155)
    assert g.current_entity() == "GA"
    made, _ = mail(g, "lay 5 D10 1\nbuy a 4 train\nbuy another 4 train\ndone")
    assert made.count("buy train 4") == 2
    assert [m.train for m in parse_moves("buy a second 4 train", "Cy")] == ["4"]


def test_a_train_discarded_in_the_words_a_train_is_bought_in():
    """ACL, OR 6.1 (finding F3, mail #92): 'buy a 5 train' was taken but 'discard a 3 train' was
    refused "name one train" (4.2.5(g): the president discards the excess train into the Open
    Market). The discard reads the same words as the purchase."""
    g = game(218)
    assert g.current_entity() == "ACL"
    made, _ = mail(g, "lay 142 G11 1\nrun auto\nwithhold\nbuy a 5 train\ndiscard a 3 train\ndone")
    assert made[-1] == "discard 3"
    assert sorted(g.state.trains[t].name for t in g.corp_trains("ACL")) == ["3", "5"]
    for line in ("discard the 3 train", "discard one 3 train to the Open Market", "discard 3 train"):
        assert [m.train for m in parse_moves(line, "Cy")] == ["3"], line


def test_the_seller_accepting_reads_the_next_turn_as_the_buyers(tmp_path):
    """ACL, OR 4.2 (finding F4, mail #61): ACL (Cy) offered Bob $70 for W&SR with the rest of its
    turn after it; Bob's 'accept W&SR' was answered "Next: Cy's turn in the stock round (...): you
    may buy a share ..." - "you" is Cy, not Bob, who reads it. It says "Cy may"."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "ga", 120, seed=111, suffix="-s12v", name="ga-v")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-v"))
        out = apply(s, row, 3, "buy private W&SR from Bob for $70\nlay 14 I9 1\ntoken I9\nrun auto\npayout\n"
                               "buy a 3 train\ndone")
        assert out.accepted and out.offer is not None, out.error
        out, _ = answer_offer(s, row, 2, "accept W&SR")
        notes = "\n".join(out.notes)
        assert out.accepted
        assert "Next: Cy's turn in the stock round" in notes
        assert "you may" not in notes and "Cy may buy a share" in notes


def test_a_tile_of_two_tracks_says_which_sides_each_joins():
    """GA, OR 6.1 (finding F5, mail #88): CoG's list said "lay 23 D6 1 # to D4 Atlanta (left), D8
    (right), E7 Milledgeville (lower right)" and later "D6 23 (1 to D4+D8+E7)", as if D8 and E7
    met; tile 23 is two tracks from the left side (a straight to D8, a curve to E7), and GA's
    'token Macon' through D8 - D6 - E7 was refused. A tile of track only, in several pieces,
    names each piece."""
    from pbm.e18xx.lays import joins
    from pbm.e18xx.pbem.movelist import _group_line

    g = game(167)
    text = joins(g, "D6", "23", 1)
    assert text.endswith("; its tracks: D4-D8, D4-E7"), text
    assert joins(g, "D6", "9", 2).count("its tracks") == 0  # one track: as before
    line = _group_line("lay_tile", [f"lay 23 D6 1   # {text}", f"lay 9 E5 2   # {joins(g, 'E5', '9', 2)}"])
    assert "D6 23 (1 to D4+D8/D4+E7)" in line and "E5 9 (2 to D4+F6)" in line

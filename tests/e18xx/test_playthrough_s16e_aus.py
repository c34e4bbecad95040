"""Play-through by mail s16e of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 263, Ann, Bob, Cy, Di and Eve): 81 actions to SAR's first turn in OR 3.1, 8 company
turns. These tests pin each finding with the mail that showed it (tests/e18xx/playthrough/aus-s16e.jsonl
holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16e game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=263, suffix="-s16e", players=5)


mail = intent_mail


def test_the_game_replays():
    """The game to SAR's first turn (81 actions; CAR, NSW, QR and SAR launched)."""
    assert game(6).current_entity() == "Bob"
    assert game(81).current_entity() == "SAR"


def test_start_a_company_at_an_initial_share_price():
    """Stock round 1 (mail 7): 'Start QR at an initial share price of 70' was refused "need a
    corporation and a price" (class b): the rulebook's words (5.2.1 "The purchaser of the Director's
    Share sets the initial share price") are the par price."""
    g = game(6)
    assert mail(g, "Start QR at an initial share price of 70")[0] == ["par QR 70"]
    assert parse_moves("start QR at a share price of 70", "Bob") == parse_moves("par QR 70", "Bob")


def test_a_lay_that_says_what_the_terrain_costs():
    """NSW, OR 3.1 (mail 56): 'Lay tile 235 on F15 (Orange & Bathurst) rotation 4, paying £50 for the
    mountain' was refused "'paying £50 for the mountain', which is no part of a lay" (class b): the
    terrain cost (7.4) is the map's, charged with the lay; the player's clause is his note, as
    'toward Sydney' after the rotation is."""
    made, _ = mail(game(76), "Lay tile 235 on F15 (Orange & Bathurst) rotation 4, paying £50 for the mountain\n"
                             "Run one 2 train Sydney - Newcastle and the other 2 train Sydney - Orange & Bathurst\nPay out")
    assert made[0] == "lay 235 F15 4", made
    assert parse_moves("lay 235 F15 4 costing £50", "Cy") == parse_moves("lay 235 F15 4", "Cy")

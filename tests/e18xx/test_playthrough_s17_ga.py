"""Play-through by mail s17 of 18GA (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 282, four seats Ann, Bob, Cy, Di; tests/e18xx/playthrough/ga-s17.jsonl holds the
game, 94 actions, 10 company turns, to GA's turn in OR 3.2). These tests pin each finding with the
mail that showed it, and keep the company turns' mails read as they were."""
import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s17 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=282, suffix="-s17", players=4)


def test_the_game_replays():
    """The game to GA's turn in OR 3.2 (94 actions; phase 3 began with ACL's 3 train; W&A floated in
    stock round 3)."""
    assert game(28).current_entity() == "CoG"
    assert game(67).current_entity() == "W&A"
    assert game(94).current_entity() == "GA"


def test_a_tile_named_by_its_number():
    """OR 1.1, GA (mail 30): 'Lay a number 5 tile on Augusta, rotation 1, toward Greeneville' was
    refused "'lay number 5 Augusta 1': need tile, hex and rotation" (class b): "a number 5 tile" is
    tile 5, as "tile number 5" was read beside a hex."""
    assert parse_moves("Lay a number 5 tile on Augusta, rotation 1, toward Greeneville", "Di") \
        == parse_moves("lay 5 Augusta 1", "Di")
    assert parse_moves("lay tile number 5 on Augusta rotation 1", "Di") == parse_moves("lay 5 Augusta 1", "Di")
    assert parse_moves("lay tile no. 5 on D10, rotation 1", "Di") == parse_moves("lay 5 D10 1", "Di")
    g = game(30)
    assert g.current_entity() == "GA"
    made, _ = intent_mail(g, "Lay a number 5 tile on Augusta, rotation 1, toward Greeneville\nBuy one 2 train")
    assert [m for m in made if not m.startswith("pass")] == ["lay 5 D10 1", "buy train 2"]


def test_a_lay_to_reach_a_place():
    """OR 2.1, GA (mail 38): 'Lay tile 8 on C9 with rotation 3 to reach Greeneville' was refused
    "then 'reach Greeneville', which is no part of a lay" (class b): after the rotation, where the
    track reaches is the player's comment, as 'toward Greeneville' is; without a rotation it names
    what the track joins, as 'connecting' does."""
    assert parse_moves("Lay tile 8 on C9 with rotation 3 to reach Greeneville", "Di") \
        == parse_moves("lay 8 C9 3", "Di")
    assert parse_moves("lay tile 8 on C9 rotation 3 so it reaches Greeneville", "Di") \
        == parse_moves("lay 8 C9 3", "Di")
    assert parse_moves("lay tile 8 on C9, rotation 3, reaching Greeneville", "Di") \
        == parse_moves("lay 8 C9 3", "Di")
    g = game(44)
    assert g.current_entity() == "GA"
    made, _ = intent_mail(g, "Lay tile 8 on C9 with rotation 3 to reach Greeneville\n"
                             "Run the 2 train from Augusta to Greeneville\nPay out dividends\nBuy a second 2 train")
    assert [m for m in made if not m.startswith("pass")] == \
        ["lay 8 C9 3", "run 2 AUGUSTA GREENEVILLE", "payout", "buy train 2"]
    made, _ = intent_mail(game(44), "lay tile 8 on C9 to reach Greeneville")
    assert made[0] == "lay 8 C9 3"


@pytest.mark.parametrize("upto, text, moves", [
    (28, "Lay tile 57 in Macon (F6) with rotation 1, toward Milledgeville\nBuy a 2 train from the Initial Offering",
     ["lay 57 F6 1", "buy train 2"]),
    (30, "Lay tile 5 on Augusta (D10), rotation 1, toward Greeneville\nBuy one 2 train", ["lay 5 D10 1", "buy train 2"]),
    (33, "Lay tile 5 in Brunswick (I11) with rotation 5, connecting it to Jacksonville\nBuy a 2 train",
     ["lay 5 I11 5", "buy train 2"]),
    (41, "Lay tile 7 on F8, rotation 1, toward Milledgeville\nBuy another 2 train", ["lay 7 F8 1", "buy train 2"]),
    (44, "Lay tile 8 on C9 with rotation 3, toward Greeneville\nRun the 2 train from Augusta to Greeneville\n"
         "Pay out dividends\nBuy a second 2 train",
     ["lay 8 C9 3", "run 2 AUGUSTA GREENEVILLE", "payout", "buy train 2"]),
    (49, "No tile this turn\nRun the 2 train Jacksonville - Brunswick\nPay out\nBuy a 3 train\n"
         "Buy the Ocilla Southern from Ann for $150",
     ["run 2 JACKSONVILLE BRUNSWICK", "payout", "buy train 3", "buy private OSR 150"]),
    (67, "Lay the Atlanta tile 451a on D4 with rotation 0\nPlace the home station in D4-1, the city toward Rome\n"
         "Buy a 3 train\nBuy the Midland Railroad Co. from Bob for $60",
     ["lay 451a D4 0", "token D4-1", "buy train 3", "buy private MRC 60"]),
    (74, "Upgrade Augusta (D10) to tile 453a, rotation 0\nRun a 2 train from Augusta to Greeneville\nPay out\n"
         "Buy a 3 train\nBuy the Waycross & Southern from Di for $105",
     ["lay 453a D10 0", "run 2 AUGUSTA GREENEVILLE", "payout", "buy train 3", "buy private W&SR 105"]),
    (81, "Upgrade Brunswick to tile 14 with rotation 2\nRun the 3 train from Jacksonville to Brunswick\n"
         "Withhold the revenue", ["lay 14 I11 2", "run 3 JACKSONVILLE BRUNSWICK", "withhold"]),
    (87, "Lay tile 3 on Milledgeville (E7) with rotation 4\nRun a 2 train Macon - Milledgeville\nPay out\n"
         "Buy a 3 train\nBuy the Macon & Birmingham from Cy for $225",
     ["lay 3 E7 4", "run 2 MACON MILLEDGEVILLE", "payout", "buy train 3", "buy private M&BR 225"]),
])
def test_a_company_turn_in_one_mail(upto, text, moves):
    """Each company turn of the game, as its president wrote it (4.2: lay, station, run, dividend,
    trains, privates), makes the turn's moves in the rulebook's order; the passes pbm adds to skip
    or close a step are not the player's."""
    made, _ = intent_mail(game(upto), text)
    assert [m for m in made if not m.startswith("pass")] == moves, made


def test_rotate_as_the_rotation_word():
    """Noted while fixing mail 30: moves.py defined the lay's filler words twice, and the first list
    (with 'rotate') was shadowed by the second, so 'lay 57 E5 rotate 2' was refused "need tile, hex
    and rotation"; one list now holds them all."""
    assert parse_moves("lay 57 E5 rotate 2", "Di") == parse_moves("lay 57 E5 2", "Di")

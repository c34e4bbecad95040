"""Play-through by mail s15 of 18VA (issue 29; seed 194, five seats Ann, Bob, Cy, Di, Eve, every
seat written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s15.jsonl holds the game, 318 actions, 55 company turns, to phase 5)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s15 game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=194, suffix="-s15", players=5)


mail = intent_mail


def test_a_number_sign_before_a_tile_number():
    """C&O, OR 1.1 (mail 20): 'lay #6 tile at D9, rotation 2' was refused: '#' started a comment.
    A '#' right before a digit is a number sign ("tile #6"); '# ' (with a space) is still a comment."""
    assert parse_moves("lay #6 tile at D9, rotation 2", "Di") == parse_moves("lay 6 D9 2", "Di")
    assert parse_moves("lay 6 D9 2   # city; to C8", "Di") == parse_moves("lay 6 D9 2", "Di")
    g = game(23)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay #6 tile at D9, rotation 2\nbuy a 2 train")
    assert made[0] == "lay 6 D9 2" and "buy train 2" in made, made


def test_place_a_tile():
    """RFPR, OR 1.1 (mail 23): 'Place tile 57 on F7 rotation 0' was refused "unknown move 'Place'";
    4.5.2: "Each Corporation may place one yellow tile or upgrade one tile"."""
    assert parse_moves("Place tile 57 on F7 rotation 0", "Ann") == parse_moves("lay 57 F7 0", "Ann")
    g = game(29)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "Place tile 57 on F7 rotation 0\nBuy 2 train")
    assert made[0] == "lay 57 F7 0", made


def test_the_other_train_of_a_type():
    """N&W, OR 3.1 (mail 33): 'run the other 2 train Petersburg-Norfolk' (after 'run a 2 train
    Petersburg-Richmond') was refused "train other: '2' is not a stop"."""
    assert parse_moves("run the other 2 train Petersburg-Norfolk", "Bob") == \
        parse_moves("run a 2 train Petersburg-Norfolk", "Bob")
    g = game(63)
    assert g.current_entity() == "N&W"
    made, _ = mail(g, "run a 2 train Petersburg-Richmond\nrun the other 2 train Petersburg-Norfolk\n"
                      "pay dividends")
    assert "payout" in made and any(m.startswith("run 2") for m in made), made


def test_a_freight_train_declared_in_full():
    """C&O, OR 4.1 (mail 50): 'buy a 3 train as a 2G freight train' (4.5.8: "declare whether it is
    a Passenger Train or a Freight Train") was refused "price must be a whole number, not 'freight'"."""
    assert parse_moves("buy a 3 train as a 2G freight train", "Di") == parse_moves("buy train 3 as 2G", "Di")
    assert parse_moves("buy a 3 train as a freight train", "Di") == parse_moves("buy train 3 as freight", "Di")
    g = game(110)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay 58 B9 4\nrun 2 D9 C8\nwithhold\nbuy a 3 train as a 2G freight train")
    assert "buy train 3 as 2G" in made, made


def test_a_route_to_a_city_whose_track_does_not_meet_names_it():
    """B&O, OR 5.1 (mails 61, 62): 'run 3 ... Baltimore - Washington' and 'run 3 Philadelphia
    Baltimore Annapolis' were refused "not connected between H3 and G4 (H5): no track joins them";
    the player saw B&O's tile point at both. The refusal names what is missing: Annapolis's printed
    track and Washington's tile have no track on their side toward Baltimore."""
    g = game(132)
    assert g.current_entity() == "B&O"
    why = intent_refusal(g, "lay 15 H3 0\nrun 3 Philadelphia Baltimore Annapolis\npay out")
    assert "H5 Annapolis has no track on its side toward H3" in why, why
    why = intent_refusal(game(132), "lay 15 H3 0\nrun 3 Philadelphia - Baltimore - Washington\npay out")
    assert "G4 Washington" in why and "no track on its side toward H3" in why, why


def test_a_city_by_its_name_and_hex():
    """RFPR, OR 5.1 (mail 64): 'upgrade Washington G4 to tile 14 rotation 1' was refused "need tile,
    hex and rotation"; the mails name a city 'G4 Washington'."""
    assert parse_moves("upgrade Washington G4 to tile 14 rotation 1", "Ann") == parse_moves("lay 14 G4 1", "Ann")
    assert parse_moves("upgrade G4 Washington to tile 14 rotation 1", "Ann") == parse_moves("lay 14 G4 1", "Ann")
    g = game(137)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "upgrade Washington G4 to tile 14 rotation 1\nuse Potomac Yards to place an extra station "
                      "token in Philadelphia\nrun 2 Baltimore Philadelphia\npay out")
    assert "lay 14 G4 1" in made, made


def test_a_sale_to_raise_the_money():
    """WMR, OR 5.1 (mail 66): 'sell 1 SR share to raise the money' (4.6.2: "he must sell sufficient
    stock to raise the difference") was refused "need [count] and a corporation"."""
    assert parse_moves("sell 1 SR share to raise the money", "Cy") == parse_moves("sell 1 SR", "Cy")
    g = game(144)
    assert g.current_entity() == "WMR"
    made, _ = mail(g, "lay 57 C4 1\nsell 1 SR share to raise the money\nbuy a 3 train as 2G")
    assert "sell 1 SR" in made and "buy train 3 as 2G" in made, made


def test_place_the_railway_express_token():
    """C&O, OR 5.2 (mail 75): 'place the Railway Express +10 token on Charlottesville' (4.2 note (1):
    "Two '+10' tokens are provided ... one for the City") was refused "unknown move 'place'"."""
    assert parse_moves("place the Railway Express +10 token on Charlottesville", "Di") == \
        parse_moves("assign P1 Charlottesville", "Di")
    g = game(185)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "buy the Railway Express Agency from Di for $60\n"
                      "place the Railway Express +10 token on Charlottesville\nrun 2G A12 B11 B9 C8 D9\npay out")
    assert "assign P1 D9" in made, made


def test_a_share_bought_at_its_price():
    """Stock round 6 (mail 80): 'buy a WMR share for $60', the price the list shows, was refused
    "say 'ipo' or 'market'". A price that is not the share's is refused naming the price."""
    g = game(199)
    assert g.controller(g.current_entity()) == "Bob"
    made, _ = mail(g, "buy a WMR share for $60")
    assert made == ["buy WMR ipo"], made
    g = game(199)
    why = intent_refusal(g, "buy a WMR share for $50")
    assert "$60" in why, why


def test_a_replaced_route_is_told_in_the_events_amounts():
    """VR, OR 6.1 (mail 104): 'run 2G Roanoke B13 Lynchburg' was replaced by the best routes
    (4.5.5) and the reply said the written route "earns $110" and the best "$150", while the run
    earned $110 in all (and $40 for the treasury from its station in the coal district, 4.5.4.3).
    The reply counts as the events do: $70 written, $110 the best."""
    g = game(236)
    assert g.current_entity() == "VR"
    made, notes = mail(g, "lay 8 D11 1\ntoken Roanoke\nrun 2G Roanoke B13 Lynchburg\nwithhold")
    assert "run auto" in made, made
    assert "earns $70" in notes and "for $110" in notes, notes

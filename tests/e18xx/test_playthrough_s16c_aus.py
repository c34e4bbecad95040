"""Play-through by mail s16c of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 243, Ann, Bob and Cy): 45 mails, 66 actions to the end of OR 2.1, 6 company
turns. These tests pin each finding with the mail that showed it (tests/e18xx/playthrough/aus-s16c.jsonl
holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16c game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=243, suffix="-s16c", players=3)


mail = intent_mail


def test_the_game_replays():
    """The game to the end of OR 2.1 (66 actions; the 3/3+ Phase began with CAR's 3 train)."""
    assert game(25).current_entity() == "CAR"
    assert game(66).current_entity() == "Bob"


def test_a_share_bought_which_floats_the_company():
    """Stock round 1 (mails 19, 21): 'Buy a CAR share, which floats it' and 'Buy one more QR share so
    that it floats' (5.2.2: "A company is launched ... once 60% of its shares have been bought") were
    refused "read 'which floats it' as where the share comes from" (class b): why the share is bought
    is the player's note, as 'to float it' was."""
    g = game(18)
    assert g.current_entity() == "Ann"
    assert mail(g, "Buy a CAR share, which floats it")[0] == ["buy CAR ipo"]
    g = game(19)
    assert g.current_entity() == "Bob"
    assert mail(g, "Buy one more QR share so that it floats")[0] == ["buy QR ipo"]
    assert parse_moves("buy a QR share so it will float", "Bob") == parse_moves("buy QR", "Bob")


def test_a_lay_in_a_place_of_two_words_with_what_it_joins():
    """CAR, OR 1.1 (mail 28): 'Lay tile 6 on Port Augusta (E4) so it connects Whyalla and Port Pirie'
    was refused "rotation must be a whole number, not 'Augusta'" (class b): the bracketed hex is a
    note, and a place of two words without a rotation was read as a place and a rotation."""
    g = game(25)
    assert g.current_entity() == "CAR"
    made, _ = mail(g, "Lay tile 6 on Port Augusta (E4) so it connects Whyalla and Port Pirie\n"
                      "Buy two 2 trains from the bank")
    assert made[:3] == ["lay 6 E4 5", "buy train 2", "buy train 2"], made


def test_a_lay_toward_places_and_two_trains_of_two_types_in_one_line():
    """NSW, OR 1.1 (mail 30): 'Lay tile 57 in Sydney toward Wollongong and Newcastle' ("need tile, hex
    and rotation") and 'Buy one 2 train and one 2+ train' ("price must be a whole number, not 'and'")
    were refused (class b). 'toward' after a lay with no rotation says where its track leads, as
    'connecting' does; two trains joined by 'and' are two purchases (8.2.1, 8.3.2)."""
    g = game(29)
    assert g.current_entity() == "NSW"
    made, _ = mail(g, "Lay tile 57 in Sydney toward Wollongong and Newcastle\nBuy one 2 train and one 2+ train")
    assert made[:3] == ["lay 57 F17 0", "buy train 2", "buy train 2 as 2+"], made
    # after a rotation 'toward' is still the player's comment (18GA s14b F8)
    assert parse_moves("lay tile 8 in B2 rotation 3 toward Chattanooga", "Cy") == parse_moves("lay 8 B2 3", "Cy")


def test_the_last_two_trains():
    """QR, OR 1.1 (mail 32): 'Buy the last two 2 trains' was refused "a train is bought with 'buy train
    <type>'" (class b); 'Buy the last 2 train' (s16) and 'buy two 2 trains' were read."""
    g = game(33)
    assert g.current_entity() == "QR"
    made, _ = mail(g, "Lay tile 6 on B19 with rotation 5\nBuy the last two 2 trains")
    assert made[:3] == ["lay 6 B19 5", "buy train 2", "buy train 2"], made


def test_a_lay_in_a_named_city_with_its_hex_in_brackets_toward_a_place():
    """NSW and QR, OR 2.1 (mails 41, 43): 'Lay tile 57 in Newcastle (E18) toward Sydney' and 'Lay tile
    235 in Toowoomba & Ipswich (B17) toward Brisbane' were refused "need tile, hex and rotation"
    (class b)."""
    g = game(50)
    assert g.current_entity() == "NSW"
    made, _ = mail(g, "Lay tile 57 in Newcastle (E18) toward Sydney\n"
                      "Lay tile 6 in Wollongong (G16) connecting Canberra and Sydney")
    assert made[:2] == ["lay 57 E18 0", "lay 6 G16 1"], made
    g = game(58)
    assert g.current_entity() == "QR"
    made, _ = mail(g, "Lay tile 235 in Toowoomba & Ipswich (B17) toward Brisbane\nLay tile 5 on C20 rotation 1")
    assert made[:2] == ["lay 235 B17 4", "lay 5 C20 1"], made


def test_a_private_bought_from_me():
    """QR, OR 2.1 (mail 44): 'QR buys P1 Melbourne & Hobson's Bay Railway from me for £40' (4.1: from
    its director) was refused "P1 is Bob's, not me's" (class b): 'me' is the writer, QR's director."""
    g = game(58)
    made, _ = mail(g, "Lay tile 235 on B17 toward Brisbane\nLay tile 5 on C20 rotation 1\n"
                      "Run one 2 train Brisbane - Toowoomba and the other Brisbane - Southport\nPay out\n"
                      "QR buys P1 Melbourne & Hobson's Bay Railway from me for £40")
    assert "buy private P1 40" in made, made

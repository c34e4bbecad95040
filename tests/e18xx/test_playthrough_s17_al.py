"""Play-through by mail s17 of 18AL (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 284, three seats Ann, Bob and Cy): 93 actions to the end of OR 3.1, phase 3,
9 company turns. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/al-s17.jsonl holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s17 game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=284, suffix="-s17", players=3)


mail = intent_mail


def test_the_game_replays():
    """The game to the end of OR 3.1 (93 actions; TAG bought the first 3 train in OR 2.1, and its
    second with New Decatur Yards for $90 in OR 3.1)."""
    assert game(5).current_entity() == "Cy"
    assert game(86).current_entity() == "TAG"
    g = game(93)
    assert g.current_entity() == "WRA"
    assert g.phase.name == "3"


def test_the_presidents_certificate_and_its_par_value_set():
    """Stock round 1 (mail 6): "Buy the 20% President's Certificate of ABC and set its Par Value at
    $70" (18AL 3.2(c)(1): "the 20% President's Certificate of any corporation. In this case the
    player must set the Par Value") was refused "read 'President's and set its Par Value at $70' as
    where the share comes from" (class b): it starts ABC at $70."""
    assert parse_moves("Buy the 20% President's Certificate of ABC and set its Par Value at $70", "Cy") \
        == parse_moves("par ABC 70", "Cy")
    g = game(5)
    assert g.current_entity() == "Cy"
    assert mail(g, "Buy the 20% President's Certificate of ABC and set its Par Value at $70")[0] \
        == ["par ABC 70"]


def test_a_train_bought_with_the_private_for_half_price():
    """OR 3.1, TAG (mail 46): "Buy a 3 train using New Decatur Yards for half price" was refused
    "price must be a whole number, not 'half'" (class b): New Decatur Yards takes 50% off a 3, 4 or 5
    train, so 'for half price' names the private's discount, not a price (the reply states it)."""
    assert parse_moves("Buy a 3 train using New Decatur Yards for half price", "Bob") \
        == parse_moves("Buy a 3 train with NDY", "Bob")
    g = game(86)
    assert g.current_entity() == "TAG"
    made, _ = mail(g, "Upgrade Gadsden (E6) to tile 15, rotation 3\n"
                      "Run the 3 train Gadsden - Stevenson - Chattanooga and the 2 train Gadsden - Rome\n"
                      "Pay out\nBuy a 3 train using New Decatur Yards for half price")
    assert made == ["lay 15 E6 3", "pass", "run 3 GADSDEN STEVENSON CHATTANOOGA; 2 GADSDEN ROME", "payout",
                    "buy train 3 with NDY", "pass", "pass"]
    assert parse_moves("Buy a 3 train at half price with NDY", "Bob") == parse_moves("Buy a 3 train with NDY", "Bob")


def test_the_town_added_to_a_route_is_named_in_the_note():
    """OR 2.1, TAG (mail 36, no mail lost): 'Run the 2 train from Gadsden to Chattanooga' got the note
    "C6 Stevenson (a town) on the only track between the stops you named is a stop of the route too:
    train 2 runs E6-0 - C6-0 - B7-0", the stops in pbm's own node labels; the note names the places
    as the map and the mails do."""
    g = game(54)
    assert g.current_entity() == "TAG"
    _, notes = mail(g, "Run the 2 train from Gadsden to Chattanooga\nPay out")
    assert "train 2 runs E6 Gadsden - C6 Stevenson - B7 Chattanooga" in notes
    assert "E6-0" not in notes

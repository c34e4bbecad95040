"""Play-through by mail s17b of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 283, four seats Ann, Bob, Cy and Di): 83 actions to the end of OR 2.1, 8 company
turns. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/aus-s17b.jsonl holds the game)."""
from pbm.e18xx.pbem.moves import format_action, parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s17b game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=283, suffix="-s17b", players=4)


mail = intent_mail


def test_the_game_replays():
    """The game to the end of OR 2.1 (83 actions; CAR, QR, VR and NSW launched in the first stock round,
    the 3/3+ Phase began with CAR's 3 train in OR 2.1)."""
    assert game(30).current_entity() == "CAR"
    assert game(59).current_entity() == "QR"
    assert game(83).current_entity() == "Di"


def test_the_ghan_bought_by_its_name_says_it_is_bought_at_its_price():
    """The sale of the privates (mail 003): 'Buy The Ghan' was read as P4 bought at its price, but the
    reply said only "bid 170 P4", where 'Buy P6' said "buys P6 at its price, £230 (rule 3.1.1)"
    (a wording defect that cost no mail)."""
    from pbm.e18xx.pbem.intent import play_intent

    g = game(2)
    assert g.current_entity() == "Cy"
    made, _ = play_intent(g, "Cy", parse_moves("Buy The Ghan", "Cy"))
    assert [format_action(m.action) for m in made] == ["bid 170 P4"]
    assert made[0].note.startswith("buys P4 at its price, £170")
    g = game(0)
    made, _ = play_intent(g, "Ann", parse_moves("Buy P6", "Ann"))
    assert made[0].note.startswith("buys P6 at its price, £230")


def test_an_ordinal_share_beyond_the_fifth():
    """Stock round 1 (mail 028): 'Buy the sixth NSW share' was refused "read 'sixth' as the company"
    (class b): the ordinal says which share it is (5.2.2: a company is launched once 60% is bought),
    one share, as 'a third NSW share' (s16d) already was."""
    for word in ("sixth", "seventh", "eighth", "ninth", "tenth", "6th", "3rd"):
        assert parse_moves(f"Buy the {word} NSW share", "Di") == parse_moves("buy NSW", "Di")
    g = game(26)
    assert g.current_entity() == "Di"
    assert mail(g, "Buy the sixth NSW share")[0] == ["buy NSW ipo"]


def test_a_lay_facing_the_places_it_joins():
    """VR's turn in OR 1.1 (mail 035): 'Lay tile 5 in Melbourne (H11) facing Geelong and Ballarat &
    Bendigo' was refused "tile 5 goes in H11 with rotation 1 or 2 or 3: say which" (class b): the
    places the tile faces (7.4.7 "Tile Facing") say its rotation, as 'toward' or 'connecting' do."""
    g = game(36)
    assert g.current_entity() == "VR"
    made, _ = mail(g, "Lay tile 5 in Melbourne (H11) facing Geelong and Ballarat & Bendigo\nBuy two 2 trains")
    assert made[0] == "lay 5 H11 1"


def test_a_place_of_several_words_with_its_hex_in_brackets_and_a_rotation():
    """QR's turn in OR 2.1 (mail 046): 'Lay tile 235 on Toowoomba & Ipswich (B17), rotation 4' was
    refused "need tile, hex and rotation" (class b): the hex in brackets was dropped as a note and the
    place's '&' was not read as part of its name."""
    g = game(59)
    assert g.current_entity() == "QR"
    made, _ = mail(g, "Lay tile 235 on Toowoomba & Ipswich (B17), rotation 4")
    assert made[0] == "lay 235 B17 4"
    made, _ = mail(game(59), "Lay tile 235 on Toowoomba & Ipswich, rotation 4")
    assert made[0] == "lay 235 B17 4"


def test_the_director_sells_his_private_to_his_company():
    """NSW's turn in OR 2.1 (mail 049): 'Sell P3 to NSW for £140' was refused "need [count] and a
    corporation" (class b): from the 3/3+ Phase a company buys a private from its Director (4.1, 7.3),
    which the Director says as his sale to the company."""
    for text in ("Sell P3 to NSW for £140", "Sell the Tasmanian Railways to NSW for £140"):
        named = parse_moves(text, "Di")[0]
        assert named.company == "NSW"  # the buyer named, checked against the game (moves.Named)
        assert named.move == parse_moves("buy private P3 140 from me", "Di")[0]
    g = game(75)
    assert g.current_entity() == "NSW"
    made, _ = mail(g, "Lay tile 5 in Newcastle (E18), rotation 0\nLay tile 6 in Wollongong (G16), rotation 1\n"
                      "Run the 2 train Sydney - Newcastle\nRun the 2+ train Sydney - Wollongong\nPay dividends\n"
                      "Sell P3 to NSW for £140")
    assert "buy private P3 140" in made
    assert parse_moves("sell 2 CAR", "Di") == parse_moves("sell 2 shares of CAR", "Di")

"""Play-through by mail s17c of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 291, six seats Ann, Bob, Cy, Di, Eve and Fay): 85 actions to the end of OR 2.1,
8 company turns. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/aus-s17c.jsonl holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s17c game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=291, suffix="-s17c", players=6)


mail = intent_mail


def test_the_game_replays():
    """The game to the end of OR 2.1 (85 actions; CAR and QR launched in the first stock round, NSW and
    VR later in it; the 3/3+ Phase began with VR's 3 train in OR 1.1)."""
    assert game(4).current_entity() == "Eve"
    assert game(27).current_entity() == "CAR"
    assert game(35).current_entity() == "NSW"
    assert game(53).current_entity() == "CAR"
    assert game(85).current_entity() == "CAR"


def test_a_private_bought_at_its_lowered_price():
    """The sale of the privates (mail 005): "I'll buy The Ghan at its lowered price of £165" was refused
    "a train is bought with 'buy train <type>'" (class b): the price the sale shows, said as 'at its
    (lowered) price of £165' (3.1.1 "buy a Private Company at its face value or reduce the cost"), is the
    private's price as 'for £165' is, and 'The Ghan' with a price is the private P4, not the 2E train."""
    for line in ("I'll buy The Ghan at its lowered price of £165", "Buy The Ghan at its price of £165",
                 "buy P4 at its reduced price, £165", "Buy the Ghan at its current price of 165"):
        assert parse_moves(line, "Eve") == parse_moves("buy private P4 165", "Eve"), line
    assert parse_moves("buy the Tasmanian Railways at its face value of £110", "Di") \
        == parse_moves("buy private P3 110", "Di")
    g = game(4)
    made, _ = mail(g, "I'll buy The Ghan at its lowered price of £165")
    assert made == ["bid 165 P4"]


def test_the_two_remaining_trains():
    """NSW's turn in OR 1.1 (mail 033): 'Buy the two remaining 2 trains' was refused "a train is bought
    with 'buy train <type>'" (class b): 'the remaining two 2 trains' was read, the same words in the
    other order were not (8.3.2: a company may buy more than one train in its turn)."""
    assert parse_moves("Buy the two remaining 2 trains", "Di") == parse_moves("buy two 2 trains", "Di")
    assert parse_moves("Buy the two last 2 trains", "Di") == parse_moves("buy two 2 trains", "Di")
    g = game(35)
    assert g.current_entity() == "NSW"
    made, _ = mail(g, "Lay a 57 tile on Sydney (F17) so it runs to Wollongong and Newcastle\n"
                      "Buy the two remaining 2 trains")
    assert made[:3] == ["lay 57 F17 0", "buy train 2", "buy train 2"]


def test_the_outline_says_a_private_is_bought_only_after_the_3_train():
    """VR's turn in OR 1.1 (mail 035, a wording defect that cost no mail): in the 2/2+ Phase the turn's
    outline said "buy a private" without saying it opens only once the 3 train is bought (7.3 "From
    Phase 3 onwards a company can ... buy a Private Company"); 'VR buys P2 from Fay' before the train is
    refused "only from the first 3 train on". The outline now says when."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(39)
    assert g.current_entity() == "VR"
    outline = turn_outline(g)[0]
    assert "buy a private (once the train bought starts the 3/3+ Phase)" in outline
    g = game(61)  # QR in OR 2.1, the 3/3+ Phase: the private as before
    assert g.current_entity() == "QR"
    outline = turn_outline(g)[0]
    assert "buy a private." in outline and "buy a private (" not in outline

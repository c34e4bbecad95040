"""Play-through by mail s16f of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 273, six seats Ann, Bob, Cy, Di, Eve and Fay): 67 actions to VR's turn in OR 2.1,
6 company turns. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/aus-s16f.jsonl holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16f game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=273, suffix="-s16f", players=6)


mail = intent_mail


def test_the_game_replays():
    """The game to VR's turn in OR 2.1 (67 actions; the 3/3+ Phase began with CAR's 3 train)."""
    assert game(24).current_entity() == "CAR"
    assert game(67).current_entity() == "SAR"


def test_a_share_as_a_percentage_after_the_company():
    """Stock round 1 (mail 16): 'buy SAR 10%' was refused "read '10%' as where the share comes from"
    (class b): a share is 10% of the company (1848 5.1), said after its name as well as before it
    ('buy 10% of SAR')."""
    assert parse_moves("buy SAR 10%", "Eve") == parse_moves("buy 10% of SAR", "Eve")
    g = game(16)
    assert g.current_entity() == "Eve"
    assert mail(g, "buy SAR 10%")[0] == ["buy SAR ipo"]


def test_a_sale_as_a_percentage_after_the_company():
    """Noted in s16f beside the purchase: 'sell CAR 20%' was refused "corporation '20%' is not a
    name"; a percentage after the company is the count it is before it, in a sale as in a purchase."""
    assert parse_moves("sell CAR 20%", "Eve") == parse_moves("sell 20% of CAR", "Eve")
    assert parse_moves("sell CAR 2", "Eve") == parse_moves("sell 2 CAR", "Eve")

"""Play-through by mail s16d of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 253, Ann, Bob, Cy and Di): 36 mails, 61 actions to the end of OR 2.1, 6 company
turns. These tests pin each finding with the mail that showed it (tests/e18xx/playthrough/aus-s16d.jsonl
holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16d game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=253, suffix="-s16d", players=4)


mail = intent_mail


def test_the_game_replays():
    """The game to the end of OR 2.1 (61 actions; the 3/3+ Phase began with CAR's 3 train)."""
    assert game(20).current_entity() == "CAR"
    assert game(61).current_entity() == "Cy"


def test_a_third_share():
    """Stock round 1 (mail 19): 'Buy a third NSW share' was refused "read 'third' as the company"
    (class b): an ordinal counts the player's shares, the purchase is one share (12.3.1), as 'another'
    and 'one more' are."""
    g = game(17)
    assert g.current_entity() == "Cy"
    assert mail(g, "Buy a third NSW share")[0] == ["buy NSW ipo"]
    assert parse_moves("buy a second QR share", "Bob") == parse_moves("buy QR", "Bob")


def test_a_share_bought_so_that_the_company_is_launched():
    """Stock round 1 (mail 22): 'Buy an NSW share so that NSW is launched' was refused "read 'so that
    NSW is launched' as where the share comes from" (class b): the rulebook's own word (5.2.2 "A
    company is launched and begins to operate once 60% of its shares have been bought") is the
    player's note, as 'so that it floats' is."""
    g = game(18)
    assert g.current_entity() == "Di"
    assert mail(g, "Buy an NSW share so that NSW is launched")[0] == ["buy NSW ipo"]


def test_two_routes_of_a_2_and_a_2_plus_train_joined_by_and():
    """NSW, OR 2.1 (mail 34): 'Run the 2 train from Sydney to Newcastle and the 2+ train from Sydney to
    Wollongong' was refused "'THE 2+ TRAIN FROM SYDNEY' is not a stop" (class b): a '+' train (8.2.3)
    named after 'and' starts its own route, as a 3 train there did."""
    lays = "Lay tile 5 on E18 Newcastle rotation 0\nLay tile 6 on G16 Wollongong rotation 1, connecting Sydney and Canberra\n"
    made, _ = mail(game(44), lays + "Run the 2 train from Sydney to Newcastle and the 2+ train from Sydney to Wollongong\n"
                                    "Pay out the dividend\nBuy a 3 train")
    # the same turn as the one mailed again with a line for each train (mail 35)
    again, _ = mail(game(44), lays + "Run the 2 train from Sydney to Newcastle\nRun the 2+ train from Sydney to Wollongong\n"
                                     "Pay out the dividend\nBuy a 3 train")
    assert made == again and made[3:6] == ["run 2 SYDNEY NEWCASTLE; 2 SYDNEY WOLLONGONG", "payout", "buy train 3"], made
    assert parse_moves("run 2 Sydney - Newcastle and 2+ Sydney - Wollongong", "Cy") == parse_moves(
        "run 2 Sydney - Newcastle; 2+ Sydney - Wollongong", "Cy")

"""Play-through by mail s16c of 18VA (issue 29; seed 244, three seats Ann, Bob, Cy, every seat written
from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s16c.jsonl holds the game, 74 actions, 11 company turns)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16c game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=244, suffix="-s16c", players=3)


mail = intent_mail

SR_TURN = ("Upgrade Richmond to tile 14 with rotation 0\nRun the 2 train from Richmond to Petersburg\nWithhold\n"
           "Buy the Tredegar Iron Works from Bob for $90\n")


def test_a_train_bought_using_tredegar_for_its_discount():
    """OR 3.1, SR (mail 38): 'Buy a 3 train from the bank, using Tredegar for the $200 off' (18VA 4.2 (2):
    Tredegar lets a company "deduct $200 from the cost of purchasing a new train from the Bank") was
    refused "too many words" (class b): 'for the $200 off' names the private's discount, not a price.
    The same turn with 'with Tredegar' was the one-try fix (mail 39)."""
    g = game(67)
    assert g.current_entity() == "SR"
    made, _ = mail(g, SR_TURN + "Buy a 3 train from the bank, using Tredegar for the $200 off")
    assert made[:6] == ["pass", "lay 14 F11 0", "run 2 RICHMOND PETERSBURG", "withhold", "buy private P2 90",
                        "buy train 3 with P2"], made


def test_the_discount_words_are_the_privates():
    """The discount said other ways is the same purchase; without a private 'for 200 off' is no price."""
    plain = parse_moves("buy a 3 train with Tredegar", "Bob")
    for line in ("buy a 3 train using Tredegar, $200 off",
                 "buy a 3 train with Tredegar to take $200 off the price",
                 "Buy a 3 train from the bank with Tredegar for a $200 discount"):
        assert parse_moves(line, "Bob") == plain, line

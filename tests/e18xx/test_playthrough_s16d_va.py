"""Play-through by mail s16d of 18VA (issue 29; seed 254, four seats Ann, Bob, Cy, Di, every seat written
from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s16d.jsonl holds the game, 70 actions, 11 company turns)."""
from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16d game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=254, suffix="-s16d", players=4)


mail = intent_mail


def test_the_starting_value_with_the_company_in_the_possessive():
    """Auction end (mail 9): "Set B&O's starting value at $90" (18VA 4.1: the buyer "sets the Starting
    Value of the B&O") was refused "unknown move 'Set'" (class b); 'par B&O 90' was the fix (mail 10)."""
    g = game(8)
    assert g.current_entity() == "Ann"
    made, _ = mail(g, "Set B&O's starting value at $90")
    assert made == ["par B&O 90"], made


def test_a_lay_with_a_so_it_runs_comment():
    """OR 1.1, RFPR (mail 19): 'lay a 57 in Fredericksburg, rotation 0, so it runs from Alexandria down
    toward Richmond' was refused "need tile, hex and rotation" though all three were there (class b):
    the words after the rotation only say where the track goes."""
    g = game(22)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "lay a 57 in Fredericksburg, rotation 0, so it runs from Alexandria down toward Richmond\n"
                      "buy a 2 train")
    assert made[:1] == ["lay 57 F7 0"] and "buy train 2" in made, made


def test_our_train_is_the_train():
    """OR 2.1, C&O (mail 25): 'run our 2 train Charlottesville - Staunton' was refused "train our: ...
    is not a stop" (class b): 'our 2 train' is the company's 2 train, as 'the 2 train' (mail 26)."""
    g = game(32)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay tile 5 in Staunton rotation 5\nrun our 2 train Charlottesville - Staunton\n"
                      "pay the dividend\nbuy the last 2 train")
    assert "run 2 CHARLOTTESVILLE STAUNTON" in made, made


def test_two_trains_listed_after_a_colon():
    """OR 3.1, B&O (mail 38): 'Run the two 2 trains: Baltimore to Philadelphia, and Baltimore to
    Washington.' was refused "unknown move 'Baltimore'" (class b): the comma cut the run in two, and
    the second route was read as a move of its own. Two runs on two lines were the fix (mail 39)."""
    g = game(64)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "Upgrade Baltimore to tile 15, rotation 0.\n"
                      "Run the two 2 trains: Baltimore to Philadelphia, and Baltimore to Washington.\nPay out.")
    runs = [m for m in made if m.startswith("run")]
    assert len(runs) == 1 and "PHILADELPHIA" in runs[0].upper() and "WASHINGTON" in runs[0].upper(), made

"""Play-through by mail s15c of 18VA (issue 29; seed 214, three seats Ann, Bob, Cy, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s15c.jsonl holds the game, 70 actions, 11 company turns, to phase 3)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s15c game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=214, suffix="-s15c", players=3)


mail = intent_mail


def test_one_train_and_the_other_train_in_one_line():
    """RFPR, OR 3.1 (mail 29): 'run one 2 train Fredericksburg - Alexandria and the other 2 train
    Fredericksburg - Richmond' (4.5.5: "Each train must operate on a legal route") was refused
    "'2 TRAIN FREDERICKSBURG' is not a stop": 'one' was read as the train, and 'and the other 2
    train' did not start the second route."""
    two = parse_moves("run 2 Fredericksburg Alexandria; 2 Fredericksburg Richmond", "Ann")
    assert parse_moves("run one 2 train Fredericksburg - Alexandria and the other 2 train "
                       "Fredericksburg - Richmond", "Ann") == two
    assert parse_moves("run the first 2 train Fredericksburg - Alexandria and a second 2 train "
                       "Fredericksburg - Richmond", "Ann") == two
    g = game(58)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "lay 57 on G4 rotation 1\nrun one 2 train Fredericksburg - Alexandria and the other 2 train "
                      "Fredericksburg - Richmond\nwithhold")
    assert "lay 57 G4 1" in made and "withhold" in made, made
    assert "run 2 FREDERICKSBURG ALEXANDRIA; 2 FREDERICKSBURG RICHMOND" in made, made
    assert g.state.cash[g.state.corporations["RFPR"].key] == 80  # both routes ran, $40 each, withheld


def test_the_outline_says_whose_run_earns_what():
    """B&O, OR 2.1 (mail 22): the turn's outline said "B&O has $100 now, and its run earns $100"; the
    2 train Baltimore - Philadelphia the player ran earned $60. The $100 was the run of the outline's
    example, after its station in Philadelphia (4.5.4.1: an Off-Map City with the company's station
    scores double): the mail says so."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(29)
    assert g.current_entity() == "B&O"
    said, example = turn_outline(g)
    assert "its run earns" not in said, said
    assert "the run of the example below earns $100" in said and "token H1" in example, (said, example)

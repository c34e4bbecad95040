"""Play-through by mail s11v of 18GA (issue 29 acceptance, verification after the s11 fixes; seed 83,
Ann, Bob, Cy): the defects met, each with the mail that showed it (tests/e18xx/playthrough/ga-s11v.jsonl
holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s11v game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=83, suffix="-s11v")


mail, refusal = intent_mail, intent_refusal


def test_a_wrong_stop_is_named_before_a_hex_of_several_cities():
    """W&A, OR 4.2 (finding F1): 'run 3 D4 C3 C5' was refused "D4: D4 has 3 stops; name one",
    though 'run 3 D4 C3 A3' (Atlanta's three cities, D4 alone) was taken in the turns before: the
    real fault, C5 with no stop (4.2.3(a)), was named only once D4-1 was written. A word that names
    no stop is refused before a hex whose stop the track would settle."""
    g = game(146)
    assert g.current_entity() == "W&A"
    why = refusal(g, "lay 14 C3 1\nrun 3 D4 C3 C5\npayout\ndone")
    assert "C5 has no city, town or off-board" in why
    assert "name one" not in why
    made, _ = mail(game(146), "lay 14 C3 1\nrun 3 D4 C3 A3\npayout\ndone")
    assert made[1] == "run 3-1 D4 C3 A3"


def test_a_train_bought_in_the_rulebooks_words():
    """CoG, OR 5.2 (finding F2): 'buy the 3 train from the Open Market' (18GA 4.2.5: trains are in
    "the Initial Offering and the Open Market") was refused "say 'ipo' or 'market' (the company's
    treasury or the pool ...)": read as a share purchase. It is the 3 train from the Open Market."""
    g = game(219)
    assert g.current_entity() == "CoG"
    made, _ = mail(g, "run auto\npayout\nbuy the 3 train from the Open Market\ndone")
    assert made[-1] == "buy train 3"
    assert len(g.corp_trains("CoG")) == 2
    moves = parse_moves("buy a 5 train from the Initial Offering\nbuy train 4 from the open market", "Ann")
    assert [(m.train, m.seller) for m in moves] == [("5", None), ("4", None)]

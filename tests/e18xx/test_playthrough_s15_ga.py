"""Play-through by mail s15 of 18GA (issue 29 acceptance; seed 191, Ann, Bob, Cy, Di, every seat
written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s15.jsonl holds the game, 279 actions, 39 company turns)."""
from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s15 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=191, suffix="-s15", players=4)


def test_a_private_bought_from_its_owner_by_the_first_word_of_its_name():
    """W&A, OR 5.1 (finding F1, mail #67): 'buy the Midland from Di for $60' was refused "unknown
    private company 'MIDLAND'; known: LTR, MRC, ..." - Table III calls MRC "the Midland" - while 'buy
    the Ocilla Southern from Bob for $150' was taken (mail #55). The name named with its owner is read
    as a name is everywhere else (4.2.6)."""
    g = game(108)
    made, _ = intent_mail(g, "lay 14 C3 2\nrun 2 D4-1 C3\nrun 2 C3 A3\npayout\nbuy a 3 train from the bank\n"
                             "buy the Midland from Di for $60")
    assert made[:3] == ["lay 14 C3 2", "pass", "run 2 D4-1 C3; 2 C3 A3"]
    assert "buy train 3" in made
    assert g.state.companies["MRC"].owner.endswith("W&A")


def test_a_share_from_the_initial_offering_at_par():
    """SR 6 (finding F2, mail #76): 'buy a W&A share from the Initial Offering at par' was refused
    "say 'ipo' or 'market': 'ipo' for the Initial Offering, ..." though it named the Initial Offering:
    the closing 'at par' (3.2(c)(2): "The player pays the bank the par value") hid it."""
    for text in ("buy a W&A share from the Initial Offering at par", "buy a W&A share at par",
                 "buy 1 W&A at par value"):
        made, _ = intent_mail(game(156), text)
        assert made[0] == "buy W&A ipo", (text, made)

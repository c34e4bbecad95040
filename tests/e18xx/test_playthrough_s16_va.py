"""Play-through by mail s16 of 18VA (issue 29; seed 224, four seats Ann, Bob, Cy, Di, every seat
written from the rulebook and the mails alone): 32 mails, 72 actions, 12 company turns, every
company turn and stock turn in one mail (tests/e18xx/playthrough/va-s16.jsonl holds the game, to
phase 3). No mail was refused; the findings are two texts of accepted replies that misled."""
from .helpers import intent_mail, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s16 game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=224, suffix="-s16", players=4, events=events)


def test_the_first_to_act_in_a_stock_round_is_not_said_to_hold_the_priority():
    """Stock round 2 (action 25, RFPR's last move of OR 1.1): the event said "next: stock round 2
    (Ann acts first)", and the next lines "Di passes automatically", "Cy passes automatically",
    "Bob passes automatically", while the players' table listed Di first (4.3: the priority holder
    takes the first turn; Ann bought last in stock round 1, so the priority is Di's)."""
    g = game(25, events=True)
    said = texts_at(g, 25)
    assert "Operating round 1.1 ends; next: stock round 2 (Di has the priority; Ann acts first)" in said, said
    assert g.state.players[0].name == "Di" and g.current_entity() == "Ann"
    # the holder who acts himself is named once, as before (stock round 3: Di)
    assert "Operating round 2.1 ends; next: stock round 3 (Di acts first)" in texts_at(game(45, events=True), 45)


def test_more_operating_rounds_start_with_the_next_set():
    """B&O, OR 3.1 (mail 31, 'buy a 3 train'): the event said Phase 3 brings "2 operating rounds
    between stock rounds (was 1)", and RFPR's turn right after it ended with "Operating round 3.1
    ends; next: stock round 4". The set under way keeps its one round; the mail says the two start
    after the next stock round."""
    g = game(57, events=True)
    assert g.current_entity() == "B&O"
    made, _ = intent_mail(g, "run the 2 train Baltimore to Philadelphia\npay out\nbuy a 3 train")
    assert "buy train 3" in made, made
    said = " | ".join(texts_at(g, 62))
    assert "2 operating rounds between stock rounds (was 1; from the next stock round on)" in said, said
    assert g.state.ors_in_set == 1  # the set under way: OR 3.1 of 1


def test_the_outline_says_no_tile_can_be_laid():
    """N&W, OR 3.1 (mail 30): the mail's list was only 'pass', and the outline began "This turn: run
    trains 2, 2; pay out or withhold" - nothing said the lay step (4.5.2) had no legal lay (Norfolk
    is printed yellow, green tiles come in Phase 3, every other track of N&W's ends in a full city)."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(54)
    assert g.current_entity() == "N&W"
    said, example = turn_outline(g)
    assert said.startswith("This turn: no tile can be laid now (no legal lay or upgrade); run trains 2, 2"), said
    assert "run 2" in example and "lay" not in example.split("e.g.")[1], example

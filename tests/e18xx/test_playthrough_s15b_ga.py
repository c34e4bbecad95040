"""Play-through by mail s15b of 18GA (issue 29 acceptance, a fresh short game; seed 201, Ann, Bob, Cy,
every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s15b.jsonl holds the game, 74 actions, 7 company turns)."""
from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s15b game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=201, suffix="-s15b", players=3)


def test_place_the_home_station_in_a_city_of_atlanta():
    """W&A, OR 1.1 (finding F1, mail 028): 'place the home station in D4-1' - 4.2.2 "Placing a Station
    Token", and the mail's own hint "'token D4-<n>' puts W&A's home station in the city you choose" -
    was refused "unknown move 'place'". It is 'token D4-1'."""
    made, _ = intent_mail(game(27), "lay tile 451 on D4 rotation 0\nplace the home station in D4-1\n"
                                    "buy a 2 train from the bank")
    assert made[:2] == ["lay 451a D4 0", "token D4-1"]
    assert "buy train 2" in made


def test_two_trains_run_on_one_line_joined_by_and():
    """W&A, OR 3.1 (finding F2, mail 047): 'run one 2 train Atlanta - Rome and the other 2 train Rome -
    Chattanooga' was refused "train one: '2 TRAIN ATLANTA' is not a stop". Two routes joined by 'and the
    other' are the company's two trains (4.2.3(j): "When a corporation operates more than one train")."""
    made, _ = intent_mail(game(65), "buy the Lexington Terminal RR from Ann for $30\nlay tile 8 on B2 rotation 3\n"
                                    "place a station token in Rome\n"
                                    "run one 2 train Atlanta - Rome and the other 2 train Rome - Chattanooga\n"
                                    "pay dividends\nbuy a 3 train from the bank")
    assert "run 2 ATLANTA ROME; 2 ROME CHATTANOOGA" in made
    assert "buy train 3" in made


def test_a_skipped_step_names_the_route_as_the_map_spells_it():
    """W&A, OR 2.1 (finding F3, mail 038): the reply's "What happened" said '#45 Ann: pass - skips
    "Place a station" ... (before move 2, run 2 ATLANTA ROME)': the player's 'run the 2 train from
    Atlanta to Rome' in the parser's upper case, while the next line said 'run 2 Atlanta - Rome' (the
    same fix for the route itself: s14b F10). The move is named as the rest of the mail names it."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import parse_moves

    g = game(43)
    made, _ = play_intent(g, "Ann", parse_moves("lay tile 57 on C3 rotation 2\nrun the 2 train from Atlanta to Rome\n"
                                                "pay dividends\nbuy a 2 train", "Ann"))
    notes = "\n".join(m.note for m in made)
    assert "(before move 2, run 2 Atlanta - Rome)" in notes
    assert "ATLANTA" not in notes

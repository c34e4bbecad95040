"""Play-through by mail s15 of 18AL (issue 29's "Done when": seed 192, Ann, Bob, Cy, Di, Eve, every seat
written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s15.jsonl holds the game: the count's 294 actions and 34 company turns, to OR 5.2,
then 51 more actions and 12 company turns played on to stock round 6, through phases 6, 7 and 4D)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s15 game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=192, suffix="-s15", players=5)


def test_the_game_replays_to_stock_round_6():
    """The whole game as the mails played it: six companies, the count ending in OR 5.2 (phase 5), the
    game on to stock round 6 with the first 4D bought."""
    g = game(294)
    assert g.current_entity() == "WRA"
    assert sorted(c for c, corp in g.state.corporations.items() if corp.floated) == \
        ["ABC", "ATN", "L&N", "M&O", "TAG", "WRA"]
    g = game(345)
    assert not g.finished
    assert g.current_entity() == "Eve" and g.state.round.kind == "stock"


def test_the_snar_marker_put_on_a_place_named_with_its_hex():
    """TAG, OR 2.1 (mail #50): 'put the SNAR marker on Gadsden E6' was refused "unknown move 'put'" - the
    place's name and its hex both written (the state mail names the hexes, the map the places)."""
    assert parse_moves("put the SNAR marker on Gadsden E6", "Cy") == parse_moves("assign SNAR E6", "Cy")
    assert parse_moves("place the SNAR marker on E6 Gadsden", "Cy") == parse_moves("assign SNAR E6", "Cy")
    g = game(71)
    assert g.current_entity() == "TAG"
    made, _ = intent_mail(g, "lay 15 E6 1\nbuy SNAR from Cy for $60\nput the SNAR marker on Gadsden E6\n"
                             "run auto\npay out\nbuy a 3 train")
    assert "assign SNAR E6" in made and "buy train 3" in made


def test_the_last_share_from_the_initial_offering():
    """Stock round 3 (mail #62): 'buy the last ABC share from the Initial Offering' was refused "say 'ipo' or
    'market'" although the line names the Initial Offering: 'last' was not read."""
    assert parse_moves("buy the last ABC share from the Initial Offering", "Ann") == parse_moves("buy ABC ipo", "Ann")
    assert parse_moves("buy the remaining WRA share", "Ann") == parse_moves("buy WRA", "Ann")
    g = game(106)
    assert g.current_entity() == "Ann"
    assert intent_mail(g, "buy the last ABC share from the Initial Offering")[0][0] == "buy ABC ipo"


def test_a_route_naming_its_cities_but_not_the_town_between():
    """ABC, OR 4.1 (mail #99): 'run 3 Birmingham Gadsden Chattanooga' was refused "not connected between E6
    and B7: no track joins them without another stop between" - the only track from Gadsden to Chattanooga
    passes the town of Stevenson (C6). Towns do not count toward a train's length (4.2.3(i)), so a player
    names the cities; the town on the way is added and the reply says so."""
    g = game(203)
    assert g.current_entity() == "ABC"
    made, notes = intent_mail(g, "lay 9 J5 0\nrun 4 Atlanta Anniston Oxmoor Montgomery\n"
                                 "run 3 Birmingham Gadsden Chattanooga\npay out")
    run = next(m for m in made if m.startswith("run"))
    assert "C6" in run and "payout" in made
    assert "C6 Stevenson" in notes and "town" in notes


def test_the_lumber_terminal_by_its_name():
    """WRA, OR 4.1 (mail #101): 'lay the lumber terminal tile 445 on N5' was refused "rotation must be a whole
    number, not 'N5'" (4.2.1: "The 'Lumber Terminal' tile"): the words before the tile were read as it."""
    assert parse_moves("lay the lumber terminal tile 445 on N5 rotation 3", "Di") == \
        parse_moves("lay 445 N5 3", "Di")
    assert parse_moves("lay the lumber terminal on N5 rotation 3", "Di") == parse_moves("lay 445 N5 3", "Di")


def test_a_lay_without_its_rotation_is_answered_with_what_each_rotation_joins():
    """WRA, OR 4.1 (mail #102): 'lay tile 445 on N5 with BLC' was refused "tile 445 goes in N5 with rotation 0
    or 1 or 2 or 3 or 4 or 5: say which" - no move list had shown these lays (WRA bought BLC in the same
    mail), and the reply did not say where each rotation's track goes, as the move lists do."""
    g = game(209)
    assert g.current_entity() == "WRA"
    why = intent_refusal(g, "buy BLC from Di for $80\nlay the lumber terminal tile 445 on N5\nrun auto\npay out")
    assert "lay 445 N5 3" in why and "L5 Montgomery (top)" in why
    made, _ = intent_mail(game(209), "buy BLC from Di for $80\nlay the lumber terminal tile 445 on N5 rotation 3\n"
                             "run auto\npay out")
    assert made[1] == "lay 445 N5 3 with BLC"


def test_run_trains_for_the_most_revenue():
    """ABC, OR 5.2 (mail #140, the game played on after the count): 'run trains for the most revenue' - 4.2.3.1:
    "A corporation must run train(s) each turn for the greatest total revenue possible" - was refused "train
    trains: 'FOR' is not a stop"; it is the best run, 'run auto'."""
    for line in ("run trains for the most revenue", "run the trains for the greatest total revenue possible",
                 "run all trains for the best revenue"):
        assert parse_moves(line, "Bob") == parse_moves("run auto", "Bob"), line
    assert len(parse_moves("run 2 Nashville Decatur", "Ann")[0].routes) == 1  # a route is still a route
    g = game(298)
    assert g.current_entity() == "ABC"
    made, _ = intent_mail(g, "run trains for the most revenue\npay out")
    assert "run auto" in made and "payout" in made

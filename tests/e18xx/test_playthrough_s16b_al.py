"""Play-through by mail s16b of 18AL (issue 29; seed 232, four seats Ann, Bob, Cy, Di, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s16b.jsonl holds the game, 73 actions, 6 company turns, to phase 3)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16b game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=232, suffix="-s16b", players=4)


mail = intent_mail


def test_the_two_trains_then_both_routes_joined_by_and():
    """WRA, OR 3.1 (mail 45): 'Run the two 2 trains: Montgomery - Selma and Montgomery - West Point'
    (4.2.3(j): each train its own route) was refused "train two: '2 TRAINS MONTGOMERY' is not a stop":
    'two' was read as the train, and 'and' between routes drawn with spaced dashes did not start the
    second route (only 'Adelaide-Port Pirie and Adelaide-Mount Gambier', hyphens unspaced, did)."""
    two = parse_moves("run 2 Montgomery - Selma; 2 Montgomery - West Point", "Di")
    assert parse_moves("Run the two 2 trains: Montgomery - Selma and Montgomery - West Point", "Di") == two
    assert parse_moves("run both 2 trains Montgomery - Selma and Montgomery - West Point", "Di") == two
    assert parse_moves("run the 2 trains: Montgomery - Selma and Montgomery - West Point", "Di") == two
    # the 'and' starts a route only where both sides draw one: here it is part of a stop's name
    assert parse_moves("run 2 Montgomery - Selma and West Point", "Di")[0].routes[0].nodes == \
        ("MONTGOMERY", "SELMA AND WEST POINT")
    g = game(66)
    assert g.current_entity() == "WRA"
    made, _ = mail(g, "Lay tile 5 on J7 rotation 1\nPlace a station in West Point\n"
                      "Run the two 2 trains: Montgomery - Selma and Montgomery - West Point\nPay out\n"
                      "Buy a 3 train from the bank")
    assert made[:2] == ["lay 5 J7 1", "token West Point"] and "buy train 3" in made, made
    assert made[2].startswith("run 2 MONTGOMERY SELMA; 2 MONTGOMERY"), made
    assert g.share_price("WRA") == 90  # $80 paid out: one step right



def test_i_will_buy_a_share():
    """Stock round 2 (mail 27): 'I will buy a WRA share from the Initial Offering.' was refused
    "unknown move 'will'" ('I buy ...' was read, 18AL 3.2(c)(2)); 'I will', 'I'd like to', 'we want to'
    open a move as 'I' does."""
    assert parse_moves("I will buy a WRA share from the Initial Offering.", "Di") == \
        parse_moves("buy WRA ipo", "Di")
    assert parse_moves("I'd like to pass", "Di") == parse_moves("pass", "Di")
    g = game(32)
    assert g.current_entity() == "Di"
    made, _ = mail(g, "I will buy a WRA share from the Initial Offering.")
    assert made[0] == "buy WRA ipo", made
    assert g.percent_of("P:Di", "WRA") == 40


def test_i_will_with_a_word_not_understood_names_that_word():
    """A first-person line whose move word is not one: the refusal names that word ('float'), not
    'will'."""
    import pytest

    from pbm.e18xx.pbem.moves import MoveError

    with pytest.raises(MoveError) as e:
        parse_moves("I will float WRA", "Di")
    assert "unknown move 'float'" in str(e.value), e.value


def test_a_greeting_above_the_moves_is_set_aside():
    """Stock round 1 (mail 8): "Hi all," above 'I start WRA at a par value of $75.' was refused
    "unknown move 'Hi'", the whole mail with it (a sign-off under the moves was already set aside).
    A greeting above the first move is now set aside too, and the reply says so."""
    from pbm.e18xx.pbem.mailplay import read_text
    from pbm.mail.answer import ignored_text

    got = read_text("GAME: g\nPLAYER: 4\nSEEN: 7 X\nSECRET: s\nHi all,\n\nI start WRA at a par value of $75.\n\nDi\n")
    assert got.greeting == [(5, "Hi all,")] and got.ignored == [(9, "Di")], (got.greeting, got.ignored)
    assert ignored_text(got.greeting, "a greeting above your orders") == \
        'IGNORED TEXT (line 5, a greeting above your orders, not read as orders): "Hi all,"'
    g = game(7)
    assert g.current_entity() == "Di"
    made, _ = mail(g, got.moves)
    assert made[0] == "par WRA 75", made
    # only a greeting is set aside: prose above the moves is still read, and refused by its line
    assert read_text("Hi all, I think\nthe best is\nbuy ABC\n").greeting == []


def test_a_city_between_two_named_stops_is_named_in_the_refusal():
    """ABC, OR 2.1 (mail 36): 'run the 2 train from Anniston to Birmingham' - the only track passes
    the gray city Oxmoor (H5), so the route is three cities for a 2 train (4.2.3(i)). The player's
    own mistake (class a), refused "not connected between G6 and G4: no track joins them without
    another stop between": the refusal now names the stop between and says the train is too short."""
    from .helpers import intent_refusal

    g = game(43)
    assert g.current_entity() == "ABC"
    why = intent_refusal(g, "lay tile 441a on G4 rotation 5\nplace a station in Birmingham\n"
                            "run the 2 train from Anniston to Birmingham\npay out\nbuy a 2 train from the bank")
    assert "not connected between G6 and G4: their track passes H5 Oxmoor (a city), a stop of the route too: " \
           "with it the route is 3 cities and off-boards, too long for a train of 2" in why, why


def test_a_sold_out_company_in_the_top_row_says_why_its_price_stays():
    """The end of stock round 3 (action 61): every share of ABC ($90) and WRA ($80) was owned by
    players, and both were in the chart's top row, so neither rose (3.6: "If this would cause the
    token to go off the top of the Stock Chart, the token does not move"); the round's end said
    nothing of it, while the rise at the end of stock round 2 was said. Now it says why they stay,
    in the rule's order (descending market value)."""
    from .helpers import texts_at

    g = playthrough_game("al", 61, seed=232, suffix="-s16b", players=4, events=True)
    got = texts_at(g, 61)
    stays = [t for t in got if "share price stays" in t]
    assert stays == [f"{c}'s share price stays at ${p}: at the end of the stock round all its shares are owned by "
                     "players, but it is in the top row of the chart: there is no cell to move it up to (rule 3.6)"
                     for c, p in (("ABC", 90), ("WRA", 80))], got
    assert not [t for t in texts_at(g, 43) if "stays" in t]  # WRA rose at the end of stock round 2

"""Play-through by mail s16 of 18AL (issue 29; seed 222, three seats Ann, Bob, Cy, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s16.jsonl holds the game, 70 actions, 6 company turns, to phase 3)."""
from pbm.e18xx.pbem.moves import parse_line, parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16 game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=222, suffix="-s16", players=3)


mail = intent_mail


def test_one_more_share_from_the_initial_offering():
    """Stock round 2 (mail 33): 'buy one more ABC share from the Initial Offering' (18AL 3.2(c)(2): a
    10% certificate from the Initial Offering) was refused "say 'ipo' or 'market'": 'more' was read as
    the company and 'ABC' as where the share comes from ('buy another TAG share' was read)."""
    assert parse_line("buy one more ABC share from the Initial Offering", "Ann") == parse_line("buy ABC ipo", "Ann")
    assert parse_line("buy one more share of ABC", "Ann") == parse_line("buy ABC", "Ann")
    assert parse_moves("buy 2 more ABC shares", "Ann") == parse_moves("buy 2 ABC", "Ann")
    g = game(39)
    assert g.current_entity() == "Ann"
    made, _ = mail(g, "buy one more ABC share from the Initial Offering")
    assert made[0] == "buy ABC ipo", made
    assert g.percent_of("P:Ann", "ABC") == 60


def test_a_station_in_a_city_with_no_tile_says_a_tile_is_needed_there():
    """WRA, OR 2.1 (mail 42): 'lay tile 9 on K6 rotation 1' then 'place a station token in West
    Point'. K6's track ends at the edge of West Point (J7), a printed city with no tile, so no track
    leads into the city (4.2.2: a city "connected by track"). The refusal said only "WRA's track does
    not reach it (traced as a train runs ...); possible: K4": it now says that J7 has no tile yet and
    names the places ('K4 Selma'). The player's own mistake (class a), but the reason should let him
    see it at once."""
    from .helpers import intent_refusal

    g = game(58)
    assert g.current_entity() == "WRA"
    why = intent_refusal(g, "lay tile 9 on K6 rotation 1\nplace a station token in West Point\n"
                            "run the 2 train from Montgomery to West Point\npay out\nbuy a 3 train")
    assert "J7 West Point has no tile yet" in why and "a tile must be laid in J7" in why, why
    assert why.endswith("possible: K4 Selma"), why


def test_a_share_line_not_understood_names_the_words_read():
    """Mail 33's refusal said only "say 'ipo' or 'market'" to a line that said "from the Initial
    Offering": the reply now names what was read as the company and as the source."""
    import pytest

    from pbm.e18xx.pbem.moves import MoveError

    with pytest.raises(MoveError) as e:
        parse_line("buy some ABC shares", "Ann")
    assert "read 'some' as the company and 'ABC' as where the share comes from" in str(e.value), e.value

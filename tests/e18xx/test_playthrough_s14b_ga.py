"""Play-through by mail s14b of 18GA (issue 29 acceptance, final verification round; seed 171, Ann,
Bob, Cy, Di, Eve, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/ga-s14b.jsonl holds the game, 322 actions, 51 company turns)."""
import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s14b game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=171, suffix="-s14b", players=5)


@pytest.mark.parametrize("upto, text, lay", [
    # W&A, OR 1.1 (mail 033): the tile named by its label before its number
    (26, "Lay the Atlanta tile 451 in Atlanta, rotation 0\ntoken D4-1\nbuy a 2 train", "lay 451a D4 0"),
    # W&A, OR 3.1 (mail 058): a few words after the lay, where it leads
    (60, "Lay tile 8 in B2 rotation 3 toward Chattanooga.\nrun auto\npay dividends\nbuy a 2 train",
     "lay 8 B2 3"),
    # GA, OR 4.2 (mail 073): 'upgrade <place> with the green <label> tile <n>'
    (97, "Upgrade Augusta with the green Augusta tile 453, rotation 0.\nRun auto.\nPay out.", "lay 453a D10 0"),
    # GA, OR 7.1 (mail 123): the colour and the label before the number
    (236, "lay the brown Augusta tile 456 in Augusta rotation 0\nrun auto\npayout", "lay 456a D10 0"),
])
def test_a_lay_in_a_players_words(upto, text, lay):
    """Findings F4, F8, F9 (mails 033, 058, 073, 123): a lay written as a player writes it - the tile's
    colour and label ('the green Augusta tile 453'), 'with', a closing 'toward Chattanooga' - was
    refused "need tile, hex and rotation" though it named all three (18GA 4.2.1 'Lay or upgrade one
    track tile'). The tile, the place and the rotation are read from among those words."""
    made, _ = intent_mail(game(upto), text)
    assert made[0] == lay


def test_a_lay_with_a_private_keeps_it():
    """The lay by a private's power still names the private after 'with' (Table III, the Midland)."""
    [mv] = parse_moves("lay tile 9 in F12 rotation 2 with MRC", "Bob")
    assert (mv.tile, mv.hex, mv.rotation) == ("9", "F12", 2)
    assert "MRC" in str(mv)


def test_buy_the_cheapest_private_by_its_name():
    """Auction (finding F1, mail 002): 'buy Midland' - the cheapest private, Midland Railroad Co., by the
    first word of its name (18GA 3.1(a) "Buy the cheapest unsold Private Company for its par value") - was
    refused "in the auction you may bid or pass, not buy a share". It is that purchase."""
    made, _ = intent_mail(game(1), "buy Midland")
    assert made == ["bid 40 MRC"]


def test_start_a_corporation_comma_par():
    """SR 1 (finding F3, mail 015): 'start GA, par 90' was refused "corporation 'GA,' is not a name"."""
    made, _ = intent_mail(game(11), "start GA, par 90")
    assert made == ["par GA 90"]


def test_an_away_line_without_its_colon_is_told_how():
    """SR 3 (finding F7, mail 052): 'AWAY until 2026-12-10 proxy 3' was refused "unknown move 'AWAY'" with
    the list of moves; the line was meant as the AWAY header. The refusal says to write it with a colon."""
    from pbm.e18xx.pbem.moves import MoveError
    with pytest.raises(MoveError) as err:
        parse_moves("AWAY until 2026-12-10 proxy 3", "Di")
    assert "AWAY: until 2026-12-10 proxy 3" in str(err.value) and "unknown move" not in str(err.value)


def test_what_happened_spells_a_route_of_places_as_the_map():
    """GA, OR 5.1 (finding F10, mail 089): 'run 3 Greeneville - Augusta - Milledgeville - Macon' was
    listed under "What happened" as "run 3 GREENEVILLE AUGUSTA MILLEDGEVILLE MACON" (the parser's
    upper case) while the events and Last moves wrote the map's spelling. It is the same line."""
    import json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.mailplay import happened_words

    from .helpers import PLAYTHROUGH

    g = game(133)
    line = (PLAYTHROUGH / "ga-s14b.jsonl").read_text(encoding="utf-8").splitlines()[133]
    run = A.action_from_dict(json.loads(line))
    assert run.routes[0].nodes == ("GREENEVILLE", "AUGUSTA", "MILLEDGEVILLE", "MACON")
    assert happened_words(g, run) == "run 3 Greeneville - Augusta - Milledgeville - Macon"


def test_a_private_station_by_place_keeps_its_spelling():
    """ACL, OR 5.2 (finding F10, mail 097): 'use the Waycross & Southern to place a station in Waycross'
    was echoed in the offer's note and "What happened" as "token WAYCROSS with W&SR"."""
    [mv] = parse_moves("use W&SR Waycross", "Eve")
    assert mv.city == "Waycross"
    [mv] = parse_moves("use W&SR i9", "Eve")
    assert mv.city == "I9"
    made, _ = intent_mail(game(178), "lay 7 H10 5\nuse the Waycross & Southern to place a station in Waycross\n"
                                     "run auto\npayout")
    assert made[1] == "token Waycross", made


def test_another_share():
    """SR 8 (finding F13, mail 143): 'sell two GA shares, then buy another SAL' was refused "say 'ipo' or
    'market'" - 'another' was read as where the share lies."""
    made, _ = intent_mail(game(284), "sell two GA shares, then buy another SAL")
    assert made == ["sell 2 GA", "buy SAL ipo"]


def test_the_presidents_contribution_after_a_comma():
    """GA, OR 8.2 (finding F14, mail 155): GA had no train and $193; 'buy a 6 train, Eve contributes the
    rest' was refused "corporation 'train,' is not a name" (4.2.5.1: the president contributes); on two
    lines it was taken. The president's words after a comma are a part of the line too."""
    from pbm.e18xx.pbem.moves import split_line
    assert split_line("buy a 6 train, Eve contributes the rest") == ["buy a 6 train", "Eve contributes the rest"]
    assert split_line("Eve, Bob and Cy") == ["Eve, Bob and Cy"]
    made, _ = intent_mail(game(308), "buy a 6 train, Eve contributes the rest")
    assert made[-1] == "buy train 6" or "buy train 6" in made, made


def test_a_lay_with_a_comma_among_other_moves():
    """SAL, OR 8.2 (finding F15, mail 158): 'Lay 24 in E11, rotation 5. Run auto. Pay out.' was refused
    "need tile, hex and rotation": the line was cut at the lay's own comma. Alone, the same lay was read."""
    from pbm.e18xx.pbem.moves import split_line
    assert split_line("Lay 24 in E11, rotation 5. Run auto. Pay out.") == ["Lay 24 in E11 rotation 5", "Run auto",
                                                                          "Pay out"]
    made, _ = intent_mail(game(313), "Lay 24 in E11, rotation 5. Run auto. Pay out.")
    assert made[:3] == ["lay 24 E11 5", "run auto", "payout"], made

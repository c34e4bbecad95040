"""Play-through by mail s14b of 18AL (issue 29, the final verification round; seed 172, Ann, Bob, Cy, Di,
every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s14b.jsonl holds the game, 251 actions, 40 company turns, to OR 7.2)."""
import pytest

from pbm.e18xx.pbem.moves import MoveError, parse_moves

from .helpers import intent_mail, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s14b game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=172, suffix="-s14b", players=4, events=events)


def test_the_game_replays_to_operating_round_7_2():
    """The whole game as the mails played it: five companies, 40 company turns, the 5 trains sold out."""
    g = game(251)
    assert not g.finished
    assert g.current_entity() == "ABC"
    assert sorted(c for c, corp in g.state.corporations.items() if corp.floated) == ["ABC", "ATN", "L&N", "TAG", "WRA"]


def test_the_abc_by_the_rulebooks_name():
    """Stock round 3 (mail #50): 'buy one share of AB&C' - the rulebook's name for it (8: "the AB&C is almost
    always one of the first railroads formed") - was refused "unknown corporation 'AB&C'". A corporation's
    initials with its '&' read as its symbol."""
    g = game(51)
    assert g.current_entity() == "Cy"
    assert intent_mail(g, "buy one share of AB&C")[0][0] == "buy ABC ipo"
    assert [m.corporation for m in parse_moves("par AB&C 90", "Bob")] == ["ABC"]


def test_a_rotation_after_a_comma_belongs_to_its_lay():
    """ABC, OR 4.1 (mail #74) and WRA, OR 5.2 (mail #102): 'lay tile 6 in Anniston, rotation 1. Buy one 2
    train.' was refused "need tile, hex and rotation" - the comma cut the rotation from its lay."""
    g = game(79)
    assert g.current_entity() == "ABC"
    made, _ = intent_mail(g, "lay tile 6 in Anniston, rotation 1. Buy one 2 train.")
    assert made[0] == "lay 6 G6 1" and "buy train 2" in made
    g = game(157)
    assert g.current_entity() == "WRA"
    made, _ = intent_mail(g, "Lay 57 in West Point, rotation 1. Station in West Point. Run auto. Pay out.")
    assert made[:2] == ["lay 57 J7 1", "token West Point"]


def test_upgrade_a_place_with_a_tile():
    """ABC, OR 5.1 (mail #94): 'upgrade Birmingham with tile 442 rotation 1' (4.2(b): "Lay or upgrade one
    track tile") was refused "need tile, hex and rotation"."""
    g = game(122)
    assert g.current_entity() == "ABC"
    made, _ = intent_mail(g, "upgrade Birmingham with tile 442 rotation 1\nplace a station in Birmingham\n"
                             "run auto\npay out\nbuy a 3 train")
    assert made[0] == "lay 442a G4 1" and "token Birmingham" in made


def test_a_tile_as_the_tiles_left_write_it():
    """L&N, OR 5.2 (mail #104): 'lay 444B Birmingham 3' - the mails' "Tiles left" list it as "444 B" - was
    refused "unknown tile '444B'" (pbm's tile is 444b)."""
    g = game(161)
    assert g.current_entity() == "L&N"
    assert intent_mail(g, "lay 444B Birmingham 3\nrun auto\npayout")[0][0] == "lay 444b G4 3"


def test_two_trains_routes_separated_by_a_comma():
    """L&N, OR 6.1 (mail #113): 'run 4 A4 C4 G4 H5, 3 G4 F5 E6 G6' was refused "'3' is not a stop": a
    comma then a train starts the next route, as a semicolon does."""
    (run,) = parse_moves("run 4 A4 C4 G4, 3 G4 H5 G6", "Ann")
    assert [(r.train, r.nodes) for r in run.routes] == [("4", ("A4", "C4", "G4")), ("3", ("G4", "H5", "G6"))]
    g = game(177)
    assert g.current_entity() == "L&N"
    made, _ = intent_mail(g, "lay 63 C4 0\nrun 4 A4 C4 G4, 3 G4 H5 G6\npayout")
    assert made[1] == "run 4 A4 C4 G4; 3 G4 H5 G6"


def test_moves_joined_by_and():
    """TAG, OR 6.1 (mail #116): 'lay 63 Gadsden 0 and run auto and pay out' was refused "need tile, hex and
    rotation"; 'then' joined moves, 'and' did not."""
    g = game(180)
    assert g.current_entity() == "TAG"
    made, _ = intent_mail(g, "lay 63 Gadsden 0 and run auto and pay out")
    assert made[0] == "lay 63 E6 0" and "run auto" in made and "payout" in made
    assert [type(m).__name__ for m in parse_moves("sell 1 ABC and buy TAG", "Ann")] == ["SellShares", "BuyShares"]
    assert len(parse_moves("run 2 Nashville and Decatur", "Ann")) == 1  # no move word after it: a route's words


def test_a_lay_with_rotation():
    """WRA, OR 6.3 (mail #124): 'lay tile 29 on hex I8 with rotation 1' was refused "need tile, hex and
    rotation" ('with' named a private there)."""
    g = game(198)
    assert g.current_entity() == "WRA"
    assert intent_mail(g, "lay tile 29 on hex I8 with rotation 1\nrun auto\npay out")[0][0] == "lay 29 I8 1"


def test_an_offer_for_a_private():
    """Stock round 1 (mail #18): 'offer $90 for the Memphis & Charleston from Di' was refused "unknown move
    'offer'"; an offer is the purchase at that price, which Di then accepts or declines (3.2(c)(4))."""
    assert parse_moves("offer $90 for the Memphis & Charleston from Di", "Ann") == \
        parse_moves("buy the Memphis & Charleston from Di for $90", "Ann")


def test_an_unknown_word_after_i_is_named():
    """Stock round 1 (mail #9): "I'll float the Western Railway of Alabama: ..." was refused "unknown move
    \"I'll\"" - 'I'll buy ...' is read; the word not understood was 'float'."""
    with pytest.raises(MoveError) as err:
        parse_moves("I'll float the Western Railway of Alabama: president's certificate at $75", "Di")
    assert "unknown move 'float'" in str(err.value)


def test_a_free_lay_is_an_event():
    """L&N, OR 2.1 (mail #47) and every lay without a terrain cost after it: the Events said nothing of the
    lay ('#45 lay 9 E4 0' had no line under it; the s10b event said only a lay that cost money)."""
    g = game(46, events=True)
    assert texts_at(g, 45) == ["L&N lays 9 on E4"]
    assert texts_at(g, 32) == ["L&N lays 57 on C4 Decatur (water: $20)"]


def test_a_private_sold_between_players_cites_the_stock_rounds_rule():
    """Stock round 1 (mail #19): Ann's offer to Di for the M&C said "(rule 4.2.6)" - a company's purchase;
    a sale between players is 3.2(b), 3.2(c)(4)."""
    from pbm.e18xx.pbem.games import offer_rule

    g = game(12)
    assert offer_rule(g, {"kind": "private", "between_players": True}) == "rule 3.2(b), 3.2(c)(4)"
    assert offer_rule(g, {"kind": "private"}) == "rule 4.2.6"


def test_an_offers_answer_in_the_subject():
    """L&N's offer for the NDY, OR 4.1 (mail #81): Bob replied with the Subject 'Re: [g] Ann for L&N to act -
    accept NDY' and no body; it was refused "no moves found" - a move in the Subject was read, an answer to
    an offer was not."""
    from email.message import EmailMessage

    from pbm.e18xx.pbem.mailplay import MoveMail, _moves_in_subject

    for subject, said in (("Re: [g] Ann for L&N to act - accept NDY", "accept NDY"), ("decline M&C", "decline M&C")):
        msg = EmailMessage()
        msg["Subject"] = subject
        mm = MoveMail(game="g", player="2", secret="x")
        _moves_in_subject(mm, msg)
        assert (mm.moves, mm.where) == (said, "subject")

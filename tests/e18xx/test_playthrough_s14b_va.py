"""Play-through by mail s14b of 18VA (issue 29, the final verification round; seed 174, Ann, Bob, Cy,
Di, every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s14b.jsonl holds the game, 333 actions, 62 company turns, to stock round 8)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s14b game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=174, suffix="-s14b", players=4, events=events)


mail = intent_mail


def test_starting_value_after_a_comma():
    """Stock round 1 (finding F1, mail #13): 'start SR, starting value 100' (4.3.3 "declares the
    Starting Value") was refused "need a corporation and a price"."""
    g = game(12)
    assert g.controller(g.current_entity()) == "Cy"
    made, _ = mail(g, "start SR, starting value 100")
    assert made == ["par SR 100"]


def test_words_in_brackets_are_a_note():
    """B&O, OR 1.1 and OR 4.1 (finding F2, mails #24, #25, #60): 'Lay tile 57 in Baltimore, rotation 0
    (Annapolis to Philadelphia).' and 'buy a 3 train (passenger)' were refused for the words in
    brackets; the move lists' own 'lay 57 H3 0 (same as 3)' too. Brackets hold a note, as '#' does."""
    assert parse_moves("lay 57 H3 0 (same as 3)", "Ann") == parse_moves("lay 57 H3 0", "Ann")
    assert parse_moves("buy a 3 train (passenger)", "Ann") == parse_moves("buy a 3 train", "Ann")
    g = game(16)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "Lay tile 57 in Baltimore, rotation 0 (Annapolis to Philadelphia).\nStation in Philadelphia.\n"
                      "No trains to run, so no dividend.\nBuy a 2 train as a passenger train.")
    assert made[0].startswith("lay 57") and any(m.startswith("buy train 2") for m in made), made


def test_the_mine_tile_pay_the_dividend_and_freight_2g():
    """C&O, OR 3.1 (finding F3, mail #47): 'lay the mine tile 4 at B7 rotation 2', 'pay the
    dividend' (4.5.6 "pay out or withhold its Dividend") and 'buy a 3 train as freight 2G' (4.5.8:
    declare "a Passenger Train or a Freight Train") were each refused."""
    g = game(59)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay the mine tile 4 at B7 rotation 2\nrun the 2 train charlottesville to staunton\n"
                      "pay the dividend\nbuy a 3 train as freight 2G")
    assert made[0] == "lay 4 B7 2" and "payout" in made and "buy train 3 as 2G" in made, made


def test_an_offer_for_a_private_in_plain_words():
    """N&W, OR 3.1 (finding F4, mail #50): 'Offer Cy $60 for the Tredegar Iron Works' (4.2 "with
    their consent") was refused "unknown move 'Offer'", and 'buy a 3 train as passenger, using
    Tredegar Iron Works' read 'passenger,' as the side."""
    assert parse_moves("Offer Cy $60 for the Tredegar Iron Works", "Bob") == \
        parse_moves("buy private P2 60 from Cy", "Bob")
    assert parse_moves("offer $60 to Cy for P2", "Bob") == parse_moves("buy private P2 60 from Cy", "Bob")
    assert parse_moves("buy a 3 train as passenger, using Tredegar Iron Works", "Bob") == \
        parse_moves("buy a 3 train as passenger with Tredegar Iron Works", "Bob")


def test_convert_naming_the_company():
    """N&W, OR 4.1 (finding F5, mail #65): 'Convert N&W to a Ten-Share Company.', 4.5.1's own
    words, was refused "'convert' takes nothing after it"."""
    g = game(98)
    assert g.current_entity() == "N&W"
    made, _ = mail(g, "Convert N&W to a Ten-Share Company.\nLay 9 F15 0.\nRun auto.\nPay out.")
    assert made[:2] == ["convert", "lay 9 F15 0"], made


def test_put_a_station():
    """SR, OR 4.2 (finding F6, mail #69): 'lay 6 F5 4 then put a station in Petersburg then run auto
    then pay out' was refused: 'put a station' was not a move."""
    g = game(115)
    assert g.current_entity() == "SR"
    made, _ = mail(g, "lay 6 F5 4 then put a station in Petersburg then run auto then pay out")
    assert any(m.startswith("token") for m in made) and "payout" in made, made


def test_the_virginian_by_its_name():
    """Stock round 5 (finding F7, mail #72): 'Start the Virginian at $100.' was refused "unknown
    corporation 'Virginian'" (4.4's table names it the Virginian, VGN)."""
    g = game(128)
    assert g.controller(g.current_entity()) == "Bob"
    made, _ = mail(g, "Start the Virginian at $100.")
    assert made == ["par VR 100"]


def test_a_train_by_its_phase_name():
    """VR, OR 5.1 (finding F8, mail #86): 'buy a 3/2G train as 2G' - the train as the phase table
    names it - was refused "train '3/2G' is not a name"."""
    g = game(146)
    assert g.current_entity() == "VR"
    made, _ = mail(g, "lay 6 in Lynchburg, rotation 5\nbuy a 3/2G train as 2G")
    assert "buy train 3 as 2G" in made, made


def test_and_between_two_moves():
    """RFPR, OR 5.2 (finding F9, mail #99): 'run auto and pay out' was refused "'AND' is not a
    stop"; 'run 2 F11-F13 and 2 F11-F9-F7' still names two routes."""
    g = game(191)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "run auto and pay out")
    assert made[-1:] == ["payout"] or "payout" in made, made
    assert len(parse_moves("run 2 F11-F13 and 2 F11-F9-F7", "Cy")[0].routes) == 2


def test_potomac_yards_station_by_a_place_name_is_told():
    """N&W, OR 4.2 (finding F10, mail #71): 'use Potomac Yards for an extra station in Rocky Mount'
    was told only "Private P3 closes (its ability was used)", not where the station went."""
    g = game(123, events=True)
    assert any("extra station beside the city in F17 Rocky Mount" in t for t in texts_at(g, 123)), texts_at(g, 123)


def test_a_freight_train_bought_from_a_company_is_named_as_it_is():
    """WMR, OR 6.2 (finding F11, mail #117): 'buy the 2G train from C&O for $80' was answered
    "WMR's turn ended by itself after 'buy train 3 from C&O 80'" - the 2G by its type's 3, as if
    another train had been bought. The train is named as the mails name it."""
    g = game(263)
    assert g.current_entity() == "WMR"
    made, notes = mail(g, "lay 58 B5 4\nbuy the 2G train from C&O for $80\nrun auto")
    assert "after 'buy train 2G from C&O 80'" in notes and "buy train 3 from" not in notes, notes


def test_a_tile_every_rotation_of_which_lays_the_same_track_needs_none():
    """C&O, OR 7.2 (finding F12, mail #141): 'upgrade Charlottesville to 63' was refused "need tile,
    hex and rotation" though the move list said "D9 63 (0=1=2=3=4=5 ...)": every rotation lays the
    same track. A rotation is asked for only where it makes a difference."""
    g = game(315)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "upgrade Charlottesville to 63\nrun auto\npay out")
    assert made[0] == "lay 63 D9 0", made
    g = game(315)
    from .helpers import intent_refusal
    refusal = intent_refusal(g, "lay 8 C10")  # 8 goes on C10 two ways now: which is asked
    assert "rotation 2 or 4" in refusal and "lay 8 C10 2" in refusal, refusal

"""Play-through by mail s16 of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 223, Ann, Bob, Cy, Di and Eve): 51 mails, 69 actions to OR 2.1, 7 company
turns. These tests pin each finding with the mail that showed it (tests/e18xx/playthrough/aus-s16.jsonl
holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s16 game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=223, suffix="-s16", players=5)


mail, refusal = intent_mail, intent_refusal


def test_the_game_replays():
    """The game to SAR's turn of OR 2.1 (69 actions; the 3/3+ Phase began with SAR's 3 train)."""
    assert game(2).current_entity() == "Cy"
    g = game(69)
    assert g.current_entity() == "VR"


def test_a_private_by_its_name_then_its_symbol_in_brackets():
    """The sale of the privates (mail #3): 'I buy The Ghan (P4) for 170' - the rulebook's "The Ghan
    (P4)" (4.5) - was refused "say 'ipo' or 'market'" (class b): the bracket was dropped as a note and
    "The Ghan" read as the 2E train. A name with its own symbol beside it is that symbol."""
    assert mail(game(2), "I buy The Ghan (P4) for 170")[0] == ["bid 170 P4"]
    assert parse_moves("buy the Ghan (P4)", "Cy") == parse_moves("buy P4", "Cy")
    # 'The Ghan' alone in a company's purchase is still the 2E train (8.2.5)
    assert parse_moves("buy The Ghan", "Cy") == parse_moves("buy train 2E", "Cy")


def test_a_private_by_its_symbol_then_its_name_at_a_price():
    """The sale of the privates (mail #6): 'Buy P2 Oodnadatta Railway at £70' was refused "say 'ipo' or
    'market'" (class b): neither the name after the symbol nor "at £70" (the price the mail lists,
    3.1.1 "buy a Private Company at its face value") was read; 'buy P2 for £70' was."""
    assert mail(game(4), "Buy P2 Oodnadatta Railway at £70")[0] == ["bid 70 P2"]
    assert mail(game(4), "buy P2 at £70")[0] == ["bid 70 P2"]
    assert mail(game(4), "buy P2, Oodnadatta Railway, for 70")[0] == ["bid 70 P2"]
    # a company is no private: 'at' a price names the share's price, refused saying how a share is bought
    assert "say 'ipo' or 'market'" in refusal(game(25), "buy VR at 70")


def test_a_company_by_the_rulebooks_name_and_its_symbol():
    """Stock round 1 (mail #13): 'Start the Queensland Government Railway (QR) at 70' - the name in the
    table of 5.1 - was refused "need a corporation and a price" (class b): the "(QR)" was dropped and
    the map's "Queensland Gov't Railway" did not match the book's "Government"; the book's
    "Victorian Railway" is the map's "Victorian Railways" too."""
    assert mail(game(10), "Start the Queensland Government Railway (QR) at 70")[0] == ["par QR 70"]
    assert mail(game(10), "start the Queensland Government Railway at 70")[0] == ["par QR 70"]
    assert parse_moves("par the Victorian Railway at 80", "Di") == parse_moves("par VR 80", "Di")
    assert parse_moves("par New South Wales Railway (NSW) at 90", "Di") == parse_moves("par NSW 90", "Di")


def test_one_more_share():
    """Stock round 1 (mail #29): 'buy one more VR' was refused "say 'ipo' or 'market'" (class b), while
    'buy another QR share' and 'buy one share of SAR' were read."""
    assert mail(game(25), "buy one more VR")[0] == ["buy VR ipo"]
    assert mail(game(25), "buy one more VR share")[0] == ["buy VR ipo"]


def test_a_lay_with_what_it_connects():
    """SAR, OR 1.1 (mail #36): 'Lay tile 57 in Adelaide G6 with rotation 2, connecting Port Pirie and
    Mount Gambier.' - what the lay joins, as the mail's own list says "# city; to F5 Port Pirie ...,
    H7 Mount Gambier" - was refused "need tile, hex and rotation" (class b): the closing words are
    the player's comment, as 'toward Chattanooga' is."""
    g = game(35)
    assert g.current_entity() == "SAR"
    made, _ = mail(g, "Lay tile 57 in Adelaide G6 with rotation 2, connecting Port Pirie and Mount Gambier.\n"
                      "Buy a 2+ train.")
    assert made[:2] == ["lay 57 G6 2", "buy train 2 as 2+"], made
    assert parse_moves("lay tile 57 on G6 rotation 2 to connect Port Pirie and Mount Gambier", "Cy") \
        == parse_moves("lay 57 G6 2", "Cy")


def test_the_last_train_of_a_type():
    """QR, OR 2.1 (mail #49): 'Buy the last 2 train' was refused "say 'ipo' or 'market'" (class b): "the
    last" before the train was read as a company's share; 'the last CAR share' was already read."""
    g = game(55)
    assert g.current_entity() == "QR"
    made, _ = mail(g, "Lay tile 6 on C20 (Southport), rotation 0\nRun the 2 train Brisbane - Southport\n"
                      "Pay a dividend\nBuy the last 2 train")
    assert "buy train 2" in made, made


def test_a_buy_line_not_understood_shows_the_train_and_private_forms_too():
    """1848 s16 (mails #3, #6, #49): every 'buy ...' line pbm could not read was answered with the
    share form only ("say 'ipo' or 'market'"), also in the private sale and in a company's train step:
    the answer names the train and private forms as well."""
    from pbm.e18xx.pbem.moves import MoveError

    try:
        parse_moves("buy the shiny new locomotive", "Ann")
    except MoveError as exc:
        said = str(exc)
    else:
        raise AssertionError("read")
    assert "buy train <type>" in said and "buy private <private> <price>" in said and "'ipo'" in said, said

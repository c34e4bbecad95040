"""Play-through by mail s16c of 18AL (issue 29; seed 242, five seats Ann, Bob, Cy, Di, Eve, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s16c.jsonl holds the game, 71 actions, 6 company turns, to phase 3)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16c game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=242, suffix="-s16c", players=5)


mail = intent_mail


def test_a_private_bought_at_its_par_value_of_a_price():
    """The sale of the privates (mail 5): 'Buy the Brown & Sons Lumber Co. at its par value of $70'
    (18AL 3.1(a): "Buy the cheapest unsold Private Company for its par value") was read as 'par BLC 70'
    and refused "in the auction you may bid or pass, not start a company at a par price". A private has
    no par to set: the words buy it at that price, as 'for $70' did."""
    assert parse_moves("Buy the Brown & Sons Lumber Co. at its par value of $70", "Eve") == \
        parse_moves("Buy the Brown & Sons Lumber Co. for $70", "Eve")
    # a corporation's president's certificate still sets its par (3.2(c)(1))
    assert parse_moves("Buy the ABC president's certificate and set the par value at $75", "Ann") == \
        parse_moves("par ABC 75", "Ann")
    g = game(4)
    assert g.current_entity() == "Eve"
    made, _ = mail(g, "Buy the Brown & Sons Lumber Co. at its par value of $70")
    assert made == ["bid 70 BLC"], made


def test_a_share_bought_so_it_floats():
    """Stock round 1 (mails 14, 25): 'Buy an ABC share from the Initial Offering so it floats' and 'Buy
    one TAG share, which floats TAG' were refused, the closing words read as where the share comes
    from (18AL 3.4 "floats"); why the share is bought is the player's note, as 'to float it' was."""
    assert parse_moves("Buy an ABC share from the Initial Offering so it floats", "Cy") == \
        parse_moves("buy ABC ipo", "Cy")
    assert parse_moves("Buy one TAG share, which floats TAG", "Eve")[0].corporation == "TAG"
    g = game(12)
    assert g.current_entity() == "Cy"
    made, _ = mail(g, "Buy an ABC share from the Initial Offering so it floats")
    assert made == ["buy ABC ipo"], made
    g = game(19)
    assert g.current_entity() == "Eve"
    made, _ = mail(g, "Buy one TAG share, which floats TAG")
    assert made == ["buy TAG ipo"], made


def test_a_share_price_said_before_its_source():
    """Stock round 1 (mails 16, 18): 'Buy one TAG share at $60 from the Initial Offering' and '... for
    $60 from the Initial Offering' were refused ('at $60 ipo' read as the source; 'one' as the company),
    while '... from the Initial Offering for $70' was read: the price may come before the source."""
    for line in ("Buy one TAG share at $60 from the Initial Offering",
                 "Buy one TAG share for $60 from the Initial Offering"):
        got = parse_moves(line, "Di")[0]
        assert (got.corporation, got.source, got.price) == ("TAG", "ipo", 60), got
        g = game(13)
        assert g.current_entity() == "Di"
        made, _ = mail(g, line)
        assert made == ["buy TAG ipo"], made


def test_a_lay_toward_a_place_and_a_hex():
    """WRA, OR 1.1 (mail 38): 'Lay tile 6 in Montgomery (L5) with rotation 2, toward Selma and K6' was
    refused "need tile, hex and rotation": the closing 'toward ...' (the player's comment, 18GA s14b F8)
    named a hex, K6, which was taken for the lay's own and the words before it dropped."""
    assert parse_moves("Lay tile 6 on L5 with rotation 2, toward Selma and K6", "Bob") == \
        parse_moves("lay 6 L5 2", "Bob")
    g = game(33)
    assert g.current_entity() == "WRA"
    made, _ = mail(g, "Lay tile 6 in Montgomery (L5) with rotation 2, toward Selma and K6\n"
                      "Buy one 2 train from the bank")
    assert made[0] == "lay 6 L5 2" and "buy train 2" in made, made


def test_the_labelled_tile_named_before_its_number():
    """ABC, OR 2.1 (mail 53): 'Lay the Birmingham tile 441a on G4 rotation 5' (18AL 4.2.1(g): tiles
    labelled with a city) was refused "need tile, hex and rotation": the label and the hex were two
    places. The hex said is the place ('the Atlanta tile 451 in Atlanta' was already read)."""
    assert parse_moves("Lay the Birmingham tile 441a on G4 rotation 5", "Ann") == \
        parse_moves("lay 441a G4 5", "Ann")
    g = game(53)
    assert g.current_entity() == "ABC"
    made, _ = mail(g, "Lay the Birmingham tile 441a on G4 rotation 5\nPlace a station in Birmingham\n"
                      "Run the 2 train from Anniston to Oxmoor\nPay out\nBuy a 2 train from the bank")
    assert made[:2] == ["lay 441a G4 5", "token Birmingham"] and "buy train 2" in made, made


def test_a_route_through_a_stop():
    """TAG, OR 2.1 (mail 56): 'Run the 2 train from Gadsden through Stevenson to Chattanooga' was
    refused "'GADSDEN THROUGH STEVENSON' is not a stop": 'through' (and 'via') between stops now
    separates them as 'to' does (18AL 4.2.3(a): a route connects cities, towns, off-board areas)."""
    assert parse_moves("Run the 2 train from Gadsden through Stevenson to Chattanooga", "Di") == \
        parse_moves("run 2 Gadsden - Stevenson - Chattanooga", "Di")
    g = game(65)
    assert g.current_entity() == "TAG"
    made, _ = mail(g, "No tile this turn.\nRun the 2 train from Gadsden through Stevenson to Chattanooga\n"
                      "Pay out\nBuy a 3 train from the bank")
    assert "payout" in made and "buy train 3" in made, made


def test_pass_this_round():
    """Stock round 2 (mail 41): 'I pass this round.' was refused "unexpected words after 'pass'"; it is
    this turn's pass (18AL 3.6: the round ends when all pass in a row), as 'pass this turn' is."""
    assert parse_moves("I pass this round.", "Ann") == parse_moves("pass", "Ann")
    g = game(40)
    assert g.current_entity() == "Ann"
    made, _ = mail(g, "I pass this round.")
    assert made == ["pass"], made

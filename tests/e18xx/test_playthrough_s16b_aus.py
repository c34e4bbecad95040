"""Play-through by mail s16b of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 233, Ann, Bob, Cy and Di): 47 mails, 71 actions to the end of OR 2.1, 6 company
turns. These tests pin each finding with the mail that showed it (tests/e18xx/playthrough/aus-s16b.jsonl
holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s16b game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=233, suffix="-s16b", players=4)


mail, refusal = intent_mail, intent_refusal


def test_the_game_replays():
    """The game to the end of OR 2.1 (71 actions; the 3/3+ Phase began with CAR's 3 train)."""
    assert game(6).current_entity() == "Cy"
    assert game(71).current_entity() == "Cy"


def test_the_ghan_bought_in_the_sale_of_the_privates():
    """The sale of the privates (mail #7): 'Buy The Ghan for 165' - P4's own name (4.5) at the price the
    sale listed - was refused "read '2E' as the company" (class b): the name was read as the 2E train,
    which no one can buy then. With a price and no 'train' it is the private; 'buy The Ghan' alone in
    the sale is the private too."""
    assert mail(game(6), "Buy The Ghan for 165")[0] == ["bid 165 P4"]
    assert mail(game(6), "buy The Ghan")[0] == ["bid 165 P4"]
    # elsewhere 'The Ghan' alone is still the 2E train (8.2.5), and so is 'the Ghan train' at a price
    assert parse_moves("buy The Ghan", "Cy") == parse_moves("buy train 2E", "Cy")
    assert parse_moves("buy the Ghan train for 200", "Cy") == parse_moves("buy train 2E for 200", "Cy")


def test_lower_the_price_of_a_private_by_its_name():
    """The sale of the privates (mail #9): 'Lower the price of the Tasmanian Railways' (P3's name, 4.4)
    was refused "name the private" (class b); 'lower the price of P3' was read."""
    g = game(7)
    assert g.current_entity() == "Di"
    assert mail(g, "Lower the price of the Tasmanian Railways")[0] == ["lower P3"]
    assert parse_moves("reduce the cost of the Oodnadatta Railway by 5 pounds", "Di") == parse_moves("lower P2", "Di")


def test_a_new_share_at_its_par_price():
    """Stock round 2 (mail #38): 'Buy a 10% share of NSW for £80' - the list's "buy NSW ipo # 10% share
    for £80 from the Bank" - was refused "a NSW share costs $70 now (the chart's price), not $80"
    (class c): a new share costs its par (5.1.3, 12.3.1), the chart's price is the pool's (5.1.4), and
    the refusal wrote dollars in an 1848 mail."""
    g = game(42)
    assert g.current_entity() == "Bob"
    assert mail(g, "Buy a 10% share of NSW for £80")[0] == ["buy NSW ipo"]
    why = refusal(game(42), "Buy a 10% share of NSW for £70")
    assert "costs £80 from the Bank ('buy NSW ipo') now, not £70" in why, why
    assert "$" not in why
    # the lender's shares lie on its charter (12.4.2), as the lists say; its price is the chart's
    assert mail(game(42), "buy a Bank of England share for £70")[0] == ["buy BOE market"]
    assert "costs £70 from the Bank of England charter ('buy BOE market') now, not £80" \
        in refusal(game(42), "buy a BOE share for 80")


def test_a_lay_by_what_it_joins_and_trains_of_a_type():
    """NSW, OR 1.1 (mail #33): 'Lay a 57 tile in Sydney (F17) so it connects Wollongong and Newcastle' -
    the lay by what its track joins, as the mail's list says each rotation ("# city; to G16 Wollongong
    (lower left), E18 Newcastle (upper right)") - was refused "need tile, hex and rotation", and 'Buy 2
    trains of type 2' (8.2 "Types of Train") was read as a share of a company 'trains' (class b). With
    no rotation written, the rotation whose track reaches the places named is laid."""
    g = game(35)
    assert g.current_entity() == "NSW"
    made, _ = mail(g, "Lay a 57 tile in Sydney (F17) so it connects Wollongong and Newcastle\n"
                      "Buy 2 trains of type 2")
    assert made[:3] == ["lay 57 F17 0", "buy train 2", "buy train 2"], made
    assert mail(game(35), "lay tile 5 in Sydney connecting Newcastle")[0][0] == "lay 5 F17 2"
    # a rotation written stays the player's: the words after it are his comment (s16 mail #36)
    assert parse_moves("lay tile 57 on F17 rotation 0, connecting Wollongong and Newcastle", "Bob") \
        == parse_moves("lay 57 F17 0", "Bob")
    why = refusal(game(35), "lay tile 57 in Sydney connecting Orange & Bathurst")
    assert "no rotation of tile 57 in F17 that may be laid now reaches F15 Orange & Bathurst" in why, why
    assert "lay 57 F17 0 (same as 3)" in why


def test_a_stop_by_the_first_word_of_its_name_is_shown_by_its_name():
    """QR, OR 2.1 (mail #45): 'Run the 2+ train from Brisbane to Toowoomba' ran, but the reply quoted it
    'run 2+ Brisbane - TOOWOOMBA' (a wording defect, no mail lost): the stop is the map's "Toowoomba &
    Ipswich" and is shown by that name."""
    from pbm.e18xx.pbem.moves import action_words

    g = game(58)
    run = g.actions[57]
    assert action_words(g, run)[1] == "run 2+ Brisbane - Toowoomba & Ipswich; 2 Brisbane - Southport"

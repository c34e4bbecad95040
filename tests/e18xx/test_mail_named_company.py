"""A private's purchase that names its buying company ('CAR buys P3 from Ann for 140', 'Sell P3 to
NSW for £140') is made only in that company's turn (1848 4.1, 7.3: a company buys a private in its
own operating turn).  Before, the name was dropped: whichever company was acting bought the private
(noticed in the play-throughs by mail, issue 29, and left open until now)."""
from pbm.e18xx.pbem.moves import Named, parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def s17b(upto: int):
    return playthrough_game("aus", upto, seed=283, suffix="-s17b", players=4)


def s14b(upto: int):
    return playthrough_game("aus", upto, seed=173, suffix="-s14b", players=3)


def test_the_buying_company_is_read_from_the_line():
    for text, company in (("Sell P3 to NSW for £140", "NSW"), ("CAR buys P3 from Ann for 140", "CAR"),
                          ("sell the Tasmanian Railways to the NSW for £140", "NSW")):
        move = parse_moves(text, "Di")[0]
        assert isinstance(move, Named) and move.company == company, (text, move)


def test_a_private_sold_to_another_company_than_the_acting_one_is_refused():
    g = s17b(75)
    assert g.current_entity() == "NSW" and g.controller("NSW") == "Di"
    owner = g.state.companies["P3"].owner
    why = intent_refusal(g, "Sell P3 to CAR for £140")
    assert "CAR is not the company acting now (NSW is)" in why and "when it is CAR's turn" in why, why
    assert g.state.companies["P3"].owner == owner  # nothing changed hands
    made, _ = intent_mail(g, "Sell P3 to NSW for £140")
    assert "buy private P3 140" in made, made
    assert g.state.companies["P3"].owner == "C:NSW"


def test_a_company_named_as_the_subject_buys_only_in_its_own_turn():
    g = s14b(85)
    assert g.current_entity() == "CAR"
    why = intent_refusal(g, "QR buys P3 from Ann for 140")
    assert "QR is not the company acting now (CAR is)" in why, why
    why = intent_refusal(g, "XYZ buys P3 from Ann for 140")
    assert "XYZ is not a company of 1848" in why, why

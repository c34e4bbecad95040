"""Play-through by mail s17c of 18GA (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 292, five seats Ann, Bob, Cy, Di and Eve): 89 actions to the end of OR 3.1,
phase 3, 8 company turns. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/ga-s17c.jsonl holds the game)."""
from pbm.e18xx.pbem.games import offer_answer, offer_said
from tests.e18xx.test_pbem_mail import ga  # noqa: F401 (fixture)

from .helpers import playthrough_game


def game(upto: int):
    """The s17c game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=292, suffix="-s17c", players=5)


def test_the_game_replays():
    """The game to the end of OR 3.1 (89 actions; phase 3 began with GA's 3 train, which then
    bought the Midland from its president; ACL bought the Waycross & Southern from its president)."""
    assert game(23).current_entity() == "W&A"
    assert game(56).current_entity() == "Eve"
    g = game(89)
    assert g.state.round.kind == "stock"
    assert g.state.companies["MRC"].owner.endswith("GA")
    assert g.state.companies["W&SR"].owner.endswith("ACL")


LTR_OFFER = {"company": "LTR", "owner": "Ann", "buyer_name": "Eve", "price": 25, "between_players": True}


def test_an_offer_accepted_in_the_players_own_words():
    """Stock round 3 (mail 40): Eve offered Ann $25 for the Lexington Terminal RR; Ann's 'I accept
    Eve's offer of $25 for the Lexington' was refused "the offer waiting is for LTR; write 'accept
    LTR'" (class b): whose offer it is, its price and the private by the first word of its name
    (Table III, as a purchase names it) are the answer to the one offer waiting (3.2(b))."""
    g = game(56)
    for text in ("I accept Eve's offer of $25 for the Lexington", "accept the offer for the Lexington",
                 "I accept Eve's offer for LTR", "accept LTR for $25", "Accept the Lexington Terminal Railroad",
                 "I decline Eve's offer of $25 for the Lexington Terminal RR."):
        verb, said = offer_answer(text)
        assert verb in ("accept", "decline"), text
        assert offer_said(g, LTR_OFFER, said), (text, said)
    for text in ("I accept Eve's offer for the Midland", "accept MRC"):
        verb, said = offer_answer(text)
        assert not offer_said(g, LTR_OFFER, said), (text, said)
    assert offer_said(g, LTR_OFFER, offer_answer("accept")[1])  # 'accept' alone: the one offer waiting
    train = {"kind": "train", "company": "3-1", "seller": "GA", "price": 200}
    assert offer_said(g, train, offer_answer("I accept W&A's offer of $200 for the 3 train")[1])
    assert offer_said(g, train, offer_answer("accept 3")[1])
    assert not offer_said(g, train, offer_answer("accept 2")[1])


def test_a_refused_answer_to_an_offer_says_the_game_waits_for_it(ga):
    """Stock round 3 (mail 40, a wording defect in the refusal): under "Why: ... write 'accept LTR'"
    Ann's refusal went on "Now: Eve to act. Eve may: buy private LTR 20 ..." - the buyer's moves - though
    the game waited for Ann's answer (3.2(b)). The line now names the offer and the two answers."""
    from tests.e18xx.test_pbem_mail import answer, send
    from tests.e18xx.test_pbem_offer import SEAT, _to_a_sale

    _, buyer, comp, owner = _to_a_sale(ga)
    line, _ = send(ga, SEAT[buyer], f"buy private {comp} 1")
    assert "accepted" in line, line
    line, inbound = send(ga, SEAT[owner], "accept the Nonesuch Railroad")
    assert "rejected" in line, line
    text = answer(ga[0], inbound)[1]
    assert f"Now: {buyer}'s offer for {comp} waits for your answer:\n  accept {comp}\n  decline {comp}" in text, text
    assert f"Now: {buyer} to act" not in text

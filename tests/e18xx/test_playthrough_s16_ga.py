"""Play-through by mail s16 of 18GA (issue 29; seed 221, four seats Ann, Bob, Cy, Di, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s16.jsonl holds the game, 69 actions, 6 company turns, to phase 3)."""

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s16 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=221, suffix="-s16", players=4)


mail = intent_mail


def test_an_initial_offering_share_costs_par():
    """Stock round 2 (mail 25): 'buy a W&A share for $70' was refused "a W&A share costs $60 now
    (the chart's price), not $70", while the list offered "buy W&A ipo # 10% share for $70 from the
    Initial Offering": a share from the Initial Offering costs its par value (3.2(c)(2)), one from
    the Open Market its market value (3.2(c)(3)). A price said without the source names the
    source whose price it is."""
    g = game(27)
    assert g.current_entity() == "Bob"
    assert g.share_price("W&A") == 60
    made, _ = mail(g, "buy a W&A share for $70")
    assert made[0] == "buy W&A ipo", made
    why = intent_refusal(game(27), "buy a W&A share for $65")
    assert "$70" in why and "Initial Offering" in why, why

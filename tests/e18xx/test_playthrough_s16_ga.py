"""Play-through by mail s16 of 18GA (issue 29; seed 221, four seats Ann, Bob, Cy, Di, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s16.jsonl holds the game, 69 actions, 6 company turns, to phase 3)."""
import pytest

from pbm.e18xx.pbem.moves import MoveError, parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s16 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=221, suffix="-s16", players=4)


mail = intent_mail


def test_one_more_share():
    """Stock round 1 (mail 13): 'Buy one more CoG share' (3.2(c)(2): "a 10% certificate of any
    corporation whose President's Certificate has already been purchased") was refused "say 'ipo'
    or 'market'", though only the Initial Offering held CoG shares and 'buy another W&A share' was
    read."""
    assert parse_moves("Buy one more CoG share", "Ann") == parse_moves("buy CoG", "Ann")
    g = game(12)
    assert g.current_entity() == "Ann"
    made, _ = mail(g, "Buy one more CoG share")
    assert made[0] == "buy CoG ipo", made


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


def test_pass_this_turn():
    """Stock round 3 (mail 37): 'pass this turn' (3.2: "If you don't want to do any of these
    things, you may pass") was refused "unexpected words after 'pass'"."""
    assert parse_moves("pass this turn", "Cy") == parse_moves("pass", "Cy")
    assert parse_moves("I pass this turn", "Cy") == parse_moves("pass", "Cy")
    g = game(49)
    assert g.current_entity() == "Cy"
    made, _ = mail(g, "pass this turn")
    assert made == ["pass"], made


def test_the_last_train():
    """CoG, OR 3.1 (mail 45): 'buy the last 2 train' (4.2.5: the trains of the Initial Offering
    are bought in order) was refused with a share's hint, "say 'ipo' or 'market'"."""
    assert parse_moves("buy the last 2 train", "Di") == parse_moves("buy train 2", "Di")
    with pytest.raises(MoveError) as err:  # a train's words still not read: a train's hint
        parse_moves("buy the cheapest 2 train", "Di")
    assert "buy train <type>" in str(err.value) and "'ipo' or 'market'" not in str(err.value), err.value
    g = game(58)
    assert g.current_entity() == "CoG"
    made, _ = mail(g, "run one 2 train from Macon to Atlanta\npay out\nbuy the last 2 train")
    assert "buy train 2" in made and "payout" in made, made


def test_the_outline_counts_the_lays_the_list_shows():
    """CoG, OR 1.1 (mail 24): the turn's outline said "lay or upgrade a tile (18 lays now)" above a
    list of 15 lays: rotations that lay the same track (Table IV) were counted apart, while the
    list shows them once ('lay 57 F6 0 (same as 3)')."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(24)
    assert g.current_entity() == "CoG"
    said, _example = turn_outline(g)
    assert "(15 lays now)" in said, said

"""Play-through by mail s16c of 18GA (issue 29; seed 241, five seats Ann, Bob, Cy, Di, Eve, every
seat written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s16c.jsonl holds the game, 69 actions, 6 company turns, into stock round 3)."""
import pytest

from pbm.e18xx.pbem.moves import PassRestOfRound, parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16c game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=241, suffix="-s16c", players=5)


mail = intent_mail


@pytest.mark.parametrize("text", [
    "Buy another GA share so it floats",  # mail 19, Di
    "buy a GA share so that GA floats",
    "buy one GA share so it can float",
])
def test_a_share_bought_so_its_company_floats(text):
    """Stock round 1 (mail 19): 'Buy another GA share so it floats' (3.4: "A corporation 'floats'
    when 60% of its shares are no longer in the Initial Offering") was refused "read 'GA' as the
    company and 'so it floats' as where the share comes from". Why the share is bought is the
    player's note, as 'to float it' already was (s16b)."""
    assert parse_moves(text, "Di") == parse_moves("buy GA", "Di")
    g = game(18)
    assert g.current_entity() == "Di"
    made, _ = mail(g, text)
    assert made == ["buy GA ipo"], made
    assert g.state.corporations["GA"].floated


@pytest.mark.parametrize("text", ["Pass this round", "pass for this round", "I pass this stock round."])
def test_a_pass_said_with_the_round(text):
    """Stock round 2 (mail 32): Di's 'Pass this round' was refused "unexpected words after 'pass';
    expected: pass | pass rest of round". A pass is for the turn (3.2 "you may pass"; 1.1 "The round
    ends when all players consecutively pass"), so 'this round' names the round it is made in: the
    turn passes and Eve acts next."""
    assert parse_moves(text, "Di") == parse_moves("pass", "Di")
    g = game(39)
    assert g.current_entity() == "Di"
    made, _ = mail(g, text)
    assert made == ["pass"], made
    assert g.current_entity() == "Eve"


def test_a_pass_for_the_rest_of_the_round_is_the_standing_order():
    """The standing order in words ('pass for the rest of the round') is 'pass rest of round', which
    the same refusal named; 'the rest of the round' was not read either."""
    for text in ("pass for the rest of the round", "Pass for the rest of this round."):
        assert parse_moves(text, "Di") == [PassRestOfRound("Di")], text


def test_the_outline_s_example_lay_opens_the_first_route():
    """GA, OR 2.1 (mail 40; cost no mail): GA owned a 2 train and no route, and its outline read "This
    turn: lay or upgrade a tile (7 lays now); buy trains ..." with the example 'lay 7 C9 5, buy train 2':
    the example's lay led toward D8, so the outline named no run, though 4.2 lays the tile before the
    run and 'lay 8 C9 3' reached Greeneville (GA wrote it and ran there for $50). The example's lay is
    now one that gives the company a route, and the outline names the run and the dividend."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(52)
    assert g.current_entity() == "GA"
    said = "\n".join(turn_outline(g))
    assert "run trains 2; pay out or withhold" in said, said
    assert "'lay 8 C9 3, run 2 D10 B10, payout, buy train 2'" in said, said
    made, _ = mail(g, "lay 8 C9 3, run 2 D10 B10, payout, buy train 2")
    assert made[:3] == ["lay 8 C9 3", "run 2 D10 B10", "payout"], made

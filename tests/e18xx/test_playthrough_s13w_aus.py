"""Play-through by mail s13w of 1848 (issue 29 acceptance, session 13 third verification round;
seed 153, Ann, Bob, Cy, Di, every seat written from the rulebook alone): 205 mails, 100 company
turns, 95 of them in one mail of the president; the five second mails were the players' own
mistakes (class a), none was pbm's (no class b or c finding). These tests pin what the round
checked, each with the mail that showed it (tests/e18xx/playthrough/aus-s13w.jsonl holds the
whole game, 669 actions, to the bank breaking)."""
from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int, events: bool = False):
    """The s13w game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=153, suffix="-s13w", players=4, events=events)


mail, refusal = intent_mail, intent_refusal


def test_the_whole_game_replays_to_the_bank_breaking():
    """The game ran to its end (OR 8.3, the bank broke in OR 8.2), and every action's events were
    recorded without a failure."""
    g = game(669, events=True)
    assert g.finished


def test_the_example_of_a_company_turn_is_a_turn_the_company_can_make():
    """SAR, OR 6.1 (mails #129, #130): the mail's example 'lay 7 B15 4, lay 7 C16 1, token B17-0,
    run 4+ G6 H9 H11 G10-1; 3 B17-0 B19 C20 B21, payout' is accepted whole; its 3 train's route
    needs the station the example places first (10.1.2), so the run copied without the token is
    refused, saying why (the player's mistake, class a)."""
    g = game(315)
    assert g.current_entity() == "SAR"
    made, _ = mail(g, "lay 7 B15 4, lay 7 C16 1, token B17-0, "
                      "run 4+ G6 H9 H11 G10-1; 3 B17-0 B19 C20 B21, payout")
    assert made[:3] == ["lay 7 B15 4", "lay 7 C16 1", "token B17-0"]
    assert "payout" in made
    why = refusal(game(315), "run 4+ G6 H9 H11 G10-1; 3 B17-0 B19 C20 B21\npay out")
    assert "none of its stops holds a station of SAR" in why


def test_a_written_route_earning_less_runs_the_best_in_the_same_mail():
    """CAR, OR 3.1 (mail #50): 'run 2 E4 E2' (£40) ran as 'run 2 E2 D1' (£60) in the same mail,
    with a note naming both (rulings-1848.md, 10 best routes); the turn took one mail."""
    g = game(77)
    assert g.current_entity() == "CAR"
    made, notes = mail(g, "buy P2 for £80\nlay 6 E2 2\nlay 6 G6 2\nplace a station in E2\n"
                          "run 2 E4 E2\npay out\nbuy a 3 train")
    assert made[:4] == ["buy private P2 80", "lay 6 E2 2", "lay 6 G6 2", "token E2"]
    assert "buy train 3" in made
    assert "so its best routes ran instead: 'run 2 E2 D1' for £60" in notes


def test_a_withhold_into_receivership_ends_the_turn_with_a_note():
    """NSW, OR 5.1 (mail #99): 'take a loan / run auto / withhold / buy a 5 train' - the loan and
    the withhold moved NSW to the first column, so it went into receivership (5.5.1); the mail was
    accepted, the train purchase left with a note rather than refusing the mail."""
    g = game(247)
    assert g.current_entity() == "NSW"
    made, notes = mail(g, "take a loan\nrun auto\nwithhold\nbuy a 5 train")
    assert made[0] == "take loan" and made[-1] == "withhold"
    assert "NSW went into receivership after 'withhold'" in notes
    assert g.current_entity() == "CAR"

"""Play-through by mail s15b of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 203, Ann, Bob, Cy, Di and Eve): 45 mails, 72 actions to the end of OR 2.1,
6 company turns, each in one mail of the president. These tests pin each finding with the mail that
showed it (tests/e18xx/playthrough/aus-s15b.jsonl holds the game)."""
from .helpers import intent_mail, intent_refusal, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s15b game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=203, suffix="-s15b", players=5, events=events)


mail, refusal = intent_mail, intent_refusal


def test_the_game_replays():
    """The game to the end of OR 2.1 (72 actions; the 3/3+ Phase began in CAR's turn), every
    action's events recorded."""
    assert game(4).current_entity() == "Eve"
    g = game(72, events=True)
    assert g.state.round.kind == "stock"


def test_lower_the_price_of_a_private():
    """The sale of the privates (mail #5): 'lower the price of P4' - 3.1.1 "reduce the cost of a
    Private Company by 5 pounds" - was refused "name the private; expected: lower <private>" (class
    b). The rulebook's and plain English's ways to say it are the sale's 'lower P4'."""
    for line in ("lower the price of P4", "lower P4's price", "reduce the cost of P4 by 5 pounds",
                 "reduce the price of P4 by £5", "lower P4 by 5", "lower the price of P4 by 5"):
        assert mail(game(4), line)[0] == ["lower P4"], line
    # another amount is not the rule's lowering: refused with the rule's £5
    assert "lowered by 5 at a time (1848 rule 3.1.1)" in refusal(game(4), "lower P4 by 10")


def test_the_phase_change_names_only_places_a_train_reaches():
    """CAR, OR 2.1 (mail #44, the first 3 train): the 3/3+ Phase event said "the places with two
    printed values change: Cairns £20 (was £10), Alice Springs £20 (was £10), Perth £40 (was £20)
    and I21 £100 (was £0)" - I21 is no place (no track reaches it: it is the map's display of the
    Bank of England's minimum dividend, 5.4.3, which the same event states), and 1848's places print
    a value for each phase (Cairns 10, 20, 30, 40), not two (class c: wrong words)."""
    g = game(53, events=True)
    phase = next(t for t in texts_at(g, 53) if "3/3+ Phase begins" in t)
    assert "I21" not in phase, phase
    assert "two printed values" not in phase, phase
    assert "Cairns £20 (was £10), Alice Springs £20 (was £10) and Perth £40 (was £20)" in phase, phase
    assert "BOE pays its shareholders at least £100 (£10 a share)" in phase, phase


def test_a_skipped_step_quotes_the_run_as_the_mail_named_its_stops():
    """QR, OR 2.1 (mail #45): 'run 2 train Brisbane to Cairns' was quoted in the reply's skip notes
    as "(before move 2, run 2 BRISBANE CAIRNS; 2 BRISBANE SOUTHPORT)" - the places in capitals, run
    together - while "What happened" said "run 2 Brisbane - Cairns; 2 Brisbane - Southport" (class c:
    wrong words). The notes quote it as "What happened" does."""
    g = game(55)
    assert g.current_entity() == "QR"
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import parse_moves

    text = "lay 5 on C20 rotation 1\nrun 2 train Brisbane to Cairns\nrun 2 train Brisbane to Southport\npay out"
    player = g.controller(g.current_entity())
    made, _ = play_intent(g, player, parse_moves(text, player))
    notes = "\n".join(m.note for m in made)
    assert "BRISBANE" not in notes, notes
    assert "(before move 2, run 2 Brisbane - Cairns; 2 Brisbane - Southport)" in notes, notes

"""Routes written in a mail that run but earn less than the company's best (issue 29: one mail per
company turn). Every title runs the best instead and says so in the reply, each for its book's
reason (title data ``weaker_run``, ``pbm.e18xx.pbem.intent.best_run_instead``): 18GA and 18AL
4.2.3.1 require the best run "if any player who owns stock in the corporation insists"; 18VA 4.5.5
requires "the maximum possible earnings" outright; 1848 by ruling (rulings-1848.md, 10)."""
import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError

from .helpers import intent_mail, playthrough_game

CASES = {  # a company at its run with two trains: the mail runs only the first of its best routes
    "18GA": (("ga", 87, 111, "-s12v", 3), "CoG", "run 2 D4 E7", 40, 70,
             "4.2.3.1: the routes must earn the most possible (70); these earn 40; the best is 'run 2 D4-2 E7; "
             "2 F6 E7'; any stockholder may insist on the best run, so CoG ran the best instead"),
    "18VA": (("va", 79, 114, "-s12v", 3), "RFPR", "run 2 F7 F11", 40, 80,
             "'run 2 F7 F11' earns $40; a company runs for the most it can (rule 4.5.5), so its best routes ran "
             "instead: 'run 2 F7 F11; 2 F7 F5' for $80"),
}


@pytest.mark.parametrize("title", sorted(CASES))
def test_weaker_routes_by_mail_run_the_best(title):
    (key, upto, seed, suffix, players), corp, line, weaker, best, said = CASES[title]
    g = playthrough_game(key, upto, seed=seed, suffix=suffix, players=players)
    assert g.current_entity() == corp
    made, notes = intent_mail(g, line)
    assert made[-1] == "run auto", made
    assert said in notes, notes
    assert g.state.round.revenue == best  # the best run, not the written one's $weaker
    # the engine itself (a replay, the moderator's 'pbm 18xx move') still refuses the weaker run
    from pbm.e18xx.pbem.moves import for_game, parse_moves

    g2 = playthrough_game(key, upto, seed=seed, suffix=suffix, players=players)
    player = g2.controller(corp)
    while g2.current_entity() == corp and "run_routes" not in g2.or_actions(corp):
        g2.process(A.Pass(corp))
    run = for_game(g2, player, parse_moves(line, player)[0])
    with pytest.raises(GameError, match=f"must earn the most possible \\({best}\\); these earn {weaker}"):
        g2.process(run)


def test_a_title_without_the_data_keeps_the_refusal():
    from types import SimpleNamespace

    from pbm.e18xx.pbem.intent import best_run_instead

    g = SimpleNamespace(title=SimpleNamespace(data={}))
    exc = GameError("the routes must earn the most possible (70); these earn 40")
    assert best_run_instead(g, 1, None, A.RunRoutes("X", (A.RouteSpec("2", ("A1", "B2")),)), exc) is None

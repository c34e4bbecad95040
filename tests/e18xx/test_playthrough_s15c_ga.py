"""Play-through by mail s15c of 18GA (issue 29 acceptance, a fresh short game; seed 211, five players
Ann, Bob, Cy, Di, Eve, every seat written from the rulebook alone): the findings, each with the mail
that showed it (tests/e18xx/playthrough/ga-s15c.jsonl holds the game, 72 actions, 7 company turns)."""
from .helpers import playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s15c game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=211, suffix="-s15c", players=5, events=events)


def test_the_idle_train_beside_a_running_one_of_its_kind_is_the_other():
    """W&A, OR 3.1 (mail 047): W&A owns two 2 trains and the mail ran one ('run a 2 train Atlanta -
    Rome'). 'What happened' said "W&A's 2 train runs D4-1 Atlanta - C3 Rome for $50" and then
    "W&A's 2 train runs no route": the same words for the train that ran and the one that did not.
    The idle one is "the other 2 train" (4.2.3(j): "When a corporation operates more than one train")."""
    said = texts_at(game(68, events=True), 68)
    assert "W&A's 2 train runs D4-1 Atlanta - C3 Rome for $50" in said
    # the reason: W&A's second 2 train had no route left beside the first (s17: once "the run named no
    # route for it", as if the player had left it out)
    assert ("W&A's other 2 train runs no route: no route was left for it: each route it could run needs track "
            "the company's other trains use, or reaches no second stop from the company's stations") in said
    assert not [t for t in said if t.startswith("W&A's 2 train runs no route")]

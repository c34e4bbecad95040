"""The computer player draws among equal moves by the game's seed (issue 28: "1,000 seeded
computer-played games" must be different games; the design card: all randomness from numpy
Generators seeded from (game seed, turn, purpose))."""
from __future__ import annotations

from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.computer import choose


def _played(title: str, seed: int, players: int, upto: int) -> Game:
    g = Game(title, [f"Tycoon {chr(65 + i)}" for i in range(players)], seed)
    while len(g.actions) < upto and not g.finished:
        act = choose(g)
        assert act in g.legal_actions(), act  # only ever a listed move
        g.process(act)
    return g


def _log(g: Game) -> list[dict]:
    return [a.to_dict() for a in g.actions]


def test_the_same_seed_plays_the_same_game():
    assert _log(_played("18AL", 5, 4, 150)) == _log(_played("18AL", 5, 4, 150))


def test_other_seeds_play_other_games():
    """Before, the computer took the first of equal moves: every seed of a player count gave the
    same game (18GA 40000 and 40018 action for action); now 8 seeds give 8 games."""
    for title, players, upto in (("18GA", 3, 200), ("1848", 4, 200), ("18VA", 3, 200), ("18AL", 5, 200)):
        games = {tuple(map(str, _played(title, seed, players, upto).actions)) for seed in range(8)}
        assert len(games) == 8, (title, len(games))


def test_a_choice_among_equals_is_drawn_but_the_rules_still_decide():
    """The auction: the minimum bid on the cheapest private it can afford (its rule) -- equal prices
    only are drawn among, so the bid is always the cheapest offered."""
    for seed in range(6):
        g = Game("18GA", ["Tycoon A", "Tycoon B", "Tycoon C"], seed)
        act = choose(g)
        bids = [a for a in g.legal_actions() if type(a).__name__ == "Bid"]
        assert type(act).__name__ == "Bid" and act.price == min(b.price for b in bids), act

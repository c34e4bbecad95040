"""Shared helpers for the 18xx tests: random legal play."""
from __future__ import annotations

import json
import random
from pathlib import Path

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game

WEIGHTS = {A.Pass: 0.6, A.BuyShares: 3.0, A.Par: 3.0, A.SellShares: 0.2, A.BuyTrain: 2.0, A.Bid: 2.0}


def pick(rng: random.Random, acts: list[A.Action]) -> A.Action:
    weights = []
    for a in acts:
        w = WEIGHTS.get(type(a), 1.0)
        if isinstance(a, A.Dividend):
            w = 3.0 if a.kind == "payout" else 1.0
        weights.append(w)
    return rng.choices(acts, weights)[0]


RULE_SETS = [(), ("double_yellow_first_or", "end_at_250"), ("site_ebuy", "site_routes", "site_auction"),
             ("soft_rust_4t", "new_georgia_florida_home", "remove_cog_token", "unlimited_8_trains",
              "macon_tile_in_brunswick", "site_red_city_pass")]


def random_game(seed: int, players: int = 4, max_actions: int = 5000, stop_at: int | None = None,
                check_cash: bool = True, rules: tuple[str, ...] = (), title: str = "18GA",
                prefix: str = "P") -> Game:
    rng = random.Random(seed)
    g = Game(title, [f"{prefix}{i}" for i in range(players)], seed, rules)
    total = g.total_cash()
    for n in range(max_actions):
        if g.finished or (stop_at is not None and n >= stop_at):
            break
        acts = g.legal_actions()
        assert acts, f"no legal action for {g.current_entity()} in {g.state.round.kind}"
        g.process(pick(rng, acts))
        if check_cash:
            assert g.total_cash() == total, f"cash not conserved after {g.actions[-1]}"
    return g


# -- the play-throughs by mail (issue 29): their games kept as action lists ----------------------
PLAYTHROUGH = Path(__file__).parent / "playthrough"
PLAYTHROUGH_TITLES = {"al": "18AL", "aus": "1848", "ga": "18GA", "va": "18VA"}


def playthrough_game(key: str, upto: int, *, seed: int, suffix: str = "", players: int = 3,
                     events: bool = False) -> Game:
    """A play-through's game ``key`` (players Ann, Bob and Cy, and Di with ``players=4``) after its
    first ``upto`` actions, from tests/e18xx/playthrough/<key><suffix>.jsonl; with ``events``,
    replayed with the event recorder on (which must never fail)."""
    names = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"][:players]
    g = Game(PLAYTHROUGH_TITLES[key], names, seed, (), [str(i) for i in range(1, players + 1)])
    if events:
        from pbm.e18xx.events import attach
        attach(g)
    lines = (PLAYTHROUGH / f"{key}{suffix}.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines[:upto]:
        g.process(A.action_from_dict(json.loads(line)))
    if events:
        assert g.recorder.failures == 0
    return g


def texts_at(g: Game, seq: int) -> list[str]:
    """The texts of the events action ``seq`` of ``g`` caused (``g`` replayed with ``events``)."""
    from pbm.e18xx.events import money_of, recorded
    money = money_of(g.title)
    return [e.text(money) for e in recorded(g) if e.seq == seq]


def intent_mail(g: Game, text: str) -> tuple[list[str], str]:
    """``text`` as the acting player's mail, written as intent: (actions made, the reply's notes)."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import format_action, parse_moves

    player = g.controller(g.current_entity())
    made, notes = play_intent(g, player, parse_moves(text, player))
    return [format_action(m.action) for m in made], "\n".join(notes)


def intent_refusal(g: Game, text: str) -> str:
    """Why the acting player's mail ``text`` is refused (it must be)."""
    import pytest

    from pbm.e18xx.core.errors import GameError

    with pytest.raises(GameError) as err:
        intent_mail(g, text)
    return str(err.value)

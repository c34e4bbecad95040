"""Issue 29 leftovers: players read and write trains by type (``4``, ``2+``, ``1G``), never by the
engine's ids (``4-2``). The state's train lists, the listed moves and the events name types; a mail
may write ``buy train 4 from TAG 300``, ``discard 3`` or ``trade 4`` and gets the lowest-numbered
train of that type (trains of one type are alike); the id form stays accepted for old mails."""
from __future__ import annotations

import random
import re
from functools import lru_cache

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.state import clone_state
from pbm.e18xx.pbem.games import legal_lines
from pbm.e18xx.pbem.moves import for_game, format_action, parse_moves
from pbm.e18xx.render.view import describe
from tests.e18xx.helpers import pick

TRAIN_ID = re.compile(r"(?<![\w-])\d+[A-Z+]*-\d+(?![\w-])")


@lru_cache(maxsize=4)
def _log(title: str, players: int, seed: int, upto: int) -> tuple[A.Action, ...]:
    rng = random.Random(seed)
    g = Game(title, [f"Player{i}" for i in range(players)], seed)
    out = []
    for _ in range(upto):
        a = pick(rng, g.legal_actions())
        out.append(a)
        g.process(a)
    return tuple(out)


def random_game(title: str, players: int, seed: int, upto: int) -> Game:
    """Random legal play, as test_move_lists does, after ``upto`` actions."""
    g = Game(title, [f"Player{i}" for i in range(players)], seed)
    for a in _log(title, players, seed, upto):
        g.process(a)
    return g


def ga_buying() -> Game:
    """18GA: GA buys trains; SAL owns two 2 trains (2-0 and 2-1) GA may buy."""
    g = random_game("18GA", 3, 1, 127)
    assert g.current_entity() == "GA" and g.state.corporations["SAL"].trains[:2] == ["2-0", "2-1"]
    return g


def test_the_listed_train_purchase_names_the_type_and_buys_the_lowest_of_them():
    g = ga_buying()
    lines = legal_lines(g, limit=10 ** 6)
    buys = [ln for ln in lines if ln.startswith("buy train")]
    assert buys and not any(TRAIN_ID.search(ln) for ln in buys), buys
    line = next(ln for ln in buys if " from SAL " in ln)
    assert line.startswith("buy train 2 from SAL for "), line
    player = g.controller(g.current_entity())
    buyer = g.current_entity()
    (mv,) = parse_moves(line, player)
    g.process(for_game(g, player, mv))
    assert "2-0" in g.state.corporations[buyer].trains  # the lowest of GA's two 2 trains


def test_buy_train_by_type_from_a_company_with_a_price_and_the_old_id_form():
    g = ga_buying()
    player, buyer = g.controller(g.current_entity()), g.current_entity()
    snap, n = clone_state(g.state), len(g.actions)
    (mv,) = parse_moves("buy train 2 from SAL 100", player)
    act = for_game(g, player, mv)
    assert (act.train, act.seller, act.price) == ("2-0", "SAL", 100)
    g.process(act)
    assert g.state.corporations[buyer].trains[-1] == "2-0"
    g._restore(snap)
    del g.actions[n:]
    (mv,) = parse_moves("buy train 2-1 from SAL 100", player)  # an old mail's id form
    g.process(for_game(g, player, mv))
    assert g.state.corporations[buyer].trains[-1] == "2-1"


def test_the_state_lists_trains_by_type_without_ids():
    g = ga_buying()
    text = describe(g)
    corp_lines = [ln for ln in text.splitlines() if " trains " in ln]
    assert corp_lines and not any(TRAIN_ID.search(ln) for ln in corp_lines), corp_lines
    assert any(re.search(r"trains 2, 2\b", ln) for ln in corp_lines if ln.strip().startswith("SAL ")), corp_lines


def test_moves_are_shown_by_type():
    assert format_action(A.BuyTrain("ABC", "4-2", 300, seller="TAG")) == "buy train 4 from TAG 300"
    assert format_action(A.BuyTrain("ABC", "8-0", 800, "D", "4-1")) == "buy train 8 as D 800 trade 4"
    assert format_action(A.DiscardTrain("ABC", "3-4")) == "discard 3"
    assert format_action(A.RunRoutes("ABC", (A.RouteSpec("2-3", ("D7-0", "E6-0")),))) == "run 2 D7-0 E6-0"


def test_discard_by_type_takes_the_lowest_of_that_type():
    from pbm.e18xx.pbem.moves import discard_by_type

    g = ga_buying()
    got = discard_by_type(g, A.DiscardTrain("SAL", "2"))
    assert got.train == "2-0"

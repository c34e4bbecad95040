"""A stored game's replay kept between moves (issue 32, pbm.e18xx.replay.ReplayCache): a state taken
up again is, in every part, the state a replay from the start gives; it is used only for the same
setup and the same first actions."""

from __future__ import annotations

import functools
import types

import pytest
from sqlalchemy import delete, select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.title import Title
from pbm.e18xx.events import attach, recorded
from pbm.e18xx.pbem.games import Replayed, create_game, replay_rows, step
from pbm.e18xx.pbem.computer import choose
from pbm.e18xx.fixtures import load_fixture
from pbm.e18xx.replay import REPLAYS, Replayer, freeze, thaw
from pbm.models import Action18
from pbm.seats import SeatRequest

_ATOM = (str, bytes, int, float, bool, complex, type(None), range)
_END = object()


def graph(root) -> list[str]:
    """The whole object graph of ``root`` as tokens: each object's type, its attributes or items in
    their order, values, and which mutable objects are shared (a second visit is a back reference).
    Functions and the title's definitions (shared by every game) only by name."""
    out: list[str] = []
    seen: dict[int, int] = {}
    stack = [root]
    while stack:
        o = stack.pop()
        if o is _END:
            out.append(")")
            continue
        if isinstance(o, _ATOM):
            out.append(repr(o))
            continue
        if isinstance(o, (types.FunctionType, types.MethodType, functools.partial, type, Title)):
            out.append(f"<{type(o).__name__} {getattr(o, '__qualname__', '')}>")
            continue
        if type(o) in (tuple, frozenset):
            out.append(type(o).__name__)  # immutable: shared or not makes no difference
        elif id(o) in seen:
            out.append(f"@{seen[id(o)]}")
            continue
        else:
            seen[id(o)] = len(seen)
            out.append(f"{type(o).__qualname__}#{seen[id(o)]}")
        if isinstance(o, dict):
            kids = [x for kv in o.items() for x in kv]
        elif isinstance(o, (list, tuple)):
            kids = list(o)
        elif isinstance(o, (set, frozenset)):
            kids = sorted(o, key=repr)
        else:
            attrs = dict(getattr(o, "__dict__", {}))
            for cls in type(o).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if hasattr(o, slot) and slot not in attrs:
                        attrs[slot] = getattr(o, slot)
            kids = [x for kv in attrs.items() for x in kv]
        stack.append(_END)
        stack.extend(reversed(kids))
    return out


def _actions(rel: str) -> tuple[Game, list[dict]]:
    export, where = load_fixture(rel)
    if export is None:
        pytest.skip(where)
    game = Replayer(export).run()
    return game, [a.to_dict() for a in game.actions]


def _fresh(g0: Game) -> Replayed:
    g = Game(g0.title.name, list(g0.setup.players), g0.setup.seed, g0.optional_rules, g0.setup.player_ids)
    attach(g)
    return Replayed(g, g.total_cash())


@pytest.mark.parametrize("fixture", ["18GA/18GA_game_end_bank.json", "1848/1848_game_end_bank.json",
                                     "18AL/1446.json", "18VA/18VA_game_end_bank.json"])
def test_a_state_taken_up_again_replays_on_to_the_state_of_a_replay_from_the_start(fixture):
    g0, dicts = _actions(fixture)
    full = _fresh(g0)
    for d in dicts:
        step(full, A.action_from_dict(d), rollback=False)
    whole = graph(full)
    for cut in (1, len(dicts) // 2, len(dicts) - 1):
        rep = _fresh(g0)
        for d in dicts[:cut]:
            step(rep, A.action_from_dict(d), rollback=False)
        again = thaw(freeze(rep, g0.title.name))
        assert again.game is not rep.game and again.game.title is rep.game.title  # a copy; the title shared
        for d in dicts[cut:]:
            step(again, A.action_from_dict(d), rollback=False)
        assert [repr(e) for e in recorded(again.game)] == [repr(e) for e in recorded(full.game)]
        assert graph(again) == whole, f"{fixture}: cut after {cut} actions"


def test_the_copy_kept_is_not_changed_by_what_the_caller_does_next():
    g0, dicts = _actions("18GA/18GA_game_end_bankrupt.json")
    rep = _fresh(g0)
    for d in dicts[:100]:
        step(rep, A.action_from_dict(d), rollback=False)
    blob = freeze(rep, g0.title.name)
    before = graph(thaw(blob))
    for d in dicts[100:150]:
        step(rep, A.action_from_dict(d), rollback=False)
    assert graph(thaw(blob)) == before != graph(rep)


def _computer_game(session, moves: int):
    row, _ = create_game(session, title="18GA", seed=3, name="cache-1",
                         seats=[SeatRequest(line=i, name=n, email="") for i, n in enumerate(["Ann", "Bob", "Cy"], 1)])
    g = Game("18GA", ["Ann", "Bob", "Cy"], 3, (), None)
    for seq in range(1, moves + 1):
        act = choose(g)
        g.process(act)
        session.add(Action18(game_id=row.id, seq=seq, player_number=None, action=act.to_dict()))
    session.flush()
    return row, g


def test_replay_rows_takes_up_the_kept_state_only_for_the_same_first_actions(sqlite_url):
    REPLAYS.clear()
    with session_scope(sqlite_url) as s:
        row, engine = _computer_game(s, 120)
        first = replay_rows(s, row)
        hits = REPLAYS.hits
        second = replay_rows(s, row)  # the same log: the kept state, a copy of it
        assert REPLAYS.hits == hits + 1 and second.game is not first.game
        assert graph(second) == graph(first)
        second.game.process(choose(second.game))  # what a caller does with its copy stays its own
        assert graph(replay_rows(s, row)) == graph(first)
        # one more action stored: the kept state and that one action
        act = choose(engine)
        engine.process(act)
        s.add(Action18(game_id=row.id, seq=121, player_number=None, action=act.to_dict()))
        s.flush()
        hits = REPLAYS.hits
        longer = replay_rows(s, row)
        assert REPLAYS.hits == hits + 1 and len(longer.game.actions) == 121
        REPLAYS.clear()
        assert graph(replay_rows(s, row)) == graph(longer)  # as a replay from the start gives it
        # a log changed under the kept state: its last action taken back, another in its place, and one more
        s.execute(delete(Action18).where(Action18.game_id == row.id, Action18.seq == 121))
        other = Game("18GA", ["Ann", "Bob", "Cy"], 3, (), None)
        for a in s.scalars(select(Action18.action).where(Action18.game_id == row.id).order_by(Action18.seq)):
            other.process(A.action_from_dict(a))
        instead = [a for a in other.legal_actions() if a.to_dict() != act.to_dict()][-1]
        other.process(instead)
        after = choose(other)
        s.add(Action18(game_id=row.id, seq=121, player_number=None, action=instead.to_dict()))
        s.add(Action18(game_id=row.id, seq=122, player_number=None, action=after.to_dict()))
        s.flush()
        misses = REPLAYS.misses
        changed = replay_rows(s, row)
        assert REPLAYS.misses == misses + 1
        assert [a.to_dict() for a in changed.game.actions[-2:]] == [instead.to_dict(), after.to_dict()]
        REPLAYS.clear()
        assert graph(changed) == graph(replay_rows(s, row))


def test_no_state_is_kept_when_the_cache_is_switched_off(sqlite_url, monkeypatch):
    REPLAYS.clear()
    monkeypatch.setenv("PBM_REPLAY_CACHE", "0")
    with session_scope(sqlite_url) as s:
        row, _ = _computer_game(s, 30)
        replay_rows(s, row)
        replay_rows(s, row)
    assert REPLAYS.kept == {}

"""Seeded games the 18xx.games engine accepted whole, replayed by pbm alone (issue 28: "a few
hundred of those games run in the suite as pbm-only property tests (no Ruby in CI)").

Each game in ``referee_replays/<TITLE>.jsonl.gz`` was played by pbm (``seeded_games.py``: random
legal moves or the computer player, every player count and rule set of the runs) and exported; the
site's engine processed the export action by action and its state equalled pbm's after every
action (docs/18xx/engine.md, "Ninth run").  Here pbm replays each game's own log (a best run as the
routes it ran, as the export wrote them for the site) and checks:

* after every action: no money made or lost (the total of every holder's cash is the bank's
  starting cash), and every started company's certificates add up to 100 %;
* every ``EVERY`` actions and at the end: cash, share prices, trains, round and whose turn are those
  of the game the site agreed with (``seeded_games.checkpoint``), and the end state's fingerprint.

A rule change that alters any of these games fails here, naming the game, the action and what
changed; then the game must go through the referee again (or the change is a ruling, written in the
title's rulings).  ``scripts/keep_referee_games.py`` writes the files.
"""
from __future__ import annotations

import gzip
import json
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.exchange import fingerprint

from .seeded_games import checkpoint

DATA = Path(__file__).parent / "referee_replays"
TITLES = ("18GA", "18AL", "1848", "18VA")


@lru_cache(maxsize=None)
def _games(title: str) -> tuple[dict, ...]:
    path = DATA / f"{title}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


def _cases() -> list:
    out = []
    for title in TITLES:
        for i, k in enumerate(_games(title)):
            out.append(pytest.param(title, i, id=f"{title}-{k['kind']}-{k['seed']}-{k['players']}p"))
    return out


def _share_totals(g: Game, memo: dict[tuple[str, int], tuple[str, int]]) -> dict[str, int]:
    """Each company's issued certificates' percents added up (``memo``: a certificate's company and
    percent by its id and its company's size, which an 18VA conversion changes)."""
    totals: dict[str, int] = defaultdict(int)
    corps = g.state.corporations
    for sid, owner in g.state.share_owner.items():
        if owner.startswith("unissued:"):  # 18VA: the certificates a conversion issues (4.5.1)
            continue
        sym = sid.split("_")[0]
        key = (sid, corps[sym].size)
        if key not in memo:
            memo[key] = (sym, g.sid_percent(sid))
        totals[sym] += memo[key][1]
    return totals


def test_the_kept_games_are_a_few_hundred_of_every_title_player_count_and_kind():
    kept = [k for t in TITLES for k in _games(t)]
    assert len(kept) >= 300
    for title in TITLES:
        games = _games(title)
        counts = {k["players"] for k in games}
        assert len(counts) >= 3, (title, counts)
        assert {k["kind"] for k in games} == {"random", "computer"}, title
        assert all(k["checkpoints"][-1]["finished"][0] for k in games), f"{title}: every kept game is played to its end"


@pytest.mark.parametrize("title,index", _cases())
def test_a_kept_game_replays_with_cash_and_shares_conserved_to_the_agreed_outcomes(title, index):
    k = _games(title)[index]
    g = Game(title, [f"Tycoon {chr(65 + i)}" for i in range(k["players"])], k["seed"], k["optional_rules"],
             [str(i + 1) for i in range(k["players"])])
    total = g.total_cash()
    points = {p["action"]: p for p in k["checkpoints"]}
    where = f"{title} {k['kind']} seed {k['seed']}"
    memo: dict[tuple[str, int], tuple[str, int]] = {}
    for n, d in enumerate(k["actions"], 1):
        g.process(A.action_from_dict(d), rollback=False)
        assert g.total_cash() == total, f"{where}: money made or lost by action {n} ({d})"
        bad = {c: v for c, v in _share_totals(g, memo).items() if v != 100}
        assert not bad, f"{where}: certificates do not add up to 100 % after action {n} ({d}): {bad}"
        if n in points:
            assert checkpoint(g) == points[n], f"{where}: the state after action {n} is not the agreed one"
    assert g.finished
    assert fingerprint(g) == k["fingerprint"], f"{where}: the end state is not the agreed one"

"""The seeded games of the differential runs against 18xx.games (issue 28), made by pbm alone.

A game is named by (title, kind, seed); ``kind`` is ``computer`` (pbem/computer.py's player) or
``random`` (random legal moves, ``helpers.pick``).  The seed chooses the player count (seed modulo
the number of counts the title allows) and the optional rules (seed divided by that number, cycling
through the title's rule sets): computer games cycle through no rule, the ``site_*`` flags together
and each other rule alone; random games always have the ``site_*`` flags, plus none or each other
rule alone.  Rules the site plays differently or not at all are left out (``LEAVE_OUT``).

The random player keeps off a few moves whose outcome is a known departure of the site from the
book (docs/18xx/rulings-*.md), so that a game goes on to later play:

* 18GA: the Macon & Birmingham is never sold between players (the site gives its CoG share again);
* 1848: a company whose step before its dividend lists a loan never passes it;
* 18VA: no player buys up to the lower of pbm's and the site's certificate limit (after a
  bankruptcy the site keeps the limit of the starting player count).

Games are written as 18xx.games exports (``pbem/exchange.py``) while they are played, as the
differential runs did: the export inserts a bankrupt president's sales before his ``bankrupt``
(18VA), so a game is only reproduced by playing it through :func:`play`.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.title import load_title
from pbm.e18xx.pbem import computer, exchange
from pbm.e18xx.replay import site_rules

from .helpers import pick

LEAVE_OUT = {"18AL": {"LN_home_city_moved"},
             "18GA": {"end_at_250", "macon_tile_in_brunswick", "unlimited_8_trains"}}
SITE_CERT_LIMIT_18VA = {2: 27, 3: 18, 4: 15, 5: 10}  # the site's, by the starting player count
MAX_ACTIONS = 9000


def setup(title: str, kind: str, seed: int) -> tuple[int, list[str]]:
    """The player count and optional rules of game (title, kind, seed)."""
    t = load_title(title)
    counts = list(range(t.data["players"]["min"], t.data["players"]["max"] + 1))
    flags = tuple(site_rules(title))
    others = [r for r in t.data.get("optional_rules", {})
              if not r.startswith("site_") and r not in LEAVE_OUT.get(title, ())]
    if kind == "computer":
        sets: list[tuple[str, ...]] = [(), flags] + [(r,) for r in others]
    else:
        sets = [flags] + [flags + (r,) for r in others]
    return counts[seed % len(counts)], list(sets[(seed // len(counts)) % len(sets)])


def _allowed(g: Game, acts: list[A.Action], players: int) -> list[A.Action]:
    title = g.title.name
    if title == "18GA":
        acts = [a for a in acts if not (isinstance(a, A.BuyCompany) and a.company == "M&BR"
                                        and f"P:{a.entity}" in g.state.cash)] or acts
    if title == "1848" and g.state.round.kind == "operating":
        corp = g._or_operator()  # noqa: SLF001
        block = g._open_block(corp)[0] if corp else None  # noqa: SLF001
        if block is not None and block.name == "loan_before_dividend" \
                and any(isinstance(a, A.TakeLoan) for a in acts):
            acts = [a for a in acts if not isinstance(a, A.Pass)] or acts
    if title == "18VA":
        limit = min(SITE_CERT_LIMIT_18VA[players], g.cert_limit())

        def under(a: A.Action) -> bool:
            if isinstance(a, (A.BuyShares, A.Par)) and f"P:{a.entity}" in g.state.cash:
                return g.num_certs(a.entity) + 1 < limit
            return True

        acts = [a for a in acts if under(a)] or acts
    return acts


def moves(g: Game, kind: str, seed: int) -> Iterator[A.Action]:
    """The moves of the game's player of ``kind``, each chosen on the state the last one left."""
    rng = random.Random(seed)
    players = len(g.state.players)
    while not g.finished and len(g.actions) < MAX_ACTIONS:
        if kind == "computer":
            act = computer.choose(g)
            if act is None:
                return
            yield act
            continue
        acts = g.legal_actions()
        if not acts:
            return
        yield pick(rng, _allowed(g, acts, players))


def play(title: str, kind: str, seed: int,
         on_action: Callable[[Game, dict[str, Any]], None] | None = None) -> tuple[Game, dict[str, Any]]:
    """Play game (title, kind, seed) to its end, writing it as an 18xx.games export as it goes.

    ``on_action(game, written)`` is called after each of pbm's actions is written (not for the
    passes the export adds for the site's own steps)."""
    players, rules = setup(title, kind, seed)
    names = [f"Tycoon {chr(65 + i)}" for i in range(players)]
    pids = [str(i + 1) for i in range(players)]
    g = Game(title, names, seed, rules, pids)
    if on_action is None:
        export = exchange._export_dict(g, moves(g, kind, seed), dict(zip(names, pids)), names, rules,  # noqa: SLF001
                                       game_id=seed, name=f"{title} {kind} {seed}", seed=seed, ended=None)
        return g, export
    original = exchange._export_action  # noqa: SLF001

    def written(game: Game, act: A.Action, info: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
        d = original(game, act, info, ids)
        on_action(game, d)
        return d

    exchange._export_action = written  # noqa: SLF001
    try:
        export = exchange._export_dict(g, moves(g, kind, seed), dict(zip(names, pids)), names, rules,  # noqa: SLF001
                                       game_id=seed, name=f"{title} {kind} {seed}", seed=seed, ended=None)
    finally:
        exchange._export_action = original  # noqa: SLF001
    return g, export


def checkpoint(g: Game) -> dict[str, Any]:
    """What a kept game pins at a checkpoint: every holder's cash, each started company's share
    price and trains, the round and who acts (readable when a test fails)."""
    s = g.state
    return {
        "action": len(g.actions),
        "cash": {k: v for k, v in sorted(s.cash.items()) if v},
        "prices": {c.sym: g.share_price(c.sym) for c in s.corporations.values() if c.price and not c.closed},
        "trains": {c.sym: [s.trains[t].variant or s.trains[t].name for t in c.trains]
                   for c in s.corporations.values() if c.trains},
        "round": [s.round.kind, s.turn, s.round.num, g.phase.name, g.current_entity()],
        "finished": [s.finished, s.end_reason],
    }

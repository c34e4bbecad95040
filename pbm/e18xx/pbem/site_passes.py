"""The passes 18xx.games needs that pbm makes by itself, for the export (issue 28).

On pbm a company's first action of its turn other than converting declines to convert
(18VA 4.5.1: "at the beginning of the Corporation's turn"); 18xx.games wants the decision
as an explicit ``pass`` first.  The exporter asks :class:`SitePasses` before and after every action
which passes to write; they carry ``"pbm_auto": true`` so that pbm's own replay of the
export skips them (its engine made them already).
"""
from __future__ import annotations

from typing import Any

from pbm.e18xx.core import actions as A


def _round_key(game: Any) -> tuple[str, int, int]:
    r = game.state.round
    return (r.kind, game.state.turn, r.num)


class SitePasses:
    def __init__(self, game: Any):
        self.game = game
        self.consecutive = 0  # passes in a row in this stock round, as the site counts them
        self.before: tuple[Any, ...] = ()

    def _stock(self) -> bool:
        return self.game.state.round.kind == "stock" and not self.game.state.finished

    def _players(self) -> list[str]:
        return list(self.game.state.round.entities)

    def pre(self, act: A.Action) -> list[str]:
        """Entities that must pass on the site before ``act`` (the 18VA conversion decision)."""
        g = self.game
        out: list[str] = []
        if g.state.round.kind == "operating" and not isinstance(act, (A.Convert, A.Pass)):
            step, who = g.open_step()
            if step is not None and step.name == "convert" and who == act.entity:
                out.append(who)
        self.before = (_round_key(g), self._players() if self._stock() else [],
                       g.state.round.index if self._stock() else 0)
        return out

    def post(self, act: A.Action) -> list[str]:
        """Passes to write after ``act`` (none so far: both engines skip a player who can do nothing)."""
        return []

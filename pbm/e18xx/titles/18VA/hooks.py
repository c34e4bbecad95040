"""18VA hooks: its own step, conversion to ten shares at the start of a company's turn
(4.5.1; the mechanics are engine code switched on by title data ``conversion``), and 18VA's
own facts for ``pbm 18xx show --json``.  Freight and passenger routes are route finding
(``freight.py``, title data ``stop_groups``), not a step."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.hooks import TitleHooks
from pbm.e18xx.rounds.step import Step, insert_after

if TYPE_CHECKING:  # typing only
    from pbm.e18xx.core.protocol import StepGame


class Convert(Step):
    """4.5.1: a five-share company that has operated may become a ten-share one at the start
    of its turn, once the phase allows it."""
    name = "convert"
    takes = ("convert", "pass")
    description = "Convert to a ten-share company — may skip"
    first_only = True  # "at the beginning of the Corporation's turn": not after buying a private

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        return ["convert", "pass"] if g._may_convert(corp) else []

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        g._convert(corp)
        g.state.round.steps_done.add(self.name)
        return False


class Hooks(TitleHooks):
    def operating_steps(self, steps: list) -> list:
        return insert_after(steps, "home_token", Convert())

    def describe(self) -> dict[str, Any]:
        g = self.game
        s = g.state
        return {
            "corporation_sizes": {c.sym: c.size for c in s.corporations.values()},
            "train_sides": {t.tid: t.variant for t in s.trains.values() if t.owner.startswith("C:")},
            "extra_stations": {f"{h}-{i}": list(v) for (h, i), v in s.map.extra_tokens.items()},
            "assigned_bonuses": {f"{sym}:{corp}": hexname for (sym, corp), hexname in s.assignments.items()},
            "train_limits": {c.sym: g.train_limit(c.sym) for c in s.corporations.values() if c.floated},
        }

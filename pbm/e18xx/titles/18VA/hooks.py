"""18VA hooks: everything 18VA plays is switched on by its data (title.json);
this only adds 18VA's own facts to ``pbm 18xx show --json``."""
from __future__ import annotations

from typing import Any

from pbm.e18xx.core.hooks import TitleHooks


class Hooks(TitleHooks):
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

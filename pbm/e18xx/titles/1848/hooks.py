"""1848 Australia hooks: everything 1848 plays is switched on by its data (title.json);
this only adds 1848's own facts to ``pbm 18xx show --json``: loans, the Bank of England,
receiverships, Commonwealth Railways' link and the train sides."""
from __future__ import annotations

from typing import Any

from pbm.e18xx.core.hooks import TitleHooks


class Hooks(TitleHooks):
    def describe(self) -> dict[str, Any]:
        g = self.game
        s = g.state
        lender = g.lender() or ""
        players = [p.name for p in s.players]
        return {
            "loans": {c.sym: c.loans for c in s.corporations.values() if c.loans and c.sym != lender},
            "lender": {"symbol": lender, "cash": s.cash.get(f"C:{lender}", 0), "loans_left": g.loans_left(),
                       "price": g.share_price(lender) if lender else 0},
            "receiverships": sorted(c.sym for c in s.corporations.values() if c.receivership),
            "certificate_limits": {p: g.cert_limit(p) for p in players},
            "joint_home_linked": {c.sym: "joint_home_operates" in s.events or f"linked:{c.sym}" in s.events
                                  or g.homes_linked(*g.joint_homes(c.sym)[:2])
                                  for c in s.corporations.values() if g.joint_homes(c.sym)},
            "train_sides": {t.tid: t.variant for t in s.trains.values() if t.owner.startswith("C:")},
            "events": sorted(e for e in s.events if ":" not in e),
        }

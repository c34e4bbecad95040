"""Receivership (title data ``receivership``; rules 5.5 and 8.4 of 1848 Australia).

A corporation whose price reaches a receivership cell (market flag ``c``) is
taken over by the lending corporation (``bank_corporation``):

* it pays every player other than its director, for each share, its starting
  value; what its treasury lacks the director pays (his cash may go below zero:
  he must then sell shares, see ``cash_crisis``);
* its stations stay on the map as the lender's; its cash goes to the bank, its
  trains and privates leave the game, its shares are worthless and withdrawn;
* everyone's certificate limit becomes ``cert_limits[players][n-1]`` after the
  n-th receivership, the director's ``director_reduction`` lower again for each
  of his companies taken over;
* after the receiverships listed in ``export_train_on`` the cheapest permanent
  train for sale leaves the game as though bought (phases may change);
* the ``end_game_on``-th receivership triggers the end of the game
  (``game_end.receiverships``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.english import a as article

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


class ReceivershipMixin:
    def receivership_cert_limit(self: "Engine", player: str | None) -> int | None:
        spec = self.title.data.get("receivership")
        s = self.state
        if not spec or not s.receiverships:
            return None
        n = str(len(s.players))
        table = spec["cert_limits"][n]
        limit = int(table[min(s.receiverships, len(table)) - 1])
        if player is not None:
            limit -= s.receivership_by_director.get(player, 0) * int(spec["director_reduction"][n])
        return limit

    def enter_receivership(self: "Engine", corp: str) -> None:
        s = self.state
        spec = self.title.data["receivership"]
        lender = self.lender()
        c = s.corporations[corp]
        director = self.president(corp)
        r = s.round
        if r.kind == "operating" and "site_discard_timing" in self.optional_rules and self._or_operator() == corp:
            block = self._open_block(corp)[0]
            names = [st.name for st in self.or_steps]
            late = block is not None and names.index(block.name) >= names.index("loan_before_dividend")
            r.discard_before_next = late and bool(self.crowded_corps())  # waiting before the train removal
        c.receivership = True
        s.receiverships += 1
        if director:
            s.receivership_by_director[director] = s.receivership_by_director.get(director, 0) + 1
        self.log(f"-- {corp} goes into receivership ({s.receiverships}) --")
        # 5.5.2: compensation at the starting value for the other players' shares
        par = self._par_price(corp)
        for p in s.players:
            if p.name == director:
                continue
            units = self.percent_of(p.key, corp) // self.unit(corp)
            if not units:
                continue
            amount = units * par
            from_treasury = min(amount, max(0, s.cash[c.key]))
            if from_treasury:
                self.transfer(c.key, p.key, from_treasury)
            if amount > from_treasury and director:
                s.cash[f"P:{director}"] -= amount - from_treasury
                s.cash[p.key] += amount - from_treasury
            self.log(f"{corp} pays {p.name} {amount} for {units} shares")
        # 5.5.5: stations to the lender; everything else leaves the game
        m = s.map
        for slots in m.tokens.values():
            for j, t in enumerate(slots):
                if t == corp:
                    slots[j] = lender
        m.version += 1
        for tid in list(c.trains):
            s.trains[tid].owner = "removed"
        c.trains = []
        for comp in s.companies.values():
            if comp.owner == c.key and not comp.closed:
                comp.closed = True
        if s.cash[c.key] > 0:
            self.transfer(c.key, "bank", s.cash[c.key])
        for sid, owner in list(s.share_owner.items()):
            if sid.rsplit("_", 1)[0] == corp:
                self.move_share(sid, f"closed:{corp}")
        if c.price is not None:
            s.market[c.price].remove(corp)
            c.price = None
        c.closed = True
        if s.receiverships in spec.get("export_train_on", []):
            self.export_train()
        if s.receiverships >= int(spec.get("end_game_on", 99)) and "receiverships" in \
                self.title.data.get("game_end", {}) and not s.end_trigger:
            s.end_trigger = ("receiverships", self.title.data["game_end"]["receiverships"])

    def export_train(self: "Engine") -> None:
        """5.4.4: the cheapest permanent train for sale leaves the game as though bought ("regarded
        as having been sold and can bring about a phase change": the first 5 begins phase 5).  With
        ``site_export_phase`` (18xx.games) it begins no phase unless the next phase begins with it."""
        s = self.state
        rusting = {td.name for td in self.title.trains if td.rusts_on}
        outside = {td.name for td in self.title.trains if td.available_on}
        train = next((t for t in s.trains.values() if t.owner == "depot" and t.name not in rusting
                      and t.name not in outside), None)
        if train is None:
            return
        train.owner = "removed"
        self.log(f"-- {article(train.name)} train leaves the game --")
        self._train_bought_from_depot(train.name, as_sold="site_export_phase" not in self.optional_rules)

    def cash_crisis_player(self: "Engine") -> str | None:
        """5.5.3: a director whose compensation payment left him owing money must sell shares
        (the usual selling rules) until he owes nothing or can sell no more; what he still owes
        stays a debt to the bank (his cash below zero), paid from his next income."""
        s = self.state
        if not self.title.data.get("receivership") or s.round.kind != "operating":
            return None
        for p in s.players:
            if s.cash[p.key] < 0 and any(self.crisis_bundles(p.name, c) for c in s.corporations):
                return p.name
        return None

    def crisis_bundles(self: "Engine", player: str, corp: str) -> list[int]:
        """12.4.1: shares sold to pay compensation may not change a company's director."""
        units = self._sellable_bundles(player, corp)
        if self.president(corp) != player:
            return units
        s = self.state
        others = max((self.percent_of(p.key, corp) for p in s.players if p.name != player), default=0)
        held = self.percent_of(f"P:{player}", corp)
        return [u for u in units if held - u * self.unit(corp) >= others]

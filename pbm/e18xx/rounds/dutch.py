"""The falling-price sale of the private companies (title data ``auction.style: dutch``).

On his turn a player buys any unsold private at its current price (``bid`` with
that price), lowers one private's price by ``auction.step`` (``assign`` with the
private as target; never below its ``auction.min_prices`` entry), or passes.  A
player may pass only if he owns a private, or (rulebook) if every unsold private
is at its lowest price and some private is in a player's hands; optional rule
``site_dutch_pass`` keeps 18xx.games' narrower rule (only owners of a private
pass).  When everybody has passed in a row the sold privates pay their revenue
and the sale goes on.  It ends when all are sold; the player after the last to
act then has priority.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction, InsufficientFunds
from pbm.e18xx.rounds.step import plain

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


class DutchAuctionMixin:
    def _dutch_ref(self: "Engine", key: str, default: str) -> str:
        """The rulebook section of ``key`` (title data ``rule_refs``) for a refusal."""
        return str((self.title.data.get("rule_refs") or {}).get(key) or default)

    def _dutch_floor(self: "Engine", sym: str) -> int:
        return int(self.title.data["auction"].get("min_prices", {}).get(sym, 0))

    def dutch_may_reduce(self: "Engine", sym: str) -> bool:
        comp = self.state.companies[sym]
        return comp.min_bid - int(self.title.data["auction"].get("step", 5)) >= self._dutch_floor(sym)

    def dutch_may_pass(self: "Engine", player: str) -> bool:
        s = self.state
        owns = any(c.owner == f"P:{player}" for c in s.companies.values())
        if owns or "site_dutch_pass" in self.optional_rules:
            return owns
        left = self._auction_companies()
        someone = any(c.owner and c.owner.startswith("P:") for c in s.companies.values())
        return someone and not any(self.dutch_may_reduce(c) for c in left)

    def _dutch_process(self: "Engine", action: A.Action) -> None:
        s = self.state
        r = s.round
        player = action.entity
        if isinstance(action, A.Pass):
            if not self.dutch_may_pass(player):
                left = self._auction_companies()
                if not any(self.dutch_may_reduce(c) for c in left) and \
                        not any(c.owner and c.owner.startswith("P:") for c in s.companies.values()):
                    raise IllegalAction(f"rule {self._dutch_ref('auction_must_buy', '3.1.2')}: every price is at its "
                                        "lowest and no private has been sold: you must buy one")
                raise IllegalAction(f"rule {self._dutch_ref('auction_pass', '3.1.1, 3.1.3')}: you must buy a private or "
                                    "lower a price; you may pass only "
                                    "once you own a private (or when every price is at its lowest and a "
                                    "private has been sold)")
            r.passed.add(player)
            self.log(f"{player} passes")
            if all(p in r.passed for p in r.entities):
                self.payout_companies()
                r.passed.clear()
        elif isinstance(action, A.Assign):
            comp = self.company(action.target)
            if comp.sym not in self._auction_companies():
                raise IllegalAction(f"{comp.sym} is not for sale; for sale: {', '.join(self._auction_companies())}")
            if not self.dutch_may_reduce(comp.sym):
                raise IllegalAction(f"rule {self._dutch_ref('auction_lower', '3.1.1')}: {comp.sym} is at its lowest "
                                    f"price ({self.title.money(comp.min_bid)}); buy it or lower another")
            comp.discount += int(self.title.data["auction"].get("step", 5))
            r.passed.discard(player)
            self.log(f"{player} lowers {comp.sym} to {comp.min_bid}")
        elif isinstance(action, A.Bid):
            comp = self.company(action.company)
            if comp.sym not in self._auction_companies():
                raise IllegalAction(f"{comp.sym} is not for sale; for sale: {', '.join(self._auction_companies())}")
            if action.price != comp.min_bid:
                raise IllegalAction(f"rule {self._dutch_ref('auction_bid', '3.1.1')}: {comp.sym} costs "
                                    f"{self.title.money(comp.min_bid)} now (a private is bought at its current price)")
            if s.cash[f"P:{player}"] < comp.min_bid:
                raise InsufficientFunds(f"rule {self._dutch_ref('bid_cash', '3.1.1')}: {comp.sym} costs "
                                        f"{self.title.money(comp.min_bid)}; {player} has "
                                        f"{self.title.money(s.cash[f'P:{player}'])}")
            r.passed.discard(player)
            self._sell_company(player, comp.sym, comp.min_bid)
            self._fixed_par(player, comp.sym)
        else:
            raise IllegalAction(self.private_buy_refusal(action) or
                                f"in the sale of the privates you may buy a private at its price ('buy P1'), "
                                f"lower a price ('lower P1') or, once you own a private, pass; not {plain(action.type)}")
        r.last_to_act = player
        r.index = (r.index + 1) % len(r.entities)
        if not self._auction_companies():
            self._end_auction()

    def _fixed_par(self: "Engine", player: str, sym: str) -> None:
        """A private carrying a president's certificate at a fixed starting value (``fixed_par``)."""
        ab = self.company_ability(sym, "fixed_par")
        if not ab:
            return
        corp = self.corp(ab["corporation"])
        cells = {self.title.market[r][c].price: (r, c) for r, c in self.title.par_cells()}  # type: ignore[union-attr]
        corp.ipoed = True
        corp.par = cells[int(ab["price"])]
        self._set_price(corp, corp.par)
        self.log(f"{corp.sym} starts at {ab['price']}")
        self._check_float(corp.sym)

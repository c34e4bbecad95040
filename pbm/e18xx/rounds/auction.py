"""The private-company auction at the start (rules 3.1, 3.1.1, 3.1.2).

On your turn buy the cheapest private at face value, bid on a dearer one, or
pass.  When the cheapest has several bids it is auctioned between its bidders
at once; with a single bid it is sold to that bidder.  If everybody passes,
the cheapest private's price drops by $5 (or, once something was bought, the
privates pay their revenue).  The auction itself follows rule 3.1.1 or, with
flag ``site_auction``, 18xx.games.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalAction, InsufficientFunds
from pbm.e18xx.core.state import Bid, RoundState
from pbm.e18xx.rounds.cite import see
from pbm.e18xx.rounds.dutch import DutchAuctionMixin
from pbm.e18xx.rounds.step import plain

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine
    from pbm.e18xx.rounds.step import PlayerStep


class AuctionMixin(DutchAuctionMixin):
    # ------------------------------------------------------------------ auction
    def _auction_companies(self: "Engine") -> list[str]:
        s = self.state
        left = [c for c in s.companies.values() if c.owner is None and not c.closed]
        return [c.sym for c in sorted(left, key=lambda c: c.value)]

    def _start_auction(self: "Engine") -> None:
        self.state.round = RoundState("auction", [p.name for p in self.state.players])

    def _site_auction(self: "Engine") -> bool:
        return "site_auction" in self.optional_rules

    def active_auction(self: "Engine") -> str | None:
        """The private being auctioned among its bidders now, if any."""
        r = self.state.round
        if not r.auctioning:
            return None
        if self._site_auction():
            return r.auctioning if len(r.bids.get(r.auctioning, [])) > 1 else None
        return r.auctioning if r.high is not None else None

    def _auction_style(self: "Engine") -> str:
        return str(self.title.data.get("auction", {}).get("style", "waterfall"))

    def _auction_current(self: "Engine") -> str:
        r = self.state.round
        if r.pending_par:
            return r.pending_par[0]
        company = self.active_auction()
        if company:
            if self._site_auction():  # 18xx.games: the lowest bidder speaks
                return min(r.bids[company], key=lambda b: b.price).player
            return r.auction_seq[r.auction_turn]
        return r.entities[r.index]

    def committed(self: "Engine", player: str) -> int:
        bids = self.state.round.bids.values()
        if self._auction_style() == "bid_all":  # only a player's high bids hold his cash
            return sum(max(bs, key=lambda b: b.price).price for bs in bids
                       if bs and max(bs, key=lambda b: b.price).player == player)
        return sum(b.price for bs in bids for b in bs if b.player == player)

    def max_bid(self: "Engine", player: str, company: str) -> int:
        r = self.state.round
        bids = r.bids.get(company, [])
        if self._auction_style() == "bid_all":
            top = max(bids, key=lambda b: b.price) if bids else None
            own = top.price if top is not None and top.player == player else 0
        else:
            own = next((b.price for b in bids if b.player == player), 0)
        return self.state.cash[f"P:{player}"] - self.committed(player) + own

    def min_bid(self: "Engine", company: str) -> int:
        r = self.state.round
        comp = self.state.companies[company]
        if self._auction_style() == "dutch":
            return comp.min_bid
        if self._auction_style() == "bid_all":
            bids = r.bids.get(company, [])
            if not bids:
                return max(0, comp.min_bid)
            return max(b.price for b in bids) + int(self.title.data["min_bid_increment"])
        if self._may_purchase(company):
            return comp.min_bid
        if r.high is not None and company == self.active_auction():
            return r.high.price + int(self.title.data["min_bid_increment"])
        bids = r.bids.get(company, [])
        return (max(b.price for b in bids) if bids else comp.min_bid) + int(self.title.data["min_bid_increment"])

    def _may_purchase(self: "Engine", company: str) -> bool:
        if self.active_auction():
            return False
        left = self._auction_companies()
        return bool(left) and company == left[0]

    def private_sym(self: "Engine", name: str | None) -> str | None:
        """The private company ``name`` names (any case), or None."""
        up = {c.upper(): c for c in self.state.companies}
        return up.get((name or "").upper())

    def private_buy_refusal(self: "Engine", action: A.Action) -> str | None:
        """``buy X`` for a private X in the sale of the privates that is not its purchase now
        (the mail reader turns the purchase into the sale's own move): why, and what to write
        (issue 29, play-through item 5); None when the move is not such a buy."""
        if isinstance(action, A.BuyCompany) and action.company in self.state.companies \
                and self.state.companies[action.company].owner is None:
            action = A.BuyShares(action.entity, (), action.company)  # 'buy TR for $25': the bank's private
        if not isinstance(action, A.BuyShares):
            return None
        sym = self.private_sym(action.corporation)
        if sym is None:
            return None
        left = self._auction_companies()
        money = self.title.money
        if sym not in left:
            return f"{sym} is not for sale; for sale: {', '.join(left) or 'nothing'}"
        style = self._auction_style()
        if style == "waterfall":
            auct = self.active_auction()
            if auct:
                return f"{auct} is being auctioned: bid on it ('bid <amount> {auct}') or pass"
            cheapest = left[0]
            if self._may_purchase(sym):  # 'buy TR for $25': the cheapest goes at its price only (3.1(a))
                return (f"{sym}, the cheapest unsold private, is bought at its price, "
                        f"{money(self.company(sym).min_bid)}: 'buy {sym}'{see(self.title, 'cheapest_private')}")
            return (f"{sym} is not the cheapest unsold private: you may buy only the cheapest, {cheapest}, at its "
                    f"price ({money(self.company(cheapest).min_bid)}: 'buy {cheapest}'), or bid on {sym}: "
                    f"'bid {self.min_bid(sym)} {sym}' or more{see(self.title, 'cheapest_private')}")
        if style == "dutch":
            return f"{sym} costs {money(self.company(sym).min_bid)} now: 'buy {sym}' buys it at that price"
        return f"the privates are bid for in this sale: 'bid {self.min_bid(sym)} {sym}' or more, or pass"

    def _auction_step(self: "Engine") -> "PlayerStep":
        """The private sale's open step (the first of ``self.auction_steps`` that blocks)."""
        for step in self.auction_steps:
            if step.blocks(self, ""):
                return step
        return self.auction_steps[-1]

    def _auction_process(self: "Engine", action: A.Action) -> None:
        cur = self._auction_current()
        if action.entity != cur:
            forced = self._forced_taker(action.entity)
            if forced:
                raise type(self._not_turn(action.entity))(
                    f"{self._not_turn(action.entity)}: {action.entity} had to accept {forced} for free, and "
                    f"that used up the turn{see(self.title, 'forced_private')}")
            raise self._not_turn(action.entity)
        self._auction_step().handle(self, action)

    def _waterfall_process(self: "Engine", action: A.Action) -> None:
        """Title data ``auction.style`` ``waterfall`` (the default): buy the cheapest private at
        its price or bid on any; bids are settled when the cheapest is bid on (3.1)."""
        r = self.state.round
        auctioning = self.active_auction()
        if auctioning and not self._site_auction():
            self._rulebook_auction_turn(action, auctioning)
        elif isinstance(action, A.Pass):
            if auctioning:
                r.bids[auctioning] = [b for b in r.bids[auctioning] if b.player != action.entity]
                self.log(f"{action.entity} passes on {auctioning}")
                self._resolve_bids()
            else:
                r.passed.add(action.entity)
                self.log(f"{action.entity} passes")
                if all(p in r.passed for p in r.entities):
                    self._all_passed()
                r.index = (r.index + 1) % len(r.entities)
        elif isinstance(action, A.Bid):
            comp = self.company(action.company)
            action = A.Bid(action.entity, comp.sym, action.price)
            if comp.owner is not None or comp.closed:
                raise IllegalAction(f"{comp.sym} is not for sale; for sale: {', '.join(self._auction_companies())}")
            if auctioning and action.company != auctioning:
                raise IllegalAction(f"{auctioning} is being auctioned: bid on it or pass")
            r.passed.discard(action.entity)
            if not auctioning and self._may_purchase(action.company):
                self._check_bid(action)
                r.last_to_act = action.entity
                price = action.price
                if price != comp.min_bid and not self._site_auction():
                    # 3.1(a): the cheapest is bought at its price; a bid on it (the mail was written
                    # before it became the cheapest) is that purchase, at the price, not at the bid
                    price = comp.min_bid
                    self.log(f"{comp.sym} is the cheapest unsold private: {action.entity}'s bid of "
                             f"{action.price} buys it at its price, {price}{see(self.title, 'cheapest_private')}")
                self._sell_company(action.entity, action.company, price)
                self._resolve_bids()
                r.index = (r.index + 1) % len(r.entities)
            else:
                self._check_bid(action)
                bids = [b for b in r.bids.get(action.company, []) if b.player != action.entity]
                bids.append(Bid(action.entity, action.price))
                r.bids[action.company] = bids
                self.log(f"{action.entity} bids {action.price} for {action.company}")
                if auctioning:
                    pass
                else:
                    r.index = (r.index + 1) % len(r.entities)
        else:
            raise IllegalAction(self.private_buy_refusal(action) or
                                f"in the auction you may bid or pass, not {plain(action.type)}")
        if not self._auction_companies():
            self._end_auction()

    def _rulebook_auction_turn(self: "Engine", action: A.Action, company: str) -> None:
        """3.1.1: bidders speak in turn from the one after the high bidder; a pass
        does not leave the auction; it ends when all but the high bidder pass in a row."""
        r = self.state.round
        if isinstance(action, A.Bid):
            comp = self.company(action.company)
            if comp.sym != company:
                raise IllegalAction(f"{company} is being auctioned: bid on it or pass")
            bid = A.Bid(action.entity, comp.sym, action.price)
            self._check_bid(bid)
            r.high = Bid(action.entity, action.price)
            self.log(f"{action.entity} bids {action.price} for {company}")
        elif isinstance(action, A.Pass):
            self.log(f"{action.entity} passes on {company}")
        else:
            raise IllegalAction(f"in the auction of {company} you may bid or pass, not {plain(action.type)}")
        r.auction_turn = (r.auction_turn + 1) % len(r.auction_seq)
        assert r.high is not None
        if r.auction_seq[r.auction_turn] == r.high.player:
            winner = r.high
            r.high = None
            r.auction_seq = []
            self._sell_company(winner.player, company, winner.price)
            self._resolve_bids()

    # -- every item open to bids at once (title data: auction.style = "bid_all") --------
    def _bid_all_process(self: "Engine", action: A.Action) -> None:
        """Bid on any item or pass.  When everybody has passed in a row, every item
        with bids goes to its high bidder if all items have bids; otherwise each item
        without a bid gets cheaper (``discount_on_all_pass``) and bidding goes on; an
        item that becomes free is bid for at $0 by the next player."""
        r = self.state.round
        if isinstance(action, A.Pass):
            r.passed.add(action.entity)
            self.log(f"{action.entity} passes")
            if all(p in r.passed for p in r.entities):
                self._bid_all_passed()
            if self.state.round is r and r.kind == "auction" and not r.pending_par:
                r.index = (r.index + 1) % len(r.entities)
            return
        if not isinstance(action, A.Bid):
            raise IllegalAction(self.private_buy_refusal(action) or
                                f"in the auction you may bid or pass, not {plain(action.type)}")
        comp = self.company(action.company)
        if comp.owner is not None or comp.closed:
            raise IllegalAction(f"{comp.sym} is not for sale; for sale: {', '.join(self._auction_companies())}")
        action = A.Bid(action.entity, comp.sym, action.price)
        self._check_bid(action)
        r.passed.discard(action.entity)
        r.bids.setdefault(comp.sym, []).append(Bid(action.entity, action.price))
        self.log(f"{action.entity} bids {action.price} for {comp.sym}")
        r.index = (r.index + 1) % len(r.entities)

    def _bid_all_passed(self: "Engine") -> None:
        r = self.state.round
        left = self._auction_companies()
        unbid = [c for c in left if not r.bids.get(c)]
        if not unbid:
            for sym in sorted(left, key=lambda c: self.state.companies[c].value):
                top = max(r.bids[sym], key=lambda b: b.price)
                self._sell_company(top.player, sym, top.price)
            self._end_auction()
            return
        step = int(self.title.data.get("auction", {}).get("discount_on_all_pass", 5))
        for sym in unbid:
            comp = self.state.companies[sym]
            comp.discount = min(comp.value, comp.discount + step)
            self.log(f"{sym} minimum bid drops to {comp.min_bid}")
            if comp.min_bid <= 0:
                # the next player is deemed to bid $0 for it; that was his turn
                r.index = (r.index + 1) % len(r.entities)
                forced = r.entities[r.index]
                r.bids[sym] = [Bid(forced, 0)]
                self.log(f"{forced} bids 0 for {sym}, now free")
        r.passed.clear()

    def _pending_par_process(self: "Engine", action: A.Action) -> None:
        """The buyer of a private that carries a president's certificate sets its starting value."""
        r = self.state.round
        assert r.pending_par
        player, corp = r.pending_par
        if not isinstance(action, A.Par) or self.corp(action.corporation).sym != corp:
            raise IllegalAction(f"{player} must set the starting value of {corp} (par {corp} <price>)")
        self._do_par(player, corp, action.price, pay=False)
        r.pending_par = None
        self._end_auction()

    def _check_bid(self: "Engine", action: A.Bid) -> None:
        low = self.min_bid(action.company)
        style = self._auction_style()
        if style == "waterfall" and self._may_purchase(action.company):
            key, why = "cheapest_private", f"{action.company}, the cheapest, is bought at its price"
        elif style == "waterfall" and self.active_auction() == action.company:
            key, why = "auction_bid", f"each bid in the auction of {action.company} is at least " \
                                      f"{self.title.money(self.title.data['min_bid_increment'])} more than the last"
        elif style in ("waterfall", "bid_all"):
            key, why = "bid_step", f"a bid exceeds the last bid on {action.company} (or, with none, its face " \
                                   f"value) by at least {self.title.money(self.title.data['min_bid_increment'])}"
        else:
            key, why = "bid_step", ""
        if action.price < low:
            raise GameError(f"minimum bid for {action.company} is {low}" + (f": {why}" if why else "")
                            + see(self.title, key))
        if action.price % 5:
            raise GameError(f"bids are in multiples of {self.title.money(5)}{see(self.title, 'bid_step')}")
        high = self.max_bid(action.entity, action.company)
        if action.price > high:
            raise InsufficientFunds(f"{action.entity} can bid at most {high} for {action.company} "
                                    "(cash less other bids)"
                                    + (": the money of his bids on other privates is set aside"
                                       if high < self.state.cash[f"P:{action.entity}"] else "")
                                    + see(self.title, 'bid_cash'))

    def _sell_company(self: "Engine", player: str, company: str, price: int) -> None:
        comp = self.state.companies[company]
        self.transfer(f"P:{player}", "bank", price)
        comp.owner = f"P:{player}"
        self.state.round.bids.pop(company, None)
        self.log(f"{player} buys {company} for {price}")
        ab = self.company_ability(company, "shares")
        if ab:
            self.move_share(ab["share"], f"P:{player}")
            self.log(f"{player} receives {ab['share']}")

    def _forced_taker(self: "Engine", player: str) -> str | None:
        """The private ``player`` was just made to take for free (3.1.2: "the player with the Priority
        Deal card must accept the Tuscumbia for free ... it uses up that player's stock turn"), if the
        last move was the pass that did it; else None."""
        last = self.actions[-1] if self.actions else None
        if not isinstance(last, A.Pass) or last.entity == player:
            return None
        for comp in self.state.companies.values():
            if comp.owner == f"P:{player}" and comp.discount > 0 and comp.min_bid <= 0:
                return comp.sym
        return None

    def _resolve_bids(self: "Engine") -> None:
        r = self.state.round
        while True:
            left = self._auction_companies()
            if not left:
                r.auctioning = None
                return
            first = left[0]
            bids = r.bids.get(first, [])
            r.auctioning = None
            if len(bids) == 1:
                self._sell_company(bids[0].player, first, bids[0].price)
                continue
            if len(bids) > 1:
                r.auctioning = first
                if not self._site_auction():
                    top = max(bids, key=lambda b: b.price)
                    seats = [p for p in r.entities if any(b.player == p for b in bids)]
                    i = seats.index(top.player)
                    r.auction_seq = seats[i + 1:] + seats[: i + 1]
                    r.auction_turn = 0
                    r.high = top
            return

    def _all_passed(self: "Engine") -> None:
        r = self.state.round
        left = self._auction_companies()
        cheapest = min(self.state.companies.values(), key=lambda c: c.value)
        if cheapest.sym in left:
            cheapest.discount += 5
            self.log(f"{cheapest.sym} minimum bid drops to {cheapest.min_bid}")
            if cheapest.min_bid <= 0:
                r.index = (r.index + 1) % len(r.entities)
                self._sell_company(r.entities[r.index], cheapest.sym, 0)
                self._resolve_bids()
        else:
            self.payout_companies()
        r.passed.clear()

    def _end_auction(self: "Engine") -> None:
        r = self.state.round
        s = self.state
        for comp in s.companies.values():  # a private carrying a president's certificate: par first
            ab = self.company_ability(comp.sym, "par_on_buy") if comp.owner and not comp.closed else None
            if ab and not self.corp(ab["corporation"]).ipoed:
                r.pending_par = (comp.owner[2:], ab["corporation"])  # type: ignore[index]
                return
        if self.title.data.get("auction", {}).get("reorder_by_cash"):
            # most cash first; ties keep their order
            order = {p.name: i for i, p in enumerate(s.players)}
            s.players.sort(key=lambda p: (-s.cash[p.key], order[p.name]))
            self.log(f"players reordered by cash: {', '.join(p.name for p in s.players)}")
            self._start_stock()
            return
        self._reorder_players(r.index)
        self._start_stock()

    def _reorder_players(self: "Engine", index: int) -> None:
        s = self.state
        active = [p for p in s.players if not p.bankrupt]
        first = active[index % len(active)]
        i = s.players.index(first)
        s.players = s.players[i:] + s.players[:i]
        self.log(f"{first.name} has priority deal")


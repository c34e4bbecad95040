"""The stock round (rules 3.2 - 3.6); the private auction is in auction.py.

In the stock round a turn is: sell any number of lots and buy (or par) one
certificate, in either order (sell-buy or buy-sell); then "pass" ends it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalAction, InsufficientFunds
from pbm.e18xx.rounds.auction import AuctionMixin
from pbm.e18xx.core.state import RoundState
from pbm.e18xx.rounds.cite import see
from pbm.e18xx.rounds.step import plain, plain_list

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


def share_name(g: "Engine", sid: str) -> str:
    """A certificate as a player reads it: 'a WRA share', 'an SR share', 'a 20% WRA share', never its id (issue 29)."""
    from pbm.e18xx.english import a

    corp = sid.rsplit("_", 1)[0]
    pct = g.sid_percent(sid)
    big = bool(pct) and corp in g.state.corporations and pct > g.unit(corp)
    return f"a {pct}% {corp} share" if big else f"{a(corp)} share"


class StockMixin(AuctionMixin):
    # --------------------------------------------------------------- stock round
    def _start_stock(self: "Engine") -> None:
        s = self.state
        # A stock round that begins twice inside one action on the same holdings, cash, prices and
        # trains: a whole stock round and set of operating rounds went by with no one able to act,
        # and nothing can change any more. The game ends (ruling, engine.md "A game no one can move").
        mark = (tuple(sorted(s.cash.items())), tuple(sorted(s.share_owner.items())),
                tuple((c.sym, c.price, c.floated, c.closed, tuple(c.trains)) for c in s.corporations.values()))
        marks = self.__dict__.setdefault("_stock_marks", set())
        if mark in marks:
            self.end_game("no one can act")
            return
        marks.add(mark)
        s.round = RoundState("stock", [p.name for p in s.players if not p.bankrupt])
        self._stock_start_turn()

    def _stock_current(self: "Engine") -> str:
        r = self.state.round
        return r.entities[r.index]

    def _stock_start_turn(self: "Engine") -> None:
        """Set up the current player's turn, skipping players who cannot act."""
        r = self.state.round
        for _ in range(len(r.entities) + 1):
            for corps in r.sold.values():
                for c in corps:
                    corps[c] = "prev"
            r.turn_actions = []
            if self._stock_can_act(self._stock_current()):
                return
            r.passed.add(self._stock_current())  # no possible action: an automatic pass
            if self._stock_finished():
                r.index = (r.index + 1) % len(r.entities)  # as after a pass: priority to the player after
                self._finish_stock_round()
                return
            r.index = (r.index + 1) % len(r.entities)
        self._finish_stock_round()

    def _stock_finished(self: "Engine") -> bool:
        r = self.state.round
        return all(p in r.passed for p in r.entities)

    def _stock_next(self: "Engine") -> None:
        r = self.state.round
        if self._stock_finished():
            r.index = (r.index + 1) % len(r.entities)
            self._finish_stock_round()
            return
        r.index = (r.index + 1) % len(r.entities)
        self._stock_start_turn()

    def _finish_stock_round(self: "Engine") -> None:
        s = self.state
        r = s.round
        if s.round.kind != "stock":
            return
        rise_sizes = self.title.data.get("sold_out_rise_sizes")
        for c in sorted(s.corporations.values(), key=lambda c: self._sort_key(c)):
            if c.floated and not c.closed and c.price and (rise_sizes is None or c.size in rise_sizes):
                if sum(self.percent_of(p.key, c.sym) for p in s.players) == 100:
                    self.move_up(c)
        index = r.index
        if self.title.data.get("priority_after_last_to_act") and r.last_to_act in r.entities:
            index = r.entities.index(r.last_to_act) + 1  # 4.3: the player after the last to buy or sell
        self._reorder_players(index)
        self._start_operating_set()

    def _sort_key(self: "Engine", c) -> tuple:
        if not c.price:
            return (1, 0, 0, 0, c.sym)
        r, col = c.price
        return (0, -self.share_price(c.sym), -col, r, self.state.market[(r, col)].index(c.sym))

    # what may the current player do? -----------------------------------------
    def _bought(self: "Engine") -> bool:
        return any(k in ("buy", "par") for k, _ in self.state.round.turn_actions)

    def stock_actions(self: "Engine", player: str) -> list[str]:
        if player != self._stock_current():
            return []
        if self._must_sell(player):
            return ["sell_shares"]
        out = []
        if self._can_buy_any(player):
            out.append("buy_shares")
        if self._can_par_any(player):
            out.append("par")
        if self._player_companies_for_sale(player):
            out.append("buy_company")
        if self._can_sell_any(player):
            out.append("sell_shares")
        if out:
            out.append("pass")
        return out

    def _stock_checks(self: "Engine") -> dict:
        """What :meth:`stock_actions` asks for each action but selling-first, in its order."""
        return {"buy_shares": self._can_buy_any, "par": self._can_par_any,
                "buy_company": self._player_companies_for_sale, "sell_shares": self._can_sell_any}

    def _stock_can_act(self: "Engine", player: str) -> bool:
        """``bool(stock_actions(player))``, stopping at the first action allowed."""
        if player != self._stock_current():
            return False
        return any(check(player) for check in self._stock_checks().values())  # a forced sale can sell

    def _stock_allows(self: "Engine", player: str, kind: str) -> bool:
        """``kind in stock_actions(player)``, asking only what that answer needs."""
        if player != self._stock_current():
            return False
        if self._must_sell(player):
            return kind == "sell_shares"
        if kind == "pass":
            return self._stock_can_act(player)
        check = self._stock_checks().get(kind)
        return bool(check and check(player))

    def _player_companies_for_sale(self: "Engine", player: str) -> list[str]:
        """Privates of other players that ``player`` may buy (phase status permitting)."""
        s = self.state
        if self._bought() or s.cash[f"P:{player}"] <= 0:
            return []
        if "can_buy_companies_from_other_players" not in self.phase.status:
            return []
        return [c.sym for c in s.companies.values()
                if c.owner and c.owner.startswith("P:") and c.owner != f"P:{player}" and not c.closed]

    def _must_sell(self: "Engine", player: str) -> bool:
        if not self._can_sell_any(player):
            return False
        if self.num_certs(player) > self.cert_limit(player):
            return True
        return any(self._over_holding(player, c) and self._sellable_bundles(player, c)
                   for c in self.state.share_owner.holdings(f"P:{player}"))  # over a limit: holds some

    def _over_holding(self: "Engine", player: str, corp: str) -> bool:
        c = self.state.corporations[corp]
        if not c.price:
            return False
        return self.percent_of(f"P:{player}", corp) > self.holding_limit()

    def _can_gain(self: "Engine", player: str, corp: str, percent: int = 10) -> bool:
        c = self.state.corporations[corp]
        limit = self.holding_limit()
        if self.percent_of(f"P:{player}", corp) + percent > limit:
            return False
        if c.price and self.market_cell(corp).kind == "y":
            return True
        return self.num_certs(player) < self.cert_limit(player)

    def _buyable_share(self: "Engine", corp: str, source: str) -> str | None:
        """The certificate a buy from ``source`` takes: the IPO's lowest-numbered, the pool's
        longest there (the first of ``shares_of``)."""
        owner = f"ipo:{corp}" if source == "ipo" else "pool"
        held = self.state.share_owner.held(owner, corp)
        if not held:
            return None
        ids = self._share_pcts(corp)
        shares = [sid for sid in held if sid in ids]
        if not shares:
            return None
        if source == "ipo":
            return min(shares, key=lambda sid: int(sid.split("_")[1]))
        return min(shares, key=self.state.share_seq.__getitem__)

    def _can_buy(self: "Engine", player: str, sid: str) -> str | None:
        """None if ``player`` may buy certificate ``sid`` now, else the reason."""
        s = self.state
        corp = sid.split("_")[0]
        c = s.corporations[corp]
        owner = s.share_owner[sid]
        if c.closed:
            return f"{corp} is closed: its shares are out of the game{see(self.title, 'closed_shares')}"
        if owner not in (f"ipo:{corp}", "pool"):
            return f"{share_name(self, sid)} is not in the {self.title.word('ipo')} or the {self.title.word('pool')}"
        if not c.ipoed:
            return f"{corp} has not been started (par it first)"
        if sid.endswith("_0") and not c.equal_shares:
            return "the president's certificate is bought by parring"
        if self._bought():
            return "you have already bought a certificate this turn"
        if s.round.sold.get(player, {}).get(corp):
            return f"you sold {corp} this round and may not buy it back{see(self.title, 'buy_after_sale')}"
        price = self._buy_price(corp, owner)
        if s.cash[f"P:{player}"] < price:
            return f"{share_name(self, sid)} costs {self.title.money(price)}, you have {self.title.money(s.cash[f'P:{player}'])}"
        if not self._can_gain(player, corp, self.sid_percent(sid)):
            return self._limit_reason(player, corp)
        return None

    def _limit_reason(self: "Engine", player: str, corp: str) -> str:
        """Why ``_can_gain`` refuses: the holding limit or the certificate limit, with its rule."""
        held = self.percent_of(f"P:{player}", corp)
        if held + self.unit(corp) > self.holding_limit():
            return (f"{player} holds {held}% of {corp}, the {self.holding_limit()}% holding limit"
                    f"{see(self.title, 'holding_limit')}")
        return (f"{player} has {self.num_certs(player)} certificates, the limit is {self.cert_limit(player)}"
                f"{see(self.title, 'cert_limit')}")

    def holding_limit(self: "Engine") -> int:
        """Most of one company a player may hold (%); title data ``holding_limit_by_rule``
        ({rule: {"players": n, "limit": pct}}) raises it under an optional rule."""
        key = len(self.state.players)
        cache = self.__dict__.setdefault("_holding_limit", {})  # title data and rules never change
        if key in cache:
            return cache[key]
        cache[key] = limit = self._holding_limit_for()
        return limit

    def _holding_limit_for(self: "Engine") -> int:
        limit = int(self.title.data["holding_limit"])
        by_players = self.title.data.get("holding_limit_by_players", {})
        limit = int(by_players.get(str(len(self.state.players)), limit))
        for rule, spec in self.title.data.get("holding_limit_by_rule", {}).items():
            if rule in self.optional_rules and len(self.state.players) == int(spec.get("players", 0)):
                limit = int(spec["limit"])
        return limit

    def _incremental(self: "Engine") -> bool:
        """Title data ``capitalization: incremental``: treasury shares sell at the market
        price and pay the corporation; nothing is paid at floating."""
        return self.title.data.get("capitalization") == "incremental"

    def _buy_price(self: "Engine", corp: str, owner: str) -> int:
        if owner == "pool" or self._incremental():
            return self.share_price(corp)
        return self._par_price(corp)

    def _started_by_private(self: "Engine", corp: str) -> bool:
        """A corporation whose president's certificate comes with a private is not parred in the stock
        round -- while that private is open: once it has closed (it closes as the company starts), a
        company that closed again "may subsequently reenter play as a new Corporation" (18VA 4.6.3),
        parred as any other."""
        started = self.title.__dict__.get("_par_on_buy")
        if started is None:  # the title's data never changes
            started = self.title.__dict__["_par_on_buy"] = {}
            for comp in self.title.data["companies"]:
                for ab in comp.get("abilities", []):
                    if ab.get("type") == "par_on_buy":
                        started.setdefault(ab.get("corporation"), []).append(comp["sym"])
        carriers = started.get(corp)
        return bool(carriers) and any(not self.state.companies[sym].closed for sym in carriers
                                      if sym in self.state.companies)

    def _par_price(self: "Engine", corp: str) -> int:
        c = self.state.corporations[corp]
        if c.par is None and c.equal_shares:  # the lender has no starting value: its price
            return self.share_price(corp)
        assert c.par
        return self.title.market[c.par[0]][c.par[1]].price  # type: ignore[union-attr]

    def _can_buy_any(self: "Engine", player: str) -> bool:
        if self._bought():  # _can_buy refuses every certificate after a buy this turn
            return False
        for corp, c in self.state.corporations.items():
            if not c.ipoed:  # nor any of a corporation not started
                continue
            for src in ("ipo", "pool"):
                sid = self._buyable_share(corp, src)
                if sid and self._can_buy(player, sid) is None:
                    return True
        return False

    def _can_par_any(self: "Engine", player: str) -> bool:
        if self._bought():
            return False
        cash = self.state.cash[f"P:{player}"]
        low = min(self.title.market[r][c].price for r, c in self.title.par_cells())  # type: ignore[union-attr]
        return any(not c.ipoed and not c.closed and not self._started_by_private(c.sym)
                   for c in self.state.corporations.values()) and cash >= 2 * low \
            and self.num_certs(player) < self.cert_limit(player)

    def _can_sell_order(self: "Engine") -> bool:
        kinds = [k for k, _ in self.state.round.turn_actions]
        if not kinds:
            return True
        if self.title.data.get("sell_then_buy") and any(k in ("buy", "par") for k in kinds):
            return False  # no selling after buying
        classes = {("buy" if k in ("buy", "par") else k) for k in kinds}
        return not (len(classes) == 2 and kinds[-1] in ("buy", "par"))

    def _sellable_bundles(self: "Engine", player: str, corp: str) -> list[int]:
        """Numbers of shares ``player`` may sell of ``corp`` now (a share is 10% of a
        ten-share and 20% of a five-share corporation)."""
        s = self.state
        c = s.corporations[corp]
        if not c.ipoed or not c.price:
            return []
        key = f"P:{player}"
        held = self.percent_of(key, corp)
        if held == 0:  # nothing to sell, whatever the rules below say
            return []
        if self.title.data.get("sell_after") == "operated":
            if not c.operated:
                return []
        elif s.turn == 1 and s.round.kind == "stock" and not c.equal_shares:
            return []  # 1848 12.4.2: Bank of England shares (equal shares) sell without restriction
        if s.round.kind == "stock" and not self._can_sell_order():
            return []
        if s.round.kind == "stock" and self.title.data.get("one_sale_per_company_per_turn") and \
                s.round.sold.get(player, {}).get(corp) == "now" and not c.equal_shares:
            # a company's shares are sold in one lot per turn (1848 12.5.1 ruling); the Bank of
            # England's "without restriction" (12.4.2), its price unchanged by sales (12.5.2)
            return []
        pool = self.percent_of("pool", corp)
        room = (100 if c.equal_shares else int(self.title.data["market_share_limit"])) - pool
        is_pres = s.share_owner[f"{corp}_0"] == key and not c.equal_shares
        # the most another player holds: asked only of the president (who may not sell into his certificate
        # unless someone can take the presidency)
        others = max((self.percent_of(p.key, corp) for p in s.players if p.name != player), default=0) \
            if is_pres else 0
        unit = self.unit(corp)
        pres = self.pres_percent(corp)
        out = []
        for units in range(1, held // unit + 1):
            if units * unit > room:
                break
            normal = held - (pres if is_pres else 0)
            if is_pres and units * unit > normal and others < pres:
                break
            out.append(units)
        return out

    def _sell_reason(self: "Engine", player: str, corp: str, units: int) -> str:
        """Why a sale of ``units`` of ``corp`` is refused, with its rule ("" if none of these)."""
        s = self.state
        c = s.corporations[corp]
        held = self.percent_of(f"P:{player}", corp)
        u = self.unit(corp)
        if units * u > held:
            return f": {player} holds {held}%"
        if self.title.data.get("sell_after") == "operated" and not c.operated:
            return (f": {corp} has not completed an operating turn, and its stock may not be sold yet"
                    f"{see(self.title, 'sell_unoperated')}")
        if s.round.kind == "stock" and not self._can_sell_order():
            return (f": {player} has bought this turn, and sales come before the turn's purchase or after it, "
                    f"not both{see(self.title, 'sell_after_buy')}")
        if s.round.kind == "stock" and self.title.data.get("one_sale_per_company_per_turn") and \
                s.round.sold.get(player, {}).get(corp) == "now" and not c.equal_shares:
            return (f": {player} sold {corp} this turn, and one company's shares are sold in one lot per turn"
                    f"{see(self.title, 'one_sale_per_turn')}")
        if s.turn == 1 and s.round.kind == "stock" and not c.equal_shares and not self.title.data.get("sell_after"):
            return f": no shares are sold in the first stock round{see(self.title, 'first_sr_sale')}"
        room = (100 if c.equal_shares else int(self.title.data["market_share_limit"])) - self.percent_of("pool", corp)
        if units * u > room:
            return (f": the {self.title.word('pool')} may hold at most {self.title.data['market_share_limit']}% of {corp}"
                    f"{see(self.title, 'pool_limit')}")
        if s.share_owner.get(f"{corp}_0") == f"P:{player}" and not c.equal_shares:
            return (f": the president's certificate is not sold unless another player can take the presidency"
                    f"{see(self.title, 'president_sale')}")
        return ""

    def _can_sell_any(self: "Engine", player: str) -> bool:
        # only a corporation the player holds shares of has bundles to sell
        return any(self._sellable_bundles(player, c) for c in self.state.share_owner.holdings(f"P:{player}"))

    # processing ----------------------------------------------------------------
    def _stock_process(self: "Engine", action: A.Action) -> None:
        player = action.entity
        if player != self._stock_current():
            last = self.actions[-1] if self.actions else None
            if isinstance(action, A.SellShares) and isinstance(last, (A.BuyShares, A.Par)) and last.entity == player \
                    and self.state.round.kind == "stock":  # a sale after the purchase that ended his turn
                raise type(self._not_turn(player))(
                    f"{self._not_turn(player)}; {player}'s turn ended with the purchase, after which he may not "
                    f"sell this turn{see(self.title, 'sell_after_buy')}")
            raise self._not_turn(player)
        self.stock_steps[0].handle(self, action)

    def _stock_turn(self: "Engine", action: A.Action) -> None:
        """One action of the current player's stock turn (rounds/step.py::BuySellParShares)."""
        s = self.state
        r = s.round
        player = action.entity
        if not self._stock_allows(player, action.type):
            allowed = self.stock_actions(player)
            target = action.corporation or (action.shares[0].rsplit("_", 1)[0] if action.shares else "") \
                if isinstance(action, A.SellShares) else ""
            if target in s.corporations and s.turn == 1 and not self.title.data.get("sell_after") \
                    and not s.corporations[target].equal_shares and self.percent_of(f"P:{player}", target):
                raise IllegalAction(f"{player} may not sell: no shares are sold in the first stock round"
                                    f"{see(self.title, 'first_sr_sale')}")
            if target in s.corporations and self.percent_of(f"P:{player}", target):
                why = self._sell_reason(player, target, action.count or 1)  # type: ignore[union-attr]
                if why:
                    raise IllegalAction(f"{player} may not sell {target} now{why}")
            if isinstance(action, A.BuyShares) and not self._bought():  # this certificate's reason, if it has one
                sid = action.shares[0] if action.shares else \
                    self._buyable_share(self.corp(action.corporation).sym, action.source or "ipo")
                why = self._can_buy(player, sid) if sid in s.share_owner else None
                if why:
                    raise IllegalAction(f"{player} cannot buy {share_name(self, sid)}: {why}")
            if isinstance(action, (A.BuyShares, A.Par)) and not self._bought() and \
                    self.num_certs(player) >= self.cert_limit(player):
                raise IllegalAction(f"{player} has {self.num_certs(player)} certificates, the limit is "
                                    f"{self.cert_limit(player)}{see(self.title, 'cert_limit')}")
            raise IllegalAction(f"{player} may not {plain(action.type)} now; allowed: {plain_list(allowed)}")
        if isinstance(action, A.Pass):
            if r.turn_actions:
                r.passed.discard(player)
            else:
                r.passed.add(player)
            self._stock_next()
            return
        if isinstance(action, A.Par):
            self._do_par(player, action.corporation, action.price)
            r.turn_actions.append(("par", action.corporation))
        elif isinstance(action, A.BuyShares):
            sid = self._resolve_buy(player, action)
            corp = sid.split("_")[0]
            self._do_buy(player, sid)
            r.turn_actions.append(("buy", corp))
        elif isinstance(action, A.SellShares):
            corp = self._do_sell(player, action)
            r.turn_actions.append(("sell", corp))
        elif isinstance(action, A.BuyCompany):
            comp = self.company(action.company)
            if comp.sym not in self._player_companies_for_sale(player):
                raise IllegalAction(f"{player} cannot buy {comp.sym} now")
            if not 0 < action.price <= s.cash[f"P:{player}"]:
                raise InsufficientFunds(f"{player} has {s.cash[f'P:{player}']}; the price must be 1..that")
            seller = comp.owner
            assert seller
            self.transfer(f"P:{player}", seller, action.price)
            comp.owner = f"P:{player}"
            self.log(f"{player} buys {comp.sym} from {seller[2:]} for {action.price}")
            r.turn_actions.append(("buy", comp.sym))
        else:
            raise IllegalAction(f"'{plain(action.type)}' is not a move of the stock round")
        r.last_to_act = player
        if not self._stock_can_act(player):
            r.passed.discard(player)  # the turn ends by itself; the player acted, so has not passed
            self._stock_next()

    def _resolve_buy(self: "Engine", player: str, action: A.BuyShares) -> str:
        if action.shares:
            if len(action.shares) != 1:
                raise IllegalAction("buy one certificate at a time")
            sid = action.shares[0]
            if sid not in self.state.share_owner:
                raise GameError(f"no such certificate {sid!r}")
        else:
            corp = self.corp(action.corporation).sym
            src = action.source or "ipo"
            found = self._buyable_share(corp, src)
            if not found and self.state.corporations[corp].closed:
                raise IllegalAction(f"{player} cannot buy {corp}: {corp} is closed: its shares are out of the game"
                                    f"{see(self.title, 'closed_shares')}")
            if not found:
                raise IllegalAction(f"no {corp} certificate in the {self.title.word('ipo' if src == 'ipo' else 'pool')}"
                                    + (self._underwritten_why(corp) if src == "ipo" else ""))
            sid = found
        why = self._can_buy(player, sid)
        if why:
            raise IllegalAction(f"{player} cannot buy {share_name(self, sid)}: {why}")
        return sid

    def _do_buy(self: "Engine", player: str, sid: str) -> None:
        s = self.state
        corp = sid.split("_")[0]
        owner = s.share_owner[sid]
        price = self._buy_price(corp, owner)
        to = s.corporations[corp].key if owner != "pool" and self._incremental() else "bank"
        self.transfer(f"P:{player}", to, price)
        prev = self.president(corp)
        self.move_share(sid, f"P:{player}")
        self.log(f"{player} buys {sid} for {price}")
        if owner != "pool" and self.title.data.get("sixth_share_underwriting") and \
                sid == f"{corp}_4" and s.corporations[corp].size == 10:
            self._underwrite(corp)
        self.presidency_check(corp, prev)
        self._check_float(corp)

    def _underwritten_why(self: "Engine", corp: str) -> str:
        """Why a ten-share company's IPO is empty after its sixth share (18VA 4.4), and what to write
        instead; "" for any other empty IPO."""
        s = self.state
        if not (self.title.data.get("sixth_share_underwriting") and s.corporations[corp].size == 10):
            return ""
        mark = f"{corp}'s last "  # the log line of _underwrite
        if not any(line.startswith(mark) and "go to the open market; the bank pays" in line for line in s.log):
            return ""
        market = len(self.shares_of("pool", corp))
        return (f": when its sixth share was bought the state underwrote the rest (\"the Corporation receives a "
                f"total of five times the Current Market Value ... The remaining four shares are placed in the "
                f"Pool\"{see(self.title, 'underwriting')})"
                + (f"; {market} {'is' if market == 1 else 'are'} in the {self.title.word('pool')}: write "
                   f"'buy {corp} market'" if market else f"; none is left in the {self.title.word('pool')}"))

    def _underwrite(self: "Engine", corp: str) -> None:
        """4.4: with the sixth share of a ten-share corporation sold, the bank pays for the last
        four and they go to the open market (which may then hold more than 50%)."""
        s = self.state
        left = self.shares_of(f"ipo:{corp}", corp)
        amount = len(left) * self.share_price(corp)
        self.transfer("bank", s.corporations[corp].key, amount)
        for sid in left:
            self.move_share(sid, "pool")
        self.log(f"{corp}'s last {len(left)} shares go to the open market; the bank pays {amount}")

    def _do_par(self: "Engine", player: str, corp_sym: str, price: int, pay: bool = True) -> None:
        c = self.corp(corp_sym)
        if c.ipoed:
            raise IllegalAction(f"{c.sym} is already started")
        if pay and self._started_by_private(c.sym):
            raise IllegalAction(f"{c.sym} is started by the buyer of its president's certificate")
        cells = {self.title.market[r][col].price: (r, col) for r, col in self.title.par_cells()}  # type: ignore[union-attr]
        if price not in cells:
            raise IllegalAction(f"par price must be one of {sorted(cells)}{see(self.title, 'par_price')}")
        if pay and self.state.cash[f"P:{player}"] < 2 * price:
            raise InsufficientFunds(f"parring {c.sym} at {price} costs {2 * price}")
        if pay and self.num_certs(player) >= self.cert_limit(player):
            raise IllegalAction(f"certificate limit reached: {player} has {self.num_certs(player)} of "
                                f"{self.cert_limit(player)}{see(self.title, 'cert_limit')}")
        size_rule = self.title.data.get("size_after_status")
        if size_rule and size_rule["status"] in self.phase.status and c.size != size_rule["size"]:
            self._convert(c.sym, quiet=True)  # starts at the size the phase says
        c.ipoed = True
        c.par = cells[price]
        self._set_price(c, cells[price])
        if pay:
            self.transfer(f"P:{player}", c.key if self._incremental() else "bank", 2 * price)
            self.move_share(f"{c.sym}_0", f"P:{player}")
        else:  # the president's certificate came with a private: the bank capitalises it
            for comp in self.state.companies.values():
                ab = self.company_ability(comp.sym, "par_on_buy")
                if ab and ab["corporation"] == c.sym and not comp.closed:
                    comp.closed = True
                    self.transfer("bank", c.key, int(ab.get("bank_pays", 0)) * price)
                    self.log(f"{comp.sym} closes; the bank pays {c.sym} {int(ab.get('bank_pays', 0)) * price}")
        self.log(f"{player} pars {c.sym} at {price}")
        if self.title.data.get("home_token_at") == "start":  # 18VA 4.4: placed as the company starts
            self._place_home_token(c)
        self._check_float(c.sym)

    def _check_float(self: "Engine", corp: str) -> None:
        c = self.state.corporations[corp]
        if c.floated or c.equal_shares:
            return
        sold = 100 - self.percent_of(f"ipo:{corp}", corp)
        if self._incremental():  # floats once started; the money came in share by share
            if c.ipoed:
                c.floated = True
                self.state.recently_floated.append(corp)
            return
        if sold >= int(self.title.data["float_percent"]):
            c.floated = True
            self.state.recently_floated.append(corp)
            self.transfer("bank", c.key, self._par_price(corp) * 10)
            self.log(f"{corp} floats and receives {self._par_price(corp) * 10}")
            if corp in self.state.map.flipped:
                self.state.map.flipped.discard(corp)
                self.state.map.version += 1

    def _do_sell(self: "Engine", player: str, action: A.SellShares) -> str:
        s = self.state
        if action.shares:
            corp = action.shares[0].split("_")[0]
            for sid in action.shares:
                if sid.split("_")[0] != corp:
                    raise IllegalAction("sell one corporation at a time")
            units = sum(self.sid_percent(sid) for sid in action.shares) // self.unit(corp)
            if action.count:
                units = action.count
        else:
            corp = self.corp(action.corporation).sym
            units = action.count or 1
        allowed = self._sellable_bundles(player, corp)
        if units not in allowed:
            u = self.unit(corp)
            raise IllegalAction(f"{player} may not sell {units * u}% of {corp} now" + self._sell_reason(player, corp, units)
                                + (f"; may sell {', '.join(str(n * u) + '%' for n in allowed)}" if allowed else ""))
        self.sell_units(player, corp, units, list(action.shares))
        s.round.sold.setdefault(player, {})[corp] = "now"
        return corp

    def sell_units(self: "Engine", player: str, corp: str, units: int, named: list[str] | None = None) -> None:
        """Sell ``units`` shares of ``corp`` to the open market; price drops a row per share."""
        s = self.state
        key = f"P:{player}"
        c = s.corporations[corp]
        price = self.share_price(corp)
        normal = [sid for sid in self.shares_of(key, corp) if not sid.endswith("_0") or c.equal_shares]
        chosen = [sid for sid in (named or []) if sid in normal][:units]
        for sid in normal:
            if len(chosen) >= units:
                break
            if sid not in chosen:
                chosen.append(sid)
        prev = self.president(corp)
        if len(chosen) < units:
            # the president's certificate goes: swap it to the biggest other holder first
            others = [p.name for p in s.players if p.name != player]
            order = self.player_order_from(player)
            best = max(self.percent_of(f"P:{n}", corp) for n in others)
            new = min((n for n in others if self.percent_of(f"P:{n}", corp) == best), key=order.index)
            for sid in self.shares_of(f"P:{new}", corp)[:2]:
                self.move_share(sid, key)
                chosen.append(sid)
            self.move_share(f"{corp}_0", f"P:{new}")
            chosen = chosen[:units]
            prev = new
        for sid in chosen:
            self.move_share(sid, "pool")
        self.transfer("bank", key, price * units)
        self.log(f"{player} sells {units * self.unit(corp)}% of {corp} for {price * units}")
        self.presidency_check(corp, prev)
        if c.equal_shares:  # 5.4.2: the lender's price never falls with a sale
            return
        movement = self.title.data.get("sell_movement")
        for _ in range(1 if movement == "down_per_sale" else units):
            self.move_down(c)

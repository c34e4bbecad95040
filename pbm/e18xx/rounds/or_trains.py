"""Operating round: running trains, dividends, buying trains and privates,
forced purchases and bankruptcy (rules 4.2.3 - 4.2.6, 5(c))."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction, IllegalRoute, InsufficientFunds
from pbm.e18xx.routes import all_routes, best_routes, find_route
from pbm.e18xx.core.state import Train
from pbm.e18xx.core.track import NEUTRAL

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.game import Game


class TrainsMixin:
    # ------------------------------------------------------------- routes
    def corp_trains(self: "Game", corp: str) -> list[str]:
        return [t for t in self.state.corporations[corp].trains]

    def _can_run_route(self: "Game", corp: str) -> bool:
        g = self.graph()
        m = self.state.map
        for key in m.token_cities(corp):
            for seg in g.segments(key):
                return True
        return False

    def _must_buy_train(self: "Game", corp: str) -> bool:
        return not self.corp_trains(corp) and bool(self._depot_trains()) and self._can_run_route(corp)

    def route_colors(self: "Game") -> tuple[str, ...]:
        return self.phase.tiles

    def auto_routes(self: "Game", corp: str):
        trains = [(t, self.state.trains[t].distance) for t in self.corp_trains(corp)]
        return best_routes(self.graph(), corp, trains, self.route_colors())

    def _run_routes(self: "Game", corp: str, action: A.RunRoutes) -> None:
        s = self.state
        r = s.round
        if action.auto:
            total, chosen = self.auto_routes(corp)
        else:
            owned = set(self.corp_trains(corp))
            longest = max((s.trains[t].distance for t in owned), default=0)
            pool = all_routes(self.graph(), corp, longest, self.route_colors())
            used = 0
            total = 0
            chosen = []
            seen: set[str] = set()
            for spec in action.routes:
                if spec.train not in owned:
                    raise IllegalRoute(f"{corp} does not own train {spec.train}; it owns {', '.join(sorted(owned))}")
                if spec.train in seen:
                    raise IllegalRoute(f"train {spec.train} runs twice")
                seen.add(spec.train)
                route = find_route(pool, spec.nodes, s.trains[spec.train].distance, used)
                if route is None:
                    raise IllegalRoute(f"train {spec.train} cannot run {'-'.join(spec.nodes)} "
                                       "(not connected, too long, blocked, or reusing track)")
                if spec.revenue is not None and spec.revenue != route.revenue:
                    raise IllegalRoute(f"route {'-'.join(spec.nodes)} pays {route.revenue}, not {spec.revenue}")
                used |= route.mask
                total += route.revenue
                chosen.append((spec.train, route))
            best_total = total if "site_routes" in self.optional_rules else self.auto_routes(corp)[0]
            if total < best_total:
                raise IllegalRoute(f"rule 4.2.3.1: the routes must earn the most possible ({best_total}); "
                                   f"these earn {total} (use 'run auto')")
        r.routes = chosen
        r.revenue = total
        r.ran = True
        r.steps_done.add("route")
        for t in self.corp_trains(corp):
            s.trains[t].operated = True
        self.log(f"{corp} runs for {total}: " + "; ".join(f"{t}: {'-'.join(rt.hexes())} ({rt.revenue})" for t, rt in chosen))

    def _pay_dividend(self: "Game", corp: str, kind: str) -> None:
        s = self.state
        c = s.corporations[corp]
        revenue = s.round.revenue
        for tid in [t for t in c.trains if s.trains[t].obsolete]:  # soft-rusted trains ran their last
            c.trains.remove(tid)
            s.trains[tid].owner = "removed"
        if kind == "payout" and revenue > 0:
            per_share = revenue / 10
            for p in s.players:
                units = self.percent_of(p.key, corp) // 10
                amount = -(-int(units * per_share * 100) // 100)
                if amount:
                    self.transfer("bank", p.key, amount)
            pool_units = self.percent_of("pool", corp) // 10
            if pool_units:
                self.transfer("bank", c.key, -(-int(pool_units * per_share * 100) // 100))
            self.move_right(c)
            self.log(f"{corp} pays out {revenue}")
        else:
            if revenue:
                self.transfer("bank", c.key, revenue)
            self.move_left(c)
            self.log(f"{corp} withholds {revenue}")

    # ------------------------------------------------------------- trains
    def _depot_trains(self: "Game") -> list[str]:
        """Trains the depot offers: the next new one, and discarded ones (one per type)."""
        s = self.state
        out = []
        nxt = next((t.tid for t in s.trains.values() if t.owner == "depot"), None)
        if nxt:
            out.append(nxt)
        seen = set()
        for t in s.trains.values():
            if t.owner == "discard" and t.name not in seen:
                seen.add(t.name)
                out.append(t.tid)
        return out

    def train_limit(self: "Game") -> int:
        return self.phase.train_limit

    def crowded_corps(self: "Game") -> list[str]:
        s = self.state
        if s.round.kind != "operating":
            return []
        return [c.sym for c in s.corporations.values() if not c.closed and len(c.trains) > self.train_limit()]

    def _other_trains(self: "Game", corp: str) -> list[str]:
        s = self.state
        return [t.tid for t in s.trains.values() if t.owner.startswith("C:") and t.owner != f"C:{corp}" and t.buyable]

    def _room(self: "Game", corp: str) -> bool:
        return len(self.state.corporations[corp].trains) < self.train_limit()

    def _can_buy_train(self: "Game", corp: str) -> bool:
        s = self.state
        if not self._room(corp):
            return False
        cash = s.cash[f"C:{corp}"]
        depot = [t for t in self._depot_trains() if not self._depot_limited(corp)]
        if any(s.trains[t].price <= cash for t in depot):
            return True
        return bool(self._other_trains(corp)) and cash >= 1

    def _depot_limited(self: "Game", corp: str) -> bool:
        return "limited_train_buy" in self.phase.status and corp in self.state.round.bought_depot

    def _needs_emergency(self: "Game", corp: str) -> bool:
        s = self.state
        if not self._must_buy_train(corp):
            return False
        depot = self._depot_trains()
        cheapest = min(s.trains[t].price for t in depot)
        return s.cash[f"C:{corp}"] < cheapest

    def emergency_buying_power(self: "Game", corp: str) -> int:
        """Company cash + president's cash + the best sale he could make in each company (4.2.5.1)."""
        s = self.state
        pres = self.president(corp)
        total = s.cash[f"C:{corp}"]
        if pres is None:
            return total
        total += s.cash[f"P:{pres}"]
        for c in s.corporations:
            units = self._emergency_units(pres, corp, c)
            if units:
                total += max(units) * self.share_price(c)
        return total

    def _emergency_units(self: "Game", player: str, operating: str, corp: str) -> list[int]:
        """Sellable lots while raising money for ``operating``: no change of its presidency."""
        units = self._sellable_bundles(player, corp)
        if corp == operating and self.president(corp) == player:
            others = max((self.percent_of(p.key, corp) for p in self.state.players if p.name != player), default=0)
            held = self.percent_of(f"P:{player}", corp)
            units = [u for u in units if held - u * 10 >= others]
        return units

    def _must_go_bankrupt(self: "Game", corp: str) -> bool:
        if not self._must_buy_train(corp):
            return False
        cheapest = min(self.state.trains[t].price for t in self._depot_trains())
        return self.emergency_buying_power(corp) < cheapest

    def _buy_train(self: "Game", corp: str, action: A.BuyTrain) -> None:
        s = self.state
        c = s.corporations[corp]
        ref = action.train
        if ref not in s.trains:
            match = [t for t in self._depot_trains() if s.trains[t].name == ref]
            if not match:
                raise IllegalAction(f"no {ref} train is for sale; the depot offers "
                                    f"{', '.join(s.trains[t].name for t in self._depot_trains()) or 'nothing'}")
            ref = match[0]
        train = s.trains[ref]
        if not self._room(corp):
            raise IllegalAction(f"{corp} is at its train limit of {self.train_limit()}")
        from_depot = train.owner in ("depot", "discard")
        if from_depot:
            if ref not in self._depot_trains():
                raise IllegalAction(f"train {ref} is not available yet; the depot offers "
                                    f"{', '.join(self._depot_trains())}")
            if self._depot_limited(corp):
                raise IllegalAction(f"in phase {self.phase.name} a company may buy only one train from the bank per turn")
            price = train.price
            if action.price is not None and action.price != price:
                raise IllegalAction(f"train {ref} costs {price}")
            seller = "bank"
        else:
            if ref not in self._other_trains(corp):
                raise IllegalAction(f"train {ref} cannot be bought by {corp}")
            price = action.price if action.price is not None else train.price
            if price < 1:
                raise IllegalAction("a train costs at least $1")
            seller = train.owner
        cash = s.cash[c.key]
        if price > cash:
            if not self._must_buy_train(corp):
                raise InsufficientFunds(f"{corp} has {cash}, the train costs {price}")
            pres = self.president(corp)
            need = price - cash
            if from_depot:
                cheapest = min(s.trains[t].price for t in self._depot_trains())
                if train.price != cheapest:
                    raise IllegalAction(f"with the president's money only the cheapest train ({cheapest}) may be bought")
            elif "site_ebuy" not in self.optional_rules:
                raise IllegalAction("rule 4.2.5: a train may not be bought from another company with the president's money")
            elif price > train.price:
                raise IllegalAction("with the president's money a train costs at most its face value")
            if pres is None or s.cash[f"P:{pres}"] < need:
                raise InsufficientFunds(f"{pres} must raise {need} (sell shares) or go bankrupt")
            self.transfer(f"P:{pres}", c.key, need)
        self.transfer(c.key, seller, price)
        if seller.startswith("C:"):
            s.corporations[seller[2:]].trains.remove(ref)
        train.owner = c.key
        c.trains.append(ref)
        self.log(f"{corp} buys train {ref} for {price}")
        if from_depot:
            s.round.bought_depot.add(corp)
            self._train_bought_from_depot(train.name)
            self._refill_unlimited(train.name)
        if not self._can_buy_train(corp):
            s.round.steps_done.add("buy_train")

    def _refill_unlimited(self: "Game", name: str) -> None:
        """Optional rule 7(f): the last train type never runs out."""
        s = self.state
        unlimited = self.title.data.get("unlimited_trains_by_rule", {})
        if not any(r in self.optional_rules and name == t for r, t in unlimited.items()):
            return
        if any(t.owner == "depot" and t.name == name for t in s.trains.values()):
            return
        td = next(t for t in self.title.trains if t.name == name)
        n = sum(1 for t in s.trains.values() if t.name == name)
        s.trains[f"{name}-{n}"] = Train(f"{name}-{n}", name, td.distance, td.price)

    def _train_bought_from_depot(self: "Game", name: str) -> None:
        s = self.state
        phases = self.title.phases
        while s.phase + 1 < len(phases) and phases[s.phase + 1].on == name:
            s.phase += 1
            self.log(f"-- phase {phases[s.phase].name} --")
        td = next(t for t in self.title.trains if t.name == name)
        for other in self.title.trains:
            if other.rusts_on == name:
                self._rust(other.name)
        if "close_companies" in td.events and not getattr(s, "_closed_done", False):
            for comp in s.companies.values():
                if not comp.closed:
                    comp.closed = True
            self.log("-- private companies close --")

    def _rust(self: "Game", name: str) -> None:
        s = self.state
        soft = {train for rule, train in self.title.data.get("soft_rust_by_rule", {}).items()
                if rule in self.optional_rules}
        for t in s.trains.values():
            if t.name != name or t.owner in ("removed", "depot"):
                continue
            if name in soft:
                t.obsolete = True
                continue
            if t.owner.startswith("C:"):
                s.corporations[t.owner[2:]].trains.remove(t.tid)
            t.owner = "removed"
        self.log(f"-- {name} trains rust --")

    def _discard(self: "Game", action: A.DiscardTrain) -> None:
        s = self.state
        c = s.corporations[action.entity]
        if action.train not in c.trains:
            raise IllegalAction(f"{c.sym} does not own {action.train}; it owns {', '.join(c.trains)}")
        c.trains.remove(action.train)
        s.trains[action.train].owner = "discard"
        self.log(f"{c.sym} discards {action.train}")

    # ----------------------------------------------------------- companies
    def company_price_range(self: "Game", sym: str) -> tuple[int, int]:
        lo, hi = self.title.data.get("company_sale_range", [50, 150])
        v = self.state.companies[sym].value
        return (-(-v * lo // 100), v * hi // 100)

    def _purchasable_companies(self: "Game") -> list[str]:
        return [c.sym for c in self.state.companies.values()
                if c.owner and c.owner.startswith("P:") and not c.closed]

    def _owned_tile_ability(self: "Game", corp: str) -> str | None:
        """A private owned by ``corp`` whose special tile lay is still unused."""
        for comp in self.state.companies.values():
            ab = self.company_ability(comp.sym, "tile_lay")
            if ab and comp.owner == f"C:{corp}" and not comp.closed and comp.uses.get("tile_lay", 0) < ab.get("count", 1):
                return comp.sym
        return None

    def _can_buy_tile_company(self: "Game", corp: str) -> bool:
        if "can_buy_companies" not in self.phase.status:
            return False
        cash = self.state.cash[f"C:{corp}"]
        return any(self.company_ability(c, "tile_lay") and self.company_price_range(c)[0] <= cash
                   for c in self._purchasable_companies())

    def _can_buy_company(self: "Game", corp: str) -> bool:
        if "can_buy_companies" not in self.phase.status:
            return False
        comps = self._purchasable_companies()
        if not comps:
            return False
        return min(self.company_price_range(c)[0] for c in comps) <= self.state.cash[f"C:{corp}"]

    def _buy_company(self: "Game", corp: str, action: A.BuyCompany) -> None:
        s = self.state
        comp = self.company(action.company)
        if comp.sym not in self._purchasable_companies():
            raise IllegalAction(f"{comp.sym} is not owned by a player; buyable: {', '.join(self._purchasable_companies()) or 'none'}")
        lo, hi = self.company_price_range(comp.sym)
        if not lo <= action.price <= hi:
            raise IllegalAction(f"{comp.sym} costs between {lo} and {hi}")
        if action.price > s.cash[f"C:{corp}"]:
            raise InsufficientFunds(f"{corp} has {s.cash[f'C:{corp}']}")
        seller = comp.owner
        assert seller
        self.transfer(f"C:{corp}", seller, action.price)
        comp.owner = f"C:{corp}"
        self.log(f"{corp} buys {comp.sym} from {seller[2:]} for {action.price}")
        ab = self.company_ability(comp.sym, "free_train")
        if ab:
            free = s.trains[ab["train"]]
            phase4 = any(p.name == ab.get("unless_phase") for p in self.title.phases[: s.phase + 1])
            if free.owner == NEUTRAL and self._room(corp) and not phase4:
                free.owner = f"C:{corp}"
                s.corporations[corp].trains.append(free.tid)
                self.log(f"{corp} receives the free train {free.tid}")

    # ---------------------------------------------------------- emergencies
    def _emergency_sell(self: "Game", corp: str, action: A.SellShares) -> None:
        s = self.state
        player = action.entity
        if action.shares:
            target = action.shares[0].split("_")[0]
            units = action.count or sum(self.share_percent(x) for x in action.shares) // 10
        else:
            target = self.corp(action.corporation).sym
            units = action.count or 1
        allowed = self._emergency_units(player, corp, target)
        if units not in allowed:
            raise IllegalAction(f"{player} may not sell {units * 10}% of {target} now"
                                + (f" (it would change the presidency of {corp})" if target == corp else ""))
        cheapest = min(s.trains[t].price for t in self._depot_trains())
        need = cheapest - s.cash[f"C:{corp}"] - s.cash[f"P:{player}"]
        price = self.share_price(target)
        if (units - 1) * price >= need:
            raise IllegalAction(f"4.2.5.1(d): sell only what is needed: {player} needs {need}, "
                                f"{units - 1} share(s) of {target} would raise {(units - 1) * price}")
        self.sell_units(player, target, units, list(action.shares))

    def _bankrupt(self: "Game", corp: str) -> None:
        """4.2.5.1/5(c): the president cannot raise the money: he sells what he may,
        forfeits his cash, and the game ends at once."""
        s = self.state
        if not self._must_go_bankrupt(corp):
            cheapest = min((s.trains[t].price for t in self._depot_trains()), default=0)
            raise IllegalAction(f"{corp} cannot go bankrupt: its cash, its president's cash and sellable shares "
                                f"total {self.emergency_buying_power(corp)}, the cheapest train costs {cheapest}")
        pres = self.president(corp)
        if pres:
            p = self.player(pres)
            p.bankrupt = True
            for c in sorted((x for x in s.corporations.values() if x.price), key=self._sort_key):
                while True:
                    units = self._emergency_units(pres, corp, c.sym)
                    if not units:
                        break
                    self.sell_units(pres, c.sym, max(units))
            self.transfer(p.key, "bank", s.cash[p.key])
            self.log(f"{pres} goes bankrupt")
        self.end_game("bankrupt")


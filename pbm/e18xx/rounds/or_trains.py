"""Operating round: running trains, dividends, buying trains and privates,
forced purchases and bankruptcy (rules 4.2.3 - 4.2.6, 5(c))."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction, IllegalRoute, InsufficientFunds
from pbm.e18xx.english import a as article
from pbm.e18xx.rounds.cite import cite, see
from pbm.e18xx.routes import Route, all_routes, best_routes, disjoint_routes, find_route, node_keys, route_candidates
from pbm.e18xx.core.state import Train
from pbm.e18xx.core.track import NEUTRAL
from pbm.e18xx.rounds.step import plain

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine



def discount_off(ability: dict, price: int) -> int:
    """What a ``train_discount`` ability takes off a train's price: ``discount`` (a sum) or
    ``percent`` (18AL's New Decatur Yards: 50)."""
    if "percent" in ability:
        return price * int(ability["percent"]) // 100
    return int(ability.get("discount", 0))

def best_words(best) -> str:
    """The best routes as the line to write (play-through s10 finding 5: a refused weaker route
    said only "use 'run auto'", so the player could not see what it would run)."""
    parts = []
    for train, found in best or ():
        route = getattr(found, "route", found)
        ids = getattr(route, "node_ids", None)
        if ids is None:
            return " (use 'run auto')"
        parts.append(f"{train} {' '.join(ids())}")
    if not parts:
        return " (use 'run auto')"
    return f"; the best is 'run {'; '.join(parts)}' (or write 'run auto')"


class TrainsMixin:
    # ------------------------------------------------------------- routes
    def corp_trains(self: "Engine", corp: str) -> list[str]:
        return [t for t in self.state.corporations[corp].trains]

    def _can_run_route(self: "Engine", corp: str) -> bool:
        g = self.graph()
        m = self.state.map
        for key in m.token_cities(corp):
            for seg in g.segments(key):
                return True
        return False

    def route_step_refusal(self: "Engine", corp: str) -> str | None:
        """Why ``corp`` may run no train this turn (issue 29): it ran already, owns no train, or
        no train of it can reach a second stop; None when a run is possible (the order of the
        steps is then the answer)."""
        rule = self.or_step("route").rule(self.title) if self.or_step("route") is not None else ""
        ref = f" ({self.title.name} rule {rule})" if rule else ""
        if self.state.round.ran:
            return f"{corp} has already run its trains this turn"
        if not self.corp_trains(corp):
            return f"{corp} owns no train, so it has nothing to run{ref}"
        if self._can_run_route(corp):
            return None
        cities = self.state.map.token_cities(corp)
        if not cities:
            return f"{corp} has no station on the map, so its trains have no route and earn nothing{ref}"
        where = ", ".join(f"{h}-{i}" for h, i in sorted(cities))
        return (f"{corp}'s trains have no route: no track joins its station{'s' if len(cities) > 1 else ''} "
                f"({where}) to another stop, so they earn nothing{ref}")

    def _must_buy_train(self: "Engine", corp: str) -> bool:
        """A company without a train must buy one if it has a route (title data
        ``must_buy_train: always``: whether or not it has one)."""
        owned = [t for t in self.state.corporations[corp].trains if not self.outside_limit(self.state.trains[t].name)]
        if owned or not self._depot_trains():  # an obsolete train running once more is a train owned
            return False
        return self.title.data.get("must_buy_train") == "always" or self._can_run_route(corp)

    def _ebuy_from_others(self: "Engine") -> bool:
        """May a president's money buy a train from another company (up to its face value)?
        Title data ``ebuy_from_others`` or the ``site_ebuy`` flag."""
        return bool(self.title.data.get("ebuy_from_others")) or "site_ebuy" in self.optional_rules

    def route_colors(self: "Engine") -> tuple[str, ...]:
        return self.phase.tiles

    def auto_routes(self: "Engine", corp: str):
        from pbm.e18xx.gauge import best_gauge, uses_gauge_routes
        if uses_gauge_routes(self):
            return best_gauge(self, corp, self.corp_trains(corp))
        trains = [(t, self.state.trains[t].distance) for t in self.corp_trains(corp)]
        total, chosen = best_routes(self.graph(), corp, trains, self.route_colors())
        if self._has_route_extras(corp):
            chosen = self.route_extras(corp, chosen)
            total = sum(rt.revenue for _, rt in chosen)
        return total, chosen

    def best_run(self: "Engine", corp: str):
        """``(total, chosen)``: the company's best run as its run counts it -- 18VA's trains by their
        passenger or freight side (``freight.best_kinded``, 4.5.8), any other title's by
        :meth:`auto_routes`.  ``chosen`` holds one entry per train that runs."""
        if self.title.data.get("stop_groups"):
            from pbm.e18xx.freight import best_kinded
            return best_kinded(self, corp, self.corp_trains(corp))
        return self.auto_routes(corp)

    def _has_route_extras(self: "Engine", corp: str) -> bool:
        s = self.state
        return (corp in s.hex_bonuses or corp in s.route_bonus_corps
                or any(s.trains[t].name in self._multipliers() for t in self.corp_trains(corp)))

    def _multipliers(self: "Engine") -> dict[str, int]:
        return {t["name"]: int(t["multiplier"]) for t in self.title.data["trains"] if t.get("multiplier")}

    def route_extras(self: "Engine", corp: str, chosen: list) -> list:
        """Revenue a route earns beyond its stops (title data): a train's ``multiplier``
        (18AL's 4D pays double for its cities and off-boards, not its towns), the company's hex bonus token (each train through that hex
        earns the bonus) and a ``route_bonuses`` private's bonuses (each goes to the one route
        joining its two hexes that earns most with it).  Returns the routes re-valued."""
        s = self.state
        mult = self._multipliers()
        out = []
        for tid, rt in chosen:
            rev = rt.revenue
            times = mult.get(s.trains[tid].name, 1)
            if times != 1:  # 4.2.3.1: cities and off-boards count ``times``, towns once
                colors = self.route_colors()
                rev += (times - 1) * sum(s.map.tile(h).nodes[i].revenue_for(colors) for h, i in rt.nodes
                                         if s.map.tile(h).nodes[i].kind != "town")
            hb = s.hex_bonuses.get(corp)
            if hb and hb[0] in rt.hexes():
                rev += hb[1]
            out.append([tid, rt, rev])
        sym = s.route_bonus_corps.get(corp)
        ab = (self.title.company(sym) or {}) if sym else {}
        for bonus in next((a.get("bonuses", []) for a in ab.get("abilities", []) if a["type"] == "route_bonuses"), []):
            fits = [o for o in out if set(bonus["hexes"]) <= set(o[1].hexes())]
            if fits:
                max(fits, key=lambda o: o[2])[2] += int(bonus["bonus"])
        return [(tid, rt.paying(rev)) for tid, rt, rev in out]

    def stop_groups(self: "Engine"):
        from pbm.e18xx.freight import StopGroups
        cache = self.__dict__.get("_stop_groups")
        if cache is None:
            cache = self.__dict__["_stop_groups"] = StopGroups(self.title.data.get("stop_groups", {}))
        return cache

    def assigned_bonus(self: "Engine", corp: str, hexes: set[str], kind: str) -> int:
        """Bonus of an ``assign_bonus`` private used by ``corp`` on one of ``hexes``."""
        s = self.state
        for (sym, owner), coord in s.assignments.items():
            if owner == corp and coord in hexes:
                ab = self.company_ability(sym, "assign_bonus") or {}
                return int(ab.get("doubler_bonus" if kind == "doubler" else "bonus", 0))
        return 0

    def _run_kinded(self: "Engine", corp: str, action: A.RunRoutes) -> None:
        from pbm.e18xx.freight import pick_disjoint, routes_through
        s = self.state
        r = s.round
        if action.auto:
            _, chosen = self.best_run(corp)
        else:
            self._check_route_trains(corp, action)
            cands = []
            for spec in action.routes:
                t = s.trains[spec.train]
                found = routes_through(self, corp, t.variant or t.name, t.kind, spec.nodes)
                if not found:
                    raise IllegalRoute(self.route_refusal(corp, spec, 0, (), None,
                                                          "blocked, or a stop its kind may not visit"))
                cands.append(found)
            got = pick_disjoint(cands)
            if got is None:
                raise IllegalRoute(f"{self.track_ref('route_shared')}these routes cannot all run without two trains "
                                   "sharing track")
            chosen = []
            for spec, kr in zip(action.routes, got):
                if spec.revenue is not None and spec.revenue != kr.revenue:
                    raise IllegalRoute(f"route {'-'.join(spec.nodes)} pays {kr.revenue}, not {spec.revenue}")
                chosen.append((spec.train, kr))
            total = sum(k.revenue + k.subsidy for _, k in chosen)
            best_total, best = (total, chosen) if "site_routes" in self.optional_rules else \
                self.best_run(corp)
            if total < best_total:  # the amounts as the events give them, the treasury's apart (s15 mail 104)
                said, best_said = _earned(chosen), _earned(best)
                raise IllegalRoute(f"4.5.5: the routes must earn the most possible ({best_said[0]}{best_said[1]}); "
                                   f"these earn {said[0]}{said[1] and f' ({said[1][2:]})'}{best_words(best)}")
        r.routes = [(t, k.route.paying(k.revenue)) for t, k in chosen]
        r.revenue = sum(k.revenue for _, k in chosen)
        r.subsidy = sum(k.subsidy for _, k in chosen)
        r.ran = True
        r.steps_done.add("route")
        for t in self.corp_trains(corp):
            s.trains[t].operated = True
        self.log(f"{corp} runs for {r.revenue}" + (f" (+{r.subsidy} to the treasury)" if r.subsidy else "") + ": "
                 + "; ".join(f"{t}: {'-'.join(k.route.hexes())} ({k.revenue})" for t, k in chosen))

    def _check_route_trains(self: "Engine", corp: str, action: A.RunRoutes) -> set[str]:
        """The company's trains, after checking each submitted route names one of them, once."""
        owned = set(self.corp_trains(corp))
        seen: set[str] = set()
        for spec in action.routes:
            if spec.train not in owned:
                if not spec.train:  # a route written without its train, and none left for it (s13w F1)
                    raise IllegalRoute(f"{corp} has more routes than trains: it owns {', '.join(sorted(owned))}")
                raise IllegalRoute(f"{corp} does not own train {spec.train}; it owns {', '.join(sorted(owned))}")
            if spec.train in seen:
                raise IllegalRoute(f"train {spec.train} runs twice")
            seen.add(spec.train)
        return owned

    def _run_routes(self: "Engine", corp: str, action: A.RunRoutes) -> None:
        action = self.written_routes(action)  # stops as HEX-n ("L5" for L5's one city)
        if self.title.data.get("stop_groups"):
            self._run_kinded(corp, action)
            return
        s = self.state
        r = s.round
        from pbm.e18xx.gauge import check_gauge, uses_gauge_routes
        if action.auto:
            total, chosen = self.auto_routes(corp)
        elif uses_gauge_routes(self):
            self._check_route_trains(corp, action)
            total, chosen = check_gauge(self, corp, action)
            best_total, best = (total, chosen) if "site_routes" in self.optional_rules else self.auto_routes(corp)
            if total < best_total:
                raise IllegalRoute(f"the routes must earn the most possible ({best_total}); "
                                   f"these earn {total}{best_words(best)}")
        else:
            self._check_route_trains(corp, action)
            chosen = self.routes_by_stops(corp, action.routes)
            chosen = self.route_extras(corp, chosen)
            for spec, (_, route) in zip(action.routes, chosen):
                if spec.revenue is not None and spec.revenue != route.revenue:
                    raise IllegalRoute(f"route {'-'.join(spec.nodes)} pays {route.revenue}, not {spec.revenue}")
            total = sum(rt.revenue for _, rt in chosen)
            best_total, best = (total, chosen) if "site_routes" in self.optional_rules else self.auto_routes(corp)
            if total < best_total:
                raise IllegalRoute(f"{self.track_ref('route_best')}the routes must earn the most possible ({best_total}); "
                                   f"these earn {total}{best_words(best)}")
        r.routes = chosen
        r.revenue = total
        r.ran = True
        r.steps_done.add("route")
        for t in self.corp_trains(corp):
            s.trains[t].operated = True
        self.log(f"{corp} runs for {total}: " + "; ".join(f"{t}: {'-'.join(rt.hexes())} ({rt.revenue})" for t, rt in chosen))

    def routes_by_stops(self: "Engine", corp: str, specs: Sequence[A.RouteSpec]) -> list[tuple[str, Route]]:
        """The track each train of ``specs`` runs, found from its stops: for each train the route
        through its stops in their order (else the best one through them), avoiding the track of
        the trains before it; if that leaves a train none, any choice of paths between the stops
        that leaves every train its own track (4.2.3(j)).  IllegalRoute if there is none."""
        s = self.state
        owned = set(self.corp_trains(corp))
        longest = max((s.trains[t].distance for t in owned), default=0)
        graph, colors = self.graph(), self.route_colors()
        used = 0
        chosen: list[tuple[str, Route]] = []
        # Only the routes through the named stops: the same candidates, in the same
        # order, as enumerating every route of the company would offer find_route.
        pools = [all_routes(graph, corp, longest, colors, only=node_keys(spec.nodes), complete=True)
                 for spec in specs]
        for spec, pool in zip(specs, pools):
            route = find_route(pool, spec.nodes, s.trains[spec.train].distance, used)
            if route is None:
                break
            used |= route.mask
            chosen.append((spec.train, route))
        if len(chosen) < len(specs):
            # the stops do not fix the track: other paths between them may leave every train its own
            joint = disjoint_routes([route_candidates(pool, spec.nodes, s.trains[spec.train].distance)
                                     for pool, spec in zip(pools, specs)])
            if joint is None:
                spec = specs[len(chosen)]
                raise IllegalRoute(self.route_refusal(corp, spec, used, chosen, s.trains[spec.train].distance))
            chosen = [(spec.train, rt) for spec, rt in zip(specs, joint)]
        return chosen

    def _pay_dividend(self: "Engine", corp: str, kind: str) -> None:
        s = self.state
        c = s.corporations[corp]
        revenue = s.round.revenue
        for tid in [t for t in c.trains if s.trains[t].obsolete]:  # soft-rusted trains ran their last
            c.trains.remove(tid)
            s.trains[tid].owner = "removed"
        subsidy = s.round.subsidy
        if subsidy:
            self.transfer("bank", c.key, subsidy)
            self.log(f"{corp} earns {subsidy} from its coal district station")
        price_rule = self.title.data.get("payout_moves")
        if kind == "payout" and revenue > 0:
            per_share = revenue / c.size
            unit = self.unit(corp)
            for p in s.players:
                units = self.percent_of(p.key, corp) // unit
                amount = -(-int(units * per_share * 100) // 100)
                if amount:
                    self.transfer("bank", p.key, amount)
            pool_units = self.percent_of("pool", corp) // unit
            if self.title.data.get("pool_dividends") == "bank":
                pool_units = 0  # the open market's shares earn nothing: the bank keeps it (1848 5.1.5)
            if pool_units:
                self.transfer("bank", c.key, -(-int(pool_units * per_share * 100) // 100))
            if price_rule != "right_if_at_least_price" or revenue >= self.share_price(corp):
                self.move_right(c)
            self.log(f"{corp} pays out {revenue}")
        else:
            if revenue:
                self.transfer("bank", c.key, revenue)
            self.move_left(c)
            self.log(f"{corp} withholds {revenue}")
            self.after_price_drop(corp)  # 1848 5.5.1, 11.2: into the receivership column, taken over at once

    # ------------------------------------------------------------- trains
    def _depot_trains(self: "Engine") -> list[str]:
        """Trains the depot offers: the next new one, and discarded ones (one per type)."""
        s = self.state
        out = []
        nxt = next((t.tid for t in s.trains.values() if t.owner == "depot"), None)
        if nxt:
            out.append(nxt)
        left: set[str] | None = None  # names of the trains that have left the depot
        for td in self.title.trains:  # ``available_on``: offered early, once that train was bought
            if not td.available_on:
                continue
            if left is None:
                left = {t.name for t in s.trains.values() if t.owner != "depot"}
            if "site_export_phase" in self.optional_rules:
                # 18xx.games offers it once the phase of that train has begun (1848 5.4.4, 9.5)
                reached = any(ph.on == td.available_on for ph in self.title.phases[:s.phase + 1])
            else:
                reached = td.available_on in left
            if reached:
                early = next((t.tid for t in s.trains.values() if t.owner == "depot" and t.name == td.name), None)
                if early and early not in out:
                    out.append(early)
        seen = set()
        # the Open Market's trains in the order they came there: of each type the first to come is
        # offered (as 18xx.games, whose export names that train)
        for t in sorted((t for t in s.trains.values() if t.owner == "discard"), key=lambda t: t.pooled):
            if t.obsolete:  # 18AL 4.2.5.1: "No corporation may ever purchase an obsolete train from any
                continue  # source" (one left in the Open Market under ``site_obsolete``: 18AL 5p 60323)
            if t.name not in seen:
                seen.add(t.name)
                out.append(t.tid)
        return out

    def _to_pool(self: "Engine", tid: str) -> None:
        """Train ``tid`` goes to the Open Market, after those already there -- an obsolete one leaves
        play instead (18AL 4.2.5.1: "If an obsolete train is ever discarded into the Open Market, it
        is immediately removed from play"; 18xx.games keeps it there, unbuyable: ``site_obsolete``)."""
        s = self.state
        if s.trains[tid].obsolete and "site_obsolete" not in self.optional_rules:
            s.trains[tid].owner = "removed"
            return
        s.trains[tid].owner = "discard"
        s.trains[tid].pooled = 1 + max((t.pooled for t in s.trains.values()), default=0)

    def train_limit(self: "Engine", corp: str | None = None) -> int:
        """The phase's train limit; for a corporation, by its size plus any permanent bonus."""
        if corp is None:
            return self.phase.train_limit
        c = self.state.corporations[corp]
        return self.phase.limit_for(c.size) + c.extra_train_limit

    def train_limit_text(self: "Engine") -> str:
        """The phase's train limit as players read it: ``4`` or, with limits by company size,
        ``4 (10-share), 2 (5-share)`` (sizes whose limit is 0 are not shown)."""
        ph = self.phase
        if not ph.limits_by_size:
            return str(ph.train_limit)
        shown = [(size, lim) for size, lim in sorted(ph.limits_by_size, reverse=True) if lim]
        if len(shown) == 1:
            return str(shown[0][1])
        return ", ".join(f"{lim} ({size}-share)" for size, lim in shown)

    def limit_reason(self: "Engine", corp: str) -> str:
        """Why ``corp`` may own no more trains, for a refusal: ``it owns 2, 1G; the limit
        is 2 for a 5-share company in phase 2 (rule 2, 4.5.8)``."""
        from pbm.e18xx.rounds.cite import see
        c = self.state.corporations[corp]
        owned = ", ".join(self.train_label(t) for t in self.limited_trains(corp)) or "nothing"  # types, no ids
        size = f" for a {c.size}-share company" if self.phase.limits_by_size else ""
        extra = f" (+{c.extra_train_limit} from a private)" if c.extra_train_limit else ""
        return (f"it owns {owned}; the limit is {self.train_limit(corp)}{size} {self.title.in_phase(self.state.phase)}{extra}"
                f"{see(self.title, 'train_limit')}")

    def train_label(self: "Engine", tid: str) -> str:
        """A train as players name it: its declared side (a freight ``1G``) or its type."""
        t = self.state.trains[tid]
        return t.variant or t.name

    def crowded_corps(self: "Engine") -> list[str]:
        s = self.state
        if s.round.kind != "operating":
            return []
        limit = self.phase.limit_for
        # no more trains than the limit: never over it (the limited trains are some of them)
        return [c.sym for c in s.corporations.values()
                if not c.closed and c.trains and len(c.trains) > limit(c.size) + c.extra_train_limit
                and len(self.limited_trains(c.sym)) > self.train_limit(c.sym)]

    def _usable_discount(self: "Engine", corp: str, train: str, crowded_ok: bool = False) -> int:
        """The biggest ``train_discount`` a private ``corp`` may use now gives on ``train`` (with
        ``crowded_ok``: also while another company's discard is pending, which comes first)."""
        s = self.state
        best = 0
        discounting = self.title.__dict__.get("_train_discounts")
        if discounting is None:  # the privates with a train discount (most titles: none)
            discounting = self.title.__dict__["_train_discounts"] = frozenset(
                c["sym"] for c in self.title.data["companies"] if self.company_ability(c["sym"], "train_discount"))
        if not discounting:
            return 0
        for comp in s.companies.values():
            if comp.sym not in discounting:
                continue
            ab = self.company_ability(comp.sym, "train_discount")
            if not ab or self._owned_by_operator(comp.sym, crowded_ok) != corp:
                continue
            if ab.get("trains") and s.trains[train].name not in ab["trains"]:
                continue
            best = max(best, discount_off(ab, s.trains[train].price))
        return best

    def outside_limit(self: "Engine", name: str) -> bool:
        """Title data ``trains[].outside_limit``: a train type that does not count against the
        train limit, does not meet the duty to own a train, and of which a company owns one."""
        return bool(self._train_data(name).get("outside_limit"))

    def limited_trains(self: "Engine", corp: str) -> list[str]:
        s = self.state
        outside = self.__dict__.get("_outside_limit")
        if outside is None:
            outside = self.__dict__["_outside_limit"] = frozenset(
                t["name"] for t in self.title.data["trains"] if t.get("outside_limit"))
        trains = s.corporations[corp].trains
        soft = any(rule in self.optional_rules for rule in self.title.data.get("soft_rust_by_rule", {}))
        if "site_obsolete" in self.optional_rules or soft:
            # 18xx.games (18AL 4.2.5.1 as it plays it, and 18GA's soft rust of the 4s, a variant of
            # the site's own): an obsolete train running once more does not count against the train limit
            trains = [t for t in trains if not s.trains[t].obsolete]
        if not outside:
            return list(trains)
        return [t for t in trains if s.trains[t].name not in outside]

    def _other_trains(self: "Engine", corp: str) -> list[str]:
        s = self.state
        event = self.title.data.get("trains_between_companies_event")
        if event and event not in s.events:
            return []  # 8.3.4: not before that train event
        # 18AL 4.2.5.1: "No corporation may ever purchase an obsolete train from any source"
        if event:
            return [t.tid for t in s.trains.values() if t.owner.startswith("C:") and t.owner != f"C:{corp}"
                    and t.buyable and not t.obsolete and not self.outside_limit(t.name)]
        return [t.tid for t in s.trains.values() if t.owner.startswith("C:") and t.owner != f"C:{corp}" and t.buyable
                and not t.obsolete]

    def _room(self: "Engine", corp: str, train: str | None = None) -> bool:
        s = self.state
        if train is not None and self.outside_limit(s.trains[train].name):
            name = s.trains[train].name
            return not any(s.trains[t].name == name for t in s.corporations[corp].trains)
        return len(self.limited_trains(corp)) < self.train_limit(corp)

    def _train_limit_private(self: "Engine", corp: str) -> str | None:
        """A private of ``corp`` whose ``train_limit_bonus`` is still to use (18VA Potomac Yards:
        "exercised in the owning Corporation's train-buying phase")."""
        for comp in self.state.companies.values():
            if comp.owner == f"C:{corp}" and not comp.closed and self.company_ability(comp.sym, "train_limit_bonus"):
                return comp.sym
        return None

    def _can_buy_train(self: "Engine", corp: str) -> bool:
        """Whether ``corp`` can still buy a train this turn.  A private's discount counts even while
        a discard the purchase caused is pending (1848 4.5, 8.2.5: random 5p seed 40046, NSW's 5
        made WA discard; NSW could then buy The Ghan with its director's £100 rebate)."""
        s = self.state
        cash = s.cash[f"C:{corp}"]
        depot = [t for t in self._depot_trains() if not self._depot_limited(corp, t) and self._room(corp, t)]
        if not self._room(corp):
            return any(s.trains[t].price - self._usable_discount(corp, t, True) <= cash for t in depot)
        if any(s.trains[t].price - self._usable_discount(corp, t, True) <= cash for t in depot):
            return True
        if any(s.trains[t].price <= cash for t in depot):
            return True
        return bool(self._other_trains(corp)) and cash >= 1

    def _depot_limited(self: "Engine", corp: str, train: str | None = None) -> bool:
        """Status ``limited_train_buy``: one train from the bank per turn, or with title data
        ``limited_train_buy: per_type`` one new train of each type (the pool is free)."""
        s = self.state
        if "limited_train_buy" not in self.phase.status:
            return False
        if self.title.data.get("limited_train_buy") == "per_type":
            if train is None:
                nxt = next((t for t in self._depot_trains() if s.trains[t].owner == "depot"), None)
                if nxt is None:
                    return True
                train = nxt
            t = s.trains[train]
            return t.owner == "depot" and f"{corp}:{t.name}" in s.round.bought_depot
        return corp in s.round.bought_depot

    def _needs_emergency(self: "Engine", corp: str) -> bool:
        s = self.state
        if not self._must_buy_train(corp):
            return False
        if (self.title.data.get("loans") or {}).get("forced_train_loans"):
            return False  # 8.4.3: the director contributes nothing; loans pay
        depot = [t for t in self._depot_trains() if not self.outside_limit(s.trains[t].name)]
        cheapest = min((s.trains[t].price for t in depot), default=0)
        return s.cash[f"C:{corp}"] < cheapest

    def emergency_buying_power(self: "Engine", corp: str) -> int:
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

    def _emergency_units(self: "Engine", player: str, operating: str, corp: str) -> list[int]:
        """Sellable lots while raising money for ``operating``: no change of its presidency; with title
        data ``one_sale_per_company_per_turn`` (18VA 4.6.2: "subject to the normal limitations on stock
        sales", the one lot a turn of the stock round's ruling) not a company already sold this turn."""
        if self.title.data.get("one_sale_per_company_per_turn") and self.state.round.kind == "operating" \
                and corp in self.state.round.sold.get(player, {}):
            return []
        units = self._sellable_bundles(player, corp)
        if corp == operating and self.president(corp) == player:
            others = max((self.percent_of(p.key, corp) for p in self.state.players if p.name != player), default=0)
            held = self.percent_of(f"P:{player}", corp)
            units = [u for u in units if held - u * self.unit(corp) >= others]
        return units

    def _must_go_bankrupt(self: "Engine", corp: str) -> bool:
        if not self._must_buy_train(corp):
            return False
        if (self.title.data.get("loans") or {}).get("forced_train_loans"):
            return False  # loans pay for it, or the company goes into receivership (1848 8.4)
        cheapest = min(self.state.trains[t].price for t in self._depot_trains())
        return self.emergency_buying_power(corp) < cheapest

    def _buy_train(self: "Engine", corp: str, action: A.BuyTrain, discount: int = 0) -> None:
        s = self.state
        c = s.corporations[corp]
        ref = action.train
        if ref not in s.trains and action.seller is not None:  # "buy train 2 from ABC": ABC's 2 train
            owner = f"C:{self.corp(str(action.seller)).sym}"
            ref = next((t.tid for t in s.trains.values() if t.owner == owner and t.name == ref), None) or ref
            if ref not in s.trains:
                raise IllegalAction(f"{action.seller} owns no {ref} train")
        if ref not in s.trains:
            match = [t for t in self._depot_trains() if s.trains[t].name == ref]
            if not match:
                raise IllegalAction(f"no {ref} train is for sale; the {self.title.word('train_bank')} offers "
                                    f"{', '.join(s.trains[t].name for t in self._depot_trains()) or 'nothing'}")
            ref = match[0]
        train = s.trains[ref]
        if not self._room(corp, ref):
            raise IllegalAction(f"{corp} is at its train limit: {self.limit_reason(corp)}")
        from_depot = train.owner in ("depot", "discard")
        if from_depot and action.seller is not None:
            raise IllegalAction(f"train {ref} belongs to the bank, not {action.seller}")
        if train.obsolete:  # from the Open Market or from another company (18AL 4.2.5.1)
            raise IllegalAction(f"train {ref} is obsolete: no company may ever buy an obsolete train"
                                f"{see(self.title, 'obsolete_train')}")
        if from_depot:
            if ref not in self._depot_trains():
                raise IllegalAction(f"this {train.name} train is not available yet: the bank's trains are bought in "
                                    f"order; the {self.title.word('train_bank')} offers "
                                    f"{', '.join(s.trains[t].name for t in self._depot_trains())}"
                                    f"{see(self.title, 'train_order')}")
            if self._depot_limited(corp, ref):
                from pbm.e18xx.phases import one_train_words

                bought = f", and {corp} has bought a {train.name} this round" \
                    if self.title.data.get("limited_train_buy") == "per_type" else ""
                raise IllegalAction(f"{self.title.in_phase(self.state.phase)} "
                                    f"{one_train_words(self.title, self.title.word('train_bank'))}{bought}"
                                    f"{see(self.title, 'one_train_per_turn')}")
            price = self.variant_price(train, action.variant) - discount
            if action.exchange:
                price -= self._trade_in(corp, train, action)
            if action.price is not None and action.price != price:
                raise IllegalAction(f"train {ref} costs {self.title.money(price)}")
            seller = "bank"
        else:
            if action.seller is not None and f"C:{self.corp(str(action.seller)).sym}" != train.owner:
                raise IllegalAction(f"train {ref} belongs to {train.owner[2:] if train.owner.startswith('C:') else 'nobody'}, "
                                    f"not {action.seller}")
            if ref not in self._other_trains(corp):
                raise IllegalAction(f"train {ref} cannot be bought by {corp}")
            if s.round.emergency_sold and not self._ebuy_from_others():
                # 4.2.5.2(a), (d) of 18AL (18GA 4.2.5.1): the president who sells shares for the train
                # contributes his money, so the cheapest train from the bank is bought; bought from another
                # company with the treasury, his sale was more than needed
                raise IllegalAction(f"{self.president(corp)} has sold shares to raise money for {corp}'s train: the "
                                    "president contributes, so the cheapest train from the bank must be bought; no "
                                    "train may be bought from another company if the president contributes personal "
                                    f"funds{see(self.title, 'emergency_from_company')}")
            price = action.price if action.price is not None else train.price
            least = self.emergency_least(corp, ref)
            if least and price < least:
                pres = self.president(corp)
                raise IllegalAction(f"{pres} has sold shares to raise money for {corp}'s train and may sell only just "
                                    f"enough: {corp} must spend at least {self.title.money(least)} (its cash and "
                                    f"his, less what one share brought, plus 1){see(self.title, 'emergency_sell_needed')}")
            if price < 1:
                raise IllegalAction(f"a train costs at least {self.title.money(1)}{see(self.title, 'train_sale')}")
            seller = train.owner
            if self.title.data.get("trades_at_face_value") and price != train.price and \
                    self.president(seller[2:]) != self.president(corp):
                raise IllegalAction(f"between companies with different directors a train changes hands at its "
                                    f"face value ({self.title.money(train.price)}){see(self.title, 'train_sale')}")
        cash = s.cash[c.key]
        if price > cash and from_depot and self._must_buy_train(corp) and \
                (self.title.data.get("loans") or {}).get("forced_train_loans"):
            self._forced_loans(corp, price)
            if c.closed:
                return
            cash = s.cash[c.key]
        if price > cash:
            if not self._must_buy_train(corp):
                raise InsufficientFunds(f"{corp} has {self.title.money(cash)}, the train costs {self.title.money(price)}"
                                        + ("" if from_depot else f": a company pays another at most its own cash"
                                           f"{see(self.title, 'train_sale')}"))
            pres = self.president(corp)
            need = price - cash
            if from_depot:
                cheapest = min(s.trains[t].price for t in self._depot_trains())
                if train.price != cheapest:
                    raise IllegalAction(f"with the president's money only the cheapest train ({cheapest}) may be bought"
                                        f"{see(self.title, 'emergency_cheapest')}")
            elif not self._ebuy_from_others():
                raise IllegalAction("a train may not be bought from another company with the president's money"
                                    f"{see(self.title, 'emergency_from_company')}")
            elif price > train.price:
                raise IllegalAction("with the president's money a train costs at most its face value"
                                    f"{see(self.title, 'emergency_from_company')}")
            elif self.title.data.get("ebuy_from_others") == "company_without_cash" and cash > 0:
                # 18VA 4.6.1: "up to all its remaining cash. If the Corporation purchasing the train
                # has no money at all, the President may use his cash on hand"
                raise InsufficientFunds(f"{corp} has {self.title.money(cash)}: a company pays another at most all "
                                        "its remaining cash; the president's money buys a train from another "
                                        f"company only for a company with no money at all"
                                        f"{see(self.title, 'emergency_from_company')}")
            if pres is None or s.cash[f"P:{pres}"] < need:
                m, has = self.title.money, s.cash[f"P:{pres}"] if pres else 0
                raise InsufficientFunds(f"the train costs {m(price)} and {corp} has {m(cash)}: its president {pres} "
                                        f"pays the other {m(need)} but has {m(has)}, so he must first sell shares "
                                        f"for {m(need - has)} more, or go bankrupt")
            self.transfer(f"P:{pres}", c.key, need)
        self.transfer(c.key, seller, price)
        if seller.startswith("C:"):
            s.corporations[seller[2:]].trains.remove(ref)
        self._declare_variant(train, action.variant, from_depot)
        train.owner = c.key
        c.trains.append(ref)
        for comp in s.companies.values():  # a private that closes when its corporation buys a train
            ab = self.company_ability(comp.sym, "close_on_train")
            if ab and ab["corporation"] == corp and not comp.closed:
                comp.closed = True
                self.log(f"{comp.sym} closes ({corp} bought a train)")
        self.log(f"{corp} buys train {ref}" + (f" as {train.variant}" if train.variant and train.variant != train.name else "")
                 + (f" from {seller[2:]}" if seller.startswith("C:") else "") + f" for {price}")
        if from_depot:
            s.round.bought_depot.add(corp)
            s.round.bought_depot.add(f"{corp}:{train.name}")
            self._train_bought_from_depot(train.name)
            self._refill_unlimited(train.name)
        if not self._can_buy_train(corp) and not self._must_buy_train(corp):  # (1848: a 2E is not a
            s.round.steps_done.add("buy_train")  # train the company must own, 8.1, 8.2.5)

    def _trade_in(self: "Engine", corp: str, train: Train, action: A.BuyTrain) -> int:
        """8.2.4: the side ``trade_in.variant`` may be bought trading in one of the company's
        ``trade_in.trains`` for ``trade_in.discount`` less; the traded train leaves the game."""
        s = self.state
        spec = self._train_data(train.name).get("trade_in")
        old = s.trains.get(str(action.exchange))
        if not spec or action.variant != spec["variant"]:
            raise IllegalAction(f"no train may be traded in for a {action.variant or train.name}")
        if old is None or old.owner != f"C:{corp}" or old.name not in spec["trains"]:
            raise IllegalAction(f"{corp} may trade in only its own {' or '.join(spec['trains'])} train")
        s.corporations[corp].trains.remove(old.tid)
        old.owner = "removed"
        self.log(f"{corp} trades in {old.tid}")
        return int(spec["discount"])

    def _train_data(self: "Engine", name: str) -> dict:
        table = self.__dict__.get("_train_table")
        if table is None:
            table = self.__dict__["_train_table"] = {t["name"]: t for t in self.title.data["trains"]}
        return table[name]

    def variant_price(self: "Engine", train: Train, variant: str | None) -> int:
        """A new train's price for the side it is bought as (title data ``variant_prices``)."""
        prices = self._train_data(train.name).get("variant_prices", {})
        return int(prices.get(variant, train.price)) if variant else train.price

    def _declare_variant(self: "Engine", train: Train, variant: str | None, from_depot: bool) -> None:
        """A train with several sides (``2``/``1G``) is declared passenger or freight when
        bought from the bank or pool; one bought from a company keeps its side."""
        td = next(t for t in self.title.trains if t.name == train.name)
        if not td.variants:
            return
        kinds = dict(td.variants)
        if not from_depot and train.variant:
            if variant not in (None, train.variant):
                raise IllegalAction(f"train {train.tid} is {article(train.variant)}; its side cannot change")
            return
        pick = variant or td.variants[0][0]
        if pick not in kinds:
            raise IllegalAction(f"train {train.tid} runs as {' or '.join(kinds)}, not {pick}")
        train.variant, train.kind = pick, kinds[pick]
        data = self._train_data(train.name)
        if pick in data.get("variant_prices", {}):
            train.price = int(data["variant_prices"][pick])
        if pick in data.get("variant_distance", {}):
            train.distance = int(data["variant_distance"][pick])

    def _refill_unlimited(self: "Engine", name: str) -> None:
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

    def _train_bought_from_depot(self: "Engine", name: str, as_sold: bool = True) -> None:
        """A train has left the depot (bought, or removed ``as_sold``): phases, rusting, events."""
        s = self.state
        phases = self.title.phases
        later = [k for k in range(s.phase + 2, len(phases)) if phases[k].on == name]
        if as_sold and later and phases[s.phase + 1].on != name:
            # a train leaving the depot before its turn (1848 5.4.4: the cheapest permanent train
            # removed at a receivership, "regarded as having been sold and can bring about a phase
            # change") begins its phase; the phases before it begin on the way, with their rusting
            while s.phase + 1 < later[0]:
                s.phase += 1
                self.log(f"-- phase {phases[s.phase].name} --")
                for other in self.title.trains:
                    if phases[s.phase].on and other.rusts_on == phases[s.phase].on:
                        self._rust(other.name)
        while s.phase + 1 < len(phases) and phases[s.phase + 1].on == name:
            s.phase += 1
            self.log(f"-- phase {phases[s.phase].name} --")
        td = next(t for t in self.title.trains if t.name == name)
        s.events.update(td.events)
        for other in self.title.trains:
            if other.rusts_on == name:
                self._rust(other.name)
        hard = set(self.title.data.get("hard_rust_by_rule", {}).get(r) for r in self.optional_rules)
        for raw in self.title.data["trains"]:
            if raw.get("obsolete_on") == name:  # runs once more (rust if an optional rule says so)
                self._rust(raw["name"], obsolete=raw["name"] not in hard)
        if "remove_hex_bonuses" in td.events and s.hex_bonuses:
            s.hex_bonuses.clear()
            self.log("-- hex bonus tokens are removed --")
        forced = self.title.data.get("conversion", {}).get("forced_event")
        if forced and forced in td.events:  # every five-share corporation converts now
            self.log("-- all five-share corporations convert to ten shares --")
            for c in s.corporations.values():
                if c.size == 5 and not c.closed:
                    self._convert(c.sym)
        if "close_companies" in td.events and not getattr(s, "_closed_done", False):
            for comp in s.companies.values():
                if comp.closed:
                    continue
                keep = [ab for ab in self.title.company(comp.sym).get("abilities", [])
                        if (ab.get("survives_close") or ab.get("forced_on_close"))
                        and comp.uses.get(ab["type"], 0) < ab.get("count", 1)]
                if keep:  # an unused ability outlives the private: no revenue, not for sale
                    comp.revenue = 0
                    comp.uses["dormant"] = 1
                else:
                    comp.closed = True
            self.log("-- private companies close --")

    def _rust(self: "Engine", name: str, obsolete: bool = False) -> None:
        s = self.state
        soft = {train for rule, train in self.title.data.get("soft_rust_by_rule", {}).items()
                if rule in self.optional_rules} | ({name} if obsolete else set())
        # 18AL 4.2.5.1: the trains made obsolete that sit in the open market or belong to the
        # buyer of the new train go at once (18xx.games: they too run once more, ``site_obsolete``)
        buyer = f"C:{self._or_operator()}" if obsolete and s.round.kind == "operating" else None
        at_once = {"discard", buyer} if obsolete and "site_obsolete" not in self.optional_rules else set()
        for t in s.trains.values():
            if t.name != name or t.owner in ("removed", "depot"):
                continue
            if name in soft and t.owner not in at_once:
                t.obsolete = True
                continue
            if t.owner.startswith("C:"):
                s.corporations[t.owner[2:]].trains.remove(t.tid)
            t.owner = "removed"
        self.log(f"-- {name} trains rust --")

    def _discard(self: "Engine", action: A.DiscardTrain) -> None:
        s = self.state
        c = s.corporations[action.entity]
        if action.train not in c.trains:
            raise IllegalAction(f"{c.sym} does not own {action.train}; it owns {', '.join(c.trains)}")
        c.trains.remove(action.train)
        if self.title.data.get("discarded_trains", "bank") == "removed":
            # 1848 8.1: "Trains in excess of the Train Limit as a result of a phase change are removed
            # from the game" (elsewhere the bank offers it again: 18GA/18AL 4.2.5(g), 18VA)
            s.trains[action.train].owner = "removed"
            self.log(f"{c.sym} discards {action.train}; it leaves the game")
            return
        self._to_pool(action.train)
        td = next(t for t in self.title.trains if t.name == s.trains[action.train].name)
        if len(td.variants) > 1:  # back in the pool a train is undeclared again
            s.trains[action.train].variant = None
        self.log(f"{c.sym} discards {action.train}")

    # ----------------------------------------------------------- companies
    def company_price_range(self: "Engine", sym: str) -> tuple[int, int]:
        fixed = self.title.company(sym).get("price_range")
        if fixed:  # the private's own range (1848: £1 to a printed maximum)
            return int(fixed[0]), int(fixed[1])
        lo, hi = self.title.data.get("company_sale_range", [50, 150])
        v = self.state.companies[sym].value
        return (-(-v * lo // 100), v * hi // 100)

    def _purchasable_companies(self: "Engine") -> list[str]:
        only = None  # title data ``companies_from_director``: the operating company's director's only (1848 4.1)
        if self.title.data.get("companies_from_director") and self.state.round.kind == "operating":
            only = f"P:{self.president(self._or_operator())}"
        return [c.sym for c in self.state.companies.values()
                if c.owner and c.owner.startswith("P:") and not c.closed and (only is None or c.owner == only)
                and not self.title.company(c.sym).get("no_buy") and not c.uses.get("dormant")]

    def _owned_tile_ability(self: "Engine", corp: str) -> str | None:
        """A private owned by ``corp`` whose special tile lay is still unused."""
        for comp in self.state.companies.values():
            ab = self.company_ability(comp.sym, "tile_lay")
            if ab and (ab.get("consume_tile_lay") or ab.get("any_time")):
                continue  # used with the company's own lay, or at any time: no reason to hold the step
            if ab and comp.owner == f"C:{corp}" and not comp.closed and comp.uses.get("tile_lay", 0) < ab.get("count", 1):
                return comp.sym
        return None

    def _can_buy_tile_company(self: "Engine", corp: str) -> bool:
        if "can_buy_companies" not in self.phase.status:
            return False
        cash = self.state.cash[f"C:{corp}"]
        return any(self.company_ability(c, "tile_lay") and self.company_price_range(c)[0] <= cash
                   and not (self.company_ability(c, "tile_lay") or {}).get("consume_tile_lay")
                   and not (self.company_ability(c, "tile_lay") or {}).get("any_time")
                   for c in self._purchasable_companies())

    def _can_buy_company(self: "Engine", corp: str) -> bool:
        if "can_buy_companies" not in self.phase.status:
            return False
        comps = self._purchasable_companies()
        if not comps:
            return False
        return min(self.company_price_range(c)[0] for c in comps) <= self.state.cash[f"C:{corp}"]

    def company_buy_refusal(self: "Engine", corp: str, action: A.BuyCompany) -> str | None:
        """Why ``corp`` may buy no private company at all now, whatever the step (issue 29): the
        phase does not allow it yet (or any more), or no private may be bought; None otherwise."""
        ref = see(self.title, "buy_private_phase") or see(self.title, "buy_private") or see(self.title, "private_sale")
        if "can_buy_companies" not in self.phase.status:
            phases = self.title.data.get("phases", [])
            names = [str(p.get("name")) for p in phases]
            here = names.index(str(self.phase.name)) if str(self.phase.name) in names else 0
            first = next((p for p in phases[here + 1:] if "can_buy_companies" in p.get("status", [])), None)
            if first is not None:
                return (f"companies may buy private companies only from the first {first.get('on') or first.get('name')} "
                        f"train on (phase {first.get('name')}); this is phase {self.phase.name}{ref}")
            return f"companies may no longer buy private companies (phase {self.phase.name}){ref}"
        comps = self._purchasable_companies()
        if action.company not in comps:
            only = " from its director" if self.title.data.get("companies_from_director") else ""
            return (f"{action.company} may not be bought: {corp} may buy only a private company owned by a "
                    f"player{only} ({', '.join(comps) or 'none now'}){ref}")
        return None

    def _buy_company(self: "Engine", corp: str, action: A.BuyCompany) -> None:
        s = self.state
        comp = self.company(action.company)
        if comp.sym not in self._purchasable_companies():
            raise IllegalAction(f"{comp.sym} is not owned by a player; buyable: {', '.join(self._purchasable_companies()) or 'none'}")
        lo, hi = self.company_price_range(comp.sym)
        if not lo <= action.price <= hi:
            raise IllegalAction(f"{comp.sym} costs between {self.title.money(lo)} and {self.title.money(hi)}")
        if action.price > s.cash[f"C:{corp}"]:
            raise InsufficientFunds(f"{corp} has {s.cash[f'C:{corp}']}")
        seller = comp.owner
        assert seller
        self.transfer(f"C:{corp}", seller, action.price)
        comp.owner = f"C:{corp}"
        self.log(f"{corp} buys {comp.sym} from {seller[2:]} for {action.price}")
        if self.company_ability(comp.sym, "route_bonuses"):  # the bonuses pass to the company for good
            s.route_bonus_corps[corp] = comp.sym
        ab = self.company_ability(comp.sym, "free_train")
        if ab:
            free = s.trains[ab["train"]]
            phase4 = any(p.name == ab.get("unless_phase") for p in self.title.phases[: s.phase + 1])
            if free.owner == NEUTRAL and self._room(corp) and not phase4:
                free.owner = f"C:{corp}"
                s.corporations[corp].trains.append(free.tid)
                self.log(f"{corp} receives the free train {free.tid}")

    # ---------------------------------------------------------- emergencies
    def _emergency_sell(self: "Engine", corp: str, action: A.SellShares) -> None:
        s = self.state
        player = action.entity
        if action.shares:
            target = action.shares[0].rsplit("_", 1)[0]
            units = action.count or sum(self.sid_percent(x) for x in action.shares) // self.unit(target)
        else:
            target = self.corp(action.corporation).sym
            units = action.count or 1
        allowed = self._emergency_units(player, corp, target)
        if units not in allowed:
            raise IllegalAction(f"{player} may not sell {units * self.unit(target)}% of {target} now"
                                + (f" (it would change the presidency of {corp}){see(self.title, 'emergency_presidency')}"
                                   if target == corp else ""))
        cheapest = min(s.trains[t].price for t in self._depot_trains())
        need = cheapest - s.cash[f"C:{corp}"] - s.cash[f"P:{player}"]
        price = self.share_price(target)
        if (units - 1) * price >= need:
            raise IllegalAction(f"{cite(self.title, 'emergency_sell_needed')}sell only what is needed: {player} "
                                f"needs {need}, {units - 1} share(s) of {target} would raise {(units - 1) * price}")
        self.sell_units(player, target, units, list(action.shares))
        s.round.emergency_sold = price
        s.round.sold.setdefault(player, {})[target] = "now"

    def emergency_least(self: "Engine", corp: str, train: str) -> int:
        """With ``site_ebuy`` (a train from another company with the president's money, 18xx.games):
        after his sale for the forced purchase, the least the company may pay another for a train --
        4.2.5.1(d) "he may only sell just enough shares to raise the needed cash (that is, the
        president's personal funds after the train purchase must be less than the smallest amount
        he receives for selling any one certificate)", as the site counts it: for a train whose face
        value the company cannot pay alone, the company's and his cash, less the last share's price,
        plus 1.  0 when there is no such limit."""
        s = self.state
        if not s.round.emergency_sold or not self._ebuy_from_others() \
                or s.trains[train].price <= s.cash[f"C:{corp}"]:
            return 0
        pres = self.president(corp)
        most = s.cash[f"C:{corp}"] + (s.cash[f"P:{pres}"] if pres else 0)
        return most - int(s.round.emergency_sold) + 1

    def _bankrupt(self: "Engine", corp: str) -> None:
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
            eliminate = self.title.data.get("game_end", {}).get("bankrupt") == "all_but_one"
            p.bankrupt = not eliminate  # (an eliminated player is out once his sales are done)
            for sym, count in self.bankrupt_sales(pres, corp):
                self.sell_units(pres, sym, count)
            p.bankrupt = True
            if self.title.data.get("game_end", {}).get("bankrupt") == "all_but_one":
                self._eliminate(pres, corp)
                return
            self.transfer(p.key, "bank", s.cash[p.key])
            self.log(f"{pres} goes bankrupt")
        self.end_game("bankrupt")

    def bankrupt_sales(self: "Engine", pres: str, corp: str):
        """The lots a president sells as he goes bankrupt for ``corp`` ("after selling all the stock he
        is legally permitted to sell", 18VA 4.6.3; 18GA/18AL 4.2.5.1): company by company in the
        market's order, each time the largest lot the emergency rules allow, as ``(company, count)``.
        Lazy: each lot is worked out once the one before has been sold (its price has moved).  The
        export writes the same lots before its ``bankrupt`` (``exchange._bankrupt_sales``)."""
        s = self.state
        for c in sorted((x for x in s.corporations.values() if x.price), key=self._sort_key):
            while True:
                units = self._emergency_units(pres, corp, c.sym)
                if not units:
                    break
                yield c.sym, max(units)

    def _eliminate(self: "Engine", name: str, corp: str) -> None:
        """Bankruptcy that eliminates (``game_end.bankrupt: all_but_one``): the bankrupt player leaves the game; his cash stays with the company
        he was raising money for, his shares go to the open market (prices unchanged), his
        privates close; each company he ran passes to the next player holding two shares,
        or closes and may start again later.  The game ends when one player is left."""
        s = self.state
        p = self.player(name)
        key = p.key
        self.log(f"{name} goes bankrupt")
        self.transfer(key, s.corporations[corp].key, s.cash[key])
        s.round.emergency_sold = 0  # his sales bind him only (4.6.2): the next president has sold nothing
        # in operating order (the highest share price first, as 18xx.games closes them): the trains of
        # the companies that close go to the Open Market in that order
        ran = [c.sym for c in sorted(s.corporations.values(), key=self._sort_key) if self.president(c.sym) == name]
        order = [x.name for x in s.players]
        i = order.index(name)
        after = [n for n in order[i + 1:] + order[:i] if not self.player(n).bankrupt]
        for sid, owner in list(s.share_owner.items()):
            if owner == key and not sid.endswith("_0"):
                self.move_share(sid, "pool")
        for comp in s.companies.values():
            if comp.owner == key and not comp.closed:
                comp.closed = True
                self.log(f"{comp.sym} closes")
        for sym in ran:
            best = max((self.percent_of(f"P:{n}", sym) for n in after), default=0)
            heirs = [n for n in after if self.percent_of(f"P:{n}", sym) == best and best >= self.pres_percent(sym)]
            if heirs:
                new = heirs[0]
                for sid in self.shares_of(f"P:{new}", sym)[:2]:
                    self.move_share(sid, "pool")
                self.move_share(f"{sym}_0", f"P:{new}")
                self.log(f"{new} becomes president of {sym}")
            else:
                self.move_share(f"{sym}_0", "pool")
                self._close_corporation(sym)
        if len([x for x in s.players if not x.bankrupt]) <= 1:
            self.end_game("bankrupt")
            return
        if s.corporations[corp].floated:
            self._skip_steps()  # the new president completes the purchase
        else:
            self._next_corp()

    def _close_corporation(self: "Engine", sym: str) -> None:
        """A company without a president closes: stations off the map, trains to the pool,
        privates closed, shares back to its charter; it may be started again."""
        s = self.state
        c = s.corporations[sym]
        m = s.map
        for slots in m.tokens.values():
            for j, t in enumerate(slots):
                if t == sym:
                    slots[j] = None
        for k in list(m.extra_tokens):
            m.extra_tokens[k] = [t for t in m.extra_tokens[k] if t != sym]
            if not m.extra_tokens[k]:
                del m.extra_tokens[k]
        m.version += 1
        for tid in list(c.trains):
            self._to_pool(tid)
            td = next(t for t in self.title.trains if t.name == s.trains[tid].name)
            if len(td.variants) > 1:
                s.trains[tid].variant = None
        c.trains = []
        for comp in s.companies.values():
            if comp.owner == c.key and not comp.closed:
                comp.closed = True
        for k in [k for k in s.assignments if k[1] == sym]:
            del s.assignments[k]
        self.transfer(c.key, "bank", s.cash[c.key])
        if c.price is not None:
            s.market[c.price].remove(sym)
        data = next(d for d in self.title.data["corporations"] if d["sym"] == sym)
        c.size = int(data.get("size", 10))
        for i in range(9):
            self.move_share(f"{sym}_{i}", f"ipo:{sym}" if i < self.certs_for_size(c.size) else f"unissued:{sym}")
        c.token_costs = list(data["tokens"])
        c.tokens = [None] * len(c.token_costs)
        c.ipoed = c.floated = c.operated = False
        c.par = c.price = None
        # 18VA 4.6.3: it "may subsequently reenter play as a new Corporation": a private's "+1 Train
        # Limit" token (Potomac Yards) was the old corporation's
        c.extra_train_limit = 0
        home = m.tile(c.home).cities()
        if len(home) == 1:
            m.reservations[(c.home, home[0])] = sym
        size_rule = self.title.data.get("size_after_status")
        if size_rule and size_rule["status"] in self.phase.status and c.size != size_rule["size"]:
            self._convert(sym, quiet=True)
        self.log(f"{sym} closes; it may be started again")



class CompanyAbilitiesMixin:
    """Private abilities a corporation uses by closing the private:
    ``assign_bonus`` (a hex worth more to the owner), ``extra_token`` (a station
    beside a city, in no circle), ``train_discount`` (less to pay for a new train)
    and ``train_limit_bonus`` (one more train allowed).  Each is used once, during
    the owning corporation's turn, and closes the private."""

    def _owned_by_operator(self: "Engine", sym: str, crowded_ok: bool = False) -> str | None:
        """The operating company that may use private ``sym`` now (None while a discard is pending,
        unless ``crowded_ok``)."""
        s = self.state
        comp = s.companies[sym]
        if comp.closed or not comp.owner or s.round.kind != "operating":
            return None
        op = self._or_operator()
        director_ok = any(ab.get("owner") == "corporation_or_director"
                          for ab in self.title.company(sym).get("abilities", []))
        if comp.owner.startswith("P:") and director_ok and comp.owner == f"P:{self.president(op)}":
            return op if crowded_ok or not self.crowded_corps() else None
        if not comp.owner.startswith("C:"):
            return None
        corp = comp.owner[2:]
        return corp if corp == op and (crowded_ok or not self.crowded_corps()) else None

    def company_actions(self: "Engine", sym: str) -> list[str]:
        corp = self._owned_by_operator(sym)
        if corp is None:
            return []
        out = []
        if self.company_ability(sym, "assign_bonus"):
            out.append("assign")
        if self.company_ability(sym, "hex_bonus_token") and corp not in self.state.hex_bonuses \
                and not self.state.companies[sym].uses.get("hex_bonus_token") and self.corp_trains(corp) \
                and self.hex_bonus_targets(corp, sym):
            out.append("assign")
        # 18VA 4.5.3: the Potomac Yards station "must be used in this phase" (the token placement,
        # after the track), 4.2 (4) its +1 train limit "in the owning Corporation's train-buying phase"
        done = self.state.round.steps_done
        if self.company_ability(sym, "extra_token") and "track" in done and "route" not in done:
            out.append("place_token")
        buying = self._open_step(corp)[0] == "buy_train"
        if self.company_ability(sym, "train_limit_bonus") and buying:
            out.append("use_ability")
        # a train bought with a private's discount only in the train-buying step (18VA 4.6: "The Tredegar
        # Iron Works power, if used, must be used in this phase"), after the run and the dividend
        ab = self.company_ability(sym, "train_discount")
        if ab and buying and any(self._room(corp, t) for t in self._depot_trains()):
            out.append("buy_train")
        return out

    def hex_bonus_targets(self: "Engine", corp: str, sym: str) -> list[str]:
        """The hexes of ``sym``'s token (title data ``hex_bonus_token``) that ``corp`` can reach
        "with a route that is in the range of a train owned by the corporation (i.e. not an
        infinite route)" (18AL Table III, the Warrior Coal Field; the book's table is missing,
        its text is the public data of 18xx.games): a city of the hex is a stop of a legal route
        of at most the stops of the company's longest train."""
        ab = self.company_ability(sym, "hex_bonus_token") or {}
        trains = self.corp_trains(corp)
        if not trains:
            return []
        longest = max(self.state.trains[t].distance for t in trains)
        g = self.graph()
        cache = g.__dict__.setdefault("_bonus_reach_cache", {})
        key = (corp, longest, self.route_colors())
        hexes = cache.get(key)
        if hexes is None:
            hexes = cache[key] = {h for r in all_routes(g, corp, longest, self.route_colors()) for h, i in r.nodes
                                  if i in self.state.map.tile(h).cities()}
        return [h for h in ab.get("hexes", []) if h in hexes]

    def _close_company(self: "Engine", sym: str, why: str) -> None:
        self.state.companies[sym].closed = True
        self.log(f"{sym} closes ({why})")

    def _company_process(self: "Engine", action: A.Action) -> None:
        s = self.state
        sym = action.entity
        corp = self._owned_by_operator(sym)
        assert corp is not None
        if isinstance(action, A.Assign) and self.company_ability(sym, "hex_bonus_token"):
            ab = self.company_ability(sym, "hex_bonus_token") or {}
            if action.target not in ab.get("hexes", []):
                raise IllegalAction(f"{sym}'s token may go in {', '.join(ab.get('hexes', []))}, not {action.target}")
            if corp in s.hex_bonuses or s.companies[sym].uses.get("hex_bonus_token") or not self.corp_trains(corp):
                raise IllegalAction(f"{sym}'s token is placed once, by a company that owns a train")
            if action.target not in self.hex_bonus_targets(corp, sym):
                raise IllegalAction(f"{corp} cannot reach {action.target} with a route in the range of one of its "
                                    f"trains; {sym}'s token goes only in a city it can reach so"
                                    + (f" (now: {', '.join(self.hex_bonus_targets(corp, sym))})"
                                       if self.hex_bonus_targets(corp, sym) else ""))
            s.hex_bonuses[corp] = (action.target, int(ab.get("bonus", 0)))
            s.companies[sym].uses["hex_bonus_token"] = 1
            self.log(f"{corp} puts {sym}'s token in {action.target}: +{ab.get('bonus', 0)} for each train there")
        elif isinstance(action, A.Assign):
            ab = self.company_ability(sym, "assign_bonus") or {}
            if action.target not in ab.get("hexes", []):
                raise IllegalAction(f"{sym} may be assigned to {', '.join(ab.get('hexes', []))}, not {action.target}")
            s.assignments[(sym, corp)] = action.target
            self._close_company(sym, f"{corp} gets +{ab.get('bonus', 0)} in {action.target}")
        elif isinstance(action, A.PlaceToken):
            ab = self.company_ability(sym, "extra_token") or {}
            keys = self._city_ref(action.city)
            key = keys[0]
            if key[0] not in ab.get("hexes", []):
                raise IllegalAction(f"{sym}'s station may go in {', '.join(ab.get('hexes', []))}, not {key[0]}")
            m = s.map
            if m.hex_has_token(key[0], corp):
                raise IllegalAction(f"{corp} already has a station in {key[0]}")
            m.extra_tokens.setdefault(key, []).append(corp)
            m.version += 1
            self._close_company(sym, f"{corp} station beside the city in {key[0]}")
        elif isinstance(action, A.BuyTrain):
            ab = self.company_ability(sym, "train_discount") or {}
            ref = action.train
            if ref not in s.trains:  # a type: the bank's next new one
                ref = next((t for t in self._depot_trains() if s.trains[t].name == ref
                            and s.trains[t].owner == "depot"), ref)
            train = s.trains.get(ref)
            if train is None or train.owner != "depot" or ref not in self._depot_trains():
                raise IllegalAction(f"{sym}'s discount is for a new train from the bank; offered: "
                                    f"{', '.join(t for t in self._depot_trains() if s.trains[t].owner == 'depot')}")
            if ab.get("trains") and train.name not in ab["trains"]:
                raise IllegalAction(f"{sym}'s discount is for a {' or '.join(ab['trains'])} train")
            price = max(0, train.price - discount_off(ab, train.price))
            if action.price is not None and action.price != price:
                raise IllegalAction(f"with {sym} train {ref} costs {price}")
            self._close_company(sym, f"{train.price - price} off a new train")
            self._buy_train(corp, A.BuyTrain(corp, ref, price, action.variant), discount=train.price - price)
        elif isinstance(action, A.UseAbility) and action.ability == "train_limit_bonus" \
                and self.company_ability(sym, "train_limit_bonus"):
            ab = self.company_ability(sym, "train_limit_bonus") or {}
            s.corporations[corp].extra_train_limit += int(ab.get("bonus", 1))
            self._close_company(sym, f"{corp}'s train limit is {self.train_limit(corp)} for good")
        else:
            raise IllegalAction(f"{sym} cannot {plain(action.type)}")


def _earned(chosen: list) -> tuple[int, str]:
    """What kinded routes earn, as the events say it: the revenue, and ', and N for its treasury' for
    a station's coal-district income (18VA 4.5.4.3), else ''."""
    sub = sum(k.subsidy for _, k in chosen)
    return sum(k.revenue for _, k in chosen), (f", and {sub} for its treasury" if sub else "")

"""Operating rounds (rule 4): private revenue, then each floated company in
share-price order: lay track, place a token, run trains, pay or withhold,
buy trains (and private companies from phase 3).

A company's turn is a list of steps, each either *blocking* (it must be
done or passed before later ones) or not (buying a private, the privates'
special tile lay and token may happen while an earlier step is pending).
A blocking step with nothing possible is skipped by itself; a skipped
dividend step is a withhold of $0 and moves the share price left.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from . import actions as A
from .errors import GameError, IllegalAction, IllegalRoute, IllegalTile, InsufficientFunds
from .routes import all_routes, best_routes, find_route
from .state import Corporation, RoundState
from .track import NEUTRAL, Placed, city_map, upgrade_ok

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

BLOCKING = ("home_token", "track", "token", "route", "dividend", "discard_train", "buy_train", "buy_company")


class OperatingMixin:
    # ------------------------------------------------------------ round flow
    def _start_operating_set(self: "Game") -> None:
        self.state.ors_in_set = self.phase.operating_rounds
        self._start_or(1)

    def _start_or(self: "Game", num: int) -> None:
        s = self.state
        s.round = RoundState("operating", self.operating_order(), num=num)
        self.log(f"-- operating round {s.turn}.{num} --")
        self.payout_companies()
        for t in s.trains.values():
            t.operated = False
        if not s.round.entities:
            self._end_or()
            return
        self._start_corp_turn()

    def _or_operator(self: "Game") -> str:
        r = self.state.round
        return r.entities[r.index]

    def _or_current(self: "Game") -> str:
        crowded = self.crowded_corps()
        if crowded:
            return crowded[0]
        return self._or_operator()

    def _start_corp_turn(self: "Game") -> None:
        s = self.state
        r = s.round
        while True:
            corp = s.corporations[self._or_operator()]
            if not corp.closed:
                break
            if r.index == len(r.entities) - 1:
                self._end_or()
                return
            r.index += 1
        r.steps_done = set()
        r.tile_lays = 0
        r.upgraded = False
        r.routes = []
        r.revenue = 0
        r.ran = False
        r.laid_hexes = []
        r.emergency_sold = False
        self.log(f"{self.controller(corp.sym)} operates {corp.sym}")
        self._place_home_token(corp)
        self._skip_steps()

    def _next_corp(self: "Game") -> None:
        s = self.state
        r = s.round
        s.corporations[self._or_operator()].operated = True
        self.check_game_end()
        if s.finished:
            return
        if r.index >= len(r.entities) - 1:
            self._end_or()
            return
        r.index += 1
        self._start_corp_turn()

    def _end_or(self: "Game") -> None:
        s = self.state
        s.recently_floated = []
        self.check_game_end(at_or_end=True)
        if s.finished:
            return
        if s.round.num < s.ors_in_set:
            self._start_or(s.round.num + 1)
        else:
            s.turn += 1
            self._start_stock()

    # -------------------------------------------------------------- steps
    def _step_actions(self: "Game", step: str, corp: str) -> list[str]:
        s = self.state
        r = s.round
        c = s.corporations[corp]
        if step == "home_token":
            return ["place_token"] if s.pending_tokens else []
        if step == "discard_train":
            return []
        if step == "track":
            if r.tile_lays < self._tile_lays_allowed(corp):
                return ["lay_tile", "pass"]
            # the step stays open while a tile-laying private could still be bought
            return ["pass"] if self._can_buy_tile_company(corp) or self._owned_tile_ability(corp) else []
        if step == "token":
            if corp in r.tokened:
                return []
            if self._can_place_token(corp):
                return ["place_token", "pass"]
            if self._special_token_open(corp):
                return ["pass"]
            return []
        if step == "route":
            if r.ran or not self.corp_trains(corp) or not self._can_run_route(corp):
                return []
            return ["run_routes"]
        if step == "dividend":
            return ["dividend"] if r.revenue > 0 else []
        if step == "buy_train":
            if self._must_buy_train(corp):
                return ["buy_train"]
            return ["buy_train", "pass"] if self._can_buy_train(corp) else []
        if step == "buy_company":
            return ["buy_company", "pass"] if self._can_buy_company(corp) else []
        raise AssertionError(step)

    def _skip_steps(self: "Game") -> None:
        """Skip blocking steps with nothing to do; end the turn if none is left."""
        s = self.state
        r = s.round
        corp = self._or_operator()
        for step in BLOCKING:
            if step in r.steps_done:
                continue
            if step in ("discard_train", "home_token"):
                if self._step_actions(step, corp) or (step == "discard_train" and self.crowded_corps()):
                    return
                continue
            if self._step_actions(step, corp):
                return
            self._skip(step, corp)
            if s.finished:
                return
        self._next_corp()

    def _skip(self: "Game", step: str, corp: str) -> None:
        r = self.state.round
        r.steps_done.add(step)
        if step == "dividend":
            self._pay_dividend(corp, "withhold")

    def _active_blocking(self: "Game", corp: str) -> str | None:
        r = self.state.round
        for step in BLOCKING:
            if step in r.steps_done:
                continue
            if step == "discard_train":
                if self.crowded_corps():
                    return step
                continue
            if self._step_actions(step, corp):
                return step
        return None

    def or_actions(self: "Game", entity: str) -> list[str]:
        """Action types ``entity`` may take now in the operating round."""
        s = self.state
        crowded = self.crowded_corps()
        if crowded:
            return ["discard_train"] if entity == crowded[0] else []
        corp = self._or_operator()
        out: list[str] = []
        block = self._active_blocking(corp)
        if entity in s.companies:
            comp = s.companies[entity]
            if comp.owner == f"C:{corp}" and self._special_track_ok(entity, block):
                out.append("lay_tile")
            return out
        if entity != corp:
            pres = self.president(corp)
            if entity == pres and block == "buy_train" and self._needs_emergency(corp):
                return ["sell_shares"]
            return []
        if block == "buy_train" and self._must_go_bankrupt(corp):
            out.append("bankrupt")
        if block == "token" and self._special_token_ok(corp):
            out.append("place_token")
        if self._can_buy_company(corp) and block not in ("buy_company", None):
            out.append("buy_company")
        if block:
            out += self._step_actions(block, corp)
        return list(dict.fromkeys(out))

    def _or_process(self: "Game", action: A.Action) -> None:
        s = self.state
        r = s.round
        crowded = self.crowded_corps()
        if crowded:
            if action.entity != crowded[0] or not isinstance(action, A.DiscardTrain):
                raise IllegalAction(f"{crowded[0]} has more trains than the limit and must discard one first")
            self._discard(action)
            self._after_or_action()
            return
        corp = self._or_operator()
        allowed = self.or_actions(action.entity)
        if action.type not in allowed:
            if action.entity not in (corp, self.president(corp)) and action.entity not in s.companies:
                raise self._not_turn(action.entity)
            if action.entity == self.president(corp) and action.type in self.or_actions(corp):
                raise IllegalAction(f"{action.entity} is the president of {corp}: the action is {corp}'s "
                                    f"(entity {corp}), not the player's")
            raise IllegalAction(f"{action.entity} may not {action.type} now; allowed: {', '.join(allowed) or 'nothing'}")
        block = self._active_blocking(corp)
        if action.entity in s.companies:
            self._special_lay(action)  # type: ignore[arg-type]
        elif isinstance(action, A.Pass):
            assert block
            r.steps_done.add(block)
        elif isinstance(action, A.LayTile):
            if r.tile_lays >= self._tile_lays_allowed(corp):
                raise IllegalAction(f"{corp} has already laid its tile this turn")
            here = self.state.map.placed.get(action.hex)
            upgrade = here is not None and here.tile.color != "white"
            self._lay_tile(corp, action)
            r.tile_lays += 1
            r.upgraded = r.upgraded or upgrade
            if not self._step_actions("track", corp):
                r.steps_done.add("track")
        elif isinstance(action, A.PlaceToken):
            if block == "home_token":
                self._place_pending_token(corp, action)
            elif block == "token" and self._is_special_token(corp, action):
                self._place_special_token(corp, action)
            else:
                self._place_token(corp, action)
                r.steps_done.add("token")
        elif isinstance(action, A.RunRoutes):
            self._run_routes(corp, action)
        elif isinstance(action, A.Dividend):
            if action.kind not in ("payout", "withhold"):
                raise IllegalAction("dividend kind is 'payout' or 'withhold'")
            self._pay_dividend(corp, action.kind)
            r.steps_done.add("dividend")
        elif isinstance(action, A.BuyTrain):
            self._buy_train(corp, action)
        elif isinstance(action, A.BuyCompany):
            self._buy_company(corp, action)
        elif isinstance(action, A.SellShares):
            self._emergency_sell(corp, action)
        elif isinstance(action, A.Bankrupt):
            self._bankrupt(corp)
            return
        else:
            raise IllegalAction(f"{action.type} is not an operating round action")
        self._after_or_action()

    def _after_or_action(self: "Game") -> None:
        s = self.state
        self.check_game_end()
        if s.finished:
            return
        if s.round.kind == "operating":
            self._skip_steps()

    # ------------------------------------------------------------- track
    def _tile_lays_allowed(self: "Game", corp: str) -> int:
        """One lay or upgrade; optional rule 7(a): a second yellow lay in the first OR."""
        s = self.state
        if "double_yellow_first_or" in self.optional_rules and corp in s.recently_floated and not s.round.upgraded:
            return 2
        return 1

    def _blocking_private(self: "Game", coord: str) -> str | None:
        for c in self.state.companies.values():
            if c.closed or not c.owner or not c.owner.startswith("P:"):
                continue
            ab = self.company_ability(c.sym, "blocks_hexes")
            if ab and coord in ab["hexes"]:
                return c.sym
        return None

    def _tile_by_ref(self: "Game", ref: str) -> tuple[str, int]:
        """Tile name and copy index from ``57`` or ``57-1``."""
        s = self.state
        if ref in self.title.tiles:
            avail = s.tile_supply.get(ref, [])
            if not avail:
                raise IllegalTile(f"no tile {ref} is left")
            return ref, min(avail)
        name, _, idx = ref.rpartition("-")
        if name in self.title.tiles and idx.isdigit():
            i = int(idx)
            if i not in s.tile_supply.get(name, []):
                raise IllegalTile(f"tile {ref} is not in the supply")
            return name, i
        raise IllegalTile(f"unknown tile {ref!r}")

    def check_lay(self: "Game", corp: str, coord: str, name: str, rotation: int, special: bool = False,
                  reach: dict[str, set[int]] | None = None) -> int:
        """Raise IllegalTile unless ``corp`` may lay tile ``name`` on ``coord``; return the cost."""
        s = self.state
        m = s.map
        if coord not in m.placed:
            raise IllegalTile(f"{coord} is not on the map")
        if not 0 <= rotation <= 5:
            raise IllegalTile("rotation is 0..5")
        new = self.title.tiles[name]
        old = m.placed[coord]
        if not special and s.round.kind == "operating" and s.round.tile_lays >= 1 and old.tile.color != "white":
            raise IllegalTile("the second tile of the first operating round must be a yellow tile, not an upgrade")
        if new.color not in self.phase.tiles:
            raise IllegalTile(f"{new.color} tiles are not available in phase {self.phase.name}")
        if not special:
            blocker = self._blocking_private(coord)
            if blocker:
                raise IllegalTile(f"{coord} is blocked by {blocker} while a player owns it")
        override = next((o for o in self.title.data.get("upgrade_overrides", [])
                         if o["hex"] == coord and o["from_color"] == old.tile.color
                         and o.get("if_rule", "") in self.optional_rules + ("",)
                         and o.get("unless_rule") not in self.optional_rules), None)
        if override is not None:
            if name not in override["only"]:
                raise IllegalTile(f"{coord} must be upgraded with tile {' or '.join(override['only'])}")
            # the hex's special tile carries a label the printed hex lacks
            why = upgrade_ok(Placed(replace(old.tile, label=new.label), old.tile_id, old.rotation), new, rotation)
        else:
            why = upgrade_ok(old, new, rotation)
        if why:
            raise IllegalTile(f"tile {name} rotation {rotation} on {coord}: {why}")
        exits = new.exits(rotation)
        for e in exits:
            if m.neighbour_on_map(coord, e) is None:
                raise IllegalTile(f"tile {name} rotation {rotation} on {coord}: track would run off the map "
                                  f"or into a blank side (edge {e})")
        if not special:
            reached_nodes: set | None = None
            if reach is None:
                reach, reached_nodes = self._reach(corp)
            edges = reach.get(coord)
            if not edges:
                raise IllegalTile(f"{coord} is not connected to {corp}'s stations")
            if not exits & edges:
                raise IllegalTile(f"tile {name} rotation {rotation} on {coord} does not connect to {corp}'s track")
            if old.tile.paths and not self._upgrade_connects(corp, coord, old, new, rotation, edges, reached_nodes):
                raise IllegalTile(f"4.2.1(j): tile {name} on {coord} adds no track connected to {corp}'s stations "
                                  "and has no city connected to them")
        cost = self.title.hexes[coord].cost if old.tile_id is None and not special else 0
        if cost > s.cash[f"C:{corp}"]:
            raise InsufficientFunds(f"{coord} costs {cost} to build on; {corp} has {s.cash[f'C:{corp}']}")
        return cost

    def _upgrade_connects(self: "Game", corp: str, coord: str, old: Placed, new, rotation: int,
                          edges: set[int], reached_nodes: set | None) -> bool:
        """4.2.1(j) for an upgrade: new track touching the company's reach, or a reached city."""
        if reached_nodes is None:
            reached_nodes = self._reach(corp)[1]
        if any((coord, i) in reached_nodes for i in old.tile.cities()):
            return True
        mapping = city_map(old, new, rotation)
        reached_new = {mapping[i] for i in range(len(old.tile.nodes)) if (coord, i) in reached_nodes}
        old_exits = old.tile.exits(old.rotation)
        old_pairs = {frozenset((a, b)) for a, b in old.tile.rotated_paths(old.rotation)}
        for a, b in new.rotated_paths(rotation):
            ends = [x[1] for x in (a, b) if x[0] == "e"]
            is_new = any(e not in old_exits for e in ends) or (len(ends) == 2 and frozenset((a, b)) not in old_pairs)
            if not is_new:
                continue
            if any(e in edges for e in ends) or any(x[0] == "n" and x[1] in reached_new for x in (a, b)):
                return True
        return False

    def _reach(self: "Game", corp: str):
        s = self.state
        c = s.corporations[corp]
        starts = s.map.token_cities(corp)
        home = [c.home] if not starts and c.tokens[0] is None else []
        return self.graph().reach(corp, starts, home)

    def _lay_tile(self: "Game", corp: str, action: A.LayTile, special: bool = False) -> None:
        s = self.state
        name, idx = self._tile_by_ref(action.tile)
        cost = self.check_lay(corp, action.hex, name, action.rotation, special=special)
        if cost:
            self.transfer(f"C:{corp}", "bank", cost)
        self._put_tile(action.hex, name, idx, action.rotation, corp)
        s.round.laid_hexes.append(action.hex)
        self.log(f"{corp} lays {name} on {action.hex} rotation {action.rotation}" + (f" for {cost}" if cost else ""))

    def _put_tile(self: "Game", coord: str, name: str, idx: int, rotation: int, actor: str) -> None:
        s = self.state
        m = s.map
        old = m.placed[coord]
        new = self.title.tiles[name]
        mapping = city_map(old, new, rotation)
        old_tokens = {i: m.tokens.pop((coord, i)) for i in old.tile.cities() if (coord, i) in m.tokens}
        old_res = {i: m.reservations.pop((coord, i)) for i in old.tile.cities() if (coord, i) in m.reservations}
        for j in new.cities():
            m.tokens[(coord, j)] = [None] * new.nodes[j].slots
        repick = (not old.tile.paths and len(new.cities()) > 1 and any(t for v in old_tokens.values() for t in v))
        for i, slots in old_tokens.items():
            for t in slots:
                if t is None:
                    continue
                if repick:
                    s.pending_tokens.append(t)
                    self._unplace_corp_token(t, (coord, i))
                    continue
                target = m.tokens[(coord, mapping[i])]
                target[target.index(None)] = t
        for i, holder in old_res.items():
            m.reservations[(coord, mapping[i])] = holder
        if old.tile_id is not None:
            oname, _, oidx = old.tile_id.rpartition("-")
            s.tile_supply[oname].append(int(oidx))
            m.tile_hex.pop(old.tile_id, None)
        s.tile_supply[name].remove(idx)
        tid = f"{name}-{idx}"
        m.placed[coord] = Placed(new, tid, rotation)
        m.tile_hex[tid] = coord
        m.version += 1

    def _unplace_corp_token(self: "Game", corp: str, key) -> None:
        c = self.state.corporations.get(corp)
        if c is None:
            return
        for i, where in enumerate(c.tokens):
            if where == key:
                c.tokens[i] = None
                return

    def _special_track_ok(self: "Game", company: str, block: str | None) -> bool:
        comp = self.state.companies[company]
        ab = self.company_ability(company, "tile_lay")
        if not ab or comp.closed or comp.uses.get("tile_lay", 0) >= ab.get("count", 1):
            return False
        if block != "track":
            return False
        return any(self.title.tiles[t].color in self.phase.tiles and self.state.tile_supply.get(t) for t in ab["tiles"])

    def _special_lay(self: "Game", action: A.LayTile) -> None:
        comp = self.state.companies[action.entity]
        ab = self.company_ability(comp.sym, "tile_lay")
        assert ab
        if action.hex not in ab["hexes"]:
            raise IllegalTile(f"{comp.sym} may only lay in {', '.join(ab['hexes'])}")
        name = action.tile.rpartition("-")[0] if action.tile not in self.title.tiles else action.tile
        if name not in ab["tiles"]:
            raise IllegalTile(f"{comp.sym} may only lay tile {', '.join(ab['tiles'])}")
        corp = comp.owner[2:]  # type: ignore[index]
        self._lay_tile(corp, action, special=True)
        comp.uses["tile_lay"] = comp.uses.get("tile_lay", 0) + 1

    # ------------------------------------------------------------- tokens
    def _place_home_token(self: "Game", corp: Corporation) -> None:
        if corp.tokens[0] is not None:
            return
        m = self.state.map
        cities = m.tile(corp.home).cities()
        if not cities:
            return
        if any(corp.sym == t for v in (m.tokens.get((corp.home, i), []) for i in cities) for t in v):
            return
        if corp.sym in self.state.pending_tokens:
            return
        key = (corp.home, cities[0])
        slots = m.tokens[key]
        if None not in slots:
            return
        slots[slots.index(None)] = corp.sym
        corp.tokens[0] = key
        m.reservations.pop(key, None)
        m.version += 1
        self.log(f"{corp.sym} places its home token in {corp.home}")

    def _city_ref(self: "Game", ref: str) -> list[tuple[str, int]]:
        """City keys named by ``ref``: a hex, a location name, or a city id."""
        m = self.state.map
        names = {v.lower(): k for k, v in self.title.data.get("location_names", {}).items()}
        if ref in m.placed:
            return [(ref, i) for i in m.tile(ref).cities()]
        if ref.lower() in names:
            coord = names[ref.lower()]
            return [(coord, i) for i in m.tile(coord).cities()]
        head, _, idx = ref.rpartition("-")
        if idx.isdigit():
            if head in m.tile_hex:
                return [(m.tile_hex[head], int(idx))]
            hexname = head.rpartition("-")[0] or head
            if hexname in m.placed:
                return [(hexname, int(idx))]
        raise GameError(f"unknown city {ref!r} (give a hex like E5, a city name, or a city id)")

    def next_token_cost(self: "Game", corp: str) -> int | None:
        c = self.state.corporations[corp]
        for i, where in enumerate(c.tokens):
            if where is None:
                return c.token_costs[i]
        return None

    def tokenable_cities(self: "Game", corp: str) -> list[tuple[str, int]]:
        m = self.state.map
        _, nodes = self._reach(corp)
        out = []
        for key in sorted(nodes):
            node = m.tile(key[0]).nodes[key[1]]
            if node.kind != "city" or not m.free_slots(key, corp):
                continue
            if m.hex_has_token(key[0], corp):
                continue
            out.append(key)
        return out

    def _can_place_token(self: "Game", corp: str) -> bool:
        cost = self.next_token_cost(corp)
        if cost is None or cost > self.state.cash[f"C:{corp}"]:
            return False
        return bool(self.tokenable_cities(corp))

    def _place_token(self: "Game", corp: str, action: A.PlaceToken) -> None:
        s = self.state
        cost = self.next_token_cost(corp)
        if cost is None:
            raise IllegalAction(f"{corp} has no tokens left")
        keys = self._city_ref(action.city)
        ok = [k for k in keys if k in self.tokenable_cities(corp)]
        if not ok:
            raise IllegalAction(f"{corp} cannot place a token in {action.city}; possible: "
                                f"{', '.join(f'{h}' for h, _ in self.tokenable_cities(corp)) or 'nowhere'}")
        if cost > s.cash[f"C:{corp}"]:
            raise InsufficientFunds(f"the next token costs {cost}; {corp} has {s.cash[f'C:{corp}']}")
        self._put_token(corp, ok[0], action.slot)
        self.transfer(f"C:{corp}", "bank", cost)
        s.round.tokened.add(corp)
        self.log(f"{corp} places a token in {ok[0][0]} for {cost}")

    def _put_token(self: "Game", corp: str, key: tuple[str, int], slot: int | None) -> None:
        m = self.state.map
        c = self.state.corporations[corp]
        free = m.free_slots(key, corp)
        if not free:
            raise IllegalAction(f"no free slot in {key[0]}")
        i = slot if slot in free else free[0]
        m.tokens[key][i] = corp
        c.tokens[c.tokens.index(None)] = key
        if m.reservations.get(key) == corp:
            m.reservations.pop(key)
        m.version += 1

    def _place_pending_token(self: "Game", corp: str, action: A.PlaceToken) -> None:
        s = self.state
        owner = s.pending_tokens[0]
        keys = self._city_ref(action.city)
        ok = [k for k in keys if s.map.tile(k[0]).nodes[k[1]].kind == "city" and s.map.free_slots(k, owner)]
        if not ok:
            raise IllegalAction(f"{owner}'s token must go in a free city slot")
        m = s.map
        c = s.corporations[owner]
        key = ok[0]
        free = m.free_slots(key, owner)
        m.tokens[key][action.slot if action.slot in free else free[0]] = owner
        c.tokens[c.tokens.index(None)] = key
        m.version += 1
        s.pending_tokens.pop(0)

    def _special_token_open(self: "Game", corp: str) -> bool:
        for comp in self.state.companies.values():
            ab = self.company_ability(comp.sym, "token")
            if ab and comp.owner == f"C:{corp}" and not comp.closed and comp.uses.get("token", 0) < ab.get("count", 1):
                m = self.state.map
                if any(m.free_slots((h, i), corp) and not m.hex_has_token(h, corp)
                       for h in ab["hexes"] for i in m.tile(h).cities()):
                    return True
        return False

    def _special_token_ok(self: "Game", corp: str) -> bool:
        return corp not in self.state.round.tokened and self._special_token_open(corp) and None in self.state.corporations[corp].tokens

    def _is_special_token(self: "Game", corp: str, action: A.PlaceToken) -> bool:
        if not self._special_token_ok(corp):
            return False
        try:
            keys = self._city_ref(action.city)
        except GameError:
            return False
        for comp in self.state.companies.values():
            ab = self.company_ability(comp.sym, "token")
            if ab and comp.owner == f"C:{corp}" and any(k[0] in ab["hexes"] for k in keys):
                return not any(k in self.tokenable_cities(corp) for k in keys) or True
        return False

    def _place_special_token(self: "Game", corp: str, action: A.PlaceToken) -> None:
        s = self.state
        keys = self._city_ref(action.city)
        for comp in s.companies.values():
            ab = self.company_ability(comp.sym, "token")
            if ab and comp.owner == f"C:{corp}":
                key = keys[0]
                self._put_token(corp, key, action.slot)
                comp.uses["token"] = comp.uses.get("token", 0) + 1
                s.round.tokened.add(corp)
                s.round.steps_done.add("token")
                self.log(f"{corp} places a free token in {key[0]} ({comp.sym})")
                return

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
        best_total, best = self.auto_routes(corp)
        if action.auto:
            chosen = best
            total = best_total
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
            if total < best_total and "site_routes" not in self.optional_rules:
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
        if not self._can_buy_train(corp):
            s.round.steps_done.add("buy_train")

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
        for t in s.trains.values():
            if t.name != name or t.owner in ("removed", "depot"):
                continue
            if "soft_rust_4t" in self.optional_rules and name == "4":
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

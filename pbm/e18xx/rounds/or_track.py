"""Operating round, track and stations (rules 4.2.1, 4.2.2; Table III tile and token abilities)."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalAction, IllegalRoute, IllegalTile, InsufficientFunds
from pbm.e18xx.core.state import Corporation
from pbm.e18xx.core.track import Placed, WalkTooLong, city_map, upgrade_fault
from pbm.e18xx.routes import place_words, resolve_stops, stops_by_neighbours, stops_by_track, twice, why_not

EXACT_STEPS = 200_000  # the exact walk's budget (``_exact_entries``): 18VA's late maps took up to 20,000

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


class TrackMixin:
    # ------------------------------------------------------------- track
    def _tile_lays_allowed(self: "Engine", corp: str) -> int:
        """One lay or upgrade; optional rule 7(a): a second yellow lay in the first OR; after the
        train event ``second_tile_lay_event`` (title data) a second yellow lay unless it upgraded."""
        s = self.state
        second = self.title.data.get("second_tile_lay_event")
        if second and second in s.events:
            return 1 if s.round.upgraded else 2
        if "double_yellow_first_or" in self.optional_rules and corp in s.recently_floated and not s.round.upgraded:
            return 2
        return 1

    def upgrade_instead_words(self: "Engine") -> str:
        """Where an upgrade replaces the turn's yellow tiles (1848 7.5.1: title data
        ``upgrade_instead``, the rule and its words): what the book says and what a turn may lay,
        for a refused second tile ("; 7.5.1: "Instead of placing one or two yellow tiles, ..." -
        lay one or two yellow tiles, or one upgrade alone"); empty for other titles."""
        rule = self.title.data.get("upgrade_instead") or {}
        if not rule:
            return ""
        return (f"; {rule['ref']}: \"{rule['text']}\" - a turn lays one or two yellow tiles, or one upgrade "
                "alone instead of them")

    def _blocking_private(self: "Engine", coord: str) -> str | None:
        for c in self.state.companies.values():
            if c.closed or not c.owner or not c.owner.startswith("P:"):
                continue
            ab = self.company_ability(c.sym, "blocks_hexes")
            if ab and coord in ab["hexes"]:
                return c.sym
        return None

    def _reserving_private(self: "Engine", name: str) -> str | None:
        """The private whose ability alone lays tile ``name`` (ability ``tile_lay`` with ``reserved``:
        18AL 4.2.1, the Lumber Terminal is an exception to (b), "all tiles ... are available for
        anyone"), or None."""
        for c in self.title.data.get("companies", []):
            for ab in c.get("abilities", []):
                if ab.get("type") == "tile_lay" and ab.get("reserved") and name in ab.get("tiles", []):
                    return str(c["sym"])
        return None

    def _tile_by_ref(self: "Engine", ref: str) -> tuple[str, int]:
        """Tile name and copy index from ``57`` or ``57-1``."""
        s = self.state
        if ref in self.title.tiles:
            avail = s.tile_supply.get(ref, [])
            if not avail:
                raise IllegalTile(f"{self.track_ref('supply')}no tile {ref} is left")
            return ref, min(avail)
        name, _, idx = ref.rpartition("-")
        if name in self.title.tiles and idx.isdigit():
            i = int(idx)
            if i not in s.tile_supply.get(name, []):
                raise IllegalTile(f"tile {ref} is not in the supply")
            return name, i
        raise IllegalTile(f"unknown tile {ref!r}")

    def track_ref(self: "Engine", key: str) -> str:
        """``"4.2.1(j): "``: the rule section of the title's ``track_refs`` for ``key`` (tile lays,
        stations, routes), as a refusal's first words; empty where the title names none."""
        ref = (self.title.data.get("track_refs") or {}).get(key)
        return f"{ref}: " if ref else ""

    def check_lay(self: "Engine", corp: str, coord: str, name: str, rotation: int, special: bool = False,
                  reach: dict[str, set[int]] | None = None) -> int:
        """Raise IllegalTile unless ``corp`` may lay tile ``name`` on ``coord``; return the cost."""
        s = self.state
        m = s.map
        r = self.track_ref
        if coord not in m.placed:
            raise IllegalTile(f"{r('off_map')}{coord} is not on the map")
        if not 0 <= rotation <= 5:
            raise IllegalTile("rotation is 0..5")
        new = self.title.tiles[name]
        old = m.placed[coord]
        if not special and s.round.kind == "operating" and s.round.tile_lays >= 1 and old.tile.color != "white":
            raise IllegalTile(f"{r('second_lay')}the second tile of a turn must be a yellow tile, not an upgrade"
                              + self.upgrade_instead_words())
        if new.color not in self.phase.tiles and special != "blue":
            raise IllegalTile(f"{r('phase_colour')}{new.color} tiles are not available "
                              f"{self.title.in_phase(self.state.phase)}")
        if not special:
            owner = self._reserving_private(name)
            if owner:
                raise IllegalTile(f"{r('supply')}tile {name} is laid only with {owner}'s ability "
                                  f"('lay {name} <hex> <rotation> with {owner}' by the company that owns {owner})")
            blocker = self._blocking_private(coord)
            if blocker:
                raise IllegalTile(f"{r('private_blocks')}{coord} is blocked by {blocker} while a player owns it")
        override = next((o for o in self.title.data.get("upgrade_overrides", [])
                         if o["hex"] == coord and o["from_color"] == old.tile.color
                         and o.get("if_rule", "") in self.optional_rules + ("",)
                         and o.get("unless_rule") not in self.optional_rules), None)
        future = self.title.hexes[coord].future_label if coord in self.title.hexes else None
        if future and new.color != "yellow" and override is None:
            if new.label != future:
                raise IllegalTile(f"{r('label')}{coord} takes only {future} tiles from green on")
            if old.tile.label is None:  # the yellow tile did not carry the hex's label
                override = {"only": [name]}
        if old.tile.name in self.title.data.get("tiles_never_upgraded", ()):
            raise IllegalTile(f"{r('permanent')}tile {old.tile.name} on {coord} is permanent: it is never upgraded")
        if special == "blue":  # a tile for a blue hex (title data ``on_blue``): the hex must be empty
            if old.tile_id is not None:
                raise IllegalTile(f"{coord} already has a tile")
            why = None
        elif override is not None:
            if name not in override["only"]:
                import re  # a hex's own copy by the rulebook's number: 18VA's 170ric is tile 170 (s12)
                said = [m.group(1) if (m := re.fullmatch(r"(\d+)[a-z]+", t)) and m.group(1) in self.title.tiles
                        else t for t in override["only"]]
                raise IllegalTile(f"{r('label')}{coord} must be upgraded with tile {' or '.join(said)}")
            # the hex's special tile carries a label the printed hex lacks
            why = upgrade_fault(Placed(replace(old.tile, label=new.label), old.tile_id, old.rotation), new, rotation)
        elif (name in self.title.data.get("tiles_on_plain_hexes", ()) and old.tile_id is None
              and not old.tile.nodes and new.color == "yellow"):
            why = None  # a tile that brings its own stop to an empty hex (title data)
        else:
            why = upgrade_fault(old, new, rotation)
        if why:
            raise IllegalTile(f"{r(why[0])}tile {name} rotation {rotation} on {coord}: {why[1]}")
        exits = new.exits(rotation)
        for e in exits:
            if m.neighbour_on_map(coord, e) is None:
                raise IllegalTile(f"{r('off_map')}tile {name} rotation {rotation} on {coord}: track would run off the map "
                                  f"or into a blank side (edge {e})")
        if not special or (isinstance(special, int) and not isinstance(special, bool)):
            reached_nodes: set | None = None
            entries: dict | None = None
            new_track = old.tile.paths and (self.title.data.get("track_refs") or {}).get("upgrade_new_track", True)
            if reach is None:
                def lay_ok(edges: set[int], nodes: set, ways: dict, merged: bool) -> bool:  # the tests below,
                    return bool(edges) and bool(exits & edges) and (  # on part of the reach
                        not new_track or self._upgrade_connects(corp, coord, old, new, rotation, ways, nodes, merged))
                full = self._reach_watching(corp, coord, lay_ok)
                if full is None:  # connected: the walk stopped once that was shown
                    return self._lay_cost(corp, coord, old, special)
                reach, reached_nodes, entries_all = full
                entries = entries_all.get(coord, {})
            edges = reach.get(coord)
            if not edges:
                raise IllegalTile(f"{r('connected')}{coord} is not connected to {corp}'s stations")
            if not exits & edges:
                raise IllegalTile(f"{r('connected')}tile {name} rotation {rotation} on {coord} does not connect to "
                                  f"{corp}'s track")
            if new_track:
                if entries is None:
                    entries = self._reach_entries(corp).get(coord, {})
                if not self._upgrade_connects(corp, coord, old, new, rotation, entries, reached_nodes,
                                              self._reach_merged(corp)):
                    raise IllegalTile(f"{r('connected')}tile {name} rotation {rotation} on {coord} adds no track connected "
                                      f"to {corp}'s stations and has no city connected to them (the connection is "
                                      "traced as a train runs: it may not back up at a fork or use a piece of track twice)")
        return self._lay_cost(corp, coord, old, special)

    def _lay_cost(self: "Engine", corp: str, coord: str, old: Placed, special) -> int:
        s = self.state
        cost = self.title.hexes[coord].cost if old.tile_id is None and not special else 0
        if special and isinstance(special, int) and not isinstance(special, bool):  # a discounted lay
            cost = max(0, self.title.hexes[coord].cost - special) if old.tile_id is None else 0
        if cost > s.cash[f"C:{corp}"]:
            raise InsufficientFunds(f"{self.track_ref('terrain_cost')}{coord} costs {cost} to build on; "
                                    f"{corp} has {s.cash[f'C:{corp}']}")
        return cost

    def _upgrade_connects(self: "Engine", corp: str, coord: str, old: Placed, new, rotation: int,
                          entries: dict, reached_nodes: set | None, merged: bool = False) -> bool:
        """4.2.1(j) for an upgrade: "Each tile laid must contain either some newly added track that
        is connected to an existing station of the corporation, or a city which is connected to an
        existing station of the corporation" (18GA/18AL; 18VA 4.5.2.1: new track must extend a
        legal route).  A reached city, or a path of the new tile that the old tile lacks and that
        one of the company's routes can run onto: arriving across one of its sides from the next
        hex, or at one of its stops, having used in this hex none of that path's track (a route
        uses a piece of track once, never backing up at a fork) and not its other stop
        (``entries``: the hex's entries of ``TrackGraph.reach``).

        ``merged``: the walk that gave ``entries`` merged routes, so they may let a route run onto
        new track that no train could reach; a yes is then asked again of the exact walk
        (:meth:`_exact_entries`; issue 28, ninth differential run: 18AL random 4p seed 60748, ATN's
        41 on J3 joined two sides that only routes through J3 itself reach)."""
        if reached_nodes is None:
            reached_nodes = self._reach(corp)[1]
        if any((coord, i) in reached_nodes for i in old.tile.cities()):
            return True
        if not self._new_track_reached(coord, old, new, rotation, entries):
            return False
        if merged:
            exact = self._exact_entries(corp)
            if exact is not None:
                return self._new_track_reached(coord, old, new, rotation, exact.get(coord) or {})
        return True

    def _new_track_reached(self: "Engine", coord: str, old: Placed, new, rotation: int, entries: dict) -> bool:
        """Whether a path of the new tile that the old lacks can be run onto by a route arriving as
        ``entries`` say (see :meth:`_upgrade_connects`)."""
        if not entries:
            return False
        mapping = city_map(old, new, rotation)
        back = {j: i for i, j in mapping.items()}

        def as_new(end: tuple[str, int]) -> tuple[str, int]:
            return end if end[0] == "e" else ("n", mapping.get(end[1], end[1]))

        old_paths = {frozenset((as_new(a), as_new(b))) for a, b in old.tile.rotated_paths(old.rotation)}
        side_bit = self.graph().entry_keys(coord)
        for a, b in new.rotated_paths(rotation):
            if frozenset((a, b)) in old_paths:
                continue  # the old track, kept
            used = 0
            for x in (a, b):
                if x[0] == "e" and x[1] in side_bit:
                    used |= 1 << side_bit[x[1]]
            stops = [back.get(x[1]) for x in (a, b) if x[0] == "n"]
            for x in (a, b):
                if x[0] == "e":
                    ways = entries.get(x)
                    other = stops
                else:
                    i = back.get(x[1])
                    if i is None:
                        continue
                    ways = entries.get(("n", i))
                    other = [k for k in stops if k != i]
                if not ways:
                    continue
                stop_bits = sum(1 << k for k in other if k is not None)
                if any(not k & used and not n & stop_bits for k, n in ways):
                    return True
        return False

    def _reach(self: "Engine", corp: str):
        """(edges of each hex the company may build on, the stops it reaches)."""
        return self._reach_full(corp)[:2]

    def _reach_entries(self: "Engine", corp: str) -> dict[str, dict]:
        """Per hex, how the company's routes arrive there (see TrackGraph.reach)."""
        return self._reach_full(corp)[2]

    def _reach_full(self: "Engine", corp: str):
        g, key, starts, home, cache = self._reach_key(corp)
        got = cache.get(key)
        if got is None:
            got = cache[key] = g.reach(corp, starts, home)
            cache[key + ("merged",)] = g.merging
        return got

    def _reach_merged(self: "Engine", corp: str) -> bool:
        """Whether the company's cached reach merged routes (``TrackGraph.reach``)."""
        g, key, _starts, _home, cache = self._reach_key(corp)
        if key not in cache:
            self._reach_full(corp)
        return bool(cache.get(key + ("merged",), True))

    def _exact_entries(self: "Engine", corp: str) -> dict[str, dict] | None:
        """The entries of the exact walk, no routes merged (``TrackGraph.reach`` with no limit), or
        None when it would take more than ``EXACT_STEPS`` steps (then the merged walk's stand: a
        late map of junction tiles can hold more routes than is worth walking; no state of the
        differential runs came near)."""
        g, key, starts, home, cache = self._reach_key(corp)
        k = key + ("exact",)
        if k not in cache:
            walking = getattr(g, "merging", False)  # asked from inside a walk (``_reach_watching``): keep its flag
            try:
                cache[k] = g.reach(corp, starts, home, keep=1 << 30, budget=EXACT_STEPS)[2]  # type: ignore[index]
            except WalkTooLong:
                cache[k] = None
            finally:
                g.merging = walking
        return cache[k]

    def _reach_key(self: "Engine", corp: str):
        s = self.state
        c = s.corporations[corp]
        starts = s.map.token_cities(corp)
        home = [c.home] if not starts and c.tokens[0] is None else []
        g = self.graph()  # the same track and stations (the map's version): a safe cache key
        cache = g.__dict__.setdefault("_reach_cache", {})
        return g, (corp, tuple(starts), tuple(home)), starts, home, cache

    def _reach_watching(self: "Engine", corp: str, coord: str, ok):
        """None if ``ok(edges of coord, stops, entries of coord)`` holds on the company's reach
        (a test only more reach can make true), shown walking only as far as needed; else the full
        reach."""
        g, key, starts, home, cache = self._reach_key(corp)
        got = cache.get(key)
        if got is not None:
            merged = bool(cache.get(key + ("merged",), True))
            return None if ok(got[0].get(coord) or set(), got[1], got[2].get(coord) or {}, merged) else got
        full = g.reach(corp, starts, home, watch=coord, watch_ok=lambda e, n, w: ok(e, n, w, g.merging))
        if full is not None:
            cache[key] = full
            cache[key + ("merged",)] = g.merging
        return full

    def _reaches_any(self: "Engine", corp: str, test) -> bool:
        """``any(test(k) for k in self._reach(corp)[1])``, walking only until a stop passes."""
        g, key, starts, home, cache = self._reach_key(corp)
        got = cache.get(key)
        if got is not None:
            return any(test(k) for k in got[1])
        full = g.reach(corp, starts, home, until=test)
        if full is None:
            return True
        cache[key] = full
        cache[key + ("merged",)] = g.merging
        return False

    def _lay_tile(self: "Engine", corp: str, action: A.LayTile, special: bool = False) -> None:
        s = self.state
        name, idx = self._tile_by_ref(action.tile)
        cost = self.check_lay(corp, action.hex, name, action.rotation, special=special)
        if cost:
            self.transfer(f"C:{corp}", "bank", cost)
        self._put_tile(action.hex, name, idx, action.rotation, corp)
        s.round.laid_hexes.append(action.hex)
        self.log(f"{corp} lays {name} on {action.hex} rotation {action.rotation}" + (f" for {cost}" if cost else ""))

    def _put_tile(self: "Engine", coord: str, name: str, idx: int, rotation: int, actor: str) -> None:
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
                if None in target:
                    target[target.index(None)] = t
                else:  # a station beside a full city (a joint home, 1848 5.3.6) stays beside it
                    target.append(t)
        for i, holder in old_res.items():
            m.reservations[(coord, mapping[i])] = holder
        for i in old.tile.cities():
            if (coord, i) in m.extra_tokens:
                m.extra_tokens[(coord, mapping[i])] = m.extra_tokens.pop((coord, i))
        if old.tile_id is not None:
            oname, _, oidx = old.tile_id.rpartition("-")
            s.tile_supply[oname].append(int(oidx))
            m.tile_hex.pop(old.tile_id, None)
        s.tile_supply[name].remove(idx)
        tid = f"{name}-{idx}"
        m.placed[coord] = Placed(new, tid, rotation)
        m.tile_hex[tid] = coord
        m.version += 1

    def _unplace_corp_token(self: "Engine", corp: str, key) -> None:
        c = self.state.corporations.get(corp)
        if c is None:
            return
        for i, where in enumerate(c.tokens):
            if where == key:
                c.tokens[i] = None
                return

    def _ability_user_ok(self: "Engine", company: str, corp: str, kind: str) -> bool:
        """May ``corp`` use ``company``'s ability ``kind`` now?  Its owner must be ``corp`` (or,
        with the ability's ``owner: corporation_or_director``, ``corp``'s director); with title
        data ``abilities_from_status`` only once the phase has that status (or the privates have
        closed: ``survives_close`` abilities)."""
        comp = self.state.companies[company]
        ab = self.company_ability(company, kind) or {}
        if comp.owner != f"C:{corp}" and not (ab.get("owner") == "corporation_or_director"
                                              and comp.owner == f"P:{self.president(corp)}"):
            return False
        status = self.title.data.get("abilities_from_status")
        if status and status not in self.phase.status and "close_companies" not in self.state.events:
            return False
        return True

    def _special_track_ok(self: "Engine", company: str, block: str | None) -> bool:
        comp = self.state.companies[company]
        ab = self.company_ability(company, "tile_lay")
        if not ab or (comp.closed and not ab.get("survives_close")) or comp.uses.get("tile_lay", 0) >= ab.get("count", 1):
            return False
        if ab.get("consume_tile_lay"):  # it is the company's own lay, made cheaper
            if block != "track" or self.state.round.tile_lays >= self._tile_lays_allowed(self._or_operator()):
                return False
        elif block != "track" and not ab.get("any_time"):
            return False
        return any((ab.get("on_blue") or self.title.tiles[t].color in self.phase.tiles)
                   and self.state.tile_supply.get(t) for t in ab["tiles"])

    def special_kind(self: "Engine", sym: str) -> bool | int | str:
        """How ``check_lay`` treats private ``sym``'s tile lay: ``"blue"`` (a tile for an empty
        blue hex), an int (the company's own lay with that terrain discount) or True (free,
        anywhere among its hexes)."""
        ab = self.company_ability(sym, "tile_lay") or {}
        if ab.get("on_blue"):
            return "blue"
        if ab.get("consume_tile_lay"):
            return int(ab.get("discount", 0))
        return True

    def _special_lay(self: "Engine", action: A.LayTile) -> None:
        comp = self.state.companies[action.entity]
        ab = self.company_ability(comp.sym, "tile_lay")
        assert ab
        if action.hex not in ab["hexes"]:
            raise IllegalTile(f"{comp.sym} may only lay in {', '.join(ab['hexes'])}")
        name = action.tile.rpartition("-")[0] if action.tile not in self.title.tiles else action.tile
        if name not in ab["tiles"]:
            raise IllegalTile(f"{comp.sym} may only lay tile {', '.join(ab['tiles'])}")
        corp = self._or_operator()
        self._lay_tile(corp, action, special=self.special_kind(comp.sym))
        comp.uses["tile_lay"] = comp.uses.get("tile_lay", 0) + 1
        if ab.get("consume_tile_lay"):
            self.state.round.tile_lays += 1
            if not self._step_actions("track", corp):
                self.state.round.steps_done.add("track")
        if ab.get("closes_when_used_after_close") and "close_companies" in self.state.events:
            comp.closed = True

    # ------------------------------------------------------------- routes as written
    def written_routes(self: "Engine", action: A.RunRoutes) -> A.RunRoutes:
        """``action`` with each route's stops as ``HEX-n`` ids: a hex or a place with one stop
        names that stop (``run 2-2 L5 K4`` is ``run 2-2 L5-0 K4-0``); a word that names no stop,
        or a hex of several stops, is refused saying which."""
        if action.auto or not action.routes:
            return action
        names = self.title.data.get("location_names", {})
        m = self.state.map
        out = []
        for spec in action.routes:
            spec = replace(spec, nodes=place_words(m, spec.nodes, names))  # 'West Point', 'L5 Montgomery' (s12)
            try:
                nodes = resolve_stops(m, spec.nodes, names, self.track_ref("route_track"))
            except IllegalRoute as exc:
                train = self.state.trains.get(spec.train)
                found = stops_by_track(self.graph(), action.entity, spec.nodes, train.distance, self.route_colors(),
                                       names) if train is not None else None
                if found is None:  # the stops whose track leads to the hexes named next to them
                    found = stops_by_neighbours(m, spec.nodes, names)
                if found is None:  # a hex of several stops that the track does not settle: name one
                    raise IllegalRoute(f"train {spec.train}: {exc}") from None
                nodes = found
            again = twice(nodes)
            if again:
                raise IllegalRoute(f"train {spec.train} cannot run {' '.join(nodes)}: "
                                   f"{self.track_ref('route_stop_twice')}{again} is visited twice")
            out.append(replace(spec, nodes=nodes))
        return replace(action, routes=tuple(out))

    def route_refusal(self: "Engine", corp: str, spec: A.RouteSpec, used: int, chosen=(),
                      max_stops: int | None = None, note: str = "blocked, or reusing track") -> str:
        """Why train ``spec.train`` cannot run ``spec.nodes`` (the company's trains in ``chosen``
        already hold the track ``used``): the rule it breaks and where, else the possible causes."""
        owners: dict[int, str] = {}
        for tid, rt in chosen:
            for bit in range(rt.mask.bit_length()):
                if rt.mask >> bit & 1:
                    owners[bit] = tid
        refs = self.title.data.get("track_refs") or {}
        why = why_not(self.graph(), corp, spec.nodes, max_stops, used, refs, others=owners)
        route = " ".join(spec.nodes)
        if why:
            return f"train {spec.train} cannot run {route}: {why}"
        return f"train {spec.train} cannot run {route} (not connected, too long, {note})"

    # ------------------------------------------------------------- tokens
    def _place_home_token(self: "Engine", corp: Corporation) -> None:
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
        if len(cities) > 1 and m.tile(corp.home).paths:
            # a multi-city home with track: the company chooses its city (place_token)
            self.state.pending_tokens.append(corp.sym)
            return
        key = (corp.home, cities[0])
        slots = m.tokens[key]
        if None not in slots:
            return
        slots[slots.index(None)] = corp.sym
        corp.tokens[0] = key
        m.reservations.pop(key, None)
        m.hex_reservations.pop(corp.home, None)
        m.version += 1
        self.log(f"{corp.sym} places its home token in {corp.home}")

    def _city_ref(self: "Engine", ref: str) -> list[tuple[str, int]]:
        """City keys named by ``ref``: a hex, a location name, or a city id."""
        m = self.state.map
        names = {v.lower(): k for k, v in self.title.data.get("location_names", {}).items()}
        if ref in m.placed:
            return [(ref, i) for i in m.tile(ref).cities()]
        if ref.lower() in names:
            coord = names[ref.lower()]
            return [(coord, i) for i in m.tile(coord).cities()]
        words = ref.split()
        if len(words) > 1 and words[0][:1].isalpha() and words[0][-1:].isdigit():
            # 'token I11 Brunswick': the hex (or city id) and its city's name, as the mails print a
            # city (play-through s12v F1); a name that is not the hex's is refused
            keys = self._city_ref(words[0].upper())
            named, place = " ".join(words[1:]), self.title.data.get("location_names", {}).get(keys[0][0], "")
            if place.lower() != named.lower():
                raise GameError(f"{words[0].upper()} is {place or 'a hex with no name'}, not {named}")
            return keys
        if len(words) > 1 and words[-1][:1].isalpha() and words[-1][-1:].isdigit() and words[0][:1].isalpha():
            # 'token Atlanta D4-2': the city's name, then its hex or city id (play-through s13 F7)
            keys = self._city_ref(words[-1].upper())
            named, place = " ".join(words[:-1]), self.title.data.get("location_names", {}).get(keys[0][0], "")
            if place.lower() != named.lower():
                raise GameError(f"{words[-1].upper()} is {place or 'a hex with no name'}, not {named}")
            return keys
        head, _, idx = ref.rpartition("-")
        if idx.isdigit():
            if head in m.tile_hex:
                return [(m.tile_hex[head], int(idx))]
            hexname = head.rpartition("-")[0] or head
            if hexname in m.placed:
                return [(hexname, int(idx))]
        raise GameError(f"unknown city {ref!r} (give a hex like E5, a city name, or a city id)")

    def next_token_cost(self: "Engine", corp: str) -> int | None:
        c = self.state.corporations[corp]
        for i, where in enumerate(c.tokens):
            if where is None:
                return c.token_costs[i]
        return None

    def tokenable_cities(self: "Engine", corp: str) -> list[tuple[str, int]]:
        _, nodes = self._reach(corp)
        return [key for key in sorted(nodes) if self._tokenable(key, corp)]

    def _tokenable(self: "Engine", key: tuple[str, int], corp: str, hexes: set[str] | None = None) -> bool:
        """A city ``corp`` reaches may take its token here (``hexes``: where it has one)."""
        m = self.state.map
        if m.tile(key[0]).nodes[key[1]].kind != "city" or not m.free_slots(key, corp):
            return False
        return key[0] not in hexes if hexes is not None else not m.hex_has_token(key[0], corp)

    def _can_place_token(self: "Engine", corp: str) -> bool:
        """``bool(tokenable_cities(corp))`` and the next token affordable, stopping at the first city."""
        cost = self.next_token_cost(corp)
        if cost is None or cost > self.state.cash[f"C:{corp}"]:
            return False
        m = self.state.map
        hexes = {k[0] for k, v in m.tokens.items() if corp in v}  # hex_has_token, for every hex at once
        hexes.update(k[0] for k, v in m.extra_tokens.items() if corp in v)
        return self._reaches_any(corp, lambda key: self._tokenable(key, corp, hexes))

    def _place_token(self: "Engine", corp: str, action: A.PlaceToken) -> None:
        s = self.state
        cost = self.next_token_cost(corp)
        if cost is None:
            raise IllegalAction(f"{self.track_ref('token_left')}{corp} has no tokens left")
        keys = self._city_ref(action.city)
        tokenable = self.tokenable_cities(corp)
        ok = [k for k in keys if k in tokenable]
        if not ok:
            raise IllegalAction(f"{corp} cannot place a token in {action.city}: {self._token_refusal(corp, keys)}; "
                                f"possible: {', '.join(self._hex_named(h) for h, _ in tokenable) or 'nowhere'}")
        if cost > s.cash[f"C:{corp}"]:
            raise InsufficientFunds(f"{self.track_ref('token_cost')}the next token costs {cost}; "
                                    f"{corp} has {s.cash[f'C:{corp}']}")
        self._put_token(corp, ok[0], action.slot)
        self.transfer(f"C:{corp}", "bank", cost)
        s.round.tokened.add(corp)
        self.log(f"{corp} places a token in {ok[0][0]} for {cost}")
        self._objective_reached(corp, ok[0][0])

    def token_step_refusal(self: "Engine", corp: str, action: A.PlaceToken) -> str | None:
        """Why ``corp`` may place no station this turn, for a station named before or in its token
        step when none is possible (the step is then skipped, and "not now" would not say why);
        None when the order of the steps is the answer or the station is a private's."""
        names = [st.name for st in self.or_steps]
        open_step = self._open_step(corp)[0]
        if action.entity != corp or "token" not in names:
            return None
        later = open_step not in names[:names.index("token") + 1]  # the station step is behind the turn
        token_step = self.or_step("token")
        rule = token_step.rule(self.title) if token_step is not None else ""
        ref = f" ({self.title.name} rule {rule})" if rule else ""
        if later and corp in self.state.round.tokened:
            return f"{corp} has already placed its station this turn{ref}"
        if later and (self._can_place_token(corp) or self._special_token_open(corp)):
            now = self.or_step(open_step) if open_step else None
            desc = ((now.text(self.title) or now.name).split(" — ")[0] if now is not None else "the end of the turn")
            return (f"{corp}'s station step is over: it was passed (a move of a later step passes it), and the "
                    f"turn is now at \"{desc}\"; a station is placed before the run{ref}")
        if corp in self.state.round.tokened or self._can_place_token(corp) or self._special_token_open(corp):
            return None
        cost = self.next_token_cost(corp)
        if cost is None:
            why = f"{self.track_ref('token_left')}{corp} has no tokens left"
        elif cost > self.state.cash[f"C:{corp}"]:
            why = f"{self.track_ref('token_cost')}its next station costs {cost}; it has {self.state.cash[f'C:{corp}']}"
        else:
            try:
                why = self._token_refusal(corp, self._city_ref(action.city))
            except GameError as exc:
                why = str(exc)
        return f"{corp} may place no station this turn: {action.city}: {why}"

    def _token_refusal(self: "Engine", corp: str, keys: list[tuple[str, int]]) -> str:
        """Why ``corp`` may place no station in the cities ``keys`` (one hex's), naming the rule."""
        m = self.state.map
        r = self.track_ref
        cities = [k for k in keys if m.tile(k[0]).nodes[k[1]].kind == "city"]
        if not cities:
            return f"{keys[0][0] if keys else 'it'} has no city circle"
        if m.hex_has_token(cities[0][0], corp):
            return f"{r('token_hex')}{corp} already has a station in {cities[0][0]}"
        if not any(None in m.tokens.get(k, []) for k in cities):
            holders = sorted({t for k in cities for t in m.tokens.get(k, []) if t})
            return f"every circle is taken ({', '.join(holders)})"
        if not any(m.free_slots(k, corp) for k in cities):
            owner = next((m.reservations[k] for k in cities if k in m.reservations),
                         m.hex_reservations.get(cities[0][0], "another company"))
            return f"{r('token_home')}the last open circle is kept for {owner}'s home station"
        coord = cities[0][0]
        if not m.tile(coord).paths:
            # a printed city with no tile: track beside it ends at its edge (18AL s16 mail 42, West Point)
            return (f"{r('token_connected')}{corp}'s track does not reach it: {self._hex_named(coord)} has no "
                    f"tile yet, so no track leads into its city; a tile must be laid in {coord} before a station "
                    "can go there")
        return (f"{r('token_connected')}{corp}'s track does not reach it (traced as a train runs: "
                "no backing up at a fork, not through a red area or a city full of others' stations)")

    def _hex_named(self: "Engine", coord: str) -> str:
        """``coord`` with the map's name of its place, as the mails write it ('J7 West Point')."""
        hd = self.title.hexes.get(coord)
        return f"{coord} {hd.name}" if hd is not None and hd.name else coord

    def _objective_reached(self: "Engine", corp: str, coord: str) -> None:
        """A corporation's ``objective`` (title data ``{"hex", "bonus"}``): its first station in
        that hex earns the bonus from the bank, once."""
        goal = self.title.corporation(corp).get("objective")
        if goal and goal["hex"] == coord and corp not in self.state.objectives_done:
            self.state.objectives_done.add(corp)
            self.transfer("bank", f"C:{corp}", int(goal["bonus"]))
            self.log(f"{corp} reaches its objective {coord}: +{goal['bonus']} from the bank")

    def _put_token(self: "Engine", corp: str, key: tuple[str, int], slot: int | None) -> None:
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

    def _place_pending_token(self: "Engine", corp: str, action: A.PlaceToken) -> None:
        s = self.state
        owner = s.pending_tokens[0]
        keys = self._city_ref(action.city)
        home = s.corporations[owner].home
        ok = [k for k in keys if k[0] == home and s.map.tile(k[0]).nodes[k[1]].kind == "city"
              and s.map.free_slots(k, owner)]
        if not ok:
            raise IllegalAction(f"{owner}'s home token must go in a free city of {home}")
        m = s.map
        c = s.corporations[owner]
        key = ok[0]
        free = m.free_slots(key, owner)
        m.tokens[key][action.slot if action.slot in free else free[0]] = owner
        c.tokens[c.tokens.index(None)] = key
        m.hex_reservations.pop(c.home, None)
        m.version += 1
        s.pending_tokens.pop(0)

    def _special_token_open(self: "Engine", corp: str) -> bool:
        """A private's station the company may still place (18GA W&SR): the private's use is left,
        a city it names has room, and the company has a station marker left (4.2.2)."""
        if None not in self.state.corporations[corp].tokens:
            return False
        for comp in self.state.companies.values():
            ab = self.company_ability(comp.sym, "token")
            if ab and comp.owner == f"C:{corp}" and not comp.closed and comp.uses.get("token", 0) < ab.get("count", 1):
                m = self.state.map
                if any(m.free_slots((h, i), corp) and not m.hex_has_token(h, corp)
                       for h in ab["hexes"] for i in m.tile(h).cities()):
                    return True
        return False

    def _special_token_ok(self: "Engine", corp: str) -> bool:
        return corp not in self.state.round.tokened and self._special_token_open(corp) and None in self.state.corporations[corp].tokens

    def _is_special_token(self: "Engine", corp: str, action: A.PlaceToken) -> bool:
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

    def _place_special_token(self: "Engine", corp: str, action: A.PlaceToken) -> None:
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


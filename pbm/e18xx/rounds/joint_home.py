"""A corporation with two home cities that waits for a link (title data on the corporation:
``second_home`` and ``float_needs_link``, and the train event ``joint_home_operates``;
1848 Australia rule 5.3, the Commonwealth Railways).

It floats like any company but operates only once a train of unlimited range could run
between its two homes (stations block nothing for this test), or once a train with the
event ``joint_home_operates`` has been bought.  When it first operates it puts a station in
each home city, free; where the city is full the station goes beside it (an extra place,
5.3.6).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core.hexgrid import opposite

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine
    from pbm.e18xx.core.state import Corporation


class JointHomeMixin:
    def joint_homes(self: "Engine", corp: str) -> list[str]:
        data = self.title.data_corp(corp)
        return list(data.get("float_needs_link", ()))

    def may_operate(self: "Engine", corp: str) -> bool:
        homes = self.joint_homes(corp)
        if not homes:
            return True
        s = self.state
        if "joint_home_operates" in s.events or f"linked:{corp}" in s.events:
            return True
        if self.homes_linked(homes[0], homes[1]):
            s.events.add(f"linked:{corp}")
            self.log(f"{homes[0]} and {homes[1]} are linked: {corp} may operate")
            return True
        return False

    def homes_linked(self: "Engine", a: str, b: str) -> bool:
        """Track joins a city of hex ``a`` to hex ``b``, nothing blocking (5.3.2: "a notional
        train of infinite range could travel from Sydney to Adelaide").  A train leaves a piece of
        track by its other end: it may change track at a town or city, never at a hex side, where
        going from one piece into another ending at the same side would be reversing; nor through an
        off-board area, where a route ends."""
        g = self.graph()
        m = self.state.map
        # a walk passes each town and city once (a train may not visit a stop twice, 4.2.3 of the
        # family; 18xx.games walks its graph so): each walk carries the stops it has passed, and a walk
        # that reaches a piece of track, going the same way, having passed a superset of the stops
        # another passed there can do nothing that one could not (play-throughs of issue 28's seventh
        # run, 1848 computer 4p 50645, 5p 50838: a link counted through Port Augusta twice)
        seen: dict[tuple[int, tuple[str, int]], list[frozenset[tuple[str, int]]]] = {}
        stack = [(pid, ("n", city), frozenset({(a, city)})) for city in m.tile(a).cities()
                 for pid in g.by_node.get((a, city), [])]
        while stack:
            pid, came, passed = stack.pop()
            before = seen.setdefault((pid, came), [])
            if any(p <= passed for p in before):
                continue
            before.append(passed)
            coord, x, y = g.paths[pid]
            if coord == b:
                return True
            end = y if x == came else x
            if end[0] == "n":
                tile = m.tile(coord)
                if end[1] in tile.terminal or tile.nodes[end[1]].kind == "offboard":  # a route ends there
                    continue
                stop = (coord, end[1])
                if stop in passed:
                    continue
                now = passed | {stop}
                stack.extend((q, end, now) for q in g.by_node.get((coord, end[1]), []) if q != pid)
            else:
                nb = m.neighbour_on_map(coord, end[1])
                if nb is not None:
                    back = ("e", opposite(end[1]))
                    stack.extend((q, back, passed) for q in g.by_side.get((nb, back[1]), []))
        return False

    def place_joint_homes(self: "Engine", corp: "Corporation") -> None:
        homes = self.joint_homes(corp.sym)
        m = self.state.map
        if not homes or corp.tokens[0] is not None:
            return
        for i, coord in enumerate(homes):
            city = m.tile(coord).cities()[0]
            key = (coord, city)
            slots = m.tokens[key]
            # 7.7.4: a city holding the home of a company not yet in operation keeps a place for it,
            # also against these homes (the rule's exception is for the COM's own homes: nobody keeps
            # a place for them); with no place left the token lies beside the city (5.3.6)
            free = m.free_slots(key, corp.sym)
            if free:
                slots[free[0]] = corp.sym
            else:
                slots.append(corp.sym)  # beside the full city (5.3.6)
            corp.tokens[i] = key
            self.log(f"{corp.sym} places a home station in {coord}")
        m.version += 1

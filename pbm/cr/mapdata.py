"""The Continental Rails II game map: towns, routes and regions.

The map is stored as three CSV files in ``pbm/cr/data``:

* ``towns.csv``  -- name, state, lat, lon, size, star, region
* ``routes.csv`` -- number, kind, code, miles, name, a, b, double_with, era
* ``initial_railroads.csv`` -- the PCs that start the game as railroads

The printed map is not available; the files are a reconstruction (see
``docs/map.md``).  This module only reads and answers questions about them.
"""

from __future__ import annotations

import csv
import functools
import io
import math
from dataclasses import dataclass
from importlib import resources
from typing import Literal

# The 13 regions of rule 2.7, in rulebook order.
REGIONS: tuple[str, ...] = (
    "Atlantic",
    "Ohio",
    "Great Lakes",
    "Deep South",
    "Central",
    "Mississippi",
    "Gulf",
    "Midwest",
    "Southwest",
    "Mountain",
    "Pacific",
    "Canada",
    "Mexico",
)

# Rule 2.7 main cities, spelled as in the rulebook.
MAIN_CITIES: dict[str, tuple[str, ...]] = {
    "Atlantic": ("Boston", "New York", "Philadelphia", "Baltimore", "Washington",
                 "Norfolk", "Wilmington", "Charleston", "Savannah"),
    "Ohio": ("Pittsburgh", "Cincinnati", "Louisville"),
    "Great Lakes": ("Buffalo", "Cleveland", "Detroit"),
    "Deep South": ("Atlanta", "Birmingham"),
    "Central": ("Chicago",),
    "Mississippi": ("St. Louis", "Memphis", "Vicksburg"),
    "Gulf": ("Mobile", "New Orleans"),
    "Midwest": ("Duluth", "St. Paul", "Omaha", "Kansas City"),
    "Southwest": ("Ft. Worth", "Houston"),
    "Mountain": ("Spokane", "Butte", "Salt Lake City", "Denver", "Santa Fe", "Phoenix"),
    "Pacific": ("Seattle", "Portland", "Sacramento", "San Francisco", "Los Angeles"),
    "Canada": ("Quebec", "Montreal", "London", "Sault Ste. Marie", "Winnipeg",
               "Calgary", "Vancouver"),
    "Mexico": ("Monterey", "Juarez", "Mexicali"),
}

# Rule 4.8.2: no railroad may have more than one route linking to these.
NO_THROUGH_CITIES: tuple[str, ...] = ("Chicago", "St. Louis", "Memphis", "Vicksburg", "New Orleans")

CANADIAN_PROVINCES = frozenset({"ON", "QC", "MB", "SK", "AB", "BC", "NB", "NS"})
MEXICAN_STATES = frozenset({"NLE", "CHH", "BCN", "SON", "COA", "TAM"})

# Regions a town of each state may belong to.  A town that is not a main
# city goes to the region of the nearest main city among these candidates
# (see ``rule_region``).  States not listed fall back to their country.
STATE_REGIONS: dict[str, tuple[str, ...]] = {
    **{s: ("Atlantic",) for s in ("ME", "NH", "VT", "MA", "RI", "CT", "NJ", "DE",
                                  "MD", "DC", "VA", "NC", "SC")},
    "NY": ("Atlantic", "Great Lakes"),
    "PA": ("Atlantic", "Ohio", "Great Lakes"),
    "WV": ("Ohio",),
    "KY": ("Ohio",),
    "OH": ("Ohio", "Great Lakes"),
    "MI": ("Great Lakes",),
    "IN": ("Ohio", "Central", "Great Lakes"),
    "IL": ("Central", "Mississippi"),
    "WI": ("Central", "Midwest"),
    "GA": ("Atlantic", "Deep South"),
    "FL": ("Atlantic", "Gulf"),
    "AL": ("Deep South", "Gulf"),
    "TN": ("Deep South", "Ohio", "Mississippi"),
    "MS": ("Mississippi", "Gulf", "Deep South"),
    "LA": ("Gulf", "Mississippi"),
    "AR": ("Mississippi",),
    "MO": ("Mississippi", "Midwest"),
    **{s: ("Midwest",) for s in ("IA", "MN", "ND", "SD", "NE", "KS")},
    **{s: ("Southwest",) for s in ("OK", "TX")},
    **{s: ("Mountain",) for s in ("CO", "NM", "AZ", "UT", "NV", "ID", "MT", "WY")},
    **{s: ("Pacific", "Mountain") for s in ("WA", "OR", "CA")},
}

EARTH_RADIUS_MILES = 3958.8

# A route's printed miles must lie within these factors of the great-circle
# distance between its end towns (railroads wind; the map is schematic).
MILES_FACTOR_LO = 0.85
MILES_FACTOR_HI = 1.90
# Routes allowed outside the band, with the reason.
MILES_FACTOR_EXCEPTIONS: dict[str, str] = {
    "FW&C": "Ft. Wayne & Chicago keeps its historical end towns; the printed "
            "114 miles is shorter than the 140-mile crow flight (factor 0.81).",
}


@dataclass(frozen=True)
class Town:
    name: str
    state: str
    lat: float
    lon: float
    size: int  # 1..5 (rule 2.6); value for most purposes is size squared
    star: bool  # main city of its region (rule 2.7)
    region: str

    @property
    def value(self) -> int:
        return self.size * self.size

    @property
    def country(self) -> str:
        return country_of_state(self.state)


@dataclass(frozen=True)
class Route:
    number: int
    kind: Literal["PC", "RoW"]
    code: str
    miles: int
    name: str
    a: str
    b: str
    double_with: str | None
    era: int | None  # PCs only: availability group, see ERAS

    @property
    def towns(self) -> tuple[str, str]:
        return (self.a, self.b)

    @property
    def is_pc(self) -> bool:
        return self.kind == "PC"

    def other_end(self, town: str) -> str:
        if town == self.a:
            return self.b
        if town == self.b:
            return self.a
        raise ValueError(f"{town} is not an end of {self.code}")


# PC availability groups (rule 2.4C).
ERAS: dict[int, str] = {
    1: "East: eligible from turn 1 (1841)",
    2: "Midwest and interior South: eligible from turn 5",
    3: "West and late lines: eligible from turn 13, after the Civil War (turns 11-12)",
}
ERA_FIRST_TURN: dict[int, int] = {1: 1, 2: 5, 3: 13}


@dataclass(frozen=True)
class InitialRailroad:
    code: str
    opened: int
    price: int
    efficiency: int
    treasury_pct: int
    note: str


def country_of_state(state: str) -> str:
    if state in CANADIAN_PROVINCES:
        return "CA"
    if state in MEXICAN_STATES:
        return "MX"
    return "US"


def row_prefix(code: str) -> str:
    """The letters before the number of a RoW code: 'NY' for NY3, 'C' for C10."""
    return code.rstrip("0123456789")


def row_home_ok(code: str, states: tuple[str, ...]) -> bool:
    """Whether a RoW with this code may have end towns in these states.

    Rule 2.3: the prefix is a two-letter state, or C (Canada) / M (Mexico);
    at least one end must lie in it.
    """
    prefix = row_prefix(code)
    if prefix == "C":
        return any(country_of_state(s) == "CA" for s in states)
    if prefix == "M":
        return any(country_of_state(s) == "MX" for s in states)
    return prefix in states


def haversine_miles(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_MILES * math.asin(math.sqrt(h))


class GameMap:
    """All towns and routes, with a few lookups."""

    def __init__(self, towns: dict[str, Town], routes: dict[str, Route],
                 initial: tuple[InitialRailroad, ...] = ()) -> None:
        self.towns = towns
        self.routes = routes
        self.by_number: dict[int, Route] = {r.number: r for r in routes.values()}
        self.initial_railroads = initial
        self._at: dict[str, list[Route]] = {name: [] for name in towns}
        for r in sorted(routes.values(), key=lambda r: r.number):
            for t in r.towns:
                self._at.setdefault(t, []).append(r)

    def routes_at(self, town: str) -> list[Route]:
        """Routes ending at ``town``, in route-number order."""
        return list(self._at[town])

    def neighbours(self, town: str) -> set[str]:
        return {r.other_end(town) for r in self._at[town]}

    def great_circle_miles(self, a: str, b: str) -> float:
        ta, tb = self.towns[a], self.towns[b]
        return haversine_miles(ta.lat, ta.lon, tb.lat, tb.lon)

    def miles_factor(self, route: Route) -> float:
        """Printed miles divided by the great-circle distance of the ends."""
        return route.miles / self.great_circle_miles(route.a, route.b)

    def region_of(self, town: str) -> str:
        return self.towns[town].region

    def main_cities(self, region: str) -> list[Town]:
        """Starred towns of a region, in rulebook order."""
        if region not in MAIN_CITIES:
            raise KeyError(region)
        return [self.towns[n] for n in MAIN_CITIES[region] if n in self.towns]

    def rule_region(self, town: str) -> str:
        """The region the assignment rule gives a town (see docs/map.md).

        Main cities keep their rulebook region.  Canadian and Mexican towns
        are in Canada / Mexico.  Any other town goes to the candidate region
        of its state whose nearest main city is closest.
        """
        for region, names in MAIN_CITIES.items():
            if town in names:
                return region
        t = self.towns[town]
        country = t.country
        if country == "CA":
            return "Canada"
        if country == "MX":
            return "Mexico"
        candidates = STATE_REGIONS[t.state]
        if len(candidates) == 1:
            return candidates[0]
        best = min(
            ((self.great_circle_miles(town, city), region)
             for region in candidates for city in MAIN_CITIES[region]),
        )
        return best[1]

    def is_connected(self) -> bool:
        if not self.towns:
            return True
        start = next(iter(self.towns))
        seen = {start}
        stack = [start]
        while stack:
            for n in self.neighbours(stack.pop()):
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        return len(seen) == len(self.towns)

    def pcs(self) -> list[Route]:
        return [r for r in sorted(self.routes.values(), key=lambda r: r.number) if r.is_pc]

    def rights_of_way(self) -> list[Route]:
        return [r for r in sorted(self.routes.values(), key=lambda r: r.number) if not r.is_pc]


def _read(name: str) -> list[dict[str, str]]:
    text = resources.files("pbm.cr").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@functools.cache
def load_map() -> GameMap:
    """Read the packaged map files (cached)."""
    towns = {
        row["name"]: Town(
            name=row["name"],
            state=row["state"],
            lat=float(row["lat"]),
            lon=float(row["lon"]),
            size=int(row["size"]),
            star=row["star"] == "1",
            region=row["region"],
        )
        for row in _read("towns.csv")
    }
    routes: dict[str, Route] = {}
    for row in _read("routes.csv"):
        kind = row["kind"]
        if kind not in ("PC", "RoW"):
            raise ValueError(f"bad route kind {kind!r} for {row['code']}")
        routes[row["code"]] = Route(
            number=int(row["number"]),
            kind=kind,  # type: ignore[arg-type]
            code=row["code"],
            miles=int(row["miles"]),
            name=row["name"],
            a=row["a"],
            b=row["b"],
            double_with=row["double_with"] or None,
            era=int(row["era"]) if row["era"] else None,
        )
    initial = tuple(
        InitialRailroad(
            code=row["code"],
            opened=int(row["opened"]),
            price=int(row["price"]),
            efficiency=int(row["efficiency"]),
            treasury_pct=int(row["treasury_pct"]),
            note=row["note"],
        )
        for row in _read("initial_railroads.csv")
    )
    return GameMap(towns, routes, initial)


def route_list_text(game_map: GameMap) -> str:
    """The route list as printed on the back of the map: PCs, then RoWs."""
    lines: list[str] = []

    def section(title: str, routes: list[Route]) -> None:
        lines.append(title)
        lines.append(f"{'N#':>4}  {'Code':<5} {'Miles':>5}  {'Name':<28} {'Route':<40} Double")
        for r in routes:
            name = r.name if r.is_pc else ""
            ends = f"{r.a} - {r.b}"
            lines.append(f"{r.number:>4}  {r.code:<5} {r.miles:>5}  {name:<28} {ends:<40} {r.double_with or ''}".rstrip())
        lines.append("")

    section("PRIVATE COMPANIES", game_map.pcs())
    section("RIGHTS-OF-WAY", game_map.rights_of_way())
    return "\n".join(lines).rstrip() + "\n"


def map_json(game_map: GameMap) -> dict:
    """The map as plain JSON-ready data (towns and routes)."""
    return {
        "towns": [
            {"name": t.name, "state": t.state, "lat": t.lat, "lon": t.lon,
             "size": t.size, "star": t.star, "region": t.region}
            for t in game_map.towns.values()
        ],
        "routes": [
            {"number": r.number, "code": r.code, "kind": r.kind, "miles": r.miles,
             "a": r.a, "b": r.b, "name": r.name, "double_with": r.double_with,
             "era": r.era}
            for r in sorted(game_map.routes.values(), key=lambda r: r.number)
        ],
    }

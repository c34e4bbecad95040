"""Tests for the reconstructed Continental Rails II map (pbm/cr/data)."""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from pbm.cr import mapdata as md

M = md.load_map()
ROUTES = sorted(M.routes.values(), key=lambda r: r.number)
PCS = [r for r in ROUTES if r.kind == "PC"]
ROWS = [r for r in ROUTES if r.kind == "RoW"]

US_STATES = set(
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY".split()
)

REPO = Path(__file__).resolve().parents[1]


def _shared_csv() -> Path | None:
    candidates = []
    if os.environ.get("PBM_SHARED_DIR"):
        candidates.append(Path(os.environ["PBM_SHARED_DIR"]) / "data" / "continental-rails-routes.csv")
    # <repo>/../shared (checkout at /work/main or a CI clone), and one level
    # further up for git worktrees kept under /work/wt/<name>.
    candidates.append(REPO / ".." / "shared" / "data" / "continental-rails-routes.csv")
    candidates.append(REPO / ".." / ".." / "shared" / "data" / "continental-rails-routes.csv")
    for c in candidates:
        if c.is_file():
            return c
    return None


def _package_rows(name: str) -> list[list[str]]:
    text = resources.files("pbm.cr").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.reader(text.splitlines()))


# --- the route list -------------------------------------------------------

def test_route_counts():
    assert len(ROUTES) == 416
    assert len(PCS) == 101
    assert len(ROWS) == 315
    assert sorted(M.by_number) == list(range(1, 417))
    assert all(r.kind == "PC" for r in ROUTES[:101])


def test_routes_identical_to_shared_list():
    path = _shared_csv()
    if path is None:
        pytest.skip("shared/data/continental-rails-routes.csv not found beside the repository")
    with path.open(newline="", encoding="utf-8") as f:
        shared = list(csv.DictReader(f))
    assert len(shared) == 416
    for row in shared:
        r = M.by_number[int(row["number"])]
        assert (r.kind, r.code, r.miles, r.name) == (row["kind"], row["code"], int(row["miles"]), row["name"])


def test_route_file_columns_and_unique_codes():
    header, *rows = _package_rows("routes.csv")
    assert header == ["number", "kind", "code", "miles", "name", "a", "b", "double_with", "era"]
    codes = [row[2] for row in rows]
    assert len(codes) == len(set(codes)) == 416


def test_pc_and_row_codes():
    # Rule 2.4B: a PC code never has a digit; rule 2.3A: a RoW code ends in one.
    for r in PCS:
        assert not any(ch.isdigit() for ch in r.code), r.code
    for r in ROWS:
        assert r.code[-1].isdigit(), r.code


# --- per-route constraints -----------------------------------------------

@pytest.mark.parametrize("code", [r.code for r in ROUTES])
def test_route_constraints(code):
    r = M.routes[code]
    assert r.a in M.towns and r.b in M.towns
    assert r.a != r.b, "self-loop"
    assert r.towns == (r.a, r.b)
    f = M.miles_factor(r)
    if code in md.MILES_FACTOR_EXCEPTIONS:
        assert not md.MILES_FACTOR_LO <= f <= md.MILES_FACTOR_HI, "exception no longer needed"
        assert 0.75 <= f <= 2.2
    else:
        assert md.MILES_FACTOR_LO <= f <= md.MILES_FACTOR_HI, f"{r.miles} mi vs crow {M.great_circle_miles(r.a, r.b):.0f}"
    if r.kind == "RoW":
        assert r.era is None
        states = (M.towns[r.a].state, M.towns[r.b].state)
        assert md.row_home_ok(code, states), f"{code} has no end in {md.row_prefix(code)}: {states}"
    else:
        assert r.era in md.ERAS


def test_row_prefixes_are_the_known_ones():
    prefixes = {md.row_prefix(r.code) for r in ROWS}
    assert prefixes <= US_STATES | {"C", "M"}
    assert {"C", "M"} <= prefixes


def test_exceptions_are_few_and_real_codes():
    assert len(md.MILES_FACTOR_EXCEPTIONS) <= 5
    assert set(md.MILES_FACTOR_EXCEPTIONS) <= set(M.routes)


@pytest.mark.parametrize("code", [r.code for r in ROUTES])
def test_double_routes_symmetric(code):
    r = M.routes[code]
    same_pair = [o.code for o in ROUTES if o.code != code and frozenset(o.towns) == frozenset(r.towns)]
    assert len(same_pair) <= 1, f"more than two routes between {r.a} and {r.b}"
    if r.double_with is None:
        assert same_pair == []
    else:
        assert same_pair == [r.double_with]
        other = M.routes[r.double_with]
        assert other.double_with == code


def test_some_double_routes_exist():
    doubles = [r for r in ROUTES if r.double_with]
    assert len(doubles) >= 20
    assert M.routes["PENN"].double_with == "READ"


# --- historical end towns of named PCs -----------------------------------

HISTORICAL_ENDS = {
    "B&M": ("Boston", "Portland ME"),
    "B&A": ("Boston", "Albany"),
    "B&H": ("Boston", "Hartford"),
    "HRL": ("New York", "Albany"),
    "NYNH": ("New York", "New Haven"),
    "NYC": ("Albany", "Syracuse"),
    "C&A": ("Philadelphia", "New York"),
    "PENN": ("Philadelphia", "Harrisburg"),
    "B&O": ("Baltimore", "Cumberland"),
    "C&O": ("Richmond", "Charlottesville"),
    "RF&P": ("Richmond", "Washington"),
    "N&W": ("Norfolk", "Petersburg"),
    "W&M": ("Wilmington", "Florence"),
    "C&H": ("Charleston", "Augusta"),
    "S&A": ("Savannah", "Augusta"),
    "G&C": ("Greenville", "Columbia"),
    "COG": ("Macon", "Atlanta"),
    "LS": ("Buffalo", "Cleveland"),
    "M&C": ("Marietta", "Cincinnati"),
    "A&WP": ("Atlanta", "Montgomery"),
    "A&C": ("Atlanta", "Chattanooga"),
    "N&C": ("Nashville", "Chattanooga"),
    "NO&J": ("New Orleans", "Jackson"),
    "SM": ("Vicksburg", "Jackson"),
    "MC": ("Detroit", "Kalamazoo"),
    "WBSH": ("Toledo", "Fort Wayne"),
    "FW&C": ("Fort Wayne", "Chicago"),
    "L&N": ("Louisville", "Nashville"),
    "MON": ("Indianapolis", "Chicago"),
    "C&EI": ("Chicago", "Terre Haute"),
    "CRIP": ("Chicago", "Rock Island"),
    "CB&Q": ("Chicago", "Burlington"),
    "CASL": ("Chicago", "Springfield"),
    "SL&A": ("Springfield", "St. Louis"),
    "CNS": ("Chicago", "Milwaukee"),
    "M&SP": ("Milwaukee", "St. Paul"),
    "MP": ("St. Louis", "Kansas City"),
    "M&LR": ("Memphis", "Little Rock"),
    "V&T": ("Vicksburg", "Shreveport"),
    "LR&S": ("Little Rock", "Shreveport"),
    "H&S": ("Houston", "Shreveport"),
    "SA&H": ("San Antonio", "Houston"),
    "SP&D": ("St. Paul", "Duluth"),
    "DP": ("Denver", "Cheyenne"),
    "CP": ("Sacramento", "Reno"),
    "FEC": ("Jacksonville", "Miami"),
    "GW": ("Buffalo", "London"),
}

# PCs whose exact section is a placement choice: one named town must be an end.
NAMED_END = {
    "ERIE": "New York", "CNJ": "New York", "LV": "Allentown", "READ": "Philadelphia",
    "R&D": "Richmond", "N&S": "Norfolk", "W&W": "Wilmington", "NER": "Charleston",
    "S&G": "Savannah", "P&LE": "Pittsburgh", "P&FW": "Pittsburgh", "MRLE": "Sandusky",
    "GTW": "Detroit", "VC": "Charlottesville", "TP&W": "Peoria", "A&T": "Selma",
    "GM&O": "Mobile", "MN": "Detroit", "MS": "Toledo", "O&M": "St. Louis",
    "C&C": "Cincinnati", "IC": "Chicago", "C&NW": "Chicago", "UP": "Omaha",
    "SLSF": "St. Louis", "SLSW": "Texarkana", "SP": "San Francisco", "WP": "Sacramento",
    "SP&P": "St. Paul", "KC&D": "Kansas City", "KP": "Kansas City", "ATSF": "Topeka",
    "KCS": "Kansas City", "KCN": "Kansas City", "SV": "Sacramento", "SL": "Sault Ste. Marie",
    "T&P": "Shreveport", "CT": "Houston", "TR": "Denison", "LP&W": "Leavenworth",
    "FW&D": "Ft. Worth", "C&S": "Denver", "DRGW": "Denver", "CW": "Pueblo",
    "A&P": "Albuquerque", "MKT": "Kansas City", "GT": "Montreal", "L&A": "Shreveport",
    "GN": "Grand Forks", "NP": "Fargo", "M&W": "Springfield MO", "BRL": "Knoxville",
    "A&GW": "Crestline", "SCL": "Charleston",
}


def test_historical_table_is_large():
    assert len(HISTORICAL_ENDS) >= 25
    assert set(HISTORICAL_ENDS) | set(NAMED_END) == {r.code for r in PCS}


@pytest.mark.parametrize("code,ends", sorted(HISTORICAL_ENDS.items()))
def test_pc_historical_ends(code, ends):
    assert frozenset(M.routes[code].towns) == frozenset(ends)


@pytest.mark.parametrize("code,town", sorted(NAMED_END.items()))
def test_pc_named_end(code, town):
    assert town in M.routes[code].towns


# --- towns and regions ---------------------------------------------------

def test_town_file_columns_and_unique_names():
    header, *rows = _package_rows("towns.csv")
    assert header == ["name", "state", "lat", "lon", "size", "star", "region"]
    names = [row[0] for row in rows]
    assert len(names) == len(set(names)) == len(M.towns)


@pytest.mark.parametrize("name", sorted(M.towns))
def test_town(name):
    t = M.towns[name]
    assert 1 <= t.size <= 5
    assert t.region in md.REGIONS
    assert t.state in US_STATES or t.state in md.CANADIAN_PROVINCES or t.state in md.MEXICAN_STATES
    assert 14 < t.lat < 61 and -130 < t.lon < -60
    assert M.routes_at(name), "unused town"
    assert t.region == M.rule_region(name), "region differs from the assignment rule"
    if t.country == "CA":
        assert t.region == "Canada"
    if t.country == "MX":
        assert t.region == "Mexico"


def test_regions_list():
    assert md.REGIONS == ("Atlantic", "Ohio", "Great Lakes", "Deep South", "Central", "Mississippi",
                          "Gulf", "Midwest", "Southwest", "Mountain", "Pacific", "Canada", "Mexico")
    assert tuple(md.MAIN_CITIES) == md.REGIONS


@pytest.mark.parametrize("region", md.REGIONS)
def test_main_cities_present_starred(region):
    cities = md.MAIN_CITIES[region]
    assert [t.name for t in M.main_cities(region)] == list(cities)
    for name in cities:
        t = M.towns[name]
        assert t.star
        assert t.region == region
        assert M.region_of(name) == region
        assert t.size >= 2
    assert any(t.star for t in M.towns.values() if t.region == region)


def test_only_main_cities_starred():
    starred = {t.name for t in M.towns.values() if t.star}
    assert starred == {c for cs in md.MAIN_CITIES.values() for c in cs}
    assert len(starred) == 50
    assert "Monterey" in M.towns and "Ft. Worth" in M.towns


def test_big_cities_are_big():
    for name in ("New York", "Philadelphia", "Chicago", "St. Louis", "New Orleans", "San Francisco"):
        assert M.towns[name].size == 5
    assert Counter(t.size for t in M.towns.values())[1] > 50


def test_connected():
    assert M.is_connected()
    # a removed route must be able to disconnect a copy, or is_connected is vacuous
    towns = dict(M.towns)
    towns["Nowhere"] = md.Town("Nowhere", "NV", 38.0, -117.0, 1, False, "Mountain")
    assert not md.GameMap(towns, M.routes).is_connected()


@pytest.mark.parametrize("city", md.NO_THROUGH_CITIES)
def test_no_through_cities_reachable_from_east_and_west(city):
    t = M.towns[city]
    ends = [M.towns[r.other_end(city)] for r in M.routes_at(city)]
    assert any(o.lon > t.lon for o in ends), "no route from the east"
    assert any(o.lon < t.lon for o in ends), "no route from the west"


def test_helpers():
    assert {r.code for r in M.routes_at("Boston")} >= {"B&M", "B&A", "B&H"}
    assert 180 < M.great_circle_miles("New York", "Boston") < 195
    assert M.great_circle_miles("Boston", "Boston") == 0
    assert M.region_of("Chicago") == "Central"
    assert M.routes["HRL"].other_end("Albany") == "New York"
    with pytest.raises(ValueError):
        M.routes["HRL"].other_end("Boston")
    assert md.row_prefix("NY3") == "NY" and md.row_prefix("C10") == "C"
    assert md.load_map() is M


# --- eras and initial railroads ------------------------------------------

def test_era_counts():
    counts = Counter(r.era for r in PCS)
    assert set(counts) == {1, 2, 3}
    assert 20 <= counts[1] <= 30
    assert counts[2] >= 25 and counts[3] >= 25
    assert all(r.era is None for r in ROWS)
    assert md.ERA_FIRST_TURN[3] == 13  # after the Civil War turns 11-12


def test_eras_follow_geography():
    # the west opens after the war: nothing west of the 95th meridian in era 1 or 2
    for r in PCS:
        west = min(M.towns[r.a].lon, M.towns[r.b].lon)
        if r.era in (1, 2):
            assert west > -95.0, r.code
        if r.era == 1:
            assert west > -85.5, r.code


def test_initial_railroads():
    header, *rows = _package_rows("initial_railroads.csv")
    assert header[:5] == ["code", "opened", "price", "efficiency", "treasury_pct"]
    init = M.initial_railroads
    assert 5 <= len(init) <= 7
    assert len({i.code for i in init}) == len(init)
    for i in init:
        r = M.routes[i.code]
        assert r.kind == "PC" and r.era == 1
        assert i.opened <= 1842
        assert 10 <= i.price <= 18  # rule 4.3: initial price $10-18
        assert 80 <= i.efficiency <= 89  # "good" efficiency for new railroads
        assert i.treasury_pct == 10
    assert {"B&O", "C&A"} <= {i.code for i in init}


# --- presentation ----------------------------------------------------------

def test_map_json_shape():
    data = md.map_json(M)
    assert set(data) == {"towns", "routes"}
    assert len(data["towns"]) == len(M.towns)
    assert len(data["routes"]) == 416
    for t in data["towns"]:
        assert {"name", "state", "lat", "lon", "size", "star", "region"} <= set(t)
        assert isinstance(t["star"], bool)
        assert isinstance(t["lat"], float) and isinstance(t["size"], int)
    for r in data["routes"]:
        assert {"number", "code", "kind", "miles", "a", "b", "name", "double_with"} <= set(r)
        assert r["double_with"] is None or isinstance(r["double_with"], str)
    assert [r["number"] for r in data["routes"]] == list(range(1, 417))
    json.dumps(data)  # serialisable


def test_route_list_text():
    text = md.route_list_text(M)
    lines = text.splitlines()
    assert lines[0] == "PRIVATE COMPANIES"
    assert "RIGHTS-OF-WAY" in lines
    split = lines.index("RIGHTS-OF-WAY")
    assert any(" B&O " in line and "Baltimore - Cumberland" in line for line in lines[:split])
    assert any(" C10 " in line for line in lines[split:])
    penn = next(line for line in lines if " PENN " in line)
    assert penn.rstrip().endswith("READ")
    assert len([line for line in lines if line[:4].strip().isdigit()]) == 416

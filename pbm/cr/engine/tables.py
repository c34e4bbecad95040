"""Fixed numbers of the rulebook and of our rulings, in one place.

The climate chart is §5; the build cost by climate (§4.6B "$200 to $400 per
mile") and the schedules of locomotives (§4.17) and technologies (§4.18) are
rulings shared with the order validator (``pbm.cr.queries``, rulings R-O4,
R-O5) so that what a turnsheet allows is what the engine does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Climate:
    """One row of the §5 climate chart."""

    name: str
    rank: int  # 0 = Panic … 8 = Boom
    market: str
    loan_rate: float
    credit_margin: float
    build_min: int  # §4.6B, ruling E-4.6B

    @property
    def deposit_rate(self) -> float:
        """§5: tycoons earn half the loan rate on cash."""
        return self.loan_rate / 2

    @property
    def revenue_factor(self) -> float:
        """§4.10A: −20 % in a Panic … +20 % in a Boom, 5 % a step (ruling E-4.10A)."""
        return 1.0 + (self.rank - 4) * 0.05


CLIMATES: tuple[Climate, ...] = (
    Climate("Panic", 0, "panic bear", 0.16, 0.600, 200),
    Climate("Depression", 1, "strong bear", 0.15, 0.625, 225),
    Climate("Mild Depression", 2, "bear", 0.14, 0.650, 250),
    Climate("Recession", 3, "mild bear", 0.13, 0.675, 275),
    Climate("Normal", 4, "mixed", 0.12, 0.700, 300),
    Climate("Improved", 5, "mild bull", 0.11, 0.725, 325),
    Climate("Good", 6, "bull", 0.10, 0.750, 350),
    Climate("Great", 7, "strong bull", 0.09, 0.775, 375),
    Climate("Boom", 8, "wild bull", 0.08, 0.800, 400),
)
_BY_NAME = {c.name.lower(): c for c in CLIMATES}
NORMAL = 4
GOOD = 6


def climate(name: str) -> Climate:
    """The §5 row for a climate name (case-insensitive)."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown economic climate {name!r}; one of: "
                         + ", ".join(c.name for c in CLIMATES)) from None


BOND_RATE = 0.06  # §5
PRESIDENT_LOAN_RATE = 0.10  # §4.4C
SHARES_PER_MILE = 5  # §4.3A
TREASURY_PCT = 10  # §4.3A
DIRECTOR_PCT = 10  # §4.3B, §4.14A
DIRECTOR_TOTAL_PCT = 50  # §4.3B
PC_OWNER_PCT = 20  # §4.3A1, §4.3A3
BROKER_DISCOUNT = 0.90  # §4.3C: 10 % under the price
CAPITAL_MAX_PER_MILE = 50  # §10.2D1, Appendix A 8.1 (ruling E-4.5B)
TOWN_BUILD_COST = 300  # §4.6D
TOWN_REVENUE = 300  # §4.10A
MILE_REVENUE = 60  # §4.10A
DOUBLE_TRACK_FRACTION = 0.25  # §4.15
LOCOMOTIVE_STEP_COST = 10  # §4.17
TECH_COST_PER_MILE = 10  # §4.18
GRAND_STATION_COST = 10_000  # §4.18
MAX_DIVIDEND = 99  # §4.12
MAX_PRICE = 200.0  # §6.3D
SPLIT_PRICE = 100.0  # §6.5
PRODIGAL_MIN = 1000  # §1.2
PRODIGAL_POINTS = 30  # §1.2
START_CASH = 2000  # §3.3 / §3.5B fresh start (setup ruling R3.3-a)
PC_BANK_PRICE_PER_MILE = 5  # §2.4D
PC_APPRAISAL_PER_MILE = 20  # §3.5A
PC_PUBLIC_BELOW_PER_MILE = 10  # §10.1B1c
CIVIL_WAR_TURNS = (11, 12)  # §8
RANDOM_END_FROM = 21  # §1.3
RANDOM_END_CHANCE = 0.25  # §1.3
BANK_FAILURE_MAX = 0.33  # §11.1
NO_THROUGH_CITIES = ("Chicago", "St. Louis", "Memphis", "Vicksburg", "New Orleans")  # §4.8.2

LOCOMOTIVES = {
    1: "Lion", 2: "Norris", 3: "American", 4: "Mogul", 5: "Atlantic",
    6: "Prairie", 7: "Chesapeake", 8: "Consolidation", 9: "Pacific",
}
TECHNOLOGIES = {
    "A": "Grand Station", "B": "Switch Yards", "C": "Steel Rails", "D": "Coal-burning engine",
    "E": "Block signal system", "F": "Automatic couplers", "G": "Pullman sleepers",
    "H": "Automatic brakes", "I": "Refrigerated cars", "J": "Steel Bridges",
}
# Ruling R-O5 (shared with pbm.cr.queries): the turn each becomes available.
LOCOMOTIVE_SCHEDULE = {1: 1, 2: 4, 3: 8, 4: 13, 5: 15, 6: 17, 7: 19, 8: 21, 9: 23}
TECHNOLOGY_SCHEDULE = {"A": 1, "B": 5, "C": 9, "D": 13, "E": 14, "F": 15, "G": 16, "H": 17, "I": 18, "J": 19}
REVENUE_TECHS = {"A": 0.10, "G": 0.05, "I": 0.05}  # ruling E-4.18: revenue bonus
COST_TECHS = {"B": 0.03, "C": 0.03, "D": 0.03}  # ruling E-4.18: expense cut
SAFETY_TECHS = ("E", "H", "J")  # §4.18 "prevent disasters"; F improves safety (accidents)


def best_locomotive(turn: int) -> int:
    """§4.17: the best engine available on ``turn`` (ruling R-O5)."""
    return max(n for n, t in LOCOMOTIVE_SCHEDULE.items() if t <= turn)


def technologies_available(turn: int) -> list[str]:
    """§4.18: technologies available on ``turn``, in their fixed order (ruling R-O5)."""
    return [t for t, first in TECHNOLOGY_SCHEDULE.items() if first <= turn]


def max_efficiency(miles: int, locomotive: int = 1, best: int = 1) -> int:
    """§4.5C and §4.17: the highest efficiency a railroad can reach.

    99, less 1 for every 50 miles (or part) over 3,000 miles — 3,521 miles
    gives 88, as in the rulebook's example — less 3 for each engine generation
    the railroad lags behind the best one available (ruling E-4.17).
    """
    over = max(0, miles - 3000)
    size_cut = math.ceil(over / 50)
    obsolete = 3 * max(0, best - locomotive)
    return max(1, 99 - size_cut - obsolete)


def locomotive_cost(miles: int, have: int, want: int) -> int:
    """§4.17: $10 per mile for each step between engines (Lion→Mogul = $30/mile)."""
    return LOCOMOTIVE_STEP_COST * max(0, want - have) * miles


def double_track_percent(value_a: int, value_b: int) -> int:
    """§4.15: a double-tracked route earns (value 1 + value 2) % more.

    Values are the squares of the sizes (§2.6): sizes 4 and 5 → 16 + 25 = 41 %.
    """
    return value_a + value_b


def stock_bid_count_limit(active_railroads: int) -> int:
    """§6.1A: 3 bids below 16 railroads (15 counted with the small group), 4 up to 30, 5 above."""
    if active_railroads <= 15:
        return 3
    if active_railroads <= 30:
        return 4
    return 5


def year_of(turn: int) -> int:
    """§1.1, §8: two years a turn from 1841, so turns 11–12 are 1861–1863 (ruling E-1.1)."""
    return 1841 + 2 * (turn - 1)

"""Loading a title: the data files under ``titles/<TITLE>/``.

A title is data (``title.json`` + ``tiles.json``, see docs/18xx/format.md)
plus a few named hooks (``titles/<T>/hooks.py``, loaded by ``core/hooks.py::hooks_for``).  Everything here is immutable after loading.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.tiles import TileDef, parse_hex_spec_full

TITLES_DIR = Path(__file__).parent.parent / "titles"


def money(title: "Title | None", amount: Any) -> str:
    """``amount`` shown in ``title``'s currency (its data ``currency``, a pattern such as
    ``"£%s"``; ``$`` without a title).  The sign goes before the symbol: ``-£40``."""
    pattern = str((getattr(title, "data", None) or {}).get("currency") or "$%s")
    if "%s" not in pattern:
        pattern = "$%s"
    if isinstance(amount, float):
        amount = int(amount) if amount == int(amount) else f"{amount:.2f}".rstrip("0")
    text = str(amount)
    if text.startswith("-") and text[1:2].isdigit():
        return "-" + pattern.replace("%s", text[1:])
    return pattern.replace("%s", text)


@dataclass(frozen=True)
class HexDef:
    coord: str
    color: str  # white / red / gray
    tile: TileDef  # the printed tile
    cost: int = 0
    terrain: str | None = None
    name: str | None = None
    borders: frozenset[int] = frozenset()  # impassable sides
    gauge: frozenset[int] = frozenset()  # sides where track changes gauge (title data ``gauge=``)
    future_label: str | None = None  # label a green or later tile here must carry (``future_label=``)


@dataclass(frozen=True)
class MarketCell:
    price: int
    kind: str  # "" | "p" (par) | "y" (no cert limit) | "e" (end game)


@dataclass(frozen=True)
class TrainDef:
    name: str
    distance: int
    price: int
    count: int
    rusts_on: str | None = None
    events: tuple[str, ...] = ()
    variants: tuple[tuple[str, str], ...] = ()  # (name, kind): kind passenger/freight/doubler
    available_on: str | None = None  # train whose purchase makes these buyable (else: when reached)


@dataclass(frozen=True)
class PhaseDef:
    name: str
    on: str | None
    train_limit: int
    tiles: tuple[str, ...]
    operating_rounds: int
    status: tuple[str, ...]
    limits_by_size: tuple[tuple[int, int], ...] = ()  # (corporation size, limit) when limits differ

    def limit_for(self, size: int) -> int:
        """The train limit of a corporation of ``size`` shares (0 if it may own none)."""
        if not self.limits_by_size:
            return self.train_limit
        by_size = self.__dict__.get("_by_size")
        if by_size is None:
            by_size = self.__dict__["_by_size"] = dict(self.limits_by_size)
        return by_size.get(size, 0)


PLAIN_WORDS = {  # pbm's words where a title's data names none (title data ``words``)
    "ipo": "IPO",  # new shares (18GA 1.4: the Initial Offering)
    "pool": "market",  # shares sold to the bank (18GA 1.4: the Open Market)
    "train_bank": "bank",  # new trains
    "train_pool": "bank pool",  # trains given back to the bank
    "private_sale": "Private auction",  # the round in which the privates are sold
    "phase": "phase %s",
}


@dataclass(frozen=True)
class Title:
    name: str
    data: dict[str, Any] = field(repr=False, hash=False, compare=False)
    layout: str = "pointy"
    hexes: dict[str, HexDef] = field(default_factory=dict, repr=False, hash=False, compare=False)
    tiles: dict[str, TileDef] = field(default_factory=dict, repr=False, hash=False, compare=False)
    market: tuple[tuple[MarketCell | None, ...], ...] = ()
    trains: tuple[TrainDef, ...] = ()
    phases: tuple[PhaseDef, ...] = ()
    folder: str = ""  # the folder under ``titles/`` it was loaded from (its hooks are there)

    def cert_limit(self, players: int) -> int:
        """The certificate limit for ``players`` players.  Bankruptcies can leave fewer players
        than the table lists (the game then ends in most titles, but the state is still shown):
        fewer than the smallest count take the smallest count's limit."""
        table = self.data["cert_limit"]
        if str(players) not in table:
            players = min((int(k) for k in table if int(k) >= players), default=players)
        return int(table[str(players)])

    def money(self, amount: Any) -> str:
        """``amount`` in the title's currency (title data ``currency``: ``"£%s"`` in 1848, ``"$%s"``
        by default): ``£100``, ``-£40``."""
        return money(self, amount)

    def word(self, key: str) -> str:
        """The title's own word for ``key`` (title data ``words``; pbm's plain word in ``PLAIN_WORDS``
        where the title has none): 18GA's ``Initial Offering`` for ``ipo``, 1848's ``Bank Pool`` for
        ``pool`` (issue 29: refusals and mails use the rulebook's words)."""
        words: dict[str, Any] = self.data.get("words") or {}
        return str(words.get(key) or PLAIN_WORDS[key])

    def phase_label(self, index: int) -> str:
        """Phase ``index`` as the book names it: ``Phase 3``, 1848's ``3/3+ Phase``."""
        words: dict[str, Any] = self.data.get("words") or {}
        name = self.phases[index].name
        name = str((words.get("phase_names") or {}).get(name, name))
        return self.word("phase").replace("%s", name)

    def in_phase(self, index: int) -> str:
        """``in Phase 3``, 1848's ``in the 3/3+ Phase``: a refusal's words for when a rule holds."""
        label = self.phase_label(index)
        return f"in {label}" if label.lower().startswith("phase") else f"in the {label}"

    def starting_cash(self, players: int) -> int:
        return int(self.data["starting_cash"][str(players)])

    def corporation(self, sym: str) -> dict[str, Any]:
        """The title data of corporation ``sym`` (empty if there is none)."""
        return next((c for c in self.data.get("corporations", []) if c["sym"] == sym), {})

    def company(self, sym: str) -> dict[str, Any]:
        found = self._companies().get(sym)
        if found is None:
            raise GameError(f"unknown company {sym!r}")
        return found

    def _companies(self) -> dict[str, dict[str, Any]]:
        index = self.__dict__.get("_company_index")
        if index is None:  # the first of each symbol, as a scan of the list finds it
            index = {}
            for c in self.data["companies"]:
                index.setdefault(c["sym"], c)
            self.__dict__["_company_index"] = index
        return index

    def company_ability(self, sym: str, kind: str) -> dict[str, Any] | None:
        """The first ability of type ``kind`` of private ``sym`` (None if it has none)."""
        index = self.__dict__.get("_ability_index")
        if index is None:
            index = self.__dict__["_ability_index"] = {}
        key = (sym, kind)
        if key in index:
            return index[key]
        found = next((ab for ab in self.company(sym).get("abilities", []) if ab["type"] == kind), None)
        index[key] = found
        return found

    def data_corp(self, sym: str) -> dict[str, Any]:
        """The title data of corporation ``sym`` (empty for one the data does not list)."""
        return next((c for c in self.data["corporations"] if c["sym"] == sym), {})

    def par_cells(self) -> list[tuple[int, int]]:
        cells = self.__dict__.get("_par_cells")
        if cells is None:  # the market of a title never changes
            cells = self.__dict__["_par_cells"] = tuple(
                (r, c) for r, row in enumerate(self.market) for c, cell in enumerate(row)
                if cell is not None and cell.kind == "p")
        return list(cells)


def _cell(text: str) -> MarketCell:
    digits = "".join(ch for ch in text if ch.isdigit())
    kind = "".join(ch for ch in text if not ch.isdigit())
    return MarketCell(int(digits), kind)


def _phase(p: dict[str, Any]) -> PhaseDef:
    limit = p["train_limit"]
    by_size: tuple[tuple[int, int], ...] = ()
    if isinstance(limit, dict):  # {"10": 4, "5": 2}: by corporation size
        by_size = tuple((int(k), int(v)) for k, v in limit.items())
        limit = max(v for _, v in by_size)
    return PhaseDef(p["name"], p.get("on"), int(limit), tuple(p["tiles"]), int(p["operating_rounds"]),
                    tuple(p.get("status", [])), by_size)


def _split_extras(spec: str) -> tuple[str, frozenset[int], str | None]:
    """Take the hex-only parts out of a map spec: ``gauge=3,4`` (sides where the track
    changes gauge) and ``future_label=K`` (the label its green and later tiles carry)."""
    keep: list[str] = []
    gauge: frozenset[int] = frozenset()
    future = None
    for part in spec.split(";"):
        key, _, value = part.partition("=")
        if key == "gauge":
            gauge = frozenset(int(e.lstrip("e")) for e in value.split(","))
        elif key == "future_label":
            future = value
        elif part:
            keep.append(part)
    return ";".join(keep), gauge, future


@lru_cache(maxsize=1)
def known_titles() -> tuple[str, ...]:
    """The registered titles: every folder under ``titles/`` with a ``title.json``."""
    return tuple(sorted((p.name for p in TITLES_DIR.iterdir() if (p / "title.json").is_file()),
                        key=lambda n: (n.lstrip("0123456789") == n, n)))


def canonical_title(name: str) -> str | None:
    """The registered spelling of a title name (``18al`` -> ``18AL``), or None."""
    wanted = str(name).strip().lower()
    return next((t for t in known_titles() if t.lower() == wanted), None)


def load_title(name: str) -> Title:
    """Load a registered title by name (``18GA``, case-insensitive); raises GameError if unknown."""
    canon = canonical_title(name)
    if canon is None:
        raise GameError(f"unknown title {name!r}; known titles: {', '.join(known_titles())}")
    return _load(canon)


@lru_cache(maxsize=None)
def _load(canon: str) -> Title:
    folder = TITLES_DIR / canon
    data = json.loads((folder / "title.json").read_text())
    tiles_raw = json.loads((folder / "tiles.json").read_text())
    tiles = {n: TileDef.from_data(n, d) for n, d in tiles_raw.items()}
    names = data.get("location_names", {})
    hexes: dict[str, HexDef] = {}
    for color, specs in data["hexes"].items():
        for spec, coords in specs.items():
            spec, gauge, future = _split_extras(spec)
            for coord in coords:
                tile, cost, terrain, borders = parse_hex_spec_full(spec, color, coord)
                hexes[coord] = HexDef(coord, color, tile, cost, terrain, names.get(coord), borders, gauge, future)
    market = tuple(tuple(_cell(c) for c in row) for row in data["market"])
    trains = tuple(TrainDef(t["name"], int(t["distance"]), int(t["price"]), int(t["count"]),
                            t.get("rusts_on"), tuple(t.get("events", [])),
                            tuple(t.get("variants", {}).items()), t.get("available_on")) for t in data["trains"])
    phases = tuple(_phase(p) for p in data["phases"])
    layout = data["layout"] + ("_xnum" if data.get("axes") == "x_number" else "")
    return Title(name=data["title"], data=data, layout=layout, hexes=hexes, tiles=tiles,
                 market=market, trains=trains, phases=phases, folder=canon)

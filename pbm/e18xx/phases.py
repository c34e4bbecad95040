"""What a phase change unlocks and closes, from the title's data (its phases and trains) as the engine
applies them (``_train_bought_from_depot``: the first train named by a phase's ``on`` starts it, rusts
the trains with that ``rusts_on``, makes those with that ``obsolete_on`` obsolete, and fires that
train's events).  One wording for every place that says it: the phase event of the mails
(:mod:`pbm.e18xx.events`) and the web page's "what the next phase changes"
(:func:`pbm.e18xx.render.web.phase_info`)."""
from __future__ import annotations

from typing import Any

# a train's events, as the rules word them (``close_companies`` is a closing: see phase_change)
TRAIN_EVENT_TEXT = {
    "loans": "companies may take loans",
    "second_tile_lay": "companies may lay a second tile",
    "trains_between_companies": "companies may buy trains from each other",
    "joint_home_operates": "the joint home companies operate",
    "remove_hex_bonuses": "the hex bonus tokens are removed",
    "forced_conversions": "every five-share company converts to ten shares",
}

# a phase's status, as the rules word it
STATUS_TEXT = {
    "can_buy_companies": "companies may buy private companies from players",
    "can_buy_companies_from_other_players": "companies may buy private companies from players other than their "
                                            "president",
    "limited_train_buy": "a company may buy only one train from the bank per turn",
    "cmd_token_bonus": "the CMD station bonus for freight counts",
    "may_convert": "five-share companies may convert to ten shares",
    "ten_share_only": "new companies start with ten shares",
}


def _list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _printed_values(title: Any, old: tuple[str, ...], new: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """The printed places (off-board areas, 18GA's Montgomery and Tallahassee) whose value changes when
    the tile colours ``old`` become ``new`` (18GA Table I, phase 5: "Red off-board locations (and
    Montgomery and Tallahassee) are worth the higher of their two printed values"): (name, was, now)
    by hex; the phase event said nothing of it (play-through s11 finding 6).  A node no track reaches
    is no place (1848's I21, the map's display of the Bank of England's minimum dividend: s15b)."""
    out = []
    for coord, hexdef in sorted(title.hexes.items()):
        reached = {end[1] for path in hexdef.tile.paths for end in path if end[0] == "n"}
        for i, node in enumerate(hexdef.tile.nodes):
            if len(node.revenue) < 2 or i not in reached:
                continue
            was, now = node.revenue_for(old), node.revenue_for(new)
            if was != now:
                out.append((hexdef.name or coord, was, now))
                break
    return list(dict.fromkeys(out))  # one place on two hexes once (1848's Alice Springs, A4 and A6: s11v)


def one_train_words(title: Any, bank: str = "bank") -> str:
    """The one-train-from-the-bank rule in words: 18GA/18AL 4.2.5(f) "at most one train from the Bank
    each turn"; 18VA 4.5.8 (title data ``limited_train_buy: per_type``) "No more than one train of the
    current type may be bought from the Bank in an Operating Round" (play-throughs s16b, s16c)."""
    if ((getattr(title, "data", None) or {}).get("limited_train_buy")) == "per_type":
        return f"a company may buy only one train of each type from the {bank} in an operating round"
    return f"a company may buy only one train from the {bank} per turn"


def _status_texts(statuses: list[str], title: Any = None) -> list[str]:
    """The phase statuses in words, leaving out one that another says already: 18GA's phase 5 said
    "no longer: companies may buy private companies from players; companies may buy private companies
    from players other than their president" (play-through s11v F7).  18VA's train limit is one of each
    type an operating round (4.5.8: "No more than one train of the current type may be bought from
    the Bank in an Operating Round"), not one a turn (play-through s16b)."""
    texts = [one_train_words(title) if st == "limited_train_buy" and title is not None
             else STATUS_TEXT.get(st, st.replace("_", " ")) for st in statuses]
    return [t for t in texts if not any(o != t and t.startswith(o) for o in texts)]


def limit_text(ph: Any) -> str:
    """A phase's train limit: ``4`` or, by company size, ``4 (10-share), 2 (5-share)``."""
    if ph.limits_by_size:
        return ", ".join(f"{limit} ({size}-share)" for size, limit in sorted(ph.limits_by_size, reverse=True))
    return str(ph.train_limit)


def phase_change(title: Any, old: int, new: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What entering phase ``new`` from phase ``old`` (indexes into ``title.phases``; the phases between
    are passed through) unlocks and closes: tile colours, the train limit, operating rounds, the phase
    status, trains rusting, made obsolete or offered, and the events of the trains that start them."""
    phases = title.phases
    a, b = phases[old], phases[new]
    unlocks: list[str] = []
    closes: list[str] = []
    colours = [t for t in b.tiles if t not in a.tiles]
    if colours:
        unlocks.append(f"{_list(colours)} tiles may be laid")
    gone = [t for t in a.tiles if t not in b.tiles]
    if gone:
        closes.append(f"{_list(gone)} tiles")
    if limit_text(a) != limit_text(b):
        unlocks.append(f"train limit {limit_text(b)} (was {limit_text(a)})")
    if a.operating_rounds != b.operating_rounds:
        # the set under way keeps its count (the engine fixes it when the set starts): play-through s16,
        # "2 operating rounds between stock rounds (was 1)" and the next line "operating round 3.1 ends;
        # next: stock round 4" read as a contradiction
        unlocks.append(f"{b.operating_rounds} operating rounds between stock rounds (was {a.operating_rounds}; "
                       "from the next stock round on)")
    unlocks += _status_texts([st for st in b.status if st not in a.status], title)
    closes += _status_texts([st for st in a.status if st not in b.status], title)
    worth = _printed_values(title, a.tiles, b.tiles)
    if worth:
        # the values themselves, never "the higher one" for all: 18AL's Corinth falls ($40 -> $30)
        # 18AL/18GA print two values; 1848 one for each phase colour (Cairns 10, 20, 30, 40: s15b)
        many = any(len(n.revenue) > 2 for h in title.hexes.values() for n in h.tile.nodes)
        unlocks.append(f"the places with {'a value for each phase' if many else 'two printed values'} change: "
                       + _list([f"{name} {title.money(now)} (was {title.money(was)})" for name, was, now in worth]))
    raw = title.data.get("trains", [])
    for ph in phases[old + 1:new + 1]:
        rust = [t["name"] for t in raw if t.get("rusts_on") == ph.on]
        if rust:
            closes.append(f"{_list(rust)} trains (they rust)")
        obsolete = [t["name"] for t in raw if t.get("obsolete_on") == ph.on]
        if obsolete:
            closes.append(f"{_list(obsolete)} trains (obsolete: they run once more)")
        avail = [t["name"] for t in raw if t.get("available_on") == ph.on]
        if avail:
            unlocks.append(f"{_list(avail)} trains may be bought")
        trigger = next((t for t in raw if t["name"] == ph.on), {})
        for ev in trigger.get("events", []):
            if ev == "close_companies":
                closes.append("the private companies (they close)")
            elif ev == "joint_home_operates" and _joint_homes(title):
                # 1848 9.6: "COM can operate without the necessity of a link from Adelaide to Sydney"
                unlocks.append(f"{_list(_joint_homes(title))} may operate without track between its two "
                               "home cities")
            else:
                unlocks.append(TRAIN_EVENT_TEXT.get(ev, ev.replace("_", " ")))
    unlocks += _lender_dividend(title, a.name, b.name)
    return tuple(unlocks), tuple(closes)


def _joint_homes(title: Any) -> list[str]:
    """The companies with two home cities (1848's COM: Sydney and Adelaide)."""
    return [c["sym"] for c in title.data.get("corporations", []) if c.get("float_needs_link")]


def _lender_dividend(title: Any, old: str, new: str) -> list[str]:
    """The lender's minimum dividend when the phase changes it (1848 5.4.3, 9.3, 9.5, 9.7: the Bank of
    England pays its shareholders £10, £20, £30 a share; play-through s11: the phase events never said it)."""
    bank = title.data.get("bank_corporation") or {}
    base = bank.get("base_dividend") or {}
    if new not in base or base.get(new) == base.get(old, base.get(new)):
        return []
    total = int(base[new])
    shares = int(bank.get("shares", 10) or 10)
    return [f"{bank.get('sym', 'the lender')} pays its shareholders at least {title.money(total)} "
            f"({title.money(total // shares)} a share)"]

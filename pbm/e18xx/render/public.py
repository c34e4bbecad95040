"""The public state of an 18xx game that the tables of players and companies do not show (issue 29,
item 3): standing bids and the cash set aside for them, the falling prices of a Dutch sale, loans and
the lender's loans left, the train roster (how many are left, what rusts or becomes obsolete, when),
what each private does, objectives, coal mining districts, mines and the Railway Express bonus.

:func:`public_lines` gives it as lines of plain text: ``compact`` for the state mails (one line per
topic), complete for the PDF and ``pbm 18xx show``.  Everything comes from the title's data and the
engine's state, in the title's currency.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbm.e18xx.english import a as article

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine as Game  # the game as a protocol: no import circle with core.game


def _hex_list(hexes: list[str], limit: int = 8) -> str:
    return ", ".join(hexes[:limit]) + (f" and {len(hexes) - limit} more" if len(hexes) > limit else "")


def ability_text(g: "Game", ab: dict[str, Any], full: bool = False, sym: str = "") -> str:
    """What a private's ability lets its owner do, in plain words (title data ``abilities``); ``full``:
    every hex named (the PDF), else the first eight; with the private's ``sym``, the move that uses
    an ability a player could not guess (play-through s12v: 'place the SNAR marker in Gadsden' was
    an unknown move and the state named no move for the marker)."""
    m = g.title.money
    t = ab.get("type", "")

    def _hexes(hexes: list[str]) -> str:
        return _hex_list(hexes, 99 if full else 8)

    hexes = list(ab.get("hexes") or [])
    who = {"corporation": " (when a company owns it)",
           "corporation_or_director": " (a company owning it, or its director)"}.get(ab.get("owner", ""), "")
    if t == "blocks_hexes":
        return f"no tile may be laid in {_hexes(hexes)} while a player owns it"
    if t == "tile_lay":
        tiles = "/".join(ab.get("tiles") or [])
        cost = " free" if ab.get("free") else (f" {m(ab['discount'])} off the terrain cost" if ab.get("discount") else "")
        extra = "; needs no connection" if ab.get("no_connection") else ""
        return f"lays tile {tiles} in {_hexes(hexes)}{cost}{extra}{who}"
    if t == "token":
        return f"a station in {_hexes(hexes)} for {m(ab.get('price', 0))}"
    if t == "free_train":
        return f"comes with a {ab.get('train', '').split('-')[0]} train" + (
            f" (not {_in_phase_named(g, str(ab['unless_phase']))})" if ab.get("unless_phase") else "")
    if t == "shares":
        share = str(ab.get("share", ""))
        corp = share.split("_")[0]
        return f"comes with {article(corp)} share" + (" (the president's certificate)" if share.endswith("_0") else "")
    if t == "hex_bonus_token":
        how = f" (its company writes 'assign {sym} <hex>')" if sym else ""
        return f"a +{m(ab.get('bonus', 0))} marker on one of {_hexes(hexes)} for its company's runs{how}"
    if t == "route_bonuses":
        return "route bonuses: " + "; ".join(
            f"{b.get('name', '')} {'-'.join(b.get('hexes') or [])} +{m(b.get('bonus', 0))}" for b in ab.get("bonuses") or [])
    if t == "train_discount":
        amount = f"{ab['percent']}%" if ab.get("percent") else m(ab.get("discount", 0))
        trains = "/".join(ab.get("trains") or [])
        src = " from the bank" if ab.get("from") == "depot" else ""
        return f"{amount} off a {trains + ' ' if trains else ''}train{src}{who}"
    if t == "assign_bonus":
        return (f"the Railway Express marker: +{m(ab.get('bonus', 0))} to a city (+{m(ab.get('doubler_bonus', 0))} "
                f"for a 4D) among {_hexes(hexes)}{who}")
    if t == "extra_token":
        return f"an extra station, beside the city circles, in one of {_hexes(hexes)}{who}"
    if t == "train_limit_bonus":
        return f"train limit +{ab.get('bonus', 1)}{who}"
    if t == "par_on_buy":
        return f"its buyer sets the starting value of {ab.get('corporation', '')}"
    if t == "fixed_par":
        return f"{ab.get('corporation', '')} starts at {m(ab.get('price', 0))}"
    if t == "close_on_train":
        return f"closes when {ab.get('corporation', '')} buys a train"
    return t.replace("_", " ")


def _in_phase_named(g: "Game", name: str) -> str:
    """``in Phase 4`` for the phase the title data names ``4`` (1848: ``in the 4/4+ Phase``)."""
    index = next((i for i, p in enumerate(g.title.phases) if p.name == name), None)
    return g.title.in_phase(index) if index is not None else f"in phase {name}"


def _owner(g: "Game", owner: str | None) -> str:
    if not owner:
        return "unsold"
    return owner[2:] if owner[:2] in ("P:", "C:") else owner


def live_auction(g: "Game") -> str | None:
    """The private being auctioned now among its bidders (18AL/18GA 3.1.1), or None."""
    r = g.state.round
    return r.auctioning if r.auctioning and r.high is not None and r.auction_seq else None


def bids_held(g: "Game", player: str) -> int:
    """The cash ``player``'s bids hold now: his standing bids (3.1(b)), and in the auction under way
    his bid if it is the high one - not his standing bid on that private, which the auction's bids
    replaced (play-through s13 F1: the state showed it, and the wrong high bid)."""
    live = live_auction(g)
    if live is None:
        return int(g.committed(player) or 0)
    r = g.state.round
    others = sum(b.price for sym, bs in (r.bids or {}).items() if sym != live for b in bs if b.player == player)
    return others + (r.high.price if r.high.player == player else 0)


def auction_lines(g: "Game") -> list[str]:
    """Standing bids with the cash set aside for them, the auction under way, and a Dutch sale's
    prices now."""
    s = g.state
    m = g.title.money
    out: list[str] = []
    r = s.round
    live = live_auction(g)
    if live is not None:
        out.append(f"Auction of {live} now, between its bidders ({', '.join(r.auction_seq)}): the high bid is "
                   f"{r.high.player}'s {m(r.high.price)}; {r.auction_seq[r.auction_turn]} bids more or passes")
    bids = {sym: bs for sym, bs in (r.bids or {}).items() if bs and sym != live}
    if bids or live is not None:
        parts = []
        for sym, bs in sorted(bids.items()):
            top = max(bs, key=lambda b: b.price)
            parts.append(f"{sym}: " + ", ".join(f"{b.player} {m(b.price)}" + (" (high)" if b is top and len(bs) > 1 else "")
                                                for b in sorted(bs, key=lambda b: b.price)))
        if parts:
            out.append("Standing bids: " + "; ".join(parts))
        held = [(p.name, bids_held(g, p.name)) for p in s.players]
        held = [(n, c) for n, c in held if c]
        if held:
            out.append("Cash set aside for bids: " + ", ".join(f"{n} {m(c)} (free {m(s.cash[f'P:{n}'] - c)})"
                                                               for n, c in held))
    auction = g.title.data.get("auction") or {}
    if auction.get("style") == "dutch":
        floors = auction.get("min_prices") or {}
        left = [c for c in s.companies.values() if c.owner is None and not c.closed]
        if left:
            out.append(f"Prices now (each lowered by {m(auction.get('step', 5))} at a time): " + ", ".join(
                f"{c.sym} {m(c.min_bid)}" + (f" (lowest {m(floors[c.sym])})" if c.sym in floors else "") for c in left))
    return out


def loan_lines(g: "Game") -> list[str]:
    """Loans per company and the loans the lender has left (title data ``loans``, ``bank_corporation``)."""
    spec = g.title.data.get("loans")
    lender_spec = g.title.data.get("bank_corporation") or {}
    if not spec or not lender_spec:
        return []
    m = g.title.money
    lender = lender_spec.get("sym", "")
    taken = [(c.sym, c.loans) for c in g.state.corporations.values() if c.sym != lender and c.loans]
    try:
        left = g.loans_left()
    except Exception:  # noqa: BLE001 - a lender not yet in play
        left = int(lender_spec.get("loans", 0))
    return [f"Loans: {', '.join(f'{sym} {n}' for sym, n in taken) or 'none taken'}; "
            f"{lender_spec.get('name', lender)} ({lender}) has {left} of {lender_spec.get('loans', 0)} left, "
            f"{m(lender_spec.get('loan_value', 100))} each, at most {spec.get('per_company', 5)} per company"]


def _limit_from(g: "Game", name: str) -> int | None:
    """The train limit from the phase train ``name`` starts, when it changes the limit (18AL Table I;
    play-through s11: the phase-5 limit of 2 was first heard in a refusal); None otherwise."""
    phases = g.title.phases
    for i, ph in enumerate(phases):
        if ph.on == name and i > 0 and not ph.limits_by_size and not phases[i - 1].limits_by_size \
                and ph.train_limit != phases[i - 1].train_limit:
            return ph.train_limit
    return None


def train_lines(g: "Game", compact: bool) -> list[str]:
    """The train roster: per type, how many the bank has left, the price, and what rusts or becomes obsolete
    when (the first train of a type bought from the bank starts its phase)."""
    from pbm.e18xx.render.words import word

    s = g.state
    m = g.title.money
    raw = g.title.data.get("trains", [])
    left: dict[str, int] = {}
    pool: dict[str, int] = {}
    held: dict[str, int] = {}  # set aside for a private (18GA: OSR's free train)
    for t in s.trains.values():
        if t.owner == "depot":
            left[t.name] = left.get(t.name, 0) + 1
        elif t.owner == "discard":  # given back to the bank: the open market offers it
            pool[t.name] = pool.get(t.name, 0) + 1
        elif t.owner == "N":
            held[t.name] = held.get(t.name, 0) + 1
    parts = []
    for spec in raw:
        name = spec["name"]
        count = spec.get("count", 0)
        bits = [f"{name}: {left.get(name, 0)} of {'unlimited' if count >= 99 else count} left, {m(spec.get('price', 0))}"]
        variants = [v for v in (spec.get("variants") or {}) if v != name]
        if variants:
            bits.append("or " + "/".join(variants))
        if spec.get("rusts_on"):
            bits.append(f"rusts when the first {spec['rusts_on']} is bought")
        if spec.get("obsolete_on"):
            bits.append(f"obsolete when the first {spec['obsolete_on']} is bought")
        if spec.get("available_on"):
            bits.append(f"for sale once a {spec['available_on']} is bought")
        limit = _limit_from(g, name)
        if limit is not None:
            bits.append(f"the first bought sets the train limit to {limit}")
        if held.get(name):
            bits.append(f"{held[name]} set aside for a private")
        if pool.get(name):
            bits.append(f"{pool[name]} in the {word(g, 'train_pool')}")  # the book's word (18GA 1.4)
        parts.append(" ".join(bits[:1]) + ("" if len(bits) == 1 else " (" + "; ".join(bits[1:]) + ")"))
    if compact:
        return ["Trains: " + "; ".join(parts)]
    return ["Trains (the bank's roster):"] + [f"  {p}" for p in parts]


def _marker(g: "Game", co: Any) -> str:
    """Where the private's revenue marker lies (ability ``hex_bonus_token``: 18AL's SNAR), if placed."""
    if not g.company_ability(co.sym, "hex_bonus_token") or not (co.owner or "").startswith("C:"):
        return ""
    mark = g.state.hex_bonuses.get(co.owner[2:])
    return f"; its marker is on {mark[0]} ({co.owner[2:]}'s trains there +{g.title.money(mark[1])})" if mark else ""


def private_lines(g: "Game", compact: bool) -> list[str]:
    m = g.title.money
    out = []
    for spec in g.title.data.get("companies", []):
        co = g.state.companies.get(spec["sym"])
        if co is None:
            continue
        does = "; ".join(ability_text(g, ab, full=not compact, sym=spec["sym"]) for ab in spec.get("abilities") or []) \
            or "no special ability"
        state = "closed" if co.closed else _owner(g, co.owner)
        out.append(f"  {co.sym} {co.name} ({m(co.value)}, pays {m(co.revenue)}; {state}): {does}{_marker(g, co)}")
    if not out:
        return []
    return ["Privates and what they do:"] + out


def objective_lines(g: "Game") -> list[str]:
    """Objectives (18AL): a company reaching its hex with a station is paid the bonus once."""
    m = g.title.money
    items = []
    for spec in g.title.data.get("corporations", []):
        obj = spec.get("objective")
        if not obj:
            continue
        done = spec["sym"] in g.state.objectives_done
        items.append(f"{spec['sym']} to {obj['hex']} +{m(obj.get('bonus', 0))}" + (" (paid)" if done else ""))
    return ["Objectives (a station reaching the hex pays the bonus once): " + "; ".join(items)] if items else []


def coal_lines(g: "Game") -> list[str]:
    """18VA: coal mining districts and mines (freight trains only), ports, and the Railway Express marker."""
    groups = g.title.data.get("stop_groups") or {}
    m = g.title.money
    out = []
    if groups.get("cmd"):
        out.append(f"Coal mining districts (only freight trains run there; +{m(20)} per freight train number, "
                   f"also to the treasury with a station there): {', '.join(groups['cmd'])}")
    if groups.get("mine"):
        # what a mine is worth: its tiles' value (play-through s12: the mails named the mines, never a value;
        # the map shows it only once a tile is laid)
        worth = {n.revenue[0][1] for t in g.title.tiles.values() if t.color == "yellow" and not t.cities()
                 for n in t.nodes if n.kind == "town" and n.revenue}
        each = f", {m(worth.pop())} each once its tile is laid" if len(worth) == 1 else ""
        out.append(f"Mines (freight trains count their value{each}; passenger trains ignore them): "
                   f"{', '.join(groups['mine'])}")
    for (private, corp), hexname in sorted(g.state.assignments.items()):
        spec = next((c for c in g.title.data.get("companies", []) if c["sym"] == private), {})
        ab = next((a for a in spec.get("abilities") or [] if a.get("type") == "assign_bonus"), None)
        if ab:
            out.append(f"Railway Express ({private}): {corp} +{m(ab.get('bonus', 0))} at {hexname} "
                       f"(+{m(ab.get('doubler_bonus', 0))} for a 4D)")
    for corp, (hexname, bonus) in sorted(g.state.hex_bonuses.items()):
        out.append(f"Bonus marker: {corp} +{m(bonus)} at {hexname}")
    return out


def limit_lines(g: "Game") -> list[str]:
    # the trains that count against the limit (1848 8.2.5: not a 2E; play-through s12)
    limits = [(c.sym, g.train_limit(c.sym), len(g.limited_trains(c.sym))) for c in g.state.corporations.values()
              if c.floated and not c.closed]
    if not limits:
        return []
    return ["Train limits: " + ", ".join(f"{sym} {n}/{lim}" for sym, lim, n in limits)]


def tile_lines(g: "Game") -> list[str]:
    """The tiles left in the supply, by colour (play-through s12 mail #74: 'lay 14 C8 1' was refused
    "no tile 14 is left", a count no mail or PDF showed; on the table the tiles are in view). A
    hex's own copy of a tile (18VA's 170ric) is shown by its number and label."""
    import re

    supply = g.state.tile_supply
    if not supply:
        return []
    colours: dict[str, list[str]] = {}
    for name, left in supply.items():
        tile = g.title.tiles.get(name)
        if tile is None:
            continue
        m = re.fullmatch(r"(\d+)([a-z]+)", name)
        shown = f"{m.group(1)} {tile.label}" if m and tile.label else name
        colours.setdefault(tile.color, []).append(f"{shown} x{len(left)}" if left else f"{shown} none")
    order = ["yellow", "green", "brown", "gray"]
    parts = [f"{c} {', '.join(colours[c])}" for c in sorted(colours, key=lambda c: (order.index(c) if c in order
                                                                                    else len(order), c))]
    return ["Tiles left: " + "; ".join(parts)]


def currency_line(g: "Game") -> list[str]:
    form = str(g.title.data.get("currency", "$%s"))
    sign = form.replace("%s", "").strip() or "$"
    return [f"Money: every amount is in {sign}"]


def route_rule_lines(g: "Game") -> list[str]:
    """1848's route rules a player needs the map for (play-through s11: neither was shown anywhere): the
    K cities of the K-K bonus (10.4) and the changes of gauge (7.6), from the title's data."""
    from pbm.e18xx.rounds.cite import see

    out = []
    spec = g.title.data.get("k_bonus")
    if spec:
        label = spec["label"]
        cities = [f"{c} {h.name}" if h.name else c for c, h in g.title.hexes.items()
                  if g.state.map.tile(c).label == label or h.future_label == label]
        table = list(spec["bonus"])
        pays = ", ".join(f"{n} {g.title.money(v)}" for n, v in enumerate(table) if v)
        out.append(f"{label} cities: {', '.join(cities)}; a train's route joining several earns more ({pays}; "
                   f"not the 2E){see(g.title, 'k_bonus')}")
    note = (g.title.data.get("words") or {}).get("hex_names")
    if note:  # the rulebook's tables number the hexes differently (1848; play-through s12)
        out.append(f"Hexes: {note}")
    if g.title.data.get("gauge_change"):
        out.append("Changes of gauge: track crossing the thick line between the gauges on the map changes gauge; "
                   f"each change counts as a stop against a train's range, a + train runs one free{see(g.title, 'gauge_change')}")
    return out


def public_lines(g: "Game", *, compact: bool) -> list[str]:
    """The public state beyond the players' and companies' tables (see the module's docstring)."""
    out = currency_line(g) + auction_lines(g) + loan_lines(g) + limit_lines(g) + train_lines(g, compact)
    out += objective_lines(g) + coal_lines(g) + route_rule_lines(g) + tile_lines(g)
    privs = private_lines(g, compact)
    if compact:
        privs = privs[1:]
        privs = ["Privates: " + " | ".join(p.strip() for p in privs)] if privs else []
    return out + privs

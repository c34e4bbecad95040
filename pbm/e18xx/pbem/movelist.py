"""The legal moves as a player reads them in a mail (issue 29 item 6).

Every line is a move in the move language (pbem/moves.py), copied verbatim it is accepted, and
what a player needs to choose is beside it after ``#`` (which the move language ignores):
prices of shares, whose train it is and what it costs, the city a station goes to.  No
certificate ids or internal names.  The lines are ordered the way the turn goes (track,
stations, run, dividend, trains, privates, loans; in a stock round: start a company, buy, sell,
with par prices ascending), and a long list is shortened by grouping a kind's lines onto one
comment line (every kind stays visible: a loan or a station is never cut off).
"""
from __future__ import annotations

import re

from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.lays import joins, printed_lay, same_as, same_track
from pbm.e18xx.pbem.moves import format_action

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.game import Game

# the order of the kinds in a list: the turn's steps, then what may happen any time
ORDER = ("discard_train", "lay_tile", "place_token", "convert", "run_routes", "dividend", "buy_train",
         "buy_company", "take_loan", "use_ability", "assign", "bid", "par", "buy_shares", "sell_shares",
         "bankrupt", "pass")


def money(game: "Game", amount: int) -> str:
    pattern = str(game.title.data.get("currency") or "$%s")
    return pattern.replace("%s", str(amount)) if "%s" in pattern else f"${amount}"


def say(game: "Game", a: A.Action) -> str:
    """An action as a player would write it (parsed back to the same move), with what it costs
    after ``#``."""
    s = game.state
    if isinstance(a, A.BuyShares) and a.shares:
        sid = a.shares[0]
        corp = sid.rsplit("_", 1)[0]
        owner = s.share_owner.get(sid, "")
        source = "market" if owner == "pool" else "ipo"
        try:
            price = game._buy_price(corp, owner)
        except (GameError, KeyError, TypeError):
            return f"buy {corp} {source}"
        pct = game.sid_percent(sid)
        what = f"{pct}% share" if pct else "share"
        from pbm.e18xx.render.words import word  # the book's name for where it lies (issue 29: never 'ipo')

        where = f"the {word(game, 'pool' if source == 'market' else 'ipo')}"
        lender = game.title.data.get("bank_corporation") or {}
        if lender.get("sym") == corp:  # 1848 12.4.2: its certificates lie on "the Bank of England charter" (s13)
            where = f"the {lender.get('name', corp)} charter"
        return (f"buy {corp} {source}   # {what} for {money(game, price * max(1, pct // game.unit(corp)))}"
                f" from {where}")
    if isinstance(a, A.Par):
        held = s.share_owner.get(f"{a.corporation}_0") == f"P:{a.entity}"
        paid = _bank_pays(game, a.corporation)
        if held and paid:  # 18VA 4.1: the B&O Presidency came with P4; the bank funds the treasury
            return (f"par {a.corporation} {a.price}   # starting value: you hold the president's certificate; "
                    f"the bank puts {money(game, paid * a.price)} in {a.corporation}'s treasury")
        return f"par {a.corporation} {a.price}   # president's certificate for {money(game, 2 * a.price)}"
    if isinstance(a, A.SellShares) and a.corporation and a.count:
        try:
            price = game.share_price(a.corporation)
        except (GameError, KeyError, TypeError):
            return format_action(a)
        return f"{format_action(a)}   # at {money(game, price)} a share now"
    if isinstance(a, A.Bid) and s.round.kind == "auction" and "site_auction" not in game.optional_rules:
        return _bid(game, a)
    if isinstance(a, A.RunRoutes) and a.routes and not a.auto:
        # each train by the side it was bought as (a 2+ is "2+", not "2": play-through s12 printed
        # CAR's run as "run 2 E4 E2 F3; 2 E4 F5" with its 2 and its 2+)
        from pbm.e18xx.pbem.moves import train_type

        return "run " + "; ".join(" ".join([*([game.train_label(r.train) if r.train in s.trains
                                                else train_type(r.train)] if r.train else []), *r.nodes])
                                  for r in a.routes)  # a route written without its train: its stops (s13w F1)
    if isinstance(a, A.PlaceToken):
        return _token(game, a)
    if isinstance(a, A.BuyTrain):
        return _train(game, a)
    if isinstance(a, A.DiscardTrain):
        return _discard(game, a)
    if isinstance(a, A.BuyCompany):
        comp = s.companies.get(a.company)
        owner = (comp.owner or "")[2:] if comp is not None else ""
        return f"buy private {a.company} {a.price}" + (f"   # from {owner}{_price_range(game, a)}" if owner else "")
    if isinstance(a, A.Assign) and isinstance(a.target, str) and a.entity in s.companies \
            and game.company_ability(a.entity, "hex_bonus_token"):
        return _hex_token(game, a)
    return format_action(a)


def _bid(game: "Game", a: A.Bid) -> str:
    """A private's line in the private sale: the cheapest is bought at its price (18AL/18GA 3.1(a)),
    the others are bid on (3.1(b)), said after ``#`` (play-through s12: 'bid 20 LTR' was listed for
    a purchase, the book's "Buy the cheapest unsold Private Company for its par value")."""
    from pbm.e18xx.rounds.cite import see

    line = format_action(a)
    try:
        comp = game.company(a.company)
        cheapest = game._auction_style() == "waterfall" and game._may_purchase(comp.sym)
    except (GameError, AttributeError):
        return line
    if cheapest and a.price == comp.min_bid:
        return f"{line}   # buys it now at its price: the cheapest private is bought, not bid on" \
            f"{see(game.title, 'cheapest_private')}"
    return line


def _hex_token(game: "Game", a: A.Assign) -> str:
    """18AL's South & North Alabama token (Table III): ``assign SNAR G4   # +$10 for each of ABC's
    trains running to G4 Birmingham`` (play-through s11v finding 3: the move was never listed)."""
    from pbm.e18xx.lays import _place

    ab = game.company_ability(a.entity, "hex_bonus_token") or {}
    corp = game._owned_by_operator(a.entity) or "its company"
    try:
        where = _place(game, a.target)
    except (GameError, KeyError, TypeError, ValueError):
        where = a.target
    return (f"{format_action(a)}   # +{money(game, int(ab.get('bonus', 0)))} for each of {corp}'s trains "
            f"running to {where}")


def _discard(game: "Game", a: A.DiscardTrain) -> str:
    """``discard 3``: the train by its type or declared side (18GA 4.2.5(g) speaks of the "3
    Train"); read back, 'discard 3' discards the lowest-numbered of the company's 3 trains, which
    are alike (moves.discard_by_type; issue 29: no ids such as 3-1 in mails)."""
    tr = game.state.trains.get(a.train)
    return f"discard {game.train_label(a.train)}" if tr is not None else format_action(a)


def _price_range(game: "Game", a: A.BuyCompany) -> str:
    """``; any price from $40 to $120`` (18VA 4.2: 50% to 150% of face value; the list shows the
    ends the buyer can pay, and the range says any price between goes: play-through s11)."""
    if f"P:{a.entity}" in game.state.cash:  # a player buys: any price the two agree (18GA 3.2(c)(4), s11v F3)
        return f"; any price from {money(game, 1)} to {money(game, game.state.cash[f'P:{a.entity}'])}"
    lo, hi = game.company_price_range(a.company)
    if lo == hi:
        return ""
    m = game.title.money
    return f"; any price from {m(lo)} to {m(hi)}"


def _bank_pays(game: "Game", corp: str) -> int:
    """How many times its par the bank pays into ``corp``'s treasury when the president's certificate
    came with a private (title data: ability ``par_on_buy`` ``bank_pays``; 18VA's B&O, rule 4.1); 0 if not."""
    for comp in game.title.data.get("companies", []):
        for ab in comp.get("abilities", []):
            if ab.get("type") == "par_on_buy" and ab.get("corporation") == corp:
                return int(ab.get("bank_pays") or 0)
    return 0


def _token(game: "Game", a: A.PlaceToken) -> str:
    s = game.state
    with_ = f" with {a.entity}" if a.entity in s.companies else ""
    try:
        keys = game._city_ref(a.city)
    except GameError:
        keys = []
    if len(keys) != 1:
        return format_action(a)
    coord, idx = keys[0]
    name = game.title.hexes[coord].name or ""
    corp = a.entity if a.entity in s.corporations else game._or_operator()
    cost = None
    if a.entity in s.corporations and corp in s.corporations:
        try:
            cost = game.next_token_cost(corp)
        except (GameError, KeyError):
            cost = None
    free = _free_with(game, corp, a, coord) if a.entity in s.corporations else None
    if free:  # placed free with the private the company owns (18GA W&SR; s14: listed at $100)
        cost = None
    placed = s.map.placed.get(coord)
    single = placed is not None and len(placed.tile.cities()) == 1
    where = coord if single else f"{coord}-{idx}"
    notes = [x for x in (name, "" if single else f"city {idx} of the hex",
                         money(game, cost) if cost else "", f"free with {free}" if free else "") if x]
    return f"token {where}{with_}" + (f"   # {', '.join(notes)}" if notes else "")


def _free_with(game: "Game", corp: str, a: A.PlaceToken, coord: str) -> str | None:
    """The private whose free station (a ``token`` ability, 18GA W&SR) the engine places for ``a``."""
    try:
        if not game._is_special_token(corp, a):
            return None
    except (GameError, KeyError, AttributeError):
        return None
    for comp in game.state.companies.values():
        ab = game.company_ability(comp.sym, "token")
        if ab and comp.owner == f"C:{corp}" and not comp.closed and coord in ab.get("hexes", ()):
            return comp.sym
    return None


def _train(game: "Game", a: A.BuyTrain) -> str:
    s = game.state
    tr = s.trains.get(a.train)
    # by type (issue 29: never the id '4-2'): read back, the lowest-numbered of that type there
    label = (game.train_label(a.train) if tr.owner.startswith("C:") else tr.name) if tr is not None else a.train
    words = [f"buy train {label}"]
    if a.variant:
        words.append(f"as {a.variant}")
    seller = a.seller
    if seller is None and tr is not None and tr.owner.startswith("C:") and tr.owner[2:] != a.entity:
        seller = tr.owner[2:]
    pool = tr is not None and tr.owner == "discard" and not seller
    if seller:
        words.append(f"from {seller}")
    elif pool:
        words.append("from market")  # moves.train_by_type: the used train, not the next new one
    price = a.price if a.price is not None else (tr.price if tr is not None else None)
    if price is not None:
        words.append(f"for {price}")
    if a.exchange:
        words.append(f"trade {game.train_label(a.exchange) if a.exchange in s.trains else a.exchange}")
    if a.entity in s.companies:
        words.append(f"with {a.entity}")
    note = ""
    if tr is not None and not seller:
        from pbm.e18xx.render.words import word
        note = f"   # from the {word(game, 'train_pool' if pool else 'train_bank')}" \
            if tr.owner in ("depot", "discard") else ""
    return " ".join(words) + note


def _later_private_stations(game: "Game", acts: list) -> list:
    """At the start of a company's turn, the station its private places at the token step (18VA
    4.2 (3), 4.5.3: Potomac Yards' extra station "must be used in this phase"): its lines are listed
    with the lays, so the whole turn is written from this list (play-through s13w F4: listed only
    from the token step on)."""
    s = game.state
    if game.finished or s.round.kind != "operating" or any(isinstance(a, A.PlaceToken) for a in acts):
        return []
    corp = game.current_entity()
    if corp not in s.corporations or "route" in s.round.steps_done:
        return []
    out = []
    for sym, comp in s.companies.items():
        ab = game.company_ability(sym, "extra_token") or {}
        if comp.closed or comp.owner != f"C:{corp}" or not ab:
            continue
        for h in ab.get("hexes", []):
            cities = s.map.tile(h).cities()
            if cities and not s.map.hex_has_token(h, corp):
                tid = s.map.placed[h].tile_id
                out.append(A.PlaceToken(sym, f"{tid}-{cities[0]}" if tid else h))
    return out


def legal_lines(game: "Game", limit: int = 40) -> list[str]:
    """What the acting entity may do now, one move a line, in the order the turn goes; over
    ``limit`` lines, the longest kinds are grouped onto a comment line each."""
    if game.finished:
        return ["nothing: the game is over"]
    groups: dict[str, list[str]] = {}
    pars: list[tuple[str, int, str]] = []
    acts = game.legal_actions()
    if not game.finished and game.state.round.kind == "operating" and any(isinstance(a, A.Convert) for a in acts) \
            and not any(isinstance(a, A.LayTile) for a in acts):
        # 18VA's conversion step: the lays of the track step after it, so the whole turn is one mail
        # (a lay written now passes the conversion step first; play-through s10 finding 9)
        from pbm.e18xx.lays import lays_after_the_step
        acts = acts + lays_after_the_step(game)
    acts = acts + _later_private_stations(game, acts)
    # rotations that lay the same track are one line: 'lay 57 E4 1 (same as 4)' (issue 29 finding 9)
    merged = dict((id(a), others) for a, others in same_track(game, [a for a in acts if isinstance(a, A.LayTile)]))
    for a in acts:
        if isinstance(a, A.LayTile):  # what this rotation joins (pbm/e18xx/lays.py; the lays come by hex)
            if id(a) not in merged:
                continue
            text = f"{say(game, printed_lay(game, a))}{same_as(merged[id(a)])}   # " \
                f"{joins(game, a.hex, a.tile, a.rotation)}{lay_cost(game, a)}"
        else:
            text = say(game, a)
        if isinstance(a, A.Par):
            pars.append((a.corporation, a.price, text))
            continue
        lines = groups.setdefault(a.type, [])
        if text not in lines:
            lines.append(text)
    if pars:
        groups["par"] = list(dict.fromkeys(t for _c, _p, t in sorted(pars, key=lambda x: (x[0], x[1]))))
    kinds = sorted(groups, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER))
    total = sum(len(groups[k]) for k in kinds)
    grouped: set[str] = set()
    while total > limit:
        big = max((k for k in kinds if k not in grouped and len(groups[k]) > 3), key=lambda k: len(groups[k]),
                  default=None)
        if big is None:
            break
        n = len(groups[big])
        groups[big] = groups[big][:2] + _grouped(big, groups[big][2:])
        grouped.add(big)
        total += len(groups[big]) - n
    return [line for k in kinds for line in groups[k]]


def lay_cost(game: "Game", a: A.LayTile) -> str:
    """``; costs $60 (mountain)``: what the first tile on a hex with terrain costs (4.2.1(f)); empty
    when free (an upgrade, a plain hex, a private's free lay; play-through s11: the lay lists said
    nothing of Birmingham's $60)."""
    s = game.state
    hexdef = game.title.hexes.get(a.hex)
    placed = s.map.placed.get(a.hex)
    if hexdef is None or placed is None or placed.tile_id is not None or a.entity not in s.corporations:
        return ""
    cost = int(getattr(hexdef, "cost", 0) or 0)
    terrain = str(getattr(hexdef, "terrain", "") or "")
    return f"; costs {money(game, cost)}" + (f" ({terrain})" if terrain else "") if cost else ""


def _grouped(kind: str, lines: list[str]) -> list[str]:
    """``lines`` onto one comment line, except a lay made with a private's ability
    (``lay 7 F12 0 with MRC``): the comment line says only ``lay <tile> <hex> <rotation>``, so
    such a lay keeps its own line (play-through s10b finding 10: 18GA's MRC lays were grouped
    as "F12 7 (0 to G11+F10, ...)" and ``lay 7 F12 0`` as written was refused)."""
    if kind != "lay_tile":
        return [_group_line(kind, lines)]
    own = [ln for ln in lines if " with " in ln.split("#")[0]]
    rest = [ln for ln in lines if ln not in own]
    return own + ([_group_line(kind, rest)] if rest else [])


def _joined_hexes(comment: str) -> str:
    """The hexes a lay line's comment says its track joins, ``E2+E6``; a tile of several stops
    gives each stop's, separated by ``/`` (``C2+E4/D5+E2``). A stop's label may hold its value
    (``town 0 (D3-0, £10) to ...``), so parentheses are dropped before the list is split
    (play-through s10b finding 8: the comma in "(D3-0, £10)" cut the list)."""
    per = []
    tracks = re.search(r"(?:^|; )its tracks: (.*)$", comment)
    if tracks:  # a tile of track in pieces: each piece's two hexes (play-through s12v F5)
        return "/".join(t.strip().replace("-", "+") for t in tracks.group(1).split(","))
    for seg in comment.split("; "):
        m = re.search(r"(?:^|\s)to\s(.*)$", seg)
        if not m:
            continue  # 'city', 'town', or a stop with no track yet
        hexes = [part.split()[0] for part in re.sub(r"\s*\([^)]*\)", "", m.group(1)).split(",") if part.split()]
        if hexes:
            per.append("+".join(hexes))
    return "/".join(per)


def _group_line(kind: str, lines: list[str]) -> str:
    """Lines of one kind on one comment line: ``# and 21 more lays: E4 (57, 9), F5 (8)``."""
    if kind == "lay_tile":
        where: dict[str, dict[str, list[str]]] = {}
        for ln in lines:
            head = ln.split("#")[0]
            same = head.partition("(same as ")[2].partition(")")[0]
            w = head.partition("(")[0].split()
            ends = _joined_hexes(ln.partition("# ")[2])
            if len(w) >= 4:
                rot = w[3] + (f"={'='.join(same.split(' and '))}" if same else "")
                cost = re.search(r"; costs ([^;]+)$", ln)
                spot = f"{w[2]} [{cost.group(1)}]" if cost else w[2]  # 'G4 [$60 (mountain)]'
                where.setdefault(spot, {}).setdefault(w[1], []).append(rot + (f" to {ends}" if ends else ""))
        spots = "; ".join(f"{h} " + ", ".join(f"{t} ({', '.join(r)})" for t, r in tiles.items())
                          for h, tiles in where.items())
        priced = " [cost]" if any("[" in h for h in where) else ""
        return (f"# and {len(lines)} more tile lays, as hex{priced}: tile (rotation to the hexes its track joins) - "
                f"write lay <tile> <hex> <rotation> (2=5: the two rotations lay the same track; "
                f"'/' separates the stops of a tile with several, or its tracks that do not meet): {spots}")
    heads = [ln.split("#")[0].strip() for ln in lines]
    # par prices keep their ascending order (legal_lines sorts them by number; issue 29 finding 4)
    heads = list(dict.fromkeys(heads)) if kind == "par" else sorted(set(heads))
    return f"# and {len(lines)} more: " + "; ".join(heads)

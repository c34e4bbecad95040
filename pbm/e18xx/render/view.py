"""Plain-text views of a game for the terminal and turn reports."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbm.e18xx.events import end_reason_words, joint_home_waits, stop_label
from pbm.e18xx.pbem.moves import format_action

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.game import Game



def train_ids(g: "Game", trains: list[str]) -> str:
    """A company's trains as a run names them: each by its id (``2-2``, which starts with its
    type), a freight side with its id after it (``1G (2-1)``) (issue 29, play-through item 16)."""
    return ", ".join(t if g.train_label(t) == g.state.trains[t].name else f"{g.train_label(t)} ({t})"
                     for t in trains)

def train_list(g: "Game", trains: list[str]) -> str:
    """A company's trains as the mail and the PDF list them: by type, as a player writes them
    (``2, 2, 3``; a freight side by its name: ``1G``; an obsolete one marked), never the engine's
    ids (``2-0``): a run, a sale or a discard names the type and trains of one type are alike
    (issue 29)."""
    return ", ".join(g.train_label(t) + (" (obsolete)" if g.state.trains[t].obsolete else "") for t in trains)


def trains_for_sale(g: "Game", depot: list[str]) -> str:
    """``Trains for sale: 3 ($180) from the Initial Offering; 2 ($100) from the Open Market``: what the
    bank offers, in the title's words (18GA 1.4; issue 29: 'Depot offers')."""
    from pbm.e18xx.render.words import word

    s, m = g.state, g.title.money
    parts = [f"{s.trains[t].name} ({m(s.trains[t].price)}) from the "
             f"{word(g, 'train_pool' if s.trains[t].owner == 'discard' else 'train_bank')}" for t in depot]
    return "Trains for sale: " + ("; ".join(parts) or "nothing")


def _tokens_left(g: "Game", c: Any) -> str:
    """`` (2 left: $40, $100)``: the station tokens still on a floated company's charter and what each
    costs, in order (18AL 4.2.2; play-through s11: the mails never said how many a company had)."""
    if not c.floated or c.closed:
        return ""
    costs = [cost for where, cost in zip(c.tokens, c.token_costs) if where is None]
    if not costs:
        return " (none left)"
    return f" ({len(costs)} left: {', '.join(g.title.money(x) for x in costs)})"


def describe(g: "Game", *, compact: bool = True, name: str = "") -> str:
    """The state as text: the round, players, companies, chart, map, depot and the rest of the public
    state (:mod:`pbm.e18xx.render.public`: one line a topic when ``compact``, as the mails show it);
    ``name``: the game's name, on its first line (a mail's state never reads '18VA - ' with no game)."""
    s = g.state
    out: list[str] = []
    from pbm.e18xx.render.words import phase_words, round_words, word

    head = f"{g.title.name} game {name}" if name else g.title.name
    # the book's words (title data ``words``; issue 29): 18GA's Initial Offering, 1848's Starting Phase
    out.append(f"{head} - {round_words(g)} - {phase_words(g)} (train limit {g.train_limit_text()})")
    if s.finished:
        out.append(f"Game over: {end_reason_words(g)}")
    else:
        cur = g.current_entity()
        out.append(f"To act: {cur}" + (f" ({g.controller(cur)})" if cur and g.controller(cur) != cur else ""))
    m = g.title.money  # the title's currency (1848: £)
    out.append(f"Bank: {m(s.cash['bank'])}" + (" (broken)" if s.bank_broken else ""))
    out.append("")
    out.append("Players (priority order):")
    for p in s.players:
        shares = []
        for c in s.corporations:
            pct = g.percent_of(p.key, c)
            if pct:
                shares.append(f"{c} {pct}%" + ("*" if g.president(c) == p.name else ""))
        privs = [c.sym for c in s.companies.values() if c.owner == p.key and not c.closed]
        out.append(f"  {p.name:<12} {m(s.cash[p.key]):>6}  certs {g.num_certs(p.name)}/{g.cert_limit(p.name)}  "
                   f"worth {m(g.player_value(p.name)):>6}  {', '.join(shares + privs) or '-'}")
    out.append("")
    out.append("Corporations:")
    for c in s.corporations.values():
        if not c.ipoed:
            second = g.title.corporation(c.sym).get("second_home")  # 1848 5.3: COM's Sydney and Adelaide
            out.append(f"  {c.sym:<4} not started (home {c.home}{f' and {second}' if second else ''})")
            continue
        if lender_line := _lender_line(g, c):
            out.append(lender_line)
            continue
        tokens = [stop_label(g, h, i) for h, i in (t for t in c.tokens if t)]  # "D4-1 Atlanta" (issue 29)
        tokens += [f"{stop_label(g, h)} (extra, beside the city)"  # a private's station (18VA P3: play-through s11)
                   for (h, _i), held in sorted(s.map.extra_tokens.items()) if c.sym in held]
        privs = [x.sym for x in s.companies.values() if x.owner == c.key and not x.closed]
        out.append(f"  {c.sym:<4} price {m(g.share_price(c.sym)):>4} par {m(g._par_price(c.sym)):>4}  cash {m(s.cash[c.key]):>6}  "
                   f"{'floated' if c.floated else 'not floated'}  president {g.president(c.sym) or '-'}  "
                   f"{word(g, 'ipo')} {g.percent_of(f'ipo:{c.sym}', c.sym)}% "
                   f"{word(g, 'pool')} {g.percent_of('pool', c.sym)}%  "
                   f"trains {train_list(g, c.trains) or '-'}"
                   + (f" (limit {g.train_limit(c.sym)})" if c.floated and not c.closed else "") + f"  stations {', '.join(tokens) or '-'}"
                   + _tokens_left(g, c)
                   + (f"  privates {' '.join(privs)}" if privs else "")
                   + (f"  {wait}" if (wait := joint_home_waits(g, c.sym, named=False)) else ""))
    out.append("")
    # rows and columns counted from 1, as the events' price moves count them ("market row 3 column 4")
    out.append("Stock chart (price (market row, column, from 1): companies):")
    for (row, col), corps in sorted(s.market.items()):
        if corps:
            out.append(f"  {m(g.title.market[row][col].price):>4} (row {row + 1} column {col + 1}): "  # type: ignore[union-attr]
                       f"{', '.join(corps)}")
    out.append("")
    out.append("Map (laid tiles and stations):")
    for coord in sorted(s.map.placed, key=lambda h: (h[0], int(h[1:]))):
        pl = s.map.placed[coord]
        # a neutral token ("N", 18GA's Montgomery and Tallahassee) said in words (play-through s12: "N" was
        # explained nowhere)
        toks = ["N (neutral token: no station may go there; trains run through)" if t == "N" else f"{t}"
                for i in pl.tile.cities() for t in s.map.tokens.get((coord, i), []) if t]
        if pl.tile_id or toks:
            name = g.title.hexes[coord].name or ""
            from pbm.e18xx.pbem.moves import printed_tile_name  # 18VA's 170ric shows as 170 (s12)
            shown = printed_tile_name(g, coord, pl.tile.name) if pl.tile_id else "printed"
            out.append(f"  {coord:<4} {shown:<8} rot {pl.rotation}  "
                       f"{name:<14} {' '.join(toks)}")
    depot = g._depot_trains()
    out.append("")
    out.append(trains_for_sale(g, depot))
    from pbm.e18xx.render.public import public_lines

    out += [""] + public_lines(g, compact=compact)  # bids, prices, loans, trains, privates... (issue 29, item 3)
    return "\n".join(out)


def list_moves(g: "Game") -> str:
    acts = g.legal_actions()
    if not acts:
        return "No moves: the game is over." if g.finished else "No moves."
    cur = g.current_entity()
    lines = [f"{cur} ({g.controller(cur) if cur else '-'}) may:"]
    seen = set()
    for a in acts:
        text = format_action(a)
        if a.entity != cur:
            text = f"[{a.entity}] {text}"
        if text not in seen:
            seen.add(text)
            lines.append(f"  {text}")
    return "\n".join(lines)


def state_dict(g: "Game") -> dict:
    """The state as plain JSON-able data (``pbm 18xx show --json``): players' cash,
    certificates and privates; companies' cash, trains, stations and share prices;
    the tiles on the map; the round and who acts.  Keys are sorted so that two
    states compare with ``==``."""
    s = g.state
    cur = g.current_entity()
    players = {}
    for p in s.players:
        shares = {c: g.percent_of(p.key, c) for c in s.corporations if g.percent_of(p.key, c)}
        players[p.name] = {
            "cash": s.cash[p.key], "shares": shares,
            "presidencies": sorted(c for c in s.corporations if g.president(c) == p.name),
            "privates": sorted(c.sym for c in s.companies.values() if c.owner == p.key and not c.closed),
            "certificates": g.num_certs(p.name), "value": g.player_value(p.name), "bankrupt": p.bankrupt,
        }
    corps = {}
    for c in s.corporations.values():
        corps[c.sym] = {
            "started": c.ipoed, "floated": c.floated, "closed": c.closed,
            "cash": s.cash[c.key], "share_price": g.share_price(c.sym) if c.price else None,
            "market_cell": list(c.price) if c.price else None,
            "par_price": g._par_price(c.sym) if c.par else None,
            "president": g.president(c.sym),
            "ipo_percent": g.percent_of(f"ipo:{c.sym}", c.sym), "market_percent": g.percent_of("pool", c.sym),
            "trains": [s.trains[t].name for t in c.trains],
            "stations": [f"{tok[0]}-{tok[1]}" for tok in c.tokens if tok],
            "privates": sorted(x.sym for x in s.companies.values() if x.owner == c.key and not x.closed),
        }
    companies = {c.sym: {"owner": c.owner, "closed": c.closed, "value": c.value, "revenue": c.revenue}
                 for c in s.companies.values()}
    tiles = {coord: {"tile": pl.tile_id, "rotation": pl.rotation}
             for coord, pl in sorted(s.map.placed.items()) if pl.tile_id}
    depot: dict[str, int] = {}
    for t in s.trains.values():
        if t.owner == "depot":
            depot[t.name] = depot.get(t.name, 0) + 1
    data = {
        "title": g.title.name, "currency": g.title.money(0).replace("0", "", 1), "actions": len(g.actions),
        "round": {"kind": s.round.kind, "turn": s.turn, "operating_round": s.round.num if s.round.kind == "operating"
                  else None},
        "phase": g.phase.name, "to_act": cur, "acting_players": g.acting_players(),
        "finished": s.finished, "end_reason": s.end_reason or None,
        "bank": s.cash["bank"], "players": players, "corporations": corps, "privates": companies,
        "tiles": tiles, "depot": depot, "result": g.result() if s.finished else None,
    }
    extra = g.hooks.describe()
    if extra:
        data["title_state"] = extra
    return data


def _lender_line(g: "Game", c) -> str:
    """The lender's line (1848's Bank of England): no director, no float, its unsold shares on its
    own charter (12.4.2), the loans it has lent (5.4.1); not a railway's "not floated ... Bank
    Pool 90%" (play-through s12)."""
    bank = g.title.data.get("bank_corporation") or {}
    if bank.get("sym") != c.sym:
        return ""
    m = g.title.money
    total = int(bank.get("loans", 0))
    return (f"  {c.sym:<4} {bank.get('name') or c.sym}: share price {m(g.share_price(c.sym))}  cash {m(g.state.cash[c.key])}  "
            f"on its charter {g.percent_of('pool', c.sym) + g.percent_of(f'ipo:{c.sym}', c.sym)}%  "
            f"loans lent {c.loans} of {total}")

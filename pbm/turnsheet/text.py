"""The plain-text turnsheet (§10), fillable in an email body, and the echo of orders.

The text form has the same lines, in the same order, as the PDF form; the
limits from :mod:`pbm.turnsheet.facts` are printed as comments (``#``) so a
player sees what is allowed while typing.  :func:`format_orders` writes
orders back in the same grammar: the receipt's echo is itself a valid sheet.
"""

from __future__ import annotations

from pbm.cr.orders import MAX_MESSAGE, MAX_STOCK_ORDERS, Orders
from pbm.turnsheet.facts import MAX_CAPITAL_PER_MILE, MAX_DIVIDEND, PRODIGAL_MINIMUM, RailroadBlock, SheetFacts

WIDTH = 34  # column where the comments start


def money(n: int | float) -> str:
    return f"${n:,.0f}"


def _line(key: str, value: str = "", comment: str = "") -> str:
    text = f"{key}: {value}".rstrip() if value else f"{key}:"
    if comment:
        text = text.ljust(WIDTH) + " # " + comment
    return text


def _one_line(text: str) -> str:
    """Player-written text on a comment line: one line, no control characters."""
    return " ".join(str(text).split())


def personal_lines(f: SheetFacts) -> list[tuple[str, str]]:
    """(key, comment) of the personal block, in sheet order — shared with the PDF form."""
    rows: list[tuple[str, str]] = []
    rows.append(("BORROW", f"0 to {money(f.credit_available)} (available credit, §10.1A1)"))
    rows.append(("REPAY", f"0 to {money(min(f.loan, f.cash))} (loan {money(f.loan)}, §10.1A2)"))
    for pc in f.owned_pcs:
        into = ", ".join(pc.merge_into) or "none"
        rows.append((f"PC {pc.code}", f"SELL {money(pc.min_price)}-{money(pc.max_price)} | MERGE {into} | "
                                      f"INCORPORATE [PRESIDENT] (§10.1B)"))
    if f.bids_allowed:
        for pc in f.pcs_for_sale:
            rows.append((f"BID {pc.code}", f"{pc.miles} mi, asking {money(pc.asking_price)} ({pc.seller}); "
                                           f"at least {money(pc.min_bid)}"))
    for n in range(1, MAX_STOCK_ORDERS + 1):
        rows.append((f"STOCK {n}", "BUY|SELL|SHORT <shares> <railroad>" if n == 1 else ""))
    rows.append(("RR1", f"now {f.slots[0] or '-'}; blank = unchanged (§10.1D)"))
    rows.append(("RR2", f"now {f.slots[1] or '-'}; blank = unchanged (§10.1D)"))
    rows.append(("RESIGN", "railroads you resign from (§10.1D)"))
    if f.may_merge:
        pairs = ", ".join(f"{a} INTO {b}" for a, b in f.merge_pairs)
        rows.append(("MERGE", f"you may: {pairs} (§10.1E)"))
    else:
        rows.append(("MERGE", "you may not merge railroads this turn (§10.1E)"))
    rows.append(("SPY PLAYER", "a player number 1-15 (§10.1F)"))
    rows.append(("SPY RAILROAD", "a railroad code (§10.1F)"))
    rows.append(("MESSAGE", ""))
    rows.append(("PRODIGAL", f"0 or at least {money(PRODIGAL_MINIMUM)} (§1.2)"))
    rows.append(("CHARACTER", ""))
    return rows


def _repay_president(b: RailroadBlock) -> str:
    """§10.2A2: the railroad repays its President out of its cash — a limit, never negative."""
    if b.max_repay_president > 0:
        return f"0 to {money(b.max_repay_president)} (§10.2A2)"
    if b.president_debt <= 0:
        return f"none: the {b.code} owes you nothing (§10.2A2)"
    return f"none: the {b.code} has no cash to repay the {money(b.president_debt)} it owes you (§10.2A2)"


def railroad_lines(b: RailroadBlock) -> list[tuple[str, str]]:
    c = b.code
    build = (f"RoW {b.own_row}: {money(b.build_min)} to {money(b.build_max)} per mile (§10.2E)"
             if b.own_row else "owns no RoW to build")
    rows = [
        (f"{c} LEND", f"0 to {money(b.max_lend)} (§10.2A1)"),
        (f"{c} REPAY PRESIDENT", _repay_president(b)),
        (f"{c} REPAY DEBT", f"0 to {money(b.max_repay_debt)} (debt {money(b.bank_debt)}, §10.2B)"),
        (f"{c} TREASURY TO PRESIDENT", f"0 to {b.treasury_shares} shares at 50 % (§10.2C2)"),
        (f"{c} TREASURY TO MARKET", f"0 to {b.treasury_shares} shares (§10.2C3)"),
        (f"{c} CAPITAL", f"$ per mile, 1 to {MAX_CAPITAL_PER_MILE}; about 10 keeps efficiency (§10.2D)"),
        (f"{c} BUILD", build),
        (f"{c} ABANDON", "YES to abandon the RoW (§10.2E3)" if b.own_row else "owns no RoW"),
        (f"{c} DOUBLE TRACK", f"lines: {', '.join(b.lines) or 'none'} (§4.15)"),
        (f"{c} RATE WAR", "<railroad> <percent> (§4.16)"
         + (f"; parallel: {', '.join(b.rate_war_targets)}" if b.rate_war_targets else "")),
        (f"{c} LOCOMOTIVE", f"now engine {b.locomotive}; " + (", ".join(
            f"{n} for {money(cost)}" for n, cost in sorted(b.locomotives.items())) or "no upgrade now") + " (§4.17)"),
        (f"{c} TECHNOLOGY", f"has {''.join(b.technologies) or 'none'}; " + (", ".join(
            f"{t} for {money(cost)}" for t, cost in sorted(b.technology_options.items())) or "none to buy now")
         + " (§4.18)"),
        (f"{c} POLITICAL", f"total $; at least {money(b.political_min)}, multiples count (§10.2F)"),
        (f"{c} ROW 1", "first choice (§10.2G)"),
        (f"{c} ROW 2", "alternate (§10.2G)"),
        (f"{c} DIVIDEND", f"$ per share, 0 to {MAX_DIVIDEND}; blank = unchanged (now {money(b.dividend)}, §10.2H)"),
    ]
    return rows


def render_text(f: SheetFacts) -> str:
    """The whole plain-text sheet for one player and turn."""
    out: list[str] = []
    out.append("# CONTINENTAL RAILS II — TURNSHEET (fill in after the colons, send back by email)")
    out.append("# Blank = no order (control and dividends: unchanged). Case does not matter.")
    out.append("# Lines starting with # are comments. Keep GAME, PLAYER, TURN and CODE as printed;")
    out.append("# write your secret after SECRET. Your last sheet before the deadline counts.")
    out.append("")
    out.append(_line("GAME", f.game))
    out.append(_line("PLAYER", str(f.player), _one_line(f.character)))
    out.append(_line("TURN", str(f.turn), f"{f.year}, climate {f.climate}"))
    out.append(_line("CODE", f.code))
    out.append(_line("SECRET", "", "your secret, as given at the start of the game"))
    out.append("")
    out.append(f"## 10.1 PERSONAL ACTIONS — cash {money(f.cash)}, loan {money(f.loan)}, "
               f"available credit {money(f.credit_available)}")
    section = {"BORROW": "## A) Bank loan", "PC ": "## B) Private companies you own (ONE action each)",
               "BID ": f"## B) Bid for PCs for sale (you may bid for {f.bids_allowed}; "
                       "add a sequence 1 or 2 after the amount)",
               "STOCK 1": "## C) Stock market: up to 6 orders, STOCK 1 is done first",
               "RR1": "## D) Control railroads", "MERGE": "## E) Merge railroads",
               "SPY PLAYER": "## F) Spy", "MESSAGE": f"## G) Message to all players, at most {MAX_MESSAGE} "
                                                   "characters (the whole line counts, # too)",
               "PRODIGAL": "## Rail Prodigal spending", "CHARACTER": "## Character name (§3.2), if you choose one now"}
    done: set[str] = set()
    for key, comment in personal_lines(f):
        for prefix, title in section.items():
            if key.startswith(prefix) and prefix not in done:
                done.add(prefix)
                out.append(title)
                if prefix == "STOCK 1":
                    for s in f.stock:
                        out.append(f"#   {s.number:>2} {s.code:<5} {_one_line(s.name)[:26]:<26} "
                                   f"${s.price:>6.2f}  own {s.owned:>4}  max bid {s.max_bid:>4}  "
                                   f"max short {s.max_short:>4}")
        out.append(_line(key, "", comment) if key not in ("MESSAGE", "CHARACTER") else _line(key))
    if "BID " not in done:
        out.append("## B) You own two PCs: no bids this turn" if not f.bids_allowed else "## B) No PC is for sale")
    for b in f.railroads:
        out.append("")
        out.append(f"## 10.2 RAILROAD {b.code} (#{b.number}) {_one_line(b.name)} — cash {money(b.cash)}, "
                   f"{b.miles} miles, efficiency {b.efficiency}")
        out.append(f"# valid RoWs: {', '.join(b.valid_rows) or 'none'}")
        for r in b.row_choices:  # §10.2G2: where each runs, so a bid is not blind
            out.append(f"#   {r.code:<5} {_one_line(r.ends())}, {r.miles} miles")
        for key, comment in railroad_lines(b):
            out.append(_line(key, "", comment))
    out.append("")
    out.append("END")
    return "\n".join(out) + "\n"


def format_orders(orders: Orders) -> list[str]:
    """The orders as sheet lines (only the ones given): the receipt's echo."""
    o = orders
    out: list[str] = []
    if o.borrow:
        out.append(f"BORROW: {o.borrow}")
    if o.repay:
        out.append(f"REPAY: {o.repay}")
    for a in o.pc_actions:
        if a.action == "sell":
            out.append(f"PC {a.pc}: SELL {a.price}")
        elif a.action == "merge":
            out.append(f"PC {a.pc}: MERGE {a.railroad}")
        else:
            out.append(f"PC {a.pc}: INCORPORATE" + (" PRESIDENT" if a.president else ""))
    for b in o.pc_bids:
        out.append(f"BID {b.pc}: {b.amount} {b.sequence}")
    for s in o.stock:
        out.append(f"STOCK {s.priority}: {s.action.upper()} {s.shares} {s.railroad}")
    if o.control:
        for i, c in enumerate(o.control):
            if c:
                out.append(f"RR{i + 1}: {c}")
    if o.resign:
        out.append(f"RESIGN: {' '.join(o.resign)}")
    if o.merge:
        out.append(f"MERGE: {o.merge[0]} INTO {o.merge[1]}")
    if o.spy_player is not None:
        out.append(f"SPY PLAYER: {o.spy_player}")
    if o.spy_railroad:
        out.append(f"SPY RAILROAD: {o.spy_railroad}")
    if o.message:
        out.append(f"MESSAGE: {_one_line(o.message)}")
    if o.prodigal:
        out.append(f"PRODIGAL: {o.prodigal}")
    if o.character:
        out.append(f"CHARACTER: {_one_line(o.character)}")
    for r in o.railroads:
        c = r.railroad
        for attr, name in (("lend", "LEND"), ("repay_president", "REPAY PRESIDENT"), ("repay_debt", "REPAY DEBT"),
                           ("treasury_to_president", "TREASURY TO PRESIDENT"),
                           ("treasury_to_market", "TREASURY TO MARKET"), ("capital_per_mile", "CAPITAL")):
            if getattr(r, attr):
                out.append(f"{c} {name}: {getattr(r, attr)}")
        if r.build_per_mile is not None:
            out.append(f"{c} BUILD: {r.build_per_mile}")
        if r.abandon:
            out.append(f"{c} ABANDON: YES")
        if r.double_track:
            out.append(f"{c} DOUBLE TRACK: {' '.join(r.double_track)}")
        if r.rate_wars:
            out.append(f"{c} RATE WAR: " + ", ".join(f"{w.target} {w.percent}" for w in r.rate_wars))
        if r.locomotive is not None:
            out.append(f"{c} LOCOMOTIVE: {r.locomotive}")
        if r.technology:
            out.append(f"{c} TECHNOLOGY: {r.technology}")
        if r.political:
            out.append(f"{c} POLITICAL: {r.political}")
        if r.row_first:
            out.append(f"{c} ROW 1: {r.row_first}")
        if r.row_alternate:
            out.append(f"{c} ROW 2: {r.row_alternate}")
        if r.dividend is not None:
            out.append(f"{c} DIVIDEND: {r.dividend}")
    return out

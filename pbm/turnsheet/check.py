"""Checking a sheet's orders against the start-of-turn state (§10).

The engine's validator (``pbm.cr.validate.validate``, owned by the cr-orders
part) is the authority: when it is installed it is used.  Until then
:func:`fallback_validate` checks the limits printed on the sheet
(:mod:`pbm.turnsheet.facts`), so the receipt already says what is allowed.
Either way each problem gets the sheet line it came from.
"""

from __future__ import annotations

import copy
import importlib

from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, Problem
from pbm.models import Game, Player
from pbm.turnsheet.facts import (
    MAX_CAPITAL_PER_MILE,
    MAX_DIVIDEND,
    PRODIGAL_MINIMUM,
    SheetFacts,
    railroad_numbers,
    sheet_facts,
)
from pbm.turnsheet.parse import ParsedSheet


def _engine_validator():
    try:
        module = importlib.import_module("pbm.cr.validate")
    except ModuleNotFoundError as exc:
        if exc.name == "pbm.cr.validate":
            return None
        raise
    return getattr(module, "validate", None)


def resolve_numbers(session: Session, game: Game, orders: Orders) -> list[Problem]:
    """§10: railroad numbers may stand for codes; turn them into codes everywhere."""
    numbers = railroad_numbers(session, game)
    problems: list[Problem] = []

    def code(value: str | None, where: str) -> str | None:
        if value is not None and value.isascii() and value.isdigit():
            if value in numbers:
                return numbers[value]
            problems.append(Problem(where=where, message=f"there is no railroad number {value}",
                                    allowed="a railroad code or the number printed beside it"))
        return value

    for s in orders.stock:
        s.railroad = code(s.railroad, f"stock {s.priority}") or s.railroad
    for r in orders.railroads:
        r.railroad = code(r.railroad, f"{r.railroad} orders") or r.railroad
        for w in r.rate_wars:
            w.target = code(w.target, f"{r.railroad} rate war") or w.target
    if orders.control:
        orders.control = [code(c, "control") for c in orders.control]
    orders.resign = [code(c, "resign") or c for c in orders.resign]
    if orders.merge:
        orders.merge = (code(orders.merge[0], "merge") or "", code(orders.merge[1], "merge") or "")
    orders.spy_railroad = code(orders.spy_railroad, "spy railroad")
    for a in orders.pc_actions:
        a.railroad = code(a.railroad, f"PC {a.pc}")
    # two blocks for one railroad (by code and by number): the later-named fields win
    merged: dict[str, object] = {}
    for r in orders.railroads:
        merged.setdefault(r.railroad, r)
    orders.railroads = sorted(merged.values(), key=lambda r: r.railroad)  # type: ignore[arg-type, return-value]
    return problems


def check(session: Session, game: Game, player: Player, orders: Orders,
          parsed: ParsedSheet | None = None) -> tuple[Orders, list[Problem]]:
    """The orders that will be resolved and every problem, each with its sheet line."""
    orders = copy.deepcopy(orders)
    problems = resolve_numbers(session, game, orders)
    validator = _engine_validator()
    if validator is not None:
        orders, found = validator(session, game, player, orders)
    else:
        orders, found = fallback_validate(sheet_facts(session, game, player), orders)
    problems.extend(found)
    if parsed is not None:
        for p in problems:
            if p.line is None and parsed.source == "text":
                p.line = parsed.line_of(p.where)
    return orders, problems


def fallback_validate(facts: SheetFacts, orders: Orders) -> tuple[Orders, list[Problem]]:
    """The sheet's own limits (§10.1, §10.2); orders outside them are refused or cut."""
    o = copy.deepcopy(orders)
    problems: list[Problem] = []

    def bad(where: str, message: str, allowed: str = "", adjusted: bool = False) -> None:
        problems.append(Problem(where=where, message=message, allowed=allowed, adjusted=adjusted))

    # §10.1A
    if o.borrow > facts.credit_available:
        bad("borrow", f"${o.borrow:,} is more than your available credit", f"$0 to ${facts.credit_available:,}")
        o.borrow = 0
    if o.repay > facts.loan:
        bad("repay", f"${o.repay:,} is more than your loan", f"$0 to ${facts.loan:,}", adjusted=True)
        o.repay = facts.loan
    if o.repay > facts.cash:
        bad("repay", f"${o.repay:,} is more than your cash", f"$0 to ${facts.cash:,}", adjusted=True)
        o.repay = facts.cash
    # §10.1B PCs you own
    owned = {pc.code: pc for pc in facts.owned_pcs}
    kept = []
    for a in o.pc_actions:
        pc = owned.get(a.pc)
        where = f"PC {a.pc}"
        if pc is None:
            bad(where, "you do not own this PC", ", ".join(sorted(owned)) or "you own no PC")
            continue
        if a.action == "sell" and not (pc.min_price <= (a.price or 0) <= pc.max_price):
            bad(where, f"asking price ${a.price or 0:,} is out of range", f"${pc.min_price:,} to ${pc.max_price:,}")
            continue
        if a.action == "merge" and a.railroad not in pc.merge_into:
            bad(where, f"{a.pc} cannot merge into {a.railroad}", ", ".join(pc.merge_into) or "no railroad")
            continue
        kept.append(a)
    o.pc_actions = kept
    # §10.1B bids
    for_sale = {pc.code: pc for pc in facts.pcs_for_sale}
    bids = []
    for b in o.pc_bids:
        where = f"bid {b.pc}"
        pc = for_sale.get(b.pc)
        if pc is None:
            bad(where, f"{b.pc} is not for sale at the start of this turn", ", ".join(sorted(for_sale)) or "none")
        elif b.amount < pc.min_bid:
            bad(where, f"${b.amount:,} is below $1 per mile", f"at least ${pc.min_bid:,} (asking ${pc.asking_price:,})")
        elif len(bids) >= facts.bids_allowed:
            bad(where, "too many bids", f"{facts.bids_allowed} bid(s) while you own {len(facts.owned_pcs)} PC(s)")
        else:
            bids.append(b)
    total = sum(b.amount for b in bids)
    if total > facts.cash:  # §10.1B4: reduced in reverse sequence
        excess = total - facts.cash
        for b in sorted(bids, key=lambda b: -b.sequence):
            cut = min(excess, b.amount)
            if cut:
                b.amount -= cut
                excess -= cut
                bad(f"bid {b.pc}", f"bids exceed your cash ${facts.cash:,}; this bid cut to ${b.amount:,}",
                    f"bids totalling at most ${facts.cash:,}", adjusted=True)
        bids = [b for b in bids if b.amount > 0]
    o.pc_bids = bids
    # §10.1C stock
    stock = []
    for s in o.stock:
        where = f"stock {s.priority}"
        line = facts.stock_line(s.railroad)
        if line is None:
            bad(where, f"{s.railroad} is not an active railroad", ", ".join(x.code for x in facts.stock))
            continue
        limit = {"buy": line.max_bid, "sell": line.owned, "short": line.max_short}[s.action]
        if s.shares > limit:
            if limit == 0:
                bad(where, f"you may not {s.action} {s.railroad} shares now", "0 shares")
                continue
            bad(where, f"{s.shares} shares is more than allowed; lowered to {limit} (§6.1A)",
                f"at most {limit} shares", adjusted=True)
            s.shares = limit
        stock.append(s)
    o.stock = stock
    # §10.1D control
    active = {x.code for x in facts.stock}
    incorporating = {a.pc for a in o.pc_actions if a.action == "incorporate"}
    if o.control:
        for i, c in enumerate(o.control):
            if c is not None and c not in active and c not in incorporating:
                bad(f"control RR{i + 1}", f"{c} is not an active railroad or a PC you incorporate",
                    "an active railroad's code (§10.1D)")
                o.control[i] = None
        if not any(o.control):
            o.control = None
    presided = {b.code for b in facts.railroads}
    for c in list(o.resign):
        if c not in presided:
            bad("resign", f"you are not president of {c}", ", ".join(sorted(presided)) or "you preside none")
            o.resign.remove(c)
    # §10.1E merge
    if o.merge is not None and tuple(o.merge) not in facts.merge_pairs:
        bad("merge", f"you may not merge {o.merge[0]} into {o.merge[1]}",
            ", ".join(f"{a} INTO {b}" for a, b in facts.merge_pairs) or "no merger this turn (§10.1E)")
        o.merge = None
    # §10.1F spy
    if o.spy_railroad is not None and o.spy_railroad not in active:
        bad("spy railroad", f"{o.spy_railroad} is not an active railroad", ", ".join(sorted(active)))
        o.spy_railroad = None
    # §1.2 prodigal
    if 0 < o.prodigal < PRODIGAL_MINIMUM:
        bad("prodigal", f"${o.prodigal:,} buys no Prodigal points", f"$0 or at least ${PRODIGAL_MINIMUM:,} (§1.2)")
        o.prodigal = 0
    # §10.2 railroads
    blocks = []
    for r in o.railroads:
        block = facts.block(r.railroad)
        if block is None:
            bad(f"{r.railroad} orders", f"you are not president of {r.railroad}",
                ", ".join(sorted(presided)) or "you preside no railroad")
            continue
        c = r.railroad

        def limit(attr: str, name: str, high: int, rule: str) -> None:
            value = getattr(r, attr)
            if value > high:
                bad(f"{c} {name}", f"{value:,} is more than allowed ({rule})", f"0 to {high:,}")
                setattr(r, attr, 0)

        limit("lend", "lend", block.max_lend, "§10.2A1")
        limit("repay_president", "repay president", block.max_repay_president, "§10.2A2")
        limit("repay_debt", "repay debt", block.max_repay_debt, "§10.2B")
        limit("treasury_to_president", "treasury to president", block.treasury_shares, "§10.2C2")
        limit("treasury_to_market", "treasury to market", block.treasury_shares, "§10.2C3")
        if r.treasury_to_president + r.treasury_to_market > block.treasury_shares:
            bad(f"{c} treasury to market", "more treasury shares than the railroad holds; market order cut",
                f"{block.treasury_shares} shares in all", adjusted=True)
            r.treasury_to_market = block.treasury_shares - r.treasury_to_president
        limit("capital_per_mile", "capital", MAX_CAPITAL_PER_MILE, "§10.2D1")
        if r.build_per_mile is not None or r.abandon:
            if block.own_row is None:
                bad(f"{c} build", f"{c} owns no RoW to build or abandon", "blank (§10.2E)")
                r.build_per_mile, r.abandon = None, False
            elif r.abandon and r.build_per_mile:
                bad(f"{c} abandon", "both build and abandon given; abandon ignored", "one of them (§10.2E3)")
                r.abandon = False
            elif r.build_per_mile is not None and not block.build_min <= r.build_per_mile <= block.build_max:
                bad(f"{c} build", f"${r.build_per_mile:,} per mile is out of range",
                    f"${block.build_min:,} to ${block.build_max:,} per mile (§4.6)")
                r.build_per_mile = None
        if r.political and r.political < block.political_min:
            bad(f"{c} political", f"${r.political:,} is below the minimum", f"at least ${block.political_min:,} (§10.2F2)")
            r.political = 0
        for attr, name in (("row_first", "row 1"), ("row_alternate", "row 2")):
            value = getattr(r, attr)
            if value is not None and value not in block.valid_rows:
                # §10.2G3: a write-in RoW is allowed; it fails if it does not become available
                bad(f"{c} {name}", f"{value} is not among the valid RoWs now; kept as a write-in (§10.2G3)",
                    ", ".join(block.valid_rows) or "none listed", adjusted=True)
        if r.dividend is not None and not 0 <= r.dividend <= MAX_DIVIDEND:
            bad(f"{c} dividend", f"${r.dividend} per share is above the maximum", f"$0 to ${MAX_DIVIDEND} (§10.2H1)")
            r.dividend = None
        bad_lines = [x for x in r.double_track if x not in block.lines]
        if bad_lines:
            bad(f"{c} double track", f"{', '.join(bad_lines)} is not a line of {c}", ", ".join(block.lines))
            r.double_track = [x for x in r.double_track if x in block.lines]
        if r.locomotive is not None and r.locomotive <= block.locomotive:
            bad(f"{c} locomotive", f"engine {r.locomotive} is no upgrade", f"an engine above {block.locomotive} (§4.17)")
            r.locomotive = None
        if r.technology is not None and r.technology in block.technologies:
            bad(f"{c} technology", f"{c} already has technology {r.technology}", "a technology it lacks (§4.18)")
            r.technology = None
        blocks.append(r)
    o.railroads = blocks
    return o, problems

"""What a player may order this turn: the limits printed on the turnsheet (§10).

§10: "The Turnsheets will usually indicate the maximum and minimum amounts for
any action."  Every figure comes from ``pbm.cr.queries`` (the engine's own
answers, owned by the cr-orders part) when it is installed; until then this
module computes the same figures from the start-of-turn state with the rules
cited beside each one.  The turnsheet, the text form, the fallback validator
and the receipt all read the same :class:`SheetFacts`, so what the sheet says
is allowed is what the receipt checks.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.auth import turn_code
from pbm.models import Game, Holding, Player, PrivateCompany, Railroad, Route

CLIMATES = ["Panic", "Depression", "Mild Depression", "Recession", "Normal", "Improved", "Good", "Great", "Boom"]
MAX_CAPITAL_PER_MILE = 50  # §10.2D1
MAX_DIVIDEND = 99  # §10.2H1
PRODIGAL_MINIMUM = 1000  # §1.2
GRAND_STATION_COST = 10_000  # §4.18


def _queries() -> ModuleType | None:
    try:
        return importlib.import_module("pbm.cr.queries")
    except ModuleNotFoundError as exc:
        if exc.name in ("pbm.cr.queries",):
            return None
        raise


def _ask(name: str, *args):
    """``pbm.cr.queries.<name>(*args)`` when the engine provides it, else None."""
    module = _queries()
    fn = getattr(module, name, None) if module else None
    return fn(*args) if callable(fn) else None


def build_cost_range(game: Game) -> tuple[int, int]:
    """§4.6B: minimum $200–$400 per mile by climate; §4.6C: up to double the minimum.

    Provisional ruling M-F1 (until the engine's query is merged): the minimum
    rises $25 per climate step from $200 in a Panic to $400 in a Boom.
    """
    try:
        step = CLIMATES.index(game.climate)
    except ValueError:
        step = CLIMATES.index("Normal")
    low = 200 + 25 * step
    return low, 2 * low


@dataclass
class OwnedPC:
    code: str
    miles: int
    paid: int
    for_sale: bool
    asking_price: int | None
    min_price: int  # §10.1B1a $1/mile
    max_price: int  # §10.1B1b 120 % of what was paid, or $10/mile
    merge_into: list[str]  # §10.1B2c


@dataclass
class PCForSale:
    code: str
    miles: int
    asking_price: int
    seller: str  # "bank" or "player N"
    min_bid: int  # §10.1B3 $1/mile


@dataclass
class StockLine:
    code: str
    number: int
    name: str
    price: float
    owned: int
    max_bid: int  # §6.1A
    max_short: int  # §10.1C4


@dataclass
class RailroadBlock:
    """§10.2 for one railroad the player presides."""

    code: str
    number: int
    name: str
    cash: int
    miles: int
    treasury_shares: int
    president_debt: int
    bank_debt: int
    efficiency: int
    dividend: int
    locomotive: int
    technologies: list[str]
    lines: list[str]
    max_lend: int  # §10.2A1
    max_repay_president: int  # §10.2A2
    max_repay_debt: int  # §10.2B
    own_row: str | None  # §10.2E: the RoW it owns
    build_min: int
    build_max: int
    political_min: int  # §10.2F2: $1 per mile
    valid_rows: list[str]  # §10.2G2 / §4.7E
    rate_war_targets: list[str]  # §4.16 (railroads with parallel routes, when known)


@dataclass
class SheetFacts:
    game: str
    game_id: int
    turn: int
    year: int
    climate: str
    code: str
    player: int
    character: str
    name: str
    cash: int
    loan: int
    credit_available: int  # §10.1A1
    owned_pcs: list[OwnedPC] = field(default_factory=list)
    bids_allowed: int = 2  # §10.1B "If you own no PCs, you may bid for 2 PCs"
    pcs_for_sale: list[PCForSale] = field(default_factory=list)
    stock: list[StockLine] = field(default_factory=list)
    slots: list[str | None] = field(default_factory=lambda: [None, None])  # §10.1D current RR1, RR2
    may_merge: bool = False  # §10.1E
    merge_pairs: list[tuple[str, str]] = field(default_factory=list)
    railroads: list[RailroadBlock] = field(default_factory=list)
    missed_turns: int = 0

    def block(self, code: str) -> RailroadBlock | None:
        return next((b for b in self.railroads if b.code == code), None)

    def stock_line(self, code: str) -> StockLine | None:
        return next((s for s in self.stock if s.code == code), None)


def _active_railroads(session: Session, game: Game) -> list[Railroad]:
    return list(session.scalars(select(Railroad).where(Railroad.game_id == game.id, Railroad.status.in_(
        ("active", "bankrupt"))).order_by(Railroad.number, Railroad.id)))


def _towns_of(rr: Railroad, session: Session) -> set[int]:
    towns: set[int] = set()
    for line in rr.lines:
        towns.update((line.route.a_id, line.route.b_id))
    return towns


def merge_targets(session: Session, game: Game, pc: PrivateCompany, railroads: list[Railroad]) -> list[str]:
    """§10.1B2a: railroads the PC connects to at the start of the turn."""
    answer = _ask("merge_targets", session, game, pc)
    if answer is not None:
        return sorted(answer)
    ends = {pc.route.a_id, pc.route.b_id}
    return [rr.code for rr in railroads if rr.status == "active" and ends & _towns_of(rr, session)]


def max_stock_bid(rr: Railroad, player: Player) -> int:
    """§6.1A: 20 % of the shares available (issued − directors' − yours), never past 51 %."""
    own = next((h.shares for h in rr.holdings if h.player_id == player.id), 0)
    directors = sum(h.shares for h in rr.holdings if h.director and h.player_id != player.id)
    available = max(0, rr.shares_issued - directors - own)
    cap = max(0, int(rr.shares_issued * 0.51) - own)
    return max(0, min(available * 20 // 100, cap))


def valid_rows(session: Session, game: Game, rr: Railroad) -> list[str]:
    """§4.7B–E: unowned RoWs connected to the railroad's lines or to the RoW it is building."""
    answer = _ask("valid_rows", session, game, rr)
    if answer is not None:
        return list(answer)
    towns = _towns_of(rr, session)
    owned = session.scalars(select(Route).where(Route.game_id == game.id, Route.owner_id == rr.id,
                                                Route.kind == "RoW")).all()
    for route in owned:
        towns.update((route.a_id, route.b_id))
    rows = session.scalars(select(Route).where(Route.game_id == game.id, Route.kind == "RoW",
                                               Route.owner_id.is_(None)).order_by(Route.number)).all()
    return [r.code for r in rows if {r.a_id, r.b_id} & towns]


def sheet_facts(session: Session, game: Game, player: Player) -> SheetFacts:
    """Everything the turnsheet of ``player`` shows for ``game.turn``."""
    railroads = _active_railroads(session, game)
    credit = _ask("available_credit", session, game, player)
    facts = SheetFacts(
        game=game.name, game_id=game.id, turn=game.turn, year=game.year, climate=game.climate,
        code=turn_code(game, player.number, game.turn), player=player.number, character=player.character,
        name=player.name, cash=player.cash, loan=player.loan,
        credit_available=int(credit) if credit is not None else max(0, player.credit_limit - player.loan),
        missed_turns=player.missed_turns,
    )
    pcs = list(session.scalars(select(PrivateCompany).where(PrivateCompany.game_id == game.id)
                               .order_by(PrivateCompany.id)))
    for pc in pcs:
        miles = pc.route.miles
        if pc.status == "owned" and pc.owner_id == player.id:
            facts.owned_pcs.append(OwnedPC(
                code=pc.code, miles=miles, paid=pc.paid, for_sale=pc.for_sale, asking_price=pc.asking_price,
                min_price=miles, max_price=max(pc.paid * 120 // 100, 10 * miles),
                merge_into=merge_targets(session, game, pc, railroads)))
        elif (pc.status == "bank" or (pc.status == "owned" and pc.for_sale and pc.offered_turn != game.turn)) \
                and pc.owner_id != player.id:
            # §10.1B2: only PCs for sale at the start of the turn, not ones offered this turn
            seller = "bank" if pc.status == "bank" else f"player {pc.owner.number if pc.owner else '?'}"
            facts.pcs_for_sale.append(PCForSale(code=pc.code, miles=miles, asking_price=pc.asking_price or miles,
                                                seller=seller, min_bid=miles))
    facts.pcs_for_sale.sort(key=lambda p: p.code)
    facts.bids_allowed = max(0, 2 - len(facts.owned_pcs))
    by_id = {rr.id: rr for rr in railroads}
    for rr in railroads:
        if rr.status != "active":
            continue
        own = next((h.shares for h in rr.holdings if h.player_id == player.id), 0)
        asked = _ask("max_stock_bid", session, game, player, rr)
        facts.stock.append(StockLine(
            code=rr.code, number=rr.number, name=rr.name, price=rr.price, owned=own,
            max_bid=int(asked) if asked is not None else max_stock_bid(rr, player),
            max_short=rr.shares_issued * 10 // 100))
    facts.slots = [by_id[player.slot1_id].code if player.slot1_id in by_id else None,
                   by_id[player.slot2_id].code if player.slot2_id in by_id else None]
    presided = [rr for rr in railroads if rr.president_id == player.id]
    # §10.1E: president of both at the start of the turn; never into a bankrupt railroad
    facts.merge_pairs = [(a.code, b.code) for a in presided for b in presided
                         if a.id != b.id and b.status != "bankrupt"]
    asked_merge = _ask("may_merge", session, game, player)
    facts.may_merge = bool(asked_merge) if asked_merge is not None else bool(facts.merge_pairs)
    low, high = build_cost_range(game)
    asked_cost = _ask("build_cost_range", session, game)
    if asked_cost is not None:
        low, high = asked_cost
    for rr in presided:
        own_row = session.scalars(select(Route).where(Route.game_id == game.id, Route.owner_id == rr.id,
                                                      Route.kind == "RoW")).first()
        built = {line.route_id for line in rr.lines}
        own_row_code = own_row.code if own_row is not None and own_row.id not in built else None
        miles = rr.miles
        facts.railroads.append(RailroadBlock(
            code=rr.code, number=rr.number, name=rr.name, cash=rr.cash, miles=miles,
            treasury_shares=rr.treasury_shares, president_debt=rr.president_debt,
            bank_debt=rr.loan_debt + rr.bond_debt, efficiency=rr.efficiency, dividend=rr.dividend,
            locomotive=rr.locomotive, technologies=list(rr.technologies or []),
            lines=[line.route.code for line in rr.lines],
            max_lend=player.cash + facts.credit_available,
            max_repay_president=min(rr.cash, rr.president_debt),
            max_repay_debt=max(0, min(rr.cash, rr.loan_debt + rr.bond_debt)),
            own_row=own_row_code, build_min=low, build_max=high, political_min=max(1, miles),
            valid_rows=[] if rr.status == "bankrupt" else valid_rows(session, game, rr),
            rate_war_targets=list(_ask("rate_war_targets", session, game, rr) or []),
        ))
    return facts


def railroad_numbers(session: Session, game: Game) -> dict[str, str]:
    """Turnsheet numbers (§10: "You may use these numbers instead of the railroad's abbreviation")."""
    rows = session.execute(select(Railroad.number, Railroad.code).where(Railroad.game_id == game.id)).all()
    return {str(number): code for number, code in rows}


def holdings_of(session: Session, player: Player) -> dict[str, int]:
    rows = session.execute(select(Railroad.code, Holding.shares).join(Holding.railroad)
                           .where(Holding.player_id == player.id)).all()
    return {code: shares for code, shares in rows}

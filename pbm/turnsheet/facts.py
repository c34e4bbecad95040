"""What a player may order this turn: the limits printed on the turnsheet (§10).

§10: "The Turnsheets will usually indicate the maximum and minimum amounts for
any action."  Every figure comes from ``pbm.cr.queries`` — the same rule
queries the validator (``pbm.cr.validate``) checks orders with — so what the
sheet says is allowed is what the receipt checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.auth import turn_code
from pbm.cr import queries as q
from pbm.models import Game, Player, Railroad

MAX_CAPITAL_PER_MILE = 50  # §10.2D1
MAX_DIVIDEND = 99  # §10.2H1
PRODIGAL_MINIMUM = 1000  # §1.2
GRAND_STATION_COST = 10_000  # §4.18


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
class RowChoice:
    """A RoW the railroad may bid for (§10.2G2): its code, its two ends (as on the map) and its miles."""

    code: str
    a: str
    b: str
    miles: int

    def ends(self) -> str:
        return f"{self.a} - {self.b}"


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
    rate_war_targets: list[str]  # §4.16 railroads with parallel routes
    locomotives: dict[int, int] = field(default_factory=dict)  # §4.17 engine -> cost
    technology_options: dict[str, int] = field(default_factory=dict)  # §4.18 letter -> cost
    row_choices: list[RowChoice] = field(default_factory=list)  # valid_rows with their ends and miles (§4.7E)


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


def sheet_facts(session: Session, game: Game, player: Player, view: q.View | None = None) -> SheetFacts:
    """Everything the turnsheet of ``player`` shows for ``game.turn`` (from ``pbm.cr.queries``).

    ``view`` is the start-of-turn view to reuse when sheets of several players are made at once."""
    view = view if view is not None else q.load(session, game)
    player = view.players.get(player.id, player)
    credit = q.available_credit(view, player)
    facts = SheetFacts(
        game=game.name, game_id=game.id, turn=game.turn, year=game.year, climate=game.climate,
        code=turn_code(game, player.number, game.turn), player=player.number, character=player.character,
        name=player.name, cash=player.cash, loan=player.loan, credit_available=credit,
        missed_turns=player.missed_turns,
    )
    for pc in sorted(view.pcs_owned(player), key=lambda pc: q.pc_code(view, pc)):
        low, high = q.pc_ask_range(view, pc)
        facts.owned_pcs.append(OwnedPC(
            code=q.pc_code(view, pc), miles=view.routes[pc.route_id].miles, paid=pc.paid, for_sale=pc.for_sale,
            asking_price=pc.asking_price, min_price=low, max_price=high,
            merge_into=sorted(q.mergeable_railroads(view, pc))))
    for offer in q.pcs_for_sale(view):
        if offer.seller == player.number:
            continue  # one's own PC is not offered to oneself
        seller = "bank" if offer.seller is None else f"player {offer.seller}"
        facts.pcs_for_sale.append(PCForSale(code=offer.code, miles=offer.miles, asking_price=offer.asking,
                                            seller=seller, min_bid=offer.min_bid))
    facts.bids_allowed = q.pc_bids_allowed(view, player)
    for rr in sorted(view.active_railroads(), key=lambda r: (r.number, r.id)):
        facts.stock.append(StockLine(
            code=rr.code, number=rr.number, name=rr.name, price=rr.price, owned=view.shares(player, rr),
            max_bid=q.max_stock_bid(view, player, rr), max_short=q.max_short(view, player, rr)))
    facts.slots = [view.railroads[player.slot1_id].code if player.slot1_id in view.railroads else None,
                   view.railroads[player.slot2_id].code if player.slot2_id in view.railroads else None]
    presided = sorted(view.presided_by(player), key=lambda r: (r.number, r.id))
    facts.merge_pairs = [(a.code, b.code) for a in presided for b in presided
                         if a.id != b.id and q.merge_check(view, player, a, b).allowed]
    facts.may_merge = bool(facts.merge_pairs)
    low, high = q.build_cost_range(game.climate)
    for rr in presided:
        row = view.row_of.get(rr.id)
        facts.railroads.append(RailroadBlock(
            code=rr.code, number=rr.number, name=rr.name, cash=rr.cash, miles=view.miles(rr),
            treasury_shares=rr.treasury_shares, president_debt=rr.president_debt,
            bank_debt=rr.loan_debt + rr.bond_debt, efficiency=rr.efficiency, dividend=rr.dividend,
            locomotive=rr.locomotive, technologies=list(rr.technologies or []),
            lines=[r.code for r in view.lines_of.get(rr.id, [])],
            max_lend=max(0, player.cash + credit),  # §10.2A1: what the President has after borrowing from the bank
            max_repay_president=max(0, min(rr.cash, rr.president_debt)),  # §10.2A2: out of cash; never negative
            max_repay_debt=max(0, min(rr.cash, rr.loan_debt + rr.bond_debt)),
            own_row=row.code if row is not None else None, build_min=low, build_max=high,
            political_min=q.political_minimum(view, rr), valid_rows=q.valid_rows(view, rr),
            rate_war_targets=q.parallel_railroads(view, rr), locomotives=q.locomotive_upgrades(view, rr),
            technology_options=q.technology_options(view, rr),
            row_choices=[_row_choice(view, code) for code in q.valid_rows(view, rr)],
        ))
    return facts


def _row_choice(view: q.View, code: str) -> RowChoice:
    """§10.2G2: "The turnsheet will display all valid, available RoWs" - with where each runs and how long."""
    route = view.route_by_code[code.upper()]
    return RowChoice(code=route.code, a=view.towns[route.a_id].name, b=view.towns[route.b_id].name,
                     miles=route.miles)


def railroad_numbers(session: Session, game: Game) -> dict[str, str]:
    """Turnsheet numbers (§10: "You may use these numbers instead of the railroad's abbreviation").

    In railroad id order, as the intake's view reads them (pbm.turnsheet.check): should a number ever
    name two railroads of a game, the later one wins in both, whatever order the database returns."""
    rows = session.execute(select(Railroad.number, Railroad.code).where(Railroad.game_id == game.id)
                           .order_by(Railroad.id)).all()
    return {str(number): code for number, code in rows}



"""Hand-built Continental Rails games for engine tests (and the benchmark).

``tiny_game`` is a dozen towns and routes in the north-east with two
railroads; ``synthetic_game`` is a generated grid map of any size, used for
whole-game tests and the benchmark until (and besides) the real map.
Both build rows directly with the ORM.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, PCAction, PCBid, RailroadOrders, StockOrder
from pbm.models import Game, Holding, Line, Player, PrivateCompany, Railroad, Route, Town

SHARES_PER_MILE = 5


@dataclass
class T:
    name: str
    size: int
    region: str
    star: bool = True
    state: str = "XX"


@dataclass
class R:
    code: str
    kind: str
    a: str
    b: str
    miles: int
    double_with: str | None = None
    era: int = 1


TINY_TOWNS = [
    T("Boston", 4, "Atlantic"), T("New York", 5, "Atlantic"), T("Albany", 2, "Atlantic", star=False),
    T("Philadelphia", 4, "Atlantic"), T("Buffalo", 3, "Great Lakes"), T("Pittsburgh", 3, "Ohio"),
    T("Cleveland", 3, "Great Lakes"), T("Toledo", 2, "Great Lakes", star=False), T("Chicago", 5, "Central"),
    T("Indianapolis", 2, "Ohio", star=False), T("St. Louis", 4, "Mississippi"), T("Cincinnati", 3, "Ohio"),
]
TINY_ROUTES = [
    R("NYC", "PC", "New York", "Albany", 148), R("PENN", "PC", "Philadelphia", "Pittsburgh", 300),
    R("B&A", "PC", "Boston", "Albany", 201), R("ERIE", "PC", "Albany", "Buffalo", 287, double_with="NY2"),
    R("NYNH", "PC", "New York", "Boston", 110, double_with="NY1"), R("LS", "PC", "Buffalo", "Cleveland", 182),
    R("MC", "PC", "Toledo", "Chicago", 152), R("P&FW", "PC", "Pittsburgh", "Cleveland", 130),
    R("NY1", "RoW", "New York", "Boston", 110, double_with="NYNH"), R("NY2", "RoW", "Albany", "Buffalo", 203, double_with="ERIE"),
    R("PA1", "RoW", "New York", "Philadelphia", 90), R("OH1", "RoW", "Cleveland", "Toledo", 100),
    R("OH2", "RoW", "Pittsburgh", "Cincinnati", 290), R("IN1", "RoW", "Cincinnati", "Indianapolis", 110),
    R("IN2", "RoW", "Indianapolis", "Chicago", 180), R("IL1", "RoW", "Chicago", "St. Louis", 280),
    R("IN3", "RoW", "Indianapolis", "St. Louis", 240), R("IN4", "RoW", "Toledo", "Indianapolis", 200),
]


def build_game(session: Session, towns: list[T], routes: list[R], railroads: list[dict], *, seed: int = 1,
               name: str = "tiny", players: int = 4, humans: int = 0, cash: int = 2000,
               stock_pct: int = 4, climate: str = "Normal", turn: int = 1, bank_pcs: list[str] | None = None) -> Game:
    """A game with the given map; ``railroads`` are dicts (code, price, efficiency, cash, dividend)."""
    game = Game(title="continental-rails", name=name, seed=seed, turn=turn, status="open", climate=climate,
                year=1841 + 2 * (turn - 1), options={}, state={}, turn_key="k" * 32)
    session.add(game)
    session.flush()
    town_rows = {t.name: Town(game_id=game.id, name=t.name, state=t.state, lat=0.0, lon=0.0, size=t.size,
                              star=t.star, region=t.region) for t in towns}
    session.add_all(town_rows.values())
    session.flush()
    route_rows: dict[str, Route] = {}
    for number, r in enumerate(routes, start=1):
        route_rows[r.code] = Route(game_id=game.id, number=number, code=r.code, kind=r.kind, miles=r.miles,
                                   name=f"{r.code} line", a_id=town_rows[r.a].id, b_id=town_rows[r.b].id,
                                   double_with=r.double_with, era=r.era)
    session.add_all(route_rows.values())
    session.flush()
    pcs = {code: PrivateCompany(game_id=game.id, route_id=route.id, status="unavailable")
           for code, route in route_rows.items() if route.kind == "PC"}
    session.add_all(pcs.values())
    people = []
    for n in range(1, players + 1):
        p = Player(game_id=game.id, number=n, character=f"Tycoon {n}", human=n <= humans,
                   personality="human" if n <= humans else "builder", cash=cash)
        people.append(p)
    session.add_all(people)
    session.flush()
    for number, spec in enumerate(railroads, start=1):
        route = route_rows[spec["code"]]
        authorized = SHARES_PER_MILE * route.miles
        treasury = authorized // 10
        issued = authorized - treasury
        each = issued * spec.get("stock_pct", stock_pct) // 100
        rr = Railroad(game_id=game.id, code=spec["code"], name=route.name, number=number, status="active",
                      founded_turn=0, price=float(spec.get("price", 15)), shares_authorized=authorized,
                      shares_issued=issued, shares_public=issued - each * players, treasury_shares=treasury,
                      cash=spec.get("cash", 10000), efficiency=spec.get("efficiency", 85), locomotive=1,
                      technologies=[], dividend=spec.get("dividend", 1))
        session.add(rr)
        session.flush()
        session.add(Line(railroad_id=rr.id, route_id=route.id, built_turn=0))
        route.owner_id = rr.id
        pcs[spec["code"]].status, pcs[spec["code"]].railroad_id = "incorporated", rr.id
        for p in people:
            if each:
                session.add(Holding(player_id=p.id, railroad_id=rr.id, shares=each))
    for code in bank_pcs or []:
        pcs[code].status, pcs[code].appeared_turn = "bank", turn
        pcs[code].asking_price = 5 * route_rows[code].miles
    session.flush()
    session.expire_all()
    for p in game.players:
        p.net_worth = p.cash + sum(int(h.shares * h.railroad.price) for h in p.holdings)
    session.flush()
    return game


def turn_context(session: Session, game: Game, orders: dict[int, Orders] | None = None):
    """A turn's context on the game as flushed, after the start of the turn (Appendix A step 0):
    the turn changes its own plain rows (``ctx.players``, ``ctx.railroads``), not the session's."""
    from pbm.cr.engine.context import TurnContext
    from pbm.cr.resolve import begin_turn

    ctx = TurnContext(session, game, orders or {})
    begin_turn(ctx)
    return ctx


def kinds(ctx, kind: str, player: int | None = None) -> list[dict]:
    """The turn's events of one kind (and of one tycoon, if ``player``)."""
    return [e for e in ctx.events if e["kind"] == kind and (player is None or e["player_number"] == player)]


def tiny_game(session: Session, **kw) -> Game:
    kw.setdefault("bank_pcs", ["B&A", "ERIE", "NYNH", "LS", "MC", "P&FW"])
    return build_game(session, TINY_TOWNS, TINY_ROUTES,
                      [{"code": "NYC", "price": 20}, {"code": "PENN", "price": 15}], **kw)


def tiny_parallel_lines(session: Session, game: Game) -> dict[str, Railroad]:
    """The tiny game with NYC owning NYNH and PENN owning NY1, built at the start: two parallel
    routes (§4.16's rate wars need them). Returns the two roads by code."""
    rr = {c: session.query(Railroad).filter_by(game_id=game.id, code=c).one() for c in ("NYC", "PENN")}
    route = {c: session.query(Route).filter_by(game_id=game.id, code=c).one() for c in ("NYNH", "NY1")}
    session.add(Line(railroad_id=rr["NYC"].id, route_id=route["NYNH"].id, built_turn=0))
    session.add(Line(railroad_id=rr["PENN"].id, route_id=route["NY1"].id, built_turn=0))
    route["NYNH"].owner_id, route["NY1"].owner_id = rr["NYC"].id, rr["PENN"].id
    return rr


REGION_GRID = [  # 13 regions (§2.7) laid over columns (west → east) and rows (north → south)
    ["Canada", "Canada", "Canada", "Canada", "Canada", "Canada", "Canada", "Canada"],
    ["Pacific", "Mountain", "Mountain", "Midwest", "Midwest", "Central", "Great Lakes", "Atlantic"],
    ["Pacific", "Mountain", "Mountain", "Midwest", "Mississippi", "Ohio", "Ohio", "Atlantic"],
    ["Pacific", "Mountain", "Southwest", "Southwest", "Mississippi", "Deep South", "Deep South", "Atlantic"],
    ["Mexico", "Mexico", "Southwest", "Southwest", "Gulf", "Gulf", "Deep South", "Atlantic"],
]
NO_THROUGH = ["Chicago", "St. Louis", "Memphis", "Vicksburg", "New Orleans"]


def synthetic_map(cols: int = 16, rows: int = 10, seed: int = 5) -> tuple[list[T], list[R]]:
    """A grid of towns over the 13 regions; neighbours joined by PCs (every third) or RoWs."""
    rng = np.random.default_rng(seed)
    towns: list[T] = []
    names: dict[tuple[int, int], str] = {}
    special = iter(NO_THROUGH)
    for c in range(cols):
        for r in range(rows):
            region = REGION_GRID[min(len(REGION_GRID) - 1, r * len(REGION_GRID) // rows)][
                min(7, c * 8 // cols)]
            name = f"T{c:02d}{r:02d}"
            if (c, r) in ((cols * 5 // 8, 2), (cols * 9 // 16, 5), (cols * 9 // 16, 6), (cols * 9 // 16, 7), (cols * 9 // 16, 8)):
                name = next(special, name)
            size = int(rng.choice([1, 1, 1, 2, 2, 3, 4, 5]))
            towns.append(T(name, size, region, star=bool(rng.random() < 0.35) or size >= 4))
            names[(c, r)] = name
    routes: list[R] = []
    k = 0
    for c in range(cols):
        for r in range(rows):
            for dc, dr in ((1, 0), (0, 1)):
                if (c + dc, r + dr) not in names:
                    continue
                k += 1
                kind = "PC" if k % 3 == 0 else "RoW"
                era = 1 if c >= cols * 5 // 8 else 2 if c >= cols * 3 // 8 else 3
                code = f"P{k}" if kind == "PC" else f"R{k}"
                routes.append(R(code, kind, names[(c, r)], names[(c + dc, r + dr)], int(rng.integers(60, 320)), era=era))
    # a few double connections (§2.2)
    extra = []
    for i, route in enumerate(routes[::17]):
        code = f"D{i}"
        extra.append(R(code, "RoW", route.a, route.b, route.miles + 10, double_with=route.code, era=route.era))
        route.double_with = code
    return towns, routes + extra


def synthetic_game(session: Session, *, seed: int = 1, name: str = "synthetic", railroads: int = 6,
                   players: int = 15, cols: int = 16, rows: int = 10, humans: int = 0, turn: int = 1,
                   bank_pcs: int = 20) -> Game:
    towns, routes = synthetic_map(cols, rows, seed=seed)
    pcs = [r for r in routes if r.kind == "PC"]
    east = sorted(pcs, key=lambda r: (-int(r.code[1:]) if r.era == 1 else 10_000 + int(r.code[1:])))
    chosen = east[:railroads]
    rng = np.random.default_rng(seed)
    specs = [{"code": r.code, "price": int(rng.integers(10, 19)), "efficiency": int(rng.integers(80, 91)),
              "cash": int(r.miles * 5 * 0.7 * 12), "stock_pct": 4 if railroads <= 10 else 1} for r in chosen]
    rest = [r.code for r in east[railroads:] if r.era == 1][:bank_pcs]
    return build_game(session, towns, routes, specs, seed=seed, name=name, players=players, humans=humans,
                      turn=turn, bank_pcs=rest)


def scripted_orders(session: Session, game: Game, rng: np.random.Generator) -> dict[int, Orders]:
    """Busy random orders for every seat, to exercise every step (tests only)."""
    from pbm.cr.engine.context import TurnContext
    from pbm.cr.engine.rights import valid_rows

    ctx = TurnContext(session, game)
    active = [r for r in ctx.railroads.values() if r.status in ("active", "bankrupt")]
    for_sale = [c for c, pc in ctx.pcs.items() if pc.status == "bank" or (pc.status == "owned" and pc.for_sale)]
    out: dict[int, Orders] = {}
    for n, p in ctx.players.items():
        o = Orders(borrow=int(rng.integers(0, 3000)), prodigal=int(rng.choice([0, 0, 1200, 3000])))
        owned = [c for c, pc in ctx.pcs.items() if pc.owner_id == p.id and pc.status == "owned"]
        for c in owned:
            kind = str(rng.choice(["incorporate", "merge", "sell", "hold"]))
            if kind == "merge" and active:
                o.pc_actions.append(PCAction(c, "merge", railroad=str(rng.choice([r.code for r in active]))))
            elif kind == "incorporate":
                o.pc_actions.append(PCAction(c, "incorporate", president=True))
            elif kind == "sell":
                o.pc_actions.append(PCAction(c, "sell", price=int(ctx.route_by_id[ctx.pcs[c].route_id].miles * 8)))
        if len(owned) < 2 and for_sale:
            pick = str(rng.choice(for_sale))
            o.pc_bids.append(PCBid(pick, int(ctx.route_by_id[ctx.pcs[pick].route_id].miles * rng.integers(5, 12))))
        for i, rr in enumerate(rng.permutation(len(active))[:4]):
            r = active[int(rr)]
            action = str(rng.choice(["buy", "buy", "sell"]))
            o.stock.append(StockOrder(r.code, action, int(rng.integers(5, 200)), priority=i + 1))
        if active:
            o.control = [str(rng.choice([r.code for r in active])), None]
        if rng.random() < 0.1:
            presided = [r for r in active if r.president_id == p.id]
            if len(presided) == 2:
                o.merge = (presided[0].code, presided[1].code)
        for r in active:
            if r.president_id != p.id:
                continue
            ro = RailroadOrders(r.code, capital_per_mile=int(rng.integers(0, 20)),
                                dividend=int(rng.integers(0, 6)), political=int(ctx.miles(r) * rng.integers(0, 3)),
                                lend=int(rng.choice([0, 0, 500])), repay_debt=int(rng.choice([0, 1000])),
                                treasury_to_president=int(rng.choice([0, 20])),
                                treasury_to_market=int(rng.choice([0, 30])))
            if ctx.row_of(r) is not None:
                ro.build_per_mile = int(game_build_min(game) * rng.uniform(1.0, 1.6))
            else:
                rows_ = valid_rows(ctx, r)
                if rows_:
                    ro.row_first = rows_[int(rng.integers(0, len(rows_)))].code
                    ro.row_alternate = rows_[0].code
            if rng.random() < 0.2 and r.lines:
                ro.double_track = [ctx.route_by_id[r.lines[0].route_id].code]
            if rng.random() < 0.2:
                ro.technology = str(rng.choice(["A", "B", "C"]))
            if rng.random() < 0.2:
                ro.locomotive = 3
            if rng.random() < 0.1:
                others = [x.code for x in active if x.code != r.code]
                if others:
                    ro.rate_wars = []
            o.railroads.append(ro)
        out[n] = o
    return out


def game_build_min(game: Game) -> int:
    from pbm.cr.engine.tables import climate

    return climate(game.climate).build_min

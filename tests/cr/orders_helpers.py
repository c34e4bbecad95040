"""A small hand-built Continental Rails state for order-checking tests.

The map (fictional miles, real geography)::

    Boston --B&A(PC, rr BA)-- Albany --NYC(PC, rr NYC)-- Buffalo --NY2(RoW)-- Cleveland
    New York ==HRL(PC, bank)== Albany    (double connection with NY1, a RoW)
    New York --NJ1(RoW)-- Philadelphia --PENN(PC, rr PENN)-- Pittsburgh --PA1(RoW, owned by PENN)-- Cleveland
    Baltimore --B&O(PC, owned by player 2)-- Pittsburgh
    Cleveland --LS(PC, bank)-- Toledo --MS(PC, bank)-- Chicago ; Toledo --IN1(RoW)-- Chicago
    Cleveland --IN2(RoW)-- Chicago ; Buffalo --NY3(RoW)-- Pittsburgh ; Albany --VT1(RoW)-- Montreal

Players 1–3: player 1 presides NYC and BA, player 2 presides PENN.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from pbm.models import Game, Holding, Line, Player, PrivateCompany, Railroad, Route, Town

TOWNS = [
    # name, state, size, star, region
    ("Boston", "MA", 4, True, "Atlantic"),
    ("Albany", "NY", 2, False, "Atlantic"),
    ("New York", "NY", 5, True, "Atlantic"),
    ("Buffalo", "NY", 3, True, "Great Lakes"),
    ("Cleveland", "OH", 3, True, "Great Lakes"),
    ("Philadelphia", "PA", 5, True, "Atlantic"),
    ("Pittsburgh", "PA", 4, True, "Ohio"),
    ("Baltimore", "MD", 4, True, "Atlantic"),
    ("Toledo", "OH", 2, False, "Great Lakes"),
    ("Chicago", "IL", 5, True, "Central"),
    ("Montreal", "QC", 4, True, "Canada"),
]

ROUTES = [
    # number, code, kind, miles, a, b, double_with
    (1, "B&A", "PC", 200, "Boston", "Albany", None),
    (2, "NYC", "PC", 150, "Albany", "Buffalo", None),
    (3, "HRL", "PC", 140, "New York", "Albany", "NY1"),
    (4, "PENN", "PC", 100, "Philadelphia", "Pittsburgh", None),
    (5, "B&O", "PC", 160, "Baltimore", "Pittsburgh", None),
    (6, "LS", "PC", 180, "Cleveland", "Toledo", None),
    (7, "MS", "PC", 200, "Toledo", "Chicago", None),
    (101, "NY1", "RoW", 140, "New York", "Albany", "HRL"),
    (102, "NY2", "RoW", 190, "Buffalo", "Cleveland", None),
    (103, "NY3", "RoW", 210, "Buffalo", "Pittsburgh", None),
    (104, "NJ1", "RoW", 90, "New York", "Philadelphia", None),
    (105, "PA1", "RoW", 130, "Pittsburgh", "Cleveland", None),
    (106, "IN1", "RoW", 200, "Toledo", "Chicago", None),
    (107, "IN2", "RoW", 340, "Cleveland", "Chicago", None),
    (108, "VT1", "RoW", 220, "Albany", "Montreal", None),
]


@dataclass
class Small:
    game: Game
    players: dict[int, Player]
    railroads: dict[str, Railroad]
    routes: dict[str, Route]
    pcs: dict[str, PrivateCompany]


def build_small(session: Session, *, climate: str = "Normal", turn: int = 2, seed: int = 7) -> Small:
    """Create the small state in ``session`` (flushed, not committed)."""
    game = Game(title="continental-rails", name=f"small-{seed}-{turn}", seed=seed, turn=turn, status="open",
                climate=climate, year=1841 + turn, options={}, state={}, turn_key="k" * 32)
    session.add(game)
    session.flush()
    towns = {}
    for i, (name, st, size, star, region) in enumerate(TOWNS):
        towns[name] = Town(game_id=game.id, name=name, state=st, lat=40.0 + i, lon=-75.0 - i, size=size,
                           star=star, region=region)
    session.add_all(towns.values())
    session.flush()
    routes = {}
    for number, code, kind, miles, a, b, twin in ROUTES:
        routes[code] = Route(game_id=game.id, number=number, code=code, kind=kind, miles=miles, name=code,
                             a_id=towns[a].id, b_id=towns[b].id, double_with=twin, era=1)
    session.add_all(routes.values())
    session.flush()
    players = {}
    for n in (1, 2, 3):
        players[n] = Player(game_id=game.id, number=n, character=f"Tycoon {n}", human=n == 1,
                            personality="builder" if n % 2 else "speculator", cash=2000, loan=0,
                            net_worth=10_000)
    session.add_all(players.values())
    session.flush()
    pcs = {code: PrivateCompany(game_id=game.id, route_id=routes[code].id, status="unavailable")
           for code, r in routes.items() if r.kind == "PC"}
    session.add_all(pcs.values())
    session.flush()

    def railroad(code: str, number: int, president: int | None, price: float, issued: int) -> Railroad:
        route = routes[code]
        rr = Railroad(game_id=game.id, code=code if code != "B&A" else "BA", name=code, number=number,
                      status="active", founded_turn=0, price=price, shares_authorized=issued + issued // 9,
                      shares_issued=issued, shares_public=issued, treasury_shares=issued // 9, cash=5000,
                      efficiency=85, locomotive=1, technologies=[], dividend=1,
                      president_id=players[president].id if president else None)
        session.add(rr)
        session.flush()
        session.add(Line(railroad_id=rr.id, route_id=route.id, built_turn=0))
        route.owner_id = rr.id
        pcs[code].status, pcs[code].railroad_id = "incorporated", rr.id
        return rr

    rrs = {
        "NYC": railroad("NYC", 1, 1, 20.0, 1000),
        "BA": railroad("B&A", 2, 1, 10.0, 900),
        "PENN": railroad("PENN", 3, 2, 20.0, 500),
    }
    routes["PA1"].owner_id = rrs["PENN"].id  # PENN's unbuilt RoW
    for code in ("HRL", "LS", "MS"):
        pcs[code].status, pcs[code].asking_price, pcs[code].appeared_turn = "bank", 5 * routes[code].miles, 1
    pcs["B&O"].status, pcs["B&O"].owner_id, pcs["B&O"].paid = "owned", players[2].id, 800

    def hold(player: int, rr: str, shares: int, director: bool = False) -> None:
        session.add(Holding(player_id=players[player].id, railroad_id=rrs[rr].id, shares=shares,
                            director=director))
        rrs[rr].shares_public -= shares

    hold(1, "NYC", 300, True)  # 30 %: director and president
    hold(2, "NYC", 40)  # 4 %
    hold(3, "NYC", 150, True)  # 15 %: director
    hold(1, "BA", 100, True)
    hold(2, "PENN", 100, True)
    hold(3, "PENN", 200, True)  # PENN: directors own 60 % -> cornered
    session.flush()
    session.expire_all()
    return Small(game=game, players=players, railroads=rrs, routes=routes, pcs=pcs)


def real_game(session: Session, seed: int = 7, name: str | None = None) -> Game:
    """A full new Continental Rails game (the real map), all 15 seats computer-played.

    ``setup.create_game`` reads ``mapdata.initial_railroads()``; until the map
    and setup branches agree on that name, it is supplied from
    ``load_map().initial_railroads`` here (only when missing)."""
    from pbm.cr import setup

    ensure_setup_works()
    new = setup.create_game(session, seed=seed, name=name or f"ai-{seed}")
    session.flush()
    return new.game


def ensure_setup_works() -> None:
    """Supply ``mapdata.initial_railroads()`` from the map's loader if the function is missing."""
    from pbm.cr import mapdata

    if not hasattr(mapdata, "initial_railroads"):
        def initial_railroads() -> list[dict[str, str]]:
            return [{"code": r.code, "price": str(r.price), "efficiency": str(r.efficiency)}
                    for r in mapdata.load_map().initial_railroads]

        mapdata.initial_railroads = initial_railroads  # type: ignore[attr-defined]

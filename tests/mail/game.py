"""A small Continental Rails game built straight into the tables, for mail and turnsheet tests.

It does not need the map part: six towns, two railroads (B&O #1, ERIE #2, both
presided by player 1), three RoWs and three PCs.  Players 1–3 are human with
known secrets; 4–15 are computer seats.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from pbm.auth import turn_code
from pbm.auth import hash_secret
from pbm.models import Game, Holding, Line, Player, PrivateCompany, Railroad, Route, Town

SECRETS = {1: "AAAA-BBBB-CCC1", 2: "AAAA-BBBB-CCC2", 3: "AAAA-BBBB-CCC3"}
EMAILS = {1: "ada@example.org", 2: "ike@example.org", 3: "carl@example.org"}
CHARACTERS = {1: "Countess <of> Rails & Co", 2: "Jay Gould", 3: "Carl Benz"}


@dataclass
class Built:
    game_id: int
    name: str
    turn: int


def build_game(session: Session, name: str = "cr-test", turn: int = 3) -> Built:
    game = Game(title="continental-rails", name=name, seed=7, turn=turn, status="open", climate="Normal",
                year=1840 + turn, anonymous=False, options={}, state={}, turn_key="k" * 32)
    session.add(game)
    session.flush()
    towns = {}
    for i, (town, size) in enumerate([("Baltimore", 4), ("Cumberland", 2), ("Buffalo", 3), ("Albany", 3),
                                       ("Harrisburg", 2), ("Wheeling", 2)]):
        towns[town] = Town(game_id=game.id, name=town, state="XX", lat=39.0 + i, lon=-77.0 - i, size=size,
                           star=False, region="East")
    session.add_all(towns.values())
    session.flush()

    def route(number: int, code: str, kind: str, a: str, b: str, miles: int, rname: str = "") -> Route:
        r = Route(game_id=game.id, number=number, code=code, kind=kind, miles=miles, name=rname,
                  a_id=towns[a].id, b_id=towns[b].id, era=1)
        session.add(r)
        return r

    bo_route = route(1, "B&O", "PC", "Baltimore", "Cumberland", 180, "Baltimore & Ohio")
    erie_route = route(2, "ERIE", "PC", "Buffalo", "Albany", 150, "Erie")
    route(3, "NY2", "RoW", "Cumberland", "Buffalo", 90)
    route(4, "PA1", "RoW", "Albany", "Harrisburg", 70)
    route(5, "PA2", "RoW", "Harrisburg", "Wheeling", 60)
    va1 = route(6, "VA1", "PC", "Baltimore", "Harrisburg", 80, "Virginia One")
    va2 = route(7, "VA2", "PC", "Cumberland", "Wheeling", 60, "Virginia Two")
    va3 = route(8, "VA3", "PC", "Buffalo", "Wheeling", 70, "Virginia Three")
    session.flush()

    players = []
    for n in range(1, 16):
        human = n in SECRETS
        p = Player(game_id=game.id, number=n, name=f"Human {n}" if human else "",
                   email=EMAILS.get(n, ""), character=CHARACTERS.get(n, f"Tycoon {n}"), human=human,
                   personality="human" if human else "builder",
                   secret_hash=hash_secret(SECRETS[n], salt=f"salt{n}") if human else "",
                   cash=2000, loan=500 if n == 1 else 0, net_worth=3929 if n == 1 else 1000)  # §3.5A credit
        players.append(p)
    session.add_all(players)
    session.flush()
    bo = Railroad(game_id=game.id, code="B&O", name="Baltimore & Ohio", number=1, status="active", price=14.0,
                  shares_authorized=900, shares_issued=810, shares_public=600, treasury_shares=90, cash=5000,
                  bond_debt=1000, loan_debt=200, president_debt=300, efficiency=85, locomotive=1,
                  technologies=[], dividend=2, president_id=players[0].id)
    erie = Railroad(game_id=game.id, code="ERIE", name="Erie", number=2, status="active", price=12.0,
                    shares_authorized=750, shares_issued=675, shares_public=500, treasury_shares=75, cash=3000,
                    efficiency=80, locomotive=1, technologies=[], dividend=1, president_id=players[0].id)
    session.add_all([bo, erie])
    session.flush()
    session.add_all([Line(railroad_id=bo.id, route_id=bo_route.id, built_turn=0),
                     Line(railroad_id=erie.id, route_id=erie_route.id, built_turn=0)])
    bo_route.owner_id, erie_route.owner_id = bo.id, erie.id
    players[0].slot1_id, players[0].slot2_id = bo.id, erie.id
    for p in players:
        session.add(Holding(player_id=p.id, railroad_id=bo.id, shares=90 if p.number == 1 else 10,
                            director=p.number == 1))
        session.add(Holding(player_id=p.id, railroad_id=erie.id, shares=70 if p.number == 1 else 5,
                            director=p.number == 1))
    session.add_all([
        PrivateCompany(game_id=game.id, route_id=bo_route.id, status="incorporated", railroad_id=bo.id),
        PrivateCompany(game_id=game.id, route_id=erie_route.id, status="incorporated", railroad_id=erie.id),
        PrivateCompany(game_id=game.id, route_id=va1.id, status="bank", asking_price=400, appeared_turn=1),
        PrivateCompany(game_id=game.id, route_id=va2.id, status="owned", owner_id=players[0].id, paid=300),
        PrivateCompany(game_id=game.id, route_id=va3.id, status="owned", owner_id=players[1].id, paid=500,
                       for_sale=True, asking_price=700, offered_turn=turn - 1),
    ])
    session.flush()
    return Built(game_id=game.id, name=name, turn=turn)


def code_for(session: Session, game_id: int, player: int, turn: int | None = None) -> str:
    game = session.get(Game, game_id)
    return turn_code(game, player, game.turn if turn is None else turn)


def sheet(session: Session, game_id: int, player: int, body: str, *, secret: str | None = None,
          turn: int | None = None, code: str | None = None, game_name: str | None = None) -> str:
    """A filled text sheet: header lines plus ``body``."""
    game = session.get(Game, game_id)
    t = game.turn if turn is None else turn
    return (f"GAME: {game_name or game.name}\nPLAYER: {player}\nTURN: {t}\n"
            f"CODE: {code or turn_code(game, player, t)}\nSECRET: {SECRETS.get(player, '') if secret is None else secret}\n"
            + body)

"""A small Continental Rails game built directly with the ORM, for report tests.

It does not need the map data or the engine: ten eastern towns, a dozen
routes, three railroads, fifteen players (three human, one of them named to
try to break the PDF markup), and three resolved turns of history, events,
ledger and orders.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm.models import (
    Event,
    Game,
    Holding,
    LedgerEntry,
    Line,
    OrderSet,
    Player,
    PlayerTurn,
    PrivateCompany,
    Railroad,
    RailroadTurn,
    Route,
    Town,
)

EVIL = "<b>Evil & Co</b>"
FONT_MESSAGE = 'Buy <font size="40">B&O</font> now & often!'

TOWNS = [
    # name, state, lat, lon, size, region
    ("New York", "NY", 40.71, -74.01, 5, "Atlantic"),
    ("Philadelphia", "PA", 39.95, -75.17, 5, "Atlantic"),
    ("Baltimore", "MD", 39.29, -76.61, 4, "Atlantic"),
    ("Washington", "DC", 38.91, -77.04, 4, "Atlantic"),
    ("Pittsburgh", "PA", 40.44, -80.0, 4, "Central"),
    ("Albany", "NY", 42.65, -73.76, 3, "Atlantic"),
    ("Boston", "MA", 42.36, -71.06, 5, "Atlantic"),
    ("Cleveland", "OH", 41.5, -81.69, 3, "Central"),
    ("Chicago", "IL", 41.88, -87.63, 5, "Midwest"),
    ("Harrisburg", "PA", 40.27, -76.88, 2, "Atlantic"),
]

ROUTES = [
    # number, code, kind, miles, name, a, b
    (1, "B&O", "PC", 40, "Baltimore & Ohio", "Baltimore", "Washington"),
    (2, "PRR", "PC", 100, "Pennsylvania", "Philadelphia", "Harrisburg"),
    (3, "NYC", "PC", 140, "New York Central", "New York", "Albany"),
    (4, "B&A", "PC", 200, "Boston & Albany", "Boston", "Albany"),
    (5, "P&C", "PC", 130, "Pittsburgh & Cleveland", "Pittsburgh", "Cleveland"),
    (6, "LS", "PC", 340, "Lake Shore", "Cleveland", "Chicago"),
    (7, "PA1", "RoW", 200, "", "Harrisburg", "Pittsburgh"),
    (8, "MD1", "RoW", 100, "", "Baltimore", "Philadelphia"),
    (9, "NJ1", "RoW", 90, "", "Philadelphia", "New York"),
    (10, "NY1", "RoW", 290, "", "Albany", "Cleveland"),
    (11, "MD2", "RoW", 210, "", "Baltimore", "Pittsburgh"),
]


def build_game(session: Session, *, name: str = "test-game", anonymous: bool = False, turns: int = 3,
               evil: bool = True) -> Game:
    """A game whose turns 1..``turns`` have been resolved (``game.turn == turns + 1``)."""
    game = Game(title="continental-rails", name=name, seed=7, turn=turns + 1, status="open",
                climate="Prosperity", year=1841 + 2 * turns, anonymous=anonymous, options={}, state={},
                turn_key="k" * 32)
    session.add(game)
    session.flush()
    towns = {}
    for tname, st, lat, lon, size, region in TOWNS:
        towns[tname] = Town(game_id=game.id, name=tname, state=st, lat=lat, lon=lon, size=size, region=region)
    session.add_all(towns.values())
    session.flush()
    routes = {}
    for number, code, kind, miles, rname, a, b in ROUTES:
        routes[code] = Route(game_id=game.id, number=number, code=code, kind=kind, miles=miles, name=rname,
                             a_id=towns[a].id, b_id=towns[b].id)
    session.add_all(routes.values())
    session.flush()
    players = []
    humans = {
        1: ("Ada Lovelace", "ada@example.org", "555-0101", "1 Analytical Row, London", False, "Countess of Rails"),
        2: ("Brunel Isambard", "ike@example.org", "555-0102", "Box 2, Bristol", True, EVIL if evil else "Brunel"),
        3: ("Carl Benz", "carl@example.org", "555-0103", "3 Motorweg, Mannheim", False, "Jay Gould"),
    }
    for n in range(1, 16):
        if n in humans:
            pname, email, phone, addr, hide, char = humans[n]
            p = Player(game_id=game.id, number=n, name=pname, email=email, phone=phone, address=addr,
                       hide_phone=hide, hide_address=hide, character=char, human=True, personality="human",
                       cash=2000 + 100 * n, loan=0, credit_limit=1500)
        else:
            p = Player(game_id=game.id, number=n, character=f"Computer Tycoon {n}", human=False,
                       cash=1500 + 10 * n, credit_limit=1000)
        players.append(p)
    session.add_all(players)
    session.flush()
    rrs = []
    for number, (code, prc, eff) in enumerate([("B&O", 14.5, 88), ("PRR", 12.0, 74), ("NYC", 16.25, 91)], start=1):
        r = Railroad(game_id=game.id, code=code, name=routes[code].name, number=number, status="active",
                     founded_turn=0, price=prc, shares_authorized=routes[code].miles * 5,
                     shares_issued=routes[code].miles * 5 * 9 // 10, shares_public=0,
                     treasury_shares=routes[code].miles * 5 // 10, cash=5000 + 1000 * number,
                     bond_debt=1000 * number, loan_debt=100 * number, efficiency=eff, dividend=number,
                     last_revenue=4000 + 500 * number, last_expenses=2500 + 300 * number,
                     last_profit=1200 + 100 * number, last_dividend=number, land=10 * number,
                     technologies=["A"] if number == 1 else [])
        session.add(r)
        session.flush()
        session.add(Line(railroad_id=r.id, route_id=routes[code].id, built_turn=0))
        routes[code].owner_id = r.id
        rrs.append(r)
    bo, prr, nyc = rrs
    session.add(Line(railroad_id=bo.id, route_id=routes["MD2"].id, built_turn=2, double_tracked=True))
    routes["MD2"].owner_id = bo.id
    routes["PA1"].owner_id = prr.id
    routes["PA1"].land_grant = 12
    session.flush()
    # Holdings: player 1 presides B&O, player 3 presides PRR, a computer presides NYC.
    shares = {(1, "B&O"): 60, (3, "B&O"): 20, (2, "B&O"): 10, (3, "PRR"): 90, (1, "PRR"): 5,
              (7, "NYC"): 100, (2, "NYC"): 70, (4, "NYC"): 10}
    by_code = {r.code: r for r in rrs}
    for (n, code), count in shares.items():
        rr = by_code[code]
        director = count * 10 >= rr.shares_issued
        session.add(Holding(player_id=players[n - 1].id, railroad_id=rr.id, shares=count, director=director,
                            short=5 if (n, code) == (2, "B&O") else 0))
    for r in rrs:
        r.shares_public = r.shares_issued - sum(c for (n, code), c in shares.items() if code == r.code)
    bo.president_id, bo.chairman_id = players[0].id, players[0].id
    prr.president_id, prr.chairman_id = players[2].id, players[2].id
    nyc.president_id, nyc.chairman_id = players[6].id, players[6].id
    players[0].slot1_id = bo.id
    players[2].slot1_id = prr.id
    players[6].slot1_id = nyc.id
    # PCs: B&A for sale by the bank, P&C owned by player 2 and for sale, LS new.
    for code, status, owner, ask, appeared in [("B&O", "incorporated", None, None, None),
                                               ("PRR", "incorporated", None, None, None),
                                               ("NYC", "incorporated", None, None, None),
                                               ("B&A", "bank", None, 1000, 1),
                                               ("P&C", "owned", players[1], 1300, 1),
                                               ("LS", "bank", None, 1700, turns + 1)]:
        pc = PrivateCompany(game_id=game.id, route_id=routes[code].id, status=status,
                            owner_id=owner.id if owner else None, asking_price=ask,
                            for_sale=bool(ask), paid=650 if owner else 0, appeared_turn=appeared,
                            railroad_id=by_code[code].id if code in by_code else None)
        session.add(pc)
    session.flush()
    for p in players:
        p.net_worth = p.cash + sum(int(h.shares * h.railroad.price) for h in p.holdings) - p.loan
    # History.
    for t in range(1, turns + 1):
        for p in players:
            session.add(PlayerTurn(game_id=game.id, turn=t, player_number=p.number, cash=p.cash - 100 * (turns - t),
                                   loan=0, net_worth=p.net_worth - 150 * (turns - t) + 20 * p.number,
                                   vp={"robber_baron": t * (2 if p.number == 1 else 1), "rail_mogul": t,
                                       "rail_builder": 0, "rail_magnate": t if p.number in (1, 3) else 0,
                                       "rail_prodigal": 0, "rail_baron": 100 * t // turns}))
        for r in rrs:
            session.add(RailroadTurn(game_id=game.id, turn=t, code=r.code, start_price=r.price - (turns - t + 1) * 0.5,
                                     end_price=r.price - (turns - t) * 0.5,
                                     data={"public_offered": 30 + t, "public_bid": 25 + t,
                                           "players_offered": 5, "players_bid": 12}))
    last = turns
    seq = 0

    def ev(step, kind, text, *, player=None, rr=None, headline=False, private_to=None, data=None, amount=None):
        nonlocal seq
        seq += 1
        session.add(Event(game_id=game.id, turn=last, seq=seq, step=step, rule="", kind=kind,
                          player_number=player, railroad=rr, amount=amount, headline=headline,
                          private_to=private_to, text=text, data=data or {}))

    ev("5", "pc-bought", f"{EVIL if evil else 'Brunel'} buys the P&C for $650.", player=2, headline=True)
    ev("6.2", "stock-buy", "You bought 10 B&O at $14.00.", player=1, rr="B&O", private_to=[1],
       data={"shares": 10, "price": 14.0})
    ev("6.2", "stock-sell", "You sold 5 PRR at $12.10.", player=1, rr="PRR", private_to=[1],
       data={"shares": 5, "price": 12.1})
    ev("6.2", "stock-buy", "Player 2 bought 70 NYC.", player=2, rr="NYC", private_to=[2],
       data={"shares": 70, "price": 16.0})
    ev("13.5", "split", "NYC splits its stock two for one.", rr="NYC")
    ev("7.3", "bank-failure", "A bank failure costs you $120.", player=3, private_to=[3], amount=120)
    ev("11", "secret", "Only player 2 should see this SECRET-FOR-2.", player=2, private_to=[2], headline=True)
    ev("13.1", "revenue", "B&O collects $4,500.", rr="B&O", amount=4500)
    # Ledger.
    lseq = 0
    for src, tgt, amount, memo, step in [
        ("player:1", "public", 140, "bought 10 B&O", "7.1"),
        ("public", "player:1", 60, "sold 5 PRR", "7.1"),
        ("bank", "player:1", 25, "interest on cash", "7.3"),
        ("rr:B&O", "player:1", 60, "dividend B&O", "13.5"),
        ("public", "rr:B&O", 4500, "revenues", "13.1"),
        ("rr:B&O", "public", 2800, "operating expenses", "13.2"),
        ("public", "rr:NYC", 5500, "revenues", "13.1"),
        ("rr:NYC", "bank", 3100, "operating expenses", "13.2"),
        ("player:2", "bank", 650, "bought P&C", "5"),
    ]:
        lseq += 1
        session.add(LedgerEntry(game_id=game.id, turn=last, seq=lseq, step=step, source=src, target=tgt,
                                amount=amount, memo=memo))
    # Orders: player 1 spies on player 2 and on NYC; player 2 writes a markup message.
    session.add(OrderSet(game_id=game.id, turn=last, player_id=players[0].id, source="email", status="accepted",
                         orders={"spy_player": 2, "spy_railroad": "NYC", "message": "All aboard the B&O!"},
                         received_seq=1))
    session.add(OrderSet(game_id=game.id, turn=last, player_id=players[1].id, source="email", status="accepted",
                         orders={"message": FONT_MESSAGE + " " + "x" * 100}, received_seq=2))
    session.add(OrderSet(game_id=game.id, turn=last, player_id=players[2].id, source="email",
                         status="superseded", orders={"message": "OLD MESSAGE"}, received_seq=3))
    session.add(OrderSet(game_id=game.id, turn=last, player_id=players[2].id, source="email", status="accepted",
                         orders={}, received_seq=4,
                         problems=[{"where": "stock 1", "message": "bid <lowered> & adjusted", "allowed": "0-10"}]))
    session.flush()
    return game

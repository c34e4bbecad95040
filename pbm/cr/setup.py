"""Creating a Continental Rails game (§2.4, §3.1–§3.3, Appendix C).

A new game has 15 positions (§3.1): the humans of the players file, the rest
played by the computer.  Every tycoon starts with identical cash and identical
stock in each initial railroad (§3.3).  About six railroads are active in 1841
and about twenty PCs are offered by the bank on turn 1 (Appendix C).  The
numbers chosen where the rulebook is silent are house rulings, written in
``docs/rulings.md``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm import seats
from pbm.auth import hash_secret, new_secret
from pbm.seats import SeatRequest
from pbm.errors import PbmError
from pbm.models import Game, Holding, Line, Player, PrivateCompany, Railroad, Route, Town
from pbm.rng import generator

TITLE = "continental-rails"
POSITIONS = 15  # §3.1
START_YEAR = 1841  # §1.1
START_CLIMATE = "Normal"  # ruling R3.3-c
START_CASH = 2000  # ruling R3.3-a: identical starting cash (§3.3)
START_STOCK_PCT = 4  # ruling R3.3-b: each tycoon holds 4 % of each initial railroad's issued stock
SHARES_PER_MILE = 5  # §4.3A
TREASURY_PCT = 10  # §4.3A1: 10 % retained as treasury stock
PCS_ON_TURN_ONE = 20  # Appendix C: "about 20 Private Companies available"
BANK_PRICE_PER_MILE = 5  # §2.4D

# §3.2: random historical characters, assigned where no name is chosen.
HISTORICAL_CHARACTERS = [
    "Cornelius Vanderbilt", "Jay Gould", "Jim Fisk", "Daniel Drew", "James J. Hill",
    "E. H. Harriman", "Collis P. Huntington", "Leland Stanford", "Charles Crocker",
    "Mark Hopkins", "Thomas A. Scott", "J. Edgar Thomson", "John W. Garrett",
    "Erastus Corning", "John Murray Forbes", "Henry Villard", "Jay Cooke",
    "Russell Sage", "Charles E. Perkins", "Thomas C. Durant", "Oakes Ames",
    "Grenville Dodge", "Theodore Judah", "Henry Flagler", "Henry B. Plant",
    "A. B. Stickney", "William Vanderbilt", "Cyrus K. Holliday", "William J. Palmer",
    "Moses Taylor", "John Insley Blair", "Frederick Billings", "Tom Scott",
    "George Pullman", "Andrew Carnegie", "J. P. Morgan", "Edward Payson Weston",
    "Josiah Perham", "Asa Whitney", "Ezra Cornell",
]

# computer seats in turn (pbm.cr.ai): 1 builder, 2 speculator, 3 empire, 4 builder, …
COMPUTER_PERSONALITIES = ("builder", "speculator", "empire")


class SetupError(PbmError):
    """A new game cannot be created; the message names the problem."""


@dataclass
class NewGame:
    game: Game
    secrets: dict[int, str] = field(default_factory=dict)  # player number -> secret (shown once)
    notes: list[str] = field(default_factory=list)


def read_players_file(path: Path) -> list[SeatRequest]:
    """The players file of a Continental Rails game: at most 15 humans (§3.1)."""
    return seats.read_players_file(path, max_seats=POSITIONS, why="§3.1 has 15 positions")


def _initial_railroads(game_map):
    rows = list(game_map.initial_railroads)
    for row in rows:
        route = game_map.routes.get(row.code)
        if route is None or route.kind != "PC":
            raise SetupError(f"initial railroad {row.code!r} is not a PC of the map")
    return rows


def create_game(
    session: Session,
    *,
    seed: int,
    name: str | None = None,
    seats: list[SeatRequest] | None = None,
    anonymous: bool = False,
) -> NewGame:
    """Create a game in ``session`` (the caller commits)."""
    seats = seats or []
    if len(seats) > POSITIONS:
        raise SetupError(f"more than {POSITIONS} players")
    name = name or f"cr-{seed}"
    if session.scalar(select(Game.id).where(Game.name == name)) is not None:
        raise SetupError(f"a game named {name!r} already exists (choose another --name)")
    from pbm.cr import mapdata

    game_map = mapdata.load_map()
    game = Game(
        title=TITLE, name=name, seed=seed, turn=1, status="open", climate=START_CLIMATE,
        year=START_YEAR, anonymous=anonymous, options={}, state={}, turn_key=secrets.token_hex(16),
    )
    session.add(game)
    session.flush()
    result = NewGame(game=game)

    towns: dict[str, Town] = {}
    for t in game_map.towns.values():
        town = Town(game_id=game.id, name=t.name, state=t.state, lat=t.lat, lon=t.lon,
                    size=t.size, star=t.star, region=t.region)
        towns[t.name] = town
    session.add_all(towns.values())
    session.flush()
    routes: dict[str, Route] = {}
    for r in sorted(game_map.routes.values(), key=lambda r: r.number):
        route = Route(game_id=game.id, number=r.number, code=r.code, kind=r.kind, miles=r.miles,
                      name=r.name, a_id=towns[r.a].id, b_id=towns[r.b].id,
                      double_with=r.double_with, era=r.era)
        routes[r.code] = route
    session.add_all(routes.values())
    session.flush()

    _create_players(session, game, seats, result)
    rng = generator(seed, 0, "setup")
    initial = _initial_railroads(game_map)
    pcs: dict[str, PrivateCompany] = {}
    for r in sorted(game_map.routes.values(), key=lambda r: r.number):
        if r.kind == "PC":
            pcs[r.code] = PrivateCompany(game_id=game.id, route_id=routes[r.code].id, status="unavailable")
    session.add_all(pcs.values())
    session.flush()

    players = sorted(game.players, key=lambda p: p.number)
    for number, row in enumerate(initial, start=1):
        code = row.code
        route = routes[code]
        price = float(row.price)  # §4.3A1: $10–18 (pbm/cr/data/initial_railroads.csv)
        efficiency = int(row.efficiency)
        authorized = SHARES_PER_MILE * route.miles
        treasury = authorized * (row.treasury_pct or TREASURY_PCT) // 100
        issued = authorized - treasury
        each = issued * START_STOCK_PCT // 100
        railroad = Railroad(
            game_id=game.id, code=code, name=route.name, number=number, status="active", founded_turn=0,
            price=price, shares_authorized=authorized, shares_issued=issued,
            shares_public=issued - each * len(players), treasury_shares=treasury,
            # Ruling R3.3-d: the 70 % brokered to the public at 10 % under price is its starting cash.
            cash=int(authorized * 70 // 100 * price * 0.9), efficiency=efficiency, locomotive=1,
            technologies=[], dividend=1,
        )
        session.add(railroad)
        session.flush()
        session.add(Line(railroad_id=railroad.id, route_id=route.id, built_turn=0))
        route.owner_id = railroad.id
        pc = pcs[code]
        pc.status, pc.railroad_id = "incorporated", railroad.id
        for player in players:
            session.add(Holding(player_id=player.id, railroad_id=railroad.id, shares=each))
    session.flush()

    # Turn 1's PCs (§2.4C, Appendix C): era-1 PCs that are not railroads, drawn by the seed.
    candidates = [pcs[r.code] for r in sorted(game_map.routes.values(), key=lambda r: r.number)
                  if r.kind == "PC" and r.era == 1 and pcs[r.code].status == "unavailable"]
    order = rng.permutation(len(candidates))
    for index in order[:PCS_ON_TURN_ONE]:
        pc = candidates[int(index)]
        pc.status, pc.appeared_turn = "bank", 1
        pc.asking_price = BANK_PRICE_PER_MILE * game_map.routes[pc.route.code].miles if pc.route else None
    for index in order[PCS_ON_TURN_ONE:]:
        candidates[int(index)].eligible_turns = 1
    session.flush()
    for player in players:
        player.net_worth = net_worth(player)
    return result


def net_worth(player: Player) -> int:
    """§3.5A: cash + stock value + PC value (at most $20/mile) − debt."""
    stock = sum(int(h.shares * h.railroad.price) for h in player.holdings)
    return player.cash + stock - player.loan


def _create_players(session: Session, game: Game, seats: list[SeatRequest], result: NewGame) -> None:
    rng = generator(game.seed, 0, "characters")
    taken: set[str] = set()
    pool = [HISTORICAL_CHARACTERS[int(i)] for i in rng.permutation(len(HISTORICAL_CHARACTERS))]

    def random_character() -> str:
        while pool:
            candidate = pool.pop(0)
            if candidate.lower() not in taken:
                return candidate
        raise SetupError("ran out of historical character names")

    for number in range(1, POSITIONS + 1):
        seat = seats[number - 1] if number <= len(seats) else None
        if seat is not None:
            character = seat.character
            if not character or character.lower() in taken:
                if character:
                    result.notes.append(
                        f"line {seat.line}: character {character!r} is taken; "
                        "a random historical name was assigned (§3.2)"
                    )
                character = random_character()
            secret = new_secret()
            result.secrets[number] = secret
            player = Player(
                game_id=game.id, number=number, name=seat.name, email=seat.email, phone=seat.phone,
                address=seat.address, hide_address=seat.hide_address, hide_phone=seat.hide_phone,
                character=character, human=True, personality="human", secret_hash=hash_secret(secret),
                cash=START_CASH,
            )
        else:
            character = random_character()
            player = Player(
                game_id=game.id, number=number, character=character, human=False,
                personality=COMPUTER_PERSONALITIES[(number - 1) % len(COMPUTER_PERSONALITIES)], cash=START_CASH,
            )
        taken.add(character.lower())
        session.add(player)
    session.flush()

"""A stand-in for the turn engine in cycle tests: advances the turn and writes history rows."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.models import Event, Game, LedgerEntry, Player, PlayerTurn, Railroad, RailroadTurn


def fake_run_turn(session: Session, game: Game) -> None:
    turn = game.turn
    players = list(session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)))
    railroads = list(session.scalars(select(Railroad).where(Railroad.game_id == game.id).order_by(Railroad.id)))
    for r in railroads:
        start = r.price
        r.price = round(r.price + 0.25 * (1 + turn % 3), 2)
        session.add(RailroadTurn(game_id=game.id, turn=turn, code=r.code, start_price=start, end_price=r.price,
                                 data={"public_offered": 10, "public_bid": 12, "players_offered": 0,
                                       "players_bid": 0}))
    for i, p in enumerate(players):
        p.cash += 10 * turn
        p.vp_robber += 5 if i == 0 else 1
        session.add(LedgerEntry(game_id=game.id, turn=turn, seq=i + 1, step="7.3", source="bank",
                                target=f"player:{p.number}", amount=10 * turn, memo="interest on cash"))
        session.add(PlayerTurn(game_id=game.id, turn=turn, player_number=p.number, cash=p.cash, loan=p.loan,
                               net_worth=p.cash + 100 * turn, vp={"robber_baron": p.vp_robber}))
    session.add(Event(game_id=game.id, turn=turn, seq=1, step="16", rule="§1.2", kind="turn", headline=True,
                      text=f"Turn {turn} resolved by the test engine."))
    game.turn += 1
    game.year += 2
    session.flush()

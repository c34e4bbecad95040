"""Gather a turn's orders: for every seat, the sheet that counts — mailed, read from a file or
entered by the moderator, all stored as accepted OrderSet rows, the newest by arrival — else
the computer's (a computer seat, or a human seat taken over, ruling M3), else standing orders.

The pipeline step above the game kind and the mailbox: the kind turns a stored sheet into its
own orders (``GameKind.read_orders``); :mod:`pbm.mail.policy` says which sheet counts;
:mod:`pbm.seats` says who sits at the computer.  Gathering only reads.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.kinds import kind_of
from pbm.mail.policy import accepted_orderset
from pbm.models import Game, Player
from pbm.seats import computer_seated


def orders_for_turn(session: Session, game: Game, turn: int | None = None) -> dict[int, tuple[Any, str]]:
    """{player number: (orders, source)} for every seat; ``source`` is ``email``, ``moderator`` or
    ``file`` (a stored sheet), ``computer`` or ``standing`` (blank orders: the engine fills a
    computer seat's in when it resolves; standing orders change nothing, §10.1D, §10.2H)."""
    kind = kind_of(game)
    turn = game.turn if turn is None else turn
    players = session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)).all()
    plan: dict[int, tuple[Any, str]] = {}
    for player in players:
        chosen = accepted_orderset(session, game, player, turn)
        if chosen is not None:
            plan[player.number] = (kind.read_orders(chosen.orders), chosen.source)
        elif computer_seated(player, game):
            plan[player.number] = (kind.read_orders(None), "computer")
        else:
            plan[player.number] = (kind.read_orders(None), "standing")
    return plan

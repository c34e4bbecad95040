"""Deadlines, which sheet counts, and what happens when a player sends none (docs/rulings/mail.md).

For the turn engine::

    from pbm.mail.policy import orders_for_turn, note_missed_turns

    plan = orders_for_turn(session, game)          # {player_number: (Orders, source)}
    ...resolve the turn with them...
    note_missed_turns(session, game, turn)         # after resolving: update the missed-turn counters

``source`` is one of:

* ``"email"`` / ``"moderator"`` / ``"file"`` — the newest accepted OrderSet of that player for the
  turn (by arrival order; earlier ones are ``superseded``);
* ``"standing"`` — a human player sent nothing: blank orders, which keep control (§10.1D) and
  dividend rates (§10.2H) unchanged and order nothing else;
* ``"computer"`` — a computer seat (§3.1), or a human seat whose player has missed
  ``missed_turns_limit`` turns in a row (ruling M3; default 2, ``Game.options``): the engine
  must replace the blank orders given here by its computer player's orders.

:func:`orders_for_turn` only reads; :func:`note_missed_turns` is the one place the
counter changes, once per turn (recorded in the turn's TurnState history).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.cr.orders import Orders
from pbm.models import Game, OrderSet, Player, TurnState

DEFAULT_MISSED_TURNS_LIMIT = 2  # ruling M3 (§3.1)


def missed_turns_limit(game: Game) -> int:
    try:
        value = int((game.options or {}).get("missed_turns_limit", DEFAULT_MISSED_TURNS_LIMIT))
    except (TypeError, ValueError):
        return DEFAULT_MISSED_TURNS_LIMIT
    return max(1, value)


def turn_state(session: Session, game: Game, turn: int, *, create: bool = False) -> TurnState | None:
    state = session.scalar(select(TurnState).where(TurnState.game_id == game.id, TurnState.turn == turn))
    if state is None and create:
        state = TurnState(game_id=game.id, turn=turn, state="open", history=[])
        session.add(state)
        session.flush()
    return state


def deadline_for(session: Session, game: Game, turn: int | None = None) -> datetime | None:
    """The turn's deadline (UTC, naive): its TurnState's, else the game's for the current turn."""
    turn = game.turn if turn is None else turn
    state = turn_state(session, game, turn)
    if state is not None and state.deadline is not None:
        return state.deadline
    return game.deadline if turn == game.turn else None


def set_deadline(session: Session, game: Game, when: datetime | None) -> None:
    state = turn_state(session, game, game.turn, create=True)
    assert state is not None
    state.deadline = when
    state.history = [*(state.history or []), {"event": "deadline", "when": when.isoformat() if when else None}]
    game.deadline = when


def accepted_orderset(session: Session, game: Game, player: Player, turn: int) -> OrderSet | None:
    """The sheet that counts: the newest accepted one by arrival."""
    return session.scalar(
        select(OrderSet).where(OrderSet.game_id == game.id, OrderSet.turn == turn, OrderSet.player_id == player.id,
                               OrderSet.status == "accepted")
        .order_by(OrderSet.received_seq.desc(), OrderSet.id.desc()).limit(1))


def supersede_older(session: Session, chosen: OrderSet) -> None:
    """§ "the last sheet counts": every other accepted sheet of the player and turn that arrived
    earlier becomes ``superseded``; if a later one is already accepted, ``chosen`` is superseded."""
    others = session.scalars(select(OrderSet).where(
        OrderSet.game_id == chosen.game_id, OrderSet.turn == chosen.turn, OrderSet.player_id == chosen.player_id,
        OrderSet.status == "accepted", OrderSet.id != chosen.id)).all()
    for other in others:
        if (other.received_seq, other.id) < (chosen.received_seq, chosen.id):
            other.status = "superseded"
        else:
            chosen.status = "superseded"


def computer_seated(player: Player, game: Game) -> bool:
    """§3.1: a computer seat, or a human seat taken over after too many missed turns (ruling M3)."""
    return not player.human or player.missed_turns >= missed_turns_limit(game)


def orders_for_turn(session: Session, game: Game, turn: int | None = None) -> dict[int, tuple[Orders, str]]:
    """{player number: (orders, source)} for every seat (see the module docstring)."""
    turn = game.turn if turn is None else turn
    players = session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)).all()
    plan: dict[int, tuple[Orders, str]] = {}
    for player in players:
        chosen = accepted_orderset(session, game, player, turn)
        if chosen is not None:
            plan[player.number] = (Orders.from_dict(chosen.orders), chosen.source)
        elif computer_seated(player, game):
            plan[player.number] = (Orders(), "computer")
        else:
            plan[player.number] = (Orders(), "standing")
    return plan


def note_missed_turns(session: Session, game: Game, turn: int) -> dict[int, int]:
    """After resolving ``turn``: a human who sent a sheet is back to 0 missed turns (and back in
    their seat); one who did not has one more.  Done once per turn.  Returns {number: missed}."""
    state = turn_state(session, game, turn, create=True)
    assert state is not None
    history = list(state.history or [])
    players = session.scalars(select(Player).where(Player.game_id == game.id, Player.human.is_(True))
                              .order_by(Player.number)).all()
    if any(h.get("event") == "missed-turns-counted" for h in history):
        return {p.number: p.missed_turns for p in players}
    counts: dict[int, int] = {}
    for player in players:
        chosen = accepted_orderset(session, game, player, turn)
        if chosen is not None and chosen.source not in ("computer", "standing"):  # a sheet the player sent
            player.missed_turns = 0
        else:
            player.missed_turns += 1
        counts[player.number] = player.missed_turns
    state.history = [*history, {"event": "missed-turns-counted", "counts": {str(k): v for k, v in counts.items()}}]
    return counts

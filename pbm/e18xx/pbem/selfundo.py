"""A player takes back their own last mail (issue 29 item 6 of "what to build"; 18xx.games
lets a player undo until another player has acted).

``undo``, alone in a mail, removes every action stored from that player's last accepted move
mail, if nothing was stored after them but what that same mail caused (other players'
standing-order passes).  Once another player, the computer or a time-out has acted, the mail is
refused and says how to ask the moderator (``pbm 18xx undo``).  The removed actions are gone
from the log (it stays the only record); the moderator's undo count grows by as many, so the
state mails after an undo never reuse an outbox key.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session

from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem.games import action_rows, load, set_offer
from pbm.e18xx.pbem.moves import format_action


@dataclass
class Undone:
    ok: bool
    why: str = ""  # the refusal, when not ok
    removed: list[Any] = field(default_factory=list)  # the Action18 rows taken back, in order


def is_undo(moves: str) -> bool | None:
    """True if the move text is ``undo`` alone; None if ``undo`` is among other moves; False if
    there is no ``undo``."""
    lines = [ln.split("#", 1)[0].strip().lower() for ln in moves.splitlines()]
    lines = [ln for ln in lines if ln]
    if "undo" not in lines:
        return False
    return True if lines == ["undo"] else None


def moderator_hint(game_row) -> str:
    return (f"ask the moderator to take it back (the moderator runs `pbm 18xx undo {game_row.name}` once for "
            "each action to remove)")


def undo_own(session: Session, game_row, seat: int) -> Undone:
    """Remove seat ``seat``'s last mail's actions, if nobody has acted since."""
    rows = action_rows(session, game_row)
    own = [r for r in rows if r.player_number == seat and r.action.get("_via") in (None, "added")]  # "added": his mail's
    if not own:
        return Undone(False, "you have no move of yours to take back in this game")
    last = own[-1]
    if last.message_id is None:
        return Undone(False, f"your last move (#{last.seq}) was not made by your mail; {moderator_hint(game_row)}")
    first = min(r.seq for r in rows if r.message_id == last.message_id)
    after = [r for r in rows if r.seq >= first]
    others = [r for r in after if r.message_id != last.message_id]
    if others:
        o = others[0]
        act = A.action_from_dict(o.action)
        return Undone(False, f"another move came after yours (#{o.seq}: {act.entity}: {format_action(act)}), "
                             f"so yours can no longer be taken back by mail; {moderator_hint(game_row)}")
    ids = [r.id for r in after]
    from pbm.models import Action18

    session.execute(delete(Action18).where(Action18.id.in_(ids)))
    opts = game_row.options or {}
    game_row.options = {**opts, "undos": int(opts.get("undos", 0)) + len(after)}
    set_offer(game_row, None)
    if game_row.status == "finished":
        game_row.status = "open"
    session.flush()
    game_row.turn = load(session, game_row).state.turn
    session.flush()
    return Undone(True, "", after)

"""The events of an 18xx game in mails, the PDF and ``pbm 18xx log --events`` (issue 29 item 2).

Events are recorded by the replay (:mod:`pbm.e18xx.events`).  A state mail shows a reader the
events since the last state mail sent to him, newest last, each under the action that caused
it.  Which action a seat's last mail showed is kept in the game's state (``mailed``: seat ->
[action count, the game's undos then]), written when a state mail to that seat is queued; a
seat with none on file (a game older than this) hears of the events since its own last move.
"""
from __future__ import annotations

from typing import Any

from pbm.e18xx.events import Event, money_of, recorded

MAIL_LIMIT = 60  # event lines in one mail at most (the rest: the PDF, the web page, ``pbm 18xx log --events``)


def action_line(row: Any, names: dict[int, str] | None = None, game: Any = None) -> str:
    """``#63 Ann for CAR: run auto`` of a stored action row (with ``game``, a private's ability is
    its owning company's move: ``#63 Cy for N&W: buy train 3 with P2 for $0 ($200 off)``)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.moves import action_words

    d = row.action or {}
    try:
        act = A.action_from_dict(d)
        ent, text = action_words(game, act, getattr(row, "seq", None))
    except Exception:  # noqa: BLE001 - a line is shown whatever the engine makes of it
        ent, text = str(d.get("entity", "?")), str(d.get("type", "?"))
    who = (names or {}).get(row.player_number or 0, "")
    head = ent if not who or who == ent else f"{who} for {ent}"
    return f"#{row.seq} {head}: {text}"


def grouped(game: Any, events: list[Event], rows: list[Any] | None = None, names: dict[int, str] | None = None,
            *, limit: int | None = None, indent: str = "  ") -> list[str]:
    """Events in plain words under the action that caused each, newest last; ``limit``: the
    newest that many events (a line first says how many earlier ones are left out)."""
    money = money_of(game.title)
    by_seq = {r.seq: r for r in rows or []}
    out: list[str] = []
    shown = events
    if limit is not None and len(events) > limit:
        shown = events[-limit:]
        out.append(f"{indent}({len(events) - limit} earlier event(s) not shown)")
    last = None
    for e in shown:
        if e.seq != last:
            last = e.seq
            row = by_seq.get(e.seq)
            if row is None and 0 < e.seq <= len(game.actions):  # the game's own log: the entity that acted
                from pbm.e18xx.pbem.moves import action_words

                ent, text = action_words(game, game.actions[e.seq - 1], e.seq)
                out.append(f"{indent}#{e.seq} {ent}: {text}")
            else:
                out.append(f"{indent}{action_line(row, names, game) if row is not None else f'#{e.seq}'}")
        out.append(f"{indent}  {e.text(money)}")
    return out


def _undos(game_row: Any) -> int:
    """Actions taken back so far (``pbm 18xx undo``, a player's own undo): the game's ``undos``."""
    return int((game_row.options or {}).get("undos", 0))


def last_mailed(game_row: Any, seat: int) -> int | None:
    """The action count a seat's last state mail showed, less the actions taken back since then
    (an undo removes the last actions: what survives of what the mail showed is at least that
    many; an event may so be told twice, never missed)."""
    got = ((game_row.state or {}).get("mailed") or {}).get(str(seat))
    if got is None:
        return None
    count, undos = (int(got[0]), int(got[1])) if isinstance(got, list) else (int(got), _undos(game_row))
    return max(0, count - max(0, _undos(game_row) - undos))


def mark_mailed(game_row: Any, seat: int, count: int) -> None:
    st = dict(game_row.state or {})
    st["mailed"] = {**(st.get("mailed") or {}), str(seat): [int(count), _undos(game_row)]}
    game_row.state = st


def since_for(game_row: Any, seat: Any, rows: list[Any]) -> int:
    """The action count after which a seat has not yet heard of the events."""
    got = last_mailed(game_row, seat.number)
    if got is not None:
        return got
    mine = [r.seq for r in rows if r.player_number == seat.number and (r.action or {}).get("_via") in (None, "added")]
    return mine[-1] if mine else 0


def mail_block(game_row: Any, game: Any, rows: list[Any], seat: Any, names: dict[int, str] | None = None) -> list[str]:
    """The block of a state mail to ``seat``: what happened since his last mail, newest last."""
    since = min(since_for(game_row, seat, rows), len(game.actions))
    evs = [e for e in recorded(game) if e.seq > since]
    if not evs:
        return []
    return ([f"Events since your last mail (after action {since}; newest last):"]
            + grouped(game, evs, rows, names, limit=MAIL_LIMIT) + [""])


def events_data(game: Any) -> list[dict[str, Any]]:
    """Every event as plain data (``pbm 18xx log --events --json``)."""
    money = money_of(game.title)
    return [e.to_dict(money) for e in recorded(game)]

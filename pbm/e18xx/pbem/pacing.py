"""Keeping 18xx games by email moving (docs/18xx/email.md, "Pacing" and "Stale moves").

Everything here uses only the generic engine API (``legal_actions``,
``process``, ``current_entity``, ``acting_players``), so it works for every
title the engine plays.

* **State codes.** Every state mail names the action number it shows and a
  short code of that state (:func:`state_code`); a move mail may carry them
  back as ``SEEN: 212 K4QF7M``.  :func:`check_seen` refuses a mail written
  against an older state when the game's policy is ``strict``, or, when it is
  ``lenient`` (the default), when the writer has moved since (a captured or
  re-sent mail is stale by then).  A wrong code is always refused.
* **The move clock.** ``Game.state["clock"]`` holds the action count the
  clock runs for and since when (``touch`` restarts it whenever the count
  changes).  :func:`pbm.e18xx.pbem.ticks.tick` (run by ``pbm cycle`` and ``pbm 18xx tick``) sends
  the reminders that are due (once each: outbox keys) and applies the
  time-out the moderator chose (``notify``, ``default``, ``computer``).
* **Absence.** A player may write ``AWAY: 2026-12-01 2026-12-05``; while the
  player on the clock is away, their clock is paused (its deadline moves on by
  the time spent away) and no reminder or time-out happens.
"""
from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from pbm.clock import utcnow  # re-exported: the clock's time is UTC, as the stored one

DEFAULTS: dict[str, Any] = {
    "clock_hours": 48.0,          # the move clock (hours); 0 = no clock
    "round_hours": {},            # per round kind: {"stock": 24, "operating": 48, "auction": 24}
    "remind_before_hours": [6.0],  # reminders this long before the clock runs out
    "remind_half": True,          # and one at half time
    "on_timeout": "notify",       # notify | default | computer
    "stale": "lenient",           # strict | lenient
    "require_seen": False,        # refuse move mails without a SEEN line
    "notify": "every",            # the players' default: every | turn | digest
}
TIMEOUTS = ("notify", "default", "computer")
STALE = ("strict", "lenient")


def settings(game_row) -> dict[str, Any]:
    """The game's pacing settings (the defaults where the moderator chose nothing)."""
    return {**DEFAULTS, **((game_row.options or {}).get("pacing") or {})}


def set_settings(game_row, **changes: Any) -> dict[str, Any]:
    cur = {**((game_row.options or {}).get("pacing") or {})}
    for k, v in changes.items():
        if v is None:
            continue
        if k not in DEFAULTS:
            raise ValueError(f"unknown pacing setting {k!r}")
        cur[k] = v
    game_row.options = {**(game_row.options or {}), "pacing": cur}
    return settings(game_row)


# ----------------------------------------------------------------- state codes and stale moves
def state_code(game_row, count: int) -> str:
    """A short code of the game at ``count`` actions: six letters/digits, unguessable without the game's key."""
    if not game_row.turn_key:  # an imported game: give it its secret key now (stored with the game)
        import secrets

        game_row.turn_key = secrets.token_hex(16)
    key = game_row.turn_key
    digest = hashlib.sha256(f"18xx-state:{key}:{int(count)}".encode()).digest()
    return base64.b32encode(digest)[:6].decode().replace("O", "8").replace("I", "9")


def seen_line(game_row, count: int) -> str:
    return f"SEEN: {count} {state_code(game_row, count)}"


_SEEN = re.compile(r"^\s*#?\s*(\d{1,6})(?:\s*[/ ,;]\s*([A-Za-z0-9]{4,12}))?\s*$")


def check_seen(game_row, seat_number: int, seen: str, rows: list[Any], names: dict[int, str]) -> str | None:
    """The reason a mail written against action ``seen`` is refused now, or None.

    ``rows`` are the stored actions (``seq``, ``player_number``)."""
    opts = settings(game_row)
    count = len(rows)
    if not seen.strip():
        if opts["require_seen"]:
            return (f"the SEEN line is missing: this game takes moves only with the line "
                    f"'{seen_line(game_row, count)}' from the last state mail (it is at action {count})")
        return None
    m = _SEEN.match(seen)
    if not m:
        return f"the SEEN line must be an action number and its code, e.g. '{seen_line(game_row, count)}'"
    n, code = int(m.group(1)), (m.group(2) or "").upper()
    if n > count:
        return f"you wrote against action {n}, but the game is only at action {count}"
    if code and code != state_code(game_row, n):
        return (f"the code {code} is not the code of action {n} (copy the SEEN line of the last state mail; "
                f"the game is at '{seen_line(game_row, count)}')")
    if n == count:
        return None
    since = rows[n:]
    done = "; ".join(f"#{r.seq} {names.get(r.player_number or 0, '-')}" for r in since[-8:])
    if opts["stale"] == "strict":
        return (f"you wrote against action {n}; the game is at action {count} ({done}). "
                f"Read the new state and send your moves again with '{seen_line(game_row, count)}'")
    mine = [r for r in since if r.player_number == seat_number]
    if mine:
        return (f"you wrote against action {n}, and you have moved since (action #{mine[0].seq}); "
                f"this mail is stale. The game is at '{seen_line(game_row, count)}'")
    return None  # lenient: the moves are still tried, and are stored only if they are legal now


# ----------------------------------------------------------------- the clock
def round_kind(game) -> str:
    return "" if game.finished else str(game.state.round.kind)


def clock_hours(game_row, kind: str) -> float:
    opts = settings(game_row)
    per = opts.get("round_hours") or {}
    return float(per.get(kind, opts["clock_hours"]) or 0)


def touch(game_row, count: int, now: datetime | None = None) -> dict[str, Any]:
    """The clock for ``count`` actions; restarted (since = now) when the count changed."""
    st = dict(game_row.state or {})
    clock = st.get("clock") or {}
    if clock.get("at") != count:
        clock = {"at": count, "since": (now or utcnow()).isoformat(timespec="seconds"), "reminded": [],
                 "timed_out": False}
        game_row.state = {**st, "clock": clock}
    return clock


def parse_day(text: str) -> date:
    return date.fromisoformat(text.strip())


def set_away(game_row, seat: int, start: date | None, end: date | None, proxy: int | None = None) -> None:
    st = dict(game_row.state or {})
    away = {k: v for k, v in (st.get("away") or {}).items()}
    if start is None:
        away.pop(str(seat), None)
    else:
        away[str(seat)] = [start.isoformat(), (end or start).isoformat()] + ([proxy] if proxy else [])
    game_row.state = {**st, "away": away}


def proxy_of(game_row, seat: int, now: datetime | None = None) -> int | None:
    """The seat named to move for ``seat`` while it is away (now), or None."""
    rng = ((game_row.state or {}).get("away") or {}).get(str(seat))
    if not rng or len(rng) < 3 or not is_away(game_row, seat, now or utcnow()):
        return None
    return int(rng[2])


def away_time(game_row, seat: int, since: datetime, now: datetime) -> timedelta:
    """How much of [since, now] seat was away (whole days, ends included)."""
    rng = ((game_row.state or {}).get("away") or {}).get(str(seat))
    if not rng:
        return timedelta(0)
    a = datetime.combine(parse_day(rng[0]), datetime.min.time())
    b = datetime.combine(parse_day(rng[1]), datetime.min.time()) + timedelta(days=1)
    lo, hi = max(a, since), min(b, now)
    return max(hi - lo, timedelta(0))


def is_away(game_row, seat: int, now: datetime) -> bool:
    return away_time(game_row, seat, now - timedelta(seconds=1), now) > timedelta(0)


@dataclass
class Clock:
    at: int
    kind: str
    since: datetime
    hours: float
    deadline: datetime | None
    seats: list[int] = field(default_factory=list)
    paused: bool = False

    def line(self) -> str:
        if self.deadline is None:
            return f"On the clock since {self.since:%Y-%m-%d %H:%M} UTC (no move clock)."
        tail = " (paused: away)" if self.paused else ""
        return (f"On the clock since {self.since:%Y-%m-%d %H:%M} UTC; move due by "
                f"{self.deadline:%Y-%m-%d %H:%M} UTC ({self.hours:g} h{'' if not self.kind else ', ' + self.kind + ' round'}){tail}.")


def clock_of(game_row, game, count: int, seat_of: dict[str, int], now: datetime | None = None) -> Clock:
    now = now or utcnow()
    c = touch(game_row, count, now)
    since = datetime.fromisoformat(c["since"])
    kind = round_kind(game)
    hours = clock_hours(game_row, kind)
    seats = [seat_of[p] for p in game.acting_players() if p in seat_of] if not game.finished else []
    if not hours or game.finished:
        return Clock(count, kind, since, hours, None, seats)
    away = max((away_time(game_row, s, since, now) for s in seats), default=timedelta(0))
    paused = any(is_away(game_row, s, now) for s in seats)
    return Clock(count, kind, since, hours, since + timedelta(hours=hours) + away, seats, paused)


def status_lines(session: Session, game_row, game, now: datetime | None = None) -> list[str]:
    """The clock, the state code and the pacing choices of a game, for its state mails and
    ``pbm 18xx status``.  It reads the seats and the action count from the store itself (not through
    :mod:`.games`, which imports this module)."""
    from sqlalchemy import func, select

    from pbm.models import Action18, Player

    seat_of = {p.name: p.number for p in session.scalars(select(Player).where(Player.game_id == game_row.id)
                                                          .order_by(Player.number))}
    count = int(session.scalar(select(func.count()).select_from(Action18)
                               .where(Action18.game_id == game_row.id)) or 0)
    clock = clock_of(game_row, game, count, seat_of, now)
    opts = settings(game_row)
    out = [clock.line(), f"State: {seen_line(game_row, clock.at)}; on time-out: {opts['on_timeout']}; "
           f"stale mails: {opts['stale']}"]
    comp = computer_seats(game_row)
    if comp:
        out.append("Computer seats: " + ", ".join(str(s) for s in comp))
    for k, v in sorted(((game_row.state or {}).get("away") or {}).items()):
        out.append(f"Player {k} away {v[0]} to {v[1]}" + (f" (player {v[2]} may move for them)" if len(v) > 2 else ""))
    return out


def auto_seats(game_row) -> list[int]:
    """Seats whose player opted in (AUTO: on) to the computer's move on their time-out."""
    return sorted(int(x) for x in (game_row.state or {}).get("auto", []))


def set_auto(game_row, seat: int, on: bool) -> None:
    st = dict(game_row.state or {})
    cur = set(int(x) for x in st.get("auto", []))
    cur = cur | {seat} if on else cur - {seat}
    game_row.state = {**st, "auto": sorted(cur)}


def computer_seats(game_row) -> list[int]:
    return sorted(int(s) for s in (game_row.options or {}).get("computer_seats", []))

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
  changes).  :func:`tick` (run by ``pbm cycle`` and ``pbm 18xx tick``) sends
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
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

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


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


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
    from pbm.e18xx.pbem.games import action_count, players

    seat_of = {p.name: p.number for p in players(session, game_row)}
    clock = clock_of(game_row, game, action_count(session, game_row), seat_of, now)
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


# ----------------------------------------------------------------- the tick: reminders and time-outs
def _reminders(opts: dict[str, Any], hours: float) -> list[tuple[str, float]]:
    """(label, hours after the clock started) of each reminder."""
    out = []
    if opts.get("remind_half"):
        out.append(("half", hours / 2))
    for h in opts.get("remind_before_hours") or []:
        if 0 < float(h) < hours:
            out.append((f"{float(h):g}h", hours - float(h)))
    return sorted(out, key=lambda x: x[1])


def tick(session: Session, game_row, sender: str, now: datetime | None = None, moderator: str = "") -> list[str]:
    """Send the reminders that are due and apply a time-out; returns what was done (lines)."""
    from pbm.mail import outbox
    from pbm.mail.compose import make_message, one_line
    from pbm.mail.message import clean_address

    from pbm.e18xx.pbem.games import players, replay_rows
    from pbm.e18xx.pbem.mailplay import broadcast, reply_header

    now = now or utcnow()
    if game_row.status != "open":
        return []
    done: list[str] = []
    if computer_seats(game_row):
        from pbm.e18xx.pbem.computer import play_due

        applied, rep = play_due(session, game_row, now=now)
        if applied:
            broadcast(session, game_row, rep.game, sender, applied=applied, rep=rep,
                      note="The computer moved for its seat(s).")
            done.append(f"computer made {len(applied)} move(s)")
            if game_row.status != "open":
                return done
    rep = replay_rows(session, game_row)
    game = rep.game
    seats = players(session, game_row)
    seat_of = {p.name: p.number for p in seats}
    by_number = {p.number: p for p in seats}
    count = len(game.actions)
    clock = clock_of(game_row, game, count, seat_of, now)
    if clock.deadline is None or clock.paused or game.finished:
        return done
    opts = settings(game_row)
    state = dict(game_row.state or {})
    c = dict(state.get("clock") or {})
    tag = one_line(game_row.name, 40)
    shift = clock.deadline - (clock.since + timedelta(hours=clock.hours))  # time away
    for label, after in _reminders(opts, clock.hours):
        due = clock.since + timedelta(hours=after) + shift
        if now < due or now >= clock.deadline or label in c.get("reminded", []):
            continue
        for n in clock.seats:
            p = by_number[n]
            addr = clean_address(p.email or "")
            if not addr:
                continue
            left = clock.deadline - now
            body = "\n".join([
                f"Reminder: it is your turn in {game_row.title} game {game_row.name} ({_who(game)}).",
                clock.line(), f"Time left: {_span(left)}.", "",
                f"If no move arrives in time: {_timeout_text(opts['on_timeout'])}", "",
                "You may now:"] + [f"  {x}" for x in _legal(game)] + [
                "", "Reply with these lines at the top (your secret after SECRET:), then one move per line:", "",
                reply_header(game_row, n, count), "", "-- ", "pbm (automatic message)"]) + "\n"
            msg = make_message(sender, [addr], f"[{tag}] Reminder: your turn ({_span(left)} left)", body)
            outbox.queue(session, f"18xx-remind:{game_row.id}:{count}:{label}:{n}", "reminder", [addr], msg,
                         game=game_row)
            done.append(f"reminded player {n} ({label})")
        c.setdefault("reminded", []).append(label)
    if now >= clock.deadline and not c.get("timed_out"):
        c["timed_out"] = True
        game_row.state = {**state, "clock": c}
        done += _time_out(session, game_row, rep, clock, opts, sender, moderator, by_number, now)
        return done
    game_row.state = {**state, "clock": c}
    return done


def _who(game) -> str:
    from pbm.e18xx.pbem.games import who_acts

    return who_acts(game)


def _legal(game) -> list[str]:
    from pbm.e18xx.pbem.games import legal_lines

    return legal_lines(game, limit=20)


def _span(d: timedelta) -> str:
    h = max(int(d.total_seconds() // 3600), 0)
    return f"{h // 24} d {h % 24} h" if h >= 24 else f"{h} h"


def _timeout_text(policy: str) -> str:
    return {"notify": "the moderator is told and decides.",
            "default": "a pass is made for you where the rules make one safe (stock round, auction); "
                       "otherwise the moderator is told (unless you wrote AUTO: on: then the computer moves).",
            "computer": "the computer player makes a legal, sensible move for you."}.get(policy, policy)


def default_action(game):
    """The safe default for the acting entity: a plain pass outside the operating rounds, else None."""
    from pbm.e18xx.core import actions as A

    if game.finished or round_kind(game) == "operating":
        return None
    cur = game.current_entity()
    return next((a for a in game.legal_actions() if isinstance(a, A.Pass) and a.entity == cur), None)


def _time_out(session, game_row, rep, clock: Clock, opts, sender: str, moderator: str, by_number,
              now: datetime) -> list[str]:
    from pbm.mail import outbox
    from pbm.mail.compose import make_message, one_line
    from pbm.mail.message import clean_address

    from pbm.e18xx.pbem.games import apply
    from pbm.e18xx.pbem.mailplay import broadcast

    game = rep.game
    policy = opts["on_timeout"]
    act = None
    via = "timeout"
    if policy == "default":
        act = default_action(game)
    elif policy == "computer":
        from pbm.e18xx.pbem.computer import choose

        act = choose(game)
        via = "computer"
    seat = clock.seats[0] if clock.seats else None
    if act is None and policy == "default" and seat in auto_seats(game_row):
        from pbm.e18xx.pbem.computer import choose

        act = choose(game)  # the player opted in: auto-route, payout, forced train (AUTO: on)
    if act is not None and seat is not None:
        out = apply(session, game_row, seat, [act], via=via, now=now)
        if out.accepted:
            assert out.game is not None
            broadcast(session, game_row, out.game, sender, applied=out.applied, rep=out.replayed,
                      note=f"Time-out: the move clock of {by_number[seat].name} ran out; "
                           f"the {'computer' if via == 'computer' else 'default'} move was made.")
            return [f"time-out: {len(out.applied)} action(s) for player {seat}"]
    addr = clean_address(moderator or "") or clean_address(sender)
    if not addr:
        return ["time-out: nobody to tell"]
    body = (f"The move clock in {game_row.title} game {game_row.name} ran out.\n\n{clock.line()}\n"
            f"To act: {_who(game)}.\nNo automatic move was made (on time-out: {policy}).\n\n"
            f"You may move for them (`pbm 18xx move {game_row.name} --player N ...`), hand the seat over "
            f"(`pbm 18xx seat`), or extend the clock (`pbm 18xx pacing`).\n")
    msg = make_message(sender, [addr], f"[{one_line(game_row.name, 40)}] Time-out: {_who(game)}", body)
    outbox.queue(session, f"18xx-timeout:{game_row.id}:{clock.at}", "notice", [addr], msg, game=game_row)
    return [f"time-out: moderator told ({addr})"]


def tick_all(session: Session, sender: str, now: datetime | None = None, moderator: str = "",
             names: list[str] | None = None) -> dict[str, list[str]]:
    from sqlalchemy import select

    from pbm.models import Game as GameRow

    from pbm.e18xx.pbem.games import is_18xx

    out = {}
    for row in session.scalars(select(GameRow).where(GameRow.status == "open").order_by(GameRow.id)):
        if not is_18xx(row) or (names and row.name not in names):
            continue
        out[row.name] = tick(session, row, sender, now, moderator)
    from pbm.e18xx.pbem.notify import digests

    sent = digests(session, sender, now or utcnow())
    if sent:
        out["(digests)"] = sent
    return out

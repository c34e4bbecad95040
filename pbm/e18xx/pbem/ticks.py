"""The move clock's tick for 18xx games by email (docs/18xx/email.md, "Pacing"): the reminders that
are due, and the time-out the moderator chose (``notify``, ``default``, ``computer``).  Run by
``pbm cycle`` (through the game kind) and ``pbm 18xx tick``.

It sits above everything else in this folder: it sends mail (:mod:`.mailplay`), plays computer seats
(:mod:`.computer`) and reads the clock (:mod:`.pacing`); none of them imports it.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from pbm.e18xx.pbem.pacing import Clock, auto_seats, clock_of, computer_seats, round_kind, settings, utcnow


def _reminders(opts: dict[str, Any], hours: float) -> list[tuple[str, float]]:
    """(label, hours after the clock started) of each reminder."""
    out = []
    if opts.get("remind_half"):
        out.append(("half", hours / 2))
    for h in opts.get("remind_before_hours") or []:
        if 0 < float(h) < hours:
            out.append((f"{float(h):g}h", hours - float(h)))
    return sorted(out, key=lambda x: x[1])


def _nothing_due_yet(session: Session, game_row, now: datetime) -> bool:
    """True when no reminder and no time-out can be due at ``now``, told from the stored clock without
    replaying the game (a worker ticks every open game every minute; a replay is tens of milliseconds).

    The earliest any of them can fall is reckoned with the shortest clock of any round (the round being
    played is not known without a replay) and no time away (which only moves them later), counting
    only the reminders not sent yet and the time-out if it has not happened.  Unsure means False: no
    clock stored yet, or the log has grown since it was set (the clock restarts on the next tick)."""
    from sqlalchemy import func, select

    from pbm.models import Action18

    c = (game_row.state or {}).get("clock") or {}
    if "since" not in c or "at" not in c:
        return False
    count = session.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == game_row.id))
    if count != c["at"]:
        return False
    opts = settings(game_row)
    clocks = [float(h) for h in (opts["clock_hours"], *(opts.get("round_hours") or {}).values()) if h and float(h) > 0]
    if not clocks:
        return True  # no round has a clock
    hours = min(clocks)
    reminded = set(c.get("reminded") or [])
    offsets = [] if c.get("timed_out") else [hours]
    if opts.get("remind_half") and "half" not in reminded:
        offsets.append(hours / 2)
    for before in opts.get("remind_before_hours") or []:
        if f"{float(before):g}h" not in reminded:
            offsets.append(max(0.0, hours - float(before)))
    if not offsets:
        return True  # everything this clock does has been done
    return now < datetime.fromisoformat(c["since"]) + timedelta(hours=min(offsets))


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
    if not computer_seats(game_row) and _nothing_due_yet(session, game_row, now):
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
    due_now = [(label, after) for label, after in _reminders(opts, clock.hours)
               if clock.since + timedelta(hours=after) + shift <= now < clock.deadline
               and label not in c.get("reminded", [])]
    if len(due_now) > 1:  # a late tick: the earlier reminders are passed over, one mail says the time left (issue 29)
        c["reminded"] = [*(c.get("reminded") or []), *(label for label, _ in due_now[:-1])]
    for label, after in due_now[-1:]:
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
        # a new list: the stored one changed in place would look unchanged, and not be saved
        c["reminded"] = [*(c.get("reminded") or []), label]
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

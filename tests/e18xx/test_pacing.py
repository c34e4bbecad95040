"""18xx by email that keeps moving: state codes and stale moves, the move clock (reminders and
time-outs run by `pbm cycle` with a test clock), absence, and seats handed to a person or the computer."""
from __future__ import annotations

import email
import email.policy
from datetime import datetime, timedelta

from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.pbem.games import action_rows, load
from pbm.e18xx.pbem.pacing import state_code
from pbm.models import Game, OutboxMessage
from tests.e18xx.test_pbem_mail import PLAYERS, answer, ga, send  # noqa: F401 (ga is a fixture)


def code(cli, n: int) -> str:
    with session_scope(cli.url) as s:
        return state_code(s.scalar(select(Game).where(Game.name == "ga-1")), n)


def row_state(cli) -> dict:
    with session_scope(cli.url) as s:
        return dict(s.scalar(select(Game).where(Game.name == "ga-1")).state)


def log(cli) -> list[dict]:
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        return [{"seq": r.seq, "player": r.player_number, **r.action} for r in action_rows(s, row)]


def outbox(cli, kind: str | None = None) -> list[OutboxMessage]:
    with session_scope(cli.url) as s:
        q = select(OutboxMessage).order_by(OutboxMessage.id)
        if kind:
            q = q.where(OutboxMessage.kind == kind)
        rows = list(s.scalars(q))
        s.expunge_all()
        return rows


def text_of(row: OutboxMessage) -> str:
    msg = email.message_from_bytes(row.raw, policy=email.policy.default)
    part = msg.get_body(("plain",)) if msg.is_multipart() else msg
    return part.get_content().replace("\r\n", "\n")


def test_state_mails_carry_the_action_number_and_code_and_stale_mails_are_refused(ga):
    cli, secrets, *_ = ga
    line, inbound = send(ga, 1, f"SEEN: 0 {code(cli, 0)}\npass")
    assert "accepted" in line, line
    _, text = answer(cli, inbound)
    assert f"SEEN: 1 {code(cli, 1)}" in text  # the receipt shows the new state's number and code
    for row in outbox(cli, "18xx"):  # the start mails (issue 18 item 11) carry action 0, the rest action 1
        seen = 0 if row.key.split(":")[2] == "0" else 1
        assert f"SEEN: {seen} {code(cli, seen)}" in text_of(row)
    assert code(cli, 0) != code(cli, 1)
    # lenient (default): Bob wrote against action 0, Ann moved since, Bob has not: his pass is legal now
    line, _ = send(ga, 2, f"SEEN: 0 {code(cli, 0)}\npass")
    assert "accepted" in line, line
    # Ann's first mail captured and sent again later (a new Message-ID): stale, she has moved since
    line, inbound = send(ga, 1, f"SEEN: 0 {code(cli, 0)}\npass")
    assert "rejected" in line
    assert "you have moved since (action #1)" in answer(cli, inbound)[1]
    # a wrong code is refused, whatever the number
    line, inbound = send(ga, 3, "SEEN: 2 ZZZZZZ\npass")
    assert "rejected" in line and "the code ZZZZZZ is not the code of action 2" in answer(cli, inbound)[1]
    line, inbound = send(ga, 3, f"SEEN: 9 {code(cli, 2)}\npass")
    assert "the game is only at action 2" in answer(cli, inbound)[1]
    # strict: any change since is a refusal that lists the actions since
    cli("18xx", "pacing", "ga-1", "--stale", "strict")
    line, inbound = send(ga, 3, f"SEEN: 1 {code(cli, 1)}\npass")
    assert "rejected" in line
    assert "you wrote against action 1; the game is at action 2 (#2 Bob)" in answer(cli, inbound)[1]
    assert len(log(cli)) == 2  # nothing stored by the refusals
    line, _ = send(ga, 3, f"seen: 2 {code(cli, 2).lower()}\npass")
    assert "accepted" in line, line
    # require_seen: a mail without the line is refused with the line to copy
    cli("18xx", "pacing", "ga-1", "--require-seen")
    line, inbound = send(ga, 1, "pass")
    assert "rejected" in line and f"'SEEN: 3 {code(cli, 3)}'" in answer(cli, inbound)[1]


def _since(cli) -> datetime:
    return datetime.fromisoformat(row_state(cli)["clock"]["since"])


def _cycle(cli, at: datetime) -> str:
    return cli("cycle", "--clock", at.isoformat(timespec="seconds")).stdout


def test_reminders_once_at_the_right_times_then_the_default_pass_on_time_out(ga):
    cli, *_ = ga
    cli("18xx", "pacing", "ga-1", "--clock", "48", "--remind", "6", "--on-timeout", "default")
    send(ga, 1, "pass")
    t0 = _since(cli)
    out = cli("18xx", "status", "ga-1").stdout
    assert f"On the clock since {t0:%Y-%m-%d %H:%M} UTC; move due by {t0 + timedelta(hours=48):%Y-%m-%d %H:%M}" in out
    assert f"SEEN: 1 {code(cli, 1)}" in out
    _cycle(cli, t0 + timedelta(hours=23))
    assert outbox(cli, "reminder") == []
    _cycle(cli, t0 + timedelta(hours=24, minutes=1))
    _cycle(cli, t0 + timedelta(hours=30))
    rem = outbox(cli, "reminder")
    assert [(r.key, r.recipients) for r in rem] == [(f"18xx-remind:{rem[0].game_id}:1:half:2", ["bob@example.org"])]
    assert "23 h left" in email.message_from_bytes(rem[0].raw, policy=email.policy.default)["Subject"]
    assert f"SEEN: 1 {code(cli, 1)}" in text_of(rem[0])
    _cycle(cli, t0 + timedelta(hours=42, minutes=30))
    _cycle(cli, t0 + timedelta(hours=43))
    assert [r.key.split(":")[3] for r in outbox(cli, "reminder")] == ["half", "6h"]
    assert len(log(cli)) == 1
    out = _cycle(cli, t0 + timedelta(hours=48, minutes=5))
    assert "time-out: 1 action(s) for player 2" in out
    entries = log(cli)
    assert len(entries) == 2 and entries[-1]["type"] == "pass" and entries[-1]["_via"] == "timeout"
    assert entries[-1]["player"] == 2
    # everyone hears of it; the clock restarted for Cy at the time-out
    assert any("Time-out: the move clock of Bob ran out" in text_of(r) for r in outbox(cli, "18xx"))
    assert _since(cli) == (t0 + timedelta(hours=48, minutes=5)).replace(microsecond=0)
    _cycle(cli, t0 + timedelta(hours=49))
    assert len(log(cli)) == 2 and len(outbox(cli, "reminder")) == 2
    assert "(time-out default)" in cli("18xx", "log", "ga-1").stdout


def test_time_out_in_an_operating_round_or_by_default_tells_the_moderator(ga):
    cli, *_ = ga
    send(ga, 1, "pass")
    t0 = _since(cli)
    out = _cycle(cli, t0 + timedelta(hours=49))
    assert "time-out: moderator told" in out
    notes = outbox(cli, "notice")
    assert len(notes) == 1 and "The move clock in 18GA game ga-1 ran out" in text_of(notes[0])
    _cycle(cli, t0 + timedelta(hours=60))
    assert len(outbox(cli, "notice")) == 1 and len(log(cli)) == 1


def test_away_pauses_the_clock(ga):
    cli, *_ = ga
    today = datetime.utcnow().date()
    line, inbound = send(ga, 2, f"AWAY: {today} {today + timedelta(days=2)}")
    assert "accepted" in line
    assert "your move clock pauses" in answer(cli, inbound)[1]
    send(ga, 1, "pass")
    t0 = _since(cli)
    assert "time-out:" not in _cycle(cli, t0 + timedelta(hours=49))
    assert outbox(cli, "notice") == [] and outbox(cli, "reminder") == []
    assert "Player 2 away" in cli("18xx", "status", "ga-1").stdout
    # the time away is added to the clock: due 48 h of presence after the start
    back = datetime.combine(today + timedelta(days=3), datetime.min.time())
    assert "time-out:" not in _cycle(cli, back + timedelta(hours=1))
    assert "time-out: moderator told" in _cycle(cli, t0 + (back - t0) + timedelta(hours=49))


def test_a_player_marked_away_who_moves_himself_is_back(ga):
    """Session 15 (1848 play-through): a player marked away moved himself, and his next turn's clock
    still said "paused: away". Moving himself ends his absence (ruling, docs/18xx/email.md "Absence"),
    and the reply says so; a player away whose proxy moves for him stays away."""
    cli, *_ = ga
    today = datetime.utcnow().date()
    line, inbound = send(ga, 1, f"AWAY: {today} {today + timedelta(days=5)}")
    assert "accepted" in line and "Player 1 away" in cli("18xx", "status", "ga-1").stdout
    line, inbound = send(ga, 1, "pass")
    assert "accepted" in line, line
    said = answer(cli, inbound)[1]
    assert f"You were marked away until {today + timedelta(days=5)}; as you moved yourself, you are taken to be " \
           "back" in said, said
    assert "Player 1 away" not in cli("18xx", "status", "ga-1").stdout
    assert "1" not in (row_state(cli).get("away") or {})
    # the same mail setting the absence again keeps it
    line, inbound = send(ga, 2, f"AWAY: {today} {today + timedelta(days=5)}\npass")
    assert "accepted" in line, line
    assert "taken to be back" not in answer(cli, inbound)[1]
    assert "Player 2 away" in cli("18xx", "status", "ga-1").stdout


def test_a_seat_handed_to_another_person_keeps_its_holdings_with_a_new_secret(ga):
    cli, secrets, *_ = ga
    out = cli("18xx", "seat", "ga-1", "--player", "1", "--name", "Dora", "--email", "dora@example.org").stdout
    new = out.split("New secret (shown once): ")[1].split()[0]
    line, inbound = send(ga, 1, "pass")  # the old secret, from the old holder's address
    assert "rejected" in line and "does not match" in line  # the moderator's line says why
    # the old holder's address is no longer on file: he is answered as any stranger is, in fixed words
    # (issue 34, item 6), not told about the seat's secret
    refusal, text = answer(cli, inbound)
    assert "sender address not on file" in refusal["Subject"] and "secret" not in refusal["Subject"].lower()
    assert "does not match" not in text
    line, inbound = send(ga, 1, "pass", secret=new, sender="Dora <dora@example.org>")
    assert "accepted" in line
    assert answer(cli, inbound)[0]["To"].addresses[0].addr_spec == "dora@example.org"


def test_the_computer_answers_a_mail_for_its_seat_at_once(ga):
    cli, *_ = ga
    cli("18xx", "seat", "ga-1", "--player", "2", "--computer")
    line, inbound = send(ga, 1, "pass")
    assert "accepted" in line
    entries = log(cli)
    assert entries[0]["_via"] if "_via" in entries[0] else True
    assert [e.get("_via", "") for e in entries[:2]] == ["", "computer"] and entries[1]["player"] == 2
    assert "(computer player)" in answer(cli, inbound)[1]


def test_a_game_handed_wholly_to_the_computer_finishes_with_legal_moves(ga):
    """Every seat to the computer: it plays the game to its end (legal moves only, cash conserved,
    never a deliberate bankruptcy), every action marked as the computer's; the log replays."""
    cli, *_ = ga
    cli("18xx", "seat", "ga-1", "--player", "1", "--computer")
    cli("18xx", "seat", "ga-1", "--player", "2", "--computer")
    out = cli("18xx", "seat", "ga-1", "--player", "3", "--computer").stdout
    assert "move(s) made now" in out
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        game = load(s, row)
        assert row.status == "finished" and game.finished
        assert game.total_cash() == load.__globals__["new_engine"](s, row).total_cash()
        rows = action_rows(s, row)
        assert len(rows) > 150
        assert {r.action.get("_via") for r in rows} <= {"computer", "standing"}
        assert not any(r.action["type"] == "bankrupt" for r in rows)
        kinds = [r.action["type"] for r in rows]
        assert kinds.count("run_routes") >= 5 and kinds.count("dividend") >= 5  # companies earn and pay
    assert any("Game over" in (email.message_from_bytes(r.raw, policy=email.policy.default)["Subject"] or "")
               for r in outbox(cli, "18xx"))


def _advance_to_operating(cli) -> int:
    """Let the computer play every seat until the first operating round; returns the acting seat."""
    from pbm.e18xx.pbem.computer import play_due
    from pbm.e18xx.pbem.games import players

    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        saved = dict(row.options)
        row.options = {**saved, "computer_seats": [1, 2, 3]}
        for _ in range(400):
            _, rep = play_due(s, row, limit=1)
            if rep.game.state.round.kind == "operating":
                break
        row.options = saved
        assert rep.game.state.round.kind == "operating"
        seat_of = {p.name: p.number for p in players(s, row)}
        return seat_of[rep.game.acting_players()[0]]


def test_a_time_out_in_an_operating_round_moves_only_for_a_player_who_opted_in(ga):
    cli, *_ = ga
    cli("18xx", "pacing", "ga-1", "--on-timeout", "default")
    seat = _advance_to_operating(cli)
    line, inbound = send(ga, seat, "AUTO: on")
    assert "accepted" in line and "the computer moves for you" in answer(cli, inbound)[1]
    n = len(log(cli))
    t0 = _since(cli)
    out = _cycle(cli, t0 + timedelta(hours=49))
    assert f"time-out: 1 action(s) for player {seat}" in out
    last = log(cli)[-1]
    assert len(log(cli)) == n + 1 and last["_via"] == "timeout" and last["player"] == seat
    assert last["type"] in ("lay_tile", "place_token", "run_routes", "dividend", "buy_train", "pass")
    # opted out again: a route, dividend or train is never made for the player; the moderator is told
    line, _ = send(ga, seat, "AUTO: off")
    assert "accepted" in line
    t1 = _since(cli)
    out = _cycle(cli, t1 + timedelta(hours=49))
    assert "time-out: moderator told" in out and len(log(cli)) == n + 1


def test_a_named_proxy_moves_for_an_absent_player(ga):
    cli, *_ = ga
    today = datetime.utcnow().date()
    line, inbound = send(ga, 2, f"AWAY: {today} {today + timedelta(days=2)} proxy 1")
    assert "player 1 may move for you meanwhile" in answer(cli, inbound)[1]
    assert "(player 1 may move for them)" in cli("18xx", "status", "ga-1").stdout
    send(ga, 1, "pass")
    line, inbound = send(ga, 3, "FOR: 2\npass")  # not Bob's proxy
    assert "rejected" in line and "they have not named you their proxy" in answer(cli, inbound)[1]
    line, inbound = send(ga, 1, "FOR: 3\npass")
    assert "rejected" in line
    line, inbound = send(ga, 1, "FOR: 2\npass")
    assert "accepted" in line, line
    last = log(cli)[-1]
    assert last["player"] == 2 and last["_via"] == "proxy Ann" and len(log(cli)) == 2
    assert "(proxy Ann)" in cli("18xx", "log", "ga-1").stdout


def test_standing_order_run_auto_and_pay_out(ga):
    """AUTORUN: on - whenever the player's company must run, its best routes run and it pays out
    (marked as a standing order); the receipt shows the order and how to cancel it."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.computer import play_due
    from pbm.e18xx.pbem.games import players

    cli, *_ = ga
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        saved = dict(row.options)
        row.options = {**saved, "computer_seats": [1, 2, 3]}
        for _ in range(300):
            _, rep = play_due(s, row, limit=1)
            g = rep.game
            if any(isinstance(a, A.RunRoutes) for a in g.legal_actions()):
                break
        row.options = saved
        president = g.controller(g.current_entity())
        seat = {p.name: p.number for p in players(s, row)}[president]
        corp = g.current_entity()
    n = len(log(cli))
    line, inbound = send(ga, seat, "AUTORUN: on")
    assert "accepted" in line
    text = answer(cli, inbound)[1]
    assert "Standing order: run auto and pay out every OR (cancel: a mail with AUTORUN: off)" in text
    new = log(cli)[n:]
    assert [e["type"] for e in new[:2]] == ["run_routes", "dividend"]
    assert all(e["_via"] == "standing" and e["entity"] == corp for e in new[:2])
    assert new[1]["kind"] == "payout"
    line, inbound = send(ga, seat, "AUTORUN: off")
    assert "Standing order cancelled" in answer(cli, inbound)[1]
    assert "AUTORUN" not in row_state(cli).get("autorun", [])
    assert president not in row_state(cli).get("autorun", [])


def test_a_computer_seat_is_given_back_to_a_person(ga):
    cli, *_ = ga
    cli("18xx", "seat", "ga-1", "--player", "3", "--computer")
    assert "Computer seats: 3" in cli("18xx", "status", "ga-1").stdout
    out = cli("18xx", "seat", "ga-1", "--player", "3", "--human").stdout
    assert "New secret (shown once): " in out
    assert "Computer seats" not in cli("18xx", "status", "ga-1").stdout
    cli("18xx", "seat", "ga-1", "--player", "3", "--computer", "--email", "x@example.org", expect=2)


def test_a_worker_ticks_the_move_clocks_too(ga):
    """A service of `pbm worker` processes alone (docs/hosting.md: no coordinator) times moves out and
    reminds as `pbm cycle` does; a minute with nothing due logs nothing."""
    cli, *_ = ga
    cli("18xx", "pacing", "ga-1", "--clock", "48", "--remind", "6", "--on-timeout", "default")
    send(ga, 1, "pass")
    assert len(log(cli)) == 1
    quiet = cli("worker", "--once").stdout
    assert "ga-1" not in quiet and "move clock" not in quiet and len(log(cli)) == 1  # nothing due yet
    with session_scope(cli.url) as s:  # Bob has now been on the clock for 49 hours
        game = s.scalar(select(Game).where(Game.name == "ga-1"))
        state = dict(game.state)
        state["clock"] = {**state["clock"], "since": (_since(cli) - timedelta(hours=49)).isoformat()}
        game.state = state
    out = cli("worker", "--once").stdout
    assert "ga-1: time-out: 1 action(s) for player 2" in out, out
    entries = log(cli)
    assert len(entries) == 2 and entries[-1]["_via"] == "timeout" and entries[-1]["player"] == 2
    assert any("Time-out: the move clock of Bob ran out" in text_of(r) for r in outbox(cli, "18xx"))
    again = cli("worker", "--once").stdout
    assert "ga-1" not in again and len(log(cli)) == 2  # done once


def test_a_tick_with_nothing_due_does_not_replay_the_game(ga, monkeypatch):
    """Workers tick every open game every minute: until the first reminder can fall, the stored clock
    says so without a replay (tens of milliseconds a game); when one is due, the game is replayed."""
    import pbm.e18xx.pbem.games as games

    cli, *_ = ga
    cli("18xx", "pacing", "ga-1", "--clock", "48", "--remind", "6")
    send(ga, 1, "pass")
    t0 = _since(cli)
    replays: list[int] = []
    real = games.replay_rows
    monkeypatch.setattr(games, "replay_rows", lambda *a, **k: replays.append(1) or real(*a, **k))
    _cycle(cli, t0 + timedelta(hours=23, minutes=59))
    assert replays == [] and outbox(cli, "reminder") == []
    _cycle(cli, t0 + timedelta(hours=24, minutes=1))  # half time: the reminder is due
    assert replays and [r.key.split(":")[3] for r in outbox(cli, "reminder")] == ["half"]
    replays.clear()
    _cycle(cli, t0 + timedelta(hours=41, minutes=59))  # the 6 h reminder falls at 42 h
    assert replays == []
    _cycle(cli, t0 + timedelta(hours=42, minutes=1))
    assert [r.key.split(":")[3] for r in outbox(cli, "reminder")] == ["half", "6h"]
    assert row_state(cli)["clock"]["reminded"] == ["half", "6h"]  # kept with the game (was lost: list changed in place)


def test_every_state_mail_says_how_to_be_away_and_name_a_proxy(ga):
    """Session 14/15: no mail mentioned AWAY: or FOR:, so a player learnt of them only from the
    docs. Every state mail's reply block is followed by the one line that says how."""
    cli, *_ = ga
    line, inbound = send(ga, 1, "pass")
    said = answer(cli, inbound)[1]
    assert "Away for some days? Add the line 'AWAY: FIRST LAST'" in said
    assert "(the proxy's mail says 'FOR: 1')" in said and "'AWAY: none' when you are back" in said

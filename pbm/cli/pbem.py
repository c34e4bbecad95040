"""Moderator commands for 18xx games in the database (added to the ``pbm 18xx`` group).

``pbm 18xx import FILE.json [--name NAME] [--emails FILE.csv]``,
``pbm 18xx export [GAME] [-o FILE]``, ``pbm 18xx status [GAME]``,
``pbm 18xx move [GAME] --player N "TEXT"``, ``pbm 18xx undo [GAME]``,
``pbm 18xx pdf [GAME] [-o FILE]``, ``pbm 18xx log [GAME] [--events] [--json]``.
Games are created with ``pbm new-game 18GA --players FILE.csv``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import CLOCK_HELP, GAME_ARG, session
from pbm.errors import PbmError


def _secret_lines(secrets: dict[int, str], seats) -> list[str]:
    lines = ["Player secrets (shown once; pbm stores only a hash — give each to its player):"]
    for p in seats:
        if p.number in secrets:
            contact = f" <{p.email}>" if p.email else " (no e-mail address)"
            lines.append(f"  #{p.number} {p.name}{contact}: {secrets[p.number]}")
    return lines


def _echo(lines: list[str]) -> None:
    """Print what a command did, after its commit (issue 34, item 7: a closed pipe or a full disk under
    stdout loses the output, never the work)."""
    for line in lines:
        typer.echo(line)


def import_cmd(ctx: typer.Context,
               file: Path = typer.Argument(..., help="An 18xx.games export (JSON)."),
               name: Optional[str] = typer.Option(None, "--name", help="Game name (default: 18ga-import-<id>)."),
               emails: Optional[Path] = typer.Option(None, "--emails", help="CSV name,email: players' addresses "
                                                     "(matched by the names in the export).")) -> None:
    """Import an 18xx.games export as a game that goes on by email."""
    from pbm.seats import read_players_file

    from pbm.e18xx.pbem.exchange import import_export
    from pbm.e18xx.pbem.games import players

    from pbm.e18xx.core.errors import ReplayError
    from pbm.e18xx.replay import read_export_file

    try:
        data = read_export_file(file)
    except ReplayError as exc:
        raise PbmError(str(exc)) from None
    seats = read_players_file(emails) if emails else None
    with session(ctx) as s:  # committed before anything is printed
        row, secrets, game = import_export(s, data, name=name, seats=seats)
        lines = [f"Imported game {row.name} (id {row.id}): {row.title}, {len(game.actions)} actions, "
                 f"{'finished' if game.finished else 'now ' + game.state.round.kind + ' round'}."]
        lines += _secret_lines(secrets, players(s, row))
    _echo(lines)


def export_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
               output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file.")) -> None:
    """The game in the 18xx.games export format (`pbm 18xx replay` reads it back)."""
    from pbm.e18xx.pbem.exchange import export_game
    from pbm.e18xx.pbem.games import pick_18xx_game

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        text = json.dumps(export_game(s, row), indent=1, sort_keys=True) + "\n"
    if output:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"Wrote {output}")
    else:
        typer.echo(text, nl=False)


def status_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
               moves: bool = typer.Option(True, "--moves/--no-moves", help="List what the acting entity may do.")
               ) -> None:
    """The state of a game: whose turn, players, companies, stock chart, map."""
    from pbm.e18xx.pbem.mailplay import state_text
    from pbm.e18xx.pbem.games import pick_18xx_game, replay_rows

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        rep = replay_rows(s, row)
        typer.echo(state_text(s, row, rep, legal=moves))
        from pbm.e18xx.pbem.pacing import status_lines

        typer.echo("")
        typer.echo("\n".join(status_lines(s, row, rep.game)[1:]))  # the clock line is in the state already


def move_cmd(ctx: typer.Context,
             words: list[str] = typer.Argument(..., metavar="[GAME] TEXT...",
                                               help="The game (optional when there is one), then moves in the move "
                                               "language, one per argument (e.g. \"par W&A 90\" \"buy CoG ipo\")."),
             player: int = typer.Option(..., "--player", help="The seat number the moves are made for."),
             mail: bool = typer.Option(True, "--mail/--no-mail", help="Queue the new state to the players.")) -> None:
    """The moderator enters moves on a player's behalf (all or nothing, like a mail)."""
    from pbm.mail.config import reply_sender

    from pbm.e18xx.pbem.mailplay import broadcast
    from pbm.e18xx.pbem.games import apply, offer_name, offer_parties, offer_thing, pick_18xx_game
    from pbm.e18xx.pbem.games import players as seat_rows

    shown: list[str] = []
    with session(ctx) as s:  # committed before anything is printed
        game = None
        if len(words) > 1 and _is_game(s, words[0]):
            game, words = words[0], words[1:]
        lines = "\n".join(words)
        row = pick_18xx_game(s, game)
        out = apply(s, row, player, lines)
        if not out.accepted:
            legal = "\n".join(f"  {x}" for x in out.legal)
            raise PbmError(f"nothing stored: {out.error}\nLegal now:\n{legal}")
        for a in out.applied:
            shown.append(f"  #{a.seq} {a.player}: {_fmt(a.action)}" + _via_note(a.via)
                         + (f" - {a.note}" if a.note else ""))
        assert out.game is not None
        shown += [f"  {x}" for x in out.notes]  # the moves read as a turn (pbem/intent.py)
        shown.append(f"Stored {len(out.applied)} action(s). Now: {_now(out.game)}")
        if out.offer is not None:  # 18GA 3.2: another player's private is sold only if its owner agrees
            o = out.offer
            shown.append(f"Offer, not a sale: {offer_parties(o)} {out.game.title.money(o['price'])} for "
                         f"{offer_thing(o)}; "
                         f"{o['owner']} (player {o['owner_seat']}) answers 'accept {offer_name(o)}' or "
                         f"'decline {offer_name(o)}'.")
        if mail:
            seat = next(p for p in seat_rows(s, row) if p.number == player)
            n = broadcast(s, row, out.game, reply_sender(None), mover=seat, applied=out.applied, rep=out.replayed,
                          note=f"The moderator entered moves for {seat.name}.")
            shown.append(f"Queued the new state to {n} player(s); `pbm send-mail` sends it.")
    _echo(shown)


def undo_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG) -> None:
    """Remove the last stored action (moderator)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import load, pick_18xx_game, undo

    with session(ctx) as s:  # committed before anything is printed
        row = pick_18xx_game(s, game)
        last = undo(s, row)
        g = load(s, row)
        removed = _fmt(A.action_from_dict(last.action))
        lines = [f"Removed action #{last.seq}: {removed} (player {last.player_number}). Now: {_now(g)}"]
        # every player hears of it, with the state as it now is (issue 18 item 3)
        from pbm.e18xx.pbem.mailplay import broadcast
        from pbm.mail.config import reply_sender
        n = broadcast(s, row, g, reply_sender(None), note=f"The moderator took back move #{last.seq} ({removed}).")
        lines.append(f"Queued the new state to {n} player(s); `pbm send-mail` sends it.")
    _echo(lines)


def pdf_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
            output: Optional[Path] = typer.Option(None, "--output", "-o", help="PDF file (default: <game>.pdf).")
            ) -> None:
    """The state as a PDF (map, stock chart, holdings), as mailed to the players."""
    from pbm.e18xx.pbem.games import pick_18xx_game, replay_rows
    from pbm.e18xx.render.pdf import render_pdf

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        pdf = render_pdf(replay_rows(s, row), row.name)
        path = output or Path(f"{row.name}.pdf")
    path.write_bytes(pdf)
    typer.echo(f"Wrote {path}")


def log_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
            last: int = typer.Option(0, "--last", help="Only the last N actions."),
            events: bool = typer.Option(False, "--events", help="Also what each action caused (auction won, "
                                        "routes, dividends, price moves, phase changes, rust, ...)."),
            as_json: bool = typer.Option(False, "--json", help="As JSON: the actions, with their events "
                                         "when --events is given.")) -> None:
    """The stored actions: number, player, move (with --events: what each caused, in plain words)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import action_rows, pick_18xx_game, replay_rows

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        rows = action_rows(s, row)
        head = {"game": row.name, "title": row.title}
        shown = rows[-last:] if last else rows
        by_seq: dict[int, list] = {}
        money = None
        if events:
            from pbm.e18xx.events import money_of, recorded

            g = replay_rows(s, row).game
            money = money_of(g.title)
            for e in recorded(g):
                by_seq.setdefault(e.seq, []).append(e)
        out = []
        for r in shown:
            act = A.action_from_dict(r.action)
            if as_json:
                item = {"seq": r.seq, "player": r.player_number, "action": r.action}
                if events:
                    item["events"] = [e.to_dict(money) for e in by_seq.get(r.seq, [])]
                out.append(item)
                continue
            via = _via_note(r.action.get("_via"))
            out.append(f"#{r.seq:<4} player {r.player_number if r.player_number is not None else '-'}  "
                       f"{_fmt(act)}{via}")
            out += [f"        {e.text(money)}" for e in by_seq.get(r.seq, [])]
    if as_json:
        _echo([json.dumps({**head, "actions": out}, indent=1, sort_keys=True)])
    else:
        _echo(out)


def _is_game(s, text: str) -> bool:
    from sqlalchemy import select

    from pbm.models import Game

    return any(g.name == text or str(g.id) == text for g in s.scalars(select(Game)))


def _fmt(action) -> str:
    from pbm.e18xx.pbem.moves import format_action

    return f"[{action.entity}] {format_action(action)}"


def _now(g) -> str:
    from pbm.e18xx.pbem.games import who_acts

    if g.finished:
        return f"game over ({g.state.end_reason})"
    return f"{g.state.round.kind} round, {who_acts(g)} to act"


def _clock_now(clock: Optional[str]):
    from pbm.cli.util import parse_clock
    from pbm.e18xx.pbem.pacing import utcnow

    return parse_clock(clock) or utcnow()


def pacing_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
               hours: Optional[float] = typer.Option(None, "--clock", help="The move clock in hours (0: none)."),
               round_hours: list[str] = typer.Option([], "--round", help="A round kind's clock, e.g. stock=24."),
               remind: list[float] = typer.Option([], "--remind", help="Remind this many hours before the clock "
                                                  "runs out (repeatable)."),
               half: Optional[bool] = typer.Option(None, "--half/--no-half", help="Also remind at half time."),
               on_timeout: Optional[str] = typer.Option(None, "--on-timeout",
                                                        help="notify | default | computer"),
               stale: Optional[str] = typer.Option(None, "--stale", help="strict | lenient (moves written "
                                                   "against an older state)."),
               require_seen: Optional[bool] = typer.Option(None, "--require-seen/--no-require-seen",
                                                           help="Refuse move mails without a SEEN line."),
               notify: Optional[str] = typer.Option(None, "--notify", help="The players' default mail: every | "
                                                    "turn | digest (each may choose by a NOTIFY line).")) -> None:
    """Set a game's pacing: move clock, reminders, what a time-out does, stale-move policy."""
    from pbm.e18xx.pbem.games import pick_18xx_game
    from pbm.e18xx.pbem.pacing import STALE, TIMEOUTS, set_settings

    if on_timeout is not None and on_timeout not in TIMEOUTS:
        raise PbmError(f"--on-timeout must be one of {', '.join(TIMEOUTS)}")
    if stale is not None and stale not in STALE:
        raise PbmError(f"--stale must be one of {', '.join(STALE)}")
    if notify is not None and notify not in ("every", "turn", "digest"):
        raise PbmError("--notify must be one of every, turn, digest")
    per = None
    if round_hours:
        per = {}
        for item in round_hours:
            kind, _, h = item.partition("=")
            try:
                per[kind.strip()] = float(h)
            except ValueError:
                raise PbmError(f"--round takes KIND=HOURS (e.g. stock=24), not {item!r}") from None
    with session(ctx) as s:  # committed before anything is printed
        row = pick_18xx_game(s, game)
        now = set_settings(row, clock_hours=hours, round_hours=per, remind_before_hours=list(remind) or None,
                           remind_half=half, on_timeout=on_timeout, stale=stale, require_seen=require_seen,
                           notify=notify)
        lines = [f"Pacing of {row.name}: " + ", ".join(f"{k}={v}" for k, v in sorted(now.items()))]
    _echo(lines)


def tick_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
             clock: Optional[str] = typer.Option(None, "--clock", help=CLOCK_HELP),
             config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml).")) -> None:
    """Send due reminders and apply time-outs (pbm cycle and pbm worker do this for every 18xx game)."""
    from pbm.mail.config import mail_settings, reply_sender

    from pbm.e18xx.pbem.ticks import tick_all

    now = _clock_now(clock)
    with session(ctx) as s:
        done = tick_all(s, reply_sender(config), now, mail_settings(config).moderator, [game] if game else None)
    for name, lines in done.items():
        typer.echo(f"{name}: " + ("; ".join(lines) if lines else "nothing due"))


def seat_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
             player: int = typer.Option(..., "--player", help="The seat handed over."),
             name: Optional[str] = typer.Option(None, "--name", help="The new person's name (shown in mails)."),
             email: Optional[str] = typer.Option(None, "--email", help="The new person's address."),
             computer: bool = typer.Option(False, "--computer", help="Hand the seat to the computer player."),
             human: bool = typer.Option(False, "--human", help="Take the seat back from the computer.")) -> None:
    """Hand a seat to another person (new secret, same holdings) or to the computer player."""
    from pbm.mail.config import reply_sender

    from pbm.e18xx.pbem.games import pick_18xx_game, players

    if computer and (email or human):
        raise PbmError("--computer hands the seat to the computer; give no --email/--human with it")
    lines: list[str] = []
    with session(ctx) as s:  # committed before anything is printed
        row = pick_18xx_game(s, game)
        seat = next((p for p in players(s, row) if p.number == player), None)
        if seat is None:
            raise PbmError(f"game {row.name} has no player {player}")
        comp = sorted(set(int(x) for x in (row.options or {}).get("computer_seats", [])))
        if computer:
            comp = sorted(set(comp) | {player})
            row.options = {**(row.options or {}), "computer_seats": comp}
            from pbm.e18xx.pbem.computer import answer_for_computer, play_due
            from pbm.e18xx.pbem.mailplay import broadcast

            offer = answer_for_computer(s, row, reply_sender(None))  # an offer waiting for this seat
            applied, rep = play_due(s, row)
            if offer is not None and offer[0].applied:
                applied = offer[0].applied + applied
            elif offer is not None:
                from pbm.e18xx.pbem.mailplay import _tell_buyer

                _tell_buyer(s, row, reply_sender(None), offer[1])
            lines.append(f"Seat {player} ({seat.name}) is played by the computer from now on"
                         f" ({len(applied)} move(s) made now).")
            if applied:
                broadcast(s, row, rep.game, reply_sender(None), applied=applied, rep=rep,
                          note=f"The computer now plays {seat.name}'s seat.")
        else:
            _hand_over(s, row, seat, comp, player, name, email, human, lines)
    _echo(lines)


def _hand_over(s, row, seat, comp: list[int], player: int, name: str | None, email: str | None, human: bool,
               lines: list[str]) -> None:
    """``pbm 18xx seat --email/--name/--human``: a new person (and a new secret) for the seat."""
    from pbm.auth import hash_secret, new_secret
    from pbm.mail.config import reply_sender

    if name is None and email is None and not human:
        raise PbmError("say who takes the seat: --email (and --name), --computer, or --human")
    row.options = {**(row.options or {}), "computer_seats": [c for c in comp if c != player]}
    if email is not None:
        seat.email = email
    if name is not None:
        seat.character = name  # shown to people; the engine keeps the seat's name
    secret = new_secret()
    seat.secret_hash = hash_secret(secret)
    lines.append(f"Seat {player} ({seat.name}) handed to {name or seat.name} <{seat.email}>; "
                 f"the old secret no longer works.")
    lines.append(f"New secret (shown once): {secret}")
    from pbm.mail.account import queue_welcome

    if queue_welcome(s, row, {player: secret}, reply_sender(None)):  # issue 18, item 10: a seat filled
        lines.append(f"Welcome mail with the secret queued to {seat.email}; `pbm send-mail` sends it.")


def webhook_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG,
                url: Optional[str] = typer.Option(None, "--url", help="The http(s) URL to POST to."),
                style: str = typer.Option("json", "--style", help="json | discord | slack"),
                player: Optional[int] = typer.Option(None, "--player", help="Only that seat's turns (default: "
                                                     "every change of the game)."),
                clear: bool = typer.Option(False, "--clear", help="Remove the game's webhooks.")) -> None:
    """Add (or list, or clear) a game's webhooks; they are posted by `pbm send-mail` with the mail."""
    from pbm.e18xx.pbem.games import pick_18xx_game
    from pbm.e18xx.pbem.notify import add_hook, hooks, remove_hooks

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        if clear:
            remove_hooks(row)
        if url:
            try:
                add_hook(row, url, style, player)
            except ValueError as exc:
                raise PbmError(str(exc)) from None
        lines = []
        for i, h in enumerate(hooks(row)):
            who = f"player {h['seat']}'s turns" if h.get("seat") is not None else "every change"
            lines.append(f"  {i}: {h['style']} {h['url']} ({who})")
        if not hooks(row):
            lines.append(f"Game {row.name} has no webhooks.")
    _echo(lines)


def register(app: typer.Typer) -> None:
    from pbm.cli.e18xx import app as group

    group.command("import")(import_cmd)
    group.command("export")(export_cmd)
    group.command("status")(status_cmd)
    group.command("move")(move_cmd)
    group.command("undo")(undo_cmd)
    group.command("pdf")(pdf_cmd)
    group.command("log")(log_cmd)
    group.command("pacing")(pacing_cmd)
    group.command("tick")(tick_cmd)
    group.command("seat")(seat_cmd)
    group.command("webhook")(webhook_cmd)


def _via_note(via: str | None) -> str:
    from pbm.e18xx.pbem.games import via_note

    return via_note(via)

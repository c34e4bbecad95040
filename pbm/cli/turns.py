"""Continental Rails' turnsheet commands of the ``pbm`` CLI (§10): ``turnsheet``, ``remind``, ``deadline``
and ``accept-late``.  On a game of another kind each refuses in one line, saying what to use instead."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pbm.cli.mail import CONFIG_OPT, _context, _game_and_when, _sent_or_fail, _two_args, parse_when
from pbm.cli.util import GAME_ARG, pick_game, session
from pbm.errors import PbmError
from pbm.kinds import weekly_only


def register(app: typer.Typer) -> None:
    @app.command("turnsheet")
    def turnsheet(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        player: Optional[int] = typer.Option(None, "--player", help="One player's sheet (default: every human)."),
        fmt: str = typer.Option("both", "--format", help="pdf, text or both."),
        out: Optional[Path] = typer.Option(None, "--out", help="Folder (default: turnsheets/<game>/turn-<T>/)."),
        mail: bool = typer.Option(False, "--mail", help="Also queue each sheet to its player (pbm send-mail sends)."),
        config: Optional[Path] = CONFIG_OPT,
    ) -> None:
        """Write the turnsheets (§10) of the current turn: fillable PDF and plain-text form."""
        from pbm.mail.config import reply_sender
        from pbm.turnsheet.notify import queue_turnsheets
        from pbm.turnsheet.files import default_dir, make_sheets, write_sheets

        with session(ctx) as s:  # committed before anything is printed (issue 34, item 7)
            g = pick_game(s, game)
            weekly_only(g, "turnsheet")
            sheets = make_sheets(s, g, player, fmt.lower())
            folder = out or default_dir(g)
            written = write_sheets(sheets, folder)
            lines = [f"Wrote {path}" for path in written]
            if mail:
                queued = queue_turnsheets(s, g, sheets, reply_sender(config))
                lines.append(f"Queued {len(queued)} turnsheet message(s); `pbm send-mail` sends them.")
        _echo(lines)

    def weekly_only(g, command: str) -> None:
        """Refuse a Continental Rails turn command on an 18xx game; the game's kind says what to use
        (issue 18, item 11)."""
        from pbm.kinds import weekly_only

        weekly_only(g, command)

    @app.command("remind")
    def remind(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        send: bool = typer.Option(False, "--send", help="Send at once (needs [smtp])."),
        config: Optional[Path] = CONFIG_OPT,
    ) -> None:
        """Queue a reminder to each human player without orders for the current turn."""
        from pbm.mail.config import reply_sender, smtp_config
        from pbm.turnsheet.notify import remind as remind_players
        from pbm.mail.outbox import flush

        with session(ctx) as s:  # committed before anything is printed (issue 34, item 7)
            g = pick_game(s, game)
            weekly_only(g, "remind")
            numbers = remind_players(s, g, reply_sender(config))
        if numbers:
            typer.echo(f"Reminders queued for player(s) {', '.join(map(str, numbers))}.")
        else:
            typer.echo("Every human player has sent orders (or has no address): no reminder.")
        if send:
            with session(ctx) as s:
                result = flush(s, smtp_config(config))
            _sent_or_fail(result)

    @app.command("deadline")
    def deadline(
        ctx: typer.Context,
        args: Optional[list[str]] = typer.Argument(
            None, metavar="[GAME] [WHEN]", help="e.g. '2026-12-01 18:00' (UTC), or 'none' to clear."),
        missed_limit: Optional[int] = typer.Option(
            None, "--missed-limit", help="Missed turns before the computer takes a seat (§3.1; default 2)."),
        grace: Optional[str] = typer.Option(
            None, "--grace", help="Sheets still count this long after the deadline, e.g. 2h, 90m (0: none)."),
        reminders: Optional[str] = typer.Option(
            None, "--remind", help="Reminders before the deadline, sent by `pbm cycle`/`pbm worker`, e.g. "
                                   "'48h,12h' ('none' to stop)."),
        quiet: bool = typer.Option(False, "--quiet", help="Do not mail the players about the change."),
        config: Optional[Path] = CONFIG_OPT,
    ) -> None:
        """Set the current turn's deadline (sheets after it are answered 'late — not used'), its grace period
        and the reminder schedule; every human seat is told of a new deadline, and a late sheet that an
        extension lets count is accepted and its player told."""
        from pbm.mail.config import reply_sender
        from pbm.turnsheet.notify import announce_deadline, reinstate_late
        from pbm.mail.policy import (deadline_for, duration_text, grace_for, missed_turns_limit, parse_duration,
                                     reminder_schedule, set_deadline)

        game, when_text = _game_and_when(args or [], bool(grace or reminders or missed_limit))
        when = None
        if when_text is not None and when_text.strip().lower() not in ("none", "clear", "-"):
            when = parse_when(when_text)
        with session(ctx) as s:
            g = pick_game(s, game)
            weekly_only(g, "deadline")
            before = deadline_for(s, g)
            options = dict(g.options or {})
            if missed_limit is not None:
                if missed_limit < 1:
                    raise PbmError("--missed-limit must be at least 1")
                options["missed_turns_limit"] = missed_limit
            if grace is not None:
                options["grace_minutes"] = int(parse_duration(grace, "a grace period").total_seconds() // 60)
            if reminders is not None:
                points = [] if reminders.strip().lower() in ("none", "off", "0", "") else [
                    parse_duration(p, "a reminder point") for p in reminders.split(",") if p.strip()]
                if any(not p for p in points):
                    raise PbmError("a reminder point must be longer than 0 (e.g. 48h,12h)")
                options["reminders"] = sorted({int(p.total_seconds() // 60) for p in points}, reverse=True)
            g.options = options
            if when_text is not None:
                set_deadline(s, g, when)
            now = deadline_for(s, g)
            sender = reply_sender(config)
            told = [] if quiet else announce_deadline(s, g, sender, before)
            counted = reinstate_late(s, g, sender)
            shown = now.strftime("%Y-%m-%d %H:%M UTC") if now else "none"
            grace_now = grace_for(g)
            schedule = ", ".join(duration_text(p) for p in reminder_schedule(g)) or "none"
            lines = [f"Game {g.name}, turn {g.turn}: deadline {shown}"
                     + (f", grace {duration_text(grace_now)} (sheets count until "
                        f"{now + grace_now:%Y-%m-%d %H:%M} UTC)" if grace_now and now else "")
                     + (f"; reminders before it: {schedule}" if reminder_schedule(g) else "")
                     + "; the computer takes a seat after "
                     f"{missed_turns_limit(g)} missed turn(s)."]
            if told:
                lines.append(f"Deadline change mailed to player(s) {', '.join(map(str, told))}; "
                             "`pbm send-mail` sends it.")
            for number, seq in counted:
                lines.append(f"Late sheet #{seq} of player {number} now counts (the player is told).")
        _echo(lines)  # after the commit (issue 34, item 7)

    app.command("accept-late")(accept_late_command)


def accept_late_command(
    ctx: typer.Context,
    args: list[str] = typer.Argument(..., metavar="[GAME] MESSAGE", help="Message number or Message-ID."),
    config: Optional[Path] = CONFIG_OPT,
) -> None:
    """Accept a sheet that arrived after the deadline: it counts as if on time."""
    from pbm.models import InboundMessage
    from pbm.turnsheet.intake import accept_late

    game, ref = _two_args(args, "MESSAGE")
    with session(ctx) as s:
        g = pick_game(s, game)
        weekly_only(g, "accept-late")  # an 18xx game's kind says what to use instead (issue 18, item 11)
        outcome = accept_late(s, g, ref, _context(s, g, config))
        stored = s.get(InboundMessage, outcome.inbound_id)
        turn = stored.turn if stored is not None and stored.turn is not None else g.turn
        lines = [f"Message #{outcome.seq} of player {outcome.player}: {outcome.status}."]
        if turn < g.turn and outcome.status == "accepted":
            lines.append(f"Turn {turn} is already resolved: `pbm rerun-turn {g.name} {turn}` resolves it again "
                         "with this sheet and queues the corrected reports.")
    _echo(lines)  # after the commit (issue 34, item 7)


def _echo(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)

"""Commands for turnsheets and mail: turnsheet, ingest, status, remind, accept-late, deadline, send-mail."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import GAME_ARG, pick_game, session
from pbm.errors import PbmError

CONFIG_OPT = typer.Option(None, "--config", help="Config file (default: PBM_CONFIG or ./pbm.toml).")


def parse_when(text: str) -> datetime:
    """An ISO date-time (``2026-12-01 18:00``, ``2026-12-01T18:00+01:00``); no zone means UTC."""
    try:
        when = datetime.fromisoformat(text.strip().replace(" UTC", "").replace("Z", "+00:00"))
    except ValueError:
        raise PbmError(f"{text!r} is not a date and time; write e.g. 2026-12-01 18:00 (UTC) "
                       "or 2026-12-01T18:00+01:00") from None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when


def _two_args(args: list[str], what: str) -> tuple[str | None, str]:
    if len(args) == 1:
        return None, args[0]
    if len(args) == 2:
        return args[0], args[1]
    raise PbmError(f"expected [GAME] {what}")


def _context(s, game, config: Path | None, at: str | None = None):
    from pbm.mail.config import load_file, mail_settings, reply_sender
    from pbm.mail.ingest import Context

    load_file(config)  # a named config file must exist and parse
    return Context(sender=reply_sender(config), game=game, now=parse_when(at) if at else None,
                   moderator=mail_settings(config).moderator)


def _sent_or_fail(result) -> None:
    """Print a flush's result; exit non-zero (PbmError) if any delivery failed or was left uncertain."""
    typer.echo(f"Mail: {result.summary()}.")
    for error in result.errors:
        typer.echo(f"  {error}")
    if result.uncertain:
        typer.echo(f"  {result.uncertain} delivery(ies) were interrupted mid-send; they may have arrived: check, "
                   "then `pbm send-mail --retry-uncertain` resends them.")
    if result.failed or result.uncertain:
        raise PbmError(f"{result.failed} delivery(ies) failed (retried by the next send-mail), "
                       f"{result.uncertain} interrupted mid-send: not sent")


def _game_and_when(args: list[str], options: bool) -> tuple[str | None, str | None]:
    """``[GAME] [WHEN]``: one word is WHEN if it reads as a time (or none), else the game (with an option)."""
    if len(args) == 2:
        return args[0], args[1]
    if len(args) > 2:
        raise PbmError("expected [GAME] [WHEN]")
    if not args:
        if not options:
            raise PbmError("expected [GAME] WHEN (or an option such as --grace or --remind)")
        return None, None
    word = args[0]
    if word.strip().lower() in ("none", "clear", "-"):
        return None, word
    try:
        parse_when(word)
        return None, word
    except PbmError:
        if options:
            return word, None
        raise


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
        from pbm.mail.notify import queue_turnsheets
        from pbm.turnsheet.files import default_dir, make_sheets, write_sheets

        from pbm.kinds import weekly_only

        with session(ctx) as s:
            g = pick_game(s, game)
            weekly_only(g, "turnsheet")
            sheets = make_sheets(s, g, player, fmt.lower())
            folder = out or default_dir(g)
            written = write_sheets(sheets, folder)
            for path in written:
                typer.echo(f"Wrote {path}")
            if mail:
                queued = queue_turnsheets(s, g, sheets, reply_sender(config))
                typer.echo(f"Queued {len(queued)} turnsheet message(s); `pbm send-mail` sends them.")

    @app.command("ingest")
    def ingest(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        maildir: Optional[Path] = typer.Option(None, "--maildir", help="Read a Maildir folder."),
        mbox: Optional[Path] = typer.Option(None, "--mbox", help="Read an mbox file."),
        eml_dir: Optional[Path] = typer.Option(None, "--eml-dir", help="Read every *.eml file of a folder."),
        imap: bool = typer.Option(False, "--imap", help="Read the IMAP mailbox of [mail] in pbm.toml / PBM_IMAP_*."),
        retry: bool = typer.Option(False, "--retry", help="Handle again messages left stored or in error."),
        send: bool = typer.Option(False, "--send", help="Send the answers at once (needs [smtp])."),
        at: Optional[str] = typer.Option(None, "--at", hidden=True, help="Arrival time for sources without one."),
        read_all: bool = typer.Option(False, "--all", help=(
            "Read every message of the Maildir, mbox or folder again, also those read before (each is then "
            "listed as a duplicate); by default only messages not read before are read and listed.")),
        config: Optional[Path] = CONFIG_OPT,
    ) -> None:
        """Read emailed turnsheets: store each message, authenticate, check, store orders, queue the answer.

        Only new messages are read and listed: a Maildir file, an mbox message or an .eml file read by an
        earlier run is skipped by name (`--all` reads everything again); IMAP messages are marked once read."""
        from pbm.mail import sources
        from pbm.mail.config import imap_config, smtp_config
        from pbm.mail.ingest import ingest as ingest_one
        from pbm.mail.ingest import handle_stored, retry_errors
        from pbm.mail.outbox import flush

        chosen = [x for x in (maildir, mbox, eml_dir) if x is not None] + ([True] if imap else [])
        if len(chosen) != 1 and not retry:
            raise PbmError("name one source: --maildir DIR, --mbox FILE, --eml-dir DIR or --imap")
        with session(ctx) as s:
            g = pick_game(s, game) if game is not None else None
            context = _context(s, g, config, at)
            outcomes = handle_stored(s, context)  # stored by a run that died before handling them
            if retry:
                outcomes += retry_errors(s, context)
            skipped: list[str] = []
            if chosen:
                from pbm.intake import unread, unread_maildir

                if maildir is not None:
                    if read_all:
                        items = sources.read_maildir(maildir)
                    else:
                        items = unread_maildir(s, maildir, skipped)
                elif mbox is not None:
                    items = sources.read_mbox(mbox)
                    items = items if read_all else unread(s, items, "mbox:", skipped)
                elif eml_dir is not None:
                    items = sources.read_eml_dir(eml_dir)
                    items = items if read_all else unread(s, items, "eml:", skipped)
                else:
                    items = sources.read_imap(imap_config(config))
                for item in items:
                    outcome = ingest_one(s, item.raw, context, source=item.source, received_at=item.received_at)
                    if item.done is not None:
                        s.commit()  # stored for good before the mailbox is told (IMAP: marked stored)
                        item.done()
                    outcomes.append(outcome)
            for o in outcomes:
                typer.echo(o.line())
            counts: dict[str, int] = {}
            for o in outcomes:
                counts[o.status] = counts.get(o.status, 0) + 1
            summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing new"
            before = f"{len(skipped)} read before, not read again (--all reads them again)" if skipped else ""
            if outcomes or not before:
                typer.echo(f"{len(outcomes)} message(s): {summary}." + (f" {before[0].upper()}{before[1:]}."
                                                                       if before else ""))
            else:
                typer.echo(f"No new message; {before}.")
            if send:
                _sent_or_fail(flush(s, smtp_config(config)))

    @app.command("status")
    def status(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        messages: bool = typer.Option(False, "--messages", help="Also list every stored message of this turn."),
        every: bool = typer.Option(False, "--all", help="Count and list the messages of every turn, not only this one."),
    ) -> None:
        """Who has sent orders for the current turn, when, with how many problems; late sheets; the outbox."""
        from pbm.kinds import kind_of
        from pbm.mail.status import mail_text, status_text

        with session(ctx) as s:
            g = pick_game(s, game)
            moves = kind_of(g).status(s, g)  # a game without weekly turns: whose move, since when (item 11)
            if moves is not None:
                typer.echo(moves + mail_text(s, g, messages=messages, every=every), nl=False)
                return
            typer.echo(status_text(s, g, messages=messages, every=every), nl=False)

    def _continental_only(g, command: str) -> None:
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
        from pbm.mail.notify import remind as remind_players
        from pbm.mail.outbox import flush

        with session(ctx) as s:
            g = pick_game(s, game)
            _continental_only(g, "remind")
            numbers = remind_players(s, g, reply_sender(config))
            if numbers:
                typer.echo(f"Reminders queued for player(s) {', '.join(map(str, numbers))}.")
            else:
                typer.echo("Every human player has sent orders (or has no address): no reminder.")
            if send:
                _sent_or_fail(flush(s, smtp_config(config)))

    @app.command("accept-late")
    def accept_late(
        ctx: typer.Context,
        args: list[str] = typer.Argument(..., metavar="[GAME] MESSAGE", help="Message number or Message-ID."),
        config: Optional[Path] = CONFIG_OPT,
    ) -> None:
        """Accept a sheet that arrived after the deadline: it counts as if on time."""
        from pbm.mail.ingest import accept_late as accept

        game, ref = _two_args(args, "MESSAGE")
        with session(ctx) as s:
            g = pick_game(s, game)
            _continental_only(g, "accept-late")
            outcome = accept(s, g, ref, _context(s, g, config))
            from pbm.models import InboundMessage

            stored = s.get(InboundMessage, outcome.inbound_id)
            turn = stored.turn if stored is not None and stored.turn is not None else g.turn
            typer.echo(f"Message #{outcome.seq} of player {outcome.player}: {outcome.status}.")
            if turn < g.turn and outcome.status == "accepted":
                typer.echo(f"Turn {turn} is already resolved: `pbm rerun-turn {g.name} {turn}` resolves it again "
                           "with this sheet and queues the corrected reports.")

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
        from pbm.mail.notify import announce_deadline, reinstate_late
        from pbm.mail.policy import (deadline_for, duration_text, grace_for, missed_turns_limit, parse_duration,
                                     reminder_schedule, set_deadline)

        game, when_text = _game_and_when(args or [], bool(grace or reminders or missed_limit))
        when = None
        if when_text is not None and when_text.strip().lower() not in ("none", "clear", "-"):
            when = parse_when(when_text)
        with session(ctx) as s:
            g = pick_game(s, game)
            _continental_only(g, "deadline")
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
            typer.echo(f"Game {g.name}, turn {g.turn}: deadline {shown}"
                       + (f", grace {duration_text(grace_now)} (sheets count until "
                          f"{now + grace_now:%Y-%m-%d %H:%M} UTC)" if grace_now and now else "")
                       + (f"; reminders before it: {schedule}" if reminder_schedule(g) else "")
                       + "; the computer takes a seat after "
                       f"{missed_turns_limit(g)} missed turn(s).")
            if told:
                typer.echo(f"Deadline change mailed to player(s) {', '.join(map(str, told))}; "
                           "`pbm send-mail` sends it.")
            for number, seq in counted:
                typer.echo(f"Late sheet #{seq} of player {number} now counts (the player is told).")

    secret_app = typer.Typer(help="Players' secrets: reset one (mailed to the address on file).",
                             no_args_is_help=True)
    app.add_typer(secret_app, name="secret")

    @secret_app.command("reset")
    def secret_reset(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        player: int = typer.Option(..., "--player", help="The seat whose secret is replaced."),
        show: bool = typer.Option(False, "--show", help="Also print the new secret here."),
        config: Optional[Path] = CONFIG_OPT,
    ) -> None:
        """Give a player a new secret (the old one stops working at once) and mail it to his address on file."""
        from pbm.mail.account import reset_secret
        from pbm.mail.config import mail_settings, reply_sender

        with session(ctx) as s:
            g = pick_game(s, game)
            _, secret, address = reset_secret(s, g, player, reply_sender(config), mail_settings(config).moderator)
            name = g.name
        typer.echo(f"Player {player} of {name}: new secret set; the old one no longer works.")
        if address is not None:
            typer.echo(f"Mailed to {address} (the address on file); `pbm send-mail` sends it.")
        else:
            typer.echo("No address on file: give the player the secret yourself.")
        if show or address is None:
            typer.echo(f"New secret (shown once): {secret}")

    @app.command("send-mail")
    def send_mail(
        ctx: typer.Context,
        config: Optional[Path] = CONFIG_OPT,
        retry_uncertain: bool = typer.Option(
            False, "--retry-uncertain", help="Also resend deliveries interrupted mid-send (may duplicate)."),
    ) -> None:
        """Send every queued message not yet sent (each recipient at most once)."""
        from pbm.mail.config import smtp_config
        from pbm.mail.outbox import flush

        cfg = smtp_config(config)
        with session(ctx) as s:
            _sent_or_fail(flush(s, cfg, retry_uncertain=retry_uncertain))

"""Commands for mail: ingest, status, secret reset, send-mail (Continental Rails' turnsheet commands are in
:mod:`pbm.cli.turns`)."""

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
        earlier run is skipped (a Maildir file by name, an mbox message or .eml file by name and content; `--all` reads everything again); IMAP messages are marked once read."""
        from pbm.cli.util import db_url
        from pbm.intake import maildir_new, take_mail, unread
        from pbm.mail import sources
        from pbm.mail.config import imap_config, smtp_config
        from pbm.mail.outbox import flush

        chosen = [x for x in (maildir, mbox, eml_dir) if x is not None] + ([True] if imap else [])
        if len(chosen) != 1 and not retry:
            raise PbmError("name one source: --maildir DIR, --mbox FILE, --eml-dir DIR or --imap")
        url = db_url(ctx)
        with session(ctx) as s:
            g = pick_game(s, game) if game is not None else None
            if g is not None:
                s.expunge(g)  # read (id, name) by the handling, in sessions of its own
            context = _context(s, g, config, at)
            skipped: list[str] = []
            items: object = ()
            if maildir is not None:
                items = sources.read_maildir(maildir) if read_all else maildir_new(url, maildir, skipped)
            elif mbox is not None:
                items = sources.read_mbox(mbox)
                items = items if read_all else unread(s, items, "mbox:", skipped)
            elif eml_dir is not None:
                items = sources.read_eml_dir(eml_dir)
                items = items if read_all else unread(s, items, "eml:", skipped)
            elif imap:
                items = sources.read_imap(imap_config(config))
        # the protocol every intake path shares (pbm.intake): new mail stored, then every stored message
        # handled in arrival order — what a dead run left first — under the claims the workers take
        stored, handled = take_mail(url, items, context, retry_errors=retry)
        outcomes = handled + stored.known
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
            with session(ctx) as s:
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

    secret_app = typer.Typer(help="Players' secrets: reset one (mailed to the address on file); cut them out of old "
                             "stored mail.",
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

    @secret_app.command("redact-mail")
    def secret_redact_mail(ctx: typer.Context) -> None:
        """Cut secrets out of every message handled before this pbm redacted them (a one-off after upgrading).

        Every message pbm handles now is redacted as it is handled (docs/guarantees.md, promise 9); mail
        handled by an older pbm (an 18xx move mail kept whole, a refused sheet) is redacted here: every
        SECRET line's value and anything in pbm's secret form, in the raw mail, its subject and its outcome.
        Messages still waiting to be handled keep their bytes (they need the secret to be read)."""
        from pbm.mail.redact import redact_handled

        with session(ctx) as s:
            changed = redact_handled(s)
        typer.echo(f"Redacted {changed} stored message(s); messages already clean were left as they were.")

    @app.command("send-mail")
    def send_mail(
        ctx: typer.Context,
        config: Optional[Path] = CONFIG_OPT,
        retry_uncertain: bool = typer.Option(
            False, "--retry-uncertain", help="Also resend every delivery interrupted mid-send (may duplicate)."),
        mark_sent: Optional[list[int]] = typer.Option(
            None, "--mark-sent", metavar="ID", help="An uncertain delivery (#ID in `pbm status`) that the relay "
            "says arrived: mark it sent, never send it again (repeatable)."),
        resend: Optional[list[int]] = typer.Option(
            None, "--resend", metavar="ID", help="An uncertain delivery that the relay says did not arrive: send it "
            "again (repeatable)."),
    ) -> None:
        """Send every queued message not yet sent (each recipient at most once).

        A delivery interrupted while its data went to the relay is uncertain: it is listed with when and where it
        was handed over and its Message-ID, so the relay's log can tell whether it arrived; then --mark-sent ID or
        --resend ID settles it (issue 34, item 12)."""
        from pbm.mail.config import smtp_config
        from pbm.mail.outbox import flush, resolve_uncertain

        cfg = smtp_config(config)
        with session(ctx) as s:  # each delivery is committed by the flush; printed after (issue 34, item 7)
            settled = resolve_uncertain(s, list(mark_sent or ()), list(resend or ()))
            result = flush(s, cfg, retry_uncertain=retry_uncertain)
        for line in settled:
            typer.echo(line)
        _sent_or_fail(result)

"""Commands of Continental Rails' turn reports and their corrections: report, send, orders set."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import GAME_ARG, interactive as _interactive, pick_game, pick_weekly_game, progress as _progress, session
from pbm.errors import PbmError


def register(app: typer.Typer) -> None:
    orders_app = typer.Typer(help="A player's orders entered or fixed by the moderator.", no_args_is_help=True)
    app.add_typer(orders_app, name="orders")

    @orders_app.command("set")
    def orders_set(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        source: str = typer.Argument("-", metavar="FILE", help="A text sheet or just its order lines ('-': stdin)."),
        player: int = typer.Option(..., "--player", help="The seat whose orders these are."),
        turn: Optional[int] = typer.Option(None, "--turn", help="The turn (default: the current one); a resolved "
                                                                  "turn is then rerun with `pbm rerun-turn`."),
        mail: bool = typer.Option(True, "--mail/--no-mail", help="Tell the player (to the address on file)."),
        config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml): the sender."),
    ) -> None:
        """Enter or fix a player's orders, read and checked exactly as a mailed sheet (same problem list);
        they count as his last sheet for that turn."""
        import sys

        from pbm.report.amend import enter_orders, notify_entered

        if source == "-":
            text = sys.stdin.read()
        else:
            try:
                text = Path(source).read_text(encoding="utf-8-sig")
            except FileNotFoundError:
                raise PbmError(f"{source}: no such file") from None
            except (OSError, UnicodeDecodeError) as exc:
                raise PbmError(f"{source}: cannot read it as UTF-8 text ({exc.__class__.__name__})") from None
        with session(ctx) as s:
            g = pick_game(s, game, title="continental-rails")
            t = g.turn if turn is None else turn
            entered = enter_orders(s, g, player, t, text)
            address = None
            if mail:
                from pbm.mail.config import reply_sender

                address = notify_entered(s, g, player, entered, reply_sender(config))
            name = g.name
        typer.echo(f"Orders of player {player} for turn {t} of {name} stored (they count: the last sheet counts).")
        typer.echo("ORDERS (as they will be read):")
        for line in entered.echo or ["(no orders: control and dividends stay unchanged, §10.1D, §10.2H)"]:
            typer.echo(f"  {line}")
        if entered.problems:
            typer.echo(f"PROBLEMS ({len(entered.problems)}):")
            for line in entered.problems:
                typer.echo(line)
        else:
            typer.echo("No problems found.")
        if address:
            typer.echo(f"The player is told at {address}; `pbm send-mail` sends it.")
        if entered.resolved:
            typer.echo(f"Turn {t} is already resolved: `pbm rerun-turn {name} {t}` resolves it again with these "
                       "orders and queues the corrected reports.")

    @app.command("report")
    def report(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        turn: Optional[int] = typer.Option(None, "--turn", help="Turn to report (default: the last resolved)."),
        player: Optional[int] = typer.Option(None, "--player", help="Only this player's report."),
        all_players: bool = typer.Option(False, "--all", help="Every human player's report (the default)."),
        moderator: bool = typer.Option(False, "--moderator", help="Also the moderator's report (full state)."),
        out: Path = typer.Option(Path("reports"), "--out", help="Folder of the reports."),
    ) -> None:
        """Render the turn reports (§9) as PDFs: reports/<game>/turn-<T>/player-<N>.pdf."""
        from pbm.report.render import render_turn

        if player is not None and all_players:
            raise PbmError("give --player N or --all, not both")
        with session(ctx) as s:
            g = pick_weekly_game(s, game, "report")
            players = [player] if player is not None else None
            if player is not None and moderator is False and player < 1:
                raise PbmError(f"--player must be a position 1–15, not {player}")
            result = render_turn(s, g, turn=turn, players=players, moderator=moderator, out=out,
                                 progress=_progress("Rendering reports", _interactive()))
        if not result.paths:
            typer.echo(f"No reports written: {g.name} has no human players (use --moderator for the full report).")
            return
        typer.echo(f"Wrote {len(result.paths)} report(s) for turn {result.turn} of {g.name}:")
        for path in result.paths:
            typer.echo(f"  {path}")
        for warning in result.warnings:
            typer.echo(f"warning: {warning}", err=True)

    @app.command("send")
    def send(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        turn: Optional[int] = typer.Option(None, "--turn", help="Turn whose reports to mail (default: the last)."),
        reports: Path = typer.Option(Path("reports"), "--reports", help="Folder of the rendered reports."),
        config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml)."),
    ) -> None:
        """Mail each human player his report and next turnsheet (never twice to the same person)."""
        from pbm.mail.outbox import deliver
        from pbm.report.send import queue_reports

        with session(ctx) as s:
            g = pick_weekly_game(s, game, "send")
            from pbm.mail.config import reply_sender

            result = queue_reports(s, g, turn=turn, reports=reports, sender=reply_sender(config))
        typer.echo(f"Turn {result.turn} of {g.name}: {len(result.queued)} report mail(s) queued"
                   + (f", {len(result.already)} already queued before (not sent again)" if result.already else "")
                   + ".")
        for n in result.no_address:
            typer.echo(f"  player {n} has no email address on file: not mailed")
        for notice in result.notices:
            typer.echo(f"  told {notice}")
        if result.already:
            from sqlalchemy import func, select

            from pbm.models import OutboxMessage

            with session(ctx) as s:
                fixed = s.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.key.startswith(
                    f"correction:{g.name}:{result.turn}:", autoescape=True)))
            if fixed:
                typer.echo(f"  {fixed} corrected report mail(s) of turn {result.turn} were queued by `pbm rerun-turn` "
                           "(each rerun mails its corrections once)")
        with session(ctx) as s:
            typer.echo(f"Delivery: {deliver(s, config)}")
        from pbm.pipeline.cycle import _smtp_configured, undelivered_reports

        with session(ctx) as s:
            waiting = undelivered_reports(s, pick_game(s, g.name), result.turn) if _smtp_configured(config) else []
        if waiting:
            raise PbmError(f"{len(waiting)} report delivery(ies) not sent ({', '.join(waiting[:3])}); "
                           "`pbm send` or `pbm send-mail` tries again")

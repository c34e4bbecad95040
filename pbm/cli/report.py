"""Commands of Continental Rails' turn reports, their corrections and its archive: report, send, orders set,
archive, records (§11.3)."""

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
            delivered = deliver(s, config)
        typer.echo(f"Delivery: {delivered}")
        from pbm.pipeline.cycle import _smtp_configured, undelivered_reports

        with session(ctx) as s:
            waiting = undelivered_reports(s, pick_game(s, g.name), result.turn) if _smtp_configured(config) else []
        if waiting:
            raise PbmError(f"{len(waiting)} report delivery(ies) not sent ({', '.join(waiting[:3])}); "
                           "`pbm send` or `pbm send-mail` tries again")

    @app.command("archive")
    def archive_command(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        turn: Optional[int] = typer.Option(None, "--turn", help="The turn to archive (default: the last resolved)."),
        reports: Path = typer.Option(Path("reports"), "--reports", help="Folder of the reports."),
        archive: Path = typer.Option(Path("archive"), "--archive", help="Folder of the archive."),
        site: bool = typer.Option(True, "--site/--no-site", help="Also (re)build the game's static site."),
        verify_only: bool = typer.Option(False, "--verify", help="Only check the archived bundles' checksums."),
    ) -> None:
        """Archive turns (immutable bundles with checksums); a finished game's whole record and records (§11.3)."""
        from pbm.bundle import slug, verify
        from pbm.report.archive import archive_final, archive_turn, update_records
        from pbm.report.site import build_site
        from pbm.report.view import check_turn

        with session(ctx) as s:
            g = pick_weekly_game(s, game, "archive")
            if verify_only:
                from pbm.report.archive import leftover_problems

                folders = sorted((archive / slug(g.name)).glob("turn-*")) + sorted((archive / slug(g.name)).glob("final"))
                left = leftover_problems(archive / slug(g.name))  # what killed runs left (issue 34, item 12)
                if not folders and not left:
                    raise PbmError(f"nothing archived for {g.name} under {archive}")
                bad = [p for folder in folders for p in verify(folder)] + left
                for problem in bad:
                    typer.echo(f"  {problem}")
                if bad:
                    raise PbmError(f"{len(bad)} problem(s) in the archive of {g.name}")
                typer.echo(f"{len(folders)} bundle(s) of {g.name} intact.")
                return
            turns = [check_turn(g, turn)] if turn is not None else [check_turn(g, None)]
            lines = []
            for t in turns:
                result = archive_turn(s, g, t, reports=reports, archive=archive)
                lines.append(f"Turn {t}: {result.path} ({result.outcome})")
            if g.status in ("finished", "archived"):
                for change in update_records(s, g):
                    lines.append(f"New record: {change}")
                final = archive_final(s, g, reports=reports, archive=archive)
                lines.append(f"Whole game: {final.path} ({final.outcome})")
            elif site:
                folder = archive / slug(g.name) / "site"
                build_site(s, g, folder)
                lines.append(f"Site: {folder / 'index.html'}")
        for line in lines:  # after the commit (the hall of records), issue 34, item 7
            typer.echo(line)

    @app.command("records")
    def records(ctx: typer.Context) -> None:
        """The hall of records across games (§11.3): the best score in each VP category."""
        from sqlalchemy import select

        from pbm.models import GameRecord
        from pbm.report.archive import RECORD_NAMES

        with session(ctx) as s:
            rows = list(s.scalars(select(GameRecord).order_by(GameRecord.title, GameRecord.category)))
            if not rows:
                typer.echo("No records yet: they are set when a finished game is archived.")
                return
            typer.echo(f"{'category':<14} {'score':>7}  {'holder':<40} game (turn)")
            for r in rows:
                label = RECORD_NAMES.get(r.category, r.category)
                typer.echo(f"{label:<14} {r.value:>7g}  {r.holder[:40]:<40} {r.game_name} ({r.turn})")

"""Commands of Continental Rails' turn reports: report, send."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import GAME_ARG, interactive as _interactive, pick_game, pick_weekly_game, progress as _progress, session
from pbm.errors import PbmError


def register(app: typer.Typer) -> None:
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
        from pbm.report.send import deliver, queue_reports

        with session(ctx) as s:
            g = pick_weekly_game(s, game, "send")
            result = queue_reports(s, g, turn=turn, reports=reports)
        typer.echo(f"Turn {result.turn} of {g.name}: {len(result.queued)} report mail(s) queued"
                   + (f", {len(result.already)} already queued before (not sent again)" if result.already else "")
                   + ".")
        for n in result.no_address:
            typer.echo(f"  player {n} has no email address on file: not mailed")
        with session(ctx) as s:
            typer.echo(f"Delivery: {deliver(s, config)}")
        from pbm.pipeline.cycle import _smtp_configured, undelivered_reports

        with session(ctx) as s:
            waiting = undelivered_reports(s, pick_game(s, g.name), result.turn) if _smtp_configured(config) else []
        if waiting:
            raise PbmError(f"{len(waiting)} report delivery(ies) not sent ({', '.join(waiting[:3])}); "
                           "`pbm send` or `pbm send-mail` tries again")

"""Commands of the report part: report, send, cycle, archive, records, demo."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pbm.cliutil import GAME_ARG, pick_game, session
from pbm.errors import PbmError


def _progress(label: str, enabled: bool):
    """A typer progress bar over an iterable (shown only on a terminal)."""
    def wrap(items):
        items = list(items)
        if not enabled or len(items) < 2:
            yield from items
            return
        with typer.progressbar(items, label=label, file=None) as bar:
            yield from bar
    return wrap


def _interactive() -> bool:
    import sys

    return sys.stderr.isatty()


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
            g = pick_game(s, game)
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

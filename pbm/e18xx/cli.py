"""Command line for 18xx games: ``pbm 18xx replay|show|moves FILE.json``.

FILE is an 18xx.games export or a log written by ``Game.to_log()``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from .errors import GameError
from .game import Game
from .replay import Replayer, summary
from .view import describe, list_moves

app = typer.Typer(help="18xx games (18GA): replay 18xx.games exports, show a game, list legal moves.",
                  no_args_is_help=True, add_completion=False)


def _fail(msg: str) -> None:
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code=1)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except OSError as exc:
        _fail(f"cannot read {path}: {exc.strerror or exc}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"{path} is not JSON ({exc.msg} at line {exc.lineno})")
    if not isinstance(data, dict):
        _fail(f"{path} does not hold a game (expected a JSON object)")
    return data


def load_game(path: Path) -> Game:
    """Build the game in ``path`` (export or our own log)."""
    data = _read(path)
    try:
        if isinstance(data.get("pbm"), dict):  # written by `pbm 18xx export`: replayed under its exact rules
            from .exchange import replay_export

            return replay_export(data)
        if "settings" in data or (data.get("players") and isinstance(data["players"][0], dict)):
            return Replayer(data).run()
        if "title" in data and "players" in data:
            return Game.from_log(data)
    except GameError as exc:
        _fail(str(exc))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        _fail(f"{path} is not a valid game file ({type(exc).__name__}: {exc})")
    _fail(f"{path} is neither an 18xx.games export nor a pbm 18xx log")
    raise AssertionError  # pragma: no cover


@app.command()
def replay(file: Path = typer.Argument(..., help="game JSON"),
           as_json: bool = typer.Option(False, "--json", help="print the result as JSON")) -> None:
    """Replay a game and print the result."""
    g = load_game(file)
    res = summary(g)
    if as_json:
        typer.echo(json.dumps(res, indent=2))
        return
    status = f"finished ({res['end_reason']})" if res["finished"] else "in progress"
    typer.echo(f"{g.title.name}: {status} after {len(g.actions)} actions")
    for i, (name, score) in enumerate(res["result"].items(), 1):
        typer.echo(f"  {i}. {name:<16} {score:>6}")


@app.command()
def show(file: Path = typer.Argument(..., help="game JSON")) -> None:
    """Show the state after replaying the game."""
    typer.echo(describe(load_game(file)))


@app.command()
def moves(file: Path = typer.Argument(..., help="game JSON")) -> None:
    """List what the acting entity may legally do now."""
    typer.echo(list_moves(load_game(file)))


def main() -> None:  # pragma: no cover
    app()

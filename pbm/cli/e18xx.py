"""Command line for 18xx games: ``pbm 18xx replay|show|moves FILE.json``.

FILE is an 18xx.games export or a log written by ``Game.to_log()``; ``show``
and ``moves`` also take the name of a game in the database.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # typing only; the engine is loaded when a command runs
    from pbm.e18xx.core.game import Game

app = typer.Typer(help="18xx games: replay 18xx.games exports, show a game at any action, list legal moves, "
                  "and play games by email.", no_args_is_help=True, add_completion=False)


def _fail(msg: str) -> None:
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code=1)


def _read(path: Path) -> dict[str, Any]:
    from pbm.e18xx.core.errors import ReplayError
    from pbm.e18xx.replay import read_export_file

    try:
        return read_export_file(path)
    except ReplayError as exc:
        _fail(str(exc))
        raise AssertionError  # pragma: no cover


def load_game(path: Path, at: int | None = None, events: bool = False) -> "Game":
    """Build the game in ``path`` (export or our own log), up to action ``at`` if given
    (an export's action id; the n-th action of one of our logs); ``events``: what each action
    caused is recorded as it replays (``pbm.e18xx.events.recorded``)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.events import attach
    from pbm.e18xx.replay import Replayer

    data = _read(path)
    try:
        if isinstance(data.get("pbm"), dict):  # written by `pbm 18xx export`: replayed under its exact rules
            from pbm.e18xx.pbem.exchange import ExactReplayer

            rep: Any = ExactReplayer(data)
        elif "settings" in data or (data.get("players") and isinstance(data["players"][0], dict)):
            rep = Replayer(data)
        else:
            rep = None
        if rep is not None:
            if events:
                attach(rep.game)
            return rep.run(upto=at)
        if "title" in data and "players" in data:
            if at is not None:
                data = {**data, "actions": list(data.get("actions", []))[:max(at, 0)]}
            g = Game(data["title"], data["players"], int(data.get("seed", 0)), data.get("optional_rules", ()),
                     data.get("player_ids"))
            if events:
                attach(g)
            for d in data.get("actions", []):
                g.process(A.action_from_dict(d))
            return g
    except GameError as exc:
        _fail(str(exc))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError) as exc:
        _fail(f"{path} is not a valid game file ({type(exc).__name__}: {exc})")
    _fail(f"{path} is neither an 18xx.games export nor a pbm 18xx log")
    raise AssertionError  # pragma: no cover


@app.command()
def replay(file: Path = typer.Argument(..., help="game JSON"),
           events: bool = typer.Option(False, "--events", help="Also each action and what it caused (auction "
                                       "won, routes, dividends, price moves, phase changes, rust, ...), as "
                                       "`pbm 18xx log --events` prints them."),
           as_json: bool = typer.Option(False, "--json", help="print the result as JSON (with --events: "
                                        "the events too)")) -> None:
    """Replay a game and print the result."""
    from pbm.e18xx.replay import summary

    g = load_game(file, events=events)
    res = summary(g)
    if as_json:
        if events:
            from pbm.e18xx.pbem.eventlines import events_data

            res = {**res, "events": events_data(g)}
        typer.echo(json.dumps(res, indent=2))
        return
    if events:
        from pbm.e18xx.events import recorded
        from pbm.e18xx.pbem.eventlines import grouped

        for line in grouped(g, recorded(g), indent=""):
            typer.echo(line)
    status = f"finished ({res['end_reason']})" if res["finished"] else "in progress"
    typer.echo(f"{g.title.name}: {status} after {len(g.actions)} actions")
    for i, (name, score) in enumerate(res["result"].items(), 1):
        typer.echo(f"  {i}. {name:<16} {score:>6}")


def _target(ctx: typer.Context, target: str, at: int | None) -> "Game":
    """A game file, or else a game in the database, replayed up to action ``at``."""
    if at is not None and at < 0:
        _fail(f"--at must be an action number (0 or more), not {at}")
    path = Path(target)
    if path.is_file() or target.lower().endswith(".json"):
        return load_game(path, at)
    from pbm.cli.util import session
    from pbm.errors import PbmError
    from pbm.e18xx.pbem.games import pick_18xx_game, replay_rows

    try:
        with session(ctx) as s:
            return replay_rows(s, pick_18xx_game(s, target), upto=at).game
    except PbmError as exc:
        _fail(f"{target!r} is neither a game file nor a game in the database: {exc}")
    raise AssertionError  # pragma: no cover


AT_OPTION = typer.Option(None, "--at", metavar="N", help="The state after action N (an export's action id, or the "
                         "N-th stored move of a game in the database); default: the latest.")


@app.command()
def show(ctx: typer.Context,
         target: str = typer.Argument(..., metavar="FILE|GAME", help="game JSON, or a game in the database"),
         at: int | None = AT_OPTION,
         as_json: bool = typer.Option(False, "--json", help="print the state as JSON")) -> None:
    """Show the state of a game (after action N with --at)."""
    from pbm.e18xx.render.view import describe, state_dict

    g = _target(ctx, target, at)
    if as_json:
        typer.echo(json.dumps(state_dict(g), indent=1, sort_keys=True))
    else:
        typer.echo(describe(g))


@app.command()
def moves(ctx: typer.Context,
          target: str = typer.Argument(..., metavar="FILE|GAME", help="game JSON, or a game in the database"),
          at: int | None = AT_OPTION) -> None:
    """List what the acting entity may legally do now (or after action N)."""
    from pbm.e18xx.render.view import list_moves

    typer.echo(list_moves(_target(ctx, target, at)))


@app.command()
def titles() -> None:
    """The 18xx titles pbm plays, with their player counts and optional rules."""
    from pbm.e18xx.core.title import known_titles, load_title

    for name in known_titles():
        t = load_title(name)
        rng = t.data["players"]
        typer.echo(f"{name}: {t.data.get('subtitle', '')} ({rng['min']}-{rng['max']} players)")
        for rule, text in t.data.get("optional_rules", {}).items():
            typer.echo(f"  --rule {rule}: {text}")


def main() -> None:  # pragma: no cover
    app()

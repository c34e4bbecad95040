"""Moderator commands for 18xx games in the database (added to the ``pbm 18xx`` group).

``pbm 18xx import FILE.json [--name NAME] [--emails FILE.csv]``,
``pbm 18xx export [GAME] [-o FILE]``, ``pbm 18xx status [GAME]``,
``pbm 18xx move [GAME] --player N "TEXT"``, ``pbm 18xx undo [GAME]``,
``pbm 18xx pdf [GAME] [-o FILE]``, ``pbm 18xx log [GAME]``.
Games are created with ``pbm new-game 18GA --players FILE.csv``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from pbm.cliutil import GAME_ARG, session
from pbm.errors import PbmError


def _print_secrets(row, secrets: dict[int, str], seats) -> None:
    typer.echo("Player secrets (shown once; pbm stores only a hash — give each to its player):")
    for p in seats:
        if p.number in secrets:
            contact = f" <{p.email}>" if p.email else " (no e-mail address)"
            typer.echo(f"  #{p.number} {p.name}{contact}: {secrets[p.number]}")


def import_cmd(ctx: typer.Context,
               file: Path = typer.Argument(..., help="An 18xx.games export (JSON)."),
               name: Optional[str] = typer.Option(None, "--name", help="Game name (default: 18ga-import-<id>)."),
               emails: Optional[Path] = typer.Option(None, "--emails", help="CSV name,email: players' addresses "
                                                     "(matched by the names in the export).")) -> None:
    """Import an 18xx.games export as a game that goes on by email."""
    from pbm.seats import read_players_file

    from pbm.e18xx.pbem.exchange import import_export
    from pbm.e18xx.pbem.games import players

    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PbmError(f"cannot read {file}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PbmError(f"{file} is not JSON ({exc})") from None
    seats = read_players_file(emails) if emails else None
    with session(ctx) as s:
        row, secrets, game = import_export(s, data, name=name, seats=seats)
        typer.echo(f"Imported game {row.name} (id {row.id}): {row.title}, {len(game.actions)} actions, "
                   f"{'finished' if game.finished else 'now ' + game.state.round.kind + ' round'}.")
        _print_secrets(row, secrets, players(s, row))


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


def move_cmd(ctx: typer.Context,
             words: list[str] = typer.Argument(..., metavar="[GAME] TEXT...",
                                               help="The game (optional when there is one), then moves in the move "
                                               "language, one per argument (e.g. \"par W&A 90\" \"buy CoG ipo\")."),
             player: int = typer.Option(..., "--player", help="The seat number the moves are made for."),
             mail: bool = typer.Option(True, "--mail/--no-mail", help="Queue the new state to the players.")) -> None:
    """The moderator enters moves on a player's behalf (all or nothing, like a mail)."""
    from pbm.mail.config import reply_sender

    from pbm.e18xx.pbem.mailplay import broadcast
    from pbm.e18xx.pbem.games import apply, pick_18xx_game
    from pbm.e18xx.pbem.games import players as seat_rows

    with session(ctx) as s:
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
            typer.echo(f"  #{a.seq} {a.player}: {_fmt(a.action)}" + (" (standing order)" if a.via else ""))
        assert out.game is not None
        typer.echo(f"Stored {len(out.applied)} action(s). Now: {_now(out.game)}")
        if mail:
            seat = next(p for p in seat_rows(s, row) if p.number == player)
            n = broadcast(s, row, out.game, reply_sender(None), mover=seat, applied=out.applied, rep=out.replayed,
                          note=f"The moderator entered moves for {seat.name}.")
            typer.echo(f"Queued the new state to {n} player(s); `pbm send-mail` sends it.")


def undo_cmd(ctx: typer.Context, game: Optional[str] = GAME_ARG) -> None:
    """Remove the last stored action (moderator)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import load, pick_18xx_game, undo

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        last = undo(s, row)
        g = load(s, row)
        typer.echo(f"Removed action #{last.seq}: {_fmt(A.action_from_dict(last.action))} "
                   f"(player {last.player_number}). Now: {_now(g)}")


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
            last: int = typer.Option(0, "--last", help="Only the last N actions.")) -> None:
    """The stored actions: number, player, move."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import action_rows, pick_18xx_game

    with session(ctx) as s:
        row = pick_18xx_game(s, game)
        rows = action_rows(s, row)
        for r in rows[-last:] if last else rows:
            via = " (standing order)" if r.action.get("_via") else ""
            typer.echo(f"#{r.seq:<4} player {r.player_number if r.player_number is not None else '-'}  "
                       f"{_fmt(A.action_from_dict(r.action))}{via}")


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


def register(app: typer.Typer) -> None:
    from pbm.e18xx.cli import app as group

    group.command("import")(import_cmd)
    group.command("export")(export_cmd)
    group.command("status")(status_cmd)
    group.command("move")(move_cmd)
    group.command("undo")(undo_cmd)
    group.command("pdf")(pdf_cmd)
    group.command("log")(log_cmd)

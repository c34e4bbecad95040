"""Continental Rails commands of the ``pbm`` CLI: ``map``, ``run-turn``, ``rerun-turn`` and
``simulate``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import GAME_ARG, pick_game, pick_weekly_game, session
from pbm.errors import PbmError

MAX_TURNS = 200  # a safety stop for --until-end (§1.3 ends games long before)


def register(app: typer.Typer) -> None:
    app.command("map")(map_command)
    app.command("run-turn")(run_turn_command)
    app.command("rerun-turn")(rerun_turn_command)
    app.command("simulate")(simulate_command)


def run_turn_command(
    ctx: typer.Context,
    game: Optional[str] = GAME_ARG,
    until_end: bool = typer.Option(False, "--until-end",
                                   help="Computer orders for every seat without orders; keep going until the game ends."),
    only_turn: Optional[int] = typer.Option(None, "--turn", metavar="N",
                                            help="Resolve turn N only: refuse, in one line, if the game is not at "
                                                 "turn N (say, another run-turn or cycle resolved it already)."),
) -> None:
    """Resolve the current turn (Appendix A) with the orders received; one line per turn.

    Holds the cycle's lock (a running `pbm cycle` and run-turn exclude each other) and moves the
    turn's cycle state to ``resolved`` in the same transaction, so the next `pbm cycle` reports,
    mails and archives it.  Run again, it resolves the next turn; ``--turn N`` makes it resolve turn
    N exactly once, however many are started (for scripts and cron jobs)."""
    from pbm.cli.util import db_url
    from pbm.cr.resolve import run_turn
    from pbm.locks import lock_game, process_lock
    from pbm.pipeline.cycle import STATES, advance, turn_state

    if only_turn is not None and only_turn < 1:
        raise PbmError(f"--turn {only_turn}: turns are numbered from 1")
    with process_lock(db_url(ctx), "cycle", what="pbm cycle, run-turn or rerun-turn"):
        for _ in range(MAX_TURNS):
            with session(ctx) as s:
                g = pick_weekly_game(s, game, "run-turn")
                lock_game(s, g)
                name = g.name
                if g.status == "open" and turn_state(s, g).state not in ("open", "closed"):  # pragma: no cover
                    raise PbmError(f"turn {g.turn} of {g.name} is already {turn_state(s, g).state}")
                if only_turn is not None and g.turn != only_turn:
                    state = "is already resolved" if g.turn > only_turn else "has not begun"
                    raise PbmError(f"turn {only_turn} of {g.name} {state}: the game is at turn {g.turn}"
                                   + (" (finished)" if g.status != "open" else ""))
                only_turn = None  # with --until-end, the turns after it follow
                resolved_turn = g.turn
                result = run_turn(s, g, computer_for_missing=until_end)
                from pbm.clock import utcnow

                now = utcnow()
                row = turn_state(s, g, resolved_turn)
                if row.state == "open":
                    advance(row, "closed", now, "closed by run-turn")
                advance(row, "resolved", now, "resolved by run-turn")
                assert STATES.index(row.state) == 2
            typer.echo(result.line())
            if not until_end or result.game_over:
                return
            game = name
    raise PbmError(f"stopped after {MAX_TURNS} turns without the game ending")


def rerun_turn_command(
    ctx: typer.Context,
    args: list[str] = typer.Argument(..., metavar="[GAME] TURN",
                                     help="The game (may be omitted when the database holds one game) and the turn "
                                          "to resolve again (later resolved turns are redone too)."),
    mail: bool = typer.Option(True, "--mail/--no-mail", help="Queue each human's corrected reports (marked as a "
                                                           "correction; `pbm send-mail` sends them)."),
    reason: str = typer.Option("", "--reason", help="Why the turn was resolved again (told to the players)."),
    reports: Path = typer.Option(Path("reports"), "--reports", help="Folder of the reports (rendered again)."),
) -> None:
    """Restore the snapshot taken before TURN and resolve it (and later turns) again with the stored orders;
    render the reports again and queue the corrected ones to the players.

    `pbm rerun-turn 2` (the only game) and `pbm rerun-turn GAME 2` both work."""
    from pbm.cli.util import db_url
    from pbm.cr.resolve import rerun_turn
    from pbm.locks import lock_game, process_lock
    from pbm.report.amend import queue_corrections, record_rerun

    if len(args) == 1:
        game, turn_text = None, args[0]
    elif len(args) == 2:
        game, turn_text = args
    else:
        raise PbmError("expected [GAME] TURN")
    try:
        turn = int(turn_text)
    except ValueError:
        raise PbmError(f"TURN must be a whole number, not {turn_text!r}") from None
    with process_lock(db_url(ctx), "cycle", what="pbm cycle, run-turn or rerun-turn"):
        with session(ctx) as s:
            g = pick_weekly_game(s, game, "rerun-turn")
            lock_game(s, g)
            results = rerun_turn(s, g, turn)
            name = g.name
            rerun = record_rerun(s, g, turn, reason) if mail else 0
        if mail:  # issue 18, item 8: the corrected reports, keyed by this rerun; before anything is printed
            with session(ctx) as s:
                g = pick_game(s, name, title="continental-rails")
                done = queue_corrections(s, g, [r.turn for r in results], rerun, reports=reports, reason=reason)
        for result in results:
            typer.echo(result.line())
        if not mail:
            return
        if done.queued:
            typer.echo(f"Rerun {rerun} of turn {turn}: {len(done.queued)} corrected report mail(s) queued (turn(s) "
                       f"{', '.join(str(t) for t in sorted({t for t, _ in done.queued}))}); `pbm send-mail` sends "
                       "them.")
        else:
            typer.echo("No human player with an address: no corrected report to mail.")


def simulate_command(
    ctx: typer.Context,
    seasons: int = typer.Option(1, "--seasons", help="How many whole games to simulate."),
    seed: int = typer.Option(1, "--seed", help="Seed of the first season; season i uses seed + i."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Seasons played in parallel processes."),
    turns: Optional[int] = typer.Option(None, "--turns", help="Stop each game after N turns (default: to its end)."),
    report: Optional[str] = typer.Option(None, "--report", help="Write facts, per-turn CSV and charts to this folder."),
    json_path: Optional[str] = typer.Option(None, "--json", help="Also write the report as JSON to this file."),
    keep_db: Optional[str] = typer.Option(None, "--keep-db", help="Keep the games in this database URL."),
) -> None:
    """All-computer seasons measured against the rulebook's stated facts, each with a 95 % interval.

    A fact passes only when its interval lies inside the stated range; exit code 1 when any fact
    fails or is unsure (more seasons needed)."""
    from pbm.cr import simulate

    simulate.main(ctx, seasons=seasons, turns=turns, seed=seed, url=keep_db, jobs=jobs, report_dir=report,
                  json_path=json_path)


def map_command(
    as_json: bool = typer.Option(False, "--json", help="Print towns and routes as JSON."),
) -> None:
    """The Continental Rails route list, as on the back of the printed map."""
    from pbm.cr import mapdata

    game_map = mapdata.load_map()
    if as_json:
        typer.echo(json.dumps(mapdata.map_json(game_map), indent=2, ensure_ascii=False))
    else:
        typer.echo(mapdata.route_list_text(game_map), nl=False)


"""The ``pbm`` command line.

Core commands live here; each part of the product adds its own commands from
its own module (``register(app)``), listed in :data:`PARTS`, so parts can grow
without editing this file.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import NoReturn, Optional

import typer

from pbm import __version__
from pbm.cli.util import GAME_ARG, pick_game, session
from pbm.errors import PbmError

app = typer.Typer(
    help="pbm: the turn processor for play-by-mail railroad games "
    "(Continental Rails II; 18xx titles by email).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Modules that add commands: each has ``register(app: typer.Typer) -> None``,
# or an ``app`` of its own mounted under the group name given here.
PARTS = {"pbm.cli.cr": None, "pbm.cli.mail": None, "pbm.cli.turns": None, "pbm.cli.report": None, "pbm.cli.pipeline": None,
         "pbm.cli.e18xx": "18xx", "pbm.cli.pbem": None, "pbm.cli.web": None}

def _version(value: bool) -> None:
    if value:
        typer.echo(f"pbm {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    db: Optional[str] = typer.Option(
        None, "--db", envvar="PBM_DATABASE_URL",
        help="Database URL (default: sqlite:///pbm.db; postgresql://user@host/name works).",
    ),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Global options."""
    ctx.obj = {"db": db}


@app.command("new-game")
def new_game(
    ctx: typer.Context,
    title: str = typer.Argument(..., help="Title: continental-rails, or an 18xx title (18GA, ...)."),
    seed: int = typer.Option(1841, "--seed", help="Game seed: every random draw derives from it."),
    players: Optional[Path] = typer.Option(
        None, "--players", help="CSV: name,email[,character,phone,address,anonymous,hide_address,hide_phone]."
    ),
    name: Optional[str] = typer.Option(None, "--name", help="Game name (default: cr-SEED)."),
    anonymous: bool = typer.Option(False, "--anonymous", help="Hide players' names and contacts (§3.1)."),
    rule: Optional[list[str]] = typer.Option(None, "--rule", help="18xx: an optional rule (repeat for more)."),
    welcome: bool = typer.Option(True, "--welcome/--no-welcome",
                                 help="Queue a welcome mail with his secret to each player (pbm send-mail sends)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml): the sender."),
) -> None:
    """Create a new game: Continental Rails (15 positions, humans from --players, the rest computer-played)
    or an 18xx title (its players from --players, in seat order; `pbm 18xx titles` lists them)."""
    from pbm.kinds import UnknownKind, kind_for_title, known_titles

    if name is not None and (not name.strip() or len(name) > 120 or not name.isprintable()):
        raise PbmError("a game name is 1 to 120 printable characters (no control characters)")
    try:
        kind, canonical = kind_for_title(title)
    except UnknownKind:
        if rule:
            raise PbmError("--rule is for 18xx titles") from None
        raise PbmError(f"unknown title {title!r}; known: {', '.join(known_titles())}") from None
    create = kind.new_game(title=canonical, seed=seed, name=name, players=players, anonymous=anonymous,
                           rules=tuple(rule or ()))
    with session(ctx) as s:  # committed before anything is printed (a closed pipe cannot undo it)
        from pbm.mail.config import mail_settings, reply_sender

        created = create(s)
        lines = created.lines
        if welcome and created.secrets:  # issue 18, item 10: in the same transaction as the game
            from pbm.mail.account import queue_welcome

            mailed = queue_welcome(s, created.game, created.secrets, reply_sender(config),
                                   mail_settings(config).moderator)
            if mailed:
                lines.append(f"Welcome mail with the secret queued for player(s) {', '.join(map(str, mailed))}; "
                             "`pbm send-mail` sends it.")
        lines += kind.started(s, created.game, reply_sender(config))  # issue 18, item 11
    _echo_lines(lines)


def _echo_lines(lines: list[str]) -> None:
    """Print after the commit; a reader that went away (closed pipe) does not undo what is done."""
    try:
        for line in lines:
            typer.echo(line)
    except BrokenPipeError:  # pragma: no cover - depends on the terminal
        pass


@app.command("doctor")
def doctor(
    ctx: typer.Context,
    config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (default: PBM_CONFIG or ./pbm.toml)."),
    as_json: bool = typer.Option(False, "--json", help="The same facts as JSON."),
) -> None:
    """What this pbm is and uses: version, database and schema revision, mail in/out (no passwords), fonts,
    disk.  Exits 1 if something configured is broken or unreachable; changes nothing."""
    from pbm.doctor import run

    checks = run(ctx.obj["db"], config)
    if as_json:
        typer.echo(json.dumps({c.section: {"ok": c.ok, **c.data} for c in checks}, indent=2, sort_keys=True,
                              default=str))
    else:
        for c in checks:
            mark = {True: "ok", False: "PROBLEM", None: "-"}[c.ok]
            typer.echo(f"{c.section}: {mark}")
            for line in c.lines:
                typer.echo(f"  {line}")
    if any(c.ok is False for c in checks):
        raise typer.Exit(1)


@app.command("worker")
def worker(
    ctx: typer.Context,
    once: bool = typer.Option(False, "--once", help="Do every due game, then exit (for cron)."),
    maildir: Optional[Path] = typer.Option(None, "--maildir", help="A shared Maildir of turnsheet mails to read."),
    imap: bool = typer.Option(False, "--imap", help="Read the IMAP mailbox of [mail] in pbm.toml / PBM_IMAP_* each pass."),
    reports: Path = typer.Option(Path("reports"), "--reports", help="Folder of the reports (shared by workers)."),
    archive: Path = typer.Option(Path("archive"), "--archive", help="Folder of the archive (shared by workers)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml)."),
    poll: float = typer.Option(30.0, "--poll", min=0.1, help="Seconds between passes when no mail comes (mail landing in the mailbox starts a pass at once)."),
    quiet: bool = typer.Option(False, "--quiet", help="No per-game lines, only the closing summary."),
) -> None:
    """Do due work continuously: read mail, then close, resolve, report, send and archive each game whose
    deadline has passed.  Any number of workers share one PostgreSQL database, each game claimed by one
    at a time (docs/hosting.md).  SIGTERM finishes the current game and stops.  On PostgreSQL every statement
    is bounded by PBM_STATEMENT_TIMEOUT (default here 300 s) and every lock wait by PBM_LOCK_TIMEOUT (120 s)."""
    import sys

    from pbm.pipeline.worker import Worker, worker_options

    def log(line: str) -> None:
        if not quiet:
            typer.echo(line)

    if imap and maildir is not None:
        raise PbmError("name one mail source: --maildir DIR or --imap")
    import os

    # a worker runs unattended: no statement may run, and no lock be waited for, without end (docs/hosting.md);
    # set for the engine this command makes, then put back (the command may run inside another program)
    defaults = {k: v for k, v in (("PBM_STATEMENT_TIMEOUT", "300"), ("PBM_LOCK_TIMEOUT", "120")) if k not in os.environ}
    os.environ.update(defaults)
    try:
        from pbm.db import get_engine

        get_engine(ctx.obj["db"])
    finally:
        for k in defaults:
            os.environ.pop(k, None)
    opts = worker_options(reports=reports, archive=archive, maildir=maildir, config=config, once=once,
                          poll=poll, log=log, imap=imap)
    if sys.stderr.isatty() and once:
        import click

        def progress(total: int):
            bar = click.progressbar(length=max(total, 1), label="Games", file=sys.stderr)
            bar.__enter__()
            bar.close = lambda: bar.__exit__(None, None, None)
            return bar

        opts.cycle.progress = None
        opts_progress = progress
    else:
        opts_progress = None
    w = Worker(ctx.obj["db"], opts)
    if opts_progress is not None:
        w.progress = opts_progress
    stats = w.run()
    typer.echo(f"worker {opts.name}: {stats.summary()}")
    left: list[str] = []
    if once:  # issue 34, item 12: a run for cron does not end "done" while a delivery may not have arrived
        from pbm.mail.outbox import uncertain

        with session(ctx) as s:
            left = uncertain(s)
        for line in left[:10]:
            typer.echo(f"  uncertain delivery {line}")
        if left:
            typer.echo(f"worker {opts.name}: {len(left)} delivery(ies) uncertain (interrupted mid-send): ask the "
                       "relay, then `pbm send-mail --mark-sent ID` or `--resend ID`", err=True)
    if stats.failed or left:
        raise typer.Exit(1)


@app.command("games")
def games(ctx: typer.Context) -> None:
    """List the games in the database."""
    from sqlalchemy import select

    from pbm.models import Game

    with session(ctx) as s:
        rows = list(s.scalars(select(Game).order_by(Game.id)))
        if not rows:
            typer.echo("No games. Create one with `pbm new-game continental-rails`.")
            return
        typer.echo(f"{'id':>3}  {'name':<24} {'title':<20} {'turn':>4} {'status':<9} climate")
        for g in rows:
            typer.echo(f"{g.id:>3}  {g.name:<24} {g.title:<20} {g.turn:>4} {g.status:<9} {g.climate}")


@app.command("show")
def show(ctx: typer.Context, game: Optional[str] = GAME_ARG) -> None:
    """A readable summary of a game: climate, players, railroads, PCs for sale (an 18xx game: its state,
    as `pbm 18xx show` prints it)."""
    from pbm.kinds import kind_of

    with session(ctx) as s:
        g = pick_game(s, game)
        typer.echo(kind_of(g).summary(s, g), nl=False)


@app.command("export")
def export(
    ctx: typer.Context,
    game: Optional[str] = GAME_ARG,
    as_json: bool = typer.Option(True, "--json", help="JSON (the only format for now)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """The complete state of a game as canonical JSON (an 18xx game: the 18xx.games export format)."""
    from pbm.kinds import kind_of

    with session(ctx) as s:
        g = pick_game(s, game)
        text = kind_of(g).export(s, g)
    if output:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"Wrote {output}")
    else:
        typer.echo(text, nl=False)


def _register_parts() -> None:
    for module_name, group in PARTS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # that part has no commands yet
            raise
        if hasattr(module, "register"):
            module.register(app)
        else:
            app.add_typer(module.app, name=group)


_register_parts()


def main() -> None:
    """Entry point of the ``pbm`` console script and ``python -m pbm``: the command, then the
    process ends (:func:`leave`).

    Output never stops a command half-way (issue 34, item 7): stdout and stderr are guarded
    (:func:`_guard_output`), so a reader that went away (``pbm … | head -1``) or a full disk under
    ``> file`` loses the rest of the output, not the command's work; the command runs to its end,
    and then one line on stderr says the output was lost (exit code 1 if the command succeeded)."""
    _guard_output()
    try:
        try:
            app()
        except Exception as exc:  # noqa: BLE001 - an operator's environment is one line; a bug keeps its traceback
            line = _environment_problem(exc)
            if line is None:
                raise
            _fail_line(line)
            code: object = 1
        else:
            code = 0
    except SystemExit as done:
        code = done.code
    leave(_output_verdict(code))


class _GuardedFile:
    """Made by :func:`_guard_output`: an ``io.FileIO`` on fd 1 or 2 whose write never fails.  The
    first failure (EPIPE, ENOSPC, EIO, ...) is kept in :attr:`lost` and the descriptor is pointed at
    /dev/null, so everything after it (and what is still buffered) goes nowhere, quietly."""

    lost: OSError | None = None


def _guard_output() -> None:
    """Put a :class:`_GuardedFile` under ``sys.stdout`` and ``sys.stderr`` (same encoding, errors and
    buffering as Python chose)."""
    import io
    import os
    import sys

    class Guarded(io.FileIO, _GuardedFile):
        def write(self, data):  # noqa: ANN001
            try:
                return super().write(data)
            except BlockingIOError:
                raise
            except OSError as exc:
                if self.lost is None:
                    self.lost = exc
                try:
                    null = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(null, self.fileno())
                    os.close(null)
                except OSError:  # pragma: no cover - /dev/null missing: keep dropping by hand
                    pass
                return len(data)

    for name in ("stdout", "stderr"):
        old = getattr(sys, name)
        if isinstance(getattr(getattr(old, "buffer", None), "raw", None), _GuardedFile):
            continue  # main() called twice in one process
        try:
            fd = old.fileno()
            old.flush()
        except (AttributeError, OSError, ValueError):  # no real stream (a test runner's, pythonw): leave it
            continue
        raw = Guarded(fd, "w", closefd=False)
        stream = io.TextIOWrapper(io.BufferedWriter(raw), encoding=old.encoding, errors=old.errors,
                                  line_buffering=old.line_buffering,
                                  write_through=getattr(old, "write_through", False))
        setattr(sys, name, stream)


def _lost(name: str) -> OSError | None:
    import sys

    stream = getattr(sys, name)
    raw = getattr(getattr(stream, "buffer", None), "raw", None)
    if not isinstance(raw, _GuardedFile):
        return None
    try:
        stream.flush()
    except (OSError, ValueError):  # pragma: no cover - the guard keeps writes from failing
        pass
    return raw.lost


def _output_verdict(code: object) -> object:
    """The exit code once the command is done: when its output was lost, one line on stderr says so, and a
    command that otherwise succeeded exits 1."""
    lost = _lost("stdout")
    if lost is None:
        return code
    reason = lost.strerror or str(lost)
    if code in (0, None):
        _fail_line(f"pbm: its output was lost (stdout: {reason}); the command itself finished and what it did "
                   "is stored")
        return 1
    _fail_line(f"pbm: its output was lost too (stdout: {reason})")
    return code


def _fail_line(text: str) -> None:
    import sys

    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # pragma: no cover - stderr gone as well: the exit code tells
        pass


def _environment_problem(exc: BaseException) -> str | None:
    """One line for an error of the machine pbm runs on that reached the top (issue 34, item 12): a folder
    or disk that is read-only or full, a database that refuses for such a reason, a font file missing from
    the installation.  None for anything else (a fault of pbm's keeps its traceback)."""
    import errno
    import sys

    if isinstance(exc, OSError):
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        reason = exc.strerror or str(exc) or exc.__class__.__name__
        hint = {errno.ENOSPC: "a disk pbm writes to is full; free some space and run the command again",
                errno.EROFS: "that folder is on a read-only disk; name a writable folder",
                errno.EACCES: "pbm may not write there; name a folder it may write to",
                errno.EISDIR: "that is a folder; name a file",
                errno.ENOTDIR: "a part of that path is not a folder"}.get(exc.errno or 0)
        return (f"Error: cannot use{where}: {reason}" if where else f"Error: {reason}") + (f" ({hint})" if hint else "")
    sqlalchemy_exc = sys.modules.get("sqlalchemy.exc")
    sqlite3 = sys.modules.get("sqlite3")
    if (sqlalchemy_exc is not None and isinstance(exc, sqlalchemy_exc.OperationalError)) or (
            sqlite3 is not None and isinstance(exc, sqlite3.OperationalError)):
        from pbm.db import explain

        return f"Error: the database refused: {explain(exc)}"
    ttfonts = sys.modules.get("reportlab.pdfbase.ttfonts")
    if ttfonts is not None and isinstance(exc, ttfonts.TTFError):
        return (f"Error: a font file of this pbm installation is missing or unreadable ({exc}); reinstall pbm "
                "(`pbm doctor` checks the fonts)")
    return None


def leave(code) -> NoReturn:
    """End the process with ``code`` once the command is done, without the interpreter's teardown
    when nothing needs it.

    A process that has loaded SQLAlchemy, the models and a game's rows frees its tens of
    thousands of objects one by one at exit: ~110 ms of a one-mail ``pbm ingest`` (issue 15),
    work the operating system does at once.  When this is the only thread and no child process
    can be waiting on us (multiprocessing never loaded), the exit handlers run (logging's flush,
    temporary folders' clean-up, coverage), the database connections are closed (a PostgreSQL
    server sees each session end), the standard streams are flushed, and the process ends with
    ``os._exit``.  Otherwise, or for a message instead of a number, it ends as Python ends it."""
    import atexit
    import os
    import sys
    import threading

    if code is None:
        code = 0
    if not isinstance(code, int) or threading.active_count() > 1 or "multiprocessing" in sys.modules:
        raise SystemExit(code)
    atexit._run_exitfuncs()  # (what the interpreter would run first; os._exit runs none)
    db = sys.modules.get("pbm.db")  # (not imported for it: ``pbm --help`` never loads SQLAlchemy)
    if db is not None:
        try:
            db.close_engines()
        except Exception:  # noqa: BLE001 - a connection already broken: the command's outcome stands
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (``pbm games | head``): as Python's own exit does
            code = code or 120
    os._exit(code)

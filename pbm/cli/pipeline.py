"""Commands of the turn pipeline: cycle and demo (a weekly game's archive commands are its kind's)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import CLOCK_HELP, interactive as _interactive, parse_clock, progress as _progress
from pbm.errors import PbmError


def register(app: typer.Typer) -> None:
    @app.command("cycle")
    def cycle(
        ctx: typer.Context,
        games: Optional[list[str]] = typer.Argument(None, help="Games to run (default: every due game)."),
        now: bool = typer.Option(False, "--now", help="Run now: do not wait for the deadline."),
        force: bool = typer.Option(False, "--force", help="Same as --now."),
        maildir: Optional[Path] = typer.Option(None, "--maildir", help="Read turnsheet mails from this Maildir."),
        imap: Optional[bool] = typer.Option(None, "--imap/--no-imap", help=(
            "Read the IMAP mailbox of [mail] in pbm.toml / PBM_IMAP_* before each game closes (the default "
            "when an IMAP host is configured and no --maildir is given).")),
        reports: Path = typer.Option(Path("reports"), "--reports", help="Folder of the reports."),
        archive: Path = typer.Option(Path("archive"), "--archive", help="Folder of the archive."),
        config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml)."),
        turns: int = typer.Option(1, "--turns", min=1, help="Turns to run per game (with --now)."),
        clock: Optional[str] = typer.Option(None, "--clock", help=CLOCK_HELP),
        break_lock: bool = typer.Option(False, "--break-lock", help=(
            "Obsolete: the lock dies with its holder, so there is nothing to break; a live lock is never broken.")),
    ) -> None:
        """The weekly cycle for every game whose deadline has passed: ingest, close, resolve, render, send, archive."""
        from pbm.cli.util import db_url
        from pbm.clock import utcnow
        from pbm.pipeline.cycle import CycleOptions, run_cycle

        at = parse_clock(clock)

        if imap and maildir is not None:
            raise PbmError("name one mail source: --maildir DIR or --imap")
        if imap is None and maildir is None:
            from pbm.mail.config import imap_configured

            imap = imap_configured(config)
            if imap:
                typer.echo("Mail: reading the IMAP mailbox configured for pbm (--no-imap skips it).")
        opts = CycleOptions(reports=reports, archive=archive, maildir=maildir, imap=bool(imap), mail_config=config,
                            now=at or utcnow(), force=now or force, max_turns=turns,
                            progress=_progress("Rendering reports", _interactive()), log=typer.echo)
        outcome = run_cycle(db_url(ctx), opts, games or None, break_lock=break_lock)
        if not outcome and not opts.ticked:
            typer.echo("No Continental Rails game, and no open game on a move clock.")
        done = [name for name, state in outcome.items() if state]
        others = len(opts.claimed_elsewhere)
        typer.echo(f"Cycle finished: {len(done)} game(s) advanced, {len(outcome) - len(done) - others} not due"
                   + (f", {others} left to another pbm process (claimed)" if others else "")
                   + (f"; move clocks ticked: {', '.join(opts.ticked)} (`pbm status GAME` shows whose move)"
                      if opts.ticked else "")
                   + f"; report mails: {opts.mails_queued} queued, {opts.mails_sent} sent"
                   + (f"; {len(opts.failures)} problem(s)" if opts.failures else "") + ".")
        for problem in opts.failures[:10]:
            typer.echo(f"  {problem}")
        left = _uncertain(ctx)
        for line in left[:10]:
            typer.echo(f"  uncertain delivery {line}")
        if opts.failures:
            raise PbmError("the cycle did not finish: " + "; ".join(opts.failures[:3]))
        if left:  # issue 34, item 12: a delivery that may not have arrived is never called done
            raise PbmError(f"{len(left)} delivery(ies) uncertain (interrupted mid-send; listed above): ask the relay, "
                           "then `pbm send-mail --mark-sent ID` or `--resend ID`")

    def _uncertain(ctx: typer.Context) -> list[str]:
        """Every delivery left uncertain in the outbox, whichever run left it (:func:`pbm.mail.outbox.uncertain`)."""
        from pbm.cli.util import session
        from pbm.mail.outbox import uncertain

        with session(ctx) as s:
            return uncertain(s)

    def _demo_by_mail(ctx: typer.Context, folder: Path, title: str, seed: Optional[int], moves: int):
        """The game kind's demo by email (18xx): its mails read by the one intake protocol (pbm.intake)."""
        from pbm.cli.util import db_url
        from pbm.intake import maildir_new, take_mail
        from pbm.kinds import UnknownKind, kind_for_title, known_titles
        from pbm.mail.ingest import Context

        try:
            kind, canonical = kind_for_title(title)
        except UnknownKind:
            kind, canonical = None, title
        if kind is None or not hasattr(kind, "demo"):
            by_mail = [t for t in known_titles() if hasattr(kind_for_title(t)[0], "demo")]
            raise PbmError(f"--title {title!r} is not a title played by email here; the demo plays "
                           f"{', '.join(by_mail)} (`pbm demo` without --title plays Continental Rails)")
        if folder == Path("pbm-demo"):
            folder = Path(f"pbm-demo-{canonical.lower()}")
        folder.mkdir(parents=True, exist_ok=True)
        url = db_url(ctx)
        if not url:  # the demo's own database, in its folder: a scratch one (pbm.db.SCRATCH)
            from pbm.db import SCRATCH

            url = f"sqlite:///{(folder / 'pbm.db').resolve()}"
            SCRATCH.add(url)
        context = Context(sender="pbm@demo.invalid")

        def read_mail(path: Path) -> list:
            return take_mail(url, maildir_new(url, path, []), context)[1]

        return kind.demo(folder, canonical, url=url, read_mail=read_mail, seed=1848 if seed is None else seed,
                         moves=moves, log=typer.echo)

    @app.command("demo")
    def demo(
        ctx: typer.Context,
        folder: Path = typer.Option(Path("pbm-demo"), "--dir", help="Folder for the demo (its own database)."),
        turns: int = typer.Option(3, "--turns", min=1, max=30, help="Turns to play."),
        seed: Optional[int] = typer.Option(None, "--seed", help="Game seed (default 1841; 18xx: 1848)."),
        title: Optional[str] = typer.Option(None, "--title", help=(
            "Play an 18xx title by email instead (18GA, 18AL, 1848, 18VA): each player's move or whole company "
            "turn as one mail, the state mails with their PDFs out.")),
        moves: int = typer.Option(40, "--moves", min=1, max=2000, help="18xx: actions to play (about)."),
    ) -> None:
        """A whole game in one command: Continental Rails week by week (players' mails in, PDFs, mails and
        archive out), or with --title an 18xx game move by move by email (mails and PDFs out)."""
        from pbm.cli.util import db_url

        if title is not None:
            r = _demo_by_mail(ctx, folder, title, seed, moves)
            typer.echo("")
            typer.echo(f"Demo ready in {r.folder}: {r.title} game {r.game}, {r.actions} action(s) from {r.mails} "
                       "mail(s).")
            typer.echo(f"  mail in:  {r.folder / 'maildir'}   (the players' mails)")
            typer.echo(f"  mail out: {r.folder / 'outbox'}   ({len(r.outbox)} mails pbm would have sent)")
            typer.echo(f"  PDFs:     {r.folder / 'pdfs'}   ({len(r.pdfs)} state PDFs)")
            typer.echo(f"  state:    {r.folder / 'state.txt'}")
            return
        from pbm.pipeline.demo import run_demo

        seed = 1841 if seed is None else seed

        result = run_demo(folder, url=db_url(ctx), turns=turns, seed=seed, log=typer.echo,
                          progress=_progress("Rendering reports", _interactive()))
        typer.echo("")
        typer.echo(f"Demo ready in {result.folder}: game {result.game}, {result.turns} turn(s) played.")
        typer.echo(f"  reports:  {result.folder / 'reports' / result.game}  ({len(result.reports)} PDFs)")
        typer.echo(f"  archive:  {result.folder / 'archive' / result.game}")
        typer.echo(f"  site:     {result.folder / 'archive' / result.game / 'site' / 'index.html'}")
        typer.echo(f"  mail out: {result.folder / 'outbox'}   mail in: {result.folder / 'maildir'}")

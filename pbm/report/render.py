"""Rendering a turn's reports to files: reports/<game>/turn-<T>/player-<N>.pdf and moderator.pdf.

Files are written atomically (a temporary file renamed into place), so a crash
never leaves half a PDF, and rendering twice gives the same bytes (§9;
reportlab invariant mode), so rerunning after a crash is harmless.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.orm import Session

from pbm import collector
from pbm.bundle import slug, turn_dir  # noqa: F401  (slug: where the report modules take it from)
from pbm.errors import PbmError
from pbm.models import Game
from pbm.report import pdf
from pbm.report.view import TurnData, load_turn

ProgressFn = Callable[[Iterable], Iterable]


def write_atomic(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def turnsheet_flowables(session: Session, game: Game, data: TurnData, player: int) -> list:
    """The next turn's turnsheet for ``player`` (plain-text form, §10), appended to the report.

    Only with the report of the last resolved turn of a game still being
    played (§10: "attached to each turn, except the final turn").
    """
    if data.turn != game.turn - 1 or game.status != "open":
        return []
    try:
        from pbm.turnsheet.facts import sheet_facts
        from pbm.turnsheet.text import render_text
    except ImportError:  # the turnsheet part is not installed
        return []
    from reportlab.platypus import Paragraph, Preformatted
    from sqlalchemy import select

    from pbm.models import Player

    row = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == player))
    if row is None or not row.human:
        return []
    try:
        with session.begin_nested():
            # one start-of-turn view for every player's sheet: the rows load_turn read (the state now)
            text = render_text(sheet_facts(session, game, row, view=data.cache["turnsheet-view"]))
    except Exception as exc:  # a fault in the turnsheet part must not stop the reports: say it on the page
        raise TurnsheetUnavailable(f"{exc.__class__.__name__}: {exc}") from exc
    return [Paragraph(f"Turnsheet for turn {pdf.esc(game.turn)} (§10)", pdf.H2),
            Paragraph("Fill in the attached PDF form, or reply with this text filled in.", pdf.SMALL),
            Preformatted(text, pdf.MONO, maxLineLength=120)]


class TurnsheetUnavailable(Exception):
    """The turnsheet part failed for a player; the report says so instead of carrying the sheet."""


@dataclass
class Rendered:
    turn: int
    paths: list[Path]
    warnings: list[str] = field(default_factory=list)


def render_turn(
    session: Session,
    game: Game,
    *,
    turn: int | None = None,
    players: list[int] | None = None,
    moderator: bool = False,
    out: Path = Path("reports"),
    with_turnsheet: bool = True,
    progress: ProgressFn | None = None,
) -> Rendered:
    """Render the reports of ``turn`` (default: the last resolved) for ``players`` (default: every human)."""
    data = load_turn(session, game, turn)
    numbers = data.human_numbers() if players is None else players
    known = {p["number"] for p in data.players}
    for n in numbers:
        if n not in known:
            raise PbmError(f"no player {n} in game {game.name} (positions are 1–{max(known)})")
    folder = turn_dir(out, game.name, data.turn)
    paths: list[Path] = []
    warnings: list[str] = []
    sheets: dict[int, list] = {}
    for n in numbers:  # the turnsheets need the database: built here, in this process
        try:
            sheets[n] = turnsheet_flowables(session, game, data, n) if with_turnsheet else []
        except TurnsheetUnavailable as exc:
            warnings.append(f"player {n}: no turnsheet appended ({exc})")
            from reportlab.platypus import Paragraph

            sheets[n] = [Paragraph("Your turnsheet for the next turn could not be printed here; "
                                   "the moderator will send it separately.", pdf.BODY)]
    reports = _player_pdfs(data, list(numbers), sheets)
    items: Iterable[int] = progress(numbers) if progress else numbers
    for n in items:
        path = folder / f"player-{n}.pdf"
        write_atomic(path, next(reports))
        paths.append(path)
    if moderator:
        path = folder / "moderator.pdf"
        write_atomic(path, pdf.moderator_report(data))
        paths.append(path)
    return Rendered(turn=data.turn, paths=paths, warnings=warnings)


# -- rendering the players' reports in parallel ---------------------------------------------
#
# reportlab is pure Python and single-threaded, so the per-player PDFs are built
# in forked worker processes.  The workers inherit the loaded turn (no pickling
# of the view or of the turnsheet flowables) and send back only the PDF bytes;
# each PDF is built by the same function from the same inputs as in one process,
# so the bytes are identical (invariant mode).  The workers never touch the
# database: the turnsheets are built before the fork.
#
# CPU (issue 32): this process renders the first report before the fork, so what every report of the
# turn shares (the shared paragraphs parsed and broken into lines, the map and RoW pictures, the font
# subsets' programs) is made once and inherited, not made again in each worker; and it renders its share
# of the rest beside the workers (``workers - 1`` processes are forked, not ``workers``), taking the next
# report from the same counter they do.  The process's own memos (font programs, compressed streams)
# then also last from one turn to the next.

_JOB: tuple[TurnData, dict[int, list], list[int], object] | None = None


def render_workers(jobs: int) -> int:
    """How many processes render ``jobs`` reports: ``PBM_RENDER_WORKERS`` or the CPU count, at most ``jobs``.

    1 (render in this process) where fork is not available or for a single report.  With more than one,
    this process is one of them (it forks one fewer).
    """
    import multiprocessing

    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    wanted = os.environ.get("PBM_RENDER_WORKERS", "").strip()
    try:
        count = int(wanted) if wanted else (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                            else os.cpu_count() or 1)
    except ValueError:
        raise PbmError(f"PBM_RENDER_WORKERS must be a whole number of processes, not {wanted!r}") from None
    return max(1, min(count, jobs))


def _next_report() -> tuple[int, int] | None:
    """The next report no process has taken yet: (its place in the list, the player), or None."""
    assert _JOB is not None
    _data, _sheets, numbers, counter = _JOB
    with counter.get_lock():  # type: ignore[attr-defined]
        i = counter.value  # type: ignore[attr-defined]
        if i >= len(numbers):
            return None
        counter.value = i + 1  # type: ignore[attr-defined]
    return i, numbers[i]


def _one_report(player: int) -> bytes:
    assert _JOB is not None
    data, sheets, _numbers, _counter = _JOB
    return pdf.player_report(data, player, sheets[player])


def _take_reports(_task: int) -> list[tuple[int, bytes]]:
    """A worker's task: render the next reports nobody has taken, until none is left."""
    done = []
    while (job := _next_report()) is not None:
        i, player = job
        done.append((i, _one_report(player)))
    return done


def _render_child() -> None:
    """A render worker process's start: the default signal handlers back (a ``pbm worker``'s SIGTERM
    handler, inherited through fork, only sets a flag — a SIGTERM sent to the render worker would then
    never end it), and no collector.  The pool is closed and joined, never terminated (see
    :func:`_player_pdfs`)."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    collector.off()


def _player_pdfs(data: TurnData, numbers: list[int], sheets: dict[int, list]) -> Iterator[bytes]:
    """The PDF bytes of each player in ``numbers``, in that order."""
    global _JOB
    workers = render_workers(len(numbers))
    if workers == 1:
        for n in numbers:
            with collector.paused():  # (pbm.collector: ~5-10 % of rendering, for little to free)
                report = pdf.player_report(data, n, sheets[n])
            yield report
        return
    import multiprocessing

    context = multiprocessing.get_context("fork")
    counter = context.Value("i", 1)  # the first report is this process's, before the fork
    _JOB = (data, sheets, numbers, counter)
    reports: dict[int, bytes] = {}
    try:
        with collector.paused():
            reports[0] = _one_report(numbers[0])
        # a worker ends with the turn: its collector stays off
        pool = context.Pool(workers - 1, initializer=_render_child)
        try:
            # one task per worker; a task takes reports until none is left (a worker that starts late
            # finds none, and its task ends at once)
            pending = pool.map_async(_take_reports, range(workers - 1), chunksize=1)
            with collector.paused():
                for i, report in _take_reports(0):
                    reports[i] = report
            for done in pending.get():
                reports.update(done)
        finally:
            # close and join, never terminate: a worker killed while it hands back its result (a
            # failed report's error, say) dies holding the result queue's lock, and the pool's own
            # threads then wait on it for good (the suite hung so, in
            # test_render_once.py::test_a_failing_report_fails_the_render_wherever_it_was_made).
            # The workers' tasks end by themselves once no report is left to take.
            pool.close()
            pool.join()
    finally:
        _JOB = None
    missing = [numbers[i] for i in range(len(numbers)) if i not in reports]
    if missing:  # (cannot happen: every report taken is rendered or its error raised)
        raise PbmError(f"reports of players {missing} were not rendered")
    for i in range(len(numbers)):
        yield reports.pop(i)

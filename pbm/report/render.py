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

_JOB: tuple[TurnData, dict[int, list]] | None = None


def render_workers(jobs: int) -> int:
    """How many processes render ``jobs`` reports: ``PBM_RENDER_WORKERS`` or the CPU count, at most ``jobs``.

    1 (render in this process) where fork is not available or for a single report.
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


def _one_report(player: int) -> bytes:
    assert _JOB is not None
    data, sheets = _JOB
    return pdf.player_report(data, player, sheets[player])


def _render_child() -> None:
    """A render worker process's start: the default signal handlers back (a ``pbm worker``'s SIGTERM
    handler, inherited through fork, only sets a flag — the pool's ``terminate()`` at the end of the turn
    would then never end the child, and the parent would wait for it for good), and no collector."""
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

    _JOB = (data, sheets)
    try:  # a worker ends with the turn: its collector stays off
        with multiprocessing.get_context("fork").Pool(workers, initializer=_render_child) as pool:
            yield from pool.imap(_one_report, numbers)
    finally:
        _JOB = None

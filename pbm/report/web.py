"""The web pages of a Continental Rails game (issue 33, docs/web.md), reached by :mod:`pbm.web`
through its registry (``pbm.web.pages.WEB_MODULES``), as the core reaches a game through
:mod:`pbm.kinds`.

The public pages are the archive site's (:func:`pbm.report.site.build_site`: standings, map,
railroads, turn by turn headlines, messages and prices, records), built live and kept until the
game's turn or status changes.  A player's own page carries his last turn report as a PDF.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable

from sqlalchemy.orm import Session

from pbm.web.pages import css, render, safe


def files(session: Session, game: Any) -> dict[str, bytes]:
    """The public pages by file name (index.html, turn-<T>.html, style.css); {} before turn 1 is resolved."""
    from pbm.report.view import last_resolved_turn

    if safe(lambda: last_resolved_turn(game), 0) < 1:
        return {}
    from pbm.report.site import build_site

    with tempfile.TemporaryDirectory(prefix="pbm-web-") as tmp:
        paths = build_site(session, game, Path(tmp))
        return {p.name: p.read_bytes() for p in paths}


def waiting_page(game: Any) -> str:
    return render("cr_waiting.html", game={"name": game.name, "turn": game.turn, "status": game.status})


def server_state() -> None:
    return None


def respond(state: None, session: Session, game: Any, name: str, query: Any,
            cache: Any) -> tuple[str | bytes, str] | None:
    """The file ``name`` of the game's public pages: (body, media type), or None (404)."""
    from pbm.report.view import last_resolved_turn

    key = ("cr", game.id, game.turn, game.status, safe(lambda: last_resolved_turn(game), 0), bool(game.anonymous))
    found = cache.get(key, lambda: files(session, game))
    if not found:
        return (waiting_page(game), "text/html; charset=utf-8") if name == "index.html" else None
    data = found.get(name)
    if data is None:
        return None
    return data, ("text/css; charset=utf-8" if name.endswith(".css") else "text/html; charset=utf-8")


def player_view(session: Session, game: Any, player: Any, ctx: dict[str, Any],
                files_out: dict[str, tuple[str, Callable[[], bytes]]], state: None = None) -> None:
    """Fill a player's own page: his last turn report (``report.pdf``, private) and his settings."""
    from pbm.report.view import last_resolved_turn

    turn = safe(lambda: last_resolved_turn(game), 0)
    ctx["turn"] = turn
    ctx["settings"] = [("Mail", f"reports go to the address on file: {player.email or '(none)'}"),
                       ("PDF", "your turn report is a PDF, mailed after each turn; the latest is under "
                               "'Your reports'")]
    if turn >= 1 and player.human:
        ctx["items"] = [("report.pdf", f"Your turn report for turn {turn} (PDF, private)")]

        def report_pdf() -> bytes:
            from pbm.report.pdf import player_report
            from pbm.report.view import load_turn

            return player_report(load_turn(session, game, turn), player.number)

        files_out["report.pdf"] = ("application/pdf", report_pdf)


def write_site(session: Session, game: Any, put: Callable[[str, str | bytes], None], *, history: bool = True) -> None:
    """The public pages as files (the archive site's; a waiting page before turn 1)."""
    found = files(session, game)
    if not found:
        put("index.html", waiting_page(game))
        put("style.css", css())
    for name, data in sorted(found.items()):
        put(name, data)

"""The pages of the games, as HTML strings (templates/web/, Jinja2 with autoescape on).

Used by the live server (:mod:`pbm.web.app`) and the static site (:func:`write_site`): both give
the same pages.  Each game kind's own pages are in its rooms (``pbm.e18xx.render.web``,
``pbm.report.web``), found through :data:`WEB_MODULES` by the game's kind, the way the core finds
a game through :mod:`pbm.kinds` (the core imports no game package).  Links between a game's pages are relative (``index.html``, ``move-12.html``,
``web.css``), so the same HTML works under ``/g/<id>/`` on the server and in a folder.

Only public information goes on the public pages: an anonymous game's players are "Player N"
(§3.1), no contact, no secret.  Every text a player wrote (a name, a message) goes through the
template's escaping, and into the SVG map escaped as well (:mod:`pbm.web.svg`).
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import escape
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm import __version__
from pbm.resources import templates_dir

# a game kind's name (pbm.kinds.KINDS) -> the module of its pages: server_state(), respond(), player_view(),
# write_site()
WEB_MODULES: dict[str, str] = {
    "18xx": "pbm.e18xx.render.web",
    "continental-rails": "pbm.report.web",
}


@cache
def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(templates_dir() / "web")),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      keep_trailing_newline=True)
    env.globals["version"] = __version__
    return env


def css() -> str:
    return (templates_dir() / "web" / "web.css").read_text(encoding="utf-8")


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def kind_name(game: Any) -> str:
    from pbm.kinds import kind_of

    return kind_of(game).name


def module_of(game: Any) -> Any:
    """The module of the pages of ``game``'s kind."""
    return importlib.import_module(WEB_MODULES[kind_name(game)])


# ----------------------------------------------------------------- names
def seat_rows(session: Session, game: Any) -> list[Any]:
    from pbm.models import Player

    return list(session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)))


class Names:
    """Players' names as a public page may show them: "Player N" in an anonymous game."""

    def __init__(self, seats: list[Any], anonymous: bool, keep: Any = ()) -> None:
        """``keep``: names shown as they are (a player's own, to himself)."""
        self.anonymous = anonymous
        self.public = {p.name: (p.name if (not anonymous or p.name in keep) else f"Player {p.number}")
                       for p in seats if p.name}

    def __call__(self, text: Any) -> str:
        text = "" if text is None else str(text)
        if not self.anonymous or not text:
            return text
        if text in self.public:
            return self.public[text]
        hidden = {real: pub for real, pub in self.public.items() if real and real != pub}
        if not hidden:
            return text
        # whole names only, longest first ("Ann" is never replaced inside "Anna" or "Annual"), in one
        # pass (a name never replaces inside another's "Player N")
        pattern = re.compile(r"(?<![\w])(" + "|".join(re.escape(n) for n in sorted(hidden, key=len, reverse=True))
                             + r")(?![\w])")
        return pattern.sub(lambda m: hidden[m.group(1)], text)


# ----------------------------------------------------------------- index
def index_page(session: Session) -> str:
    from pbm.models import Game

    rows = []
    for g in session.scalars(select(Game).order_by(Game.id)):
        weekly = g.title == "continental-rails"
        rows.append({"href": f"g/{g.id}/", "name": g.name, "title": "Continental Rails II" if weekly else g.title,
                     "status": g.status, "turn": g.turn if weekly else None})
    return render("index.html", games=rows)


# ----------------------------------------------------------------- helpers for the kinds' pages
def safe(fn: Callable[[], Any], default: Any = None) -> Any:
    """``fn()``, or ``default`` when it fails: an optional detail must not take a page down."""
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return default


@dataclass
class Links:
    """How a game's pages name each other (the same relative names on the server and in a folder)."""

    query: bool = True  # the server also answers ?move=N (a form can ask for any move)

    def move(self, n: int, total: int) -> str:
        return "index.html" if n >= total else f"move-{n}.html"


def log_line(seq: int, text: str, seat: str, href: str, current: bool) -> str:
    """One item of an action log, as HTML (built in Python rather than in the template: a late game's
    log has hundreds of lines, and this is ten times faster).  Every text is escaped."""
    mark = ' class="current" aria-current="step"' if current else ""
    who = f'<span class="seat">[{escape(seat)}]</span> ' if seat else ""
    return f'<li value="{seq}"{mark}><a href="{escape(href)}">{seq}</a> {who}{escape(text)}</li>'


# ----------------------------------------------------------------- a player's own page
@dataclass
class PlayerView:
    html: str
    files: dict[str, tuple[str, Callable[[], bytes]]] = field(default_factory=dict)  # name -> (type, maker)


def player_page(session: Session, game: Any, player: Any, state: Any = None) -> PlayerView:
    """What only this player may see: his report, his settings, offers to him (filled by his game's kind;
    ``state``: what the server keeps for that kind)."""
    ctx: dict[str, Any] = {"game": {"name": game.name, "title": game.title, "status": game.status},
                           "public": f"/g/{int(game.id)}/", "seat": player.number, "name": player.name,
                           "email": player.email, "character": getattr(player, "character", ""),
                           "items": [], "legal": [], "offer": None, "settings": []}
    files: dict[str, tuple[str, Callable[[], bytes]]] = {}
    module_of(game).player_view(session, game, player, ctx, files, state)
    return PlayerView(render("player.html", **ctx), files)


# ----------------------------------------------------------------- static site
def write_site(session: Session, game: Any, folder: Path, *, history: bool = True) -> list[Path]:
    """The game's public pages as files in ``folder`` (what ``pbm serve`` shows under /g/<id>/), each
    written whole (a temporary file renamed): for an 18xx game index.html, move-<N>.html for every
    action (``history``), map.svg; for Continental Rails the archive site's pages; and the stylesheet."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def put(name: str, data: str | bytes) -> None:
        path = folder / name
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        tmp.replace(path)
        written.append(path)

    module_of(game).write_site(session, game, put, history=history)
    put("web.css", css())
    return written

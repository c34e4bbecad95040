"""``pbm serve``: every game of the database on live pages (starlette on uvicorn).

Routes (all GET):

* ``/`` — the games; ``/web.css``.
* ``/g/<id>/`` (``index.html``) — a game's page now; for an 18xx game ``?move=N`` or
  ``/g/<id>/move-<N>.html`` is the whole page as it was after action N, ``map.svg`` the map alone;
  for Continental Rails the archive site's public pages (``turn-<T>.html``, ``style.css``).
* ``/p/<token>/`` — a player's own page (his report, settings, offers), ``/p/<token>/<file>`` its
  PDFs.  A wrong or revoked token is a plain 404, as is anything else unknown.

Pages are read in a fresh read-only session per request, so the server answers while a worker
applies moves to the same database.  A rendered page is kept in memory keyed by what it shows (the
game's id and action count, the move), so a game's page is replayed once per change.

Every response says ``Referrer-Policy: no-referrer`` (a player's link never leaks through a
link he follows), a strict Content-Security-Policy (no script runs), and private pages
``Cache-Control: no-store``.  The access log (``pbm.web.access``) masks a player's token.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from pbm.web import links as web_links
from pbm.web import pages

log = logging.getLogger("pbm.web.access")

SECURITY_HEADERS = {
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
}


class PageCache:
    """A small LRU of rendered pages (thread-safe: starlette runs sync endpoints in a thread pool)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


class Replays:
    """Each 18xx game's replayed state as the server last saw it, carried forward action by action.

    A game is a replay of its log: replaying a late game costs some 100 ms, one more action a
    fraction of a millisecond.  Each request reads the log (its rows, a few milliseconds): when it
    is the log seen last time plus new actions, only those are stepped through (``games.step``, as
    the replay itself does); when it changed otherwise (an undo, even one followed by other moves
    under the same row ids) or the moderator ended the game, it is replayed whole.  Each change of
    the log gives a new version, which names the cached pages: no page outlives the log it shows."""

    def __init__(self) -> None:
        self._games: dict[int, tuple[Any, list[Any], list[str], list[tuple], int]] = {}
        self._version = 0
        self.locks: dict[int, threading.Lock] = {}
        self._lock = threading.Lock()

    def lock(self, game_id: int) -> threading.Lock:
        with self._lock:
            return self.locks.setdefault(game_id, threading.Lock())

    def now(self, s: Session, game: Any) -> tuple[Any, list[Any], list[str], int]:
        """(replayed, rows, texts, version) of the game now; call it holding :meth:`lock` of the game.
        ``version`` changes whenever the log does (it names the cached pages)."""
        from sqlalchemy import select

        from pbm.e18xx.core.actions import action_from_dict
        from pbm.e18xx.pbem.games import replay_rows, step
        from pbm.models import Action18

        # the log's columns only (no ORM objects: a late game's log is read on every request)
        rows = s.execute(select(Action18.id, Action18.seq, Action18.player_number, Action18.action)
                         .where(Action18.game_id == game.id).order_by(Action18.seq)).all()
        contents = [(r.seq, r.player_number, r.action) for r in rows]
        ended = (game.options or {}).get("ended")
        held = self._games.get(game.id)
        if held is not None and not ended:
            rep, _, texts, old, version = held
            n = len(old)
            if len(contents) >= n and contents[:n] == old:
                if len(contents) == n:
                    return rep, rows, texts, version
                try:
                    for row in rows[n:]:
                        step(rep, action_from_dict(row.action), rollback=False)
                except Exception:  # noqa: BLE001 - whatever went wrong, a whole replay is the answer
                    pass
                else:
                    texts = texts + pages.action_texts(rows[n:])
                    self._version += 1
                    self._games[game.id] = (rep, rows, texts, contents, self._version)
                    return rep, rows, texts, self._version
        if held is not None and held[3] == contents and ended:
            return held[0], rows, held[2], held[4]
        rep = replay_rows(s, game)
        texts = pages.action_texts(rows)
        self._version += 1
        self._games[game.id] = (rep, rows, texts, contents, self._version)
        return rep, rows, texts, self._version


def _not_found() -> Response:
    return PlainTextResponse("Not found\n", status_code=404)


def create_app(url: str | None = None) -> Starlette:
    """The ASGI application serving the games of the database at ``url`` (None: PBM_DATABASE_URL or pbm.db)."""
    from pbm.db import get_engine

    engine = get_engine(url)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    cache = PageCache()
    replays = Replays()

    def read() -> Session:
        return factory()

    def game_of(s: Session, request: Request) -> Any:
        from pbm.models import Game

        try:
            gid = int(request.path_params["gid"])
        except (TypeError, ValueError):
            return None
        return s.get(Game, gid)

    def index(request: Request) -> Response:
        with read() as s:
            return HTMLResponse(pages.index_page(s))

    def stylesheet(request: Request) -> Response:
        return Response(pages.css(), media_type="text/css; charset=utf-8")

    def game_file(request: Request) -> Response:
        name = request.path_params.get("file") or "index.html"
        with read() as s:
            game = game_of(s, request)
            if game is None:
                return _not_found()
            if name == "web.css":
                return stylesheet(request)
            if pages.is_18xx(game):
                return _game18(s, game, name, request)
            return _cr(s, game, name)

    def _game18(s: Session, game: Any, name: str, request: Request) -> Response:
        at: int | None = None
        if name == "index.html":
            raw = request.query_params.get("move")
            if raw is not None:
                if not raw.strip().isdigit():
                    return _not_found()
                at = int(raw)
        elif name.startswith("move-") and name.endswith(".html") and name[5:-5].isdigit():
            at = int(name[5:-5])
        elif name != "map.svg":
            return _not_found()
        look = (game.status, bool(game.anonymous))
        with replays.lock(game.id):
            rep, rows, texts, version = replays.now(s, game)
            total = len(rows)
            if at is not None and not 0 <= at <= total:
                return _not_found()
            if at == total:
                at = None
            if name == "map.svg":
                from pbm.web.svg import map_svg

                svg = cache.get(("map", game.id, version), lambda: map_svg(rep, f"Map of {game.name}"))
                return Response(svg, media_type="image/svg+xml")
            if at is None:  # the page now, from the replay carried forward (rep changes: inside the lock)
                html = cache.get(("18xx", game.id, version, None, look), lambda: pages.render(
                    "game18.html", **pages.game18_context(s, game, rep, rows, None, pages.Links(), texts)))
                return HTMLResponse(html)
        # history: a replay up to that action, outside the lock (other requests of the game go on)
        html = cache.get(("18xx", game.id, version, at, look), lambda: pages.game18_page(s, game, at))
        return HTMLResponse(html)

    def _cr(s: Session, game: Any, name: str) -> Response:
        from pbm.report.view import last_resolved_turn

        key = ("cr", game.id, game.turn, game.status, last_resolved_turn(game), bool(game.anonymous))
        files = cache.get(key, lambda: pages.cr_files(s, game))
        if not files:
            if name == "index.html":
                return HTMLResponse(pages.cr_waiting_page(game))
            return _not_found()
        data = files.get(name)
        if data is None:
            return _not_found()
        media = "text/css; charset=utf-8" if name.endswith(".css") else "text/html; charset=utf-8"
        return Response(data, media_type=media)

    def player(request: Request) -> Response:
        token = request.path_params["token"]
        name = request.path_params.get("file") or ""
        with read() as s:
            found = web_links.resolve(s, token)
            if found is None:
                return _not_found()
            game, seat = found
            view = pages.player_page(s, game, seat)
            if not name:
                response: Response = HTMLResponse(view.html)
            elif name in view.files:
                media, make = view.files[name]
                response = Response(make(), media_type=media)
            else:
                return _not_found()
        response.headers["cache-control"] = "no-store"
        return response

    def player_bare(request: Request) -> Response:
        # /p/<token> without the slash: the page's relative links need it (a redirect would log the token
        # nowhere but the client's history, which already has it)
        with read() as s:
            if web_links.resolve(s, request.path_params["token"]) is None:
                return _not_found()
        return Response(status_code=308, headers={"location": f"/p/{request.path_params['token']}/",
                                                  "cache-control": "no-store"})

    def game_bare(request: Request) -> Response:
        return Response(status_code=308, headers={"location": f"/g/{request.path_params['gid']}/"})

    routes = [
        Route("/", index),
        Route("/index.html", index),
        Route("/web.css", stylesheet),
        Route("/g/{gid}", game_bare),
        Route("/g/{gid}/", game_file),
        Route("/g/{gid}/{file}", game_file),
        Route("/p/{token}", player_bare),
        Route("/p/{token}/", player),
        Route("/p/{token}/{file}", player),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return _not_found()

    async def server_error(request: Request, exc: Exception) -> Response:
        logging.getLogger("pbm.web").error("error on %s %s: %s: %s", request.method, web_links.mask(request.url.path),
                                           exc.__class__.__name__, exc)
        return PlainTextResponse("Internal error\n", status_code=500)

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found, 500: server_error})
    return AccessLog(SecurityHeaders(app))


class SecurityHeaders:
    """ASGI middleware: the headers of :data:`SECURITY_HEADERS` on every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.decode("latin-1").lower() not in SECURITY_HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


class AccessLog:
    """ASGI middleware: one log line per request, its path masked (:func:`pbm.web.links.mask`), never its
    query string (uvicorn's own access log is off: it would print a player's token)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = [0]

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            client = scope.get("client") or ("-", 0)
            log.info('%s "%s %s" %s %.0fms', client[0], scope.get("method", "-"), web_links.mask(scope.get("path", "")),
                     status[0], (time.perf_counter() - start) * 1000)

"""``pbm serve``: every game of the database on live pages (starlette on uvicorn).

Routes (all GET):

* ``/`` — the games; ``/web.css``.
* ``/g/<id>/`` (``index.html``) — a game's page now; for an 18xx game ``?move=N`` or
  ``/g/<id>/move-<N>.html`` is the whole page as it was after action N, ``map.svg`` the map alone;
  for Continental Rails the archive site's public pages (``turn-<T>.html``, ``style.css``).
* ``/p/<token>/`` — a player's own page (his report, settings, offers), ``/p/<token>/<file>`` its
  PDFs.  A wrong or revoked token is a plain 404, as is anything else unknown.

Each request reads the database in a session of its own that writes nothing, so the server answers
while a worker applies moves to the same database.  A game kind's own module (``pages.module_of``)
answers its game's files; a rendered page is kept in memory (:class:`PageCache`) under what it shows
(an 18xx game's log version and the move; a Continental Rails game's turn and status), and an 18xx
game's replay is carried forward by its new actions (``pbm.e18xx.render.web.Replays``).

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

# No script runs on any page (default-src 'none'); inline styles are allowed because the Continental Rails
# map (reportlab's SVG, pbm.report.site) draws with style attributes.
SECURITY_HEADERS = {
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; "
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


def _not_found() -> Response:
    return PlainTextResponse("Not found\n", status_code=404)


def create_app(url: str | None = None) -> Starlette:
    """The ASGI application serving the games of the database at ``url`` (None: PBM_DATABASE_URL or pbm.db)."""
    from pbm.db import get_engine

    engine = get_engine(url)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    cache = PageCache()
    states: dict[str, Any] = {}  # a game kind's name -> what its pages keep between requests
    states_lock = threading.Lock()

    def state_of(game: Any) -> Any:
        kind = pages.kind_name(game)
        with states_lock:
            if kind not in states:
                states[kind] = pages.module_of(game).server_state()
            return states[kind]

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
            found = pages.module_of(game).respond(state_of(game), s, game, name, request.query_params, cache)
            if found is None:
                return _not_found()
            body, media = found
            return Response(body, media_type=media)

    def player(request: Request) -> Response:
        token = request.path_params["token"]
        name = request.path_params.get("file") or ""
        with read() as s:
            found = web_links.resolve(s, token)
            if found is None:
                return _not_found()
            game, seat = found
            view = pages.player_page(s, game, seat, state_of(game))
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

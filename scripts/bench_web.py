#!/usr/bin/env python3
"""How fast the web pages of a late 18xx game render, and how big its map SVG is (issue 33: a late
game's page in ≤ 50 ms server-side, the map of a finished game under 300 KB).  A benchmark, not a
test: it prints numbers and never fails on them.

    .venv/bin/python scripts/bench_web.py [--fixture 18GA/18GA_game_end_bank.json] [--repeat 20]

It imports the recorded game into a scratch SQLite database, then times, each as the median of
``--repeat`` runs: the replay of the whole log, the page from a replayed game (what a cached
replay costs: the state, map, market and log into HTML), the map SVG alone, a history page (replay
to the middle, then the page), and a page the running server already holds (an HTTP request to
``pbm serve``'s application in-process, after a first one).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(fn, repeat: int) -> tuple[float, object]:
    out = fn()  # warm: imports, caches
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", default="18GA/18GA_game_end_bank.json")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.fixtures import load_fixture
    from pbm.e18xx.pbem.exchange import import_export
    from pbm.e18xx.pbem.games import action_rows, replay_rows
    from pbm.models import Game
    from pbm.e18xx.render import web as e18xx_web
    from pbm.web import pages

    data, where = load_fixture(args.fixture)
    if data is None:
        sys.exit(where)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        with session_scope(url) as s:
            import_export(s, data, name="bench", seats=None)
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == "bench"))
            rows = action_rows(s, game)
            total = len(rows)
            results: dict[str, object] = {"fixture": args.fixture, "actions": total}
            ms, rep = timed(lambda: replay_rows(s, game), args.repeat)
            results["replay_ms"] = round(ms, 1)
            texts = e18xx_web.action_texts(rows)
            ms, html = timed(lambda: pages.render("game18.html", **e18xx_web.context(
                s, game, rep, rows, None, pages.Links(), texts)), args.repeat)
            results["page_from_replayed_ms"] = round(ms, 1)
            results["page_bytes"] = len(html.encode())
            ms, svg = timed(lambda: e18xx_web.map_svg(rep, "map"), args.repeat)
            results["map_svg_ms"] = round(ms, 1)
            results["map_svg_bytes"] = len(svg.encode())
            ms, _ = timed(lambda: e18xx_web.game_page(s, game, total // 2), max(3, args.repeat // 4))
            results["history_page_cold_ms"] = round(ms, 1)
        import asyncio

        from pbm.web.app import create_app

        app = create_app(url)
        path = f"/g/{game.id}/"

        def request() -> int:  # one GET through the whole ASGI stack (middlewares, routing, cache)
            status: list[int] = []

            async def receive() -> dict:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message: dict) -> None:
                if message["type"] == "http.response.start":
                    status.append(message["status"])

            scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                     "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "headers": [],
                     "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000), "root_path": ""}
            asyncio.run(app(scope, receive, send))
            return status[0]

        ms, code = timed(request, args.repeat)
        results["served_page_cached_ms"] = round(ms, 1)
        results["served_status"] = code
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

"""Commands of the games' web pages (issue 33, docs/web.md): ``pbm serve``, ``pbm site``, ``pbm link``.

Starlette, uvicorn and the pages are imported when a command runs, never at ``pbm --help``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from pbm.cli.util import GAME_ARG, pick_game, session
from pbm.errors import PbmError


def register(app: typer.Typer) -> None:
    link_app = typer.Typer(help="Players' own web pages: secret links (`pbm serve` shows them).",
                           no_args_is_help=True)
    app.add_typer(link_app, name="link")

    @app.command("serve")
    def serve(
        ctx: typer.Context,
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (a public one only behind "
                                                             "a TLS proxy: players' links are secrets)."),
        port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port to listen on."),
        access_log: bool = typer.Option(True, "--access-log/--no-access-log",
                                        help="One line per request on stderr (a player's token masked)."),
    ) -> None:
        """Serve every game of the database on live web pages (map, market, history, players' own pages)."""
        import logging
        import sys

        import uvicorn

        from pbm.cli.util import db_url
        from pbm.web.app import create_app

        import socket

        web_app = create_app(db_url(ctx))
        # the socket is opened here, so a port in use is one plain line, and --port 0 takes a free port
        # (the line below names it)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise PbmError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        sock.listen(128)
        sock.set_inheritable(True)
        port = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        for name in ("pbm.web.access", "pbm.web"):
            logger = logging.getLogger(name)
            logger.handlers[:] = [handler]
            logger.setLevel(logging.INFO if access_log else logging.WARNING)
            logger.propagate = False
        typer.echo(f"Serving the games on http://{shown}:{port}/ (Ctrl-C stops)", err=True)
        # uvicorn's access log is off: it prints the whole path, and a player's page has his token in it
        config = uvicorn.Config(web_app, access_log=False, log_level="warning", server_header=False,
                                proxy_headers=False, lifespan="off")
        import signal

        def stop(signum: int, frame: object) -> None:
            raise KeyboardInterrupt

        # uvicorn stops gracefully on SIGINT and SIGTERM, then raises the signal again to the handler it found:
        # this one, so that a stop asked for is a clean exit (status 0), not a death by signal
        signal.signal(signal.SIGTERM, stop)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:
            pass
        finally:
            sock.close()
        typer.echo("Stopped.", err=True)

    @app.command("site")
    def site(
        ctx: typer.Context,
        game: str = typer.Argument(..., help="The game (name or id)."),
        folder: Path = typer.Argument(..., metavar="DIR", help="Folder to write the pages into."),
        history: bool = typer.Option(True, "--history/--no-history",
                                     help="18xx: also a page for the game after each action (move-<N>.html)."),
    ) -> None:
        """Write a game's public pages as static files (what `pbm serve` shows under /g/<id>/)."""
        from pbm.web.pages import write_site

        with session(ctx) as s:
            g = pick_game(s, game)
            written = write_site(s, g, folder, history=history)
            name = g.name
        typer.echo(f"Wrote {len(written)} files of {name} into {folder} (open {folder / 'index.html'}).")

    @link_app.command("reset")
    def link_reset(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        player: int = typer.Option(..., "--player", help="The seat number."),
        base: Optional[str] = typer.Option(None, "--base", help="The site's address (default: $PBM_WEB_URL or "
                                                                 "http://127.0.0.1:8000)."),
        mail: bool = typer.Option(False, "--mail/--no-mail", help="Also mail the link to the player (queued; "
                                                                  "`pbm send-mail` sends it)."),
        config: Optional[Path] = typer.Option(None, "--config", help="Mail settings file (pbm.toml): the sender."),
    ) -> None:
        """Give a player a new secret link to his own page; his old link stops working.  The link is
        printed once (and mailed with --mail): pbm keeps only its hash."""
        from pbm.web.links import mail_link, player_url, reset_link

        with session(ctx) as s:
            g = pick_game(s, game)
            try:
                token = reset_link(s, g, player)
            except LookupError as exc:
                raise PbmError(str(exc)) from None
            address = None
            if mail:
                from pbm.mail.config import reply_sender

                address = mail_link(s, g, player, token, reply_sender(config), base)
            name = g.name
        # printed after the commit: a link shown is a link that works
        typer.echo(f"New link of player {player} in {name} (shown once; the old one no longer works):")
        typer.echo(player_url(token, base))
        if mail:
            typer.echo(f"Mailed to {address}; `pbm send-mail` sends it." if address
                       else "Not mailed: the player has no address on file.")

    @link_app.command("revoke")
    def link_revoke(
        ctx: typer.Context,
        game: Optional[str] = GAME_ARG,
        player: int = typer.Option(..., "--player", help="The seat number."),
    ) -> None:
        """Stop a player's link without giving a new one."""
        from pbm.web.links import revoke

        with session(ctx) as s:
            g = pick_game(s, game)
            count = revoke(s, g, player)
            name = g.name
        typer.echo(f"Player {player} of {name}: {'link revoked' if count else 'had no live link'}.")

    @link_app.command("show")
    def link_show(ctx: typer.Context, game: Optional[str] = GAME_ARG) -> None:
        """Which players have a live link, and since when (a link itself cannot be shown again:
        only its hash is kept; `pbm link reset` makes a new one)."""
        from pbm.web.links import game_url, live_links

        with session(ctx) as s:
            g = pick_game(s, game)
            rows = [(row.player_number, row.created_at) for row in live_links(s, g)]
            lines = [f"{g.name}: public page {game_url(g)}"]
        lines += [f"  player {n}: live link since {when:%Y-%m-%d %H:%M} UTC" if when else f"  player {n}: live link"
                  for n, when in rows] or ["  no player has a link (pbm link reset GAME --player N)"]
        for line in lines:
            typer.echo(line)

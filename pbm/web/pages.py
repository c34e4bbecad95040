"""The pages of the games, as HTML strings (templates/web/, Jinja2 with autoescape on).

Used by the live server (:mod:`pbm.web.app`) and the static site (:func:`write_site`): both give
the same pages.  Links between a game's pages are relative (``index.html``, ``move-12.html``,
``web.css``), so the same HTML works under ``/g/<id>/`` on the server and in a folder.

Only public information goes on the public pages: an anonymous game's players are "Player N"
(§3.1), no contact, no secret.  Every text a player wrote (a name, a message) goes through the
template's escaping, and into the SVG map escaped as well (:mod:`pbm.web.svg`).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm import __version__
from pbm.resources import templates_dir

CR_TITLE = "continental-rails"


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


def is_18xx(game: Any) -> bool:
    return game.title != CR_TITLE


# ----------------------------------------------------------------- names
def seat_rows(session: Session, game: Any) -> list[Any]:
    from pbm.models import Player

    return list(session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)))


class Names:
    """Players' names as a public page may show them: "Player N" in an anonymous game."""

    def __init__(self, seats: list[Any], anonymous: bool) -> None:
        self.anonymous = anonymous
        self.public = {p.name: (f"Player {p.number}" if anonymous else p.name) for p in seats if p.name}
        # longest first, so that "Ann" never replaces inside "Anna"
        self._order = sorted(self.public, key=len, reverse=True)

    def __call__(self, text: Any) -> str:
        text = "" if text is None else str(text)
        if not self.anonymous or not text:
            return text
        if text in self.public:
            return self.public[text]
        for real in self._order:
            if real and real in text:
                text = text.replace(real, self.public[real])
        return text


# ----------------------------------------------------------------- index
def index_page(session: Session) -> str:
    from pbm.models import Game

    rows = []
    for g in session.scalars(select(Game).order_by(Game.id)):
        rows.append({"href": f"g/{g.id}/", "name": g.name, "title": "Continental Rails II" if not is_18xx(g) else g.title,
                     "status": g.status, "turn": g.turn if not is_18xx(g) else None})
    return render("index.html", games=rows)


# ----------------------------------------------------------------- 18xx
def _safe(fn: Callable[[], Any], default: Any = None) -> Any:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - an optional detail of the engine must not take the page down
        return default


def action_texts(rows: list[Any]) -> list[str]:
    """Each stored action in the move language (as a player writes it in a mail)."""
    from pbm.e18xx.core.actions import action_from_dict
    from pbm.e18xx.pbem.moves import format_action

    out = []
    for row in rows:
        d = row.action or {}
        try:
            act = action_from_dict(d)
            out.append(f"{act.entity}: {format_action(act)}")
        except Exception:  # noqa: BLE001 - a log line is shown whatever the engine makes of it
            out.append(f"{d.get('entity', '?')}: {d.get('type', '?')}")
    return out


def market_svg(game: Any, label: str) -> str:
    from pbm.e18xx.render.pdf import draw_market
    from pbm.web.svg import SvgCanvas

    canvas = SvgCanvas(1000.0, 2000.0)
    draw_market(canvas, game, 0.0, 1990.0, 1000.0)  # type: ignore[arg-type]
    return canvas.svg(label)


@dataclass
class Links:
    """How a game's pages name each other (the same relative names on the server and in a folder)."""

    query: bool = True  # the server also answers ?move=N (a form can ask for any move)

    def move(self, n: int, total: int) -> str:
        return "index.html" if n >= total else f"move-{n}.html"


def game18_context(session: Session, game: Any, rep: Any, rows: list[Any], at: int | None, links: Links,
                   texts: list[str] | None = None) -> dict[str, Any]:
    from pbm.e18xx.pbem.games import legal_lines, who_acts
    from pbm.e18xx.render.view import state_dict

    g = rep.game
    total = len(rows)
    n = total if at is None else at
    seats = seat_rows(session, game)
    name = Names(seats, bool(game.anonymous))
    st = state_dict(g)
    cert_limit = _safe(g.cert_limit)
    players = [{"name": name(pname), "cash": p["cash"], "certs": p["certificates"], "limit": cert_limit,
                "value": p["value"], "bankrupt": p["bankrupt"],
                "shares": ", ".join(f"{c} {pct}%" + ("*" if c in p["presidencies"] else "")
                                    for c, pct in p["shares"].items()),
                "privates": ", ".join(p["privates"])}
               for pname, p in st["players"].items()]
    corps = []
    for sym, c in st["corporations"].items():
        corps.append({"sym": sym, "started": c["started"], "floated": c["floated"], "closed": c["closed"],
                      "price": c["share_price"], "par": c["par_price"], "cash": c["cash"],
                      "president": name(c["president"]) if c["president"] else "",
                      "ipo": c["ipo_percent"], "market": c["market_percent"], "trains": " ".join(c["trains"]),
                      "stations": " ".join(c["stations"]), "privates": ", ".join(c["privates"])})
    privates = []
    for sym, p in st["privates"].items():
        owner = p["owner"] or ""
        owner = "closed" if p["closed"] else (name(owner[2:]) if owner[1:2] == ":" else (owner or "bank"))
        privates.append({"sym": sym, "owner": owner, "value": p["value"], "revenue": p["revenue"]})
    texts = texts if texts is not None else action_texts(rows)
    real = {p.number: p.name for p in seats}
    log = []
    for i, row in enumerate(rows):
        if row.seq > n:
            break
        mover = real.get(row.player_number, "")
        # the seat that sent the move, when it is not the entity that acted (a company, a private)
        seat = name(mover) if mover and not texts[i].startswith(mover + ":") else ""
        log.append(_log_line(row.seq, name(texts[i]), seat, links.move(row.seq, total), row.seq == n))
    log.reverse()
    lays, lay_entity = legal_lays(g) if not st["finished"] else ({}, "")
    rnd = st["round"]
    where = {"auction": "Private auction", "stock": f"Stock round {rnd['turn']}",
             "operating": f"Operating round {rnd['turn']}.{rnd['operating_round']}"}.get(rnd["kind"], rnd["kind"])
    title = f"{game.name} ({g.title.name})"
    return {
        "game": {"name": game.name, "title": g.title.name, "status": game.status, "anonymous": bool(game.anonymous)},
        "at": n, "total": total, "latest": n >= total,
        "prev": links.move(n - 1, total) if n > 0 else None, "next": links.move(n + 1, total) if n < total else None,
        "first": links.move(0, total) if n > 0 else None, "last": "index.html" if n < total else None,
        "query": links.query,
        "where": where, "phase": st["phase"], "train_limit": _safe(lambda: g.phase.train_limit),
        "bank": st["bank"], "depot": st["depot"], "finished": st["finished"], "end_reason": st["end_reason"],
        "result": {name(k): v for k, v in (st["result"] or {}).items()} if st["result"] else None,
        "to_act": name(who_acts(g)), "legal": [name(line) for line in legal_lines(g)] if not st["finished"] else [],
        "players": players, "corps": corps, "privates": privates, "log": Markup("\n".join(log)), "log_count": len(log),
        "lays": lays, "lay_entity": lay_entity,
        "map_svg": _map(rep, f"Map of {title} after action {n}", {c: [x["line"] for x in v] for c, v in lays.items()}),
        "market_svg": market_svg(g, f"Stock market of {title} after action {n}"),
    }


def _log_line(seq: int, text: str, seat: str, href: str, current: bool) -> str:
    """One item of the action log, as HTML (built here rather than in the template: a late game's log
    has hundreds of lines, and this is ten times faster).  Every text is escaped."""
    mark = ' class="current" aria-current="step"' if current else ""
    who = f'<span class="seat">[{escape(seat)}]</span> ' if seat else ""
    return f'<li value="{seq}"{mark}><a href="{escape(href)}">{seq}</a> {who}{escape(text)}</li>'


def _map(rep: Any, label: str, lays: dict[str, list[str]] | None = None) -> str:
    from pbm.web.svg import map_svg

    return map_svg(rep, label, lays)


def legal_lays(g: Any) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """The legal tile lays now, by hex: [{tile, rotation, line}] (line: the move to copy into a mail),
    and the entity that may lay them ("" when none may)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import move_text

    out: dict[str, list[dict[str, Any]]] = {}
    entity = ""
    for act in _safe(g.legal_actions, []) or []:
        if isinstance(act, A.LayTile):
            entity = entity or str(act.entity)
            out.setdefault(act.hex, []).append({"tile": act.tile, "rotation": act.rotation,
                                                "line": move_text(g, act)})
    return out, entity


def game18_page(session: Session, game: Any, at: int | None = None, links: Links | None = None) -> str:
    """The page of an 18xx game after its action ``at`` (None: now).  ValueError for a move it has not."""
    from pbm.e18xx.pbem.games import action_rows, replay_rows

    rows = action_rows(session, game)
    if at is not None and not 0 <= at <= len(rows):
        raise ValueError(f"no action {at}")
    if at is not None and at >= len(rows):
        at = None
    rep = replay_rows(session, game, upto=at)
    return render("game18.html", **game18_context(session, game, rep, rows, at, links or Links()))


# ----------------------------------------------------------------- Continental Rails
def cr_files(session: Session, game: Any) -> dict[str, bytes]:
    """The public pages of a Continental Rails game by file name (pbm.report.site's archive site:
    index.html, turn-<T>.html, style.css); {} before its first turn is resolved."""
    from pbm.report.view import last_resolved_turn

    if _safe(lambda: last_resolved_turn(game), 0) < 1:
        return {}
    from pbm.report.site import build_site

    with tempfile.TemporaryDirectory(prefix="pbm-web-") as tmp:
        paths = build_site(session, game, Path(tmp))
        return {p.name: p.read_bytes() for p in paths}


def cr_waiting_page(game: Any) -> str:
    return render("cr_waiting.html", game={"name": game.name, "turn": game.turn, "status": game.status})


# ----------------------------------------------------------------- a player's own page
@dataclass
class PlayerView:
    html: str
    files: dict[str, tuple[str, Callable[[], bytes]]] = field(default_factory=dict)  # name -> (type, maker)


def player_page(session: Session, game: Any, player: Any) -> PlayerView:
    """What only this player may see: his report (as a PDF to open), his settings, offers to him."""
    ctx: dict[str, Any] = {"game": {"name": game.name, "title": game.title, "status": game.status},
                           "public": f"/g/{int(game.id)}/", "seat": player.number, "name": player.name,
                           "email": player.email, "character": getattr(player, "character", ""),
                           "items": [], "legal": [], "offer": None, "settings": []}
    files: dict[str, tuple[str, Callable[[], bytes]]] = {}
    if is_18xx(game):
        from pbm.e18xx.pbem.games import legal_lines, pending_offer, replay_rows, who_acts
        from pbm.e18xx.pbem.notify import preference

        rep = replay_rows(session, game)
        g = rep.game
        name = Names(seat_rows(session, game), bool(game.anonymous))
        if player.name in name.public:  # he knows his own name; the others stay "Player N" in an anonymous game
            name.public[player.name] = player.name
        ctx["to_act"] = name(who_acts(g))
        acting = _safe(g.acting_players, []) or []
        ctx["my_turn"] = player.name in acting
        if ctx["my_turn"]:
            ctx["legal"] = [name(line) for line in legal_lines(g)]
        offer = pending_offer(game)
        if offer and player.name in (offer.get("owner"), offer.get("entity"), offer.get("buyer")):
            ctx["offer"] = name(f"{offer.get('entity')} offers {offer.get('owner')} ${offer.get('price')} for "
                                f"{offer.get('company')}; the owner answers 'accept {offer.get('company')}' or "
                                f"'decline {offer.get('company')}'")
        ctx["settings"] = [("Mail", f"NOTIFY: {preference(game, player.number)} (change it with a line "
                                    "'NOTIFY: every', 'NOTIFY: turn' or 'NOTIFY: digest' in any mail to the game)"),
                           ("PDF", "the state PDF comes with every state mail; the latest is under 'Your reports'")]
        ctx["items"] = [("state.pdf", "The game's state now (PDF: map, market, holdings)")]

        def state_pdf() -> bytes:
            from pbm.e18xx.render.pdf import render_pdf

            return render_pdf(rep, game.name)

        files["state.pdf"] = ("application/pdf", state_pdf)
    else:
        from pbm.report.view import last_resolved_turn

        turn = _safe(lambda: last_resolved_turn(game), 0)
        ctx["turn"] = turn
        ctx["settings"] = [("Mail", f"reports go to the address on file: {player.email or '(none)'}"),
                           ("PDF", "your turn report is a PDF, mailed after each turn; the latest is under 'Your reports'")]
        if turn >= 1 and player.human:
            ctx["items"] = [("report.pdf", f"Your turn report for turn {turn} (PDF, private)")]

            def report_pdf() -> bytes:
                from pbm.report.pdf import player_report
                from pbm.report.view import load_turn

                return player_report(load_turn(session, game, turn), player.number)

            files["report.pdf"] = ("application/pdf", report_pdf)
    return PlayerView(render("player.html", **ctx), files)


# ----------------------------------------------------------------- static site
def write_site(session: Session, game: Any, folder: Path, *, history: bool = True) -> list[Path]:
    """The game's public pages as files in ``folder`` (what ``pbm serve`` shows under /g/<id>/):
    for an 18xx game index.html, move-<N>.html for every action (``history``), map.svg and web.css;
    for Continental Rails the archive site's pages."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def put(name: str, data: str | bytes) -> None:
        path = folder / name
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        tmp.replace(path)
        written.append(path)

    if not is_18xx(game):
        files = cr_files(session, game)
        if not files:
            put("index.html", cr_waiting_page(game))
            put("style.css", css())
        for fname, data in sorted(files.items()):
            put(fname, data)
        return written
    from pbm.e18xx.core.actions import action_from_dict
    from pbm.e18xx.pbem.games import Replayed, action_rows, new_engine, replay_rows, step

    rows = action_rows(session, game)
    links = Links(query=False)
    texts = action_texts(rows)
    if history:
        g = new_engine(session, game)
        rep = Replayed(g, g.total_cash())
        for n in range(0, len(rows)):
            if n:
                step(rep, action_from_dict(rows[n - 1].action), rollback=False)
            put(f"move-{n}.html", render("game18.html", **game18_context(session, game, rep, rows, n, links, texts)))
    rep = replay_rows(session, game)
    put("index.html", render("game18.html", **game18_context(session, game, rep, rows, None, links, texts)))
    put("map.svg", _map(rep, f"Map of {game.name}"))
    put("web.css", css())
    return written

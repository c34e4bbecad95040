"""The web pages of an 18xx game (issue 33, docs/web.md), reached by :mod:`pbm.web` through its
registry (``pbm.web.pages.WEB_MODULES``), as the core reaches a game through :mod:`pbm.kinds`.

The page shows the game after any action: the map (the PDF's own ``draw_map`` on an SVG canvas,
legal tile lays outlined), the stock market (``draw_market``), players, companies, privates, bank,
phase and depot from ``view.state_dict``, whose turn it is and the legal moves, and the action log.
The server carries each game's replay forward by its new actions (:class:`Replays`).
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from markupsafe import Markup
from sqlalchemy.orm import Session

from pbm.web.pages import Links, Names, log_line, render, safe, seat_rows
from pbm.web.svg import PAD, SvgCanvas, escape, num

# draw_map's legend is drawn from this height upwards (pdf.MARGIN), one 9-point line per company
LEGEND_BASE = 28.0
LEGEND_LINE = 9.0
WIDTH = 1000.0  # the map's width in points (the SVG scales to the page: viewBox + width 100%)


def map_svg(rep: Any, label: str = "", lays: dict[str, list[str]] | None = None) -> str:
    """The map of a replayed 18xx game (:class:`pbm.e18xx.pbem.games.Replayed`) as an ``<svg>`` element:
    every hex, tile and its track, cities with their values and stations, terrain costs, off-boards,
    the routes each company ran last (with their legend below), and the last move ringed.

    ``lays`` (hex -> the legal tile lays there, as move lines) outlines each of those hexes with a
    link to ``#lay-<hex>`` (the page's list of the lays, to copy into a mail)."""
    from pbm.e18xx.render.pdf import MapGeometry, draw_map

    g = rep.game
    # the map's height for WIDTH points of width: draw_map fits the hexes into the box, anchored top left
    probe = MapGeometry(g, (0.0, 0.0, WIDTH, 1e6))
    ys = [y for coord in g.title.hexes for _, y in probe.corners(coord)]
    map_h = (max(ys) - min(ys)) if ys else WIDTH
    legend_h = LEGEND_BASE + LEGEND_LINE * (len(rep.last_routes) + 2)
    top_margin = probe.r * 1.3  # the "last move" label above a top-row hex
    height = legend_h + map_h + top_margin
    canvas = SvgCanvas(WIDTH + 2 * PAD, height)
    box = (PAD, legend_h, PAD + WIDTH, legend_h + map_h)
    draw_map(canvas, rep, box)  # type: ignore[arg-type]
    if lays:
        geo = MapGeometry(g, box)
        for coord, lines in sorted(lays.items()):
            if coord not in g.title.hexes:
                continue
            pts = " ".join(f"{num(x)},{num(canvas.height - y)}" for x, y in geo.corners(coord))
            cx, cy = geo.centre(coord)
            what = f"{len(lines)} legal tile lay{'s' if len(lines) != 1 else ''} in {coord}"
            canvas.items.append(
                f'<a href="#lay-{escape(coord)}" class="lay"><title>{escape(what)}: '
                f'{escape("; ".join(lines[:12]), quote=False)}</title>'
                f'<polygon points="{pts}" fill="#1565c0" fill-opacity="0.12" stroke="#1565c0" '
                f'stroke-width="{num(max(2.0, geo.r * 0.08))}" stroke-dasharray="{num(geo.r * 0.2)} '
                f'{num(geo.r * 0.1)}"/>'
                f'<text x="{num(cx)}" y="{num(canvas.height - cy + geo.r * 0.42)}" font-size="'
                f'{num(max(6.0, geo.r * 0.22))}" font-weight="bold" text-anchor="middle" fill="#0d47a1">'
                f'lay ×{len(lines)}</text></a>')
    return canvas.svg(label)


def market_svg(game: Any, label: str) -> str:
    from pbm.e18xx.render.pdf import draw_market

    canvas = SvgCanvas(1000.0, 2000.0)
    draw_market(canvas, game, 0.0, 1990.0, 1000.0)  # type: ignore[arg-type]
    return canvas.svg(label)


def action_texts(rows: list[Any], game: Any = None) -> list[str]:
    """Each stored action in the move language (as a player writes it in a mail), with the words of
    the mails' "Last moves" when ``game`` (the replayed game) is given: a private's ability is its
    owning company's move (``N&W: buy train 3 with P2 for $0 ($200 off)``, not ``P2: buy train 3
    with P2``; issue 29, play-through s10 finding 7) and a share names where it came from."""
    from pbm.e18xx.core.actions import action_from_dict
    from pbm.e18xx.pbem.moves import action_words

    out = []
    for row in rows:
        d = row.action or {}
        try:
            ent, text = action_words(game, action_from_dict(d), getattr(row, "seq", None))
            out.append(f"{ent}: {text}")
        except Exception:  # noqa: BLE001 - a log line is shown whatever the engine makes of it
            out.append(f"{d.get('entity', '?')}: {d.get('type', '?')}")
    return out


def legal_lays(g: Any) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """The legal tile lays now, by hex: [{tile, rotation, line}] (line: the move to copy into a mail),
    and the entity that may lay them ("" when none may)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.lays import same_as, same_track
    from pbm.e18xx.pbem.games import move_text

    out: dict[str, list[dict[str, Any]]] = {}
    entity = ""
    lays = [act for act in safe(g.legal_actions, []) or [] if isinstance(act, A.LayTile)]
    # rotations that lay the same track are one (issue 29 finding 9): 'lay 57 E4 1 (same as 4)'
    for act, others in safe(lambda: same_track(g, lays), [(a, []) for a in lays]):
        entity = entity or str(act.entity)
        out.setdefault(act.hex, []).append({"tile": act.tile, "rotation": f"{act.rotation}{same_as(others)}",
                                            "line": move_text(g, act) + same_as(others)})
    return out, entity


# ------------------------------------------------------------------ loans, phases, off-boards
def loan_info(g: Any) -> dict[str, Any] | None:
    """The title's loans (1848: title data ``loans`` and ``bank_corporation``), or None when it has
    none: the lender, its loans left of all, the most a company may take, each company's loans."""
    spec = g.title.data.get("loans")
    lender_spec = g.title.data.get("bank_corporation") or {}
    if not spec or not lender_spec:
        return None
    s = g.state
    lender = lender_spec.get("sym", "")
    return {"lender": lender, "lender_name": lender_spec.get("name", lender),
            "total": int(lender_spec.get("loans", 0)), "left": safe(g.loans_left, 0),
            "value": int(lender_spec.get("loan_value", 100)), "per_company": int(spec.get("per_company", 5)),
            "open": bool(safe(g.loans_open, False)),
            "by_corp": {c.sym: c.loans for c in s.corporations.values() if c.sym != lender},
            "receivership": sorted(c.sym for c in s.corporations.values() if getattr(c, "receivership", False))}


def phase_info(g: Any) -> dict[str, Any]:
    """The phase now (train limit, tile colours, operating rounds) and what the next one changes
    (:func:`pbm.e18xx.phases.phase_change`, worded as the mails' phase event words it)."""
    from pbm.e18xx.phases import limit_text, phase_change
    from pbm.e18xx.render.words import phase_name

    phases = g.title.phases
    i = g.state.phase
    now = phases[i]
    info: dict[str, Any] = {"name": phase_name(g, i), "limit": limit_text(now), "tiles": ", ".join(now.tiles),
                            "rounds": now.operating_rounds, "next": None}
    if i + 1 >= len(phases):
        return info
    nxt = phases[i + 1]
    unlocks, closes = phase_change(g.title, i, i + 1)
    changes = list(unlocks) + [f"no longer: {c}" for c in closes]
    info["next"] = {"name": phase_name(g, i + 1), "on": nxt.on, "changes": changes or ["no change but its name"]}
    return info


def offboard_rows(g: Any) -> dict[str, Any]:
    """The off-board hexes (the title's red hexes and every off-board node) and their value in each
    phase (``revenue_for`` the phase's tile colours, as the map and the routes count them)."""
    phases = g.title.phases
    m = g.state.map
    rows = []
    for coord in sorted(g.title.hexes, key=lambda c: (c[0], int(c[1:]) if c[1:].isdigit() else 0, c)):
        hd = g.title.hexes[coord]
        try:
            tile = m.tile(coord)
        except Exception:  # noqa: BLE001 - a hex with no tile placed yet: its printed one
            tile = hd.tile
        nodes = [n for n in tile.nodes if n.kind in ("city", "town", "offboard") and n.revenue]
        if not nodes or not (hd.color == "red" or any(n.kind == "offboard" for n in nodes)):
            continue
        values = []
        for ph in phases:
            vals = sorted({n.revenue_for(ph.tiles) for n in nodes})
            values.append("/".join(str(v) for v in vals))
        rows.append({"hex": coord, "name": hd.name or "", "by_phase": values})
    from pbm.e18xx.render.words import phase_name

    return {"phases": [phase_name(g, i) for i in range(len(phases))], "now": g.state.phase, "rows": rows}


def context(session: Session, game: Any, rep: Any, rows: list[Any], at: int | None, links: Links,
                   texts: list[str] | None = None) -> dict[str, Any]:
    from pbm.e18xx.pbem.games import legal_lines, who_acts
    from pbm.e18xx.render.view import state_dict

    g = rep.game
    total = len(rows)
    n = total if at is None else at
    seats = seat_rows(session, game)
    name = Names(seats, bool(game.anonymous))
    st = state_dict(g)
    players = [{"name": name(pname), "cash": p["cash"], "certs": p["certificates"],
                "limit": safe(lambda: g.cert_limit(pname)),  # each player's own (1848 5.5.4: a former director's is lower)
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
    loans = loan_info(g)
    if loans:
        for c in corps:  # the lender's cell says how many it has left to lend
            c["loans"] = loans["by_corp"].get(c["sym"], 0)
            c["lender"] = c["sym"] == loans["lender"]
            c["receivership"] = c["sym"] in loans["receivership"]
    privates = []
    for sym, p in st["privates"].items():
        owner = p["owner"] or ""
        owner = "closed" if p["closed"] else (name(owner[2:]) if owner[1:2] == ":" else (owner or "bank"))
        privates.append({"sym": sym, "owner": owner, "value": p["value"], "revenue": p["revenue"]})
    texts = texts if texts is not None else action_texts(rows, g)
    real = {p.number: p.name for p in seats}
    log = []
    for i, row in enumerate(rows):
        if row.seq > n:
            break
        mover = real.get(row.player_number, "")
        # the seat that sent the move, when it is not the entity that acted (a company, a private)
        seat = name(mover) if mover and not texts[i].startswith(mover + ":") else ""
        log.append(log_line(row.seq, name(texts[i]), seat, links.move(row.seq, total), row.seq == n))
    log.reverse()
    from pbm.e18xx.render.webevents import event_log

    events, event_count = event_log(g, {row.seq: texts[i] for i, row in enumerate(rows)},
                                    lambda seq: links.move(seq, total), n, name)
    lays, lay_entity = legal_lays(g) if not st["finished"] else ({}, "")
    rnd = st["round"]
    from pbm.e18xx.render.words import phase_words, round_words, word

    where = safe(lambda: round_words(g), rnd["kind"])  # the round and the phase as the book names them
    title = f"{game.name} ({g.title.name})"
    return {
        "game": {"name": game.name, "title": g.title.name, "status": game.status, "anonymous": bool(game.anonymous)},
        "at": n, "total": total, "latest": n >= total,
        "prev": links.move(n - 1, total) if n > 0 else None, "next": links.move(n + 1, total) if n < total else None,
        "first": links.move(0, total) if n > 0 else None, "last": "index.html" if n < total else None,
        "query": links.query,
        "money": g.title.money,  # the title's currency (1848: £)
        "where": where, "phase": safe(lambda: phase_words(g), st["phase"]), "train_bank": word(g, "train_bank"), "train_limit": safe(lambda: g.train_limit_text()),  # per company size (18VA: "4 (10-share), 2 (5-share)")
        "bank": st["bank"], "depot": st["depot"], "finished": st["finished"], "end_reason": st["end_reason"],
        "result": {name(k): v for k, v in (st["result"] or {}).items()} if st["result"] else None,
        "now": safe(g.what_now, {}) if not st["finished"] else {},  # the open step: how it reads, its rule
        "to_act": name(who_acts(g)), "legal": [name(line) for line in legal_lines(g)] if not st["finished"] else [],
        "players": players, "corps": corps, "privates": privates, "log": Markup("\n".join(log)), "log_count": len(log),
        "events": events, "event_count": event_count,
        "lays": lays, "lay_entity": lay_entity, "loans": loans, "phase_info": phase_info(g),
        "offboards": offboard_rows(g),
        "map_svg": map_svg(rep, f"Map of {title} after action {n}", {c: [x["line"] for x in v] for c, v in lays.items()}),
        "market_svg": market_svg(g, f"Stock market of {title} after action {n}"),
    }


def game_page(session: Session, game: Any, at: int | None = None, links: Links | None = None) -> str:
    """The page of an 18xx game after its action ``at`` (None: now).  ValueError for a move it has not."""
    from pbm.e18xx.pbem.games import action_rows, replay_rows

    rows = action_rows(session, game)
    if at is not None and not 0 <= at <= len(rows):
        raise ValueError(f"no action {at}")
    if at is not None and at >= len(rows):
        at = None
    rep = replay_rows(session, game, upto=at)
    return render("game18.html", **context(session, game, rep, rows, at, links or Links()))


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
                    texts = texts + action_texts(rows[n:], rep.game)
                    self._version += 1
                    self._games[game.id] = (rep, rows, texts, contents, self._version)
                    return rep, rows, texts, self._version
        if held is not None and held[3] == contents and ended:
            return held[0], rows, held[2], held[4]
        rep = replay_rows(s, game)
        texts = action_texts(rows, rep.game)
        self._version += 1
        self._games[game.id] = (rep, rows, texts, contents, self._version)
        return rep, rows, texts, self._version


def server_state() -> Replays:
    """What ``pbm serve`` keeps for the 18xx games between requests."""
    return Replays()


def respond(state: Replays, session: Session, game: Any, name: str, query: Any,
            cache: Any) -> tuple[str | bytes, str] | None:
    """The file ``name`` of the game's pages on the server (``index.html`` with ``?move=N``,
    ``move-<N>.html``, ``map.svg``): (body, media type), or None (404)."""
    at: int | None = None
    if name == "index.html":
        raw = query.get("move")
        if raw is not None:
            if not raw.strip().isdigit():
                return None
            at = int(raw)
    elif name.startswith("move-") and name.endswith(".html") and name[5:-5].isdigit():
        at = int(name[5:-5])
    elif name != "map.svg":
        return None
    # what else a page shows that the log does not change (a seat handed to another person renames it)
    look = (game.status, bool(game.anonymous), tuple((p.number, p.name) for p in seat_rows(session, game)))
    with state.lock(game.id):
        rep, rows, texts, version = state.now(session, game)
        total = len(rows)
        if at is not None and not 0 <= at <= total:
            return None
        if at == total:
            at = None
        if name == "map.svg":
            svg = cache.get(("map", game.id, version), lambda: map_svg(rep, f"Map of {game.name}"))
            return svg, "image/svg+xml"
        if at is None:  # the page now, from the replay carried forward (rep changes: inside the lock)
            html = cache.get(("18xx", game.id, version, None, look), lambda: render(
                "game18.html", **context(session, game, rep, rows, None, Links(), texts)))
            return html, "text/html; charset=utf-8"
    # history: a replay up to that action, outside the lock (other requests of the game go on)
    html = cache.get(("18xx", game.id, version, at, look), lambda: game_page(session, game, at))
    return html, "text/html; charset=utf-8"


def player_view(session: Session, game: Any, player: Any, ctx: dict[str, Any],
                files: dict[str, tuple[str, Callable[[], bytes]]], state: Replays | None = None) -> None:
    """Fill a player's own page: his turn and legal moves, an offer to or from him, his NOTIFY
    preference, and the state PDF (``state.pdf``).  In an anonymous game the others stay "Player N".
    ``state``: the server's replays (the game as the server holds it, under its lock)."""
    if state is None:
        from pbm.e18xx.pbem.games import replay_rows

        _player_view(session, game, player, ctx, files, replay_rows(session, game), None)
        return
    lock = state.lock(game.id)
    with lock:
        rep = state.now(session, game)[0]
        _player_view(session, game, player, ctx, files, rep, lock)


def _player_view(session: Session, game: Any, player: Any, ctx: dict[str, Any],
                 files: dict[str, tuple[str, Callable[[], bytes]]], rep: Any, lock: Any) -> None:
    from pbm.e18xx.pbem.games import legal_lines, offer_name, offer_thing, pending_offer, who_acts
    from pbm.e18xx.pbem.notify import preference

    g = rep.game
    name = Names(seat_rows(session, game), bool(game.anonymous))
    if player.name in name.public:  # he knows his own name
        name.public[player.name] = player.name
    ctx["to_act"] = name(who_acts(g))
    ctx["my_turn"] = player.name in (safe(g.acting_players, []) or [])
    if ctx["my_turn"]:
        ctx["legal"] = [name(line) for line in legal_lines(g)]
    offer = pending_offer(game)
    if offer and player.name in (offer.get("owner"), offer.get("entity"), offer.get("buyer")):
        ctx["offer"] = name(f"{offer.get('entity')} offers {offer.get('owner')} {g.title.money(offer.get('price'))} for "
                            f"{offer_thing(offer)}; the owner answers 'accept {offer_name(offer)}' or "
                            f"'decline {offer_name(offer)}'")
    ctx["settings"] = [("Mail", f"NOTIFY: {preference(game, player.number)} (change it with a line "
                                "'NOTIFY: every', 'NOTIFY: turn' or 'NOTIFY: digest' in any mail to the game)"),
                       ("PDF", "the state PDF comes with every state mail; the latest is under 'Your reports'")]
    ctx["items"] = [("state.pdf", "The game's state now (PDF: map, market, holdings)")]

    def state_pdf() -> bytes:
        from pbm.e18xx.render.pdf import render_pdf

        names = name if game.anonymous else None  # the others as "Player N", his own name kept
        if lock is None:
            return render_pdf(rep, game.name, names)
        with lock:  # the server's replay: no request steps it while the PDF is drawn
            return render_pdf(rep, game.name, names)

    files["state.pdf"] = ("application/pdf", state_pdf)


def write_site(session: Session, game: Any, put: Callable[[str, str | bytes], None], *, history: bool = True) -> None:
    """The game's public pages as files: index.html, move-<N>.html after each action (``history``:
    one replay, stepped action by action), map.svg."""
    from pbm.e18xx.core.actions import action_from_dict
    from pbm.e18xx.pbem.games import Replayed, action_rows, new_engine, replay_rows, step

    rows = action_rows(session, game)
    links = Links(query=False)
    final = replay_rows(session, game)
    texts = action_texts(rows, final.game)
    if history:
        g = new_engine(session, game)
        rep = Replayed(g, g.total_cash())
        for n in range(0, len(rows)):
            if n:
                step(rep, action_from_dict(rows[n - 1].action), rollback=False)
            put(f"move-{n}.html", render("game18.html", **context(session, game, rep, rows, n, links, texts)))
    put("index.html", render("game18.html", **context(session, game, final, rows, None, links, texts)))
    put("map.svg", map_svg(final, f"Map of {game.name}"))

"""A static HTML site of a game, for the moderator to publish (templates/site/, Jinja2, autoescape on).

Only public information goes on it — what every player's report shows: the
standings, the railroads' public figures and lines, the map, each turn's
public headlines, messages and stock prices.  No holdings, no private news,
no contacts; real names only when the game is not anonymous (§3.1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from reportlab.graphics import renderSVG
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm import __version__
from pbm.resources import templates_dir
from pbm.models import Event, Game, GameRecord, OrderSet, Player, PlayerTurn, RailroadTurn
from pbm.report.mapdraw import draw_map
from pbm.report.sections import MESSAGE_LENGTH
from pbm.report.svgchart import line_chart
from pbm.report.view import TurnData, load_turn

VP = [("robber_baron", "Robber Baron"), ("rail_mogul", "Rail Mogul"), ("rail_builder", "Rail Builder"),
      ("rail_magnate", "Rail Magnate"), ("rail_prodigal", "Rail Prodigal"), ("rail_baron", "Rail Baron")]


def environment() -> Environment:
    return Environment(loader=FileSystemLoader(str(templates_dir() / "site")), autoescape=select_autoescape(default=True),
                       keep_trailing_newline=True)


def _public_turn(session: Session, game: Game, turn: int, numbers: dict[int, int],
                 characters: dict[int, str]) -> dict[str, Any]:
    events = session.scalars(select(Event).where(Event.game_id == game.id, Event.turn == turn,
                                                 Event.headline.is_(True)).order_by(Event.seq, Event.id))
    headlines = [e.text for e in events if e.private_to is None and e.text]
    orders: dict[int, str] = {}
    for o in session.scalars(select(OrderSet).where(OrderSet.game_id == game.id, OrderSet.turn == turn,
                                                    OrderSet.status == "accepted")
                             .order_by(OrderSet.received_seq, OrderSet.id)):
        number = numbers.get(o.player_id)
        if number is not None:
            orders[number] = str((o.orders or {}).get("message") or "").strip()[:MESSAGE_LENGTH]
    messages = [(f"#{n} {characters.get(n, '')}", text) for n, text in sorted(orders.items()) if text]
    prices = [{"code": r.code, "start": r.start_price, "end": r.end_price}
              for r in session.scalars(select(RailroadTurn).where(RailroadTurn.game_id == game.id,
                                                                  RailroadTurn.turn == turn)
                                       .order_by(RailroadTurn.code))]
    return {"turn": turn, "headlines": headlines, "messages": messages, "prices": prices}


def _charts(session: Session, game: Game, characters: dict[int, str]) -> list[dict[str, Any]]:
    """The public charts over the turns: every railroad's share price at the end of each turn and
    every tycoon's Rail Baron score (both shown in every player's report), each with its figures."""
    prices: dict[str, list[tuple[int, float]]] = {}
    for r in session.scalars(select(RailroadTurn).where(RailroadTurn.game_id == game.id)
                             .order_by(RailroadTurn.code, RailroadTurn.turn)):
        prices.setdefault(r.code, []).append((r.turn, round(float(r.end_price), 2)))
    vp: dict[str, list[tuple[int, float]]] = {}
    for p in session.scalars(select(PlayerTurn).where(PlayerTurn.game_id == game.id)
                             .order_by(PlayerTurn.player_number, PlayerTurn.turn)):
        name = f"#{p.player_number} {characters.get(p.player_number, '')}".strip()
        vp.setdefault(name, []).append((p.turn, float((p.vp or {}).get("rail_baron", 0) or 0)))
    charts = []
    for title, what, data in (("Share prices at the end of each turn", "price ($)", prices),
                              ("Rail Baron victory points after each turn", "victory points", vp)):
        series = list(data.items())
        turns = sorted({t for _, pts in series for t, _ in pts})
        rows = [{"turn": t, "values": [next((f"{v:g}" for x, v in pts if x == t), "") for _, pts in series]}
                for t in turns]
        charts.append({"title": title, "svg": line_chart(title, series, y_name=what),
                       "names": [name for name, _ in series], "rows": rows})
    return charts


def build_site(session: Session, game: Game, folder: Path, data: TurnData | None = None) -> list[Path]:
    """Write index.html, turn-<T>.html for each played turn, style.css; returns the paths."""
    data = data or load_turn(session, game)
    env = environment()
    folder.mkdir(parents=True, exist_ok=True)
    players = list(session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)))
    numbers = {p.id: p.number for p in players}
    characters = {p.number: p.character for p in players}
    anonymous = bool(data.game.get("anonymous"))
    standings = []
    for p in sorted(data.players, key=lambda p: (-float(p["vp"].get("rail_baron", 0)), p["number"])):
        c = data.contacts.get(p["number"])
        person = "computer" if not (c and c.human) else ("anonymous" if anonymous else c.name)
        standings.append({"number": p["number"], "character": p["character"], "person": person,
                          "vp": [p["vp"].get(k, 0) for k, _ in VP]})
    railroads = [
        {"code": r["code"], "name": r["name"], "miles": r["miles"], "price": r["price"],
         "dividend": (r.get("last") or {}).get("dividend", 0),
         "president": f"#{r['president']} {characters.get(r['president'], '')}" if r.get("president") else "anonymous",
         "lines": ", ".join(f"{line['a']}–{line['b']}" for line in r["lines"])}
        for r in sorted(data.railroads, key=lambda r: r["number"]) if r["status"] != "merged"
    ]
    turns = [_public_turn(session, game, t, numbers, characters) for t in range(1, data.turn + 1)]
    records = [{"label": dict(VP).get(r.category, r.category), "value": f"{r.value:g}", "holder": r.holder,
                "game": r.game_name}
               for r in session.scalars(select(GameRecord).where(GameRecord.title == game.title)
                                        .order_by(GameRecord.category))]
    svg = renderSVG.drawToString(draw_map(data, 720, 440))
    svg = svg[svg.find("<svg"):] if "<svg" in svg else svg  # drop the XML prologue inside HTML
    common = {"game": data.game, "version": __version__}
    written = []
    index = env.get_template("index.html").render(
        **common, standings=standings, vp_labels=[label for _, label in VP], railroads=railroads,
        turns=[{"turn": t["turn"], "count": len(t["headlines"])} for t in turns], map_svg=svg, records=records,
        charts=_charts(session, game, characters))
    (folder / "index.html").write_text(index, encoding="utf-8")
    written.append(folder / "index.html")
    for t in turns:
        page = env.get_template("turn.html").render(**common, **t, has_next=t["turn"] < data.turn)
        path = folder / f"turn-{t['turn']}.html"
        path.write_text(page, encoding="utf-8")
        written.append(path)
    (folder / "style.css").write_text((templates_dir() / "site" / "style.css").read_text(encoding="utf-8"), encoding="utf-8")
    written.append(folder / "style.css")
    return written

"""The complete state of a Continental Rails game as canonical JSON (``pbm export``).

The export is deterministic: keys sorted, lists in a fixed order, no
timestamps and no secrets, so that the same inputs give byte-identical output
(``pbm rerun-turn`` proves it).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session, selectinload

from pbm.cr.engine.context import loaded as loaded_values  # (export_game has a parameter "loaded")
from pbm.models import Game, Player, PrivateCompany, Railroad, Route, Town


def export_game(session: Session, game: Game, loaded: tuple | None = None) -> dict[str, Any]:
    """Everything needed to know (and restore) the game's state at this moment.

    ``loaded``: the game's rows already in the session, as ``(PCs by id, railroads by id,
    players by number, routes by number, towns)`` (the turn's :class:`TurnContext` has them),
    instead of selecting them again.  Rows are looked up by key, not through the ORM's
    relationships (which would each need loading or setting up first)."""
    if loaded is None:
        gid = game.id
        pcs = list(session.scalars(select(PrivateCompany).where(PrivateCompany.game_id == gid)
                                   .order_by(PrivateCompany.id)))
        # lines and holdings come in one SELECT each (selectinload), not one per railroad and player
        railroads = list(session.scalars(select(Railroad).where(Railroad.game_id == gid).order_by(Railroad.id)
                                         .options(selectinload(Railroad.lines), selectinload(Railroad.holdings))))
        players = list(session.scalars(select(Player).where(Player.game_id == gid).order_by(Player.number)
                                       .options(selectinload(Player.holdings))))
        routes = list(session.scalars(select(Route).where(Route.game_id == gid).order_by(Route.number)))
        towns = list(session.scalars(select(Town).where(Town.game_id == gid)))
    else:
        pcs, railroads, players, routes, towns = (list(x) for x in loaded)
    rows = [r for r in routes if r.kind == "RoW" and r.owner_id is not None]  # by route number
    route_of = {r.id: r for r in routes}
    town_name = {t.id: t.name for t in towns}
    rr_of = {r.id: r for r in railroads}
    by_id = {p.id: p.number for p in players}
    rr_code = {r.id: r.code for r in railroads}
    built = {line.route_id for r in railroads for line in r.lines}
    pcs_of: dict[int, list[PrivateCompany]] = {}  # owner id -> PCs, in PC order (one pass, not one per player)
    for pc in pcs:
        if pc.owner_id is not None:
            pcs_of.setdefault(pc.owner_id, []).append(pc)
    row_of: dict[int, Route] = {}  # railroad id -> its first unbuilt RoW by route number
    for rt in rows:
        if rt.id not in built:
            row_of.setdefault(rt.owner_id, rt)

    def positions(p: Player) -> list[tuple[Railroad, int, int, bool]]:
        """The player's holdings with shares or a short, each row's attributes read once."""
        out = []
        for h in p.holdings:
            shares, short = loaded_values(h, "shares", "short")
            if shares or short:  # (an empty holding adds int(0 * price), 0, and is not listed)
                out.append((rr_of[h.railroad_id], shares, short, h.director))
        return out

    held_of = {p.id: positions(p) for p in players}

    def net_worth(p: Player) -> int:  # player_net_worth, with the rows looked up by key
        stock = short = 0
        for rr, shares, shorted, _ in held_of[p.id]:
            if shares and rr.status != "merged":
                stock += int(shares * rr.price)
            short += int(shorted * rr.price)
        owned = sum(min(pc.paid, 20 * route_of[pc.route_id].miles) for pc in pcs_of.get(p.id, [])
                    if pc.status == "owned")
        return p.cash + stock + owned - short - p.loan

    def holdings(p: Player) -> list[dict[str, Any]]:
        return [{"railroad": rr.code, "shares": shares, "short": short, "director": director}
                for rr, shares, short, director in sorted(held_of[p.id], key=lambda x: x[0].code)]

    def line(x) -> dict[str, Any]:
        route = route_of[x.route_id]
        return {"code": route.code, "miles": route.miles, "a": town_name[route.a_id], "b": town_name[route.b_id],
                "double_tracked": x.double_tracked, "built_turn": x.built_turn}

    return {
        "format": "pbm-continental-rails/1",
        "game": {
            "id": game.id,
            "name": game.name,
            "title": game.title,
            "turn": game.turn,
            "year": game.year,
            "status": game.status,
            "seed": game.seed,
            "climate": game.climate,
            "anonymous": game.anonymous,
            "options": game.options,
            "state": game.state,
        },
        "players": [
            {
                "number": p.number,
                "name": p.name,
                "character": p.character,
                "human": p.human,
                "personality": p.personality,
                "email": p.email,
                "cash": p.cash,
                "loan": p.loan,
                "recall": p.recall,
                "net_worth": net_worth(p),
                "credit_limit": p.credit_limit,
                "bankruptcies": p.bankruptcies,
                "missed_turns": p.missed_turns,
                "slots": [rr_code.get(p.slot1_id) if p.slot1_id else None,
                          rr_code.get(p.slot2_id) if p.slot2_id else None],
                "holdings": holdings(p),
                "private_companies": sorted(route_of[pc.route_id].code for pc in pcs_of.get(p.id, [])),
                "vp": {
                    "robber_baron": p.vp_robber,
                    "rail_mogul": p.vp_mogul,
                    "mogul_fraction": round(p.mogul_fraction, 6),
                    "rail_builder": p.vp_builder,
                    "rail_magnate": p.vp_magnate,
                    "rail_prodigal": p.vp_prodigal,
                    "rail_baron": p.vp_baron,
                },
                "million_bonus": p.million_bonus,
                "bonuses_claimed": sorted(p.bonuses_claimed or []),
            }
            for p in players
        ],
        "railroads": [
            {
                "code": r.code,
                "name": r.name,
                "number": r.number,
                "status": r.status,
                "founded_turn": r.founded_turn,
                "merged_into": rr_code.get(r.merged_into_id) if r.merged_into_id else None,
                "price": round(r.price, 2),
                "shares_authorized": r.shares_authorized,
                "shares_issued": r.shares_issued,
                "shares_held_by_players": sum(h.shares for h in r.holdings),
                "shares_public": r.shares_public,
                "treasury_shares": r.treasury_shares,
                "cash": r.cash,
                "bond_debt": r.bond_debt,
                "loan_debt": r.loan_debt,
                "president_debt": r.president_debt,
                "land": r.land,
                "efficiency": r.efficiency,
                "locomotive": r.locomotive,
                "technologies": list(r.technologies or []),
                "grand_station": r.grand_station,
                "dividend": r.dividend,
                "insolvent_turns": r.insolvent_turns,
                "president": by_id.get(r.president_id) if r.president_id else None,
                "chairman": by_id.get(r.chairman_id) if r.chairman_id else None,
                "directors": sorted(by_id[h.player_id] for h in r.holdings if h.director),
                "miles": sum(route_of[x.route_id].miles for x in r.lines),
                "lines": [line(x) for x in sorted(r.lines, key=lambda x: route_of[x.route_id].number)],
                "row": ({"code": row_of[r.id].code, "land_grant": row_of[r.id].land_grant}
                        if r.id in row_of else None),
                "last": {"revenue": r.last_revenue, "expenses": r.last_expenses, "profit": r.last_profit,
                         "dividend": r.last_dividend},
                "regions_at_start": list(r.regions_at_start or []),
            }
            for r in railroads
        ],
        "private_companies": [
            {
                "code": route_of[pc.route_id].code,
                "miles": route_of[pc.route_id].miles,
                "status": pc.status,
                "owner": by_id.get(pc.owner_id) if pc.owner_id else None,
                "paid": pc.paid,
                "for_sale": pc.for_sale or pc.status == "bank",
                "asking_price": pc.asking_price,
                "offered_turn": pc.offered_turn,
                "appeared_turn": pc.appeared_turn,
                "eligible_turns": pc.eligible_turns,
                "railroad": rr_code.get(pc.railroad_id) if pc.railroad_id else None,
            }
            for pc in pcs
        ],
    }


def snapshot_text(state: dict[str, Any]) -> str:
    """The canonical JSON a turn's snapshot keeps (``snapshots.state``): keys sorted, no
    whitespace.  Only pbm reads it back (reruns, reports), so it need not be laid out for
    people: without the indent of :func:`dumps` a late-game snapshot is 45 % smaller and the
    json module writes it with its C encoder, in half the time."""
    return json.dumps(state, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dumps(state: dict[str, Any]) -> str:
    """Canonical JSON text: the same state always gives the same bytes.

    The bytes are exactly ``json.dumps(state, sort_keys=True, indent=2, ensure_ascii=False)``
    plus a newline; written here because the json module falls back to its slow pure-Python
    encoder whenever ``indent`` is given (a third of a late-game snapshot's time)."""
    out: list[str] = []
    try:
        _encode(state, "\n", out)
    except _Unusual:
        return json.dumps(state, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    out.append("\n")
    return "".join(out)


class _Unusual(Exception):
    """A value the fast encoder leaves to the json module (non-string keys, other types)."""


_encode_str = json.encoder.encode_basestring  # the C version when available, as json.dumps uses


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    kind = type(value)
    if kind is str:
        return _encode_str(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and value == value and value not in (float("inf"), float("-inf")):
        return float.__repr__(value)
    raise _Unusual


def _encode(value: Any, newline: str, out: list[str]) -> None:
    # strings, ints, None and booleans (most values of an export) are written in the loops, without a call each
    kind = type(value)
    if kind is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        sep = "{" + inner
        for key in sorted(value):
            if type(key) is not str:
                raise _Unusual
            item = value[key]
            kind = type(item)
            if kind is str:
                out.append(sep + _encode_str(key) + ": " + _encode_str(item))
            elif kind is int:
                out.append(sep + _encode_str(key) + ": " + int.__repr__(item))
            elif item is None or kind is bool:
                out.append(sep + _encode_str(key) + (": null" if item is None else ": true" if item else ": false"))
            elif kind is float and item - item == 0.0:  # finite (inf and nan go the json module's way)
                out.append(sep + _encode_str(key) + ": " + float.__repr__(item))
            else:
                out.append(sep + _encode_str(key) + ": ")
                _encode(item, inner, out)
            sep = "," + inner
        out.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        sep = "[" + inner
        for item in value:
            kind = type(item)
            if kind is str:
                out.append(sep + _encode_str(item))
            elif kind is int:
                out.append(sep + int.__repr__(item))
            elif item is None or kind is bool:
                out.append(sep + ("null" if item is None else "true" if item else "false"))
            elif kind is float and item - item == 0.0:
                out.append(sep + float.__repr__(item))
            else:
                out.append(sep)
                _encode(item, inner, out)
            sep = "," + inner
        out.append(newline + "]")
    else:
        out.append(_scalar(value))


def restore_game(session: Session, game: Game, state: dict[str, Any]) -> None:
    """The inverse of :func:`export_game`: put the game back as ``state`` describes it.

    Identity and contact fields (names, e-mail, secrets) are left alone; all the
    game's playing state — turn, climate, players' money and points, railroads,
    lines, rights-of-way, holdings, private companies — is restored.  Railroads
    that did not exist in ``state`` (incorporated later) are removed.
    """
    from pbm.models import Holding, Line

    if state.get("format") != "pbm-continental-rails/1":
        raise ValueError("not a Continental Rails export")
    g = state["game"]
    game.turn, game.year, game.status, game.climate = g["turn"], g["year"], g["status"], g["climate"]
    game.options, game.state = dict(g["options"] or {}), json.loads(json.dumps(g["state"] or {}))
    session.flush()

    players = {p.number: p for p in session.scalars(select(Player).where(Player.game_id == game.id))}
    routes = {r.code: r for r in session.scalars(select(Route).where(Route.game_id == game.id))}
    railroads = {r.code: r for r in session.scalars(select(Railroad).where(Railroad.game_id == game.id))}
    wanted = {r["code"]: r for r in state["railroads"]}

    # Clear every reference to railroads, then drop lines, holdings and late railroads.
    for p in players.values():
        p.slot1_id = p.slot2_id = None
    for r in routes.values():
        r.owner_id, r.land_grant = None, 0
    pcs = list(session.scalars(select(PrivateCompany).where(PrivateCompany.game_id == game.id)))
    for pc in pcs:
        pc.railroad_id = None
    for rr in railroads.values():
        rr.merged_into_id = rr.president_id = rr.chairman_id = None
    session.flush()
    ids = [r.id for r in railroads.values()]
    if ids:
        session.execute(delete(Line).where(Line.railroad_id.in_(ids)))
        session.execute(delete(Holding).where(Holding.railroad_id.in_(ids)))
    for code, rr in list(railroads.items()):
        if code not in wanted:
            session.delete(rr)
            del railroads[code]
    session.flush()
    session.expire_all()

    players = {p.number: p for p in session.scalars(select(Player).where(Player.game_id == game.id))}
    routes = {r.code: r for r in session.scalars(select(Route).where(Route.game_id == game.id))}
    railroads = {r.code: r for r in session.scalars(select(Railroad).where(Railroad.game_id == game.id))}
    for data in state["railroads"]:  # railroads of the state that no longer exist are made again
        if data["code"] not in railroads:
            rr = Railroad(game_id=game.id, code=data["code"], name=data["name"], number=data["number"])
            session.add(rr)
            railroads[data["code"]] = rr
    session.flush()
    for data in state["railroads"]:
        rr = railroads[data["code"]]
        for key in ("name", "number", "status", "founded_turn", "price", "shares_authorized", "shares_issued",
                    "shares_public", "treasury_shares", "cash", "bond_debt", "loan_debt", "president_debt", "land",
                    "efficiency", "locomotive", "grand_station", "dividend", "insolvent_turns"):
            setattr(rr, key, data[key])
        rr.technologies = list(data["technologies"])
        rr.regions_at_start = list(data["regions_at_start"])
        last = data["last"]
        rr.last_revenue, rr.last_expenses = last["revenue"], last["expenses"]
        rr.last_profit, rr.last_dividend = last["profit"], last["dividend"]
        rr.merged_into_id = railroads[data["merged_into"]].id if data["merged_into"] else None
        rr.president_id = players[data["president"]].id if data["president"] else None
        rr.chairman_id = players[data["chairman"]].id if data["chairman"] else None
        for line in data["lines"]:
            route = routes[line["code"]]
            session.add(Line(railroad_id=rr.id, route_id=route.id, built_turn=line["built_turn"],
                             double_tracked=line["double_tracked"]))
            route.owner_id = rr.id
        if data["row"]:
            route = routes[data["row"]["code"]]
            route.owner_id, route.land_grant = rr.id, data["row"]["land_grant"]
    for data in state["players"]:
        p = players[data["number"]]
        for key in ("character", "human", "personality", "cash", "loan", "recall", "net_worth", "credit_limit",
                    "bankruptcies", "missed_turns", "million_bonus"):
            setattr(p, key, data[key])
        vp = data["vp"]
        p.vp_robber, p.vp_mogul, p.mogul_fraction = vp["robber_baron"], vp["rail_mogul"], vp["mogul_fraction"]
        p.vp_builder, p.vp_magnate = vp["rail_builder"], vp["rail_magnate"]
        p.vp_prodigal, p.vp_baron = vp["rail_prodigal"], vp["rail_baron"]
        p.bonuses_claimed = list(data["bonuses_claimed"])
        slots = data["slots"]
        p.slot1_id = railroads[slots[0]].id if slots[0] else None
        p.slot2_id = railroads[slots[1]].id if slots[1] else None
        for h in data["holdings"]:
            session.add(Holding(player_id=p.id, railroad_id=railroads[h["railroad"]].id, shares=h["shares"],
                                short=h["short"], director=h["director"]))
    by_code = {pc_data["code"]: pc_data for pc_data in state["private_companies"]}
    route_code = {r.id: r.code for r in routes.values()}
    for pc in session.scalars(select(PrivateCompany).where(PrivateCompany.game_id == game.id)):
        data = by_code[route_code[pc.route_id]]
        pc.status, pc.paid = data["status"], data["paid"]
        pc.owner_id = players[data["owner"]].id if data["owner"] else None
        pc.for_sale = bool(data["for_sale"]) and data["status"] == "owned"
        pc.asking_price, pc.offered_turn = data["asking_price"], data["offered_turn"]
        pc.appeared_turn, pc.eligible_turns = data["appeared_turn"], data["eligible_turns"]
        pc.railroad_id = railroads[data["railroad"]].id if data["railroad"] else None
    session.flush()
    session.expire_all()

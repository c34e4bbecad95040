"""18xx.games exports in and out of the database.

* :func:`import_export`: an 18xx.games export (JSON) becomes a pbm game that
  goes on by email: its actions (after undo/redo, with the site's automatic
  actions) are replayed by our engine and stored as the game's log; the
  players get secrets (and e-mail addresses from a CSV matched by name).
* :func:`export_game`: our game in the 18xx.games export format.  Actions name
  exactly what happened (the certificate bought, the tile copy laid, the routes
  run by ``run auto``), so ``pbm 18xx replay`` reads it back to the same state.
  The export also carries a ``pbm`` block with our exact optional rules: a game
  played here under the rulebook (not the site's behaviour flags) replays under
  the same rules (:func:`replay_export`).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy.orm import Session

from pbm.seats import SeatRequest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.games import PbemError, Replayed, create_game, players, step
from pbm.e18xx.pbem.site_passes import SitePasses
from pbm.e18xx.pbem.site_shares import SiteShares
from pbm.e18xx.replay import SITE_PREFIX, Replayer, effective_actions, export_players, export_title



class ExactReplayer(Replayer):
    """Replays an export made by pbm under exactly the rules it names in its ``pbm`` block."""

    def __init__(self, export: dict[str, Any], check_cash: bool = True):
        super().__init__(export, check_cash)
        rules = [str(r) for r in (export.get("pbm") or {}).get("optional_rules", [])]
        settings = export.get("settings") or {}
        seats = export_players(export)
        self.game = Game(export_title(export), [name for _, name in seats],
                         int(settings.get("seed") or 0), rules, [pid for pid, _ in seats])
        self.total = self.game.total_cash()


def replay_export(export: dict[str, Any]) -> Game:
    """Replay an export: with its exact rules if pbm wrote it, else as an 18xx.games game."""
    if isinstance(export.get("pbm"), dict):
        return ExactReplayer(export).run()
    return Replayer(export).run()


def fingerprint(game: Game) -> str:
    """A digest of the state that matters (money, certificates, map, trains, round, result)."""
    s = game.state
    data = {
        "cash": sorted(s.cash.items()),
        "shares": sorted(s.share_owner.items()),
        "map": sorted((h, p.tile_id, p.rotation) for h, p in s.map.placed.items() if p.tile_id),
        "tokens": sorted((f"{k[0]}-{k[1]}", list(map(str, v))) for k, v in s.map.tokens.items()),
        "trains": sorted((t, tr.owner) for t, tr in s.trains.items()),
        "companies": sorted((c.sym, c.owner or "", c.closed) for c in s.companies.values()),
        "prices": sorted((c.sym, list(c.price) if c.price else None) for c in s.corporations.values()),
        "round": [s.round.kind, s.turn, s.round.num, s.phase, game.current_entity()],
        "finished": [s.finished, s.end_reason],
        "result": sorted(game.result().items()),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


# ----------------------------------------------------------------- import
def import_export(session: Session, export: dict[str, Any], *, name: str | None,
                  seats: list[SeatRequest] | None = None) -> tuple[Any, dict[int, str], Game]:
    """Store an 18xx.games export as a pbm game; returns (game row, secrets, engine game)."""
    from pbm.models import Action18

    if not isinstance(export, dict) or "actions" not in export or "players" not in export:
        raise PbemError("not an 18xx.games export: it needs 'players' and 'actions'")
    try:
        title = export_title(export)
        replayer = Replayer(export)
        game = replayer.run()
    except GameError as exc:
        raise PbemError(f"the export does not replay: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError) as exc:
        raise PbemError(f"not a valid 18xx.games export ({type(exc).__name__}: {exc})") from None
    names = list(game.setup.players)
    by_name = {s.name.lower(): s for s in (seats or [])}
    unknown = [s.name for s in (seats or []) if s.name not in names and s.name.lower() not in {n.lower() for n in names}]
    if unknown:
        raise PbemError(f"the e-mail file names {', '.join(repr(u) for u in unknown)}, not players of this game "
                        f"(players: {', '.join(names)})")
    rows = [by_name.get(n.lower()) or SeatRequest(line=0, name=n, email="") for n in names]
    rows = [SeatRequest(line=r.line, name=n, email=r.email, phone=r.phone) for r, n in zip(rows, names)]
    settings = export.get("settings") or {}
    row, secrets = create_game(session, title=title, seed=int(settings.get("seed") or 0),
                               name=name or f"{title.lower()}-import-{export.get('id', 0)}", seats=rows,
                               optional_rules=game.optional_rules, player_ids=list(game.setup.player_ids))
    ended = game.state.end_reason if game.finished and any(
        a.get("type") == "end_game" for a in effective_actions(export["actions"])) else None
    row.options = {**row.options, "imported_from": export.get("id"), **({"ended": ended} if ended else {})}
    # store the log with the seat of the player who controlled each acting entity
    fresh = Game(title, names, game.setup.seed, game.optional_rules, game.setup.player_ids)
    number = {n: i for i, n in enumerate(names, 1)}
    for seq, act in enumerate(game.actions, 1):
        who = fresh.controller(act.entity)
        fresh.process(act)
        session.add(Action18(game_id=row.id, seq=seq, player_number=number.get(who), action=act.to_dict()))
    row.turn = game.state.turn
    if game.finished:
        row.status = "finished"
    session.flush()
    return row, secrets, game


# ----------------------------------------------------------------- export
def _entity(game: Game, ent: str, ids: dict[str, str]) -> tuple[Any, str]:
    if ent in ids:
        pid = ids[ent]
        return (int(pid) if pid.isdigit() else pid), "player"
    if ent in game.state.corporations:
        return ent, "corporation"
    return ent, "company"


def _site_index(game: Game, coord: str, idx: int) -> int:
    """18xx.games' number of our node ``idx`` on the tile in ``coord`` (its ``site_nodes`` reversed)."""
    alias = {ours: site for site, ours in game.state.map.tile(coord).site_nodes}
    return alias.get(idx, idx)


def _site_tile_id(game: Game, coord: str) -> str:
    """The id 18xx.games gives the tile in ``coord``: the laid copy (``57-1``), or the printed
    tile, which it names after its hex and its place among the hexes printed alike (``L1-0``, ``E8-5``)."""
    pl = game.state.map.placed[coord]
    return pl.tile_id or f"{coord}-{_printed_index(game, coord)}"


def _printed_index(game: Game, coord: str) -> int:
    """18xx.games numbers a printed tile by its hex's place in the list of hexes printed alike
    (the title's ``hexes``: colour -> code -> hexes): ``E8-5`` is the sixth plain city of 18VA.
    Where the site prints a hex differently from its neighbours in our list (a label, a future
    label), title data ``site_printed_index`` gives its number (18VA's Petersburg is ``F13-0``)."""
    fixed = (game.title.data.get("site_printed_index") or {}).get(coord)
    if fixed is not None:
        return int(fixed)
    for groups in (game.title.data.get("hexes") or {}).values():
        for coords in (groups.values() if isinstance(groups, dict) else []):
            if isinstance(coords, list) and coord in coords:
                return coords.index(coord)
    return 0


def _token_placed(game: Game, before: dict[tuple[str, int], list[Any]],
                  extra: dict[tuple[str, int], list[str]] | None = None) -> dict[str, Any] | None:
    """The station a place_token put down: 18xx.games' city id (``tile-city``) and slot; a station
    beside the city's circles (18VA's Potomac Yards) is written with slot 0 and its company as
    the ``tokener``, as the site records it."""
    for key, corps in game.state.map.extra_tokens.items():
        new = [c for c in corps if c not in (extra or {}).get(key, [])]
        if new:
            coord, idx = key
            return {"city": f"{_site_tile_id(game, coord)}-{_site_index(game, coord, idx)}", "slot": 0,
                    "tokener": new[0]}
    # a circle that was empty first: the same action may hand other stations on (1848: the company
    # goes into receivership and its stations become the Bank of England's)
    for fresh in (True, False):
        for key, slots in game.state.map.tokens.items():
            old = before.get(key, [None] * len(slots))
            for i, who in enumerate(slots):
                was = old[i] if i < len(old) else None
                if who is not None and was != who and (was is None or not fresh):
                    coord, idx = key
                    return {"city": f"{_site_tile_id(game, coord)}-{_site_index(game, coord, idx)}", "slot": i}
    return None


def _route_export(game: Game, train: str, route: Any) -> dict[str, Any]:
    """A route as 18xx.games records it: the hexes of the track between each two stops
    (``connections``, which it rebuilds the route from), the stops and the revenue."""
    graph = game.graph()
    chains: list[list[str]] = []
    for a, b in zip(route.nodes, route.nodes[1:]):
        seg = next((x for x in graph.segments(a) if x.b == b and not x.mask & ~route.mask), None)
        chains.append(list(seg.hexes) if seg is not None else [a[0], b[0]])
    nodes = [f"{h}-{_site_index(game, h, i)}" for h, i in route.nodes]
    out = {"train": train, "connections": chains, "hexes": [h for h, _ in route.nodes], "nodes": nodes,
           "revenue": route.revenue}
    subsidy = _route_subsidy(game, train, route)
    if subsidy is not None:
        out["subsidy"] = subsidy
    return out


def _route_subsidy(game: Game, train: str, route: Any) -> int | None:
    """What the route pays the treasury besides its revenue (18VA 4.5.4.3: a freight train to a
    coal district where its company has a station), written as 18xx.games writes it (``subsidy``,
    0 when none), which it pays as written: where the site cannot rebuild a route from its
    ``connections`` (a stretch through a junction tile twice, which the book allows) it still
    pays the bonus; None for titles without such payments."""
    if not game.title.data.get("stop_groups"):
        return None
    from pbm.e18xx.freight import evaluate

    t = game.state.trains[train]
    got = evaluate(game, t.owner[2:], route, t.variant or t.name, t.kind, game.stop_groups())
    return got.subsidy if got is not None else 0


def _export_action(game: Game, act: A.Action, info: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    entity, kind = _entity(game, act.entity, ids)
    d: dict[str, Any] = {"type": act.type, "entity": entity, "entity_type": kind}
    if isinstance(act, A.Bid):
        d.update(company=act.company, price=act.price)
    elif isinstance(act, A.Par):
        c = game.state.corporations[act.corporation] if act.corporation in game.state.corporations else None
        pos = c.par if c is not None and c.par else None
        d.update(corporation=act.corporation, share_price=f"{act.price},{pos[0]},{pos[1]}" if pos else str(act.price))
    elif isinstance(act, A.BuyShares):
        shares = info.get("shares") or list(act.shares)
        d.update(shares=shares, percent=sum(game.sid_percent(s) for s in shares))
    elif isinstance(act, A.SellShares):
        if "sold" in info:
            d.update(info["sold"])
        else:
            shares = info.get("shares") or list(act.shares)
            d.update(shares=shares, percent=sum(game.sid_percent(s) for s in shares))
    elif isinstance(act, A.LayTile):
        d.update(hex=act.hex, tile=info.get("tile", act.tile), rotation=act.rotation)
    elif isinstance(act, A.PlaceToken):
        d.update(info.get("station") or {"city": act.city, "slot": act.slot})
        if info.get("by_company"):
            d.update(entity=info["by_company"], entity_type="company")
    elif isinstance(act, A.RunRoutes):
        d.update(routes=info.get("site_routes") or info.get("routes") or [
            {"train": r.train, "nodes": list(r.nodes), "revenue": r.revenue} for r in act.routes])
        if game.title.data.get("stop_groups"):  # the run's total, as the site writes it besides each route's
            d["subsidy"] = sum(int(r.get("subsidy") or 0) for r in d["routes"])
    elif isinstance(act, A.Dividend):
        d.update(kind=act.kind)
    elif isinstance(act, A.BuyTrain):
        d.update(train=info.get("train", act.train))
        if act.price is not None:
            d["price"] = act.price
        if act.variant:
            d["variant"] = act.variant
        if act.exchange:
            d["exchange"] = act.exchange
    elif isinstance(act, A.Assign):
        if act.target in game.state.companies:  # a player lowering a private's price (falling-price sale)
            d.update(target=act.target, target_type="company")
        else:
            d.update(target=act.target, target_type="hex")
    elif isinstance(act, A.DiscardTrain):
        d.update(train=act.train)
    elif isinstance(act, A.BuyCompany):
        d.update(company=act.company, price=act.price)
    elif isinstance(act, A.UseAbility) and act.ability == "train_limit_bonus":
        d.update(type="choose_ability", choice="close")  # 18xx.games: the private closes for the +1
    elif isinstance(act, A.UseAbility):
        d.update(ability=act.ability)
    elif isinstance(act, A.TakeLoan) and "loan" in info:
        d.update(loan=info["loan"])
    return d


def _selling(game: Game, act: A.Action) -> str | None:
    """The corporation a player's sale is of (None for other actions)."""
    if not isinstance(act, A.SellShares) or f"P:{act.entity}" not in game.state.cash:
        return None
    corp = act.corporation or (act.shares[0].rsplit("_", 1)[0] if act.shares else "")
    return corp if corp in game.state.corporations else None


def _lender_turns(game: Game, log_from: int) -> list[dict[str, Any]]:
    """The lending corporation's turns begun since the game's log line ``log_from``: 1848 7.2, "The
    Bank of England operates next (paying out the dividend appropriate to the current phase)".
    18xx.games makes each an action of the lender, a ``dividend`` (payout) that it records as an
    automatic action carried by the action that began the operating round; pbm's engine pays it by
    itself (``LoansMixin.lender_dividend``) and its replay skips it (docs/18xx/rulings-1848.md, 7.2)."""
    lender = game.lender()
    if not lender:
        return []
    begun = sum(1 for line in game.state.log[log_from:] if line.startswith("-- operating round "))
    return [{"type": "dividend", "entity": lender, "entity_type": "corporation", "kind": "payout"}
            for _ in range(begun)]


def _joint_home_links(game: Game, linked: set[str]) -> list[dict[str, Any]]:
    """The link between a company's two homes made by the last action (1848 5.3: the
    Commonwealth Railways may operate once Sydney and Adelaide are joined by track).
    18xx.games checks it after every action of an operating round and records the link it
    finds as an automatic ``destination_connection`` of the operating company, carried by the
    action that made it; loading an export without it, the site waits at that check
    ("COM Sydney Adelaide Check") and refuses the next action.  ``linked`` holds the companies
    whose link was written already."""
    if game.state.round.kind != "operating":
        return []
    out: list[dict[str, Any]] = []
    for sym in game.state.corporations:
        homes = game.joint_homes(sym)
        if len(homes) < 2 or sym in linked or not game.homes_linked(homes[0], homes[1]):
            continue
        linked.add(sym)
        out.append({"type": "destination_connection", "entity": game._or_operator(),  # noqa: SLF001
                    "entity_type": "corporation"})
    return out


def export_actions(game: Game, actions: list[A.Action], ids: dict[str, str]) -> list[dict[str, Any]]:
    """Play ``actions`` on ``game`` (new, no actions yet) and write each as 18xx.games records it."""
    rep = Replayed(game, game.total_cash())
    site = SiteShares(game)
    passes = SitePasses(game)
    out: list[dict[str, Any]] = []
    linked: set[str] = set()

    def auto_pass(who: str) -> None:
        who, _, what = who.partition("\t")
        entity, kind = _entity(game, who, ids)
        d: dict[str, Any] = {"type": what or "pass", "entity": entity, "entity_type": kind}
        if what == "run_routes":
            d["routes"] = []
        out.append({**d, "pbm_auto": True, "id": len(out) + 1})

    def write(act: A.Action) -> None:
        log_from = len(game.state.log)
        for who in passes.pre(act):
            auto_pass(who)
        tokens = ({k: list(v) for k, v in game.state.map.tokens.items()}
                  if isinstance(act, A.PlaceToken) else None)
        token_uses = ({c.sym: c.uses.get("token", 0) for c in game.state.companies.values()}
                      if isinstance(act, A.PlaceToken) else {})
        extra = {k: list(v) for k, v in game.state.map.extra_tokens.items()} if tokens is not None else None
        selling = _selling(game, act)
        before = game.percent_of(f"P:{act.entity}", selling) if selling else 0
        president = game.president(selling) if selling else None
        owners = dict(game.state.share_owner) if isinstance(act, A.BuyShares) else {}
        lender = game.lender() if isinstance(act, A.TakeLoan) else None
        loan = game.state.corporations[lender].loans if lender in game.state.corporations else None
        step(rep, act, rollback=False)
        info = rep.concrete[-1]
        if loan is not None:
            info["loan"] = loan  # 18xx.games numbers the loans in the order they are taken
        if selling:
            info["sold"] = site.sold(f"P:{act.entity}", selling, before - game.percent_of(f"P:{act.entity}", selling),
                                     game.president(selling), president)
        if isinstance(act, A.BuyShares) and info.get("shares"):
            info["shares"] = site.bought(f"P:{act.entity}", info["shares"], owners)
        site.reconcile()
        passed = passes.post(act)
        if tokens is not None:
            info["station"] = _token_placed(game, tokens, extra)
            # a station placed with a private's ability (18GA's Waycross & Southern) is the private's
            # action on the site
            used = [sym for sym, n in token_uses.items() if game.state.companies[sym].uses.get("token", 0) > n]
            if used and act.entity not in game.state.companies:
                info["by_company"] = used[0]
        if isinstance(act, A.RunRoutes):
            info["site_routes"] = [_route_export(game, t, r) for t, r in rep.last_routes.get(act.entity, [])]
        d = _export_action(game, act, info, ids)
        if isinstance(act, (A.BuyShares, A.SellShares)) and (selling or isinstance(act, A.BuyShares)):
            d["pbm"] = act.to_dict()  # our certificate numbers (the site's may differ): exact replay here
        d["id"] = len(out) + 1
        out.append(d)
        for who in passed:
            auto_pass(who)
        lender = _lender_turns(game, log_from)
        if lender:
            out[-1].setdefault("auto_actions", []).extend(lender)
        links = _joint_home_links(game, linked)
        if links:
            out[-1 - len(passed)].setdefault("auto_actions", []).extend(links)

    for act in actions:
        if isinstance(act, A.Bankrupt):
            for sale in _bankrupt_sales(game, act):
                write(sale)
        write(act)
    return out


def _bankrupt_sales(game: Game, act: A.Bankrupt):
    """The sales a president makes as he goes bankrupt, as actions of his own, each yielded once the
    one before is processed.  18VA 4.6.3: "If, after selling all the stock he is legally permitted
    to sell, the President cannot raise sufficient cash ..., he is bankrupt": pbm's ``bankrupt``
    sells first (the price falls with each sale), then gives his remaining holdings to the open
    market at an unchanged price (:meth:`_eliminate`); 18xx.games' ``bankrupt`` does only the
    latter, so the export writes the sales before it (issue 28, the sixth run: random 5p 50075,
    WMR at 40 on pbm, 50 on the site).  The lots are the engine's own (``bankrupt_sales``); only
    where bankruptcy eliminates the player (``game_end.bankrupt: all_but_one``: 18VA), the other
    titles' bankruptcy ends the game."""
    g = game
    if (g.title.data.get("game_end") or {}).get("bankrupt") != "all_but_one":
        return
    corp = act.entity
    if corp not in g.state.corporations or not g._must_go_bankrupt(corp):  # noqa: SLF001
        return
    pres = g.president(corp)
    if not pres:
        return
    for sym, count in g.bankrupt_sales(pres, corp):
        yield A.SellShares(pres, corporation=sym, count=count)


def export_log(log: dict[str, Any], *, game_id: int = 1, name: str = "", ended: str | None = None) -> dict[str, Any]:
    """A game's log (``Game.to_log()``: title, players, seed, rules, actions) in the 18xx.games
    export format, as :func:`export_game` writes a game in the database."""
    names = [str(n) for n in log["players"]]
    pids = [str(p) for p in (log.get("player_ids") or names)]
    rules = [str(r) for r in log.get("optional_rules", [])]
    g = Game(log["title"], names, int(log.get("seed", 0)), rules, pids)
    acts = [a if isinstance(a, A.Action) else A.action_from_dict(a) for a in log.get("actions", [])]
    return _export_dict(g, acts, dict(zip(names, pids)), names, rules, game_id=game_id, name=name,
                        seed=int(log.get("seed", 0)), ended=ended)


def _export_dict(g: Game, acts: list[A.Action], ids: dict[str, str], names: list[str], rules: list[str], *,
                 game_id: int, name: str, seed: int, ended: str | None) -> dict[str, Any]:
    out_actions = export_actions(g, acts, ids)
    if ended and not g.finished:
        g.end_game(str(ended))
        out_actions.append({"type": "end_game", "entity": out_actions[-1]["entity"] if out_actions else 0,
                            "entity_type": "player", "id": len(out_actions) + 1})

    def pid(n: str) -> Any:
        v = ids[n]
        return int(v) if v.isdigit() else v

    return {
        "id": game_id,
        "description": name,
        "title": g.title.name,
        "players": [{"id": pid(n), "name": n} for n in names],
        "settings": {"seed": seed, "optional_rules": [r for r in rules if not r.startswith(SITE_PREFIX)]},
        "status": "finished" if g.finished else "active",
        "turn": g.state.turn,
        "round": {"auction": "Auction Round", "stock": "Stock Round", "operating": "Operating Round"}[g.state.round.kind],
        "acting": [pid(n) for n in g.acting_players() if n in ids],
        "result": {str(pid(n)): v for n, v in g.result().items()},
        "game_end_reason": g.state.end_reason or None,
        "actions": out_actions,
        "pbm": {"name": name, "optional_rules": rules, "fingerprint": fingerprint(g)},
    }


def export_game(session: Session, game_row) -> dict[str, Any]:
    """The game in the 18xx.games export format (plus a ``pbm`` block; see the module docstring)."""
    from pbm.e18xx.pbem.games import action_rows, new_engine

    rows = action_rows(session, game_row)
    seat_rows = players(session, game_row)
    opts = game_row.options or {}
    names = [p.name for p in seat_rows]
    ids = {p.name: str(pid) for p, pid in zip(seat_rows, opts.get("player_ids") or names)}
    g = new_engine(session, game_row)
    acts = [A.action_from_dict(row.action) for row in rows]
    return _export_dict(g, acts, ids, names, list(opts.get("optional_rules", [])), game_id=game_row.id,
                        name=game_row.name, seed=int(game_row.seed),
                        ended=str(opts["ended"]) if opts.get("ended") else None)

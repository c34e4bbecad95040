"""Enumerate the legal actions of the acting entity: those of the step open now
(``Game.open_step()``, rounds/step.py), by the action types it offers.

The list is complete for discrete choices (which tile, where, which
rotation; which share; which token) and representative for amounts (bids
at the minimum, trains from other companies at face value or all the cash,
privates at the lowest and highest price).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.rounds.or_trains import discount_off
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.tiles import UPGRADE_NEXT
from pbm.e18xx.rounds.step import Interrupt

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


def legal_actions(g: "Engine") -> list[A.Action]:
    """The actions of the step open now (``g.open_step()``): a step that lists its own moves
    (``legal``, a title's step say) gives them; otherwise they are enumerated here by the
    action types the step offers."""
    s = g.state
    if s.finished:
        return []
    ent = g.current_entity()
    if ent is None:
        return []
    step, _who = g.open_step()
    if step is None:
        return []
    own = step.legal(g, ent)
    if own is not None:
        return own
    kind = s.round.kind
    if kind == "auction":
        return _auction(g, ent, step.offer(g, ent))
    if kind == "stock":
        return _stock(g, ent, step.offer(g, ent))
    interrupted = isinstance(step, Interrupt)
    if interrupted and "lay_tile" in step.takes:  # a private's tile that must be laid
        return list(tile_lays(g, g._or_operator(), special=ent))
    out = _operating(g, ent)
    # a president may also act for emergency money
    if not interrupted:
        corp = g._or_operator()
        pres = g.president(corp)
        if pres and pres != ent:
            if "sell_shares" in g.or_actions(pres):
                cheapest = min(s.trains[t].price for t in g._depot_trains())
                need = cheapest - s.cash[f"C:{corp}"] - s.cash[f"P:{pres}"]
                for c in s.corporations:
                    for u in g._emergency_units(pres, corp, c):
                        if (u - 1) * g.share_price(c) < need:
                            out.append(A.SellShares(pres, corporation=c, count=u))
    return out


def _auction(g: "Engine", ent: str, allowed: list[str]) -> list[A.Action]:
    r = g.state.round
    if "par" in allowed:  # the starting value of a private's company
        corp = r.pending_par[1]  # type: ignore[index]
        return [A.Par(ent, corp, g.title.market[rr][cc].price)  # type: ignore[union-attr]
                for rr, cc in g.title.par_cells()]
    if "assign" in allowed:  # a falling-price sale: buy at the price, or lower one price
        out: list[A.Action] = [A.Pass(ent)] if "pass" in allowed else []
        for c in g._auction_companies():
            if g.state.companies[c].min_bid <= g.state.cash[f"P:{ent}"]:
                out.append(A.Bid(ent, c, g.state.companies[c].min_bid))
            if g.dutch_may_reduce(c):
                out.append(A.Assign(ent, c))
        return out
    out = [A.Pass(ent)] if "pass" in allowed else []
    auctioning = g.active_auction()
    comps = [auctioning] if auctioning else g._auction_companies()
    for c in comps:
        low = g.min_bid(c)
        if low <= g.max_bid(ent, c):
            out.append(A.Bid(ent, c, low))
    return out


def _stock(g: "Engine", ent: str, allowed: list[str]) -> list[A.Action]:
    s = g.state
    out: list[A.Action] = []
    if "pass" in allowed:
        out.append(A.Pass(ent))
    if "buy_shares" in allowed:
        for corp in s.corporations:
            for src in ("ipo", "pool"):
                sid = g._buyable_share(corp, src)
                if sid and g._can_buy(ent, sid) is None:
                    out.append(A.BuyShares(ent, (sid,)))
    if "par" in allowed:
        cash = s.cash[f"P:{ent}"]
        for c in s.corporations.values():
            if c.ipoed or c.closed or g._started_by_private(c.sym):
                continue
            for r, col in g.title.par_cells():
                price = g.title.market[r][col].price  # type: ignore[union-attr]
                if 2 * price <= cash:
                    out.append(A.Par(ent, c.sym, price))
    if "sell_shares" in allowed:
        for corp in s.corporations:
            for units in g._sellable_bundles(ent, corp):
                out.append(A.SellShares(ent, corporation=corp, count=units))
    if "buy_company" in allowed:
        cash = s.cash[f"P:{ent}"]
        for c in g._player_companies_for_sale(ent):
            price = g.state.companies[c].value
            if price <= cash:
                out.append(A.BuyCompany(ent, c, price))
    return out


def tile_lays(g: "Engine", corp: str, special: str | None = None) -> list[A.LayTile]:
    """Every legal (hex, tile, rotation) for ``corp`` now (or for private ``special``)."""
    s = g.state
    out: list[A.LayTile] = []
    if special:
        ab = g.company_ability(special, "tile_lay") or {}
        hexes = {h: set(range(6)) for h in ab.get("hexes", [])}
        names = ab.get("tiles", [])
        kind = g.special_kind(special)
        if not isinstance(kind, bool) and isinstance(kind, int):  # the company's own lay, cheaper
            reach, _nodes = g._reach(corp)
            hexes = {h: e for h, e in reach.items() if h in hexes}
    else:
        hexes, _nodes = g._reach(corp)
        names = list(g.title.tiles)
    for coord in sorted(hexes):
        if coord not in s.map.placed:
            continue
        placed = s.map.placed[coord]
        want = UPGRADE_NEXT.get(placed.tile.color)
        if special and g.special_kind(special) == "blue":
            want = "blue" if placed.tile_id is None else None
        elif want is None or g.title.hexes[coord].color in ("red", "gray", "blue"):
            continue
        if want is None:
            continue
        seen: set[tuple] = set()
        for name in names:
            td = g.title.tiles[name]
            if td.color != want or not s.tile_supply.get(name):
                continue
            if len(td.nodes) != len(placed.tile.nodes) and want != "blue" and not (
                    name in g.title.data.get("tiles_on_plain_hexes", ()) and placed.tile_id is None
                    and not placed.tile.nodes):  # a tile bringing its own stop to an empty hex (18AL 445)
                continue
            for rot in range(6):
                sig = (name, td.rotated_paths(rot).__hash__())
                if sig in seen:
                    continue
                try:
                    g.check_lay(corp, coord, name, rot, special=g.special_kind(special) if special else False,
                                reach=None if special else hexes)
                except GameError:
                    continue
                seen.add(sig)
                out.append(A.LayTile(special or corp, coord, name, rot))
    return out


def _operating(g: "Engine", ent: str) -> list[A.Action]:
    s = g.state
    out: list[A.Action] = []
    allowed = g.or_actions(ent)
    if "discard_train" in allowed:
        return [A.DiscardTrain(ent, t) for t in s.corporations[ent].trains]
    corp = ent
    if "pass" in allowed:
        out.append(A.Pass(ent))
    if "lay_tile" in allowed:
        out += tile_lays(g, corp)
    for comp in s.companies.values():
        if comp.sym in s.companies and "lay_tile" in g.or_actions(comp.sym) and corp in s.corporations:
            out += tile_lays(g, corp, special=comp.sym)
    if "take_loan" in allowed:
        out.append(A.TakeLoan(ent))
    if "place_token" in allowed:
        if s.pending_tokens:
            owner = s.pending_tokens[0]
            for key, slots in s.map.tokens.items():
                if s.map.placed[key[0]].tile_id and s.map.free_slots(key, owner) and \
                        key[0] == g.state.corporations[owner].home:
                    out.append(A.PlaceToken(ent, f"{s.map.placed[key[0]].tile_id}-{key[1]}"))
        else:
            for h, i in g.tokenable_cities(corp):
                tid = s.map.placed[h].tile_id
                out.append(A.PlaceToken(ent, f"{tid}-{i}" if tid else h))
            if g._special_token_ok(corp):
                for comp in s.companies.values():
                    ab = g.company_ability(comp.sym, "token")
                    if ab and comp.owner == f"C:{corp}":
                        for h in ab["hexes"]:
                            out.append(A.PlaceToken(ent, h))
    if "convert" in allowed:
        out.append(A.Convert(ent))
    for comp in s.companies.values():
        if comp.owner == f"C:{corp}" or (comp.owner and g.company_actions(comp.sym)):
            out += _company_actions(g, corp, comp.sym)
    if "run_routes" in allowed:
        out.append(A.RunRoutes(ent, auto=True))
    if "dividend" in allowed:
        out += [A.Dividend(ent, "payout"), A.Dividend(ent, "withhold")]
    if "buy_train" in allowed:
        cash = s.cash[f"C:{corp}"]
        pres = g.president(corp)
        depot = [t for t in g._depot_trains() if not g._depot_limited(corp, t) and g._room(corp, t)]
        forced = g._must_buy_train(corp) and (g.title.data.get("loans") or {}).get("forced_train_loans")
        for t in depot:
            for v in _variants(g, t):
                price = g.variant_price(s.trains[t], v)
                if price <= cash or (forced and not g.can_take_loan(corp)
                                     and not g.outside_limit(s.trains[t].name)):
                    out.append(A.BuyTrain(ent, t, price, v))
        if g._needs_emergency(corp) and pres and not forced:
            budget = cash + s.cash[f"P:{pres}"]
            cheapest = min(s.trains[t].price for t in g._depot_trains())
            for t in depot:
                if s.trains[t].price == cheapest and cheapest <= budget:
                    out += [A.BuyTrain(ent, t, cheapest, v) for v in _variants(g, t)]
            broke_only = g.title.data.get("ebuy_from_others") == "company_without_cash"  # 18VA 4.6.1
            if g._ebuy_from_others() and not (broke_only and cash > 0):
                for t in g._other_trains(corp):
                    price = min(s.trains[t].price, budget)
                    if price > cash and price >= g.emergency_least(corp, t):
                        out.append(A.BuyTrain(ent, t, price))
        face = g.title.data.get("trades_at_face_value")
        # after the president's sale for a forced purchase no train from another company (18AL 4.2.5.2(a), (d))
        contributed = s.round.emergency_sold and not g._ebuy_from_others()
        for t in ([] if contributed else g._other_trains(corp)):
            if cash >= 1 and g._room(corp, t) and min(s.trains[t].price, cash) >= g.emergency_least(corp, t):
                if face and g.president(s.trains[t].owner[2:]) != g.president(corp):
                    if s.trains[t].price <= cash:
                        out.append(A.BuyTrain(ent, t, s.trains[t].price))
                    continue
                out.append(A.BuyTrain(ent, t, min(s.trains[t].price, cash)))
    if "buy_company" in allowed:
        cash = s.cash[f"C:{corp}"]
        for c in g._purchasable_companies():
            lo, hi = g.company_price_range(c)
            for price in sorted({lo, hi}):
                if price <= cash:
                    out.append(A.BuyCompany(ent, c, price))
    if "bankrupt" in allowed:
        out.append(A.Bankrupt(ent))
    return out


def _variants(g: "Engine", tid: str) -> list[str | None]:
    """The sides a train may be declared as when bought from the bank or pool (None: no choice)."""
    t = g.state.trains[tid]
    td = next(x for x in g.title.trains if x.name == t.name)
    return [v for v, _ in td.variants] if len(td.variants) > 1 else [None]


def _company_actions(g: "Engine", corp: str, sym: str) -> list[A.Action]:
    """Uses of a corporation-owned private's ability (each closes the private)."""
    s = g.state
    allowed = g.company_actions(sym)
    out: list[A.Action] = []
    if "assign" in allowed:  # a bonus for a hex, or (18AL South & North Alabama) a token in one it reaches
        if g.company_ability(sym, "hex_bonus_token"):
            out += [A.Assign(sym, h) for h in g.hex_bonus_targets(corp, sym)]
        else:
            ab = g.company_ability(sym, "assign_bonus") or {}
            out += [A.Assign(sym, h) for h in ab.get("hexes", [])]
    if "place_token" in allowed:
        ab = g.company_ability(sym, "extra_token") or {}
        for h in ab.get("hexes", []):
            cities = s.map.tile(h).cities()
            if cities and not s.map.hex_has_token(h, corp):
                tid = s.map.placed[h].tile_id
                out.append(A.PlaceToken(sym, f"{tid}-{cities[0]}" if tid else h))
    if "use_ability" in allowed:
        out.append(A.UseAbility(sym, "train_limit_bonus"))
    if "buy_train" in allowed:
        ab = g.company_ability(sym, "train_discount") or {}
        for t in g._depot_trains():
            tr = s.trains[t]
            if tr.owner != "depot" or g._depot_limited(corp, t):
                continue
            if ab.get("trains") and tr.name not in ab["trains"]:
                continue
            if not g._room(corp, t):
                continue
            price = max(0, tr.price - discount_off(ab, tr.price))
            if price <= s.cash[f"C:{corp}"]:
                out += [A.BuyTrain(sym, t, price, v) for v in _variants(g, t)]
    return out

"""Checking a tycoon's orders against the start-of-turn state (§10, §6.1C, Appendix A).

``validate(session, game, player, orders)`` returns the orders as they will be
resolved and every problem found.  Orders the rules say to cut are cut (a
stock bid lowered to the maximum §6.1A, a message shortened §10.1G, PC bids
reduced to the cash available §10.1B4, …) and reported with
``adjusted=True``; orders that cannot be carried out at all are dropped and
reported (``refused``); orders that stand but may not work out as hoped are
reported with ``warning=True``.  The messages are written to be emailed to
the player as they are: which order, what is wrong, what would be allowed.

The cash a tycoon has for each personal action is followed through the
sequence of play (Appendix A steps 1–5): bank loan, loans to and from
railroads, treasury stock bought from railroads, then PC bids.  The stock
market order checking of §6.1C needs the cash left after the PC purchases,
which are only known when the turn is resolved; here it is checked against
the worst case (every PC bid won) and reported as warnings, and the engine
cuts the orders with :func:`pbm.cr.queries.check_stock_cash` at step 6.1.

Rulings are numbered R-O… in ``docs/rulings/orders.md``.
"""

from __future__ import annotations

import math
import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.cr import queries as q
from pbm.cr.orders import MAX_MESSAGE, Orders, PCAction, PCBid, Problem, RailroadOrders, RateWar, StockOrder, copy_orders
from pbm.models import Event, Game, Player, Railroad

PRODIGAL_MIN = 1000  # §1.2 Rail Prodigal: at least $1000
MAX_CHARACTER = 40


def money(amount: float) -> str:
    return f"${amount:,.0f}"


def validate(session: Session, game: Game, player: Player, orders: Orders, *, view: q.View | None = None,
             recently_bankrupt: set[int] | None = None) -> tuple[Orders, list[Problem]]:
    """Check ``orders`` of ``player`` against the start-of-turn state of ``game``.

    Returns (orders as they will be resolved, problems).  Nothing is written.
    ``view`` (a :func:`pbm.cr.queries.load` of this game at this turn) and
    ``recently_bankrupt`` (:func:`recently_bankrupt`) may be given by a caller that
    checks every seat of a turn, so the game is read once for all of them."""
    own = view is None
    if own:  # read only here: plain copies of the rows do (pbm.cr.queries.load_plain)
        view = q.load_plain(session, game)
    if recently_bankrupt is None:  # only this player's events are read: whether they are in the set
        recently_bankrupt = _recently_bankrupt(session, game, player.number)
    try:
        return Checker(view, view.players[player.id], orders,
                       recently_bankrupt=player.number in recently_bankrupt).run()
    finally:
        if own:  # nothing else holds it: let its rows go as soon as it does
            q.release_plain(view)


def check(view: q.View, player: Player, orders: Orders, *, recently_bankrupt: bool = False) -> tuple[Orders, list[Problem]]:
    """Like :func:`validate` on an already loaded :class:`~pbm.cr.queries.View`."""
    return Checker(view, player, orders, recently_bankrupt=recently_bankrupt).run()


def recently_bankrupt(session: Session, game: Game) -> set[int]:
    """Players who went bankrupt last turn (they may pick a new character name, §3.2)."""
    return _recently_bankrupt(session, game)


def _recently_bankrupt(session: Session, game: Game, number: int | None = None) -> set[int]:
    """Players who went bankrupt last turn (they may pick a new character name, §3.2); with
    ``number``, only that player is looked for (the set is empty or holds ``number``)."""
    query = select(Event.player_number, Event.kind).where(Event.game_id == game.id, Event.turn == game.turn - 1)
    if number is not None:
        query = query.where(Event.player_number == number)
    rows = session.execute(query)
    return {n for n, kind in rows if n is not None and "bankrupt" in kind.lower() and "railroad" not in kind.lower()}


class Checker:
    """One check of one order set; collects problems while following the tycoon's cash."""

    def __init__(self, view: q.View, player: Player, orders: Orders, *, recently_bankrupt: bool = False) -> None:
        self.view = view
        self.player = player
        self.given = orders
        self.out = copy_orders(orders)
        self.problems: list[Problem] = []
        self.recently_bankrupt = recently_bankrupt
        self.cash = player.cash  # the tycoon's cash as the personal actions proceed (Appendix A 1–5)
        self.rr_cash: dict[int, int] = {}
        self.incorporating: set[str] = set()
        self.presided = {r.id: r for r in view.presided_by(player)}
        self.building: set[int] = set()

    # -- helpers ---------------------------------------------------------------

    def refuse(self, where: str, message: str, allowed: str = "") -> None:
        self.problems.append(Problem(where, message, allowed))

    def adjust(self, where: str, message: str, allowed: str = "") -> None:
        self.problems.append(Problem(where, message, allowed, adjusted=True))

    def warn(self, where: str, message: str, allowed: str = "") -> None:
        self.problems.append(Problem(where, message, allowed, warning=True))

    # -- the whole check -------------------------------------------------------

    def run(self) -> tuple[Orders, list[Problem]]:
        self.check_loan()  # step 1
        self.check_railroad_orders()  # steps 2–4 and the railroads' own actions
        self.check_pc_actions()  # step 5, 9.1
        self.check_pc_bids()  # step 5
        self.check_stock()  # step 6
        self.check_control()
        self.check_merge()
        self.check_spy()
        self.check_message()
        self.check_prodigal()
        self.check_character()
        return self.out, self.problems

    # -- §10.1A: bank loan -----------------------------------------------------

    def check_loan(self) -> None:
        o, p = self.out, self.player
        if o.borrow < 0 or o.repay < 0:
            self.refuse("loan", "amounts to borrow or repay cannot be negative", "0 or more")
            o.borrow, o.repay = max(0, o.borrow), max(0, o.repay)
        if o.borrow and o.repay:
            net = o.borrow - o.repay
            self.adjust("loan", f"you cannot both borrow ({money(o.borrow)}) and repay ({money(o.repay)}) "
                        f"in one turn; taken as {'borrowing' if net > 0 else 'repaying'} {money(abs(net))}")
            o.borrow, o.repay = max(0, net), max(0, -net)
        if o.borrow:
            most = q.available_credit(self.view, p)
            if o.borrow > most:
                self.adjust("borrow", f"{money(o.borrow)} is more than your available credit; lowered to "
                            f"{money(most)} (§3.5A, §10.1A1)", f"up to {money(most)}")
                o.borrow = most
        if o.repay:
            most = min(p.cash, p.loan)
            if o.repay > most:
                why = "your loan" if p.loan < p.cash else "your cash"
                self.adjust("repay", f"{money(o.repay)} is more than {why}; lowered to {money(most)} (§10.1A2)",
                            f"up to {money(most)}")
                o.repay = most
        if p.recall and o.repay < p.recall:
            self.warn("repay", f"the bank recalls {money(p.recall)} of your loan (§3.5C); you repay "
                      f"{money(o.repay)}, so the rest will be collected at the end of the turn, by selling "
                      "your assets if your cash is short", f"repay {money(p.recall)} or more")
        self.cash += o.borrow - o.repay

    # -- §10.2: railroad orders ------------------------------------------------

    def check_railroad_orders(self) -> None:
        kept: list[RailroadOrders] = []
        seen: set[int] = set()
        for ro in self.out.railroads:
            rr = self.view.railroad(ro.railroad)
            if rr is None:
                self.refuse(f"railroad {ro.railroad}", f"there is no railroad {ro.railroad!r}",
                            ", ".join(r.code for r in self.presided.values()) or "you preside no railroad")
                continue
            if rr.id not in self.presided:
                self.refuse(f"{rr.code} orders", f"you are not President of {rr.code} at the start of the turn; "
                            "only the President gives its orders (§4.14C)",
                            ", ".join(r.code for r in self.presided.values()) or "you preside no railroad")
                continue
            if rr.id in seen:
                self.refuse(f"{rr.code} orders", f"a second set of orders for {rr.code}; only the first counts")
                continue
            seen.add(rr.id)
            ro.railroad = rr.code
            kept.append(ro)
        # Appendix A: all loans to/from Presidents (step 2) precede debt repayment (3) and treasury sales (4).
        for ro in kept:
            self.check_president_loan(ro, self.view.rr_by_code[ro.railroad.upper()])
        for ro in kept:
            rr = self.view.rr_by_code[ro.railroad.upper()]
            self.check_debt_and_treasury(ro, rr)
            self.check_operations(ro, rr)
        self.out.railroads = kept

    def check_president_loan(self, ro: RailroadOrders, rr: Railroad) -> None:
        where = f"{rr.code} president loan"
        self.rr_cash[rr.id] = rr.cash
        for attr in ("lend", "repay_president", "repay_debt", "treasury_to_president", "treasury_to_market",
                     "capital_per_mile", "political"):
            if getattr(ro, attr) < 0:
                self.refuse(f"{rr.code} {attr.replace('_', ' ')}", "cannot be negative", "0 or more")
                setattr(ro, attr, 0)
        if ro.lend and ro.repay_president:
            self.refuse(where, "the railroad cannot both borrow from and repay its President in one turn; "
                        "the repayment is dropped (§10.2A)")
            ro.repay_president = 0
        if ro.lend > max(0, self.cash):
            self.adjust(where, f"you lend {money(ro.lend)} but have {money(max(0, self.cash))} after your bank "
                        "loan and earlier railroad loans; lowered (§4.4A, §10.2A1)", f"up to {money(max(0, self.cash))}")
            ro.lend = max(0, self.cash)
        self.cash -= ro.lend
        self.rr_cash[rr.id] += ro.lend
        if ro.repay_president:
            most = max(0, min(rr.cash, rr.president_debt))
            if ro.repay_president > most:
                self.adjust(f"{rr.code} repay president", f"{money(ro.repay_president)} is more than "
                            f"{'the debt to you' if rr.president_debt <= rr.cash else 'its starting cash'}; "
                            f"lowered to {money(most)} (§4.4B, §10.2A2)", f"up to {money(most)}")
                ro.repay_president = most
            self.cash += ro.repay_president
            self.rr_cash[rr.id] -= ro.repay_president

    def check_debt_and_treasury(self, ro: RailroadOrders, rr: Railroad) -> None:
        if ro.repay_debt:
            most = max(0, min(self.rr_cash[rr.id], rr.loan_debt + rr.bond_debt))
            if ro.repay_debt > most:
                self.adjust(f"{rr.code} repay debt", f"{money(ro.repay_debt)} is more than "
                            f"{'its debt' if rr.loan_debt + rr.bond_debt <= self.rr_cash[rr.id] else 'its cash after President loans'}"
                            f"; lowered to {money(most)} (§10.2B)", f"up to {money(most)}")
                ro.repay_debt = most
            self.rr_cash[rr.id] -= ro.repay_debt
        treasury = rr.treasury_shares
        if ro.treasury_to_president:
            price = q.treasury_price_to_president(rr)
            afford = math.floor(max(0, self.cash) / price) if price > 0 else treasury
            most = min(treasury, afford)
            if ro.treasury_to_president > most:
                why = (f"{rr.code} has {treasury} treasury shares" if treasury <= afford else
                       f"at {money(price)} a share (50 % of {money(rr.price)}) your {money(max(0, self.cash))} buys {afford}")
                self.adjust(f"{rr.code} treasury to president", f"{ro.treasury_to_president} shares asked but {why}; "
                            f"lowered to {most} (§10.2C2)", f"up to {most} shares")
                ro.treasury_to_president = most
            cost = math.ceil(ro.treasury_to_president * price)
            self.cash -= cost
        if ro.treasury_to_market:
            most = treasury - ro.treasury_to_president
            if ro.treasury_to_market > most:
                self.adjust(f"{rr.code} treasury to market", f"{ro.treasury_to_market} shares asked but only {most} "
                            "treasury shares are left; lowered (§10.2C3)", f"up to {most} shares")
                ro.treasury_to_market = most

    def check_operations(self, ro: RailroadOrders, rr: Railroad) -> None:
        view, code = self.view, rr.code
        bankrupt = rr.status == "bankrupt"
        miles = view.miles(rr)
        cash = self.rr_cash[rr.id]
        # D: capital improvements
        if ro.capital_per_mile:
            if bankrupt:
                self.refuse(f"{code} capital", f"{code} is bankrupt and cannot spend on capital improvements (§4.11B)")
                ro.capital_per_mile = 0
            elif ro.capital_per_mile > q.CAPITAL_MAX_PER_MILE:
                self.adjust(f"{code} capital", f"${ro.capital_per_mile} per mile is more than the "
                            f"${q.CAPITAL_MAX_PER_MILE} per mile allowed; lowered (§10.2D1, ruling R-O1)",
                            f"$1–{q.CAPITAL_MAX_PER_MILE} per mile")
                ro.capital_per_mile = q.CAPITAL_MAX_PER_MILE
        # E: build or abandon the owned RoW
        row = view.row_of.get(rr.id)
        if ro.build_per_mile is not None and ro.build_per_mile <= 0:
            ro.build_per_mile = None
        if ro.build_per_mile is not None:
            low, high = q.build_cost_range(view.game.climate)
            if row is None:
                self.refuse(f"{code} build", f"{code} owns no RoW at the start of the turn (§4.6A)")
                ro.build_per_mile = None
            elif bankrupt:
                self.refuse(f"{code} build", f"{code} is bankrupt and cannot build track (§4.11B)")
                ro.build_per_mile = None
            elif q.is_civil_war(view.turn):
                self.refuse(f"{code} build", f"no railroad may build a RoW during the Civil War (turn {view.turn}, "
                            f"§8); {code} keeps {row.code} and may build it from turn 13")
                ro.build_per_mile = None
            elif ro.build_per_mile < low:
                self.adjust(f"{code} build", f"${ro.build_per_mile} per mile is below the minimum ${low} in a "
                            f"{view.game.climate} climate; raised to ${low} (§4.6B)", f"${low}–${high} per mile")
                ro.build_per_mile = low
            elif ro.build_per_mile > high:
                self.adjust(f"{code} build", f"${ro.build_per_mile} per mile is more than double the minimum; "
                            f"lowered to ${high} (§4.6C)", f"${low}–${high} per mile")
                ro.build_per_mile = high
        if ro.abandon:
            if row is None:
                self.refuse(f"{code} abandon", f"{code} owns no RoW to abandon (§4.6E)")
                ro.abandon = False
            elif ro.build_per_mile is not None:
                self.refuse(f"{code} abandon", f"{code} cannot both build and abandon {row.code}; it builds (§10.2E3)")
                ro.abandon = False
        if ro.build_per_mile is not None or ro.abandon:
            self.building.add(rr.id)
        # §4.15 double track
        if ro.double_track:
            lines = {r.code.upper(): r for r in view.lines_of.get(rr.id, [])}
            doubled = self._doubled(rr)
            kept: list[str] = []
            for line in ro.double_track:
                key = line.strip().upper()
                if key not in lines:
                    self.refuse(f"{code} double track", f"{line} is not a line of {code} (§4.15)",
                                ", ".join(sorted(set(lines) - doubled)))
                elif key in doubled:
                    self.refuse(f"{code} double track", f"{lines[key].code} is already double-tracked")
                elif lines[key].code in kept:
                    self.refuse(f"{code} double track", f"{lines[key].code} is listed twice")
                else:
                    kept.append(lines[key].code)
            ro.double_track = kept
            cost = sum(q.double_track_cost(view, lines[c.upper()]) for c in kept)
            if kept and cost > cash:
                self.warn(f"{code} double track", f"double-tracking {', '.join(kept)} costs {money(cost)}, paid "
                          f"from cash only (§4.15); {code} starts with {money(cash)}")
        # §4.16 rate wars
        if ro.rate_wars:
            parallel = q.parallel_railroads(view, rr)
            kept_w: list[RateWar] = []
            for war in ro.rate_wars:
                target = view.railroad(war.target)
                if target is None or target.code not in parallel:
                    self.refuse(f"{code} rate war", f"{war.target} has no line parallel to {code} (§4.16)",
                                ", ".join(parallel) or "no railroad is parallel to " + code)
                elif not 1 <= war.percent <= 99:
                    self.refuse(f"{code} rate war", f"a rate cut of {war.percent} % is not possible",
                                "1–99 %")
                elif any(w.target == target.code for w in kept_w):
                    self.refuse(f"{code} rate war", f"a second rate war with {target.code}; only the first counts")
                else:
                    kept_w.append(RateWar(target.code, war.percent))
            ro.rate_wars = kept_w
        # §4.17 locomotive
        if ro.locomotive is not None:
            options = q.locomotive_upgrades(view, rr)
            if ro.locomotive == rr.locomotive:
                ro.locomotive = None
            elif ro.locomotive not in options:
                allowed = ", ".join(f"{n} {q.LOCOMOTIVES[n]} ({money(c)})" for n, c in options.items())
                self.refuse(f"{code} locomotive", f"engine {ro.locomotive} is not an upgrade available to {code} "
                            f"(it has {rr.locomotive} {q.LOCOMOTIVES.get(rr.locomotive, '')}, §4.17)",
                            allowed or "no upgrade is available this turn")
                ro.locomotive = None
            elif options[ro.locomotive] > cash:
                self.warn(f"{code} locomotive", f"the upgrade costs {money(options[ro.locomotive])}, paid from cash "
                          f"only (§4.17); {code} starts with {money(cash)}")
        # §4.18 technology
        if ro.technology is not None:
            letter = ro.technology.strip().upper()
            options_t = q.technology_options(view, rr)
            if letter not in options_t:
                why = "is not available to " + code
                if letter in (rr.technologies or []) or (letter == "A" and rr.grand_station):
                    why = f"{code} already has it"
                elif letter == "A" and "A" in q.technologies_available(view):
                    why = f"{code} does not reach a size 4 or 5 town (§4.18)"
                elif letter not in q.TECHNOLOGIES:
                    why = "is not a technology letter"
                self.refuse(f"{code} technology", f"technology {ro.technology} {why}",
                            ", ".join(f"{t} {q.TECHNOLOGIES[t]} ({money(c)})" for t, c in options_t.items())
                            or "none this turn")
                ro.technology = None
            else:
                ro.technology = letter
                if options_t[letter] > cash:
                    self.warn(f"{code} technology", f"{q.TECHNOLOGIES[letter]} costs {money(options_t[letter])}, "
                              f"paid from cash only (§4.18); {code} starts with {money(cash)}")
        # F: political influence
        if ro.political:
            minimum = q.political_minimum(view, rr)
            if bankrupt:
                self.refuse(f"{code} political", f"{code} is bankrupt and cannot spend for political influence (§4.9A)")
                ro.political = 0
            elif ro.political < minimum:
                self.refuse(f"{code} political", f"{money(ro.political)} buys no influence: the minimum is $1 per "
                            f"mile, {money(minimum)} for {code}'s {miles} miles (§4.9B); nothing is spent",
                            f"{money(minimum)} or more (each further {money(minimum)} adds a level)")
                ro.political = 0
            elif ro.political > cash:
                self.warn(f"{code} political", f"{code} starts with {money(cash)}; it will spend only what it "
                          f"can afford from cash (§4.9B)")
        # G: RoW bids
        self.check_row_bids(ro, rr)
        # H: dividend
        if ro.dividend is not None:
            if ro.dividend < 0:
                self.refuse(f"{code} dividend", "a dividend cannot be negative", f"$0–${q.MAX_DIVIDEND} per share")
                ro.dividend = None
            elif ro.dividend > q.MAX_DIVIDEND:
                self.adjust(f"{code} dividend", f"${ro.dividend} per share is over the maximum; lowered to "
                            f"${q.MAX_DIVIDEND} (§4.12)", f"$0–${q.MAX_DIVIDEND} per share")
                ro.dividend = q.MAX_DIVIDEND
            if ro.dividend and bankrupt:
                self.warn(f"{code} dividend", f"{code} is bankrupt and pays no dividend this turn (§4.11B); the "
                          "rate is kept for later turns")

    def _doubled(self, rr: Railroad) -> set[str]:
        return {x.route.code.upper() for x in rr.lines if x.double_tracked}

    def check_row_bids(self, ro: RailroadOrders, rr: Railroad) -> None:
        view, code = self.view, rr.code
        bids = [("first", ro.row_first), ("alternate", ro.row_alternate)]
        if not any(b for _, b in bids):
            return
        why = q.may_bid_for_row(view, rr, building_or_abandoning=rr.id in self.building)
        if why is not None:
            self.refuse(f"{code} RoW bid", why)
            ro.row_first = ro.row_alternate = None
            return
        abandoning = ro.abandon
        valid = self._valid_rows(rr, abandoning)
        kept: dict[str, str | None] = {}
        for label, bid in bids:
            if not bid:
                kept[label] = None
                continue
            where = f"{code} RoW {label}"
            route = view.route(bid)
            if route is None:
                self.refuse(where, f"there is no route {bid!r} on the map", _list(valid))
                kept[label] = None
                continue
            if route.code in kept.values():
                self.refuse(where, f"{route.code} is already your first choice; the alternate must differ")
                kept[label] = None
                continue
            status = q.row_status(view, rr, route, abandoning=abandoning)
            if status is None:
                kept[label] = route.code
            elif route.kind != "RoW" or route.owner_id == rr.id or "§4.8" in status:
                self.refuse(where, status, _list(valid))
                kept[label] = None
            else:
                # §10.2G3: a write-in that may become available during the turn.
                self.warn(where, f"{status}; kept as a write-in: the bid succeeds only if {route.code} becomes "
                          "available and connected during the turn (a RoW abandoned this turn, or next to a PC "
                          "merging into " + code + ", §10.2G3)", _list(valid))
                kept[label] = route.code
        ro.row_first, ro.row_alternate = kept["first"], kept["alternate"]
        if ro.row_first is None and ro.row_alternate is not None:
            ro.row_first, ro.row_alternate = ro.row_alternate, None

    def _valid_rows(self, rr: Railroad, abandoning: bool) -> list[str]:
        if not abandoning:
            return q.valid_rows(self.view, rr)
        return [c for c in q.valid_rows(self.view, rr)
                if q.row_status(self.view, rr, self.view.route_by_code[c.upper()], abandoning=True) is None]

    # -- §10.1B: PC actions ----------------------------------------------------

    def check_pc_actions(self) -> None:
        view = self.view
        kept: list[PCAction] = []
        seen: set[str] = set()
        owned = {q.pc_code(view, pc).upper(): pc for pc in view.pcs_owned(self.player)}
        for action in self.out.pc_actions:
            pc = view.pc(action.pc)
            where = f"PC {action.pc} {action.action}"
            if pc is None:
                self.refuse(where, f"there is no private company {action.pc!r}", _list(sorted(owned)))
                continue
            code = q.pc_code(view, pc)
            action.pc = code
            if code.upper() not in owned:
                self.refuse(where, f"you do not own {code} at the start of the turn", _list(sorted(owned)))
                continue
            if code in seen:
                self.refuse(where, f"only ONE action per PC each turn (§10.1B); the first order for {code} counts")
                continue
            seen.add(code)
            if action.action == "sell":
                low, high = q.pc_ask_range(view, pc)
                if action.price is None:
                    self.refuse(where, "a sale needs a minimum asking price", f"{money(low)}–{money(high)}")
                    continue
                if action.price < low:
                    self.adjust(where, f"asking {money(action.price)} is under $1 per mile; raised to {money(low)} "
                                "(§10.1B1a)", f"{money(low)}–{money(high)}")
                    action.price = low
                elif action.price > high:
                    self.adjust(where, f"asking {money(action.price)} is more than 20 % over what you paid"
                                f"{' or over the current asking price' if pc.for_sale else ''} (or $10 a mile); "
                                f"lowered to {money(high)} (§10.1B1b/d)", f"{money(low)}–{money(high)}")
                    action.price = high
                miles = view.routes[pc.route_id].miles
                if action.price < q.PC_PRICE_FLOOR_PER_MILE * miles:
                    self.warn(where, f"below $10 a mile the Public buys {code} if no player does (§10.1B1c)")
            elif action.action == "merge":
                targets = q.pc_merge_targets(view, pc)
                valid = [c for c, why in targets.items() if why is None]
                rr = view.railroad(action.railroad or "")
                if rr is None or rr.code not in targets:
                    self.refuse(where, f"{action.railroad or '(none)'} is not an active railroad", _list(valid))
                    continue
                if targets[rr.code] is not None:
                    self.refuse(where, f"{code} cannot merge into {rr.code}: {targets[rr.code]}", _list(valid))
                    continue
                action.railroad = rr.code
                if pc.for_sale:
                    self.warn(where, f"{code} is offered for sale; if another player buys it the merger is "
                              "aborted (§10.1B2e)")
            elif action.action == "incorporate":
                self.incorporating.add(code)
                if pc.for_sale:
                    self.warn(where, f"{code} is offered for sale; if another player buys it the incorporation "
                              "is aborted (§10.1B3e)")
            else:
                self.refuse(where, f"unknown PC action {action.action!r}", "sell, merge or incorporate")
                continue
            kept.append(action)
        self.out.pc_actions = kept

    # -- §10.1B: PC bids -------------------------------------------------------

    def check_pc_bids(self) -> None:
        view = self.view
        offers = {o.code.upper(): o for o in q.pcs_for_sale(view)}
        allowed_count = q.pc_bids_allowed(view, self.player)
        listing = _list([f"{o.code} (asking {money(o.asking)})" for o in offers.values()])
        ordered = sorted(enumerate(self.out.pc_bids), key=lambda x: (x[1].sequence if x[1].sequence in (1, 2) else 9, x[0]))
        kept: list[PCBid] = []
        for _, bid in ordered:
            where = f"PC bid {bid.pc}"
            offer = offers.get(bid.pc.strip().upper())
            if allowed_count == 0:
                self.refuse(where, "you own two PCs and may not bid for another (§10.1B)")
                continue
            if len(kept) >= allowed_count:
                self.refuse(where, f"you may bid for {allowed_count} PC{'s' if allowed_count > 1 else ''} "
                            f"({len(view.pcs_owned(self.player))} owned, at most 2, §10.1B1); extra bid dropped")
                continue
            if offer is None:
                pc = view.pc(bid.pc)
                why = "is not a private company" if pc is None else "is not offered for sale at the start of the turn (§10.1B2)"
                self.refuse(where, f"{bid.pc} {why}", listing)
                continue
            if offer.seller == self.player.number:
                self.refuse(where, f"{offer.code} is your own PC")
                continue
            if any(b.pc == offer.code for b in kept):
                self.refuse(where, f"a second bid for {offer.code}; only the first counts")
                continue
            if bid.amount < offer.min_bid:
                self.refuse(where, f"{money(bid.amount)} is below the asking price {money(offer.min_bid)}; a PC "
                            "is sold only at or over its asking price (§10.1B3, §10.1B5)",
                            f"{money(offer.min_bid)} or more")
                continue
            kept.append(PCBid(offer.code, bid.amount, len(kept) + 1))
        # §10.1B4: reduced in reverse sequence to the cash available.
        available = max(0, self.cash)
        total = sum(b.amount for b in kept)
        for bid in reversed(kept):
            if total <= available:
                break
            over = total - available
            new = max(0, bid.amount - over)
            offer = offers[bid.pc.upper()]
            if new < offer.min_bid:
                self.refuse(f"PC bid {bid.pc}", f"your bids total {money(total)} but you have {money(available)} "
                            f"after your earlier actions; this bid cannot be reduced below the asking price "
                            f"{money(offer.min_bid)} and is dropped (§10.1B4)")
                total -= bid.amount
                bid.amount = 0
            else:
                self.adjust(f"PC bid {bid.pc}", f"your bids total {money(total)} but you have {money(available)} "
                            f"after your earlier actions; lowered to {money(new)} (§10.1B4)", f"up to {money(new)}")
                total -= bid.amount - new
                bid.amount = new
        self.out.pc_bids = [b for b in kept if b.amount > 0]
        self.cash -= sum(b.amount for b in self.out.pc_bids)

    # -- §6.1, §6.2, §10.1C: stock ---------------------------------------------

    def check_stock(self) -> None:
        view, player = self.view, self.player
        given = list(enumerate(self.out.stock))
        # Ruling R-O3: unnumbered orders come after numbered ones: sales, then buys, as written.
        given.sort(key=lambda x: (x[1].priority if x[1].priority > 0 else 100 + (x[1].action == "buy"), x[0]))
        bids_allowed = q.stock_bid_count_limit(len(view.active_railroads()))
        kept: list[StockOrder] = []
        seen: set[str] = set()
        buys = 0
        for _, order in given:
            rr = view.railroad(order.railroad)
            where = f"stock {order.action} {order.railroad}"
            if rr is None or rr.status not in ("active", "bankrupt"):
                self.refuse(where, f"{order.railroad} is not a railroad active at the start of the turn (§6.1B)")
                continue
            where = f"stock {order.action} {rr.code}"
            if order.action not in ("buy", "sell", "short"):
                self.refuse(where, f"unknown stock action {order.action!r}", "buy, sell or short")
                continue
            if order.shares <= 0:
                self.refuse(where, "the number of shares must be 1 or more")
                continue
            if rr.code in seen:
                self.refuse(where, f"only one transaction per railroad: you cannot both buy and sell {rr.code}, or "
                            "trade it twice (§6.1A); the first order counts")
                continue
            if len(kept) >= q.MAX_STOCK_ORDERS:
                self.refuse(where, f"at most {q.MAX_STOCK_ORDERS} stock transactions a turn (§6.1A, §10.1C2); "
                            "the lowest priority is dropped")
                continue
            new = StockOrder(rr.code, order.action, order.shares, 0)
            if order.action == "buy":
                if buys >= bids_allowed:
                    self.refuse(where, f"at most {bids_allowed} stock bids a turn with "
                                f"{len(view.active_railroads())} active railroads (§6.1A); the lowest priority is dropped")
                    continue
                most = q.max_stock_bid(view, player, rr)
                if most == 0:
                    self.refuse(where, f"you may not bid for {rr.code} stock: {_no_bid_reason(view, player, rr)}")
                    continue
                if new.shares > most:
                    self.adjust(where, f"{new.shares} shares is more than your maximum bid; lowered to {most} "
                                "(§6.1A/B: 20 % of available shares, never over 51 %)", f"up to {most} shares")
                    new.shares = most
                buys += 1
            else:
                own = view.shares(player, rr)
                most = q.max_stock_sale(view, player, rr)
                if most == 0:
                    why = ("a Director cannot sell short (§6.2C)" if view.is_director(player, rr) else
                           f"{rr.code} is cornered (§6.4, §10.1C4)" if q.is_cornered(view, rr) else "")
                    self.refuse(where, f"you own no {rr.code} shares and may not sell short"
                                + (f": {why}" if why else ""))
                    continue
                if new.shares > most:
                    if own >= most:
                        msg = (f"you own {own} shares and may not sell short "
                               f"({'as a Director, §6.2C' if view.is_director(player, rr) else 'in a cornered stock, §10.1C4' if q.is_cornered(view, rr) else 'holding 10 % or more, §6.2A'})")
                    else:
                        msg = f"you own {own} and may sell short only up to 10 % of the {rr.shares_issued} issued (§6.2A)"
                    self.adjust(where, f"{new.shares} shares: {msg}; lowered to {most}", f"up to {most} shares")
                    new.shares = most
                new.action = "short" if new.shares > own else "sell"
            seen.add(rr.code)
            kept.append(new)
        for number, order in enumerate(kept, start=1):
            order.priority = number
        self.out.stock = kept
        self._stock_cash_preview()

    def _stock_cash_preview(self) -> None:
        """§6.1C against the worst case (every PC bid won); warnings only."""
        if not self.out.stock:
            return
        view = self.view
        rows = [(o.railroad, o.action, o.shares, view.shares(self.player, view.rr_by_code[o.railroad.upper()]))
                for o in self.out.stock]
        prices = {o.railroad: view.rr_by_code[o.railroad.upper()].price for o in self.out.stock}
        checks = q.check_stock_cash(max(0, self.cash), rows, prices)
        pcs = sum(b.amount for b in self.out.pc_bids)
        for c, order in zip(checks, self.out.stock):
            if c.allowed < c.asked:
                when = " if all your PC bids win" if pcs else ""
                self.warn(f"stock {order.priority} {order.action} {order.railroad}",
                          f"{order.shares} shares at the start price {money(c.price)} need more cash and credit than "
                          f"you will have{when} ({money(max(0, self.cash))} before stock trades); order checking would "
                          f"cut it to {c.allowed} (§6.1C)", f"{c.allowed} shares")

    # -- §10.1D: control -------------------------------------------------------

    def check_control(self) -> None:
        view, o = self.view, self.out
        presided_codes = {r.code for r in self.presided.values()}
        resign: list[str] = []
        for code in o.resign:
            rr = view.railroad(code)
            if rr is None or rr.code not in presided_codes:
                self.refuse(f"resign {code}", f"you are not President of {code}", _list(sorted(presided_codes)))
            elif rr.code not in resign:
                resign.append(rr.code)
        o.resign = resign
        if o.control is None:
            return
        slots = list(o.control)
        if len(slots) > 2:
            self.refuse("control", "you have two control slots (RR1, RR2); the others are dropped (§10.1D1)")
            slots = slots[:2]
        kept: list[str | None] = []
        for number, entry in enumerate(slots, start=1):
            where = f"control slot {number}"
            if entry is None or not str(entry).strip():
                kept.append(None)
                continue
            rr = view.railroad(entry)
            if rr is None and str(entry).strip().upper() in {c.upper() for c in self.incorporating}:
                code = next(c for c in self.incorporating if c.upper() == str(entry).strip().upper())
                kept.append(code)
                for action in o.pc_actions:
                    if action.pc == code and action.action == "incorporate":
                        action.president = True
                continue
            if rr is None or rr.status not in ("active", "bankrupt"):
                self.refuse(where, f"{entry} is neither an active railroad nor a PC you incorporate this turn "
                            "(§10.1D1/2)")
                kept.append(None)
                continue
            if rr.code in kept:
                self.refuse(where, f"{rr.code} is already in your other slot")
                kept.append(None)
                continue
            if rr.code in resign:
                self.refuse(where, f"you resign from {rr.code} this turn; you cannot also seek to control it")
                kept.append(None)
                continue
            if not view.is_director(self.player, rr) and not any(
                    s.railroad == rr.code and s.action == "buy" for s in o.stock):
                self.warn(where, f"you are not a Director of {rr.code}: you must own 10 % of its issued stock "
                          f"({math.ceil(q.DIRECTOR_PCT * rr.shares_issued)} shares) by the end of the turn (§10.1D3)")
            kept.append(rr.code)
        while len(kept) < 2:
            kept.append(None)
        o.control = kept

    # -- §10.1E: merge railroads -----------------------------------------------

    def check_merge(self) -> None:
        o = self.out
        if o.merge is None:
            return
        a, b = (self.view.railroad(x) for x in o.merge)
        if a is None or b is None:
            self.refuse("merge", f"{o.merge[0] if a is None else o.merge[1]} is not a railroad")
            o.merge = None
            return
        check = q.merge_check(self.view, self.player, a, b)
        if not check.allowed:
            self.refuse("merge", f"{a.code} cannot merge into {b.code}: {check.reason}")
            o.merge = None
            return
        o.merge = (a.code, b.code)
        if check.dropped:
            self.warn("merge", f"parallel routes: {', '.join(check.dropped)} will be deleted from the merged "
                      "railroad (§4.13A3)")

    # -- §10.1F–G, §1.2, §3.2 --------------------------------------------------

    def check_spy(self) -> None:
        view, o = self.view, self.out
        if o.spy_player is not None:
            if o.spy_player not in view.by_number:
                self.refuse("spy", f"there is no player {o.spy_player}; give a player number (§3.1, §10.1F)",
                            f"1–{max(view.by_number)}")
                o.spy_player = None
            elif o.spy_player == self.player.number:
                self.refuse("spy", "you cannot spy on yourself")
                o.spy_player = None
        if o.spy_railroad is not None:
            rr = view.railroad(o.spy_railroad)
            if rr is None or rr.status not in ("active", "bankrupt"):
                self.refuse("spy", f"{o.spy_railroad} is not an active railroad")
                o.spy_railroad = None
            else:
                o.spy_railroad = rr.code
                if rr.id in self.presided:
                    self.warn("spy", f"you preside {rr.code} and see its shareholders anyway (§10.1F)")

    def check_message(self) -> None:
        text = self.out.message or ""
        one_line = re.sub(r"\s+", " ", text).strip()
        one_line = "".join(ch for ch in one_line if ch.isprintable())
        if len(one_line) > MAX_MESSAGE:
            self.adjust("message", f"the message has {len(one_line)} characters; shortened to {MAX_MESSAGE} "
                        "(§10.1G)", f"{MAX_MESSAGE} characters")
            one_line = one_line[:MAX_MESSAGE].rstrip()
        self.out.message = one_line

    def check_prodigal(self) -> None:
        o = self.out
        if o.prodigal < 0:
            self.refuse("prodigal", "spending cannot be negative")
            o.prodigal = 0
        elif 0 < o.prodigal < PRODIGAL_MIN:
            self.refuse("prodigal", f"{money(o.prodigal)} buys no Prodigal points: at least {money(PRODIGAL_MIN)} "
                        "must be spent (§1.2); nothing is spent", f"0, or {money(PRODIGAL_MIN)} or more")
            o.prodigal = 0
        elif o.prodigal > max(0, self.cash):
            self.warn("prodigal", f"{money(o.prodigal)} is more than the {money(max(0, self.cash))} you have before "
                      "stock trading; it is paid after the stock market (Appendix A 7.2) from the cash you have then")

    def check_character(self) -> None:
        o = self.out
        if o.character is None:
            return
        name = " ".join(o.character.split())
        if not name or name == self.player.character:
            o.character = None
            return
        if not (self.view.turn == 1 or self.recently_bankrupt):
            self.refuse("character", "you may choose a character name only before the game, on the first turn, or "
                        "after going bankrupt (§3.2)")
            o.character = None
            return
        if len(name) > MAX_CHARACTER:
            self.refuse("character", f"a character name has at most {MAX_CHARACTER} characters")
            o.character = None
            return
        taken = {p.character.lower() for p in self.view.players.values() if p.id != self.player.id}
        if name.lower() in taken:
            self.refuse("character", f"{name!r} is another tycoon's character (§3.2)")
            o.character = None
            return
        o.character = name


def _list(items) -> str:
    items = list(items)
    return ", ".join(items) if items else "none"


def _no_bid_reason(view: q.View, player: Player, rr: Railroad) -> str:
    own = view.shares(player, rr)
    if own >= q.STOCK_CAP_PCT * rr.shares_issued:
        return f"you already own {own} of {rr.shares_issued} shares, the 51 % cap (§6.1A)"
    return "no shares are available to you (20 % of the shares not held by Directors or you, §6.1B)"

"""Computer players (§3.1): orders for the positions no human plays.

``computer_orders(session, game, player)`` returns legal orders for one
computer-played tycoon: they are built from the rule queries
(:mod:`pbm.cr.queries`) and passed through the validator
(:mod:`pbm.cr.validate`), so they contain nothing the rules forbid.  Every
random choice comes from ``pbm.rng.generator(game.seed, game.turn,
f"ai:{player.number}")``, so the same game gives the same orders.

Two personalities (``Player.personality``), following Appendix C:

``builder`` — the builder-president.  Buys PCs, incorporates them (asking to
be President) or merges them into its railroads, seeks the presidency of a
starting railroad with maximum stock bids, borrows in good times, and runs its
railroads for the long term: capital improvements of about $10–15 a mile,
RoWs toward regions it does not reach yet (westward first) that earn more than
the interest on their cost, building at the minimum cost when the line pays and
the road can carry the debt (else it waits, or abandons a line that never pays),
political influence, new engines and technologies when cash allows, short-term
railroad loans repaid from spare cash, treasury stock sold when dear and in
debt, a dividend of about half the profit a share the road expects.

``speculator`` — the market speculator.  Trades stock on price against
dividend and profit, buys maximum bids to win directorships and presidencies,
sells what is dear, sells short in bad climates, borrows only in good ones,
buys cheap PCs to resell or to merge for a stock bonus.  When it presides a
railroad it runs it like a builder, with a richer dividend.

``empire`` — the merger and empire-builder.  Collects PCs (bids for every PC it
may, most for those that merge into its railroads) and merges them in for the
stock bonus and the regions; seeks a second presidency and routes its roads'
RoWs toward each other so the two can merge (§4.13); pays a small dividend and
puts the cash into track.

Every personality answers a raid: when a rival holds nearly as many shares of
a railroad it presides as it does, it bids the maximum in that railroad before
anything else.

Every personality plays a careful player's tactics where they pay (issue 31):
double track (§4.15), rate wars (§4.16), short sales (§6.2), the §4.6C overspend
as far as the road stays sound, and the defence against a rival's overspend (it
leaves a road a rival sole director can loot).  ``looter`` (``LooterPlanner``, for
scripts/tournament.py only) overspends every time it can and sells out.

Any other personality (e.g. "human" left to the computer) plays as a builder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sqlalchemy.orm import Session

from pbm.cr import queries as q
from pbm.cr.engine import tables
from pbm.cr.orders import Orders, PCAction, PCBid, RailroadOrders, RateWar, StockOrder
from pbm.cr.validate import check
from pbm.models import Game, Player, Railroad, Route
from pbm.rng import generator

PERSONALITIES = ("builder", "speculator", "empire")


@dataclass(frozen=True)
class RowOutlook:
    """A careful president's figures for building a RoW this turn (see Planner.row_outlook)."""

    cost: float  # §4.6B–D at the minimum: track and both towns
    stock_cash: float  # §4.3A2–C: the new stock's cash (directors at half price, the Public at 90 %)
    earns: float  # more operating profit a turn (new miles, towns, regions) at the road's efficiency
    pays: float  # earns less the interest on the bonds and loans it needs
    new_regions: int
TREASURY_SALE_PRICE = 60.0  # §10.2C3: a stock this dear pays for the road better than loans
HOARD_TURNS = 10  # §4.12: a road with ten times the next dollar a share spare pays it
DOUBLE_TRACK_PAYBACK = 6  # §4.15: double-track a line whose extra profit repays its cost in 6 turns
RATE_WAR_STEPS = (10, 20, 30, 40, 50)  # §4.16: the cuts a careful president considers, smallest first
SHORT_DEAR = 1.5  # §6.2: short a stock priced at 1.5 × the Public's fair price or more (§6.3A)
SHORT_MIN_PRICE = 10.0  # … and not a penny stock: the gain must pay for the risk
LOOTER = "looter"  # scripts/tournament.py: loots every road it can by the §4.6C overspend; never seated by setup
BASELINE = "naive"  # random legal orders: the yardstick of scripts/tournament.py, never seated by setup


def computer_orders(session: Session, game: Game, player: Player, *, view: q.View | None = None) -> Orders:
    """Legal orders for a computer-played tycoon this turn (deterministic).

    ``view`` may be a :func:`pbm.cr.queries.load` of this game at this turn, shared by
    every seat of the turn (the engine loads the game once for all 15)."""
    if view is None:
        view = q.load(session, game)
    return orders_for(view, view.players[player.id])


def orders_for(view: q.View, player: Player) -> Orders:
    """:func:`computer_orders` on a loaded view (the engine may share one view for all seats)."""
    rng = generator(view.game.seed, view.game.turn, f"ai:{player.number}")
    if player.personality == BASELINE:
        orders = NaivePlanner(view, player, rng, BASELINE).plan()
    elif player.personality == LOOTER:
        orders = LooterPlanner(view, player, rng, "builder").plan()
    else:
        style = player.personality if player.personality in PERSONALITIES else "builder"
        orders = Planner(view, player, rng, style).plan()
    out, _ = check(view, player, orders)
    return out


class Planner:
    """Builds one tycoon's orders, following his cash through the turn as the validator does."""

    def __init__(self, view: q.View, player: Player, rng: np.random.Generator, style: str) -> None:
        self.view, self.player, self.rng, self.style = view, player, rng, style
        self.o = Orders()
        self.cash = player.cash
        self.rank = view.climate.rank  # 0 Panic … 4 Normal … 8 Boom
        self.presided = view.presided_by(player)
        self.looting: set[str] = set()  # roads this tycoon overspends on this turn (§4.6C)
        self.tactics: list[tuple[str, str]] = []  # (tactic, railroad) chosen this turn, for tests

    # ------------------------------------------------------------------

    def plan(self) -> Orders:
        self.loan()
        for rr in self.presided:
            self.o.railroads.append(self.run_railroad(rr))
        self.pc_actions()
        self.pc_bids()
        self.stock()
        self.merge_railroads()
        self.spy()
        self.prodigal()
        return self.o

    # -- §10.1A ---------------------------------------------------------

    def loan(self) -> None:
        p, view = self.player, self.view
        credit = q.available_credit(view, p)
        # Appendix C: borrow a safe amount — a target loan as a share of net worth that
        # shrinks as the climate worsens (nothing below Normal); repay what is over it.
        # Appendix C: "while the economy is enjoying above normal times, borrowing is relatively
        # safe" — but Great and Boom are when panics strike (§5: 25 % and 40 % a turn), so the
        # prudent computer borrows most in Improved/Good and pays down in Great and Boom.
        if self.style in ("builder", "empire"):
            share = {8: 0.10, 7: 0.20, 6: 0.35, 5: 0.35, 4: 0.25}.get(self.rank, 0.0)
        else:
            share = {8: 0.15, 7: 0.25, 6: 0.40, 5: 0.35, 4: 0.15}.get(self.rank, 0.0)
        share *= 0.85 + 0.3 * float(self.rng.random())
        target = int(max(0, p.net_worth) * share)
        if p.recall:
            self.o.repay = min(p.cash, p.loan, max(p.recall, 0))
        elif p.loan < target and credit > 0:
            self.o.borrow = min(credit, target - p.loan)
        elif p.loan > target and p.cash > 0:
            keep = 0.3 if 4 <= self.rank <= 6 else 0.1  # repay harder in bad times and at the peak
            self.o.repay = max(0, min(p.loan - target, int(p.cash * (1 - keep))))
        self.cash += self.o.borrow - self.o.repay
        # Keep enough cash to pay next interest (§3.4) so it never turns into emergency loans.
        loan_after = p.loan + self.o.borrow - self.o.repay
        self.reserve = math.ceil(loan_after * view.climate.loan_rate * 1.2)
        self.overloaded = loan_after > max(0, p.net_worth) * (0.7 if self.style == "speculator" else 0.6)

    # -- §10.2: running a railroad ------------------------------------------

    def run_railroad(self, rr: Railroad) -> RailroadOrders:
        view, rng = self.view, self.rng
        ro = RailroadOrders(rr.code)
        miles = max(1, view.miles(rr))
        cash = rr.cash
        bankrupt = rr.status == "bankrupt"
        # §4.4: help an insolvent road (lend what it lacks, if affordable); take repayment when it is rich.
        if cash < 0 and self.cash > 0:
            ro.lend = min(self.cash // 2, -cash + 500)
            self.cash -= ro.lend
            cash += ro.lend
        elif rr.president_debt and cash > 3 * miles * 20:
            ro.repay_president = min(rr.president_debt, cash // 3)
            self.cash += ro.repay_president
            cash -= ro.repay_president
        if bankrupt:
            ro.dividend = 0 if rr.dividend else None
            return ro
        # §10.2C2: cheap treasury stock keeps the presidency safe.
        if rr.treasury_shares and self.cash > 0:
            price = q.treasury_price_to_president(rr)
            if price > 0:
                want = min(rr.treasury_shares, int(max(0, self.cash - self.reserve) * 0.25 / price))
                if want > 0:
                    ro.treasury_to_president = want
                    self.cash -= math.ceil(want * price)
        # §10.2C3: when the stock is dear and the road owes short-term loans (or has a line to
        # build), equity is cheaper than 8–16 % loans: offer treasury shares to the market.
        left = rr.treasury_shares - ro.treasury_to_president
        if left > 0 and rr.price >= TREASURY_SALE_PRICE and (rr.loan_debt > 0 or view.row_of.get(rr.id) is not None):
            ro.treasury_to_market = min(left, max(1, rr.shares_issued // 10))
        # D: capital improvements — about $10–15 a mile, more when efficiency is low.
        per_mile = 10 + int(rng.integers(0, 6))
        if rr.efficiency < 75:
            per_mile += 5
        if rr.efficiency >= 95:
            per_mile = 8
        ro.capital_per_mile = min(per_mile, q.CAPITAL_MAX_PER_MILE)
        # E: build the owned RoW (not in the Civil War) when it pays and the road can carry it,
        # at the minimum cost (a little overspend for the greedy); hold it for a better turn, or
        # abandon it when it would never pay (§4.6D: both towns on the route cost $300 × value).
        row = view.row_of.get(rr.id)
        building = False
        if row is not None and not q.is_civil_war(view.turn):
            decision = self.build_decision(rr, row, cash)
            if decision == "build":
                low, high = q.build_cost_range(view.game.climate)
                # §4.6C: overspend to double the minimum only where this president pockets more of
                # the excess than his stake in the road loses, and the road carries the extra debt
                over = self.overspend(rr, row, cash)
                ro.build_per_mile = min(high, low + over)
                if over:
                    self.looting.add(rr.code)
                    self.tactics.append(("overspend", rr.code))
                building = True
                cash -= (self.row_outlook(rr, row).cost + over * row.miles) // 2  # the part not paid by bonds
            elif decision == "abandon":
                ro.abandon = True
                building = True  # §4.7B: a road that abandons may bid again
        # G: a RoW toward a new region.
        if row is None or building:
            choice = self.choose_rows(rr)
            if choice:
                ro.row_first = choice[0]
                ro.row_alternate = choice[1] if len(choice) > 1 else None
                # F: political influence when bidding (1–3 levels, from cash only).
                minimum = q.political_minimum(view, rr)
                levels = 1 + int(rng.integers(0, 3))
                spend = min(minimum * levels, max(0, cash) // 4)
                if spend >= minimum:
                    ro.political = spend - spend % minimum
                    cash -= ro.political
        # §4.17, §4.18: equipment when the cash is comfortably there.
        upgrades = q.locomotive_upgrades(view, rr)
        if upgrades:
            best = max(upgrades)
            if upgrades[best] * 2 <= cash:
                ro.locomotive = best
                cash -= upgrades[best]
        techs = q.technology_options(view, rr)
        for letter in sorted(techs, key=lambda t: (t != "A", t)):
            if techs[letter] * 2 <= cash:
                ro.technology = letter
                cash -= techs[letter]
                break
        # §4.15: double-track busy lines whose extra profit repays the cash cost quickly.
        cash -= self.double_track(rr, ro, cash)
        self.tactics += [("double-track", c) for c in ro.double_track]
        # §4.16: a rate war on a weaker parallel road, when it costs that road more than ours.
        war = self.rate_war(rr)
        if war is not None:
            ro.rate_wars = [war]
            self.tactics.append(("rate-war", war.target))
        # B, H: the road's cash after this turn's needs: repay dear short-term debt, then pay
        # the shareholders their part of the earnings and of a hoard the road does not need.
        self.treasury(rr, ro, cash)
        return ro

    # -- the tactics of a careful player (§4.6C, §4.15, §4.16, §6.2; issue 31) ---------------

    def overspend(self, rr: Railroad, row: Route, cash: int, *, stake: float | None = None) -> int:
        """§4.6C: the dollars a mile a careful president overspends on building ``row`` (0: none).

        The excess over the minimum is shared by the directors *at the start of the turn* and one
        more share (it stays with the road's contractors): a president pockets 1/(directors + 1)
        of it, while the road — of which he owns ``stake`` — pays all of it (half by bonds, the
        rest from cash or loans, §4.6E).  It pays him when his part of the excess beats his part
        of the cost by 5 points (a sole director owning under 45 %) — and only as far as the road
        stays sound, for a road that fails is reorganized, its stock cancelled (§4.11C), and its
        president loses 5 Mogul points (§1.2): the largest of all, half or a quarter of the
        possible excess with which the road, in a worse turn (revenue −20 %, loans +3 points),
        still earns its interest with a quarter to spare, and owes at most 1.5 turns of revenue.
        (Overspending whenever the road merely carried it, the first try, multiplied the
        railroad bankruptcies by five; docs/cr/computer-players.md.)"""
        view = self.view
        directors = max(1, len(view.directors(rr)))
        if stake is None:
            stake = view.shares(self.player, rr) / max(1, rr.shares_issued)
        if 1 / (directors + 1) < stake + 0.05:
            return 0
        low, high = q.build_cost_range(view.game.climate)
        out = self.row_outlook(rr, row)
        rate = view.climate.loan_rate + 0.03
        bad_turn = (self.road_profit(rr) + out.earns) * 0.8
        gross = self.gross_estimate(rr, row)
        for part in (1.0, 0.5, 0.25):
            over = int((high - low) * part)
            total = out.cost + over * row.miles
            interest = self.interest(rr, rate) + total / 2 * tables.BOND_RATE + \
                max(0.0, total / 2 - out.stock_cash - max(0, cash)) * rate
            debt = rr.bond_debt + rr.loan_debt + total - out.stock_cash
            if over > 0 and interest <= 0.75 * bad_turn and debt <= 1.5 * gross:
                return over
        return 0

    def keep_cash(self, rr: Railroad, capital_per_mile: int) -> int:
        """What a road keeps of its cash this turn: a turn's interest, the cash half of its capital
        spending, twice a losing turn and 15 % of last turn's revenue (§10.2B, §4.11)."""
        profit = self.road_profit(rr) - self.interest(rr)
        capital = capital_per_mile * max(1, self.view.miles(rr)) // 2
        return int(self.interest(rr) + capital + max(0.0, -profit) * 2 + 0.15 * max(0, rr.last_revenue))

    def double_track_gain(self, rr: Railroad, route: Route) -> float:
        """§4.15 (ruling E-4.15): a double-tracked line earns (value 1 + value 2) % more of its own
        revenue ($60 a mile and half of each end town's $300 × value), at the road's factors and
        margin."""
        view = self.view
        va, vb = view.towns[route.a_id].value, view.towns[route.b_id].value
        line = tables.MILE_REVENUE * route.miles + tables.TOWN_REVENUE * (va + vb) // 2
        regions = len(view.regions_of(rr))
        techs = set(rr.technologies or [])
        if rr.grand_station:
            techs.add("A")
        tech = 1 + sum(v for k, v in tables.REVENUE_TECHS.items() if k in techs)
        factor = (1 + 0.10 * max(0, regions - 1)) * tech * view.climate.revenue_factor
        return line * tables.double_track_percent(va, vb) / 100 * factor * self.margin(rr)

    def double_track(self, rr: Railroad, ro: RailroadOrders, cash: int) -> int:
        """§4.15: double-track the lines whose extra profit repays the cost (25 % of the minimum a
        mile, from cash only) within ``DOUBLE_TRACK_PAYBACK`` turns — and before the game can end
        (§1.3: turn 21) — from the cash the road does not need this turn; best payback first.
        Returns the cash spent."""
        view = self.view
        if rr.status != "active":
            return 0
        turns_left = max(0, 21 - view.turn)
        payback = min(DOUBLE_TRACK_PAYBACK, turns_left)
        if payback <= 0:
            return 0
        doubled = {x.route_id for x in (rr.lines or []) if x.double_tracked}
        spare = max(0, cash) - self.keep_cash(rr, ro.capital_per_mile)
        options = []
        for route in view.lines_of.get(rr.id, []):
            if route.id in doubled:
                continue
            cost = q.double_track_cost(view, route)
            gain = self.double_track_gain(rr, route)
            if cost > 0 and gain * payback >= cost:
                options.append((cost / gain, route.code, cost))
        spent = 0
        for _, code, cost in sorted(options):
            if spent + cost <= spare:
                ro.double_track.append(code)
                spent += cost
        return spent

    def parallel_share(self, rr: Railroad, codes: set[str]) -> float:
        """§4.16 (ruling E-4.16): the part of a road's base revenue earned along its lines
        ``codes`` ($60 a mile; each end town's $300 × value shared among the lines ending there)."""
        view = self.view
        routes = view.lines_of.get(rr.id, [])
        ends: dict[int, int] = {}
        for r in routes:
            for t in {r.a_id, r.b_id}:
                ends[t] = ends.get(t, 0) + 1
        total = part = 0.0
        for r in routes:
            earned = tables.MILE_REVENUE * r.miles + sum(
                tables.TOWN_REVENUE * view.towns[t].value / ends[t] for t in {r.a_id, r.b_id})
            total += earned
            if r.code.upper() in codes:
                part += earned
        return part / total if total else 0.0

    def rate_war(self, rr: Railroad) -> RateWar | None:
        """§4.16: a rate war cuts both roads' revenue along their parallel lines by the same
        percentage, their operating costs unchanged ("an efficient railroad with lower costs will
        do better").  A careful president declares the smallest cut (10–50 %) that turns a
        rival's profit into a loss — no dividend, a falling price (§6.3A), toward insolvency
        (§4.11) — while his own road stays in profit, and only when the war costs him (his stake
        in his road's lost revenue) less than it costs the rival road's largest holder; never
        against a road he holds stock in or presides."""
        view, player = self.view, self.player
        if rr.status != "active":
            return None
        mine = {r.code.upper(): r for r in view.lines_of.get(rr.id, [])}
        my_gross = self.gross_estimate(rr)
        my_profit = self.road_profit(rr) - self.interest(rr)
        if my_profit <= 0:
            return None
        my_stake = view.shares(player, rr) / max(1, rr.shares_issued)
        best: tuple[float, str, int] | None = None
        for code in q.parallel_railroads(view, rr):
            other = view.railroad(code)
            if other is None or other.status != "active" or other.president_id == player.id \
                    or view.shares(player, other) > 0:
                continue
            theirs = {r.code.upper() for r in view.lines_of.get(other.id, [])}
            my_lines = {c for c, r in mine.items() if (r.double_with or "").upper() in theirs}
            their_lines = {(r.double_with or "").upper() for c, r in mine.items() if c in my_lines}
            if not my_lines:
                continue
            my_part = my_gross * self.parallel_share(rr, my_lines)
            their_part = self.gross_estimate(other) * self.parallel_share(other, their_lines)
            their_profit = self.road_profit(other) - self.interest(other)
            their_stake = max((h.shares for h in view.holdings_of.get(other.id, {}).values()), default=0) / \
                max(1, other.shares_issued)
            for pct in RATE_WAR_STEPS:
                mine_lost, theirs_lost = my_part * pct / 100, their_part * pct / 100
                if my_stake * mine_lost >= their_stake * theirs_lost or my_profit - mine_lost <= 0:
                    break
                if their_profit - theirs_lost < 0:
                    key = (their_stake * theirs_lost - my_stake * mine_lost, other.code, pct)
                    if best is None or key[0] > best[0]:
                        best = key
                    break
        return RateWar(best[1], best[2]) if best else None

    def fair_price(self, rr: Railroad) -> float:
        """§6.3A (ruling E-6.3A): the Public's fair price — half the dividend and half the profit
        a share, capitalised at 0.30 × the loan rate (docs/cr/formulas.md)."""
        from pbm.cr.engine.market import CAPITALISATION

        issued = max(1, rr.shares_issued)
        earnings = (rr.last_profit if rr.last_revenue else self.road_profit(rr) - self.interest(rr)) / issued
        rate = self.view.climate.loan_rate
        return max(0.5, (0.5 * rr.dividend + 0.5 * max(0.0, earnings)) / max(rate * CAPITALISATION, 0.005))

    def short_pays(self, rr: Railroad) -> bool:
        """§6.2: a short sale gains what the price falls by the end of the turn.  It pays on a
        stock the Public values well under its price (§6.3A: the Public sells a dear stock down),
        not a penny stock, and not in a Boom (the Public buys)."""
        return rr.price >= SHORT_MIN_PRICE and self.rank < 8 and rr.price >= SHORT_DEAR * self.fair_price(rr)

    def loot_exposure(self, rr: Railroad) -> bool:
        """§4.6C defence: a rival presides ``rr``, which owns a RoW it may build this turn, and he
        pockets more of an overspend than his stake loses (a sole or near-sole director) — the
        road's holders who are not directors pay for it.  A careful holder does not stay."""
        view = self.view
        if rr.president_id is None or rr.president_id == self.player.id or view.is_director(self.player, rr):
            return False
        if view.row_of.get(rr.id) is None or q.is_civil_war(view.turn) or rr.status != "active":
            return False
        president = view.players.get(rr.president_id)
        if president is None:
            return False
        stake = view.shares(president, rr) / max(1, rr.shares_issued)
        return 1 / (max(1, len(view.directors(rr))) + 1) >= stake + 0.05

    # -- a careful president's arithmetic (§4.6, §4.10, §4.12, §10.2B) -----------------------

    def gross_estimate(self, rr: Railroad, extra: Route | None = None) -> float:
        """§4.10A: the road's gross revenue this climate (no noise), with ``extra`` built."""
        view = self.view
        towns = set(view.town_set(rr.id))
        miles = view.miles(rr)
        if extra is not None:
            towns |= {extra.a_id, extra.b_id}
            miles += extra.miles
        base = tables.MILE_REVENUE * miles + tables.TOWN_REVENUE * sum(view.towns[t].value for t in towns)
        regions = len(view.regions_of(rr, [extra] if extra is not None else ()))
        techs = set(rr.technologies or [])
        if rr.grand_station:
            techs.add("A")
        tech = 1 + sum(v for k, v in tables.REVENUE_TECHS.items() if k in techs)
        return base * (1 + 0.10 * max(0, regions - 1)) * tech * view.climate.revenue_factor

    def margin(self, rr: Railroad, efficiency: int | None = None) -> float:
        """§4.10B: the share of gross revenue left after operating costs at the road's efficiency
        (or at ``efficiency``)."""
        efficiency = rr.efficiency if efficiency is None else efficiency
        ratio = 1.0 - (efficiency - 50) * 0.35 / 45
        for letter, saving in tables.COST_TECHS.items():
            if letter in (rr.technologies or []):
                ratio *= 1 - saving
        return max(0.0, 1.0 - max(ratio, 1.0 if efficiency <= 50 else 0.0))

    def interest(self, rr: Railroad, rate: float | None = None) -> float:
        """§4.6E, §5: a turn's interest on the road's bonds (6 %) and short-term loans."""
        return rr.bond_debt * tables.BOND_RATE + rr.loan_debt * (self.view.climate.loan_rate if rate is None else rate)

    def row_outlook(self, rr: Railroad, row: Route) -> RowOutlook:
        """What building ``row`` costs (§4.6B–D at the minimum, less the new stock's cash, §4.3A2)
        and earns each turn (the new miles, towns and regions, §4.10A, §2.7C), after the interest
        on what is borrowed for it (§4.6E: half by bonds, the rest by loans when cash lacks)."""
        key = ("ai:row", rr.id, row.id)
        memo = self.view.memo
        if key in memo:
            return memo[key]
        view = self.view
        low, _ = q.build_cost_range(view.game.climate)
        cost = low * row.miles + tables.TOWN_BUILD_COST * sum(view.towns[t].value for t in {row.a_id, row.b_id})
        new = tables.SHARES_PER_MILE * row.miles
        directors = min(5, len(view.directors(rr)))
        bonus = new * tables.DIRECTOR_PCT // 100 * directors
        public = new - new * tables.TREASURY_PCT // 100 - bonus
        stock_cash = bonus * rr.price / 2 + public * rr.price * tables.BROKER_DISCOUNT
        earns = (self.gross_estimate(rr, row) - self.gross_estimate(rr)) * self.margin(rr)
        # §4.5C: past 3,000 miles every 50 more take a point off the whole road's highest
        # efficiency (§4.17: and 3 for each engine it lags): the road's margin on all it earns
        top = tables.max_efficiency(view.miles(rr) + row.miles, rr.locomotive, tables.best_locomotive(view.turn))
        if top < rr.efficiency:
            earns -= self.gross_estimate(rr, row) * (self.margin(rr) - self.margin(rr, top))
        rate = max(view.climate.loan_rate, 0.10)  # the loan outlives this turn's climate
        borrowed = max(0.0, cost / 2 - stock_cash)
        pays = earns - cost / 2 * tables.BOND_RATE - borrowed * rate
        regions = len(view.regions_of(rr, [row])) - len(view.regions_of(rr))
        out = RowOutlook(cost=cost, stock_cash=stock_cash, earns=earns, pays=pays, new_regions=regions)
        memo[key] = out
        return out

    def road_profit(self, rr: Railroad) -> float:
        """The road's operating profit before interest this turn (its record, else the estimate)."""
        if rr.last_revenue > 0:
            gross = max(rr.last_revenue, 0) * 0.5 + self.gross_estimate(rr) * 0.5
        else:
            gross = self.gross_estimate(rr)
        return gross * self.margin(rr)

    def build_decision(self, rr: Railroad, row: Route, cash: int, extra: float = 0.0) -> str:
        """"build", "wait" or "abandon" the owned RoW, as a careful president would.

        Build when the line pays its interest (or opens a region, §2.7C, §1.2) and the road,
        with the new debt, still earns its interest in a worse turn (revenue −20 %, loans +3
        points) or has the cash to ride it out; otherwise wait for a cheaper turn (§4.6B: the
        minimum falls with the climate), and abandon (§4.6 5) a line that could never pay its
        way, so the road may bid for a better one (§4.7B)."""
        out = self.row_outlook(rr, row)
        pays = out.pays > 0 or (out.new_regions > 0 and out.pays > -0.02 * out.cost)
        rate = self.view.climate.loan_rate + 0.03
        total = out.cost + extra  # ``extra``: a §4.6C overspend the road pays on top
        debt_interest = self.interest(rr, rate) + total / 2 * tables.BOND_RATE + \
            max(0.0, total / 2 - out.stock_cash - max(0, cash)) * rate
        stress = (self.road_profit(rr) + out.earns) * 0.8 - debt_interest
        carries = stress > 0 or max(0, cash) + out.stock_cash >= -stress * 2 + total / 2
        if pays and carries:
            return "build"
        # at the cheapest climate ($200 a mile, §4.6B) would it ever pay?
        cheapest = (out.cost - (q.build_cost_range(self.view.game.climate)[0] - 200) * row.miles)
        ever = out.earns - cheapest / 2 * tables.BOND_RATE - max(0.0, cheapest / 2 - out.stock_cash) * 0.10
        if ever <= 0 and out.new_regions == 0:
            return "abandon"
        return "wait"

    def treasury(self, rr: Railroad, ro: RailroadOrders, cash: int) -> None:
        """§10.2B, §4.12: repay short-term loans from cash the road will not need this turn, then
        set the dividend: a part of the expected profit a share (whole dollars, §4.12), and a
        share of any hoard beyond a year's needs once the dear debt is gone."""
        issued = max(1, rr.shares_issued)
        profit = self.road_profit(rr) - self.interest(rr)
        capital = ro.capital_per_mile * max(1, self.view.miles(rr)) // 2
        # keep: a turn's interest and a bad turn's loss, this turn's capital spending, a cushion
        keep = int(self.interest(rr) + capital + max(0.0, -profit) * 2 + 0.15 * max(0, rr.last_revenue))
        spare = max(0, cash - keep)
        if rr.loan_debt > 0 and spare > 0:
            ro.repay_debt = min(rr.loan_debt, spare, max(0, rr.cash))
            spare -= ro.repay_debt
            cash -= ro.repay_debt
            profit += ro.repay_debt * self.view.climate.loan_rate
        share = {"speculator": 0.75, "empire": 0.3}.get(self.style, 0.5)
        pay = max(0.0, profit) * share
        per = pay / issued
        div = int(per)
        # whole dollars a share (§4.12): after a split the part is often under $1; a road sitting
        # on a hoard (ten times the next dollar a share, spare) rounds it up rather than pay $0
        if per - div >= 0.5 and (div + 1) * issued * HOARD_TURNS <= spare:
            div += 1
        if rr.last_profit <= 0 and profit <= 0:
            div = 0
        div = max(0, min(q.MAX_DIVIDEND, div))
        if div * issued > max(0, cash) + max(0.0, profit):
            div = max(0, int((max(0, cash) + max(0.0, profit)) // issued))
        ro.dividend = min(div, q.MAX_DIVIDEND)

    def choose_rows(self, rr: Railroad) -> list[str]:
        """Valid RoWs, best first: new regions (doubly so if unclaimed), big towns, westward."""
        view = self.view
        have_regions = view.regions_of(rr)
        have_towns = view.towns_of(rr)
        partner_towns: set[int] = set()
        if self.style == "empire":  # toward its other railroad, so the two can merge (§4.13)
            for other in self.presided:
                if other.id != rr.id:
                    partner_towns |= view.towns_of(other)
        reached = set()
        for other in view.active_railroads():
            if other.id != rr.id:
                reached |= view.regions_of(other)
        scored: list[tuple[float, str]] = []
        for code in q.valid_rows(view, rr):
            route = view.route_by_code[code.upper()]
            score = 0.0
            for tid in (route.a_id, route.b_id):
                town = view.towns[tid]
                if tid in have_towns:
                    continue
                score += town.value
                if town.star and town.region not in have_regions:
                    score += 40 if town.region not in reached else 20
                score += max(0.0, -town.lon - 70) * 0.5  # westward
                if tid in partner_towns:
                    score += 30
            score -= route.miles / 50
            # §4.6D: what the line would earn over the interest on its cost, towns included
            out = self.row_outlook(rr, route)
            if out.pays <= 0 and out.new_regions == 0:
                continue  # a line that never pays its way is not worth the political spending
            score += max(-30.0, min(30.0, out.pays / 200))
            score += float(self.rng.random()) * 3
            scored.append((score, code))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [c for _, c in scored[:2]]

    # -- §10.1B ---------------------------------------------------------

    def pc_actions(self) -> None:
        view = self.view
        slots_free = 2 - len(self.presided)
        my_rrs = {r.code for r in self.presided}
        director_of = {r.code for r in view.active_railroads() if view.is_director(self.player, r)}
        control: list[str | None] = [None, None]
        for pc in view.pcs_owned(self.player):
            code = q.pc_code(view, pc)
            targets = q.mergeable_railroads(view, pc) if not pc.for_sale else []
            mine = [t for t in targets if t in my_rrs]
            friendly = [t for t in targets if t in director_of]
            if mine:
                self.o.pc_actions.append(PCAction(code, "merge", railroad=mine[0]))
            elif slots_free > 0 and not pc.for_sale and (self.style != "speculator" or not friendly):
                self.o.pc_actions.append(PCAction(code, "incorporate", president=True))
                slot = 0 if control[0] is None and not self.player.slot1_id else 1
                if control[slot] is None:
                    control[slot] = code
                slots_free -= 1
            elif friendly or targets:
                self.o.pc_actions.append(PCAction(code, "merge", railroad=(friendly or targets)[0]))
            elif self.style == "speculator" and not pc.for_sale and pc.paid:
                low, high = q.pc_ask_range(view, pc)
                floor = q.PC_PRICE_FLOOR_PER_MILE * view.routes[pc.route_id].miles
                self.o.pc_actions.append(PCAction(code, "sell", price=max(high, floor, low)))
        if any(control):
            self.o.control = control

    def pc_bids(self) -> None:
        view, rng = self.view, self.rng
        allowed = q.pc_bids_allowed(view, self.player)
        incorporating = sum(a.action == "incorporate" for a in self.o.pc_actions)
        if allowed == 0 or self.cash <= 0:
            return
        if self.style == "speculator":
            allowed = min(allowed, 1)
        offers = [o for o in q.pcs_for_sale(view) if o.seller != self.player.number]
        if not offers:
            return
        my_rrs = [r for r in self.presided]
        scored = []
        for offer in offers:
            pc = view.pc(offer.code)
            route = view.routes[pc.route_id]
            score = 0.0
            for tid in (route.a_id, route.b_id):
                town = view.towns[tid]
                score += town.value + (15 if town.star else 0)
            merge = q.mergeable_railroads(view, pc)
            if any(r.code in merge for r in my_rrs):
                score += 60 if self.style == "empire" else 30
            elif merge:
                score += 8
            score /= max(1.0, offer.asking / 500)
            score += float(rng.random()) * 10
            scored.append((score, offer))
        scored.sort(key=lambda x: (-x[0], x[1].code))
        if self.overloaded:
            return
        budget = int(max(0, self.cash - self.reserve) * {"speculator": 0.4, "empire": 0.8}.get(self.style, 0.7))
        if incorporating:
            budget //= 2
        seq = 0
        for _, offer in scored:
            if seq >= allowed:
                break
            markup = 1.0 + float(rng.random()) * {"speculator": 0.15, "empire": 0.6}.get(self.style, 0.5)
            amount = int(offer.min_bid * markup)
            if amount > budget:
                amount = budget if budget >= offer.min_bid else 0
            if amount <= 0:
                continue
            seq += 1
            self.o.pc_bids.append(PCBid(offer.code, amount, seq))
            budget -= amount
            self.cash -= amount

    # -- §6.1, §6.2 -------------------------------------------------------

    def stock(self) -> None:
        view, rng, player = self.view, self.rng, self.player
        active = sorted(view.active_railroads(), key=lambda r: r.number)
        if not active:
            return
        bids_allowed = q.stock_bid_count_limit(len(active))
        sells: list[StockOrder] = []
        buys: list[StockOrder] = []
        used: set[str] = set()

        yields = view.remember("ai:yield", lambda: {  # the same for every seat of the turn
            rr.id: (rr.dividend + max(0, rr.last_profit) / max(1, rr.shares_issued) * 0.5) / max(rr.price, 1.0)
            for rr in active})

        def value(rr: Railroad) -> float:
            """Yield of dividend and profit on the price (higher = cheaper stock)."""
            return yields[rr.id]

        ranked = sorted(active, key=lambda r: (-value(r), r.number))
        my_rrs = {r.id for r in self.presided}
        # Answer a raid: a rival close to our holding who could overtake it with this turn's
        # maximum bid (§6.1A).  In a cornered stock nobody can, and bidding there only ratchets
        # the price up against a Public with nothing left to sell.
        for rr in self.presided:
            if rr.status == "bankrupt" or self.overloaded or rr.shares_public < 0.05 * rr.shares_issued:
                continue
            own = view.shares(player, rr)
            threat = False
            for pid, h in view.holdings_of.get(rr.id, {}).items():
                if pid != player.id and h.shares >= 0.8 * own:
                    rival = view.players.get(pid)
                    if rival is not None and h.shares + q.max_stock_bid(view, rival, rr) > own:
                        threat = True
            if threat and len(buys) < bids_allowed:
                most = q.max_stock_bid(view, player, rr)
                if most > 0:
                    buys.append(StockOrder(rr.code, "buy", most))
                    used.add(rr.code)
        # Presidency / directorship target.
        target = None if self.overloaded else self.control_target(active)
        if target is not None and target.code not in used and len(buys) < bids_allowed:
            most = q.max_stock_bid(view, player, target)
            if most > 0:
                buys.append(StockOrder(target.code, "buy", most))
                used.add(target.code)
        # Sales: speculators take profits on dear stock; everyone raises cash when a target needs it.
        for rr in sorted(active, key=lambda r: (value(r), r.number)):
            own = view.shares(player, rr)
            if not own or rr.code in used or rr.id in my_rrs or view.is_director(player, rr):
                continue
            dear = value(rr) < 0.03 or rr.status == "bankrupt"
            exposed = self.loot_exposure(rr)  # §4.6C: a rival sole director may loot it this turn
            if exposed:
                self.tactics.append(("loot-defence", rr.code))
            if exposed or self.overloaded or (self.style == "speculator" and (dear or self.rank <= 2)) or \
                    (target is not None and rng.random() < 0.5):
                sells.append(StockOrder(rr.code, "sell", own))
                used.add(rr.code)
            if len(sells) >= 3:
                break
        # §6.2 short sales: the speculator in bad climates (the dearest low-yield stock), and any
        # careful player, in Normal or worse, where the price stands well above what the Public
        # thinks it is worth (short_pays); one a turn.
        if not self.overloaded and (self.style == "speculator" or self.rank <= 4):
            for rr in sorted(active, key=lambda r: (-r.price, r.number)):
                if rr.code in used or view.shares(player, rr):
                    continue
                short = q.max_short(view, player, rr)
                if short > 0 and (self.short_pays(rr) or
                                  (self.style == "speculator" and self.rank <= 3 and value(rr) < 0.08)):
                    sells.append(StockOrder(rr.code, "short", short))
                    used.add(rr.code)
                    break
        # Value buys with what is left (none while deleveraging).
        # A value buy is a position, not a bid for control: part of the maximum, spread over the
        # few cheapest stocks at random so fifteen computer tycoons do not all rush one stock.
        want = 0 if self.overloaded else (1 if self.style == "builder" else bids_allowed)
        pool = [rr for rr in ranked if rr.code not in used and rr.status != "bankrupt"
                and rr.shares_public >= 0.05 * rr.shares_issued  # nothing to buy from the Public
                and not self.loot_exposure(rr)  # §4.6C: not into a road a rival may loot
                and not (self.rank <= 1 and rr.price > 30)][:4]  # Appendix C: no dear stock in panics
        order = list(rng.permutation(len(pool))) if pool else []
        for k in order:
            if len(buys) >= min(want, bids_allowed):
                break
            rr = pool[int(k)]
            most = q.max_stock_bid(view, player, rr)
            part = (0.25 + 0.35 * float(rng.random())) if self.style == "builder" else \
                (0.4 + 0.4 * float(rng.random()))
            shares = int(most * part)
            if shares > 0:
                buys.append(StockOrder(rr.code, "buy", shares))
                used.add(rr.code)
        orders = (sells + buys)[: q.MAX_STOCK_ORDERS]
        # §6.1C: keep only what the cash (after all PC bids are paid) can fund.
        rows = [(o.railroad, o.action, o.shares, view.shares(player, view.rr_by_code[o.railroad.upper()]))
                for o in orders]
        prices = {o.railroad: view.rr_by_code[o.railroad.upper()].price for o in orders}
        checks = q.check_stock_cash(max(0, self.cash - self.reserve), rows, prices)
        final: list[StockOrder] = []
        for c, o in zip(checks, orders):
            if c.allowed > 0:
                final.append(StockOrder(o.railroad, o.action, c.allowed, len(final) + 1))
        self.o.stock = final
        self.request_control(active, final)

    def control_target(self, active: list[Railroad]) -> Railroad | None:
        """A railroad whose presidency (or directorship) a maximum bid can win."""
        view, player = self.view, self.player
        if len(self.presided) >= 2 or self.rank <= 1:
            return None
        best: tuple[float, Railroad] | None = None
        for rr in active:
            if rr.status == "bankrupt" or rr.id in {r.id for r in self.presided} \
                    or rr.shares_public < 0.05 * rr.shares_issued:  # cornered: only a price ratchet
                continue
            own = view.shares(player, rr)
            bid = q.max_stock_bid(view, player, rr)
            if bid <= 0:
                continue
            after = own + bid
            if after < q.DIRECTOR_PCT * rr.shares_issued:
                continue
            rivals = max((h.shares for pid, h in view.holdings_of.get(rr.id, {}).items() if pid != player.id),
                         default=0)
            cost = bid * rr.price
            if cost > max(0, self.cash) * 1.2:
                continue
            score = (after - rivals) / max(1, rr.shares_issued) + (0.5 if rr.president_id is None else 0.0)
            score += float(self.rng.random()) * 0.1
            if best is None or score > best[0]:
                best = (score, rr)
        return best[1] if best else None

    def request_control(self, active: list[Railroad], stock: list[StockOrder]) -> None:
        """§10.1D: keep the railroads presided; seek one where we are (or will be) the leading Director."""
        view, player = self.view, self.player
        current = list(self.o.control or [None, None])
        presided_codes = [r.code for r in self.presided]
        wanted = [c for c in current if c]
        for code in presided_codes:
            if code not in wanted:
                wanted.append(code)
        bought = {o.railroad for o in stock if o.action == "buy"}
        for rr in sorted(active, key=lambda r: -view.shares(player, r)):
            if len(wanted) >= 2:
                break
            if rr.code in wanted or rr.status == "bankrupt":
                continue
            if view.is_director(player, rr) or rr.code in bought:
                wanted.append(rr.code)
        slots: list[str | None] = [None, None]
        # keep each presided railroad in its own slot
        for code in wanted:
            rr = view.railroad(code)
            if rr is not None and rr.id == player.slot1_id and slots[0] is None:
                slots[0] = code
            elif rr is not None and rr.id == player.slot2_id and slots[1] is None:
                slots[1] = code
        for code in wanted:
            if code in slots:
                continue
            if slots[0] is None:
                slots[0] = code
            elif slots[1] is None:
                slots[1] = code
        self.o.control = slots if any(slots) else None

    # -- §10.1E–F, §1.2 ----------------------------------------------------

    def merge_railroads(self) -> None:
        if len(self.presided) < 2:
            return
        a, b = self.presided[0], self.presided[1]
        # §4.5C: not into a road so long that its highest efficiency falls 5 points under theirs
        top = tables.max_efficiency(self.view.miles(a) + self.view.miles(b), min(a.locomotive, b.locomotive),
                                    tables.best_locomotive(self.view.turn))
        if top < min(a.efficiency, b.efficiency) - 5:
            return
        for merging, surviving in ((b, a), (a, b)):
            check_ = q.merge_check(self.view, self.player, merging, surviving)
            if check_.allowed and not check_.dropped:
                self.o.merge = (merging.code, surviving.code)
                # the merging road's orders stop mattering after step 12; keep them simple
                return

    def spy(self) -> None:
        view = self.view
        others = [n for n in view.by_number if n != self.player.number]
        if others:
            self.o.spy_player = int(self.rng.choice(others))
        mine = {r.id for r in self.presided}
        targets = [r for r in sorted(view.active_railroads(), key=lambda r: r.number) if r.id not in mine]
        if targets:
            self.o.spy_railroad = targets[int(self.rng.integers(0, len(targets)))].code

    def prodigal(self) -> None:
        """§1.2: the rich buy a little fame (never below $1,000, never past half the cash left)."""
        if self.cash > 20_000 and self.rng.random() < 0.5:
            self.o.prodigal = int(max(1000, self.cash * 0.05))
            if self.o.prodigal > self.cash // 2:
                self.o.prodigal = 0


class NaivePlanner(Planner):
    """The baseline: random orders, each legal (the validator drops what is not), no plan.

    It borrows a random part of its credit in Normal or better climates, bids the minimum for a
    random PC, incorporates or merges its PCs at random, buys random amounts of random stocks and
    sells a random holding, runs its railroads with random capital spending, a random RoW and a
    random dividend.  The personalities must beat it (scripts/tournament.py)."""

    def plan(self) -> Orders:
        view, rng, p = self.view, self.rng, self.player
        if p.recall:
            self.o.repay = min(p.cash, p.loan, max(p.recall, 0))
        elif self.rank >= 4 and rng.random() < 0.5:
            self.o.borrow = int(q.available_credit(view, p) * 0.3 * float(rng.random()))
        self.cash += self.o.borrow - self.o.repay
        self.reserve = math.ceil((p.loan + self.o.borrow) * view.climate.loan_rate)
        for rr in self.presided:
            ro = RailroadOrders(rr.code)
            ro.capital_per_mile = int(rng.integers(0, 21))
            if rr.status != "bankrupt":
                rows = q.valid_rows(view, rr)
                if view.row_of.get(rr.id) is not None and not q.is_civil_war(view.turn):
                    ro.build_per_mile = q.build_cost_range(view.game.climate)[0]
                elif rows:
                    ro.row_first = rows[int(rng.integers(0, len(rows)))]
                per_share = max(0.0, rr.last_profit / max(1, rr.shares_issued))
                ro.dividend = max(0, min(q.MAX_DIVIDEND, int(per_share * float(rng.random())),
                                         max(0, rr.cash) // 2 // max(1, rr.shares_issued)))
            self.o.railroads.append(ro)
        slots_free = 2 - len(self.presided)
        for pc in view.pcs_owned(p):
            targets = q.mergeable_railroads(view, pc) if not pc.for_sale else []
            code = q.pc_code(view, pc)
            if targets and rng.random() < 0.5:
                self.o.pc_actions.append(PCAction(code, "merge", railroad=targets[int(rng.integers(0, len(targets)))]))
            elif slots_free > 0 and not pc.for_sale and rng.random() < 0.5:
                self.o.pc_actions.append(PCAction(code, "incorporate", president=True))
                slots_free -= 1
        offers = [o for o in q.pcs_for_sale(view) if o.seller != p.number]
        if offers and q.pc_bids_allowed(view, p) and rng.random() < 0.5:
            offer = offers[int(rng.integers(0, len(offers)))]
            if offer.min_bid <= self.cash - self.reserve:
                self.o.pc_bids.append(PCBid(offer.code, offer.min_bid, 1))
                self.cash -= offer.min_bid
        active = sorted(view.active_railroads(), key=lambda r: r.number)
        stock: list[StockOrder] = []
        owned = [r for r in active if view.shares(p, r) and r.id not in {x.id for x in self.presided}
                 and not view.is_director(p, r)]
        if owned and rng.random() < 0.3:
            rr = owned[int(rng.integers(0, len(owned)))]
            stock.append(StockOrder(rr.code, "sell", view.shares(p, rr)))
        if active:
            picks = rng.permutation(len(active))[: int(rng.integers(0, q.stock_bid_count_limit(len(active)) + 1))]
            for k in picks:
                rr = active[int(k)]
                if any(o.railroad == rr.code for o in stock):
                    continue
                shares = int(q.max_stock_bid(view, p, rr) * float(rng.random()))
                if shares > 0:
                    stock.append(StockOrder(rr.code, "buy", shares))
        rows = [(o.railroad, o.action, o.shares, view.shares(p, view.rr_by_code[o.railroad.upper()])) for o in stock]
        prices = {o.railroad: view.rr_by_code[o.railroad.upper()].price for o in stock}
        checks = q.check_stock_cash(max(0, self.cash - self.reserve), rows, prices)
        self.o.stock = [StockOrder(o.railroad, o.action, c.allowed, i + 1)
                        for i, (c, o) in enumerate((c, o) for c, o in zip(checks, stock) if c.allowed > 0)]
        self.request_control(active, self.o.stock)
        return self.o


class LooterPlanner(Planner):
    """scripts/tournament.py's "overspend looter" (issue 31): plays the §4.6C overspend every
    time it can.  It buys the leading directorship (maximum bids, §6.1A) of a road that owns a
    RoW and has few directors, asks to preside it, builds the RoW at double the minimum the next
    turn — pocketing 1/(directors + 1) of the excess as a director counted at the start of the
    turn — and sells all its shares the same turn (stock trading, step 6, comes before building,
    step 9; elections, step 15, after).  Otherwise it plays as a builder."""

    def run_railroad(self, rr: Railroad) -> RailroadOrders:
        ro = super().run_railroad(rr)
        view = self.view
        row = view.row_of.get(rr.id)
        if row is not None and rr.status == "active" and not q.is_civil_war(view.turn):
            low, high = q.build_cost_range(view.game.climate)
            ro.build_per_mile, ro.abandon = high, False
            self.looting.add(rr.code)
        return ro

    def control_target(self, active: list[Railroad]) -> Railroad | None:
        """The road with the most loot in reach: a RoW owned, few directors, a maximum bid that
        makes this tycoon its leading Director."""
        view, player = self.view, self.player
        keeping = [r for r in self.presided if r.code not in self.looting]
        if len(keeping) >= 2 or self.rank <= 1:
            return None
        low, high = q.build_cost_range(view.game.climate)
        best: tuple[float, Railroad] | None = None
        for rr in active:
            if rr.status == "bankrupt" or rr.president_id == player.id or q.is_cornered(view, rr):
                continue
            own = view.shares(player, rr)
            bid = q.max_stock_bid(view, player, rr)
            rivals = max((h.shares for pid, h in view.holdings_of.get(rr.id, {}).items() if pid != player.id),
                         default=0)
            if bid <= 0 or own + bid < q.DIRECTOR_PCT * rr.shares_issued or own + bid <= rivals:
                continue
            if bid * rr.price > max(0, self.cash) * 1.2:
                continue
            row = view.row_of.get(rr.id)
            loot = (high - low) * (row.miles if row else 100) / (len(view.directors(rr)) + 2)
            score = loot - bid * rr.price * 0.1 + float(self.rng.random())
            if best is None or score > best[0]:
                best = (score, rr)
        return best[1] if best else None

    def stock(self) -> None:
        super().stock()
        view = self.view
        if not self.looting:
            return
        kept = [o for o in self.o.stock if o.railroad not in self.looting]
        sells = [StockOrder(code, "sell", view.shares(self.player, view.rr_by_code[code]))
                 for code in sorted(self.looting) if view.shares(self.player, view.rr_by_code[code]) > 0]
        orders = (sells + kept)[: q.MAX_STOCK_ORDERS]
        self.o.stock = [StockOrder(o.railroad, o.action, o.shares, i + 1) for i, o in enumerate(orders)]
        # the looted roads are left: ask to preside only the others
        if self.o.control:
            self.o.control = [c if c not in self.looting else None for c in self.o.control]
            if not any(self.o.control):
                self.o.control = None


def route_towns(route: Route) -> tuple[int, int]:
    return route.a_id, route.b_id

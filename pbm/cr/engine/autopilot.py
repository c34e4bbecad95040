"""Orders for a railroad nobody gives orders to (§3.1, §4.12, §10.2).

A road with an anonymous president — or a computer-played tycoon whose
orders say nothing for it — is run by these plain rules (ruling E-10.2):
keep efficiency up (about $12 a mile, more when it is low), build its RoW at
the minimum cost, seek the valid RoW reaching the most valuable new town with
$1 a mile of influence, and (in operations) pay half the profit as dividend.
Human presidents without orders keep their standing orders instead
(§10.1D, §10.2H): nothing is done but the dividend rate is unchanged.
"""

from __future__ import annotations

from pbm.cr.engine import tables
from pbm.cr.engine.context import TurnContext
from pbm.cr.engine.rights import valid_rows
from pbm.cr.orders import RailroadOrders
from pbm.models import Railroad


def autopilot_orders(ctx: TurnContext, rr: Railroad) -> RailroadOrders:
    ro = RailroadOrders(railroad=rr.code)
    miles = max(1, ctx.miles(rr))
    ro.capital_per_mile = 15 if rr.efficiency < 80 else 12
    if ctx.row_of(rr) is not None:
        ro.build_per_mile = ctx.climate.build_min
    else:
        have = ctx.towns_of(rr)
        best = None
        for route in valid_rows(ctx, rr):
            gain = sum(ctx.towns[t].value for t in (route.a_id, route.b_id) if t not in have)
            key = (gain, -route.miles, -route.number)
            if best is None or key > best[0]:
                best = (key, route.code)
        if best is not None:
            ro.row_first = best[1]
            if rr.cash > 2 * miles:
                ro.political = miles
    best_engine = tables.best_locomotive(ctx.turn)
    if best_engine > rr.locomotive and rr.cash > 3 * tables.locomotive_cost(miles, rr.locomotive, best_engine):
        ro.locomotive = best_engine
    return ro

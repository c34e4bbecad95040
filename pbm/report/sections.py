"""The sections of a player's turn report (§9.1–§9.6) as plain rows of text.

Each function takes the turn's :class:`~pbm.report.view.TurnData` and the
viewer's :class:`~pbm.report.visibility.Visibility` and returns values (lists
of strings) that :mod:`pbm.report.pdf` lays out.  Nothing here is escaped:
escaping is done where text becomes markup.

What the engine is expected to record (see ``docs/reports.md``):

* ``RailroadTurn.data``: ``public_offered``, ``public_bid``, ``players_offered``,
  ``players_bid`` (shares) for the stock market columns of §9.4;
* stock trades as events of step ``6.x`` with ``player_number``, ``railroad``
  and ``data['shares']``; a kind containing ``buy`` or ``bid`` is a purchase,
  ``sell`` or ``short`` a sale;
* headline events (``headline`` true) for §9.1; events private to a player
  (``private_to``) are that player's own news, shown in §9.6.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbm.report.news import news_for
from pbm.report.view import TurnData
from pbm.report.visibility import Visibility

MESSAGE_LENGTH = 80  # §10.1G
MAX_BID_PCT = 20  # §6.1, §10.1C5


def money(amount: int | float | None) -> str:
    if amount is None:
        return "-"
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,.0f}"


def price(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def efficiency_level(value: int) -> str:
    """§4.5B: efficiency as a general level."""
    if value >= 90:
        return "Excellent"
    if value >= 80:
        return "Good"
    if value >= 70:
        return "Average"
    if value >= 60:
        return "Below average"
    if value >= 50:
        return "Poor"
    return "Very poor"


def character(data: TurnData, number: int | None) -> str:
    if number is None:
        return "anonymous"
    try:
        return data.player(number)["character"]
    except Exception:
        return f"player {number}"


def short_who(data: TurnData, number: int | None) -> str:
    """``#3 Jay Gould`` (or ``anon.`` for an anonymous president, §4.14C)."""
    if number is None:
        return "anon."
    return f"#{number} {character(data, number)}"


# -- §9.1 Headlines ------------------------------------------------------------------

@dataclass
class Headlines:
    news: list[str] = field(default_factory=list)
    messages: list[tuple[str, str]] = field(default_factory=list)  # (who, text)
    world: str = ""


def _event_visible(e: dict[str, Any], viewer: int | None) -> bool:
    return e["private_to"] is None or (viewer is not None and viewer in e["private_to"])


def cornered(data: TurnData) -> list[str]:
    """§6: a stock is cornered when its directors own more than 50 % of the issued stock."""
    out = []
    holdings: dict[str, dict[int, int]] = {}
    for p in data.players:
        for h in p["holdings"]:
            holdings.setdefault(h["railroad"], {})[p["number"]] = h["shares"]
    for r in data.railroads:
        if r["status"] != "active" or not r["shares_issued"]:
            continue
        held = sum(holdings.get(r["code"], {}).get(n, 0) for n in r.get("directors") or [])
        if held * 2 > r["shares_issued"]:
            out.append(r["code"])
    return out


def headlines(data: TurnData, vis: Visibility | None) -> Headlines:
    """§9.1: headline events, players' messages (§10.1G), cornered stocks, new PCs, world news."""
    viewer = vis.viewer if vis else None
    out = Headlines(world=news_for(int(data.game.get("year") or 1841)))
    seen: set[str] = set()
    for e in data.events:
        if e["kind"] == "message":
            continue  # messages come from the orders below
        important = e["headline"] or any(k in e["kind"] for k in ("bankrupt", "split", "panic", "reorgan"))
        if important and _event_visible(e, viewer) and e["text"] and e["text"] not in seen:
            seen.add(e["text"])
            out.news.append(e["text"])
    announced = {e["railroad"] for e in data.events if e["kind"] == "cornered"}
    for code in cornered(data):
        if code in announced:
            continue  # the engine's own announcement (§6.4) is already among the headlines
        r = data.railroad(code)
        line = f"{code} ({r['name']}) stock is cornered: its directors own more than half the issued shares."
        if line not in seen:
            out.news.append(line)
    next_turn = data.turn + 1
    new_pcs = sorted(pc["code"] for pc in data.state["private_companies"]
                     if pc["status"] == "bank" and pc.get("appeared_turn") == next_turn and data.turn > 0)
    if new_pcs:
        out.news.append(f"New private companies offered by the bank: {', '.join(new_pcs)}.")
    for number in sorted(data.orders):
        text = str(data.orders[number].get("message") or "").strip()
        if text:
            out.messages.append((f"#{number} {character(data, number)}", text[:MESSAGE_LENGTH]))
    return out


# -- §9.2 Player summary --------------------------------------------------------------

PLAYER_HEADER = ["#", "Character", "Controls", "PCs", "Stock you may see", "Player", "Phone"]


def player_summary(data: TurnData, vis: Visibility) -> list[list[str]]:
    """§9.2: every position by net worth, highest first."""
    rows = []
    code_of_slot = {}
    for p in data.players:
        code_of_slot[p["number"]] = [c for c in p["slots"] if c]
    presides: dict[int, list[str]] = {}
    for r in data.railroads:
        if r["status"] == "active" and r.get("president"):
            presides.setdefault(r["president"], []).append(r["code"])
    for p in sorted(data.players, key=lambda p: (-p["net_worth"], p["number"])):
        n = p["number"]
        controlled = code_of_slot.get(n) or sorted(presides.get(n, []))
        stock = [f"{h['railroad']} {h['shares']}" + (f" (short {h['short']})" if h["short"] else "")
                 for h in p["holdings"] if vis.sees_shares(n, h["railroad"])]
        rows.append([
            str(n), p["character"], ", ".join(controlled) or "-", ", ".join(p["private_companies"]) or "-",
            ", ".join(stock) or ("-" if n == vis.viewer or n == vis.spied_player else ""),
            vis.real_name(data, n), vis.phone(data, n),
        ])
    return rows


# -- §9.3 Railroad summary ------------------------------------------------------------

RAILROAD_HEADER = ["RR", "Track", "Revenues", "Op. Expense", "Bond Debt", "Loan Debt", "Pft/sh", "Div/sh",
                   "Land", "Grant", "Pres", "Chr", "Other Directors"]


@dataclass
class RailroadBlock:
    row: list[str]
    name: str
    lines: list[str]
    confidential: list[str]  # only for directors and spies (§4.14A)


def railroad_summary(data: TurnData, vis: Visibility | None) -> list[RailroadBlock]:
    """§9.3: every active railroad's public figures, then its lines."""
    out = []
    for r in sorted(data.railroads, key=lambda r: r["number"]):
        if r["status"] == "merged":
            continue
        last = r.get("last") or {}
        issued = r["shares_issued"] or 0
        pft = (last.get("profit", 0) / issued) if issued else 0.0
        grant = (r.get("row") or {}).get("land_grant") or 0
        others = [d for d in (r.get("directors") or []) if d not in (r.get("president"), r.get("chairman"))]
        row = [
            r["code"], f"{r['miles']:,}", money(last.get("revenue", 0)), money(last.get("expenses", 0)),
            money(r["bond_debt"]), money(r["loan_debt"]), f"{pft:,.2f}", str(last.get("dividend", 0)),
            f"{r['land']:,}", f"{grant:,}", short_who(data, r.get("president")),
            short_who(data, r.get("chairman")) if r.get("chairman") else "-",
            ", ".join(f"#{d}" for d in others) or "-",
        ]
        lines = [f"{line['code']} {line['a']}–{line['b']} {line['miles']} mi"
                 + (" (double track)" if line.get("double_tracked") else "") for line in r["lines"]]
        if r.get("row"):
            lines.append(f"RoW owned (unbuilt): {r['row']['code']}")
        conf: list[str] = []
        if vis is None or vis.sees_confidential(r["code"]):
            techs = ", ".join(r.get("technologies") or []) or "none"
            conf = [
                f"cash {money(r['cash'])}", f"efficiency {r['efficiency']} ({efficiency_level(r['efficiency'])})",
                f"locomotive {r['locomotive']}", f"technologies {techs}",
                f"president's loan {money(r['president_debt'])}", f"dividend rate {r['dividend']}",
                f"status {r['status']}",
            ]
        out.append(RailroadBlock(row=row, name=r["name"], lines=lines, confidential=conf))
    return out


# -- §9.4 Stock report ----------------------------------------------------------------

STOCK_HEADER = ["RR", "Start", "Pub. off.", "Pub. bid", "Plr. off.", "Plr. bid", "End",
                "Issued", "Treas.", "Bought", "Sold", "You own", "Max. Bid"]


def _trade_sign(kind: str) -> int:
    k = kind.lower()
    if "buy" in k or "bid" in k or "bought" in k:
        return 1
    if "sell" in k or "short" in k or "sold" in k:
        return -1
    return 0


def your_trades(data: TurnData, viewer: int) -> list[dict[str, Any]]:
    """The viewer's stock trades: the engine's ``stock-trade`` events (step 7.1, data bought/sold/short),
    or step-6 events whose kind says buy or sell with ``data['shares']``."""
    out = []
    for e in data.events:
        if e["player"] != viewer or not e["railroad"]:
            continue
        d = e["data"]
        if e["kind"] == "stock-trade":
            out.append({**e, "bought": int(d.get("bought", 0) or 0),
                        "sold": int(d.get("sold", 0) or 0) + int(d.get("short", 0) or 0)})
        elif str(e["step"]).startswith("6") and _trade_sign(e["kind"]) and isinstance(d.get("shares"), int):
            sign = _trade_sign(e["kind"])
            out.append({**e, "bought": d["shares"] if sign > 0 else 0, "sold": d["shares"] if sign < 0 else 0})
    return out


def market_figures(row: dict[str, Any] | None) -> tuple[str, str, str, str]:
    """(public offered, public bid, players offered, players bid) from a RailroadTurn's data."""
    if not row:
        return ("-", "-", "-", "-")
    d = row.get("data") or {}
    m = d.get("market") if isinstance(d.get("market"), dict) else d
    if not m:
        return ("-", "-", "-", "-")

    def pick(*keys: str) -> Any:
        for k in keys:
            if k in m:
                return m[k]
        return None

    pub_off = pick("public_offer", "public_offered")
    pub_bid = pick("public_bid")
    if "player_sales" in m or "short_sales" in m:
        plr_off: Any = int(m.get("player_sales", 0) or 0) + int(m.get("short_sales", 0) or 0)
    else:
        plr_off = pick("players_offered")
    plr_bid = pick("player_bids", "players_bid")
    return tuple("-" if v is None else f"{v:,}" if isinstance(v, int) else str(v)
                 for v in (pub_off, pub_bid, plr_off, plr_bid))  # type: ignore[return-value]


def max_bid(data: TurnData, railroad: dict[str, Any], viewer: int) -> int:
    """§6.1: 20 % of the issued shares less the directors' shares and your own."""
    shares = {p["number"]: next((h["shares"] for h in p["holdings"] if h["railroad"] == railroad["code"]), 0)
              for p in data.players}
    directors = set(railroad.get("directors") or []) - {viewer}
    available = railroad["shares_issued"] - sum(shares.get(d, 0) for d in directors) - shares.get(viewer, 0)
    return max(0, available * MAX_BID_PCT // 100)


def stock_report(data: TurnData, vis: Visibility) -> tuple[list[str], list[list[str]], list[str]]:
    """§9.4: market activity, issued/treasury, your trades and holdings, Max. Bid, the spied player."""
    header = list(STOCK_HEADER)
    if vis.spied_player:
        header.append(f"#{vis.spied_player} owns")
    me = data.player(vis.viewer)
    mine = {h["railroad"]: h for h in me["holdings"]}
    spied = {}
    if vis.spied_player:
        spied = {h["railroad"]: h for h in data.player(vis.spied_player)["holdings"]}
    trades = your_trades(data, vis.viewer)
    rows = []
    for r in sorted(data.railroads, key=lambda r: r["number"]):
        if r["status"] == "merged":
            continue  # §9.4: merged railroads' market activity is not shown
        rt = data.railroad_turn(r["code"]) or {}
        pub_off, pub_bid, plr_off, plr_bid = market_figures(rt)
        bought = sum(e["bought"] for e in trades if e["railroad"] == r["code"])
        sold = sum(e["sold"] for e in trades if e["railroad"] == r["code"])
        own = mine.get(r["code"], {})
        own_text = str(own.get("shares", 0)) + (f" (-{own['short']})" if own.get("short") else "")
        row = [
            r["code"], price(rt.get("start_price", r["price"])),
            pub_off, pub_bid, plr_off, plr_bid,
            price(r["price"]), f"{r['shares_issued']:,}", f"{r['treasury_shares']:,}",
            str(bought or "-"), str(sold or "-"), own_text,
            str(max_bid(data, r, vis.viewer)) if r["status"] == "active" else "-",
        ]
        if vis.spied_player:
            row.append(str(spied.get(r["code"], {}).get("shares", 0)))
        rows.append(row)
    notes = [e["text"] for e in trades if e["text"]]
    return header, rows, notes


# -- §9.5 PCs available ---------------------------------------------------------------

PC_HEADER = ["PC", "Route", "Miles", "Offered by", "Asking price"]


def pcs_available(data: TurnData) -> list[list[str]]:
    """§9.5: every PC for sale (bank or players) with its asking price."""
    routes = {r.code: r for r in data.routes}
    rows = []
    for pc in data.state["private_companies"]:
        if not pc.get("for_sale") or pc["status"] not in ("bank", "owned"):
            continue
        route = routes.get(pc["code"])
        where = f"{route.a}–{route.b}" if route else ""
        seller = "bank" if pc["status"] == "bank" else short_who(data, pc.get("owner"))
        rows.append([pc["code"], where, str(pc["miles"]), seller, money(pc.get("asking_price"))])
    return rows


# -- §9.6 Private report --------------------------------------------------------------

@dataclass
class CashFlow:
    title: str
    start: int
    lines: list[tuple[str, int]]
    end: int


def cash_flow(data: TurnData, account: str, end: int, title: str) -> CashFlow:
    """Every ledger movement into or out of ``account`` this turn, from start cash to end cash."""
    lines: list[tuple[str, int]] = []
    for x in data.ledger:
        if x["source"] == account and x["target"] == account:
            continue
        if x["target"] == account:
            lines.append((f"{x['step']} {x['memo'] or 'from ' + x['source']}", x["amount"]))
        elif x["source"] == account:
            lines.append((f"{x['step']} {x['memo'] or 'to ' + x['target']}", -x["amount"]))
    start = end - sum(a for _, a in lines)
    merged: dict[tuple[str, bool], int] = {}  # same label and direction: one line (e.g. a dividend to each holder)
    for text, amount in lines:
        merged[(text, amount >= 0)] = merged.get((text, amount >= 0), 0) + amount
    return CashFlow(title=title, start=start, lines=[(text, amount) for (text, _), amount in merged.items()], end=end)


@dataclass
class PrivateReport:
    flow: CashFlow
    assets: list[tuple[str, str]]
    vp: list[tuple[str, str]]
    railroad_flows: list[CashFlow]
    news: list[str]


def private_report(data: TurnData, vis: Visibility) -> PrivateReport:
    """§9.6: your cash flow, assets, debt and credit limit; the cash flows of roads you direct or spied on."""
    me = data.player(vis.viewer)
    flow = cash_flow(data, f"player:{vis.viewer}", me["cash"], "Your cash")
    prices = {r["code"]: r["price"] for r in data.railroads}
    stock = sum(int(h["shares"] * prices.get(h["railroad"], 0)) for h in me["holdings"])
    short = sum(int(h["short"] * prices.get(h["railroad"], 0)) for h in me["holdings"])
    pc_value = me["net_worth"] - me["cash"] - stock + short + me["loan"]
    assets = [
        ("Cash", money(me["cash"])), ("Stock at end prices", money(stock)),
    ]
    if short:
        assets.append(("Short sales owed", money(-short)))
    assets += [
        ("Private companies", money(pc_value)), ("Bank loan", money(-me["loan"])),
        ("Net worth", money(me["net_worth"])), ("Credit limit", money(me["credit_limit"])),
    ]
    if me.get("recall"):
        assets.append(("Loan recall due", money(me["recall"])))
    names = {"robber_baron": "Robber Baron", "rail_mogul": "Rail Mogul", "rail_builder": "Rail Builder",
             "rail_magnate": "Rail Magnate", "rail_prodigal": "Rail Prodigal", "rail_baron": "Rail Baron"}
    vp = [(label, str(me["vp"].get(key, 0))) for key, label in names.items()]
    flows = []
    for r in sorted(data.railroads, key=lambda r: r["number"]):
        if vis.sees_confidential(r["code"]) and r["status"] != "merged":
            why = "spied on" if r["code"] == vis.spied_railroad and r["code"] not in vis.directs else "director"
            flows.append(cash_flow(data, f"rr:{r['code']}", r["cash"], f"{r['code']} ({why})"))
    news = [e["text"] for e in data.events
            if e["private_to"] is not None and vis.viewer in e["private_to"] and e["text"]]
    return PrivateReport(flow=flow, assets=assets, vp=vp, railroad_flows=flows, news=news)

"""``pbm show``: a readable summary of a Continental Rails game."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm.cr.state import export_game
from pbm.models import Game


def money(amount: int | float) -> str:
    return f"${amount:,.0f}"


def summary(session: Session, game: Game) -> str:
    state = export_game(session, game)
    g = state["game"]
    out: list[str] = []
    out.append(f"{game.name} — Continental Rails II, game {g['id']}, seed {g['seed']}")
    out.append(f"Turn {g['turn']} ({g['year']}), climate {g['climate']}, status {g['status']}"
               + (", anonymous game" if g["anonymous"] else ""))
    out.append("")
    out.append("Players (by net worth)")
    out.append(f"  {'#':>2} {'character':<24} {'player':<20} {'cash':>10} {'loan':>9} {'net worth':>11}  PCs")
    for p in sorted(state["players"], key=lambda p: (-p["net_worth"], p["number"])):
        who = p["name"] if p["human"] and not g["anonymous"] else ("(anonymous)" if p["human"] else "computer")
        out.append(f"  {p['number']:>2} {p['character'][:24]:<24} {who[:20]:<20} {money(p['cash']):>10} "
                   f"{money(p['loan']):>9} {money(p['net_worth']):>11}  {' '.join(p['private_companies']) or '-'}")
    out.append("")
    active = [r for r in state["railroads"] if r["status"] != "merged"]
    out.append(f"Railroads ({len(active)} active)")
    out.append(f"  {'code':<5} {'name':<28} {'miles':>5} {'price':>7} {'issued':>6} {'public':>6} "
               f"{'treas':>5} {'cash':>9} {'eff':>3} {'div':>4}  president")  # div: paid a share last turn (§9.3)
    players = {p["number"]: p for p in state["players"]}
    for r in active:
        pres = players[r["president"]]["character"] if r["president"] else "(anonymous)"
        out.append(f"  {r['code']:<5} {r['name'][:28]:<28} {r['miles']:>5} {r['price']:>7.2f} "
                   f"{r['shares_issued']:>6} {r['shares_public']:>6} {r['treasury_shares']:>5} "
                   f"{money(r['cash']):>9} {r['efficiency']:>3} {money(r['last']['dividend'] or 0):>4}  {pres}")
        lines = ", ".join(f"{line['code']} {line['a']}–{line['b']}" for line in r["lines"])
        out.append(f"        lines: {lines}")
    out.append("")
    for_sale = [pc for pc in state["private_companies"] if pc["status"] in ("bank", "owned") and pc["for_sale"]]
    out.append(f"Private companies for sale ({len(for_sale)})")
    for pc in for_sale:
        seller = "bank" if pc["status"] == "bank" else f"player {pc['owner']}"
        out.append(f"  {pc['code']:<5} {pc['miles']:>4} mi  asking {money(pc['asking_price'] or 0):>7}  ({seller})")
    out.append("")
    return "\n".join(out)

"""The complete state of a Continental Rails game as canonical JSON (``pbm export``).

The export is deterministic: keys sorted, lists in a fixed order, no
timestamps and no secrets, so that the same inputs give byte-identical output
(``pbm rerun-turn`` proves it).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.models import Game, Player, PrivateCompany, Railroad, Route


def _pc_value(pc: PrivateCompany) -> int:
    """§3.5A: a PC is valued at what was paid, but never above $20/mile."""
    return min(pc.paid, 20 * pc.route.miles)


def player_net_worth(player: Player, pcs: list[PrivateCompany]) -> int:
    """§3.5A Net Worth = cash + stock value + PC value − debt (end-of-turn prices)."""
    stock = sum(int(h.shares * h.railroad.price) for h in player.holdings if h.railroad.status != "merged")
    short = sum(int(h.short * h.railroad.price) for h in player.holdings)
    owned = sum(_pc_value(pc) for pc in pcs if pc.owner_id == player.id and pc.status == "owned")
    return player.cash + stock + owned - short - player.loan


def export_game(session: Session, game: Game) -> dict[str, Any]:
    """Everything needed to know (and restore) the game's state at this moment."""
    pcs = list(session.scalars(select(PrivateCompany).where(PrivateCompany.game_id == game.id)
                               .order_by(PrivateCompany.id)))
    railroads = list(session.scalars(select(Railroad).where(Railroad.game_id == game.id).order_by(Railroad.id)))
    players = list(session.scalars(select(Player).where(Player.game_id == game.id).order_by(Player.number)))
    by_id = {p.id: p.number for p in players}
    rr_code = {r.id: r.code for r in railroads}
    rows = list(session.scalars(select(Route).where(Route.game_id == game.id, Route.kind == "RoW",
                                                    Route.owner_id.is_not(None)).order_by(Route.number)))
    built = {line.route_id for r in railroads for line in r.lines}

    def holdings(p: Player) -> list[dict[str, Any]]:
        return [
            {"railroad": h.railroad.code, "shares": h.shares, "short": h.short, "director": h.director}
            for h in sorted(p.holdings, key=lambda h: h.railroad.code)
            if h.shares or h.short
        ]

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
                "net_worth": player_net_worth(p, pcs),
                "credit_limit": p.credit_limit,
                "bankruptcies": p.bankruptcies,
                "missed_turns": p.missed_turns,
                "slots": [rr_code.get(p.slot1_id) if p.slot1_id else None,
                          rr_code.get(p.slot2_id) if p.slot2_id else None],
                "holdings": holdings(p),
                "private_companies": sorted(pc.route.code for pc in pcs if pc.owner_id == p.id),
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
                "miles": r.miles,
                "lines": [
                    {"code": line.route.code, "miles": line.route.miles, "a": line.route.a.name,
                     "b": line.route.b.name, "double_tracked": line.double_tracked, "built_turn": line.built_turn}
                    for line in sorted(r.lines, key=lambda x: x.route.number)
                ],
                "row": next(({"code": rt.code, "land_grant": rt.land_grant}
                             for rt in rows if rt.owner_id == r.id and rt.id not in built), None),
                "last": {"revenue": r.last_revenue, "expenses": r.last_expenses, "profit": r.last_profit,
                         "dividend": r.last_dividend},
                "regions_at_start": list(r.regions_at_start or []),
            }
            for r in railroads
        ],
        "private_companies": [
            {
                "code": pc.route.code,
                "miles": pc.route.miles,
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


def dumps(state: dict[str, Any]) -> str:
    """Canonical JSON text: the same state always gives the same bytes."""
    return json.dumps(state, sort_keys=True, indent=2, ensure_ascii=False) + "\n"

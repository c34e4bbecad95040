"""Who may see what in a player's turn report (§3.1, §4.14, §9, §10.1F).

* Every player sees the public columns of every railroad (§9.3), the PCs
  owned by everybody and who presides and directs each road (§9.2, §9.3).
* A **director** of a railroad (10 % of the issued stock, §4.14A; the
  president is a director) sees its confidential financial data: cash,
  exact efficiency and its cash flow for the turn (§4.14A, §9.6).
* A **president** has "an automatic spy on the number of shares held by
  other players in the railroad" (§4.14C): he sees every player's shares in
  it (§9.2, §9.4).
* A **spy on a railroad** (§10.1F) sees both: its shareholders and its cash
  flow (§9.2 "stock in Railroads ... which you spied on", §9.6 "cash flows
  of all railroads of which you are a Director and any you spied on").
* A **spy on a player** (§10.1F) sees that player's shares in every railroad
  (§9.4, last column) and his address and phone (§3.1), unless he chose to
  hide them (ruling R9-2).
* In an **anonymous game** (§3.1) nobody's real name or contact details are
  shown to anybody else, spy or not (ruling R9-3).

The spies of a turn are the ones ordered on the player's accepted orders for
that turn; the engine may report a failed spy with an event of kind
``spy-failed`` (``data``: ``player`` or ``railroad``) private to the spy, and
then the target is not revealed (ruling R9-1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbm.report.view import TurnData


@dataclass(frozen=True)
class Visibility:
    viewer: int
    directs: frozenset[str]  # railroads the viewer is a director of (president included)
    presides: frozenset[str]
    spied_railroad: str | None
    spied_player: int | None
    anonymous: bool
    shareholders_of: frozenset[str] = field(default=frozenset())  # presides ∪ spied railroad
    confidential: frozenset[str] = field(default=frozenset())  # directs ∪ spied railroad

    def sees_shares(self, player: int, railroad: str) -> bool:
        """May the viewer see ``player``'s shares in ``railroad``?"""
        return player == self.viewer or player == self.spied_player or railroad in self.shareholders_of

    def sees_confidential(self, railroad: str) -> bool:
        return railroad in self.confidential

    def real_name(self, data: TurnData, player: int) -> str:
        """§9.2: the real name, unless the game is anonymous (the viewer always knows his own)."""
        c = data.contacts.get(player)
        if c is None or not c.human:
            return "(computer)"
        if self.anonymous and player != self.viewer:
            return "(anonymous)"
        return c.name

    def phone(self, data: TurnData, player: int) -> str:
        """§9.2: the phone, if the player lets it be given (R9-2), never in anonymous games (R9-3)."""
        c = data.contacts.get(player)
        if c is None or not c.human or not c.phone:
            return ""
        if player == self.viewer:
            return c.phone
        if self.anonymous or c.hide_phone:
            return ""
        return c.phone

    def address(self, data: TurnData, player: int) -> str:
        """§3.1: a spied player's address, unless hidden or the game is anonymous."""
        c = data.contacts.get(player)
        if c is None or not c.human or self.anonymous or c.hide_address or player != self.spied_player:
            return ""
        return c.address


def _failed(data: TurnData, viewer: int, key: str) -> set:
    out = set()
    for e in data.events:
        if e["kind"] == "spy-failed" and (e["player"] == viewer or viewer in (e["private_to"] or [])):
            if key in e["data"]:
                out.add(e["data"][key])
    return out


def visibility(data: TurnData, viewer: int) -> Visibility:
    """What player ``viewer`` may see in the report of ``data.turn``."""
    directs = frozenset(r["code"] for r in data.railroads if viewer in (r.get("directors") or [])
                        or r.get("president") == viewer)
    presides = frozenset(r["code"] for r in data.railroads if r.get("president") == viewer)
    orders = data.orders.get(viewer, {})
    spied_rr = orders.get("spy_railroad") or None
    spied_pl = orders.get("spy_player")
    if spied_rr is not None and (spied_rr in _failed(data, viewer, "railroad") or data.railroad(spied_rr) is None):
        spied_rr = None
    if spied_pl is not None:
        try:
            spied_pl = int(spied_pl)
        except (TypeError, ValueError):
            spied_pl = None
    if spied_pl is not None and (spied_pl in _failed(data, viewer, "player") or spied_pl == viewer
                                 or spied_pl not in data.contacts):
        spied_pl = None
    extra = frozenset([spied_rr]) if spied_rr else frozenset()
    return Visibility(
        viewer=viewer, directs=directs, presides=presides, spied_railroad=spied_rr, spied_player=spied_pl,
        anonymous=bool(data.game.get("anonymous")),
        shareholders_of=presides | extra, confidential=directs | extra,
    )

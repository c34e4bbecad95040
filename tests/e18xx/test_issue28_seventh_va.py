"""Issue 28, the sixth run's open 18VA items: the export of a bankrupt president's last sales
(18VA 4.6.3) and the computer player's stall in phase 2."""
from __future__ import annotations

import json

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem import exchange
from pbm.e18xx.replay import Replayer

from .kept import kept_log as _log, kept_game as _game


def _without_pbm_blocks(export: dict) -> dict:
    """The export as 18xx.games reads it: its own certificate names, not pbm's ``pbm`` blocks."""
    out = json.loads(json.dumps(export))
    out.pop("pbm", None)
    for a in out["actions"]:
        a.pop("pbm", None)
    return out


def _site_view(g: Game) -> dict:
    """What 18xx.games compares: cash, each holder's percent of each company (not which numbered
    certificate), share prices, trains, the round."""
    s = g.state
    held: dict[str, int] = {}
    for sid, owner in s.share_owner.items():
        key = f"{owner} {sid.rsplit('_', 1)[0]}"
        held[key] = held.get(key, 0) + g.sid_percent(sid)
    return {"cash": dict(s.cash), "held": held, "prices": {c.sym: c.price for c in s.corporations.values()},
            "trains": {t: tr.owner for t, tr in s.trains.items()},
            "presidents": {c: g.president(c) for c in s.corporations},
            "round": (s.round.kind, s.turn, s.round.num, g.current_entity())}


def test_18va_the_export_writes_a_bankrupt_presidents_sales_before_the_bankruptcy():
    """18VA 4.6.3: "If, after selling all the stock he is legally permitted to sell, the President
    cannot raise sufficient cash ..., he is bankrupt".  Random, 4 players, seed 50006, action 598:
    N&W must buy a train; Tycoon C sells 20% of RFPR and 10% of VR, then goes bankrupt.  pbm's
    ``bankrupt`` makes those sales itself; 18xx.games' puts all his holdings in the open market at
    an unchanged price (seen in random 5p 50075, where WMR's price fell from 50 to 40 on pbm and
    not on the site).  The export writes the sales as ``sell_shares`` before the ``bankrupt``, and
    the export replays to pbm's own state -- exactly, and as the site's certificates name them."""
    log = _log("18VA-4p-random-50006.jsonl", "18VA", 4, 50006, [])
    g = _game(log)
    assert g.actions[597] == A.Bankrupt("N&W") and g.actions[604] == A.Bankrupt("RFPR")
    data = exchange.export_log(log)
    acts = data["actions"]
    first = next(i for i, a in enumerate(acts) if a["type"] == "bankrupt")
    assert all(a["type"] == "sell_shares" for a in acts[first - 2:first]), acts[first - 3:first + 1]
    sales = [(a["entity"], a["shares"][0].rsplit("_", 1)[0], a["percent"]) for a in acts[first - 2:first]]
    assert sales == [("Tycoon C", "RFPR", 20), ("Tycoon C", "VR", 10)]
    assert acts[first]["entity"] == "N&W"
    second = next(i for i, a in enumerate(acts) if a["type"] == "bankrupt" and i > first)
    assert acts[second - 1]["type"] == "sell_shares" and acts[second - 1]["entity"] == "Tycoon B"
    assert acts[second - 1]["percent"] == 10
    want = exchange.fingerprint(g)
    assert data["pbm"]["fingerprint"] == want
    assert exchange.fingerprint(exchange.replay_export(data)) == want
    assert exchange.fingerprint(Replayer(data).run()) == want  # `pbm 18xx import`
    assert _site_view(Replayer(_without_pbm_blocks(data)).run()) == _site_view(g)


def test_18va_after_the_written_sales_the_bankruptcy_sells_nothing():
    """What 18xx.games' ``bankrupt`` does once the sales are written -- all his remaining holdings
    to the open market at an unchanged price -- is then what pbm's does: the replayed sales leave
    nothing he may sell, and no share price moves at the ``bankrupt``."""
    log = _log("18VA-4p-random-50006.jsonl", "18VA", 4, 50006, [], upto=597)
    log["actions"].append(A.Bankrupt("N&W").to_dict())
    data = exchange.export_log(log)
    before_bankrupt = {**data, "actions": data["actions"][:-1]}
    g = exchange.replay_export(before_bankrupt)
    pres = g.president("N&W")
    assert pres == "Tycoon C"
    assert not any(g._emergency_units(pres, "N&W", c) for c in g.state.corporations  # noqa: SLF001
                   if g.state.corporations[c].price)
    prices = {c.sym: c.price for c in g.state.corporations.values() if c.price}
    g.process(A.Bankrupt("N&W"))
    assert {c: p for c, p in prices.items() if g.state.corporations[c].price} == \
        {c.sym: c.price for c in g.state.corporations.values() if c.price and c.sym in prices}


def test_18va_the_heir_of_a_bankrupt_president_is_not_bound_by_his_sales():
    """Random, 5 players, seed 50007, action 832: Tycoon E sells 10% of SR and 10% of RFPR for B&O's
    train, then goes bankrupt; Tycoon D becomes president of B&O and completes the purchase -- a 4G
    from C&O for 500, then RFPR's 4 for 151.  The limit on a purchase after the president's own
    sale (18VA 4.6.2, he "may only sell just enough") is his, not his heir's, who sold nothing: with
    the sales written before the ``bankrupt`` the replay refused the 151 ("Tycoon D has sold shares
    ... B&O must spend at least $242")."""
    log = _log("18VA-5p-random-50007.jsonl", "18VA", 5, 50007, [])
    g = _game(log)
    assert g.actions[831] == A.Bankrupt("B&O") and g.actions[833].price == 151
    data = exchange.export_log(log)
    kinds = [a["type"] for a in data["actions"][-5:]]
    assert kinds == ["sell_shares", "sell_shares", "bankrupt", "buy_train", "buy_train"], kinds
    assert data["pbm"]["fingerprint"] == exchange.fingerprint(g)
    assert _site_view(Replayer(_without_pbm_blocks(data)).run()) == _site_view(g)


def _computer_game(seed: int, players: int, rules: tuple[str, ...], max_turn: int = 100) -> Game:
    from pbm.e18xx.pbem.computer import choose

    g = Game("18VA", [f"Tycoon {chr(65 + i)}" for i in range(players)], seed, rules)
    while not g.finished and g.state.turn <= max_turn:
        act = choose(g)
        assert act in g.legal_actions(), act  # only ever a listed move
        g.process(act)
    return g


def test_18va_the_computer_player_no_longer_stalls_in_phase_2():
    """The sixth run: 17 of 200 seeded 18VA computer games stalled in phase 2 -- every company's
    trains 1G freight trains with no mine or coal district to run to (4.5.8: "a 1G must include a
    CMD or mine in its route"), nothing earned, five-share companies at their limit of 2, and
    nobody started another company; in 4 players, seed 50002 (rule ``two_player_share_limit``),
    the bank broke only from the privates' income, in turn 165.  Now the computer declares a train
    passenger or freight by what it could earn, buys a train that would run while its company's
    trains earn nothing, converts a company at its limit (4.5.1), and starts another company when
    its own cannot run or when no company can pay for the next train: the bank breaks by turn 100."""
    g = _computer_game(50002, 4, ("two_player_share_limit",))
    assert g.finished and g.state.end_reason == "bank", (g.state.turn, g.state.end_reason)
    assert g.state.turn <= 100
    assert g.state.phase > 0  # the 3s were bought: the game left phase 2

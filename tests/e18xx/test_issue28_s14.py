"""Findings of the fourth run against the 18xx.games engine (issue 28, session 14)."""
from __future__ import annotations

import pytest

from pbm.e18xx.fixtures import load_fixture
from pbm.e18xx.pbem import exchange


def _fixture(rel: str) -> dict:
    data, where = load_fixture(rel)
    if data is None:
        pytest.skip(where)
    return data


def test_1848_the_export_writes_the_sydney_adelaide_link_as_the_site_records_it():
    """1848 5.3: the Commonwealth Railways operate once Sydney and Adelaide are joined.  18xx.games
    checks the link after every action of an operating round and records it as an automatic
    ``destination_connection`` of the operating company on the action that made it (the recorded
    game: CAR's tile lay, action 323).  pbm's export left it out; loaded strictly, the site then
    waits at its "COM Sydney Adelaide Check" and refuses the next action (both 1848 recorded games
    that make the link stopped there)."""
    site = _fixture("1848/1848_game_end_bank.json")
    made = next(a for a in site["actions"]
                if any(x["type"] == "destination_connection" for x in a.get("auto_actions") or []))
    g = exchange.replay_export(site)
    data = exchange.export_log(g.to_log())
    carried = [a for a in data["actions"]
               if any(x["type"] == "destination_connection" for x in a.get("auto_actions") or [])]
    assert len(carried) == 1, carried
    ours = carried[0]
    assert (ours["type"], ours["entity"], ours["hex"], ours["rotation"]) == \
        (made["type"], made["entity"], made["hex"], made["rotation"])
    link = [x for x in ours["auto_actions"] if x["type"] == "destination_connection"]
    assert link == [{"type": "destination_connection", "entity": made["entity"], "entity_type": "corporation"}]
    # pbm's own replay of its export still gives the same game
    assert exchange.fingerprint(exchange.replay_export(data)) == exchange.fingerprint(g)


def _random_until(title: str, players: int, seed: int, rules: tuple[str, ...], stop, limit: int = 4000):
    """A random-legal game (tests/e18xx/helpers.py::pick, as the differential run plays them) up
    to the first state where ``stop(g)`` holds."""
    import random

    from pbm.e18xx.core.game import Game

    from .helpers import pick

    rng = random.Random(seed)
    g = Game(title, [f"Tycoon {c}" for c in "ABCDEF"][:players], seed, rules)
    for _ in range(limit):
        if g.finished or stop(g):
            break
        g.process(pick(rng, g.legal_actions()))
    assert stop(g), "the state was not reached"
    return g


def test_18al_the_warrior_coal_field_token_goes_only_in_a_city_the_company_can_reach():
    """18AL Table III (South & North Alabama; the book's table is missing, the text is the public
    data of 18xx.games): the owning corporation may place the Warrior Coal Field token in a mining
    city "provided that the corporation can reach the city with a route that is in the range of a
    train owned by the corporation".  pbm checked only that it owns a train (a partial ruling) and
    listed every mining city; the site refused "Oxmoor is not reachable" (random, 5 players, seed
    14006: ATN, just after buying SNAR and a 2, assigned H5)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    def snar_with_a_train(g):
        owner = g.state.companies["SNAR"].owner or ""
        return (g.state.round.kind == "operating" and owner.startswith("C:")
                and owner[2:] == g.current_entity() and bool(g.state.corporations[owner[2:]].trains))

    g = _random_until("18AL", 5, 14006, ("hard_rust_t4", "site_auction", "site_obsolete", "site_routes"),
                      snar_with_a_train)
    corp = g.state.companies["SNAR"].owner[2:]
    assert corp == "ATN"
    listed = {a.target for a in g.legal_actions() if isinstance(a, A.Assign) and a.entity == "SNAR"}
    assert "H5" not in listed
    with pytest.raises(GameError, match="SNAR"):  # nothing is reachable yet: no use of SNAR now
        g.process(A.Assign("SNAR", "H5"))
    for h in sorted(listed):  # what is listed is accepted
        from pbm.e18xx.core.state import clone_state
        before = clone_state(g.state)
        g.process(A.Assign("SNAR", h))
        g._restore(before)  # noqa: SLF001
        del g.actions[-1:]


def _logged(name: str, title: str, players: int, seed: int, rules: tuple[str, ...]):
    """A game of the differential run from pbm's own action log (tests/e18xx/referee_games/): the
    random game as it was played before a fix changed what is listed (and so the random path)."""
    import json
    from pathlib import Path

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.game import Game

    g = Game(title, [f"Tycoon {c}" for c in "ABCDEF"][:players], seed, rules)
    for line in (Path(__file__).parent / "referee_games" / name).read_text(encoding="utf-8").splitlines():
        g.process(A.action_from_dict(json.loads(line)))
    return g


def test_18al_no_train_from_another_company_after_the_presidents_sale_for_a_forced_purchase():
    """18AL 4.2.5.2: "These restrictions apply if the president contributes personal funds: (a) ...
    No train may be purchased from another corporation if the president contributes personal
    funds ... (d) ... he may only sell just enough shares to raise the needed cash (that is, the
    president's personal funds after the train purchase must be less than the smallest amount he
    receives for selling any one certificate)".  Random, 3 players, seed 30000 (its first 905
    actions): WRA (no train, $228) must buy one; its president sells a WRA share for $30, and then
    WRA bought L&N's 5 for $228 out of its treasury, his sale unneeded -- pbm listed and accepted
    it, the site refused it ("may only spend between $642 and $450")."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = _logged("18AL-3p-random-30000.jsonl", "18AL", 3, 30000, ("site_auction", "site_obsolete", "site_routes"))
    corp = g.current_entity()
    assert corp == "WRA" and not g.state.corporations[corp].trains
    assert isinstance(g.actions[-1], A.SellShares)
    assert "5-0" in g._other_trains(corp)  # noqa: SLF001 - L&N's 5
    listed = [a for a in g.legal_actions() if isinstance(a, A.BuyTrain)]
    assert all(g.state.trains[a.train].owner == "depot" for a in listed)  # (none yet: he must sell more)
    with pytest.raises(GameError, match="no train may be bought from another company"):
        g.process(A.BuyTrain(corp, "5-0", 228))


def test_18ga_soft_rust_4s_do_not_count_against_the_train_limit():
    """18GA's `soft_rust_4t` ("4 trains run once more after 8 train is bought") is a variant of
    18xx.games, not of the book, so the site's play defines it: an obsolete 4 running once more
    does not count against the train limit.  pbm counted it and ended ACL's turn after it bought
    the 8 (a 4 and an 8, limit 2 in phase 8); the site kept ACL's Buy Trains step open and refused
    the next company's tile (random, 4 players, seed 30004, its first 1,034 actions).  A company
    whose only train is such a 4 still owns a train (no forced purchase), as on the site."""
    from pbm.e18xx.core import actions as A

    rules = ("site_auction", "site_ebuy", "site_red_city_pass", "site_routes", "soft_rust_4t")
    g = _logged("18GA-4p-random-30004.jsonl", "18GA", 4, 30004, rules)
    acl = g.state.corporations["ACL"]
    assert sorted(g.state.trains[t].name for t in acl.trains) == ["4", "8"]
    assert g.state.trains["4-2"].obsolete
    assert g.current_entity() == "ACL" and g._room("ACL")  # noqa: SLF001
    assert any(isinstance(a, A.BuyTrain) for a in g.legal_actions())
    acl.trains.remove("8-0")
    assert not g._must_buy_train("ACL")  # noqa: SLF001 - the obsolete 4 is a train owned


def test_the_open_market_offers_the_first_train_of_a_type_to_come_there():
    """Of the trains of one type in the Open Market the one offered is the first that came there,
    as 18xx.games offers (and names in its export) the first discarded.  pbm offered the
    lowest-numbered: 18AL random, 3 players, seed 30003, its first 499 actions: WRA discarded 3-2,
    then ABC 3-1; pbm sold M&O the 3-1, the site refused "Not a buyable train: 3-1"."""
    from pbm.e18xx.core import actions as A

    g = _logged("18AL-3p-random-30003.jsonl", "18AL", 3, 30003, ("site_auction", "site_obsolete", "site_routes"))
    pool = [t for t, tr in g.state.trains.items() if tr.owner == "discard"]
    assert sorted(pool) == ["3-1", "3-2"]
    offered = [t for t in g._depot_trains() if g.state.trains[t].owner == "discard"]  # noqa: SLF001
    assert offered == ["3-2"]
    corp = g.current_entity()
    listed = {a.train for a in g.legal_actions() if isinstance(a, A.BuyTrain)}
    assert "3-2" in listed and "3-1" not in listed, (corp, listed)
    assert g.state.trains["3-2"].pooled < g.state.trains["3-1"].pooled


def test_18va_a_closed_bo_reenters_play_as_a_new_corporation_parred_as_any_other():
    """18VA 4.6.3: a bankrupt president's company that nobody can take over "is closed ... The
    Corporation's shares are returned to the Corporation Treasury, and it may subsequently reenter
    play as a new Corporation".  The B&O's president's certificate first comes with its private
    (4.1), which closes as the B&O starts; pbm kept treating the closed-and-reset B&O as started by
    that private and never let anyone par it, so it never came back (random, 4 players, seed 20014,
    its first 699 actions: Tycoon B sold VR and could then par the B&O on the site, which waited
    for him while pbm had ended his turn)."""
    from pbm.e18xx.core import actions as A

    g = _logged("18VA-4p-random-20014.jsonl", "18VA", 4, 20014, ("site_routes", "two_player_share_limit"))
    bo = g.state.corporations["B&O"]
    assert not bo.ipoed and not bo.closed and g.state.companies["P4"].closed
    assert g.current_entity() == "Tycoon B"
    pars = [a for a in g.legal_actions() if isinstance(a, A.Par) and a.corporation == "B&O"]
    assert pars
    g.process(min(pars, key=lambda a: a.price))
    assert bo.ipoed and g.president("B&O") == "Tycoon B"


def test_18va_no_pass_is_written_after_a_bankruptcy_that_closes_the_company():
    """The export's passes for the site's open steps: after a president's bankruptcy that closes his
    company (18VA 4.6.3: nobody holds two shares), 18xx.games goes on to the next company at once;
    pbm's export wrote a ``pbm_auto`` pass of the closed company (its Buy Trains step counted as open
    with its cash before the bankruptcy), which the site refused ("Blocking step Lay/Upgrade Track
    cannot process action pass"; random, 3 players, seed 20009, action 430)."""
    import json
    from pathlib import Path

    lines = (Path(__file__).parent / "referee_games" / "18VA-3p-random-20009.jsonl").read_text().splitlines()[:429]
    log = {"title": "18VA", "players": ["Tycoon A", "Tycoon B", "Tycoon C"], "seed": 20009,
           "optional_rules": ["site_routes"], "actions": [json.loads(x) for x in lines]}
    data = exchange.export_log(log)
    last = data["actions"][-1]
    assert (last["type"], last["entity"]) == ("bankrupt", "N&W") and "pbm_auto" not in last


def test_18va_a_bankrupt_presidents_companies_close_in_operating_order():
    """18VA 4.6.3: the companies of a bankrupt president that nobody takes over close, "any trains it
    owns are placed in the Pool".  18xx.games closes them in operating order (the highest share price
    first), so their trains reach the Open Market in that order, and the first of a type there is the
    one offered; pbm closed them in the order of the charter list (random, 3 players, seed 20009,
    its first 435 actions: SR's 3 came before VR's, and the site refused "Not a buyable train: 3-3")."""
    from pbm.e18xx.core import actions as A

    g = _logged("18VA-3p-random-20009.jsonl", "18VA", 3, 20009, ("site_routes",))
    closed = [line.split()[0] for line in g.state.log if line.endswith("closes; it may be started again")]
    assert closed == ["VR", "N&W", "SR"]
    assert g.current_entity() == "B&O"
    listed = {a.train for a in g.legal_actions() if isinstance(a, A.BuyTrain)}
    assert "3-4" in listed and "3-3" not in listed


def test_18ga_site_ebuy_after_the_presidents_sale_a_train_needing_his_money_costs_at_least_what_he_must_spend():
    """With `site_ebuy` (18xx.games: the president's money may buy another company's train) the site
    holds him to 4.2.5.1(d), "he may only sell just enough shares to raise the needed cash (that is,
    the president's personal funds after the train purchase must be less than the smallest amount he
    receives for selling any one certificate)": a train whose face value the company cannot pay
    alone then costs at least the company's and his cash less the last share's price, plus 1.
    Random, 3 players, seed 30033, its first 1,103 actions: Tycoon A sold a GA share ($30) for W&A,
    W&A bought GA's 5 for $450 and then GA's 4 for $259, all its cash; the site refused it ("may only
    spend between $272 and $300")."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    rules = ("new_georgia_florida_home", "site_auction", "site_ebuy", "site_red_city_pass", "site_routes")
    g = _logged("18GA-3p-random-30033.jsonl", "18GA", 3, 30033, rules)
    assert g.current_entity() == "W&A" and g.state.cash["C:W&A"] == 259 and g.state.cash["P:Tycoon A"] == 42
    assert g.state.trains["4-0"].owner == "C:GA"
    assert not any(isinstance(a, A.BuyTrain) and a.train == "4-0" and a.price < 272 for a in g.legal_actions())
    with pytest.raises(GameError, match=r"at least \$272"):
        g.process(A.BuyTrain("W&A", "4-0", 259))


def test_1848_the_directors_compensation_sales_come_before_the_tasmania_tile():
    """1848 5.5.2, 5.5.3: at a receivership the company pays compensation; "If the company doesn't have
    enough capital ... the Director is liable ... he must sell shares".  The receivership then brings
    about the rest (the second one removes a train, 5.4.4, the privates close, and the Tasmania tile
    "must immediately be placed", 4.4).  **Ruling**: the director's sales settle the receivership
    itself and come first, then the tile -- the order of 18xx.games, whose "Cash Crisis" step refused
    pbm's tile first (random, 5 players, seed 30014, its first 490 actions: NSW withholds into
    receivership, Tycoon E owes compensation, P3's tile was laid before his sales)."""
    from pbm.e18xx.core import actions as A

    rules = ("site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass")
    g = _logged("1848-5p-random-30014.jsonl", "1848", 5, 30014, rules)
    assert g.state.cash["P:Tycoon E"] < 0
    listed = g.legal_actions()
    assert listed and all(isinstance(a, A.SellShares) and a.entity == "Tycoon E" for a in listed)
    while g.state.cash["P:Tycoon E"] < 0:
        g.process(g.legal_actions()[0])
    assert any(isinstance(a, A.LayTile) and a.entity == "P3" for a in g.legal_actions())


def test_18va_a_track_pass_of_a_potomac_yards_owner_is_followed_by_the_sites_station_pass():
    """Title data ``site_token_step_private`` (third run): while a company owns Potomac Yards the site
    keeps its "Place a Token" step open for a pass.  The export wrote that pass after a tile or a
    private bought in the step, not after the company's pass of its track step, which took pbm past
    its station step too (no train: withheld, the price fell); the site waited in "Place a Token" and
    refused the train bought next (random, 2 players, seed 30012, its first 272 actions: WMR)."""
    import json
    from pathlib import Path

    lines = (Path(__file__).parent / "referee_games" / "18VA-2p-random-30012.jsonl").read_text().splitlines()
    log = {"title": "18VA", "players": ["Tycoon A", "Tycoon B"], "seed": 30012, "optional_rules": ["site_routes"],
           "actions": [json.loads(x) for x in lines]}
    data = exchange.export_log(log)
    tail = [(a["type"], a["entity"], bool(a.get("pbm_auto"))) for a in data["actions"][-2:]]
    assert tail == [("pass", "WMR", False), ("pass", "WMR", True)]


def test_18va_emergency_sales_sell_one_lot_of_a_company_per_turn():
    """18VA 4.6.2: the president raising money for a train "may sell any stock he wishes ..., subject
    to the normal limitations on stock sales" -- with the stock round's ruling of one lot of a
    company's shares per turn (title data ``one_sale_per_company_per_turn``; 18xx.games sells in
    blocks there too).  pbm let Tycoon B sell VR twice in C&O's emergency (random, 2 players, seed
    30020, its first 462 actions: RFPR, then VR; the site refused the second VR sale, "Cannot sell
    shares of VR")."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = _logged("18VA-2p-random-30020.jsonl", "18VA", 2, 30020, ("site_routes", "two_player_share_limit"))
    assert g.current_entity() == "C&O" and isinstance(g.actions[-1], A.SellShares)
    assert g.percent_of("P:Tycoon B", "VR") > 0
    assert not any(isinstance(a, A.SellShares) and a.corporation == "VR" for a in g.legal_actions())
    with pytest.raises(GameError):
        g.process(A.SellShares("Tycoon B", corporation="VR", count=1))


def test_18va_a_train_bought_with_tredegar_that_ends_the_turn_is_followed_by_the_sites_pass():
    """A train bought with a private's ability (18VA's Tredegar Iron Works, P2) is the private's
    action on 18xx.games, and the site then keeps the company's Buy Trains step open for a pass;
    pbm's turn ended with the purchase and the export wrote no pass, so the site refused the next
    company's tile (random, 5 players, seed 30031, its first 320 actions: VR)."""
    import json
    from pathlib import Path

    lines = (Path(__file__).parent / "referee_games" / "18VA-5p-random-30031.jsonl").read_text().splitlines()
    log = {"title": "18VA", "players": [f"Tycoon {c}" for c in "ABCDE"], "seed": 30031,
           "optional_rules": ["site_routes"], "actions": [json.loads(x) for x in lines]}
    data = exchange.export_log(log)
    tail = [(a["type"], a["entity"], bool(a.get("pbm_auto"))) for a in data["actions"][-2:]]
    # the Buy Trains pass, then the last step's (VR owns a private usable all turn)
    assert tail == [("pass", "VR", True), ("pass", "VR", True)]
    assert (data["actions"][-3]["type"], data["actions"][-3]["entity"]) == ("buy_train", "P2")
    assert exchange.fingerprint(exchange.replay_export(data)) == exchange.fingerprint(exchange.replay_export(
        dict(data, actions=[a for a in data["actions"] if not a.get("pbm_auto")])))

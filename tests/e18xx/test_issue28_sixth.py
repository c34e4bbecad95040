"""Findings of the sixth run against the 18xx.games engine (issue 28): seeded computer games."""
from __future__ import annotations

from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem import exchange

from .kept import kept_log as _log, kept_game as _game


def test_1848_the_sydney_adelaide_link_does_not_reverse_at_a_hex_side():
    """1848 5.3.2: the COM operates once "a notional train of infinite range could travel from
    Sydney to Adelaide".  Computer, 5 players, seed 50026: VR upgrades E12 to a 24, whose two
    pieces of track meet at one side, towards D11.  pbm's walk went E14 - E12 into D11 and back
    into E12 by the other piece -- reversing at the hex side, which no train can -- and counted
    Sydney (F17) linked to Adelaide (G6); the export wrote the link and 18xx.games refused it
    ("Blocking step Run Routes cannot process action destination_connection")."""
    log = _log("1848-5p-computer-50026.jsonl", "1848", 5, 50026, [])
    g = _game(log)
    assert g.actions[-1] == A.LayTile(entity="VR", hex="E12", tile="24", rotation=2)
    assert not g.homes_linked("F17", "G6")
    assert "linked:COM" not in g.state.events
    last = exchange.export_log(log)["actions"][-1]
    assert (last["type"], last["entity"], last["hex"]) == ("lay_tile", "VR", "E12")
    assert not last.get("auto_actions")


def test_1848_a_purchase_that_makes_another_company_discard_leaves_the_ghan_to_buy():
    """1848 8.2.5 ("A 2E does not count against a company's Train Limit") and 4.5 (The Ghan's
    owner "can use it at a time of his choosing for a company of which he is the Director").
    Random, 5 players, seed 40046 (the site's flags), its first 388 actions: NSW, with £660, buys
    a 4+ and then the first 5 (phase 5: the 2E on sale); WA, over its limit, discards a 4.  NSW has
    £160 and its director owns P4 (£100 off a 2E).  pbm judged the step at the 5's purchase, while
    WA's discard was pending and P4's rebate could not be used, so it closed NSW's train step;
    18xx.games kept its Buy Trains step open (the fifth run's "one pass where the site needed
    two"): the 2E is still for sale to NSW at £100."""
    log = _log("1848-5p-random-40046.jsonl", "1848", 5, 40046,
               ["site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass"])
    g = _game(log)
    assert g.actions[-1] == A.DiscardTrain(entity="WA", train="4-0")
    assert g.state.cash["C:NSW"] == 160 and g.phase.name == "5"
    assert g.open_step()[0].name == "buy_train"
    ghan = [a for a in g.legal_actions() if isinstance(a, A.BuyTrain)]
    assert [(a.entity, g.state.trains[a.train].name, a.price) for a in ghan] == [("P4", "2E", 100)]


def test_1848_the_sydney_adelaide_link_does_not_run_through_an_off_board_area():
    """1848 5.3.2 ("a notional train ... could travel from Sydney to Adelaide"): a route ends at an
    off-board area.  Computer, 5 players, seed 50114: NSW upgrades E14 to a 14; the only track from
    Sydney (F17) to Adelaide (G6) then ran into Perth (D1, red) and out again.  pbm counted the
    link; 18xx.games refused the export's link ("Blocking step Run Routes cannot process action
    destination_connection"; also computer 4p seed 50117)."""
    log = _log("1848-5p-computer-50114.jsonl", "1848", 5, 50114, [])
    g = _game(log)
    assert g.actions[-1] == A.LayTile(entity="NSW", hex="E14", tile="14", rotation=3)
    assert not g.homes_linked("F17", "G6")
    last = exchange.export_log(log)["actions"][-1]
    assert (last["type"], last["hex"], last.get("auto_actions")) == ("lay_tile", "E14", None)

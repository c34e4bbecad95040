"""Issue 28, the ninth differential run (29 November 2026): findings pinned by pbm-only tests on
kept games (``referee_games/``), no referee needed."""
from __future__ import annotations

from pbm.e18xx.core import actions as A

from .kept import kept_game, kept_log

SITE_1848 = ["site_routes", "site_dutch_pass", "site_turn_end_pass", "site_discard_timing", "site_export_phase"]
AUS_60650 = ("1848-5p-random-60650.jsonl", "1848", 5, 60650, SITE_1848)


def test_1848_the_ghan_is_bought_after_other_trains_by_a_company_at_its_train_limit():
    """1848 8.2.5: the 2E "become[s] available after the purchase of the first 5/5+ train"; "A 2E
    does not count against a company's Train Limit"; "Each company may own at most one 2E"; 4.5: The
    Ghan's owner "has a one-time rebate on the purchase of a 2E train".  Nothing makes the 2E the
    first purchase of a turn.  Random, 5 players, seed 60650, phase 5 (limit 2): SAR buys a 4 and a
    4+ and, at its limit with £160, buys the 2E for £100 with P4's rebate.  18xx.games ended SAR's
    Buy Trains step after the 4+ (its check for another purchase leaves the 2E out) and refused the
    2E in the last step: the site's side (rulings-1848.md, 8.2.5)."""
    g = kept_game(kept_log(*AUS_60650, upto=350))
    s = g.state
    sar = s.corporations["SAR"]
    assert g.current_entity() == "SAR" and g.phase.name == "5"
    assert [s.trains[t].name for t in sar.trains] == ["4", "4"] and g.train_limit("SAR") == 2
    assert s.cash["C:SAR"] == 160
    assert [a for a in g.legal_actions() if isinstance(a, A.BuyTrain)] == [A.BuyTrain("P4", "2E-1", 100)]
    g.process(A.BuyTrain("P4", "2E-1", 100))
    assert [s.trains[t].name for t in sar.trains] == ["4", "4", "2E"]
    assert s.cash["C:SAR"] == 60
    assert s.companies["P4"].closed  # the rebate is used once
    assert not [a for a in g.legal_actions() if isinstance(a, A.BuyTrain) and a.entity in ("SAR", "P4")]

"""Issue 28, the ninth differential run (29 November 2026): findings pinned by pbm-only tests on
kept games (``referee_games/``), no referee needed."""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError

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


AL_60748 = ("18AL-4p-random-60748.jsonl", "18AL", 4, 60748,
            ["double_yellow_first_or", "site_routes", "site_obsolete", "site_auction"])


def test_18al_an_upgrade_whose_new_track_only_routes_through_the_hex_itself_reach_is_refused():
    """18AL 4.2.1(j): "Each tile laid must contain either some newly added track that is connected to
    an existing station of the corporation, or a city which is connected to an existing station".
    Random, 4 players, seed 60748, OR 13: ATN upgrades J3 (tile 23: I2 to K4 and I2 to L3) to 41 at
    rotation 5, whose new track joins K4 and L3.  ATN's routes reach K4 and L3 only through J3 (the
    side to I2 and then the side to K4 or to L3), so a route onto the new track would use one of J3's
    sides twice.  pbm's walk had merged four routes at one piece of track into one that had used only
    what all had used (J3's side to I2) and let the new track be reached; 18xx.games refused the lay
    ("Must use new track or change city value").  A yes from a walk that merged routes is now asked
    again of the exact walk."""
    g = kept_game(kept_log(*AL_60748))
    assert g.current_entity() == "ATN"
    assert g.state.map.placed["J3"].tile_id.startswith("23")
    assert not [a for a in g.legal_actions() if isinstance(a, A.LayTile) and a.hex == "J3"]
    with pytest.raises(GameError, match=r"4\.2\.1\(j\): tile 41 rotation 5 on J3 adds no track connected to ATN"):
        g.process(A.LayTile("ATN", hex="J3", tile="41", rotation=5))


VA_60759 = ("18VA-5p-random-60759.jsonl", "18VA", 5, 60759, ["site_routes", "two_player_share_limit"])


def test_18va_the_export_names_the_market_certificate_the_site_gives_back_after_a_restart():
    """Export (the site's certificate numbers, ``pbem/site_shares.py``).  Random, 5 players, seed
    60759: C&O closes at Tycoon A's bankruptcy (18VA 4.6.3) and Tycoon D starts it again; its unsold
    certificates later go to the market.  On the site a company's own certificates lie in number
    order, so they reached the market as C&O_5 to C&O_8.  Tycoon D, president with 20 %, sells 10 %
    (the president's certificate goes to Tycoon E, who gives two shares to the market) and the site
    gives D back the market's first certificate, C&O_5.  The export's model had the returned
    certificates in another order and named C&O_5 in Tycoon E's next purchase: the site refused it
    ("Cannot buy a share of C&O")."""
    from pbm.e18xx.pbem.exchange import export_log

    log = kept_log(*VA_60759)
    log["player_ids"] = [str(i + 1) for i in range(5)]
    trades = [(a["entity"], a["type"], a["shares"]) for a in export_log(log)["actions"]
              if a["type"] in ("buy_shares", "sell_shares") and a["shares"][0].startswith("C&O_")]
    i = trades.index((4, "sell_shares", ["C&O_0"]))  # Tycoon D's 10 % of his president's certificate
    assert trades[i + 1] == (5, "buy_shares", ["C&O_6"])  # Tycoon E, from the market
    assert trades[i + 2] == (4, "sell_shares", ["C&O_5"])  # Tycoon D sells what the site gave him back

"""Issue 28, the eighth differential run (29 November 2026): findings pinned by pbm-only tests on
kept games (``referee_games/``), no referee needed."""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError

from .kept import kept_game, kept_log

VA_60030 = ("18VA-4p-random-60030.jsonl", "18VA", 4, 60030, ["site_routes", "two_player_share_limit"])


def test_18va_a_corporation_that_reenters_play_has_lost_its_plus_one_train_limit():
    """18VA 4.6.3: a company closed by its president's bankruptcy "may subsequently reenter play as a
    new Corporation"; Potomac Yards' "+1 Train Limit" token (2, note 4) is the old corporation's.
    Random, 4 players, seed 60030: the B&O closes P3 for +1 train limit in OR 14 (action 444), closes at
    Tycoon C's bankruptcy (action 1046) and is started again by Tycoon A; in phase 4D (limit 2) it
    holds a 4G and a new 5 and tries to buy the C&O's 4D as a third train: the site refused it
    ("Blocking step Lay/Upgrade Track": the B&O's turn was over at its limit)."""
    g = kept_game(kept_log(*VA_60030, upto=445))
    assert g.state.corporations["B&O"].extra_train_limit == 1  # the old B&O had the token
    g = kept_game(kept_log(*VA_60030, upto=1283))
    assert g.current_entity() == "B&O"
    assert g.train_limit("B&O") == 2
    g.process(A.BuyTrain("B&O", "5-2", 500))
    assert len(g.state.corporations["B&O"].trains) == 2
    assert g.current_entity() == "RFPR"  # at its limit the B&O's turn is over
    with pytest.raises(GameError):
        g.process(A.BuyTrain("B&O", "4D-2", 380))


AUS_60048 = ("1848-3p-random-60048.jsonl", "1848", 3, 60048,
             ["site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass"])


def test_1848_a_run_followed_by_a_loan_into_receivership_pays_nothing_and_leaves_no_routes_behind():
    """1848 5.5.1: a company whose price reaches the left-most column "is immediately taken over by
    the Bank of England"; 5.5.5: "Any remaining money in the company's treasury is given back to the
    Bank"; 5.6.1: a loan "can be taken out at any time during the company's turn".  Random, 3 players,
    seed 60048: NSW runs for 120, then borrows (its price into receivership, the third); it pays no
    dividend.  The next company, FT, has no train: after its track and station it withholds nothing
    and its price falls (11).  18xx.games kept NSW's routes in the round and asked FT for a dividend on
    them (its "Pay or Withhold Dividends" step refused FT's train purchase): the site's side."""
    g = kept_game(kept_log(*AUS_60048, upto=252))
    s = g.state
    players = {p.key: s.cash[p.key] for p in s.players}
    g.process(A.TakeLoan("NSW"))
    assert s.corporations["NSW"].receivership
    paid = {k: s.cash[k] - v for k, v in players.items() if s.cash[k] != v}
    assert paid == {"P:Tycoon B": 100}  # compensation for his one share (5.5.2), no dividend
    assert g.current_entity() == "FT" and not s.corporations["FT"].trains
    g = kept_game(kept_log(*AUS_60048, upto=257))  # FT's two tiles and its station
    assert g.share_price("FT") == 20  # withheld nothing: one column left (from 30)
    assert g.current_entity() == "FT"
    assert g.open_step()[0].name == "buy_train"


SITE_1848 = ["site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass"]


def test_1848_an_upgrade_keeps_the_two_cities_of_an_oo_tile_apart():
    """1848 7.5.3: "Existing track may not be broken or lost as a result of an upgrade ... Tiles with
    stations must retain any stations they had before upgrade."  Random (the loan filter), 3 players,
    seed 60052: F15 holds 59 at rotation 4, its two cities with edge 4 and edge 0; 64 at rotation 4
    would put both edges in one city (the other city only new track).  pbm listed and accepted it;
    18xx.games refused ("59 is not legally rotated for 64").  The rotations left are the site's
    (checked with its engine: 64 at 0 and 2, 65 at 2 and 4, 66 at 3 and 4, 67 at 0 and 4, 68 at 0
    and 3)."""
    g = kept_game(kept_log("1848-3p-randomf-60052.jsonl", "1848", 3, 60052, SITE_1848))
    assert g.current_entity() == "NSW" and g.state.map.placed["F15"].tile.name == "59"
    lays = sorted((a.tile, a.rotation) for a in g.legal_actions() if isinstance(a, A.LayTile) and a.hex == "F15")
    assert lays == [("64", 0), ("64", 2), ("65", 2), ("65", 4), ("66", 3), ("66", 4), ("67", 0), ("67", 4),
                    ("68", 0), ("68", 3)]
    with pytest.raises(GameError, match=r"7\.5\.3.*separate cities \(edges \[4\] and \[0\]\) would be joined"):
        g.process(A.LayTile("NSW", "F15", "64", 4))
    g.process(A.LayTile("NSW", "F15", "64", 0))


def test_1848_site_discard_flag_a_loan_before_the_withhold_asks_for_the_discard_before_the_next_turn():
    """``site_discard_timing`` (rulings-1848.md, 8.1): WA, with no train one column from
    receivership, borrows in the step before its withhold (5.6.1) and goes into receivership, the
    second: the 5 leaves, phase 5 begins and FT holds three trains over the limit of 2.  18xx.games
    closes WA at its dividend step and asks FT to discard before NSW's turn (random with the loan
    filter, 3 players, seed 60048: pbm had begun NSW's turn and the site refused NSW's tile).  A loan
    at the start of a turn or a withhold into receivership hands the turn on at once
    (``test_referee_findings.py::test_1848_site_discard_flag_*``)."""
    g = kept_game(kept_log("1848-3p-randomf-60048.jsonl", "1848", 3, 60048, SITE_1848))
    assert g.current_entity() == "WA" and g.open_step()[0].name == "loan_before_dividend"
    g.process(A.TakeLoan("WA"))
    assert g.state.corporations["WA"].receivership and g.crowded_corps() == ["FT"]
    assert g.current_entity() == "FT" and g.open_step()[0].name == "discard_train"
    g.process(A.DiscardTrain("FT", "3-4"))
    assert g.current_entity() == "NSW" and g.open_step()[0].name == "track"


def test_1848_export_after_a_last_step_loan_that_pays_for_the_ghan_passes_the_sites_buy_trains():
    """Export (``site_passes.py::_site_buys_on``): WA, at its train limit with £110, runs, pays out
    and borrows in its turn's last step (5.6.1); pbm's turn is over (the book's order: trains, then
    privates and loans).  18xx.games opens its Buy Trains step again: WA now has £210 and may add The
    Ghan (2E, £200), which does not count against the limit (8.2.5).  The export writes the site's
    pass there (random with the loan filter, 6 players, seed 60047: the site refused QR's tile)."""
    from pbm.e18xx.pbem import exchange

    log = kept_log("1848-6p-randomf-60047.jsonl", "1848", 6, 60047, SITE_1848)
    acts = exchange.export_log(log)["actions"]
    loan = max(i for i, a in enumerate(acts) if a["type"] == "take_loan" and a["entity"] == "WA")
    assert acts[loan + 1] == {"type": "pass", "entity": "WA", "entity_type": "corporation", "pbm_auto": True,
                              "id": loan + 2}
    assert acts[loan + 2]["entity"] == "QR"
    g = kept_game(log)
    assert g.current_entity() == "QR"  # pbm: WA's turn ended with the loan


def test_1848_site_discard_flag_a_waiting_discard_comes_before_the_next_turn_after_a_withhold_into_receivership():
    """``site_discard_timing``: QR has been over its limit since FT's receivership (the train
    removal began phase 5) and waits for a later company's discard step.  SAR runs, withholds and goes
    into receivership at its dividend: 18xx.games then reaches SAR's discard step and asks QR before
    VR's turn (random with the loan filter, 3 players, seed 60068: pbm had begun VR's turn and the site
    refused VR's tile).  A discard that the receivership's own train removal brings waits for the next
    company's discard step (60048's VR, and the fifth run's 13004 and 14003)."""
    g = kept_game(kept_log("1848-3p-randomf-60068.jsonl", "1848", 3, 60068, SITE_1848))
    assert g.current_entity() == "SAR" and g.crowded_corps() == ["QR"]
    g.process(A.Dividend("SAR", "withhold"))
    assert g.state.corporations["SAR"].receivership
    assert g.current_entity() == "QR" and g.open_step()[0].name == "discard_train"
    g.process(A.DiscardTrain("QR", "3-3"))
    assert g.current_entity() == "VR"


def test_1848_export_a_last_step_loan_closes_the_sites_last_step_for_a_company_with_an_anytime_private():
    """Export: a company owning a private usable all turn (1848's P2, P3: title data
    ``site_anytime_privates``) keeps 18xx.games' last step ("Take Loans or Buy Company") open, and the
    export writes the site's pass there -- but not after a loan taken in that step, which ends it on
    the site (random with the loan filter, 3 players, seed 60096: QR, owning P2, borrowed in its last
    step and the site went on to SAR)."""
    from pbm.e18xx.pbem import exchange

    log = kept_log("1848-3p-randomf-60096.jsonl", "1848", 3, 60096, SITE_1848)
    acts = exchange.export_log(log)["actions"]
    loan = max(i for i, a in enumerate(acts) if a["type"] == "take_loan" and a["entity"] == "QR")
    assert acts[loan + 1]["entity"] == "SAR" and acts[loan + 1]["type"] == "lay_tile"
    # in the next round QR (P2 still its own, its five loans taken: it may not borrow again, 5.6.3)
    # pays out and its turn is over: the site's last step does not block either, no pass is written
    payout = max(i for i, a in enumerate(acts) if a["type"] == "dividend" and a["entity"] == "QR")
    assert payout > loan and acts[payout + 1]["entity"] == "SAR" and acts[payout + 1]["type"] == "lay_tile"
    g = kept_game(log)
    assert g.state.companies["P2"].owner == "C:QR" and not g.can_take_loan("QR", ignore_round=True)


def test_1848_export_a_loan_that_ends_the_operating_rounds_counts_its_money_for_the_sites_buy_trains():
    """Export: SAR, last to operate in the set's last operating round and at its train limit, pays
    out and borrows in its last step (£100 more: 5.6); pbm begins the stock round.  The site opens its
    Buy Trains step again for The Ghan (2E, outside the limit), now affordable; the export counted
    SAR's cash before the loan and wrote no pass (random with the loan filter, 5 players, seed 60098:
    the site refused the next share purchase)."""
    from pbm.e18xx.pbem import exchange

    log = kept_log("1848-5p-randomf-60098.jsonl", "1848", 5, 60098, SITE_1848)
    acts = exchange.export_log(log)["actions"]
    loan = max(i for i, a in enumerate(acts) if a["type"] == "take_loan" and a["entity"] == "SAR")
    assert acts[loan + 1]["type"] == "pass" and acts[loan + 1]["entity"] == "SAR" and acts[loan + 1]["pbm_auto"]
    assert acts[loan + 2]["type"] == "buy_shares"
    assert kept_game(log).state.round.kind == "stock"


def test_18al_an_obsolete_train_in_the_open_market_is_never_bought():
    """18AL 4.2.5.1: "No corporation may ever purchase an obsolete train from any source. If an
    obsolete train is ever discarded into the Open Market, it is immediately removed from play."
    Random, 5 players, seed 60323 (``site_obsolete``: the site keeps the 4s that were in the Open
    Market when the 7 came, obsolete): WRA discarded a 4 (4-1) before the first 7; pbm then listed and
    sold it to ATN for $300, which the site refused ("Not a buyable train: 4-1")."""
    g = kept_game(kept_log("18AL-5p-random-60323.jsonl", "18AL", 5, 60323,
                           ["site_auction", "site_obsolete", "site_routes", "unlimited_4d"]))
    assert g.current_entity() == "ATN" and g.state.trains["4-1"].obsolete
    assert not any(isinstance(a, A.BuyTrain) and a.train == "4-1" for a in g.legal_actions())
    with pytest.raises(GameError, match="obsolete: no company may ever buy an obsolete train"):
        g.process(A.BuyTrain("ATN", "4-1", 300))


def test_18al_an_obsolete_train_discarded_leaves_play_under_the_book():
    """18AL 4.2.5.1, the book (without ``site_obsolete``): an obsolete train discarded into the Open
    Market is "immediately removed from play"."""
    from pbm.e18xx.core.game import Game

    g = Game("18AL", ["A", "B", "C"], 1, ())
    t = next(iter(g.state.trains.values()))
    t.obsolete = True
    g._to_pool(t.tid)  # noqa: SLF001 - the discard's own move
    assert t.owner == "removed"
    u = list(g.state.trains.values())[1]
    g._to_pool(u.tid)  # noqa: SLF001
    assert u.owner == "discard"


def test_18va_export_a_turn_ended_by_an_early_pass_with_an_anytime_private_passes_the_sites_last_step():
    """Export (``site_passes.py``): WMR buys the Railway Express Agency (P1, usable all turn: title
    data ``site_anytime_privates``) at the start of its turn, then passes its track; nothing else is
    left (no station, no run, no room for a train) and pbm's turn is over.  18xx.games skips the same
    steps but waits in its last step ("Buy Companies") while the company owns such a private: the
    export writes that pass (random, 4 players, seed 60230: the site refused SR's conversion)."""
    from pbm.e18xx.pbem import exchange

    log = kept_log("18VA-4p-random-60230.jsonl", "18VA", 4, 60230, ["site_routes", "two_player_share_limit"])
    acts = exchange.export_log(log)["actions"]
    bought = max(i for i, a in enumerate(acts) if a["type"] == "buy_company" and a["entity"] == "WMR")
    assert [(a["type"], a["entity"], a.get("pbm_auto", False)) for a in acts[bought + 1:bought + 3]] == [
        ("pass", "WMR", False), ("pass", "WMR", True)]
    assert acts[bought + 3]["entity"] == "SR"


def test_18va_export_a_last_step_purchase_of_an_anytime_private_passes_both_open_site_steps():
    """Export: SR buys a 3 train, then Tredegar (P2) and the Railway Express Agency (P1, usable all
    turn) in its last step, and pbm's turn is over.  18xx.games still has its Buy Trains step open
    (SR could pay another train) and, with P1 owned, its last step waits too: the export writes both
    passes, Buy Trains first (random, 5 players, seed 60391: one pass was written and the site
    refused N&W's)."""
    from pbm.e18xx.pbem import exchange

    log = kept_log("18VA-5p-random-60391.jsonl", "18VA", 5, 60391, ["site_routes", "two_player_share_limit"])
    acts = exchange.export_log(log)["actions"]
    bought = max(i for i, a in enumerate(acts) if a["type"] == "buy_company" and a["entity"] == "SR")
    assert [(a["type"], a["entity"], a.get("pbm_auto", False)) for a in acts[bought + 1:bought + 3]] == [
        ("pass", "SR", True), ("pass", "SR", True)]

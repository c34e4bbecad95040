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

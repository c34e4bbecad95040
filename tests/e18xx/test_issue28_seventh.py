"""Findings of the seventh run against the 18xx.games engine (issue 28)."""
from __future__ import annotations

from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem import exchange

from .kept import kept_log as _log, kept_game as _game
SITE_1848 = ["site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass"]


def test_1848_a_director_with_nothing_to_sell_carries_the_debt_into_the_next_operating_round():
    """1848 5.5.2, 5.5.3 and 7.2 (random, 6 players, seed 50083, the site's flags; the sixth run's
    open item).  QR, the last company to operate in operating round 4.1, takes a loan that moves its
    price into the left-most column: it goes into receivership at once (5.5.1) and owes £270 of
    compensation to Tycoon F and Tycoon D (5.5.2); its treasury is £100 short, so its director,
    Tycoon C, is liable.  He has no money and no share -- only the Oodnadatta Railway (P2), which he
    keeps for its rebate and which cannot be traded (4.1: "Private Companies can not be traded") --
    so "he must borrow the remaining amount from the bank" (5.5.3): his debt is £100 and the game goes
    on.  The round is over (7.3), so the next one begins with its payouts (7.2: "The Bank of England
    operates next").  18xx.games keeps its "Cash Crisis" step as the round's active step although
    nobody can act in it, so the round never ends and it refused the Bank of England's payout that the
    export records ("No step found for action dividend"): a departure, ruled in rulings-1848.md."""
    log = _log("1848-6p-random-50083.jsonl", "1848", 6, 50083, SITE_1848)
    g = _game(log)
    s = g.state
    assert g.actions[-1] == A.TakeLoan(entity="QR")
    assert s.corporations["QR"].receivership
    assert s.cash["P:Tycoon C"] == -100
    assert not s.share_owner.holdings("P:Tycoon C")  # nothing he could sell
    assert [c.sym for c in s.companies.values() if c.owner == "P:Tycoon C"] == ["P2"]
    assert (s.round.kind, s.turn, s.round.num) == ("operating", 4, 2)
    assert g.current_entity() == "CAR"
    log_lines = [str(x) for x in s.log]
    i = log_lines.index("-- QR goes into receivership (3) --")
    assert log_lines[i + 3:i + 5] == ["-- operating round 4.2 --", "BOE pays 250 (25 a share)"]
    last = exchange.export_log(log)["actions"][-1]
    assert (last["type"], last["entity"]) == ("take_loan", "QR")
    assert [(a["type"], a["entity"], a["kind"]) for a in last["auto_actions"]] == [("dividend", "BOE", "payout")]


def test_1848_after_this_rounds_loan_the_export_passes_the_sites_last_step():
    """1848 5.6.1 ("A company can take a maximum of one loan per OR") under the book, without
    `site_turn_end_pass` (computer, 5 players, seed 50266, no optional rule): NSW borrows, buys the
    first 5 (phase 5; the Tasmania tile goes down, 4.4) and passes its train step.  pbm's last step
    offers nothing more (this round's loan is taken, no private is left), so NSW's turn ends; on
    18xx.games the last step ("Take Loans or Buy Company") waits for a pass while the company could
    borrow in some round, and refused the next company's tile ("Blocking step Take Loans or Buy
    Company cannot process action lay_tile").  The export writes that pass (`pbm_auto`)."""
    log = _log("1848-5p-computer-50266.jsonl", "1848", 5, 50266, [])
    g = _game(log)
    assert g.actions[-1] == A.Pass(entity="NSW")
    assert "NSW" in g.state.round.loaned and g.can_take_loan("NSW", ignore_round=True)
    assert g.current_entity() == "QR"
    tail = [(a["type"], a["entity"], bool(a.get("pbm_auto"))) for a in exchange.export_log(log)["actions"][-4:]]
    assert tail == [("buy_train", "NSW", False), ("lay_tile", "P3", False), ("pass", "NSW", False),
                    ("pass", "NSW", True)]


def test_1848_with_the_sites_flag_the_turn_waits_for_that_pass_itself():
    """The same position with `site_turn_end_pass` (18xx.games' behaviour as a rule): pbm's own turn
    waits for NSW's pass, so the export writes it as NSW's move and adds none."""
    log = _log("1848-5p-computer-50266.jsonl", "1848", 5, 50266, ["site_turn_end_pass"])
    g = _game(log)
    assert g.current_entity() == "NSW" and A.Pass(entity="NSW") in g.legal_actions()
    tail = [(a["type"], a["entity"], bool(a.get("pbm_auto"))) for a in exchange.export_log(log)["actions"][-2:]]
    assert tail == [("lay_tile", "P3", False), ("pass", "NSW", False)]


def test_1848_the_com_leaves_sydneys_place_to_new_south_wales():
    """1848 7.7.4 ("If a city contains the home base of a company that is not yet in operation, other
    companies may only build stations there if they leave at least one free place on the tile for the
    not yet operating company ... This rule does not apply to the home stations of the COM") and 5.3.6
    ("If in one or both of the cities there is no place for the home station for that city, the token
    is laid on the edge of the tile").  Computer, 5 players, seed 50330: the COM begins to operate while
    New South Wales, whose home is Sydney (F17, one circle), has not started.  pbm put the COM's home
    station into that circle, so Sydney was full and blocked the Federal Territory's track to Newcastle
    (E18); 18xx.games lays the COM's station beside the city, keeps the circle for NSW, and waited for
    FT's station in E18 ("Blocking step Place a Token cannot process action run_routes")."""
    log = _log("1848-5p-computer-50330.jsonl", "1848", 5, 50330, [])
    g = _game(log)
    m = g.state.map
    assert g.actions[-1] == A.LayTile(entity="FT", hex="D13", tile="20", rotation=5)
    assert not g.state.corporations["NSW"].ipoed
    assert m.tokens[("F17", 0)] == [None, "COM"]  # the circle kept for NSW, the COM's station beside it
    assert m.reservations[("F17", 0)] == "NSW"
    assert m.tokens[("G6", 0)] == ["SAR", "COM"]  # Adelaide: SAR (in operation) had its place already
    stations = [a for a in g.legal_actions() if isinstance(a, A.PlaceToken)]
    assert [(a.entity, a.city) for a in stations] == [("FT", "6-2-0")]  # E18, through Sydney


def test_1848_the_sydney_adelaide_link_passes_each_stop_once():
    """1848 5.3.2: the COM operates once "a notional train of infinite range could travel from Sydney
    to Adelaide" -- a train, which passes a town or city once.  Computer, 5 players, seed 50838 (site
    flags), action 486: QR upgrades Sydney (F17) to a 6.  pbm's walk counted a link that ran into Port
    Augusta (E4), out through D3 to Whyalla (E2), and back through Port Augusta again on its way to Adelaide; the
    site, whose graph walk passes a stop once, refused the link ("Blocking step Lay Track cannot
    process action destination_connection"; also 4p 50645 at action 411).  The recorded games'
    links (fixtures 101, 1848_game_end_bank, 1848_hotseat_game) are still found."""
    rules = ["site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass"]
    g = _game(_log("1848-5p-computer-50838.jsonl", "1848", 5, 50838, rules))
    assert g.actions[-1] == A.LayTile(entity="QR", hex="F17", tile="6", rotation=1)
    assert not g.homes_linked("F17", "G6")
    assert "linked:COM" not in g.state.events

"""1848 Australia: the rulebook's worked examples and its mechanics, each asserted on an
outcome (prices, cash, limits), with cash conserved; states come from a fresh game or from
a recorded game replayed up to an action."""
from __future__ import annotations

import os

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.fixtures import load_fixture
from pbm.e18xx.gauge import _Pool, _train_spec
from pbm.e18xx.replay import Replayer

from .helpers import random_game


def at(rel: str, upto: int) -> Game:
    export, where = load_fixture(f"1848/{rel}")
    if export is None:
        pytest.skip(where)
    return Replayer(export).run(upto=upto)


def new(n: int = 3) -> Game:
    return Game("1848", ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"][:n])


# -- 2.3, 12.2: starting capital and certificate limits by player count ----------------------
@pytest.mark.parametrize("n, cash, limit", [(3, 840, 20), (4, 630, 17), (5, 510, 14), (6, 430, 12)])
def test_starting_capital_and_cert_limit(n, cash, limit):
    g = new(n)
    assert all(g.state.cash[p.key] == cash for p in g.state.players)
    assert g.cert_limit() == limit
    assert g.state.cash["C:BOE"] == 2000 and g.total_cash() == 12000  # 5.4.1: the Bank of England's £2,000


# -- 3.1: buying or lowering the privates ------------------------------------------------------
def test_dutch_sale_lower_buy_and_pass_rules():
    g = new(3)
    with pytest.raises(GameError, match="3.1.1"):
        g.process(A.Pass("Ann"))  # owns nothing: buy or lower
    g.process(A.Assign("Ann", "P6"))
    assert g.state.companies["P6"].min_bid == 225
    with pytest.raises(GameError, match="costs £225"):
        g.process(A.Bid("Bob", "P6", 230))
    before = g.state.cash["P:Bob"]
    g.process(A.Bid("Bob", "P6", 225))  # 4.7: the CAR director's share, CAR at £100
    assert g.state.cash["P:Bob"] == before - 225 and g.president("CAR") == "Bob"
    assert g.share_price("CAR") == 100 and g.state.corporations["CAR"].ipoed
    g.process(A.Bid("Cy", "P5", 170))  # 4.6: a 10% share of the QR
    assert g.state.share_owner["QR_1"] == "P:Cy"
    for _ in range(6):  # P1 falls to its lowest price, £0
        g.process(A.Assign(g.current_entity(), "P1"))
    assert g.state.companies["P1"].min_bid == 0
    with pytest.raises(GameError, match="lowest price"):
        g.process(A.Assign(g.current_entity(), "P1"))
    # 3.1.4: everybody passes (Ann may: the rulebook lets anyone pass once every price is at
    # its lowest... not yet here, so she lowers) -- Bob and Cy own privates and may pass
    g.process(A.Assign("Ann", "P2"))
    bob, cy = g.state.cash["P:Bob"], g.state.cash["P:Cy"]
    g.process(A.Pass("Bob"))
    g.process(A.Pass("Cy"))
    assert g.current_entity() == "Ann"
    assert (g.state.cash["P:Bob"], g.state.cash["P:Cy"]) == (bob, cy)  # Ann has not passed: no payout


def test_site_dutch_pass_rule_is_narrower():
    g = Game("1848", ["Ann", "Bob", "Cy"], optional_rules=("site_dutch_pass",))
    assert not g.dutch_may_pass("Ann")


# -- 5.6: loans -----------------------------------------------------------------------------
def test_loan_moves_prices_and_money_once_per_round():
    g = at("101.json", 103)  # SAR, phase 3, has bought its trains
    total = g.total_cash()
    sar, boe = g.share_price("SAR"), g.share_price("BOE")
    col = g.state.corporations["SAR"].price[1]
    cash = g.state.cash["C:SAR"]
    g.process(A.TakeLoan("SAR"))
    assert g.state.corporations["SAR"].price[1] == col - 2  # 5.6.2: two spaces left
    assert g.share_price("BOE") == 80 and boe == 70  # the Bank of England one space up
    assert g.state.cash["C:SAR"] == cash + 100 and g.state.cash["C:BOE"] == 1900
    assert g.total_cash() == total
    before = g.state.cash["C:SAR"]
    with pytest.raises(GameError, match="5.6"):
        g.process(A.TakeLoan("SAR"))  # 5.6.1: one loan per operating round
    assert g.state.cash["C:SAR"] == before and g.share_price("SAR") < sar


def test_no_loans_before_the_first_3_train():
    g = at("101.json", 47)  # CAR's first turn, phase 2
    with pytest.raises(GameError, match="not available yet"):
        g.process(A.TakeLoan("CAR"))


# -- 5.5: receivership ----------------------------------------------------------------------------
def test_receivership_compensation_stations_and_cert_limits():
    g = at("101.json", 475)
    cash3 = g.state.cash["P:Player 3"]
    g2 = at("101.json", 476)  # SAR's second loan takes it into the receivership column
    sar = g2.state.corporations["SAR"]
    assert sar.closed and sar.receivership and g2.state.receiverships == 1
    assert g2.state.cash["P:Player 3"] - cash3 == 3 * 70  # 5.5.2: 3 shares at the starting value
    assert any(t == "BOE" for slots in g2.state.map.tokens.values() for t in slots)  # 5.5.5
    director = "Player 1"
    assert g2.cert_limit("Player 3") == 18 and g2.cert_limit(director) == 16  # 5.5.4 (3 players)


def test_bank_of_england_dividend_counts_receivership_stations():
    g = at("101.json", 476)
    s = g.state
    holders = {p.name: g.percent_of(p.key, "BOE") // 10 for p in s.players}
    before = {p.name: s.cash[p.key] for p in s.players}
    g.lender_dividend()
    colors = g.route_colors()
    stations = sum(s.map.tile(h).nodes[i].revenue_for(colors) * slots.count("BOE")
                   for (h, i), slots in s.map.tokens.items())
    per = (100 + stations) // 10  # 5.4.3 phase 4: £100, plus 5.5.7 the stations' cities
    for p in s.players:
        assert s.cash[p.key] - before[p.name] == holders[p.name] * per


# -- 7.6, 8.2.3: changes of gauge; 10.4: the K-K bonus -------------------------------------------------
def test_gauge_change_counts_against_a_standard_train_not_a_plus_train():
    g = at("1848_game_end_bank.json", 263)  # FT runs H11-G12-G14-G16-F17 with its 4+ next
    pool = _Pool(g, "FT", 6)
    route = next(r for r in pool.routes
                 if r.node_ids() in (("H11-0", "G12-0", "G14-0", "G16-0", "F17-0"),
                                     ("F17-0", "G16-0", "G14-0", "G12-0", "H11-0")))
    assert pool.gauge(route) == 1
    spec = _train_spec(g, "4-0")
    assert spec.free_gauge == 1 and pool.value(route, spec) == 140
    plain = spec.__class__(spec.tid, 4, 0, frozenset())
    assert pool.value(route, plain) is None  # 4 cities + 1 gauge change > 4


def test_k_k_bonus():
    """10.4: WA's 4 train from Perth to Adelaide (two K cities) earns 160 + 50 (hotseat game,
    action 292: "D1-D3-E4-F5-G6 + k-k", 210)."""
    g = at("1848_hotseat_game.json", 291)
    assert g.title.data["k_bonus"]["bonus"][:6] == [0, 0, 50, 100, 150, 200]
    pool = _Pool(g, "WA", 4)
    route = next(r for r in pool.routes if r.node_ids() in (("D1-0", "D3-1", "E4-0", "F5-0", "G6-0"),
                                                         ("G6-0", "F5-0", "E4-0", "D3-1", "D1-0")))
    assert pool.bonus(route) == 50 and route.revenue == 160
    assert pool.value(route, _train_spec(g, "4-3")) == 210
    two_e = _train_spec(g, "4-3").__class__("2E-x", 2, 0, frozenset({"A4", "A6"}))
    assert pool.value(route, two_e) is None  # 8.2.5: the Ghan runs only to Alice Springs (no bonus)


def test_car_example_two_routes_to_perth():
    """10.3.1: CAR's 2-train north via the towns (20+10+40) and 3-train south (20+20+40) earn 150."""
    g = new(3)
    s = g.state
    car = s.corporations["CAR"]
    for coord, tile, rot in (("E4", "5", 1), ("D3", "69", 3), ("E2", "6", 2)):
        g._put_tile(coord, tile, 0, rot, "CAR")
    s.map.tokens[("E4", 0)][0] = "CAR"
    car.tokens[0] = ("E4", 0)
    s.phase = 1  # green: Perth is worth 40
    for tid in ("2-0", "3-0"):
        s.trains[tid].owner = "C:CAR"
        car.trains.append(tid)
    total, chosen = g.auto_routes("CAR")
    assert total == 150
    assert sorted(r.revenue for _, r in chosen) == [70, 80]


# -- 8.2.5: The Ghan ------------------------------------------------------------------------------
def test_2e_outside_the_limit_and_not_a_train_for_the_duty():
    g = at("1848_hotseat_game.json", 265)
    assert "2E-0" in g.state.corporations["CAR"].trains
    assert g.limited_trains("CAR") == [t for t in g.state.corporations["CAR"].trains if t != "2E-0"]
    assert not g._room("CAR", "2E-1")  # one 2E per company


# -- illegal moves are refused with the reason, the state unchanged --------------------------------
def test_refusals_leave_the_state_unchanged():
    g = at("101.json", 103)
    snap = (dict(g.state.cash), dict(g.state.share_owner), g.state.corporations["SAR"].price)
    for act, why in ((A.BuyTrain("SAR", "4"), "SAR is at its train limit: .*the limit is 4 in the 3/3\\+ Phase \\(rule 8.3.5\\)"),
                     (A.BuyCompany("SAR", "P6", 200), "rule 4.1: P6 is closed"),
                     (A.LayTile("SAR", "I8", "241", 0), "may not lay or upgrade a tile"),
                     (A.TakeLoan("CAR"), "not CAR's turn")):
        with pytest.raises(GameError, match=why):
            g.process(act)
        assert (dict(g.state.cash), dict(g.state.share_owner), g.state.corporations["SAR"].price) == snap


# -- a short soak (PBM_SOAK=1: hundreds): random legal games, cash conserved after every action ------
SOAK = int(os.environ.get("PBM_SOAK_GAMES", "300")) if (os.environ.get("PBM_SOAK") or os.environ.get("PBM_SLOW")) else 12


@pytest.mark.parametrize("seed", range(SOAK))
def test_random_1848_games(seed):
    g = random_game(seed, players=3 + seed % 4, title="1848", prefix="Pl", max_actions=3000)
    assert sum(g.state.cash.values()) == 12000
    if g.finished:
        assert g.state.end_reason in ("bank", "stock_market", "receiverships")
        again = Game.from_log(g.to_log())
        assert again.result() == g.result()


def test_first_5_train_closes_privates_but_not_unused_discounts_and_forces_tasmania():
    """4.1-4.5: with the first 5 train the privates close; P2's and P4's unused rebates stay
    with their owner; an unlaid Tasmania tile must be laid at once."""
    g = at("101.json", 139)
    s = g.state
    from pbm.e18xx.core.track import Placed
    s.companies["P3"].uses = {}  # as if the Tasmania tile had not been laid yet
    s.map.placed["I10"] = Placed(g.title.hexes["I10"].tile, None, 0)
    s.tile_supply["241"] = [0]
    s.map.version += 1
    g._train_bought_from_depot("5")
    assert s.companies["P1"].closed
    assert not s.companies["P4"].closed and s.companies["P4"].revenue == 0
    assert g.current_entity() == "P3"
    lays = g.legal_actions()
    assert lays and {a.hex for a in lays} == {"I8", "I10"} and all(a.entity == "P3" for a in lays)
    with pytest.raises(GameError, match="P3's tile must be laid first"):
        g.process(A.Pass(g._or_operator()))
    g.process(lays[0])
    assert s.companies["P3"].closed and g.current_entity() != "P3"


def test_director_short_of_compensation_must_sell_shares():
    """5.5.3: the director pays what the treasury cannot; short of cash he must sell shares
    first, and what he still owes stays a debt (cash below zero) until his next income."""
    g = at("101.json", 475)
    s = g.state
    total = g.total_cash()
    s.cash["bank"] += s.cash["P:Player 1"] + s.cash["C:SAR"]
    s.cash["P:Player 1"] = s.cash["C:SAR"] = 0
    g.process(A.TakeLoan("SAR"))
    assert s.corporations["SAR"].receivership
    assert s.cash["P:Player 1"] < 0 and g.current_entity() == "Player 1"
    with pytest.raises(GameError, match="5.5.3"):
        g.process(A.Pass(g._or_operator()))
    sells = g.legal_actions()
    assert sells and all(isinstance(a, A.SellShares) and a.entity == "Player 1" for a in sells)
    owed = -s.cash["P:Player 1"]
    g.process(max(sells, key=lambda a: a.count))
    assert s.cash["P:Player 1"] > -owed
    while g.current_entity() == "Player 1" and s.cash["P:Player 1"] < 0:
        g.process(g.legal_actions()[0])
    assert g.total_cash() == total


def test_a_sale_moves_the_price_one_row_whatever_the_number_of_shares():
    """12.5.1 (the example: two SAR shares sold move SAR down one space)."""
    g = at("1848_hotseat_game.json", 201)
    assert g.current_entity() == "Player 3"
    r, c = g.state.corporations["SAR"].price
    g.process(A.SellShares("Player 3", corporation="SAR", count=3))
    assert g.state.corporations["SAR"].price == (r + 1, c)
    boe = g.share_price("BOE")
    if g.percent_of("P:Player 3", "BOE"):
        g.process(A.SellShares("Player 3", corporation="BOE", count=1))
        assert g.share_price("BOE") == boe  # 12.5.2


def test_trains_between_directors_at_face_value():
    """8.1: deals with other directors only at the printed value; one's own companies: £1 up."""
    g = at("101.json", 468)  # FT is about to buy trains from other companies
    s = g.state
    ft_pres = g.president("FT")
    refused = own = 0
    for t in g._other_trains("FT"):
        seller = s.trains[t].owner[2:]
        if g.president(seller) != ft_pres:
            with pytest.raises(GameError, match="face value"):
                g.process(A.BuyTrain("FT", t, 1))
            refused += 1
        else:
            own += 1
    assert own >= 1 and refused >= 1  # the site's game: FT bought its director's other trains for £1 (actions 469-470)
    g.process(A.BuyTrain("FT", "3-0", 1))
    assert "3-0" in s.corporations["FT"].trains


@pytest.mark.parametrize("seed", range(3))
def test_random_1848_games_with_few_loans_reach_the_late_game(seed):
    """Random play that seldom borrows and mostly pays out: the late phases, COM, the 2E, and
    the bank or the stock market ending the game; never a bankruptcy (8.4: receivership instead)."""
    import random

    from . import helpers
    weights = dict(helpers.WEIGHTS)
    weights[A.TakeLoan] = 0.02
    rng = random.Random(seed)
    g = Game("1848", [f"Pl{i}" for i in range(3 + seed)], seed)
    total = g.total_cash()
    for _ in range(6000):
        if g.finished:
            break
        acts = g.legal_actions()
        assert not any(isinstance(a, A.Bankrupt) for a in acts)
        a = rng.choices(acts, [weights.get(type(x), 1.0) * (3.0 if getattr(x, "kind", "") == "payout" else 1.0)
                               for x in acts])[0]
        g.process(a)
        assert g.total_cash() == total
    assert g.finished and g.state.end_reason in ("bank", "stock_market", "receiverships")
    assert int(g.phase.name) >= 5


def test_director_change_example():
    """6.2 (the example): Bill directs COM with 6 shares, Fred has 3; Bill sells 4 and keeps
    2, so Fred becomes director; Bill hands over the director's certificate and receives two
    standard shares for it. (Played on the CAR of a recorded game's stock round.)"""
    g = at("1848_hotseat_game.json", 205)
    s = g.state
    bill, fred = "Player 3", "Player 1"
    for sid in ("CAR_6", "CAR_7"):
        s.share_owner[sid] = f"P:{fred}"  # Fred: 3 standard shares
    assert g.percent_of(f"P:{bill}", "CAR") == 60 and g.percent_of(f"P:{fred}", "CAR") == 30
    total, price = g.total_cash(), g.share_price("CAR")
    cash = s.cash[f"P:{bill}"]
    g.process(A.SellShares(bill, corporation="CAR", count=4))
    assert g.president("CAR") == fred and s.share_owner["CAR_0"] == f"P:{fred}"
    assert g.percent_of(f"P:{bill}", "CAR") == 20 and g.percent_of(f"P:{fred}", "CAR") == 30
    assert all(sid != "CAR_0" for sid in g.shares_of(f"P:{bill}", "CAR"))  # two standard shares
    assert s.cash[f"P:{bill}"] == cash + 4 * price and g.total_cash() == total


@pytest.mark.parametrize("first, second", [("CAR", "VR"), ("VR", "CAR")])
def test_token_moving_onto_an_occupied_space_goes_underneath(first, second):
    """11 (the example): a company paying out moves one space right; arriving on a space where
    another company's token already is, its token goes underneath, so it operates after it."""
    g = at("1848_hotseat_game.json", 205)
    s = g.state
    r, c = s.corporations[first].price
    g._set_price(s.corporations[second], (r, c - 1))
    g.move_right(s.corporations[second])  # 11.1: a dividend moves it right, onto `first`
    assert s.corporations[second].price == (r, c)
    order = g.operating_order()
    assert order.index(first) < order.index(second)
    g.move_left(s.corporations[first])  # 11.2: retaining moves it one space left
    assert s.corporations[first].price == (r, c - 1)


def test_sold_out_companies_rise_at_the_end_of_a_stock_round_but_not_the_bank_of_england():
    """12.6.1: a company whose shares are all in players' hands moves one space up at the end
    of the stock round; 12.6.2: the Bank of England's price does not change."""
    g = at("1848_hotseat_game.json", 205)
    s = g.state
    for corp in ("CAR", "BOE"):
        for sid, owner in list(s.share_owner.items()):
            if sid.startswith(f"{corp}_") and not owner.startswith("P:"):
                s.share_owner[sid] = "P:Player 2"
    assert sum(g.percent_of(p.key, "BOE") for p in s.players) == 100
    (r, c), boe, vr = s.corporations["CAR"].price, s.corporations["BOE"].price, s.corporations["VR"].price
    g._finish_stock_round()
    assert s.corporations["CAR"].price == (r - 1, c)
    assert s.corporations["BOE"].price == boe and s.corporations["VR"].price == vr  # VR has IPO shares


def test_new_games_follow_the_book_and_imports_select_the_site_rules():
    """Rulings: the rulebook is the default for new games; a replay of an 18xx.games export
    selects every ``site_*`` rule of the title (site_dutch_pass, site_routes, site_turn_end_pass)."""
    assert not [r for r in new(4).optional_rules if r.startswith("site_")]
    g = at("101.json", 1)
    assert {"site_dutch_pass", "site_routes", "site_turn_end_pass"} <= set(g.optional_rules)


def test_director_may_surrender_only_to_an_opponent_with_two_shares():
    """6.2: a director gives up his office only by selling, and only if an opponent owns at
    least two shares: with Fred at one share Bill may sell down to his certificate, no further."""
    g = at("1848_hotseat_game.json", 205)
    s = g.state
    bill, fred = "Player 3", "Player 1"
    assert g.percent_of(f"P:{fred}", "CAR") == 10 and g.percent_of(f"P:{bill}", "CAR") == 60
    snap = (dict(s.cash), dict(s.share_owner))
    with pytest.raises(GameError, match="may sell 10%, 20%, 30%, 40%"):
        g.process(A.SellShares(bill, corporation="CAR", count=5))
    assert (dict(s.cash), dict(s.share_owner)) == snap
    s.share_owner["CAR_6"] = f"P:{fred}"  # Fred: two shares
    assert max(a.count for a in g.legal_actions() if isinstance(a, A.SellShares) and a.corporation == "CAR") == 5
    g.process(A.SellShares(bill, corporation="CAR", count=5))
    assert g.president("CAR") == fred and g.percent_of(f"P:{bill}", "CAR") == 10


def test_sale_at_the_bottom_of_a_column_and_no_rebuy_after_a_sale():
    """12.5.1 (the example's second half): a token at the bottom of its column stays put when
    shares are sold; 12.3.2: a player who sold a company's shares may not buy them this round."""
    g = at("1848_hotseat_game.json", 205)
    s = g.state
    vr = s.corporations["VR"]
    r, c = vr.price
    while (r + 1, c) in s.market:
        r += 1
    g._set_price(vr, (r, c))  # the bottom of VR's column
    total = g.total_cash()

    def buys_vr() -> bool:
        return any(isinstance(a, A.BuyShares) and a.shares and a.shares[0].startswith("VR_")
                   for a in g.legal_actions())
    assert buys_vr()
    g.process(A.SellShares("Player 3", corporation="VR", count=1))
    assert vr.price == (r, c) and g.total_cash() == total
    assert g.current_entity() == "Player 3" and not buys_vr()
    with pytest.raises(GameError, match="sold VR this round"):
        g.process(A.BuyShares("Player 3", corporation="VR", source="ipo"))

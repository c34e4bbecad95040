"""The texts a player met playing each 18xx title by mail (issue 29, play-through findings)."""
from __future__ import annotations

from pbm.e18xx import events as E
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game


# ------------------------------------------------------------------ finding 3
def test_two_privates_won_by_one_bid_each_at_its_own_price():
    """18AL bid_all auction: Bob's bids on NDY ($130) and M&C ($100) are settled by one action; each
    event names its own private's price, not Bob's whole payment ($230)."""
    g = Game("18AL", ["Ann", "Bob", "Cy"], 1)
    rec = E.attach(g)
    for who, comp, price in [("Ann", "TR", 20), ("Bob", "NDY", 130), ("Cy", "SNAR", 40),
                             ("Ann", "BLC", 70), ("Bob", "M&C", 100)]:
        g.process(A.Bid(who, comp, price))
    won = {e.company: (e.player, e.price) for e in rec.events if isinstance(e, E.AuctionWon)}
    assert won["NDY"] == ("Bob", 130)
    assert won["M&C"] == ("Bob", 100)
    assert won["TR"] == ("Ann", 20) and won["BLC"] == ("Ann", 70)

"""A sale written with the price the player expects ('Sell 1 CAR share to the pool for 90'): read,
made at the market price when the price is the market's (a share's, or the lot's), refused naming
the market price otherwise (18AL/18GA 3.2(a), 1848 12.4, 18VA 4.3.1: shares are sold to the open
market at its price).  Noticed in the play-throughs by mail (issue 29) and left open until now."""
from pbm.e18xx.pbem.moves import ShareCount, parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game():
    """1848 play-through s11v after 40 actions: Ann's stock turn, CAR at £90, Ann holds 30 %."""
    g = playthrough_game("aus", 40, seed=84, suffix="-s11v", players=3)
    assert g.controller(g.current_entity()) == "Ann" and g.share_price("CAR") == 90
    return g


def test_the_words_of_a_priced_sale_are_read():
    for text, count, percent, price in (("Sell 1 CAR share to the pool for 90", 1, 0, 90),
                                         ("sell one CAR share at £90", 1, 0, 90),
                                         ("sell CAR for 90", 1, 0, 90),
                                         ("sell 2 CAR shares for £180", 2, 0, 180),
                                         ("sell 20% CAR for 180", 0, 20, 180)):
        move = parse_moves(text, "Ann")[0]
        assert isinstance(move, ShareCount), text
        assert (move.verb, move.corporation, move.count, move.percent, move.price) == \
            ("sell", "CAR", count, percent, price), text


def test_a_sale_at_the_market_price_is_made():
    g = game()
    cash = g.state.cash["P:Ann"]
    made, _ = intent_mail(g, "Sell 1 CAR share to the pool for 90")
    assert made[0] == "sell 1 CAR", made
    assert g.state.cash["P:Ann"] == cash + 90
    assert g.percent_of("pool", "CAR") == 10


def test_the_price_of_a_lot_or_of_each_share_is_the_market_price():
    for text in ("sell 2 CAR shares for £180", "sell 2 CAR shares for £90 each"):
        g = game()
        made, _ = intent_mail(g, text)
        assert made[0] == "sell 2 CAR", (text, made)
        assert g.percent_of("pool", "CAR") == 20


def test_a_sale_at_another_price_is_refused_naming_the_market_price():
    g = game()
    cash = g.state.cash["P:Ann"]
    why = intent_refusal(g, "Sell 1 CAR share to the pool for 100")
    assert "£90 now, the market price" in why and "not £100" in why and "'sell 1 CAR'" in why, why
    why = intent_refusal(g, "sell 2 CAR shares for £200")
    assert "£90 now, the market price (2 for £180)" in why, why
    assert g.state.cash["P:Ann"] == cash and g.percent_of("pool", "CAR") == 0

"""Issue 28 item 3: every numbered rule of 18GA, 18AL and 18VA that forbids something about
shares, certificate limits, selling, train limits, train purchases and private auctions is
refused, with a reason that names the rule's section (title data ``rule_refs``; the engine's
shared code names no title).  Each test sets up the position the rule is about (by play, or
by placing certificates and trains where the rule needs them) and checks that nothing changed.

The rules maps (docs/18xx/<T>-rules-map.md, "Refusals") list these tests per section."""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.state import RoundState

PLAYERS = ["Ann", "Bob", "Cy"]
BOOKS = ["18GA", "18AL"]  # the same numbering (18AL's book is a near-copy of 18GA's)
EMERGENCY = {"18GA": "4.2.5.1", "18AL": "4.2.5.2"}


def refused(g: Game, action: A.Action, *words: str) -> str:
    """The action is refused, the reason holds every one of ``words``, and nothing changed."""
    before = (dict(g.state.cash), dict(g.state.share_owner), {t: x.owner for t, x in g.state.trains.items()},
              len(g.actions), g.current_entity())
    with pytest.raises(GameError) as err:
        g.process(action)
    after = (dict(g.state.cash), dict(g.state.share_owner), {t: x.owner for t, x in g.state.trains.items()},
             len(g.actions), g.current_entity())
    assert before == after
    for w in words:
        assert w in str(err.value), str(err.value)
    return str(err.value)


def _first(g: Game) -> list[str]:
    return g._auction_companies()


# ------------------------------------------------------------------ private auctions
@pytest.mark.parametrize("title", BOOKS)
def test_a_bid_must_exceed_the_face_value_by_five(title):
    """3.1(b): "must exceed the preceding bid on the same company (or if none, the company's par
    value) by at least $5"."""
    g = Game(title, PLAYERS)
    p, (_, second, *_) = g.current_entity(), _first(g)
    face = g.state.companies[second].value
    refused(g, A.Bid(p, second, face), f"minimum bid for {second} is {face + 5}", "(rule 3.1(b))")
    refused(g, A.Bid(p, second, face + 7), "multiples of $5", "(rule 3.1(b))")


@pytest.mark.parametrize("title", BOOKS)
def test_a_bid_must_exceed_the_last_bid_by_five(title):
    g = Game(title, PLAYERS)
    p, (_, second, *_) = g.current_entity(), _first(g)
    face = g.state.companies[second].value
    g.process(A.Bid(p, second, face + 10))
    q = g.current_entity()
    refused(g, A.Bid(q, second, face + 10), f"minimum bid for {second} is {face + 15}", "(rule 3.1(b))")


@pytest.mark.parametrize("title", BOOKS)
def test_money_bid_is_set_aside(title):
    """3.1(b): "You must set aside the amount of your bid ... You cannot bid more money than you
    have (minus any amounts set aside for bids on other companies ...)"."""
    g = Game(title, PLAYERS)
    p, (_, second, third, *_) = g.current_entity(), _first(g)
    cash = g.state.cash[f"P:{p}"]
    big = cash - cash % 5 - 5
    g.process(A.Bid(p, second, big))
    for _ in range(len(PLAYERS) - 1):
        g.process(A.Pass(g.current_entity()))
    assert g.current_entity() == p
    face = g.state.companies[third].value
    msg = refused(g, A.Bid(p, third, face + 5), f"can bid at most {cash - big}", "set aside", "(rule 3.1(b), 3.1.1)")
    assert "cash less other bids" in msg


@pytest.mark.parametrize("title", BOOKS)
def test_an_auction_bid_must_beat_the_high_bid_by_five(title):
    """3.1.1: "Each player must either pass, or bid ... at least $5 more than the preceding bid"."""
    g = Game(title, PLAYERS)
    a = g.current_entity()
    cheapest, second, *_ = _first(g)
    face = g.state.companies[second].value
    g.process(A.Bid(a, second, face + 5))
    b = g.current_entity()
    g.process(A.Bid(b, second, face + 10))
    c = g.current_entity()
    g.process(A.Bid(c, cheapest, g.state.companies[cheapest].min_bid))  # buys the cheapest: the auction starts
    auctioning = g.active_auction()
    assert auctioning == second
    bidder = g.current_entity()
    refused(g, A.Bid(bidder, second, face + 10), f"minimum bid for {second} is {face + 15}",
            f"each bid in the auction of {second}", "(rule 3.1.1)")


@pytest.mark.parametrize("title", BOOKS)
def test_a_bid_on_what_became_the_cheapest_private_buys_it_at_its_price(title):
    """3.1(a): the cheapest private is bought "for its par value"; a bid on it (written before
    it became the cheapest) buys it at that price, not at the bid (issue 28)."""
    g = Game(title, PLAYERS)
    cheapest, second, *_ = _first(g)
    g.process(A.Pass(g.current_entity()))
    g.process(A.Bid(g.current_entity(), cheapest, g.state.companies[cheapest].min_bid))
    cy = g.current_entity()
    cash, bank = g.state.cash[f"P:{cy}"], g.state.cash["bank"]
    face = g.state.companies[second].value
    g.process(A.Bid(cy, second, face + 30))
    assert g.state.companies[second].owner == f"P:{cy}"
    assert g.state.cash[f"P:{cy}"] == cash - face and g.state.cash["bank"] == bank + face
    assert any(f"buys it at its price, {face} (rule 3.1(a))" in line for line in g.state.log[-3:])


def test_18va_bids_start_at_face_value_in_fives_and_hold_the_cash():
    """18VA 4.1: "Bidding is done in multiples of $5, starting at the face value of the item ...
    A player may never bid more in total than his remaining cash"."""
    g = Game("18VA", PLAYERS)
    p = g.current_entity()
    offered = g._auction_companies()
    item, other = offered[0], offered[1]
    face = g.state.companies[item].min_bid
    refused(g, A.Bid(p, item, face - 5), f"minimum bid for {item} is {face}", "(rule 4.1)")
    refused(g, A.Bid(p, item, face + 2), "multiples of $5", "(rule 4.1)")
    cash = g.state.cash[f"P:{p}"]
    g.process(A.Bid(p, other, cash - cash % 5))
    for _ in range(len(PLAYERS) - 1):
        g.process(A.Pass(g.current_entity()))
    refused(g, A.Bid(p, item, face + 5), f"can bid at most {cash % 5}", "(rule 4.1)")


# ------------------------------------------------------------------ trains
def operating_game(title: str, cash: int = 1000, must_buy: bool = False) -> tuple[Game, str]:
    """A game in an operating round, one company (Ann's, 60%) at its train-buying step, a second
    (Ann's, with a 2 train, so the first may go on buying) to operate after it.  ``must_buy``: the
    company must own a train (as if it had a route: 4.2.5.1/4.2.5.2, 18VA 4.6)."""
    g = Game(title, PLAYERS)
    if must_buy:
        g._must_buy_train = lambda c: True  # type: ignore[method-assign]
    s = g.state
    for comp in s.companies.values():
        comp.closed = True
    corp = fresh(g)
    cell = g.title.par_cells()[0]
    corp.ipoed = corp.floated = corp.operated = True
    corp.par = cell
    g._set_price(corp, cell)
    g.move_share(f"{corp.sym}_0", "P:Ann")
    for n in range(1, 5 if corp.size == 10 else 2):  # 60%
        g.move_share(f"{corp.sym}_{n}", "P:Ann")
    g.transfer("bank", corp.key, cash)
    second = other_company(g, "Ann")
    give(g, second, depot(g, "2")[-1])
    s.round = RoundState("operating", [corp.sym, second])
    g._start_corp_turn()
    s.round.steps_done |= {"home_token", "track", "token", "route", "dividend", "convert"}
    g._skip_steps()
    assert g.current_entity() == corp.sym
    return g, corp.sym


def fresh(g: Game):
    """A company not yet started (a ten-share one if the title has one), other than 18VA's B&O
    (started by the auction)."""
    left = [c for c in g.state.corporations.values() if not c.ipoed and not g._started_by_private(c.sym)]
    return next((c for c in left if c.size == 10), left[0])


def other_company(g: Game, president: str = "Bob") -> str:
    """A second company, floated, presided by ``president`` (not operating now)."""
    corp = fresh(g)
    corp.ipoed = corp.floated = corp.operated = True
    corp.par = g.title.par_cells()[0]
    g._set_price(corp, corp.par)
    g.move_share(f"{corp.sym}_0", f"P:{president}")
    return corp.sym


def give(g: Game, corp: str, tid: str) -> None:
    g.state.trains[tid].owner = f"C:{corp}"
    g.state.corporations[corp].trains.append(tid)


def depot(g: Game, name: str) -> list[str]:
    return [t for t, x in g.state.trains.items() if x.owner == "depot" and x.name == name]


@pytest.mark.parametrize("title,rule", [("18GA", "4.2.5(g)"), ("18AL", "4.2.5(g)"), ("18VA", "2, 4.5.8")])
def test_a_company_at_its_train_limit_buys_no_train(title, rule):
    """18GA/18AL 4.2.5(g): "A corporation which already owns this maximum number of trains is not
    allowed to buy another from any source"; 18VA 4.5.8: "If the Corporation has fewer trains than
    the current Train Limit, it may purchase a train"."""
    g, corp = operating_game(title)
    first, *others = [t for t, x in g.state.trains.items() if x.owner == "depot"]
    limit = g.train_limit(corp)
    for tid in others[-limit:]:
        give(g, corp, tid)
    refused(g, A.BuyTrain(corp, first, variant="2" if title == "18VA" else None),
            f"{corp} is at its train limit", f"the limit is {limit}", f"(rule {rule})")


def test_18va_five_share_company_limit_is_two_and_named():
    """18VA Table of phases (2): train limit 4 for ten-share, 2 for five-share companies; the
    refusal, the state and the PDF say the company's own limit; a freight train shows as 1G."""
    from pbm.e18xx.render.view import describe

    g = Game("18VA", PLAYERS)
    s = g.state
    for comp in s.companies.values():
        comp.closed = True
    corp = next(c for c in s.corporations.values() if c.size == 5 and not c.ipoed)
    corp.ipoed = corp.floated = corp.operated = True
    corp.par = g.title.par_cells()[0]
    g._set_price(corp, corp.par)
    g.move_share(f"{corp.sym}_0", "P:Ann")
    g.transfer("bank", corp.key, 1000)
    s.round = RoundState("operating", [corp.sym])
    g._start_corp_turn()
    s.round.steps_done |= {"home_token", "track", "token", "route", "dividend", "convert"}
    g._skip_steps()
    assert g.train_limit(corp.sym) == 2
    twos = depot(g, "2")
    give(g, corp.sym, twos[1])
    g.state.trains[twos[1]].variant = "1G"
    give(g, corp.sym, twos[2])
    msg = refused(g, A.BuyTrain(corp.sym, twos[0], variant="2"), f"{corp.sym} is at its train limit",
                  "the limit is 2 for a 5-share company in Phase 2", "(rule 2, 4.5.8)")
    assert "it owns 1G, 2;" in msg and twos[1] not in msg  # by type, no ids (issue 29 leftovers)
    text = describe(g)
    assert "Phase 2 (train limit 4 (10-share), 2 (5-share))" in text  # 18VA Table: Phase 2 "At Start"
    line = next(x for x in text.splitlines() if x.strip().startswith(corp.sym))
    assert "trains 1G, 2 (limit 2)" in line  # by type, as the PDF (issue 29 leftovers)


def test_18va_a_train_after_the_turn_ended_at_the_limit_names_the_limit():
    """The issue's case: 'buy train 3 as 2G' after the company's turn ended at its limit of 2 was
    answered "it is not Xia's turn"; the answer names the limit and the rule."""
    import random

    from tests.e18xx.helpers import pick

    rng = random.Random(0)
    g = Game("18VA", ["Xia", "Bo", "Cy"], 0)
    for _ in range(3000):
        cur = g.current_entity()
        if g.state.round.kind == "operating" and cur in g.state.corporations and \
                g.state.corporations[cur].size == 5 and len(g.limited_trains(cur)) == 1:
            buy = next((a for a in g.legal_actions() if isinstance(a, A.BuyTrain) and a.entity == cur
                        and g.state.trains[a.train].owner == "depot" and a.variant == "1G"), None)
            if buy is not None:
                break
        g.process(pick(rng, g.legal_actions()))
    else:
        pytest.skip("no five-share company came to its second train")
    pres = g.controller(cur)
    g.process(buy)
    assert g.current_entity() != cur  # its turn ended at the limit
    refused(g, A.BuyTrain(pres, "3", variant="2G"), f"it is not {pres}'s turn",
            f"{cur}'s turn ended when it reached its train limit", "the limit is 2 for a 5-share company",
            "(rule 2, 4.5.8)")
    assert "1G" in " ".join(g.train_label(t) for t in g.state.corporations[cur].trains)


@pytest.mark.parametrize("title,rule", [("18GA", "4.2.5(b)"), ("18AL", "4.2.5(b)"), ("18VA", "4.5.8")])
def test_the_banks_trains_are_bought_in_order(title, rule):
    """4.2.5(b): "All trains in the Initial Offering must be purchased in increasing order of
    type"; 18VA 4.5.8: "it must purchase the topmost train in the train stack"."""
    g, corp = operating_game(title)
    later = depot(g, "3")[0]
    refused(g, A.BuyTrain(corp, later), "this 3 train is not available yet", "bought in order",
            f"the {g.title.word('train_bank')} offers 2", f"(rule {rule})")


@pytest.mark.parametrize("title,rule", [("18GA", "4.2.5(f)"), ("18AL", "4.2.5(f)"), ("18VA", "4.5.8")])
def test_one_train_from_the_bank_per_turn(title, rule):
    """4.2.5(f): "each corporation is limited to buying at most one train from the Bank each
    turn"; 18VA 4.5.8: "No more than one train of the current type may be bought from the Bank in
    an Operating Round"."""
    g, corp = operating_game(title)
    first, second = depot(g, "2")[:2]
    variant = "2" if title == "18VA" else None
    g.process(A.BuyTrain(corp, first, variant=variant))
    said = (f"only one train of each type from the {g.title.word('train_bank')} in an operating round, and {corp} "
            "has bought a 2 this round") if title == "18VA" else f"only one train from the {g.title.word('train_bank')} per turn"
    refused(g, A.BuyTrain(corp, second, variant=variant), "in Phase 2", said, f"(rule {rule})")


@pytest.mark.parametrize("title,rule", [("18GA", "4.2.5(d)"), ("18AL", "4.2.5(d)"), ("18VA", "4.5.8, 4.6.1")])
def test_a_train_from_another_company_costs_one_dollar_to_its_buyers_cash(title, rule):
    """4.2.5(d): "for any agreed price of at least $1"; 18VA 4.6.1: "as little as $1, and up to
    all its remaining cash"."""
    g, corp = operating_game(title, cash=150)
    other = g.state.round.entities[1]  # Ann's too: no offer, the price alone is checked
    tid = g.state.corporations[other].trains[0]
    give(g, corp, depot(g, "3")[-1])  # it owns a train: no duty to buy one (18VA 4.6)
    refused(g, A.BuyTrain(corp, tid, 0, seller=other), "at least $1", f"(rule {rule})")
    refused(g, A.BuyTrain(corp, tid, 151, seller=other), f"{corp} has $150", "at most its own cash", f"(rule {rule})")
    refused(g, A.BuyTrain(corp, tid, 1, seller=corp if corp != other else "X"), f"train {tid} belongs to {other}")


def emergency(title: str) -> tuple[Game, str, str]:
    """A company without cash that must buy a train: its president must pay (a route exists
    for 18GA/18AL: the duty to own a train is the forced purchase's)."""
    g, corp = operating_game(title, cash=0, must_buy=True)
    other = other_company(g, "Bob")
    give(g, other, depot(g, "2")[-2])
    return g, corp, other


@pytest.mark.parametrize("title", BOOKS)
def test_with_the_presidents_money_only_the_cheapest_train(title):
    """4.2.5.1(a) (18GA) / 4.2.5.2(a) (18AL): "The cheapest train available ... must be purchased"."""
    g, corp, _ = emergency(title)
    s = g.state
    s.trains[depot(g, "3")[0]].owner = "discard"  # an Open Market 3 and the depot's 2: the 2 is cheapest
    three = next(t for t, x in s.trains.items() if x.owner == "discard")
    s.cash["P:Ann"] = 1000
    refused(g, A.BuyTrain(corp, three), "only the cheapest train", f"(rule {EMERGENCY[title]}(a))")


@pytest.mark.parametrize("title", BOOKS)
def test_with_the_presidents_money_no_train_from_another_company(title):
    """4.2.5.1(a)/4.2.5.2(a): "No train may be purchased from another corporation if the president
    contributes personal funds"."""
    g, corp, other = emergency(title)
    tid = g.state.corporations[other].trains[0]
    g.state.cash["P:Ann"] = 1000
    refused(g, A.BuyTrain(corp, tid, 50, seller=other),
            "may not be bought from another company with the president's money", f"(rule {EMERGENCY[title]}(a))")


def test_18va_president_pays_another_company_at_most_face_value():
    """18VA 4.6.1: the president "may use his cash on hand to make the purchase, paying the other
    Corporation up to the face value of the train"."""
    g, corp, other = emergency("18VA")
    tid = g.state.corporations[other].trains[0]
    g.state.cash["P:Ann"] = 1000
    face = g.state.trains[tid].price
    refused(g, A.BuyTrain(corp, tid, face + 5, seller=other), "at most its face value", "(rule 4.6.1)")


@pytest.mark.parametrize("title", BOOKS)
def test_emergency_sales_only_raise_what_is_needed(title):
    """4.2.5.1(d)/4.2.5.2(d): "he may only sell just enough shares to raise the needed cash"."""
    g, corp, other = emergency(title)
    s = g.state
    s.cash["P:Ann"] = 0
    third = fresh(g)
    third.ipoed = third.floated = third.operated = True
    third.par = g.title.par_cells()[-1]
    g._set_price(third, third.par)
    g.move_share(f"{third.sym}_0", "P:Bob")
    for n in range(1, 5):
        g.move_share(f"{third.sym}_{n}", "P:Ann")
    price = g.share_price(third.sym)
    cheapest = min(s.trains[t].price for t in g._depot_trains())
    units = cheapest // price + 2  # one share more than needed
    if units > 4:
        pytest.skip("the shares are too cheap for this position")
    refused(g, A.SellShares("Ann", corporation=third.sym, count=units), "sell only what is needed",
            f"rule {EMERGENCY[title]}(d)")


@pytest.mark.parametrize("title,rule", [("18GA", "4.2.5.1(d)"), ("18AL", "4.2.5.2(d)"), ("18VA", "4.6.2")])
def test_emergency_sales_keep_the_presidency_of_the_operating_company(title, rule):
    """4.2.5.1(d)/4.2.5.2(d): "he may not make a sale that would cause a change of presidency of
    the operating corporation"; 18VA 4.6.2: the same."""
    g, corp, _ = emergency(title)
    s = g.state
    s.cash["P:Ann"] = 0
    for n in range(5, 8):
        g.move_share(f"{corp}_{n}", "P:Bob")  # Bob 30%, Ann 60%: selling 40% would make Bob president
    refused(g, A.SellShares("Ann", corporation=corp, count=4), f"change the presidency of {corp}", f"(rule {rule})")


# ------------------------------------------------------------------ shares and certificates
ALL = [("18GA", {}), ("18AL", {}), ("18VA", {})]
SHARE_RULES = {
    "18GA": {"cert": "3.3(b)", "holding": "3.3(a)", "pool": "3.2(a)(2)", "pres": "3.2(a)(3)", "again": "3.2(c)",
             "order": "3.2"},
    "18AL": {"cert": "3.3(b)", "holding": "3.3(a)", "pool": "3.2(a)(2)", "pres": "3.2(a)(3)", "again": "3.2(c)",
             "order": "3.2"},
    "18VA": {"cert": "3.1, 4.3.2", "holding": "3.1, 4.3.2", "pool": "3.1", "pres": "3.1", "again": "4.3.1",
             "order": "4.3.2"},
}


def stock_game(title: str, turn: int = 2) -> tuple[Game, str]:
    """A stock round (``turn``: its number; the first is 1) after the privates' sale, every
    private closed; returns the game and the player to act, who has $2000."""
    g = Game(title, PLAYERS)
    s = g.state
    for comp in s.companies.values():
        comp.closed = True
    s.turn = turn
    g._start_stock()
    p = g.current_entity()
    g.transfer("bank", f"P:{p}", 2000)
    return g, p


def started(g: Game, president: str, units: int = 0, pool: int = 0, cell_index: int = 0) -> str:
    """A started, floated company that has operated: ``president`` holds the president's
    certificate and ``units`` more shares; ``pool`` shares are in the open market."""
    c = fresh(g)
    c.ipoed = c.floated = c.operated = True
    c.par = g.title.par_cells()[cell_index]
    g._set_price(c, c.par)
    g.move_share(f"{c.sym}_0", f"P:{president}")
    n = 1
    for _ in range(units):
        g.move_share(f"{c.sym}_{n}", f"P:{president}")
        n += 1
    for _ in range(pool):
        g.move_share(f"{c.sym}_{n}", "pool")
        n += 1
    return c.sym


@pytest.mark.parametrize("title", BOOKS)
def test_no_sale_in_the_first_stock_round(title):
    """3.2(a)(1): "No one may sell any certificates to the Bank during the first Stock Round"."""
    g, p = stock_game(title, turn=1)
    corp = started(g, p, units=2)
    refused(g, A.SellShares(p, corporation=corp, count=1), "no shares are sold in the first stock round",
            "(rule 3.2(a)(1))")


def test_18va_no_sale_before_the_company_operated():
    """18VA 4.3.1: "stock of Corporations that have not completed a full turn in an Operating Round
    may not be sold"."""
    g, p = stock_game("18VA")
    corp = started(g, p, units=1)
    g.state.corporations[corp].operated = False
    refused(g, A.SellShares(p, corporation=corp, count=1), "has not completed an operating turn", "(rule 4.3.1)")


@pytest.mark.parametrize("title", [t for t, _ in ALL])
def test_no_player_holds_more_than_sixty_percent(title):
    """18GA/18AL 3.3(a): "No player may own more than 60% of the stock of any one corporation";
    18VA 3.1, 4.3.2: "the 60% holding limit in an individual Corporation"."""
    g, p = stock_game(title)
    corp = started(g, p, units=4)
    if g.state.corporations[corp].size == 5:  # a five-share company: 40% + 20% = 60%
        g.move_share(f"{corp}_4", f"ipo:{corp}")
        g.move_share(f"{corp}_3", f"ipo:{corp}")
        g.move_share(f"{corp}_2", f"ipo:{corp}")
    assert g.percent_of(f"P:{p}", corp) == 60
    refused(g, A.BuyShares(p, corporation=corp, source="ipo"), f"{p} holds 60% of {corp}",
            f"(rule {SHARE_RULES[title]['holding']})")


@pytest.mark.parametrize("title", [t for t, _ in ALL])
def test_no_certificate_over_the_limit(title):
    """3.3(b): "No player already holding the maximum number of certificates allowed by this limit
    may purchase another certificate"; 18VA 3.1, 4.3.2: "A player may never purchase a certificate
    that would cause him to exceed ... his total Certificate Limit"."""
    g, p = stock_game(title)
    limit = 4  # a smaller limit than the title's, so a few companies fill it
    g.cert_limit = lambda player=None: limit  # type: ignore[method-assign]
    corps = []
    while g.num_certs(p) < limit:
        corp = started(g, p, cell_index=-1)  # the dearest par: out of any yellow zone
        corps.append(corp)
        n = 1
        most = 4 if g.state.corporations[corp].size == 10 else 1  # stays under 60%: the limit is the certificates
        while g.num_certs(p) < limit and n < most and f"{corp}_{n}" in g.state.share_owner:
            g.move_share(f"{corp}_{n}", f"P:{p}")
            n += 1
    target = next(c for c in corps if g.state.share_owner.held(f"ipo:{c}", c))
    rule = SHARE_RULES[title]["cert"]
    refused(g, A.BuyShares(p, corporation=target, source="ipo"), f"the limit is {limit}", f"(rule {rule})")
    left = [c for c in g.state.corporations.values() if not c.ipoed and not g._started_by_private(c.sym)]
    if left:
        price = g.title.market[g.title.par_cells()[0][0]][g.title.par_cells()[0][1]].price
        refused(g, A.Par(p, left[0].sym, price), f"the limit is {limit}", f"(rule {rule})")


@pytest.mark.parametrize("title", [t for t, _ in ALL])
def test_the_open_market_holds_at_most_half(title):
    """18GA/18AL 3.2(a)(2): "No sale may be made which will cause more than 50% of the shares of
    any one corporation to be in the Open Market"; 18VA 3.1: the same."""
    g, p = stock_game(title)
    other = next(x for x in PLAYERS if x != p)
    corp = started(g, other)
    size = g.state.corporations[corp].size
    pool = 5 if size == 10 else 2  # 50% (or 40% of a five-share company)
    for n in range(1, pool + 1):
        g.move_share(f"{corp}_{n}", "pool")
    g.move_share(f"{corp}_{pool + 1}", f"P:{p}")
    if size == 10:
        g.move_share(f"{corp}_{pool + 2}", f"P:{p}")
    refused(g, A.SellShares(p, corporation=corp, count=1), f"the {g.title.word('pool')} may hold at most",
            f"(rule {SHARE_RULES[title]['pool']})")


@pytest.mark.parametrize("title", [t for t, _ in ALL])
def test_the_presidents_certificate_is_sold_only_to_a_new_president(title):
    """18GA/18AL 3.2(a)(3): "You may sell a 20% president's certificate only if another player owns
    at least two shares (20%) of that corporation's stock"; 18VA 3.1: "only ... if another player
    ... owns at least two shares"."""
    g, p = stock_game(title)
    corp = started(g, p)
    other = next(x for x in PLAYERS if x != p)
    g.move_share(f"{corp}_1", f"P:{other}")  # one share only: he cannot take the presidency
    refused(g, A.SellShares(p, corporation=corp, count=1), "president", f"(rule {SHARE_RULES[title]['pres']})")


@pytest.mark.parametrize("title", [t for t, _ in ALL])
def test_no_buying_back_what_was_sold_this_round(title):
    """18GA/18AL 3.2(c): "you are not allowed to purchase any stock of a corporation if you have sold
    any stock of that corporation earlier in the same stock round"; 18VA 4.3.1: "Once a player has
    sold stock of a particular Corporation, he may not buy stock in that Corporation for the
    remainder of the current Stock Round"."""
    g, p = stock_game(title)
    other = next(x for x in PLAYERS if x != p)
    corp = started(g, other, units=1)
    n = 3 if g.state.corporations[corp].size == 10 else 2
    g.move_share(f"{corp}_{n}", f"P:{p}")
    g.process(A.SellShares(p, corporation=corp, count=1))
    refused(g, A.BuyShares(p, corporation=corp, source="ipo"), f"you sold {corp} this round",
            f"(rule {SHARE_RULES[title]['again']})")


@pytest.mark.parametrize("title", [t for t, _ in ALL])
def test_no_sale_after_the_turns_purchase_when_sales_came_before(title):
    """18GA/18AL 3.2: "you may not sell one or more certificates, buy a certificate, and then sell it
    on the same turn"; 18VA 4.3.2: "Once a player has bought stock, he may not sell any more stock
    that turn"."""
    g, p = stock_game(title)
    other = next(x for x in PLAYERS if x != p)
    a = started(g, other, units=1)
    b = started(g, other, units=1)
    na = 3 if g.state.corporations[a].size == 10 else 2
    nb = 3 if g.state.corporations[b].size == 10 else 2
    g.move_share(f"{a}_{na}", f"P:{p}")
    g.move_share(f"{a}_{na + 1}", f"P:{p}")
    g.move_share(f"{b}_{nb}", f"P:{p}")
    if title != "18VA":
        g.process(A.SellShares(p, corporation=a, count=1))
    g.process(A.BuyShares(p, corporation=b, source="ipo"))
    if g.current_entity() == p:
        refused(g, A.SellShares(p, corporation=a, count=1), "bought this turn", f"(rule {SHARE_RULES[title]['order']})")
    else:  # nothing else was open to him: his turn ended with the purchase
        refused(g, A.SellShares(p, corporation=a, count=1), f"it is not {p}'s turn", "turn ended with the purchase",
                f"(rule {SHARE_RULES[title]['order']})")


# ------------------------------------------------------------------ by mail
@pytest.fixture
def bama(cli, tmp_path):
    import mailbox
    import re

    from tests.e18xx.test_pbem_mail import PLAYERS as SEATS

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in SEATS), encoding="utf-8")
    out = cli("new-game", "18AL", "--players", str(csv), "--seed", "5", "--name", "bama-2").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    return cli, secrets, mailbox.Maildir(str(tmp_path / "Maildir"), create=True), tmp_path / "Maildir"


def test_a_mailed_bid_on_what_became_the_cheapest_buys_at_its_price(bama):
    """3.1(a) by mail: the mover's answer says the bid bought the private at its price."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import load
    from pbm.models import Game as GameRow
    from tests.e18xx.test_pbem_mail import PLAYERS as SEATS, answer, send

    cli = bama[0]
    seat = {n: i for i, (n, _) in enumerate(SEATS, 1)}

    def game():
        with session_scope(cli.url) as s:
            return load(s, s.scalar(select(GameRow).where(GameRow.name == "bama-2")))

    g = game()
    cheapest, second, *_ = g._auction_companies()
    line, _ = send(bama, seat[g.current_entity()], "pass", game="bama-2")
    assert "accepted" in line, line
    g = game()
    line, _ = send(bama, seat[g.current_entity()], f"bid {g.state.companies[cheapest].min_bid} {cheapest}",
                   game="bama-2")
    assert "accepted" in line, line
    g = game()
    who = g.current_entity()
    cash, face = g.state.cash[f"P:{who}"], g.state.companies[second].value
    line, inbound = send(bama, seat[who], f"bid {face + 30} {second}", game="bama-2")
    assert "accepted" in line, line
    g = game()
    assert g.state.companies[second].owner == f"P:{who}" and g.state.cash[f"P:{who}"] == cash - face
    text = answer(cli, inbound)[1]
    assert (f"bid {face} {second} - {second} is the cheapest unsold private now, bought at its price, not bid on: "
            f"the bid of ${face + 30} bought it for ${face} (rule 3.1(a))") in text


def test_18va_by_mail_a_second_train_over_the_limit_names_the_limit(cli, tmp_path):
    """The issue's mail: the five-share company's second train reaches its limit of 2 and ends its
    turn; the mail's next line 'buy train 3 as 2G' is refused naming the limit and the rule (not only
    "not your turn"), and the answer's state shows the per-size limits and the 1G."""
    import mailbox
    import random
    import re

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import action_rows, load, move_text
    from pbm.models import Action18, Game as GameRow
    from tests.e18xx.helpers import pick
    from tests.e18xx.test_pbem_mail import PLAYERS as SEATS, answer, send

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in SEATS), encoding="utf-8")
    out = cli("new-game", "18VA", "--players", str(csv), "--seed", "0", "--name", "va-2").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    mail = (cli, secrets, mailbox.Maildir(str(tmp_path / "Maildir"), create=True), tmp_path / "Maildir")
    seat = {n: i for i, (n, _) in enumerate(SEATS, 1)}
    rng = random.Random(1)
    g = Game("18VA", [n for n, _ in SEATS], 0)
    acts = []
    buy = None
    for _ in range(3000):
        if g.finished:
            break
        cur = g.current_entity()
        if g.state.round.kind == "operating" and cur in g.state.corporations and \
                g.state.corporations[cur].size == 5 and len(g.limited_trains(cur)) == 1:
            buy = next((a for a in g.legal_actions() if isinstance(a, A.BuyTrain) and a.entity == cur
                        and g.state.trains[a.train].owner == "depot" and a.variant == "1G"), None)
            if buy is not None:
                break
        legal = g.legal_actions()
        a = pick(rng, [a for a in legal if not (isinstance(a, A.BuyTrain) and a.train in g.state.trains
                                                and g.state.trains[a.train].owner.startswith("C:"))] or legal)
        acts.append((seat[g.controller(a.entity)], a))
        g.process(a)
    if buy is None:
        pytest.skip("no five-share company came to its second train")
    with session_scope(cli.url) as s:
        row = s.scalar(select(GameRow).where(GameRow.name == "va-2"))
        for n, (who, a) in enumerate(acts, 1):
            s.add(Action18(game_id=row.id, seq=n, player_number=who, action=a.to_dict()))
        row.turn = g.state.turn
    pres = g.controller(cur)
    line, inbound = send(mail, seat[pres], f"{move_text(g, buy)}\nbuy train 3 as 2G", game="va-2")
    assert "rejected" in line, line
    text = answer(cli, inbound)[1]
    assert f"{cur}'s turn ended when it reached its train limit" in text
    assert "the limit is 2 for a 5-share company in Phase 2 (rule 2, 4.5.8)" in text
    assert "train limit 4 (10-share), 2 (5-share)" in text
    with session_scope(cli.url) as s:
        row = s.scalar(select(GameRow).where(GameRow.name == "va-2"))
        assert len(action_rows(s, row)) == len(acts)  # the mail is applied whole or not at all
    line, inbound = send(mail, seat[pres], move_text(g, buy), game="va-2")
    assert "accepted" in line, line
    text = answer(cli, inbound)[1]
    corp_line = next(x for x in text.splitlines() if x.strip().startswith(f"{cur} ") and "trains" in x)
    assert "1G" in corp_line and "(limit 2)" in corp_line
    with session_scope(cli.url) as s:
        assert load(s, s.scalar(select(GameRow).where(GameRow.name == "va-2"))).state.corporations[cur].trains


def test_18va_one_lot_of_a_company_per_turn():
    """18VA 4.3.1: "Players may not choose to sell multiple shares of a single Corporation's stock as
    multiple transactions in the same turn of a Stock Round"."""
    g, p = stock_game("18VA")
    other = next(x for x in PLAYERS if x != p)
    corp = started(g, other)
    g.move_share(f"{corp}_1", f"P:{p}")
    g.move_share(f"{corp}_2", f"P:{p}")
    g.process(A.SellShares(p, corporation=corp, count=1))
    assert g.current_entity() == p
    refused(g, A.SellShares(p, corporation=corp, count=1), "sold in one lot per turn", "(rule 4.3.1)")


def test_18va_phase_words_say_one_train_of_each_type_a_round():
    """18VA 4.5.8 ("No more than one train of the current type may be bought from the Bank in an
    Operating Round") is not 18GA's one train a turn: the phase change that ends it says so
    (play-throughs s16b and s16c read "one train from the bank per turn")."""
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.phases import phase_change

    va, ga = Game("18VA", ["a", "b", "c"], 1), Game("18GA", ["a", "b", "c"], 1)
    assert "a company may buy only one train of each type from the bank in an operating round" in phase_change(va.title, 3, 4)[1]
    assert any("only one train from the bank per turn" in t for i in range(len(ga.title.phases) - 1)
               for t in phase_change(ga.title, i, i + 1)[1])

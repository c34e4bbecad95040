"""1848 Australia: every numbered rule that forbids a move about the sale of the privates,
shares and limits, loans, privates bought by companies and receivership is refused with a
reason that names the rule's section (issue 28 item 3).  Each test makes the forbidden move
and checks the refusal's words and that nothing changed."""
from __future__ import annotations

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game

from .test_1848 import at, new
from .test_1848_round3 import computer_game


def refused(g: Game, action: A.Action, *words: str) -> str:
    """``action`` is refused, its reason holds every one of ``words``, and the state is unchanged."""
    s = g.state
    snap = (dict(s.cash), dict(s.share_owner), {c: (x.price, x.loans, x.closed) for c, x in s.corporations.items()},
            {c: (x.owner, x.discount) for c, x in s.companies.items()}, len(g.actions))
    with pytest.raises(GameError) as info:
        g.process(action)
    text = str(info.value)
    for w in words:
        assert w in text, (w, text)
    assert snap == (dict(s.cash), dict(s.share_owner),
                    {c: (x.price, x.loans, x.closed) for c, x in s.corporations.items()},
                    {c: (x.owner, x.discount) for c, x in s.companies.items()}, len(g.actions))
    return text


# -- 3.1: the sale of the privates -------------------------------------------------------------------
def test_3_1_1_a_private_is_bought_at_its_current_price():
    g = new(3)
    refused(g, A.Bid("Ann", "P6", 200), "rule 3.1.1", "P6 costs £230 now")


def test_3_1_1_a_price_is_not_lowered_below_its_lowest():
    g = new(3)
    for _ in range(6):
        g.process(A.Assign(g.current_entity(), "P1"))
    refused(g, A.Assign(g.current_entity(), "P1"), "rule 3.1.1", "P1 is at its lowest price (£0)")


def test_3_1_1_a_player_pays_for_the_private_he_buys():
    g = new(6)  # £430 each
    g.state.cash["bank"] += g.state.cash["P:Ann"] - 100
    g.state.cash["P:Ann"] = 100
    refused(g, A.Bid("Ann", "P6", 230), "rule 3.1.1", "P6 costs £230; Ann has £100")


def test_3_1_2_with_every_price_at_its_lowest_and_nothing_sold_a_player_must_buy():
    g = new(3)
    floors = {"P1": 0, "P2": 40, "P3": 80, "P4": 140, "P5": 140, "P6": 200}
    for sym, floor in floors.items():
        while g.state.companies[sym].min_bid > floor:
            g.process(A.Assign(g.current_entity(), sym))
    cur = g.current_entity()
    refused(g, A.Pass(cur), "rule 3.1.2", "you must buy one")
    refused(g, A.Assign(cur, "P6"), "rule 3.1.1", "lowest price")
    g.process(A.Bid(cur, "P1", 0))  # the mandatory purchase is allowed


def test_3_1_3_only_a_player_who_owns_a_private_may_pass():
    g = new(3)
    g.process(A.Bid("Ann", "P1", 30))
    assert g.current_entity() == "Bob"
    refused(g, A.Pass("Bob"), "rule 3.1.1, 3.1.3", "once you own a private")


# -- 5.1, 5.2, 12: shares and limits ------------------------------------------------------------------
def test_5_2_1_par_prices_are_70_80_90_100():
    g = computer_game(upto=38)  # the first stock round, Tycoon C to act
    refused(g, A.Par("Tycoon C", "SAR", 75), "par price must be one of [70, 80, 90, 100]", "rule 5.2.1, 12.3.1")


def test_12_4_1_no_sales_in_the_first_stock_round():
    g = computer_game(upto=44)  # Tycoon C, WA's director, to act in the first stock round
    assert g.current_entity() == "Tycoon C" and g.percent_of("P:Tycoon C", "WA") == 30
    refused(g, A.SellShares("Tycoon C", (), corporation="WA", count=1), "no shares are sold in the first stock round",
            "rule 5.1.6, 12.4.1")


def test_12_2_2_with_three_players_at_most_70_percent():
    g = computer_game(upto=55)  # Tycoon B holds 70% of the CAR
    assert g.current_entity() == "Tycoon B" and g.percent_of("P:Tycoon B", "CAR") == 70
    g.state.cash["bank"] -= 500
    g.state.cash["P:Tycoon B"] += 500
    refused(g, A.BuyShares("Tycoon B", (), corporation="CAR", source="ipo"),
            "Tycoon B holds 70% of CAR, the 70% holding limit", "rule 12.2.2")


def test_12_2_1_the_certificate_limit_without_the_privates():
    g = computer_game(upto=55)
    s = g.state
    for sid in [sid for sid, o in s.share_owner.items() if o.startswith("ipo:") and sid.startswith(("NSW", "SAR", "QR"))]:
        if sum(1 for o in s.share_owner.values() if o == "P:Tycoon B") >= 20:
            break
        g.move_share(sid, "P:Tycoon B")
    assert g.num_certs("Tycoon B") == 20 == g.cert_limit("Tycoon B")  # his three privates not counted
    s.cash["bank"] -= 500
    s.cash["P:Tycoon B"] += 500
    refused(g, A.BuyShares("Tycoon B", (), corporation="BOE", source="ipo"),
            "Tycoon B has 20 certificates, the limit is 20", "rule 12.2.1")


def second_stock_round() -> Game:
    g = at("101.json", 56)  # stock round 2, Player 3 (CAR 60%, director) to act; £95
    assert g.state.round.kind == "stock" and g.current_entity() == "Player 3"
    return g


def test_12_4_1_the_open_market_holds_at_most_half():
    g = second_stock_round()
    refused(g, A.SellShares("Player 3", (), corporation="CAR", count=6), "the Bank Pool may hold at most 50% of CAR",
            "rule 5.1.6, 12.4.1")


def test_6_2_the_director_keeps_his_certificate_unless_another_can_take_over():
    g = second_stock_round()  # the next largest holder of the CAR has 10%
    refused(g, A.SellShares("Player 3", (), corporation="CAR", count=5), "president's certificate",
            "rule 6.2, 12.4.1")


def test_12_3_2_no_buying_back_in_the_round_of_a_sale():
    g = second_stock_round()
    g.process(A.SellShares("Player 3", (), corporation="CAR", count=2))
    refused(g, A.BuyShares("Player 3", (), corporation="CAR", source="pool"),
            "you sold CAR this round and may not buy it back", "rule 12.3.2")


def test_12_3_1_a_share_costs_its_price():
    g = second_stock_round()
    refused(g, A.BuyShares("Player 3", (), corporation="CAR", source="ipo"), "a CAR share costs £100, you have £95")


def test_5_5_5_the_shares_of_a_company_in_receivership_are_out_of_the_game():
    g = second_stock_round()
    g.enter_receivership("VR")
    refused(g, A.BuyShares("Player 3", (), corporation="VR", source="ipo"), "VR is closed", "rule 5.5.5")


# -- 5.6, 5.4: loans from the Bank of England ------------------------------------------------------------
def test_5_6_1_no_loans_before_the_first_3_train():
    g = at("101.json", 47)  # CAR's first turn, phase 2
    refused(g, A.TakeLoan("CAR"), "rule 5.6.1", "loans are not available yet: they start with the first 3 train")


def test_5_6_1_one_loan_an_operating_round():
    g = at("101.json", 103)  # SAR, phase 3
    g.process(A.TakeLoan("SAR"))
    refused(g, A.TakeLoan("SAR"), "rule 5.6.1", "SAR has taken its loan this operating round")


def test_5_6_3_at_most_five_loans_by_choice():
    g = at("101.json", 103)
    g.state.corporations["SAR"].loans = 5
    refused(g, A.TakeLoan("SAR"), "rule 5.6.3", "SAR has 5 loans, the most it may take by choice")


def test_5_4_1_the_bank_of_england_has_twenty_loans():
    g = at("101.json", 103)
    g.state.corporations["BOE"].loans = 20
    assert g.loans_left() == 0
    refused(g, A.TakeLoan("SAR"), "rule 5.4.1", "BOE has no loans left to give")


def test_5_6_1_a_loan_is_never_repaid_and_the_reply_says_what_is_allowed():
    """'repay loan' was answered 'unknown move': it is refused citing 5.6.1 ("The loan may never be
    paid back"), saying what a company may do instead, and nothing changes."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import RepayLoan, parse_moves

    g = at("101.json", 103)  # SAR's turn, phase 3: loans are open
    g.process(A.TakeLoan("SAR"))
    pres = g.controller("SAR")
    assert parse_moves("repay loan", pres) == [RepayLoan(pres)]
    n, loans = len(g.actions), g.state.corporations["SAR"].loans
    with pytest.raises(GameError) as info:
        play_intent(g, pres, parse_moves("repay loan", pres))
    text = str(info.value)
    assert "rule 5.6.1" in text and "a loan may never be paid back" in text and "'take loan'" in text, text
    assert "SAR may not take one now" in text  # it has taken this round's
    assert (len(g.actions), g.state.corporations["SAR"].loans) == (n, loans)
    ga = Game("18GA", ["Ann", "Bob", "Cy"])
    with pytest.raises(GameError, match="there are no loans in 18GA"):
        play_intent(ga, "Ann", parse_moves("repay loan", "Ann"))


# -- 4.1, 7.3: privates bought by companies -------------------------------------------------------------
def test_4_1_no_privates_for_companies_before_the_first_3_train():
    g = at("101.json", 47)
    refused(g, A.BuyCompany("CAR", "P6", 1), "rule 4.1, 9.3", "from the sale of the first 3/3+ train")


def test_4_1_p5_and_p6_are_not_for_companies():
    g = at("101.json", 103)  # P5 belongs to SAR's director
    refused(g, A.BuyCompany("SAR", "P5", 50), "rule 4.1", "P5 may not be bought by a company (only P1 to P4 are)")


def test_4_1_privates_are_not_traded_between_companies():
    g = at("101.json", 103)  # P3 belongs to the VR
    refused(g, A.BuyCompany("SAR", "P3", 50), "rule 4.1", "P3 belongs to VR", "not traded between companies")


def test_4_1_a_private_at_a_price_in_its_range():
    g = at("101.json", 103)
    refused(g, A.BuyCompany("SAR", "P1", 41), "rule 4.1", "SAR pays £1 to £40 for P1, not £41")


def test_4_1_7_3_only_from_the_director():
    g = at("101.json", 103)  # SAR's director is Player 1
    g.state.companies["P1"].owner = "P:Player 2"  # (a state the sale could have made)
    assert not any(isinstance(a, A.BuyCompany) and a.company == "P1" for a in g.legal_actions())
    refused(g, A.BuyCompany("SAR", "P1", 10), "rule 4.1, 7.3",
            "SAR buys a private company only from its director, Player 1; P1 belongs to Player 2")
    g.process(A.BuyCompany("SAR", "P2", 10))  # the director's own private: allowed
    assert g.state.companies["P2"].owner == "C:SAR"


# -- 5.5.3: the director liable for receivership compensation ------------------------------------------------
def test_5_5_3_a_director_in_debt_sells_shares_before_anything_else():
    g = at("101.json", 475)
    s = g.state
    s.cash["bank"] += s.cash["P:Player 1"] + s.cash["C:SAR"]
    s.cash["P:Player 1"] = s.cash["C:SAR"] = 0
    g.process(A.TakeLoan("SAR"))  # into receivership, Player 1 owes the compensation
    # SAR was the last to operate: the sales come before the next operating round pays anyone (5.5.3)
    assert s.cash["P:Player 1"] == -110 and s.round.kind == "operating"
    refused(g, A.Pass(g._or_operator()), "rule 5.5.3", "Player 1 owes £110 of receivership compensation")


# -- 8.1, 8.3.4, 8.4.3: trains between companies ---------------------------------------------------------
def ft_short_of_cash() -> Game:
    g = at("1848_hotseat_game.json", 141)  # FT (Player 2) must buy a train; VR is also Player 2's, SAR Player 1's
    s = g.state
    assert g._or_operator() == "FT" and not s.corporations["FT"].trains
    s.cash["bank"] += s.cash["C:FT"] - 50
    s.cash["C:FT"] = 50
    return g


def test_8_1_8_3_4_between_directors_only_at_face_value():
    g = ft_short_of_cash()
    refused(g, A.BuyTrain("FT", "3-1", 40), "face value (£230)", "rule 8.1, 8.3.4")


def test_8_4_3_the_director_puts_no_money_into_a_train():
    g = ft_short_of_cash()
    refused(g, A.BuyTrain("FT", "3-0", 200), "may not be bought from another company with the president's money",
            "rule 8.3.7, 8.4.3")
    g.process(A.BuyTrain("FT", "3-0", 10))  # between one director's companies: £1 and up (8.3.4)
    assert g.state.trains["3-0"].owner == "C:FT"


def test_12_4_1_a_sale_to_pay_compensation_changes_no_director():
    """12.4.1: "Shares sold as the result of insolvency (the result of paying compensation to other
    shareholders in a company that has gone into receivership) may not trigger a change of Director"."""
    g = at("101.json", 475)
    s = g.state
    g.move_share("CAR_0", "P:Player 1")  # Player 1 directs the CAR with 50%, Player 3 keeps 20%
    for sid in [x for x, o in s.share_owner.items() if o == "P:Player 3" and x.startswith("CAR_")][:2]:
        g.move_share(sid, "P:Player 1")
    assert g.percent_of("P:Player 1", "CAR") == 50 and g.percent_of("P:Player 3", "CAR") == 20
    s.cash["bank"] += s.cash["P:Player 1"] + s.cash["C:SAR"]
    s.cash["P:Player 1"] = s.cash["C:SAR"] = 0
    g.process(A.TakeLoan("SAR"))  # SAR into receivership: Player 1 owes Player 3's compensation
    assert s.cash["P:Player 1"] < 0 and g.current_entity() == "Player 1"
    assert 4 in g._sellable_bundles("Player 1", "CAR") and 4 not in g.crisis_bundles("Player 1", "CAR")
    refused(g, A.SellShares("Player 1", (), corporation="CAR", count=4), "rule 12.4.1",
            "a sale to pay compensation may not change a director")
    g.process(A.SellShares("Player 1", (), corporation="CAR", count=3))  # he stays the director
    assert g.president("CAR") == "Player 1"

"""Play-through by mail s15b of 18AL (issue 29's "Done when": seed 202, Ann, Bob, Cy, Di, every seat
written from the rulebook alone; tests/e18xx/playthrough/al-s15b.jsonl holds the game, 69 actions, 45 mails,
6 company turns, to the start of OR 3.1, phase 3).

The count was clean: every stock turn and every company turn took one mail, and no mail was refused. These
tests keep the mails as the players wrote them, each read at the state it was written against, so a change to
the move reader that loses one of them fails here."""
import pytest

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s15b game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=202, suffix="-s15b", players=4)


def test_the_game_replays_to_operating_round_3_1():
    """The whole count: three companies floated in stock round 1, the 2 trains sold out, the first 3 train
    (phase 3) bought by WRA in OR 2.1; ABC opens OR 3.1."""
    g = game(69)
    assert not g.finished
    assert g.current_entity() == "ABC"
    assert sorted(c for c, corp in g.state.corporations.items() if corp.floated) == ["ABC", "TAG", "WRA"]


@pytest.mark.parametrize("upto, mail, first", [
    (0, "buy TR", "bid 20 TR"),
    (2, "buy the South & North Alabama Railroad", "bid 40 SNAR"),
    (4, "buy Brown & Sons Lumber Co. for $70", "bid 70 BLC"),
    (3, "bid $110 on M&C", "bid 110 M&C"),
    (5, "par ABC at 70", "par ABC 70"),
    (6, "buy the TAG president's certificate, par value $70", "par TAG 70"),
    (7, "start WRA at par $60", "par WRA 60"),
    (8, "buy one share of ABC from the Initial Offering", "buy ABC ipo"),
    (12, "buy TAG from the Initial Offering", "buy TAG ipo"),
    (13, "buy another ABC share", "buy ABC ipo"),
    (16, "buy a 10% certificate of WRA", "buy WRA ipo"),
])
def test_the_stock_turn_mails_as_written(upto, mail, first):
    """The sale of the privates and the stock rounds (mails #1-#17): the rulebook's 'buy' of the cheapest
    private (3.1(a)), a bid with its '$' and 'on', the president's certificate and its par value (3.2(c)(1)),
    a share from the Initial Offering (3.2(c)(2))."""
    assert intent_mail(game(upto), mail)[0][0] == first


@pytest.mark.parametrize("upto, company, mail, moves", [
    (28, "ABC", "lay tile 6 on G6 rotation 5\nbuy a 2 train from the bank", ["lay 6 G6 5", "buy train 2"]),
    (31, "TAG", "lay tile 58 on C6 rotation 4\nbuy a 2 train", ["lay 58 C6 4", "buy train 2"]),
    (34, "WRA", "lay 6 L5 2\nbuy train 2", ["lay 6 L5 2", "buy train 2"]),
    (44, "ABC", "lay tile 441a on G4 rotation 5\nplace a station token in Birmingham\nrun trains\n"
                "pay dividends\nbuy a 2 train",
     ["lay 441a G4 5", "token Birmingham", "run auto", "payout", "buy train 2"]),
    (50, "TAG", "lay tile 8 on F7 rotation 1\nrun the 2 train from Gadsden to Chattanooga\npay out\nbuy a 2 train",
     ["lay 8 F7 1", "run auto", "payout", "buy train 2"]),
    (55, "WRA", "lay tile 9 on K6 rotation 1\nrun auto\npay dividends\nbuy a 3 train from the bank",
     ["lay 9 K6 1", "run auto", "payout", "buy train 3"]),
])
def test_each_company_turn_in_one_mail(upto, company, mail, moves):
    """OR 1.1 and OR 2.1 (mails #29-#31, #37-#39): each company's whole turn - lay, station, run, pay out, a
    train - in the one mail its president wrote (4.2); the steps not named are passed, the turn ends with the
    mail."""
    g = game(upto)
    assert g.current_entity() == company
    made, _ = intent_mail(g, mail)
    assert [m for m in made if m != "pass"] == moves
    assert g.current_entity() != company


def test_a_run_naming_the_cities_runs_the_best_route_and_says_why():
    """TAG, OR 2.1 (mail #38): 'run the 2 train from Gadsden to Chattanooga' earns $60; Rome's $10 (a town,
    4.2.3(i)) makes the best $70. Any stockholder may insist on the best run (4.2.3.1), so TAG runs it and the
    reply says so and names it."""
    made, notes = intent_mail(game(50), "lay tile 8 on F7 rotation 1\nrun the 2 train from Gadsden to Chattanooga\n"
                                        "pay out")
    assert "run auto" in made
    assert "(70)" in notes and "'run 2 D7 E6 C6 B7'" in notes


def test_a_refused_run_quotes_its_stops_as_the_mail_named_them():
    """A refused route is quoted with its places as "What happened" spells them, not in capitals
    ('move 2 (run 2 GADSDEN CHATTANOOGA)': noticed in play-throughs s15b of 18AL and 1848). TAG in OR 2.1
    has one 2 train; Gadsden to Montgomery is far out of its reach."""
    why = intent_refusal(game(50), "lay tile 8 on F7 rotation 1\nrun the 2 train from Gadsden to Montgomery")
    assert "GADSDEN" not in why and "Gadsden" in why and "Montgomery" in why, why

"""Play-through by mail s17 of 18VA (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 285, four seats Ann, Bob, Cy and Di): 117 actions to stock round 4, phase 3, 18
company turns. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/va-s17.jsonl holds the game): each refused mail is made as the mail that was
then accepted (the player's fix) was."""
from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s17 game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=285, suffix="-s17", players=4)


mail = intent_mail


def same_as(upto: int, refused: str, accepted: str) -> list[str]:
    """The moves ``refused`` makes at action ``upto``, checked to be those of ``accepted``."""
    made = mail(game(upto), refused)[0]
    assert made == mail(game(upto), accepted)[0]
    return made


def test_the_game_replays():
    """The game to stock round 4 (117 actions; B&O bought the first 3 train in OR 2.1)."""
    assert game(39).current_entity() == "B&O"
    assert game(88).current_entity() == "SR"
    g = game(117)
    assert g.current_entity() == "Di"
    assert g.state.corporations["N&W"].trains and g.state.companies["P3"].owner.endswith("B&O")


def test_a_port_named_by_its_hex_in_brackets():
    """B&O, OR 2.1 (mail 25): 'Run the 2 train from Philadelphia through Baltimore to the port (I4)' was
    refused "'The Port' is not a stop" (the bracketed hex had been dropped as an aside): a stop's words
    with a hex in brackets are that hex, as 'E2 (Whyalla)' is in a lay (18VA 4.5.4.2, the Port)."""
    made = same_as(39, "Place a station token in Philadelphia\nRun the 2 train from Philadelphia through Baltimore "
                   "to the port (I4)\nWithhold\nBuy a 3 train",
                   "Place a station token in Philadelphia\nRun the 2 train from Philadelphia through Baltimore "
                   "to I4\nWithhold\nBuy a 3 train")
    assert "buy train 3" in made
    # a place with its hex in brackets is that hex, with or without dashes between the stops: the
    # same run, $130 withheld (B&O: $170 - $40 for the station + $130 - $200 for the 3 train)
    for run in ("Run the 2 train Philadelphia (H1) - Baltimore (H3) - the port (I4)",
                "Run the 2 train Philadelphia (H1) Baltimore (H3) I4"):
        g = game(39)
        assert len(mail(g, f"Place a station token in Philadelphia\n{run}\nWithhold\nBuy a 3 train")[0]) == len(made)
        assert g.state.cash["C:B&O"] == 60, run


def test_a_lay_closing_with_from_a_toward_b():
    """N&W, OR 2.1 (mail 27): 'Lay tile 9 on G14, rotation 2, from Petersburg toward Norfolk' was
    refused "'from Petersburg', which is no part of a lay": after the rotation, where the track runs
    from is the player's note, as where it goes toward is."""
    made = same_as(46, "Lay tile 9 on G14, rotation 2, from Petersburg toward Norfolk\nRun the 2 train "
                   "Petersburg - Norfolk\nPay out\nBuy the Tredegar Iron Works from Cy for $90",
                   "Lay tile 9 on G14, rotation 2, toward Norfolk\nRun the 2 train Petersburg - Norfolk\nPay out\n"
                   "Buy the Tredegar Iron Works from Cy for $90")
    assert "lay 9 G14 2" in made


def test_a_lay_closing_with_down_to_a_place():
    """N&W, OR 3.2 (mail 50): 'Lay a 9 on F15, rotation 0, down to Rocky Mount' was refused "'down to
    Rocky Mount', which is no part of a lay"."""
    made = same_as(105, "Lay a 9 on F15, rotation 0, down to Rocky Mount\nRun the 3 train Rocky Mount - "
                   "Petersburg - Richmond\nWithhold\nBuy a 3 train from the Bank",
                   "Lay a 9 on F15, rotation 0\nRun the 3 train Rocky Mount - Petersburg - Richmond\nWithhold\n"
                   "Buy a 3 train from the Bank")
    assert "lay 9 F15 0" in made


def test_a_share_from_its_treasury():
    """Stock round 3 (mail 31): 'I buy one share of the Southern Railway from its Treasury' was refused
    "read 'its Treasury' as where the share comes from": the company's own Treasury is the Treasury
    (18VA 4.3.2)."""
    made = same_as(56, "I buy one share of the Southern Railway from its Treasury",
                   "I buy one share of the Southern Railway from the Treasury")
    assert made == ["buy SR ipo"]


def test_the_railway_express_adding_its_ten_to_a_city():
    """SR, OR 3.2 (mail 43): 'Use the Railway Express Agency to add +10 to Richmond' (4.2 (1): "Add +10
    to any City") was refused "P1 may be assigned to E2, ..., not ADD RICHMOND"."""
    lay = "Lay tile 9 on E12, rotation 1\nPlace a station in Petersburg\n"
    run = "\nRun one 2 train Richmond - Petersburg and the other Richmond - Fredericksburg\nPay out"
    made = same_as(88, lay + "Use the Railway Express Agency to add +10 to Richmond" + run,
                   lay + "assign P1 F11" + run)
    assert "assign P1 F11" in made
    for words in ("Use the Railway Express Agency to increase the value of Richmond by $10",
                  "Use the Railway Express Agency to add $10 to Richmond"):
        assert mail(game(88), lay + words + run)[0] == made, words


def test_an_offer_accepted_naming_the_price_and_the_private_by_its_name():
    """Di, OR 3.2 (mail 46): B&O offered $80 for Potomac Yards; 'I accept the $80 for Potomac Yards'
    was refused "the offer waiting is for P3; write 'accept P3'" (P3 is Potomac Yards)."""
    from pbm.e18xx.pbem.games import offer_answer, offer_said

    g = game(90)
    offer = {"company": "P3", "kind": "private"}
    for text in ("I accept the $80 for Potomac Yards", "I accept B&O's offer of $80 for the Potomac Yards",
                 "accept P3", "I accept"):
        verb, said = offer_answer(text)
        assert verb == "accept" and offer_said(g, offer, said), (text, said)
    assert offer_answer("decline P3") == ("decline", "P3")
    assert not offer_said(g, offer, offer_answer("accept Tredegar")[1])  # another private: refused
    # a train offer is answered by its type: '3' is no price
    assert offer_answer("accept 3") == ("accept", "3")
    assert not offer_said(g, {"company": "4-0", "kind": "train"}, "3")


def test_convert_the_company_to_a_ten_share_company():
    """RF&P, OR 3.2 (mail 48): 'Convert the RF&P to a Ten-Share Company' (4.5.1's words) was refused
    "'convert' takes nothing after it" ('Convert N&W to a Ten-Share Company' was read: s14b)."""
    rest = "\nUpgrade Fredericksburg to tile 15, rotation 0\nRun the 2 trains Fredericksburg - Alexandria and " \
           "Fredericksburg - Richmond\nPay out"
    made = same_as(99, "Convert the RF&P to a Ten-Share Company" + rest, "Convert" + rest)
    assert made[0] == "convert"


def test_an_idle_train_when_no_second_route_exists():
    """Mails 41 and 45: B&O ran its 3 train Philadelphia - Baltimore - I4 and the mail said "B&O's 2
    train runs no route: the run named no route for it", as if the player had left it out; but only one
    track leaves Baltimore, so no second route could run. The reason given is now that one."""
    from .helpers import texts_at

    g = playthrough_game("va", 81, seed=285, suffix="-s17", players=4, events=True)
    idle = [t for t in texts_at(g, 81) if "runs no route" in t]
    assert idle and all("the run named no route" not in t for t in idle), idle
    assert any("no route was left for it" in t for t in idle), idle

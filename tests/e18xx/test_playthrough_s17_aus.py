"""Play-through by mail s17 of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 281, five seats Ann, Bob, Cy, Di and Eve): 74 actions to the start of stock
round 3, 6 company turns, 45 mails. No line was misread: the two extra mails were a pass sent for Di
after pbm had passed her automatically (refused "it is not Di's turn") and a lay of the curve 5
written with one of its two ends (refused with both rotations to choose from). These tests pin the
game and the mails as sent (tests/e18xx/playthrough/aus-s17.jsonl holds the game)."""
import pytest

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s17 game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=281, suffix="-s17", players=5)


mail = intent_mail


def test_the_game_replays():
    """The game to the start of stock round 3 (74 actions; the 3/3+ Phase began with CAR's 3 train
    in OR 2.1, and VR bought The Ghan from its president)."""
    assert game(10).current_entity() == "Ann"  # stock round 1 after the six privates were sold
    assert game(27).current_entity() == "CAR"
    assert game(50).current_entity() == "CAR"
    g = game(74)
    assert g.current_entity() == "Ann"
    assert g.state.companies["P4"].owner == "C:VR"


# Every stock-turn and private-sale mail of the game, as the players wrote them (one move each).
STOCK_MAILS = [
    (0, "Buy P6 for £230", "bid 230 P6"),
    (1, "Reduce the price of P5 by £5", "lower P5"),
    (2, "Buy P2 Oodnadatta Railway for £70", "bid 70 P2"),
    (3, "Lower the price of The Ghan (P4) by £5", "lower P4"),
    (4, "Buy the Tasmanian Railways for £110", "bid 110 P3"),
    (6, "I buy the Trans-Australian Railway (P5) for £165", "bid 165 P5"),
    (7, "Lower P1 by 5", "lower P1"),
    (8, "Buy The Ghan for £165", "bid 165 P4"),
    (9, "Buy the Melbourne & Hobson's Bay Railway for £25", "bid 25 P1"),
    (10, "Buy a 10% share of CAR", "buy CAR ipo"),
    (11, "Buy the Director's Share of QR and set its initial share price at £80", "par QR 80"),
    (12, "Start NSW at a share price of £90", "par NSW 90"),
    (13, "Buy the Victorian Railway Director's Share at £70", "par VR 70"),
    (14, "Buy one share of CAR", "buy CAR ipo"),
    (15, "Buy another CAR share", "buy CAR ipo"),
    (16, "Buy a QR share from the Bank for £80", "buy QR ipo"),
    (17, "Buy a share of the Central Australian Railway", "buy CAR ipo"),
    (18, "Buy 10% of VR", "buy VR ipo"),
    (19, "I'll buy a Victorian Railway share", "buy VR ipo"),
    (20, "Buy one QR share", "buy QR ipo"),
    (21, "Buy a QR share, which launches QR", "buy QR ipo"),
    (22, "Buy an NSW share at par", "buy NSW ipo"),
    (23, "Buy a VR share", "buy VR ipo"),
    (24, "Buy another VR share so that VR is launched", "buy VR ipo"),
    (41, "Buy a VR share for £70", "buy VR ipo"),
    (42, "Buy a share in the Bank of England", "buy BOE market"),
    (43, "Sell my CAR share\nBuy the SAR Director's Share and set the initial share price at £100",
     "sell 1 CAR, par SAR 100"),
]


@pytest.mark.parametrize("upto,text,made", STOCK_MAILS, ids=[str(u) for u, _, _ in STOCK_MAILS])
def test_each_stock_mail_reads_as_sent(upto, text, made):
    """Each private-sale and stock-round mail was read at the first try, as the move it names."""
    assert [m for m in mail(game(upto), text)[0] if m != "pass"] == made.split(", ")


# The six company turns, each in one mail (QR's after one refusal, below).
COMPANY_MAILS = [
    (27, "Lay tile 6 in Port Augusta (E4) connecting Whyalla and Port Pirie\nBuy two 2 trains",
     "lay 6 E4 5, buy train 2, buy train 2"),
    (31, "Lay tile 6 in Brisbane (B19) toward Toowoomba & Ipswich and Southport\n"
         "Buy a 2 train and a 2+ train",
     "lay 6 B19 5, buy train 2, buy train 2 as 2+"),
    (35, "Lay a 5 tile on Melbourne (H11) joining Geelong and Ballarat & Bendigo\n"
         "Buy the remaining two 2 trains",
     "lay 5 H11 1, buy train 2, buy train 2"),
    (50, "Lay tile 6 on Whyalla (E2) linking Perth and Port Augusta\n"
         "Run a 2 train from Port Augusta to Whyalla\nPay dividends\nBuy a 3 train",
     "lay 6 E2 2, run 2 PORT AUGUSTA - WHYALLA, payout, buy train 3"),
    (57, "Lay tile 235 in Toowoomba & Ipswich (B17) toward Brisbane\n"
         "Lay tile 5 in Southport (C20) toward Brisbane and C18\n"
         "Run the 2 train Brisbane - Toowoomba & Ipswich\nRun the 2+ train Brisbane - Southport\n"
         "Pay out\nBuy a 3 train",
     "lay 235 B17 4, lay 5 C20 1, run 2 BRISBANE - TOOWOOMBA & IPSWICH; 2 BRISBANE SOUTHPORT, payout, "
     "buy train 3"),
    (65, "Lay tile 235 in Ballarat & Bendigo (G10) toward Melbourne\n"
         "Lay tile 57 in Geelong (H9) toward Melbourne and Mount Gambier\n"
         "Run a 2 train from Melbourne to Ballarat & Bendigo\n"
         "Run the other 2 train from Melbourne to Geelong\n"
         "Pay dividends\nVR buys The Ghan from Di for £220\nBuy a 3 train",
     "lay 235 G10 5, lay 57 H9 1, run 2 MELBOURNE - BALLARAT & BENDIGO; 2 MELBOURNE GEELONG, payout, "
     "buy private P4 220, buy train 3"),
]


@pytest.mark.parametrize("upto,text,made", COMPANY_MAILS, ids=[str(u) for u, _, _ in COMPANY_MAILS])
def test_each_company_turn_in_one_mail(upto, text, made):
    """Each company turn went in one mail, every line read as the player meant it (two runs on two
    lines, 'Run the 2 train ...' and 'Run the 2+ train ...', or 'Run a 2 train ...' and 'Run the
    other 2 train ...', are one run of both trains); the turn ends with the mail."""
    g = game(upto)
    corp = g.current_entity()
    assert [m for m in mail(g, text)[0] if m != "pass"] == made.split(", ")
    assert g.current_entity() != corp


def test_a_curve_written_with_one_end_asks_which():
    """OR 2.1 (mail 43, class a): 'Lay tile 5 in Southport (C20) toward Brisbane': the curve 5
    reaches Brisbane from C20 turned either way (to C18 or to B21), so the mail is refused with both
    rotations to choose from, and 'toward Brisbane and C18' (mail 44) is read as rotation 1."""
    g = game(57)
    why = intent_refusal(g, "Lay tile 235 in Toowoomba & Ipswich (B17) toward Brisbane\n"
                            "Lay tile 5 in Southport (C20) toward Brisbane")
    assert "rotation 1 or 2: say which" in why
    assert "lay 5 C20 1 (city; to C18 (left), B19 Brisbane (upper left))" in why
    assert "lay 5 C20 2 (city; to B19 Brisbane (upper left), B21 (upper right))" in why
    assert mail(game(57), "Lay tile 235 in Toowoomba & Ipswich (B17) toward Brisbane\n"
                          "Lay tile 5 in Southport (C20) toward Brisbane and C18\nmore")[0][:2] == [
        "lay 235 B17 4", "lay 5 C20 1"]



def test_a_sale_says_its_price_move_once():
    """Noted in s17 (stock round 2, Eve sells a CAR share): the mail said "Eve sells 1 CAR share for
    £90; CAR falls to £80" and then again "CAR's share price goes down from £90 to £80". The sale's
    line says where the price went (1848 5.2.2); no second line repeats it."""
    from .helpers import texts_at

    g = playthrough_game("aus", 44, seed=281, suffix="-s17", players=5, events=True)
    said = texts_at(g, 44)
    assert any(t.startswith("Eve sells 1 CAR share for £90; CAR falls to £80") for t in said), said
    assert not any("share price goes down" in t for t in said), said

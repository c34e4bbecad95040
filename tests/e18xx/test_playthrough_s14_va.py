"""Play-through by mail s14 of 18VA (issue 29 acceptance, final verification round; seed 164, Ann,
Bob, Cy, every seat written from the rulebook alone): the findings, each with the mail that showed
it (tests/e18xx/playthrough/va-s14.jsonl holds the game, 282 actions, 48 company turns, to OR 7.1)."""
from .helpers import intent_mail, playthrough_game, texts_at
from .test_pbem_mail import ga  # noqa: F401 (a fixture)


def game(upto: int, events: bool = False):
    """The s14 game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=164, suffix="-s14", players=3, events=events)


mail = intent_mail


def test_the_b_and_o_presidency_and_tredegar_by_their_names_in_the_auction():
    """Initial Stock Round (findings F1-F2, mails #1, #2, #5): 'bid 140 on the B&O presidency',
    'bid 140 B&O Presidency' - the rulebook's name for P4 (4.1: "the "face value" of the B&O
    Presidency is $140") - were refused "need an amount and a private company"; 'bid 60 Tredegar',
    the first word of the private's name, was refused "unknown private company 'TREDEGAR'". A
    private is named in a bid as in the operating round: its name or its name's first words."""
    for words, want in (("bid 140 on the B&O presidency", "bid 140 P4"), ("bid 140 B&O Presidency", "bid 140 P4")):
        g = game(0)
        made, _ = mail(g, words)
        assert made == [want], (words, made)
    g = game(2)
    assert g.current_entity() == "Cy"
    made, _ = mail(g, "bid 60 Tredegar")
    assert made == ["bid 60 P2"], made


def test_the_starting_value_in_the_rulebooks_words():
    """Initial Stock Round (finding F3, mail #11): 'Starting value of the B&O: $100' - rule 4.1, "The
    player who bought the B&O Presidency sets the Starting Value of the B&O" - was refused "unknown
    move 'Starting'". It is 'par B&O 100'."""
    for words in ("Starting value of the B&O: $100", "starting value B&O 100", "set the starting value of B&O at 100"):
        g = game(7)
        made, _ = mail(g, words)
        assert made == ["par B&O 100"], (words, made)


def test_a_tile_laid_in_a_city_named_by_its_name():
    """B&O, OR 1.1 (finding F4, mails #19-#20): 'lay tile 6 in Baltimore rotation 1' and 'lay 6
    Baltimore 1' were refused "'Baltimore' is not a hex like E5", though the mails name the city
    ("H3 Baltimore") and 'token Richmond' and routes by names are read. The city's name is its hex."""
    for words in ("lay tile 6 in Baltimore rotation 1", "lay 6 Baltimore 1"):
        g = game(14)
        assert g.current_entity() == "B&O"
        made, _ = mail(g, words + "\nbuy a 2 train")
        assert made[:1] == ["lay 6 H3 1"], (words, made)


def test_moves_joined_by_then_and_by_full_stops():
    """SR, OR 1.1 (finding F5, mail #23): 'lay 57 F11 0 then buy a 2 train' was refused "need tile,
    hex and rotation"; B&O, OR 4.2 (F6, mail #61): 'Lay 14 G4 1. Run auto. Pay out.' the same; C&O,
    OR 6.2 (F7, mail #117): 'Run auto.' and 'Pay out.' each on its line, refused for the full stop.
    Sentences and 'then' join moves as commas do; a line's full stop ends it."""
    g = game(17)
    assert g.current_entity() == "SR"
    made, _ = mail(g, "lay 57 F11 0 then buy a 2 train")
    assert made[:2] == ["lay 57 F11 0", "buy train 2"], made
    g = game(90)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "Lay 14 G4 1. Run auto. Pay out.")
    assert made[0] == "lay 14 G4 1" and "payout" in made, made
    g = game(243)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "Place a station at Gordonsville.\nRun auto.\nPay out.")
    assert "payout" in made and any(m.startswith("token") for m in made), made


def test_buy_a_2_in_the_train_step_is_a_train():
    """RFPR, OR 1.1 and 2.1 (finding F8, mails #25, #34): 'buy 2' and 'buy a 2' after the run, the
    train of rule 4.5.8, were read as a share ('buy 2 ipo') and refused "Bob may not buy a share
    now". In a company's turn, a number that is a train's name is that train."""
    g = game(20)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "lay 57 F7 0\nbuy 2")
    assert made[-1:] == ["buy train 2"] or "buy train 2" in made, made
    g = game(38)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "lay 9 F9 0\nrun auto\npay dividend\nbuy a 2")
    assert "buy train 2" in made, made


def test_routes_by_place_names_joined_by_dashes_and_and():
    """B&O, OR 3.1 (findings F9-F10, mails #39-#40): 'run 2 Baltimore-Philadelphia and 2
    Washington-Baltimore' was refused "'BALTIMORE-PHILADELPHIA' is not a stop" (hexes joined by
    dashes are read: 'run 2 F11-F13'), then "'AND' is not a stop". Places joined by dashes are
    stops, and 'and' before a train separates routes as ';' does."""
    g = game(45)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "lay 6 F5 4\nrun 2 Baltimore-Philadelphia and 2 Washington-Baltimore\npayout\nbuy a 3 train")
    assert "run 2 BALTIMORE PHILADELPHIA; 2 WASHINGTON BALTIMORE" in made, made
    assert "buy train 3" in made


def test_privates_used_in_the_rulebooks_words():
    """SR, OR 4.2 (finding F11, mail #65): 'use Potomac Yards for an extra station in D9' (18VA 4.2
    (3) "place an extra station token") was read as a private named 'POTOMAC YARDS FOR AN EXTRA
    STATION IN'; B&O, OR 6.1 (F12, mail #104): 'use Railway Express Agency on Baltimore' as P1 on
    a hex 'EXPRESS AGENCY ON BALTIMORE'. The private's name, the filler words and the place are read."""
    g = game(101)
    assert g.current_entity() == "SR"
    made, _ = mail(g, "lay 9 E10 2\nuse Potomac Yards for an extra station in D9\nrun auto\npayout")
    assert "token D9 with P3" in made, made
    g = game(203)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "buy private P1 from Ann for 60\nuse Railway Express Agency on Baltimore\nrun auto\n"
                      "payout\nbuy train 5")
    assert "assign P1 H3" in made, made


def test_the_presidents_part_of_a_train_that_ends_the_round():
    """C&O, OR 5.1 (finding F13, action 145): C&O ($246) bought the Bank's 4 train ($300) as the
    round's last move, Ann paying the rest. The mails said "Ann, its president, pays $44 towards
    C&O's train" and "C&O buys a 4 train from the Bank for $290": the next round's private revenue
    ($10 to Ann, paid in the same action) was counted in. The amounts are the purchase's: $54, $300."""
    g = game(145, events=True)
    texts = texts_at(g, 145)
    assert any("pays $54 towards C&O's train" in t for t in texts), texts
    assert any("buys a 4 train from the Bank for $300" in t for t in texts), texts


def test_the_outline_offers_the_banks_train_with_tredegar():
    """RFPR, OR 4.2 and 5.1 (finding F14, mails #63, #79): RFPR owned P2 Tredegar Iron Works ($200 off
    a new train, 18VA 4.2 (2)) and had $36-$51; the "This turn" outline said "buy trains (from other
    companies)", so the Bank's 3 train for $0 with P2 was not offered until after the mail (Bob
    offered $30 for B&O's 2 train instead). The outline lists the Bank's train with the private."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(123)
    assert g.current_entity() == "RFPR"
    outline = turn_outline(g)[0]
    assert "from other companies)" not in outline, outline
    assert "with P2" in outline, outline


def test_the_outline_says_the_banks_train_the_company_can_pay():
    """B&O, OR 3.1 (finding F15, mail #41): B&O had $200 and the Bank's 3 train cost $200; the
    "This turn" outline said "buy trains (from other companies)" - its example placed a $40
    station first - and B&O bought the 3 for $200. Likewise OR 5.2 ($290, the 4 for $300, a run of
    $140 it could withhold). The outline names the Bank's train, its price and the company's cash."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(45)
    assert g.current_entity() == "B&O"
    outline = turn_outline(g)[0]
    assert "3 for $200 from the Bank" in outline and "B&O has $200" in outline, outline
    g = game(150)
    assert g.current_entity() == "B&O"
    outline = turn_outline(g)[0]
    assert "4 for $300 from the Bank" in outline and "B&O has $290" in outline, outline


def test_away_until_a_day(ga):
    """Stock round 6 (finding F16, mails #93-#94): 'AWAY: until 2026-12-05 proxy 3' was answered "The
    AWAY line 'until 2026-12-05' was not understood (write AWAY: 2026-12-01 2026-12-05)". 'until'
    (or 'till', 'to') one day: away from today to that day."""
    from datetime import datetime, timedelta

    from tests.e18xx.test_pbem_mail import answer, send

    cli, *_ = ga
    today = datetime.utcnow().date()
    line, inbound = send(ga, 2, f"AWAY: until {today + timedelta(days=3)} proxy 1")
    assert "accepted" in line
    said = answer(cli, inbound)[1]
    assert f"you are away from {today} to {today + timedelta(days=3)}" in said, said
    assert "player 1 may move for you meanwhile" in said, said


def test_potomac_yards_station_in_the_turns_first_list_and_outline():
    """SR, OR 4.2 (finding F11's other half, mail #65): SR owned P3 Potomac Yards; neither the "You
    may" list of the turn's start nor the "This turn" outline named its free extra station (18VA 4.2
    (3), placed in the token step, 4.5.3), so Cy guessed the form. Both name it; 'use P3 D9' places it."""
    from pbm.e18xx.pbem.intent import turn_outline
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game(101)
    assert g.current_entity() == "SR"
    assert any("with P3" in line for line in legal_lines(g, 400))
    assert "P3" in turn_outline(g)[0], turn_outline(g)
    made, _ = mail(g, "lay 9 E10 2\nuse P3 D9\nrun auto\npayout")
    assert "token D9 with P3" in made, made


def test_a_bare_accept_answers_the_one_offer_waiting(tmp_path):
    """RFPR, OR 3.1 (mail #43): Cy, owner of P2, answered RFPR's offer with 'accept'; it was refused
    "the offer waiting is for P2; write 'accept P2'" - pbm knew the one offer it meant. With one offer
    waiting for the player, 'accept' (or 'decline') alone answers it."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import load
    from pbm.models import Game

    from .db_games import offer_then_answer, stored_playthrough

    url = stored_playthrough(tmp_path, "va", 50, seed=164, suffix="-s14", players=3, name="va-14")
    offer_then_answer(url, "va-14", 2, "lay 15 F7 0\nstation in G4\nrun 2 F7 F11; 2 F7 F5\npayout\n"
                      "buy the Tredegar Iron Works from Cy for $60", 3, "accept")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "va-14"))
        assert load(s, row).state.companies["P2"].owner == "C:RFPR"


def test_the_proxy_gets_the_absent_seats_moves(ga):
    """OR 6.1 (finding F17, mail #101): Bob was away, Cy his proxy; Cy's mail for Bob's turn (RFPR)
    said "YOU ARE BOB'S PROXY ... then the moves" but listed none of RFPR's moves and no outline,
    so the proxy wrote the turn blind. The proxy's mail lists what the absent seat may do."""
    from datetime import datetime, timedelta

    from tests.e18xx.test_pbem_mail import answer, send

    cli, *_ = ga
    today = datetime.utcnow().date()
    send(ga, 2, f"AWAY: {today} {today + timedelta(days=2)} proxy 1")
    line, inbound = send(ga, 1, "pass")  # Bob to act
    said = answer(cli, inbound)[1]
    assert "YOU ARE BOB'S PROXY" in said, said
    assert "Bob may (write it after the FOR line):" in said, said
    head = said.split("(The full state follows")[0]
    assert "    bid " in head or "    pass" in head, head

"""Play-through by mail s11v, 1848 (issue 29 acceptance, the verification after the s11 fixes).

The game: tests/e18xx/playthrough/aus-s11v.jsonl (seed 84; Ann, Bob, Cy), written from the
rulebook alone, one mail per company turn.  Each test is a mail that was refused, with the text."""
from pbm.e18xx.pbem.moves import format_action, parse_line

from .helpers import intent_mail, intent_refusal, playthrough_game

mail, refusal = intent_mail, intent_refusal


def game(upto: int):
    """The s11v game after its first ``upto`` stored actions."""
    return playthrough_game("aus", upto, seed=84, suffix="-s11v", players=3)


def test_fed_is_the_rulebooks_name_of_the_federal_territory_railway():
    """Cy's first stock-round mail 'par FED 90' was refused "unknown corporation 'FED'; known: CAR,
    VR, NSW, SAR, COM, FT, ...": the rulebook's table of companies (5.1) abbreviates the Federal
    Territory Railway as FED."""
    made, _ = mail(game(8), "par FED 90")
    assert made == ["par FT 90"]


def test_buy_a_3_train_is_a_train_purchase():
    """QR's turn (OR 2.1, Bob): 'buy a 3 train' (7.3 step 5, "Purchase one or more trains") was
    refused "say 'ipo' or 'market' (the company's treasury or the pool ...)", a reason about shares."""
    for words in ("buy a 3 train", "buy one 3 train", "buy 3 train", "buy a 4+ train", "buy a 2E train"):
        move = parse_line(words, "Bob")
        assert format_action(move).startswith("buy train "), words
    made, _ = mail(game(61), "take loan\nbuy private P4 220\nlay 235 B17 4\nstation B17\nrun auto\n"
                             "pay dividends\nbuy a 3 train\ndone")
    assert "buy train 3" in made


def test_a_route_too_long_says_so():
    """CAR's turn (OR 2.2, Ann): 'run 2 E4 F5 G6' (three cities for a 2 train, 8.2.2) was refused
    "cannot run E4-0 F5-0 G6-0 (not connected, too long, counting changes of gauge, blocked, or
    reusing track)": every possible cause, not the one that fails."""
    why = refusal(game(70), "lay 5 G6 2\nlay 241 I8 1 with P3\nrun 2 E4 F5 G6\nrun 2 E4 E2\npayout\ndone")
    assert "too long: 3 cities and off-boards for a train of 2" in why
    assert "not connected, too long" not in why


def test_the_ghan_rebate_is_used_when_the_company_buys_its_2e():
    """QR's turn (OR 4.1, Bob): 'buy train 2E' was refused "QR has £195, the train costs £200"
    although QR owned The Ghan, whose rebate it keeps after the private closed (4.5: "The owner has
    a one-time rebate on the purchase of a 2E train"); only 'buy train 2E with P4' was accepted."""
    made, _ = mail(game(188), "run auto\npayout\nbuy train 2E\ndone")
    assert any(m.startswith("buy train 2E") and "with P4" in m for m in made), made


def test_a_plus_train_bought_is_named_so():
    """NSW's turn (OR 3.1, Bob): 'buy train 4+' was told "NSW buys a 4 train from the bank for
    £340": the + side (8.2.1, 8.3.3: "a Standard train or a + train") was left out."""
    from pbm.e18xx.events import attach, money_of, recorded

    g = game(125)
    attach(g)
    mail(g, "lay 236 F17 0\nbuy train 4+\ndone")
    texts = [e.text(money_of(g.title)) for e in recorded(g)]
    assert "NSW buys a 4+ train from the Bank for £340" in texts, texts


def test_the_commonwealth_railways_shows_both_home_cities():
    """Every mail's state said "COM not started (home F17)": the COM has two home stations, Sydney
    and Adelaide (5.3, the table of companies in 5.1)."""
    from pbm.e18xx.render.view import describe

    assert "COM  not started (home F17 and G6)" in describe(game(8))


def test_a_place_on_two_hexes_changes_value_once_in_the_phase_text():
    """The 3 train's phase change said "Cairns £20 (was £10), Alice Springs £20 (was £10), Alice
    Springs £20 (was £10), ...": Alice Springs spans two off-board hexes (A4, A6)."""
    from pbm.e18xx.events import attach, money_of, recorded

    g = game(35)
    attach(g)
    mail(g, "buy train 3\ndone")
    phase = next(t for t in (e.text(money_of(g.title)) for e in recorded(g)) if t.startswith("3/3+ Phase begins"))
    assert phase.count("Alice Springs £20 (was £10)") == 1, phase

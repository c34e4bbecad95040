"""Play-through by mail s12, 1848 (issue 29 acceptance, the fresh play-through after s11v).

The game: tests/e18xx/playthrough/aus-s12.jsonl (seed 103; Ann, Bob, Cy), written from the
rulebook alone, one mail per company turn (195 mails, 443 actions, 62 company turns).  Each test
is a mail that was refused or a mail's text that did not say what happened."""
import pytest

from pbm.e18xx.render.view import describe

from .helpers import intent_mail, intent_refusal, playthrough_game, texts_at

mail, refusal = intent_mail, intent_refusal


def game(upto: int, *, events: bool = False):
    """The s12 game after its first ``upto`` stored actions."""
    return playthrough_game("aus", upto, seed=103, suffix="-s12", players=3, events=events)


# -- the run ------------------------------------------------------------------------------------
def test_a_route_too_long_by_a_change_of_gauge_says_so():
    """NSW's turn (OR 4.1, Bob): 'run 2 E18 C20' (Newcastle, a change of gauge, Southport: three
    for a 2 train, 7.6 and 8.2.2) was refused "train 2-2 cannot run E18-0 C20-0 (not connected, too
    long, counting changes of gauge, blocked, or reusing track)": every cause, not the one."""
    why = refusal(game(115), "lay 6 C20 0\nlay 241 I10 1 with P3\nplace station token in E18\n"
                             "run 3 F15 F17 E18\nrun 2 E18 C20\npay\nbuy 3 train\ndone")
    assert "too long: 2 cities and off-boards and 1 change of gauge for a train of 2" in why, why
    assert "10.1.2" in why and "not connected, too long" not in why


def test_a_company_whose_only_train_cannot_run_needs_no_run_line():
    """VR's turn (OR 6.2, Cy): its only train a 2E with no track to Alice Springs, 'buy 4 train
    from SAR for £1 / done' was refused "VR must first 'Run trains' ... may not be skipped (a
    company whose trains can run must run them)"; 'run' then ran nothing ("VR runs no train")."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import format_action, parse_moves

    g = game(308)
    made, _ = play_intent(g, "Cy", parse_moves("buy 4 train from SAR for £1\ndone", "Cy"))
    lines = [format_action(m.action) for m in made]
    assert "buy train 4 from SAR 1" in lines, lines
    run = next(m for m in made if format_action(m.action) == "run auto")  # made for it, with its reason
    assert "VR's trains have no route, so they earn nothing" in run.note, run.note


def test_a_forced_purchase_takes_the_ordinary_loan_itself():
    """NSW's turn (OR 6.2, Bob): no train after the 3s rusted, £385; 'lay 6 G16 1 / buy 6 train /
    done' was refused "NSW may still take its ordinary loan this round: take it first (take loan)";
    the forced purchase raises its money by loans (8.4.1), the first one as any other (5.6.2)."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import format_action, parse_moves

    made = play_intent(game(297), "Bob", parse_moves("lay 6 G16 1\nbuy 6 train\ndone", "Bob"))[0]
    lines = [format_action(m.action) for m in made]
    assert lines[:1] == ["lay 6 G16 1"] and "take loan" in lines and "buy train 6" in lines, lines
    assert lines.index("take loan") < lines.index("buy train 6")
    loan = made[lines.index("take loan")]
    assert "must buy a train and lacks the money" in loan.note, loan.note


# -- the state and the events --------------------------------------------------------------------
def test_the_train_limit_line_leaves_out_the_ghan():
    """The state said "Train limits: ... VR 1/2 ..." when VR owned only a 2E, which does not count
    against the train limit (8.2.5)."""
    line = next(x for x in describe(game(308)).splitlines() if x.startswith("Train limits"))
    assert "VR 0/2" in line, line


def test_receivership_says_the_compensation_and_the_new_certificate_limits():
    """QR's forced purchase (OR 7.2) put QR into receivership: the events said nothing of the £200
    Bob, not its director, was paid for his two shares (5.5.2; his cash rose £640 -> £840), nor of
    the certificate limits falling (5.5.4: 14, and 14 for Cy, its director)."""
    texts = " | ".join(texts_at(game(439, events=True), 439))
    assert "Bob £200 for 2 shares" in texts and "5.5.2" in texts, texts
    assert "certificate limit" in texts and "5.5.4" in texts, texts


def test_a_forced_purchase_into_receivership_says_the_train_is_not_bought():
    """NSW's forced purchase (OR 6.2): "NSW takes 2 loans ... NSW goes into receivership" — not
    that the loans put its price into the receivership area and the 6 train stays in the Bank
    (8.4.2)."""
    texts = " | ".join(texts_at(game(302, events=True), 302))
    assert "8.4.2" in texts and "not bought" in texts, texts


def test_the_6_phase_names_the_commonwealth_railways():
    """The 6 train's event said "now: the joint home companies operate" (9.6: "COM can operate
    without the necessity of a link from Adelaide to Sydney")."""
    texts = " | ".join(texts_at(game(283, events=True), 283))
    assert "joint home companies" not in texts and "COM" in texts, texts


def test_an_8_train_takes_an():
    """"COM buys a 8 train from the Bank for £800", "A 8 train leaves the game"."""
    texts = " | ".join(texts_at(game(409, events=True), 409) + texts_at(game(439, events=True), 439))
    assert "a 8 train" not in texts.replace("A 8", "a 8") and "an 8 train" in texts, texts


# -- fixed centrally (h-words): listed for the record ---------------------------------------------
def test_buy_one_share_with_a_count():
    """SR2, Cy: 'sell 1 BOE / buy 1 VR' was refused "say 'ipo' or 'market'" ('sell 1 VR' is listed)."""
    made, _ = mail(game(40), "sell 1 BOE\nbuy 1 VR")
    assert made[-1].startswith("buy VR")


def test_buy_private_for_a_price():
    """OR 3.1, NSW: 'buy private P3 for 140' was refused "need the private and a price"."""
    made, _ = mail(game(73), "buy private P3 for 140\nlay 235 F15 4\nlay 9 D19 0\nrun 2 F17 E18\n"
                             "run 2+ F17 F15\npay\nbuy 3 train\ndone")
    assert "buy private P3 140" in made


def test_take_a_loan_in_the_rulebooks_words():
    """OR 3.1, VR: 'take a loan' was refused "say 'take loan'" (5.6.1: "take out a loan")."""
    made, _ = mail(game(82), "take a loan\nbuy private P4 220\nlay 57 H9 1\nrun 2 H11 G10\npay\n"
                             "buy 3 train\nbuy 3+ train\ndone")
    assert made[0] == "take loan"


def test_route_stops_joined_by_dashes():
    """OR 4.1, CAR: 'run 3 D1-E2-E4' (the mails print routes as 'E4 Port Augusta - E2 Whyalla').
    Fixed with the s13 18AL finding F5 ('run the 4D train F1-L1-K2-Q2')."""
    made, _ = mail(game(108), "take loan\nbuy private P2 80\nlay 15 E2 2\nrun 3 D1-E2-E4\n"
                              "run 2+ E4-F5\npay\ndone")
    assert any(m.startswith("run 3 D1 E2 E4") for m in made), made


# -- by mail: the refusal of a run in the player's words -----------------------------------------
@pytest.fixture
def aus_by_mail(cli, tmp_path, tmp_path_factory, monkeypatch, request):
    """The s12 game by mail (Dovecot, aiosmtpd): 1848, seed 103, Ann, Bob and Cy, its first 115
    actions (or the indirect parameter's number) stored as the players' mails would store them."""
    import json

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game as GameRow
    from tests.mail.dovecot import available

    from .helpers import PLAYTHROUGH
    from .test_mail_round2 import _world

    if available() is not None:
        pytest.skip(available())
    for w in _world(cli, tmp_path, tmp_path_factory, monkeypatch, "1848", "aus-1", seed=103):
        g = game(0)
        seat_of = {n: i for i, n in enumerate(["Ann", "Bob", "Cy"], 1)}
        upto = getattr(request, "param", 115)
        lines = (PLAYTHROUGH / "aus-s12.jsonl").read_text(encoding="utf-8").splitlines()[:upto]
        batches: list[tuple[int, list]] = []
        for line in lines:
            act = A.action_from_dict(json.loads(line))
            seat = seat_of[g.controller(act.entity)]
            if batches and batches[-1][0] == seat:
                batches[-1][1].append(act)
            else:
                batches.append((seat, [act]))
            g.process(act)
        with session_scope(cli.url) as s:
            row = s.scalar(select(GameRow).where(GameRow.name == "aus-1"))
            for seat, acts in batches:
                out = apply(s, row, seat, acts)
                assert not getattr(out, "error", None), out
        yield w


def test_a_refused_run_by_mail_names_trains_and_stops_as_written(aus_by_mail):
    """NSW's turn (OR 4.1, Bob), by mail: the refusal said "move 4 (run 3 F15 F17 E18; 2 E18 C20):
    train 2-2 cannot run E18-0 C20-0 (not connected, too long, ...)": the mail path left the
    internal train and stop ids in (the library's did not) and named no cause."""
    w = aus_by_mail
    out = w.deliver(2, "lay 6 C20 0\nlay 241 I10 1 with P3\nplace station token in E18\nrun 3 F15 F17 E18\n"
                       "run 2 E18 C20\npay\nbuy 3 train\ndone")
    assert "rejected" in out, out
    _, text = w.last("bob@example.org")
    assert "(run 3 F15 F17 E18; 2 E18 C20): train 2 cannot run E18 C20: 10.1.2: too long" in text, text
    assert "2-2" not in text and "E18-0" not in text


def test_weaker_routes_by_mail_run_the_best_in_the_same_mail(aus_by_mail):
    """NSW's turn (OR 4.1, Bob), by mail: 'run 3 F15 F17 E18 / run 2+ E18 C20' (£110) was refused
    "the routes must earn the most possible (130); ... the best is 'run 3-1 F17-0 F15-0; 2-2 ...'",
    and so were ten more company turns of the game: each took a second mail to copy the best.
    Under the ruling (rulings-1848.md, 10: the company earns the most it can) the best routes run
    instead and the receipt says so; the '+' of '2+' is kept in the echo."""
    w = aus_by_mail
    out = w.deliver(2, "lay 6 C20 0\nlay 241 I10 1 with P3\nplace station token in E18\nrun 3 F15 F17 E18\n"
                       "run 2+ E18 C20\npay\nbuy 3 train\ndone")
    assert "accepted" in out, out
    _, text = w.last("bob@example.org")
    assert "'run 3 F15 F17 E18; 2+ E18 C20' earns £110" in text, text
    assert "its best routes ran instead: 'run 3 F17 F15-0; 2 F17 E18; 2+ E18 C20' for £130" in text, text
    assert "NSW earns £130 in all" in text


def test_weaker_routes_run_the_best_instead():
    """The same in the library (play_text): CAR's turn (OR 5.1, Ann), 'run 4 D1 E2 E4 F5 / run 3 D1
    D3 E4' (£200; the best £290 ran Adelaide-Perth for the K-K bonus) was refused."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import format_action, parse_moves

    g = game(181)
    made, _ = play_intent(g, "Ann", parse_moves("lay 9 E6 1 with P2\nlay 1 D3 1\nrun 4 D1 E2 E4 F5\n"
                                                "run 3 D1 D3 E4\npay\ndone", "Ann"))
    run = next(m for m in made if format_action(m.action).startswith("run"))
    assert format_action(run.action) == "run auto" and "for £290" in run.note and "earns £200" in run.note, run.note
    assert g.state.corporations["CAR"].price is not None


def test_a_run_line_names_the_plus_train_as_bought():
    """CAR's turn (OR 3.1, Ann): 'run 2 E4 E2 F3 / run 2+ E4 F5' was told back as "#69 Ann: run 2
    E4 E2 F3; 2 E4 F5": the + of the 2+ (8.2.1) lost in the mails' list of moves."""
    import json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import move_text

    from .helpers import PLAYTHROUGH

    act = A.action_from_dict(json.loads((PLAYTHROUGH / "aus-s12.jsonl").read_text().splitlines()[68]))
    assert move_text(game(73), act) == "run 2 E4 E2 F3; 2+ E4 F5"


def test_a_hex_of_two_cities_named_twice_in_a_route_is_settled_by_the_track():
    """FT's turn (OR 6.2, Bob): 'run 5 F15 F17 G16 G14 F15' (Orange & Bathurst's two cities, each
    on its own track: 10.1.2 "A route may contain 2 large stations on the same hex") was refused
    "F15 has 2 stops; name one (F15-0 a city, F15-1 a city)", though the track leaves no doubt."""
    g = game(314)
    made, _ = mail(g, "run 5 F15 F17 G16 G14 F15\npay\ndone")
    assert "payout" in made, made
    assert any(line.startswith("FT runs for 190") for line in g.state.log[-12:]), g.state.log[-12:]


def test_a_blocked_route_through_a_hex_of_two_cities_says_what_blocks_it():
    """COM's turn (OR 7.2, Bob): 'run 8 A18 B19 C20 E18 F17 F15' was refused "F15 has 2 stops; name
    one (F15-0 a city, F15-1 a city)": only F15-0 has track to F17, and what failed was Brisbane,
    full with the Bank of England's station (QR's, 5.5.5)."""
    why = refusal(game(439), "run 8 A18 B19 C20 E18 F17 F15\npay\ndone")
    assert "blocked at B19 by BOE's station" in why and "name one" not in why, why


def test_a_hex_of_two_cities_left_open_says_where_each_leads():
    """The list of a hex's stops said "F15-0 a city, F15-1 a city", not which is which."""
    from pbm.e18xx.routes import _stops_of

    assert _stops_of(game(439).state.map, "F15") == \
        "F15-0 a city with track to F17; F15-1 a city with track to G14"


def test_the_next_companys_home_station_comes_after_what_the_action_did():
    """WA's 5 train (OR 5.1): "FT's station goes down in G14 Canberra" came before "WA buys a 5
    train from the Bank" and the phase change, though FT's turn began after them."""
    texts = texts_at(game(207, events=True), 207)
    first = next(i for i, t in enumerate(texts) if t.startswith("WA buys a 5 train"))
    station = next(i for i, t in enumerate(texts) if t.startswith("FT's station goes down"))
    assert first < station, texts


def test_the_bank_of_england_line_says_its_charter_and_its_loans():
    """The state said "BOE price £70 par £70 cash £2000 not floated president - Bank 0% Bank Pool
    90%": the Bank of England has no director and never floats, its shares go back to its own
    charter (12.4.2, the receipt said so), and the loans it lent (5.4.1) were not on its line."""
    line = next(x for x in describe(game(302)).splitlines() if x.startswith("  BOE"))
    assert line.split() == ["BOE", "Bank", "of", "England:", "share", "price", "£150", "cash", "£1200", "on", "its",
                            "charter", "70%", "loans", "lent", "8", "of", "20"], line


def test_the_state_says_how_the_rulebooks_hexes_map_to_the_maps():
    """The rulebook's table of companies (5.1) puts QR's home in Brisbane B10, NSW's in Sydney F9,
    CAR's in Port Augusta E2; every mail said B19, F17, E4 (and E2 is Whyalla): a player writing
    from the book could not tell why."""
    text = describe(game(0))
    line = next(x for x in text.splitlines() if x.startswith("Hexes: "))
    assert "Brisbane B10 is B19 here" in line and "Port Augusta E2 is E4" in line, line


@pytest.mark.parametrize("aus_by_mail", [297], indirect=True)
def test_a_forced_purchase_by_mail_takes_the_loans_itself(aus_by_mail):
    """NSW's turn (OR 6.2, Bob), by mail: 'lay 6 G16 1 / buy 6 train / done' was refused "NSW may
    still take its ordinary loan this round: take it first (take loan)"; now the mail takes it."""
    w = aus_by_mail
    out = w.deliver(2, "lay 6 G16 1\nbuy 6 train\ndone")
    assert "accepted" in out, out
    _, text = w.last("bob@example.org")
    assert "take loan - NSW must buy a train and lacks the money" in text, text
    assert "NSW goes into receivership" in text and "the train is not bought (rule 8.4.2)" in text


@pytest.mark.parametrize("aus_by_mail", [308], indirect=True)
def test_a_lone_2e_needs_no_run_line_by_mail(aus_by_mail):
    """VR's turn (OR 6.2, Cy), by mail: 'buy 4 train from SAR for £1 / done' was refused "VR must
    first 'Run trains' ..." though its only train, a 2E, had no track to Alice Springs."""
    w = aus_by_mail
    out = w.deliver(3, "buy 4 train from SAR for £1\ndone")
    assert "accepted" in out, out
    _, text = w.last("cy@example.org")
    assert "VR's trains have no route, so they earn nothing" in text, text
    assert "VR buys a 4 train from SAR for £1" in text
    # the passes the turn made for the steps the mail left out are marked so in the log's lines, for the
    # writer and the others alike (s16b-s17c: "#54 Di for ACL: pass" read as a pass Di had written)
    _, other = w.last("ann@example.org")
    for said in (text, other):
        assert "Cy for VR: pass (not written: a step the mail left out)" in said, said


def test_the_turn_mail_says_a_company_without_a_train_must_buy_one():
    """NSW's turn (OR 6.2, Bob): its 3s had rusted; the mail listed its lays and 'take loan' and
    said nothing of the train it had to buy (8.1) — the mail for it was refused for want of loans."""
    from types import SimpleNamespace

    from pbm.e18xx.pbem.mailplay import summary_lines

    lines = summary_lines(game(297), [], SimpleNamespace(name="Bob", number=2), turn=True)
    assert "  NSW owns no train: it must buy one this turn (rule 8.1-8.4); it has £385; the bank's cheapest " \
           "train costs £600" in lines, lines
    assert not any("must buy one" in x for x in summary_lines(game(303), [], SimpleNamespace(name="Ann", number=1),
                                                               turn=True))

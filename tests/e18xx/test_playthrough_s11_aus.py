"""Play-through by mail s11, 1848 (issue 29 acceptance): the findings, each with the mail text seen.

The game: tests/e18xx/playthrough/aus-s11.jsonl (seed 73; Ann, Bob, Cy, Di), written from the
rulebook alone, one mail per company turn."""

from pbm.e18xx.pbem.moves import parse_line

from .helpers import PLAYTHROUGH, intent_mail, intent_refusal, playthrough_game, texts_at

mail, refusal = intent_mail, intent_refusal


def game(upto: int, *, events: bool = False):
    """The s11 game after ``upto`` actions (with ``events``, replayed with the recorder on)."""
    return playthrough_game("aus", upto, seed=73, suffix="-s11", players=4, events=events)


# -- the rulebook's own words (class b: refused though the rulebook says them) --------------------

def test_reduce_is_the_rulebooks_word_for_lowering_a_private():
    """Cy's first mail 'reduce P5' (3.1.1: "reduce the cost of a Private Company by 5 pounds") was
    answered "no moves found": the line was taken for prose after the moves."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.mailplay import read_text

    assert parse_line("reduce P5", "Cy") == A.Assign("Cy", "P5")
    assert read_text("GAME: pt\nPLAYER: 3\nSECRET: x\nreduce P5\n").moves.strip() == "reduce P5"
    made, _ = mail(game(2), "reduce P5")
    assert made == ["lower P5"]


def test_pay_is_payout():
    """QR's turn (OR 2.1, Di): 'pay' was refused "unknown move 'pay'" (7.3: "Either pay out
    Dividends or withhold"; 10.3.3 "Pay Dividends or Retain")."""
    g = game(64)
    made, _ = mail(g, "buy private P2 80\nlay 5 C20 2\nrun auto\npay\nbuy train 3\ndone")
    assert "payout" in made and "buy train 3" in made
    for words in ("pay out", "pay dividends", "pay dividend", "Pay Out"):
        assert format_of(words) == "payout"


def test_retain_is_withhold():
    """SAR's turn (OR 2.1, Ann): 'retain' was refused "unknown move 'retain'" (10.3.3: "retained
    in its entirety in the company's treasury"; 11.2 "Retaining Income")."""
    g = game(73)
    made, _ = mail(g, "take loan\nbuy private P4 220\nlay 6 H7 2\nlay 5 F5 4\nrun auto\nretain\nbuy train 3\ndone")
    assert "withhold" in made and "buy train 3" in made
    assert format_of("retain income") == "withhold"


def test_station_is_token():
    """CAR's turn (OR 3.1, Bob): 'station F5' was refused "unknown move 'station'" (7.3 step 2:
    "Purchase and place Station Tokens"; 7.7 "Station Tokens")."""
    g = game(95)
    made, _ = mail(g, "lay 15 F5 2\nstation F5\nrun auto\npayout\ndone")
    assert "token F5" in made
    assert format_of("place station F5") == "token F5"
    assert format_of("station token F5") == "token F5"


def test_paying_a_loan_back_is_still_refused_with_its_rule():
    """'pay' now means pay out; 'pay back loan' / 'pay loan' still get 1848's 5.6.1 answer."""
    from pbm.e18xx.pbem.moves import RepayLoan

    assert isinstance(parse_line("pay loan", "SAR"), RepayLoan)
    assert isinstance(parse_line("pay back loan", "SAR"), RepayLoan)


def format_of(words: str) -> str:
    from pbm.e18xx.pbem.moves import format_action
    return format_action(parse_line(words, "X"))


# -- the Bank of England's shares ------------------------------------------------------------------

def test_buy_boe_takes_the_share_where_it_is():
    """Di, stock round 2: 'buy BOE' was refused "no BOE certificate in the IPO" while his list offered
    only 'buy BOE market' (12.3.3: the Bank of England's shares "are available at the current
    indicated price"; 'buy CAR' had bought from the IPO). The Bank of England has no IPO: its shares
    are bought where they are (5.4.2 "always bought and sold at the indicated price")."""
    g = game(43)
    made, _ = mail(g, "buy BOE")
    assert made == ["buy BOE market"]
    assert g.state.share_owner.held("P:Di", "BOE")


def test_buy_without_source_still_prefers_the_ipo():
    """Bob, stock round 1: 'buy CAR' bought from the IPO (5.1.3: new shares at par)."""
    g = game(13)
    assert g.current_entity() == "Bob"
    made, _ = mail(g, "buy CAR")
    assert made == ["buy CAR ipo"]


def test_a_company_with_an_ipo_keeps_the_source_written():
    """'buy BOE ipo' is the Bank of England's one share too; 'buy CAR market' with CAR's market empty is
    refused as before, with the reason."""
    assert mail(game(43), "buy BOE ipo")[0] == ["buy BOE market"]
    assert "no CAR certificate in the Bank Pool" in refusal(game(43), "buy CAR market")


# -- the Commonwealth Railways waiting for its link (5.3.2) ----------------------------------------

WAITS = "COM does not operate yet: it waits for track joining F17 Sydney to G6 Adelaide (rule 5.3.2, 5.3.3)"


def test_com_waiting_for_its_link_is_said_when_the_round_starts():
    """SR4 ended with "operating order: CAR, QR, COM, VR, SAR, NSW" (#177), then COM was skipped with
    no word, in OR 4.1, 4.2 and 5.1: Cy, its director, was never told why (5.3.2: COM "is launched
    and begins to operate once 60% of its shares have been bought and a notional train of infinite
    range could travel from Sydney to Adelaide")."""
    g = game(177, events=True)
    assert texts_at(g, 177)[0] == ("Stock round 4 ends; next: operating round 4.1 (operating order: "
                                   f"CAR, QR, VR, SAR, NSW; {WAITS})")
    g = game(205, events=True)
    assert texts_at(g, 205)[0].endswith(f"(operating order: CAR, QR, VR, SAR, NSW; {WAITS})")


def test_com_waiting_is_in_the_state_mail():
    """The state's corporation line said only "COM ... floated"."""
    from pbm.e18xx.render.view import describe

    com = next(ln for ln in describe(game(177)).splitlines() if ln.startswith("  COM "))
    assert com.endswith("  waits for track joining F17 Sydney to G6 Adelaide (rule 5.3.2, 5.3.3)")


def test_com_linked_operates_with_no_note():
    """Once the homes are linked COM operates, and the note goes."""
    g = game(177, events=True)
    g.state.events.add("linked:COM")
    from pbm.e18xx.events import joint_home_waits
    assert joint_home_waits(g, "COM") == ""
    assert joint_home_waits(g, "CAR") == ""


# -- the privates closing with the first 5 train (4.1) ---------------------------------------------

def test_privates_whose_discount_survives_are_said_to_close_too():
    """VR's 'buy train 5' (#193): the events named P1, P3 and P5 closing, and said nothing of P2 (QR's)
    and P4 (SAR's), though their income stopped (the state then read 'P2 ... pays £0; QR'). 4.1:
    "Private Companies are closed with the sale of the first 5/5+ train. The discounts of P2 and P4
    continue to be awarded after the companies are closed" (4.3, 4.5)."""
    got = texts_at(game(193, events=True), 193)
    assert "Private P1 closes (phase 5); NSW owned it" in got
    assert ("Private P2 closes (phase 5); QR owned it; QR keeps its ability: lays tile 7/8/9 in B3, B7, B9, "
            "C2, C4, C8, E6, E8 £40 off the terrain cost (a company owning it, or its director)") in got
    assert ("Private P4 closes (phase 5); SAR owned it; SAR keeps its ability: £100 off a 2E train "
            "(a company owning it, or its director)") in got


# -- the PDF's map page -------------------------------------------------------------------------------

def test_the_routes_legend_does_not_cover_the_rotation_key(monkeypatch):
    """Di's PDF after #141: the "Routes run last (dashed)" lines were drawn from the page's bottom margin
    up, over the rotation key drawn in the same strip: both unreadable where they met. The legend now
    stands above the key, and the map is drawn above the legend."""
    import json as _json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.events import attach
    from pbm.e18xx.pbem.games import Replayed, step
    from pbm.e18xx.render import pdf

    g = Game("1848", ["Ann", "Bob", "Cy", "Di"], 73, (), ["1", "2", "3", "4"])
    attach(g)
    rep = Replayed(g, g.total_cash())
    for line in (PLAYTHROUGH / "aus-s11.jsonl").read_text(encoding="utf-8").splitlines()[:141]:
        step(rep, A.action_from_dict(_json.loads(line)), rollback=False)
    drawn: list[tuple[float, str]] = []  # the map page's strings
    real, page_done = pdf._NamedCanvas.drawString, pdf._NamedCanvas.showPage

    def record(self, x, y, text, *args, **kw):
        if not getattr(self, "_s11_pages", 0):
            drawn.append((y, text))
        return real(self, x, y, text, *args, **kw)

    def next_page(self, *args, **kw):
        self._s11_pages = getattr(self, "_s11_pages", 0) + 1
        return page_done(self, *args, **kw)

    monkeypatch.setattr(pdf._NamedCanvas, "drawString", record)
    monkeypatch.setattr(pdf._NamedCanvas, "showPage", next_page)
    pdf.render_pdf(rep, "s11", names=lambda t: t)
    key = [y for y, t in drawn if t == "Rotation key" or t.startswith(("Sides of a hex", "Write lay"))]
    legend = [y for y, t in drawn if " last ran " in t or t.startswith("Routes run last")]
    assert len(key) == 3 and len(legend) == 5  # the heading and CAR, NSW, QR, SAR
    assert min(legend) > max(key) + 8


# -- routes as players write them ---------------------------------------------------------------------

def test_a_route_into_a_hex_with_no_track_says_so():
    """SAR (OR 4.2, Ann): 'run 4 G6 F5 E4 D3' went into D3, two towns with no tile yet; the refusal asked
    to pick a town by its internal name: "D3: D3 has 2 stops; name one (D3-0 a town, D3-1 a town)",
    which no choice could satisfy. It now says the hex has no track."""
    g = game(220)
    assert g.current_entity() == "SAR"
    why = refusal(g, "run 4 G6 F5 E4 D3\nrun 3 G6 H7\npayout\ndone")
    assert "D3 has no track yet (no tile is laid there), so no route stops in it" in why
    assert "name one" not in why
    # a laid hex of two stops still asks which one
    g = game(153)
    assert g.current_entity() == "SAR"
    why = refusal(g, "run 3 G6 B17\npayout\ndone")
    assert "B17 has 2 stops; name one" in why


def test_a_route_says_its_changes_of_gauge_and_its_k_bonus():
    """The word 'gauge' stood in no mail of the play-through, nor did the K bonus: VR's 5 train earned
    £140 on Melbourne - Geelong - Mount Gambier - Adelaide (#218), £50 of it the bonus for two K cities
    (10.4), and crossed a change of gauge that counted as a stop (7.6); NSW's 4 train (#229) did too.
    Neither could be checked from the mail."""
    g = game(229, events=True)
    assert texts_at(g, 218)[0] == (
        "VR's 5 train runs H11 Melbourne - H9 Geelong - H7 Mount Gambier - G6 Adelaide for £140; "
        "1 change of gauge on the way, counted against its range (rule 7.6, 8.2.3); "
        "£50 of it the bonus for its K cities (rule 10.4)")
    assert texts_at(g, 229)[0] == (
        "NSW's 4 train runs F17 Sydney - E18 Newcastle - C20 Southport - B21 for £120; "
        "1 change of gauge on the way, counted against its range (rule 7.6, 8.2.3)")
    assert texts_at(g, 223)[0] == (  # no change of gauge, no K bonus: no note
        "SAR's 4 train runs G6 Adelaide - F5 Port Pirie - E4 Port Augusta - E2 Whyalla - F3 Port Lincoln for £130")


def test_a_plus_train_runs_one_change_of_gauge_free():
    from pbm.e18xx.events import RouteRun

    e = RouteRun(1, "FT", "3+", "3-1", ("G14 Canberra", "G16 Wollongong"), 50, gauge=1, gauge_rule="7.6, 8.2.3",
                 free_gauge=1)
    assert e.text(lambda v: f"£{v}").endswith("; 1 change of gauge on the way, free for a + train (rule 7.6, 8.2.3)")


def test_a_train_that_runs_no_route_is_said():
    """VR owned a 4 and a 5; 'run 5 H11 H9 H7 G6' (#218) and later 'run auto' (#252) ran the 5 alone, and
    nothing said the 4 ran no route (7.3: the trains' run is compulsory; the 4 had none left: VR's only
    station is Melbourne, whose track the 5 used)."""
    g = game(252, events=True)
    left = ("VR's 4 train runs no route: no route was left for it: each route it could run needs track the "
            "company's other trains use, or reaches no second stop from the company's stations")
    assert left in texts_at(g, 218)  # written, but no second route existed (s17: not "the run named none")
    assert ("VR's 4 train runs no route: no route was left for it: each route it could run needs track the "
            "company's other trains use, or reaches no second stop from the company's stations") in texts_at(g, 252)
    assert not [t for t in texts_at(g, 229) if "runs no route" in t]  # NSW ran both its trains


def test_the_k_cities_and_the_changes_of_gauge_are_in_the_state():
    """The K-K bonus (10.4) needs to know which cities are K cities and the range needs the changes of gauge
    (7.6): the map marked neither as such and no mail named them."""
    from pbm.e18xx.render.public import public_lines

    lines = public_lines(game(30), compact=True)
    assert ("K cities: D1 Perth, B19 Brisbane, F17 Sydney, H11 Melbourne, G6 Adelaide; a train's route joining "
            "several earns more (2 £50, 3 £100, 4 £150, 5 £200; not the 2E) (rule 10.4)") in lines
    assert ("Changes of gauge: track crossing the thick line between the gauges on the map changes gauge; each "
            "change counts as a stop against a train's range, a + train runs one free (rule 7.6, 8.2.3)") in lines
    from pbm.e18xx.core.game import Game
    assert not [ln for ln in public_lines(Game("18GA", ["A", "B", "C"]), compact=True) if "gauge" in ln or "K cities" in ln]


def test_lowering_a_private_says_its_price_now():
    """Cy's 'lower P5' (#3): the mail's "What happened" said only "#3 Cy: lower P5"; the new price
    stood in the price list alone (3.1.1: "reduce the cost of a Private Company by 5 pounds")."""
    g = game(10, events=True)
    assert texts_at(g, 3) == ["Cy lowers P5's price to £165 (lowest £140) (rule 3.1.1)"]
    assert texts_at(g, 10) == ["Bob lowers P1's price to £20 (lowest £0) (rule 3.1.1)"]


def test_earning_nothing_says_why_the_price_falls():
    """CAR's first turn (#30, no train yet): "CAR earns nothing: no dividend" and then its price fell
    £100 -> £90 with no word why (11.2: a company that retains moves left; earning nothing is retaining)."""
    g = game(31, events=True)
    assert texts_at(g, 30)[:3] == [
        "CAR lays 6 on E4 Port Augusta",  # a free lay is said too (s14b)
        "CAR earns nothing: no dividend; earning nothing counts as withholding (rule 11.2)",
        "CAR's share price goes down from £100 to £90 (market row 2 column 6 -> row 2 column 5)"]
    assert g.recorder.failures == 0


def test_a_phase_change_says_the_bank_of_englands_dividend():
    """Phase 3 (#53) and phase 5 (#193) raise the Bank of England's minimum dividend (5.4.3; 9.3 "pays a
    minimum dividend of £10 per share", 9.5 "£20 per share"); the phase events said everything else."""
    g = game(193, events=True)

    def phase(seq: int) -> str:
        return next(t for t in texts_at(g, seq) if " Phase begins (was " in t)  # 1848 9.3: "3/3+ Phase"
    assert phase(53).endswith("; BOE pays its shareholders at least £100 (£10 a share)")
    assert "BOE pays its shareholders at least £200 (£20 a share); no longer:" in phase(193)
    assert "BOE" not in phase(118)  # phase 4 leaves it as it was


def test_out_of_turn_names_who_acts_once():
    """Ann's 'pass' while Di was to act (stock round 2): "it is not Ann's turn: Di (Di) must act"."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = game(43)
    try:
        g.process(A.Pass("Ann"))
    except GameError as exc:
        assert str(exc) == "it is not Ann's turn: Di must act in the stock round"
    else:
        raise AssertionError("Ann's pass was taken out of turn")
    g = game(64)  # QR's turn, its president Di
    try:
        g.process(A.Pass("CAR"))
    except GameError as exc:
        assert str(exc).startswith("it is not CAR's turn: QR (Di) must act")
    else:
        raise AssertionError("CAR's pass was taken out of turn")


def test_a_written_run_that_leaves_out_a_train_with_a_route_says_so():
    """The other side of s17's idle-train reason: NSW (#229) could run both its trains (its best run:
    the 4 to Newcastle and Southport, the 3 to Wollongong). 1848 runs the best routes instead of a
    lesser written run (10.3), but where a title takes the run as written, a train it leaves out while a
    route was there is said as left out; with no second route, that there was none."""
    from pbm.e18xx.events import _idle_why

    g = game(228)
    assert _idle_why(g, "NSW", {"4-2"}, True) == "the run named no route for it"
    assert _idle_why(g, "NSW", {"4-2", "3-1"}, True).startswith("no route was left for it")
    assert _idle_why(g, "NSW", {"4-2"}, False).startswith("no route was left for it")

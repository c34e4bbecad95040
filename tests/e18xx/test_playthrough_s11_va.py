"""Play-through by mail s11 of 18VA (issue 29 acceptance): the findings, each with the mail text met.

The game: tests/e18xx/playthrough/va-s11.jsonl (seed 74; players Ann, Bob, Cy and Di)."""
import json

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.events import attach, money_of, recorded

from .helpers import PLAYTHROUGH, intent_mail, intent_refusal, playthrough_game

mail, refusal = intent_mail, intent_refusal


def game(upto: int, *, events: bool = False) -> Game:
    """The s11 game after ``upto`` actions (with ``events``, replayed with the recorder on)."""
    if not events:
        return playthrough_game("va", upto, seed=74, suffix="-s11", players=4)
    g = Game("18VA", ["Ann", "Bob", "Cy", "Di"], 74, (), ["1", "2", "3", "4"])
    attach(g)
    for line in (PLAYTHROUGH / "va-s11.jsonl").read_text(encoding="utf-8").splitlines()[:upto]:
        g.process(A.action_from_dict(json.loads(line)))
    return g


def texts_at(g: Game, seq: int) -> list[str]:
    money = money_of(g.title)
    return [e.text(money) for e in recorded(g) if e.seq == seq]


def test_a_train_bought_by_its_freight_name_or_as_freight():
    """VR's first train (mails #69, #70): 'buy train 2G' was refused "no 2G train is for sale; the
    depot offers 3", and 'buy train 3 as freight' "runs as 3 or 2G, not FREIGHT". 18VA 4.5.8: a
    3/2G is one train, declared Passenger or Freight when bought; the roster says "3 ... (or 2G)"."""
    g = game(166)
    assert g.current_entity() == "VR"
    made, _ = mail(g, "lay 57 C12 1\nbuy train 2G\ndone")
    assert made == ["lay 57 C12 1", "buy train 3 as 2G"]
    assert [g.state.trains[t].variant for t in g.corp_trains("VR")] == ["2G"]
    g = game(166)
    made, _ = mail(g, "lay 57 C12 1\nbuy train 3 as freight\ndone")
    assert made[-1] == "buy train 3 as 2G"
    g = game(159)  # SR, after its withhold: a passenger 3 said in the rulebook's word
    made, _ = mail(g, "buy train 3 as passenger\ndone")
    assert made[0] == "buy train 3 as 3"


def test_an_emergency_sale_written_first_goes_to_the_train_step():
    """N&W, trainless with $20 (mails #99-#101): 'sell 1 WMR / sell 1 N&W / buy train 4' was refused
    "Cy may not sell shares now; allowed: nothing"; only 'pass / pass / sell ...' went through. The
    sale belongs to the train step (4.6.2): the steps before it are skipped as for any later move."""
    g = game(260)
    assert g.current_entity() == "N&W" and not g.corp_trains("N&W")
    made, _ = mail(g, "sell 1 WMR\nsell 1 N&W\nbuy train 4\ndone")
    assert made[-3:] == ["sell 1 WMR", "sell 1 N&W", "buy train 4"]
    assert [g.state.trains[t].name for t in g.corp_trains("N&W")] == ["4"]


def test_the_shortfall_refusal_says_what_the_president_must_raise():
    """Mail #99: "Cy must raise 280 (sell shares) or go bankrupt" when Cy had $124: he had to raise
    $156 more. The refusal says the train's price, what the company and the president have, and the
    rest to raise by selling shares (4.6.2)."""
    why = refusal(game(260), "buy train 4\ndone")
    assert "$280" in why and "$124" in why and "$156" in why, why


def test_the_rulebook_abbreviations_name_the_companies():
    """Mail #15: 'par RF&P 90' was refused "unknown corporation 'RF&P'"; the rulebook's table (4.4)
    names RF&P, VGN and WM (pbm shows RFPR, VR and WMR). Both are read."""
    g = game(14)
    assert g.current_entity() == "Bob"
    made, _ = mail(g, "par RF&P 90")
    assert made == ["par RFPR 90"]
    for alias, sym in (("VGN", "VR"), ("WM", "WMR"), ("rf&p", "RFPR")):
        g = game(14)
        made, _ = mail(g, f"par {alias} 90")
        assert made == [f"par {sym} 90"]


def test_moves_after_run_auto_separated_by_commas():
    """Mail #26: 'lay 9 F15 0, run auto, payout, done' was refused "'PAYOUT' is not a stop": the
    run swallowed the rest of the line. A part starting with a move word that is no route ends it."""
    g = game(39)
    assert g.current_entity() == "N&W"
    made, _ = mail(g, "lay 9 F15 0, run auto, payout, done")
    assert made[:1] == ["lay 9 F15 0"] and "run auto" in made and "payout" in made
    g = game(39)
    made, _ = mail(g, "lay 9 F15 0, run 2 F13 F17, payout")
    assert "payout" in made and any(m.startswith("run ") and "F17" in m for m in made)


def test_station_and_treasury_in_the_rulebook_words():
    """Mail #57: 'station G4' was refused "unknown move 'station'" (the rulebook's "station token",
    pbm's own step "Place a station"); mail #44: 'buy N&W treasury' "say 'ipo' or 'market'" (4.3.2:
    "any certificate available in a Corporation's Treasury, or in the Pool")."""
    g = game(139)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "lay 8 G2 5\nstation G4\nrun auto\npayout\ndone")
    assert "token G4" in made
    g = game(82)
    assert g.current_entity() == "Cy"
    made, _ = mail(g, "buy N&W treasury")
    assert made == ["buy N&W ipo"]


def test_the_potomac_yards_station_is_in_the_state_and_its_event():
    """N&W's 'token H15 with P3' (#163): the event said only "Private P3 closes (its ability was
    used)", and N&W's stations in every later mail lacked H15 Norfolk (public state, issue 29
    problem 3). The extra station is listed with the company's stations and said by the event."""
    from pbm.e18xx.render.view import describe

    g = game(163, events=True)
    said = " | ".join(texts_at(g, 163))
    assert "H15 Norfolk" in said, said
    line = next(x for x in describe(g).splitlines() if x.startswith("  N&W "))
    assert "H15 Norfolk" in line.split("stations", 1)[1], line


def test_the_railway_express_event_says_where_and_for_whom():
    """SR's 'assign P1 F11' (#124): the event said only "Private P1 closes (its ability was used)"."""
    g = game(124, events=True)
    said = " | ".join(texts_at(g, 124))
    assert "F11 Richmond" in said and "SR" in said, said


def test_the_pdf_routes_legend_keeps_off_the_rotation_key_and_the_map():
    """Page 1 of every PDF from OR 2.1 on: the "Routes run last (dashed)" legend was drawn from the
    page's foot up, over the rotation key (x .. x + 64) under the map. It now stands in the map's
    box, which keeps the hexes above it."""
    from reportlab.pdfgen.canvas import Canvas

    from pbm.e18xx.pbem.games import Replayed
    from pbm.e18xx.render import pdf

    g = Game("18VA", ["Ann", "Bob", "Cy", "Di"], 74, (), ["1", "2", "3", "4"])
    rep = Replayed(g, g.total_cash())
    for line in (PLAYTHROUGH / "va-s11.jsonl").read_text(encoding="utf-8").splitlines()[:300]:
        act = A.action_from_dict(json.loads(line))
        g.process(act)
        if isinstance(act, A.RunRoutes):
            rep.last_routes[act.entity] = list(g.state.round.routes)
    c = Canvas("/dev/null", pagesize=pdf.PAGE)
    said: list[tuple[str, float]] = []
    for meth in ("drawString", "drawCentredString"):
        orig = getattr(c, meth)
        setattr(c, meth, lambda x, y, text, *a, _o=orig, **k: (said.append((text, y)), _o(x, y, text, *a, **k)))
    w, h = pdf.PAGE
    box = (pdf.MARGIN, pdf.MARGIN + 70, w - pdf.MARGIN, h - pdf.MARGIN - 14)
    pdf.draw_map(c, rep, box)
    legend = [y for text, y in said if " last ran " in text or text.startswith("Routes run last")]
    assert len(legend) == len(rep.last_routes) + 1
    assert min(legend) >= box[1], (min(legend), box)  # not on the rotation key, below the map's box
    coords = [y for text, y in said if text in g.title.hexes]
    assert min(coords) > max(legend), "a hex's label under the legend"


def test_a_private_used_on_a_hex_by_use():
    """Mail #67: 'use P3 H15' (Potomac Yards' station, 4.2 (3)) was refused "name the private;
    expected: use <private> e.g. use P3 (one more train allowed)": the station's form, 'token H15
    with P3', was written nowhere in the mail at the lay step. 'use <private> <hex>' places it
    (and Railway Express's marker: 'use P1 F11')."""
    g = game(161)
    assert g.current_entity() == "N&W"
    made, _ = mail(g, "lay 9 E12 1\nuse P3 H15\nrun auto\npayout\ndone")
    assert "token H15 with P3" in made
    assert any(("H15", 0) == k and "N&W" in v for k, v in g.state.map.extra_tokens.items())
    g = game(122)
    assert g.current_entity() == "SR"
    made, _ = mail(g, "lay 7 G10 0\nuse P1 F11\nrun auto\npayout\ndone")
    assert "assign P1 F11" in made


def test_a_private_purchase_line_says_the_price_range():
    """N&W's list (OR 4.2) had only 'buy private P3 40   # from Cy' (its $50 could not pay the $120
    top): the line read as the only price. 18VA 4.2: any price from 50% to 150% of face value."""
    from pbm.e18xx.pbem.movelist import say

    g = game(129)
    assert g.current_entity() == "N&W"
    lines = [say(g, a) for a in g.legal_actions() if isinstance(a, A.BuyCompany) and a.company == "P3"]
    assert lines == ["buy private P3 40   # from Cy; any price from $40 to $120"], lines
    made, _ = mail(g, "buy private P3 50")
    assert made[0] == "buy private P3 50"


def test_the_reply_offers_no_lay_when_nothing_can_be_laid():
    """Ann's reply (#23, end of stock round 2) said "B&O may lay or upgrade a tile ('lay'), pass" while
    the list under it had only 'pass' (B&O's track reached no hex a tile could go on)."""
    g = game(29)
    assert g.current_entity() == "Ann"
    _made, notes = mail(g, "pass")
    assert g.current_entity() == "B&O"
    assert not any(isinstance(a, A.LayTile) for a in g.legal_actions())
    line = next(x for x in notes.splitlines() if x.startswith("Next: "))
    assert line.endswith("B&O may pass."), line


def test_a_train_after_the_limit_is_refused_saying_the_limit_once():
    """Mail #141, SR at its limit 3 writing 'buy train 5': the refusal said the limit ("it owns 3
    (3-2), 4 (4-0), 4 (4-3); the limit is 3 ...") twice in one sentence."""
    g = game(389)
    assert g.current_entity() == "SR"
    why = refusal(g, "run auto\npayout\nbuy train 5\ndone")
    assert why.count("the limit is 3") == 1 and "SR's turn ended by itself after 'payout'" in why, why
    assert "SR's turn ended when it reached its train limit" in why


def test_a_misspelt_game_line_is_named_so_in_the_subject():
    """A mail with 'GAME: pt-18va-47' (the game is pt-18va-74): the body said "the GAME line names no
    game here" but the Subject said "(a move was refused)" - no move was read (issue 29 problem 9:
    the wording for a misspelt GAME:)."""
    from pbm.mail.answer import refusal_subject

    why = ("the GAME line names no game here. Games played by mail here that it may be meant for: "
           "pt-18va-74 (18VA)")
    assert refusal_subject(152, why, "pt-18va-74") == \
        "[pt-18va-74] Not accepted: your message #152 (unknown game name)"

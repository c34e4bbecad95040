"""Play-through by mail s11 of 18GA (issue 29 acceptance, seed 71, Ann, Bob, Cy, Di): the defects
met, each with the mail that showed it (tests/e18xx/playthrough/ga-s11.jsonl holds the game)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game
from .test_pbem_mail import ga  # noqa: F401 (fixture)


def game(upto: int):
    """The s11 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=71, suffix="-s11", players=4)


mail, refusal = intent_mail, intent_refusal


def test_moves_after_run_auto_on_one_line_are_moves():
    """GA, OR 2.1 (finding 1): 'run auto, payout, done' was refused "'PAYOUT' is not a stop":
    the commas after 'run' were read as separators of the route's stops. A comma or semicolon
    that a move word follows ends the run."""
    g = game(57)
    assert g.current_entity() == "GA"
    made, _ = mail(g, "lay 8 C9 3\nrun auto, payout, done")
    assert made[:4] == ["lay 8 C9 3", "run auto", "payout", "pass"]
    assert g.current_entity() != "GA"


def test_a_run_keeps_its_own_stops_and_routes_separated_by_commas_and_semicolons():
    """The split of finding 1 leaves a run's own separators alone: stops by commas, routes by
    semicolons (each route starts with its train, never a move word)."""
    moves = parse_moves("run 3 B10, D10, E7; 3 D10 G13, payout", "Ann")
    assert [type(m).__name__ for m in moves] == ["RunRoutes", "Dividend"]
    assert [r.nodes for r in moves[0].routes] == [("B10", "D10", "E7"), ("D10", "G13")]


def test_one_run_line_per_train_is_judged_as_the_companys_routes_together():
    """GA, OR 4.2 (finding 2): 'run 3 B10 D10 E7 F6' / 'run 3 D10 G13' (one line per train, the
    best routes: $110 + $60) was refused "the routes must earn the most possible (170); these
    earn 110": the first line was judged alone. Run lines in a row are one run step (4.2.3)."""
    g = game(135)
    assert g.current_entity() == "GA"
    made, _ = mail(g, "lay 9 E11 2\nrun 3 B10 D10 E7 F6\nrun 3 D10 G13\npayout\ndone")
    runs = [m for m in made if m.startswith("run")]
    assert len(runs) == 1 and runs[0].count(";") == 1
    assert g.current_entity() == "CoG"


def test_discard_names_the_train_by_its_type():
    """GA over its limit after ACL bought the first 5 (finding 3): 'discard 3' was refused "GA does
    not own 3; it owns 3-0, 3-1, 4-2" (18GA 4.2.5(g) speaks of the "3 Train"). A type names the
    company's first train of that type."""
    g = game(194)
    assert g.current_entity() == "GA"
    made, _ = mail(g, "discard 3")
    assert made == ["discard 3"] and g.state.trains["3-0"].owner != "C:GA"  # the lowest-numbered 3
    assert [g.state.trains[t].name for t in g.corp_trains("GA")] == ["3", "4"]


def _events(upto: int, then: int):
    """The texts of the events of actions ``upto``+1 .. ``then`` of the s11 game (recorder attached)."""
    import json

    from pbm.e18xx import actions as A
    from pbm.e18xx import events as E

    from .helpers import PLAYTHROUGH

    g = game(upto)
    E.attach(g)
    lines = (PLAYTHROUGH / "ga-s11.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines[upto:then]:
        g.process(A.action_from_dict(json.loads(line)))
    assert g.recorder.failures == 0
    money = E.money_of(g.title)
    return [e.text(money) for e in E.recorded(g)]


def test_a_train_purchase_says_what_was_bought_from_whom_and_for_how_much():
    """W&A, OR 1.1 and GA, OR 3.1 (finding 5): 'buy train 2' and 'buy train 3' came with no event
    line (only the next company's home station, or the phase change): the mails never said what
    the train cost or where it came from (4.2.5)."""
    assert "W&A buys a 2 train from the Initial Offering for $100" in _events(35, 36)
    bought = _events(85, 86)
    assert "GA buys a 3 train from the Initial Offering for $180" in bought
    assert bought.index("GA buys a 3 train from the Initial Offering for $180") < next(
        i for i, t in enumerate(bought) if t.startswith("Phase 3 begins"))


def test_the_buyer_hears_what_became_of_his_moves_written_after_an_offer(ga):
    """SAL's 'buy private MRC 60 / lay ... / done' (finding 7): when Cy accepted, the note that Ann's
    moves after the offer were NOT made (and why) went only into Cy's receipt; Ann's own mail said
    "SALE AGREED ... IT IS YOUR TURN" and nothing of her moves. Every state mail now carries it."""
    from tests.e18xx.test_pbem_mail import send, state
    from tests.e18xx.test_pbem_offer import SEAT, _outbox, _to_a_sale

    cli = ga[0]
    _game, buyer, comp, owner = _to_a_sale(ga)
    send(ga, SEAT[buyer], f"buy private {comp} 1\ndone")
    line, _ = send(ga, SEAT[owner], f"accept {comp}")
    assert "accepted" in line, line
    _, n = state(cli)
    (mine,) = _outbox(cli, f"18xx:%:{n}:{SEAT[buyer]}")
    assert "SALE AGREED" in mine
    assert f"{buyer}'s turn ended with the sale; the moves written after the offer (done) were not made" in mine


def test_phase_5_says_the_off_board_places_are_worth_their_higher_value():
    """ACL buys the first 5 (finding 6): the phase event listed brown tiles, the limit, the rounds
    and the privates closing, but not Table I's "Red off-board locations (and Montgomery and
    Tallahassee) are worth the higher of their two printed values" - W&A's next run earned $130
    where it had earned $90, unexplained."""
    (phase,) = [t for t in _events(193, 194) if t.startswith("Phase 5 begins")]
    assert ("the places with two printed values change: Chattanooga $60 (was $30), "
            "Greeneville $40 (was $30), Montgomery $40 (was $30), Jacksonville $60 (was $30) and "
            "Tallahassee $50 (was $20)") in phase
    (phase3,) = [t for t in _events(85, 86) if t.startswith("Phase 3 begins")]
    assert "printed values" not in phase3


def _pdf_page_one(upto: int) -> list[tuple[str, float]]:
    """The first page of the s11 game's PDF after ``upto`` actions: (text, y) of each line drawn."""
    import io

    from pypdf import PdfReader

    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.games import Replayed, step
    from pbm.e18xx.render.pdf import render_pdf

    g = game(upto)
    fresh = Game(g.title.name, list(g.setup.players), g.setup.seed, g.optional_rules, list(g.setup.player_ids))
    rep = Replayed(fresh, fresh.total_cash())
    for act in g.actions:
        step(rep, act, rollback=False)
    page = PdfReader(io.BytesIO(render_pdf(rep, "pt"))).pages[0]
    drawn: list[tuple[str, float]] = []
    page.extract_text(visitor_text=lambda text, cm, tm, *_: drawn.append((text, tm[5] * cm[3] + cm[5]))
                      if text.strip() else None)
    return drawn


def test_the_pdf_legend_of_routes_run_last_does_not_cover_the_rotation_key():
    """The map page after OR 4.2 (finding 8): "Routes run last (dashed):" and the companies' lines were
    drawn at the page's margin, over the rotation key's hex and words (unreadable), and named the
    trains by internal ids ("CoG last ran 3-2: ..."). The legend sits under the map, above the key."""
    drawn = _pdf_page_one(159)
    key_top = max(y for t, y in drawn if t.startswith(("Rotation key", "Sides of a hex", "Write lay")))
    legend = [(t, y) for t, y in drawn if "last ran" in t or t.startswith("Routes run last")]
    assert len(legend) == 5  # the heading, GA, CoG, W&A and SAL
    assert min(y for _t, y in legend) > key_top + 5
    assert any(t.startswith("CoG last ran 3: ") for t, _y in legend)


def test_a_route_by_hexes_alone_through_atlanta_when_the_track_names_the_city():
    """W&A, OR 2.1 (finding 9, issue 29 problem 4): 'run 2 D4 C3' was refused "D4 has 3 stops; name
    one (D4-0 a city, D4-1 a city, D4-2 a city)" though only D4-1, W&A's station, has track to
    Rome (C3): the track settles which city the hex means. A hex whose stops the track does not
    settle is still refused, naming them."""
    g = game(48)
    assert g.current_entity() == "W&A"
    made, _ = mail(g, "lay 6 C3 3\nrun 2 D4 C3\npayout\ndone")
    assert "run 2 D4 C3" in made and g.current_entity() == "CoG"
    assert g.state.corporations["W&A"].price != game(48).state.corporations["W&A"].price  # paid out $50
    g = game(48)
    why = refusal(g, "lay 6 C3 3\nrun 2 D4 B10\npayout\ndone")  # no city of D4 makes a route with B10
    assert ("D4 has 3 stops; name one (D4-0 a city with track to E3; D4-1 a city with track to C3; "
            "D4-2 a city with track to D6)") in why  # which is which (play-through s12)
    why = refusal(game(48), "lay 6 C3 3\nrun 2 D4 D6\npayout\ndone")  # D6 has no stop: named first (s11v F1)
    assert "D6 has no city, town or off-board to stop at" in why


def test_pay_out_in_the_rulebooks_words():
    """CoG, OR 3.1 (finding 10): 'pay out' (18GA 4.2.4(a): "Pay out dividends") was refused
    "unknown move 'pay'"; it is the payout, and so are 'pay dividends' and 'pay out dividends'."""
    g = game(77)
    made, _ = mail(g, "lay 8 D8 4\nrun auto\npay out\nbuy train 2\ndone")
    assert "payout" in made and "buy train 2" in made
    assert [type(m).__name__ for m in parse_moves("pay dividends\npay out dividends, done", "Di")] == \
        ["Dividend", "Dividend", "Done"]


def test_buying_the_presidents_certificate_in_the_rulebooks_words_starts_the_company():
    """Di, stock round 1 (finding 11): 'buy CoG president's certificate at par 70' (18GA 3.2(c)(1):
    "Buy ... the 20% President's Certificate ... set the Par Value") was refused "say 'ipo' or
    'market'", with no word of 'par CoG 70'. It is 'par CoG 70'; a plain wrong 'buy' says how to
    start a company."""
    g = game(10)
    assert g.current_entity() == "Di"
    made, _ = mail(g, "buy CoG president's certificate at par 70")
    assert made == ["par CoG 70"]
    assert "to start a company: par <corporation> <price>" in refusal(game(10), "buy CoG cheap")


def test_a_mail_whose_only_line_is_no_move_names_that_line(ga):
    """Di's 'start CoG at par 70' (finding 11) was refused "no moves found (write one move per
    line, e.g. 'pass')" though the mail had a line: it was set aside as prose. The refusal names
    the line that is not a move and what moves start with."""
    from tests.e18xx.test_pbem_mail import answer, send

    # ('start CoG at par 70' itself is read as 'par CoG 70' since the 18AL play-through's fixes)
    line, inbound = send(ga, 1, "\nopen CoG at 70")
    assert "rejected" in line
    text = answer(ga[0], inbound)[1]
    assert "line 5: 'open CoG at 70': unknown move 'open'; moves are: pass, done" in text


def test_a_move_added_to_the_your_turn_subject_is_read(ga):
    """Di's Subject 'Re: [pt-18ga-71] Your turn: Di - pass' with an empty body (finding 12) was
    refused "no moves found": only a Subject that is moves and nothing else was read. What follows
    the Subject's last ' - ' (or ': ') is read when the whole Subject is not moves."""
    from tests.e18xx.test_pbem_mail import send, state
    from tests.e18xx.test_pbem_offer import SEAT

    cli = ga[0]
    game0, n0 = state(cli)
    who = game0.current_entity()
    line, _ = send(ga, SEAT[who], "", subject=f"Re: [ga-1] Your turn: {who} - pass")
    assert "accepted" in line, line
    game1, n1 = state(cli)
    assert n1 == n0 + 1 and game1.current_entity() != who
    line, _ = send(ga, SEAT[game1.current_entity()], "", subject=f"Re: [ga-1] {who} to act")
    assert "rejected" in line  # a Subject with no move in it is still no move


def test_the_midlands_free_lay_needs_no_with_mrc():
    """SAL owning MRC, OR 4.1 (finding 15): 'lay 5 G13 1' / 'lay 9 F12 2' was refused at the second
    lay "SAL may not lay or upgrade a tile now": the Midland's lay in F12 (Table III: free, once, not
    the company's one tile lay) had to be written 'with MRC'. A company's lay that such a private
    allows is that private's lay."""
    g = game(124)
    assert g.current_entity() == "SAL" and g.state.companies["MRC"].owner == "C:SAL"
    made, _ = mail(g, "lay 5 G13 1\nlay 9 F12 2\nbuy train 3\ndone")
    assert made[:2] == ["lay 5 G13 1", "lay 9 F12 2 with MRC"]
    assert g.state.map.placed["F12"].tile_id and g.current_entity() == "W&A"


def test_the_rust_event_counts_trains_in_words_not_as_a_type():
    """W&A buys the first 4 (finding 6b): "The 2 trains rust: CoG loses 2, GA loses 2 and W&A loses 2"
    - 'loses 2' read as 'loses its 2 train'. The count says trains."""
    rust = [t for t in _events(132, 133) if t.startswith("The 2 trains rust")]
    assert rust == ["The 2 trains rust: CoG loses 2 trains, GA loses 2 trains and W&A loses 2 trains"]


def test_the_lay_lines_of_atlanta_say_the_home_city_is_chosen_by_a_token_line():
    """W&A's first turn (finding 14): 'lay 451a D4 0' / 'buy train 2' / 'done' was refused "W&A must
    first Place the home station ... write one of these lines before it: 'token D4-0' ..."; the lay
    lines of the move list never said that the first tile of Atlanta asks for that choice. They say
    it now; a later Atlanta upgrade's lines do not."""
    from pbm.e18xx.pbem.games import legal_lines

    lays = [x for x in legal_lines(game(33)) if x.startswith("lay 451a D4")]
    assert lays and all("then 'token D4-<n>' puts W&A's home station in the city you choose" in x for x in lays)
    later = game(129)  # W&A to act, its home station long placed; 452a among its lays
    assert later.current_entity() == "W&A"
    assert not any("home station" in x for x in legal_lines(later) if x.startswith("lay 452a"))
    assert any(x.startswith("lay 452a") for x in legal_lines(later))


def test_out_of_turn_refusal_names_the_player_once():
    """Di's 'buy CoG' while Cy's stock turn was open (mails #42-44) was refused "it is not Di's turn:
    Cy (Cy) must act in the stock round"; a player is named once, a company with its president."""
    import pytest

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = game(43)
    with pytest.raises(GameError) as err:
        g.process(A.BuyShares("Di", corporation="CoG", source="ipo"))
    assert "it is not Di's turn: Cy must act in the stock round" in str(err.value)
    g = game(49)  # W&A's turn in OR 2.1
    with pytest.raises(GameError) as err:
        g.process(A.Pass("Di"))
    assert "W&A (Cy) must act" in str(err.value)


def test_the_move_list_offers_discard_by_type():
    """GA over its limit (finding 3): the list offered 'discard 3-0', 'discard 3-1', 'discard 4-2'
    (internal ids); it offers 'discard 3' and 'discard 4', and the line copied is accepted."""
    from pbm.e18xx.pbem.games import legal_lines

    g = game(194)
    assert legal_lines(g) == ["discard 3", "discard 4"]
    made, _ = mail(g, legal_lines(g)[1])
    assert made == ["discard 4"] and g.state.trains["4-2"].owner != "C:GA"

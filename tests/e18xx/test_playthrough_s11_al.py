"""Play-through by mail s11 of 18AL (issue 29 acceptance): the findings, each with the mail seen.

The game: tests/e18xx/playthrough/al-s11.jsonl (seed 72; Ann, Bob and Cy), played by mail from the
rulebook alone; ABC (Ann), TAG (Bob), WRA and L&N (Cy).
"""
from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game, texts_at


def game(upto: int):
    """The s11 18AL game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=72, suffix="-s11", players=3)


mail, refusal = intent_mail, intent_refusal


def test_one_run_line_per_train_is_one_run():
    """OR 5.3, TAG (a 4 and a 3): the best routes written one train a line,
    'run 4 D7 E6 G4 C4 A4' / 'run 3 B7 C6 E6 G6 D7', were refused "the routes must earn the most
    possible (310); these earn 170": the first line was judged alone. Consecutive run lines are
    the one run of the turn (4.2.3: the company runs any or all of its trains)."""
    g = game(206)
    assert g.current_entity() == "TAG"
    made, _ = mail(g, "run 4 D7 E6 G4 C4 A4\nrun 3 B7 C6 E6 G6 D7\npayout\ndone")
    runs = [m for m in made if m.startswith("run")]
    assert len(runs) == 1 and "; " in runs[0], made
    assert g.current_entity() != "TAG"


def test_run_lines_merge_only_when_adjacent():
    """Two explicit run lines in a row become one move; a run auto or another move between keeps them apart."""
    two = parse_moves("run 4 D7 E6\nrun 3 B7 C6", "TAG")
    assert len(two) == 1 and len(two[0].routes) == 2
    apart = parse_moves("run 4 D7 E6\npayout\nrun 3 B7 C6", "TAG")
    assert len(apart) == 3


def s11(upto: int):
    """The s11 game after ``upto`` actions, replayed with the event recorder on."""
    return playthrough_game("al", upto, seed=72, suffix="-s11", events=True)


def test_a_train_bought_says_from_whom_and_for_how_much():
    """Every 'buy train' of the play-through (#31, #33, #48, #85, #136...) had no event: the mails
    said "#31 Ann for ABC: buy train 2" and nothing of the $100 paid or where the train came from
    (issue 29 item 2: mails say what the moves caused)."""
    g = s11(167)
    assert "ABC buys a 2 train from the Initial Offering for $100" in texts_at(g, 31)
    assert "WRA buys a 3 train from the Initial Offering for $90" in texts_at(g, 93)  # NDY's half price
    assert "L&N buys a 3 train from the Open Market for $180" in texts_at(g, 167)


def test_the_lumber_terminal_is_laid_only_with_brown_and_sons():
    """OR 1.1, TAG (no private): the move list offered 'lay 445 C6 0' and 'lay 445 C6 4', the Lumber
    Terminal as an ordinary town tile; 4.2.1: "The 'Lumber Terminal' tile is an exception to (b)"
    (tiles anyone may use): only Brown & Sons' ability lays it (Table III)."""
    g = game(31)
    assert g.current_entity() == "TAG"
    assert not [a for a in g.legal_actions() if getattr(a, "tile", None) == "445"]
    why = refusal(g, "lay 445 C6 0\ndone")
    assert "BLC" in why and "445" in why, why


def test_brown_and_sons_lays_the_lumber_terminal_as_written():
    """OR 3.2, TAG owning BLC: 'lay 445 G2 0' was refused "G2 is not connected to TAG's stations",
    'use BLC' "BLC may not use a private's ability now", and the move list offered no 445 at all
    (Table III: G2, M2, O4, N5, P5, no connection needed). The list now offers the lays, and the
    lay written without 'with BLC' is BLC's."""
    g = game(103)
    assert g.current_entity() == "TAG"
    lays = [a for a in g.legal_actions() if getattr(a, "tile", None) == "445"]
    assert lays and {a.entity for a in lays} == {"BLC"} and {a.hex for a in lays} >= {"G2", "M2"}
    made, notes = mail(g, "lay 445 G2 0")
    assert made[0] == "lay 445 G2 0 with BLC"
    assert set(made[1:]) == {"pass"} and "TAG's turn is not over" in notes  # the steps up to its run (issue 29)
    assert g.state.map.placed["G2"].tile.name == "445"


def test_a_discard_may_name_the_train_type():
    """OR 4.2, ABC over its phase-5 limit (a 3, a 4 and a 5): 'discard 3' was refused "ABC does not own 3;
    it owns 3-1, 4-0, 5-0". A type names the company's train of that type (trains of one type are alike)."""
    g = game(159)
    assert g.current_entity() == "ABC"
    made, _ = mail(g, "discard 3\ndone")
    assert made[0] == "discard 3"  # shown by type (issue 29 leftovers); the train was 3-1
    assert g.state.trains["3-1"].owner != "C:ABC"
    assert [g.state.trains[t].name for t in g.corp_trains("ABC")] == ["4", "5"]


def test_the_rulebooks_words_for_moves_are_read():
    """Refused as written from the rulebook: 'place station G4' ("unknown move 'place'"; 4.2.2 "Placing
    a Station Token"), 'pay out' ("unknown move 'pay'"; 4.2.4 "Pay out dividends"), 'buy WRA from the
    open market' and 'buy a 10% share of TAG' ("say 'ipo' or 'market'"; 1.4 "Initial Offering",
    "Open Market"), 'start ABC at par 75' (read as a remark: "no moves found")."""
    said = {
        "place station G4": A.PlaceToken("Ann", "G4"),
        "place a station token in G4": A.PlaceToken("Ann", "G4"),
        "station G4": A.PlaceToken("Ann", "G4"),
        "pay out": A.Dividend("Ann", "payout"),
        "pay dividends": A.Dividend("Ann", "payout"),
        "buy WRA from the open market": A.BuyShares("Ann", corporation="WRA", source="pool"),
        # no source said: "" (the Treasury's, else the Pool's; moves.share_source, play-through s11v)
        "buy a 10% share of TAG": A.BuyShares("Ann", corporation="TAG", source=""),
        "buy one TAG share from the initial offering": A.BuyShares("Ann", corporation="TAG", source="ipo"),
        "start ABC at par 75": A.Par("Ann", "ABC", 75),
        "start ABC at $75": A.Par("Ann", "ABC", 75),
    }
    for text, want in said.items():
        assert parse_moves(text, "Ann") == [want], text
    assert parse_moves("pay loan", "Ann") != [A.Dividend("Ann", "payout")]


def test_a_mail_of_one_unknown_line_is_refused_with_that_line():
    """'start ABC at par 75', the mail's only line, was set aside as a remark and the mail refused
    "no moves found": with no move at all in a mail, its lines are read as moves and refused by name."""
    from pbm.e18xx.pbem.mailplay import read_text
    got = read_text("GAME: g\nPLAYER: 1\nSECRET: s\nbegin ABC at 75\n")
    assert "begin ABC at 75" in got.moves and not got.ignored
    thanks = read_text("GAME: g\nPLAYER: 1\nSECRET: s\n\nThanks, Ann\n")
    assert not thanks.moves.strip() and thanks.ignored


def test_use_a_private_on_a_hex_is_its_assignment_and_refusals_name_the_company():
    """'use SNAR G4' was refused "name the private; expected: use <private>   e.g. use P3 (one more train
    allowed)" (another title's private); 'use BLC' by TAG "BLC may not use a private's ability now";
    Cy's mail out of turn "it is not Cy's turn: Bob (Bob) must act"."""
    from pbm.e18xx.pbem.moves import for_game
    g = game(73)  # ABC's turn, its president owning SNAR (#74 was 'assign SNAR G4')
    move = parse_moves("use SNAR G4", g.controller("ABC"))[0]
    assert for_game(g, g.controller("ABC"), move) == A.Assign("SNAR", "G4")  # a marker, not a station
    g = game(103)
    why = refusal(g, "use BLC")
    assert "TAG may not" in why and "with BLC" in why, why
    assert "P3" not in refusal(g, "use BLC now please")
    g = game(38)
    assert g.current_entity() == "Bob"
    why = str(g._not_turn("Cy"))
    assert "Bob (Bob)" not in why and "Bob must act" in why, why


def test_the_south_and_north_marker_is_told_and_shown():
    """OR 3.1, ABC: 'assign SNAR G4' (#74) had no event, and no mail or PDF ever showed where the
    marker lay (Table III: a +$10 marker on one of H3, G4, H5, G6, E6 for the owning company's runs)."""
    from pbm.e18xx.render.public import private_lines
    g = s11(80)
    assert texts_at(g, 74) == ["ABC puts SNAR's +$10 marker on G4 Birmingham: each of ABC's trains running "
                               "there earns $10 more"]
    snar = [ln for ln in private_lines(g, compact=True) if ln.strip().startswith("SNAR")]
    assert snar and "its marker is on G4 (ABC's trains there +$10)" in snar[0], snar


def test_a_lay_line_says_what_the_terrain_costs():
    """OR 2.1, ABC: 'lay 441a G4 5   # city; to H5 Oxmoor (lower right)': the $60 of Birmingham's
    mountain (4.2.1(f)) was said only after the lay (issue 29 item 6: move lists unpriced)."""
    from pbm.e18xx.pbem.movelist import _group_line, legal_lines
    g = game(43)
    assert g.current_entity() == "ABC"
    g4 = [ln for ln in legal_lines(g) if ln.startswith("lay 441a G4")]
    assert g4 and g4[0].endswith("; costs $60 (mountain)"), g4
    j5 = [ln for ln in legal_lines(g) if " J5 " in ln]
    assert j5 and "costs" not in j5[0]
    grouped = _group_line("lay_tile", g4 + j5)
    assert "G4 [$60 (mountain)] 441a (5 to H5)" in grouped, grouped


def test_a_route_refusal_speaks_as_the_player_writes():
    """OR 5.3, TAG: 'run 4 D7 E6 G4 K4' was refused "(run 4-1 D7 E6 G4 K4): train 4-1 cannot run D7-0 E6-0
    G4-0 K4-0: ... between G4-0 and K4-0", and a weaker run "the best is 'run 4-1 D7-0 E6-0 G4-0 C4-0
    A4-0; 3-2 B7-0 ...'" (issue 29 item 4/6: internal names). Trains by type, one-stop hexes by hex;
    the suggested line, sent as it stands, is taken."""
    g = game(206)
    why = refusal(g, "run 4 D7 E6 G4 K4\npayout")
    assert "4-1" not in why and "G4-0" not in why and "run 4 D7 E6 G4 K4" in why, why
    # a weaker run is made as the best now, with a note naming it (18AL 4.2.3.1 "if any player who owns
    # stock ... insists"; ruling of play-through s12v)
    made, why = mail(g, "run 4 D7 E6 G4 H5 L5\npayout\ndone")
    assert made[0] == "run auto" and "4-1" not in why and "G4-0" not in why, (made, why)
    best = why.split("the best is '")[1].split("'")[0]
    assert best == "run 4 D7 E6 G4 C4 A4; 3 B7 C6 E6 G6 D7", why
    made, _ = mail(game(206), best + "\npayout\ndone")
    assert made[1:3] == [best, "payout"], made


def test_the_roster_says_which_train_lowers_the_limit():
    """OR 4.2, ABC: 'buy train 5' was refused because the phase-5 train limit is 2 ("the limit is 2 in
    phase 5"), a limit no mail had shown before (Table I is the rulebook's; the mails said only
    "phase 4 (train limit 3)"). The roster says which train changes the limit, and to what."""
    from pbm.e18xx.render.public import train_lines
    g = game(31)
    roster = train_lines(g, compact=True)[0]
    assert "4: 3 of 3 left, $300 (obsolete when the first 7 is bought; the first bought sets the train limit to 3)" \
        in roster, roster
    assert "5: 2 of 2 left, $450 (the first bought sets the train limit to 2)" in roster, roster


def test_the_state_says_how_many_stations_a_company_has_left():
    """The corporations' lines listed the stations placed ("stations G6 Anniston") but never how many
    tokens were left on the charter or what the next costs (4.2.2: $40 for the first, $100 after;
    issue 29 item 3, the public state). After ABC's home station: one left, $40; after G4: none."""
    from pbm.e18xx.render.view import describe
    line = next(ln for ln in describe(game(31)).splitlines() if ln.strip().startswith("ABC "))
    assert "stations G6 Anniston (1 left: $40)" in line, line
    line = next(ln for ln in describe(game(49)).splitlines() if ln.strip().startswith("ABC "))
    assert "G4 Birmingham (none left)" in line, line


def test_a_pass_after_the_lay_ends_the_step_not_skips_it():
    """OR 3.1 on: after 'lay 442a G4 1' the mail said "#75 Ann: pass - skips "Lay or upgrade one tile""
    though the tile was laid (the step stays open for a private's lay or purchase)."""
    from pbm.e18xx.pbem.intent import play_intent
    g = game(80)
    assert g.current_entity() == "TAG"
    made, _ = play_intent(g, "Bob", parse_moves("lay 14 E6 0\nrun auto\npayout\ndone", "Bob"))
    said = [m.note for m in made if m.note]
    assert any(n.startswith('ends "Lay or upgrade one tile"') for n in said), said
    assert not any(n.startswith('skips "Lay or upgrade one tile"') for n in said), said


def test_the_phase_5_event_says_the_higher_revenues_apply_and_reads_plainly():
    """ABC's first 5 (#159): the event listed the brown tiles and the closing privates but not that the
    off-boards and Meridian now pay their higher value (4.2.3.1: "the lower value applies until the
    first 5 Train is purchased"), and read "no longer: ... companies may buy private companies from
    other players' companies"."""
    g = s11(159)
    phase = next(t for t in texts_at(g, 159) if t.startswith("Phase 5 begins"))
    assert "the places with two printed values change: " in phase and "Nashville $50 (was $40)" in phase and "Meridian $40 (was $30)" in phase, phase
    assert "other players' companies" not in phase, phase
    # ruling 4.2.3.1 (rulings-18AL.md): the printed map's colours, not 'the higher value', decide;
    # Corinth's value falls at the first 5, and the run pays what the event says
    assert "Corinth $30 (was $40)" in phase, phase
    corinth = g.title.hexes["B1"].tile.nodes[0]
    assert corinth.revenue_for(g.phase.tiles) == 30


def test_the_pdf_routes_legend_is_not_drawn_over_the_rotation_key(monkeypatch):
    """The OR 4.1 PDF: "Routes run last (dashed):" and the companies' lines were drawn at the page's
    bottom margin, under the rotation key box, their words over the key's."""
    import json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.games import Replayed, step
    from pbm.e18xx.render import pdf

    from .helpers import PLAYTHROUGH
    g = Game("18AL", ["Ann", "Bob", "Cy"], 72, (), ["1", "2", "3"])
    rep = Replayed(g, g.total_cash())
    for line in (PLAYTHROUGH / "al-s11.jsonl").read_text(encoding="utf-8").splitlines()[:131]:
        step(rep, A.action_from_dict(json.loads(line)), rollback=False)
    assert len(rep.last_routes) == 3
    drawn: list[tuple[float, str]] = []

    class Seen(pdf.Canvas):
        def drawString(self, x, y, text, *a, **kw):  # noqa: N802 - reportlab's name
            drawn.append((y, str(text)))
            return super().drawString(x, y, text, *a, **kw)

    monkeypatch.setattr(pdf, "Canvas", Seen)
    pdf.render_pdf(rep, "t")
    key = [y for y, t in drawn if t.startswith(("Rotation key", "Sides of a hex", "Write lay")) and y < 200]
    legend = [y for y, t in drawn if t.startswith("Routes run last") or " last ran " in t]
    assert key and len(legend) == 4
    assert min(legend) > max(key) + 8, (legend, key)


def test_every_line_not_understood_is_named_at_once():
    """ABC's OR 2.1 took three mails: 'place station G4' was refused, then, corrected, 'pay out' in the
    same mail: each refusal named only the first line it did not understand."""
    from pbm.e18xx.pbem.moves import MoveError
    try:
        parse_moves("lay 441a G4 5\nplace the marker G4\nrun auto\nhand out dividends\ndone", "Ann")
    except MoveError as exc:
        why = str(exc)
    else:
        raise AssertionError("refused")
    assert why.startswith("line 2: 'place the marker G4'") and " | and line 4: 'hand out dividends'" in why, why

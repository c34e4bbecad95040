"""Play-through by mail s11v of 18AL (issue 29 acceptance, the verification after the s11 fixes):
the findings, each with the mail seen.

The game: tests/e18xx/playthrough/al-s11v.jsonl (seed 82; Ann, Bob, Cy and Di), played by mail from
the rulebook alone; WRA and TAG (Ann), M&O (Bob), ABC and ATN (Cy), L&N (Di).
"""
from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s11v 18AL game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=82, suffix="-s11v", players=4)


mail, refusal = intent_mail, intent_refusal


def test_a_pass_for_a_step_already_gone_does_not_end_the_turn():
    """OR 5.1, M&O (no train, $900): 'lay 9 O2 0 / pass / buy train 5 / done' was refused "move 3
    (buy train 5): it is not Bob's turn: WRA (Ann) must act": the station step had no place and
    was gone by itself, so the 'pass' (meant for it, 4.2.2 is optional) ended "Buy trains" and
    the turn.  A pass right before a move the open step itself takes is spare: ignored with a
    note (issue 29 problem 1), and the train is bought."""
    g = game(213)
    assert g.current_entity() == "M&O"
    made, notes = mail(g, "lay 9 O2 0\npass\nbuy train 5\ndone")
    assert "buy train 5" in made, made
    assert g.corp_trains("M&O"), made
    assert "move 2 (pass)" in notes and "ignored" in notes, notes


def test_a_pass_still_skips_the_open_step():
    """The same turn with the pass before a later step's move: the pass ends the open step as
    before (here "Buy trains" is the only step left after the lay, so 'pass' then 'done' ends the
    turn with no train bought)."""
    g = game(213)
    made, _ = mail(g, "lay 9 O2 0\npass\ndone")
    assert not g.corp_trains("M&O")
    assert g.current_entity() != "M&O"


def test_a_train_too_dear_names_the_private_that_halves_it():
    """OR 3.2, L&N ($212 after buying New Decatur Yards): '... / buy train 4 / done' was refused
    "L&N has $222, the train costs $300" without a word about NDY (50% off a 3/4/5 train), and
    'buy train 4 using NDY' was refused next.  The refusal now says how to use the private."""
    g = game(112)
    assert g.current_entity() == "L&N" and g.state.companies["NDY"].owner == "C:L&N"
    why = refusal(g, "lay 14 C4 0\nrun auto\npayout\nbuy train 4\ndone")
    assert "the train costs $300" in why and "write 'buy train 4 with NDY'" in why, why
    g = game(112)
    made, _ = mail(g, "lay 14 C4 0\nrun auto\npayout\nbuy train 4 with NDY\ndone")
    assert "buy train 4 with NDY" in made, made


def test_the_snar_token_is_among_the_moves_of_its_company():
    """OR 3.2, ABC owning the South & North Alabama (a +$10 token on one of H3, G4, H5, G6, E6 for
    its company's runs): ABC's move list offered lays and private purchases but never the token;
    'use SNAR G4' was a guess (stored as 'assign SNAR G4').  The list now offers it, one line a
    hex, and a line copied is accepted."""
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game(103)
    assert g.current_entity() == "ABC" and g.state.companies["SNAR"].owner == "C:ABC"
    listed = [x for x in legal_lines(g, limit=200) if x.startswith("assign SNAR G4")]
    assert listed and "+$10 for each of ABC's trains running to G4 Birmingham" in listed[0], listed
    assert any(x.startswith("assign SNAR H3") for x in legal_lines(g, limit=200))
    made, _ = mail(g, f"{listed[0]}\nrun auto\npayout\ndone")  # copied as listed, comment and all
    assert made[0] == "assign SNAR G4", made


def test_the_game_exports_for_18xx_games():
    """`pbm 18xx export` of this game stopped with KeyError '2': a train bought from the bank is
    stored by its type ('buy train 2'), and the export's look-up of its price took the type for a
    train's id (issue 28 export, found in play-through s11v)."""
    import json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.exchange import export_actions

    from .helpers import PLAYTHROUGH
    lines = (PLAYTHROUGH / "al-s11v.jsonl").read_text(encoding="utf-8").splitlines()
    acts = [A.action_from_dict(json.loads(x)) for x in lines]
    g = Game("18AL", ["Ann", "Bob", "Cy", "Di"], 82, (), ["1", "2", "3", "4"])
    out = export_actions(g, acts, {n: str(i) for i, n in enumerate(["Ann", "Bob", "Cy", "Di"], 1)})
    assert len([d for d in out if not d.get("pbm_auto")]) >= len(acts) - 5, len(out)
    assert any(d["type"] == "buy_train" for d in out)


def test_phase_5_says_once_that_companies_buy_no_more_privates():
    """OR 4.2, TAG's first 5 train: "Phase 5 begins ...; no longer: companies may buy private
    companies from players; companies may buy private companies from players other than their
    president; ..." -- the second is the first again.  Said once now."""
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.phases import phase_change

    t = Game("18AL", ["Ann", "Bob", "Cy", "Di"], 82, (), ["1", "2", "3", "4"]).title
    four = next(i for i, p in enumerate(t.phases) if p.name == "4")
    _, closes = phase_change(t, four, four + 1)
    assert "companies may buy private companies from players" in closes, closes
    assert not any("other than their president" in c for c in closes), closes

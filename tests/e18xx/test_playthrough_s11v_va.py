"""Verification play-through by mail s11v of 18VA (issue 29 acceptance): the findings, each with
the mail text met.

The game: tests/e18xx/playthrough/va-s11v.jsonl (seed 81; players Ann, Bob and Cy)."""
from pbm.e18xx.core.game import Game

from .helpers import intent_mail, intent_refusal, playthrough_game

mail, refusal = intent_mail, intent_refusal


def game(upto: int) -> Game:
    """The s11v game after ``upto`` actions."""
    return playthrough_game("va", upto, seed=81, suffix="-s11v")


def test_a_run_written_after_the_turn_ended_by_itself_is_ignored():
    """Mail #102: WMR (Ann; a 4 train with no route, $0) wrote 'lay 9 C6 0 / run auto / done'.
    The turn ended by itself after the lay, and the mail was refused "move 2 (run auto): WMR's turn
    ended by itself after 'lay 9 C6 0', so this move would be VR's ...: it is not Ann's turn".
    The run is the rulebook's next step (4.5.5); with nothing to run it is ignored with a note, as a
    spare 'pass' is (issue 29 problem 1)."""
    g = game(208)
    assert g.current_entity() == "WMR"
    made, notes = mail(g, "lay 9 C6 0\nrun auto\ndone")
    assert made == ["lay 9 C6 0"]
    assert "move 2 (run auto): nothing to do - WMR's turn had already ended by itself after 'lay 9 C6 0'" \
        in notes
    assert g.current_entity() == "VR"


def test_a_withhold_written_after_a_run_for_nothing_is_ignored():
    """Mail #77: VR (Cy; its 3 train had no route) wrote 'convert / lay 58 B13 2 / run auto /
    withhold / done'; refused "move 4 (withhold): VR's turn ended by itself after 'run auto', so
    this move would be C&O's". Earnings of zero are withheld (3.2, 4.5.6): the written 'withhold'
    says just that and is ignored with a note."""
    g = game(142)
    assert g.current_entity() == "VR"
    made, notes = mail(g, "convert\nlay 58 B13 2\nrun auto\nwithhold\ndone")
    assert made == ["convert", "lay 58 B13 2", "run auto"]
    assert "move 4 (withhold): nothing to do - VR's turn had already ended by itself after 'run auto'" in notes
    assert g.current_entity() == "C&O"


def test_a_move_of_another_kind_after_the_turn_ended_is_still_refused():
    """Only a run or a dividend with nothing left to do is ignored: a tile lay written after WMR's
    turn ended is refused, saying the turn ended."""
    g = game(208)
    why = refusal(g, "lay 9 C6 0\nlay 57 C8 2\ndone")
    assert "WMR's turn ended by itself after 'lay 9 C6 0'" in why


def test_a_share_bought_without_saying_where_comes_from_the_pool_when_the_treasury_has_none():
    """Mails #42, #45, #84: after B&O's sixth share the state underwrote the rest and put its last
    four shares in the Pool (4.4); 'buy B&O share' was refused "no B&O certificate in the IPO ...
    write 'buy B&O market'" three times. A player "may buy any certificate available in a
    Corporation's Treasury, or in the Pool" (4.3.2): with none in the Treasury the words name the
    Pool's. A source written out stays as written."""
    g = game(65)
    assert g.current_entity() == "Cy"
    made, _ = mail(g, "buy B&O share")
    assert made == ["buy B&O market"]
    assert "no B&O certificate in the Treasury" in refusal(game(65), "buy B&O ipo")
    g = game(63)  # Ann, when the Treasury still had B&O shares: the Treasury's, as before
    made, _ = mail(g, "sell 1 SR\nbuy B&O share")
    assert made == ["sell 1 SR", "buy B&O ipo"]


def test_a_private_used_on_a_hex_said_with_on():
    """Mail #63: 'use P1 on H3' (the Railway Express marker on Baltimore, 4.2 (1)) was refused "name
    the private (and the hex of its station or marker)"; 'use P1 H3' went through. The little word
    between the private and the hex is read as the player means it."""
    g = game(103)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "lay 14 H3 2\nuse P1 on H3\nrun auto\npayout\nbuy train 3\ndone")
    assert made[:2] == ["lay 14 H3 2", "assign P1 H3"]


def test_a_private_used_after_the_company_turn_ended_says_the_turn_ended():
    """Mail #67: N&W (Bob) wrote '... buy train 3 / buy private P3 120 / use P3 / buy train 4'; the
    refusal named the next company, Cy's: "move 6 (use P3): VR may not use a private's ability with
    P3 now; allowed: nothing". N&W's turn had ended by itself after buying P3 (at its train limit,
    with its train step over, 4.5.8): the refusal says so first, as for any company move."""
    g = game(115)
    assert g.current_entity() == "N&W"
    why = refusal(g, "lay 9 F15 0\nrun auto\nwithhold\nbuy train 3\nbuy private P3 120\nuse P3\nbuy train 4\ndone")
    assert why.startswith("move 6 (use P3): N&W's turn ended by itself after 'buy private P3 120'")
    assert "so this move would be VR's" in why


def test_a_private_bought_by_its_symbol_and_a_price():
    """Mail #50: B&O's 'buy P1 60' (Ann's Railway Express, in phase 3: 4.2 "Corporations may buy
    Private Companies from players ... 50 percent to 150 percent") was refused "say 'ipo' or
    'market'", as if P1 were a company's share. A private and a price is the private's purchase;
    a company and a price still says how a share is bought."""
    g = game(70)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "run auto\npayout\nbuy train 3\nbuy P1 60\ndone")
    assert "buy private P1 60" in made
    assert g.state.companies["P1"].owner == "C:B&O"
    why = refusal(game(63), "buy B&O 100")
    assert "'buy B&O ipo'" in why and "'buy B&O market'" in why


def test_potomac_yards_closing_says_what_it_gave():
    """Mail #68: N&W's 'use P3' was told as "Private P3 closes (its ability was used); N&W owned it",
    not which of its two powers (4.2 (3) a station, (4) +1 to the train limit) was used."""
    import json

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.events import attach, money_of, recorded

    from .helpers import PLAYTHROUGH

    g = Game("18VA", ["Ann", "Bob", "Cy"], 81, (), ["1", "2", "3"])
    attach(g)
    for line in (PLAYTHROUGH / "va-s11v.jsonl").read_text(encoding="utf-8").splitlines()[:121]:
        g.process(A.action_from_dict(json.loads(line)))
    said = [e.text(money_of(g.title)) for e in recorded(g) if e.seq == 121]
    assert "Private P3 closes (its ability was used: N&W's train limit is one higher from now on); N&W owned it" \
        in said

"""Play-through by mail s13 of 18VA (issue 29 acceptance, session 13 verification round; seed 134,
Ann, Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/va-s13.jsonl holds the game, 643 actions, to the bank's end)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s13 game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=134, suffix="-s13", players=4)


mail, refusal = intent_mail, intent_refusal


def test_a_train_bought_with_tredegar_named_by_its_name():
    """C&O, OR 3.1 (finding F1, mail #36): 'buy train 3 with Tredegar' - the private as the rulebook
    (4.2) and every mail name it, "P2 Tredegar Iron Works" - was refused "Cy may not act for
    TREDEGAR (controlled by TREDEGAR)". A private is named by its symbol, its name or the first
    words of its name."""
    for words in ("Tredegar", "Tredegar Iron Works", "the Tredegar Iron Works"):
        g = game(69)
        assert g.current_entity() == "C&O"
        made, _ = mail(g, f"convert\nlay 5 C8 4\nbuy private P2 90\nrun auto\nwithhold\nbuy a 3 train using {words}")
        assert "buy train 3 with P2" in made, (words, made)
    # the whole name is read as the private's symbol when the line is read (the RULEBOOK row of the 18AL
    # s13w branch, a private by its book name); the first words alone are the game's to read
    # (moves.private_by_name)
    assert [m.entity for m in parse_moves("buy train 3 with Tredegar Iron Works for 0", "Cy")] == ["P2"]


def test_a_private_named_by_no_name_is_said_plainly():
    """The same mail with a private that is none of the game's (F1): the reason names the privates,
    not "may not act for X (controlled by X)"."""
    from pbm.e18xx.pbem.games import _authorize
    import pytest

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.errors import GameError

    g = game(69)
    with pytest.raises(GameError) as err:
        _authorize(g, "Cy", A.BuyTrain("SMOKESTACK", "3"))
    assert "no company or private here is called 'SMOKESTACK'" in str(err.value)
    assert "P2 Tredegar Iron Works" in str(err.value) and "controlled by" not in str(err.value)


def test_the_railway_express_marker_on_a_hex_and_its_name():
    """SR, OR 5.1 (finding F2, mail #50): 'use P1 on F11 Richmond' - the hex and the city's name, as
    every mail prints a city - was refused "name the private (and the hex of its station or
    marker)"; 'use P1 F11' was taken. The hex with its name is the hex; a name that is not the
    hex's is refused, saying what the hex is (as 'token I11 Brunswick', s12v)."""
    for line in ("use P1 on F11 Richmond", "use P1 F11 Richmond", "use P1 on Richmond"):
        g = game(114)
        assert g.current_entity() == "SR"
        made, _ = mail(g, f"buy private P1 30\nlay 8 E12 5\n{line}\nrun auto\npayout")
        assert "assign P1 F11" in made, (line, made)
    why = refusal(game(114), "buy private P1 30\nlay 8 E12 5\nuse P1 on F11 Petersburg\nrun auto\npayout")
    assert "F11 is Richmond, not Petersburg" in why


def test_an_offer_ending_the_mail_ends_the_turn_with_the_sale(tmp_path):
    """B&O, OR 6.1 (finding F3, mails #84-#86): B&O's mail 'lay 9 G2 2 / buy train 3 from SR for
    $200' ended with the offer; Di accepted, and B&O's turn stayed open: it took a third mail,
    'done', though every mail says "the mail ends the turn (as if 'done'), unless its last line is
    'more'". The offer as a mail's last move ends the turn once the sale is agreed; the buyer's
    receipt says so; 'offer / more' still keeps it open."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.e18xx.pbem.mailplay import _offer_note
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "va", 214, seed=134, suffix="-s13", players=4, name="va-13")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "va-13"))
        out = apply(s, row, 1, "lay 9 G2 2\nbuy train 3 from SR for $200")
        assert out.accepted and out.offer is not None, out.error
        assert out.offer.get("ends_turn") and "your turn ends with the sale" in _offer_note(out.offer, row)
        out, _ = answer_offer(s, row, 4, "accept 3")
        assert out.accepted, out.error
        g = out.game
        assert g.current_entity() == "WMR", g.current_entity()  # B&O's turn is over: WMR (Di) acts
        assert any("turn ended with the sale" in n for n in out.notes), out.notes


def test_an_offer_then_more_keeps_the_turn_open(tmp_path):
    """The same offer with 'more' after it (F3): the turn stays open after the sale, as 'more' says."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "va", 214, seed=134, suffix="-s13", players=4, name="va-13m")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "va-13m"))
        out = apply(s, row, 1, "lay 9 G2 2\nbuy train 3 from SR for $200\nmore")
        assert out.accepted and out.offer is not None and not out.offer.get("ends_turn"), out.error
        out, _ = answer_offer(s, row, 4, "accept 3")
        assert out.accepted and out.game.current_entity() == "B&O"


def test_the_turn_outline_names_the_seller_of_a_company_train():
    """WMR, OR 5.1 (finding F4, mail #65; RFPR's mail #68 the same): "This turn: ... buy trains (3 as
    3 for $200; 3 as 2G for $200; 2 for $100; 3 for $200)" - the last two are other companies'
    trains, named as if the bank sold them, with no seller (issue 29 problem 6: "without the
    owner"); RFPR's president guessed 'buy train 2 from B&O for $100'. The outline names the
    companies and that the price is agreed (18VA 4.5.8, 4.6.1)."""
    from pbm.e18xx.pbem.intent import turn_outline

    g = game(148)
    assert g.current_entity() == "WMR"
    line = turn_outline(g)[0]
    assert "buy trains (3 as 3 for $200; 3 as 2G for $200; 2 from SR, N&W, B&O or C&O at an agreed price; " \
           "3 from SR, C&O or N&W at an agreed price)" in line, line
    assert "; 2 for $100" not in line


def test_the_proxy_is_told_when_the_away_player_is_to_act():
    """SR 4 (finding F5, mails #40-#44): Bob wrote 'AWAY: 2026-11-28 2026-12-02 proxy 4'; when Bob
    was to act, Di got only "Bob to act" - nothing said she was his proxy or how to move for him
    (Bob alone was told "player 4 may move for you (their mail with FOR: 2)"). The proxy's mail says
    so while the away player is to act; the others' mails do not."""
    from datetime import datetime, timedelta
    from types import SimpleNamespace as NS

    from pbm.e18xx.pbem.mailplay import _proxied_turns

    today = datetime.utcnow().date()
    row = NS(state={"away": {"2": [today.isoformat(), (today + timedelta(days=4)).isoformat(), 4]}})
    seats = [NS(number=n, name=x) for n, x in enumerate(["Ann", "Bob", "Cy", "Di"], 1)]
    assert [q.name for q in _proxied_turns(row, seats, {"Bob"}, 4)] == ["Bob"]  # Di's mail: "YOU ARE BOB'S PROXY"
    assert _proxied_turns(row, seats, {"Bob"}, 3) == []  # Cy is nobody's proxy
    assert _proxied_turns(row, seats, {"Ann"}, 4) == []  # Bob is not to act
    row.state = {"away": {"2": [(today - timedelta(days=5)).isoformat(), (today - timedelta(days=2)).isoformat(), 4]}}
    assert _proxied_turns(row, seats, {"Bob"}, 4) == []  # back: no longer away


def test_what_a_phase_or_a_round_brings_is_said_after_it():
    """SR's 5 train, OR 7.1 (finding F6, mail #119): the events read "WMR converts ...", "VR converts
    ..." before "SR buys a 5 train" and "Phase 5 begins" (18VA 4.5.1: the conversion is the phase's);
    C&O's last move of OR 1.1 (mail #20) read "Di passes automatically" (in stock round 2) before
    "Operating round 1.1 ends; next: stock round 2". The consequence follows its cause; passes in
    the round that ended stay before its end (stock round 1, action 13)."""
    from .helpers import texts_at

    texts = texts_at(playthrough_game("va", 318, seed=134, suffix="-s13", players=4, events=True), 318)
    order = [next(i for i, t in enumerate(texts) if t.startswith(w))
             for w in ("SR buys a 5 train", "Phase 5 begins", "WMR converts", "VR converts")]
    assert order == sorted(order), texts
    texts = texts_at(playthrough_game("va", 25, seed=134, suffix="-s13", players=4, events=True), 25)
    assert texts[0].startswith("Operating round 1.1 ends") and texts[1].startswith("Di passes automatically")
    texts = texts_at(playthrough_game("va", 13, seed=134, suffix="-s13", players=4, events=True), 13)
    assert [t.split(":")[0] for t in texts[1:5]] == ["Di passes automatically", "Cy passes automatically",
                                                     "Bob passes automatically", "Stock round 1 ends; next"]


def test_the_buyer_waiting_for_an_answer_is_told_so():
    """RFPR, OR 9.1 (finding F9, mail #192): after its offer for WMR's 5 train the buyer's mail said
    only "IT IS YOUR TURN (Ann for RFPR)" though the game waited for Cy's answer. It says so."""
    from types import SimpleNamespace as NS

    from pbm.e18xx.pbem.mailplay import _offer_wait

    row = NS(state={"offer": {"buyer_name": "Ann", "owner": "Cy", "kind": "train"}})
    assert _offer_wait(row, "Ann").startswith("Your offer waits for Cy's answer first")
    assert _offer_wait(row, "Cy") == "" and _offer_wait(NS(state={}), "Ann") == ""

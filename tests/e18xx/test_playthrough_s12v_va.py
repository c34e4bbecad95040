"""Verification play-through by mail s12v of 18VA (issue 29 acceptance): the findings, each with
the mail text met.

The game: tests/e18xx/playthrough/va-s12v.jsonl (seed 114; players Ann, Bob and Cy)."""
from pbm.e18xx.core.game import Game

from .helpers import intent_mail, intent_refusal, playthrough_game

mail, refusal = intent_mail, intent_refusal


def game(upto: int) -> Game:
    """The s12v game after ``upto`` actions."""
    return playthrough_game("va", upto, seed=114, suffix="-s12v")


def _stored(tmp_path, upto: int):
    from .db_games import stored_playthrough

    return stored_playthrough(tmp_path, "va", upto, seed=114, suffix="-s12v")


def test_moves_held_for_an_offer_never_become_the_next_companys(tmp_path):
    """Mails #146/#147, OR 8.3: N&W (Ann, no train) wrote 'buy a 5 train from RF&P for $164 / run 5
    Rocky Mount - ... - Alexandria / payout / done'; Bob accepted. The sale ended N&W's turn (its run
    step was already past), and the held moves were then tried as B&O's (Ann is B&O's president too):
    "were NOT made: ... none of its stops holds a station of B&O; Ann is still to act". Had the route
    suited B&O it would have been run for B&O. Moves written for one company are never another's."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game as Row

    url = _stored(tmp_path, 379)
    with session_scope(url) as s:
        row = s.scalars(select(Row).where(Row.name == "pt")).one()
        out = apply(s, row, 1, "buy a 5 train from RF&P for $164\n"
                    "run 5 Philadelphia - Baltimore - Washington - Alexandria - Fredericksburg\npayout\ndone")
        assert out.accepted and out.offer is not None, out.error
        out, _ = answer_offer(s, row, 2, "accept 5")
        assert out.accepted, out.error
        g = out.game
        assert g.current_entity() == "B&O"  # B&O's own turn, untouched by N&W's mail
        assert not any(getattr(a, "entity", "") == "B&O" for a in g.actions[379:]), g.actions[379:]
        assert any("Ann's turn ended with the sale" in n or "N&W's turn ended with the sale" in n
                   for n in out.notes), out.notes


def test_a_freight_train_named_beside_a_passenger_train_of_its_type():
    """Mail #35, OR 3.1: C&O (a 1G and a 2 passenger train; both of the 2 type, 4.5.8) wrote 'run 2
    Charlottesville - Staunton / run 1G Staunton - B7 - Grafton' and was refused "C&O does not own
    train 1G; it owns 1G, 2": the '2' took the 1G (a train of type 2) and left none for '1G'. A
    train named as the mails name it (2, 1G) is that train."""
    g = game(65)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay 4 B7 2\ntoken Staunton\nrun 2 Charlottesville - Staunton\n"
                      "run 1G Staunton - B7 - Grafton\npayout\ndone")
    assert any(m.startswith("run ") for m in made), made
    assert g.current_entity() != "C&O"


def test_last_moves_name_a_freight_train_as_freight():
    """Mails #80 and #95: C&O's 'run 2G ... / run 3 ...' showed in Last moves and the events as
    "run 3 CHARLOTTESVILLE STAUNTON B7 GRAFTON; 3 FREDERICKSBURG ..." and VR's 'run 3G ...' as "run
    4 LYNCHBURG B13 ROANOKE": the freight train said as the passenger train of its type (18VA
    4.5.8: a 2G and a 3 are one type, but not one train). The line names the train as bought."""
    from pbm.e18xx.pbem.moves import action_words

    g = game(220)
    assert action_words(g, g.actions[174], 175)[1].startswith("run 2G Charlottesville - Staunton - B7 - Grafton; 3 ")
    assert action_words(g, g.actions[216], 217) == ("VR", "run 3G Lynchburg - B13 - Roanoke")  # the map's spelling (s13v 18AL F2)


def test_a_refused_mail_lists_the_moves_still_open(tmp_path):
    """Mail #116, OR 7.2: VR wrote 'lay 58 B11 1 / run 3G Lynchburg - B13 - Roanoke / payout / done';
    the run was not the best and the mail was refused, rightly. The refusal's "Now: ... may:" list
    still holds VR's tile lays (during play the list seemed to say only 'pass': a filter of the
    tester's hid the lay lines - not a defect; kept as a check)."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game as Row

    url = _stored(tmp_path, 275)
    with session_scope(url) as s:
        row = s.scalars(select(Row).where(Row.name == "pt")).one()
        # since session 13 a run short of the best runs the best instead (18VA 4.5.5, weaker_run); a
        # route that does not run is still refused
        out = apply(s, row, 1, "lay 58 B11 1\nrun 3G Lynchburg - Richmond\npayout\ndone")
        assert not out.accepted and "cannot run" in out.error, out.error
        assert any(x.startswith("lay 58 B11 1") for x in out.legal), out.legal


def test_a_payout_after_a_run_for_nothing_is_ignored_before_the_players_own_stock_turn():
    """Mail #154, OR 8.3: VR (Ann; its new 4D had no paying route) wrote 'run auto / payout / done'
    and was refused "move 2 (payout): VR's turn ended by itself after 'run auto', so this move would
    be Ann's in the stock round". The round's next turn was Ann's own stock turn, where a dividend
    means nothing: the spare 'payout' is ignored with a note, as it is when the next turn is another
    player's (s11v)."""
    g = game(398)
    assert g.current_entity() == "VR"
    made, notes = mail(g, "run auto\npayout\ndone")
    assert made[-1] == "run auto" and "payout" not in made
    assert "move 2 (payout): nothing to do - VR's turn had already ended by itself after 'run auto'" in notes
    assert g.state.round.kind == "stock" and g.current_entity() == "Ann"


def test_the_railway_express_marker_placed_on_a_city_said_by_its_name():
    """Mail #62, OR 5.2: C&O wrote 'use P1 on Staunton' (4.2 (1): "+10 to any City for the owning
    Corporation") and was refused "name the private (and the hex of its station or marker)"; 'assign
    P1 C8' went through. Stations ('token Staunton') and routes take the city's name; so does this."""
    g = game(119)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "lay 58 B9 4\nuse P1 on Staunton\nrun auto\npayout\nbuy a 2G train\ndone")
    assert made[:2] == ["lay 58 B9 4", "assign P1 C8"]
    g = game(119)
    made, _ = mail(g, "lay 58 B9 4\nuse P1 Staunton\nrun auto\npayout\nbuy a 2G train\ndone")
    assert made[:2] == ["lay 58 B9 4", "assign P1 C8"]


def test_converting_said_in_the_rulebooks_words():
    """Mail #46, OR 4.1: 'convert to a ten-share company' (18VA 4.5.1 "Converting to a Ten-Share
    Company") was refused "'convert' takes nothing after it"."""
    g = game(89)
    assert g.current_entity() == "C&O"
    made, _ = mail(g, "convert to a ten-share company\nbuy P1 from Ann for $60\nlay 15 C8 5\nrun auto\n"
                      "payout\ndone")
    assert made[:2] == ["convert", "buy private P1 60"]
    assert "'convert' takes nothing after it" in refusal(game(89), "convert to Richmond\ndone")


def test_tredegar_used_with_the_word_using():
    """Mail #59, OR 5.1: N&W wrote 'buy a 3 train using P2' (Tredegar Iron Works: $200 off a new
    train, 4.2 (2)) and was refused "price must be a whole number, not 'using'"; 'with P2' went
    through. No mail had shown how Tredegar is used."""
    from pbm.e18xx.pbem.moves import parse_moves

    assert parse_moves("buy a 3 train using P2", "N&W") == parse_moves("buy a 3 train with P2", "N&W")
    (mv,) = parse_moves("buy a 3 train using P2", "N&W")
    assert (mv.entity, mv.train) == ("P2", "3")


def test_a_company_not_yet_started_is_not_said_to_convert():
    """RFPR's first 5 train began phase 5 (mail #90): the events said "WMR converts from 5 to 10
    shares: each certificate now counts half, the new shares go to its Treasury; it gets 2 more
    station token(s)" of WMR, which no one had started: it has no certificates out and no tokens
    yet. 18VA 4.4.1: a company started after phase 5 begins starts as a ten-share company."""
    from .helpers import texts_at

    said = texts_at(playthrough_game("va", 208, seed=114, suffix="-s12v", events=True), 208)
    assert any(t.startswith("N&W converts from 5 to 10 shares") for t in said), said
    assert not any(t.startswith("WMR converts") for t in said), said
    assert "WMR, not started yet, will start as a ten-share company" in said, said


# -- met again, fixed centrally (the lead's note: branches h-words and h-ids) ---------------------


def test_a_sale_said_with_the_word_share():
    """Mail #83, OR 6.1: VR (Ann raising money for its train, 4.6.2) wrote 'sell 1 SR share' and was
    refused "need [count] and a corporation"; 'buy 1 SR share' is read, 'sell 1 SR' went through."""
    g = game(186)
    made, _ = mail(g, "lay 57 C12 1\nsell 1 SR share\nbuy a 3G train\ndone")
    assert "sell 1 SR" in made


def test_a_train_bought_with_tredegar_is_named_by_its_type():
    """Mail #61: Last moves and the events read "N&W: buy train 3-1 with P2 for $0 ($200 off)" -
    the engine's train id (issue 29 problem 6); the offer mails for company trains said 'accept 4-0'
    and 'accept 5-0' to the seller while the buyer was told 'accept 4'."""
    from pbm.e18xx.pbem.moves import action_words

    g = game(120)
    assert action_words(g, g.actions[117], 118) == ("N&W", "buy train 3 with P2 for $0 ($200 off)")


def test_an_offer_for_a_company_train_names_it_by_type_and_in_the_titles_money():
    """The same finding, the offers: the seller's state mail said 'accept 4-0' (the train's id) while
    the buyer and the others were told 'accept 4'; and an 1848 offer read '$' for pounds."""
    from types import SimpleNamespace

    from pbm.e18xx.pbem.mailplay import _offer_note_only, _offer_note_others, _offer_note_owner

    offer = {"kind": "train", "company": "4-0", "entity": "N&W", "buyer": "N&W", "buyer_name": "Bob",
             "owner": "Ann", "seller": "SR", "price": 250}
    for note in (_offer_note_owner(offer, SimpleNamespace(title="18VA")),
                 _offer_note_others(offer, SimpleNamespace(title="18VA")),
                 _offer_note_only(offer, SimpleNamespace(title="18VA"))):
        assert "accept 4" in note and "4-0" not in note, note
        assert "$250" in note
    assert "£250" in _offer_note_others(offer, SimpleNamespace(title="1848"))

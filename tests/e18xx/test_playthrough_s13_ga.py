"""Play-through by mail s13 of 18GA (issue 29 acceptance, session 13 verification round; seed 131,
Ann, Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/ga-s13.jsonl holds the game, 490 actions, to the bank breaking)."""
from datetime import datetime, timedelta

import pytest

from pbm.e18xx.pbem.moves import format_action, parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s13 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=131, suffix="-s13", players=4)


mail = intent_mail


def test_a_route_written_with_hyphens_between_its_hexes():
    """CoG, OR 2.1 (finding F3, mail #43): 'run 2 F6-E7' was refused "each route is a train then at
    least two stops" - the hexes joined by a hyphen, as a route is drawn, read as one stop. A hyphen
    between hexes separates the stops; a digit after a hex is still its city ('D4-1')."""
    g = game(46)
    assert g.current_entity() == "CoG"
    made, _ = mail(g, "lay 58 E7 4\nrun 2 F6-E7\npay out\nbuy train 2")
    assert made[:4] == ["lay 58 E7 4", "run 2 F6 E7", "payout", "buy train 2"]
    assert g.current_entity() != "CoG"
    for line, stops in (("run 5 F6-D4-1-C3-A3", ("F6", "D4-1", "C3", "A3")),
                        ("run 3 F6\u2013E7\u2013D10; 2 D10-B10", ("F6", "E7", "D10")),
                        ("run 2 D4-1 C3", ("D4-1", "C3"))):
        assert parse_moves(line, "Cy")[0].routes[0].nodes == stops, line
    assert format_action(parse_moves("run 2-2 L5-0 K4-0", "Cy")[0]) == "run 2 L5-0 K4-0"  # a train id as before


def test_an_offer_that_ends_the_mail_ends_the_turn_once_accepted(tmp_path):
    """CoG, OR 3.1 (finding F5, mails #53-#55): CoG's turn ended with 'buy OSR from Ann for $150';
    Ann accepted, and CoG's turn stayed open: Cy wrote a second mail, 'done'. Every mail "ends the
    turn (as if 'done'), unless its last line is 'more'": a mail ending with an offer too, once the
    sale is agreed (rule 4.2.6: the price both agree)."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "ga", 65, seed=131, suffix="-s13", players=4, name="ga-s13")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-s13"))
        out = apply(s, row, 3, "lay 9 E5 2\nrun 2 F6 E7 D10\npay out\nbuy train 3\nbuy OSR from Ann for $150")
        assert out.accepted and out.offer is not None, out.error
        assert out.game.current_entity() == "CoG"
        out, _ = answer_offer(s, row, 1, "accept OSR")
        assert out.accepted, out.error
        assert out.game.company("OSR").owner == "C:CoG"
        assert out.game.current_entity() != "CoG" and out.game.state.round.kind == "stock"
        assert "Cy's turn ended with the sale: the mail ended with the offer (as if 'done')" in out.notes
    # with 'more' as its last line the turn stays open after the sale, as before
    (tmp_path / "more").mkdir()
    url = stored_playthrough(tmp_path / "more", "ga", 65, seed=131, suffix="-s13", players=4, name="ga-more")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-more"))
        out = apply(s, row, 3, "lay 9 E5 2\nrun auto\npay out\nbuy train 3\nbuy OSR from Ann for $150\nmore")
        assert out.accepted and out.offer is not None, out.error
        from pbm.e18xx.pbem.mailplay import _offer_note
        assert "Your mail ended with 'more': the turn stays open after the sale" in _offer_note(out.offer)
        out, _ = answer_offer(s, row, 1, "accept OSR")
        assert out.accepted and out.game.current_entity() == "CoG"


def test_the_offer_reply_says_the_turn_ends_with_the_sale():
    """The buyer's receipt said "without them you write the rest of the turn after the answer" (mail
    #53): now it says the sale ends the turn, and the seller and the others are told no more moves."""
    from pbm.e18xx.pbem.mailplay import _offer_note, _offer_note_others, _offer_note_owner

    offer = {"buyer": 3, "buyer_name": "Cy", "entity": "CoG", "company": "OSR", "price": 150, "owner": "Ann",
             "owner_seat": 1, "at": 69, "rest": ["done"], "ends_turn": True}
    note = _offer_note(offer)
    assert "Your mail ended with the offer, so your turn ends with the sale when Ann accepts" in note
    assert "(done)" not in note and "(done)" not in _offer_note_owner(offer) + _offer_note_others(offer)


def test_the_auction_under_way_shows_its_high_bid():
    """The auction of M&BR (finding F1, mails #8-#9): after Bob's 'bid 175 M&BR' in the auction, Cy's
    state said "Standing bids: M&BR: Bob $160, Cy $170 (high)" and "Cash set aside for bids: Bob
    $160" - the bids made before the auction, and Cy's marked high though Bob's $175 was (18GA
    3.1.1: the auction's bids replace them). The state names the auction, its high bid and who
    speaks next; the cash set aside is the high bidder's bid."""
    from pbm.e18xx.pbem.mailplay import summary_lines
    from pbm.e18xx.render.public import auction_lines

    g = game(7)
    assert g.current_entity() == "Cy"
    lines = auction_lines(g)
    assert lines[0] == ("Auction of M&BR now, between its bidders (Bob, Cy): the high bid is Bob's $175; Cy bids "
                        "more or passes")
    assert not any(x.startswith("Standing bids:") for x in lines)
    assert "Cash set aside for bids: Bob $175 (free $205)" in lines
    # before the auction, the standing bids as they were
    assert auction_lines(game(5))[0] == "Standing bids: M&BR: Bob $160, Cy $170 (high); OSR: Ann $105"
    text = "\n".join(summary_lines(g, [], _seat(2, "Bob"), turn=False))
    assert "You: $380 ($175 of it set aside for bids)" in text


def test_a_train_offer_is_answered_in_the_same_words_in_every_mail():
    """SAL, OR 7.2 (finding F8, mails #66-#67): SAL offered Di $150 for W&A's 4 train; Ann's receipt
    said Di answers 'accept 4', Di's state mail and Bob's said 'accept 4-0' (the train's id). Every
    mail names the train by its type."""
    from pbm.e18xx.pbem.mailplay import _offer_note, _offer_note_others, _offer_note_owner

    offer = {"kind": "train", "buyer": 1, "buyer_name": "Ann", "entity": "SAL", "company": "4-0", "seller": "W&A",
             "variant": None, "price": 150, "owner": "Di", "owner_seat": 4, "at": 332}
    owner, others = _offer_note_owner(offer), _offer_note_others(offer)
    assert "accept 4\n" in owner and "decline 4\n" in owner and "for the 4 train of your company W&A" in owner
    assert "('accept 4' or 'decline 4')" in others
    assert "4-0" not in owner + others + _offer_note(offer)


def test_a_station_written_as_the_citys_name_then_its_id():
    """GA, OR 5.1 (mail #104, a player's slip, class (a)): 'place a station in Atlanta D4-2' was
    refused "unknown city 'Atlanta D4-2'"; the hex (or id) then the name was read since s12v F1,
    the name then the id was not. Both are read; a name that is not the hex's is refused."""
    g = game(177)
    assert g.current_entity() == "GA"
    made, _ = mail(g, "lay 9 D6 1\nplace a station in Atlanta D4-2\nrun auto\npay out")
    assert made[:2] == ["lay 9 D6 1", "token Atlanta D4-2"]
    assert g.state.map.tokens[("D4", 2)][0] == "GA"
    from .helpers import intent_refusal
    assert "D4-2 is Atlanta, not Macon" in intent_refusal(game(177), "lay 9 D6 1\ntoken Macon D4-2\nrun auto")


def _seat(number: int, name: str):
    from pbm.e18xx.pbem.mailplay import PlainSeat

    return PlainSeat(number, name)


@pytest.fixture
def world(cli, tmp_path, tmp_path_factory, monkeypatch):
    """A new 18GA game by mail, Ann, Bob and Cy, through Dovecot and aiosmtpd (test_mail_round2.py)."""
    from .test_mail_round2 import _world

    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18GA", "ga-1")


def test_the_proxy_is_told_and_told_when_the_absent_seat_is_to_act(world):
    """Stock round 3 (finding F4, mails #46-#50): Ann's 'AWAY: 2026-11-28 2026-11-30 proxy 2' was
    noted in her own receipt only ("player 2 may move for you meanwhile (their mail with FOR: 1)");
    Bob, the proxy, was never told, and his "Ann to act" mail said nothing of FOR: 1. The proxy is
    mailed at once, and when the absent seat is to act his state mail says so, with the line to
    write. A round trip through real mail servers."""
    from .test_mail_round2 import available

    if available() is not None:
        pytest.skip(available())
    w = world
    today = datetime.utcnow().date()
    before = len(w.mails("ann@example.org"))
    assert "accepted" in w.deliver(3, f"AWAY: {today} {today + timedelta(days=2)} proxy 1")
    told = w.bodies("ann@example.org")[before:]
    assert [s for s, _ in told] == ["[ga-1] You are Cy's proxy"], told
    assert "Cy (player 3) is away from" in told[0][1] and "FOR: 3\n" in told[0][1] and "PLAYER: 1\n" in told[0][1]
    assert "player 1 accepted" in w.deliver(1, "pass")
    assert "player 2 accepted" in w.deliver(2, "pass")  # now Cy, away, is to act
    subject, body = w.last("ann@example.org")
    assert "Cy to act" in subject
    assert "YOU ARE CY'S PROXY: Cy (player 3) is away and named you to move for them" in body
    assert "the line FOR: 3" in body
    assert "YOU ARE" not in w.last("bob@example.org")[1]  # Bob is nobody's proxy
    assert "accepted" in w.deliver(1, "FOR: 3\npass")
    assert w.log()[-1]["player"] == 3 and w.log()[-1]["_via"] == "proxy Ann"

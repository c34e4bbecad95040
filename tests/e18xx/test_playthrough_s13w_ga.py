"""Play-through by mail s13w of 18GA (issue 29 acceptance, third verification round; seed 151, Ann,
Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/ga-s13w.jsonl holds the game, 468 actions, to the bank breaking)."""
import email
import email.policy
from datetime import date, timedelta

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s13w game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=151, suffix="-s13w", players=4)


def test_a_route_written_without_its_train():
    """ACL, OR 2 (finding F1, mail 035): 'run J12-I11' was refused "each route is a train then at
    least two stops; expected: run auto | run <train> <node> <node>..." - no mail before showed how to
    write a route, and ACL owned one train. The stops alone are a route: it runs the company's
    longest train not named by another route (4.2.3.1 still puts the best set in its place)."""
    g = game(37)
    assert g.current_entity() == "ACL"
    made, _ = intent_mail(g, "lay 8 H10 3\nrun J12-I11\npay out\nbuy a 2 train")
    assert "run 2 J12 I11" in made and made[-2] == "buy train 2"
    for line in ("run J12-I11", "run J12 I11", "run J12 - I11"):
        [mv] = parse_moves(line, "Bob")
        assert [(r.train, r.nodes) for r in mv.routes] == [("", ("J12", "I11"))], line
    [mv] = parse_moves("run 2 J12 I11", "Bob")
    assert mv.routes[0].train == "2"
    from .helpers import intent_refusal
    why = intent_refusal(game(37), "lay 8 H10 3\nrun J12 I11\nrun I11 G11\npay out")
    assert "(run J12 I11; I11 G11): ACL has more routes than trains: it owns 2" in why


def test_the_proxy_of_an_away_owner_is_told_an_offer_waits(tmp_path):
    """CoG, OR 4.1 (finding F2, mail 084): Ann was away with Bob her proxy; CoG offered Ann $100 for
    M&BR and Bob's mail said "Ann is to answer ... nothing is asked of you" - the offer would wait
    for Ann's return. The proxy is told that an offer waits for the away seat, and how to answer."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.e18xx.pbem.mailplay import broadcast
    from pbm.e18xx.pbem.pacing import set_away
    from pbm.models import Game, OutboxMessage

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "ga", 148, seed=151, suffix="-s13w", players=4, name="ga-w")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-w"))
        set_away(row, 1, date.today() - timedelta(days=1), date.today() + timedelta(days=3), proxy=2)
        out = apply(s, row, 3, "lay 15 F6 2\nbuy private M&BR 100\nbuy a 4 train")
        assert out.accepted and out.offer is not None, out.error
        broadcast(s, row, None, "pbm@example.org")
        s.flush()
        to_bob = [email.message_from_bytes(m.raw, policy=email.policy.default)
                  for m in s.scalars(select(OutboxMessage)) if "bob@example.org" in m.recipients]
    text = "\n".join(m.get_body(("plain",)).get_content() for m in to_bob)
    assert "YOU ARE ANN'S PROXY" in text and "an offer waits for Ann's answer" in text
    assert "FOR: 1" in text and "'accept M&BR'" in text

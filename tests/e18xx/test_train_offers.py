"""A train bought from a company of another president is an offer that president answers by mail
(18AL 4.2.5(d) and 18GA 4.2.5(d): "for any agreed price of at least $1"; 18VA 4.5.8 and 4.6.1:
"a mutually agreed price"; rulings-18AL.md and rulings-18VA.md, "train sales between companies").

The position is reached fast (random legal moves stored straight into the log), then the offer,
its answer and the state mails go through `pbm ingest` and the outbox like any other mail."""
from __future__ import annotations

import email
import email.policy
import random
import re

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game as Engine
from pbm.e18xx.pbem.exchange import export_game, fingerprint, replay_export
from pbm.e18xx.pbem.games import action_rows, load, needs_consent, players
from pbm.models import Action18, Game, OutboxMessage
from tests.e18xx.helpers import pick
from tests.e18xx.test_pbem_mail import PLAYERS, _body, answer, send

SEAT = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}


@pytest.fixture(params=["18AL", "18VA"])
def rr(request, cli, tmp_path):
    """A game 'rr-1' of the title, stored up to a company's turn in which it may buy a train
    from a company of another president; returns (mail fixture, title)."""
    import mailbox

    title = request.param
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", title, "--players", str(csv), "--seed", "5", "--name", "rr-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    rng = random.Random(0)
    g = Engine(title, [n for n, _ in PLAYERS], 5)
    acts = []
    for _ in range(2000):
        legal = g.legal_actions()
        if g.state.round.kind == "operating" and any(_across(g, a) for a in legal):
            break
        a = pick(rng, [a for a in legal if not _across(g, a) and not isinstance(a, A.BuyCompany)])
        acts.append((SEAT[g.controller(a.entity)], a))
        g.process(a)
    else:
        raise AssertionError("no sale between companies came up")
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "rr-1"))
        for seq, (seat, a) in enumerate(acts, 1):
            s.add(Action18(game_id=row.id, seq=seq, player_number=seat, action=a.to_dict()))
        row.turn = g.state.turn
    return (cli, secrets, md, tmp_path / "Maildir"), title


def _across(g, a) -> bool:
    """Is ``a`` a train bought from a company of another president?"""
    if not isinstance(a, A.BuyTrain) or a.train not in g.state.trains:
        return False
    owner = g.state.trains[a.train].owner
    return owner.startswith("C:") and owner != f"C:{a.entity}" and \
        g.president(owner[2:]) != g.controller(a.entity)


def _state(cli):
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "rr-1"))
        return load(s, row), len(action_rows(s, row))


def _offer_row(cli):
    with session_scope(cli.url) as s:
        return (s.scalar(select(Game).where(Game.name == "rr-1")).state or {}).get("offer")


def _outbox(cli, prefix: str) -> list[tuple[list[str], str, str]]:
    with session_scope(cli.url) as s:
        rows = s.scalars(select(OutboxMessage).where(OutboxMessage.key.like(prefix + "%"))).all()
        out = []
        for r in rows:
            msg = email.message_from_bytes(r.raw, policy=email.policy.default)
            out.append((list(r.recipients or []), str(msg["Subject"]), _body(msg)))
        return out


def _sale(game):
    """(buyer company, its president, the train, the seller company, the seller's president)."""
    buyer = game.current_entity()
    pres = game.controller(buyer)
    from pbm.e18xx.pbem.moves import _of_type

    a = next(a for a in game.legal_actions() if _across(game, a))
    seller = game.state.trains[a.train].owner[2:]
    # the seller's train a mail naming its type takes (the lowest-numbered: moves.train_by_type)
    tid = _of_type(game, list(game.state.corporations[seller].trains), game.train_label(a.train))[0]
    return buyer, pres, tid, seller, game.president(seller)


def test_a_train_of_another_presidents_company_is_an_offer_until_accepted(rr):
    ga, title = rr
    cli = ga[0]
    game, n0 = _state(cli)
    buyer, pres, tid, seller, owner = _sale(game)
    kind = game.train_label(tid)  # the mails name the train by its type (issue 29 leftovers)
    cash, total = dict(game.state.cash), game.total_cash()
    line, inbound = send(ga, SEAT[pres], f"buy train {kind} from {seller} 1", game="rr-1")
    assert "accepted" in line, line
    game, n1 = _state(cli)
    assert n1 == n0 and game.state.trains[tid].owner == f"C:{seller}" and game.state.cash == cash
    assert game.current_entity() == buyer  # the buyer waits for the answer
    text = answer(cli, inbound)[1]
    rule = "4.2.5(d)" if title == "18AL" else "4.5.8, 4.6.1"
    assert f"OFFER MADE, NOT YET A SALE: {buyer} offers {owner} $1 for {seller}'s {kind} train" in text
    assert f"rule {rule}" in text
    told = _outbox(cli, "offer:")
    assert len(told) == 1
    to, subject, body = told[0]
    assert to == [dict(PLAYERS)[owner]]
    assert f"{buyer} offers $1 for the {kind} train of your company {seller}" in body and f"accept {kind}\n" in body
    assert tid not in body and tid not in subject
    assert (f"Offer waiting: {buyer} ({pres}'s company) offers {owner}, president of {seller}, $1 for {seller}'s "
            f"{kind} train") in cli("18xx", "status", "rr-1").stdout
    # the buyer's president cannot answer his own offer
    if pres != owner:
        line, inbound = send(ga, SEAT[pres], f"accept {kind}", game="rr-1")
        assert "rejected" in line and f"waits for {owner}'s answer, not yours" in answer(cli, inbound)[1]
    # the seller's president accepts: one BuyTrain, naming the seller, at the agreed price
    line, inbound = send(ga, SEAT[owner], f"accept {kind}", game="rr-1")
    assert "accepted" in line, line
    game, n2 = _state(cli)
    # the BuyTrain, then the buyer's turn ends: the offer was the mail's last line (18VA s13 F3)
    assert n2 > n1 and game.state.trains[tid].owner == f"C:{buyer}"
    assert game.state.cash[f"C:{buyer}"] == cash[f"C:{buyer}"] - 1
    assert game.state.cash[f"C:{seller}"] == cash[f"C:{seller}"] + 1
    assert game.total_cash() == total and _offer_row(cli) is None
    text = answer(cli, inbound)[1]
    assert f"SALE AGREED: {owner} accepted {buyer}'s offer: {seller}'s {kind} train for $1" in text
    assert f"buy train {kind} from {seller} 1 (agreed by {owner})" in text  # the log line names the seller
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "rr-1"))
        last = next(r for r in reversed(action_rows(s, row)) if r.action["type"] == "buy_train")
        assert last.action["type"] == "buy_train" and last.action["seller"] == seller
        assert last.player_number == SEAT[pres]  # charged to the buyer's president
        export = export_game(s, row)
    # the export holds one plain buy_train (18xx.games' shape) and replays to the same state
    bought = [a for a in export["actions"] if a["type"] == "buy_train"][-1]
    assert bought["train"] == tid and bought["price"] == 1 and "seller" not in bought
    assert fingerprint(replay_export(export)) == export["pbm"]["fingerprint"]


def test_a_declined_train_offer_changes_nothing_and_the_buyer_is_told(rr):
    ga, _ = rr
    cli = ga[0]
    game, n0 = _state(cli)
    buyer, pres, tid, seller, owner = _sale(game)
    cash = dict(game.state.cash)
    send(ga, SEAT[pres], f"buy train {tid} from {seller} 5", game="rr-1")
    line, inbound = send(ga, SEAT[owner], f"decline {tid}", game="rr-1")
    assert "accepted" in line, line
    game, n1 = _state(cli)
    assert n1 == n0 and game.state.trains[tid].owner == f"C:{seller}" and game.state.cash == cash
    assert game.current_entity() == buyer
    # written in an old mail's id form, still read; the reply names the type
    assert (f"OFFER DECLINED: {owner} declined {buyer}'s offer of $5 for {seller}'s {game.train_label(tid)} train"
            in answer(cli, inbound)[1])
    told = _outbox(cli, "offer-declined:")
    assert len(told) == 1 and told[0][0] == [dict(PLAYERS)[pres]]
    line, inbound = send(ga, SEAT[owner], f"accept {tid}", game="rr-1")
    assert "rejected" in line and "there is no offer waiting" in answer(cli, inbound)[1]


def test_a_train_offer_lapses_when_the_buyer_moves_on(rr):
    """Ruling (train sales between companies): the offer stands until the seller answers or the
    game moves on; any move of the buyer's withdraws it, and a late 'accept' is refused."""
    ga, _ = rr
    cli = ga[0]
    game, n0 = _state(cli)
    buyer, pres, tid, seller, owner = _sale(game)
    send(ga, SEAT[pres], f"buy train {tid} from {seller} 1", game="rr-1")
    assert _offer_row(cli) is not None
    other = next(a for a in game.legal_actions() if a.entity == buyer and not needs_consent(game, pres, a)
                 and not isinstance(a, A.Bankrupt))
    from pbm.e18xx.pbem.games import move_text

    line, _ = send(ga, SEAT[pres], move_text(game, other), game="rr-1")
    assert "accepted" in line, line
    assert _offer_row(cli) is None
    line, inbound = send(ga, SEAT[owner], f"accept {tid}", game="rr-1")
    assert "rejected" in line and "there is no offer waiting" in answer(cli, inbound)[1]
    game, _ = _state(cli)
    assert game.state.trains[tid].owner == f"C:{seller}"


def test_moves_after_an_offer_wait_for_its_answer(rr):
    """Play-through s10b finding 6: the moves after an offer are kept with it (made once it is
    accepted), not refused."""
    ga, _ = rr
    cli = ga[0]
    game, n0 = _state(cli)
    buyer, pres, tid, seller, owner = _sale(game)
    line, inbound = send(ga, SEAT[pres], f"buy train {tid} from {seller} 1\ndone", game="rr-1")
    assert "accepted" in line, line
    assert "Your moves after the offer (done) wait for that answer" in answer(cli, inbound)[1]
    assert _state(cli)[1] == n0 and (_offer_row(cli) or {}).get("rest") == ["done"]


def test_a_wrong_seller_is_refused_with_the_trains_owner(rr):
    ga, _ = rr
    cli = ga[0]
    game, n0 = _state(cli)
    buyer, pres, tid, seller, owner = _sale(game)
    wrong = next(c for c in game.state.corporations if c not in (seller, buyer))
    line, inbound = send(ga, SEAT[pres], f"buy train {tid} from {wrong} 1", game="rr-1")
    assert "rejected" in line
    assert f"train {tid} belongs to {seller}, not {wrong}" in answer(cli, inbound)[1]


def test_between_companies_of_one_president_the_sale_needs_no_offer():
    """4.2.5(d): between his own companies the president agrees with himself; the log names the seller."""
    from pbm.e18xx.pbem.moves import format_action

    g = Engine("18AL", ["Ann", "Bob", "Cy"], 5)
    assert needs_consent(g, "Ann", A.BuyTrain("ABC", "2-0", 1)) is None  # no such sale yet: the bank's train
    rng = random.Random(0)
    for _ in range(3000):
        legal = g.legal_actions()
        own = [a for a in legal if isinstance(a, A.BuyTrain) and g.state.trains[a.train].owner.startswith("C:")
               and g.state.trains[a.train].owner != f"C:{a.entity}" and not needs_consent(g, g.controller(a.entity), a)]
        if own:
            a = own[0]
            seller = g.state.trains[a.train].owner[2:]
            assert g.president(seller) == g.controller(a.entity)
            g.process(A.BuyTrain(a.entity, a.train, 1, a.variant, seller=seller))
            assert g.state.trains[a.train].owner == f"C:{a.entity}"
            assert g.state.log[-1].endswith(f"buys train {a.train} from {seller} for 1") or \
                any(f"buys train {a.train} from {seller} for 1" in x for x in g.state.log[-4:])
            assert format_action(A.BuyTrain(a.entity, a.train, 1, seller=seller)) == \
                f"buy train {g.state.trains[a.train].name} from {seller} 1"  # by type (issue 29 leftovers)
            return
        if g.finished:
            break
        g.process(pick(rng, [a for a in legal if not needs_consent(g, g.controller(a.entity), a)]))
    pytest.skip("no sale between one president's companies came up")


def test_a_computer_seat_sells_its_companys_train_at_face_value_or_more():
    """Ruling (rulings-18AL.md 4.2.5(d)): an offer for a train of a company a computer seat presides
    is answered at once: accepted at the train's face value or more, declined below."""
    from pbm.e18xx.pbem.computer import computer_answer

    g = Engine("18AL", ["Ann", "Bob", "Cy"], 5)
    face = g.state.trains["2-0"].price
    offer = {"kind": "train", "company": "2-0", "seller": "L&N", "price": face}
    assert computer_answer(g, offer) == "accept 2"  # the train by its type (issue 29 leftovers)
    assert computer_answer(g, {**offer, "price": face - 1}) == "decline 2"


def test_the_moderators_move_names_both_companies_of_a_train_offer(rr):
    """`pbm 18xx move` printed a train offer as 'for 2-0': the buying company, its president, the
    selling company and its president are named."""
    ga, title = rr
    cli = ga[0]
    game, n0 = _state(cli)
    buyer, pres, tid, seller, owner = _sale(game)
    out = cli("18xx", "move", "rr-1", f"buy train {tid} from {seller} 1", "--player", str(SEAT[pres]),
              "--no-mail").stdout
    assert (f"Offer, not a sale: {buyer} ({pres}'s company) offers {owner}, president of {seller}, $1 "
            f"for {seller}'s {game.train_label(tid)} train; {owner} (player {SEAT[owner]}) answers "
            f"'accept {game.train_label(tid)}'") in out, out
    assert _state(cli)[1] == n0  # nothing stored: the seller's president has not agreed


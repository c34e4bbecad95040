"""18GA 3.2 by mail: a private changes hands between players only at a price its owner agrees to."""
from __future__ import annotations

import random

from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem.games import move_text
from pbm.models import Game, OutboxMessage
from tests.e18xx.helpers import pick
from tests.e18xx.test_pbem_mail import PLAYERS, _body, answer, ga, send, state  # noqa: F401 (ga: fixture)

SEAT = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}


def _to_a_sale(ga):
    """Mail random legal moves (never a private's sale) until a player in a stock round may buy
    another player's private; returns (game, buyer, private, owner)."""
    cli = ga[0]
    rng = random.Random(7)
    for _ in range(60):
        game, _ = state(cli)
        ent = game.current_entity()
        if game.state.round.kind == "stock" and ent in SEAT:
            comps = game._player_companies_for_sale(ent)
            if comps:
                comp = comps[0]
                return game, ent, comp, game.state.companies[comp].owner[2:]
        acts = [a for a in game.legal_actions() if not isinstance(a, A.BuyCompany)]
        act = pick(rng, acts)
        line, _ = send(ga, SEAT[game.controller(act.entity)], move_text(game, act))
        assert "accepted" in line, line
    raise AssertionError("no player-to-player sale came up")


def _outbox(cli, prefix: str) -> list[str]:
    import email
    import email.policy

    with session_scope(cli.url) as s:
        rows = s.scalars(select(OutboxMessage).where(OutboxMessage.key.like(prefix + "%"))).all()
        return [_body(email.message_from_bytes(r.raw, policy=email.policy.default)) for r in rows]


def test_buying_another_players_private_is_an_offer_until_the_owner_accepts(ga):
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    cash = dict(game.state.cash)
    total = game.total_cash()
    _, n0 = state(cli)
    line, inbound = send(ga, SEAT[buyer], f"buy private {comp} 1")
    assert "accepted" in line, line
    game, n1 = state(cli)
    assert n1 == n0 and game.state.companies[comp].owner == f"P:{owner}"  # nothing changed hands
    assert game.state.cash == cash
    msg, text = answer(cli, inbound)
    assert f"OFFER MADE, NOT YET A SALE: {buyer} offers {owner} $1 for {comp}" in text
    # the buyer is asked nothing until the answer: his mail does not say it is his turn
    assert msg["Subject"].endswith(f"Your offer waits for {owner}'s answer"), msg["Subject"]
    assert "YOUR OFFER WAITS" in text and f"waits for {owner}'s answer first" in text
    assert "IT IS YOUR TURN" not in text
    told = _outbox(cli, "offer:")
    assert len(told) == 1 and f"accept {comp}" in told[0] and f"{buyer} offers you $1" in told[0]
    status = cli("18xx", "status", "ga-1").stdout  # the moderator sees the offer waiting
    assert f"Offer waiting: {buyer} offers {owner} $1 for {comp}; {owner} answers 'accept {comp}'" in status
    # someone else cannot accept it
    other = next(n for n in SEAT if n not in (buyer, owner))
    line, inbound = send(ga, SEAT[other], f"accept {comp}")
    assert "rejected" in line
    assert f"waits for {owner}'s answer, not yours" in answer(cli, inbound)[1]
    # the owner accepts: the sale happens as offered
    line, inbound = send(ga, SEAT[owner], f"accept {comp}")
    assert "accepted" in line, line
    game, n2 = state(cli)
    assert n2 == n1 + 1 and game.state.companies[comp].owner == f"P:{buyer}"
    assert game.state.cash[f"P:{buyer}"] == cash[f"P:{buyer}"] - 1
    assert game.state.cash[f"P:{owner}"] == cash[f"P:{owner}"] + 1
    assert game.total_cash() == total
    _, text = answer(cli, inbound)
    assert f"SALE AGREED: {owner} accepted {buyer}'s offer: {comp} for $1" in text
    assert "(agreed by" in text
    with session_scope(cli.url) as s:
        assert s.scalar(select(Game).where(Game.name == "ga-1")).state.get("offer") is None


def test_a_declined_offer_changes_nothing_and_the_buyer_is_told(ga):
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    cash = dict(game.state.cash)
    send(ga, SEAT[buyer], f"buy private {comp} 1")
    line, inbound = send(ga, SEAT[owner], f"decline {comp}")
    assert "accepted" in line, line
    game, _ = state(cli)
    assert game.state.companies[comp].owner == f"P:{owner}" and game.state.cash == cash
    assert game.current_entity() == buyer
    assert "OFFER DECLINED" in answer(cli, inbound)[1]
    told = _outbox(cli, "offer-declined:")
    assert len(told) == 1 and f"{owner} declined {buyer}'s offer of $1 for {comp}" in told[0]
    # the declined offer cannot be accepted afterwards
    line, inbound = send(ga, SEAT[owner], f"accept {comp}")
    assert "rejected" in line and "there is no offer waiting" in answer(cli, inbound)[1]


def test_moves_after_an_offer_wait_for_the_answer(ga):
    """Play-through s10b finding 6: moves written after an offer wait for the owner's answer (the
    offer reply says so); in a stock round the purchase ends the buyer's turn, so a 'done' after it
    is not needed and the accept reply says the moves were not made (the company's case, where
    they are made: test_playthrough_s10b.py::test_the_offer_mail_carries_the_rest_of_the_turn)."""
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    _, n0 = state(cli)
    line, inbound = send(ga, SEAT[buyer], f"buy private {comp} 1\ndone")
    assert "accepted" in line, line
    _, text = answer(cli, inbound)
    assert "Your moves after the offer (done) wait for that answer" in text
    assert state(cli)[1] == n0  # nothing made yet
    line, inbound = send(ga, SEAT[owner], f"accept {comp}")
    assert "accepted" in line, line
    game, n1 = state(cli)
    assert n1 == n0 + 1 and game.state.companies[comp].owner == f"P:{buyer}"
    assert f"{buyer}'s turn ended with the sale; the moves written after the offer (done) were not made" \
        in answer(cli, inbound)[1]


def test_one_offer_a_mail(ga):
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    _, n0 = state(cli)
    line, inbound = send(ga, SEAT[buyer], f"buy private {comp} 1\nbuy private {comp} 2")
    assert "rejected" in line
    assert "one offer a mail" in answer(cli, inbound)[1]
    assert state(cli)[1] == n0


def _computer_owns(ga, owner: str) -> None:
    out = ga[0]("18xx", "seat", "ga-1", "--player", str(SEAT[owner]), "--computer").stdout
    assert "played by the computer" in out, out


def test_a_computer_seat_declines_a_low_offer_at_once(ga):
    """Ruling (rulings-18GA.md, 3.2): an offer to a computer seat is answered at once; below 1.5x face
    value it is declined, nothing changes hands and the buyer is still to act."""
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    _computer_owns(ga, owner)
    cash, n0 = dict(game.state.cash), state(cli)[1]
    face = game.state.companies[comp].value
    low = int(face * 1.5) - 1
    line, inbound = send(ga, SEAT[buyer], f"buy private {comp} {low}")
    assert "accepted" in line, line
    game, n1 = state(cli)
    assert n1 == n0 and game.state.companies[comp].owner == f"P:{owner}" and game.state.cash == cash
    assert game.current_entity() == buyer
    text = answer(cli, inbound)[1]
    assert f"OFFER DECLINED: {owner} declined {buyer}'s offer of ${low} for {comp}" in text
    assert _outbox(cli, "offer:") == []  # the absent owner is not asked
    with session_scope(cli.url) as s:
        assert s.scalar(select(Game).where(Game.name == "ga-1")).state.get("offer") is None


def test_a_computer_seat_sells_at_one_and_a_half_times_face_value(ga):
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    _computer_owns(ga, owner)
    cash, total, n0 = dict(game.state.cash), game.total_cash(), state(cli)[1]
    price = -(-game.state.companies[comp].value * 3 // 2)  # 1.5x face, rounded up
    if cash[f"P:{buyer}"] < price:
        import pytest

        pytest.skip("the buyer cannot pay 1.5x face value in this position")
    line, inbound = send(ga, SEAT[buyer], f"buy private {comp} {price}")
    assert "accepted" in line, line
    game, n1 = state(cli)
    assert n1 == n0 + 1 and game.state.companies[comp].owner == f"P:{buyer}"
    assert game.state.cash[f"P:{buyer}"] == cash[f"P:{buyer}"] - price
    assert game.state.cash[f"P:{owner}"] == cash[f"P:{owner}"] + price
    assert game.total_cash() == total
    text = answer(cli, inbound)[1]
    assert f"SALE AGREED: {owner} accepted {buyer}'s offer: {comp} for ${price}" in text
    assert f"agreed by the computer playing {owner}" in text


def test_an_offer_waiting_when_the_seat_goes_to_the_computer_is_answered(ga):
    cli = ga[0]
    game, buyer, comp, owner = _to_a_sale(ga)
    send(ga, SEAT[buyer], f"buy private {comp} 1")
    _computer_owns(ga, owner)
    with session_scope(cli.url) as s:
        assert s.scalar(select(Game).where(Game.name == "ga-1")).state.get("offer") is None
    told = _outbox(cli, "offer-declined:")
    assert len(told) == 1 and f"{owner} declined {buyer}'s offer of $1 for {comp}" in told[0]


def test_the_computer_never_buys_another_players_private():
    """The computer never takes a purchase that needs another player's consent, even as its fallback."""
    from pbm.e18xx.pbem.computer import choose
    from pbm.e18xx.pbem.games import needs_consent

    class Fake:
        finished = False

        def __init__(self):
            from types import SimpleNamespace as NS
            self.state = NS(round=NS(kind="operating"),
                            companies={"MRC": NS(owner="P:Bo", value=40), "LTR": NS(owner="P:Al", value=20)})
            self.actions = []

        def current_entity(self):
            return "W&A"

        def controller(self, ent):
            return "Al"

        def legal_actions(self):
            return [A.BuyCompany("W&A", "MRC", 80), A.BuyCompany("W&A", "LTR", 30)]

    game = Fake()
    assert needs_consent(game, "Al", game.legal_actions()[0]) == "Bo"
    assert needs_consent(game, "Al", game.legal_actions()[1]) is None  # its president's own private
    assert choose(game) == A.BuyCompany("W&A", "LTR", 30)

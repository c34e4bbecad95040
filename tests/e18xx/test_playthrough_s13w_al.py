"""Play-through by mail s13w of 18AL (issue 29 acceptance, third verification round; seed 152, Ann,
Bob, Cy, every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s13w.jsonl holds the game, 443 actions, to the bank breaking)."""
from datetime import datetime, timedelta

import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s13w game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=152, suffix="-s13w", players=3)


mail, refusal = intent_mail, intent_refusal


def bought(line: str, player: str = "Cy") -> list[tuple[str, int, str]]:
    """The private, price and named owner of a purchase line, as pbm reads it."""
    return [(m.move.company, m.move.price, m.owner) for m in parse_moves(line, player)]


def test_the_game_replays_to_the_bank_breaking():
    """The whole game, as the mails played it: six companies, 79 company turns, 4D trains, the bank
    broken in OR 8.2 (rule 5(a): the round in which the bank broke is completed, and no more)."""
    g = game(443)
    assert g.finished
    from pbm.e18xx.events import end_reason_words
    assert "bank" in end_reason_words(g)


def test_a_private_bought_by_its_rulebook_name():
    """ABC, OR 3.1 (finding F1, mail #61): 'buy the Memphis & Charleston from Ann for $100' - the
    private as Table III names it - was refused "say 'ipo' or 'market' ..." (read as a share, the
    reason about shares); 'buy M&C from Ann for $100' (mail #62) was then taken as the offer. The
    rulebook's name reads as the private's symbol, with or without its closing 'Railroad' or 'Co.'."""
    g = game(126)
    assert g.current_entity() == "ABC"
    assert g.state.companies["M&C"].owner == "P:Ann"
    assert bought("buy private M&C 100 from Ann") == [("M&C", 100, "Ann")]
    for line in ("buy the Memphis & Charleston from Ann for $100",
                 "buy the Memphis & Charleston Railroad from Ann for $100",
                 "buy Memphis & Charleston from Ann for 100"):
        assert bought(line) == [("M&C", 100, "Ann")], line
    assert bought("buy Brown & Sons Lumber Co. from Cy for $70") == [("BLC", 70, "Cy")]
    assert [m.company for m in parse_moves("bid $130 on New Decatur Yards", "Ann")] == ["NDY"]
    assert [m.corporation for m in parse_moves("buy L&N", "Ann")] == ["L&N"]


@pytest.fixture
def al_world(cli, tmp_path, tmp_path_factory, monkeypatch):
    """A new 18AL game by mail, Ann, Bob and Cy, through Dovecot and aiosmtpd (test_mail_round2.py)."""
    from .test_mail_round2 import _world

    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18AL", "al-1")


def test_the_proxy_notice_follows_the_moves_of_the_same_mail(al_world):
    """Stock round 2 (finding F2, mail #31): Ann, to act, mailed 'AWAY: 2026-11-28 2026-11-30 proxy 2'
    and 'pass' together. Bob's notice said "It is Ann's turn now (Ann): you may move for them at
    once" - but Ann's pass had ended her turn and Bob was to act. The notice is written after the
    mail's moves: "You are told when it is their turn". A round trip through real mail servers."""
    from .test_mail_round2 import available

    if available() is not None:
        pytest.skip(available())
    w = al_world
    today = datetime.utcnow().date()
    before = len(w.mails("bob@example.org"))
    assert "accepted" in w.deliver(1, f"AWAY: {today} {today + timedelta(days=2)} proxy 2\nbid 20 TR")
    told = [(s, b) for s, b in w.bodies("bob@example.org")[before:] if "proxy" in s]
    assert [s for s, _ in told] == ["[al-1] You are Ann's proxy"], told
    assert "You are told when it is their turn." in told[0][1] and "turn now" not in told[0][1]

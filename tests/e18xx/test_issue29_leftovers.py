"""Issue-29 leftovers of the session-10 play-through (/work/playthrough-notes/findings-s10.md):
what the events, Last moves and status say, replayed from the play-through's own games
(tests/e18xx/playthrough/<game>-s10.jsonl, as tests/e18xx/test_playthrough_s10.py)."""
from __future__ import annotations

import json

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.events import attach, money_of, recorded
from tests.e18xx.test_playthrough_s10 import HERE, TITLES


def _lines(key: str) -> list[dict]:
    return [json.loads(x) for x in (HERE / f"{key}-s10.jsonl").read_text(encoding="utf-8").splitlines()]


def recorded_game(key: str, upto: int) -> Game:
    """The play-through's game ``key`` after its first ``upto`` actions, its events recorded."""
    g = Game(TITLES[key], ["Ann", "Bob", "Cy"], 29, (), ["1", "2", "3"])
    attach(g)
    for d in _lines(key)[:upto]:
        g.process(A.action_from_dict(d))
    return g


def texts(g: Game, seq: int) -> list[str]:
    money = money_of(g.title)
    return [e.text(money) for e in recorded(g) if e.seq == seq]


# -- finding 6: a dividend that leaves the price where it is says so, and why ---------------------
def test_18va_dividend_below_the_price_says_the_price_stays_and_why():
    g = recorded_game("va", 29)  # B&O pays $60 with its price at $90 (18VA 3.2: it does not move)
    said = texts(g, 29)
    assert "B&O pays out $60, $6 a share: Ann $24" in said
    assert ("B&O's share price stays at $90: the dividend, $60, is less than the share price, and only a "
            "dividend of at least the price moves it right (rule 3.2)") in said
    assert not any("share price goes" in x for x in said)
    g = recorded_game("va", 71)  # B&O pays $160 at $90 or more: the price moves right, nothing "stays"
    said = texts(g, 71)
    assert any(x.startswith("B&O's share price goes up") for x in said)
    assert not any("stays" in x for x in said)


@pytest.mark.parametrize("key, seq, corp, rule", [("ga", 34, "CoG", "4.2.4"), ("al", 45, "WRA", "4.2.4"),
                                                  ("aus", 41, "CAR", "11.1")])
def test_a_payout_at_the_top_of_the_last_column_says_the_price_stays(key, seq, corp, rule):
    g = recorded_game(key, seq - 1)
    c = g.state.corporations[corp]
    top = len(g.title.market[0]) - 1
    g._set_price(c, (0, top))  # a payout moves it right, or up at the end of a row: no cell either way
    g.process(A.action_from_dict(_lines(key)[seq - 1]))
    price = g.title.market[0][top].price
    assert (f"{corp}'s share price stays at {money_of(g.title)(price)}: it is at the top of the chart's last "
            f"column: a payout has no cell to move it to (rule {rule})") in texts(g, seq)


def test_a_withhold_at_the_foot_of_the_first_column_says_the_price_stays():
    g = recorded_game("al", 26)
    c = g.state.corporations["M&O"]
    g._set_price(c, (len(g.title.market) - 1, 0))
    g.process(A.action_from_dict(_lines("al")[26]))  # M&O earns nothing: a withhold
    assert ("M&O's share price stays at $30: it is at the foot of the chart's first column: a withhold has no "
            "cell to move it to (rule 4.2.4)") in texts(g, 27)


# -- finding 7: a train bought with a private's discount is its owning company's move --------------
def test_a_train_bought_with_a_private_names_the_company_the_train_the_price_and_the_private():
    from types import SimpleNamespace

    from pbm.e18xx.pbem.eventlines import action_line, grouped

    g = recorded_game("va", 63)  # N&W's mail 'buy train 3 with P2' (P2: $200 off a new train)
    shown = grouped(g, [e for e in recorded(g) if e.seq == 63])  # the game's own log: no stored rows
    assert shown[0] == "  #63 N&W: buy train 3 with P2 for $0 ($200 off)"
    row = SimpleNamespace(seq=63, action=_lines("va")[62], player_number=3)  # as stored from Cy's mail
    assert action_line(row, {3: "Cy"}, g) == "#63 Cy for N&W: buy train 3 with P2 for $0 ($200 off)"
    assert grouped(g, [e for e in recorded(g) if e.seq == 63], [row], {3: "Cy"})[0].startswith(
        "  #63 Cy for N&W: buy train 3 with P2")
    g = recorded_game("al", 100)  # 18AL's New Decatur Yards: half price
    assert grouped(g, [e for e in recorded(g) if e.seq == 100])[0] == "  #100 ABC: buy train 3 with NDY for $90 ($90 off)"


def _stored(url: str, key: str, upto: int):
    """The play-through's game ``key`` as a pbm game of Ann, Bob and Cy after ``upto`` actions, each
    stored as its mover's (the session's row, game row and replay)."""
    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import create_game
    from pbm.models import Action18
    from pbm.seats import SeatRequest

    scope = session_scope(url)
    s = scope.__enter__()
    row, _ = create_game(s, title=TITLES[key], seed=29, name=f"{key}-1",
                         seats=[SeatRequest(line=i, name=n, email="") for i, n in enumerate(["Ann", "Bob", "Cy"], 1)])
    g = recorded_game(key, 0)
    for seq, d in enumerate(_lines(key)[:upto], 1):
        act = A.action_from_dict(d)
        seat = ["Ann", "Bob", "Cy"].index(g.controller(g.current_entity())) + 1
        g.process(act)
        s.add(Action18(game_id=row.id, seq=seq, player_number=seat, action=d))
    s.flush()
    return scope, s, row


def test_last_moves_name_the_company_that_bought_a_train_with_a_private(sqlite_url):
    from pbm.e18xx.pbem.games import replay_rows
    from pbm.e18xx.pbem.mailplay import state_text

    scope, s, row = _stored(sqlite_url, "va", 63)
    try:
        text = state_text(s, row, replay_rows(s, row), legal=False)
        assert "#63   Cy for N&W: buy train 3 with P2 for $0 ($200 off)" in text
        assert "for P2" not in text
    finally:
        scope.__exit__(None, None, None)


# -- `pbm 18xx replay FILE --events` of an 18xx.games export: no certificate ids ------------------
def test_replay_events_of_an_export_say_the_share_as_the_mails_do(tmp_path, bank_export):
    import re

    from typer.testing import CliRunner

    from pbm.cli.e18xx import app

    p = tmp_path / "game.json"
    p.write_text(json.dumps(bank_export))
    res = CliRunner().invoke(app, ["replay", str(p), "--events"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert "#32 Player 3: buy CoG ipo" in lines  # was "buy CoG (CoG_4)"
    assert not re.search(r"\b[A-Z&]+_\d+\b", res.output)


def test_a_certificate_named_by_its_id_is_told_by_where_it_came_from(bank_export):
    from pbm.e18xx.pbem.moves import action_words, format_action
    from pbm.e18xx.replay import Replayer

    rep = Replayer(bank_export)
    attach(rep.game)
    g = rep.run()
    bought = g.recorder.bought_from
    market = next(seq for seq, src in bought.items() if src == "pool")
    act = g.actions[market - 1]
    corp = act.shares[0].rsplit("_", 1)[0]
    assert action_words(g, act, market) == (act.entity, f"buy {corp} market")
    ipo = next(seq for seq, src in bought.items() if src.startswith("ipo:"))
    assert action_words(g, g.actions[ipo - 1], ipo)[1] == f"buy {g.actions[ipo - 1].shares[0].rsplit('_', 1)[0]} ipo"
    assert format_action(act) == f"buy a {corp} share"  # without the game: still no id


# -- the status line of an offer names the selling company of a train ----------------------------
def test_offer_waiting_names_the_buyer_its_president_the_owner_and_the_selling_company(sqlite_url):
    from pbm.e18xx.pbem.games import replay_rows, set_offer
    from pbm.e18xx.pbem.mailplay import move_status, state_text

    scope, s, row = _stored(sqlite_url, "va", 63)
    try:
        g = replay_rows(s, row).game
        tid = next(t for t in g.corp_trains("C&O"))
        assert g.president("B&O") == "Ann" and g.president("C&O") == "Bob"
        set_offer(row, {"kind": "train", "buyer": 1, "buyer_name": "Ann", "entity": "B&O", "company": tid,
                        "seller": "C&O", "variant": None, "price": 1, "owner": "Bob", "owner_seat": 2, "at": 63})
        kind = tid.rsplit("-", 1)[0]  # the train by its type, never the id (issue 29 leftovers)
        want = (f"Offer waiting: B&O (Ann's company) offers Bob, president of C&O, $1 for C&O's {kind} train; "
                f"Bob answers 'accept {kind}' or 'decline {kind}'")
        assert want in state_text(s, row, replay_rows(s, row), legal=False)  # pbm 18xx status
        assert want in move_status(s, row)  # pbm status
        set_offer(row, {"buyer": 1, "buyer_name": "Ann", "entity": "Ann", "company": "P3", "price": 1,
                        "owner": "Cy", "owner_seat": 3, "at": 63})  # a private between players: as before
        assert "Offer waiting: Ann offers Cy $1 for P3; Cy answers 'accept P3'" in move_status(s, row)
    finally:
        scope.__exit__(None, None, None)

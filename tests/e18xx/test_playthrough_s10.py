"""Company turns as the session-10 play-through by mail wrote them from the rulebooks alone
(issue 29; /work/playthrough-notes/findings-s10.md).  The games are the play-through's own
(18AL, 1848, 18GA, 18VA; seed 29, players Ann, Bob and Cy): their actions are kept in
tests/e18xx/playthrough/<game>-s10.jsonl, and each test cuts one before a company's turn."""
from __future__ import annotations

import json

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.intent import play_intent
from pbm.e18xx.pbem.moves import format_action, parse_moves

from .helpers import PLAYTHROUGH, PLAYTHROUGH_TITLES, intent_mail, intent_refusal, playthrough_game

HERE, TITLES = PLAYTHROUGH, PLAYTHROUGH_TITLES


def game(key: str, upto: int) -> Game:
    """The play-through's game ``key`` after its first ``upto`` actions."""
    return playthrough_game(key, upto, seed=29, suffix="-s10")


mail, refusal = intent_mail, intent_refusal


# -- finding 4: a company's first turn in the rulebook's order (lay, run, pay, buy) ---------------
def test_first_turn_run_auto_without_a_train_is_skipped_with_a_note():
    g = game("al", 28)  # WRA's first turn: no train yet, but its track reaches Selma
    assert g.current_entity() == "WRA" and not g.corp_trains("WRA")
    made, notes = mail(g, "lay 5 L5 2\nrun auto\npayout\nbuy train 2\ndone")
    assert made[0] == "lay 5 L5 2" and "buy train 2" in made
    assert "run auto" not in made and "payout" not in made
    assert "move 2 (run auto): WRA owns no train, so it has nothing to run (18AL rule 4.2.3); " \
           "the run is skipped" in notes
    assert "move 3 (payout): nothing to pay out" in notes
    assert g.corp_trains("WRA") and g.current_entity() == "ABC"


def test_named_run_without_a_train_is_still_refused():
    why = refusal(game("al", 28), "lay 5 L5 2\nrun 2-0 L5 K4\nbuy train 2\ndone")
    assert "WRA owns no train" in why


# -- finding 2: one numbering of the stock chart in a mail ---------------------------------------
def test_stock_chart_cells_count_from_1_as_the_price_events_do():
    from pbm.e18xx.render.view import describe

    g = game("ga", 20)  # CoG's first turn: its lay is followed by a price move (no run)
    made, _ = mail(g, "lay 57 F6 0\nbuy train 2\ndone")
    assert made[0] == "lay 57 F6 0"
    # the mail's event said "CoG's share price goes down from $70 to $60 (market row 3 column 4 ->
    # row 3 column 3)"; the chart of the same mail said "$60 (r2 c2): CoG"
    text = describe(g)
    line = next(x for x in text.splitlines() if x.strip().endswith(": CoG"))
    assert "(row 3 column 3): CoG" in line and "(r2 c2)" not in text


# -- finding 5: a weaker route is refused naming the best one -------------------------------------
def test_weaker_route_refusal_names_the_best_route_to_write():
    g = game("al", 41)  # WRA's second turn: the new tile on J5 reaches Oxmoor
    assert g.current_entity() == "WRA"
    # 18AL 4.2.3.1: the best run "if any player who owns stock ... insists": the weaker run is made as
    # the best, and the reply names it (ruling of play-through s12v; it was refused)
    made, why = mail(g, "lay 9 J5 0\nrun 2 L5 K4\npayout\nbuy train 2\ndone")
    assert "run auto" in made, made
    assert "the routes must earn the most possible (50); these earn 40" in why
    assert "the best is 'run 2 L5 H5'" in why and "ran the best instead" in why  # as written by players (s11)
    made, _ = mail(game("al", 41), "lay 9 J5 0\nrun 2-1 L5-0 H5-0\npayout\nbuy train 2\ndone")  # an old id form
    assert "run 2 L5-0 H5-0" in made and "payout" in made  # shown by type (issue 29 leftovers)


def test_18va_best_route_words_for_freight_and_passenger_trains():
    from pbm.e18xx.freight import best_kinded
    from pbm.e18xx.rounds.or_trains import best_words

    g = game("va", 33)  # C&O after its lay on C8 and its station there, before its run
    assert g.current_entity() == "C&O"
    total, best = best_kinded(g, "C&O", g.corp_trains("C&O"))
    assert total == 40 and best_words(best) == "; the best is 'run 2-1 D9-0 C8-0' (or write 'run auto')"


# -- finding 1: a second train from the bank after the turn ended by itself -----------------------
def test_second_bank_train_says_the_turn_ended_and_why():
    g = game("ga", 20)  # CoG's first turn, phase 2 (one train from the bank a turn); the last company
    why = refusal(g, "lay 57 F6 0\nbuy train 2\nbuy train 2\ndone")
    assert why.startswith("move 3 (buy train 2): CoG's turn ended by itself after 'buy train 2' (in Phase 2 a "
                          "company may buy only one train from the Initial Offering per turn (rule 4.2.5(f))), so this "
                          "move would be Cy's in the stock round: ")
    made, notes = mail(game("ga", 20), "lay 57 F6 0\nbuy train 2\ndone")
    assert "CoG's turn ended by itself after 'buy train 2' (in Phase 2 a company may buy only one train from " \
           "the Initial Offering per turn (rule 4.2.5(f))): nothing more was allowed in it." in notes


def test_18va_train_after_the_turn_ended_names_the_next_company():
    g = game("va", 14)  # B&O must buy a train; C&O operates next
    why = refusal(g, "buy train 2\nbuy train 2\ndone")
    assert why.startswith("move 2 (buy train 2): B&O's turn ended by itself after 'buy train 2' (in Phase 2 a "
                          "company may buy only one train of each type from the Bank in an operating round (rule 4.5.8)), so this move "
                          "would be C&O's in the operating round: ")


# -- finding 3: the cities of a multi-city tile in the list of lays --------------------------------
def test_lay_list_names_each_city_of_a_multi_city_tile_as_a_station_is_written():
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game("ga", 50)  # W&A's second turn: Atlanta's tile 451a, its home station owed after it
    assert g.current_entity() == "W&A"
    line = next(x for x in legal_lines(g, limit=200) if x.startswith("lay 451a D4 1 "))
    assert line.endswith("# city 0 (D4-0, $30) to D2 (left); city 1 (D4-1, $30) to C5 (upper right); "
                         "city 2 (D4-2, $30) to E5 (lower right)"
                         "; then 'token D4-<n>' puts W&A's home station in the city you choose")  # s11 finding 14
    # so the mail the play-through sent second can be written first: the lay, the city towards E5
    made, _ = mail(g, "lay 451a D4 1\ntoken D4-2\nrun auto\npayout\ndone")
    assert made[:3] == ["lay 451a D4 1", "token D4-2", "run auto"]
    g2 = game("aus", 44)  # 1848 VR: the yellow tile of Ballarat & Bendigo joins one of its cities
    line = next(x for x in legal_lines(g2, limit=200) if x.startswith("lay 235 G10 5 "))
    assert line.endswith("# city 0 (G10-0, £30) to H11 Melbourne (lower right); city 1 (G10-1, £30) no track yet")


def test_lay_list_names_each_town_of_a_two_town_tile_as_a_route_writes_it():
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game("aus", 83)  # 1848 CAR, operating round 3.2: tiles of two towns on D3
    assert g.current_entity() == "CAR"
    line = next(x for x in legal_lines(g, limit=200) if x.startswith("lay 1 D3 0 "))
    assert "town 0 (D3-0, £10) to " in line and "; town 1 (D3-1, £10) to " in line


def test_18va_train_after_the_turn_ended_at_the_limit_names_it():
    g = game("va", 57)  # N&W, five-share, two trains (its limit): its turn ends with the payout
    why = refusal(g, "buy private P2 90\nrun auto\npayout\nbuy train 3 with P2\ndone")
    assert why.startswith("move 4 (buy train 3 with P2): N&W's turn ended by itself after 'payout' (N&W may buy no "
                          "train: it owns 1G, 2; the limit is 2 for a 5-share company in Phase 3")
    made, _ = mail(game("va", 57), "convert\nbuy private P2 90\nrun auto\npayout\nbuy train 3 with P2\ndone")
    assert made[0] == "convert" and "buy train 3 with P2" in " ".join(made)


# -- the same through real mail (Maildir in, `pbm ingest`, the answer in the outbox) ------------------
def test_mail_a_move_after_the_turn_ended_by_itself_says_why(cli, tmp_path):
    import mailbox
    import re

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import action_rows, load
    from pbm.models import Action18, Game as GameRow
    from tests.e18xx.test_pbem_mail import PLAYERS, answer, send

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18VA", "--players", str(csv), "--seed", "29", "--name", "va-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    lines = (HERE / "va-s10.jsonl").read_text(encoding="utf-8").splitlines()[:57]
    with session_scope(cli.url) as s:  # the play-through's first 57 actions, as its mails stored them
        row = s.scalar(select(GameRow).where(GameRow.name == "va-1"))
        for seq, line in enumerate(lines, 1):
            s.add(Action18(game_id=row.id, seq=seq, player_number=None, action=json.loads(line)))
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    ga = (cli, secrets, md, tmp_path / "Maildir")
    line, inbound = send(ga, 3, "buy private P2 90\nrun auto\npayout\nbuy train 3 with P2\ndone", game="va-1")
    assert "player 3 rejected" in line, line
    _, text = answer(cli, inbound)
    assert "Why: move 4 (buy train 3 with P2): N&W's turn ended by itself after 'payout' (N&W may buy no train: " \
           "it owns 1G, 2; the limit is 2 for a 5-share company in Phase 3" in text
    assert "so this move would be Cy's in the stock round" in text
    with session_scope(cli.url) as s:  # nothing of the mail was stored (the accepted form: the test above)
        assert len(action_rows(s, s.scalar(select(GameRow).where(GameRow.name == "va-1")))) == 57
        assert load(s, s.scalar(select(GameRow).where(GameRow.name == "va-1"))).current_entity() == "N&W"


# -- finding 11: an 18VA mine is not a town in the list of lays ------------------------------------
def test_18va_lay_on_a_mine_says_mine():
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game("va", 72)  # C&O, operating round 4.1: tile 4 on the mine at B7 (after B&O passed its train step, which P3 keeps open)
    assert g.current_entity() == "C&O"
    line = next(x for x in legal_lines(g, limit=200) if x.startswith("lay 4 B7 2 "))
    assert line.endswith("# mine; to A6 Grafton (upper left), C8 Staunton (lower right)")


# -- finding 12: a long event on the PDF's events page goes on over lines ---------------------------
def test_pdf_events_page_wraps_a_long_event_instead_of_cutting_it():
    from tests.e18xx.test_public_state import pdf_text

    from pbm.e18xx.events import attach

    g = Game("18VA", ["Ann", "Bob", "Cy"], 29, (), ["1", "2", "3"])
    attach(g)  # the events, as the mail's replay records them
    for line in (HERE / "va-s10.jsonl").read_text(encoding="utf-8").splitlines()[:49]:
        g.process(A.action_from_dict(json.loads(line)))  # up to B&O's first 3 train: the phase event
    text = pdf_text(g)
    assert "Phase 3 begins (was Phase 2)" in text
    assert "five-share companies may convert to ten shares" in text


def test_pdf_lays_page_keeps_every_city_of_a_long_lay_line():
    from tests.e18xx.test_public_state import pdf_text

    g = game("ga", 96)  # CoG at its track step: Atlanta's green tile, three cities a line
    assert g.current_entity() == "CoG"
    text = pdf_text(g)
    # lay 452a D4 0, which lays what its five other rotations lay (issue 29 finding 9), and its last city
    assert "city 2 (D4-2, $20) to D2 (left), D6 (right)" in text
    # the green Atlanta pays $20 a city where the yellow paid $30 (18GA designer's notes; finding 13)


# -- finding 9: 18VA's conversion step lists the lays of the track step after it ---------------------
def test_18va_convert_step_lists_the_lays_to_come_and_a_whole_turn_is_one_mail():
    from pbm.e18xx.core.state import clone_state
    from pbm.e18xx.events import attach, recorded
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game("va", 51)  # C&O, operating round 3.1, at its conversion step (18VA 4.5.1)
    rec = attach(g)
    assert g.current_entity() == "C&O" and "convert" in [a.type for a in g.legal_actions()]
    before, n, k = clone_state(g.state), len(g.actions), len(rec.events)
    lines = legal_lines(g, limit=10 ** 6)
    assert "convert" in lines
    lays = [x for x in lines if x.startswith("lay ")]
    assert "lay 4 B7 2 (same as 5)   # mine; to A6 Grafton (upper left), C8 Staunton (lower right)" in lays
    assert len(g.actions) == n and len(rec.events) == k and recorded(g) == recorded(g)
    assert g.state.round.index == before.round.index and g.current_entity() == "C&O"
    assert [a.type for a in g.legal_actions()][0:1] and "lay_tile" not in [a.type for a in g.legal_actions()]
    from tests.e18xx.test_move_lists import accepted
    assert all(accepted(g, line) is None for line in lays)  # each, copied alone, passes the step and lays
    made, _ = mail(g, "convert\nlay 4 B7 2\nrun auto\npayout\ndone")  # the turn the play-through could not write
    assert made[:2] == ["convert", "lay 4 B7 2"] and "run auto" in made


# -- finding 8: a train bought at full price while the company's private would take money off -------
def test_train_at_full_price_with_an_unused_discount_private_says_so():
    def notes_of(text: str) -> dict[str, str]:
        g = game("al", 70)  # ABC, operating round 3.1 (phase 3): buys NDY from its president, then a 3 train
        assert g.current_entity() == "ABC"
        made, _ = play_intent(g, "Bob", parse_moves(text, "Bob"))
        return {format_action(m.action): m.note for m in made}

    got = notes_of("lay 442a G4 1\nrun auto\npayout\nbuy private NDY 120\nbuy train 3\ndone")
    assert got["buy train 3"] == ("bought at the full price: NDY's $90 off was not used "
                                  "(write 'buy train 3 with NDY' to use it)")
    got = notes_of("lay 442a G4 1\nrun auto\npayout\nbuy private NDY 120\nbuy train 3 with NDY\ndone")
    assert "buy train 3 with NDY" in got and "not used" not in got["buy train 3 with NDY"]

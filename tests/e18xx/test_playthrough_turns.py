"""Company turns as the play-through by mail of 2026-11-26 wrote them from the rulebooks alone
(issue 29; /work/playthrough-notes/findings.md items 1, 2, 5, 7, 12, 13, 16).  The games are the
play-through's own (18AL, 1848, 18GA, 18VA; seed 5, players Ann, Bob and Cy): their actions are
kept in tests/e18xx/playthrough/<game>.jsonl, and each test cuts one before a company's turn."""
from __future__ import annotations

import json
import re

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.intent import play_intent
from pbm.e18xx.pbem.moves import format_action, parse_moves

from .helpers import PLAYTHROUGH, PLAYTHROUGH_TITLES, intent_mail, intent_refusal, playthrough_game

HERE, TITLES = PLAYTHROUGH, PLAYTHROUGH_TITLES


def game(key: str, upto: int) -> Game:
    """The play-through's game ``key`` after its first ``upto`` actions."""
    return playthrough_game(key, upto, seed=5, suffix="")


mail, refusal = intent_mail, intent_refusal


# -- items 1 and 2: a run the company cannot make ---------------------------------------------
def test_named_run_without_a_route_says_why():
    g = game("ga", 37)  # CoG: a 2 train, its station F6 joined to nothing
    assert g.current_entity() == "CoG"
    why = refusal(g, "lay 7 F8 1\nrun 2-0 F6 E7\npayout\nbuy train 2\ndone")  # an old mail's id form
    assert why.startswith("move 2 (run 2 F6 E7): CoG's trains have no route")  # said by type
    assert "no track joins its station (F6) to another stop" in why and "18GA rule 4.2.3" in why
    assert "may not run trains now" not in why


def test_18va_named_run_without_a_route_says_why():
    g = game("va", 29)  # B&O
    why = refusal(g, "lay 5 H3 1\nrun 2-0 H3 G4\npayout\ndone")
    assert "B&O's trains have no route" in why and "(H3)" in why and "18VA rule 4.5.5" in why


def test_run_of_a_company_without_a_train_says_so():
    g = game("ga", 27)  # CoG's first turn: no train yet
    assert g.current_entity() == "CoG" and not g.corp_trains("CoG")
    # a run auto is skipped with the reason (docs/18xx/email.md; findings-s10.md item 4)
    made, notes = mail(g, "lay 57 F6 1\nrun auto\ndone")
    assert made[0] == "lay 57 F6 1" and "run auto" not in made
    assert "move 2 (run auto): CoG owns no train" in notes and "the run is skipped" in notes
    why = refusal(game("ga", 27), "lay 57 F6 1\nrun 2-0 F6 E7\ndone")  # a named run stays refused
    assert "CoG owns no train" in why


def test_run_auto_without_a_route_is_a_run_of_nothing_and_payout_is_ignored():
    g = game("al", 37)  # M&O: a 2 train, no track from its station
    assert g.current_entity() == "M&O" and g.corp_trains("M&O")
    made, notes = mail(g, "lay 9 M2 0\nrun auto\npayout\ndone")
    assert made[0] == "lay 9 M2 0" and "run auto" not in made and "payout" not in made
    assert "move 2 (run auto): M&O's trains have no route" in notes and "the run is skipped" in notes
    assert "move 3 (payout): nothing to pay out" in notes and "ignored" in notes
    assert "M&O's turn is over" in notes
    assert g.current_entity() != "M&O"


def test_payout_after_a_run_that_earned_nothing_is_ignored():
    g = game("va", 34)  # N&W: freight trains only, its run earns nothing for a dividend
    assert g.current_entity() == "N&W"
    made, notes = mail(g, "lay 57 F11 0\nrun auto\npayout\nbuy train 2\ndone")
    assert made == ["lay 57 F11 0", "run auto", "buy train 2"]
    assert "move 3 (payout): nothing to pay out - its trains ran for 0" in notes


def test_second_payout_after_a_real_one_is_still_refused():
    g = game("va", 39)  # C&O: 2-2 runs D9-C8 for money
    assert g.current_entity() == "C&O"
    why = refusal(g, "run 2-2 D9 C8\npayout\npayout\ndone")
    assert why.startswith("move 3 (payout)")


# -- item 7: the home station a company is owed --------------------------------------------------
def test_owed_home_station_with_a_choice_names_the_lines_to_write():
    g = game("ga", 24)  # W&A's first turn: its tile in Atlanta gives it three cities to choose from
    assert g.current_entity() == "W&A"
    why = refusal(g, "lay 451a D4 0\nbuy train 2\ndone")
    assert why.startswith('move 2 (buy train 2): W&A must first "Place the home station the company is owed" '
                          "(18GA rule 4.2), and there is a choice")
    assert "'token D4-0' (Atlanta, city 0 of the hex; track to E3)" in why
    assert "'token D4-1' (Atlanta, city 1 of the hex; track to C3 Rome)" in why and "'token D4-2'" in why
    made, notes = mail(game("ga", 24), "lay 451a D4 0\ntoken D4-1\nbuy train 2\ndone")  # as the refusal says
    assert made[:3] == ["lay 451a D4 0", "token D4-1", "buy train 2"]


def test_owed_home_station_with_one_place_is_placed_for_the_player():
    g = game("ga", 24)
    g.process(A.LayTile("W&A", "D4", "451a", 0))
    assert g.state.pending_tokens == ["W&A"]
    # two of Atlanta's cities taken (as if other companies' stations stood there): one place is left
    g.state.map.tokens[("D4", 0)] = ["SAL"]
    g.state.map.tokens[("D4", 2)] = ["ACL"]
    made, notes = play_intent(g, "Ann", parse_moves("buy train 2\ndone", "Ann"))
    acts = [format_action(m.action) for m in made]
    assert acts[:2] == ["token D4-1", "buy train 2"]
    assert made[0].note.startswith("places W&A's home station in D4-1: \"Place the home station the company "
                                   "is owed\" (18GA rule 4.2), the only place for it (before move 1")
    assert g.state.map.tokens[("D4", 1)] == ["W&A"] and not g.state.pending_tokens


# -- item 12: a station refused without a reason ---------------------------------------------------
def test_station_that_cannot_be_placed_says_why():
    g = game("al", 37)  # M&O: its track does not reach K2
    why = refusal(g, "lay 9 M2 0\ntoken K2\ndone")
    assert why.startswith("move 2 (token K2): M&O may place no station this turn: K2:")
    assert "track does not reach it" in why and "may not place a station now" not in why


def test_station_after_its_step_was_passed_says_the_step_is_over():
    g = game("al", 32)  # WRA could place a station, but the mail runs first
    assert g._can_place_token("WRA")
    why = refusal(g, "lay 8 M4 4\nrun 2-0 L5 K4\npayout\ntoken K4\ndone")
    assert why.startswith("move 4 (token K4): WRA's station step is over: it was passed")
    assert '"Buy trains"' in why and "18AL rule 4.2.2" in why


# -- item 13: a private bought before the phase allows it ----------------------------------------
def test_1848_private_before_the_first_3_train_names_rule_4_1():
    g = game("aus", 28)  # VR in phase 2
    assert g.current_entity() == "VR" and g.phase.name == "2"
    why = refusal(g, "lay 5 H11 1\nbuy train 2\nbuy private P2 70\ndone")
    assert why == ("move 3 (buy private P2 70): companies may buy private companies only from the first 3 train on "
                   "(phase 3); this is phase 2 (rule 4.1, 9.3)")
    g2 = game("aus", 28)
    with pytest.raises(GameError, match=r"rule 4\.1"):  # the engine alone names the rule too
        g2.process(A.BuyCompany("VR", "P2", 70))


# -- item 5: buying a private as the rulebook says it ----------------------------------------------
def test_18ga_buy_the_cheapest_private_is_its_purchase():
    g = game("ga", 0)  # the private sale: LTR is the cheapest
    made, _ = mail(g, "buy LTR")
    assert made == ["bid 20 LTR"]  # the sale's own move: the purchase at its price (3.1(a))
    assert g.state.companies["LTR"].owner == "P:Ann"
    made2, _ = mail(game("ga", 0), "buy ltr")
    assert made2 == ["bid 20 LTR"]


def test_18ga_buy_a_private_that_is_not_the_cheapest_names_the_cheapest_and_the_bid():
    why = refusal(game("ga", 0), "buy MRC")
    assert "MRC is not the cheapest unsold private: you may buy only the cheapest, LTR, at its price ($20: " \
           "'buy LTR'), or bid on MRC: 'bid 45 MRC' or more (rule 3.1(a))" in why
    assert "share" not in why and "bid_" not in why


def test_1848_buy_a_private_in_the_falling_price_sale_is_its_purchase():
    g = game("aus", 0)
    price = g.company("P3").min_bid
    made, _ = mail(g, "buy P3")
    assert made == [f"bid {price} P3"] and g.state.companies["P3"].owner == "P:Ann"
    why = refusal(game("aus", 0), "buy CAR")  # a company's share is not for sale yet
    assert "'buy P1'" in why and "'lower P1'" in why and "(assign)" not in why and "(bid)" not in why


# -- item 16: a train named by its type, and the ids in the state text -----------------------------
def test_run_naming_the_train_type_runs_the_one_train_of_that_type():
    g = game("va", 37)  # C&O owns one 2 train, id 2-2
    assert g.corp_trains("C&O") == ["2-2"]
    n = len(g.actions)
    made, _ = mail(g, "lay 5 C8 5\nrun 2 D9 C8\npayout\ndone")
    assert "run 2 D9 C8" in made and "payout" in made
    assert [r.train for a in g.actions[n:] if isinstance(a, A.RunRoutes) for r in a.routes] == ["2-2"]
    why = refusal(game("va", 37), "lay 5 C8 5\nrun 2-0 D9 C8\npayout\ndone")  # a wrong id stays refused
    assert "C&O does not own train 2-0; it owns 2" in why


def test_state_text_shows_the_trains_by_type():
    """A run, a sale and a discard name a train by its type (issue 29 leftovers), so the state lists
    types, a freight side by its name, and never the ids (2-2)."""
    from pbm.e18xx.render.view import describe

    g = game("va", 37)
    line = next(x for x in describe(g).splitlines() if x.strip().startswith("C&O "))
    assert "trains 2 (limit" in line and "2-2" not in line
    line = next(x for x in describe(g).splitlines() if x.strip().startswith("N&W "))
    n_w = g.corp_trains("N&W")
    assert any(g.train_label(t) == "1G" for t in n_w) and re.search(r"trains (\S+, )*1G\b", line), line
    assert not re.search(r"\b2-\d+\b", line), line


def test_the_pdf_lists_trains_as_the_mail_does():
    """Issue 29: the PDF lists a company's trains by type, as the mail's state does (a freight side
    by its name: 1G), never the ids."""
    from pbm.e18xx.render.view import describe, train_list

    from .test_public_state import pdf_text

    g = game("va", 37)
    n_w = g.corp_trains("N&W")
    listed = train_list(g, n_w)
    assert len(n_w) >= 2 and "1G" in listed.split(", ") and "-" not in listed
    line = next(x for x in describe(g).splitlines() if x.strip().startswith("N&W "))
    assert f"trains {listed} (limit" in line
    assert f"{listed} (max " in pdf_text(g)


# -- through real mail: the play-through's own M&O mail (items 1 and 2) ---------------------------
def test_mail_run_auto_without_a_route_and_its_payout_are_accepted_with_notes(cli, tmp_path):
    import mailbox
    import re

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import action_rows, load
    from pbm.models import Action18, Game as GameRow
    from tests.e18xx.test_pbem_mail import PLAYERS, answer, send

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18AL", "--players", str(csv), "--seed", "5", "--name", "al-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    lines = (HERE / "al.jsonl").read_text(encoding="utf-8").splitlines()[:37]
    with session_scope(cli.url) as s:  # the play-through's first 37 actions, as its mails stored them
        row = s.scalar(select(GameRow).where(GameRow.name == "al-1"))
        for seq, line in enumerate(lines, 1):
            s.add(Action18(game_id=row.id, seq=seq, player_number=None, action=json.loads(line)))
    with session_scope(cli.url) as s:
        g = load(s, s.scalar(select(GameRow).where(GameRow.name == "al-1")))
        assert g.current_entity() == "M&O" and g.controller("M&O") == "Bob"
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    line, inbound = send((cli, secrets, md, tmp_path / "Maildir"), 2, "lay 9 M2 0\nrun auto\npayout\ndone",
                         game="al-1")
    assert "player 2 accepted" in line, line
    _, text = answer(cli, inbound)
    assert "move 2 (run auto): M&O's trains have no route" in text and "the run is skipped" in text
    assert "move 3 (payout): nothing to pay out" in text
    with session_scope(cli.url) as s:
        row = s.scalar(select(GameRow).where(GameRow.name == "al-1"))
        assert len(action_rows(s, row)) == 39  # the lay and the pass that skipped the train purchase
        assert load(s, row).current_entity() != "M&O"

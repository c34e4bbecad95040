"""Issue 29, met in every play-through by mail s12 (logs /work/pt/games/*-s12/LOG.md): a mail is the
whole turn, and the words players really write.

The states are the s11 play-through games (tests/e18xx/playthrough/<key>-s11.jsonl), one for each
title, cut where a company's operating turn or a player's stock turn (stock round 2 or later) begins.
"""
from __future__ import annotations

import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game

S11 = {"al": (72, 3), "ga": (71, 4), "va": (74, 4), "aus": (73, 4)}  # seed, players
# a stock turn in stock round 2+ (the action before it, a company the player may sell, one he may buy)
SR = {"al": (38, "TAG", "WRA"), "ga": (42, "CoG", "CoG"), "va": (149, "SR", "B&O"), "aus": (43, "QR", "NSW")}
# an operating turn of a company that owns trains with a route (the action before it)
OR = {"al": 43, "ga": 71, "va": 30, "aus": 57}
KEYS = sorted(S11)


def s11(key: str, upto: int):
    seed, players = S11[key]
    return playthrough_game(key, upto, seed=seed, suffix="-s11", players=players)


# -- 1. a mail is the whole turn ----------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_a_stock_mail_is_the_whole_turn(key):
    """s12 18GA #39, 18AL #45: 'buy W&A' in stock round 2 left the turn open ("Your stock turn goes on
    ... End it with 'done'"), a second mail 'pass' was needed. A sale may be followed by a purchase (18AL/
    18GA 3.2, 18VA 4.3.1-4.3.2, 1848 12.1.1), yet the mail that sells only is the turn: it ends."""
    upto, sell, _buy = SR[key]
    g = s11(key, upto)
    player = g.current_entity()
    made, notes = intent_mail(g, f"sell 1 {sell}")
    assert made == [f"sell 1 {sell}", "pass"]
    assert g.current_entity() != player
    assert "Your stock turn ended with your mail (as if 'done'); end a mail with 'more' to keep a turn open." \
        in notes


@pytest.mark.parametrize("key", KEYS)
def test_a_purchase_in_a_later_stock_round_ends_the_turn(key):
    """18AL/18GA 3.2: the purchase may precede the sales, so the engine keeps the turn open after it;
    the mail ends it (18VA 4.3.2 and 1848 12.1.1 end it by themselves: nothing may follow a purchase)."""
    upto, _sell, buy = SR[key]
    g = s11(key, upto)
    player = g.current_entity()
    made, notes = intent_mail(g, f"buy {buy}")
    assert made[0] == f"buy {buy} ipo" and g.current_entity() != player
    if key in ("al", "ga"):
        assert made[1:] == ["pass"] and "Your stock turn ended with your mail (as if 'done')" in notes
    else:
        assert made[1:] == [] and f"Your turn ended by itself after 'buy {buy} ipo'" in notes


@pytest.mark.parametrize("key", KEYS)
def test_more_keeps_a_stock_turn_open(key):
    upto, sell, _buy = SR[key]
    g = s11(key, upto)
    player = g.current_entity()
    made, notes = intent_mail(g, f"sell 1 {sell}\nmore")
    assert made == [f"sell 1 {sell}"] and g.current_entity() == player
    assert "Your stock turn goes on ('more')" in notes and "unless its last line is 'more'" in notes


@pytest.mark.parametrize("key", KEYS)
def test_a_company_mail_is_the_whole_turn(key):
    """s12 18AL #34, 18GA #32, 18VA #17: 'lay 6 G6 5 / buy a 2 train' left ABC's turn open because it
    could still buy another company's train; a second mail 'done' was needed. The steps the mail does
    not reach (buying trains, privates) are passed as 'done' passes them, and the reply says so."""
    g = s11(key, OR[key])
    corp = g.current_entity()
    made, notes = intent_mail(g, "run auto\npayout")
    assert "run auto" in made and "payout" in made and made[-1] == "pass"
    assert g.state.round.kind != "operating" or g._or_operator() != corp
    assert f"{corp}'s turn ended with your mail (as if 'done'); end a mail with 'more' to keep a turn open." in notes


@pytest.mark.parametrize("key", KEYS)
def test_more_keeps_a_company_turn_open(key):
    g = s11(key, OR[key])
    corp = g.current_entity()
    made, notes = intent_mail(g, "run auto\npayout\nmore")
    assert made[-1] == "payout" and g._or_operator() == corp
    assert f"{corp}'s turn goes on ('more')" in notes


def test_a_required_step_left_by_the_mail_keeps_the_turn_open_and_says_what_to_write():
    """A mail that stops before a step the president may not skip (the run: 18AL 4.2.3) is not refused:
    its moves are made, the turn stays open, and the reply names the step, its rule and what to write."""
    g = s11("al", 43)  # ABC, trains with a route
    made, notes = intent_mail(g, "pass")
    assert made == ["pass", "pass"] and g._or_operator() == "ABC" and g.open_step()[0].name == "route"
    assert ('ABC\'s turn is not over: "Run trains (the best routes unless you name yours)" (18AL rule 4.2.3) '
            "may not be skipped (a company whose trains can run must run them); write the routes") in notes
    assert "'run auto' in your next mail" in notes
    assert "ended with your mail" not in notes


def test_more_goes_on_the_last_line():
    g = s11("al", 43)
    why = intent_refusal(g, "more\nrun auto")
    assert "move 1 (more): 'more' goes on the mail's last line" in why


# -- 2. counts and filler in share moves ------------------------------------------------------------------
@pytest.mark.parametrize("text, move", [
    ("buy 1 GA share", "buy GA ipo"),
    ("buy one share of W&A", "buy W&A ipo"),
    ("buy 1 share of W&A from the Initial Offering", "buy W&A ipo"),
    ("buy 1 WRA share from the Initial Offering", "buy WRA ipo"),
    ("buy 1 CoG share from the Open Market", "buy CoG market"),
    ("sell 2 shares of ABC", "sell 2 ABC"),
    ("sell one ABC share", "sell 1 ABC"),
    ("sell ABC 2", "sell 2 ABC"),
])
def test_share_moves_with_a_count(text, move):
    from pbm.e18xx.pbem.moves import format_action

    assert [format_action(m) for m in parse_moves(text, "Ann")] == [move]


@pytest.mark.parametrize("key", KEYS)
def test_a_percentage_is_counted_in_the_companys_shares(key):
    upto, sell, buy = SR[key]
    g = s11(key, upto)
    made, _ = intent_mail(g, f"sell 10% of {sell}")
    assert made[0] == f"sell 1 {sell}"
    g = s11(key, upto)
    made, _ = intent_mail(g, f"buy 10% of {buy}")
    assert made[0] == f"buy {buy} ipo"


@pytest.mark.parametrize("key, rule", [("al", "3.2(c)"), ("ga", "3.2(c)"), ("va", "4.3.2"), ("aus", "12.1.1")])
def test_more_than_one_share_a_turn_is_refused_with_the_rule(key, rule):
    """s12 18AL #101: 'buy 2 ATN shares' was answered "say 'ipo' or 'market'"; a player buys one
    certificate a turn (18AL/18GA 3.2(c), 18VA 4.3.2, 1848 12.1.1)."""
    upto, _sell, buy = SR[key]
    g = s11(key, upto)
    why = intent_refusal(g, f"buy 2 {buy} shares")
    assert why == (f"line 1: 'buy 2 {buy} shares': 2 shares: a player buys one certificate a turn (rule {rule}); "
                   f"write 'buy {buy}' for one share")
    why = intent_refusal(g, f"buy 20% of {buy}")
    assert f"a player buys one certificate a turn (rule {rule})" in why and f"'par {buy} <price>'" in why


# -- 4. a route naming a hex it only passes through ------------------------------------------------------
# (the action that runs, the hex of plain track one of its routes passes through, where it is written)
WAYPOINT = {"al": (90, "K6", 1), "ga": (58, "C9", 1), "va": (41, "F15", 1), "aus": (228, "D19", 2)}


def _run_with(g, key: str, at: int, hexname: str, where: int) -> str:
    """The routes the play-through ran at action ``at`` (its 'run auto'), written one a line by
    their stops' hexes, with ``hexname`` put in at position ``where`` of the route whose track passes
    through it (of the first route long enough when none does)."""
    after = s11(key, at + 1)
    hex_of = {bit: k[0] for k, bit in after.graph().side_bits.items()}
    lines, put = [], False
    for tid, route in after.state.round.routes:
        nodes = list(route.hexes())
        track = {hex_of.get(b) for b in range(route.mask.bit_length()) if route.mask >> b & 1}
        if not put and len(nodes) > where and (hexname in track or hexname not in {
                hex_of.get(b) for _t, r in after.state.round.routes for b in range(r.mask.bit_length())
                if r.mask >> b & 1}):
            nodes.insert(where, hexname)
            put = True
        lines.append(f"run {g.train_label(tid)} {' '.join(nodes)}")
    return "\n".join(lines)


@pytest.mark.parametrize("key", KEYS)
def test_a_hex_a_route_passes_through_is_a_waypoint(key):
    """s12 18AL #55: 'run 2 G8 H7 G6' (H7 plain track) was refused "H7 has no city, town or off-board to
    stop at". The hex is passed through: the route is run by its stops and the reply says so."""
    at, hexname, where = WAYPOINT[key]
    g = s11(key, at)
    mail = _run_with(g, key, at, hexname, where)
    assert hexname in mail
    made, notes = intent_mail(g, mail + "\nmore")
    assert made[-1].startswith("run ") and hexname not in made[-1]
    assert f"{hexname} is passed through, not a stop (plain track): train" in notes
    assert g.state.round.ran


def test_a_hex_off_the_route_is_refused():
    """A hex of plain track that no route through the stops passes through is refused, saying so."""
    g = s11("al", 90)
    m = g.state.map
    plain = sorted(h for h in m.placed if not m.tile(h).nodes and m.tile(h).paths and h != "K6")
    assert plain
    mail = _run_with(g, "al", 90, plain[0], 1)
    why = intent_refusal(g, mail)
    assert f"{plain[0]} is plain track (no city, town or off-board to stop at), and no route from" in why


# -- 3. filler in other moves -----------------------------------------------------------------------------
@pytest.mark.parametrize("text, move", [
    ("bid $130 on NDY", "bid 130 NDY"),
    ("bid 160 on M&BR", "bid 160 M&BR"),
    ("bid $105 OSR", "bid 105 OSR"),
    ("place a bid of 45 on MRC", "bid 45 MRC"),
    ("par ABC at $70", "par ABC 70"),
    ("par CoG at 70", "par CoG 70"),
    ("buy private LTR for $25", "buy private LTR 25"),
    ("lay tile 6 in G6 rotation 5", "lay 6 G6 5"),
    ("lay 6 at G6 rot 5", "lay 6 G6 5"),
    ("lay tile 9 in F12 rotated 2 with MRC", "lay 9 F12 2 with MRC"),
    ("upgrade G6 to 14 rotation 2", "lay 14 G6 2"),
    ("token in Rome", "token Rome"),
    ("run 2 train B7 C6 E6 D7", "run 2 B7 C6 E6 D7"),
    ("run 2 train Augusta - Greeneville", "run 2 AUGUSTA GREENEVILLE"),
    ("run 2 Montgomery \u2013 Selma", "run 2 MONTGOMERY SELMA"),
    ("run 2 Rome -> Gadsden", "run 2 ROME GADSDEN"),
    ("run 2 Rome to Gadsden", "run 2 ROME GADSDEN"),
    ("run 2 D7 Rome - E6 Gadsden", "run 2 D7 E6"),  # pbm's own route events: a hex with its name
    ("run 2-0 D4-0 E1-0; 3-1 C3-0 A3-0", "run 2 D4-0 E1-0; 3 C3-0 A3-0"),  # printed by type
    ("buy L&N's 4 train for 250", "buy train 4 from L&N 250"),  # s12 18AL #90
])
def test_filler_in_moves(text, move):
    """s12 18AL #2, #11, #33, #40, #43, 18GA #2, #4, #8, #49, #50: the rulebook's and the players' words
    around a move ('$', 'on', 'at', 'tile', 'in', 'rotation', a route's 'train' and ' - ')."""
    from pbm.e18xx.pbem.moves import format_action

    assert [format_action(m) for m in parse_moves(text, "Ann")] == [move]


def test_a_place_of_two_words_between_separators_is_one_stop():
    (run,) = parse_moves("run 3 Montgomery - West Point", "Ann")
    assert run.routes[0].nodes == ("MONTGOMERY", "WEST POINT")
    from pbm.e18xx.pbem.moves import format_action
    assert parse_moves(format_action(run), "Ann") == [run]  # written back as it reads (an offer's held moves)


def test_a_private_from_its_owner_for_a_price():
    """s12 18GA #54: 'buy private LTR from Ann for 25' was refused "need the private and a price", though
    a train is bought 'from <owner> for <price>'. The owner named is checked."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.moves import MoveError, for_game

    g = s11("ga", SR["ga"][0])
    comp = next(c for c in sorted(g.state.companies.values(), key=lambda c: c.sym)
                if str(c.owner).startswith("P:") and not c.closed)
    owner = str(comp.owner)[2:]
    buyer = next(p for p in ("Ann", "Bob", "Cy", "Di") if p != owner)
    for text in (f"buy private {comp.sym} from {owner} for 25", f"buy {comp.sym} from {owner} for $25",
                 f"buy private {comp.sym} for $25 from {owner}"):
        (mv,) = parse_moves(text, buyer)
        assert for_game(g, buyer, mv) == A.BuyCompany(buyer, comp.sym, 25)
    other = next(p for p in ("Ann", "Bob", "Cy", "Di") if p not in (owner, buyer))
    (mv,) = parse_moves(f"buy private {comp.sym} from {other} for 25", buyer)
    with pytest.raises(MoveError) as err:
        for_game(g, buyer, mv)
    assert str(err.value) == (f"line 1: 'buy private {comp.sym} from {other} for 25': {comp.sym} is {owner}'s, "
                              f"not {other}'s; write 'buy private {comp.sym} 25' (its owner then answers the offer)")


@pytest.mark.parametrize("key", KEYS)
def test_a_route_written_with_dashes_and_the_word_train_runs(key):
    """s12 18GA #49/#50, 18AL #40/#43: 'run 2 train Augusta - Greeneville' read 'TRAIN' and '-' as stops."""
    at, _hex, _where = WAYPOINT[key]
    g = s11(key, at)
    plain = _run_with(g, key, at, "", 99)
    mail = "\n".join(f"{line.split()[0]} {line.split()[1]} train {' - '.join(line.split()[2:])}"
                     for line in plain.splitlines())
    assert " train " in mail and " - " in mail
    made, _ = intent_mail(g, mail + "\nmore")
    assert made[-1].startswith("run ") and g.state.round.ran


PAR = {"al": 9, "ga": 9, "va": 12, "aus": 11}  # the first state where a company may be started


@pytest.mark.parametrize("key", KEYS)
def test_a_par_price_and_a_bid_with_dollars_and_filler(key):
    """'par ABC at $70' (18AL #11) and 'bid $130 on NDY' (18AL #2) read against every title's game:
    the same moves as the game's own."""
    from pbm.e18xx.pbem.moves import for_game

    g = s11(key, PAR[key])
    par = next(a for a in g.legal_actions() if a.type == "par")
    (mv,) = parse_moves(f"par {par.corporation} at ${par.price}", g.current_entity())
    assert for_game(g, g.current_entity(), mv) == par
    g = s11(key, 0)
    bid = [a for a in g.legal_actions() if a.type == "bid"][1]  # not the cheapest: a bid, not its purchase
    (mv,) = parse_moves(f"bid ${bid.price} on {bid.company}", g.current_entity())
    assert for_game(g, g.current_entity(), mv) == bid


# -- 5. the president's mail outlines the whole turn -------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_the_presidents_mail_outlines_the_turn_with_an_example_that_is_accepted(key):
    """The mail to the president of the company about to operate listed only the open step's moves
    (often just 'pass' for the lay step); it now outlines the turn and gives a mail of it built from
    legal moves, and that mail, sent, is the whole turn."""
    import re
    from types import SimpleNamespace

    from pbm.e18xx.pbem.intent import turn_outline
    from pbm.e18xx.pbem.mailplay import summary_lines

    g = s11(key, OR[key])
    corp = g.current_entity()
    outline = turn_outline(g)
    assert outline[0].startswith("This turn: ") and "run trains" in outline[0] and "pay out or withhold" in outline[0]
    mail = re.search(r"e\.g\. '([^']+)'", outline[1]).group(1)
    seat = SimpleNamespace(name=g.controller(corp), number=1)
    top = "\n".join(summary_lines(g, [], seat, turn=True))
    assert outline[0] in top and mail in top
    made, notes = intent_mail(g, mail)
    assert any(m.startswith("run ") for m in made) and "payout" in made
    assert g.state.round.kind != "operating" or g._or_operator() != corp
    assert f"{corp}'s turn ended with your mail (as if 'done')" in notes


def test_no_outline_outside_a_company_turn():
    from pbm.e18xx.pbem.intent import turn_outline

    assert turn_outline(s11("al", SR["al"][0])) == []


def test_the_outline_never_touches_the_game():
    """The outline plays its example on a copy; a game with its event recorder attached wraps its own
    methods (events.attach), which a plain deep copy shares: the copy's moves were the game's."""
    from pbm.e18xx.pbem.intent import turn_outline

    seed, players = S11["al"]
    g = playthrough_game("al", OR["al"], seed=seed, suffix="-s11", players=players, events=True)
    n, events, cash = len(g.actions), len(g.recorder.events), g.total_cash()
    assert turn_outline(g)
    assert (len(g.actions), len(g.recorder.events), g.total_cash()) == (n, events, cash)
    assert g.current_entity() == "ABC" and g.open_step()[0].name == "track"


def test_1848s_stock_step_says_sell_then_buy_only():
    """1848 12.1.1: "sell as many shares as you wish (including zero) and then optionally buy one share.
    Selling and buying can only be carried out in this order"; the mails said "(or buy then sell)"
    (met when checking that a stock turn ended by the end of a mail is legal in every title)."""
    upto, sell, _buy = SR["aus"]
    g = s11("aus", upto)
    _made, notes = intent_mail(g, f"sell 1 {sell}\nmore")
    assert "or buy then sell" not in notes and "selling and buying only in this order (rule 12.1.1)" in notes


def test_the_moves_held_by_an_offer_end_the_turn_without_done(tmp_path):
    """18AL OR 3.1, ABC (Ann) buying Cy's M&C first (18GA s12 #66 wrote the same order): the moves
    after the offer wait for Cy's answer and, made after the sale, are the rest of the mail: the
    implied 'done' goes with them, so ABC's turn ends without a 'done'."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply, load
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "al", 71, seed=72, suffix="-s11", players=3)
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "pt"))
        assert load(s, row).current_entity() == "ABC"
        out = apply(s, row, 1, "buy private M&C 50\nrun auto\npayout")
        assert out.accepted, out.error
        assert out.offer is not None and out.offer["rest"] == ["run auto", "payout"]
        out, offer = answer_offer(s, row, 3, "accept M&C")
        assert out.accepted and offer is not None
        g = load(s, row)
        assert g.state.companies["M&C"].owner == "C:ABC" and g.current_entity() != "ABC"
        said = "\n".join(out.notes)
        assert "ABC's turn ended with your mail (as if 'done')" in said, said


def test_a_done_after_the_games_last_move_is_a_note(cli, tmp_path):
    """s12 18AL #175: 'run ... / pay out / done' on the game's last turn: the 'done' after the move that
    ended the game was refused "the game is over (stock_market)" and the WHOLE mail with it. The mail is
    the whole turn: its 'done' has nothing left to end, and says so."""
    from .test_intent import at, intent
    from .test_intent_mail import answer, deliver, game_now, imported

    g = at("18AL/4714.json", 294)  # WRA pays out: the game ends (the bank is broken)
    made, _, notes = intent(g, "payout\ndone")
    assert made == ["payout"] and g.finished
    assert "move 2 (done): nothing to end - the game is over" in notes
    secrets, maildir = imported(cli, tmp_path, "18AL/4714.json", 294, "al-end")
    game, _ = game_now(cli, "al-end")
    seat = int(game.controller("WRA").split()[-1])
    line, inbound = deliver(cli, maildir, f"GAME: al-end\nPLAYER: {seat}\nSECRET: {secrets[seat]}\npayout\ndone\n",
                            seat)
    assert f"player {seat} accepted" in line, line
    assert game_now(cli, "al-end")[0].finished
    assert "move 2 (done): nothing left to do - the game is over" in answer(cli, inbound)[1]


@pytest.mark.parametrize("key, text, stops", [
    ("al", "run 2 Montgomery West Point", ("MONTGOMERY", "WEST POINT")),
    ("al", "run 2 Phenix City Gulf of Mexico", ("PHENIX CITY", "GULF OF MEXICO")),
    ("va", "run 2 Norfolk Newport News", ("NORFOLK", "NEWPORT NEWS")),
    ("aus", "run 2 Alice Springs Adelaide", ("ALICE SPRINGS", "ADELAIDE")),
])
def test_a_place_of_several_words_without_separators_is_one_stop(key, text, stops):
    """s12 18AL #58: 'run 3 Montgomery West Point' was refused "WEST is not a stop"."""
    from pbm.e18xx.pbem.moves import for_game

    g = s11(key, OR[key])
    (run,) = parse_moves(text, g.controller(g.current_entity()))
    assert for_game(g, g.controller(g.current_entity()), run).routes[0].nodes == stops

"""Play-through by mail s12v of 18AL (issue 29 verification round, a fresh game written from the
rulebook alone): the findings, each with the mail seen.

The game: tests/e18xx/playthrough/al-s12v.jsonl (seed 112; Ann, Bob, Cy and Di), 173 mails, 426
actions, 65 company turns, to the end (the bank broke in OR 8.1); ABC (Cy), TAG (Di, then Cy), WRA
(Bob), L&N (Di), ATN (Ann).
"""
from types import SimpleNamespace

from .helpers import intent_mail, intent_refusal, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s12v 18AL game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=112, suffix="-s12v", players=4, events=events)


mail, refusal = intent_mail, intent_refusal


# -- the sale of the privates ----------------------------------------------------------------------
def test_buying_the_cheapest_private_for_its_price():
    """Stock round 1, Bob: 'buy TR for $20' (3.1(a): "Buy the cheapest unsold Private Company for its
    par value") was refused "in the auction you may bid or pass, not buy a private company" -- it is
    no auction (3.1.1) and buying is what the rule says; only 'bid 20 TR' was taken."""
    g = game(1)
    assert g.current_entity() == "Bob"
    made, notes = mail(g, "buy TR for $20")
    assert made == ["bid 20 TR"], made
    made, _ = mail(game(1), "buy TR for 20\ndone")
    assert made == ["bid 20 TR"], made


def test_buying_a_private_not_the_cheapest_says_how():
    """The same words for a private that is not the cheapest: the refusal says what may be bought and
    how (not "in the auction you may bid or pass")."""
    why = refusal(game(1), "buy BLC for $70")
    assert "in the auction you may bid or pass" not in why and "cheapest" in why and "bid" in why, why
    why = refusal(game(1), "buy TR for $25")  # the cheapest, at another price
    assert "TR, the cheapest unsold private, is bought at its price, $20: 'buy TR'" in why, why


# -- a stock turn ---------------------------------------------------------------------------------
def test_selling_one_share_in_words():
    """Stock round 2, Di: 'sell 1 WRA share' was refused "need [count] and a corporation; expected:
    sell [count] <corp>", though 'buy 1 WRA share' is taken (3.2(a): "Sell any stock certificate(s)")."""
    g = game(40)
    assert g.current_entity() == "Di"
    made, _ = mail(g, "sell 1 WRA share\nbuy 1 TAG share\ndone")
    assert made[0] == "sell 1 WRA", made
    for words in ("sell a WRA share", "sell one share of WRA", "sell 1 share of WRA"):
        made, _ = mail(game(40), words + "\ndone")
        assert made[0] == "sell 1 WRA", (words, made)


# -- a private's ability ----------------------------------------------------------------------------
def test_placing_the_snar_marker_in_words():
    """OR 3.1, TAG: 'place the SNAR marker in Gadsden' was refused "unknown move 'place'"; the state
    says only "SNAR ...: a +$10 marker on one of H3, G4, H5, G6, E6 for its company's runs", and
    'use SNAR in E6' (a guess) was taken. The book's words and a city's name are read now."""
    turn = "buy private SNAR from Di for $60\n{}\nlay tile 14 in E6 rotation 0\nrun auto\npay out\nbuy a 3 train\ndone"
    for words in ("place the SNAR marker in Gadsden", "place the SNAR marker on E6", "use SNAR on Gadsden",
                  "assign SNAR Gadsden"):
        g = game(86)
        assert g.current_entity() == "TAG"
        made, _ = mail(g, turn.format(words))
        assert "assign SNAR E6" in made, (words, made)


def test_the_snar_line_says_how_to_place_its_marker():
    """The Privates line of the state named the marker's hexes but not the move that places it."""
    from pbm.e18xx.render.public import public_lines

    text = "\n".join(public_lines(game(86), compact=True))
    line = next(ln for ln in text.splitlines() if "SNAR South & North Alabama" in ln)
    assert "assign SNAR <hex>" in line, line


# -- routes ------------------------------------------------------------------------------------------
def test_a_weaker_run_is_replaced_by_the_best_with_a_note():
    """OR 2.1, TAG: 'run 2 train Gadsden - Stevenson - Chattanooga' ($60) was refused whole "4.2.3.1:
    the routes must earn the most possible (70)"; OR 5.2 the same for two routes $10 short. 4.2.3.1:
    the best run is required "if any player who owns stock in the corporation insists" -- at the
    table the president announces, a stockholder points out the better run, and it is used. By mail
    the best run is made at once and the reply says so (ruling, rulings-18AL.md)."""
    g = game(56)
    assert g.current_entity() == "TAG"
    made, notes = mail(g, "lay tile 7 in F7 rotation 2\nrun 2 train Gadsden - Stevenson - Chattanooga\n"
                          "pay out\nbuy a 2 train\ndone")
    assert "run auto" in made and "payout" in made and "buy train 2" in made, made
    assert "4.2.3.1" in notes and "60" in notes and "70" in notes and "insist" in notes, notes
    g = game(221)
    assert g.current_entity() == "TAG"
    made, notes = mail(g, "lay tile 63 in E6 rotation 0\nrun 4 G4 H5 G6 G8\nrun 3 B7 C6 E6 G4\npay out\ndone")
    assert "run auto" in made, made
    assert "350" in notes and "360" in notes, notes


def test_a_route_that_cannot_run_is_still_refused():
    """Only a legal run earning less is replaced: a route too long for its train is refused as before
    (OR 2.1, ABC: 'run 2 Anniston - Oxmoor - Birmingham', 3 cities for a 2 train)."""
    g = game(50)
    why = refusal(g, "lay tile 441a in G4 rotation 5\nplace a station token in Birmingham\n"
                     "run the 2 train Anniston - Oxmoor - Birmingham\npay out\ndone")
    assert "too long" in why, why


# -- what the mails say ------------------------------------------------------------------------------
def _seat(number: int, name: str):
    return SimpleNamespace(number=number, name=name)


def test_the_turn_mail_says_a_train_is_obsolete():
    """OR 7.3, TAG: the 'In short' block said "TAG: $225 in its treasury; trains 4 (limit 2)" while the
    state said "trains 4 (obsolete)": the turn's own summary hid that the 4 runs once more and leaves,
    so TAG must then buy a train (4.2.5.1, 4.2.5.2)."""
    from pbm.e18xx.pbem.mailplay import summary_lines

    g = game(370)
    assert g.current_entity() == "TAG"
    text = "\n".join(summary_lines(g, [], _seat(4, "Di"), turn=True))
    assert "4 (obsolete)" in text, text


def test_the_price_rise_at_the_end_of_a_stock_round_says_why():
    """Stock round 7's end: "L&N's share price goes up from $65 to $70" with no reason (3.6: all of its
    shares are owned by players)."""
    g = game(326, events=True)
    texts = texts_at(g, 326)
    rise = next(t for t in texts if "L&N's share price goes up" in t)
    assert "3.6" in rise, texts


# -- the same through the stored game, as a mail is applied ------------------------------------------
def _apply(tmp_path, upto: int, seat: int, text: str):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "al", upto, seed=112, suffix="-s12v", players=4)
    with session_scope(url) as s:
        row = s.scalars(select(Game).where(Game.name == "pt")).one()
        out = apply(s, row, seat, text)
        return out.accepted, out.error, list(out.notes), [a.action.type for a in out.applied]


def test_a_weaker_run_by_mail_is_run_as_the_best(tmp_path):
    """OR 2.1, TAG (Di, seat 4), as the mail was applied: accepted, the best run made, the note says so."""
    ok, error, notes, types = _apply(tmp_path, 56, 4, "lay tile 7 in F7 rotation 2\n"
                                     "run 2 train Gadsden - Stevenson - Chattanooga\npay out\nbuy a 2 train\ndone")
    assert ok, error
    assert "run_routes" in types and "dividend" in types and "buy_train" in types, types
    assert any("ran the best instead" in n and "these earn 60" in n for n in notes), notes


def test_buy_the_cheapest_private_by_mail(tmp_path):
    """Stock round 1, Bob (seat 2): 'buy TR for $20' as the mail was applied."""
    ok, error, notes, types = _apply(tmp_path, 1, 2, "buy TR for $20")
    assert ok, error
    assert types == ["bid"], types

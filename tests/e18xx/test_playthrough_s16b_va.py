"""Play-through by mail s16b of 18VA (issue 29; seed 234, five seats Ann, Bob, Cy, Di, Eve, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s16b.jsonl holds the game, 70 actions, 13 company turns)."""
import pytest

from pbm.e18xx.pbem.moves import MoveError, parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16b game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=234, suffix="-s16b", players=5)


mail = intent_mail


def test_a_lay_ending_with_the_places_it_joins():
    """SR, OR 2.1 (mail 25): 'lay tile 9 on F9 with rotation 0, between Richmond and Fredericksburg'
    (4.5.2 "Each Corporation may place one yellow tile"; the mail's list says "lay 9 F9 0 # to F11
    Richmond (bottom), F7 Fredericksburg (top)") was refused "need tile, hex and rotation" (class b),
    though all three were there and C&O's 'toward Staunton and Gordonsville' had been read (mail 20):
    the closing 'between ...' is the player's comment."""
    g = game(37)
    assert g.current_entity() == "SR"
    made, _ = mail(g, "lay tile 9 on F9 with rotation 0, between Richmond and Fredericksburg\n"
                      "run the 2 train from Richmond to Fredericksburg\npay out")
    assert made[:3] == ["lay 9 F9 0", "run 2 RICHMOND FREDERICKSBURG", "payout"], made
    assert parse_moves("lay 9 F9 0 going to Fredericksburg", "Bob") == parse_moves("lay 9 F9 0", "Bob")


def test_words_after_a_lay_are_named():
    """The same refusal for words no lay has said "need tile, hex and rotation", as if one of them were
    missing: it now says what it read and which words it could not place, as written. (The example
    was 'from Richmond to Fredericksburg', which round s17 reads as the player's note after the
    rotation, as 'toward ...' is: tests/e18xx/test_playthrough_s17_va.py.)"""
    with pytest.raises(MoveError) as err:
        parse_moves("lay tile 9 on F9 rotation 0 if the bank allows it", "Bob")
    said = str(err.value)
    assert "read 'lay 9 F9 0' (tile, hex, rotation), then 'if the bank allows it'" in said, said
    assert "need tile, hex and rotation" not in said, said


def test_a_pass_after_a_train_ends_the_step_not_skips_it():
    """SR, OR 1.1: 'lay tile 57 on F11 rotation 0 / buy a 2 train' made the closing pass say
    'skips "Buy trains"', which read as if SR had bought none (noted in rounds s16 of 18GA, 18VA and
    18AL): after a move of the step the pass ends it, even where another train was allowed."""
    from pbm.e18xx.pbem.intent import play_intent

    g = game(19)
    player = g.controller("SR")
    made, _ = play_intent(g, player, parse_moves("lay tile 57 on F11 rotation 0\nbuy a 2 train", player))
    assert [type(m.action).__name__ for m in made] == ["LayTile", "BuyTrain", "Pass"]
    assert made[-1].note.startswith('ends "Buy trains"'), made[-1].note

"""Play-through by mail s16d of 18GA (issue 29; seed 251, four seats Ann, Bob, Cy, Di, every seat
written from the rulebook and the mails alone; tests/e18xx/playthrough/ga-s16d.jsonl holds the game,
75 actions, 8 company turns, into stock round 3). The round was clean: every stock turn and every
company turn took one mail. These tests keep the company turns' mails read as they were."""
import pytest

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16d game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=251, suffix="-s16d", players=4)


@pytest.mark.parametrize("upto, text, moves", [
    (30, "lay tile 451 in D4 rotation 1\nput the home station in D4-2\nbuy a 2 train",
     ["lay 451a D4 1", "token D4-2", "buy train 2"]),
    (33, "lay tile 5 on D10 with rotation 0\nbuy a 2 train from the bank", ["lay 5 D10 0", "buy train 2"]),
    (36, "lay tile 57 in Brunswick (I11), rotation 2\nbuy a 2 train", ["lay 57 I11 2", "buy train 2"]),
    (40, "lay tile 6 on Macon (F6), rotation 0\nbuy one 2 train", ["lay 6 F6 0", "buy train 2"]),
    (49, "lay tile 9 on E5, rotation 2\nrun the 2 train from Atlanta to Macon\npay out\nbuy a 2 train",
     ["lay 9 E5 2", "run 2 ATLANTA MACON", "payout", "buy train 2"]),
    (54, "lay tile 8 on E9 rotation 1\nbuy a 3 train\nbuy the Waycross & Southern RR from Cy for $105",
     ["lay 8 E9 1", "buy train 3", "buy private W&SR 105"]),
    (59, "upgrade Brunswick (I11) to tile 14, rotation 2\nrun the 2 train Jacksonville - Brunswick\n"
         "pay dividends\nACL buys the Ocilla Southern from Di for $150",
     ["lay 14 I11 2", "run 2 JACKSONVILLE BRUNSWICK", "payout", "buy private OSR 150"]),
    (67, "lay tile 14 on Macon F6, rotation 2\nrun the 2 train from Macon to Atlanta\npay out\n"
         "buy a 3 train from the bank\nbuy M&BR from Ann for $225",
     ["lay 14 F6 2", "run 2 MACON ATLANTA", "payout", "buy train 3", "buy private M&BR 225"]),
])
def test_a_company_turn_in_one_mail(upto, text, moves):
    """Each company turn of the round, as its president wrote it (4.2: lay, station, run, dividend,
    trains, privates), makes the turn's moves in the rulebook's order; the passes pbm adds to skip
    or close a step are not the player's."""
    g = game(upto)
    made, _ = intent_mail(g, text)
    assert [m for m in made if not m.startswith("pass")] == moves, made

"""Play-through by mail s13v of 18VA (issue 29 acceptance, session 13 second verification round;
seed 144, Ann, Bob, Cy, every seat written from the rulebook alone): the findings, each with the
mail that showed it (tests/e18xx/playthrough/va-s13v.jsonl holds the whole game, 467 actions,
to the bank breaking)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s13v game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=144, suffix="-s13v", players=3)


mail, refusal = intent_mail, intent_refusal


def test_a_train_declared_a_passenger_train_in_the_rulebooks_words():
    """RFPR, OR 1.1 (finding F1, mails #22, #23): 'buy a 2 train as a passenger train' was refused
    "price must be a whole number, not 'train'" (18VA 4.5.8: "the Corporation President must
    declare whether it is a Passenger Train or a Freight Train"). The declaration reads as the
    side: 'as a passenger train' is the 2, 'as a freight train' the 1G."""
    g = game(25)
    assert g.current_entity() == "RFPR"
    made, _ = mail(g, "lay 57 F7 0\nbuy one 2 train as a passenger train")
    assert "buy train 2 as 2" in made
    for line, side in (("buy a 2 train as a passenger train", "passenger"),
                       ("buy a 3 train as a Freight Train", "freight"),
                       ("buy a 3 train as freight", "freight")):
        assert [m.variant.lower() for m in parse_moves(line, "Ann")] == [side], line
    g = game(25)
    made, _ = mail(g, "lay 57 F7 0\nbuy a 2 train as a freight train")
    assert "buy train 2 as 1G" in made


def test_the_potomac_yards_station_written_as_pbm_writes_a_marker():
    """B&O, OR 6.1 (finding F2, mail #97): 'assign P3 G4' - Potomac Yards' extra station (18VA 4.2
    (3)), written as pbm's own move list writes the Railway Express marker ('assign P1 F11') - was
    refused "B&O may not lower a private's price or use its bonus with P3 now; allowed: place a
    station ('token')". A private whose power is a station places it: 'assign P3 G4' is
    'token G4 with P3'."""
    g = game(232)
    assert g.current_entity() == "B&O"
    made, _ = mail(g, "lay 15 F3 2\nassign P3 G4\nrun auto\npay out")
    assert "token G4 with P3" in made
    assert g.state.companies["P3"].closed


def test_the_whole_game_replays_to_the_bank_breaking():
    """The game as mailed: 165 mails, 467 actions; the bank broke in OR 8.x and the game ended
    after OR 8.3, the last of the set (18VA 5)."""
    g = game(467)
    assert g.finished

"""Play-through by mail s15b of 18VA (issue 29; seed 204, four seats Ann, Bob, Cy, Di, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/va-s15b.jsonl holds the game, 70 actions, 12 company turns, to phase 3)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s15b game after its first ``upto`` actions."""
    return playthrough_game("va", upto, seed=204, suffix="-s15b", players=4)


def test_a_freight_train_by_its_freight_name_and_word():
    """VR, OR 1.1 (mail 17): 'buy a 1G freight train' (4.5.8: "declare whether it is a Passenger
    Train or a Freight Train"; 2: the 2/1G train) was refused "say 'ipo' or 'market'", as if it
    bought shares. The type's word after its name is the side: '1G freight' is the 1G, '2 freight'
    the 2 declared as freight, '3 passenger' the 3 as passenger."""
    assert parse_moves("buy a 1G freight train", "Cy") == parse_moves("buy a 1G train", "Cy")
    assert parse_moves("buy a 1G freight train from the bank", "Cy") == parse_moves("buy train 1G", "Cy")
    assert parse_moves("buy a 2 freight train", "Cy") == parse_moves("buy train 2 as freight", "Cy")
    assert parse_moves("buy a 3 passenger train", "Cy") == parse_moves("buy train 3 as passenger", "Cy")
    g = game(22)
    assert g.current_entity() == "VR"
    made, _ = mail(g, "lay tile 6 on C12 rotation 1\nbuy a 1G freight train")
    assert made[0] == "lay 6 C12 1" and "buy train 2 as 1G" in made, made
    g = game(22)
    made, _ = mail(g, "lay tile 6 on C12 rotation 1\nbuy a 2 freight train")
    assert "buy train 2 as 1G" in made, made


mail = intent_mail

"""Play-through by mail s15 of 1848 (issue 29 acceptance; seed 193, Ann, Bob, Cy and Di, every seat
written from the rulebook alone): 154 mails, 362 actions, 44 company turns to the end of OR 5.2, 36 of
them in one mail of the president. These tests pin each finding with the mail that showed it
(tests/e18xx/playthrough/aus-s15.jsonl holds the game)."""
from .helpers import intent_mail, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s15 game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=193, suffix="-s15", players=4, events=events)


mail = intent_mail


def test_the_game_replays():
    """The game to the end of OR 5.2 (362 actions), every action's events recorded."""
    assert game(102).current_entity() == "VR"
    g = game(362, events=True)
    assert g.current_entity() == "QR" and g.state.round.kind == "operating"


def test_use_the_private_to_lay_its_tile():
    """VR, OR 2.2 (mail #49): 'use P3 to lay tile 241 on I10 rotation 1' (4.4: the owner of the
    Tasmanian Railways lays the Tasmania tile) was refused "name the private (and the hex of its
    station or marker)" - he had named it (class b). It is the state's 'lay 241 I10 1 with P3'."""
    g = game(102)
    assert g.current_entity() == "VR"
    made, _ = mail(g, "lay 6 H7 2\nuse P3 to lay tile 241 on I10 rotation 1\nrun 3 H9 H11 G10\npay out")
    assert made[:2] == ["lay 6 H7 2", "lay 241 I10 1 with P3"]
    made, _ = mail(game(102), "lay 6 H7 2\nuse the Tasmanian Railways to lay the Tasmania tile 241 on I10 rotation 1")
    assert made[:2] == ["lay 6 H7 2", "lay 241 I10 1 with P3"]


def test_the_ghan_written_as_its_two_locations():
    """CAR, OR 5.1 (mail #143): '2E E2 A6' - 8.2.5: "A route for the 2E consists of two locations: it
    starts at one of the company's own station tokens and ends at the Alice Springs off-board
    location. Any number of intervening stations may be skipped" - was refused "not connected between
    E2 and A6: no track joins them without another stop between" (class b); the route runs through the
    town D3-0 between them and earns the two locations only."""
    g = game(306, events=True)
    assert g.current_entity() == "CAR"
    made, _ = mail(g, "lay 9 B5 0\nrun 4 G6 F5 E4 D3-1 D1; 4 E4 E2 D1; 2E E2 A6\npay out")
    assert made[0] == "lay 9 B5 0"
    assert any(m.startswith("run ") and "2E" in m for m in made)
    texts = [t for seq in range(307, 315) for t in texts_at(g, seq)]
    assert "CAR's 2E train runs E2 Whyalla - D3-0 - A6 Alice Springs for £70" in texts
    assert "CAR earns £380 in all" in texts
    # the same line written the other way round, from Alice Springs
    made, _ = mail(game(306), "lay 9 B5 0\nrun 4 G6 F5 E4 D3-1 D1; 4 E4 E2 D1; 2E A6 E2\npay out")
    assert any(m.startswith("run ") and "2E" in m for m in made)


def test_the_last_share():
    """SR 3 (mail #67): 'buy the last CAR share' (the Bank held the last one; the Bank Pool none) was
    refused "say 'ipo' or 'market'" (class b)."""
    g = game(126)
    assert g.current_entity() == "Cy"
    assert mail(g, "buy the last CAR share")[0] == ["buy CAR ipo"]


def test_keep_the_money_in_the_company():
    """QR, OR 4.2 (mail #121): 'keep the money in the company' (10.3.3: the income "retained in its
    entirety in the company's treasury") was an unknown move 'keep' (class b)."""
    g = game(247)
    assert g.current_entity() == "QR"
    made, _ = mail(g, "upgrade B19 to tile 239 rotation 5\nrun 3 B17-0 B19 A18; 4 B19 C20 E18\n"
                      "keep the money in the company")
    assert "withhold" in made

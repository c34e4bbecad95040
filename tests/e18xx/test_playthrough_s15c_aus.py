"""Play-through by mail s15c of 1848 (issue 29 "Done when": a fresh play-through written from the
rulebook alone; seed 213, Ann, Bob, Cy, Di, Eve and Fay): 49 mails, 81 actions to OR 2.2, 8 company
turns, each in one accepted mail of the president. These tests pin each finding with the mail that
showed it (tests/e18xx/playthrough/aus-s15c.jsonl holds the game)."""
from .helpers import intent_mail, intent_refusal, playthrough_game, texts_at


def game(upto: int, events: bool = False):
    """The s15c game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=213, suffix="-s15c", players=6, events=events)


mail, refusal = intent_mail, intent_refusal

SAR_TURN = ("lay tile 6 on F5 rotation 3\nlay tile 5 on H7 rotation 2\n{run}\npay dividends")
VR_TURN = ("lay tile 5 on H9 rotation 3\nlay tile 235 on G10 rotation 5\n{run}\npay dividends\n"
           "buy a 3 train")


def test_the_game_replays():
    """The game to OR 2.2 (81 actions; the 3/3+ Phase began in QR's turn of OR 1.1), every action's
    events recorded."""
    assert game(9).current_entity() == "Di"
    g = game(81, events=True)
    assert g.current_entity() == "CAR"


def test_two_routes_joined_by_and():
    """SAR, OR 2.1 (mail #45): 'run the 2 trains Adelaide-Port Pirie and Adelaide-Mount Gambier' was
    refused "'AND' is not a stop" (class b): two routes drawn with hyphens and joined by 'and' are
    two runs of the train named, as 'run 2 H3 H1 and 2 G4 H3' is."""
    g = game(59)
    assert g.current_entity() == "SAR"
    made, _ = mail(g, SAR_TURN.format(run="run the 2 trains Adelaide-Port Pirie and Adelaide-Mount Gambier"))
    runs = [m for m in made if m.startswith("run")]
    assert len(runs) == 1 and runs[0].count(";") == 1, made
    assert "AND" not in runs[0].upper().replace("ADELAIDE", ""), runs


def test_one_city_of_a_hex_named_for_two():
    """VR, OR 2.1 (mail #47): 'run the 2 train from Melbourne to Ballarat' was refused "'BALLARAT' is
    not a stop" (class b): the map names G10 "Ballarat & Bendigo", two cities; either name is G10,
    and the track (only G10-0 reaches Melbourne) says which of its cities the route stops at."""
    g = game(66, events=True)
    assert g.current_entity() == "VR"
    made, _ = mail(g, VR_TURN.format(run="run the 2 train from Melbourne to Ballarat"))
    assert "buy train 3" in made, made
    ran = [t for seq in range(67, len(g.actions) + 1) for t in texts_at(g, seq) if "2 train runs" in t]
    assert ran == ["VR's 2 train runs H11 Melbourne - G10-0 Ballarat & Bendigo for £50"], ran
    # a word that is no place is still refused, naming the word
    assert "'Geelongx' is not a stop" in refusal(game(66), VR_TURN.format(run="run 2 Melbourne Geelongx"))


def test_a_skip_note_quotes_a_place_of_two_words_whole():
    """SAR, OR 2.1 (mail #46): the reply's skip note quoted the run as "(before move 3, run 2
    Adelaide - PORT - PIRIE; 2 Adelaide - MOUNT - GAMBIER)" - the names split and in capitals -
    while "What happened" said "run 2 Adelaide - Port Pirie; 2 Adelaide - Mount Gambier" (class c:
    wrong words)."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import parse_moves

    g = game(59)
    text = SAR_TURN.format(run="run a 2 train Adelaide-Port Pirie\nrun a 2 train Adelaide-Mount Gambier")
    player = g.controller(g.current_entity())
    made, _ = play_intent(g, player, parse_moves(text, player))
    notes = "\n".join(m.note for m in made)
    assert "PIRIE" not in notes and "GAMBIER" not in notes, notes
    assert "(before move 3, run 2 Adelaide - Port Pirie; 2 Adelaide - Mount Gambier)" in notes, notes


def test_a_refused_or_bettered_run_is_quoted_with_its_places_spelt_as_the_map():
    """QR, OR 2.1 (mail #49): the reply said "'run 3 CAIRNS BRISBANE SOUTHPORT' earns £60; ... its best
    routes ran instead", and the refusals of mails #45 and #47 quoted "run 2 ADELAIDE PORT PIRIE AND
    ..." and "run 2 MELBOURNE BALLARAT" - the mail's places in capitals, run together, where "What
    happened" writes "run 2 Adelaide - Port Pirie" (class c: wrong words)."""
    g = game(74)
    assert g.current_entity() == "QR"
    _, notes = mail(g, "lay tile 6 on C20 rotation 0\nrun the 3 train Cairns - Brisbane - Southport\npay dividends")
    assert "'run 3 Cairns - Brisbane - Southport' earns £60" in notes, notes
    why = refusal(game(59), SAR_TURN.format(run="run a 2 train Adelaide-Port Pirie-Mount Gambier"))
    assert "(run 2 Adelaide - Port Pirie - Mount Gambier)" in why, why

"""Play-through by mail s14 of 18GA (issue 29 acceptance, final verification round; seed 161, Ann,
Bob, Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that
showed it (tests/e18xx/playthrough/ga-s14.jsonl holds the game, 314 actions, 49 company turns)."""
import pytest

from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s14 game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=161, suffix="-s14", players=4)


# ------------------------------------------------------------------ the private companies by name
def test_the_cheapest_private_bought_by_its_name_and_price():
    """Stock round 1 (finding F1, mail 1): 'buy the Lexington for $20' - rule 3.1(a) "Buy the cheapest
    unsold Private Company for its par value" - was refused "in the auction you may bid or pass, not
    buy a private company"; 'buy LTR' was taken. The price written with it changes nothing."""
    for text in ("buy the Lexington for $20", "buy the Lexington Terminal for $20", "buy LTR for 20"):
        made, _ = intent_mail(game(0), text)
        assert made == ["bid 20 LTR"], text


@pytest.mark.parametrize("upto,text,move", [
    (1, "bid $160 on the Macon & Birmingham", "bid 160 M&BR"),
    (3, "bid 110 on the Ocilla Southern", "bid 110 OSR"),
    (3, "bid 110 Ocilla Southern", "bid 110 OSR"),
    (3, "bid $110 on the Ocilla Southern RR", "bid 110 OSR"),
])
def test_a_bid_on_a_private_by_its_rulebook_name(upto, text, move):
    """Stock round 1 (finding F3, mails 4, 7, 8): a bid on a private by the name Table III gives it
    ("Ocilla Southern RR") was refused "need an amount and a private company": the names of 18GA's
    privates end in 'RR', which the name table did not leave off, and 'on' was not read."""
    made, _ = intent_mail(game(upto), text)
    assert made == [move]


def test_a_private_by_its_name_with_an_ampersand():
    """Stock round 1 (finding F4, mails 10, 46, 66): 'Buy Waycross & Southern' was refused "say 'ipo'
    or 'market'" - read as a share - and so were 'buy the Waycross & Southern from Ann for $35' and
    'buy the Ocilla Southern from Di for $100'."""
    made, _ = intent_mail(game(4), "Buy Waycross & Southern")
    assert made == ["bid 70 W&SR"]
    assert parse_moves("buy the Waycross & Southern from Ann for $35", "Bob") == \
        parse_moves("buy private W&SR from Ann for 35", "Bob")
    assert parse_moves("buy the Ocilla Southern from Di for $100", "Cy") == \
        parse_moves("buy private OSR from Di for 100", "Cy")


@pytest.mark.parametrize("upto,text,move", [
    (5, "Buy the Central of Georgia president's certificate at a par value of $70", "par CoG 70"),
    (8, "par Georgia Railroad 70", "par GA 70"),
    (8, "start the Georgia Railroad at $70", "par GA 70"),
    (5, "par Seaboard Air Line 55", "par SAL 55"),
    (8, "par the Atlantic Coast Line at 90", "par ACL 90"),
    (5, "par Western & Atlantic 70", "par W&A 70"),
    (8, "par Georgia & Florida 70", "par G&F 70"),
])
def test_a_corporation_by_its_name(upto, text, move):
    """Stock round 1 (finding F5, mails 12, 16): 'Buy the Central of Georgia president's certificate at
    a par value of $70' was refused "unknown corporation 'Central'", 'par Georgia Railroad 70' "need a
    corporation and a price": a corporation by its name (the rulebook's, '&' or 'and', 'Railroad' or
    not) is its symbol."""
    made, _ = intent_mail(game(upto), text)
    assert made[0] == move


# ------------------------------------------------------------------ a company's turn in plain words
@pytest.mark.parametrize("text", [
    "lay tile 57 in Macon, rotation 2\nwithhold\nbuy a 2 train",
    "lay 57 Macon 2\nwithhold\nbuy a 2 train",
    "lay 57 F6 2\nno station this turn\nno trains to run, withhold\nbuy a 2 train from the bank",
])
def test_a_first_turn_with_a_place_name_and_the_steps_skipped_in_words(text):
    """CoG, OR 1.1 (findings F6, F7, mails 37-39): the tile laid in 'Macon' was refused "'Macon' is not
    a hex like E5" (a route or a station may name a place, the lay could not), and 'no station this
    turn' / 'no trains to run' "unknown move 'no'": a step the book makes optional, skipped in words,
    is skipped (4.2: "each step is optional")."""
    made, _ = intent_mail(game(27), text)
    assert made[0] == "lay 57 F6 2" and "buy train 2" in made


def test_the_home_station_in_words_and_the_atlanta_tile_by_its_number():
    """W&A, OR 1.1 (findings F8, F9, mails 41, 42): 'home station in D4-1 (the Rome side)' was refused
    "unknown move 'home'" (4.2(a), 4.2.2(c) "its home station"), and 'Lay 451 D4 0' "unknown tile
    '451'" while every mail's "Tiles left" lists "451 ATL x1"."""
    made, _ = intent_mail(game(29), "Lay 451 D4 0\nhome station in D4-1 (the Rome side)\nbuy a 2 train")
    assert made[:3] == ["lay 451a D4 0", "token D4-1", "buy train 2"]


def test_then_joins_two_moves_on_one_line():
    """SAL, OR 2.1 (finding F10, mail 54): 'lay 5 G13 1 then buy a 2 train' was refused "need tile, hex
    and rotation"; ', then' was read, 'then' alone not."""
    made, _ = intent_mail(game(49), "lay 5 G13 1 then buy a 2 train")
    assert made[:2] == ["lay 5 G13 1", "buy train 2"]


def test_sentences_on_one_line():
    """W&A, OR 5.2 (finding F15, mail 118): 'Lay 455a D4 0. Run auto. Pay out.' was refused "need tile,
    hex and rotation": moves written as sentences are moves."""
    made, _ = intent_mail(game(206), "Lay 455a D4 0. Run auto. Pay out.")
    assert made[:3] == ["lay 455a D4 0", "run auto", "payout"]


# ------------------------------------------------------------------ the Waycross & Southern's station
def test_the_waycross_station_with_the_private():
    """ACL, OR 4.2 (findings F12, F13, mails 89-91): ACL owned the W&SR (Table III: "may place a station
    token in Waycross at no cost"); 'token I9 with W&SR' was refused "ACL may not place a station with
    W&SR now; allowed: nothing", and so was the rulebook's 'station in Waycross using the Waycross &
    Southern'. The station is the company's, placed free with the private."""
    for line in ("token I9 with W&SR", "station in Waycross using the Waycross & Southern",
                 "place a station in Waycross with the Waycross & Southern"):
        g = game(138)
        made, _ = intent_mail(g, f"lay 57 I9 1\n{line}\nrun auto\npay out")
        assert made[0] == "lay 57 I9 1" and made[1] in ("token I9", "token Waycross"), line
        assert g.state.companies["W&SR"].uses.get("token") == 1
        assert ("I9", 0) in g.state.corporations["ACL"].tokens


def test_the_move_list_says_the_waycross_station_is_free():
    """The same turn: ACL's move list offered 'token I9 # Waycross, $100' - the station the W&SR gives
    for nothing (Table III) was listed at the price of ACL's next station."""
    from pbm.e18xx.pbem.movelist import legal_lines

    g = game(138)
    intent_mail(g, "lay 57 I9 1\nmore")
    lines = [x for x in legal_lines(g) if x.startswith("token I9")]
    assert lines and "free with W&SR" in lines[0] and "$100" not in lines[0], lines


# ------------------------------------------------------------------ a refused mail's other lines
def test_a_refused_mail_says_its_away_line_was_taken(cli, tmp_path):
    """SAL, OR 2.1 (finding F11, mail 54): the mail 'lay 5 G13 1 then buy a 2 train' / 'AWAY: ... proxy 3'
    was refused "NOTHING in it was used", yet its AWAY line was taken (the clock line read "paused:
    away"). A refused mail's answer says which of its lines were taken."""
    import mailbox
    import re

    from tests.e18xx.test_pbem_mail import PLAYERS, answer, send

    roster = tmp_path / "players.csv"
    roster.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18GA", "--players", str(roster), "--seed", "11", "--name", "ga-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    ga = (cli, secrets, mailbox.Maildir(str(tmp_path / "Maildir"), create=True), tmp_path / "Maildir")
    line, inbound = send(ga, 1, "lay 5 G13 1\nAWAY: 2030-01-01 2030-01-05 proxy 2")
    assert "rejected" in line, line
    _, text = answer(cli, inbound)
    assert "NOTHING in it was used" not in text
    assert "none of its moves was used" in text and "you are away from 2030-01-01 to 2030-01-05" in text


def test_a_move_in_the_first_person():
    """Stock round 1 (mail 3): 'I bid $160 on the Macon & Birmingham.' was refused "unknown move 'I'"."""
    made, _ = intent_mail(game(1), "I bid $160 on the Macon & Birmingham.")
    assert made == ["bid 160 M&BR"]


# ------------------------------------------------------------------ ruling: Atlanta's circles
def test_a_route_may_score_each_of_atlantas_cities():
    """Ruling (docs/18xx/rulings-18GA.md, 4.2.3(g)): each circle of the Atlanta tiles is a city of its
    own, so one route may include two or three of them, each scoring; 4.2.3(g) forbids a city twice,
    not two cities of one hex (section 8: "It is possible to score Atlanta three times after the brown
    tile has been played ... usually the best run in the game with a five train"; 4.2.2(b) "more than
    one station in the same hex" presumes hexes with several cities). As on 18xx.games, whose recorded
    games run such routes (18GA_game_end_bank.json action 532). The s13v game, W&A's 8 train, brown
    Atlanta: the best run passes all three."""
    from pbm.e18xx.core.errors import GameError

    g = playthrough_game("ga", 438, seed=141, suffix="-s13v", players=5)
    assert g.current_entity() == "W&A" and g.state.map.placed["D4"].tile.name == "455a"
    total, chosen = g.auto_routes("W&A")
    [(_, route)] = chosen
    assert {n for n in route.nodes if n[0] == "D4"} == {("D4", 0), ("D4", 1), ("D4", 2)}
    assert total == route.revenue == 400  # Atlanta's three cities at $70 each among the stops
    made, _ = intent_mail(g, "run 8 D10 E7 F6 D4-1 C3 D4-0 E1 D4-2\nmore")
    assert made == ["run 8 D10 E7 F6 D4-1 C3 D4-0 E1 D4-2"]
    g2 = playthrough_game("ga", 438, seed=141, suffix="-s13v", players=5)
    with pytest.raises(GameError):  # one city twice is still refused (4.2.3(g))
        intent_mail(g2, "run 8 D4-1 C3 D4-1\nmore")


def test_an_upgrade_of_a_place_by_name():
    """SAL, OR 4.2 (the same finding F6, the upgrade's order of words): 'upgrade Macon to 15 rotation 2'."""
    g = game(149)
    assert g.current_entity() == "SAL"
    made, _ = intent_mail(g, "upgrade Macon to 15 rotation 2\nstation Macon\nrun auto\npay out")
    assert made[:2] == ["lay 15 F6 2", "token Macon"]

"""Play-through by mail s11v of 18GA (issue 29 acceptance, verification after the s11 fixes; seed 83,
Ann, Bob, Cy): the defects met, each with the mail that showed it (tests/e18xx/playthrough/ga-s11v.jsonl
holds the game)."""
from pbm.e18xx.pbem.movelist import legal_lines
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game
from .test_pbem_mail import answer, ga, send  # noqa: F401 (ga: fixture)
from .test_pbem_offer import SEAT, _outbox, _to_a_sale


def game(upto: int):
    """The s11v game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=83, suffix="-s11v")


mail, refusal = intent_mail, intent_refusal


def test_a_wrong_stop_is_named_before_a_hex_of_several_cities():
    """W&A, OR 4.2 (finding F1): 'run 3 D4 C3 C5' was refused "D4: D4 has 3 stops; name one",
    though 'run 3 D4 C3 A3' (Atlanta's three cities, D4 alone) was taken in the turns before: the
    real fault, C5 with no stop (4.2.3(a)), was named only once D4-1 was written. A word that names
    no stop is refused before a hex whose stop the track would settle."""
    g = game(146)
    assert g.current_entity() == "W&A"
    why = refusal(g, "lay 14 C3 1\nrun 3 D4 C3 C5\npayout\ndone")
    assert "C5 has no city, town or off-board" in why
    assert "name one" not in why
    made, _ = mail(game(146), "lay 14 C3 1\nrun 3 D4 C3 A3\npayout\ndone")
    assert made[1] == "run 3 D4 C3 A3"  # by type (issue 29 leftovers)


def test_a_train_bought_in_the_rulebooks_words():
    """CoG, OR 5.2 (finding F2): 'buy the 3 train from the Open Market' (18GA 4.2.5: trains are in
    "the Initial Offering and the Open Market") was refused "say 'ipo' or 'market' (the company's
    treasury or the pool ...)": read as a share purchase. It is the 3 train from the Open Market."""
    g = game(219)
    assert g.current_entity() == "CoG"
    made, _ = mail(g, "run auto\npayout\nbuy the 3 train from the Open Market\ndone")
    assert made[-1] == "buy train 3"
    assert len(g.corp_trains("CoG")) == 2
    moves = parse_moves("buy a 5 train from the Initial Offering\nbuy train 4 from the open market", "Ann")
    # 'from the open market': a used train (moves.train_by_type picks it; none there: the bank's new one)
    assert [(m.train, m.seller) for m in moves] == [("5", None), ("4", "pool")]


def test_a_players_private_bought_by_a_player_is_priced_as_the_stock_round_allows():
    """SR 3 (finding F3): Ann's list said 'buy private MRC 40   # from Bob; any price from $20 to
    $60' - the range of a company's purchase (4.2.6) - though a player buys another player's
    private "for any positive whole number of dollars the two players can agree on" (3.2(c)(4));
    pbm took $15. The list gives the player's range: $1 to his cash."""
    g = game(60)
    assert g.current_entity() == "Ann"
    lines = [x for x in legal_lines(g) if x.startswith("buy private MRC")]
    assert lines and lines[0].endswith("# from Bob; any price from $1 to $95")


def test_an_offer_between_players_cites_the_stock_round_rule(ga):
    """SR 3 (finding F3): Ann's offer for Bob's MRC said "A company buys a player's private only at a
    price both agree (rule 4.2.6)", the rule of a company's purchase; between players it is 3.2(b),
    3.2(c)(4)."""
    cli = ga[0]
    _, buyer, comp, owner = _to_a_sale(ga)
    line, inbound = send(ga, SEAT[buyer], f"buy private {comp} 1")
    assert "accepted" in line, line
    _, text = answer(cli, inbound)
    assert "A private changes hands between players only at a price both agree (rule 3.2(b), 3.2(c)(4))" in text
    assert "company buys" not in text
    told = _outbox(cli, "offer:")
    assert told and "(rule 3.2(b), 3.2(c)(4): a private changes hands between players" in told[-1]


def test_the_seller_accepting_is_not_told_his_turn_is_over(cli, tmp_path):
    """W&A, OR 5.1 (finding F4): W&A offered Bob $200 for SAL's 4-1 with 'done' after it; Bob's
    'accept 4-1' was answered "move 1 (done): W&A's turn is over / Your turn is over; next to act:
    Cy for GA" - the buyer's notes, addressed to Bob, who only answered. They name the buyer's turn."""
    import json

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Action18, Game

    from .helpers import PLAYTHROUGH

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{n.lower()}@example.org\n" for n in ("Ann", "Bob", "Cy")),
                   encoding="utf-8")
    cli("new-game", "18GA", "--players", str(csv), "--seed", "83", "--name", "ga-v")
    lines = (PLAYTHROUGH / "ga-s11v.jsonl").read_text(encoding="utf-8").splitlines()[:182]
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-v"))
        seat = {"Ann": 1, "Bob": 2, "Cy": 3}
        for seq, line in enumerate(lines, 1):
            data = json.loads(line)
            s.add(Action18(game_id=row.id, seq=seq, player_number=seat.get(data["entity"]), action=data))
        row.turn = game(182).state.turn
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-v"))
        out = apply(s, row, 1, "buy train 4-1 from SAL for 200\ndone")
        assert out.accepted and out.offer is not None, out.error
        out, _ = answer_offer(s, row, 2, "accept 4-1")
        notes = "\n".join(out.notes)
        assert out.accepted
        assert "Ann's moves after the offer, made now that the sale is agreed: done" in notes
        assert "Your turn" not in notes and "Ann's turn is over; next to act: Cy for GA" in notes


def test_a_tile_without_the_hexs_label_is_refused_in_plain_words():
    """CoG, OR 6.1 (finding F6): 'lay 63 D10 0' on Augusta's green tile was refused "4.2.1(g): tile
    63 rotation 0 on D10: label none does not match the hex's label Aug" (internal words). It says
    the hex takes only tiles labelled Aug and tile 63 has no label."""
    g = game(239)
    assert g.current_entity() == "CoG"
    why = refusal(g, "lay 63 D10 0\nrun auto\npayout\ndone")
    assert "this hex takes only tiles labelled Aug; the tile has no label" in why
    assert "label none" not in why


def test_phase_5_says_once_that_companies_no_longer_buy_privates():
    """GA, OR 5.2 (finding F7): the first 5 train's phase change said "no longer: companies may buy
    private companies from players; companies may buy private companies from players other than
    their president; ...": the second is part of the first (Table I: privates are removed)."""
    from pbm.e18xx.phases import phase_change

    g = game(0)
    names = [p.name for p in g.title.phases]
    _, closes = phase_change(g.title, names.index("4"), names.index("5"))
    assert closes.count("companies may buy private companies from players") == 1
    assert not any("other than their president" in c for c in closes)
    assert "the private companies (they close)" in closes

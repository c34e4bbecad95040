"""Acceptance play-through by mail s12 of 18VA (issue 29): a fresh game written from the rulebook
alone, every seat by mail; the findings, each with the mail text met.

The game: tests/e18xx/playthrough/va-s12.jsonl (seed 104; players Ann, Bob, Cy and Di)."""
import email
import email.policy
import json
import re

from pbm.e18xx.core.game import Game

from .helpers import PLAYTHROUGH, intent_mail, intent_refusal, playthrough_game

mail, refusal = intent_mail, intent_refusal
SEAT = {"Ann": 1, "Bob": 2, "Cy": 3, "Di": 4}


def game(upto: int) -> Game:
    """The s12 game after ``upto`` actions."""
    return playthrough_game("va", upto, seed=104, suffix="-s12", players=4)


def stored(cli, tmp_path, upto: int):
    """The s12 game stored in the database up to ``upto`` actions, as pbm holds a game by mail
    (the mail path, ``pbem/games.py::apply``, not only the intent reader); its name."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Action18, Game as Row

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{n.lower()}@example.org\n" for n in SEAT), encoding="utf-8")
    out = cli("new-game", "18VA", "--players", str(csv), "--seed", "104", "--name", "va-s12").stdout
    stored.secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    lines = (PLAYTHROUGH / "va-s12.jsonl").read_text(encoding="utf-8").splitlines()[:upto]
    with session_scope(cli.url) as s:
        row = s.scalar(select(Row).where(Row.name == "va-s12"))
        for seq, line in enumerate(lines, 1):
            data = json.loads(line)
            s.add(Action18(game_id=row.id, seq=seq, player_number=SEAT.get(data["entity"]), action=data))
        row.turn = game(upto).state.turn
    return "va-s12"


def by_mail(cli, seat: int, text: str):
    """``text`` mailed by seat ``seat`` to the stored game: the outcome."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game as Row

    with session_scope(cli.url) as s:
        row = s.scalar(select(Row).where(Row.name == "va-s12"))
        return apply(s, row, seat, text)


def test_a_payout_after_a_run_for_nothing_is_ignored_in_a_real_mail(cli, tmp_path):
    """Mails #132 and #133: WMR (Bob; a passenger 4 bought from B&O, no route from Cumberland)
    wrote 'run auto / pay / done' and was refused "move 2 (payout): WMR's turn ended by itself after
    'run auto', so this move would be Cy's in the stock round: it is not Bob's turn". The run earned
    nothing, the revenue of 0 was withheld by itself (3.2, 4.5.6) and the turn, the round's last,
    ended: the 'pay' has nothing left to do and is ignored with a note (issue 29 problem 1). The
    intent reader (s11v) did so already; the mail path did not."""
    stored(cli, tmp_path, 367)
    assert game(367).current_entity() == "WMR"
    out = by_mail(cli, 2, "run auto\npay\ndone")
    assert out.accepted, out.error
    notes = "\n".join(out.notes)
    assert "move 2 (payout): nothing to do - WMR's turn had already ended by itself after 'run auto'" in notes
    assert out.game.current_entity() == "Cy" and out.game.state.round.kind == "stock"


def test_the_payout_after_a_run_for_nothing_through_real_mail(cli, tmp_path):
    """Mail #132 again, as Bob sent it: a Maildir message read by `pbm ingest`; the receipt in the
    outbox says the 'pay' was ignored, and the game went on to the stock round."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import OutboxMessage

    from .test_intent_mail import deliver, game_now
    from .test_pbem_mail import _body

    stored(cli, tmp_path, 367)
    text = f"GAME: va-s12\nPLAYER: 2\nSECRET: {stored.secrets[2]}\n\nrun auto\npay\ndone\n"
    line, _ = deliver(cli, tmp_path / "Maildir", text, 2)
    assert "player 2 accepted" in line, line
    g, _n = game_now(cli, "va-s12")
    assert g.state.round.kind == "stock" and g.current_entity() == "Cy"
    with session_scope(cli.url) as s:
        bodies = [_body(email.message_from_bytes(m.raw, policy=email.policy.default))
                  for m in s.scalars(select(OutboxMessage))
                  if any("bob@" in r for r in (m.recipients or []))]
    assert any("move 2 (payout): nothing to do - WMR's turn had already ended by itself after 'run auto'" in b
               for b in bodies), bodies[-1][:800] if bodies else "no mail to Bob"


def test_richmonds_brown_tile_by_the_rulebooks_number():
    """Mail #121: N&W's 'lay 170 F11 0' was refused "4.5.2.1: F11 must be upgraded with tile
    170ric". The rulebook's table (4.5.2.1) gives a "P" city brown tile #170; Richmond's and
    Washington's copies (pbm's 170ric and 170was, which later take #171 and #172) are tile 170 to a
    player. The printed number is read as the hex's own copy; any other hex's tile number is not."""
    g = game(328)
    assert g.current_entity() == "N&W"
    made, _ = mail(g, "lay 170 F11 0\nrun auto\nwithhold\nbuy train 5\ndone")
    assert made[0] == "lay 170ric F11 0"
    g = game(328)
    made, _ = mail(g, "lay 170ric F11 0\nrun auto\nwithhold\nbuy train 5\ndone")
    assert made[0] == "lay 170ric F11 0"
    why = refusal(game(328), "lay 63 F11 0\ndone")
    assert "F11 must be upgraded with tile 170" in why and "170ric" not in why


def test_why_a_turn_ended_after_a_train_names_the_limit_or_nothing_not_the_one_train_rule():
    """Mails #25, #77, #78, #81, #118: after buying a train the reply said "in phase N a company may
    buy only one train from the bank per turn (rule 4.5.8)" although SR had reached its limit with
    the last 2, WMR had bought the last 3 (4.5.8 then lets it buy the first 4 too; it had no money
    left) and B&O stood at its limit of 2. The reason given is the company's limit when it has
    reached it; the one-train rule only while trains of the type bought are left."""
    made, notes = mail(game(177), "lay 5 C4 0\nbuy train 2G\ndone")  # WMR buys the last 3 as a 2G
    assert made[-1] == "buy train 3 as 2G"
    assert "only one train" not in notes
    made, notes = mail(game(314), "run 3 H1 H3 I4\nrun 4 H3 G4 F5 F7\nwithhold\nbuy train 5\ndone")
    assert "B&O may buy no train: it owns 4" in notes and "the limit is 2" in notes
    assert "only one train" not in notes
    _, notes = mail(game(15), "lay 6 H3 3\ntoken H1\nbuy train 2\ndone")  # five 2 trains are left
    assert "in Phase 2 a company may buy only one train of each type from the Bank in an operating round (rule 4.5.8)" in notes


def test_the_tiles_left_are_in_the_state():
    """Mail #74: C&O's 'lay 14 C8 1' was refused "no tile 14 is left"; no mail or PDF showed how
    many tiles of each number were left (on the table they are in view). The state's public lines
    (the mail's compact ones and the PDF's) list them by colour, Richmond's own 170 by its label."""
    from pbm.e18xx.render.public import public_lines

    for compact in (True, False):
        line = next(x for x in public_lines(game(165), compact=compact) if x.startswith("Tiles left: "))
        assert "yellow 4 x4, 58 x4" in line and "green 14 none, 15 x3" in line
        assert "170 Ric x1" in line and "170ric" not in line


def test_the_pdf_routes_legend_names_a_freight_train_by_its_freight_name():
    """The PDF after WMR's run of mail #84: "WMR last ran 3: C4-B5-A6 (70)" - the train's type, while
    WMR had bought it as a 2G (4.5.8: declared freight) and the event said "WMR's 2G train runs".
    The legend names it as the events do."""
    from reportlab.pdfgen.canvas import Canvas

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import Replayed
    from pbm.e18xx.render import pdf

    g = Game("18VA", list(SEAT), 104, (), ["1", "2", "3", "4"])
    rep = Replayed(g, g.total_cash())
    for line in (PLAYTHROUGH / "va-s12.jsonl").read_text(encoding="utf-8").splitlines()[:215]:
        act = A.action_from_dict(json.loads(line))
        g.process(act)
        if isinstance(act, A.RunRoutes):
            rep.last_routes[act.entity] = list(g.state.round.routes)
    c = Canvas("/dev/null", pagesize=pdf.PAGE)
    said: list[str] = []
    orig = c.drawString
    c.drawString = lambda x, y, text, *a, **k: (said.append(text), orig(x, y, text, *a, **k))
    w, h = pdf.PAGE
    pdf.draw_map(c, rep, (pdf.MARGIN, pdf.MARGIN + 70, w - pdf.MARGIN, h - pdf.MARGIN - 14))
    assert "WMR last ran 2G: C4-B5-A6 (70)" in said, [t for t in said if "last ran" in t]
    assert "VR last ran 3G: C12-B13-A12 (90)" in said


def test_a_phase_begun_during_a_set_changes_the_next_sets_number_of_rounds():
    """Ruling (rulings-18VA.md, "operating rounds of a set"): phase 3 (2 ORs) began with C&O's 3
    train in the single OR 3.1 of phase 2's set; N&W's turn ended that OR and stock round 4 came
    next; the set after it had 2 ORs. Phase 5 (3 ORs) began in OR 7.1 of 2: OR 7.2 ended in stock
    round 8, and the set after it had 3."""
    from pbm.e18xx.render.view import describe

    g = game(74)
    assert g.state.round.kind == "stock" and g.phase.name == "3"
    g = game(81)
    assert g.state.round.kind == "operating" and "operating round 4.1 of 2" in describe(g, name="pt").lower()
    g = game(369)
    assert g.state.round.kind == "stock" and g.phase.name == "5"
    g = game(383)
    assert "operating round 8.1 of 3" in describe(g, name="pt").lower()


def test_the_mines_line_says_what_a_mine_is_worth():
    """WMR's freight run of mail #84 earned $70 (Cumberland $20, the mine B5 $10, the district $40);
    the mails named the mines (B5, B7, ...) but never their value, which the map shows only once a
    mine's tile is laid. The line says it: $10 each, the value of the mine tiles #4 and #58."""
    from pbm.e18xx.render.public import coal_lines

    line = next(x for x in coal_lines(game(15)) if x.startswith("Mines "))
    assert "$10 each once its tile is laid" in line and "B5, B7, B9, B11, B13" in line


def test_the_new_player_order_by_cash_is_an_event():
    """Mail #11: after 'par B&O 100' the players were reordered by their cash (4.1: "each player
    reveals his remaining cash ... the order of the other players is determined in decreasing order
    of their cash"); the event said only "next: stock round 1 (Bob acts first)", the new order was
    to be read from the players' table. The event gives the order and the cash behind it."""
    from .helpers import texts_at

    said = texts_at(playthrough_game("va", 11, seed=104, suffix="-s12", players=4, events=True), 11)
    assert ("The private auction ends; next: stock round 1 (Bob acts first; the players now act in the order "
            "of their cash: Bob $260, Di $240, Cy $220, Ann $150)") in said, said


def test_a_sale_that_leaves_the_price_says_why():
    """Mail #110: Ann's 'sell 1 VR' was told "Ann sells 1 VR share for $90; VR stays at $90" - a
    sale moves the price down a row (3.2), and VR's $90 is the foot of its column ("if it is
    already on the bottom row, it does not move"). The event says so."""
    from .helpers import texts_at

    said = texts_at(playthrough_game("va", 302, seed=104, suffix="-s12", players=4, events=True), 302)
    assert "Ann sells 1 VR share for $90; VR stays at $90: it is at the foot of its column on the chart" in said, said


def test_a_port_is_named_as_a_port():
    """Mail #73: "SR's 2 train runs I14 - H13 Newport News - F11 Richmond for $70": I14, the port
    arrow by Newport News (4.5.4.2), was a bare coordinate. It is named as the port of its city."""
    from .helpers import texts_at

    said = texts_at(playthrough_game("va", 163, seed=104, suffix="-s12", players=4, events=True), 163)
    assert "SR's 2 train runs I14 port of Newport News - H13 Newport News - F11 Richmond for $70" in said, said


def test_the_move_list_gives_richmonds_brown_tile_by_its_number():
    """The lists of mails #120-#122 offered 'lay 170ric F11 0' and 'G4 170was (...)': names no
    rulebook gives. They offer 'lay 170 F11 0' (read back as Richmond's copy), and the line is
    accepted as written."""
    from pbm.e18xx.pbem.mailplay import legal_lines

    lines = legal_lines(game(328), limit=10 ** 6)
    assert any(x.startswith("lay 170 F11 0   #") for x in lines), [x for x in lines if "F11" in x]
    assert not any("170ric" in x or "170was" in x for x in lines)
    made, _ = mail(game(328), "lay 170 F11 0\nrun auto\nwithhold\nbuy train 5\ndone")
    assert made[0] == "lay 170ric F11 0"
    from pbm.e18xx.lays import acting_lays, lays_by_hex  # the PDF's page of lays by hex

    page = lays_by_hex(game(328), acting_lays(game(328)))
    assert any(x.startswith("  lay 170 F11 0   #") for x in page) and not any("170ric" in x for x in page)


def test_done_makes_the_run_of_trains_that_can_earn_nothing():
    """Mail #134: WMR (a passenger 4 at Cumberland, no second city within reach) wrote 'lay 8 C6 3 /
    done' and was refused "WMR's turn cannot end yet: "Run trains ..." may not be skipped (a company
    whose trains can run must run them)". Its best run earned nothing (the 'run auto' of mail #135
    said "WMR runs no train: no revenue"): 'done' makes that run, as the rules leave nothing to
    choose, and says so; a company whose trains earn something must still name or 'run auto' them."""
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import format_action, parse_moves

    g = game(367)
    assert g.current_entity() == "WMR"
    made, _ = play_intent(g, "Bob", parse_moves("lay 8 C6 3\ndone", "Bob"))
    assert [format_action(m.action) for m in made] == ["lay 8 C6 3", "run auto"]
    assert made[1].note == "WMR's trains have no route that earns anything, so they run for nothing (done)"
    assert g.current_entity() == "Cy"
    why = refusal(game(186), "done")  # B&O with a 3 train and a route worth $150
    assert "may not be skipped" in why


def test_the_moves_done_name_richmonds_brown_tile_by_its_number():
    """After mail #122 the Last moves and the receipt said "Di for N&W: lay 170ric F11 0". The lines
    that tell what was done give the tile as the rulebook numbers it."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.moves import action_words, printed_tile

    g = game(330)
    lay = A.LayTile("N&W", "F11", "170ric", 0)
    assert action_words(g, lay) == ("N&W", "lay 170 F11 0")
    assert printed_tile(g, A.LayTile("N&W", "F11", "171", 0)).tile == "171"
    assert printed_tile(g, A.LayTile("B&O", "H3", "170", 5)).tile == "170"


def test_the_map_list_names_richmonds_brown_tile_by_its_number():
    """The state's map list said "F11 170ric rot 0 Richmond" after mail #122; it says 170."""
    from pbm.e18xx.render.view import describe

    text = describe(game(330), name="pt")
    line = next(x for x in text.splitlines() if x.startswith("  F11 "))
    assert line.split()[1] == "170", line
    assert "170ric" not in text


def test_a_refused_route_in_a_real_mail_names_trains_and_stops_as_written(cli, tmp_path):
    """Mail #46: N&W's 'run 3 F17 F13 F11' (not its best run) was refused "move 3 (run 3-1 F17 F13
    F11): ... the best is 'run 3-1 F13-0 F11-0 F7-0; 2-3 F17-0 F13-0'": train ids and stop numbers
    no player writes. The intent reader says it in the player's words ('run 3 F13 F11 F7; 2 F17
    F13'); the mail path does too. Since session 13 (18VA 4.5.5 requires the maximum: title data
    ``weaker_run``) the best runs instead of refusing the mail, and the reply says so in the same words."""
    stored(cli, tmp_path, 86)
    out = by_mail(cli, 4, "convert\nlay 14 F11 0\nrun 3 F17 F13 F11\nwithhold\ndone")
    assert out.accepted, out.error
    said = "\n".join(out.notes)
    assert "'run 3 F17 F13 F11' earns" in said and "(rule 4.5.5)" in said, said
    assert "'run 3 F13 F11 F7; 2 F17 F13' for $170" in said and "3-1" not in said and "-0" not in said, said

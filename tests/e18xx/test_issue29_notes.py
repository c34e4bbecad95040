"""Issue 29 leftovers, part B: the hint of a mail with no move names the game's own title; an offer's note
fits each reader (buyer, the one who answers, the others)."""
from __future__ import annotations

import mailbox
import re

import pytest

from pbm.e18xx.core.title import load_title
from pbm.e18xx.pbem.moves import parse_line
from tests.e18xx.test_pbem_mail import PLAYERS, answer, send

TITLES = ["18GA", "18AL", "1848", "18VA"]


def _new_game(cli, tmp_path, title: str, name: str):
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", title, "--players", str(csv), "--seed", "5", "--name", name).stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


@pytest.mark.parametrize("title", TITLES)
def test_the_hint_of_a_mail_without_a_move_is_the_titles_own(cli, tmp_path, title):
    """A mail holding only a sign-off is refused "no moves found" with an example move; the example was
    'par CoG 70' (an 18GA company) in every title. It is now a par move of the game's own title: one of its
    corporations at one of its market's par values, well-formed for the move reader."""
    ga = _new_game(cli, tmp_path, title, "t-1")
    line, inbound = send(ga, 1, "\nThanks,\nAnn", game="t-1")
    assert "rejected" in line, line
    text = answer(cli, inbound)[1]
    found = re.search(r"e\.g\. '(par [^']+)' starts a company", text)
    assert found, text
    t = load_title(title)
    mv = parse_line(found.group(1), "Ann")
    assert mv.corporation in {c["sym"] for c in t.data["corporations"]}
    assert mv.price in {t.market[r][c].price for r, c in t.par_cells()}
    if title != "18GA":
        assert "CoG" not in text.split("Why:", 1)[1].split("\n", 1)[0]
    assert _legal_in_the_title(title, found.group(1))


def _legal_in_the_title(title: str, line: str) -> bool:
    """Is ``line`` a legal move once the title's game first lets a player start that company? (Random
    legal moves of a new game until it does; 1848's CAR and 18VA's B&O are started by a private, so an
    example naming them never is.)"""
    import random

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.core.game import Game
    from tests.e18xx.helpers import pick

    corp = line.split()[1]
    g = Game(title, ["Ann", "Bob", "Cy"], 5)
    rng = random.Random(0)
    for _ in range(3000):
        legal = g.legal_actions()
        pars = [a for a in legal if isinstance(a, A.Par) and a.corporation == corp]
        if pars:
            return parse_line(line, g.current_entity()) in pars
        g.process(pick(rng, legal))
    return False


# ----------------------------------------------------------------- an offer's note, as each reader reads it
FOUR = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org"), ("Di", "di@example.org")]


@pytest.fixture
def al62(cli, tmp_path):
    """The s10b 18AL game after 62 actions, stored as 'al-1' (WRA, Bob's company, is to act and may
    buy Ann's NDY: test_playthrough_s10b.py::test_the_offer_mail_carries_the_rest_of_the_turn)."""
    import json

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import Action18, Game
    from tests.e18xx.helpers import PLAYTHROUGH
    from tests.e18xx.test_playthrough_s10b import game

    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in FOUR), encoding="utf-8")
    out = cli("new-game", "18AL", "--players", str(csv), "--seed", "41", "--name", "al-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    lines = (PLAYTHROUGH / "al-s10b.jsonl").read_text(encoding="utf-8").splitlines()[:62]
    g = game("al", 62)
    seat = {n: i for i, (n, _) in enumerate(FOUR, 1)}
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "al-1"))
        for seq, line in enumerate(lines, 1):
            data = json.loads(line)
            s.add(Action18(game_id=row.id, seq=seq, player_number=seat.get(data["entity"]), action=data))
        row.turn = g.state.turn
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


def _last_state_mail(cli, addr: str) -> str:
    import email
    import email.policy

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import OutboxMessage
    from tests.e18xx.test_pbem_mail import _body

    with session_scope(cli.url) as s:
        rows = s.scalars(select(OutboxMessage).where(OutboxMessage.kind == "18xx")
                         .order_by(OutboxMessage.id)).all()
        mine = [r for r in rows if addr in (r.recipients or []) and not r.key.startswith("offer")]
        assert mine, f"no state mail to {addr}"
        return _body(email.message_from_bytes(mine[-1].raw, policy=email.policy.default))


def test_an_offers_note_fits_each_reader(al62):
    """Bob's mail lays, runs, pays, buys a train and then offers Ann $120 for her NDY, with 'done'
    after it. Every state mail said "Your moves after the offer (done) wait for that answer" -- to Ann,
    who must answer, and to Cy and Di, who made no move. Now Bob's receipt says what becomes of his
    moves; Ann's mail says the offer is hers to answer and gives the reply lines; Cy's and Di's say who
    offered what to whom and who is to act."""
    cli = al62[0]
    line, inbound = send(al62, 2, "lay 7 M4 3\nrun auto\npayout\nbuy train 3\nbuy private NDY 120\ndone",
                         game="al-1")
    assert "accepted" in line, line
    bob = answer(cli, inbound)[1]
    assert "Your moves after the offer (done) wait for that answer" in bob
    ann = _last_state_mail(cli, "ann@example.org")
    assert "Your moves after the offer" not in ann
    assert "OFFER TO YOU, NOT YET A SALE: WRA (Bob's company) offers you $120 for your private NDY" in ann
    assert "\n  accept NDY\n" in ann and "\n  decline NDY\n" in ann
    assert "If you accept, Bob's moves written after the offer (done) are made right after the sale." in ann
    for addr in ("cy@example.org", "di@example.org"):
        other = _last_state_mail(cli, addr)
        assert "Your moves after the offer" not in other and "you write the rest of the turn" not in other
        assert "accept NDY\n" not in other  # no reply lines for a reader who has nothing to answer
        assert "OFFER: WRA (Bob's company) offered Ann $120 for NDY (rule " in other
        assert "Ann is to answer ('accept NDY' or 'decline NDY') and Bob waits for that answer" in other
        assert "Bob's moves written after the offer (done) are made only if Ann accepts." in other
    # Ann accepts: every reader reads the same sale, none a 'your moves' line
    line, inbound = send(al62, 1, "accept NDY", game="al-1")
    assert "accepted" in line, line
    assert "SALE AGREED: Ann accepted WRA's offer: NDY for $120" in answer(cli, inbound)[1]
    for addr in ("bob@example.org", "cy@example.org"):
        text = _last_state_mail(cli, addr)
        assert "SALE AGREED: Ann accepted WRA's offer: NDY for $120" in text
        assert "Bob's moves after the offer, made now that the sale is agreed: done" in text


# ----------------------------------------------------------------- the PDF's red rings (docs/18xx/email.md)
def _pdf_text(pdf: bytes) -> str:
    import io

    from pypdf import PdfReader

    return PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


def _rings(text: str) -> int:
    return len(re.findall(r"(?<![A-Za-z ])changed(?! since)", text))


def test_the_pdf_rings_every_hex_changed_since_the_readers_previous_pdf():
    """The s10b 18AL game: WRA lays L3 and places a station in K4 (actions 33-34), then runs, pays, buys a
    train and passes; ABC lays G4 and places a station there (39-40); then the stock round's passes. The
    ring stayed on the last map move however long ago (after ABC's turn and a stock round of passes it
    still marked G4), and a company's tile went unmarked once its station and three more actions followed
    (L3). A reader's PDF now rings every hex changed since his previous PDF, and none when nothing did."""
    from pbm.e18xx.pbem.games import Replayed
    from pbm.e18xx.render.pdf import changed_hexes, render_pdf
    from tests.e18xx.test_playthrough_s10b import game

    g = game("al", 46)
    assert changed_hexes(g, 32) == (["L3", "K4", "G4"], "Red rings: the hexes changed since your previous PDF "
                                                         "(action 32): L3, K4, G4.")
    assert changed_hexes(g, 43) == ([], "Nothing on the map changed since your previous PDF (action 43).")
    assert changed_hexes(g, 46)[0] == [] and changed_hexes(g, 99)[0] == []  # an undo since: nothing newer
    rep = Replayed(g, g.total_cash())
    text = _pdf_text(render_pdf(rep, "al-1", since=32))
    assert _rings(text) == 3 and "Red rings: the hexes changed since your previous PDF (action 32): L3, K4, G4." \
        in text
    text = _pdf_text(render_pdf(rep, "al-1", since=43))
    assert _rings(text) == 0 and "Nothing on the map changed since your previous PDF (action 43)." in text


def test_without_a_previous_pdf_the_rings_are_the_last_turn_that_changed_the_map():
    """A PDF for no reader in particular (the first, `pbm 18xx pdf`, the web page) rings every map move of
    the last turn that changed the map: WRA's tile in L3 and its station in K4, four actions later."""
    from pbm.e18xx.pbem.games import Replayed
    from pbm.e18xx.render.pdf import changed_hexes, render_pdf
    from tests.e18xx.test_playthrough_s10b import game

    g = game("al", 38)
    assert changed_hexes(g, None) == (["L3", "K4"], "Red rings: the last map moves (WRA, actions 33-34): L3, K4.")
    assert _rings(_pdf_text(render_pdf(Replayed(g, g.total_cash()), "al-1"))) == 2
    assert changed_hexes(game("al", 10), None) == ([], "")  # no map move yet: no ring, no line


def test_a_seats_pdf_remembers_how_many_actions_it_showed():
    from types import SimpleNamespace

    from pbm.e18xx.pbem.notify import pdf_sent, pdf_since

    row = SimpleNamespace(state={})
    assert pdf_since(row, 2) is None
    pdf_sent(row, 2, "sig", 40)
    pdf_sent(row, 3, "sig")  # without the count: as before
    assert pdf_since(row, 2) == 40 and pdf_since(row, 3) is None


# ----------------------------------------------------------------- the rulebooks' words: one table
@pytest.mark.parametrize("example, canonical", [(r[0], r[1]) for r in __import__(
    "pbm.e18xx.pbem.moves", fromlist=["RULEBOOK"]).RULEBOOK])
def test_every_row_of_the_rulebook_table_reads_as_its_move(example, canonical):
    """The rulebooks' words for moves are read in one place, the table RULEBOOK (they were read in
    two: _rulebook_words and branches of parse_line). Each row's example is the move it names."""
    from pbm.e18xx.pbem.moves import Named, parse_line, rulebook_words

    read = parse_line(example, "WRA")
    if isinstance(read, Named):  # 'sell P3 to NSW for £140': the buying company named, checked in the game
        read = read.move
    assert read == parse_line(canonical, "WRA")
    assert rulebook_words(example.split()) == canonical.split()  # the row itself rewrites it


def test_parse_line_reads_no_rulebook_word_itself():
    """parse_line's own branches know only the move language: a rulebook word reaches them only through
    the table (its verbs 'place', 'station', 'pay', 'reduce', 'retain', 'start' are never parse_line's)."""
    import inspect

    from pbm.e18xx.pbem import moves

    src = inspect.getsource(moves.parse_line) + inspect.getsource(moves._parse_line)
    for word in ("place", "station", "pay", "reduce", "retain", "start", "turn", "on"):
        assert f'"{word}"' not in src, word
    assert "_president_par" not in src
    assert [r[1] for r in moves.RULEBOOK if r[0] == "done turn"] == ["done"]


def test_what_a_mail_sets_for_its_writer_is_said_to_him_only(cli, tmp_path):
    """A mail with a move, a NOTIFY line and a sign-off: the writer's receipt says "Noted: ..." and
    what was set aside as prose; the other players' state mails said it too ("Noted: you get a mail for
    every change.", the writer's own words quoted), as if written to them. Now only the receipt does."""
    from pbm.e18xx.pbem.games import move_text
    from tests.e18xx.test_pbem_mail import state
    from tests.e18xx.test_pbem_offer import SEAT

    ga = _new_game(cli, tmp_path, "18GA", "ga-1")
    game, _ = state(cli)
    who = game.current_entity()
    act = next(a for a in game.legal_actions() if game.controller(a.entity) == who)
    line, inbound = send(ga, SEAT[who], f"NOTIFY: every\n{move_text(game, act)}\n\nThanks, see you all",
                         game="ga-1")
    assert "accepted" in line, line
    mine = answer(cli, inbound)[1]
    assert "Noted: you get a mail for every change." in mine and "IGNORED TEXT" in mine
    for name, addr in PLAYERS:
        if name == who:
            continue
        text = _last_state_mail(cli, addr)
        assert "Noted:" not in text and "IGNORED TEXT" not in text and "see you all" not in text


@pytest.fixture
def world(cli, tmp_path, tmp_path_factory, monkeypatch):
    """An 18GA game played through a mail server (test_mail_round2.py)."""
    from tests.e18xx.test_mail_round2 import _world

    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18GA", "ga-1")


def test_a_mailed_pdf_says_what_changed_since_the_readers_previous_pdf(world):
    """Through the mail server: Ann's PDFs remember how many actions each showed. The game's first PDF
    (action 0) is her previous one when she passes in the private auction, and her next PDF says nothing
    on the map changed since action 0 (its ring, before, marked the last map move whenever it was)."""
    w = world
    assert "player 1 accepted" in w.deliver(1, "PDF: every")
    assert "player 1 accepted" in w.deliver(1, "pass")
    pdfs = [part.get_content() for part in w.mails("ann@example.org")[-1].iter_attachments()
            if part.get_content_type() == "application/pdf"]
    assert len(pdfs) == 1
    assert "Nothing on the map changed since your previous PDF (action 0)." in _pdf_text(pdfs[0])
    assert w.row_state()["pdf_seq"]["1"] == 1

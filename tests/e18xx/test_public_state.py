"""Issue 29, item 3: the whole public state in the text of the state mail (compact) and in the PDF
(complete): standing bids and the cash set aside, a Dutch sale's prices now, loans and the lender's
loans left, the train roster, privates' abilities, objectives, coal districts and mines, the Railway
Express bonus, per-company train limits, freight trains and the title's currency."""
from __future__ import annotations

import io
import re

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.render.pdf import render_pdf
from pbm.e18xx.render.view import describe
from tests.e18xx.helpers import random_game


def pdf_text(g: Game) -> str:
    from types import SimpleNamespace

    from pypdf import PdfReader

    data = render_pdf(SimpleNamespace(game=g, last_routes={}), "t")
    text = "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)
    return " ".join(text.split())


def flat(text: str) -> str:
    return " ".join(text.split())


def test_1848_dutch_prices_now_not_the_face_value():
    g = Game("1848", ["Ann", "Bob", "Cy"])
    g.process(A.Assign(entity="Ann", target="P6"))  # lower P6: £230 -> £225
    g.process(A.Assign(entity="Bob", target="P6"))  # -> £220
    text = describe(g)
    assert "P6 £220 (lowest £200)" in text and "P6 £230" not in text.split("Prices now")[1].split("\n")[0]
    pdf = pdf_text(g)
    assert "for sale at £220 now" in pdf
    assert "P6 £220 (lowest £200)" in pdf
    assert "Money: every amount is in £" in text and "Money: every amount is in £" in pdf


def test_18al_standing_bids_cash_set_aside_objectives_and_privates():
    g = Game("18AL", ["Ann", "Bob", "Cy"])
    g.process(A.Bid(entity="Ann", company="NDY", price=125))
    g.process(A.Bid(entity="Bob", company="M&C", price=105))
    g.process(A.Bid(entity="Cy", company="NDY", price=130))
    text = describe(g)
    assert "Standing bids: M&C: Bob $105; NDY: Ann $125, Cy $130 (high)" in text
    assert "Cash set aside for bids: Ann $125 (free $" in text and "Cy $130" in text
    assert "Objectives (a station reaching the hex pays the bonus once): L&N to G4 +$100" in text
    assert "NDY New Decatur Yards ($120, pays $20; unsold): 50% off a 3/4/5 train" in text
    assert "rusts when the first 4 is bought" in text and "obsolete when the first 7 is bought" in text
    pdf = pdf_text(g)
    for part in ("Standing bids: M&C: Bob $105; NDY: Ann $125, Cy $130 (high)", "L&N to G4 +$100",
                 "50% off a 3/4/5 train",
                 "4: 3 of 3 left, $300 (obsolete when the first 7 is bought; the first bought sets the train limit to 3)"):
        assert part in pdf, part


def test_1848_loans_per_company_and_the_lenders_loans_left():
    g = random_game(7, 3, stop_at=400, title="1848", prefix="Q")
    lender = g.lender()
    taken = {c.sym: c.loans for c in g.state.corporations.values() if c.loans and c.sym != lender}
    assert taken, "the game took no loans: pick another seed"
    text, pdf = flat(describe(g)), pdf_text(g)
    for sym, n in taken.items():
        assert re.search(rf"Loans: .*\b{re.escape(sym)} {n}\b", text)
    left = f"Bank of England (BOE) has {g.loans_left()} of 20 left, £100 each, at most 5 per company"
    assert left in text and left in pdf


def test_18va_coal_districts_mines_railway_express_limits_and_freight():
    g = random_game(7, 3, stop_at=400, title="18VA", prefix="Q")
    text, pdf = flat(describe(g)), pdf_text(g)
    for part in ("Coal mining districts (only freight trains run there", "A6, A12",
                 "Mines (freight trains count their value, $10 each once its tile is laid; passenger trains ignore them): B5, B7, B9, B11, B13",
                 "Railway Express Agency", "the Railway Express marker"):
        assert part in text and part in pdf, part
    # the PDF names every hex of a private's ability; the mail the first eight
    assert "F11, C12, F13, H13, H15 (when a company owns it)" in pdf and "and 8 more (when a company" in text
    # on the map: the districts and mines say what they are
    assert pdf.count("COAL DISTRICT") == 2 and pdf.count("MINE") >= 5
    for (private, corp), hexname in g.state.assignments.items():
        assert f"Railway Express ({private}): {corp} +$10 at {hexname}" in text
    for c in g.state.corporations.values():
        if c.floated and not c.closed:
            assert f"{c.sym} {len(c.trains)}/{g.train_limit(c.sym)}" in text
    labels = [g.train_label(t) for c in g.state.corporations.values() for t in c.trains]
    assert all(lab in text for lab in labels)
    assert "2: " in text and "(or 1G; rusts when the first 4 is bought)" in text


@pytest.mark.parametrize("title", ["18GA", "18AL", "1848", "18VA"])
def test_every_title_shows_its_roster_and_privates_in_mail_and_pdf(title):
    g = random_game(3, 3, stop_at=30, title=title, prefix="Q")
    text, pdf = flat(describe(g)), pdf_text(g)
    for spec in g.title.data["trains"]:
        assert f"{spec['name']}: " in text.split("Trains: ")[1]
    for co in g.state.companies.values():
        assert f"{co.sym} {co.name}" in text and co.sym in pdf
    assert "Trains (the bank's roster):" in pdf and "Privates and what they do:" in pdf
    # compact in the mail: one line a topic
    lines = describe(g).splitlines()
    assert sum(line.startswith("Trains: ") for line in lines) == 1
    assert sum(line.startswith("Privates: ") for line in lines) == 1


# ----------------------------------------------------------------- through a real mail round trip
@pytest.fixture
def al(cli, tmp_path, tmp_path_factory, monkeypatch):
    from tests.e18xx.test_mail_round2 import _world
    from tests.mail.dovecot import available

    if available() is not None:
        pytest.skip(available())
    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18AL", "al-1")


def test_standing_bids_reach_the_next_player_in_mail_text_and_pdf(al):
    from pypdf import PdfReader

    assert "player 1 accepted" in al.deliver(1, "bid 125 NDY")
    msg = al.mails("bob@example.org")[-1]
    text = flat(msg.get_body(("plain",)).get_content())
    assert "Standing bids: NDY: Ann $125" in text and "Cash set aside for bids: Ann $125 (free $" in text
    assert "Objectives (a station reaching the hex pays the bonus once)" in text
    pdf = next(p for p in msg.iter_attachments() if p.get_content_type() == "application/pdf")  # his turn
    got = " ".join(" ".join(pg.extract_text() or "" for pg in PdfReader(io.BytesIO(pdf.get_content())).pages).split())
    assert "Standing bids: NDY: Ann $125" in got and "Cash set aside for bids: Ann $125" in got

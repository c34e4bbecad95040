"""`pbm report`: the §9 turn report as a PDF, what each player may see, escaping, identical bytes."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, Holding, OrderSet, Player, Railroad
from tests.conftest import Cli
from tests.report.conftest import pdf_text
from tests.report.helpers import EVIL, FONT_MESSAGE, build_game


def _render(url: str, tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "reports"
    Cli(url)("report", "test-game", "--out", str(out), *args)
    return out / "test-game" / "turn-3"


def test_every_human_gets_a_report_with_all_sections(game_url, tmp_path):
    result = Cli(game_url)("report", "--out", str(tmp_path / "r"))
    folder = tmp_path / "r" / "test-game" / "turn-3"
    assert sorted(p.name for p in folder.iterdir()) == ["player-1.pdf", "player-2.pdf", "player-3.pdf"]
    assert "Wrote 3 report(s) for turn 3 of test-game" in result.stdout
    text = pdf_text(folder / "player-1.pdf")
    for heading in ("9.1 Headlines", "9.2 Player summary", "9.3 Railroad summary", "9.4 Stock report",
                    "9.5 Private companies available", "9.6 Private report", "The map after turn 3",
                    "Your net worth", "Prices of your stocks", "World & National News"):
        assert heading in text, heading
    # §9.3 columns, then the lines of each railroad.
    for column in ("Track", "Revenues", "Op. Expense", "Bond Debt", "Loan Debt", "Pft/sh", "Div/sh", "Land",
                   "Grant", "Pres", "Chr", "Other Directors"):
        assert column in text, column
    assert "MD2 Baltimore–Pittsburgh 210 mi (double track)" in text
    assert "RoW owned (unbuilt): PA1" in text
    # §9.1: the year's world news (1847) and the new PC of next turn.
    assert "Mormon pioneers" in text
    assert "New private companies offered by the bank: LS." in text
    # §9.5: asking prices.
    assert "$1,700" in text and "Boston–Albany" in text


def test_player_text_is_escaped_not_interpreted(game_url, tmp_path):
    folder = _render(game_url, tmp_path)
    text = pdf_text(folder / "player-1.pdf")
    assert EVIL in text  # the character name, tags and all, printed literally
    assert '<font size="40">B&O</font> now & often!' in text
    # §10.1G: messages are cut to 80 characters.
    message_line = next(line for line in text.splitlines() if "font size" in line)
    cut = (FONT_MESSAGE + " " + "x" * 100)[:80]
    assert message_line.endswith(cut) and len(cut) == 80


def test_two_renders_are_byte_identical(game_url, tmp_path):
    first = _render(game_url, tmp_path / "a", "--moderator")
    second = _render(game_url, tmp_path / "b", "--moderator")
    for name in ("player-1.pdf", "player-2.pdf", "player-3.pdf", "moderator.pdf"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_parallel_render_gives_the_bytes_of_one_process(game_url, tmp_path, monkeypatch):
    """Issue 15: the reports rendered in forked workers are byte for byte those of a single process."""
    from pbm.report.render import render_workers

    monkeypatch.setenv("PBM_RENDER_WORKERS", "1")
    assert render_workers(3) == 1
    alone = _render(game_url, tmp_path / "one")
    monkeypatch.setenv("PBM_RENDER_WORKERS", "3")
    assert render_workers(3) == 3 and render_workers(1) == 1
    forked = _render(game_url, tmp_path / "three")
    for name in ("player-1.pdf", "player-2.pdf", "player-3.pdf"):
        assert (alone / name).read_bytes() == (forked / name).read_bytes(), name


def test_bad_render_workers_setting_is_a_clear_error(monkeypatch):
    import pytest

    from pbm.errors import PbmError
    from pbm.report.render import render_workers

    monkeypatch.setenv("PBM_RENDER_WORKERS", "many")
    with pytest.raises(PbmError, match="PBM_RENDER_WORKERS must be a whole number"):
        render_workers(15)


def test_visibility_presidents_directors_and_spies(game_url, tmp_path):
    folder = _render(game_url, tmp_path)
    p1, p2, p3 = (pdf_text(folder / f"player-{n}.pdf") for n in (1, 2, 3))
    # Player 1 spied on player 2: his holdings everywhere, and a column of them in the stock report.
    assert "B&O 10 (short 5), NYC 70" in p1
    assert "#2 owns" in p1
    # Player 3 presides PRR only: he does not see player 2's NYC shares, nor B&O's confidential data.
    assert "NYC 70" not in p3
    assert "#2 owns" not in p3
    # §4.14A: directors see confidential data: player 3 holds 11 % of B&O, so he sees it.
    assert "efficiency 88 (Good)" in p3
    # Player 2 is not a director of B&O (10 of 180 shares) and did not spy on it.
    assert "efficiency 88" not in p2
    # Player 2 directs NYC (70 of 630 shares): NYC's cash flow is in his private report.
    assert "NYC (director)" in p2
    # Player 1 spied on NYC: its cash flow, marked as spied on.
    assert "NYC (spied on)" in p1
    # Private events reach only their addressee.
    assert "SECRET-FOR-2" in p2
    assert "SECRET-FOR-2" not in p1 and "SECRET-FOR-2" not in p3
    assert "A bank failure costs you $120." in p3 and "bank failure" not in p1
    # B&O's president (player 1) sees every holder of B&O: player 3's 20 shares.
    assert "B&O 20" in p1


def test_contacts_phone_hidden_and_spied_address(game_url, tmp_path):
    folder = _render(game_url, tmp_path)
    p1 = pdf_text(folder / "player-1.pdf")
    assert "Carl Benz" in p1 and "555-0103" in p1
    assert "555-0102" not in p1  # player 2 hides his phone
    assert "Bristol" not in p1  # ... and his address, even from a spy (ruling R9-2)
    with session_scope(game_url) as s:
        game = s.scalar(select(Game))
        order = s.scalar(select(OrderSet).where(OrderSet.game_id == game.id, OrderSet.received_seq == 1))
        order.orders = {**order.orders, "spy_player": 3}
    folder = _render(game_url, tmp_path / "again")
    p1 = pdf_text(folder / "player-1.pdf")
    assert "3 Motorweg, Mannheim" in p1  # §3.1: spying finds the address


def test_anonymous_game_hides_names_and_contacts(db_url, tmp_path):
    with session_scope(db_url) as s:
        build_game(s, anonymous=True)
    folder = _render(db_url, tmp_path, "--moderator")
    p1 = pdf_text(folder / "player-1.pdf")
    assert "Ada Lovelace" in p1 and "555-0101" in p1  # his own
    for hidden in ("Carl Benz", "555-0103", "Brunel Isambard", "Mannheim"):
        assert hidden not in p1
    assert "(anonymous)" in p1
    moderator = pdf_text(folder / "moderator.pdf")
    assert "Carl Benz" in moderator and "carl@example.org" in moderator


def test_moderator_report_has_everything(game_url, tmp_path):
    folder = _render(game_url, tmp_path, "--moderator", "--player", "1")
    assert sorted(p.name for p in folder.iterdir()) == ["moderator.pdf", "player-1.pdf"]
    text = pdf_text(folder / "moderator.pdf")
    assert "SECRET-FOR-2" in text  # the whole event log
    assert "OLD MESSAGE" in text and "superseded" in text  # every order set
    assert "bid <lowered> & adjusted" in text  # problems, escaped
    assert "ike@example.org" in text and "Shareholdings" in text
    assert "operating expenses" in text  # the ledger


def test_cornered_stock_is_a_headline(game_url, tmp_path):
    with session_scope(game_url) as s:
        nyc = s.scalar(select(Railroad).where(Railroad.code == "NYC"))
        holder = s.scalar(select(Holding).where(Holding.railroad_id == nyc.id, Holding.shares == 100))
        holder.shares = 400
    text = pdf_text(_render(game_url, tmp_path) / "player-3.pdf")
    assert "NYC (New York Central) stock is cornered" in text


def test_bad_arguments_get_clear_errors(game_url, tmp_path):
    cli = Cli(game_url)
    result = cli("report", "--turn", "9", "--out", str(tmp_path), expect=2)
    assert "turn 9 of test-game has not been resolved" in result.stderr
    result = cli("report", "--player", "16", "--out", str(tmp_path), expect=2)
    assert "no player 16" in result.stderr
    result = cli("report", "nosuch", "--out", str(tmp_path), expect=2)
    assert "no game 'nosuch'" in result.stderr
    result = cli("report", "--turn", "1", "--out", str(tmp_path), expect=2)
    assert "not kept" in result.stderr


def test_start_of_game_report(db_url, tmp_path):
    with session_scope(db_url) as s:
        build_game(s, turns=0)
    folder = tmp_path / "reports" / "test-game" / "turn-0"
    Cli(db_url)("report", "--out", str(tmp_path / "reports"), "--player", "2")
    text = pdf_text(folder / "player-2.pdf")
    assert "Start of game — turn 1 (1841) to be played" in text
    assert "the chart starts once two turns have been played" in text


def test_computer_seat_report_on_request(game_url, tmp_path):
    folder = _render(game_url, tmp_path, "--player", "7")
    text = pdf_text(folder / "player-7.pdf")
    assert "Computer Tycoon 7" in text
    with session_scope(game_url) as s:
        assert s.scalar(select(Player).where(Player.number == 7)).human is False


def test_table_cells_are_plain_text_where_they_fit_and_wrap_where_they_do_not():
    """Issue 15: a wrapping column's cell is drawn as a plain string (never parsed as markup) when it fits
    on one line; a Paragraph (escaped) when it must wrap or when a Paragraph would print it differently."""
    from reportlab.platypus import Paragraph

    from pbm.report.pdf import fitted_cell, table

    assert fitted_cell("#3 Jay Gould", 92) == "#3 Jay Gould"
    assert fitted_cell('<b>B&O</b>', 92) == '<b>B&O</b>'  # player text drawn literally, not as markup
    long = "a character name far too long for the narrow column of the player summary table"
    wrapped = fitted_cell(long, 92)
    assert isinstance(wrapped, Paragraph) and wrapped.text == long
    evil = fitted_cell('<font size="40">' + "x" * 60 + "</font>", 92)
    assert isinstance(evil, Paragraph) and evil.text.startswith("&lt;font")
    for odd in ("two  spaces", " leading", "line\nbreak", "soft\xadhyphen"):  # a Paragraph would change them
        assert isinstance(fitted_cell(odd, 200), Paragraph), repr(odd)
    assert isinstance(fitted_cell("short", None), Paragraph)  # no width: no way to know it fits
    t = table(["#", "Name"], [[1, "Ann"], [2, long]], [18, 92], wrap={1})
    assert t._cellvalues[1][1] == "Ann" and isinstance(t._cellvalues[2][1], Paragraph)


def test_a_report_has_the_same_bytes_alone_or_after_the_others(game_url, tmp_path, monkeypatch):
    """Issue 15: the reports of a turn share paragraphs and map drawings (built by the first report, reused
    by the next); a report made after the others is byte for byte the one made alone."""
    monkeypatch.setenv("PBM_RENDER_WORKERS", "1")
    together = _render(game_url, tmp_path / "all", "--moderator")
    for n in (3, 2):
        alone = _render(game_url, tmp_path / f"p{n}", "--player", str(n))
        assert (alone / f"player-{n}.pdf").read_bytes() == (together / f"player-{n}.pdf").read_bytes(), n
    moderator = _render(game_url, tmp_path / "mod", "--player", "1", "--moderator")
    assert (moderator / "moderator.pdf").read_bytes() == (together / "moderator.pdf").read_bytes()


def test_a_shared_paragraph_put_off_to_the_next_page_fits_in_the_next_document():
    """A paragraph the reports share, put off to the next page in one document, is laid out afresh in the
    next (reportlab marks a put-off flowable; the mark must not travel to the next document)."""
    import io

    from reportlab.platypus import Spacer

    from pbm.report import pdf
    from pbm.report.view import TurnData

    data = TurnData.__new__(TurnData)
    data.cache = {}
    outputs = []
    for _ in range(2):
        story = [Spacer(1, pdf.PAGE_H - 2 * pdf.MARGIN - 10 - 12 - 8), pdf.shared(data, "• shared headline", pdf.BODY)]
        buffer = io.BytesIO()
        pdf.ReportDoc(buffer, "header", "title").build(story)
        outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[1]


def test_a_chart_prints_its_title_ticks_legend_and_axis_name():
    """Issue 15: the charts are drawn straight onto the canvas; what they print is what reportlab's chart
    widgets printed: the title, the turn and value ticks, the legend (names cut to 18 characters)."""
    import io

    from reportlab.platypus import SimpleDocTemplate

    from pbm.report.charts import LineChart, line_chart
    from tests.report.conftest import pdf_text

    series = [("Robber Baron", [(1, 0.0), (2, 12.0), (3, 31.0)]),
              ("A very long category name", [(1, 5.0), (2, -4.0), (3, 8.0)])]
    chart = line_chart(500, 190, "Your victory points", series)
    assert isinstance(chart, LineChart)
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, invariant=1).build([chart])
    text = pdf_text(buffer.getvalue())
    for word in ("Your victory points", "Robber Baron", "A very long catego", "turn", "1", "2", "3", "0", "10",
                 "20", "30"):
        assert word in text, word
    assert "A very long category name" not in text
    # fewer than two turns: a sentence instead of an empty frame
    assert "the chart starts once two turns" in str(line_chart(500, 190, "t", [("a", [(1, 1.0)])]).contents[-1].text)


def test_a_shared_heading_keeps_with_the_next_paragraph_in_every_document():
    """reportlab switches keep-with-next off on a flowable it has grouped with the next one; a shared
    paragraph gets it back from its style for the next document."""
    import io

    from reportlab.lib.styles import ParagraphStyle

    from pbm.report import pdf
    from pbm.report.view import TurnData

    data = TurnData.__new__(TurnData)
    data.cache = {}
    heading = ParagraphStyle("kept", parent=pdf.H2, keepWithNext=1)
    for _ in range(2):
        p = pdf.shared(data, "A heading", heading)
        assert p.getKeepWithNext() == 1
        buffer = io.BytesIO()
        pdf.ReportDoc(buffer, "header", "title").build([p, pdf.shared(data, "its text", pdf.BODY)])

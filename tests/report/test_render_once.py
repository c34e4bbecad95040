"""Issue 32, target 2: what the reports of a turn have in common is made once — the first report before the
fork, tables of public data one flowable per turn — and nothing of one player's report reaches another's."""

from __future__ import annotations

import io
import os

import pytest
from reportlab.platypus import Spacer

from pbm.db import session_scope
from pbm.report import pdf, render
from pbm.report.view import TurnData, load_turn
from pbm.report.visibility import visibility
from tests.report.conftest import pdf_text


def _bare_data() -> TurnData:
    data = TurnData.__new__(TurnData)
    data.cache = {}
    return data


def test_a_turn_table_is_one_flowable_for_the_same_contents_only():
    data = _bare_data()
    rows = [["B&O", "1,200"], ["PRR", "900"]]
    first = pdf.table(["RR", "Cash"], rows, [60, 60], align_right={1}, data=data)
    assert pdf.table(["RR", "Cash"], [list(r) for r in rows], [60, 60], align_right={1}, data=data) is first
    others = [
        pdf.table(["RR", "Cash"], [["B&O", "1,200"], ["PRR", "901"]], [60, 60], align_right={1}, data=data),
        pdf.table(["RR", "Cash"], rows, [60, 61], align_right={1}, data=data),
        pdf.table(["RR", "Cash"], rows, [60, 60], data=data),
        pdf.table(["RR", "Cash"], rows, [60, 60], align_right={1}, data=data,
                  extra=[("FONT", (0, -1), (-1, -1), pdf.BOLD, 6.8)]),
        pdf.table(["RR", "Cash"], rows, [60, 60], align_right={1}),  # no turn: a table of its own
        pdf.table(["RR", "Cash"], rows, [60, 60], align_right={1}),
    ]
    assert len({id(t) for t in [first] + others}) == len(others) + 1


def test_a_turn_table_put_off_to_the_next_page_fits_in_the_next_document():
    """reportlab marks a flowable it puts off to the next page and takes a second put-off for a flowable too
    large for any page: the mark must not travel with the turn's table to the next document."""
    data = _bare_data()
    outputs = []
    for _ in range(2):
        t = pdf.table(["Header", "x"], [["one row", "1"]], [200, 40], data=data)
        story = [Spacer(1, pdf.PAGE_H - 2 * pdf.MARGIN - 10 - 14), t]
        buffer = io.BytesIO()
        pdf.ReportDoc(buffer, "header", "title").build(story)
        outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[1]
    assert len(data.cache["table-flowables"]) == 1


def _flow_text(flow) -> str:
    """A cash flow table's text as pypdf reads it: one cell a line."""
    from pbm.report.sections import money

    cells = ["start", money(flow.start)] + [x for text, amount in flow.lines for x in (text, money(amount))]
    return "\n".join(cells + ["end", money(flow.end)])


def test_each_player_reads_his_own_cash_flow(game_url, tmp_path, monkeypatch):
    """The turn's tables are kept for the next report: each player's report still prints his own private
    cash flow and nobody else's, in one process and with forked workers alike."""
    from sqlalchemy import select

    from pbm.models import Game
    from pbm.report import sections

    with session_scope(game_url) as s:
        game = s.scalar(select(Game).where(Game.name == "test-game"))
        data = load_turn(s, game, None)
        numbers = data.human_numbers()
        flows = {n: _flow_text(sections.private_report(data, visibility(data, n)).flow) for n in numbers}
        assert len(set(flows.values())) == len(numbers)  # (each player's differs, so a leak would show)
        for workers in ("1", "3"):
            monkeypatch.setenv("PBM_RENDER_WORKERS", workers)
            result = render.render_turn(s, game, out=tmp_path / workers)
            for path in result.paths:
                n = int(path.stem.split("-")[1])
                text = pdf_text(path)
                mine = text[text.index("Your cash") + len("Your cash"):text.index("Assets and debt")].strip()
                assert mine == flows[n], (workers, n)


# -- the render processes --------------------------------------------------------------------------------

def _fake_reports(monkeypatch, fail: int | None = None) -> list:
    """``pdf.player_report`` replaced: each report says which player and which process made it."""
    made = []

    def fake(data, player, turnsheet=None):
        if player == fail:
            raise ValueError(f"no report for {player}")
        made.append(player)
        return f"{player}:{os.getpid()}".encode()

    monkeypatch.setattr(pdf, "player_report", fake)
    return made


def test_reports_come_back_in_order_the_first_made_before_the_fork(monkeypatch):
    made_here = _fake_reports(monkeypatch)
    monkeypatch.setenv("PBM_RENDER_WORKERS", "3")
    numbers = [5, 2, 9, 1, 7, 3, 4]
    out = [b.decode().split(":") for b in render._player_pdfs(_bare_data(), numbers, {n: [] for n in numbers})]
    assert [int(player) for player, _ in out] == numbers
    assert out[0][1] == str(os.getpid())  # the first report: this process, before the fork
    assert made_here[0] == 5 and len(made_here) == len(set(made_here))
    assert sum(pid == str(os.getpid()) for _, pid in out) == len(made_here)  # this process made its share
    assert render._JOB is None


@pytest.mark.parametrize("fail", [5, 9, 4])
def test_a_failing_report_fails_the_render_wherever_it_was_made(monkeypatch, fail):
    _fake_reports(monkeypatch, fail=fail)
    monkeypatch.setenv("PBM_RENDER_WORKERS", "2")
    numbers = [5, 2, 9, 1, 4]
    with pytest.raises(ValueError, match=f"no report for {fail}"):
        list(render._player_pdfs(_bare_data(), numbers, {n: [] for n in numbers}))
    assert render._JOB is None


@pytest.mark.parametrize("fail", [None, 9, 4])
def test_the_render_pool_is_closed_and_joined_never_terminated(monkeypatch, fail):
    """``Pool.terminate()`` kills the workers; one killed while it hands back its result (a failed
    report's error) dies holding the result queue's lock, and the pool's threads then wait on it for
    good: the suite hung in the test above about once in a few hundred runs (a loop of 600 failing
    renders hung every time before the fix).  The pool is closed and joined instead, also when a report
    fails; its workers end once no report is left."""
    import multiprocessing.pool

    calls = []
    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", lambda self: calls.append("terminate"))
    joined = []
    real_join = multiprocessing.pool.Pool.join
    monkeypatch.setattr(multiprocessing.pool.Pool, "join", lambda self: (joined.append(1), real_join(self))[1])
    _fake_reports(monkeypatch, fail=fail)
    monkeypatch.setenv("PBM_RENDER_WORKERS", "2")
    numbers = [5, 2, 9, 1, 4]
    if fail is None:
        assert len(list(render._player_pdfs(_bare_data(), numbers, {n: [] for n in numbers}))) == 5
    else:
        with pytest.raises(ValueError, match=f"no report for {fail}"):
            list(render._player_pdfs(_bare_data(), numbers, {n: [] for n in numbers}))
    assert calls == [] and joined == [1]


def test_a_chart_built_without_reportlabs_checks_places_the_same_ticks_and_restores_the_checks(monkeypatch):
    """The axes are built with ``rl_config.shapeChecking`` off (a developer's aid, most of their cost): the same
    ticks, lines and legend as with the checks on, and the setting is back afterwards, also after an error."""
    import contextlib

    from reportlab import rl_config

    from pbm.report import charts

    series = [("Net worth", [(1, 1500.0), (2, 2730.0), (3, -120.0), (4, 4100.5)]),
              ("B&O", [(1, 10.0), (2, 12.0), (3, 9.5), (4, 30.0)])]
    before = rl_config.shapeChecking
    fast = charts.LineChart(500, 190, "t", series, "${:,.0f}")
    assert rl_config.shapeChecking == before
    monkeypatch.setattr(charts, "_unchecked", contextlib.nullcontext)
    checked = charts.LineChart(500, 190, "t", series, "${:,.0f}")
    for name in ("box", "x_ticks", "y_ticks", "lines", "legend"):
        assert getattr(fast, name) == getattr(checked, name), name
    monkeypatch.undo()
    with pytest.raises(ValueError):  # (min() of no values)
        charts.LineChart(500, 190, "t", [("empty", [])], "{}")
    assert rl_config.shapeChecking == before

"""The archive site's charts (issue 33: the Continental Rails pages live, with charts)."""

from __future__ import annotations

import re

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from pbm.report.svgchart import line_chart, nice_step


def _points(svg: str) -> list[list[tuple[float, float]]]:
    return [[tuple(map(float, p.split(","))) for p in m.split()]
            for m in re.findall(r'<polyline[^>]* points="([^"]+)"', svg)]


def test_line_chart_maps_turns_and_values_into_the_plot():
    svg = line_chart("Prices", [("B&O", [(1, 100.0), (2, 50.0), (3, 0.0)]), ("PRR", [(1, 25.0), (3, 75.0)])])
    (bo, prr) = _points(svg)
    # turn 1 at the left edge, turn 3 at the right; 100 at the top of the plot and 0 at its bottom
    assert bo[0][0] == prr[0][0] < bo[1][0] < bo[2][0] == prr[1][0]
    assert bo[0][1] < prr[1][1] < bo[1][1] < prr[0][1] < bo[2][1]
    assert abs((bo[1][1] - bo[0][1]) - (bo[2][1] - bo[1][1])) < 0.2  # linear in the value
    assert svg.count("<polyline") == 2 and 'role="img"' in svg and "<title>Prices</title>" in svg


def test_line_chart_escapes_names_and_says_when_there_is_too_little():
    svg = line_chart('<b>"x"</b>', [('<script>alert(1)</script>', [(1, 1.0), (2, 3.0)])])
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "<b>" not in svg
    one = line_chart("Prices", [("B&O", [(1, 100.0)])])
    assert "<polyline" not in one and "shown from the second turn on" in one
    assert line_chart("P", [("A", [(1, 1.0), (2, 2.0)])]) == line_chart("P", [("A", [(1, 1.0), (2, 2.0)])])


def test_nice_steps_are_round():
    assert nice_step(100) == 20 and nice_step(7) == 2 and nice_step(0.3) == 0.1 and nice_step(0) == 1


def check_site_charts(sqlite_url: str, folder) -> None:
    """The demo's site charts every railroad's price and every tycoon's score, each figure in its table
    (called by tests/report/test_demo.py, which has played the demo already)."""
    from pbm.models import PlayerTurn, RailroadTurn

    page = (folder / "archive" / "demo-1841" / "site" / "index.html").read_text(encoding="utf-8")
    assert "<h2>Charts</h2>" in page
    with Session(create_engine(sqlite_url)) as s:
        prices = list(s.scalars(select(RailroadTurn)))
        scores = list(s.scalars(select(PlayerTurn)))
    codes = sorted({r.code for r in prices})
    charts = page.split('<figure class="chart">')[1:]
    assert len(charts) == 2
    price_chart, vp_chart = charts
    assert len(_points(price_chart)) == len(codes) and len(_points(vp_chart)) == len({p.player_number for p in scores})
    for r in prices:  # every railroad's end price of every turn is in the figures table
        assert f'<td class="n">{round(r.end_price, 2):g}</td>' in price_chart, (r.code, r.turn)
    for code in codes:
        assert f"<title>{code.replace('&', '&amp;')}</title>" in price_chart

"""The 18xx page's loans, phases and off-board values (issue 33): an imported 1848 Australia game
(its companies take loans from the Bank of England) rendered as the server and ``pbm site`` render it,
checked against the engine's state and the title's own data."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from pbm.e18xx.core.game import Game
from pbm.e18xx.fixtures import load_fixture

from ..conftest import Cli

FIXTURE = "1848/101.json"


class Tables(HTMLParser):
    """Every table of a page: its caption and rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1]["rows"][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._in_caption:
            self.tables[-1]["caption"] += data
        elif self._cell is not None:
            self._cell.append(data)

    def table(self, caption_start: str) -> list[list[str]]:
        found = [t for t in self.tables if t["caption"].startswith(caption_start)]
        assert len(found) == 1, [t["caption"] for t in self.tables]
        return found[0]["rows"]


def tables(html: str) -> Tables:
    p = Tables()
    p.feed(html)
    return p


@pytest.fixture(scope="module")
def game1848(tmp_path_factory):
    data, where = load_fixture(FIXTURE)
    if data is None:
        pytest.skip(where)
    folder = tmp_path_factory.mktemp("g1848")
    url = f"sqlite:///{folder / 'pbm.db'}"
    export = folder / "101.json"
    export.write_text(json.dumps(data), encoding="utf-8")
    Cli(url)("18xx", "import", export, "--name", "aus")
    yield url, len(data["actions"])
    from pbm import db as pbm_db

    pbm_db.get_engine(url, migrate=False).dispose()


def _page(url: str, at: int | None):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import replay_rows
    from pbm.e18xx.render.web import game_page
    from pbm.models import Game as GameRow

    with session_scope(url) as s:
        row = s.scalars(select(GameRow).where(GameRow.name == "aus")).one()
        html = game_page(s, row, at)
        g = replay_rows(s, row, upto=at).game
        return html, g


def test_1848_companies_show_their_loans_and_the_lenders_loans_left(game1848):
    url, total = game1848
    html, g = _page(url, None)
    t = tables(html)
    rows = t.table("Corporations:")
    head = rows[0]
    assert "Loans" in head
    col = head.index("Loans")
    by_sym = {r[0]: r for r in rows[1:]}
    lender = g.lender()
    taken = {c.sym: c.loans for c in g.state.corporations.values() if c.sym != lender}
    assert sum(taken.values()) > 0  # the recorded game has loans by now
    for sym, n in taken.items():
        if g.state.corporations[sym].ipoed:
            assert re.match(rf"^{n}\b", by_sym[sym][col]), (sym, by_sym[sym])
    assert by_sym[lender][col] == f"lends: {g.loans_left()} of 20 left"
    assert g.loans_left() == 20 - sum(taken.values())
    bank = dict((r[0], r[1]) for r in t.table("The bank and the trains") if len(r) == 2)
    assert bank["Loans"].startswith(f"Bank of England has {g.loans_left()} of 20 loans left")
    # before any loan: every company 0, all 20 left, and loans not open yet (phase 2)
    html0, g0 = _page(url, 0)
    bank0 = dict((r[0], r[1]) for r in tables(html0).table("The bank and the trains") if len(r) == 2)
    assert bank0["Loans"] == "Bank of England has 20 of 20 loans left (£100 each); companies may take loans from a later phase"


def test_an_18xx_title_without_loans_has_no_loans_column():
    from pbm.e18xx.render.web import loan_info

    assert loan_info(Game("18GA", ["A", "B", "C"])) is None
    assert loan_info(Game("1848", ["A", "B", "C"]))["left"] == 20


def test_phase_now_and_what_the_next_phase_changes(game1848):
    url, total = game1848
    html, g = _page(url, 0)
    rows = dict((r[0], r[1]) for r in tables(html).table("The phase now and what the next"))
    assert rows["Now"] == "2/2+ Phase: train limit 4; yellow tiles; 1 operating round between stock rounds"
    nxt = rows["Next"]
    assert nxt.startswith("3/3+ Phase, when the first 3 train is bought:")
    for change in ("green tiles may be laid", "2 operating rounds between stock rounds (was 1; from the next stock round on)",
                   "companies may take loans", "companies may lay a second tile"):
        assert change in nxt, nxt
    assert "train limit" not in nxt  # 4 in both
    # the engine's own phase model, step by step, on a fresh game of each title
    from pbm.e18xx.render.web import phase_info

    for title, at, expect in (
            ("1848", 1, ["train limit 3 (was 4)", "no longer: 2 trains (they rust)"]),
            ("1848", 2, ["brown tiles may be laid", "train limit 2 (was 3)", "no longer: the private companies (they close)",
                         "2E trains may be bought", "3 operating rounds between stock rounds (was 2; from the next stock round on)"]),
            ("18AL", 4, ["no longer: 4 trains (obsolete: they run once more)"]),
            ("18AL", 3, ["the hex bonus tokens are removed", "no longer: 3 trains (they rust)"]),
            ("18VA", 1, ["train limit 3 (10-share), 1 (5-share) (was 4 (10-share), 2 (5-share))",
                         "no longer: 2 trains (they rust)"]),
            ("18GA", 0, ["companies may buy private companies from players"]),
            ("18GA", 1, ["no longer: a company may buy only one train from the bank per turn",
                         "no longer: 2 trains (they rust)"]),
            ("18GA", 2, ["no longer: companies may buy private companies from players",
                         "no longer: the private companies (they close)"]),
            ("18GA", 5, None)):
        eng = Game(title, ["A", "B", "C"])
        eng.state.phase = at
        info = phase_info(eng)
        if expect is None:
            assert info["next"] is None
            continue
        for change in expect:
            assert change in info["next"]["changes"], (title, at, info)
    eng = Game("1848", ["A", "B", "C"])
    eng.state.phase = len(eng.title.phases) - 1
    assert phase_info(eng)["next"] is None


def test_the_web_page_and_the_mails_phase_event_say_a_phase_change_alike():
    """Issue 29: pbm/e18xx/events.py and render/web.py each spelt out what a phase change unlocks and
    closes (in different words); one function over the title data (pbm/e18xx/phases.py) says it for both."""
    from pbm.e18xx.events import PhaseChanged, money_of, phase_changes
    from pbm.e18xx.render.web import phase_info

    for title in ("18GA", "18AL", "1848", "18VA"):
        eng = Game(title, ["A", "B", "C"])
        for i in range(len(eng.title.phases) - 1):
            eng.state.phase = i
            unlocks, closes = phase_changes(eng, i, i + 1)
            assert unlocks or closes, (title, i)
            assert phase_info(eng)["next"]["changes"] == list(unlocks) + [f"no longer: {c}" for c in closes]
            text = PhaseChanged(1, "x", "y", unlocks, closes).text(money_of(eng.title))
            assert all(u in text for u in unlocks) and all(c in text for c in closes)


def _expected_offboards(title: str) -> dict[str, list[str]]:
    """Each red hex's values by phase, read from the title's JSON (not through the engine)."""
    from pbm.e18xx.core.title import TITLES_DIR

    data = json.loads((TITLES_DIR / title / "title.json").read_text())
    out: dict[str, list[str]] = {}
    for spec, coords in data["hexes"].get("red", {}).items():
        found = re.search(r"(?:offboard|city)=([^;]*)", spec)
        if not found:
            continue
        pairs = [kv.split(":") for kv in found.group(1).split(",") if ":" in kv and not kv.startswith("slots")]
        if not pairs:
            continue
        vals = []
        for ph in data["phases"]:
            v = int(pairs[0][1])
            for colour, amount in pairs:
                if colour in ph["tiles"]:
                    v = int(amount)
            vals.append(str(v))
        for coord in coords:
            out[coord] = vals
    return out


def test_offboard_values_in_each_phase(game1848):
    url, total = game1848
    html, g = _page(url, None)
    rows = tables(html).table("Off-board values in each phase")
    assert rows[0] == ["Hex"] + [g.title.phase_label(i) + (" (now)" if i == g.state.phase else "")
                                 for i, p in enumerate(g.title.phases)]
    assert rows[0][1].startswith("2/2+ Phase")  # 1848 names its phases so (9.1)
    got = {r[0].split()[0]: r[1:] for r in rows[1:]}
    expect = _expected_offboards("1848")
    assert expect and set(expect) <= set(got)
    for coord, vals in expect.items():
        assert got[coord] == vals, (coord, got[coord], vals)
    assert '<td class="n now"><strong>' in html  # the phase now stands out
    # 18GA's two off-boards and its red city, from its title data
    from pbm.e18xx.render.web import offboard_rows

    ga = offboard_rows(Game("18GA", ["A", "B", "C"]))
    assert {r["hex"]: r["by_phase"] for r in ga["rows"]} == _expected_offboards("18GA")


def test_the_page_says_what_step_is_open_and_its_rule(game1848):
    """Whose turn and the open step read from the engine's steps (issue 30: the web page reads ``what_now``)."""
    from markupsafe import escape

    url, total = game1848
    seen = set()
    for at in (0, 30, 60, 90):  # stored moves (fewer than the export's actions)
        page, g = _page(url, at)
        now = g.what_now()
        if now["step"] is None:
            continue
        text = f"Now: {now['description']}" + (f" (rule {now['rule']})" if now["rule"] else "")
        assert str(escape(text)) in page, (at, now)
        seen.add(now["step"])
    assert len(seen) >= 2  # more than one kind of step was checked

"""The typed event log of an 18xx game's page (issue 33; the events are issue 29 item 2): newest first,
each action's events under a link to the page as it was after that action; names escaped, and hidden in
an anonymous game.  Rendered as the server renders it (no browser needed)."""
from __future__ import annotations

import json
import re

import pytest

from pbm.e18xx.fixtures import load_fixture

from ..conftest import Cli

HOSTILE = ['<script>alert("x")</script>', "Bob", "Carol"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    data, where = load_fixture("1848/101.json")
    if data is None:
        pytest.skip(where)
    folder = tmp_path_factory.mktemp("events")
    url = f"sqlite:///{folder / 'pbm.db'}"
    cli = Cli(url)
    export = folder / "101.json"
    export.write_text(json.dumps(data), encoding="utf-8")
    cli("18xx", "import", export, "--name", "aus")
    csv = folder / "hostile.csv"
    csv.write_text("name,email\n" + "".join(f'"{n.replace(chr(34), chr(34) * 2)}",p{i}@example.org\n'
                                            for i, n in enumerate(HOSTILE, 1)), encoding="utf-8")
    for name in ("ga-hostile", "ga-anon"):
        cli("new-game", "18GA", "--players", csv, "--name", name, "--seed", "7")
        cli("18xx", "move", name, "bid 20 LTR", "--player", "1", "--no-mail")
    from sqlalchemy import update

    from pbm.db import session_scope
    from pbm.models import Game

    with session_scope(url) as s:
        s.execute(update(Game).where(Game.name == "ga-anon").values(anonymous=True))
    yield url
    from pbm import db as pbm_db

    pbm_db.get_engine(url, migrate=False).dispose()


def page(url: str, name: str, at: int | None = None) -> str:
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.render.web import game_page
    from pbm.models import Game

    with session_scope(url) as s:
        return game_page(s, s.scalars(select(Game).where(Game.name == name)).one(), at)


def event_items(html: str) -> list[tuple[int, str, str, list[str]]]:
    """(action, link, action text, [event texts]) of the page's event log, in page order."""
    block = html.split('<ul class="events">', 1)[1].split("\n</ul>", 1)[0]
    out = []
    for m in re.finditer(r'<li data-action="(\d+)"[^>]*><a href="([^"]+)"[^>]*>#\d+</a> (.*?)<ul>(.*?)</ul></li>', block):
        evs = re.findall(r'<li class="ev ev-[a-z_]+">(.*?)</li>', m.group(4))
        out.append((int(m.group(1)), m.group(2), m.group(3), evs))
    return out


def test_event_log_newest_first_with_links_to_the_page_after_each_action(site):
    items = event_items(page(site, "aus"))
    seqs = [i[0] for i in items]
    assert seqs == sorted(seqs, reverse=True) and len(seqs) > 30
    by = {i[0]: i for i in items}
    seq, href, action, evs = by[64]
    assert href == "move-64.html" and "CAR" in action
    assert evs[0] == "CAR pays out £50, £5 a share: Player 3 £30; Player 1 £5"
    assert evs[1].startswith("CAR&#39;s share price goes up from £90 to £100")
    assert by[116][3][-1] == "The 2 trains rust: CAR loses 2 trains, SAR loses 2 trains and VR loses 2 trains"
    assert any(e.startswith("SAR goes into receivership") for e in by[127][3])


def test_history_page_shows_the_events_up_to_that_action(site):
    html = page(site, "aus", 70)
    items = event_items(html)
    assert items[0][0] == 70 and max(i[0] for i in items) == 70
    assert re.search(r'<li data-action="70" class="current" aria-current="step">', html)
    assert html.count("<li value=") == 70  # the action log's items, as before


def test_names_in_events_are_escaped_and_hidden_in_an_anonymous_game(site):
    html = page(site, "ga-hostile")
    assert "<script>alert" not in html
    (item,) = [i for i in event_items(html) if i[0] == 1]
    assert item[3] == ["&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; gets LTR for $20"]
    anon = page(site, "ga-anon")
    (item,) = [i for i in event_items(anon) if i[0] == 1]
    assert item[3] == ["Player 1 gets LTR for $20"]
    assert "script" not in anon.split('<ul class="events"', 1)[1].split("\n</ul>", 1)[0]

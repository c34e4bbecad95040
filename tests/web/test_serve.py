"""`pbm serve` for real (a subprocess on a loopback port), `pbm site` and `pbm link` (issue 33)."""
from __future__ import annotations

import html

from markupsafe import escape as _escape
import re

import pytest

from pbm.e18xx.core.title import money

from .conftest import HOSTILE, HOSTILE_GAME


def esc(text: str) -> str:
    """As the templates escape text (Jinja2's autoescape: markupsafe)."""
    return str(_escape(text))


def _state(url: str, name: str, upto: int | None = None) -> dict:
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import replay_rows
    from pbm.e18xx.render.view import state_dict
    from pbm.models import Game

    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == name))
        rep = replay_rows(s, row, upto=upto)
        return {**state_dict(rep.game), "last_routes": sorted(rep.last_routes)}


def test_index_lists_every_game_with_escaped_names(server, games):
    status, page, headers = server.get("/")
    assert status == 200
    for key, name in games.names.items():
        assert f'href="g/{games.ids[key]}/"' in page
        assert esc(name) in page
    assert "<b>" not in page  # the hostile game's name is text
    assert headers["referrer-policy"] == "no-referrer"
    assert "script-src" not in headers["content-security-policy"]  # default-src 'none': no script runs
    assert "<caption>" in page and 'scope="col"' in page


def test_18xx_page_at_the_end_shows_map_market_players_companies_log(server, games):
    gid = games.ids["recorded"]
    status, page, _ = server.get(f"/g/{gid}/")
    assert status == 200
    state = _state(games.url, games.names["recorded"])
    assert f"after action {state['actions']} of {state['actions']}" in page
    assert "Game over" in page
    assert page.count("<svg") == 2  # the map and the stock market, inline
    for caption in ("Players in priority order", "Corporations:", "Private companies:", "The bank and the trains"):
        assert f"<caption>{caption}" in page
    for name, p in state["players"].items():
        assert f'<th scope="row">{esc(name)}' in page
        assert money(None, p["cash"]) in page
    for sym, c in state["corporations"].items():
        assert f'<th scope="row">{esc(sym)}</th>' in page
        if c["share_price"] is not None:
            assert money(None, c["share_price"]) in page
    assert f"bank {money(None, state['bank'])}" in page  # -$1398 once the bank broke
    assert page.count("<li value=") == state["actions"]  # the whole action log
    assert 'href="move-1.html"' in page and 'rel="prev"' in page and 'rel="next"' not in page
    assert 'name="viewport"' in page and "@media print" in server.get(f"/g/{gid}/web.css")[1]


def test_map_svg_has_every_tile_station_and_route_the_state_has(server, games):
    status, svg, headers = server.get(f"/g/{games.ids['recorded']}/map.svg")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    assert len(svg.encode()) < 300_000
    assert re.match(r'<svg xmlns="http://www.w3.org/2000/svg" viewBox="[-\d. ]+" width="100%"', svg)
    state = _state(games.url, games.names["recorded"])
    texts = [html.unescape(t) for t in re.findall(r">([^<>]*)</text>", svg)]
    for coord, tile in state["tiles"].items():
        assert coord in texts, coord
        assert tile["tile"].rsplit("-", 1)[0] in texts, (coord, tile)
    for sym, corp in state["corporations"].items():
        assert texts.count(sym) >= len(corp["stations"]), sym  # one marker per station
    assert state["last_routes"]
    for corp in state["last_routes"]:
        assert any(t.startswith(f"{corp} last ran ") for t in texts), corp
    assert 'stroke-dasharray' in svg


def test_history_page_is_the_game_after_that_action(server, games):
    gid = games.ids["recorded"]
    end = server.get(f"/g/{gid}/")[1]
    status, mid, _ = server.get(f"/g/{gid}/move-100.html")
    assert status == 200
    assert mid != end
    assert "the game as it was after action 100 of" in mid
    assert 'href="move-99.html" rel="prev"' in mid and 'href="move-101.html" rel="next"' in mid
    assert 'aria-current="step"><a href="move-100.html">100</a>' in mid
    assert mid.count("<li value=") == 100
    state = _state(games.url, games.names["recorded"], upto=100)
    assert f"bank ${state['bank']}" in mid
    for name, p in state["players"].items():
        assert f"${p['cash']}" in mid
    assert server.get(f"/g/{gid}/?move=100")[1] == mid  # the form's address gives the same page
    start = server.get(f"/g/{gid}/move-0.html")[1]
    assert "after action 0 of" in start and "No action yet." in start
    for bad in ("/move-100000.html", "/?move=100000", "/?move=-1", "/?move=abc", "/nothing.html", "/../../etc"):
        assert server.get(f"/g/{gid}{bad}")[0] == 404, bad
    assert server.get("/g/99999/")[0] == 404


def test_legal_tile_lays_are_outlined_on_the_map_with_their_move_lines(server, games):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import legal_lines, replay_rows
    from pbm.models import Game

    gid = games.ids["recorded"]
    with session_scope(games.url) as s:
        row = s.scalar(select(Game).where(Game.name == games.names["recorded"]))
        at = next(n for n in range(60, 300) if any(line.startswith("lay ") for line in
                                                   legal_lines(replay_rows(s, row, upto=n).game, limit=10_000)))
        lines = [line for line in legal_lines(replay_rows(s, row, upto=at).game, limit=10_000)
                 if line.startswith("lay ")]
    status, page, _ = server.get(f"/g/{gid}/move-{at}.html")
    assert status == 200
    table = page[page.index("<h2>Legal tile lays</h2>"):page.index("<h2>Legal moves</h2>")]
    assert "<caption>Where " in table
    for line in lines:
        move = line.split("#")[0].strip()  # the list's comment (where the track leads) is the mail's, not the table's
        assert f"<code>{esc(move)}</code>" in table, line
        coord = line.split()[2]
        assert f'<a href="#lay-{coord}" class="lay">' in page and f'id="lay-{coord}"' in table
    end = server.get(f"/g/{gid}/")[1]
    assert "Legal tile lays" not in end and 'class="lay"' not in end  # the game is over


def test_hostile_player_names_are_text_everywhere(server, games):
    gid = games.ids["hostile"]
    status, page, _ = server.get(f"/g/{gid}/")
    assert status == 200
    for name in HOSTILE:
        assert esc(name) in page
    assert "<script" not in page and "<i>" not in page and "<b>" not in page
    assert esc(HOSTILE_GAME) in page
    assert "To act: <strong>Carol</strong>" in page
    assert "<code>pass</code>" in page  # the legal moves
    status, svg, _ = server.get(f"/g/{gid}/map.svg")
    assert status == 200 and "<script" not in svg and "<b>" not in svg
    # Continental Rails: the demo's "<b>Evil & Co</b>" tycoon
    status, page, _ = server.get(f"/g/{games.ids['cr']}/")
    assert status == 200
    assert "&lt;b&gt;Evil &amp; Co&lt;/b&gt;" in page and "<b>Evil" not in page


def test_anonymous_game_shows_no_name(server, games):
    status, page, _ = server.get(f"/g/{games.ids['anonymous']}/")
    assert status == 200
    assert "Player 1" in page and "Player 2" in page and "To act: <strong>Player 3</strong>" in page
    for name in HOSTILE:
        assert name not in page and esc(name) not in page
    assert "anonymous game" in page
    # a player's own page: his own name, the others as "Player N"
    out = games.cli("link", "reset", games.names["anonymous"], "--player", "1", "--base", server.base).stdout
    status, mine, _ = server.get(out.strip().splitlines()[-1][len(server.base):])
    assert status == 200
    assert esc(HOSTILE[0]) in mine and "To act: Player 3." in mine
    assert "Carol" not in mine and esc(HOSTILE[1]) not in mine


def test_continental_rails_public_pages_live(server, games):
    gid = games.ids["cr"]
    status, page, _ = server.get(f"/g/{gid}/")
    assert status == 200
    assert "Standings" in page and "Railroads" in page and "<svg" in page
    assert 'href="turn-1.html"' in page
    status, turn, _ = server.get(f"/g/{gid}/turn-1.html")
    assert status == 200 and "Headlines" in turn
    assert server.get(f"/g/{gid}/style.css")[0] == 200
    assert server.get(f"/g/{gid}/turn-2.html")[0] == 404
    assert "@example.org" not in page and "@example.org" not in turn  # no contact on a public page


def test_player_links_private_pages_revocation_and_no_token_in_logs(server, games):
    cli = games.cli
    # an 18xx seat
    out = cli("link", "reset", games.names["hostile"], "--player", "3", "--base", server.base).stdout
    link = out.strip().splitlines()[-1]
    assert link.startswith(server.base + "/p/")
    token = link.rsplit("/", 2)[-2]
    assert len(token) >= 40
    path = link[len(server.base):]
    status, page, headers = server.get(path)
    assert status == 200
    assert "Carol, seat 3" in page and "it is your turn" in page and "<code>pass</code>" in page
    assert "p3@example.org" in page and "NOTIFY: every" in page
    assert headers["cache-control"] == "no-store" and headers["referrer-policy"] == "no-referrer"
    assert token not in page  # the page's links are relative
    code, pdf = server.get_bytes(path + "state.pdf")
    assert code == 200 and pdf.startswith(b"%PDF")
    # a Continental Rails seat: his own report
    out = cli("link", "reset", games.names["cr"], "--player", "2", "--base", server.base).stdout
    cr_path = out.strip().splitlines()[-1][len(server.base):]
    status, page, _ = server.get(cr_path)
    assert status == 200 and "Isambard Brunel, seat 2" in page and "report.pdf" in page
    code, pdf = server.get_bytes(cr_path + "report.pdf")
    assert code == 200 and pdf.startswith(b"%PDF")
    # wrong, truncated, revoked tokens: a plain 404
    for bad in ("/p/" + "A" * 43 + "/", "/p/" + token[:-1] + "/", "/p/x/", "/p/" + token + "/secret.txt"):
        status, body, _ = server.get(bad)
        assert status == 404 and body == "Not found\n", bad
    shown = cli("link", "show", games.names["hostile"]).stdout
    assert "player 3: live link since" in shown and token not in shown
    cli("link", "reset", games.names["hostile"], "--player", "3")
    assert server.get(path)[0] == 404  # the old link died with the reset
    cli("link", "revoke", games.names["cr"], "--player", "2")
    assert server.get(cr_path)[0] == 404
    assert server.get(cr_path + "report.pdf")[0] == 404
    # no secret on a public page, and none in the server's log
    for key in games.ids:
        assert token not in server.get(f"/g/{games.ids[key]}/")[1]
    log = server.log_text()
    assert '"GET /p/***/" 200' in log and '"GET /p/***/" 404' in log
    assert token not in log and cr_path not in log
    assert cli("link", "reset", games.names["cr"], "--player", "99", expect=2).exit_code == 2


def test_serve_on_a_port_in_use_is_one_line(server, games):
    import subprocess
    import sys

    from ..conftest import ROOT

    done = subprocess.run([sys.executable, "-m", "pbm", "--db", games.url, "serve", "--port", str(server.port)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{server.port}" in done.stderr and "Traceback" not in done.stderr


def test_serve_stops_cleanly_on_sigterm(games, tmp_path):
    import signal

    from .conftest import Server

    srv = Server(games.url, tmp_path / "serve.log")
    assert srv.get("/")[0] == 200
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(timeout=30) == 0
    assert srv.stop() == 0 and "Stopped." in srv.log_text()


def test_link_reset_mail_queues_the_link_to_the_player(games):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import OutboxMessage

    out = games.cli("link", "reset", games.names["hostile"], "--player", "2", "--mail").stdout
    link = out.strip().splitlines()[-2]
    assert "/p/" in link and "Mailed to p2@example.org" in out
    with session_scope(games.url) as s:
        rows = [m for m in s.scalars(select(OutboxMessage).where(OutboxMessage.key.like("web-link:%")))]
    assert [m.kind for m in rows] == ["secret"] and rows[0].recipients == ["p2@example.org"]
    import email

    body = email.message_from_bytes(rows[0].raw).get_payload(decode=True).decode()
    assert link in body and f"/g/{games.ids['hostile']}/" in body


def test_server_answers_while_moves_are_applied(server, games):
    """A worker (here the moderator's `pbm 18xx move`) writes the database the server reads."""
    gid = games.ids["hostile"]
    before = server.get(f"/g/{gid}/")[1]
    assert "after action 2 of 2" in before
    games.cli("18xx", "move", games.names["hostile"], "pass", "--player", "3", "--no-mail")
    after = server.get(f"/g/{gid}/")[1]
    assert "after action 3 of 3" in after
    # the server stepped its replay forward by the new action: the same state as a whole replay
    state = _state(games.url, games.names["hostile"])
    assert f"To act: <strong>{esc(state['to_act'])}</strong>" in after
    for name, p in state["players"].items():
        assert f'<th scope="row">{esc(name)}</th><td class="n">${p["cash"]}</td>' in after
    assert server.get(f"/g/{gid}/move-2.html")[1].count("<li value=") == 2
    games.cli("18xx", "undo", games.names["hostile"])  # the log shrinks: the server replays it whole
    undone = server.get(f"/g/{gid}/")[1]
    assert "after action 2 of 2" in undone and "To act: <strong>Carol</strong>" in undone
    games.cli("18xx", "move", games.names["hostile"], "bid 40 MRC", "--player", "3", "--no-mail")
    again = server.get(f"/g/{gid}/")[1]
    assert "after action 3 of 3" in again and "Carol: bid 40 MRC" in again  # not the page of the undone pass


def test_site_writes_the_same_pages_as_files(games, tmp_path):
    out = tmp_path / "ga"
    result = games.cli("site", games.names["hostile"], out)
    assert "Wrote" in result.stdout
    names = sorted(p.name for p in out.iterdir())
    assert {"index.html", "map.svg", "web.css", "move-0.html", "move-1.html"} <= set(names)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "<svg" in index and esc(HOSTILE[0]) in index and "<script" not in index
    assert 'href="move-1.html"' in index and "<form" not in index  # no server: no ?move= form
    assert "after action 1 of" in (out / "move-1.html").read_text(encoding="utf-8")
    for page in out.glob("*.html"):  # every relative link of a page is a file written
        for href in re.findall(r'href="([^"#]+)"', page.read_text(encoding="utf-8")):
            if not href.startswith(("http", "/", "../")):
                assert (out / href).exists(), (page.name, href)
    cr = tmp_path / "cr"
    games.cli("site", games.names["cr"], cr)
    assert {"index.html", "turn-1.html", "style.css"} <= {p.name for p in cr.iterdir()}
    assert "Standings" in (cr / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("module", ["starlette", "uvicorn", "jinja2", "pbm.web"])
def test_help_loads_no_web_library(module):
    import json
    import subprocess
    import sys

    from ..conftest import ROOT

    probe = ("from pbm.cli import app\nimport typer.main\ntyper.main.get_command(app)\n"
             "import sys, json\nprint(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert not [m for m in loaded if m == module or m.startswith(module + ".")]

"""The pages in a real browser (issue 33): playwright driving Debian's chromium (``apt-get install
chromium``; playwright never downloads a browser here), with JavaScript off, at phone width (390 px)
and desktop width.  The assertions are on content; the screenshots are for people (in the test's
temporary folder, or in ``$PBM_WEB_SHOTS`` when set)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .conftest import build_games

CHROMIUM = next((p for p in (os.environ.get("PBM_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p), None)


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """SQLite only: the pages are the same on PostgreSQL (test_serve.py checks both)."""
    folder = tmp_path_factory.mktemp("browser")
    url = f"sqlite:///{folder / 'pbm.db'}"
    yield build_games(url, folder)
    from pbm import db as pbm_db

    pbm_db.get_engine(url, migrate=False).dispose()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("PBM_WEB_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_phone_and_desktop_pages_history_and_private_links(browser, server, games, tmp_path):
    shots = _shots(tmp_path)
    gid = games.ids["recorded"]
    phone = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = phone.new_page()
    problems: list[str] = []  # console errors: a refused style or script (Content-Security-Policy), a failed load
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" and "404" not in msg.text else None)
    response = page.goto(f"{server.base}/")
    assert response.status == 200
    page.get_by_role("link", name=games.names["recorded"]).click()
    assert page.url == f"{server.base}/g/{gid}/"
    assert page.get_by_text("Game over").is_visible()
    assert page.locator("svg.map-svg").first.is_visible()
    # nothing wider than the phone but the map's own scrolling frame and the tables' frames
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / "18xx-end-390.png"), full_page=False)
    # history without JavaScript: the links, then the slider's form
    page.get_by_role("link", name="‹ action").click()
    assert page.url.endswith("/move-588.html")
    assert page.get_by_text("the game as it was after action 588").is_visible()
    page.locator("#move").fill("100")
    page.get_by_role("button", name="Show").click()
    assert page.url.endswith("?move=100")
    assert page.get_by_text("the game as it was after action 100 of 589").is_visible()
    page.screenshot(path=str(shots / "18xx-move100-390.png"), full_page=True)
    # a hostile name is text on the page
    page.goto(f"{server.base}/g/{games.ids['hostile']}/")
    assert page.get_by_role("rowheader", name='<script>alert("x")</script>').count() == 1
    # a player's own page, and the same link once revoked
    out = games.cli("link", "reset", games.names["hostile"], "--player", "3", "--base", server.base).stdout
    link = out.strip().splitlines()[-1]
    response = page.goto(link)
    assert response.status == 200
    assert page.get_by_text("Yes: it is your turn.").is_visible()
    page.screenshot(path=str(shots / "player-390.png"), full_page=True)
    games.cli("link", "revoke", games.names["hostile"], "--player", "3")
    response = page.goto(link)
    assert response.status == 404 and "Not found" in page.content()
    # Continental Rails' public page
    response = page.goto(f"{server.base}/g/{games.ids['cr']}/")
    assert response.status == 200 and page.get_by_text("Standings").first.is_visible()
    # the map is drawn in its colours (style attributes are allowed by the page's policy), not black
    fills = page.evaluate("[...new Set([...document.querySelectorAll('.map svg [style*=\"fill:\"]')]"
                          ".map(e => getComputedStyle(e).fill))]")
    assert fills and any(f not in ("rgb(0, 0, 0)", "none") for f in fills), fills
    assert problems == []
    phone.close()
    desktop = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = desktop.new_page()
    page.goto(f"{server.base}/g/{gid}/move-300.html")
    assert page.get_by_text("after action 300 of 589").is_visible()
    page.screenshot(path=str(shots / "18xx-move300-1280.png"), full_page=False)
    page.goto(f"{server.base}/g/{games.ids['cr']}/")
    page.screenshot(path=str(shots / "cr-1280.png"), full_page=False)
    desktop.close()
    for name in ("18xx-end-390.png", "18xx-move100-390.png", "player-390.png", "18xx-move300-1280.png", "cr-1280.png"):
        assert (shots / name).stat().st_size > 10_000


def test_continental_rails_pages_fit_a_phone(browser, server, games, tmp_path):
    """The archive site's pages at 390 px: the viewport tag keeps the page at the phone's width (no
    zoomed-out 980 px layout), and a table wider than the screen scrolls sideways in its own box."""
    shots = _shots(tmp_path)
    gid = games.ids["cr"]
    phone = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = phone.new_page()
    for path, shot in (("", "cr-390.png"), ("turn-1.html", "cr-turn1-390.png")):
        response = page.goto(f"{server.base}/g/{gid}/{path}")
        assert response.status == 200
        assert page.locator('meta[name="viewport"]').get_attribute("content") == "width=device-width, initial-scale=1"
        assert page.evaluate("window.innerWidth") == 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
        # every table stays inside the screen; a wider one scrolls within its box
        boxes = page.evaluate("[...document.querySelectorAll('table')].map(t => [t.getBoundingClientRect().right,"
                              " t.scrollWidth, t.clientWidth, getComputedStyle(t).overflowX])")
        assert boxes, path
        for right, scroll_w, client_w, overflow in boxes:
            assert right <= 390
            assert scroll_w <= client_w or overflow == "auto"
        page.screenshot(path=str(shots / shot), full_page=True)
    page.goto(f"{server.base}/g/{gid}/")
    assert page.get_by_text("Standings").first.is_visible()
    # at least the standings or railroads table is wider than the phone and scrolls (or this test proves little)
    assert any(s > c for _, s, c, _ in page.evaluate(
        "[...document.querySelectorAll('table')].map(t => [0, t.scrollWidth, t.clientWidth, 0])")), "no wide table"
    map_right = page.evaluate("document.querySelector('.map svg').getBoundingClientRect().right")
    assert map_right <= 390
    phone.close()
    for name in ("cr-390.png", "cr-turn1-390.png"):
        assert (shots / name).stat().st_size > 10_000

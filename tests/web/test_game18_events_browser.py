"""The event log in a real browser (issue 33): at phone width with JavaScript off, an event's action
number opens the game as it was after that action."""
from __future__ import annotations

import re

from .test_browser import browser, games  # noqa: F401 (fixtures: Debian's chromium; the games, SQLite only)


def test_an_events_link_opens_the_game_after_that_action(browser, server, games):  # noqa: F811
    gid = games.ids["recorded"]
    phone = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = phone.new_page()
    assert page.goto(f"{server.base}/g/{gid}/").status == 200
    assert page.get_by_role("heading", name="Events").is_visible()
    items = page.locator("ul.events > li")
    assert items.count() > 50
    # the auction's first win is at the bottom (newest first); its number links to the page after it
    first = items.last
    assert re.fullmatch(r"Player \d gets LTR for \$\d+", first.locator("ul > li").first.inner_text())
    seq = int(first.get_attribute("data-action"))
    first.get_by_role("link", name=f"#{seq}", exact=True).click()
    assert page.url.endswith(f"/move-{seq}.html")
    assert page.get_by_text(f"the game as it was after action {seq} of").is_visible()
    # that page's event log ends at that action, marked as the current one
    assert page.locator("ul.events > li").first.get_attribute("data-action") == str(seq)
    assert page.locator("ul.events > li[aria-current=step]").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    phone.close()

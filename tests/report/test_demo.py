"""`pbm demo`: the whole product in one command (real engine, mail intake, cycle, reports, archive)."""

from __future__ import annotations

from tests.conftest import Cli
from tests.report.conftest import pdf_text
from tests.report.test_site_charts import check_site_charts


def test_demo_plays_turns_and_leaves_reports_mail_and_archive(sqlite_url, tmp_path):
    folder = tmp_path / "demo"
    result = Cli(sqlite_url)("demo", "--dir", str(folder), "--turns", "2")
    assert "Turn 1: 4 players mailed their turnsheets" in result.stdout
    assert "turn 1: mail read: 4 accepted" in result.stdout
    assert "Demo ready in" in result.stdout and "2 turn(s) played" in result.stdout
    for turn in (1, 2):
        reports = folder / "reports" / "demo-1841" / f"turn-{turn}"
        assert sorted(p.name for p in reports.glob("*.pdf")) == [
            "moderator.pdf", "player-1.pdf", "player-2.pdf", "player-3.pdf", "player-4.pdf"]
        assert (folder / "archive" / "demo-1841" / f"turn-{turn}" / "MANIFEST.sha256").exists()
    text = pdf_text(folder / "reports" / "demo-1841" / "turn-2" / "player-1.pdf")
    assert "9.4 Stock report" in text and "Messages from the tycoons" in text
    assert "Buy <font>B&O</font> & prosper!" in text or "All aboard!" in text
    assert (folder / "archive" / "demo-1841" / "site" / "index.html").exists()
    check_site_charts(sqlite_url, folder)
    mails = sorted((folder / "outbox").glob("*report*.eml"))
    assert len(mails) == 8  # 4 players x 2 turns, each once
    # Running the cycle again changes nothing: no turn is due, nothing is mailed twice.
    again = Cli(sqlite_url)("cycle", "--reports", str(folder / "reports"),
                                                   "--archive", str(folder / "archive"))
    assert "demo-1841: not due" in again.stdout

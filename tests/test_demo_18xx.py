"""`pbm demo --title T`: an 18xx game by email in one command, mails and PDFs left to read (issue 29, item 9)."""
from __future__ import annotations

import email
import email.policy
import mailbox
import re

from typer.testing import CliRunner

from pbm.cli import app


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_demo_plays_an_18xx_game_by_mail_with_a_company_turn_in_one_mail(tmp_path):
    folder = tmp_path / "va"
    r = _run("--db", f"sqlite:///{tmp_path / 'va.db'}", "demo", "--title", "18VA", "--dir", str(folder),
             "--moves", "56")
    assert r.exit_code == 0, r.stdout + repr(r.exception)
    m = re.search(r"18VA game (\S+), (\d+) action\(s\) from (\d+) mail\(s\)", r.stdout)
    assert m, r.stdout
    actions, mails = int(m.group(2)), int(m.group(3))
    assert actions >= 56 and 0 < mails < actions  # some mails carried a company's whole turn
    # the players' mails, as they arrived
    box = mailbox.Maildir(str(folder / "maildir"), create=False)
    bodies = [msg.get_payload(decode=True).decode() for msg in box]
    assert len(bodies) == mails
    assert all(b.startswith(f"GAME: {m.group(1)}\nPLAYER: ") and "\nSECRET: " in b for b in bodies)
    company = [b for b in bodies if re.search(r"^lay ", b, re.M) and len(b.strip().splitlines()) >= 5]
    assert company, "no mail with a company's turn (a tile and more) in it"
    # what pbm would have sent: a receipt for every mail, state mails with the PDF, nothing refused
    outbox = sorted((folder / "outbox").glob("*.eml"))
    parsed = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default) for p in outbox]
    receipts = [p for p in parsed if str(p["Subject"]).count("Your turn") or "ACCEPTED" in
                p.get_body(("plain",)).get_content()]
    assert sum("ACCEPTED: your message" in p.get_body(("plain",)).get_content() for p in parsed) == mails
    assert receipts and "refused" not in r.stdout
    assert any(part.get_content_type() == "application/pdf" for p in parsed for part in p.iter_attachments())
    pdfs = sorted((folder / "pdfs").glob("*.pdf"))
    assert len(pdfs) >= mails and all(p.read_bytes().startswith(b"%PDF") for p in pdfs)
    state = (folder / "state.txt").read_text(encoding="utf-8")
    assert f"{actions} action(s) so far" in state
    assert "secret" in (folder / "players.txt").read_text(encoding="utf-8")


def test_demo_of_an_unknown_title_says_which_titles_there_are(tmp_path):
    r = _run("--db", f"sqlite:///{tmp_path / 'x.db'}", "demo", "--title", "18ZZ", "--dir", str(tmp_path / "x"))
    assert r.exit_code != 0
    assert "18ZZ" in r.stdout + r.stderr and "18AL" in r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_demo_help_names_the_titles():
    r = _run("demo", "--help")
    assert r.exit_code == 0 and "--title" in r.stdout and "18AL" in r.stdout

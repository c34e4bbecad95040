"""`pbm demo --title T`: an 18xx game by email in one command, mails and PDFs left to read (issue 29, item 9)."""
from __future__ import annotations

import email
import email.policy
import mailbox
import re

import pytest
from typer.testing import CliRunner

from pbm.cli import app


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_demo_plays_an_18xx_game_by_mail_with_a_company_turn_in_one_mail(tmp_path):
    folder = tmp_path / "va"
    # the demo's own database in its folder (a scratch one: pbm.db.SCRATCH)
    r = _run("demo", "--title", "18VA", "--dir", str(folder), "--moves", "56")
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
    # an operating turn in one mail: a tile, a route, a train (issue 29: the demo's 40 actions were passes)
    assert any(re.search(r"^lay ", b, re.M) and re.search(r"^run ", b, re.M) and re.search(r"^buy train ", b, re.M)
               for b in bodies), bodies[-5:]
    assert "(an operating turn in one mail: a tile laid, a route run, a train bought)" in r.stdout
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
    assert (folder / "pbm.db").is_file()


@pytest.mark.parametrize("title", ["18GA", "18AL", "1848", "18VA"])
def test_the_demo_players_reach_an_operating_turn_with_a_lay_a_run_and_a_train(title):
    """Issue 29: `pbm demo --title 18AL` played 40 actions, mostly passes, and no company operated. The
    demo's players (without the mail around them, which the test above goes through) float companies,
    and within the demo's actions a company's turn lays a tile, runs a route and buys a train."""
    from pbm.e18xx.core.game import Game
    from pbm.e18xx.pbem.demo import OPERATING, PLAYERS, _turn_mail

    g = Game(title, [p for p, _ in PLAYERS], 1848)
    seen: set[str] = set()
    while len(g.actions) < 70 and not seen >= OPERATING:
        assert _turn_mail(g, None, seen)[1]
    assert seen >= OPERATING, (title, len(g.actions))
    assert sum(1 for c in g.state.corporations.values() if c.floated) >= 2


def test_demo_of_an_unknown_title_says_which_titles_there_are(tmp_path):
    r = _run("--db", f"sqlite:///{tmp_path / 'x.db'}", "demo", "--title", "18ZZ", "--dir", str(tmp_path / "x"))
    assert r.exit_code != 0
    assert "18ZZ" in r.stdout + r.stderr and "18AL" in r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_demo_help_names_the_titles():
    r = _run("demo", "--help")
    assert r.exit_code == 0 and "--title" in r.stdout and "18AL" in r.stdout

"""Issue 29, items 7 and 8: the smaller faults of 18xx play by mail, and how much mail a player gets, each
through a real round trip: the move mail into a Dovecot IMAP mailbox, `pbm ingest --imap --send`, the
answers read off a real SMTP server (aiosmtpd) on loopback."""
from __future__ import annotations

import email
import email.policy
import re
from datetime import datetime, timedelta

import imapclient
import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.pbem.games import action_rows
from pbm.models import Game
from tests.mail.dovecot import PASSWORD, USER, available, mail_servers, new_18xx_game
from tests.mail.helpers import mk

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


class World:
    def __init__(self, cli, server, smtp, cfg, secrets, name):
        self.cli, self.server, self.smtp, self.cfg, self.secrets, self.name = cli, server, smtp, cfg, secrets, name
        self.n = 0

    def deliver_raw(self, raw: bytes) -> str:
        c = imapclient.IMAPClient("127.0.0.1", port=self.server.port, ssl=False)
        c.login(USER, PASSWORD)
        c.append("INBOX", raw)
        c.logout()
        return self.cli("ingest", "--imap", "--send", "--config", str(self.cfg)).stdout

    def deliver(self, seat: int, lines: str, *, game: str | None = None, head: str | None = None) -> str:
        self.n += 1
        name, addr = PLAYERS[seat - 1]
        top = head if head is not None else (f"GAME: {game or self.name}\nPLAYER: {seat}\n"
                                             f"SECRET: {self.secrets[seat]}\n")
        return self.deliver_raw(mk(top + lines + "\n", sender=f"{name} <{addr}>",
                                   msgid=f"<r2-{self.n}@test.example>"))

    def mails(self, addr: str) -> list[email.message.EmailMessage]:
        return [email.message_from_bytes(m.data, policy=email.policy.default) for m in self.smtp.messages
                if addr in m.rcpt_tos]

    def bodies(self, addr: str) -> list[tuple[str, str]]:
        return [(str(m["Subject"]), m.get_body(("plain",)).get_content().replace("\r\n", "\n"))
                for m in self.mails(addr)]

    def last(self, addr: str) -> tuple[str, str]:
        return self.bodies(addr)[-1]

    def log(self) -> list[dict]:
        with session_scope(self.cli.url) as s:
            row = s.scalar(select(Game).where(Game.name == self.name))
            return [{"seq": r.seq, "player": r.player_number, **r.action} for r in action_rows(s, row)]

    def row_state(self) -> dict:
        with session_scope(self.cli.url) as s:
            return dict(s.scalar(select(Game).where(Game.name == self.name)).state or {})


def _world(cli, tmp_path, tmp_path_factory, monkeypatch, title: str, name: str, seed: int = 11):
    cfg = tmp_path / "pbm.toml"
    with mail_servers(tmp_path_factory, monkeypatch, cfg) as (server, smtp):
        secrets = new_18xx_game(cli, tmp_path, PLAYERS, title, name, seed)
        cli("send-mail", "--config", str(cfg))  # the start of the game
        yield World(cli, server, smtp, cfg, secrets, name)


@pytest.fixture
def world(cli, tmp_path, tmp_path_factory, monkeypatch):
    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18GA", "ga-1")


@pytest.fixture
def va(cli, tmp_path, tmp_path_factory, monkeypatch):
    yield from _world(cli, tmp_path, tmp_path_factory, monkeypatch, "18VA", "va-1")


def _since(w: World) -> datetime:
    return datetime.fromisoformat(w.row_state()["clock"]["since"])


# ----------------------------------------------------------------- item 8 of "Why": the proxy's own seat
def test_a_proxy_gets_her_own_seats_mail_and_the_absent_seat_its_own(world):
    w = world
    today = datetime.utcnow().date()
    assert "accepted" in w.deliver(3, f"AWAY: {today} {today + timedelta(days=2)} proxy 1")
    assert "player 1 accepted" in w.deliver(1, "pass")
    assert "player 2 accepted" in w.deliver(2, "pass")
    before = len(w.mails("ann@example.org"))
    out = w.deliver(1, "FOR: 3\npass")  # Ann moves for the absent Cy; then it is Ann's turn again
    assert "accepted" in out, out
    assert w.log()[-1]["player"] == 3 and w.log()[-1]["_via"] == "proxy Ann"
    new = w.bodies("ann@example.org")[before:]
    assert len(new) == 1, [s for s, _ in new]
    subject, body = new[0]
    # Ann's answer is her own seat's mail: her turn, her reply lines, and it says she moved for Cy
    assert "Your turn" in subject, subject
    assert "IT IS YOUR TURN" in body
    assert "PLAYER: 1\n" in body and "PLAYER: 3\n" not in body
    assert "for player 3 (Cy)" in body
    # Cy, away, still gets the state of her seat, with her reply lines
    subject, body = w.last("cy@example.org")
    assert "PLAYER: 3\n" in body and "proxy Ann" in body


# ----------------------------------------------------------------- a misspelt GAME line
def test_a_misspelt_game_line_is_answered_in_the_words_of_move_mail(world):
    w = world
    out = w.deliver(1, "pass", game="ga-l")
    assert "rejected" in out
    subject, body = w.last("ann@example.org")
    assert "before the deadline" not in body and "turnsheet" not in body.lower()
    assert "the GAME line names no game here" in body and "ga-l" not in body  # none of the mail's words
    assert "ga-1 (18GA)" in body  # the game meant
    assert w.log() == []


# ----------------------------------------------------------------- reminders on a late cycle
def test_a_late_cycle_sends_one_reminder_not_two_alike(world):
    w = world
    w.cli("18xx", "pacing", "ga-1", "--clock", "48", "--remind", "5", "--on-timeout", "notify")
    assert "accepted" in w.deliver(1, "pass")
    t0 = _since(w)
    # the worker was down: the first cycle runs 44 h in, when the half-time and the 5 h reminders are both due
    w.cli("cycle", "--clock", (t0 + timedelta(hours=44)).isoformat(timespec="seconds"), "--config", str(w.cfg))
    w.cli("cycle", "--clock", (t0 + timedelta(hours=45)).isoformat(timespec="seconds"), "--config", str(w.cfg))
    reminders = [(s, b) for s, b in w.bodies("bob@example.org") if "Reminder" in s]
    assert len(reminders) == 1, [s for s, _ in reminders]
    assert "4 h left" in reminders[0][0]


# ----------------------------------------------------------------- pbm cycle --clock
def test_cycle_clock_is_documented_and_takes_minutes_or_a_date(world):
    w = world
    helptext = w.cli("cycle", "--help").stdout
    assert "--clock" in helptext
    w.cli("18xx", "pacing", "ga-1", "--clock", "48", "--remind", "5", "--on-timeout", "notify")
    assert "accepted" in w.deliver(1, "pass")
    t0 = _since(w)
    at = t0 + timedelta(hours=30)
    out = w.cli("cycle", "--clock", at.strftime("%Y-%m-%d %H:%M"), "--config", str(w.cfg)).stdout
    assert "reminded" in out or "ticked" in out, out
    assert any("Reminder" in s for s, _ in w.bodies("bob@example.org"))
    # a date alone is that day's midnight (UTC); it must be accepted
    r = w.cli("cycle", "--clock", (t0 + timedelta(days=1)).strftime("%Y-%m-%d"), "--config", str(w.cfg))
    assert r.exit_code == 0, r.stdout


# ----------------------------------------------------------------- --require-seen and a top-posted reply
def test_require_seen_takes_the_seen_line_from_the_quote_of_a_top_posted_reply(world):
    w = world
    w.cli("18xx", "pacing", "ga-1", "--require-seen")
    ann = w.last("ann@example.org")[1]  # the start of the game: Ann's turn, with its SEEN line
    seen = re.findall(r"^SEEN: \d+ \w+$", ann, re.MULTILINE)[-1]
    quoted = "\n".join("> " + line for line in ann.splitlines())
    body = f"pass\n\nOn Thu, 26 Nov 2026 at 09:00, pbm <moderator@pbm.example> wrote:\n{quoted}\n"
    out = w.deliver(1, body, head="")  # nothing above the moves: GAME, PLAYER and SEEN only in the quote...
    assert "rejected" in out  # ...and no SECRET: refused for that, not for the SEEN line
    assert "SEEN line is missing" not in w.last("ann@example.org")[1]
    out = w.deliver(1, body, head=f"SECRET: {w.secrets[1]}\n")
    assert "player 1 accepted" in out, out
    assert len(w.log()) == 1 and seen.startswith("SEEN: 0 ")
    # a reply quoting an older state mail is still stale
    bob = w.last("bob@example.org")[1]
    out = w.deliver(2, "pass\n\nOn Thu, Ann wrote:\n" + "\n".join("> " + x for x in ann.splitlines()),
                    head=f"SECRET: {w.secrets[2]}\nPLAYER: 2\n")
    assert "accepted" in out  # lenient: Bob has not moved since action 0
    assert "SEEN: 1 " in bob


# ----------------------------------------------------------------- the first digest
def test_a_digest_of_many_actions_says_how_many_it_lists_and_whose_turn_it_is(world):
    w = world
    assert "accepted" in w.deliver(3, "NOTIFY: digest")
    from tests.e18xx.test_pbem_mail import PLAYERS as _P  # noqa: F401 - same seats
    # play on by the computer for seats 1 and 2 until Cy has many actions to read
    w.cli("18xx", "seat", "ga-1", "--player", "1", "--computer")
    w.cli("18xx", "seat", "ga-1", "--player", "2", "--computer")
    for _ in range(60):
        log = w.log()
        if len(log) >= 40:
            break
        from pbm.e18xx.pbem.games import load
        with session_scope(w.cli.url) as s:
            g = load(s, s.scalar(select(Game).where(Game.name == "ga-1")))
            from pbm.e18xx.pbem.computer import choose
            from pbm.e18xx.pbem.games import move_text
            act = choose(g)
            actor = g.acting_players()[0]
        if actor == "Cy":
            assert "accepted" in w.deliver(3, move_text(g, act))
        else:
            w.cli("18xx", "tick", "ga-1", "--config", str(w.cfg))
    n = len(w.log())
    assert n > 30
    w.cli("cycle", "--config", str(w.cfg))
    digest = [(s, b) for s, b in w.bodies("cy@example.org") if "digest" in s]
    assert len(digest) == 1
    body = digest[0][1]
    assert f"{n} new action(s)" in body or re.search(r"\d+ new action\(s\)", body)
    listed = re.findall(r"^  #\d+ ", body, re.MULTILINE)
    m = re.search(r"(\d+) new action\(s\)", body)
    if int(m.group(1)) > len(listed):
        assert f"the last {len(listed)}" in body, body
    assert "To act: " in body or "game over" in body.lower()
    # a share bought says where it came from, never a certificate id (test_digest_words: companies)
    assert not re.search(r"^  #\d+ .*_\d", body, re.MULTILINE), body
    assert re.search(r"^  #\d+ (Ann|Bob|Cy): buy [A-Z&]+ (ipo|market)", body, re.MULTILINE), body


# ----------------------------------------------------------------- the PDF's "last move" ring
def test_the_last_move_ring_stays_on_a_tile_after_run_dividend_train_and_more():
    from types import SimpleNamespace

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.render.pdf import changed_hexes

    lay = A.LayTile(entity="W&A", hex="E6", tile="57", rotation=0)
    after = [A.Pass("W&A")] * 4 + [A.Pass("CoG")]  # run, dividend, train, done; another company began
    # a PDF for no reader in particular (a reader's own: since his previous PDF, test_issue29_notes.py)
    assert changed_hexes(SimpleNamespace(actions=[lay, *after]), None)[0] == [lay.hex]


# ----------------------------------------------------------------- item 8: PDF every | map | turn | never
def _has_pdf(msg) -> bool:
    return any(part.get_content_type() == "application/pdf" for part in msg.iter_attachments())


def test_pdf_choices_by_mail_and_the_default(world):
    w = world
    # the start of the game: everyone got the first PDF
    assert all(_has_pdf(w.mails(a)[-1]) for _, a in PLAYERS)
    out = w.deliver(1, "PDF: every")
    assert "player 1 accepted" in out
    assert "Noted: your state mails carry the PDF with every state mail" in w.last("ann@example.org")[1]
    assert "accepted" in w.deliver(2, "pdf: never")
    assert "Noted: your state mails carry no PDF" in w.last("bob@example.org")[1]  # not "the PDF never"
    assert "accepted" in w.deliver(3, "PDF: sometimes")
    assert "The PDF line must be one of every, map, turn, never" in w.last("cy@example.org")[1]
    counts = {a: len(w.mails(a)) for _, a in PLAYERS}
    assert "player 1 accepted" in w.deliver(1, "pass")  # Bob's turn; the map is as it was
    ann, bob, cy = (w.mails(a)[counts[a]:] for _, a in PLAYERS)
    assert len(ann) == len(bob) == len(cy) == 1
    assert _has_pdf(ann[0])  # every
    assert not _has_pdf(bob[0])  # never, even on his turn
    assert not _has_pdf(cy[0])  # the default: not her turn, and the map has not changed
    cy_text = cy[0].get_body(("plain",)).get_content()
    assert "No PDF with this mail; you get it when it is your turn and when the map has changed" in cy_text
    assert "'PDF: every', 'PDF: map', 'PDF: turn' or 'PDF: never'" in cy_text
    assert "you get none (the text of the mail" in bob[0].get_body(("plain",)).get_content()  # not "get it never"
    assert "player 2 accepted" in w.deliver(2, "pass")  # now Cy's turn: the default sends her the PDF
    assert _has_pdf(w.mails("cy@example.org")[-1])
    assert "The PDF of the state is attached" in w.last("cy@example.org")[1]
    assert not _has_pdf(w.mails("bob@example.org")[-1])


def test_the_default_pdf_follows_the_map():
    """The default: a PDF when the map changed since the seat's last PDF (or on its turn); 'map' and 'turn'."""
    from types import SimpleNamespace

    from pbm.e18xx.pbem.notify import pdf_sent, set_pdf_preference, wants_pdf

    row = SimpleNamespace(state={})
    assert wants_pdf(row, 1, turn=False, finished=False, signature="a")  # never had one
    pdf_sent(row, 1, "a")
    assert not wants_pdf(row, 1, turn=False, finished=False, signature="a")
    assert wants_pdf(row, 1, turn=True, finished=False, signature="a")
    assert wants_pdf(row, 1, turn=False, finished=False, signature="b")  # a tile was laid
    set_pdf_preference(row, 1, "map")
    assert not wants_pdf(row, 1, turn=True, finished=False, signature="a")
    assert wants_pdf(row, 1, turn=False, finished=False, signature="b")
    set_pdf_preference(row, 1, "turn")
    assert not wants_pdf(row, 1, turn=False, finished=False, signature="b")
    assert wants_pdf(row, 1, turn=False, finished=True, signature="a")  # the last mail of the game
    set_pdf_preference(row, 1, "never")
    assert not wants_pdf(row, 1, turn=True, finished=True, signature="b")


# ----------------------------------------------------------------- rule numbers in offers come from the title
@pytest.mark.parametrize("title, rule", [("18GA", "rule 4.2.6"), ("18AL", "rule 4.2.6"), ("18VA", "rule 4.2")])
def test_an_offer_for_a_private_cites_the_titles_own_rule(title, rule):
    from types import SimpleNamespace

    from pbm.e18xx.core.title import load_title
    from pbm.e18xx.pbem.games import offer_rule
    from pbm.e18xx.pbem.mailplay import _answer_note, _offer_note

    offer = {"entity": "B&O", "owner": "Ann", "price": 60, "company": "P1", "buyer_name": "Bob", "kind": "private"}
    row = SimpleNamespace(title=title)
    assert offer_rule(load_title(title), offer) == rule
    made, agreed = _offer_note(offer, row), _answer_note(offer, True, row)
    assert f"({rule})" in made and f"({rule})" in agreed
    assert "3.2" not in made + agreed or title == "18GA" and "rule 3.2" not in made + agreed


def test_a_mail_without_the_pdf_points_to_the_games_web_page(world, monkeypatch):
    w = world
    monkeypatch.setenv("PBM_WEB_URL", "https://pbm.example/games")
    assert "player 1 accepted" in w.deliver(1, "pass")  # Cy: not her turn, no map change: no PDF
    msg = w.mails("cy@example.org")[-1]
    text = msg.get_body(("plain",)).get_content()
    assert not _has_pdf(msg)
    assert "The game's page (map, market, players, history): https://pbm.example/games" in text
    assert "No PDF with this mail (the game's web page above has the map)" in text


@pytest.fixture
def va_offer(cli, tmp_path, tmp_path_factory, monkeypatch):
    """The recorded 18VA game cut before its action 211: N&W (Player 3) may buy P1 from its owner."""
    import json

    from tests.conftest import SHARED

    src = SHARED / "fixtures" / "18xx" / "18VA" / "18VA_game_end_bank.json"
    if not src.is_file():
        pytest.skip(f"no recorded 18VA game at {src}")
    export = json.loads(src.read_text(encoding="utf-8"))
    export["actions"] = [a for a in export["actions"] if int(a.get("id") or 0) < 211]
    export.pop("result", None)
    (tmp_path / "va.json").write_text(json.dumps(export), encoding="utf-8")
    (tmp_path / "emails.csv").write_text("name,email\n" + "".join(
        f"Player {n},{addr}\n" for n, (_, addr) in enumerate(PLAYERS, 1)), encoding="utf-8")
    cfg = tmp_path / "pbm.toml"
    with mail_servers(tmp_path_factory, monkeypatch, cfg) as (server, smtp):
        out = cli("18xx", "import", str(tmp_path / "va.json"), "--name", "va-1", "--emails",
                  str(tmp_path / "emails.csv")).stdout
        secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) Player \d <[^>]+>: (\S+)", out)}
        assert sorted(secrets) == [1, 2, 3], out
        yield World(cli, server, smtp, cfg, secrets, "va-1")


def test_an_18va_offer_for_a_private_cites_18va_not_18ga(va_offer):
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import load, move_text, needs_consent

    w = va_offer
    with session_scope(w.cli.url) as s:
        g = load(s, s.scalar(select(Game).where(Game.name == "va-1")))
        buyer = g.controller(g.current_entity())
        act = next(a for a in g.legal_actions() if isinstance(a, A.BuyCompany) and needs_consent(g, buyer, a))
        owner = g.state.companies[act.company].owner[2:]
        line = move_text(g, act)
    seat = int(buyer.split()[-1])
    out = w.deliver(seat, line)
    assert "accepted" in out, out
    receipt = w.last(PLAYERS[seat - 1][1])[1]
    assert "OFFER MADE, NOT YET A SALE" in receipt and "(rule 4.2)" in receipt and "3.2" not in receipt
    offers = [(s, b) for s, b in w.bodies(PLAYERS[int(owner.split()[-1]) - 1][1]) if "Offer for your" in s]
    assert len(offers) == 1 and f"Offer for your {act.company}" in offers[0][0]
    assert "rule 4.2:" in offers[0][1] and "3.2" not in offers[0][1]

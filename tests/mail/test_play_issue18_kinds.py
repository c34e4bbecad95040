"""Issue 18, item 11: Continental Rails commands on an 18xx game answer in one line (or do the 18xx thing), and
an 18xx game's players are told it has started; played through real IMAP (Dovecot) and SMTP (aiosmtpd)."""

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
from tests.mail.dovecot import PASSWORD, USER, available, mail_servers
from tests.mail.helpers import mk

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


def _new_18ga(cli, tmp_path) -> tuple[dict[int, str], str]:
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18GA", "--players", str(csv), "--seed", "11", "--name", "ga-1", "--no-welcome").stdout
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}, out


def _log(cli) -> list[dict]:
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        return [{"seq": r.seq, "player": r.player_number, **r.action} for r in action_rows(s, row)]


def _mails(smtp, addr: str) -> list[tuple[str, str]]:
    out = []
    for m in smtp.messages:
        if addr in m.rcpt_tos:
            msg = email.message_from_bytes(m.data, policy=email.policy.default)
            out.append((str(msg["Subject"]), msg.get_body(("plain",)).get_content().replace("\r\n", "\n")))
    return out


@pytest.fixture
def world(cli, tmp_path, tmp_path_factory, monkeypatch):
    reason = available()
    if reason is not None:
        pytest.skip(reason)
    cfg = tmp_path / "pbm.toml"
    with mail_servers(tmp_path_factory, monkeypatch, cfg) as (server, smtp):
        yield server, smtp, cfg


def _deliver(server, seat: int, body: str, n: int) -> None:
    c = imapclient.IMAPClient("127.0.0.1", port=server.port, ssl=False)
    c.login(USER, PASSWORD)
    name, addr = PLAYERS[seat - 1]
    c.append("INBOX", mk(body, sender=f"{name} <{addr}>", msgid=f"<kinds{n}@test.example>"))
    c.logout()


def test_the_players_are_told_the_game_started_and_the_first_moves_by_reply(cli, tmp_path, world):
    server, smtp, cfg = world
    secrets, out = _new_18ga(cli, tmp_path)
    assert "Start of the game mailed to 3 player(s)" in out
    cli("send-mail", "--config", str(cfg))
    [(subject, ann)] = _mails(smtp, "ann@example.org")
    assert subject == "[ga-1] Game started - Your turn: Ann"
    assert "THE GAME HAS STARTED" in ann and "IT IS YOUR TURN (Ann)." in ann
    may = ann[ann.index("You may:\n"):].split("\n\n")[0].splitlines()[1:]  # the legal moves, in the move language
    assert may[0].split("#")[0].strip() == "bid 20 LTR" and "pass" in [m.strip() for m in may]
    header = ann[ann.rindex("GAME: ga-1"):ann.rindex("SECRET:")]  # the lines to reply with
    assert header.startswith("GAME: ga-1\nPLAYER: 1\nSEEN: 0 ")
    for addr in ("bob@example.org", "cy@example.org"):
        [(subject, text)] = _mails(smtp, addr)
        assert subject == "[ga-1] Game started - Ann to act"
        assert "THE GAME HAS STARTED" in text and "IT IS YOUR TURN" not in text
    # Ann answers her mail with a move: `pbm cycle` reads the IMAP mailbox (configured) and ticks the clocks
    _deliver(server, 1, f"{header}SECRET: {secrets[1]}\npass\n", 1)
    res = cli("cycle", "--config", str(cfg))
    assert "18xx: mail read: 1 accepted" in res.stdout
    assert "move clocks ticked: ga-1" in res.stdout and "Continental Rails" not in res.stdout
    assert [(e["player"], e.get("_via")) for e in _log(cli)] == [(1, None)]
    assert _mails(smtp, "ann@example.org")[-1][1].startswith("ACCEPTED: your message #1")
    assert _mails(smtp, "bob@example.org")[-1][0] == "[ga-1] Your turn: Bob"
    status = cli("status", "ga-1").stdout
    assert "Game ga-1 (18GA, moves by email): 1 action(s) so far, auction round." in status
    assert "To move: Bob (player 2, bob@example.org)" in status
    assert "On the clock since" in status and "move due by" in status
    assert "Last move: #1 Ann: pass" in status and "Messages: 1 accepted" in status
    # `pbm ingest GAME` reads that game's moves
    _deliver(server, 2, f"GAME: ga-1\nPLAYER: 2\nSECRET: {secrets[2]}\npass\n", 2)
    assert "#2 player 2 accepted" in cli("ingest", "ga-1", "--imap").stdout
    # Cy's clock runs out while his move waits in the mailbox: the cycle reads it before any time-out
    cli("18xx", "pacing", "ga-1", "--clock", "24", "--on-timeout", "default")
    _deliver(server, 3, f"GAME: ga-1\nPLAYER: 3\nSECRET: {secrets[3]}\nbid 20 LTR\n", 3)
    with session_scope(cli.url) as s:
        since = datetime.fromisoformat(s.scalar(select(Game).where(Game.name == "ga-1")).state["clock"]["since"])
    cli("cycle", "--config", str(cfg), "--clock", (since + timedelta(hours=24, minutes=1)).isoformat())
    third = _log(cli)[2]
    assert (third["player"], third.get("_via"), third["type"]) == (3, None, "bid")  # his bid, not a time-out


CR_COMMANDS = {
    ("status",): None,  # answered: the 18xx status
    ("turnsheet", "ga-1"): "it has no turnsheets",
    ("run-turn", "ga-1"): "`pbm 18xx move ga-1 --player N MOVE`",
    ("run-turn",): "`pbm 18xx move ga-1 --player N MOVE`",
    ("rerun-turn", "ga-1", "1"): "`pbm 18xx undo ga-1`",
    ("accept-late", "ga-1", "1"): "a move is never late",
    ("remind", "ga-1"): "`pbm 18xx tick`",
    ("deadline", "ga-1", "2026-12-01 18:00"): "`pbm 18xx pacing ga-1`",
    ("report", "ga-1"): "`pbm 18xx pdf ga-1`",
    ("send", "ga-1"): "`pbm send-mail`",
    ("archive", "ga-1"): "`pbm 18xx export ga-1`",
}


def test_continental_rails_commands_on_an_18xx_game_answer_in_one_line(cli, tmp_path):
    _new_18ga(cli, tmp_path)
    for args, hint in CR_COMMANDS.items():
        if hint is None:
            out = cli(*args).stdout
            assert out.startswith("Game ga-1 (18GA, moves by email): 0 action(s) so far") and "To move: Ann" in out
            continue
        res = cli(*args, expect=2)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, (args, res.stderr)
        assert lines[0].startswith(f"Error: `pbm {args[0]}` is for Continental Rails turns; ga-1 is an 18GA game "
                                   "played move by move: ") and hint in lines[0], (args, lines)
    res = cli("cycle")
    assert "ga-1: no reminder or time-out due" in res.stdout and "No Continental Rails" not in res.stdout
    res = cli("cycle", "ga-1", "--now")
    assert "ga-1: moves by email, so there is no turn to run now" in res.stdout
    assert cli("cycle", "nope", expect=2).stderr.strip() == "Error: no game 'nope' to cycle (games: ga-1)"


def test_with_both_kinds_the_turn_commands_find_the_continental_rails_game(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the cycle writes reports/ and archive/ where it runs: here, not in the checkout
    _new_18ga(cli, tmp_path)
    cli("new-game", "continental-rails", "--name", "cr-1")
    assert "turn 1" in cli("run-turn").stdout.lower()  # the only Continental Rails game
    assert cli("status", "cr-1").stdout.startswith("Game cr-1, turn 2")
    assert "To move: Ann" in cli("status", "ga-1").stdout
    res = cli("cycle", "--clock", "2026-01-01T00:00:00")  # run-turn's resolved turn is reported and archived
    assert "cr-1: turn 1 archived" in res.stdout and "ga-1: no reminder or time-out due" in res.stdout


def test_when_the_mailbox_cannot_be_read_no_move_clock_is_ticked(cli, tmp_path, monkeypatch):
    """A move may be waiting in the mailbox: with the IMAP server down, no time-out is applied."""
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _new_18ga(cli, tmp_path)
    cli("18xx", "pacing", "ga-1", "--clock", "24", "--on-timeout", "default")
    for key, value in {"HOST": "127.0.0.1", "PORT": str(port), "USER": "u", "PASSWORD": "p", "SSL": "false"}.items():
        monkeypatch.setenv(f"PBM_IMAP_{key}", value)
    with session_scope(cli.url) as s:
        since = datetime.fromisoformat(s.scalar(select(Game).where(Game.name == "ga-1")).state["clock"]["since"])
    res = cli("cycle", "--clock", (since + timedelta(hours=30)).isoformat(), expect=2)
    assert "no move clock ticked (a time-out could overtake a move waiting in the mailbox)" in res.stdout
    assert _log(cli) == []
    res = cli("cycle", "--no-imap", "--clock", (since + timedelta(hours=30)).isoformat())
    assert [(e["player"], e.get("_via")) for e in _log(cli)] == [(1, "timeout")]

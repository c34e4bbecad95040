"""18GA by email, end to end: mails in a Maildir, `pbm ingest --maildir`, receipts and state mails out."""
from __future__ import annotations

import email
import email.policy
import io
import mailbox
import random
import re

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.pbem.games import action_rows, load, move_text, needs_consent
from pbm.models import Action18, Game, InboundMessage, OutboxMessage
from tests.e18xx.helpers import pick
from tests.mail.helpers import mk, reply_for

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


@pytest.fixture
def ga(cli, tmp_path):
    """A new 18GA game 'ga-1' with three players; returns (cli, secrets by seat, maildir)."""
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18GA", "--players", str(csv), "--seed", "11", "--name", "ga-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    assert sorted(secrets) == [1, 2, 3]
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


_SENT = [0]


def send(ga, seat: int, moves: str, *, secret: str | None = None, game: str = "ga-1", sender: str | None = None,
         subject: str = "moves"):
    """Deliver one move mail and run `pbm ingest --maildir`; returns (stdout line, inbound id)."""
    cli, secrets, md, path = ga
    body = f"GAME: {game}\nPLAYER: {seat}\nSECRET: {secret if secret is not None else secrets[seat]}\n{moves}\n"
    name, addr = PLAYERS[seat - 1] if 1 <= seat <= 3 else ("X", "x@example.org")
    _SENT[0] += 1
    md.add(mk(body, sender=sender or f"{name} <{addr}>", subject=subject, msgid=f"<m{_SENT[0]}@test.example>"))
    out = cli("ingest", "--maildir", str(path)).stdout
    line = [x for x in out.strip().splitlines() if x.startswith("#") and "duplicate" not in x][-1]
    with session_scope(cli.url) as s:
        inbound = s.scalar(select(InboundMessage).order_by(InboundMessage.seq.desc()).limit(1))
        return line, inbound.id


def answer(cli, inbound_id: int) -> tuple[email.message.EmailMessage, str]:
    with session_scope(cli.url) as s:
        found = reply_for(s, inbound_id)
    assert found is not None, "no answer queued"
    return found


def state(cli):
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        return load(s, row), len(action_rows(s, row))


def _body(msg) -> str:
    part = msg.get_body(("plain",))
    return part.get_content().replace("\r\n", "\n")


def test_email_rounds_until_the_companies_operate(ga):
    """Random legal play, every move by mail from the seat that must act, through the auction,
    the first stock round and into the operating rounds; cash is conserved after every action."""
    cli, *_ = ga
    rng = random.Random(4)
    game, _ = state(cli)
    total = game.total_cash()
    seat_of = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}
    kinds = set()
    several = 0
    for _ in range(80):
        game, n_before = state(cli)
        if several >= 2 and game.state.round.kind != "operating":
            break  # companies have operated and a new round began
        # one mail: a player's move, or a company's whole operating turn (several moves)
        entity = game.current_entity()
        player = game.controller(entity)
        texts = []
        while not game.finished and game.current_entity() == entity:
            acts = [a for a in game.legal_actions() if (a.entity in game.state.corporations
                    or a.entity in seat_of or isinstance(a, A.LayTile))
                    and not needs_consent(game, player, a)]  # a sale between players is an offer (3.2)
            act = pick(rng, acts)
            texts.append(move_text(game, act))
            game.process(act)
            if entity not in game.state.corporations:
                break
        line, inbound = send(ga, seat_of[player], "\n".join(texts))
        assert f"player {seat_of[player]} accepted" in line, line
        game, n_after = state(cli)
        assert n_after >= n_before + len(texts)
        if len(texts) > 1:
            several += 1
        assert game.total_cash() == total
        kinds.add(game.state.round.kind)
        msg, text = answer(cli, inbound)
        assert "ACCEPTED" in text and "To act:" in text
        # the PDF comes on the reader's turn and when the map changed (issue 29, item 8), and says so
        attached = any(p.get_content_type() == "application/pdf" for p in msg.iter_attachments())
        assert ("The PDF of the state is attached" in text) == attached
        assert attached or "No PDF with this mail" in text
    assert kinds >= {"stock", "operating"}, kinds
    assert several >= 2  # companies' turns sent as one mail each
    with session_scope(cli.url) as s:
        # everyone heard about every change once: one state mail per seat and action count (the mover's is its receipt)
        rows = s.scalars(select(OutboxMessage).where(OutboxMessage.kind == "18xx")).all()
        keys = [r.key for r in rows]
        assert len(keys) == len(set(keys)) and rows
        for r in rows:
            assert len(r.recipients) == 1
        # the next to act got "Your turn" in the subject
        game_now, n = state(cli)
        actor = game_now.acting_players()[0]
        latest = [email.message_from_bytes(r.raw, policy=email.policy.default) for r in rows
                  if r.key.startswith("18xx:") and r.key.split(":")[2] == str(n)]
        subjects = {str(m["To"]): str(m["Subject"]) for m in latest}
        addr = dict(PLAYERS)[actor]
        if addr in subjects:
            assert "Your turn" in subjects[addr]


def test_refusals_leave_the_state_unchanged(ga):
    cli, secrets, *_ = ga
    game, n0 = state(cli)
    assert game.acting_players() == ["Ann"]
    # wrong secret
    line, inbound = send(ga, 1, "bid 20 LTR", secret="AAAA-BBBB-CCCC")
    assert "rejected: the secret does not match player 1's secret" in line
    # another player's secret
    line, _ = send(ga, 1, "bid 20 LTR", secret=secrets[2])
    assert "rejected" in line and "secret does not match" in line
    # no such seat
    line, _ = send(ga, 7, "pass", secret=secrets[1])
    assert "has no player 7" in line
    # not this player's turn: the reason and what is legal now
    line, inbound = send(ga, 2, "bid 20 LTR")
    assert "player 2 rejected" in line and "not Bob's turn" in line
    _, text = answer(cli, inbound)
    assert "NOTHING in it was used" in text and "Ann may:" in text and "bid 20 LTR" in text
    # an illegal move by the right player
    line, inbound = send(ga, 1, "bid 5 LTR")
    assert "player 1 rejected" in line
    _, text = answer(cli, inbound)
    assert "move 1 (bid 5 LTR)" in text and "  pass" in text
    # malformed text: the line of the mail body is named
    line, inbound = send(ga, 1, "# my bid\nbid LTR lots")
    _, text = answer(cli, inbound)
    assert "line 5: 'bid LTR lots'" in text and "expected: bid <amount> <private>" in text
    # all or nothing: the first move is fine, the second is not Ann's, so neither is stored
    line, inbound = send(ga, 1, "bid 20 LTR\nbid 45 MRC")
    assert "rejected" in line
    _, text = answer(cli, inbound)
    assert "move 2 (bid 45 MRC)" in text
    # a game that is not there, and a mail with no header at all
    line, _ = send(ga, 1, "pass", game="ga-9")
    assert "rejected" in line
    game, n = state(cli)
    assert n == n0 == 0 and game.acting_players() == ["Ann"]
    with session_scope(cli.url) as s:
        assert s.scalar(select(Action18)) is None
        # no state mail but the start of the game's (action 0, issue 18 item 11)
        keys = s.scalars(select(OutboxMessage.key).where(OutboxMessage.kind == "18xx")).all()
        assert sorted(k.rsplit(":", 2)[1:] for k in keys) == [["0", "1"], ["0", "2"], ["0", "3"]]


def test_several_moves_standing_pass_and_reply_quoting(ga):
    cli, secrets, md, path = ga
    # Cy will pass for the rest of the auction round whenever asked
    line, inbound = send(ga, 3, "pass rest of round")
    assert "player 3 accepted" in line
    with session_scope(cli.url) as s:
        assert s.scalar(select(Game)).state["standing"] == {"Cy": ["auction", 1, 1]}
    line, inbound = send(ga, 1, "bid 20 LTR")
    assert "accepted" in line
    line, inbound = send(ga, 2, "pass")
    assert "accepted" in line
    with session_scope(cli.url) as s:
        rows = s.scalars(select(Action18).order_by(Action18.seq)).all()
        assert [(r.player_number, r.action["type"], r.action.get("_via")) for r in rows] == [
            (1, "bid", None), (2, "pass", None), (3, "pass", "standing")]
    _, text = answer(cli, inbound)
    assert "(standing order)" in text
    # a reply quoting our mail: the quoted part and the signature are not read
    game, n = state(cli)
    actor = game.acting_players()[0]
    seat = [p for p, _ in PLAYERS].index(actor) + 1
    first = move_text(game, next(a for a in game.legal_actions() if not isinstance(a, A.Pass)))
    body = f"{first}\n\n> GAME: ga-1\n> bid 999 MRC\n-- \nsent from my phone\nbid 1000 LTR\n"
    line, inbound = send(ga, seat, body)
    assert "accepted" in line, line
    game2, n2 = state(cli)
    assert n2 > n


def test_cli_status_move_undo_and_pdf(ga, tmp_path):
    cli, *_ = ga
    out = cli("18xx", "status").stdout
    assert "To act: Ann" in out and "Ann may:" in out and "bid 20 LTR" in out
    out = cli("18xx", "move", "--player", "1", "bid 20 LTR").stdout
    assert "Stored 1 action(s)" in out and "Bob to act" in out
    res = cli("18xx", "move", "ga-1", "--player", "1", "pass", expect=2)
    assert "not Ann's turn" in res.stderr and "Legal now" in res.stderr
    out = cli("18xx", "undo", "ga-1").stdout
    assert "Removed action #1" in out and "Ann to act" in out
    cli("18xx", "undo", expect=2)
    pdf = tmp_path / "a.pdf"
    cli("18xx", "pdf", "-o", str(pdf))
    assert pdf.read_bytes().startswith(b"%PDF")


def test_undo_is_announced_and_the_next_state_mails_are_not_swallowed(ga):
    """Issue 18 item 3: after `pbm 18xx undo` the action numbers come back, and the state mails
    of the next move used to collide with the old outbox keys (1 of 3 players got it). Now the
    undo is announced to every player, and the move made again reaches all of them."""
    cli, *_ = ga

    def state_mails() -> list[tuple[str, list[str]]]:
        with session_scope(cli.url) as s:
            rows = s.scalars(select(OutboxMessage).where(OutboxMessage.kind.in_(["18xx", "receipt"]))
                             .order_by(OutboxMessage.created_seq)).all()
            return [(r.key, list(r.recipients)) for r in rows]

    line, _ = send(ga, 1, "bid 20 LTR")
    assert "accepted" in line
    first = state_mails()
    assert {a for _, rs in first for a in rs} == {e for _, e in PLAYERS}
    out = cli("18xx", "undo", "ga-1").stdout
    assert "Removed action #1" in out and "Queued the new state to 3 player(s)" in out
    undo_mails = state_mails()[len(first):]
    assert {a for _, rs in undo_mails for a in rs} == {e for _, e in PLAYERS}
    with session_scope(cli.url) as s:
        raw = s.scalars(select(OutboxMessage).where(OutboxMessage.key == undo_mails[0][0])).one().raw
    assert b"took back move #1" in raw
    line, _ = send(ga, 1, "bid 20 LTR")
    assert "accepted" in line
    again = state_mails()[len(first) + len(undo_mails):]
    assert {a for _, rs in again for a in rs} == {e for _, e in PLAYERS}, again


def test_continental_turn_commands_on_an_18xx_game_answer_clearly(ga):
    """Issue 18, item 11: `pbm remind` / `pbm deadline` on an 18xx game say what to use, no traceback."""
    cli = ga[0]
    res = cli("remind", "ga-1", expect=2)
    assert "`pbm remind` is for Continental Rails turns; ga-1 is an 18GA game" in res.stderr
    assert "pbm 18xx tick" in res.stderr and "Traceback" not in res.stderr
    res = cli("deadline", "ga-1", "2026-12-01 18:00", expect=2)
    assert "pbm 18xx pacing" in res.stderr and "Traceback" not in res.stderr


def test_a_refused_company_turn_shows_the_whole_turn(ga):
    """18VA s17 mail 25: a refused company turn listed only the open step's moves ('pass' in the tile
    step) and not the station, run and train steps the turn mail had shown. The refusal now gives the
    turn's outline as the turn mail does."""
    from pbm.e18xx.pbem.intent import turn_outline

    cli, *_ = ga
    rng = random.Random(4)
    seat_of = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}
    for _ in range(120):  # random legal mails until a company's turn opens
        game, _n = state(cli)
        entity = game.current_entity()
        if entity in game.state.corporations and turn_outline(game):
            break
        player = game.controller(entity)
        acts = [a for a in game.legal_actions() if not needs_consent(game, player, a)]
        line, _ = send(ga, seat_of[player], move_text(game, pick(rng, acts)))
        assert "accepted" in line, line
    else:
        pytest.fail("no company turn opened")
    outline = turn_outline(game)
    line, inbound = send(ga, seat_of[game.controller(entity)], "token Z99")
    assert "rejected" in line, line
    _, text = answer(cli, inbound)
    assert "NOTHING in it was used" in text
    assert all(x.strip() in text for x in outline[:2]), (outline, text)

"""An anonymous 18xx game (`pbm new-game 18GA --anonymous`) by mail: as on its web page, each
mail and each PDF names the other players "Player N" and the reader by his own name (issue 29)."""
from __future__ import annotations

import email
import email.policy
import io
import mailbox
import re

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import OutboxMessage
from tests.e18xx.test_pbem_mail import PLAYERS, _body, send, state


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader

    return " ".join(" ".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages).split())


def test_an_anonymous_games_mails_and_pdfs_hide_the_other_players(cli, tmp_path):
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18GA", "--players", str(csv), "--seed", "11", "--name", "ga-1", "--anonymous").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    ga = (cli, secrets, mailbox.Maildir(str(tmp_path / "Maildir"), create=True), tmp_path / "Maildir")
    game, _ = state(cli)
    mover = game.current_entity()
    seat = [n for n, _ in PLAYERS].index(mover) + 1
    line, _inbound = send(ga, seat, "pass")
    assert "accepted" in line, line
    with session_scope(cli.url) as s:
        rows = s.scalars(select(OutboxMessage).where(OutboxMessage.game_id.is_not(None))).all()
        mails = [(list(r.recipients), email.message_from_bytes(r.raw, policy=email.policy.default)) for r in rows]
    seen, told = set(), set()
    for to, msg in mails:
        reader = next(n for n, a in PLAYERS if a in to)
        seen.add(reader)
        text = str(msg["Subject"]) + "\n" + _body(msg)
        others = [(n, i) for i, (n, _a) in enumerate(PLAYERS, 1) if n != reader]
        for name, number in others:
            assert not re.search(rf"\b{name}\b", text), (reader, name, text)
        if any(f"Player {number}" in text for _n, number in others):
            told.add(reader)
            assert "\n18GA game ga-1 - Stock Round 1: the sale of the Private Companies (rule 3.1) - Phase 1" in text  # the state names its game (finding 15)
        pdfs = [p.get_content() for p in msg.iter_attachments() if p.get_content_type() == "application/pdf"]
        for pdf in pdfs:
            words = _pdf_text(pdf)
            assert reader in words and all(not re.search(rf"\b{n}\b", words) for n, _ in others), (reader, words[:400])
    assert seen == told == {n for n, _ in PLAYERS}

"""State and report mails link to the game's page once the moderator says where it is served
(`PBM_WEB_URL`, docs/web.md), and not before: a link to the moderator's loopback address would lead a
player nowhere."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbm.db import session_scope
from pbm.e18xx.pbem.seed import mail_first_moves
from pbm.models import Game, OutboxMessage
from sqlalchemy import select


@pytest.mark.parametrize("served", [True, False])
def test_an_18xx_state_mail_links_to_the_games_page_when_it_is_served(cli, db_url, tmp_path, monkeypatch, served):
    if served:
        monkeypatch.setenv("PBM_WEB_URL", "https://games.example.org/")
    else:
        monkeypatch.delenv("PBM_WEB_URL", raising=False)
    maildir = tmp_path / "md"
    mail_first_moves(db_url, title="18GA", games=1, moves=1, maildir=maildir, seed=3, prefix="linked")
    cli("ingest", "--maildir", maildir)
    with session_scope(db_url) as s:
        gid = s.scalar(select(Game.id).where(Game.name == "linked-0000"))
        bodies = [email.message_from_bytes(m.raw, policy=email.policy.default).get_body(("plain",)).get_content()
                  for m in s.scalars(select(OutboxMessage).where(OutboxMessage.game_id == gid))]
    assert len(bodies) == 3  # the new state to each of the three players
    line = f"The game's page (map, market, players, history): https://games.example.org/g/{gid}/"
    assert all((line in b) == served for b in bodies), bodies[0]
    assert all("127.0.0.1" not in b for b in bodies)

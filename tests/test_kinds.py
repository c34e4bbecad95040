"""The core finds each game's kind through pbm.kinds (docs/architecture.md): the same commands
serve Continental Rails and the 18xx titles."""
from __future__ import annotations

import json

import pytest

from pbm.kinds import UnknownKind, get_kind, kind_for_title, known_titles

from .conftest import Cli


def test_titles_find_their_kind():
    assert kind_for_title("CR2") == (get_kind("continental-rails"), "continental-rails")
    assert kind_for_title("18ga") == (get_kind("18xx"), "18GA")
    with pytest.raises(UnknownKind):
        kind_for_title("monopoly")
    assert known_titles()[0] == "continental-rails" and "18GA" in known_titles()


def test_show_and_export_of_an_18xx_game_are_its_kinds(sqlite_url, players_csv):
    cli = Cli(sqlite_url)
    cli("new-game", "18GA", "--players", players_csv, "--name", "ga")
    assert cli("show", "ga").stdout == cli("18xx", "show", "ga").stdout
    assert "Stock Round 1: the sale of the Private Companies" in cli("show", "ga").stdout
    exported = cli("export", "ga").stdout
    assert exported == cli("18xx", "export", "ga").stdout
    assert [p["name"] for p in json.loads(exported)["players"]] == ["Ada Lovelace", "Brunel Isambard", "Carl Benz"]


def test_show_and_export_of_a_continental_rails_game_are_its_kinds(sqlite_url):
    cli = Cli(sqlite_url)
    cli("new-game", "continental-rails", "--name", "cr")
    assert "Continental Rails II" in cli("show", "cr").stdout
    assert json.loads(cli("export", "cr").stdout)["format"] == "pbm-continental-rails/1"


def test_an_18xx_game_is_not_resolved_by_the_weekly_cycle(sqlite_url, players_csv):
    from pbm.db import session_scope
    from pbm.errors import PbmError
    from pbm.games import pick_game
    from pbm.kinds import kind_of, weekly_titles

    Cli(sqlite_url)("new-game", "18GA", "--players", players_csv, "--name", "ga")
    assert weekly_titles() == ["continental-rails"]
    with session_scope(sqlite_url) as s:
        game = pick_game(s, "ga")
        assert kind_of(game).name == "18xx" and not kind_of(game).weekly
        with pytest.raises(PbmError, match="moves by email"):
            kind_of(game).resolve(s, game)


@pytest.mark.parametrize("title", ["continental-rails", "18GA"])
def test_a_kinds_sample_orders_are_accepted_by_the_mail_intake(sqlite_url, players_csv, title):
    """``sample_orders`` (what ``pbm demo`` mails) is a mail the intake accepts for that seat."""
    from email.message import EmailMessage

    from pbm.db import session_scope
    from pbm.kinds import kind_for_title
    from pbm.mail.ingest import Context, ingest

    kind, canonical = kind_for_title(title)
    create = kind.new_game(title=canonical, seed=5, name="g", players=players_csv, anonymous=False, rules=())
    with session_scope(sqlite_url) as s:
        created = create(s)
        game = created.game
        number = 1
        if kind.name == "18xx":  # the seat whose move it is
            from pbm.e18xx.pbem.games import load

            engine = load(s, game)
            acting = engine.controller(engine.current_entity())
            number = next(p.number for p in game.players if p.name == acting)
        body = kind.sample_orders(s, game, number, created.secrets[number])
        email = next(p.email for p in game.players if p.number == number)
    assert body.startswith("GAME: g\nPLAYER: ") and len(body.strip().splitlines()) > 3
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = email, "pbm@example.org", "orders", "<s1@example.org>"
    msg.set_content(body)
    with session_scope(sqlite_url) as s:
        outcome = ingest(s, msg.as_bytes(), Context(sender="pbm@example.org"))
    assert outcome.status in ("accepted", "applied"), outcome.line()

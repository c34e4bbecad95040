"""18xx games in the database: creation, import of 18xx.games exports, export round trip, the state PDF."""
from __future__ import annotations

import io
import json
import mailbox
import re

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from pbm.auth import check_secret
from pbm.db import session_scope
from pbm.e18xx.core.game import Game as Engine
from pbm.e18xx.pbem import exchange
from pbm.e18xx.pbem import games as pbem
from pbm.e18xx.fixtures import load_fixture
from pbm.e18xx.render.pdf import render_pdf
from pbm.e18xx.replay import Replayer, expected_result
from pbm.models import Action18, Game, Player
from tests.mail.helpers import mk, reply_for


def _csv(tmp_path, rows: list[tuple[str, str]], name: str = "players.csv"):
    p = tmp_path / name
    p.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in rows), encoding="utf-8")
    return p


def test_new_game_18ga_via_cli(cli, tmp_path):
    csv = _csv(tmp_path, [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")])
    out = cli("new-game", "18GA", "--players", str(csv), "--seed", "3", "--name", "ga-2").stdout
    assert "Created game ga-2" in out and "18GA, seed 3, 3 players" in out
    secrets = re.findall(r"#\d \w+ <[^>]+>: (\S+)", out)
    assert len(secrets) == 3
    with session_scope(cli.url) as s:
        g = s.scalar(select(Game))
        assert (g.title, g.seed, g.status, g.options["optional_rules"]) == ("18GA", 3, "open", [])
        seats = s.scalars(select(Player).order_by(Player.number)).all()
        assert [(p.number, p.name, p.email) for p in seats] == [
            (1, "Ann", "ann@example.org"), (2, "Bob", "bob@example.org"), (3, "Cy", "cy@example.org")]
        assert all(secret not in p.secret_hash for p, secret in zip(seats, secrets))
        assert check_secret(secrets[0], seats[0].secret_hash) and not check_secret(secrets[1], seats[0].secret_hash)
    assert "To act: Ann" in cli("18xx", "status").stdout
    # refusals: player counts (rule 1: 3 to 5 players), unknown rule, duplicate name, no players file
    two = _csv(tmp_path, [("Ann", "ann@example.org"), ("Bob", "bob@example.org")], "two.csv")
    assert "18GA takes 3 to 5 players; the players file has 2" in cli("new-game", "18GA", "--players", str(two),
                                                                       expect=2).stderr
    six = _csv(tmp_path, [(f"P{i}", f"p{i}@example.org") for i in range(6)], "six.csv")
    assert "takes 3 to 5 players" in cli("new-game", "18GA", "--players", str(six), "--name", "x", expect=2).stderr
    assert "unknown optional rule" in cli("new-game", "18GA", "--players", str(csv), "--name", "y", "--rule", "nope",
                                          expect=2).stderr
    assert "already exists" in cli("new-game", "18GA", "--players", str(csv), "--name", "ga-2", expect=2).stderr
    assert "needs --players" in cli("new-game", "18GA", expect=2).stderr
    out = cli("new-game", "18ga", "--players", str(csv), "--name", "ga-3", "--rule", "double_yellow_first_or").stdout
    assert "optional rules double_yellow_first_or" in out


@pytest.fixture
def partial_export(bank_export):
    """The recorded bank-break game cut after 250 actions: a game in progress."""
    data = json.loads(json.dumps(bank_export))
    data["actions"] = data["actions"][:250]
    data["status"] = "active"
    return data


def test_import_then_continue_by_email(cli, tmp_path, partial_export):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(partial_export))
    emails = _csv(tmp_path, [("Player 1", "p1@example.org"), ("Player 2", "p2@example.org"),
                             ("Player 3", "p3@example.org"), ("Player 4", "p4@example.org")], "emails.csv")
    out = cli("18xx", "import", str(path), "--name", "imp", "--emails", str(emails)).stdout
    assert "Imported game imp" in out
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) Player \d <[^>]+>: (\S+)", out)}
    assert sorted(secrets) == [1, 2, 3, 4]
    expected = Replayer(partial_export).run()
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "imp"))
        game = pbem.load(s, row)
        assert exchange.fingerprint(game) == exchange.fingerprint(expected)
        total = game.total_cash()
        actor = game.acting_players()[0]
        seat = s.scalar(select(Player).where(Player.game_id == row.id, Player.name == actor)).number
        n0 = len(game.actions)
        move = pbem.move_text(game, game.legal_actions()[-1])
    # the player who must act now moves by email
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    md.add(mk(f"GAME: imp\nPLAYER: {seat}\nSECRET: {secrets[seat]}\n{move}\n", sender=f"p{seat}@example.org"))
    line = cli("ingest", "--maildir", str(tmp_path / "Maildir")).stdout.splitlines()[0]
    assert f"player {seat} accepted" in line, line
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "imp"))
        game = pbem.load(s, row)
        assert len(game.actions) > n0 and game.total_cash() == total
        stored = s.scalars(select(Action18).where(Action18.game_id == row.id).order_by(Action18.seq)).all()
        assert stored[-1].message_id is not None and stored[0].message_id is None
        _, text = reply_for(s, stored[-1].message_id)
        assert "ACCEPTED" in text
    # importing an unknown player's address is refused with the names
    bad = _csv(tmp_path, [("Zed", "z@example.org")], "bad.csv")
    err = cli("18xx", "import", str(path), "--name", "imp2", "--emails", str(bad), expect=2).stderr
    assert "'Zed'" in err and "Player 1" in err
    (tmp_path / "junk.json").write_text("{not json")
    assert "is not JSON" in cli("18xx", "import", str(tmp_path / "junk.json"), expect=2).stderr


def test_export_replays_to_the_same_state(cli, tmp_path, any_export):
    """A recorded game imported, exported again and replayed by `pbm 18xx replay`: same result and state."""
    path = tmp_path / "in.json"
    path.write_text(json.dumps(any_export))
    cli("18xx", "import", str(path), "--name", "rt")
    out = tmp_path / "out.json"
    cli("18xx", "export", "rt", "-o", str(out))
    exported = json.loads(out.read_text())
    assert exported["title"] == "18GA" and exported["status"] == "finished"
    res = cli("18xx", "replay", str(out), "--json").stdout
    assert json.loads(res) == expected_result(any_export)
    again = exchange.replay_export(exported)
    assert exchange.fingerprint(again) == exported["pbm"]["fingerprint"] == exchange.fingerprint(Replayer(any_export).run())
    # without our block it is an ordinary 18xx.games export (site behaviour) and still replays the same
    del exported["pbm"]
    assert exchange.fingerprint(Replayer(exported).run()) == exchange.fingerprint(again)


def test_pbm_game_export_round_trip_under_rulebook_rules(cli, tmp_path):
    """A game played here (rulebook auction and routes) exports and replays under the same rules."""
    from tests.e18xx.helpers import random_game

    csv = _csv(tmp_path, [(f"P{i}", f"p{i}@example.org") for i in range(4)])
    cli("new-game", "18GA", "--players", str(csv), "--seed", "9", "--name", "r")
    g = random_game(9, players=4, stop_at=400)
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game))
        for i, act in enumerate(g.actions, 1):
            s.add(Action18(game_id=row.id, seq=i, player_number=None, action=act.to_dict()))
    out = tmp_path / "r.json"
    cli("18xx", "export", "-o", str(out))
    data = json.loads(out.read_text())
    assert data["settings"]["optional_rules"] == [] and data["players"][0] == {"id": 1, "name": "P0"}
    assert exchange.fingerprint(exchange.replay_export(data)) == exchange.fingerprint(g)
    assert "in progress after 400 actions" in cli("18xx", "replay", str(out)).stdout


def test_undo_and_standing_orders_survive_reload(cli, tmp_path):
    csv = _csv(tmp_path, [("Ann", "a@example.org"), ("Bob", "b@example.org"), ("Cy", "c@example.org")])
    cli("new-game", "18GA", "--players", str(csv), "--name", "u")
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game))
        out = pbem.apply(s, row, 2, "pass rest of round")
        assert out.accepted and out.standing_added and out.applied == []
        out = pbem.apply(s, row, 1, "bid 20 LTR")
        assert out.accepted and [(a.player, a.via) for a in out.applied] == [("Ann", ""), ("Bob", "standing")]
        out = pbem.apply(s, row, 1, "bid 25 LTR")
        assert not out.accepted and "not Ann's turn" in out.error and any("bid" in x for x in out.legal)
        assert pbem.action_count(s, row) == 2
        pbem.undo(s, row)
        assert pbem.action_count(s, row) == 1
        assert pbem.load(s, row).acting_players() == ["Bob"]
        # Bob's order still holds this round: the next mail (anyone's) lets it act first
        out = pbem.apply(s, row, 3, "pass")
        assert out.accepted and [(a.player, a.via) for a in out.applied][0] == ("Bob", "standing")


def test_pdf_is_deterministic_and_shows_the_map(bank_export):
    played = Replayer(bank_export).run()
    game = Engine("18GA", list(played.setup.players), played.setup.seed, played.optional_rules)
    rep = pbem.Replayed(game, game.total_cash())
    for act in played.actions:
        pbem.step(rep, act)
    assert rep.last_routes  # routes run last are drawn
    first = render_pdf(rep, "bank")
    assert first == render_pdf(rep, "bank")
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(first)).pages)
    for needle in ("D4", "J12", "Atlanta", "Jacksonville", "Stock chart", "Players", "Player 1", "W&A"):
        assert needle in text, needle
    placed = [pl.tile.name for pl in game.state.map.placed.values() if pl.tile_id]
    assert placed and any(name in text for name in placed)


def test_18va_new_game_import_export_and_pdf(cli, tmp_path):
    """18VA by email: a new game from a players file, the recorded game imported and exported
    back (with and without our block), and the state PDF drawing Virginia from the title data."""
    csv = _csv(tmp_path, [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")])
    out = cli("new-game", "18VA", "--players", str(csv), "--name", "va-1").stdout
    assert "18VA, seed 1841, 3 players" in out
    assert "bid 140 P4" in cli("18xx", "moves", "va-1").stdout
    export, where = load_fixture("18VA/18VA_game_end_bank.json")
    if export is None:
        pytest.skip(where)
    path = tmp_path / "va.json"
    path.write_text(json.dumps(export))
    cli("18xx", "import", str(path), "--name", "va-rt")
    target = tmp_path / "va-out.json"
    cli("18xx", "export", "va-rt", "-o", str(target))
    exported = json.loads(target.read_text())
    assert any(a.get("variant") == "1G" for a in exported["actions"])
    assert any(a["type"] == "assign" and a.get("target") == "C12" for a in exported["actions"])
    del exported["pbm"]
    assert json.loads(json.dumps(Replayer(exported).run().result())) == expected_result(export)["result"]
    played = Replayer(export).run()
    game = Engine("18VA", list(played.setup.players), played.setup.seed, played.optional_rules,
                  played.setup.player_ids)
    rep = pbem.Replayed(game, game.total_cash())
    for act in played.actions:
        pbem.step(rep, act)
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(render_pdf(rep, "va"))).pages)
    for needle in ("Philadelphia", "Roanoke", "Norfolk", "B&O", "VR", "Stock chart"):
        assert needle in text, needle

"""Whole turns: run-turn, determinism, rerun byte-identity, crash safety, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import func, select

from pbm.cr import resolve as resolve_module
from pbm.cr.orders import Orders, RailroadOrders, StockOrder
from pbm.cr.resolve import rerun_turn, run_turn
from pbm.cr.state import dumps, export_game, snapshot_text
from pbm.db import session_scope
from pbm.errors import PbmError
from pbm.models import Event, Game, LedgerEntry, OrderSet, PlayerTurn, RailroadTurn, Snapshot
from tests.cr.helpers import scripted_orders, synthetic_game, tiny_game


def _store_orders(s, game: Game, orders: dict[int, Orders]) -> None:
    by_number = {p.number: p for p in game.players}
    for seq, (n, o) in enumerate(sorted(orders.items()), start=1):
        s.add(OrderSet(game_id=game.id, turn=game.turn, player_id=by_number[n].id, source="file",
                       status="accepted", orders=o.to_dict(), problems=[], received_seq=seq))
    s.flush()


def _export(url: str, name: str) -> str:
    with session_scope(url) as s:
        g = s.scalar(select(Game).where(Game.name == name))
        return dumps(export_game(s, g))


def _play(url: str, name: str, turns: int, seed: int = 7, scripted: bool = True) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(turns):
        with session_scope(url) as s:
            g = s.scalar(select(Game).where(Game.name == name))
            if scripted:
                _store_orders(s, g, scripted_orders(s, g, rng))
            run_turn(s, g)


def test_run_turn_writes_history_and_advances(db_url):
    with session_scope(db_url) as s:
        g = tiny_game(s, humans=2)
        _store_orders(s, g, {1: Orders(borrow=500, stock=[StockOrder("NYC", "buy", 50, 1)])})
        result = run_turn(s, g)
        assert (g.turn, g.year) == (2, 1843)
        assert result.turn == 1 and "Turn 1 (1841) resolved" in result.line()
        assert s.scalar(select(func.count()).select_from(PlayerTurn).where(PlayerTurn.game_id == g.id)) == 4
        assert s.scalar(select(func.count()).select_from(RailroadTurn).where(RailroadTurn.game_id == g.id)) == 2
        assert s.scalar(select(func.count()).select_from(Snapshot).where(Snapshot.game_id == g.id)) == 1
        # the computer seats' orders are stored, so a rerun uses the very same ones
        sources = set(s.scalars(select(OrderSet.source).where(OrderSet.game_id == g.id)))
        assert sources == {"file", "computer"}
        ledger = list(s.scalars(select(LedgerEntry).where(LedgerEntry.game_id == g.id)))
        assert any(e.memo == "bank loan" and e.amount == 500 for e in ledger)


def test_same_seed_and_orders_give_identical_exports(tmp_path):
    urls = [f"sqlite:///{tmp_path / f'g{i}.db'}" for i in range(2)]
    for url in urls:
        with session_scope(url) as s:
            synthetic_game(s, name="twin", cols=10, rows=6)
        _play(url, "twin", 4)
    a, b = (_export(url, "twin") for url in urls)
    assert a == b
    assert json.loads(a)["game"]["turn"] == 5


def test_rerun_is_byte_identical(db_url):
    with session_scope(db_url) as s:
        synthetic_game(s, name="rerun", cols=10, rows=6)
    _play(db_url, "rerun", 4, seed=11)
    before = _export(db_url, "rerun")
    with session_scope(db_url) as s:
        g = s.scalar(select(Game).where(Game.name == "rerun"))
        events = s.scalar(select(func.count()).select_from(Event).where(Event.game_id == g.id))
        results = rerun_turn(s, g, 2)
        assert [r.turn for r in results] == [2, 3, 4]
    assert _export(db_url, "rerun") == before
    with session_scope(db_url) as s:
        g = s.scalar(select(Game).where(Game.name == "rerun"))
        assert s.scalar(select(func.count()).select_from(Event).where(Event.game_id == g.id)) == events


def test_snapshot_restore_round_trip(sqlite_url):
    with session_scope(sqlite_url) as s:
        synthetic_game(s, name="snap", cols=10, rows=6)
    _play(sqlite_url, "snap", 3, seed=5)
    with session_scope(sqlite_url) as s:
        g = s.scalar(select(Game).where(Game.name == "snap"))
        for snap in s.scalars(select(Snapshot).where(Snapshot.game_id == g.id).order_by(Snapshot.turn)):
            from pbm.cr.state import restore_game

            assert "\n" not in snap.state  # compact: not laid out for people (pbm export is)
            restore_game(s, g, json.loads(snap.state))
            assert snapshot_text(export_game(s, g)) == snap.state


def test_a_crash_leaves_the_database_as_it_was(db_url):
    with session_scope(db_url) as s:
        tiny_game(s, name="crash")
    before = _export(db_url, "crash")

    def broken(ctx):
        raise RuntimeError("injected failure in step 13")

    original = resolve_module.operations
    resolve_module.operations = broken
    try:
        with pytest.raises(RuntimeError, match="injected"):
            with session_scope(db_url) as s:
                g = s.scalar(select(Game).where(Game.name == "crash"))
                run_turn(s, g)
    finally:
        resolve_module.operations = original
    assert _export(db_url, "crash") == before
    with session_scope(db_url) as s:
        for model in (Event, LedgerEntry, Snapshot, OrderSet, PlayerTurn):
            assert s.scalar(select(func.count()).select_from(model)) == 0


def test_conservation_violation_raises(sqlite_url, monkeypatch):
    from pbm.cr.engine import checks

    with session_scope(sqlite_url) as s:
        g = tiny_game(s)

        def leak(ctx):
            ctx.players[1].cash += 1  # money from nowhere

        monkeypatch.setattr(resolve_module, "political_influence", leak)
        with pytest.raises(checks.ConservationError, match="player:1"):
            run_turn(s, g)
        s.rollback()


def test_whole_synthetic_game_conserves_every_turn(sqlite_url):
    """A busy game with random orders for every seat: checks run at the end of each turn."""
    with session_scope(sqlite_url) as s:
        synthetic_game(s, name="busy", cols=12, rows=8, railroads=8)
    _play(sqlite_url, "busy", 14, seed=3)
    with session_scope(sqlite_url) as s:
        g = s.scalar(select(Game).where(Game.name == "busy"))
        assert g.turn == 15 and g.climate
        kinds = set(s.scalars(select(Event.kind).where(Event.game_id == g.id)))
    assert {"pc-sold", "incorporated", "row-acquired", "row-built", "dividend", "stock-trade",
            "new-president", "efficiency"} <= kinds


def test_game_finished_refuses_more_turns(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        g.status = "finished"
        with pytest.raises(PbmError, match="finished"):
            run_turn(s, g)


def test_rerun_of_an_unplayed_turn_is_refused(sqlite_url):
    with session_scope(sqlite_url) as s:
        g = tiny_game(s)
        with pytest.raises(PbmError, match="has not been resolved"):
            rerun_turn(s, g, 1)


# --------------------------------------------------------------------------- the CLI
def test_cli_run_turn_and_rerun(cli):
    with session_scope(cli.url) as s:
        tiny_game(s, name="cli-game")
    out = cli("run-turn", "cli-game").stdout
    assert out.startswith("Turn 1 (1841) resolved: climate ")
    cli("run-turn")
    before = cli("export", "cli-game").stdout
    out = cli("rerun-turn", "cli-game", "1").stdout
    assert out.count("resolved") == 2
    assert cli("export", "cli-game").stdout == before
    err = cli("rerun-turn", "cli-game", "9", expect=2)
    assert "Error: turn 9 has not been resolved" in err.stderr
    # issue 16: the game may be omitted when the database holds one game
    out = cli("rerun-turn", "2").stdout
    assert out.count("resolved") == 1 and cli("export", "cli-game").stdout == before
    assert "TURN must be a whole number" in cli("rerun-turn", "cli-game", "two", expect=2).stderr


def test_cli_run_turn_with_turn_resolves_that_turn_once(cli):
    """``run-turn --turn N`` (what a script or cron job runs): a second one, or one for a turn not begun,
    refuses in one line and changes nothing."""
    with session_scope(cli.url) as s:
        tiny_game(s, name="once")
    assert cli("run-turn", "once", "--turn", "1").stdout.startswith("Turn 1 (1841) resolved")
    before = cli("export", "once").stdout
    err = cli("run-turn", "once", "--turn", "1", expect=2).stderr
    assert err.strip() == "Error: turn 1 of once is already resolved: the game is at turn 2"
    err = cli("run-turn", "once", "--turn", "3", expect=2).stderr
    assert err.strip() == "Error: turn 3 of once has not begun: the game is at turn 2"
    err = cli("run-turn", "once", "--turn", "0", expect=2).stderr
    assert err.strip() == "Error: --turn 0: turns are numbered from 1"
    assert cli("export", "once").stdout == before
    assert cli("run-turn", "once", "--turn", "2").stdout.startswith("Turn 2 (1843) resolved")


def test_cli_until_end(sqlite_url):
    from tests.conftest import Cli

    cli = Cli(sqlite_url)
    with session_scope(sqlite_url) as s:
        g = tiny_game(s, name="season", humans=2)
        g.turn, g.year = 20, 1879
    out = cli("run-turn", "--until-end").stdout.strip().splitlines()
    assert len(out) >= 2 and out[-1].endswith("GAME OVER.")
    assert out[0].startswith("Turn 20 (1879)")
    err = cli("run-turn", expect=2)
    assert "finished" in err.stderr


# --------------------------------------------------------------------------- real games (the map)
def _new_game(url: str, name: str, seed: int) -> None:
    from pbm.cr.setup import create_game

    with session_scope(url) as s:
        create_game(s, seed=seed, name=name)


def test_real_game_busy_turns_conserve_and_are_deterministic(tmp_path):
    urls = [f"sqlite:///{tmp_path / f'r{i}.db'}" for i in range(2)]
    for url in urls:
        _new_game(url, "real", seed=1841)
        _play(url, "real", 8, seed=21)  # conservation is checked at the end of every turn
    a, b = (_export(url, "real") for url in urls)
    assert a == b
    state = json.loads(a)
    assert state["game"]["turn"] == 9
    assert any(r["founded_turn"] >= 1 for r in state["railroads"])  # PCs were incorporated


def test_real_game_rerun_is_byte_identical(db_url):
    _new_game(db_url, "real-rerun", seed=99)
    _play(db_url, "real-rerun", 3, seed=4)
    before = _export(db_url, "real-rerun")
    with session_scope(db_url) as s:
        g = s.scalar(select(Game).where(Game.name == "real-rerun"))
        rerun_turn(s, g, 1)
    assert _export(db_url, "real-rerun") == before


def test_cli_real_game_until_end(sqlite_url):
    from tests.conftest import Cli

    cli = Cli(sqlite_url)
    cli("new-game", "continental-rails", "--seed", "7")
    out = cli("run-turn", "--until-end").stdout.strip().splitlines()
    assert len(out) >= 21 and out[-1].endswith("GAME OVER.")
    assert all(line.startswith(f"Turn {i} (") for i, line in enumerate(out, start=1))


def test_character_order_is_applied_at_the_start_of_the_first_turn(db_url):
    """Issue 13, item 4 (§3.2): CHARACTER was accepted and echoed but never applied.  Ruling M9: two
    players asking for one new name in the same turn: the lower number gets it, the other is told."""
    with session_scope(db_url) as s:
        g = tiny_game(s, humans=3)
        players = {p.number: p for p in g.players}
        old3 = players[3].character
        _store_orders(s, g, {1: Orders(character="Commodore Vanderbilt"), 2: Orders(character="Hetty Green"),
                             3: Orders(character="hetty green")})
        run_turn(s, g)
        assert players[1].character == "Commodore Vanderbilt" and players[2].character == "Hetty Green"
        assert players[3].character == old3
        texts = {e.kind: e for e in s.scalars(select(Event).where(Event.game_id == g.id,
                                                                  Event.kind.in_(("character", "character-taken"))))}
        assert texts["character-taken"].private_to == [3]
        assert "is now known as" in texts["character"].text


def test_canonical_json_is_the_json_modules_bytes():
    """``state.dumps`` (a fast encoder) writes exactly what ``json.dumps(sort_keys, indent=2)``
    writes — the snapshots and exports of earlier games stay byte-identical (issue 15)."""
    import json

    from pbm.cr.state import dumps

    samples = [
        {"b": [1, 2.5, {"x": None, "y": True, "z": False, "é": 'ü"\n\t\u2028'}], "a": {}, "c": [],
         "d": [[], [{}], [[1]]], "e": -0.0, "f": 1e100, "g": [1.0, 3, "x"], "h": 10**30, "i": (1, 2),
         "j": [True, False, None, 0.1, -2.0, 1e-300]},
        {1: 2, 3: 4}, {"nan": float("nan")}, {"inf": float("-inf")}, [], {}, "x", 0,
    ]
    for sample in samples:
        assert dumps(sample) == json.dumps(sample, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_export_reads_a_game_in_a_few_selects_whatever_its_size(db_url):
    """The reports' state of the last turn comes from export_game with nothing loaded: its lines and
    holdings are read in one SELECT per kind (they were one per railroad and per player), and the state is
    the one exported from rows a session already has loaded (the turn's path)."""
    from sqlalchemy import event

    from pbm.db import get_engine

    with session_scope(db_url) as s:
        synthetic_game(s, name="sized", railroads=8)
    _play(db_url, "sized", 3, scripted=True)
    engine = get_engine(db_url)
    with session_scope(db_url) as s:
        g = s.scalar(select(Game).where(Game.name == "sized"))
        selects: list[str] = []

        def seen(_conn, _cursor, statement, *_args) -> None:
            selects.append(statement)

        event.listen(engine, "before_cursor_execute", seen)
        try:
            fresh = dumps(export_game(s, g))
        finally:
            event.remove(engine, "before_cursor_execute", seen)
        assert len(selects) <= 8, selects
        touched = dumps(export_game(s, g, loaded=(
            g.private_companies, g.railroads, g.players, g.routes, g.towns)))
    assert fresh == touched
    state = json.loads(fresh)
    assert any(p["holdings"] for p in state["players"]) and any(r["lines"] for r in state["railroads"])

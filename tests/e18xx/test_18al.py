"""18AL: its own rules (objectives, the Warrior Coal Field token, the Memphis & Charleston
route bonuses, New Decatur Yards' half-price train, the Lumber Terminal, obsolete 4s, 4D),
random legal games to the end (a short soak; PBM_SLOW=1 or PBM_SOAK=1 for hundreds, every
optional rule), and play by email through the real CLI and mail intake."""
from __future__ import annotations

import os
import random
import re

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.hexgrid import neighbour, to_xy
from pbm.e18xx.core.title import load_title
from pbm.e18xx.pbem.games import action_rows, load, move_text
from pbm.e18xx.pbem.moves import format_action, parse_moves
from pbm.models import Game as GameRow
from tests.e18xx.helpers import pick, random_game
from tests.e18xx.test_pbem_mail import PLAYERS, answer, send

SLOW = os.environ.get("PBM_SLOW") or os.environ.get("PBM_SOAK")
N = int(os.environ.get("PBM_SOAK_GAMES", "200")) if SLOW else 4
RULES = [(), ("double_yellow_first_or",), ("LN_home_city_moved",), ("unlimited_4d",), ("hard_rust_t4",)]


def test_map_is_flat_and_numbered_across():
    """18AL's map is flat-topped with the number across (Nashville A4, Mobile Q2): the
    neighbours of Birmingham G4 are the six hexes around it, all on the map."""
    t = load_title("18AL")
    assert t.layout == "flat_xnum"
    assert to_xy("G4", t.layout) == (3, 6)
    around = {neighbour("G4", e, t.layout) for e in range(6)}
    assert around == {"I4", "H3", "F3", "E4", "F5", "H5"}
    assert around <= set(t.hexes)
    assert neighbour("A4", 3, t.layout) not in t.hexes  # beyond row A: off the map, never an endless loop


def test_trains_phases_and_privates_as_tables():
    t = load_title("18AL")
    assert [(x.name, x.price, x.count) for x in t.trains] == [
        ("2", 100, 5), ("3", 180, 4), ("4", 300, 3), ("5", 450, 2), ("6", 630, 1), ("7", 700, 1), ("4D", 800, 5)]
    assert [c["sym"] for c in t.data["companies"]] == ["TR", "SNAR", "BLC", "M&C", "NDY"]
    assert t.starting_cash(4) == 500 and t.cert_limit(5) == 10


def _game_at_operating(seed: int = 3) -> Game:
    """A 3-player game played by random legal moves into its first operating round."""
    rng = random.Random(seed)
    g = Game("18AL", ["Ann", "Bob", "Cy"], seed)
    while g.state.round.kind != "operating":
        g.process(pick(rng, g.legal_actions()))
    return g


def test_objective_pays_100_once_after_the_token():
    """4.2.2.1: a station in the historical objective earns $100 from the bank, once."""
    g = _game_at_operating()
    corp = g.current_entity()
    goal = g.title.corporation(corp)["objective"]
    before = g.state.cash[f"C:{corp}"]
    g._objective_reached(corp, goal["hex"])
    assert g.state.cash[f"C:{corp}"] == before + 100
    g._objective_reached(corp, goal["hex"])
    assert g.state.cash[f"C:{corp}"] == before + 100


def test_route_extras_4d_doubles_token_and_name_chits():
    """Table III: the Warrior Coal Field token adds 10 to each train through its city; the
    Robert E. Lee chit adds 20 to the one best route joining Atlanta and Birmingham; a 4D
    train pays double (Table I)."""
    from pbm.e18xx.routes import Route
    g = _game_at_operating()
    corp = g.current_entity()
    s = g.state
    t2 = next(t for t in s.trains.values() if t.name == "2")
    t4d = next(t for t in s.trains.values() if t.name == "4D")
    r1 = Route(nodes=(("G8", 0), ("G4", 0)), mask=0, stops=2, revenue=70)
    r2 = Route(nodes=(("G4", 0), ("H5", 0)), mask=0, stops=2, revenue=50)
    s.hex_bonuses[corp] = ("G4", 10)
    s.route_bonus_corps[corp] = "M&C"
    got = dict(g.route_extras(corp, [(t2.tid, r1), (t4d.tid, r2)]))
    assert got[t2.tid].revenue == 70 + 10 + 20
    assert got[t4d.tid].revenue == 50 * 2 + 10


def test_lumber_terminal_is_permanent():
    g = _game_at_operating()
    from pbm.e18xx.core.track import Placed
    tile = g.title.tiles["445"]
    g.state.map.placed["N5"] = Placed(tile, 0, 3)
    with pytest.raises(GameError, match="permanent"):
        g.check_lay(g.current_entity(), "N5", "8", 0, special=True)


@pytest.mark.parametrize("seed", range(N))
def test_random_18al_game_to_the_end(seed):
    rules = RULES[seed % len(RULES)]
    g = random_game(seed, players=3 + seed % 3, title="18AL", rules=rules, max_actions=6000)
    assert g.finished, f"seed {seed}: not finished after {len(g.actions)} actions"
    assert sum(g.state.cash.values()) == 8000
    if seed % 2 == 0:
        assert Game.from_log(g.to_log()).result() == g.result()


@pytest.mark.parametrize("text, action", [
    ("assign SNAR G4", A.Assign("SNAR", "G4")),
    ("lay 445 N5 3 with BLC", A.LayTile("BLC", "N5", "445", 3)),
    ("buy train 4D", A.BuyTrain("L&N", "4D", None)),
])
def test_18al_moves_parse_and_print(text, action):
    got = parse_moves(text, "L&N")
    assert got == [action]
    assert parse_moves(format_action(action), "L&N") == [action]


@pytest.fixture
def al(cli, tmp_path):
    import mailbox
    csv = tmp_path / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in PLAYERS), encoding="utf-8")
    out = cli("new-game", "18AL", "--players", str(csv), "--seed", "5", "--name", "al-1").stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    return cli, secrets, md, tmp_path / "Maildir"


def _state(cli):
    with session_scope(cli.url) as s:
        row = s.scalar(select(GameRow).where(GameRow.name == "al-1"))
        return load(s, row), len(action_rows(s, row))


def test_18al_by_email_from_the_auction_into_the_operating_rounds(al):
    cli, *_ = al
    rng = random.Random(11)
    seat_of = {n: i for i, (n, _) in enumerate(PLAYERS, 1)}
    kinds = set()
    game, _ = _state(cli)
    total = game.total_cash()
    for _ in range(250):
        game, n_before = _state(cli)
        if game.finished or "operating" in kinds:
            break
        entity = game.current_entity()
        player = game.controller(entity)
        texts = []
        while not game.finished and game.current_entity() == entity:
            act = pick(rng, game.legal_actions())
            texts.append(move_text(game, act))
            game.process(act)
            if entity not in game.state.corporations:
                break
        line, inbound = send(al, seat_of[player], "\n".join(texts), game="al-1")
        assert f"player {seat_of[player]} accepted" in line, (line, texts)
        game, n_after = _state(cli)
        assert n_after >= n_before + len(texts) and game.total_cash() == total
        kinds.add(game.state.round.kind)
        msg, text = answer(cli, inbound)
        assert "ACCEPTED" in text
        assert any(p.get_content_type() == "application/pdf" for p in msg.iter_attachments())
    assert {"stock", "operating"} <= kinds
    out = cli("18xx", "moves", "al-1").stdout
    assert game.current_entity() in out

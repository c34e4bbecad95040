"""18AL: its own rules (objectives, the Warrior Coal Field token, the Memphis & Charleston
route bonuses, New Decatur Yards' half-price train, the Lumber Terminal, obsolete 4s, 4D),
random legal games to the end (a short soak; PBM_SLOW=1 or PBM_SOAK=1 for hundreds, every
optional rule).  Play by email is in test_18al_play.py."""
from __future__ import annotations

import os
import random

import pytest
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.hexgrid import neighbour, to_xy
from pbm.e18xx.core.title import load_title
from pbm.e18xx.pbem.moves import format_action, parse_moves
from tests.e18xx.helpers import pick, random_game

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
    train pays double for its cities and off-boards (4.2.3.1), the bonus once."""
    from pbm.e18xx.routes import Route
    g = _game_at_operating()
    corp = g.current_entity()
    s = g.state
    t2 = next(t for t in s.trains.values() if t.name == "2")
    t4d = next(t for t in s.trains.values() if t.name == "4D")
    r1 = Route(nodes=(("G8", 0), ("G4", 0)), mask=0, stops=2, revenue=70)
    r2 = Route(nodes=(("G4", 0), ("H5", 0)), mask=0, stops=2, revenue=30)  # G4 bare (0), H5 30
    s.hex_bonuses[corp] = ("G4", 10)
    s.route_bonus_corps[corp] = "M&C"
    got = dict(g.route_extras(corp, [(t2.tid, r1), (t4d.tid, r2)]))
    assert got[t2.tid].revenue == 70 + 10 + 20
    assert got[t4d.tid].revenue == 30 * 2 + 10  # the 4D doubles its cities, not the token


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


def test_3_1_2_the_forced_free_purchase_uses_up_the_turn_and_a_later_move_is_refused_citing_it():
    """18AL 3.1.2: the Tuscumbia (TR) drops $5 each time every player passes; at $0 "the player with
    the Priority Deal card must accept the Tuscumbia for free ... it uses up that player's stock turn".
    His move sent for that turn is refused, saying why and citing 3.1.2."""
    from pbm.e18xx.core.errors import NotYourTurn

    g = Game("18AL", ["Ann", "Bob", "Cy"], 1)
    for _ in range(3 * 3):
        g.process(A.Pass(g.current_entity()))
    assert g.state.companies["TR"].min_bid == 5 and g.state.companies["TR"].owner is None
    cash = g.state.cash["P:Ann"]
    for _ in range(3):
        g.process(A.Pass(g.current_entity()))
    assert g.state.companies["TR"].owner == "P:Ann" and g.state.cash["P:Ann"] == cash  # for free
    assert g.current_entity() == "Bob"
    n = len(g.actions)
    for move in (A.Pass("Ann"), A.Bid("Ann", "SNAR", 40)):
        with pytest.raises(NotYourTurn) as info:
            g.process(move)
        assert "Ann had to accept TR for free, and that used up the turn (rule 3.1.2)" in str(info.value)
    assert len(g.actions) == n
    with pytest.raises(NotYourTurn) as info:  # another player's wrong turn is told as before
        g.process(A.Pass("Cy"))
    assert "3.1.2" not in str(info.value)


def test_3_2_a_stock_of_a_company_that_has_not_operated_may_be_sold():
    """18AL 3.2(a): "Even if a corporation has not floated (see 3.4) or has not operated, its stock may
    still be sold" (only the first stock round has no sales, 3.2(a)(1)): the list offers the sale
    and the mail's line is accepted."""
    from pbm.e18xx.pbem.movelist import legal_lines

    from .test_move_lists import accepted
    from .test_playthrough_turns import game

    g = game("al", 30)  # stock round 2: Ann holds L&N, which has not operated yet
    assert g.state.round.kind == "stock" and g.state.turn == 2 and not g.state.corporations["L&N"].operated
    lines = legal_lines(g, limit=10 ** 6)
    assert "sell 1 L&N   # at $90 a share now" in lines
    assert accepted(g, "sell 1 L&N") is None

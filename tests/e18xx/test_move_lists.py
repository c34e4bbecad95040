"""The legal moves a mail lists (issue 29 item 6; pbm/e18xx/pbem/movelist.py): every listed line,
copied verbatim into a mail, is accepted; the lists are in the rulebook's words, ordered, priced,
with the owners named, and a long list is grouped, never cut."""
from __future__ import annotations

import random
import re

import pytest

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.state import clone_state
from pbm.e18xx.pbem.games import legal_lines
from pbm.e18xx.pbem.intent import TurnWriter
from pbm.e18xx.pbem.moves import for_game, parse_moves
from tests.e18xx.helpers import pick
from tests.e18xx.test_intent import at

INTERNAL = re.compile(r"\b(buy_train|place_token|lay_tile|run_routes|buy_company|buy_shares|sell_shares|"
                      r"take_loan|discard_train|use_ability)\b|\[\w+\]|\(\w+_\d+\)")


def accepted(g: Game, line: str) -> str | None:
    """Why ``line``, sent alone by the acting player, is refused now (None: accepted); the game is
    left as it was."""
    player = g.controller(g.current_entity())
    snap, n = clone_state(g.state), len(g.actions)
    try:
        writer = TurnWriter(g, player)
        for i, mv in enumerate(parse_moves(line, player), 1):
            writer.move(i, mv)
        return None
    except GameError as exc:
        return str(exc)
    finally:
        g._restore(snap)
        del g.actions[n:]


def check_state(g: Game) -> int:
    lines = legal_lines(g, limit=10 ** 6)
    assert lines, "no move listed"
    for line in lines:
        assert not INTERNAL.search(line), line
        why = accepted(g, line)
        assert why is None, f"{g.title.name} {g.state.round.kind}: listed {line!r} refused: {why}"
    return len(lines)


@pytest.mark.parametrize("title, players, seed, length", [("18GA", 3, 1, 500), ("18AL", 4, 2, 600),
                                                           ("1848", 3, 3, 250), ("18VA", 4, 4, 500)])
def test_every_listed_move_is_accepted_as_written(title, players, seed, length):
    """Random legal play (a few seconds a title); at every few actions every listed line is tried
    alone on the state."""
    rng = random.Random(seed)
    g = Game(title, [f"Player{i}" for i in range(players)], seed)
    checked = kinds = 0
    seen_kinds: set[str] = set()
    for n in range(length):
        if g.finished:
            break
        acts = g.legal_actions()
        if n % 7 == 0 or g.state.round.kind == "operating" and n % 3 == 0:
            checked += check_state(g)
            seen_kinds |= {a.type for a in acts}
        g.process(pick(rng, acts))
    kinds = len(seen_kinds)
    assert checked > 30 and kinds >= 6, (checked, sorted(seen_kinds))


def test_par_prices_ascending_shares_priced_owners_named():
    g = at("18AL/4714.json", 146)  # a stock turn: start a company, buy, sell
    lines = legal_lines(g)
    pars = [ln for ln in lines if ln.startswith("par ")]
    by_corp: dict[str, list[int]] = {}
    for ln in pars:
        _, corp, price = ln.split("#")[0].split()
        by_corp.setdefault(corp, []).append(int(price))
    assert by_corp and all(v == sorted(v) for v in by_corp.values()), pars
    buys = [ln for ln in lines if ln.startswith("buy ") and not ln.startswith("buy private")]
    assert buys and all(re.search(r"# \d+% share for \$\d+ from the (Initial Offering|Open Market)", ln) for ln in buys), buys
    assert not any("_" in ln.split("#")[0] for ln in lines), lines


def test_a_train_of_another_company_names_its_owner_and_price():
    from pbm.e18xx.pbem.movelist import say

    g = at("18AL/4714.json", 142)
    s = g.state
    tid = next(t for t, tr in s.trains.items() if tr.owner.startswith("C:") and tr.owner != "C:ATN")
    owner = s.trains[tid].owner[2:]
    text = say(g, A.BuyTrain("ATN", tid, 40))
    kind = s.trains[tid].name  # by type, never the id (issue 29 leftovers)
    assert text == f"buy train {kind} from {owner} for 40"
    assert parse_moves(text, "x") == [A.BuyTrain("x", kind, 40, seller=owner)]
    assert for_game(g, "x", A.BuyTrain("x", kind, 40, seller=owner)).train == tid  # its only one of that type


def test_a_private_ability_line_has_no_bracket_prefix():
    """'[P2] buy train 3-2 as 3 0 with P2' was refused ("unknown move '[P2]'")."""
    lines = ["buy train 3-2 as 3 for 0 with P2"]
    assert parse_moves(lines[0], "Ann") == [A.BuyTrain("P2", "3-2", 0, "3")]


def test_a_long_list_groups_and_keeps_every_kind():
    g = at("1848/101.json", 139)  # FT: many tile lays, a loan
    full = legal_lines(g, limit=10 ** 6)
    short = legal_lines(g, limit=12)
    assert len(short) <= 14 < len(full) or len(full) <= 12
    kinds_full = {ln.split()[0] for ln in full if not ln.startswith("#")}
    kinds_short = {ln.split()[0] for ln in short if not ln.startswith("#")}
    assert kinds_full == kinds_short  # 'take loan', 'token' ... are never cut
    assert any(ln.startswith("take loan") for ln in short)
    assert any(ln.startswith("# and ") and "G14 5 (" in ln for ln in short), short

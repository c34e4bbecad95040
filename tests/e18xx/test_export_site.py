"""`pbm 18xx export` writes what 18xx.games loads (issue 28, item 4): stations by city id and
slot, routes with the track between their stops, sales naming the seller's own certificates,
the conversion decision 18xx.games waits for; and the export replays to the same state here,
also for games played with undo and with offers."""
from __future__ import annotations

import json
import random
import re

from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.core import actions as A
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem import computer, exchange
from pbm.e18xx.pbem import games as pbem
from pbm.e18xx.replay import summary
from pbm.models import Action18, Game as GameRow

from .helpers import pick

NAMES = [f"Tycoon {c}" for c in "ABCDE"]


def _played(title: str, players: int, seed: int, mode: str = "computer", limit: int = 6000) -> Game:
    rng = random.Random(seed)
    g = Game(title, NAMES[:players], seed)
    for _ in range(limit):
        if g.finished:
            break
        g.process(computer.choose(g) if mode == "computer" else pick(rng, g.legal_actions()))
    return g


def _export(g: Game) -> dict:
    return exchange.export_log(g.to_log(), game_id=7, name="t")


def test_stations_are_written_as_18xx_games_city_ids_with_their_slot():
    """18xx.games names a station's city ``<tile>-<copy>-<city>`` (``57-1-0``, or ``L1-0-0`` on a
    printed hex) and its slot by number; a bare hex with ``"slot": null`` does not load there."""
    for title in ("18GA", "18AL", "1848", "18VA"):
        g = _played(title, 3, 3)
        data = _export(g)
        tokens = [a for a in data["actions"] if a["type"] == "place_token"]
        assert tokens, f"{title}: no station placed in the game"
        for a in tokens:
            assert re.fullmatch(r"[A-Za-z0-9]+-\d+-\d+", a["city"]), (title, a)
            assert isinstance(a["slot"], int), (title, a)
        # each names the tile on that hex at that moment and a city of it now holding the company's station
        rep = exchange.ExactReplayer(dict(data, actions=[]))
        m = rep.game.state.map
        for a in data["actions"]:
            rep.apply(a)
            if a["type"] == "place_token":
                tile_id, _, city = a["city"].rpartition("-")
                coord = m.tile_hex.get(tile_id) or tile_id.rpartition("-")[0]
                owner = a["entity"] if a["entity"] in rep.game.state.corporations else \
                    rep.game.state.companies[a["entity"]].owner[2:]
                if "tokener" in a:  # a station beside the circles (18VA's Potomac Yards)
                    assert a["tokener"] in rep.game.state.map.extra_tokens[(coord, int(city))], (title, a)
                else:
                    assert rep.game.state.map.tokens[(coord, int(city))][a["slot"]] == owner, (title, a)


def test_routes_carry_the_track_between_their_stops():
    """18xx.games rebuilds a route from ``connections`` (the hexes of each stretch between two stops);
    without them a route is empty there."""
    g = _played("18GA", 4, 5)
    runs = [r for a in _export(g)["actions"] if a["type"] == "run_routes" for r in a["routes"]]
    assert runs
    for r in runs:
        nodes = [n.rsplit("-", 1)[0] for n in r["nodes"]]
        assert len(r["connections"]) == len(nodes) - 1, r
        for (a, b), chain in zip(zip(nodes, nodes[1:]), r["connections"]):
            assert chain[0] == a and chain[-1] == b, r


def test_a_sale_names_the_sellers_own_certificates_president_last():
    """18xx.games takes a sale as the seller's certificates (his shares in the order he got them,
    then the president's certificate) and the percent sold; a presidency handed on by the sale
    does not make it name another player's certificates."""
    found = 0
    for seed in range(12):
        if found >= 2:
            break
        g = _played("18VA", 3, seed, mode="random", limit=600)
        data = _export(g)
        rep = exchange.ExactReplayer(dict(data, actions=[]))
        for a in data["actions"]:
            if a["type"] == "sell_shares" and a["entity_type"] == "player":
                player = rep.names.get(str(a["entity"]), str(a["entity"]))
                corp = a["shares"][0].rsplit("_", 1)[0]
                before = rep.game.percent_of(f"P:{player}", corp)
                found += 1
                assert [s for s in a["shares"] if s.endswith("_0")] in ([], [a["shares"][-1]]), a
                rep.apply(a)
                assert before - rep.game.percent_of(f"P:{player}", corp) == a["percent"], (seed, a)
                continue
            rep.apply(a)
        assert exchange.fingerprint(rep.game) == data["pbm"]["fingerprint"]
    assert found


def test_site_certificates_after_a_sale_that_hands_on_the_presidency():
    """The certificates as 18xx.games moves them (checked against its engine): C, president of B&O
    with B&O_0 and B&O_5-7, sells 40%; A holds B&O_2-4 and B&O_8, the market B&O_1.  The site puts
    B&O_5-7 and B&O_0 in the market, gives A the president's certificate for his first two shares
    (to the market), and hands C back the market's first share: B&O_1."""
    from pbm.e18xx.pbem.site_shares import SiteShares

    g = Game("18VA", NAMES[:3], 1)
    site = SiteShares(g)
    for sid in [f"B&O_{i}" for i in range(9)]:
        site._put(sid, "ipo:B&O")
    for sid, owner in (("B&O_1", "pool"), ("B&O_2", "P:Tycoon A"), ("B&O_3", "P:Tycoon A"), ("B&O_4", "P:Tycoon A"),
                       ("B&O_8", "P:Tycoon A"), ("B&O_0", "P:Tycoon C"), ("B&O_5", "P:Tycoon C"),
                       ("B&O_6", "P:Tycoon C"), ("B&O_7", "P:Tycoon C")):
        site._put(sid, owner)
    sold = site.sold("P:Tycoon C", "B&O", 40, "Tycoon A", "Tycoon C")
    assert sold == {"shares": ["B&O_5", "B&O_6", "B&O_7", "B&O_0"], "percent": 40}
    assert site.held("P:Tycoon C", "B&O") == ["B&O_1"]
    assert site.held("P:Tycoon A", "B&O") == ["B&O_4", "B&O_8", "B&O_0"]
    assert sorted(site.held("pool", "B&O")) == ["B&O_2", "B&O_3", "B&O_5", "B&O_6", "B&O_7"]


def test_export_replays_to_the_same_state_in_every_title():
    for title, players in (("18GA", 5), ("18AL", 4), ("1848", 4), ("18VA", 2)):
        g = _played(title, players, 11)
        data = _export(g)
        assert exchange.fingerprint(exchange.replay_export(data)) == exchange.fingerprint(g)
        assert data["pbm"]["fingerprint"] == exchange.fingerprint(g)
        assert [a["id"] for a in data["actions"]] == list(range(1, len(data["actions"]) + 1))


def _csv(tmp_path, names):
    p = tmp_path / "players.csv"
    p.write_text("name,email\n" + "".join(f"{n},{n.lower()}@example.org\n" for n in names), encoding="utf-8")
    return p


def test_export_of_a_game_with_undo_and_an_accepted_offer_round_trips(cli, tmp_path):
    """A game by mail with moves taken back and a private sold between players by an accepted
    offer: `pbm 18xx export` then `pbm 18xx replay` gives the same result and state."""
    names = ["Ann", "Bob", "Cy"]
    cli("new-game", "18GA", "--players", str(_csv(tmp_path, names)), "--seed", "4", "--name", "u")
    seat = {n: i for i, n in enumerate(names, 1)}
    rng = random.Random(4)
    sold = undone = 0
    with session_scope(cli.url) as s:
        row = s.scalar(select(GameRow))
        for _ in range(600):
            game = pbem.load(s, row)
            if game.finished or (sold and undone >= 2 and any(isinstance(a, A.PlaceToken) for a in game.actions)
                                     and any(isinstance(a, A.RunRoutes) for a in game.actions)):
                break
            ent = game.current_entity()
            if not sold and game.state.round.kind == "stock" and ent in seat:
                comps = game._player_companies_for_sale(ent)
                if comps and game.state.cash[f"P:{ent}"] >= game.state.companies[comps[0]].value:
                    comp = comps[0]
                    out = pbem.apply(s, row, seat[ent], f"buy private {comp} {game.state.companies[comp].value}")
                    assert out.accepted, out.error
                    offer = pbem.pending_offer(row)
                    assert offer is not None
                    pbem.answer_offer(s, row, int(offer["owner_seat"]), f"accept {comp}")
                    sold += 1
                    continue
            acts = [a for a in game.legal_actions() if not isinstance(a, A.BuyCompany)]
            act = computer.choose(game) if game.state.round.kind == "operating" or rng.random() < 0.7 \
                else pick(rng, acts)
            out = pbem.apply(s, row, seat[game.controller(act.entity)], pbem.move_text(game, act))
            assert out.accepted, out.error
            if undone < 2 and len(game.actions) >= (30, 60)[undone]:  # a mail is a whole turn: counts jump
                pbem.undo(s, row)
                undone += 1
        assert sold and undone == 2
        stored = len(s.scalars(select(Action18).where(Action18.game_id == row.id)).all())
        final = pbem.load(s, row)
    out = tmp_path / "u.json"
    cli("18xx", "export", "u", "-o", str(out))
    data = json.loads(out.read_text())
    assert len([a for a in data["actions"] if not a.get("pbm_auto")]) == stored
    tokens = [a for a in data["actions"] if a["type"] == "place_token"]
    runs = [r for a in data["actions"] if a["type"] == "run_routes" for r in a["routes"]]
    assert tokens and runs
    assert all(re.fullmatch(r"[A-Za-z0-9]+-\d+-\d+", a["city"]) and isinstance(a["slot"], int) for a in tokens), tokens
    assert all(len(r["connections"]) == len(r["nodes"]) - 1 for r in runs), runs
    assert exchange.fingerprint(exchange.replay_export(data)) == exchange.fingerprint(final)
    res = json.loads(cli("18xx", "replay", str(out), "--json").stdout)
    assert res == summary(final)


def test_1848_loans_are_numbered_as_18xx_games_numbers_them():
    """18xx.games' take_loan names the loan (its id, in the order loans are taken: 0, 1, ...);
    without it the site cannot build the action."""
    g = _played("1848", 3, 0, mode="random", limit=400)
    loans = [a for a in _export(g)["actions"] if a["type"] == "take_loan"]
    assert loans, "no loan taken in the seeded game"
    assert [a["loan"] for a in loans] == list(range(len(loans)))


def test_a_printed_tile_is_named_by_its_place_among_the_hexes_printed_alike():
    """18xx.games numbers a printed tile within the list of hexes printed with the same code: a
    station on 18VA's printed E8 city is in city ``E8-5-0`` (the sixth plain city), not ``E8-0-0``
    (which does not exist there: the site could not build the action)."""
    g = Game("18VA", NAMES[:3], 1)
    assert exchange._site_tile_id(g, "E8") == "E8-5"
    assert exchange._site_tile_id(g, "C4") == "C4-0"


def test_a_printed_hex_the_site_prints_apart_is_numbered_as_the_site_numbers_it():
    """Some printed hexes carry on the site a label or a future label that our list of hexes
    printed alike does not, so the site numbers them apart: a Potomac Yards station in 18VA's
    Petersburg was written ``F13-1-0`` and the site could not build the action (found by the
    differential check).  Every printed city of the four titles, as the site names it."""
    want = {"18GA": {"I9": "I9-0"}, "18AL": {"L5": "L5-0", "G6": "G6-0", "H3": "H3-1"},
            "18VA": {"F13": "F13-0", "H3": "H3-0", "G4": "G4-0", "F11": "F11-0", "A12": "A12-0", "E8": "E8-5"}}
    for title, names in want.items():
        g = Game(title, NAMES[:3], 1)
        assert {c: exchange._site_tile_id(g, c) for c in names} == names, title


def test_a_buy_trains_step_the_site_keeps_open_is_passed_in_the_export():
    """18xx.games keeps a company's Buy Trains step open while it has room and the price of a
    depot train, or $1 and another company owns a train -- whoever that company's president is
    (on pbm another president's train is bought only by an offer he accepts, 18AL 4.2.5(d)),
    and even when 4.2.5(f) (one train from the Bank a turn) forbids a second one from the
    depot.  pbm ends the turn when it lists no purchase; the export then writes the pass the
    site waits for (``pbm_auto``, skipped by pbm's own replay).  18AL, 3 players, random seed 2,
    the site's behaviour flags: L&N buys a train from the depot and two from ABC (its own
    president's company) and its turn ends with room for a fourth."""
    from .helpers import random_game

    g = random_game(2, stop_at=200, title="18AL", players=3, prefix="Tycoon ",
                    rules=("site_auction", "site_obsolete", "site_routes"))
    out = _export(g)
    acts = out["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "buy_train" and a["entity"] == "L&N"
             and acts[i + 1]["type"] != "buy_train")
    assert acts[i + 1] == {"type": "pass", "entity": "L&N", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 1}
    assert summary(exchange_replay(out)) == summary(g)


def exchange_replay(out: dict) -> Game:
    from pbm.e18xx.replay import Replayer

    return Replayer(out).run()


def test_bank_of_england_certificates_are_all_shares_in_the_export():
    """1848: the Bank of England has no president; its ``BOE_0`` is a share like the others.  The
    export's model of the site's certificates took it for a president's certificate and moved
    it to pbm's holder of ``BOE_0``, so a later sale named a BoE certificate the seller did not
    hold on the site (which failed on it; found by the differential check).  Every BoE sale in
    the export names certificates the seller got earlier in the export."""
    from .helpers import random_game

    g = random_game(6000, stop_at=160, title="1848", players=3, prefix="Tycoon ",
                    rules=("site_dutch_pass", "site_routes", "site_turn_end_pass"))
    held: dict[str, str] = {}
    sales = 0
    for a in _export(g)["actions"]:
        if a["type"] == "buy_shares":
            held.update({sid: a["entity"] for sid in a["shares"]})
        elif a["type"] == "sell_shares" and a["shares"][0].startswith("BOE_"):
            assert all(held.get(sid) == a["entity"] for sid in a["shares"]), (a, held)
            held.update({sid: "pool" for sid in a["shares"]})
            sales += 1
    assert sales >= 3


def test_a_private_station_is_the_privates_action_in_the_export():
    """18GA Waycross & Southern: "A corporation that owns the Waycross & Southern RR may place a
    station token in Waycross at no cost ... The corporation need not connect to Waycross".  On
    18xx.games that station is the private's action (entity W&SR); written as the company's it
    was refused there (no track to Waycross; found by the differential check).  The export
    names the private, and pbm's replay of it gives the same state."""
    from pbm.e18xx.render.view import state_dict

    from .helpers import random_game

    g = random_game(0, stop_at=340, title="18GA", players=3, prefix="Tycoon ",
                    rules=("site_auction", "site_ebuy", "site_red_city_pass", "site_routes"))
    out = _export(g)
    station = [a for a in out["actions"] if a["type"] == "place_token" and a["city"] == "I9-0-0"]
    assert station and station[0]["entity"] == "W&SR" and station[0]["entity_type"] == "company"
    assert state_dict(exchange_replay(out)) == state_dict(g)


def test_no_pass_is_written_for_a_buy_trains_step_already_passed():
    """The pass the export writes when the site's Buy Trains step would still be open is not
    written when the company passed that step itself and its turn ended in the next step
    (18GA, 3 players, random seed 6 with the site's flags: CoG passes its train purchase, buys
    MRC, and ACL operates; an extra pass was refused on the site)."""
    from .helpers import random_game

    g = random_game(6, stop_at=320, title="18GA", players=3, prefix="Tycoon ",
                    rules=("site_auction", "site_ebuy", "site_red_city_pass", "site_routes"))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "buy_company" and a["entity"] == "CoG"
             and a["company"] == "MRC")
    assert acts[i - 1]["type"] == "pass" and not acts[i - 1].get("pbm_auto")
    assert acts[i + 1]["entity"] == "ACL" and not acts[i + 1].get("pbm_auto"), acts[i + 1]


def test_1848_a_loan_keeps_the_sites_buy_trains_step_open():
    """1848: 18xx.games keeps a company's Buy Trains step open while it owns no 2E, has £100 and
    may still borrow -- also at its train limit or after pbm's train step was over, the loan
    taken later in the turn -- and its last step ("Take Loans or Buy Company") then waits for a
    pass of its own.  pbm's last pass of the turn is the site's Buy Trains pass, so the export
    writes one more (1848, 4 players, random seed 1 with the site's flags: QR borrows, passes,
    and the site waited in its last step)."""
    from .helpers import random_game

    g = random_game(1, stop_at=170, title="1848", players=4, prefix="Tycoon ",
                    rules=("site_dutch_pass", "site_routes", "site_turn_end_pass"))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "take_loan" and a["entity"] == "QR"
             and acts[i + 1]["type"] == "pass")
    assert acts[i + 1] == {"type": "pass", "entity": "QR", "entity_type": "corporation", "id": acts[i]["id"] + 1}
    assert acts[i + 2] == {"type": "pass", "entity": "QR", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 2}


def test_18va_a_train_discount_keeps_the_sites_buy_trains_step_open():
    """18VA: a company owning the Tredegar Iron Works ($200 off a new train) may, on 18xx.games, buy
    another depot train for what the discount leaves -- even with no money and although 4.5.8
    allows one new train of a type a round -- so the site's Buy Trains step waits for a pass
    after its purchase; pbm ends the turn (18VA, 2 players, random seed 9000: N&W buys a 3 and
    spends its last dollar)."""
    from .helpers import random_game

    g = random_game(9000, stop_at=290, title="18VA", players=2, prefix="Tycoon ", rules=("site_routes",))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "buy_train" and a["entity"] == "N&W"
             and a["train"] == "3-1")
    assert acts[i + 1] == {"type": "pass", "entity": "N&W", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 1}


def test_a_station_that_puts_its_company_into_receivership_is_written_where_it_went():
    """1848: a station whose cost made the company borrow into receivership hands its stations to
    the Bank of England in the same action; the export named the first station that changed
    hands (VR's old one in H11, ``5-0-0``) instead of the new one in H9 (``6-0-0``), and pbm's
    own replay of the export refused it (found by the differential check: 1848, 5 players,
    random seed 9002 with the site's flags, action 320)."""
    from .helpers import random_game

    g = random_game(9002, stop_at=325, title="1848", players=5, prefix="Tycoon ",
                    rules=("site_dutch_pass", "site_routes", "site_turn_end_pass"))
    out = _export(g)
    vr = [a for a in out["actions"] if a["type"] == "place_token" and a["entity"] == "VR"]
    assert vr[-1]["city"] == "6-0-0", vr[-1]


def test_18va_no_pass_when_the_site_closes_its_train_step_after_a_depot_train():
    """18VA: after a train from the depot 18xx.games closes the Buy Trains step when no train is
    left on its list (another company's, or a depot train of a type not bought this round: 4.5.8),
    however much money the company has -- so no pass is written there (18VA, 4 players, random
    seed 10002 with the site's flags: the B&O buys the first 2 as a 1G and the round ends)."""
    from .helpers import random_game

    g = random_game(10002, stop_at=160, title="18VA", players=4, prefix="Tycoon ", rules=("site_routes",))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "buy_train" and a["entity"] == "B&O")
    assert acts[i]["train"] == "2-0" and acts[i + 1]["type"] == "buy_shares", acts[i + 1]


def test_18va_a_privates_move_first_in_the_turn_is_preceded_by_the_conversion_pass():
    """18VA 4.5.1: any other move of the company's turn ends its conversion decision on pbm, a
    private's too (P1's +10 marker); 18xx.games takes the private's move without ending its
    Convert step and then waits there, so the export writes the conversion pass before it
    (18VA, 3 players, random seed 13001 with the site's flags: SR's P1 marker in H15)."""
    from .helpers import random_game

    g = random_game(13001, stop_at=380, title="18VA", players=3, prefix="Tycoon ", rules=("site_routes",))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "assign" and a["entity"] == "P1"
             and a.get("target") == "H15")
    assert acts[i - 1] == {"type": "pass", "entity": "SR", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] - 1}, acts[i - 1]


def test_1848_a_buy_trains_step_the_site_skipped_is_not_reopened_by_a_loan():
    """1848: the site's Buy Trains step stays open for a company without a 2E that has £100 and may
    borrow -- but only if it was open when the turn reached it: a company at its train limit with
    no money after its dividend skips it, and a loan taken afterwards does not reopen it.  The
    export wrote a second pass for such a company (random, 5 players, seed 13030 with the site's
    flags: QR pays out all it has, borrows, passes; the site's turn was over after that pass)."""
    from .helpers import random_game

    rules = ("site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass")
    g = random_game(13030, stop_at=320, title="1848", players=5, prefix="Tycoon ", rules=rules)
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "take_loan" and a["entity"] == "QR"
             and acts[i - 1]["type"] == "dividend" and acts[i - 1]["entity"] == "QR" and acts[i + 1]["type"] == "pass")
    assert acts[i - 1]["type"] == "dividend" and acts[i + 1]["type"] == "pass"
    assert not acts[i + 2].get("pbm_auto"), acts[i + 2]


def test_18va_the_sites_station_step_waits_for_a_pass_while_the_company_owns_potomac_yards():
    """18VA: while a company owns Potomac Yards (P3, its extra station), 18xx.games keeps the
    company's "Place a Token" step open for a pass even when no station can be placed; pbm ends the
    step.  RFPR buys P3 in its station step with too little money left for a station: pbm goes on
    (no train: a withhold, the price falls), the site waited, and the next move was refused there
    (random, 2 players, seed 13004, action 73: "Place a Token cannot process action buy_train").
    The export writes the site's pass."""
    from .helpers import random_game

    g = random_game(13004, stop_at=75, title="18VA", players=2, prefix="Tycoon ",
                    rules=("site_routes", "two_player_share_limit"))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "buy_company" and a.get("company") == "P3")
    assert acts[i + 1] == {"type": "pass", "entity": "RFPR", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 1}


def test_18va_a_pass_that_ends_the_turn_of_a_potomac_yards_owner_is_followed_by_the_sites_last_pass():
    """18VA: the site's last step ("Buy Companies") waits for a pass while the company owns an
    any-time private (Potomac Yards); when pbm's turn ends with the company's pass in the train
    step, that pass is the site's Buy Trains pass and the export writes one more (random, 4
    players, seed 13002, action 450: SR passes its train purchase; the site waited)."""
    from .helpers import random_game

    g = random_game(13002, stop_at=451, title="18VA", players=4, prefix="Tycoon ", rules=("site_routes",))
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "lay_tile" and a["entity"] == "SR" and a["hex"] == "G10"
             and a["id"] > 400)
    assert acts[i + 1] == {"type": "pass", "entity": "SR", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 1}
    assert acts[i + 2] == {"type": "pass", "entity": "SR", "entity_type": "corporation", "id": acts[i]["id"] + 2}
    assert acts[i + 3] == {"type": "pass", "entity": "SR", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 3}


def test_1848_the_sites_buy_trains_step_stays_open_after_purchases_while_the_company_may_borrow():
    """1848: the site keeps the Buy Trains step open for a company without a 2E that has £100 and
    may borrow also after it bought trains this turn (CAR buys a 3, a 4 and the first 5, discards
    the 3 and passes with £100 left: the site's last step then waited for a second pass; random,
    4 players, seed 14017 with the site's flags)."""
    from .helpers import random_game

    rules = ("site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass")
    g = random_game(14017, stop_at=560, title="1848", players=4, prefix="Tycoon ", rules=rules)
    acts = _export(g)["actions"]
    i = next(i for i, a in enumerate(acts) if a["type"] == "discard_train" and a["entity"] == "CAR")
    assert acts[i + 1] == {"type": "pass", "entity": "CAR", "entity_type": "corporation", "id": acts[i]["id"] + 1}
    assert acts[i + 2] == {"type": "pass", "entity": "CAR", "entity_type": "corporation", "pbm_auto": True,
                           "id": acts[i]["id"] + 2}


def test_1848_the_pass_that_ends_the_game_is_followed_by_the_sites_last_pass():
    """1848: when the last turn of the last operating round ends with a pass that 18xx.games takes as
    its Buy Trains pass (a company that could still buy a train there, or borrow later), the site's
    last step ("Take Loans or Buy Company") waits for another pass before the game ends; the export
    wrote none once pbm's game was over (random, 4 players, seeds 20021 and 20025: the game ends
    after the fifth receivership, the site's did not)."""
    from .helpers import random_game

    rules = ("site_discard_timing", "site_dutch_pass", "site_export_phase", "site_routes", "site_turn_end_pass")
    for seed, corp in ((20021, "QR"), (20025, "VR")):
        g = random_game(seed, title="1848", players=4, prefix="Tycoon ", rules=rules)
        assert g.finished and g.state.end_reason == "receiverships"
        acts = _export(g)["actions"]
        assert acts[-2]["type"] == "pass" and acts[-2]["entity"] == corp and not acts[-2].get("pbm_auto")
        assert acts[-1] == {"type": "pass", "entity": corp, "entity_type": "corporation", "pbm_auto": True,
                            "id": acts[-2]["id"] + 1}

"""A computer player for a seat nobody plays any more (docs/18xx/email.md, "A dropped player").

It picks from the engine's ``legal_actions`` only (so it works for every
title) with simple, sensible rules:

* auction: bid the minimum for the cheapest company offered if that costs at
  most a quarter of its cash, else pass;
* stock rounds: buy one share per turn of a company it already holds (the
  dearest it may buy); if it presides no company, start one at the highest
  par it can pay twice; never sells (that could drop a presidency by accident);
* operating rounds: lay a legal tile and place a legal token, run the best
  routes (``auto``), pay out when the run earned something, buy a train when
  the company must or may (the cheapest offered), otherwise pass;
* 18VA (trains with a passenger and a freight side; issue 28, the sixth run's stall in phase 2):
  declare a train the side that could earn more on today's map, passenger between equals (a 1G
  must reach a mine or coal district, 4.5.8); buy a train that would earn while the company's
  trains earn nothing, or with twice its price in the treasury; convert a five-share company at
  its train limit or unable to earn (4.5.1); once the phase has lasted ``STUCK_ORS`` operating
  rounds, a company that cannot earn buys the next train (the next phase brings green tiles) and
  a player starts another company when his own cannot earn, or when no company can pay for the
  next train and he could pay it four times over;
* it never goes bankrupt while another legal action exists;
* it never buys another player's private (that needs the owner's consent, 18GA 3.2),
  and answers an offer for a private it holds by :func:`answer_for_computer`:
  it sells at 1.5 times face value or more, the most a company may pay for a
  private, and declines any lower offer (docs/rulings/rulings-18GA.md, 3.2).

Where these rules leave a choice among equals (which tile where, which station, which of the
companies at the same par, which of the privates at the same price, which of the trains at the same
price), it draws one with a numpy Generator seeded from (game seed, action number, "18xx-computer")
(:func:`pbm.rng.generator`): the same game always gets the same moves, and games of different seeds
differ (issue 28: seeded computer games are different games).

Its actions are stored with ``_via: "computer"`` and shown as the computer's
in the log and the mails.
"""
from __future__ import annotations

from typing import Any

from pbm.e18xx.core import actions as A


PURPOSE = "18xx-computer"


def _draw(game, options: list):
    """One of ``options`` (equals under the rules above), drawn with the game's seeded Generator."""
    if len(options) == 1:
        return options[0]
    from pbm.rng import generator

    return options[int(generator(game.setup.seed, len(game.actions), PURPOSE).integers(len(options)))]


def _best(game, options: list, key):
    """The options with the greatest ``key``, one of them drawn (:func:`_draw`)."""
    top = max(key(a) for a in options)
    return _draw(game, [a for a in options if key(a) == top])


def choose(game) -> A.Action | None:
    """The computer's action for the acting entity, or None (the game is over or nothing is legal)."""
    if game.finished:
        return None
    cur = game.current_entity()
    legal = [a for a in game.legal_actions() if a.entity == cur] or list(game.legal_actions())
    if not legal:
        return None
    kind = str(game.state.round.kind)
    from pbm.e18xx.pbem.games import needs_consent

    player_of = game.controller(cur) if cur else ""
    legal = [a for a in legal if needs_consent(game, player_of, a) is None] or legal
    not_bankrupt = [a for a in legal if not isinstance(a, A.Bankrupt)] or legal

    def first(cls):
        return next((a for a in not_bankrupt if isinstance(a, cls)), None)

    def any_of(cls):
        options = [a for a in not_bankrupt if isinstance(a, cls)]
        return _draw(game, options) if options else None

    if kind == "operating":
        convert = first(A.Convert)
        if convert is not None and _wants_to_convert(game, cur):
            return convert
        lay = any_of(A.LayTile)
        if lay is not None:
            return lay
        token = any_of(A.PlaceToken)
        if token is not None:
            return token
        run = [a for a in not_bankrupt if isinstance(a, A.RunRoutes)]
        if run:
            return next((a for a in run if a.auto), run[0])
        divs = [a for a in not_bankrupt if isinstance(a, A.Dividend)]
        if divs:
            return next((a for a in divs if a.kind == "payout"), divs[0])
        trains = [a for a in not_bankrupt if isinstance(a, A.BuyTrain)]
        discard = first(A.DiscardTrain)
        if discard is not None:
            return discard
        if trains:
            st = game.state
            own = [t for t, tr in st.trains.items() if tr.owner == f"C:{cur}"]
            pool = [a for a in trains if st.trains[a.train].owner in ("depot", "discard")]
            passing = first(A.Pass)
            # from the depot or the open market only (never trains shuffled between companies), and only
            # while the company has fewer than two trains or must buy one -- or while its trains earn
            # nothing and the train on offer would (18VA: freight trains with no mine or coal district)
            if pool:
                cheapest = [a for a in pool if (a.price or 0) == min(b.price or 0 for b in pool)]
                value = {a: _variant_value(game, cur, a) for a in cheapest}
                pick = _best(game, sorted(cheapest, key=lambda a: a.train), lambda a: (value[a], _passenger(game, a)))
                cash = int(st.cash.get(f"C:{cur}", 0))
                if len(own) < 2 or passing is None or (value[pick] > 0 and (
                        _revenue(game, cur) == 0 or cash >= 2 * (pick.price or 0))):
                    return pick
                # stuck (no route for its trains, the phase unchanged for long: 18VA's yellow track
                # exhausted): buying trains brings the next phase, its tiles and its trains
                if _has_freight(game) and _ors_in_phase(game) >= STUCK_ORS and _revenue(game, cur) == 0:
                    return pick
            if passing is not None:
                return passing
            return _best(game, sorted(trains, key=lambda a: a.train), lambda a: -(a.price or 0))
        return first(A.Pass) or not_bankrupt[0]
    # auction and stock rounds
    player = game.controller(cur) if cur else ""
    s = game.state
    held = {sid.split("_")[0] for sid, owner in s.share_owner.items() if owner == f"P:{player}"}
    buys = [a for a in not_bankrupt if isinstance(a, A.BuyShares) and (a.corporation or _corp(a)) in held]
    last = game.actions[-1] if game.actions else None
    if isinstance(last, A.BuyShares) and last.entity == cur:
        buys = []  # one share per turn
    if buys:
        return _best(game, buys, lambda a: _price(game, a))
    cash = _cash(game, player)
    presided = [c for c in s.corporations if game.controller(c) == player]
    # another company once every company he presides has trains that earn nothing (a careful player
    # with money does not sit on companies that cannot run; 18VA's freight trains without a route)
    presides = bool(presided) and not (_has_freight(game) and _ors_in_phase(game) >= STUCK_ORS and (
        _all_idle(game, presided) or _stuck_and_rich(game, cash)))
    pars = [a for a in not_bankrupt if isinstance(a, A.Par) and a.price * 2 <= cash]
    if pars and not presides and not (isinstance(last, A.BuyShares) and last.entity == cur):
        return _best(game, pars, lambda a: a.price)
    bids = [a for a in not_bankrupt if isinstance(a, A.Bid) and a.price * 4 <= cash]
    if bids:
        return _best(game, bids, lambda a: -a.price)
    return first(A.Pass) or not_bankrupt[0]


# an offer for a private held by a computer seat (18GA 3.2, ruling): the least price it takes, as a
# multiple of the private's face value: the most a company may pay for a private
SELL_AT = 1.5


def computer_answer(game, offer: dict) -> str:
    """'accept X' or 'decline X': the computer's answer to an offer for its private X."""
    if offer.get("kind") == "train":  # a train of its company: at face value or more (ruling, 18AL 4.2.5(d))
        tr = game.state.trains.get(offer["company"])
        fair = tr is not None and int(offer["price"]) >= tr.price
        from pbm.e18xx.pbem.games import offer_name

        return f"{'accept' if fair else 'decline'} {offer_name(offer)}"
    comp = game.state.companies.get(offer["company"])
    fair = comp is not None and int(offer["price"]) >= SELL_AT * comp.value
    return f"{'accept' if fair else 'decline'} {offer['company']}"


def answer_for_computer(session, game_row, sender: str) -> tuple[object, dict] | None:
    """If the offer waiting is for a private a computer seat holds, answer it at once (an offer to
    an absent owner would otherwise only lapse).  Returns (outcome, offer) or None."""
    from pbm.e18xx.pbem.games import answer_offer, pending_offer, replay_rows
    from pbm.e18xx.pbem.pacing import computer_seats

    offer = pending_offer(game_row)
    if offer is None or offer.get("owner_seat") not in computer_seats(game_row):
        return None
    game = replay_rows(session, game_row).game
    out, answered = answer_offer(session, game_row, int(offer["owner_seat"]), computer_answer(game, offer),
                                   by="the computer playing " + str(offer.get("owner")))
    return out, answered


def _wants_to_convert(game, corp: str) -> bool:
    """Convert a five-share company to ten shares (18VA 4.5.1) once it is at its train limit or its
    trains earn nothing: the ten-share limit is higher and the treasury gets shares to sell."""
    c = game.state.corporations.get(corp)
    if c is None:
        return False
    try:
        at_limit = not game._room(corp)  # noqa: SLF001
    except Exception:  # noqa: BLE001 - a title without train limits
        at_limit = False
    return at_limit or (bool(c.trains) and _revenue(game, corp) == 0)


# operating rounds in one phase after which the game counts as stuck (a careful player then starts
# another company rather than wait: see choose's stock rules)
STUCK_ORS = 10


def _has_freight(game) -> bool:
    """The title's trains have a freight side (18VA): the titles whose computer games stalled (the
    sixth run); elsewhere the stock rules stay as they were (their computer games were checked
    against 18xx.games as they are)."""
    return any(kind == "freight" for t in game.title.trains for _, kind in t.variants)


def _ors_in_phase(game) -> int:
    """The operating rounds begun since the phase began (from the game's log)."""
    n = 0
    for line in reversed(game.state.log):
        if line.startswith("-- phase "):
            break
        if line.startswith("-- operating round "):
            n += 1
    return n


def _stuck_and_rich(game, cash: int) -> bool:
    """No company that has floated can pay for the cheapest train the bank offers, while the player
    could pay it four times over: nobody buys, the phase never changes; a careful player with the
    money starts another company, whose capital buys it."""
    s = game.state
    try:
        depot = [s.trains[t].price for t in game._depot_trains()]  # noqa: SLF001
    except Exception:  # noqa: BLE001
        return False
    if not depot:
        return False
    cheapest = min(depot)
    floated = [c for c in s.corporations.values() if c.floated and not c.closed]
    return bool(floated) and cash >= 4 * cheapest and all(int(s.cash.get(c.key, 0)) < cheapest for c in floated)


def _revenue(game, corp: str) -> int:
    """What ``corp``'s trains would earn now (0 when they cannot run, or on any doubt)."""
    if not game.state.corporations[corp].trains:
        return 0
    try:
        return int(game.best_run(corp)[0])  # as its run counts it (18VA: by the trains' sides)
    except Exception:  # noqa: BLE001 - no route search for this company now
        return 0


def _all_idle(game, corps: list[str]) -> bool:
    """Every company of ``corps`` that has operated owns trains that earn nothing."""
    ran = [c for c in corps if game.state.corporations[c].floated and game.state.corporations[c].trains]
    return bool(ran) and len(ran) == len([c for c in corps if game.state.corporations[c].floated]) and \
        all(_revenue(game, c) == 0 for c in ran)


def _variant_value(game, corp: str, a: A.BuyTrain) -> int:
    """The best a train bought as ``a`` (with its declared side, 18VA's ``2`` or ``1G``) could earn
    alone for ``corp`` on today's map: 0 when it has no route.  Trains without sides: 0 (all equal)."""
    if not a.variant or not game.title.data.get("stop_groups"):
        return 0
    kind = _variant_kind(game, a)
    try:
        from pbm.e18xx.freight import routes_for

        return max((r.revenue + r.subsidy for r in routes_for(game, corp, a.variant, kind)), default=0)
    except Exception:  # noqa: BLE001 - no route search: no preference
        return 0


def _variant_kind(game, a: A.BuyTrain) -> str:
    name = game.state.trains[a.train].name
    td = next((t for t in game.title.trains if t.name == name), None)
    return dict(td.variants).get(a.variant, "passenger") if td is not None else "passenger"


def _passenger(game, a: A.BuyTrain) -> int:
    """1 for a passenger train (or one without sides): between equals, the train that runs between
    cities, which track soon joins, rather than a freight train that needs a mine or coal district."""
    return 0 if a.variant and _variant_kind(game, a) == "freight" else 1


def _cash(game, player: str) -> int:
    try:
        return int(game.state.cash.get(f"P:{player}", 0))
    except (AttributeError, TypeError, ValueError):
        return 0


def _corp(a: A.BuyShares) -> str:
    return a.shares[0].split("_")[0] if a.shares else ""


def _price(game, a: A.BuyShares) -> int:
    try:
        return int(game.share_price(a.corporation or _corp(a)) or 0)
    except Exception:  # noqa: BLE001 - no market price yet: order by name only
        return 0


def play_due(session, game_row, limit: int = 5000, now=None) -> tuple[list[Any], Any]:
    """Let the computer move for its seats while one of them must act (others' standing orders run
    too); stores the actions and returns (applied, replay).  One replay, however many moves."""
    from pbm.models import Action18

    from pbm.e18xx.core.errors import GameError
    from pbm.e18xx.pbem.games import (Applied, _save_standing, autorun, autorun_players, players, replay_rows,
                                      standing_orders, step)
    from pbm.e18xx.pbem.pacing import computer_seats, touch

    seats = set(computer_seats(game_row))
    number = {p.name: p.number for p in players(session, game_row)}
    rep = replay_rows(session, game_row)
    game = rep.game
    orders = standing_orders(game_row)
    runners = {n for n in autorun_players(game_row) if number.get(n) not in seats}
    charged: list[tuple[str, A.Action, str]] = []
    for _ in range(limit):
        for act in orders.apply(game):
            rep.concrete.append({})
            charged.append((game.controller(act.entity), act, "standing"))
        for act in autorun(rep, runners):
            charged.append((game.controller(act.entity), act, "standing"))
        if game.finished or game_row.status != "open":
            break
        acting = [p for p in game.acting_players() if number.get(p) in seats]
        if not acting:
            break
        act = choose(game)
        if act is None:
            break
        try:
            step(rep, act)
        except GameError:
            break  # the engine refused the computer's choice: a person must look
        if game.total_cash() != rep.total_cash:
            raise GameError(f"internal error: cash not conserved after the computer's {act}")
        charged.append((game.controller(act.entity) or acting[0], act, "computer"))
    if not charged:
        return [], rep
    seq = len(game.actions) - len(charged)
    applied = []
    for who, act, via in charged:
        seq += 1
        data = act.to_dict()
        data["_via"] = via
        session.add(Action18(game_id=game_row.id, seq=seq, player_number=number.get(who), action=data))
        applied.append(Applied(seq, who, act, via))
    _save_standing(game_row, orders, game)
    touch(game_row, seq, now)
    game_row.turn = game.state.turn
    if game.finished:
        game_row.status = "finished"
    session.flush()
    return applied, rep

"""18xx games kept in the database and played by email.

A game is a :class:`pbm.models.Game` row (title ``18GA``, seed, name,
status, ``options``: optional rules and the engine's player ids; ``state``:
standing orders) with its :class:`pbm.models.Player` rows (seat number, name,
email, secret hash) and its action log in :class:`pbm.models.Action18` rows.
The engine game is rebuilt by replaying the log (:func:`load`), so the log is
the only record of play: nothing else needs to be kept consistent.

:func:`apply` takes one player's moves (a mail, or the moderator on a
player's behalf) and is all-or-nothing: every move is tried in order on the
replayed game; the moves are stored only if all are legal (docs/18xx/email.md).
The moves themselves are driven by the one driver of a mail's moves,
:meth:`pbm.e18xx.pbem.intent.TurnWriter.move`, with the stored game's hooks
(``StoredMoves``, below).
Standing orders (``pass rest of round``) are kept in ``Game.state`` and turned
into ordinary ``pass`` actions whenever their player must act.
"""
from __future__ import annotations

import re

import secrets as _secrets
from dataclasses import dataclass, field
from typing import Any, Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from pbm.auth import hash_secret, new_secret
from pbm.clock import utcnow
from pbm.seats import SeatRequest
from pbm.errors import PbmError

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.game import Game
from pbm.e18xx.pbem.intent import Hooks, TurnWriter
from pbm.e18xx.pbem.moves import (Done, More, Move, MoveError, PassRestOfRound, StandingOrders,
                                  for_game, format_action, parse_moves, private_by_name)
from pbm.e18xx.core.title import canonical_title, known_titles, load_title


class PbemError(PbmError):
    """A user-facing problem with an 18xx game in the database."""


def is_18xx(game_row) -> bool:
    return canonical_title(game_row.title) is not None


# ----------------------------------------------------------------- creation
def _player_range(title: str) -> tuple[int, int]:
    rng = load_title(title).data["players"]
    return int(rng["min"]), int(rng["max"])


def create_game(session: Session, *, title: str, seed: int, name: str | None, seats: Sequence[SeatRequest],
                optional_rules: Sequence[str] = (), player_ids: Sequence[str] | None = None,
                anonymous: bool = False) -> tuple[Any, dict[int, str]]:
    """Create an 18xx game row and its players; returns (game row, {seat number: secret}).

    The secrets are shown once; only their hashes are stored."""
    from pbm.models import Game as GameRow
    from pbm.models import Player

    canon = canonical_title(title)
    if canon is None:
        raise PbemError(f"unknown 18xx title {title!r}; known: {', '.join(known_titles())}")
    lo, hi = _player_range(canon)
    if not lo <= len(seats) <= hi:
        raise PbemError(f"{canon} takes {lo} to {hi} players; the players file has {len(seats)}")
    names = [s.name for s in seats]
    rules = tuple(optional_rules)
    try:  # the engine checks names and rules
        Game(canon, names, seed, rules, player_ids)
    except GameError as exc:
        raise PbemError(str(exc)) from None
    name = name or f"{canon.lower()}-{seed}"
    if session.scalar(select(GameRow.id).where(GameRow.name == name)) is not None:
        raise PbemError(f"a game named {name!r} already exists (choose another --name)")
    row = GameRow(title=canon, name=name, seed=seed, turn=1, status="open", climate="", year=0,
                  anonymous=bool(anonymous), options={"optional_rules": list(rules),
                                            "player_ids": [str(p) for p in (player_ids or range(1, len(names) + 1))]},
                  state={"standing": {}}, turn_key=_secrets.token_hex(16),
                  created_at=utcnow())
    session.add(row)
    session.flush()
    secrets: dict[int, str] = {}
    for number, seat in enumerate(seats, start=1):
        secret = new_secret()
        secrets[number] = secret
        session.add(Player(game_id=row.id, number=number, name=seat.name, email=seat.email or "",
                           phone=getattr(seat, "phone", "") or "", character=seat.name, human=True,
                           personality="human", secret_hash=hash_secret(secret)))
    session.flush()
    return row, secrets


def players(session: Session, game_row) -> list[Any]:
    from pbm.models import Player

    return list(session.scalars(select(Player).where(Player.game_id == game_row.id).order_by(Player.number)))


def player_by_name(session: Session, game_row, name: str):
    return next((p for p in players(session, game_row) if p.name == name), None)


# ----------------------------------------------------------------- loading
_ROWS = "pbm_action_rows"  # session.info key: game id -> its action rows, as last loaded in this session


def action_rows(session: Session, game_row) -> list[Any]:
    """The game's stored actions in order.  One mail asks for them several times (its checks, the
    replay, the state mails, the events): they are loaded once per session and kept until the session
    writes an action (added, deleted or changed by the ORM or by a statement), commits or rolls back
    (issue 32 target 1: a late game's ~700 rows were loaded four times a mail, a quarter of its CPU)."""
    from pbm.models import Action18

    memo = session.info.setdefault(_ROWS, {})
    rows = memo.get(game_row.id)
    if rows is None:
        rows = memo[game_row.id] = list(
            session.scalars(select(Action18).where(Action18.game_id == game_row.id).order_by(Action18.seq)))
    return list(rows)


def _forget_rows(session: Session, *_: Any) -> None:
    session.info.pop(_ROWS, None)


def _forget_on_write(session: Session, _ctx: Any) -> None:
    """After a flush: actions added at the end of a game's log are added to what is kept of it (a
    move stored, then the state mails: no second load); any other write to the actions forgets it."""
    from pbm.models import Action18

    if any(isinstance(o, Action18) for o in (*session.dirty, *session.deleted)):
        _forget_rows(session)
        return
    added = sorted((o for o in session.new if isinstance(o, Action18)), key=lambda o: o.seq)
    memo = session.info.get(_ROWS) or {}
    for row in added:
        kept = memo.get(row.game_id)
        if kept is None:
            continue
        if kept and kept[-1].seq >= row.seq:  # not at the end: load it again when asked
            memo.pop(row.game_id, None)
        else:
            kept.append(row)


def _forget_on_statement(state: Any) -> None:
    if not state.is_select:  # an insert, update or delete statement may touch the actions
        _forget_rows(state.session)


def _watch_sessions() -> None:
    from sqlalchemy import event

    event.listen(Session, "after_flush", _forget_on_write)
    event.listen(Session, "do_orm_execute", _forget_on_statement)
    for name in ("after_commit", "after_rollback", "after_soft_rollback"):
        event.listen(Session, name, _forget_rows)


_watch_sessions()


def base_log(session: Session, game_row) -> dict[str, Any]:
    opts = game_row.options or {}
    names = [p.name for p in players(session, game_row)]
    return {"title": game_row.title, "players": names, "seed": int(game_row.seed),
            "optional_rules": list(opts.get("optional_rules", [])),
            "player_ids": list(opts.get("player_ids") or names)}


@dataclass
class Replayed:
    """A game rebuilt from the database, with what the replay saw on the way."""

    game: Game
    total_cash: int
    last_routes: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)  # corp -> [(train, Route)]
    concrete: list[dict[str, Any]] = field(default_factory=list)  # per action: exact shares/routes/tile ids


def new_engine(session: Session, game_row) -> Game:
    """The game at its start; it records the events of the actions it is given (pbm.e18xx.events)."""
    from pbm.e18xx.events import attach

    log = base_log(session, game_row)
    g = Game(log["title"], log["players"], log["seed"], log["optional_rules"], log["player_ids"])
    attach(g)
    return g


def step(rep: Replayed, act: A.Action, *, rollback: bool = True) -> None:
    """Process one action and note what it did (for the PDF and the export);
    ``rollback=False`` for stored actions, whose refusal ends the replay."""
    g = rep.game
    s = g.state
    before = dict(s.share_owner) if isinstance(act, (A.BuyShares, A.SellShares)) else None
    seller = f"P:{act.entity}"
    placed_before = dict(s.map.placed) if isinstance(act, A.LayTile) else None
    trains_before = {t: tr.owner for t, tr in s.trains.items()} if isinstance(act, A.BuyTrain) else None
    g.process(act, rollback=rollback)
    s = g.state
    info: dict[str, Any] = {}
    if before is not None:
        if isinstance(act, A.BuyShares):  # the certificate bought (from the IPO or the market)
            moved = [sid for sid, owner in s.share_owner.items()
                     if owner == seller and before.get(sid, "").startswith(("ipo:", "pool"))]
        else:  # the certificates that went to the market
            moved = [sid for sid, owner in s.share_owner.items() if owner == "pool" and before.get(sid) != "pool"]
        info["shares"] = sorted(moved, key=lambda x: (x.split("_")[0], int(x.split("_")[1])))
    if placed_before is not None:
        pl = s.map.placed.get(act.hex)  # type: ignore[attr-defined]
        if pl is not None and pl.tile_id:
            info["tile"] = pl.tile_id
    if trains_before is not None:
        moved = [t for t, tr in s.trains.items() if trains_before.get(t) != tr.owner and tr.owner == f"C:{act.entity}"]
        if moved:
            info["train"] = moved[0]
    if isinstance(act, A.RunRoutes):
        routes = list(s.round.routes)
        rep.last_routes[act.entity] = routes
        info["routes"] = [{"train": t, "nodes": list(r.node_ids()), "revenue": r.revenue} for t, r in routes]
    rep.concrete.append(info)


def replay_rows(session: Session, game_row, upto: int | None = None) -> Replayed:
    """Replay the stored log (its first ``upto`` actions if given); a refused stored
    action is a corrupt log (PbemError naming it)."""
    from pbm.e18xx.replay import REPLAYS

    rows = [row for row in action_rows(session, game_row) if upto is None or row.seq <= upto]
    # the state after the stored actions is kept between moves (pbm.e18xx.replay.ReplayCache: used
    # again only for this setup and these same first actions)
    key, setup, acts = (str(session.get_bind().url), game_row.id), base_log(session, game_row), [r.action for r in rows]
    resumed = REPLAYS.resume(key, setup, acts)
    if resumed is None:
        g = new_engine(session, game_row)
        rep, done = Replayed(g, g.total_cash()), 0
    else:
        rep, done = resumed
        g = rep.game
    for row in rows[done:]:
        try:
            step(rep, A.action_from_dict(row.action), rollback=False)
        except GameError as exc:
            raise PbemError(f"game {game_row.name}: stored action {row.seq} ({row.action.get('type')}) "
                            f"is refused on replay: {exc}; the moderator may remove it with `pbm 18xx undo`") from None
    if done < len(rows):
        REPLAYS.keep(key, setup, acts, rep, setup["title"])
    ended = (game_row.options or {}).get("ended")
    if ended and not g.finished and upto is None:  # an imported game the players ended on 18xx.games
        g.end_game(str(ended))
    return rep


def load(session: Session, game_row) -> Game:
    """The engine game of ``game_row`` (its log replayed)."""
    return replay_rows(session, game_row).game


def standing_orders(game_row) -> StandingOrders:
    orders = StandingOrders()
    for name, key in ((game_row.state or {}).get("standing") or {}).items():
        orders.orders[name] = tuple(key)
    return orders


def _save_standing(game_row, orders: StandingOrders, game: Game) -> None:
    current = StandingOrders.round_key(game)
    kept = {n: list(k) for n, k in sorted(orders.orders.items()) if tuple(k) == current}
    game_row.state = {**(game_row.state or {}), "standing": kept}


def autorun_players(game_row) -> set[str]:
    """Players with the standing order "run auto and pay out every OR" (AUTORUN: on)."""
    return set((game_row.state or {}).get("autorun") or [])


def set_autorun(game_row, name: str, on: bool) -> None:
    cur = autorun_players(game_row)
    cur = cur | {name} if on else cur - {name}
    game_row.state = {**(game_row.state or {}), "autorun": sorted(cur)}


def autorun(rep: "Replayed", names: set[str], limit: int = 50) -> list[A.Action]:
    """Apply the standing order "run auto and pay out" for the companies of ``names``: whenever such a
    company must run its trains, its best routes are run, then the dividend is paid out."""
    g = rep.game
    done: list[A.Action] = []
    if not names:
        return done
    for _ in range(limit):
        if g.finished:
            break
        cur = g.current_entity()
        if cur not in g.state.corporations or g.controller(cur) not in names:
            break
        legal = [a for a in g.legal_actions() if a.entity == cur]
        act = next((a for a in legal if isinstance(a, A.RunRoutes) and a.auto), None)
        if act is None:
            act = next((a for a in legal if isinstance(a, A.Dividend) and a.kind == "payout"), None)
        if act is None:
            break
        step(rep, act)
        done.append(act)
    return done


# ----------------------------------------------------------------- applying moves
@dataclass
class Applied:
    """One action stored: who it is charged to and why it happened."""

    seq: int
    player: str
    action: A.Action
    via: str = ""  # "" (the mover), "standing" (a standing order), "computer", "timeout"
    note: str = ""  # what it did, when the mail did not say it: "skips \"Place a station\" ..." (pbem/intent.py)


@dataclass
class Outcome:
    accepted: bool
    error: str = ""
    applied: list[Applied] = field(default_factory=list)
    standing_added: bool = False
    game: Game | None = None  # the game after the moves (before them if refused)
    legal: list[str] = field(default_factory=list)  # what the acting entity may do now (if refused)
    moves: int = 0
    replayed: Replayed | None = None  # the replay behind ``game`` (last routes, for the PDF)
    offer: dict | None = None  # a sale offered to another player, waiting for the owner's answer (18GA 3.2)
    notes: list[str] = field(default_factory=list)  # how the mail was read as a turn (pbem/intent.py)


def legal_lines(game: Game, limit: int = 40) -> list[str]:
    """What the acting entity may do now, one move a line (pbem/movelist.py: ordered, priced,
    owners named, every line accepted as written; a long list groups a kind onto a comment line)."""
    from pbm.e18xx.pbem.movelist import legal_lines as listed

    return listed(game, limit)


def move_text(game: Game, a: A.Action) -> str:
    """An action as a player would write it in a mail (parsed back to the same move; what it costs
    and whose it is after ``#``: pbem/movelist.py)."""
    from pbm.e18xx.pbem.movelist import say

    return say(game, a)


def who_acts(game: Game) -> str:
    cur = game.current_entity()
    if cur is None:
        return "nobody (the game is over)"
    ctl = game.controller(cur)
    return cur if ctl == cur else f"{ctl} for {cur}"


def _authorize(game: Game, player: str, act: A.Action) -> None:
    """A player moves only for themselves, a company they preside, or a private they (or it) own."""
    st = game.state
    if act.entity not in st.companies and act.entity not in st.corporations \
            and not any(p.name == act.entity for p in st.players):
        # a private by a name that is none of them: said plainly, not "may not act for TREDEGAR
        # (controlled by TREDEGAR)" (18VA s13 F1)
        privates = ", ".join(f"{sym} {getattr(c, 'name', '')}".strip() for sym, c in st.companies.items())
        raise GameError(f"no company or private here is called {act.entity!r}; the privates: {privates}")
    ctl = game.controller(act.entity)
    if ctl != player:
        raise GameError(f"{player} may not act for {act.entity} (controlled by {ctl or 'nobody'})")


def apply(session: Session, game_row, player_number: int, moves: str | Sequence[Move], *,
          message_id: int | None = None, check_cash: bool = True, via: str = "",
          now: Any = None, consented: bool = False) -> Outcome:
    """Try ``moves`` (text in the move language, or parsed moves) for seat ``player_number``.

    All or nothing: if any move is refused, nothing is stored and the outcome
    says which move and why, with what is legal now.  ``via`` marks the
    mover's actions in the log (``computer``, ``timeout``); the move clock
    restarts (at ``now``) when actions were stored.

    Buying another player's private (rule 3.2, "at any agreed price") is
    not applied: it becomes an offer (``Outcome.offer``, kept in the game's
    state) that the owner accepts or declines by mail (:func:`answer_offer`);
    ``consented`` applies it (the owner has agreed)."""
    from pbm.models import Action18

    if game_row.status != "open":
        raise PbemError(f"game {game_row.name} is {game_row.status}; it takes no more moves")
    seats = {p.number: p for p in players(session, game_row)}
    if player_number not in seats:
        raise PbemError(f"game {game_row.name} has no player {player_number} (seats 1-{len(seats)})")
    seat = seats[player_number]
    name = seat.name
    rep = replay_rows(session, game_row)
    game = rep.game
    stored = len(game.actions)

    def refuse(why: str) -> Outcome:
        fresh = replay_rows(session, game_row)
        return Outcome(False, why, game=fresh.game, legal=legal_lines(fresh.game), replayed=fresh)

    try:
        parsed = parse_moves(moves, name) if isinstance(moves, str) else list(moves)
    except MoveError as exc:
        from pbm.e18xx.pbem.moves import title_examples
        return refuse(title_examples(str(exc), game))  # the examples in this game's names (s12)
    if not parsed:
        return refuse("no moves found (write one move per line, e.g. 'pass')")

    number_of = {p.name: p.number for p in seats.values()}
    hooks = StoredMoves(rep, name, player_number, orders=standing_orders(game_row), runners=autorun_players(game_row),
                        number_of=number_of, via=via, check_cash=check_cash, consented=consented)
    # a mail is read as a turn, as intent (pbem/intent.py); a list of moves (an offer agreed, a
    # time-out, the computer) as written: both through the one driver, TurnWriter.move
    writer = TurnWriter(game, name, hooks, literal=not isinstance(moves, str))
    parsed = writer.read(parsed)  # 'Bob contributes $350': noted (s13); a home station after its tile
    if not parsed:
        return refuse(writer.notes[0] + "; write the train to buy, e.g. 'buy train 4D'")
    try:
        if game.finished:
            from pbm.e18xx.events import end_reason_words
            raise GameError(f"the game is over ({end_reason_words(game)})")
        hooks.run_standing(True)  # orders due before this mail (e.g. after an undo)
        writer.play(parsed)  # a mail is the whole turn: what is left of it ends as if 'done' (unless 'more')
        if hooks.offer is None:
            hooks.run_standing(True)
    except GameError as exc:
        return refuse(str(exc))
    offer, orders, charged, notes_at = hooks.offer, hooks.orders, hooks.charged, hooks.notes_at
    intent_notes = (writer.notes + ([] if offer is not None else writer.summary())) if writer.intent else []
    seq = stored
    applied: list[Applied] = []
    for k, (who, act, via) in enumerate(charged):
        seq += 1
        data = act.to_dict()
        if via:
            data["_via"] = via
        session.add(Action18(game_id=game_row.id, seq=seq, player_number=number_of.get(who),
                             action=data, message_id=message_id))
        applied.append(Applied(seq, who, act, via, notes_at.get(k, "")))
    _save_standing(game_row, orders, game)
    from pbm.e18xx.pbem.pacing import touch

    if applied or offer is not None:
        set_offer(game_row, offer)  # a new move (or a new offer) ends an older offer
    pending = (game_row.state or {}).get("ends_after")
    if applied and writer.intent and writer.pending_end:
        # the mail ended (as if 'done') while another player must act inside the turn (a company
        # over its train limit discards): the turn ends once he has (play-through s13v F1)
        game_row.state = {**(game_row.state or {}), "ends_after": {
            "entity": writer.pending_end, "seat": player_number, "at": seq, "via": via}}
        pending = None
    elif applied and pending:
        game_row.state = {**(game_row.state or {}), "ends_after": None}
    if offer is not None:
        session.flush()
        rep = replay_rows(session, game_row)  # the game without the offered sale
        game = rep.game
    touch(game_row, seq, now)
    game_row.turn = game.state.turn
    if game.finished:
        game_row.status = "finished"
    session.flush()
    out = Outcome(True, "", applied, hooks.standing_added, game, moves=hooks.moves, replayed=rep, offer=offer,
                  notes=intent_notes)
    if pending and offer is None and not game.finished:
        _end_pending_turn(session, game_row, pending, out, now)
    return out


def _end_pending_turn(session: Session, game_row, pending: dict, out: Outcome, now: Any) -> None:
    """The turn of ``pending['entity']``, whose president's mail ended it (as if 'done') while
    another player had to act inside it first, ends now that he has: as if its president had
    mailed 'done' (play-through s13v F1: ACL's 'lay / buy train 5' made W&A discard; after W&A's
    'discard 3' ACL's president had to mail 'done' for a turn his mail had already ended)."""
    g = out.game
    corp = pending["entity"]
    if g is None or g.current_entity() != corp or any(a.action.entity == corp for a in out.applied):
        return
    step, who = g.open_step()
    if who is not None and who != corp:
        game_row.state = {**(game_row.state or {}), "ends_after": pending}  # still waiting on someone
        return
    done = apply(session, game_row, int(pending["seat"]), "done", now=now, via=pending.get("via") or "")
    if not done.accepted:
        out.notes.append(f"{corp}'s turn goes on: {done.error}")
        return
    out.applied += done.applied
    out.game, out.replayed = done.game, done.replayed
    out.notes = [n for n in out.notes if not n.startswith("The turn is not over")]
    out.notes.append(f"{corp}'s turn is over: its president's mail had ended it (as if 'done'), once this was "
                     "done")
    out.notes += [n for n in done.notes if not n.startswith("move 1 (done)")]


# ----------------------------------------------------------------- sales between players (18GA 3.2)
def needs_consent(game: Game, player: str, act: Any) -> str | None:
    """The player whose consent ``act`` needs, or None: buying a private that
    another player owns is a sale "at any agreed price" (18GA 3.2), so its
    owner must agree; a company's purchase from its own president needs none."""
    if isinstance(act, A.BuyTrain):
        seller = train_seller(game, act)
        if seller is None:
            return None
        pres = game.president(seller)
        return pres if pres and pres != player else None
    if not isinstance(act, A.BuyCompany):
        return None
    comp = game.state.companies.get(act.company)
    if comp is None or not comp.owner or not comp.owner.startswith("P:"):
        return None
    owner = comp.owner[2:]
    return None if owner == player else owner


def bid_on_the_cheapest(game: Game, act: A.Bid) -> tuple[A.Bid, str]:
    """A bid on the private that is now the cheapest unsold one (the mail was written before it
    became so) is its purchase at its price (18AL/18GA 3.1(a)): returns the action to store (the
    purchase at the price, as 18xx.games records a purchase) and what the mover is told."""
    from dataclasses import replace as _replace

    from pbm.e18xx.rounds.cite import see

    if game.state.round.kind != "auction" or "site_auction" in game.optional_rules or \
            game.current_entity() != act.entity:
        return act, ""
    try:
        comp = game.company(act.company)
        cheapest = game._auction_style() == "waterfall" and game._may_purchase(comp.sym)
    except GameError:
        return act, ""
    if not cheapest or act.price <= comp.min_bid or act.price % 5:
        return act, ""
    return _replace(act, company=comp.sym, price=comp.min_bid), (
        f"{comp.sym} is the cheapest unsold private now, bought at its price, not bid on: the bid of "
        f"{game.title.money(act.price)} bought it for {game.title.money(comp.min_bid)}"
        f"{see(game.title, 'cheapest_private')}")


def train_seller(game: Game, act: A.BuyTrain) -> str | None:
    """The company selling the train ``act`` buys (None: the bank, or no such train)."""
    s = game.state
    tr = s.trains.get(act.train)
    if tr is None and act.seller:
        want = str(act.seller).lower()
        tr = next((t for t in s.trains.values() if t.owner.lower() == f"c:{want}" and t.name == act.train), None)
    if tr is None or not tr.owner.startswith("C:") or tr.owner == f"C:{act.entity}":
        return None
    if act.seller and tr.owner.lower() != f"c:{str(act.seller).lower()}":
        return None  # not the seller named: the engine refuses it, naming the owner
    return tr.owner[2:]


def train_offer(game: Game, act: A.BuyTrain) -> A.BuyTrain:
    """A purchase from another company with its seller, train id and price spelt out (what an
    offer names and what is stored once it is agreed)."""
    from dataclasses import replace as _replace

    seller = train_seller(game, act)
    if seller is None:
        return act
    tr = game.state.trains.get(act.train)
    if tr is None or tr.owner != f"C:{seller}":
        tr = next(t for t in game.state.trains.values() if t.owner == f"C:{seller}" and t.name == act.train)
    return _replace(act, train=tr.tid, seller=act.seller or seller, price=tr.price if act.price is None else act.price)


def offer_name(offer: dict) -> str:
    """What the answer names: the private (``MRC``), or the train by its type (``2``, never the id
    ``2-0``: issue 29 leftovers; one offer waits at a time, so the type is enough)."""
    from pbm.e18xx.pbem.moves import train_type

    return train_type(str(offer["company"])) if offer.get("kind") == "train" else str(offer["company"])


def offer_thing(offer: dict) -> str:
    """What an offer is for, as the mails say it: ``MRC`` or ``ABC's 2 train`` (``NSW's 2+ train``:
    the side it was bought as, play-through s13v F3)."""
    if offer.get("kind") == "train":
        return f"{offer['seller']}'s {offer_label(offer)} train"
    return str(offer["company"])


def offer_label(offer: dict) -> str:
    """The offered train as players name it: its side (``2+``) when it has one, else its type; the
    answer still names the type (``accept 2``: one offer waits at a time)."""
    return str(offer.get("label") or offer_name(offer))


def offer_terms(game_or_title: Any) -> str:
    """Why a train sale between companies needs its seller's president: an agreed price, or in
    1848 the face value (8.1: "Train deals with other Directors are only allowed at the printed
    face values"; play-through s13v F3: the mails said "at a price both agree")."""
    title = getattr(game_or_title, "title", game_or_title)
    if ((getattr(title, "data", None) or {}).get("trades_at_face_value")):
        return "a train changes hands between companies of different presidents only at its face value"
    return "a train changes hands between companies at a price both agree"


def offer_parties(offer: dict) -> str:
    """Who offers whom: ``ABC (Ann's company) offers Bob`` for a private, and for a train the
    buying company, its president and the selling company's president
    (``ABC (Ann's company) offers Bob, president of CoG,``)."""
    who = f"{offer['entity']}"
    if offer.get("buyer_name") and offer.get("buyer_name") != offer["entity"]:
        who += f" ({offer['buyer_name']}'s company)"
    to = f"{offer['owner']}, president of {offer['seller']}," if offer.get("kind") == "train" else f"{offer['owner']}"
    return f"{who} offers {to}"


def offer_waiting(game: Any, offer: dict) -> str:
    """The status line of an offer not yet answered, naming the buyer, its president, the owner
    and, for a train, the selling company: ``Offer waiting: ABC (Ann's company) offers Bob,
    president of CoG, $1 for CoG's 2 train; Bob answers 'accept 2' or 'decline 2'``."""
    return (f"Offer waiting: {offer_parties(offer)} {game.title.money(offer['price'])} for {offer_thing(offer)}; "
            f"{offer['owner']} answers 'accept {offer_name(offer)}' or 'decline {offer_name(offer)}'")


def offer_rule(game_or_title: Any, offer: dict) -> str:
    """The rule of the title's rulebook that makes the sale need its owner's consent (title data
    ``rule_refs``: ``private_sale``, ``train_sale``): "rule 4.2.6" in 18GA, "rule 4.2" in 18VA (issue 29)."""
    title = getattr(game_or_title, "title", game_or_title)
    refs = (getattr(title, "data", None) or {}).get("rule_refs") or {}
    key = "train_sale" if offer.get("kind") == "train" else "private_sale"
    ref = (offer.get("between_players") and refs.get("player_private_sale")) or refs.get(key, "")
    return f"rule {ref}" if ref else "the rules"


def _buyers_note(note: str, buyer: str) -> str:
    """A note on the buyer's moves made after the seller's 'accept', as the seller reads it: the
    buyer's turn, not "your turn" (play-through s11v F4: Bob, accepting, was told "Your turn is over")."""
    note = note.replace("Your turn", f"{buyer}'s turn").replace("your turn", f"{buyer}'s turn")
    # "Next: Cy's turn in the stock round (...): you may buy a share": Cy may (play-through s12v F4)
    return note.replace("Your stock turn", f"{buyer}'s stock turn").replace("you may", f"{buyer} may")


def offer_why(offer: dict) -> str:
    """Why a private's sale waits for its owner, in plain words: a player buying from a player
    (18GA 3.2(c)(4): "any positive whole number of dollars the two players can agree on") or a
    company buying from a player (4.2.6)."""
    if offer.get("between_players"):
        return "a private changes hands between players only at a price both agree"
    return "a company buys a player's private only at a price both agree"


def pending_offer(game_row) -> dict | None:
    """The sale offered to a player and not yet answered (at most one: the buyer is waiting)."""
    return (game_row.state or {}).get("offer") or None


def set_offer(game_row, offer: dict | None) -> None:
    game_row.state = {**(game_row.state or {}), "offer": offer}


# 'accept 3', 'accept', and in the first person 'I accept', 'I accept the offer.' (18GA s15 mail #134)
_ANSWER = re.compile(r"^\s*(?:(?:i|we)\s+)?(accept|decline)\b[\s.!]*(?:(?:the\s+offer|it|this|that)\b[\s.!]*)?"
                     r"(.*?)[\s.!]*$", re.IGNORECASE)


# what follows the verb besides the thing sold, as the owner answers in his own words: whose offer it
# is and its price before the thing ("I accept Eve's offer of $25 for the Lexington": 18GA s17c mail
# #40, refused "the offer waiting is for LTR"), its price or buyer after it ("accept LTR for $25")
_ANSWER_HEAD = re.compile(r"^(?:(?:the|your|this|that|his|her|their|[^\s]+['\u2019]s?)\s+offer\b[\s,]*)?"
                          r"(?:(?:of|for|at)\s+[$\u00a3]?\d+(?:\s+dollars)?[\s,]*)?"
                          # 'I accept the $80 for Potomac Yards' (18VA s17 mail 46): a price with its sign first
                          r"(?:(?:the\s+)?[$\u00a3]\d+(?:\s+dollars)?[\s,]*)?(?:(?:for|on)\s+)?(?:the\s+)?",
                          re.IGNORECASE)
_ANSWER_TAIL = re.compile(r"[\s,]+(?:(?:for|at|of)\s+[$\u00a3]?\d+\b|(?:from|to|by)\s+\S+).*$", re.IGNORECASE)


def offer_answer(text: str) -> tuple[str, str] | None:
    """("accept"|"decline", what it names) if the move text is an answer to an offer, else None: what
    it names is the thing sold as written ('' for none), without whose offer it is or its price
    (``offer_said`` tells whether it is the offer's)."""
    lines = [x for x in text.splitlines() if x.strip()]
    if not lines:
        return None
    m = _ANSWER.match(lines[0])
    if not m:
        return None
    said = _ANSWER_TAIL.sub("", _ANSWER_HEAD.sub("", m.group(2).strip(), count=1))
    return m.group(1).lower(), said.strip(" ,.!")


def offer_said(game: Any, offer: dict, said: str) -> bool:
    """Does an answer's ``said`` (``offer_answer``) name what ``offer`` is for: nothing (the one offer
    waiting), its symbol or the train's type as the mails write it ('accept LTR', 'accept 3'), or the
    private by its name or the first words of it ('the Lexington', 18GA Table III), as a purchase names it."""
    from pbm.e18xx.pbem.moves import private_said

    words = said.split()
    if not words or words[0].upper() in (str(offer["company"]).upper(), offer_name(offer).upper()):
        return True
    return offer.get("kind") != "train" and game is not None and private_said(game, said) == offer["company"]


def answer_offer(session: Session, game_row, seat: int, text: str, *, message_id: int | None = None,
                 now: Any = None, by: str | None = None) -> tuple[Outcome, dict | None]:
    """The owner's ``accept <private>`` or ``decline <private>`` (18GA 3.2).

    Accepting applies the buyer's purchase as offered, if nothing has
    happened in the game since the offer; declining withdraws it.  Returns
    the outcome and the offer answered."""
    verb, said = offer_answer(text) or ("", "")
    comp = said.split()[0].upper() if said.split() else ""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    offer = pending_offer(game_row)
    seats = {p.number: p for p in players(session, game_row)}

    def refuse(why: str) -> tuple[Outcome, dict | None]:
        fresh = replay_rows(session, game_row)
        return Outcome(False, why, game=fresh.game, legal=legal_lines(fresh.game), replayed=fresh), offer

    if len(lines) > 1:
        return refuse(f"line 2: {lines[1]!r}: an answer to an offer stands alone in its mail; "
                      f"send '{verb} {comp}' by itself and other moves in another mail")
    if offer is None:
        return refuse(f"line 1: {lines[0]!r}: there is no offer waiting for an answer")
    if seat != offer.get("owner_seat"):
        return refuse(f"line 1: {lines[0]!r}: the offer for {offer_thing(offer)} waits for {offer['owner']}'s "
                      "answer, not yours")
    if not offer_said(None, offer, said) and not offer_said(replay_rows(session, game_row).game, offer, said):
        # ('accept' alone answers the one offer waiting for this player: 18VA s14 mail #43)
        return refuse(f"line 1: {lines[0]!r}: the offer waiting is for {offer_thing(offer)}; "
                      f"write '{verb} {offer_name(offer)}'")
    if action_count(session, game_row) != offer["at"]:
        set_offer(game_row, None)
        return refuse(f"line 1: the offer for {offer_thing(offer)} lapsed: the game moved on since it was made")
    if verb == "decline":
        set_offer(game_row, None)
        session.flush()
        rep = replay_rows(session, game_row)
        return Outcome(True, "", [], False, rep.game, replayed=rep), offer
    act: A.Action = A.BuyCompany(offer["entity"], offer["company"], int(offer["price"]))
    if offer.get("kind") == "train":
        act = A.BuyTrain(offer["entity"], offer["company"], int(offer["price"]), offer.get("variant"),
                         seller=offer["seller"])
    out = apply(session, game_row, int(offer["buyer"]), [act], message_id=message_id, now=now, consented=True,
                via=f"agreed by {by or seats[seat].name}")
    if out.accepted:
        set_offer(game_row, None)
        session.flush()
        rest = list(offer.get("rest") or [])
        g_now = out.game
        # the moves were written for the buying company's turn: once that turn is over they are
        # nobody's, even when the next company to act has the same president (s12v finding 1)
        if rest and g_now is not None and (g_now.finished or g_now.current_entity() != offer["entity"]
                                           or g_now.controller(g_now.current_entity()) != offer["buyer_name"]):
            out.notes = [  # the seller reads why the buyer's turn is over (s13v 18AL F3: it said nothing)
                f"{offer['buyer_name']}'s turn ended with the sale: nothing more was allowed in it"
                + ("" if g_now.finished else f"; next to act: {who_acts(g_now)}")] if offer.get("ends_turn") else [
                f"{offer['buyer_name']}'s turn ended with the sale; the moves written after the offer "
                f"({' / '.join(rest)}) were not made"]
            rest = []
        if rest:  # the buyer's moves written after the offer (s10b finding 6): made now, as his mail
            more = apply(session, game_row, int(offer["buyer"]), "\n".join(rest), now=now)
            written = " / ".join(rest)
            if more.accepted and more.offer is None:
                out.applied += more.applied
                out.game, out.replayed = more.game, more.replayed
                made = (f"{offer['buyer_name']}'s turn ended with the sale: the mail ended with the offer (as if "
                        "'done')" if offer.get("ends_turn") else
                        f"{offer['buyer_name']}'s moves after the offer, made now that the sale is agreed: {written}")
                out.notes = [made] + [_buyers_note(n, offer["buyer_name"]) for n in more.notes
                                      # the 'done' the mail's end stood for is nobody's written move
                                      # (s13v F3: Eve, accepting, read "move 1 (done): CoG's turn is over")
                                      if not (offer.get("ends_turn") and n.startswith("move 1 (done)"))]
            else:
                if more.offer is not None:
                    set_offer(game_row, None)
                why = more.error or "it makes another offer"
                now_g = out.game
                who = now_g.controller(now_g.current_entity()) if now_g is not None and not now_g.finished else ""
                out.notes = [(f"{offer['buyer_name']}'s turn goes on after the sale: {why}" if offer.get("ends_turn") else
                              f"{offer['buyer_name']}'s moves after the offer ({written}) were NOT made: {why}")
                             + (f"; {offer['buyer_name']} is still to act" if who == offer["buyer_name"] else "")]
            session.flush()
    return out, offer


VIA_NOTES = {"standing": " (standing order)", "computer": " (computer player)", "timeout": " (time-out default)"}


def via_note(via: str | None) -> str:
    """How the log and the mails mark an action not written by its player."""
    return VIA_NOTES.get(via or "", f" ({via})" if via else "")


def undo(session: Session, game_row) -> Any:
    """Remove the last stored action (moderator); returns the removed row."""
    from pbm.models import Action18

    rows = action_rows(session, game_row)
    if not rows:
        raise PbemError(f"game {game_row.name} has no actions to undo")
    last = rows[-1]
    session.execute(delete(Action18).where(Action18.id == last.id))
    game_row.options = {**(game_row.options or {}), "undos": int((game_row.options or {}).get("undos", 0)) + 1}
    set_offer(game_row, None)  # an offer made against the undone history lapses
    if game_row.status == "finished":
        game_row.status = "open"
    game = load(session, game_row)
    game_row.turn = game.state.turn
    session.flush()
    return last


def action_count(session: Session, game_row) -> int:
    from pbm.models import Action18

    return int(session.scalar(select(func.count()).select_from(Action18).where(Action18.game_id == game_row.id)) or 0)


def pick_18xx_game(session: Session, game: str | None):
    """The 18xx game named, or the only one in the database."""
    from pbm.games import pick_game
    from pbm.models import Game as GameRow

    rows = [g for g in session.scalars(select(GameRow).order_by(GameRow.id)) if is_18xx(g)]
    if game is None:
        if len(rows) == 1:
            return rows[0]
        if not rows:
            raise PbemError("no 18xx game in this database (create one with `pbm new-game 18GA --players FILE.csv`)")
        raise PbemError(f"this database holds {len(rows)} 18xx games ({', '.join(g.name for g in rows)}); name one")
    row = pick_game(session, game)
    if not is_18xx(row):
        raise PbemError(f"game {row.name} is a {row.title} game, not an 18xx game")
    return row


# ------------------------------------------------------------------ the stored game's hooks
# What the moves of a mail do in a stored game, besides the turn's reading: the hooks
# (:class:`pbm.e18xx.pbem.intent.Hooks`) that :func:`pbm.e18xx.pbem.games.apply` gives the one
# driver of a mail's moves, :meth:`pbm.e18xx.pbem.intent.TurnWriter.move` (docs/18xx/engine.md,
# "E-mail moves").
# 
# Every action is authorized (a player moves only for what he controls), processed on the
# replayed game (its shares, tiles and routes noted for the PDF and the export), charged to its
# player, and followed by the cash check and the standing orders due; ``pass rest of round`` is
# kept as a standing order; a purchase that needs another player's consent (18GA 3.2, 4.2.6,
# 4.2.5(d)) is tried, not stored: it becomes the offer that ends the mail.

class StoredMoves(Hooks):
    """The hooks of one mail (or a list of moves) of player ``name`` (seat ``seat``) on the replay
    ``rep``.  ``charged`` holds (player, action, via) in order, ``notes_at`` the note of each
    that has one; ``moves`` counts the mail's own moves made; ``offer`` is the offer that ended
    the mail."""

    def __init__(self, rep: Any, name: str, seat: int, *, orders: StandingOrders, runners: set[str],
                 number_of: dict[str, int], via: str = "", check_cash: bool = True, consented: bool = False):
        super().__init__(rep.game)
        self.rep, self.name, self.seat, self.via = rep, name, seat, via
        self.orders, self.runners, self.number_of = orders, runners, number_of
        self.check_cash, self.consented = check_cash, consented
        self.stored = len(rep.game.actions)
        self.charged: list[tuple[str, A.Action, str]] = []
        self.notes_at: dict[int, str] = {}
        self.moves = 0
        self.standing_added = False

    # ------------------------------------------------------------------ every action
    def _cash(self, act: A.Action) -> None:
        if self.check_cash and self.game.total_cash() != self.rep.total_cash:
            raise GameError(f"internal error: cash not conserved after {format_action(act)}")

    def run_standing(self, auto: bool = False) -> None:
        """Standing orders due now; the autorun order only between mails (``auto``), never between
        the lines of one mail (the writer may run and pay out by hand)."""
        game = self.game
        for act in self.orders.apply(game):
            self.rep.concrete.append({})
            self.charged.append((game.controller(act.entity), act, "standing"))
            self._cash(act)
        for act in autorun(self.rep, self.runners if auto else set()):
            self.charged.append((game.controller(act.entity), act, "standing"))
            self._cash(act)
            for more in self.orders.apply(game):
                self.rep.concrete.append({})
                self.charged.append((game.controller(more.entity), more, "standing"))

    def check(self, act: A.Action) -> None:
        _authorize(self.game, self.name, act)

    def process(self, act: A.Action) -> None:
        step(self.rep, act)

    def record(self, act: A.Action, note: str, written: bool) -> None:
        self.moves += written
        self.charged.append((self.name, act, self.via))
        if note:
            self.notes_at[len(self.charged) - 1] = note
        self._cash(act)
        self.run_standing()

    def standing(self, n: int) -> None:
        self.orders.add(self.game, self.name)
        self.standing_added = True
        self.run_standing()

    def game_over(self, n: int, mv: Move, writer: TurnWriter) -> bool:
        from pbm.e18xx.events import end_reason_words

        game = self.game
        if writer.intent and len(game.actions) > self.stored and (
                isinstance(mv, (Done, More, A.Pass)) or isinstance(mv, A.Dividend)
                or (isinstance(mv, A.RunRoutes) and mv.auto)):
            # the mail's own move ended the game: a closing 'done' (or pass) has nothing left to end,
            # so it is ignored with a note, never refused (play-through s12, the last turn)
            writer.notes.append(f"move {n} ({_fmt(mv)}): nothing left to do - the game is over "
                                f"({end_reason_words(game)}); ignored")
            return True
        raise GameError(f"move {n} ({_fmt(mv)}): the game is over ({end_reason_words(game)})")

    # ------------------------------------------------------------------ the mail's own moves
    def prepare(self, act: A.Action) -> A.Action:
        if isinstance(act, A.BuyTrain) and train_seller(self.game, act) is not None:
            return train_offer(self.game, act)  # the log names the selling company (and the price paid)
        return act

    def bid(self, act: A.Bid) -> tuple[A.Bid, str]:
        return bid_on_the_cheapest(self.game, act)  # a bid on what is now the cheapest private: its purchase

    def consent(self, n: int, act: A.Action) -> str | None:
        return None if self.consented and n == 1 else needs_consent(self.game, self.name, act)

    def terms(self, n: int, act: A.Action, owner: str, writer: TurnWriter) -> dict:
        """What the offer keeps of the mail: the moves after it (``rest``), made when the owner
        accepts; ``ends_turn`` when the offer is the mail's last line (its end ends the turn after
        the sale, as if 'done'); ``kept_open`` when only 'more' follows it."""
        game, later = self.game, writer.rest
        if later and writer.intent:
            # the moves after the offer wait for the owner's answer and are made after the sale when he
            # accepts (play-through s10b finding 6: 'buy private NDY 120 / done' ends the turn with the
            # sale); one offer a mail
            more = [m for m in later if isinstance(m, A.Action)
                    and needs_consent(game, self.name, for_game(game, self.name, m))]
            if more:
                raise GameError(f"one offer a mail: '{_fmt(more[0])}' needs a consent too; send it "
                                "once this sale is answered")
            # with its 'more': the implied 'done' goes with them; a private named by its name keeps it
            # ('buy train 3 with Tredegar', play-through s13w F2: the 'with' was dropped)
            if all(isinstance(m, More) for m in later):
                return {"kept_open": True}  # 'offer / more': the turn is open after the sale anyway
            return {"rest": [_fmt(private_by_name(game, m)) for m in later]}
        if writer.intent:
            # the offer is the mail's last line: the end of the mail ends the turn once the sale is
            # agreed, as any mail does (as if 'done'; play-through s13 F5: CoG's turn wanted a second
            # mail, 'done', after Ann accepted)
            return {"rest": ["done"], "ends_turn": True}
        if later:
            what = f"{act.seller}'s train" if isinstance(act, A.BuyTrain) else f"{owner}'s private"
            why = "at an agreed price" if isinstance(act, A.BuyTrain) else \
                offer_rule(game, {"kind": "private"})  # the title's rule number (issue 29)
            raise GameError(f"buying {what} needs {owner}'s consent ({why}), so the offer must be the last "
                            "move of a mail; send the moves after it once the sale is agreed")
        return {}

    def offered(self, act: A.Action, owner: str, terms: dict) -> None:
        game = self.game
        at = self.stored + len(self.charged)
        if isinstance(act, A.BuyTrain):  # 4.2.5(d) (18AL, 18GA), 4.6.1 (18VA): an agreed price
            offer = {"kind": "train", "buyer": self.seat, "buyer_name": self.name, "entity": act.entity,
                     "company": act.train, "seller": act.seller, "variant": act.variant, "price": act.price,
                     "label": game.train_label(act.train) if act.train in game.state.trains else None,
                     "owner": owner, "owner_seat": self.number_of.get(owner), "at": at}
        else:
            assert isinstance(act, A.BuyCompany)
            offer = {"buyer": self.seat, "buyer_name": self.name, "entity": act.entity,
                     "company": act.company, "price": act.price, "owner": owner,
                     "owner_seat": self.number_of.get(owner), "at": at}
            if act.entity == self.name:  # a player buys: 18GA 3.2(b), (c)(4), not a company's 4.2.6 (s11v F3)
                offer["between_players"] = True
        offer.update(terms)
        self.offer = offer


def _fmt(mv: Move) -> str:
    if isinstance(mv, Done):
        return "done"
    if isinstance(mv, More):
        return "more"
    return "pass rest of round" if isinstance(mv, PassRestOfRound) else format_action(mv)

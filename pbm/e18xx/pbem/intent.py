"""A turn written as intent (issue 29 item 1): a mail says what a company (or a player in a
stock round) does, and the steps it does not mention are skipped where the rules allow.

The mail's moves are read in order against the game's steps (``Game.open_step()``,
rounds/step.py):

* a move that a *later* step of the company's turn takes (``token E5`` while the track step
  is still open, ``buy train 3`` after a run) first ends every step before it with an ordinary
  ``pass`` -- when the step lets the president skip it (its actions offer ``pass``); a step
  that may not be skipped (a run that must be made, a train that must be bought) refuses the
  mail, naming the step and its rule section -- except a run whose best routes earn nothing,
  which is made (``run auto``) with a note, as nothing is left to choose (play-through s12);
* ``done`` ends the turn: every step left is passed the same way (a required one refuses the
  mail); in a stock round or the private sale it is the pass that ends the player's turn;
* a ``pass`` ends the open step; a ``pass`` with nothing left to pass (the turn it belongs to
  has ended, or the open step may not be skipped) is ignored with a note, never refused; so is
  a ``pass`` right before a move the open step itself takes (the step it was meant for had
  nothing to do and was gone by itself: 'lay 9 O2 0 / pass / buy train 5' with no place for a
  station; play-through s11v finding 1).

Only ordinary actions are made (the passes for skipped steps), so the action log, replays
and exports are as if the player had written every pass.  Each action made is returned with
a note saying which step it ended, and the mail's reply lists them (what was done, what
was skipped).  The whole mail is tried on the game first by the caller
(``pbem/games.py::apply``), and stored only if every move is accepted.

Every move of a mail, stored or not, goes through :meth:`TurnWriter.move` (the one driver);
what the stored game adds (authorizing, charging, standing orders, consent and offers, the
cash check) comes in as :class:`Hooks` (pbem/games.py, ``StoredMoves``; docs/18xx/engine.md, "E-mail
moves").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.pbem.moves import (OR_TYPES, Done, More, Move, PassRestOfRound, RepayLoan, StandingOrders, action_words,
                                  for_game, format_action, parse_moves, place_names, plain_route_ids, purchase_words,
                                  repay_refusal, without_contributions)
from pbm.e18xx.pbem.moves import _HEX_WORD  # a stop written as its hex
from pbm.e18xx.rounds.step import Interrupt, plain_list

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.game import Game


@dataclass
class Made:
    """One action made for the mail: the action, and what it did in words (for a pass: the
    step it ended)."""
    action: A.Action
    note: str = ""


def run_as_written(game: "Game", a: A.Action) -> str:
    """Move ``a`` as a reply quotes it: a route's stops by name as "What happened" spells them, a
    place of two words one stop ("run 2 Adelaide - Port Pirie", not "run 2 BRISBANE CAIRNS" of s15b
    mail #45 or "Adelaide - PORT - PIRIE" of 1848 s15c mail #46)."""
    if isinstance(a, A.RunRoutes) and not a.auto:
        a = place_names(game, a)
        if any(not _HEX_WORD.match(n) for r in a.routes for n in r.nodes):
            return action_words(game, a)[1]
    return format_action(a)


_SELL_FIRST = "Sell shares, then "


def step_words(game: "Game", step) -> str:
    """A step for a player: ``"Place a station" (18AL rule 4.2.2)``. The stock turn of the first stock
    round leaves its sales out, since none is allowed there (18GA 3.2(a)(1): "No one may sell any
    certificates to the Bank during the first Stock Round"; s16b mail 026's reply said "Sell shares,
    then buy one share ...")."""
    desc = (step.text(game.title) or step.name).split(" — ")[0]
    s = game.state
    if step.name == "shares" and desc.startswith(_SELL_FIRST) and s.turn == 1 and s.round.kind == "stock" \
            and not game.title.data.get("sell_after"):
        buy = desc[len(_SELL_FIRST):].split(";")[0].split(" (or buy then sell)")[0]
        desc = f"{buy[:1].upper()}{buy[1:]} (no shares are sold in the first stock round)"
    rule = step.rule(game.title)
    return f'"{desc}"' + (f" ({game.title.name} rule {rule})" if rule else "")


def _why_required(game: "Game", step, corp: str) -> str:
    """Why a step may not be skipped, in words (empty when its description says it)."""
    if step.name == "buy_train" and not game.corp_trains(corp):
        return f" ({corp} owns no train and must buy one)"
    if step.name == "route":
        return " (a company whose trains can run must run them)"
    if step.name == "dividend":
        return " (the run's revenue is paid out or withheld)"
    return ""


def _leads(g: "Game", line: str) -> str:
    """Where the track of the city a ``token D4-1`` line names leads (``; track to E3, C3 Rome``),
    so a president can choose between a hex's cities; empty if unknown."""
    from pbm.e18xx.core.hexgrid import neighbour
    from pbm.e18xx.lays import _place

    where = line.strip().removeprefix("token ").strip()
    try:
        (coord, idx), = g._city_ref(where)
        placed = g.state.map.placed[coord]
        edges = placed.tile.node_edges(placed.rotation)[idx]
        to = [_place(g, n) for n in (neighbour(coord, e, g.title.layout) for e in sorted(edges)) if n]
    except (GameError, KeyError, IndexError, ValueError, TypeError):
        return ""
    return f"; track to {', '.join(to)}" if to else "; no track out yet"


class Hooks:
    """What the moves of a mail do besides reading the turn (:meth:`TurnWriter.move`), for the game
    they are played on.  These plain hooks process each action on ``game`` and record it with its
    note in ``made``; the stored game's (pbem/games.py, ``StoredMoves``) also authorize every action, charge it
    to its player, check the cash, keep the standing orders, and turn a purchase that needs another
    player's consent into an offer."""

    def __init__(self, game: "Game"):
        self.game = game
        self.made: list[Made] = []
        self.offer: dict | None = None  # the offer that ended the mail (stored game only)

    def game_over(self, n: int, mv: Move, writer: "TurnWriter") -> bool:
        """Move ``n`` comes after the game ended: True to ignore it (a note), or raise."""
        return False

    def standing(self, n: int) -> None:
        """``pass rest of round`` (move ``n``): a standing order, kept by the stored game only."""
        raise GameError(f"move {n}: 'pass rest of round' is a standing order; send it by mail")

    def consent(self, n: int, act: A.Action) -> str | None:
        """The player whose consent the mail's move ``act`` needs (None: none)."""
        return None

    def check(self, act: A.Action) -> None:
        """Before ``act`` is processed: may the mover make it? (raise GameError if not)"""

    def prepare(self, act: A.Action) -> A.Action:
        """The mail's move ``act`` as it is processed and stored (a train from another company: its
        seller and price spelt out)."""
        return act

    def bid(self, act: A.Bid) -> tuple[A.Bid, str]:
        """A bid as it is processed, and what the mover is told of it."""
        return act, ""

    def terms(self, n: int, act: A.Action, owner: str, writer: "TurnWriter") -> dict:
        """Before a move that needs ``owner``'s consent is tried: what its offer keeps of the mail."""
        return {}

    def process(self, act: A.Action) -> None:
        self.game.process(act)

    def record(self, act: A.Action, note: str, written: bool, added: bool = False) -> None:
        """``act`` was processed: the mail's own move (``written``) or one the turn made for it
        (``added``: a move the mail did not write, such as a pass for a step it left out)."""
        self.made.append(Made(act, note))

    def offered(self, act: A.Action, owner: str, terms: dict) -> None:
        """``act``, legal now, waits for ``owner``'s consent: the mail ends with the offer."""


class TurnWriter:
    """Reads one mail's moves for ``player`` as intent (or, ``literal``, as written: a list of
    moves that is no mail) and drives them: every move of a mail goes through :meth:`move`; the
    ``hooks`` (:class:`Hooks`) process and record what it makes.  ``notes`` are the lines the reply
    shows about the turn."""

    def __init__(self, game: "Game", player: str, hooks: Hooks | None = None, *, literal: bool = False):
        self.game = game
        self.player = player
        self.hooks = hooks if hooks is not None else Hooks(game)
        self.intent = not literal
        self.notes: list[str] = []
        self.turn: tuple | None = None  # the turn of the mail's last move (None: the one open now)
        self.live = True  # is that turn still going on?
        self.ended_by: A.Action | None = None
        self.ended_why = ""  # why the turn ended by itself, when a rule says it (" (in phase 2 ...)")
        self.rest: list[Move] = []  # the mail's moves after the one being applied (set by the caller)
        self.more = False  # the mail's last line is 'more': the turn stays open after the mail
        self.required = ""  # what the turn still requires, when the end of the mail could not end it
        self.ended_implied = ""  # said when the end of the mail ended the turn (as if 'done')
        self.pending_end = ""  # the company whose turn the mail ended, once another player has acted in it
        self.said: A.Action | None = None  # the move being applied as the mail wrote it ('2+', not '2')

    # ------------------------------------------------------------------ the turn now
    def key(self) -> tuple:
        """Which turn is going on: (round, set, round number, whose turn)."""
        g = self.game
        s = g.state
        r = s.round
        if g.finished:
            return ("over",)
        if r.kind == "operating":
            return ("operating", s.turn, r.num, r.index, g._or_operator())
        return (r.kind, s.turn, r.num, g.current_entity())

    def _mine(self) -> bool:
        cur = self.game.current_entity()
        return cur is not None and self.game.controller(cur) == self.player

    def _after(self, act: A.Action) -> None:
        """After an action of the turn ``self.turn``: is that turn still going on?"""
        g = self.game
        if self.key() != self.turn:
            self.live = False
        elif g.state.round.kind == "stock" and not isinstance(act, A.Pass) and not g.state.round.turn_actions:
            self.live = False  # the turn ended by itself and the round came back to the same player
        else:
            self.live = True
        if not self.live and not isinstance(act, A.Pass):
            self.ended_by = act  # the turn ended by itself after this move: nothing more was allowed
            self.ended_why = ""
            corp = act.entity
            if corp in g.state.corporations and not g.state.corporations[corp].closed and not g._room(corp):
                self.ended_why = f" ({corp} may buy no train: {g.limit_reason(corp)})"  # at its train limit
            elif isinstance(act, A.BuyTrain) and act.seller is None and "limited_train_buy" in g.phase.status:
                # the rule only while trains of the type bought are left: after the last one 4.5.8 allows
                # the first of the next type (play-through s12: WMR bought the last 3 with its last dollar)
                nxt = next((t for t in g.state.trains.values() if t.owner == "depot"), None)
                if nxt is not None and nxt.name == act.train.split("-")[0]:
                    from pbm.e18xx.rounds.cite import see
                    from pbm.e18xx.phases import one_train_words

                    self.ended_why = (f" ({g.title.in_phase(g.state.phase)} "
                                      f"{one_train_words(g.title, g.title.word('train_bank'))}"
                                      f"{see(g.title, 'one_train_per_turn')})")

    def do(self, act: A.Action, note: str, added: bool = True) -> None:
        """Make ``act``, an action the turn as written makes (a pass for a step the mail skips, ...);
        ``added``: a move the mail did not write; a pass of that kind is marked so in the log (s16b-s17c:
        "#54 Di for ACL: pass" read as a pass Di had written; a loan or run made for the mail has its note)."""
        self.hooks.check(act)
        self.hooks.process(act)
        self.hooks.record(act, note, False, added=added and isinstance(act, A.Pass))

    def _make(self, act: A.Action, note: str, added: bool = True) -> None:
        self.do(act, note, added)
        self._after(act)

    # ------------------------------------------------------------------ moves
    def read(self, moves: list[Move]) -> list[Move]:
        """The mail's moves as they are made: a contribution line noted, not made (s13); read as
        intent, a home station written before the tile that gives it its city is made after it."""
        moves, contributed = without_contributions(self.game, moves)  # 'Bob contributes $350': noted
        if self.intent:  # 'token D4-1 / lay 451a D4 0'
            moves, self.notes = home_token_after_its_tile(self.game, self.player, moves)
        self.notes += contributed
        return moves

    def play(self, moves: list[Move]) -> None:
        """Every move of the mail in order (:meth:`move`); then, read as intent, the end of the mail
        ends the turn (:meth:`finish`), unless the mail ended with an offer."""
        for n, mv in enumerate(moves, 1):
            self.rest = moves[n:]
            self.move(n, mv)
            if self.hooks.offer is not None:
                return  # the moves after the offer wait for the owner's answer
        if self.intent:
            self.finish()

    def move(self, n: int, mv: Move) -> None:
        """Apply move number ``n`` of the mail (a parsed move, not yet re-addressed).  The one path
        of a mail's moves: the stored game's and the library's differ only by their ``hooks``."""
        g, hooks = self.game, self.hooks
        if g.finished and hooks.game_over(n, mv, self):
            return
        if isinstance(mv, PassRestOfRound):
            hooks.standing(n)
            return
        if isinstance(mv, RepayLoan):
            raise GameError(f"move {n} (repay loan): {repay_refusal(g, self.player)}")
        if self.intent and (isinstance(mv, (Done, More)) or (isinstance(mv, A.Pass) and mv.entity == self.player)):
            if isinstance(mv, Done):
                self.done(n)
            elif isinstance(mv, More):
                self.keep_open(n)
            else:  # a pass ends a step or the turn, or is ignored with a note
                self.pass_(n, for_game(g, self.player, mv))
            return
        written, mv = mv, for_game(g, self.player, mv)
        ended = self.ended_turn() if self.intent else None  # the turn ended by itself before this move
        if self.intent:
            if self.spare_after_end(n, written, ended):
                return  # a 'run auto' or dividend after the turn ended by itself: a note (s12 mail #132)
            self.said = written if isinstance(written, A.Action) else None
            try:
                self.begin(n, mv)  # the steps before the one that takes it are passed, if they may be
            except GameError as exc:
                raise self.after_end(n, written, mv, ended, exc) from None
            if self.nothing_to_do(n, mv):  # a 'run auto' with no route, a payout of nothing: a note
                return
        owner = hooks.consent(n, mv)
        try:
            hooks.check(mv)
            if self.intent:
                mv = self.waypoints(n, written, mv)  # a hex of plain track named: passed through, noted
            mv = hooks.prepare(mv)
            note = unused_discount(g, mv)  # a private's train discount left unused: said
            if isinstance(mv, A.Bid):
                mv, note = hooks.bid(mv)
                # a purchase read as the sale's bid: 'buy P1', 'buy P2 for £70', 'buy The Ghan' (its name read
                # first as the 2E train; 1848 s17b mail 003, whose reply said only "bid 170 P4")
                note = note or (purchase_words(g, mv) if isinstance(written, (A.BuyShares, A.BuyCompany, A.BuyTrain))
                                else "")
            terms = hooks.terms(n, mv, owner, self) if owner else {}
            try:
                hooks.process(mv)  # an offer too: it must be legal now
            except GameError as weaker:
                swap = best_run_instead(g, n, written, mv, weaker)
                if swap is None:
                    raise
                mv, note = swap  # weaker routes: the best ones run instead, said in the reply
                hooks.process(mv)
                if self.intent:
                    self.notes.append(note)
        except GameError as exc:
            if isinstance(mv, A.RunRoutes) and mv.routes:  # the player's words, not 4-1 and D7-0
                said = run_as_written(g, written if isinstance(written, A.RunRoutes) else mv)
                refused = GameError(f"move {n} ({said}): {plain_route_ids(g, mv.entity, str(exc))}")
            else:
                refused = GameError(f"move {n} ({format_action(mv)}): {exc}{discount_hint(g, mv, exc)}")
            raise (self.after_end(n, written, mv, ended, refused) if self.intent else refused) from None
        if owner:
            hooks.offered(mv, owner, terms)
            return
        hooks.record(mv, note, True)
        if self.intent:
            self.end(mv)

    def waypoints(self, n: int, written: Move, mv: A.Action) -> A.Action:
        """``mv`` without the hexes of plain track its routes name (``waypoints``), noted."""
        mv, said = waypoints(self.game, mv)
        self.notes.extend(f"move {n} ({format_action(written)}): {x}" for x in said)
        return mv

    def spare_after_end(self, n: int, written: Move, ended: A.Action | None) -> bool:
        """A ``run auto``, ``payout`` or ``withhold`` written after the company's turn ended by itself
        (its trains had no route, its revenue of 0 was withheld by itself: 3.2, 4.5.5, 4.5.6), while
        the next turn is another player's: nothing is left to do, so the move is ignored with a
        note as a spare ``pass`` is, not refused (issue 29 problem 1; play-through s11v, 18VA mails
        #77 and #102: "WMR's turn ended by itself after 'lay 9 C6 0', so this move would be VR's")."""
        g = self.game
        # the player's own next turn counts as another's when it is a stock turn, where a run or a
        # dividend means nothing (s12v mail #154: VR's 'payout' "would be Ann's in the stock round");
        # before another company of the same president the move is still refused, saying why
        if ended is not None and ended.entity in g.state.corporations \
                and g.state.corporations[ended.entity].receivership and isinstance(written, OR_TYPES):
            # the company was taken over by the Bank of England during the mail (1848 5.5.1: at once):
            # the rest of the mail was its turn, which is over; a train it had to buy is not bought
            # (8.4.2) - a note, not a refusal (play-through s13 F6: "FT's turn ended by itself after
            # 'take loan', so this move would be CAR's", not saying why)
            self.notes.append(f"move {n} ({format_action(written)}): nothing to do - {ended.entity} went into "
                              f"receivership after '{format_action(ended)}' (rule 5.5.1), so its turn is over and "
                              "a train it had to buy is not bought (rule 8.4.2); ignored")
            return True
        if ended is None or ended.entity not in g.state.corporations \
                or (self._mine() and g.current_entity() in g.state.corporations):
            return False
        if not (isinstance(written, A.RunRoutes) and written.auto) and not isinstance(written, A.Dividend):
            return False
        self.notes.append(f"move {n} ({format_action(written)}): nothing to do - {ended.entity}'s turn had "
                          f"already ended by itself after '{action_words(g, ended)[1]}'{self.ended_why}; ignored")
        return True

    def ended_turn(self) -> A.Action | None:
        """The move after which the mail's turn ended by itself, if it has (before the next move)."""
        return self.ended_by if self.turn is not None and not self.live else None

    def after_end(self, n: int, written: Move, mv: Move, ended: A.Action | None, exc: GameError) -> GameError:
        """The refusal of move ``n``: a company move after the company's turn ended by itself says so
        and why, not only why the next turn (another round, perhaps) refuses it (play-through s10
        finding 1: "Cy may not buy a train now; allowed: buy a share ...")."""
        g = self.game
        # a private's ability ('use P3') is the company's move too (play-through s11v mail #67: "VR may
        # not use a private's ability with P3 now", VR being the next company, another player's)
        if ended is None or not isinstance(written, OR_TYPES + (A.UseAbility, A.Assign)) \
                or ended.entity not in g.state.corporations or getattr(mv, "entity", None) == ended.entity:
            return exc
        why = str(exc).split("): ", 1)[-1] if str(exc).startswith(f"move {n} (") else str(exc)
        said = self.ended_why  # the limit said once: the engine's refusal says it too (play-through s11)
        if f"{ended.entity}'s turn ended when it reached its train limit" in why:
            said = ""
        return GameError(f"move {n} ({format_action(written)}): {ended.entity}'s turn ended by itself after "
                         f"'{format_action(ended)}'{said}, so this move would be "
                         f"{g.current_entity() or getattr(mv, 'entity', '')}'s in {self._round_words()}: {why}")

    def begin(self, n: int, mv: A.Action) -> None:
        """Before move ``n`` (re-addressed): it belongs to the turn open now; the steps before the
        one that takes it are passed where the rules allow."""
        self.turn, self.live = self.key(), True
        self.make_way(n, mv)
        self.forced_loan(n, mv)
        self.turn = self.key()

    def forced_loan(self, n: int, mv: A.Action) -> None:
        """A train the company must buy from the bank and cannot pay (1848 8.4.1: it "may/must raise
        the money by taking out loans"): the engine wants the round's ordinary loan taken first, as
        its own move (5.6.2: it moves the price less); the mail need not write it (play-through s12)."""
        g = self.game
        corp = mv.entity
        if not isinstance(mv, A.BuyTrain) or mv.seller is not None or g.state.round.kind != "operating" \
                or corp not in g.state.corporations or not (g.title.data.get("loans") or {}).get("forced_train_loans"):
            return
        try:
            if not g._must_buy_train(corp) or not g.can_take_loan(corp) or "take_loan" not in g.or_actions(corp):
                return
            train = next((t for t in g.state.trains.values() if t.owner == "depot"
                          and mv.train in (t.tid, t.name, t.variant)), None)
            if train is None or g.variant_price(train, mv.variant) <= g.state.cash[g.state.corporations[corp].key]:
                return
        except (GameError, KeyError, AttributeError):
            return
        self._make(A.TakeLoan(corp), f"{corp} must buy a train and lacks the money: it takes its loan for this "
                                     f"round first, then the loans the purchase needs (before move {n}, "
                                     f"{format_action(mv)})")

    def nothing_to_do(self, n: int, mv: A.Action) -> bool:
        """A ``run auto`` of a company that owns no train or whose trains have no route, or a
        ``payout``/``withhold`` after a run that earned nothing: the rules leave nothing to do (the run step was skipped,
        the revenue of 0 was withheld by itself), so the move is ignored with a note rather than
        refused (issue 29; rulings-<title>.md, 4.2.3).  Named routes are not: the refusal says why."""
        g = self.game
        if g.state.round.kind != "operating" or g.finished:
            return False
        if self.loan_in_purchase(mv):
            self.notes.append(f"move {n} (take loan): {mv.entity} has taken this round's loan; the further loans "
                              "it needs to buy the train it must buy are taken with the purchase (rule 8.4.1, "
                              "5.6.3); ignored")
            return True
        step, corp = g.open_step()
        if isinstance(step, Interrupt) or corp is None or mv.entity != corp or mv.type in g.or_actions(corp):
            return False
        r = g.state.round
        if isinstance(mv, A.RunRoutes) and mv.auto and not r.ran \
                and (not g.corp_trains(corp) or not g._can_run_route(corp)):  # no train, or no route
            why = g.route_step_refusal(corp) or f"{corp}'s trains have no route"
            self.notes.append(f"move {n} (run auto): {why}; the run is skipped")
            return True
        if isinstance(mv, A.Dividend) and "dividend" in r.steps_done and not r.revenue:
            what = "its trains ran for 0" if r.ran else "it made no run"
            self.notes.append(f"move {n} ({format_action(mv)}): nothing to pay out - {what}, so its revenue of 0 "
                              "was withheld by itself; ignored")
            return True
        return False

    def end(self, mv: A.Action) -> None:
        """After move ``mv`` was applied."""
        self._after(mv)

    def pass_(self, n: int, mv: A.Action) -> None:
        g = self.game
        if g.finished and self.turn is not None:  # the mail's moves ended the game
            self.notes.append(f"move {n} (pass): nothing left to pass - the game is over; ignored")
            return
        first = self.turn is None  # the mail's first move
        if first:
            self.turn, self.live = self.key(), True
        if first and not self._mine():
            pass  # not the mover's turn at all: the engine refuses the pass ("it is not Ann's turn")
        elif not self.live:
            self.notes.append(f"move {n} (pass): nothing left to pass - {self._ended()}; ignored")
            return
        elif not self._mine():
            self.notes.append(f"move {n} (pass): ignored - {self._waiting()}")
            return
        if g.state.round.kind == "operating":
            step, who = g.open_step()
            if not isinstance(step, Interrupt) and who == mv.entity and "pass" not in g.or_actions(who):
                self.notes.append(f"move {n} (pass): nothing to pass - the open step, {step_words(g, step)}, "
                                  "may not be skipped; ignored")
                return
            if not isinstance(step, Interrupt) and who == mv.entity and self._spare_pass(n, step, who):
                return
            what = step_words(g, step) if step is not None else "the step"
            try:
                self._make(mv, f"ends {what}", added=False)
            except GameError as exc:
                raise GameError(f"move {n} (pass): {exc}") from None
            return
        try:
            self._make(mv, "ends the turn", added=False)
        except GameError as exc:
            raise GameError(f"move {n} (pass): {exc}") from None

    def _spare_pass(self, n: int, step, corp: str) -> bool:
        """A ``pass`` (move ``n``) right before a move that the open step itself takes: the step the
        pass was meant for had nothing to do and was gone by itself (4.2.2 with no place for a
        station), so passing the open step would throw the next move away.  Note it as ignored
        and return True (issue 29 problem 1; play-through s11v finding 1)."""
        g = self.game
        for k, later in enumerate(self.rest, n + 1):
            if isinstance(later, A.Pass):
                continue  # 'pass / pass / buy train 5': each pass looks past the others
            if isinstance(later, (Done, More)) or not isinstance(later, A.Action):
                return False
            try:
                nxt = for_game(g, self.player, later)
            except GameError:
                return False
            if getattr(nxt, "entity", None) != corp or nxt.type == "pass" or nxt.type not in g.or_actions(corp):
                return False
            self.notes.append(f"move {n} (pass): ignored - the open step, {step_words(g, step)}, is the one "
                              f"move {k} ({format_action(nxt)}) belongs to (the step before it had nothing "
                              "to do and was passed by itself)")
            return True
        return False

    def done(self, n: int) -> None:
        """End the turn of the mail's last move (or the turn open now)."""
        if self.game.finished and self.turn is not None:  # the mail's moves ended the game (18AL s12 #175)
            self.notes.append(f"move {n} (done): nothing to end - the game is over")
            return
        first = self.turn is None
        if first:
            self.turn, self.live = self.key(), True
        if first and not self._mine():
            raise GameError(f"move {n} (done): {self._not_yours()}")
        if not self.live:
            self.notes.append(f"move {n} (done): nothing to end - {self._ended()}")
            return
        if not self._mine():
            self.notes.append(f"move {n} (done): not yet - {self._waiting()}; end the turn with 'done' then")
            return
        self._end_turn(n)

    def _end_turn(self, n: int, implied: bool = False) -> bool:
        """Pass every step left in the turn ``self.turn`` where the rules let the president skip it
        (``done``, move ``n``; or ``implied``: the end of a mail without ``more``). A step that may
        not be skipped refuses a written ``done``; at the end of a mail it keeps the turn open and
        a note says what is still required and what to write (issue 29). True if the turn ended."""
        g = self.game
        said = "the end of your mail" if implied else f"move {n} (done)"
        tag = "(as if 'done': the end of your mail)" if implied else "(done)"
        whose = self.turn[-1] if self.turn[0] == "operating" else "your"
        for _ in range(64):
            if not self.live or g.finished:
                break
            if g.state.round.kind != "operating":
                ent = g.current_entity()
                try:
                    self._make(A.Pass(ent), f"ends the turn {tag}")  # type: ignore[arg-type]
                except GameError as exc:
                    if implied:  # a stock turn that may not end yet (a holding over a limit to sell, say)
                        self.required = (f"Your stock turn is not over: it may not end yet ({exc}); write what "
                                         "it still needs in your next mail")
                        return False
                    raise GameError(f"{said}: {exc}") from None
                continue
            step, who = g.open_step()
            corp = self.turn[-1]
            if isinstance(step, Interrupt) or who != corp:
                if who is not None and g.controller(who) != self.player:
                    if implied:  # the end of the mail ends the turn once that player has acted (s13v F1)
                        self.pending_end = corp
                        return False
                    self.notes.append(f"{said}: not yet - {self._waiting()}; end the turn with 'done' then")
                    return False
                extra = ""
                if step.name == "discard_train" and who in g.state.corporations:
                    from pbm.e18xx.rounds.step import discard_words
                    extra = f": {discard_words(g, who)} before 'done'"
                if implied:
                    self.required = (f"{corp}'s turn is not over: {who} must first {step_words(g, step)}{extra}; "
                                     f"write it in your next mail")
                    return False
                raise GameError(f"move {n} (done): {corp}'s turn cannot end yet: {who} must first "
                                f"{step_words(g, step)}{extra}")
            if step.name == "home_token":
                try:
                    if self.owed_home(n, "done", step, corp):
                        continue
                except GameError as exc:
                    if not implied:
                        raise
                    self.required = f"{corp}'s turn is not over: {str(exc).split('): ', 1)[-1]}"
                    return False
            if "pass" not in g.or_actions(corp) and step.name == "route" and self._earns_nothing(corp):
                # the best run earns nothing: the rules leave nothing to choose (play-through s12 mail #134)
                self._make(A.RunRoutes(corp, auto=True), f"{corp}'s trains have no route that earns anything, "
                                                          f"so they run for nothing {tag}")
                continue
            if "pass" not in g.or_actions(corp):
                if implied:
                    self.required = (f"{corp}'s turn is not over: {step_words(g, step)} may not be skipped"
                                     f"{_why_required(g, step, corp)}; write {self._example(step, corp)} in your "
                                     f"next mail ({corp} may now {plain_list(g.or_actions(corp))}; that mail "
                                     "ends the turn unless its last line is 'more')")
                    return False
                raise GameError(f"move {n} (done): {corp}'s turn cannot end yet: {step_words(g, step)} may not "
                                f"be skipped{_why_required(g, step, corp)}; {corp} may now "
                                f"{plain_list(g.or_actions(corp))}")
            self._make(A.Pass(corp), f"{self._skips(step, corp)} {step_words(g, step)} {tag}")
        if implied:
            return True
        self.notes.append(f"move {n} (done): {whose}'s turn is over" if whose != "your" else
                          f"move {n} (done): your turn is over")
        return True

    def _example(self, step, corp: str) -> str:
        """The line(s) a player writes for the required ``step`` of ``corp`` (``'run auto'``,
        ``'buy train 3'``), for the reply of a mail that left it undone."""
        from pbm.e18xx.pbem.movelist import say

        g = self.game
        if step.name == "route":
            return "the routes ('run <train> <stop> <stop> ...') or 'run auto'"
        if step.name == "dividend":
            return "'payout' or 'withhold'"
        lines = []
        for a in g.legal_actions():
            if getattr(a, "entity", None) != corp or isinstance(a, A.Pass):
                continue
            line = say(g, a).split("#")[0].strip()
            if line and line not in lines:
                lines.append(line)
        if not lines:
            return "the move"
        return " or ".join(f"'{x}'" for x in lines[:3]) + (" (or another listed move)" if len(lines) > 3 else "")

    def keep_open(self, n: int) -> None:
        """``more`` (move ``n``): the turn stays open after the mail; only as the mail's last line."""
        if any(not isinstance(m, More) for m in self.rest):
            raise GameError(f"move {n} (more): 'more' goes on the mail's last line (it keeps your turn open "
                            "after the mail); move it there or leave it out")
        self.more = True

    def finish(self) -> None:
        """The end of a mail (issue 29: a mail is the whole turn): when the mail made a move in the
        turn still going on, that turn ends as if ``done`` had been written -- the steps left are
        passed where the rules let the president skip them -- unless the mail's last line was
        ``more``.  A step that may not be skipped keeps the turn open and the reply says what is
        still required.  Operating and stock turns only (a bid in the sale of the privates ends
        its turn by itself; a pass there would give up the sale)."""
        g = self.game
        if self.more or self.turn is None or not self.live or g.finished or self.key() != self.turn:
            return
        if self.turn[0] == "operating" and not self._mine():
            step, who = g.open_step()
            if who is not None and who != self.turn[-1] and g.controller(self.turn[-1]) == self.player:
                self.pending_end = self.turn[-1]  # ends once the other player has acted in it (s13v F1)
            return
        if self.turn[0] not in ("operating", "stock") or not self._mine():
            return
        if self.turn[0] == "stock" and not g.state.round.turn_actions:
            return  # nothing done in the stock turn yet (a refused or ignored move): nothing to end
        whose = f"{self.turn[-1]}'s" if self.turn[0] == "operating" else "Your stock"
        if self._end_turn(0, implied=True):
            self.ended_implied = f"{whose} turn ended with your mail (as if 'done'); end a mail with 'more' to " \
                                 "keep a turn open."

    def _written(self, mv: A.Action) -> str:
        """Move ``mv`` as the mail wrote it: a route of a 2+ train says '2+' (play-through s13v F5:
        "(before move 3, run 2 F17 E18; 2 F17 F15)" for the mail's '2+ F17 F15')."""
        said = self.said
        return run_as_written(self.game, said if said is not None and type(said) is type(mv) else mv)

    def _earns_nothing(self, corp: str) -> bool:
        """Does ``corp``'s best run earn nothing (its trains reach no second stop that pays)?"""
        g = self.game
        try:
            total, _chosen = g.best_run(corp)
        except GameError:
            return False
        return not total

    def _skips(self, step, corp: str) -> str:
        """``skips``, or ``ends`` when the company already did the step's move this turn (a pass after
        its tile lay: the step stays open for a private's lay; play-through s11, "pass - skips 'Lay or
        upgrade one tile'" right after the lay)."""
        takes = set(getattr(step, "takes", ()) or ()) - {"pass"}
        # after a move of the step, even where more were allowed (a second train, 1848's second yellow
        # tile), the pass ends the step: "skips 'Buy trains'" right after a purchase read as if the
        # company had bought none (play-throughs s16: 18GA, 18VA and 18AL each noted it)
        companies = self.game.state.companies
        for a in reversed(self.game.actions):
            if a.entity != corp and not (a.entity in companies and companies[a.entity].owner == f"C:{corp}"):
                break
            if a.type in takes:
                return "ends"
        return "skips"

    def loan_in_purchase(self, mv: A.Action) -> bool:
        """A ``take loan`` the company may not take now (this round's loan is taken) while it must buy
        a train from the bank: the further loans are the purchase's (1848 8.4.1: it "may/must raise the
        money by taking out loans until either it has enough cash ... or its share price falls into the
        receivership part"; 5.6.3), which the purchase takes as it needs them (play-through s13 F5:
        'take loan / take loan / buy train 8' was refused "COM must first 'Buy trains'")."""
        g = self.game
        corp = getattr(mv, "entity", None)
        if not isinstance(mv, A.TakeLoan) or g.state.round.kind != "operating" or corp not in g.state.corporations \
                or not (g.title.data.get("loans") or {}).get("forced_train_loans"):
            return False
        try:
            return g.current_entity() == corp and "take_loan" not in g.or_actions(corp) and g._must_buy_train(corp)
        except (GameError, KeyError, AttributeError):
            return False

    def make_way(self, n: int, mv: A.Action) -> None:
        """Pass the steps before the one that takes ``mv``, if the rules let them be skipped."""
        g = self.game
        if g.state.round.kind != "operating" or self.loan_in_purchase(mv):
            return
        step, corp = g.open_step()
        if isinstance(mv, A.BuyCompany) and corp is not None and mv.entity == corp \
                and not isinstance(step, Interrupt) and mv.type not in g.or_actions(corp):
            # not allowed in this phase at all: no step to pass for it (other reasons: the engine's, in order)
            why = g.company_buy_refusal(corp, mv) if "can_buy_companies" not in g.phase.status else None
            if why:
                raise GameError(f"move {n} ({format_action(mv)}): {why}")
        # a president's sale is his company's train step's (4.6.2 and the like: emergency money)
        mover = corp if isinstance(mv, A.SellShares) and corp is not None and not isinstance(step, Interrupt) \
            and mv.entity == g.president(corp) else mv.entity
        for _ in range(len(g.or_steps) + 1):
            step, corp = g.open_step()
            if step is None or isinstance(step, Interrupt) or corp is None:
                return
            if mover != corp and mv.entity not in g.state.companies:
                return
            if mv.type in g.or_actions(mv.entity):
                return
            if not self._later_takes(step, mv.type):
                return  # no later step takes it: the engine says why
            if step.name == "home_token" and self.owed_home(n, format_action(mv), step, corp):
                continue
            if "pass" not in g.or_actions(corp) and self.empty_run(step, corp):
                # a required run whose trains reach no paying route (1848: only a 2E with no track to
                # its off-board): nothing to choose, so it is made, earning nothing (play-through s12)
                self._make(A.RunRoutes(corp, auto=True),
                           f"{step_words(g, step)}: {corp}'s trains have no route, so they earn nothing "
                           f"(before move {n}, {self._written(mv)})")
                continue
            if "pass" not in g.or_actions(corp):
                raise GameError(f"move {n} ({format_action(mv)}): {corp} must first {step_words(g, step)}; "
                                f"that step may not be skipped{_why_required(g, step, corp)} ({corp} may now "
                                f"{plain_list(g.or_actions(corp))})")
            self._make(A.Pass(corp), f"{self._skips(step, corp)} {step_words(g, step)} (before move {n}, "
                                     f"{self._written(mv)})")
            if not self.live:
                raise GameError(f"move {n} ({format_action(mv)}): {corp}'s turn ended before it: "
                                f"{self._ended()}")

    def empty_run(self, step, corp: str) -> bool:
        """Is ``step`` the run of ``corp``, whose trains have no route that earns anything?"""
        g = self.game
        if step.name != "route" or "run_routes" not in g.or_actions(corp) or g.state.round.ran:
            return False
        try:
            total, chosen = g.auto_routes(corp)
        except GameError:
            return False
        return not total and not chosen

    def owed_home(self, n: int, what: str, step, corp: str) -> bool:
        """The open step is the home station the company is owed (it may not be skipped) and the
        mail goes on to a later step: with exactly one place for it, place it there for the
        player (the reply says so) and return True; with a choice, refuse naming the choices as
        the lines to write (issue 29, play-through item 7)."""
        from pbm.e18xx.pbem.movelist import say

        g = self.game
        choices = [a for a in g.legal_actions() if isinstance(a, A.PlaceToken) and a.entity == corp]
        if len(choices) == 1:
            where = say(g, choices[0]).split("#")[0].strip().removeprefix("token ")
            act = A.PlaceToken(corp, where, choices[0].slot)  # as the player would write it (D4-1)
            self._make(act, f"places {corp}'s home station in {where}: {step_words(g, step)}, "
                                   f"the only place for it (before move {n}, {what})")
            return True
        if not choices:
            return False  # the engine's refusal says why
        lines = ", ".join(f"'{line.split('#')[0].strip()}'" + (f" ({line.split('#', 1)[1].strip()}"
                                                               f"{_leads(g, line.split('#')[0])})" if "#" in line else "")
                          for line in (say(g, a) for a in choices))
        raise GameError(f"move {n} ({what}): {corp} must first {step_words(g, step)}, and there is a choice: "
                        f"write one of these lines before it: {lines}")

    def _later_takes(self, step, kind: str) -> bool:
        g = self.game
        steps = list(g.or_steps)
        done = g.state.round.steps_done
        at = next((i for i, s in enumerate(steps) if s is step), None)
        if at is None:
            return False
        return any(kind in s.takes and s.name not in done for s in steps[at + 1:])

    # ------------------------------------------------------------------ words
    def _waiting(self) -> str:
        """Someone else must act inside the turn first (a company over its train limit, say)."""
        g = self.game
        step, who = g.open_step()
        ctl = g.controller(who) if who else "nobody"
        whose = self.turn[-1] if self.turn and self.turn[0] == "operating" else "your"
        then = ("ends after that (your mail ended it, as if 'done')" if self.pending_end
                else "goes on after that")
        return (f"{who} ({ctl}) must first {step_words(g, step) if step is not None else 'act'}; "
                f"{whose}{chr(39) + 's' if whose != 'your' else ''} turn {then}")

    def _not_yours(self) -> str:
        g = self.game
        ent = g.current_entity()
        who = g.controller(ent) if ent else None
        return (f"it is not {self.player}'s turn: {ent if who == ent else f'{who} for {ent}'} must act"
                if ent else "the game is over")

    def _round_words(self) -> str:
        kind = self.game.state.round.kind
        return {"auction": "the private sale", "stock": "the stock round", "operating": "the operating round"}.get(
            kind, kind)

    def _ended(self) -> str:
        key = self.turn or self.key()
        if key[0] == "operating":
            return f"{key[-1]}'s turn had already ended"
        return "your turn had already ended"

    def summary(self) -> list[str]:
        """How the turn stands after the mail: it goes on (and what is open), or it is over."""
        g = self.game
        if g.finished:
            return ["The game is over."]
        now = g.what_now()
        ent = now.get("entity")
        rnd = self._round_words()
        out = []
        if self.ended_by is not None:
            whose = "Your turn" if self.ended_by.entity == self.player else f"{self.ended_by.entity}'s turn"
            out.append(f"{whose} ended by itself after '{action_words(g, self.ended_by)[1]}'{self.ended_why}: nothing "
                       "more was allowed in it.")
        if self.ended_implied:
            out.append(self.ended_implied)
        if self.required:
            out.append(self.required + ".")
        if ent and g.controller(ent) != self.player and self.live and self.turn == self.key() \
                and self.turn[0] == "operating":
            return out + [f"The turn is not over: {self._waiting()}."]
        if not ent or g.controller(ent) != self.player:
            who = ent if not ent or g.controller(ent) == ent else f"{g.controller(ent)} for {ent}"
            return out + [f"Your turn is over; next to act: {who} ({rnd})."]
        step, _who = g.open_step()
        kinds = list(now.get("actions") or [])
        if {"lay_tile", "place_token"} & set(kinds):  # a step open with nothing to lay or place: not offered
            listed = {a.type for a in g.legal_actions()}  # (play-through s11: "B&O may lay ...", list: pass)
            kinds = [k for k in kinds if k not in ("lay_tile", "place_token") or k in listed]
        allowed = plain_list(kinds)
        goes_on = self.live and self.turn is not None and self.key() == self.turn
        if goes_on and self.required:
            return out  # the required step and the line to write: said once
        if not goes_on:
            who = "your" if ent == self.player else f"{ent}'s"
            return out + [f"Next: {who} turn in {rnd} ({step_words(g, step)}): "
                          f"{'you' if ent == self.player else ent} may {allowed}."]
        kept = " ('more')" if self.more else ""
        if g.state.round.kind == "operating":
            return out + [f"{ent}'s turn goes on{kept}: the open step is {step_words(g, step)}; {ent} may "
                          f"{allowed}. Send the rest of the turn: your next mail ends it (as if 'done') unless "
                          "its last line is 'more'."]
        if g.state.round.kind == "stock" and g.state.round.turn_actions:
            return out + [f"Your stock turn goes on{kept} ({step_words(g, step)}): you may still {allowed}. "
                          "Your next mail ends it (as if 'done') unless its last line is 'more'."]
        sym = getattr(g.state.round, "auctioning", None) if g.state.round.kind == "auction" else None
        if sym:  # the auction a purchase set off is a turn of its own (18AL/18GA 3.1.1; play-through s12)
            from pbm.e18xx.rounds.cite import see
            high = getattr(g.state.round, "high", None)
            bids = sorted(a.price for a in g.legal_actions() if isinstance(a, A.Bid) and a.company == sym)
            said = f"the high bid is {high.player}'s {g.title.money(high.price)}; " if high else ""
            more = f"bid more (at least 'bid {bids[0]} {sym}') or pass" if bids else "pass"
            return out + [f"Now the auction of {sym}{see(g.title, 'auction_bid')}, a turn of its own "
                          f"(its bidders only): {said}you may {more}."]
        return out + [f"Your turn goes on ({step_words(g, step)}): you may {allowed}."]


def waypoints(game: "Game", act: A.Action) -> tuple[A.Action, list[str]]:
    """A route naming a hex of plain track it passes through (``run 2 G8 H7 G6``, H7 no city, town or
    off-board): the hex is a waypoint, not a stop (and a town the route passes between two named stops
    is added: ``towns_between``). pbm runs a route by its stops, so the hex is
    dropped from the route and the reply says so; the route is refused only when no route through
    its stops passes through the hex (issue 29, play-through s12 18AL #55). Returns the run without
    its waypoints and the notes (``H7 is passed through, not a stop ...``)."""
    from dataclasses import replace

    if not isinstance(act, A.RunRoutes) or not act.routes:
        return act, []
    m = game.state.map
    out, notes = [], []
    for spec in act.routes:
        keep, passed = [], []
        for w in spec.nodes:
            coord = str(w).upper()
            try:
                plain = coord in m.placed and not m.tile(coord).nodes and bool(m.tile(coord).paths)
            except (KeyError, AttributeError):
                plain = False
            (passed if plain else keep).append(coord if plain else w)
        if not passed or len(keep) < 2:
            out.append(spec)
            continue
        spec2 = replace(spec, nodes=tuple(keep))
        label = game.train_label(spec.train) if spec.train in game.state.trains else spec.train
        missed = _not_passed(game, act.entity, spec2, passed)
        if missed:
            raise GameError(f"train {label}: {', '.join(missed)} {'is' if len(missed) == 1 else 'are'} plain track "
                            f"(no city, town or off-board to stop at), and no route from "
                            f"{' - '.join(keep)} passes through {'it' if len(missed) == 1 else 'them'}; a route "
                            "names its stops (a hex it passes through may be named too)")
        notes.append(f"{', '.join(passed)} {'is' if len(passed) == 1 else 'are'} passed through, not a stop (plain "
                     f"track): train {label} runs {' - '.join(keep)}")
        out.append(spec2)
    act, towns = towns_between(game, replace(act, routes=tuple(out)))  # a town between named stops: added
    return act, notes + towns


def towns_between(game: "Game", act: A.RunRoutes) -> tuple[A.RunRoutes, list[str]]:
    """A route naming its cities but not a town its only track passes between two of them
    (``run 3 Birmingham Gadsden Chattanooga``, the town C6 Stevenson on the track from Gadsden to
    Chattanooga): towns do not count toward a train's length (18AL 4.2.3(i)), so a player names
    the cities; each such town is added to the route and the reply says so (play-through s15, 18AL
    mail #99: "no track joins them without another stop between"). Only where the stops are joined by
    one way through towns alone; otherwise the route is left as written, for the engine to judge."""
    from dataclasses import replace

    try:
        written = game.written_routes(act).routes
        graph = game.graph()
    except Exception:  # noqa: BLE001 - a route the engine refuses: its refusal says why
        return act, []
    m = game.state.map
    names = game.title.data.get("location_names", {})

    def shown(h: str) -> str:  # a stop as the map and the mails name it: 'C6 Stevenson' (s17 mail 36)
        return f"{h} {names[h]}" if names.get(h) else h

    out, notes = [], []
    for spec, done in zip(act.routes, written):
        keys = [(h, int(i)) for h, _, i in (str(n).rpartition("-") for n in done.nodes)]
        nodes, added, stops = [done.nodes[0]], [], [shown(keys[0][0])]
        for a, b, name in zip(keys, keys[1:], done.nodes[1:]):
            chain = [] if any(s.b == b for s in graph.segments(a)) else _town_chain(graph, m, a, b, set(keys))
            nodes += [f"{h}-{i}" for h, i in chain or ()]
            stops += [shown(h) for h, _ in chain or ()]
            added += chain or []
            nodes.append(name)
            stops.append(shown(b[0]))
        if not added:
            out.append(spec)
            continue
        said = ", ".join(shown(h) for h, _ in added)
        label = game.train_label(spec.train) if spec.train in game.state.trains else spec.train
        notes.append(f"{said} ({'a town' if len(added) == 1 else 'towns'}) on the only track between the stops you "
                     f"named {'is' if len(added) == 1 else 'are'} a stop of the route too: train {label} runs "
                     f"{' - '.join(stops)}")
        out.append(replace(spec, nodes=tuple(nodes)))
    return replace(act, routes=tuple(out)), notes


def _town_chain(graph, m, a, b, named: set, depth: int = 3) -> list | None:
    """The towns, in order, on the one way of track from stop ``a`` to stop ``b`` that passes towns
    alone (none of them ``named``); None when there is no such way or more than one."""
    found: list[list] = []

    def walk(at, path):
        for s in graph.segments(at):
            if s.b == b:
                if path:
                    found.append(path)
                continue
            if len(path) >= depth or s.b in named or s.b in path:
                continue
            try:
                town = m.tile(s.b[0]).nodes[s.b[1]].kind == "town"
            except (KeyError, IndexError, AttributeError):
                town = False
            if town:
                walk(s.b, [*path, s.b])

    walk(a, [])
    ways = {tuple(p) for p in found}
    return list(ways.pop()) if len(ways) == 1 else None


def _not_passed(game: "Game", corp: str, spec: A.RouteSpec, hexes: list[str]) -> list[str]:
    """The hexes of ``hexes`` that no legal route of ``spec``'s train through its stops passes
    through (empty when the stops name no route: the engine's refusal then says why)."""
    from pbm.e18xx.routes import all_routes, node_keys, route_candidates

    try:
        nodes = game.written_routes(A.RunRoutes(corp, (spec,))).routes[0].nodes
        train = game.state.trains[spec.train]
        graph = game.graph()
        pool = all_routes(graph, corp, train.distance, game.route_colors(), only=node_keys(nodes), complete=True)
        routes = route_candidates(pool, nodes, train.distance)
    except Exception:  # noqa: BLE001 - a route the engine refuses: its refusal says why
        return []
    if not routes:
        return []
    hex_of = {bit: key[0] for key, bit in graph.side_bits.items()}
    through: set[str] = set()
    for r in routes:
        through |= {hex_of[b] for b in range(r.mask.bit_length()) if r.mask >> b & 1 and b in hex_of}
    return [h for h in hexes if h not in through]


def _discount_unused(game: "Game", act: A.Action) -> tuple[str, int, str] | None:
    """A train bought from the bank without 'with <private>' while the company owns a private that
    would take something off it (18AL New Decatur Yards, 18VA Tredegar): (the private, the sum
    off, the train's name), else None."""
    from pbm.e18xx.rounds.or_trains import discount_off

    if not isinstance(act, A.BuyTrain) or act.seller is not None or act.entity not in game.state.corporations:
        return None
    s = game.state
    depot = game._depot_trains()
    tid = act.train if act.train in s.trains else next((t for t in depot if s.trains[t].name == act.train), None)
    if tid is None or tid not in depot:
        return None
    for comp in sorted(s.companies.values(), key=lambda c: c.sym):
        ab = game.company_ability(comp.sym, "train_discount")
        if not ab or game._owned_by_operator(comp.sym) != act.entity:
            continue
        if ab.get("trains") and s.trains[tid].name not in ab["trains"]:
            continue
        off = discount_off(ab, s.trains[tid].price)
        if off:
            return comp.sym, off, s.trains[tid].name
    return None


def unused_discount(game: "Game", act: A.Action) -> str:
    """A train bought from the bank at full price while the company owns a private that would take
    something off it (used only when written 'with <private>'): a note saying so, else ""
    (play-through s10 finding 8: ABC paid $180 with NDY unused, unsaid)."""
    found = _discount_unused(game, act)
    if not found:
        return ""
    sym, off, name = found
    return (f"bought at the full price: {sym}'s {game.title.money(off)} off was not used "
            f"(write 'buy train {name} with {sym}' to use it)")


def discount_hint(game: "Game", act: A.Action, exc: Exception) -> str:
    """For a train purchase refused for want of money while the company owns a private that takes
    something off it: how to use the private (``; NDY takes $150 off: write 'buy train 4 with
    NDY'``), else "" (play-through s11v finding 2: "L&N has $222, the train costs $300", NDY
    unsaid, and 'buy train 4 using NDY' refused next)."""
    from pbm.e18xx.core.errors import InsufficientFunds

    found = _discount_unused(game, act) if isinstance(exc, InsufficientFunds) else None
    if not found:
        return ""
    sym, off, name = found
    return f"; {sym} takes {game.title.money(off)} off it: write 'buy train {name} with {sym}'"


def home_token_after_its_tile(game: "Game", player: str, moves: list[Move]) -> tuple[list[Move], list[str]]:
    """A home station written before the tile that gives it its city (``token D4-1 / lay 451a D4 0``,
    the rulebook's order: 18GA/18AL 4.2(a) the home station, then 4.2.1 the tile): the company's
    station waits on the printed hex without track (its city is chosen when the hex's first tile is
    laid, 4.2.1(h)), so the ``token`` line is taken right after that lay, with a note (play-through
    s12, mail #34: refused "W&A already has a station in D4").  Returns the moves and the notes."""
    import re

    g = game
    corp = g.current_entity()
    if g.state.round.kind != "operating" or corp not in g.state.corporations or g.controller(corp) != player:
        return moves, []
    m = g.state.map
    waiting = {t[0] for t in g.state.corporations[corp].tokens
               if t and t[0] in m.placed and not m.placed[t[0]].tile.paths}
    if not waiting:
        return moves, []
    out = list(moves)
    notes: list[str] = []
    for i, mv in enumerate(moves):
        if not isinstance(mv, A.PlaceToken) or mv.entity not in (player, corp):
            continue
        hexname = mv.city.split("-")[0].upper()
        if not re.match(r"^[A-Z]{1,2}\d{1,3}$", hexname) or hexname not in waiting:
            continue
        j = next((k for k in range(i + 1, len(moves)) if isinstance(moves[k], A.LayTile)
                  and moves[k].hex.upper() == hexname), None)
        if j is None:
            continue
        out.remove(mv)
        out.insert(out.index(moves[j]) + 1, mv)
        notes.append(f"move {i + 1} ({format_action(mv)}) is made after the tile, move {j + 1} "
                     f"({format_action(moves[j])}): {corp}'s home station in {hexname} takes its city when the "
                     "hex's first tile is laid")
    return out, notes


def best_run_instead(game: "Game", n: int, written: Any, mv: A.Action, exc: Exception) -> tuple[A.RunRoutes, str] | None:
    """Legal routes written in a mail that earn less than the company's best: the run of the best
    routes instead, and the note that says so; None when ``exc`` is no such refusal, or the title
    keeps the refusal (issue 29: one mail per company turn; play-throughs s12 and s12v: eleven
    1848 and two 18AL company turns took a second mail only to copy the best routes the refusal
    named). Title data ``weaker_run`` says why the best runs:

    * ``"best"``: the book requires the most the trains can earn (18VA 4.5.5; 1848 by ruling,
      rulings-1848.md 10), so the best is what the company runs;
    * ``"best_if_insisted"``: the best only "if any player who owns stock in the corporation
      insists" (18GA and 18AL 4.2.3.1): at the table a stockholder points out the better run and
      it must be used; by mail the best is run at once and the reply says so."""
    import re

    mode = str(game.title.data.get("weaker_run") or "")
    if not (isinstance(mv, A.RunRoutes) and not mv.auto and mv.routes and mode in ("best", "best_if_insisted")):
        return None
    m = re.search(r"the routes must earn the most possible \((\d+)((?:, and \d+ for its treasury)?)\); these earn "
                  r"(\d+)(?: \(and \d+ for its treasury\))?(?:; the best is '([^']*)')?", str(exc))
    if m is None:
        return None
    from pbm.e18xx.rounds.cite import see

    said = run_as_written(game, written if isinstance(written, A.RunRoutes) else mv)
    run = A.RunRoutes(mv.entity, (), auto=True)
    if mode == "best_if_insisted":
        why = plain_route_ids(game, mv.entity, str(exc)).replace(" (or write 'run auto')", "")
        return run, (f"move {n} ({said}): {why}; any stockholder may insist on the best run, so {mv.entity} "
                     "ran the best instead")
    money = game.title.money
    best = plain_route_ids(game, mv.entity, m.group(4)) if m.group(4) else "run auto"
    treasury = re.search(r"(\d+) for its treasury", m.group(2))
    return run, (f"'{said}' earns {money(int(m.group(3)))}; a company runs for the most it can"
                 f"{see(game.title, 'best_routes')}, so its best routes ran instead: '{best}' for "
                 f"{money(int(m.group(1)))}" + (f" (and {money(int(treasury.group(1)))} for its treasury)"
                                                if treasury else ""))


def play_intent(game: "Game", player: str, moves: list[Move]) -> tuple[list[Made], list[str]]:
    """Apply ``moves`` (parsed, for ``player``) as intent on ``game``; returns the actions made
    (with notes) and the notes.  Raises GameError at the first move refused (the caller
    works on a copy or discards the game).  ``pass rest of round`` is not handled here."""
    writer = TurnWriter(game, player)
    writer.play(writer.read(moves))
    return writer.hooks.made, writer.notes + writer.summary()


class _Orders(Hooks):
    """Plain hooks that keep standing orders (``pass rest of round``) and apply them after every
    action (:func:`play_text`)."""

    def __init__(self, game: "Game", player: str, orders: StandingOrders):
        super().__init__(game)
        self.player, self.orders, self.actions = player, orders, []

    def standing(self, n: int) -> None:
        self.orders.add(self.game, self.player)
        self.actions.extend(self.orders.apply(self.game))

    def record(self, act: A.Action, note: str, written: bool, added: bool = False) -> None:
        self.actions.append(act)
        self.actions.extend(self.orders.apply(self.game))


def play_text(game: "Game", player: str, text: str, orders: StandingOrders | None = None) -> list[A.Action]:
    """``player``'s move text read as intent and applied to ``game`` (``pbm.e18xx.play_text``): the
    actions made, passes for skipped steps included.  Raises at the first refusal (the game then
    holds the moves before it; work on a copy for all or nothing).  Standing orders (``pass rest
    of round``) are kept in ``orders`` and applied after every action."""
    hooks = _Orders(game, player, orders if orders is not None else StandingOrders())
    writer = TurnWriter(game, player, hooks)
    writer.play(writer.read(parse_moves(text, player)))
    return hooks.actions


# ---------------------------------------------------------------------- the whole turn, outlined
def _stop_words(game: "Game", route) -> str:
    """A route's stops as a player writes them: a hex of one stop by its hex, else ``D4-1``."""
    out = []
    for h, i in route.nodes:
        try:
            one = len(game.state.map.tile(h).nodes) == 1
        except (KeyError, AttributeError):
            one = False
        out.append(h if one else f"{h}-{i}")
    return " ".join(out)


def _scratch(game: "Game") -> "Game":
    """A copy of ``game`` to try moves on that never touches ``game``: without its event recorder
    and the instance wrappers it installs (events.attach wraps ``process`` and others with closures
    over the original game, which a deep copy would share)."""
    import copy
    import types

    kept = {k: v for k, v in vars(game).items()
            if k == "recorder" or isinstance(v, (types.FunctionType, types.MethodType, types.LambdaType))}
    for k in kept:
        delattr(game, k)
    try:
        return copy.deepcopy(game)
    finally:
        for k, v in kept.items():
            setattr(game, k, v)


def _bank_train_words(game: "Game", g: "Game", corp: str) -> str:
    """The Bank's next train when the outline's example (its station, its payout) left the company
    short of it, with the company's cash now and its run: '3 for $200 from the Bank, if the cash
    allows: B&O has $200 now; ' (18VA s14 F15: "buy trains (from other companies)" as B&O, with
    $200, bought the Bank's 3 for $200). Empty when the Bank has no train for it."""
    try:
        trains = [game.state.trains[t] for t in game._depot_trains()]
        depot = [t for t in trains if not game.outside_limit(t.name)]
        if len(game.corp_trains(corp)) >= game.train_limit(corp):
            depot = []
        # a train outside the limit the company does not own yet: 1848's 2E, The Ghan (8.2.5: "Each company
        # may own at most one 2E"; s14b: NSW and CAR were told of the 5 alone, though the 2E was for sale)
        owned = {game.state.trains[t].name for t in game.corp_trains(corp) if t in game.state.trains}
        extra = {t.name: t.price for t in trains if game.outside_limit(t.name) and t.name not in owned}
    except Exception:  # noqa: BLE001 - a courtesy: nothing said
        return ""
    money = game.title.money
    said = ([f"{min(depot, key=lambda t: t.price).name} for {money(min(t.price for t in depot))}"] if depot else []) \
        + [f"{name} for {money(price)}" for name, price in extra.items()]
    if not said:
        return ""
    cash = game.state.cash[game.state.corporations[corp].key]
    earned = int(getattr(g.state.round, "revenue", 0) or 0) if g.state.round.kind == "operating" else 0
    ran = f", and the run of the example below earns {money(earned)}" if earned else ""  # not its run (s15c mail 22)
    return f"{' or '.join(said)} from the Bank, if the cash allows: {corp} has {money(cash)} now{ran}; "


def _lay_that_runs(g: "Game", corp: str, lays: list[A.LayTile], tries: int = 12) -> A.LayTile | None:
    """For the outline's example, when ``corp`` has trains but no route yet: the first lay (of the
    first ``tries``) after which its trains earn, None if none does or a route exists already. 4.2
    lays the tile before the run, so a lay can open the company's first route (play-through s16c
    mail 40: GA's outline showed 'lay 7 C9 5' toward nothing and no run, while 8 C9 3 reached
    Greeneville, and GA ran there for $50)."""
    try:
        if not g.corp_trains(corp) or g.auto_routes(corp)[0] > 0:
            return None
    except Exception:  # noqa: BLE001 - an outline is a courtesy
        return None
    for lay in lays[:tries]:
        try:
            h = _scratch(g)
            h.process(lay)
            if h.auto_routes(corp)[0] > 0:
                return lay
        except Exception:  # noqa: BLE001 - a lay that fails on the copy is not the example
            continue
    return None


def turn_outline(game: "Game") -> list[str]:
    """For the president of the company about to operate, whose list shows only the open step's
    moves (often just 'pass' for the lay step): the turn's steps with what each offers, and an
    example mail of the whole turn built from moves legal now, played on a copy of the game
    and checked (issue 29, s12 item 5). Empty outside a company's turn or when no example is
    accepted."""
    from pbm.e18xx.lays import same_track
    from pbm.e18xx.pbem.movelist import say

    if game.finished or game.state.round.kind != "operating":
        return []
    step, corp = game.open_step()
    if corp is None or isinstance(step, Interrupt) or corp not in game.state.corporations:
        return []
    player = game.controller(corp)
    try:
        g = _scratch(game)
    except Exception:  # noqa: BLE001 - an outline is a courtesy: never a fault of the mail
        return []
    money = g.title.money
    parts: list[str] = []
    example: list[str] = []
    key = (g.state.turn, g.state.round.num, g.state.round.index)
    try:
        for _ in range(24):
            if g.finished or (g.state.turn, g.state.round.num, g.state.round.index) != key:
                break
            step, who = g.open_step()
            if step is None or isinstance(step, Interrupt) or who != corp:
                break
            legal = [a for a in g.legal_actions() if a.entity == corp or a.entity in g.state.companies]
            mine = [a for a in legal if a.entity == corp and not isinstance(a, A.Pass)]
            act: A.Action | None = None
            if step.name == "track":
                lays = [a for a in mine if isinstance(a, A.LayTile)]
                if lays:
                    # rotations laying the same track count once, as the list shows them (s16 mail 24: "18
                    # lays now" above a list of 15)
                    parts.append(f"lay or upgrade a tile ({len(same_track(g, lays))} lays now)")
                    act = _lay_that_runs(g, corp, [a for a, _ in same_track(g, lays)]) or lays[0]
                elif not any(x.startswith(("lay or upgrade", "no tile")) for x in parts):
                    # 4.5.2: the step is there, but no lay extends a route (play-through s16: N&W's
                    # outline began with its run, and the player looked for the tile he might lay)
                    parts.append("no tile can be laid now (no legal lay or upgrade)")
            elif step.name == "token":
                toks = [a for a in mine if isinstance(a, A.PlaceToken)]
                if toks:
                    cost = g.next_token_cost(corp)
                    parts.append("place a station" + (f" ({money(cost)})" if cost else ""))
                    act = toks[0]
                # a private's extra station, free, besides the company's own (18VA 4.2 (3), 4.5.3: Potomac
                # Yards; s14: the outline did not name it)
                extra = sorted({a.entity for a in legal if isinstance(a, A.PlaceToken) and a.entity in g.state.companies
                                and g.state.companies[a.entity].owner == f"C:{corp}"})
                for sym in extra:
                    parts.append(f"place {sym}'s extra station, free ('use {sym} <hex>')")
            elif step.name == "route":
                names = [g.train_label(t) for t in g.corp_trains(corp)]
                if any(isinstance(a, A.RunRoutes) for a in mine):
                    parts.append("run trains " + ", ".join(names))
                    act = A.RunRoutes(corp, auto=True)
            elif step.name == "dividend":
                if any(isinstance(a, A.Dividend) for a in mine):
                    parts.append("pay out or withhold")
                    act = next((a for a in mine if isinstance(a, A.Dividend) and a.kind == "payout"), None)
            elif step.name == "buy_train":
                def seller_of(a: A.BuyTrain) -> str | None:
                    tr = g.state.trains.get(a.train)
                    held = tr.owner[2:] if tr is not None and tr.owner.startswith("C:") else None
                    return a.seller or (held if held != corp else None)

                buys = [a for a in mine if isinstance(a, A.BuyTrain)]
                # a train bought with a private of the company ('with P2': Tredegar's $200 off, 18VA 4.2 (2); s14
                # F14: "buy trains (from other companies)" when only the private made the Bank's affordable)
                buys += [a for a in legal if isinstance(a, A.BuyTrain) and a.entity in g.state.companies
                         and g.state.companies[a.entity].owner == f"C:{corp}" and seller_of(a) is None]
                bank = [a for a in buys if seller_of(a) is None]
                if bank and any(x.startswith("buy trains") for x in parts):
                    pass  # one train in the example (the phase may allow one a turn)
                elif bank:
                    said = [f"{g.state.trains[a.train].name}{f' as {a.variant}' if a.variant else ''} for "
                            f"{money(a.price)}{f' with {a.entity}' if a.entity in g.state.companies else ''}"
                            if a.train in g.state.trains
                            and a.price is not None else say(g, a).split("#")[0].strip() for a in bank]
                    # another company's train names its owner and its price: the face value between
                    # different presidents, any price between one president's companies (1848 8.3.4;
                    # play-through s13 F11: "3 for £200; 5 for £330", neither owner said)
                    # (18VA s13 F4: "2 for $100" named no seller either); one line per type and price,
                    # its sellers together: "2 from SR, N&W or B&O at an agreed price"
                    sellers: dict[tuple[str, str], list[str]] = {}
                    for a in buys:
                        seller = seller_of(a)
                        tr = g.state.trains.get(a.train)
                        if seller is None or tr is None:
                            continue
                        price = " at an agreed price"
                        if g.title.data.get("trades_at_face_value"):
                            same = g.president(seller) == g.president(corp)
                            price = f" for {money(1)} or more" if same else f" for {money(tr.price)}"
                        names = sellers.setdefault((g.train_label(a.train), price), [])
                        if seller not in names:
                            names.append(seller)
                    for (label, price), names in sellers.items():
                        who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
                        said.append(f"{label} from {who}{price}")
                    parts.append("buy trains (" + "; ".join(dict.fromkeys(said)) + ")")
                    act = bank[0]
                elif buys and not any(x.startswith("buy trains") for x in parts):
                    parts.append("buy trains (" + _bank_train_words(game, g, corp) + "from other companies)")
            elif step.name == "buy_company" and any(isinstance(a, A.BuyCompany) for a in mine):
                # a private is bought only from a phase the train bought in this turn may start (1848 7.3
                # "From Phase 3 onwards"; s17c mail 035: the outline of the 2/2+ Phase said only "buy a private")
                opened = "can_buy_companies" not in game.phase.status and "can_buy_companies" in g.phase.status
                parts.append("buy a private" + (f" (once the train bought starts "
                                                f"{g.title.in_phase(g.state.phase)[3:]})" if opened else ""))
            if act is None:
                if "pass" not in g.or_actions(corp):
                    return []  # a step the outline cannot fill: no example
                g.process(A.Pass(corp))
                continue
            g.process(act)
            if isinstance(act, A.RunRoutes):
                ran = list(g.state.round.routes)
                example.append("run " + "; ".join(f"{g.train_label(t)} {_stop_words(g, r)}" for t, r in ran)
                               if ran else "run auto")
            else:
                example.append(say(g if not isinstance(act, A.LayTile) else game, act).split("#")[0].strip()
                               if not isinstance(act, A.BuyTrain) else f"buy train {g.state.trains[act.train].name}"
                               + (f" with {act.entity}" if act.entity in g.state.companies else "")
                               if act.train in g.state.trains else format_action(act))
    except GameError:
        return []
    if not parts or not example:
        return []
    mail = ", ".join(example)
    try:  # the example is accepted as a mail, or it is not shown
        play_intent(_scratch(game), player, parse_moves(mail, player))
    except Exception:  # noqa: BLE001
        return []
    return [f"This turn: {'; '.join(parts)}.",
            f"Write it all in one mail, e.g. '{mail}' (one move a line, or on one line separated by commas)."]

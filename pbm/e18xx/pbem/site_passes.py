"""The passes 18xx.games needs that pbm makes by itself, for the export (issue 28).

On pbm a company's first action of its turn other than converting declines to convert
(18VA 4.5.1: "at the beginning of the Corporation's turn"); 18xx.games wants the decision
as an explicit ``pass`` first.  The exporter asks :class:`SitePasses` before and after every action
which passes to write; they carry ``"pbm_auto": true`` so that pbm's own replay of the
export skips them (its engine made them already).
"""
from __future__ import annotations

from typing import Any

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.core.state import clone_state


# Title data ``site_anytime_privates``: privates whose ability 18xx.games lets their company use at
# any time of its turn (``when: owning_corp_or_turn``): while the company owns one, the site's last
# step waits for a pass (18AL's SNAR and 18GA's W&SR, with no ``when``, do not keep it waiting: seen
# on the site's engine).

STEP_OF = {A.BuyTrain: "buy_train", A.PlaceToken: "token", A.LayTile: "track"}


def _round_key(game: Any) -> tuple[str, int, int]:
    r = game.state.round
    return (r.kind, game.state.turn, r.num)


class SitePasses:
    def __init__(self, game: Any):
        self.game = game
        self.consecutive = 0  # passes in a row in this stock round, as the site counts them
        self.before: tuple[Any, ...] = ()
        self.declined: set[tuple[Any, str]] = set()  # (round, company) whose conversion pass is written
        self.from_depot = False  # the action being written buys a train from the depot
        self.trains_passed: set[tuple[Any, str]] = set()  # (round, company) that passed its Buy Trains step
        self.last_pass_to_trains = False  # the pass being written is the site's Buy Trains pass
        self.bought: set[tuple[Any, str]] = set()  # (round, company) that bought a train (the site then
        # closes its Buy Trains step by itself once nothing more can be bought)
        self.cash_before = 0  # the operating company's cash before it
        self.step_before: str | None = None  # the operating company's open step before it

    def _stock(self) -> bool:
        return self.game.state.round.kind == "stock" and not self.game.state.finished

    def _players(self) -> list[str]:
        return list(self.game.state.round.entities)

    def pre(self, act: A.Action) -> list[str]:
        """Entities that must pass on the site before ``act``, passed here too (the same as pbm's
        implicit pass): the 18VA conversion decision before any other move of the company, and the
        steps before the one a private's ability acts in (a train bought with 18VA's Tredegar Iron
        Works ends the track, station and route steps: 18xx.games waits in each for a pass)."""
        g = self.game
        out: list[str] = []
        if g.state.round.kind == "operating" and not isinstance(act, (A.Convert, A.Pass)):
            target = STEP_OF.get(type(act)) if act.entity in g.state.companies else None
            names = [x.name for x in g.or_steps]
            saved, count = clone_state(g.state), len(g.actions)  # the passes are tried, then taken back:
            for _ in range(len(names)):  # the game follows its own log exactly
                step, who = g.open_step()
                if step is None or who is None or who not in g.state.corporations:
                    break
                # any other move of the turn ends the decision (4.5.1; a private's too, e.g. P1's +10)
                first = step.name == "convert" and (who == act.entity or act.entity in g.state.companies)
                skip = target is not None and step.name in names and target in names and \
                    names.index(step.name) < names.index(target) and step.name != "home_token"
                if not (first or skip):
                    break
                if "pass" not in g.or_actions(who):
                    if skip and step.name == "route":  # the private's move skips the run: no routes
                        out.append(f"{who}\trun_routes")
                    break
                try:
                    g.process(A.Pass(who))
                except GameError:
                    break
                if step.name == "convert":  # written once a turn (pbm keeps the decision open after other moves)
                    if (_round_key(g), who) in self.declined:
                        continue
                    self.declined.add((_round_key(g), who))
                out.append(who if step.name != "route" else f"{who}\trun_routes")  # the site runs no routes
            g._restore(saved)  # noqa: SLF001 - the same state object, as before the passes
            del g.actions[count:]
        t = g.state.trains.get(act.train) if isinstance(act, A.BuyTrain) else None
        self.from_depot = t is not None and t.owner in ("depot", "discard")
        self.listed_after = False  # 18VA: a train the site still lists after this depot purchase
        if self.from_depot and g.title.data.get("limited_train_buy") == "per_type" and act.entity in g.state.corporations:
            me = f"C:{act.entity}"
            s = g.state
            self.listed_after = any(x.owner.startswith("C:") and x.owner != me and not x.obsolete and x.buyable
                                    and not g.outside_limit(x.name) and not s.corporations[x.owner[2:]].closed
                                    for x in s.trains.values()) or any(
                s.trains[x].name != t.name and not g._depot_limited(act.entity, x)  # noqa: SLF001
                for x in g._depot_trains())  # noqa: SLF001
        op = g._or_operator() if g.state.round.kind == "operating" else None  # noqa: SLF001
        self.last_pass_to_trains = False
        if op and isinstance(act, A.BuyTrain) and act.entity == op:
            self.bought.add((_round_key(g), op))
        if op and g.open_step()[0] is not None and g.open_step()[0].name == "buy_company" \
                and (_round_key(g), op) not in self.trains_passed \
                and g.title.data.get("site_trains_open_for_loan") and not self._site_buy_trains_open(op):
            # the site skipped its Buy Trains step when the turn reached it with nothing to offer (1848:
            # no money after the dividend); a loan taken later does not reopen it
            self.trains_passed.add((_round_key(g), op))
        if op and isinstance(act, A.Pass) and act.entity == op and g.open_step()[0] is not None:
            name = g.open_step()[0].name
            if name == "buy_train":
                self.trains_passed.add((_round_key(g), op))  # the site's Buy Trains step is passed too
            elif name == "buy_company" and (_round_key(g), op) not in self.trains_passed \
                    and ((_round_key(g), op) not in self.bought or g.title.data.get("site_trains_open_for_loan")) \
                    and self._site_buy_trains_open(op):
                # (1848: the step stays open after purchases too while the company may borrow)
                # the site still waits in Buy Trains: this pass is its, and its last step waits for another
                self.trains_passed.add((_round_key(g), op))
                self.last_pass_to_trains = True
        c = g.state.corporations.get(op) if op else None
        self.cash_before = g.state.cash[c.key] if c is not None else 0
        step = g.open_step()[0] if op else None
        self.step_before = step.name if step is not None else None
        self.loaned_before = bool(op) and op in getattr(g.state.round, "loaned", ())  # this round's loan taken
        self.before = (_round_key(g), self._players() if self._stock() else [],
                       g.state.round.index if self._stock() else 0,
                       op)
        return out

    def post(self, act: A.Action) -> list[str]:
        """Passes to write after ``act``: a company whose turn pbm ended with ``act`` while it owns an
        open private waits on 18xx.games in its last step (its "Buy Companies" step stays open so
        that the private's ability may still be used there; pbm keeps the book's timing, e.g.
        18VA 4.2: "must be used in this phase") and passes to end its turn."""
        g = self.game
        key, op = self.before[0], self.before[3] if len(self.before) > 3 else None
        if key[0] != "operating" or op is None:
            return []
        if isinstance(act, A.BuyTrain) and act.entity == op and g.title.data.get("site_trains_open_for_loan") \
                and not self._site_can_buy_again(op):
            self.trains_passed.add((key, op))  # the site passed its Buy Trains step after the purchase
        return self._token_step_wait(act, key, op) + self._post(act, key, op) + self._last_step_wait(act, key, op)

    def _last_step_wait(self, act: A.Action, key: tuple[str, int, int], op: str) -> list[str]:
        """1848 under the book (without ``site_turn_end_pass``): once a company has taken this round's
        loan, pbm's last step ("take a loan or buy a private") offers nothing and the turn ends after
        the train step; 18xx.games' last step ("Take Loans or Buy Company") still waits for a pass
        while the company could borrow in some round (its count of loans, not this round's loan).
        Computer, 5 players, seed 50266: NSW borrowed, bought the first 5, the Tasmania tile went
        down, NSW passed its train step, and the site waited."""
        g = self.game
        if not g.title.data.get("site_trains_open_for_loan") or "site_turn_end_pass" in g.optional_rules:
            return []
        if self.step_before == "buy_company" or not (
                self.loaned_before or (isinstance(act, A.TakeLoan) and act.entity == op)):
            return []
        if act.entity != op and not isinstance(act, A.DiscardTrain) and not (
                act.entity in g.state.companies and g.state.companies[act.entity].owner == f"C:{op}"):
            return []
        if g.state.finished:
            if g.state.end_reason == "bankrupt":
                return []
        elif _round_key(g) == key and g._or_operator() == op:  # noqa: SLF001 - the turn goes on
            return []
        c = g.state.corporations.get(op)
        if c is None or c.closed or c.receivership or not g.can_take_loan(op, ignore_round=True):
            return []
        return [op]

    def _site_buy_trains_open(self, op: str) -> bool:
        """1848 (title data ``site_trains_open_for_loan``): the site's Buy Trains step offers something:
        a train it can buy (as after a purchase), or the loan clause."""
        return bool(self.game.title.data.get("site_trains_open_for_loan")) and (
            self._site_can_buy_again(op) or self._site_trains_open_for_a_loan(op))

    def _site_can_buy_again(self, op: str) -> bool:
        """After a purchase 18xx.games ends the Buy Trains step by itself unless the company has room
        and can pay the cheapest train it could buy: a train the Bank offers, or $1 when another
        company owns one.  Its "room" is: not exactly at the limit (a company over it after a phase
        change has room there), or a train outside the limit (1848's 2E) it may add."""
        g = self.game
        s = g.state
        if op not in s.corporations or s.corporations[op].closed:
            return False
        c = s.corporations[op]
        cash = s.cash[c.key]
        depot = g._depot_trains()  # noqa: SLF001
        outside = [t for t in depot if g.outside_limit(s.trains[t].name)]
        room = len(g.limited_trains(op)) != g.train_limit(op) or any(
            g._room(op, t) and cash >= s.trains[t].price for t in outside)  # noqa: SLF001
        others = any(t.owner.startswith("C:") and t.owner != c.key and not t.obsolete and t.buyable
                     and not s.corporations[t.owner[2:]].closed for t in s.trains.values())
        cheapest = min([s.trains[t].price for t in depot] + ([1] if others else []), default=None)
        return room and cheapest is not None and cash >= cheapest

    def _token_step_wait(self, act: A.Action, key: tuple[str, int, int], op: str) -> list[str]:
        """Title data ``site_token_step_private`` (18VA: Potomac Yards): while the company owns that
        private, 18xx.games keeps its "Place a Token" step open for a pass even when no station can
        be placed; pbm goes past its station step.  A move of the company that took pbm past the
        step (a tile, a private bought in it) is followed by the site's pass."""
        g = self.game
        sym = g.title.data.get("site_token_step_private")
        comp = g.state.companies.get(sym) if sym else None
        if comp is None or comp.owner != f"C:{op}" or comp.closed or act.entity != op \
                or isinstance(act, A.PlaceToken) or op in g.state.round.tokened \
                or (isinstance(act, A.Pass) and self.step_before == "token"):  # (that pass is the site's own)
            return []
        names = [x.name for x in g.or_steps]
        if self.step_before not in names or names.index(self.step_before) > names.index("token"):
            return []
        if not g.state.finished and _round_key(g) == key and g._or_operator() == op:  # noqa: SLF001
            step = g.open_step()[0]
            if step is not None and step.name in names and names.index(step.name) <= names.index("token"):
                return []  # pbm is still in (or before) its station step
        return [op]

    def _post(self, act: A.Action, key: tuple[str, int, int], op: str) -> list[str]:
        g = self.game
        if isinstance(act, A.Pass):
            turn_over = g.state.finished or _round_key(g) != key or g._or_operator() != op  # noqa: SLF001
            if turn_over and not g.state.finished and self.step_before not in (None, "buy_company") \
                    and act.entity == op and self._owns_anytime_private(op) and self._site_may_borrow(op):
                # the pass was the site's pass of that step (Buy Trains, or an earlier one whose
                # followers were skipped: 18VA random 4p seed 60230, WMR bought P1 at the start of
                # its turn and passed its track); its last step waits for another
                return [op]
            # also when this pass ended the game (the set of operating rounds was over): the site ends
            # it only once its last step is passed
            ended_by_turn = g.state.finished and g.state.end_reason != "bankrupt"
            if ended_by_turn and self.step_before == "buy_train" and act.entity == op \
                    and "site_turn_end_pass" in g.optional_rules and g.can_take_loan(op, ignore_round=True):
                return [op]  # 1848: the site's last step ("Take Loans or Buy Company") waits for its pass
            return [op] if self.last_pass_to_trains and turn_over and (not g.state.finished or ended_by_turn) else []
        if isinstance(act, A.BuyTrain) and g.title.data.get("site_private_train_pass") and act.entity in g.state.companies \
                and g.state.companies[act.entity].owner == f"C:{op}" and not g.state.finished \
                and (_round_key(g) != key or g._or_operator() != op):  # noqa: SLF001
            # title data ``site_private_train_pass`` (18VA): a train bought with a private's ability
            # (Tredegar) is the private's action on the site, which then does not close the company's Buy
            # Trains step by itself: it waits for a pass (18AL's NDY purchase closes it: seen on the site);
            # then its last step waits for another while the company owns a private usable all turn.
            # The Buy Trains step waits only while the company could still buy a train (random 3p
            # seed 40009: B&O with $0 after a $0 train; the site went on to the next company)
            cash = g.state.cash[f"C:{op}"] if _round_key(g) == key else max(0, self.cash_before - (act.price or 0))
            trains = [op] if self._site_token_private_owned(op) or (
                g._room(op) and self._site_can_pay_a_train(op, cash, False)) else []  # noqa: SLF001
            return trains + ([op] if self._owns_anytime_private(op) else [])
        if act.entity != op and not isinstance(act, A.DiscardTrain):  # a discard after op's purchase
            return []
        if g.state.finished or (_round_key(g) == key and g._or_operator() == op):  # noqa: SLF001
            return []
        if op not in g.state.corporations:
            return []
        if isinstance(act, A.Bankrupt) or not g.state.corporations[op].ipoed:
            return []  # the company closed (18VA 4.6.3: no one takes over): the site's turn went on at once
        # a loan in the last step ends the site's "Take Loans or Buy Company" step too: a private
        # usable all turn keeps it open no longer (eighth referee run, 1848 3p 60096 with the loan
        # filter: QR, owning P2, borrowed there and the site went on to SAR)
        last_loan = isinstance(act, A.TakeLoan) and self.step_before == "buy_company"
        # with loans (1848) that step blocks only while the company may borrow in some round
        # ("Take Loans or Buy Company"; random with the loan filter, 3p seed 60096: QR, owning P2,
        # with its five loans, paid out and the site went on)
        anytime = self._owns_anytime_private(op) and not last_loan and self._site_may_borrow(op)
        # the site's Buy Trains pass (its step still open) and its last step's (an anytime private):
        # both when both wait (18VA random 5p seed 60391: SR bought P2 and P1 in its last step)
        return ([op] if self._site_buys_on(op, act, key) else []) + ([op] if anytime else [])

    def _site_may_borrow(self, op: str) -> bool:
        """Without loans, always; with loans (1848) the site's last step blocks only while the company
        may borrow in some round."""
        g = self.game
        return not g.title.data.get("loans") or g.can_take_loan(op, ignore_round=True)

    def _owns_anytime_private(self, op: str) -> bool:
        """The company owns a private of title data ``site_anytime_privates`` (its last step waits)."""
        g = self.game
        anytime = frozenset(g.title.data.get("site_anytime_privates", ()))
        return any(c.owner == f"C:{op}" and not c.closed and c.sym in anytime for c in g.state.companies.values())

    def _site_trains_open_for_a_loan(self, op: str) -> bool:
        """Title data ``site_trains_open_for_loan`` (1848: ``{"train": "2E", "cash": 100}``): 18xx.games
        keeps the Buy Trains step open for a company that owns no such train, has that much cash and
        may still borrow (in a later round too) -- also at its train limit, where pbm's step offers
        nothing, and after pbm's step was over (a loan taken later in the turn).  pbm's last step's
        pass is then the site's Buy Trains pass."""
        g = self.game
        spec = g.title.data.get("site_trains_open_for_loan")
        if not spec:
            return False
        s = g.state
        c = s.corporations[op]
        return (not any(s.trains[t].name == spec["train"] for t in c.trains)
                and s.cash[c.key] >= int(spec["cash"]) and g.can_take_loan(op, ignore_round=True))

    def _cash_at_turn_end(self, op: str, act: A.Action, key: tuple[str, int, int]) -> int:
        """The operating company's cash when its turn ended (a new operating round has paid it its
        privates' income since)."""
        g = self.game
        s = g.state
        if isinstance(act, A.BuyTrain) and act.entity == op:
            if act.price is not None:
                paid = act.price
            elif act.train in s.trains:
                paid = s.trains[act.train].price
            else:  # a bank train written by its type ('buy train 2', play-through s11v): the type's price
                paid = next(t.price for t in g.title.trains if t.name == act.train)
            return max(0, self.cash_before - paid)
        if _round_key(g) == key:
            return s.cash[f"C:{op}"]
        if isinstance(act, A.TakeLoan) and act.entity == op:  # the round's last turn ended with a loan
            # (1848 5.6: its money came in; random with the loan filter, 5p seed 60098)
            return self.cash_before + int((g.title.data.get("bank_corporation") or {}).get("loan_value", 100))
        if isinstance(act, A.BuyCompany) and act.entity == op:  # the private's price left with it (random
            return max(0, self.cash_before - act.price)  # 18GA 5p seed 40010: the round's last move)
        return self.cash_before

    def _site_buys_on(self, op: str, act: A.Action, key: tuple[str, int, int]) -> bool:
        """18xx.games keeps a company's Buy Trains step open while it has room and either the price
        of a train the depot offers (even when 18AL/18GA 4.2.5(f), one train from the Bank a turn,
        forbids a second) or $1 and another company owns a train (whoever that company's president
        is: on pbm another president's train is bought only by an offer he accepts, 4.2.5(d),
        18VA 4.6).  pbm ends the turn when it lists no purchase; the site then waits for a pass.
        Right after a train from the depot that ended the turn (the one a turn of 4.2.5(f)) the site
        looks at other companies' trains only."""
        g = self.game
        s = g.state
        c = s.corporations[op]
        if (key, op) in self.trains_passed:
            return False
        cash = self._cash_at_turn_end(op, act, key)
        if c.closed:
            return False
        # room: under the limit, or for a train outside it (1848's 2E) it can pay -- e.g. after a loan
        # in the turn's last step that ended pbm's turn, the site's Buy Trains step opens again (eighth
        # referee run, 1848 6p 60047 with the loan filter: WA, at its limit, borrowed to £210 and the
        # site waited there for The Ghan)
        if not g._room(op) and not any(  # noqa: SLF001
                g.outside_limit(s.trains[t].name) and g._room(op, t) and cash >= s.trains[t].price  # noqa: SLF001
                for t in g._depot_trains()):  # noqa: SLF001
            return False
        if self.from_depot and g.title.data.get("limited_train_buy") == "per_type" and not self.listed_after:
            # 18VA: after a train from the depot the site's step closes unless a train is still on its
            # list (another company's, or a depot train of a type not bought this round) and it can pay
            return False
        return self._site_can_pay_a_train(op, cash, self.from_depot)

    def _site_token_private_owned(self, op: str) -> bool:
        """The company owns the private of title data ``site_token_step_private`` (18VA's Potomac
        Yards): the site's Buy Trains step then waits for a pass even with nothing to buy."""
        sym = self.game.title.data.get("site_token_step_private")
        comp = self.game.state.companies.get(sym) if sym else None
        return comp is not None and comp.owner == f"C:{op}" and not comp.closed

    def _site_can_pay_a_train(self, op: str, cash: int, from_depot: bool) -> bool:
        """The site's Buy Trains step offers ``op`` (with ``cash``) a train: a depot train it can pay
        (a private's discount counted), or one of another company's for $1 (see ``_site_buys_on``)."""
        g = self.game
        s = g.state
        c = s.corporations[op]
        # a private's discount on a depot train counts (18VA Tredegar: the site offers the train at $0)
        off = max([int(ab.get("discount", 0)) for comp in s.companies.values()
                   if comp.owner == c.key and not comp.closed
                   for ab in [g.company_ability(comp.sym, "train_discount") or {}]] or [0])
        depot = [t for t in g._depot_trains() if s.trains[t].owner == "depot"]  # noqa: SLF001
        if off and any(cash >= s.trains[t].price - off for t in depot):
            return True
        if cash < 1:
            return False
        one_a_turn = g.title.data.get("limited_train_buy") != "per_type"  # 18AL/18GA: the site closes the step
        if not (from_depot and one_a_turn) and any(cash >= s.trains[t].price for t in g._depot_trains()):  # noqa: SLF001
            return True
        return any(t.owner.startswith("C:") and t.owner != c.key and not t.obsolete and t.buyable
                   and not g.outside_limit(t.name)
                   and not s.corporations[t.owner[2:]].closed for t in s.trains.values())

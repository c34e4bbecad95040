"""Operating rounds (rule 4): private revenue, then each floated company in
share-price order: lay track, place a token, run trains, pay or withhold,
buy trains (and private companies from phase 3).

A company's turn is a list of steps, each either *blocking* (it must be
done or passed before later ones) or not (buying a private, the privates'
special tile lay and token may happen while an earlier step is pending).
A blocking step with nothing possible is skipped by itself; a skipped
dividend step is a withhold of $0 and moves the share price left.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction
from pbm.e18xx.core.state import RoundState
from pbm.e18xx.rounds.or_track import TrackMixin
from pbm.e18xx.rounds.or_trains import CompanyAbilitiesMixin, TrainsMixin
from pbm.e18xx.rounds.step import (BuyTrain, Interrupt, Step, auction_steps, operating_interrupts, operating_steps,
                                   plain, plain_list, stock_steps)

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine

# The steps of every title's turn (a title's hooks may add, replace or remove some: rounds/step.py).
BLOCKING = ("home_token", "track", "token", "route", "dividend", "discard_train", "buy_train", "buy_company")


class OperatingMixin(TrackMixin, TrainsMixin, CompanyAbilitiesMixin):
    # ------------------------------------------------------------ round flow
    def _start_operating_set(self: "Engine") -> None:
        self.state.ors_in_set = self.phase.operating_rounds
        self._start_or(1)

    def _start_or(self: "Engine", num: int) -> None:
        s = self.state
        s.round = RoundState("operating", self.operating_order(), num=num)
        self.log(f"-- operating round {s.turn}.{num} --")
        self.payout_companies()
        self.lender_dividend()
        for t in s.trains.values():
            t.operated = False
        if not s.round.entities:
            self._end_or()
            return
        self._start_corp_turn()

    def _or_operator(self: "Engine") -> str:
        r = self.state.round
        return r.entities[r.index]

    def forced_lay_company(self: "Engine") -> str | None:
        """A private whose tile must be laid now that the privates have closed (title data
        ``tile_lay.forced_on_close``; 1848 4.4: the Tasmania tile)."""
        forced = self.title.__dict__.get("_forced_on_close")
        if forced is None:  # the privates whose title data has such a lay (most titles: none)
            forced = self.title.__dict__["_forced_on_close"] = frozenset(
                c["sym"] for c in self.title.data["companies"]
                if (self.company_ability(c["sym"], "tile_lay") or {}).get("forced_on_close"))
        if not forced:
            return None
        for comp in self.state.companies.values():
            if comp.sym not in forced:
                continue
            ab = self.company_ability(comp.sym, "tile_lay") or {}
            if ab.get("forced_on_close") and comp.uses.get("dormant") and not comp.closed and comp.owner \
                    and comp.uses.get("tile_lay", 0) < ab.get("count", 1) \
                    and any(self.state.tile_supply.get(t) for t in ab["tiles"]) \
                    and any(self.state.map.placed[h].tile_id is None for h in ab["hexes"]):
                return comp.sym
        return None

    def _or_current(self: "Engine") -> str:
        _step, who = self._interrupt()
        return who or self._or_operator()

    def _start_corp_turn(self: "Engine") -> None:
        s = self.state
        r = s.round
        while True:
            corp = s.corporations[self._or_operator()]
            if not corp.closed and corp.floated and self.may_operate(corp.sym):
                break
            if r.index == len(r.entities) - 1:
                self._end_or()
                return
            r.index += 1
        r.steps_done = set()
        r.discard_before_next = False
        r.tile_lays = 0
        r.upgraded = False
        r.routes = []
        r.revenue = 0
        r.subsidy = 0
        r.ran = False
        r.laid_hexes = []
        r.emergency_sold = 0
        r.sold = {}  # the emergency sales of this company's turn
        self.log(f"{self.controller(corp.sym)} operates {corp.sym}")
        if self.joint_homes(corp.sym):
            self.place_joint_homes(corp)
        else:
            self._place_home_token(corp)
        self._skip_steps()

    def _next_corp(self: "Engine") -> None:
        s = self.state
        r = s.round
        if (self.forced_lay_company() or self._discard_at_turn_end() or self.cash_crisis_player()) \
                and not s.finished:
            # 1848 4.4: "the Tasmania tile must immediately be placed": before the next company's
            # turn and before a new round begins (ForcedLay goes on from here once it is laid);
            # likewise a discard 18xx.games asks for at the end of the turn (``site_discard_timing``)
            # and a director's sales to pay a receivership debt (5.5.3; PayDebt goes on from here)
            r.turn_over = True
            return
        r.turn_over = False
        if s.corporations[self._or_operator()].floated:
            s.corporations[self._or_operator()].operated = True
        self.check_game_end()
        if s.finished:
            return
        if r.index >= len(r.entities) - 1:
            self._end_or()
            return
        if self.title.data.get("dynamic_operating_order"):
            # the next to operate is the highest-priced company yet to operate, prices as they are now
            rest = set(r.entities[r.index + 1:])
            order = self.operating_order()
            r.entities = r.entities[:r.index + 1] + [c for c in order if c in rest] + \
                [c for c in r.entities[r.index + 1:] if c not in order]
        r.index += 1
        self._start_corp_turn()

    def _discard_at_turn_end(self: "Engine") -> bool:
        """1848 ``site_discard_timing``: a company over its train limit after a phase change in
        another company's turn discards in a later company's discard step (18xx.games), at the
        latest before the operating round ends -- or before the next company's turn when the
        operating company went into receivership at its dividend or after it (a withhold, the loan
        before the withhold, a loan in the last step, a purchase's forced loans) while a discard
        from an earlier turn was waiting (``enter_receivership`` marks it): the site reaches its
        discard step before the turn is over.  A discard the receivership's own train removal
        brings, or a receivership earlier in the turn, hands the turn on at once (eighth referee
        run, 1848 3p 60048, 5p 60058, 3p 60068 with the random player's loan filter; fifth run,
        13004 and 14003)."""
        r = self.state.round
        if "site_discard_timing" not in self.optional_rules or not self.crowded_corps():
            return False
        if r.index >= len(r.entities) - 1:
            return True
        return r.discard_before_next

    def _discard_waits(self: "Engine", crowded: str) -> bool:
        """1848 ``site_discard_timing``: the discard of ``crowded`` waits while the operating company
        (``crowded`` itself or another) has a step open before the discard step."""
        if "site_discard_timing" not in self.optional_rules:
            return False
        corp = self._or_operator()
        if self.state.corporations[corp].closed or self.state.round.turn_over:
            return False
        block, _ = self._open_block(corp)
        names = [st.name for st in self.or_steps]
        return block is not None and names.index(block.name) < names.index("discard_train")

    def _end_or(self: "Engine") -> None:
        s = self.state
        s.recently_floated = []
        self.check_game_end(at_or_end=True)
        if s.finished:
            return
        if s.round.num < s.ors_in_set:
            self._start_or(s.round.num + 1)
        else:
            s.turn += 1
            self._start_stock()

    # -------------------------------------------------------------- steps
    def _build_steps(self: "Engine") -> None:
        """The operating turn's steps and interrupts: every title's, as its hooks change them."""
        self.or_steps = list(self.hooks.operating_steps(operating_steps()))
        self.or_interrupts = list(self.hooks.operating_interrupts(operating_interrupts(self.or_steps, self.title)))
        self._or_also = [st for st in self.or_steps if type(st).also is not Step.also]
        self.auction_steps = list(self.hooks.auction_steps(auction_steps(self._auction_style(), self.title)))
        self.stock_steps = list(self.hooks.stock_steps(stock_steps()))

    # The turn is ``self.or_steps`` (rounds/step.py, as the title's hooks change it) and who
    # acts before the operating company is ``self.or_interrupts``.
    def or_step(self: "Engine", name: str) -> Step | None:
        """The operating step called ``name`` in this title (None if it has none)."""
        return next((st for st in self.or_steps if st.name == name), None)

    def _step_actions(self: "Engine", step: str, corp: str) -> list[str]:
        """The action types operating step ``step`` offers ``corp`` now ([] if the title has no such step)."""
        st = self.or_step(step)
        return st.actions(self, corp) if st else []

    def _skip_steps(self: "Engine") -> None:
        """Skip blocking steps with nothing to do; end the turn if none is left."""
        s = self.state
        r = s.round
        corp = self._or_operator()
        for step in self.or_steps:
            if s.corporations[corp].closed:  # it went into receivership in its turn (1848 5.5.1): the turn ends
                self._next_corp()
                return
            if step.name in r.steps_done:
                continue
            if step.blocks(self, corp) if step.own_blocks else step.actions(self, corp):
                return
            if not step.once:
                continue
            step.skip(self, corp)
            if s.finished:
                return
        self._next_corp()

    def _may_convert(self: "Engine", corp: str) -> bool:
        """At the start of its turn, once the phase allows it, a five-share
        corporation that has operated may convert to ten shares."""
        conv = self.title.data.get("conversion")
        c = self.state.corporations[corp]
        return bool(conv) and conv.get("may_status") in self.phase.status and c.size == 5 and c.operated

    def _skip(self: "Engine", step: str, corp: str) -> None:
        st = self.or_step(step)
        if st is not None:
            st.skip(self, corp)

    def _open_block(self: "Engine", corp: str) -> tuple[Step | None, list[str]]:
        """The operating company's first open (blocking) step and the actions it offers."""
        r = self.state.round
        for step in self.or_steps:
            if step.name in r.steps_done:
                continue
            acts = step.actions(self, corp)
            if acts or (step.own_blocks and step.blocks(self, corp)):
                return step, acts
        return None, []

    def _open_step(self: "Engine", corp: str) -> tuple[str | None, list[str]]:
        """The operating company's first open step (its name) and ``_step_actions`` of it."""
        step, acts = self._open_block(corp)
        return (step.name if step else None), acts

    def _interrupt(self: "Engine") -> tuple[Interrupt | None, str | None]:
        """The first interrupt with someone who must act before the operating company."""
        for step in self.or_interrupts:
            who = step.acting(self)
            if who:
                return step, who
        return None, None

    def or_actions(self: "Engine", entity: str) -> list[str]:
        """Action types ``entity`` may take now in the operating round."""
        step, who = self._interrupt()
        if step is not None:
            return step.offer(self, entity, who)  # type: ignore[arg-type]
        corp = self._or_operator()
        return self._turn_actions(entity, corp, *self._open_step(corp))

    def _turn_actions(self: "Engine", entity: str, corp: str, block: str | None, block_acts: list[str]) -> list[str]:
        """``or_actions`` once no interrupt is pending: ``block`` is the operating company's
        first open step, ``block_acts`` its actions."""
        s = self.state
        out: list[str] = []
        if entity in s.companies:
            if self._ability_user_ok(entity, corp, "tile_lay") and self._special_track_ok(entity, block):
                out.append("lay_tile")
            return out + self.company_actions(entity)
        if entity != corp:
            pres = self.president(corp)
            buying = self.or_step("buy_train")
            if entity == pres and isinstance(buying, BuyTrain):
                return buying.for_president(self, corp, block)
            return []
        for step in self._or_also:  # the steps that offer something while another blocks
            out += step.also(self, corp, block)
        if block:
            out += block_acts
        return list(dict.fromkeys(out))

    def _or_process(self: "Engine", action: A.Action) -> None:
        s = self.state
        r = s.round
        interrupt, who = self._interrupt()
        if interrupt is not None:
            interrupt.handle(self, who, action)  # type: ignore[arg-type]
            self._after_or_action()
            return
        corp = self._or_operator()
        block, block_acts = self._open_block(corp)
        name = block.name if block else None
        allowed = self._turn_actions(action.entity, corp, name, block_acts)  # or_actions: no interrupt is pending
        if action.type not in allowed:
            if action.entity == corp and isinstance(action, A.BuyTrain) and not self._room(corp):
                raise IllegalAction(f"{corp} is at its train limit: {self.limit_reason(corp)}")
            if action.entity == corp:
                for step in self.or_steps:
                    if action.type in step.takes:
                        step.refuse(self, corp, action)  # a precise refusal, if the step has one
            if action.entity not in (corp, self.president(corp)) and action.entity not in s.companies:
                if isinstance(action, A.BuyTrain):  # a train after his company's turn ended at its limit
                    full = [c for c in r.entities[:r.index] if action.entity in (c, self.president(c))
                            and not s.corporations[c].closed and not self._room(c)]
                    if full:
                        raise type(self._not_turn(action.entity))(
                            f"{self._not_turn(action.entity)}; {full[-1]}'s turn ended when it reached its "
                            f"train limit: {self.limit_reason(full[-1])}")
                raise self._not_turn(action.entity)
            if action.entity == self.president(corp) and action.type in self.or_actions(corp):
                raise IllegalAction(f"{action.entity} is the president of {corp}: the action is {corp}'s "
                                    f"(entity {corp}), not the player's")
            if not allowed and action.entity == self.president(corp):  # not "allowed: nothing": his company may act
                raise IllegalAction(f"{action.entity} may not {plain(action.type)} now; {corp} may now "
                                    f"{plain_list(self.or_actions(corp))}")
            who = f"{corp} may not {plain(action.type)} with {action.entity}" if action.entity in s.companies \
                else f"{action.entity} may not {plain(action.type)}"  # not "BLC may not ..." (play-through s11)
            raise IllegalAction(f"{who} now; allowed: {plain_list(allowed)}")
        if action.entity in s.companies:
            if isinstance(action, A.LayTile):
                self._special_lay(action)
            else:
                self._company_process(action)
        elif isinstance(action, A.Pass):
            assert block
            r.steps_done.add(block.name)
        else:
            step = block if block is not None and action.type in block.takes else \
                next((st for st in self.or_steps if action.type in st.takes), None)
            if step is None:
                raise IllegalAction(f"'{plain(action.type)}' is not a move of the operating round")
            if step.process(self, corp, action):
                return  # the step ended the turn itself
        if not isinstance(action, A.Pass):
            for st in self.or_steps:  # a beginning-of-turn step is over once another move is made
                if st.first_only and action.type not in st.takes:
                    r.steps_done.add(st.name)
        self._after_or_action()

    def _after_or_action(self: "Engine") -> None:
        s = self.state
        self.check_game_end()
        if s.finished:
            return
        if s.round.kind == "operating":
            self._skip_steps()


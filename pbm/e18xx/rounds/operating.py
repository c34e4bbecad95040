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

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine

BLOCKING = ("home_token", "convert", "track", "token", "route", "dividend", "discard_train", "buy_train", "buy_company")


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
        forced = self.forced_lay_company()
        if forced:
            return forced
        crisis = self.cash_crisis_player()
        if crisis:
            return crisis
        crowded = self.crowded_corps()
        if crowded:
            return crowded[0]
        return self._or_operator()

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
        r.tile_lays = 0
        r.upgraded = False
        r.routes = []
        r.revenue = 0
        r.subsidy = 0
        r.ran = False
        r.laid_hexes = []
        r.emergency_sold = False
        self.log(f"{self.controller(corp.sym)} operates {corp.sym}")
        if self.joint_homes(corp.sym):
            self.place_joint_homes(corp)
        else:
            self._place_home_token(corp)
        self._skip_steps()

    def _next_corp(self: "Engine") -> None:
        s = self.state
        r = s.round
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
    def _step_actions(self: "Engine", step: str, corp: str) -> list[str]:
        s = self.state
        r = s.round
        c = s.corporations[corp]
        if step == "home_token":
            return ["place_token"] if s.pending_tokens else []
        if step == "discard_train":
            return []
        if step == "convert":
            return ["convert", "pass"] if self._may_convert(corp) else []
        if step == "track":
            if r.tile_lays < self._tile_lays_allowed(corp):
                return ["lay_tile", "pass"]
            # the step stays open while a tile-laying private could still be bought
            return ["pass"] if self._can_buy_tile_company(corp) or self._owned_tile_ability(corp) else []
        if step == "token":
            if corp in r.tokened:
                return []
            if self._can_place_token(corp):
                return ["place_token", "pass"]
            if self._special_token_open(corp):
                return ["pass"]
            return []
        if step == "route":
            if r.ran or not self.corp_trains(corp) or not self._can_run_route(corp):
                return []
            return ["run_routes"]
        if step == "dividend":
            return ["dividend"] if r.revenue > 0 else []
        if step == "buy_train":
            if self._must_buy_train(corp):
                return ["buy_train"]
            return ["buy_train", "pass"] if self._can_buy_train(corp) else []
        if step == "buy_company":
            out = ["buy_company"] if self._can_buy_company(corp) else []
            if self.can_take_loan(corp):  # the turn's last chance to borrow (title data ``loans``)
                out.append("take_loan")
            elif "site_turn_end_pass" in self.optional_rules and self.can_take_loan(corp, ignore_round=True):
                out.append("pass")  # 18xx.games waits for the director's pass even after this round's loan
            return list(dict.fromkeys(out + ["pass"])) if out else []
        raise AssertionError(step)

    def _skip_steps(self: "Engine") -> None:
        """Skip blocking steps with nothing to do; end the turn if none is left."""
        s = self.state
        r = s.round
        corp = self._or_operator()
        for step in BLOCKING:
            if step in r.steps_done:
                continue
            if step in ("discard_train", "home_token"):
                if self._step_actions(step, corp) or (step == "discard_train" and self.crowded_corps()):
                    return
                continue
            if self._step_actions(step, corp):
                return
            self._skip(step, corp)
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
        r = self.state.round
        r.steps_done.add(step)
        if step == "dividend":
            self._pay_dividend(corp, "withhold")

    def _open_step(self: "Engine", corp: str) -> tuple[str | None, list[str]]:
        """The operating company's first open step and ``_step_actions`` of it."""
        r = self.state.round
        for step in BLOCKING:
            if step in r.steps_done:
                continue
            if step == "discard_train":
                if self.crowded_corps():
                    return step, []  # _step_actions has none for it
                continue
            acts = self._step_actions(step, corp)
            if acts:
                return step, acts
        return None, []

    def or_actions(self: "Engine", entity: str) -> list[str]:
        """Action types ``entity`` may take now in the operating round."""
        s = self.state
        forced = self.forced_lay_company()
        if forced:
            return ["lay_tile"] if entity == forced else []
        crisis = self.cash_crisis_player()
        if crisis:
            return ["sell_shares"] if entity == crisis else []
        crowded = self.crowded_corps()
        if crowded:
            return ["discard_train"] if entity == crowded[0] else []
        corp = self._or_operator()
        return self._turn_actions(entity, corp, *self._open_step(corp))

    def _turn_actions(self: "Engine", entity: str, corp: str, block: str | None, block_acts: list[str]) -> list[str]:
        """``or_actions`` once no private must lay, no director must sell and no company must
        discard: ``block`` is the operating company's first open step, ``block_acts`` its actions."""
        s = self.state
        out: list[str] = []
        if entity in s.companies:
            comp = s.companies[entity]
            if self._ability_user_ok(entity, corp, "tile_lay") and self._special_track_ok(entity, block):
                out.append("lay_tile")
            return out + self.company_actions(entity)
        if entity != corp:
            pres = self.president(corp)
            if entity == pres and block == "buy_train" and self._needs_emergency(corp):
                return ["sell_shares"]
            return []
        if block == "buy_train" and self._must_go_bankrupt(corp):
            out.append("bankrupt")
        if block == "token" and self._special_token_ok(corp):
            out.append("place_token")
        if self._can_buy_company(corp) and block not in ("buy_company", None):
            out.append("buy_company")
        if self.can_take_loan(corp) and block is not None:
            out.append("take_loan")
        if block:
            out += block_acts
        return list(dict.fromkeys(out))

    def _or_process(self: "Engine", action: A.Action) -> None:
        s = self.state
        r = s.round
        forced = self.forced_lay_company()
        if forced:
            if action.entity != forced or not isinstance(action, A.LayTile):
                raise IllegalAction(f"{forced}'s tile must be laid first (lay <tile> <hex> <rotation> with {forced})")
            self._special_lay(action)
            s.companies[forced].closed = True
            self.log(f"{forced} closes")
            self._after_or_action()
            return
        crisis = self.cash_crisis_player()
        if crisis:
            if action.entity != crisis or not isinstance(action, A.SellShares):
                raise IllegalAction(f"5.5.3: {crisis} owes {-s.cash[f'P:{crisis}']} and must sell shares first")
            target = action.corporation or (action.shares[0].rsplit("_", 1)[0] if action.shares else "")
            units = action.count or len(action.shares) or 1
            if target in s.corporations and units not in self.crisis_bundles(crisis, target):
                raise IllegalAction(f"12.4.1: {crisis} may not sell {units} of {target} now (a sale to pay "
                                    "compensation may not change a director)")
            self._do_sell(crisis, action)
            self._after_or_action()
            return
        crowded = self.crowded_corps()
        if crowded:
            if action.entity != crowded[0] or not isinstance(action, A.DiscardTrain):
                raise IllegalAction(f"{crowded[0]} has more trains than the limit and must discard one first")
            self._discard(action)
            self._after_or_action()
            return
        corp = self._or_operator()
        block, block_acts = self._open_step(corp)
        allowed = self._turn_actions(action.entity, corp, block, block_acts)  # or_actions: the checks above passed
        if isinstance(action, A.TakeLoan) and action.entity == corp and not self.can_take_loan(corp):
            self.take_loan(corp)  # refuses, saying why (5.6)
        if action.type not in allowed:
            if action.entity not in (corp, self.president(corp)) and action.entity not in s.companies:
                raise self._not_turn(action.entity)
            if action.entity == self.president(corp) and action.type in self.or_actions(corp):
                raise IllegalAction(f"{action.entity} is the president of {corp}: the action is {corp}'s "
                                    f"(entity {corp}), not the player's")
            raise IllegalAction(f"{action.entity} may not {action.type} now; allowed: {', '.join(allowed) or 'nothing'}")
        if action.entity in s.companies:
            if isinstance(action, A.LayTile):
                self._special_lay(action)
            else:
                self._company_process(action)
        elif isinstance(action, A.Pass):
            assert block
            r.steps_done.add(block)
        elif isinstance(action, A.LayTile):
            if r.tile_lays >= self._tile_lays_allowed(corp):
                raise IllegalAction(f"{corp} has already laid its tile this turn")
            here = self.state.map.placed.get(action.hex)
            upgrade = here is not None and here.tile.color != "white"
            self._lay_tile(corp, action)
            r.tile_lays += 1
            r.upgraded = r.upgraded or upgrade
            if not self._step_actions("track", corp):
                r.steps_done.add("track")
        elif isinstance(action, A.PlaceToken):
            if block == "home_token":
                self._place_pending_token(corp, action)
            elif block == "token" and self._is_special_token(corp, action):
                self._place_special_token(corp, action)
            else:
                self._place_token(corp, action)
                r.steps_done.add("token")
        elif isinstance(action, A.RunRoutes):
            self._run_routes(corp, action)
        elif isinstance(action, A.Dividend):
            if action.kind not in ("payout", "withhold"):
                raise IllegalAction("dividend kind is 'payout' or 'withhold'")
            self._pay_dividend(corp, action.kind)
            r.steps_done.add("dividend")
        elif isinstance(action, A.BuyTrain):
            self._buy_train(corp, action)
            if s.corporations[corp].closed:  # forced loans put it into receivership
                self._next_corp()
                return
        elif isinstance(action, A.BuyCompany):
            self._buy_company(corp, action)
        elif isinstance(action, A.SellShares):
            self._emergency_sell(corp, action)
        elif isinstance(action, A.Bankrupt):
            self._bankrupt(corp)
            return
        elif isinstance(action, A.TakeLoan):
            self.take_loan(corp)
            if s.corporations[corp].closed:
                self._next_corp()
                return
        elif isinstance(action, A.Convert):
            self._convert(corp)
            r.steps_done.add("convert")
        else:
            raise IllegalAction(f"{action.type} is not an operating round action")
        self._after_or_action()

    def _after_or_action(self: "Engine") -> None:
        s = self.state
        self.check_game_end()
        if s.finished:
            return
        if s.round.kind == "operating":
            self._skip_steps()


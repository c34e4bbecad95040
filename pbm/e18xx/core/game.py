"""The 18xx game: a pure function of (title, players, seed, optional rules, actions).

``Game.process(action)`` applies one action or raises a :class:`GameError`
(leaving the state untouched).  ``legal_actions()`` lists what the acting
entity may do now (as action templates, see :mod:`pbm.e18xx.rounds.legal`).
The engine does no I/O.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, IllegalAction, NotYourTurn
from pbm.e18xx.rounds.operating import OperatingMixin
from pbm.e18xx.core.hooks import hooks_for
from pbm.e18xx.core.state import (Company, Corporation, GameSetup, Player, RoundState, State, Train,  # noqa: F401
                                  clone_state)
from pbm.e18xx.rounds.joint_home import JointHomeMixin
from pbm.e18xx.rounds.loans import LoansMixin
from pbm.e18xx.rounds.receivership import ReceivershipMixin
from pbm.e18xx.rounds.stock import StockMixin
from pbm.e18xx.core.title import Title, load_title
from pbm.e18xx.core.track import NEUTRAL, MapState, TrackGraph


class Game(StockMixin, OperatingMixin, LoansMixin, ReceivershipMixin, JointHomeMixin):
    """One game of an 18xx title."""

    def __init__(self, title: str | Title, players: Sequence[str], seed: int = 0,
                 optional_rules: Iterable[str] = (), player_ids: Sequence[str] | None = None):
        self.title = load_title(title) if isinstance(title, str) else title
        players = list(players)
        rng = self.title.data["players"]
        if not rng["min"] <= len(players) <= rng["max"]:
            raise GameError(f"{self.title.name} needs {rng['min']}-{rng['max']} players, got {len(players)}")
        if len(set(players)) != len(players):
            raise GameError("player names must be different")
        clash = [p for p in players if p in {c["sym"] for c in self.title.data["companies"]}
                 or p in {c["sym"] for c in self.title.data["corporations"]}]
        if clash:
            raise GameError(f"player name(s) {', '.join(clash)} are also company symbols in {self.title.name}")
        self.optional_rules = tuple(optional_rules)
        unknown = [r for r in self.optional_rules if r not in self.title.data.get("optional_rules", {})]
        if unknown:
            raise GameError(f"unknown optional rule(s) {unknown}; known: {sorted(self.title.data.get('optional_rules', {}))}")
        self.setup = GameSetup(self.title.name, tuple(players), seed, self.optional_rules,
                               tuple(str(p) for p in (player_ids or players)))
        self.actions: list[A.Action] = []
        self._graph: TrackGraph | None = None
        self._graph_version = -1
        self.hooks = hooks_for(self.title)(self)
        self._build_steps()
        self.state = self._initial_state(players, list(player_ids or players))
        self._start()

    # ------------------------------------------------------------------
    # construction
    def _initial_state(self, names: list[str], ids: list[str]) -> State:
        t = self.title
        n = len(names)
        players = [Player(name, str(pid)) for name, pid in zip(names, ids)]
        companies = {c["sym"]: Company(c["sym"], c["name"], int(c["value"]), int(c["revenue"]))
                     for c in t.data["companies"]}
        corps: dict[str, Corporation] = {}
        removed_tokens = [sym for rule, sym in t.data.get("token_removed_by_rule", {}).items()
                          if rule in self.optional_rules]
        for c in t.data["corporations"]:
            home = c["home"]
            for rule, alt in c.get("optional_home", {}).items():
                if rule in self.optional_rules:
                    home = alt
            costs = list(c["tokens"])
            for _ in range(removed_tokens.count(c["sym"])):
                costs.pop()
            corps[c["sym"]] = Corporation(c["sym"], c["name"], home, costs, [None] * len(costs),
                                          size=int(c.get("size", 10)))
        trains: dict[str, Train] = {}
        for td in t.trains:
            for i in range(td.count):
                tid = f"{td.name}-{i}"
                trains[tid] = Train(tid, td.name, td.distance, td.price)
                if len(td.variants) == 1:  # a single variant needs no declaration
                    trains[tid].variant, trains[tid].kind = td.variants[0]
        lender = t.data.get("bank_corporation")
        if lender:  # a player-less corporation whose shares trade and whose treasury lends
            corps[lender["sym"]] = Corporation(lender["sym"], lender["name"], "", [], [], ipoed=True,
                                               equal_shares=True)
        cash = {"bank": int(t.data["bank_cash"])}
        start = t.starting_cash(n)
        for p in players:
            cash[p.key] = start
            cash["bank"] -= start
        for c in corps.values():
            cash[c.key] = 0
        if lender:
            cash[f"C:{lender['sym']}"] = int(lender["cash"])
        share_owner: dict[str, str] = {}
        share_seq: dict[str, int] = {}
        seq = 0
        for c in corps.values():
            for i in range(10 if c.equal_shares else 9):  # a five-share corporation's last five come when it converts
                sid = f"{c.sym}_{i}"
                share_owner[sid] = f"ipo:{c.sym}" if i < self.certs_for_size(c.size) else f"unissued:{c.sym}"
                if c.equal_shares:
                    share_owner[sid] = "pool"
                share_seq[sid] = seq
                seq += 1
        m = MapState.initial(t)
        m.red_pass = "site_red_city_pass" in self.optional_rules
        market = {(r, col): [] for r, row in enumerate(t.market) for col, cell in enumerate(row) if cell}
        rnd = RoundState("auction", [p.name for p in players])
        st = State(players, companies, corps, trains, m, cash, share_owner, share_seq, market, rnd, seq=seq)
        st.tile_supply = {name: list(range(td.count)) for name, td in t.tiles.items()}
        for rule, names in t.data.get("tiles_removed_by_rule", {}).items():
            if rule in self.optional_rules:
                for name in names:
                    st.tile_supply[name] = []
        return st

    def _start(self) -> None:
        s = self.state
        m = s.map
        # neutral tokens on the gray off-map cities
        for coord in self.title.data.get("neutral_tokens", []):
            m.tokens[(coord, 0)][0] = NEUTRAL
        # home cities are reserved for their company (single-city hexes)
        lender = self.title.data.get("bank_corporation")
        if lender:
            self._set_price(s.corporations[lender["sym"]], tuple(lender["price"]))
        for c in s.corporations.values():
            if not c.home or self.title.data_corp(c.sym).get("no_reservation"):
                continue
            cities = m.tile(c.home).cities()
            if len(cities) == 1:
                m.reservations[(c.home, cities[0])] = c.sym
            elif cities:
                m.hex_reservations[c.home] = c.sym
        # the last 2 train is the Ocilla Southern's free train
        for comp in self.title.data["companies"]:
            for ab in comp.get("abilities", []):
                if ab["type"] == "free_train":
                    tr = s.trains[ab["train"]]
                    tr.owner, tr.buyable = NEUTRAL, False
        # corporations marked blocked_until_float put a flipped home token down
        for cd in self.title.data["corporations"]:
            if cd.get("blocked_until_float"):
                corp = s.corporations[cd["sym"]]
                self._place_home_token(corp)
                m.flipped.add(corp.sym)
        self.hooks.after_setup()
        self._start_auction()

    @classmethod
    def from_log(cls, log: dict[str, Any]) -> "Game":
        """Rebuild a game from ``to_log()`` output (replays every action)."""
        g = cls(log["title"], log["players"], int(log.get("seed", 0)), log.get("optional_rules", ()),
                log.get("player_ids"))
        for d in log.get("actions", []):
            g.process(A.action_from_dict(d))
        return g

    def to_log(self) -> dict[str, Any]:
        return {"title": self.title.name, "players": list(self.setup.players), "seed": self.setup.seed,
                "optional_rules": list(self.optional_rules), "player_ids": list(self.setup.player_ids),
                "actions": [a.to_dict() for a in self.actions]}

    # ------------------------------------------------------------------
    # processing
    def process(self, action: A.Action, *, rollback: bool = True) -> "Game":
        """Apply ``action``; on any GameError the state is restored and the error re-raised.

        ``rollback=False`` skips the copy taken to restore the state: for a replay,
        which abandons the game at the first refused action anyway.  After a refusal
        without rollback the game must not be used again."""
        if self.state.finished:
            from pbm.e18xx.events import end_reason_words
            raise IllegalAction(f"the game is over ({end_reason_words(self)}); no more actions")
        snapshot = clone_state(self.state) if rollback else None
        self._stock_marks: set[tuple] = set()  # the stock rounds begun inside this action (rounds/stock.py)
        try:
            self._dispatch(action)
        except GameError:
            self._restore(snapshot)
            raise
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            self._restore(snapshot)
            raise GameError(f"malformed {action.type} action: {exc!r}") from None
        self.actions.append(action)
        return self

    def _restore(self, snapshot: State | None) -> None:
        """Put the state back as it was (same object, so references stay valid);
        without a snapshot the game is marked unusable."""
        self._graph = None
        if snapshot is None:
            self.state.finished = True
            self.state.end_reason = "abandoned: an action was refused during a replay without rollback"
            return
        self.state.__dict__.update(snapshot.__dict__)

    def _dispatch(self, action: A.Action) -> None:
        kind = self.state.round.kind
        if kind == "auction":
            self._auction_process(action)
        elif kind == "stock":
            self._stock_process(action)
        else:
            self._or_process(action)

    # ------------------------------------------------------------------
    # public queries
    @property
    def finished(self) -> bool:
        return self.state.finished

    def current_entity(self) -> str | None:
        if self.state.finished:
            return None
        kind = self.state.round.kind
        if kind == "auction":
            return self._auction_current()
        if kind == "stock":
            return self._stock_current()
        return self._or_current()

    def acting_players(self) -> list[str]:
        """Names of the players who must act now (the president for a company)."""
        ent = self.current_entity()
        if ent is None:
            return []
        return [self.controller(ent)]

    def controller(self, entity: str) -> str:
        s = self.state
        if entity in s.corporations:
            pres = self.president(entity)
            return pres or entity
        if entity in s.companies:
            owner = s.companies[entity].owner or ""
            if owner.startswith("C:"):
                return self.controller(owner[2:])
            return owner[2:]
        return entity

    def open_step(self) -> tuple[Any, str | None]:
        """(the step open now, who acts in it): a round's steps are ``auction_steps``,
        ``stock_steps`` and ``or_steps``/``or_interrupts`` (rounds/step.py); (None, None) once
        the game is over."""
        if self.state.finished:
            return None, None
        kind = self.state.round.kind
        if kind == "auction":
            return self._auction_step(), self._auction_current()
        if kind == "stock":
            return self.stock_steps[0], self._stock_current()
        step, who = self._interrupt()
        if step is not None:
            return step, who
        corp = self._or_operator()
        return self._open_block(corp)[0], corp

    def what_now(self) -> dict[str, Any]:
        """What happens now, for a player or a web page: the round, the open step, who acts,
        how the step reads, its rule section in this title, and the action types allowed."""
        step, who = self.open_step()
        if step is None:
            return {"round": self.state.round.kind, "step": None, "entity": None, "description": "the game is over",
                    "rule": "", "actions": []}
        if self.state.round.kind == "operating":
            allowed = self.or_actions(who) if who else []
        else:
            allowed = step.offer(self, who) if who else []
        return {"round": self.state.round.kind, "step": step.name, "entity": who, "description": step.text(self.title),
                "rule": step.rule(self.title), "actions": allowed}

    def legal_actions(self) -> list[A.Action]:
        """Representative legal actions for the acting entity (see legal.py)."""
        from pbm.e18xx.rounds.legal import legal_actions
        return legal_actions(self)

    def result(self) -> dict[str, int]:
        return {p.name: self.player_value(p.name) for p in self.state.players}

    def player_value(self, name: str) -> int:
        s = self.state
        key = f"P:{name}"
        value = s.cash[key]
        for sid, owner in s.share_owner.items():
            if owner == key:
                corp = s.corporations[sid.rsplit("_", 1)[0]]
                if corp.price and not corp.closed:
                    value += self.share_price(corp.sym) * self.sid_percent(sid) // (100 // corp.size)
        if self.title.data.get("private_value_in_score", True):
            for c in s.companies.values():
                if c.owner == key and not c.closed:
                    value += c.value
        return value

    def total_cash(self) -> int:
        return sum(self.state.cash.values())

    # ------------------------------------------------------------------
    # helpers shared by the rounds
    def log(self, text: str) -> None:
        self.state.log.append(text)

    def player(self, name: str) -> Player:
        for p in self.state.players:
            if p.name == name:
                return p
        raise GameError(f"unknown player {name!r}")

    def corp(self, sym: str) -> Corporation:
        found = self.state.corporations.get(sym) or next(
            (c for k, c in self.state.corporations.items() if k.lower() == str(sym).lower()), None)
        if found is None:
            raise GameError(f"unknown corporation {sym!r}; known: {', '.join(self.state.corporations)}")
        return found

    def company(self, sym: str) -> Company:
        found = self.state.companies.get(sym) or next(
            (c for k, c in self.state.companies.items() if k.lower() == str(sym).lower()), None)
        if found is None:
            raise GameError(f"unknown private company {sym!r}; known: {', '.join(self.state.companies)}")
        return found

    def transfer(self, src: str, dst: str, amount: int) -> None:
        if amount < 0:
            raise GameError(f"negative payment {amount}")
        s = self.state
        if src == "bank" and s.cash["bank"] - amount < 0:
            s.bank_broken = True
        s.cash[src] -= amount
        s.cash[dst] += amount

    @property
    def phase(self):
        return self.title.phases[self.state.phase]

    def phase_colors(self) -> tuple[str, ...]:
        return self.phase.tiles

    def graph(self) -> TrackGraph:
        m = self.state.map
        g = self._graph
        if g is None or g.map is not m:
            g = self._graph = TrackGraph(m)
        elif self._graph_version != m.version:
            changed = g.built_from(m)  # the graph depends only on the tiles placed
            if changed is None:
                g = self._graph = TrackGraph(m)
            elif changed:
                g = self._graph = g.relaid(m, changed)
            else:  # same track, other stations: what a company reaches depends on them
                g.__dict__.pop("_reach_cache", None)
        self._graph_version = m.version
        return g

    # shares -------------------------------------------------------------
    @staticmethod
    def share_percent(sid: str) -> int:
        """Percent of a ten-share corporation's certificate (use ``sid_percent`` for any size)."""
        return 20 if sid.endswith("_0") else 10

    @staticmethod
    def certs_for_size(size: int) -> int:
        """Certificates of a corporation of ``size`` shares (the president's counts two shares)."""
        return size - 1

    def sid_percent(self, sid: str) -> int:
        corp = self.state.corporations[sid.rsplit("_", 1)[0]]
        unit = 100 // corp.size
        if corp.equal_shares:
            return unit
        return 2 * unit if sid.endswith("_0") else unit

    def unit(self, corp: str) -> int:
        """Percent of one share of ``corp`` (10 for a ten-share, 20 for a five-share corporation)."""
        return 100 // self.state.corporations[corp].size

    def pres_percent(self, corp: str) -> int:
        return 2 * self.unit(corp)

    def shares_of(self, owner: str, corp: str) -> list[str]:
        s = self.state
        ids = self._share_pcts(corp)
        out = [sid for sid in s.share_owner.held(owner, corp) if sid in ids]
        if len(out) > 1:
            out.sort(key=s.share_seq.__getitem__)
        return out

    def _share_ids(self, corp: str) -> list[tuple[str, int]]:
        cache = self.__dict__.setdefault("_sid_cache", {})
        size = self.state.corporations[corp].size
        ids = cache.get((corp, size))
        if ids is None:
            unit = 100 // size
            if self.state.corporations[corp].equal_shares:
                ids = cache[(corp, size)] = [(f"{corp}_{i}", unit) for i in range(size)]
            else:
                ids = cache[(corp, size)] = [(f"{corp}_{i}", 2 * unit if i == 0 else unit)
                                             for i in range(self.certs_for_size(size))]
        return ids

    def _share_pcts(self, corp: str) -> dict[str, int]:
        """``share id -> percent`` of the certificates ``corp`` has at its size now."""
        cache = self.__dict__.setdefault("_pct_cache", {})
        c = self.state.corporations[corp]
        key = (corp, c.size, c.equal_shares)
        got = cache.get(key)
        if got is None:
            got = cache[key] = dict(self._share_ids(corp))
        return got

    def percent_of(self, owner: str, corp: str) -> int:
        held = self.state.share_owner.held(owner, corp)
        if not held:
            return 0
        pcts = self._share_pcts(corp)
        total = 0
        for sid in held:
            total += pcts.get(sid, 0)
        return total

    def move_share(self, sid: str, owner: str) -> None:
        s = self.state
        s.seq += 1
        s.share_owner[sid] = owner
        s.share_seq[sid] = s.seq

    def president(self, corp: str) -> str | None:
        if self.state.corporations[corp].equal_shares:
            return None
        owner = self.state.share_owner[f"{corp}_0"]
        return owner[2:] if owner.startswith("P:") else None

    def share_price(self, corp: str) -> int:
        c = self.corp(corp)
        if c.price is None:
            return 0
        r, col = c.price
        cell = self.title.market[r][col]
        assert cell is not None
        return cell.price

    def market_cell(self, corp: str):
        c = self.corp(corp)
        assert c.price is not None
        return self.title.market[c.price[0]][c.price[1]]

    def num_certs(self, name: str) -> int:
        s = self.state
        key = f"P:{name}"
        n = 0
        market = self.title.market
        for sym, sids in s.share_owner.holdings(key).items():
            corp = s.corporations[sym]
            if corp.price and market[corp.price[0]][corp.price[1]].kind == "y":  # type: ignore[union-attr]
                continue
            n += len(sids)
        if self.title.data.get("privates_count_for_cert_limit", True):  # 1848 12.2: privates do not count
            n += sum(1 for c in s.companies.values() if c.owner == key and not c.closed)
        return n

    def cert_limit(self, player: str | None = None) -> int:
        """The certificate limit (of ``player``, where receiverships made it personal)."""
        special = self.receivership_cert_limit(player)
        if special is not None:
            return special
        return self.title.cert_limit(len([p for p in self.state.players if not p.bankrupt]))

    def player_order_from(self, name: str) -> list[str]:
        # the player himself even while going bankrupt (his sales may hand a presidency on)
        names = [p.name for p in self.state.players if not p.bankrupt or p.name == name]
        i = names.index(name)
        return names[i:] + names[:i]

    def presidency_check(self, corp: str, previous: str | None, swap_to_previous: bool = True) -> None:
        """Hand the president's certificate to the biggest holder if the
        current president no longer holds the most (ties keep the president;
        otherwise the first in seat order after the old president)."""
        s = self.state
        if s.corporations[corp].equal_shares:
            return
        holders = {p.name: self.percent_of(p.key, corp) for p in s.players}
        best = max(holders.values()) if holders else 0
        if previous is not None and holders.get(previous, 0) == best:
            return
        majority = [n for n, v in holders.items() if v == best and v >= self.pres_percent(corp)]
        if not majority:
            return
        if previous is None:
            return
        order = self.player_order_from(previous)
        new = min(majority, key=lambda n: order.index(n) if n in order else 99)
        pres_sid = f"{corp}_0"
        holder = s.share_owner[pres_sid]
        if holder == f"P:{new}":
            return
        prev_key = f"P:{previous}"
        swap_to = prev_key if (holder == prev_key or self.percent_of(prev_key, corp) >= 20) else "pool"
        for sid in self.shares_of(f"P:{new}", corp)[:2]:
            self.move_share(sid, swap_to)
        self.move_share(pres_sid, f"P:{new}")
        self.log(f"{new} becomes president of {corp}")
        if corp in self.state.route_bonus_corps:  # 18AL Table III: a new president loses the name chits
            self.log(f"{corp} loses {self.state.route_bonus_corps.pop(corp)}'s route bonuses (new president)")

    def _convert(self, corp: str, quiet: bool = False) -> None:
        """A five-share corporation becomes a ten-share one: its certificates
        now count half as much, five more single shares go to its treasury and it gets the
        title's ``conversion.tokens`` more station tokens."""
        s = self.state
        c = s.corporations[corp]
        if c.size != 5:
            raise IllegalAction(f"{corp} is already a ten-share corporation")
        c.size = 10
        for sid, owner in list(s.share_owner.items()):
            if owner == f"unissued:{corp}":
                self.move_share(sid, f"ipo:{corp}")
        extra = list(self.title.data.get("conversion", {}).get("tokens", []))
        c.token_costs.extend(extra)
        c.tokens.extend([None] * len(extra))
        if not quiet:
            self.log(f"{corp} converts to a ten-share corporation")

    # market ---------------------------------------------------------------
    def _cell_exists(self, r: int, c: int) -> bool:
        return (r, c) in self.state.market

    def _set_price(self, corp: Corporation, pos: tuple[int, int]) -> None:
        if pos == corp.price:
            return
        s = self.state
        if corp.price is not None:
            s.market[corp.price].remove(corp.sym)
        corp.price = pos
        s.market[pos].append(corp.sym)
        cell = self.title.market[pos[0]][pos[1]]
        assert cell is not None
        end_at = self.title.data.get("end_price_by_rule", {})
        if cell.kind == "e" or any(r in self.optional_rules and cell.price >= p for r, p in end_at.items()):
            s.market_max = True

    def move_right(self, corp: Corporation) -> None:
        r, c = corp.price  # type: ignore[misc]
        if self._cell_exists(r, c + 1):
            self._set_price(corp, (r, c + 1))
        else:
            self.move_up(corp)

    def move_left(self, corp: Corporation) -> None:
        r, c = corp.price  # type: ignore[misc]
        if c > 0 and self._cell_exists(r, c - 1):
            self._set_price(corp, (r, c - 1))
        else:
            self.move_down(corp)

    def _row_isolated(self, a: int, b: int) -> bool:
        """Title data ``isolated_market_rows``: no price moves between such a row and another."""
        rows = self.title.data.get("isolated_market_rows", ())
        return (a in rows) != (b in rows)

    def move_up(self, corp: Corporation) -> None:
        r, c = corp.price  # type: ignore[misc]
        if r > 0 and self._cell_exists(r - 1, c) and not self._row_isolated(r, r - 1):
            self._set_price(corp, (r - 1, c))

    def move_down(self, corp: Corporation) -> None:
        r, c = corp.price  # type: ignore[misc]
        if self._cell_exists(r + 1, c) and not self._row_isolated(r, r + 1):
            self._set_price(corp, (r + 1, c))

    def operating_order(self) -> list[str]:
        s = self.state
        floated = [c for c in s.corporations.values() if c.floated and not c.closed and c.price]

        def key(c: Corporation) -> tuple:
            r, col = c.price  # type: ignore[misc]
            return (-self.share_price(c.sym), -col, r, s.market[(r, col)].index(c.sym), c.sym)
        return [c.sym for c in sorted(floated, key=key)]

    # private companies -----------------------------------------------------
    def company_ability(self, sym: str, kind: str) -> dict[str, Any] | None:
        return self.title.company_ability(sym, kind)

    def payout_companies(self) -> None:
        s = self.state
        order = {p.key: i for i, p in enumerate(s.players)}
        comps = [c for c in s.companies.values() if c.owner and not c.closed and c.revenue > 0]
        comps.sort(key=lambda c: ((0, order.get(c.owner, 0)) if c.owner.startswith("P:") else (1, 0),  # type: ignore[union-attr]
                                  c.revenue, c.name))
        for c in comps:
            self.transfer("bank", c.owner, c.revenue)  # type: ignore[arg-type]

    def close_companies(self) -> None:
        for c in self.state.companies.values():
            if not c.closed:
                c.closed = True
                if c.owner and c.owner.startswith("P:") is False:
                    pass
        self.log("-- private companies close --")

    # end of game -------------------------------------------------------------
    def check_game_end(self, at_or_end: bool = False) -> None:
        s = self.state
        if s.finished:
            return
        triggers = self.title.data.get("game_end", {})
        if s.bank_broken and "bank" in triggers and not s.end_trigger:
            s.end_trigger = ("bank", triggers["bank"])
        if s.market_max and "stock_market" in triggers and not s.end_trigger:
            s.end_trigger = ("stock_market", triggers["stock_market"])
        if s.end_trigger and (s.end_trigger[1] == "immediate" or (at_or_end and s.end_trigger[1] == "current_or")):
            self.end_game(s.end_trigger[0])
        elif s.end_trigger and s.end_trigger[1] == "full_set" and at_or_end and s.round.kind == "operating" \
                and s.round.num >= s.ors_in_set:
            # the set of operating rounds in which it happened ends the game (after a stock round: the next set)
            self.end_game(s.end_trigger[0])

    def end_game(self, reason: str) -> None:
        s = self.state
        s.finished = True
        s.end_reason = reason
        self.log(f"-- game over ({reason}) --")

    def _not_turn(self, entity: str) -> NotYourTurn:
        cur = self.current_entity()
        who = self.controller(cur) if cur else "-"
        acting = cur if who == cur else f"{cur} ({who})"  # "Cy", not "Cy (Cy)"; a company: "CoG (Di)"
        return NotYourTurn(f"it is not {entity}'s turn: {acting} must act in the {self.state.round.kind} round")

"""Steps: a round as an ordered list of step objects (issue 30; the shape of tobymao/18xx's
``lib/engine/step``, written anew).

A step is a stateless object; what it has done this turn lives in the state
(``RoundState.steps_done`` and the round's counters), so a game's copy for undo needs
nothing from it.  Each step says

* ``takes`` -- every action type it may ever take;
* ``actions(g, corp)`` -- the action types it offers the operating company now, and
  ``blocks(g, corp)`` -- whether it must be done (or passed) before later steps;
* ``also(g, corp, block)`` -- actions it offers while an *earlier* step blocks (buying a
  private, a private's special station, a loan: the non-blocking part of a step);
* ``player_may_skip`` (a ``pass`` ends it) and ``auto_skip`` (skipped by itself when it
  offers nothing; a step that is not ``once`` is never marked done: it blocks whenever
  something is pending, like a home station to place or a train over the limit);
* ``description`` -- one line for players (``"Lay or upgrade one tile — may skip"``) and
  ``rule(title)`` -- its rule section in that title (title data ``step_rules``);
* ``process(g, corp, action)`` -- apply an action it offered (it returns True when the
  action ended the company's turn itself, e.g. a bankruptcy);
* ``legal(g, entity)`` -- its concrete legal moves, for a step that lists its own (default
  None: ``rounds/legal.py`` enumerates those of the action types the open step offers).

Interrupts (``acting(g)``) are steps that name an entity who must act before the operating
company: a private whose tile must be laid, a director who must sell to pay a debt, a
company over its train limit.

A title changes the list in its ``titles/<T>/hooks.py`` (``Hooks.operating_steps`` and
``Hooks.operating_interrupts``) with :func:`insert_after`, :func:`replace` and
:func:`remove`, by step name; see docs/18xx/engine.md.  The steps delegate to the round
mixins' code (``rounds/or_track.py``, ``rounds/or_trains.py``), so every recorded game
replays as before.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Sequence

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction

if TYPE_CHECKING:  # typing only: steps use the game through its Protocol
    from pbm.e18xx.core.protocol import StepGame
    from pbm.e18xx.core.title import Title


# Action types in the rulebooks' words, with the mail word that makes each (issue 29 item 6:
# no internal names in what a player reads).
PLAIN: dict[str, tuple[str, str]] = {
    "pass": ("pass", "pass"),
    "bid": ("bid on a private company", "bid"),
    "par": ("start a company at a par price", "par"),
    "buy_shares": ("buy a share", "buy"),
    "sell_shares": ("sell shares", "sell"),
    "lay_tile": ("lay or upgrade a tile", "lay"),
    "place_token": ("place a station", "token"),
    "run_routes": ("run trains", "run"),
    "dividend": ("pay out or withhold", "payout/withhold"),
    "buy_train": ("buy a train", "buy train"),
    "discard_train": ("discard a train", "discard"),
    "buy_company": ("buy a private company", "buy private"),
    "bankrupt": ("declare bankruptcy", "bankrupt"),
    "convert": ("convert to ten shares", "convert"),
    "assign": ("lower a private's price or use its bonus", "lower/assign"),
    "use_ability": ("use a private's ability", "use"),
    "take_loan": ("take a loan", "take loan"),
}


def plain(kind: str) -> str:
    """An action type as the rulebook says it (``buy_train`` -> ``buy a train``)."""
    return PLAIN.get(kind, (kind.replace("_", " "), ""))[0]


def plain_list(kinds: Sequence[str]) -> str:
    """Action types for a player: ``buy a train ('buy train'), pass``; ``nothing`` if none."""
    out = []
    for k in dict.fromkeys(kinds):
        words, verb = PLAIN.get(k, (k.replace("_", " "), ""))
        out.append(words if not verb or verb == words else f"{words} ('{verb}')")
    return ", ".join(out) or "nothing"


class Step:
    name: ClassVar[str] = ""
    takes: ClassVar[tuple[str, ...]] = ()
    once: ClassVar[bool] = True
    player_may_skip: ClassVar[bool] = True
    auto_skip: ClassVar[bool] = True
    description: ClassVar[str] = ""
    # set for a step whose ``blocks`` is more than "it offers an action" (read by the round)
    own_blocks: ClassVar[bool] = False
    # a step only at the beginning of the turn: over once the company has made any other move
    # (18VA 4.5.1, converting "at the beginning of the Corporation's turn")
    first_only: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        cls.own_blocks = cls.blocks is not Step.blocks

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        return []

    def blocks(self, g: "StepGame", corp: str) -> bool:
        return bool(self.actions(g, corp))

    def also(self, g: "StepGame", corp: str, block: str | None) -> list[str]:
        return []

    def skip(self, g: "StepGame", corp: str) -> None:
        """Nothing to do (or passed): the step is done for this turn."""
        g.state.round.steps_done.add(self.name)

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        raise IllegalAction(f"'{plain(action.type)}' is not a move of the operating round")

    def refuse(self, g: "StepGame", corp: str, action: A.Action) -> None:
        """Raise a precise refusal for an action of its kind that is not allowed now (default: none)."""

    def legal(self, g: "StepGame", entity: str) -> list[A.Action] | None:
        """Its legal moves for ``entity`` when it is the open step, if it lists them itself (a
        title's step may); None: ``rounds/legal.py`` enumerates them by the action types offered."""
        return None

    def rule(self, title: "Title") -> str:
        return str(title.data.get("step_rules", {}).get(self.name, ""))

    def text(self, title: "Title") -> str:
        """What the step is, in the title's rulebook's terms: title data ``step_descriptions`` (by
        step name) where a title's rule differs from the usual one (18VA 4.3.2: no sale after the
        purchase), else the step's own ``description``."""
        return str((title.data.get("step_descriptions") or {}).get(self.name) or self.description)

    def __repr__(self) -> str:
        return f"<step {self.name}>"


class Interrupt(Step):
    """A step that makes someone other than the operating company act first."""

    def acting(self, g: "StepGame") -> str | None:
        return None

    def offer(self, g: "StepGame", entity: str, acting: str) -> list[str]:
        return list(self.takes) if entity == acting else []

    def handle(self, g: "StepGame", acting: str, action: A.Action) -> None:
        raise NotImplementedError


# ----------------------------------------------------------------- the operating company's turn
class HomeToken(Step):
    name = "home_token"
    takes = ("place_token",)
    once = False
    player_may_skip = False
    description = "Place the home station the company is owed — must"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        return ["place_token"] if g.state.pending_tokens else []

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        assert isinstance(action, A.PlaceToken)
        g._place_pending_token(corp, action)
        return False


class Track(Step):
    name = "track"
    takes = ("lay_tile", "pass")
    description = "Lay or upgrade one tile — may skip"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        if g.state.round.tile_lays < g._tile_lays_allowed(corp):
            return ["lay_tile", "pass"]
        # the step stays open while a tile-laying private could still be bought
        return ["pass"] if g._can_buy_tile_company(corp) or g._owned_tile_ability(corp) else []

    def refuse(self, g: "StepGame", corp: str, action: A.Action) -> None:
        """A lay after an upgrade where the upgrade took the place of the yellow tiles (1848 7.5.1):
        say so, with the rule, rather than only "may not lay or upgrade a tile now" (play-through
        s10b finding 5)."""
        r = g.state.round
        if isinstance(action, A.LayTile) and r.upgraded and r.tile_lays >= 1 and g.upgrade_instead_words():
            ref = g.track_ref("second_lay")
            raise IllegalAction(f"{ref}{corp} has upgraded a tile this turn, and an upgrade is made instead of "
                                f"the yellow tiles, so no other tile may follow it" + g.upgrade_instead_words())

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        assert isinstance(action, A.LayTile)
        r = g.state.round
        if r.tile_lays >= g._tile_lays_allowed(corp):
            raise IllegalAction(f"{corp} has already laid its tile this turn")
        here = g.state.map.placed.get(action.hex)
        upgrade = here is not None and here.tile.color != "white"
        g._lay_tile(corp, action)
        r.tile_lays += 1
        r.upgraded = r.upgraded or upgrade
        if not self.actions(g, corp):
            r.steps_done.add(self.name)
        return False


class Token(Step):
    name = "token"
    takes = ("place_token", "pass")
    description = "Place a station — may skip"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        if corp in g.state.round.tokened:
            return []
        if g._can_place_token(corp):
            return ["place_token", "pass"]
        if g._special_token_open(corp):
            return ["pass"]
        return []

    def also(self, g: "StepGame", corp: str, block: str | None) -> list[str]:
        # a private's station while this step is open (and only a pass is left otherwise)
        return ["place_token"] if block == self.name and g._special_token_ok(corp) else []

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        assert isinstance(action, A.PlaceToken)
        if g._is_special_token(corp, action):
            g._place_special_token(corp, action)
        else:
            g._place_token(corp, action)
            g.state.round.steps_done.add(self.name)
        return False

    def refuse(self, g: "StepGame", corp: str, action: A.Action) -> None:
        # a station named before the token step when none is possible this turn: say why (or_track.py)
        why = g.token_step_refusal(corp, action) if isinstance(action, A.PlaceToken) else None
        if why:
            raise IllegalAction(why)


class Route(Step):
    name = "route"
    takes = ("run_routes",)
    player_may_skip = False
    description = "Run trains (the best routes unless you name yours) — must, if a train can run"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        if g.state.round.ran or not g.corp_trains(corp) or not g._can_run_route(corp):
            return []
        return ["run_routes"]

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        assert isinstance(action, A.RunRoutes)
        g._run_routes(corp, action)
        return False

    def refuse(self, g: "StepGame", corp: str, action: A.Action) -> None:
        # a run the company cannot make this turn: say why (issue 29), not only "not now"
        why = g.route_step_refusal(corp) if action.entity == corp else None
        if why:
            raise IllegalAction(why)


class Dividend(Step):
    name = "dividend"
    takes = ("dividend",)
    player_may_skip = False
    description = "Pay out or withhold the run's revenue — must (no revenue: withheld by itself)"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        return ["dividend"] if g.state.round.revenue > 0 else []

    def skip(self, g: "StepGame", corp: str) -> None:
        super().skip(g, corp)
        g._pay_dividend(corp, "withhold")  # no revenue: a withhold of 0, the price moves left

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        assert isinstance(action, A.Dividend)
        if action.kind not in ("payout", "withhold"):
            raise IllegalAction("dividend kind is 'payout' or 'withhold'")
        g._pay_dividend(corp, action.kind)
        g.state.round.steps_done.add(self.name)
        return False


def discard_words(g: "StepGame", corp: str) -> str:
    """What a company over its limit owns, its limit now and the lines to write (play-through s10b
    finding 9): ``it owns 3-2, 3-3, 3-4, 4-0; the limit is 3 in phase 4 (rule 9.1); write one of
    'discard 3', 'discard 4'``."""
    # 'discard 3' for a type whose trains are all alike, as the move list offers it and the mail reads
    # it (play-through s11v, 1848: the refusal offered 'discard 3-3' while 'discard 3' would do)
    st = g.state
    owned = g.limited_trains(corp)
    lines: list[str] = []
    for t in owned:
        tr = st.trains[t]
        same = [x for x in st.corporations[corp].trains if st.trains[x].name == tr.name]
        alike = all((st.trains[x].variant, st.trains[x].obsolete) == (tr.variant, tr.obsolete) for x in same)
        line = f"'discard {tr.name}'" if alike else f"'discard {t}'"
        if line not in lines:
            lines.append(line)
    return f"{g.limit_reason(corp)}; write one of {', '.join(lines)}"


class DiscardTrain(Interrupt):
    """A company over its train limit discards (it acts before the operating company); in the
    turn it holds later steps back until the discard is made."""
    name = "discard_train"
    takes = ("discard_train",)
    once = False
    player_may_skip = False
    description = "Discard a train down to the limit — must"

    def blocks(self, g: "StepGame", corp: str) -> bool:
        return bool(g.crowded_corps())

    def acting(self, g: "StepGame") -> str | None:
        crowded = g.crowded_corps()
        return crowded[0] if crowded else None

    def handle(self, g: "StepGame", acting: str, action: A.Action) -> None:
        if action.entity != acting or not isinstance(action, A.DiscardTrain):
            raise IllegalAction(f"{acting} has more trains than the limit and must discard one first: "
                                f"{discard_words(g, acting)}")
        g._discard(action)


class BuyTrain(Step):
    name = "buy_train"
    takes = ("buy_train", "pass", "sell_shares", "bankrupt")
    description = "Buy trains — may skip, unless the company must own one"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        if g._must_buy_train(corp):
            return ["buy_train"]
        if g._can_buy_train(corp):
            return ["buy_train", "pass"]
        # a private whose power is used in this step keeps it open (18VA Potomac Yards' +1 train
        # limit: a company at its limit may use it, then buy)
        return ["pass"] if g._train_limit_private(corp) else []

    def also(self, g: "StepGame", corp: str, block: str | None) -> list[str]:
        return ["bankrupt"] if block == self.name and g._must_go_bankrupt(corp) else []

    def for_president(self, g: "StepGame", corp: str, block: str | None) -> list[str]:
        """What the operating company's president may do for it now (emergency sales)."""
        return ["sell_shares"] if block == self.name and g._needs_emergency(corp) else []

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        if isinstance(action, A.BuyTrain):
            g._buy_train(corp, action)
            if g.state.corporations[corp].closed:  # forced loans put it into receivership
                g._next_corp()
                return True
            return False
        if isinstance(action, A.SellShares):
            g._emergency_sell(corp, action)
            return False
        if isinstance(action, A.Bankrupt):
            g._bankrupt(corp)
            return True
        return super().process(g, corp, action)


class BuyCompany(Step):
    name = "buy_company"
    takes = ("buy_company", "pass")
    description = "Buy a private company (any time in the turn) — may skip"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        return ["buy_company", "pass"] if g._can_buy_company(corp) else []

    def also(self, g: "StepGame", corp: str, block: str | None) -> list[str]:
        return ["buy_company"] if block not in (self.name, None) and g._can_buy_company(corp) else []

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        assert isinstance(action, A.BuyCompany)
        g._buy_company(corp, action)
        return False

    def refuse(self, g: "StepGame", corp: str, action: A.Action) -> None:
        # no private may be bought now (the phase, the owner): say why (issue 29)
        why = g.company_buy_refusal(corp, action) if isinstance(action, A.BuyCompany) and action.entity == corp \
            else None
        if why:
            raise IllegalAction(why)


# ------------------------------------------------------------------------------- interrupts
class ForcedLay(Interrupt):
    """A private whose tile must be laid now that the privates have closed (title data
    ``tile_lay.forced_on_close``)."""
    name = "forced_lay"
    takes = ("lay_tile",)
    player_may_skip = False
    description = "Lay the closed private's tile — must"

    def acting(self, g: "StepGame") -> str | None:
        return g.forced_lay_company()

    def handle(self, g: "StepGame", acting: str, action: A.Action) -> None:
        if action.entity != acting or not isinstance(action, A.LayTile):
            raise IllegalAction(f"{acting}'s tile must be laid first (lay <tile> <hex> <rotation> with {acting})")
        g._special_lay(action)
        g.state.companies[acting].closed = True
        g.log(f"{acting} closes")
        if g.state.round.turn_over:  # the operating company's turn had ended meanwhile
            g._next_corp()


def operating_steps() -> list[Step]:
    """The operating company's turn in every title, before its title changes it."""
    return [HomeToken(), Track(), Token(), Route(), Dividend(), DiscardTrain(), BuyTrain(), BuyCompany()]


def _has_ability(title: "Title", kind: str, flag: str | None = None) -> bool:
    return any(ab.get("type") == kind and (flag is None or ab.get(flag))
               for c in title.data.get("companies", []) for ab in c.get("abilities", []))


def operating_interrupts(steps: Sequence[Step], title: "Title") -> list[Interrupt]:
    """Who acts before the operating company, in this order (the discard step is shared): a
    private's forced tile lay only in a title with one (``tile_lay.forced_on_close``)."""
    discard = next((s for s in steps if isinstance(s, DiscardTrain)), DiscardTrain())
    return ([ForcedLay()] if _has_ability(title, "tile_lay", "forced_on_close") else []) + [discard]


# ------------------------------------------------------- rounds where players act in turn
class PlayerStep(Step):
    """A step of the private sale or the stock round: the round's current player acts in it.
    ``blocks(g, "")`` says whether it is the open step (the last step of a round always is)."""

    def blocks(self, g: "StepGame", corp: str) -> bool:
        return True

    def offer(self, g: "StepGame", player: str) -> list[str]:
        """The action types ``player`` may take in this step now."""
        return []

    def handle(self, g: "StepGame", action: A.Action) -> None:
        raise NotImplementedError


class ParOnBuy(PlayerStep):
    """The buyer of a private that carries a president's certificate (ability ``par_on_buy``)
    sets the company's starting value before the sale ends."""
    name = "par_on_buy"
    takes = ("par",)
    player_may_skip = False
    description = "Set the starting value of the company the private came with — must"

    def blocks(self, g: "StepGame", corp: str) -> bool:
        return bool(g.state.round.pending_par)

    def offer(self, g: "StepGame", player: str) -> list[str]:
        pending = g.state.round.pending_par
        return ["par"] if pending and pending[0] == player else []

    def handle(self, g: "StepGame", action: A.Action) -> None:
        g._pending_par_process(action)


class Waterfall(PlayerStep):
    """Title data ``auction.style`` ``waterfall`` (the default)."""
    name = "auction"
    takes = ("bid", "pass")
    description = "Buy the cheapest private at its price or bid on one — may pass"

    def offer(self, g: "StepGame", player: str) -> list[str]:
        return ["bid", "pass"] if player == g.current_entity() else []

    def handle(self, g: "StepGame", action: A.Action) -> None:
        g._waterfall_process(action)


class BidAll(PlayerStep):
    """Title data ``auction.style`` ``bid_all``: every item open to bids at once."""
    name = "auction"
    takes = ("bid", "pass")
    description = "Bid on any private or item — may pass"

    def offer(self, g: "StepGame", player: str) -> list[str]:
        return ["bid", "pass"] if player == g.current_entity() else []

    def handle(self, g: "StepGame", action: A.Action) -> None:
        g._bid_all_process(action)


class BuySellParShares(PlayerStep):
    """The stock turn: sell any lots and buy or start one certificate, in either order; a
    pass ends the turn."""
    name = "shares"
    takes = ("buy_shares", "par", "buy_company", "sell_shares", "pass")
    description = "Sell shares, then buy one share or start a company (or buy then sell) — may pass"

    def offer(self, g: "StepGame", player: str) -> list[str]:
        return g.stock_actions(player)

    def handle(self, g: "StepGame", action: A.Action) -> None:
        g._stock_turn(action)


def auction_steps(style: str, title: "Title") -> list[PlayerStep]:
    """The private sale (title data ``auction.style``; a title with a sale of its own replaces
    the ``auction`` step in its hooks), after the par of a private's company in a title with
    such a private (ability ``par_on_buy``)."""
    par = [ParOnBuy()] if _has_ability(title, "par_on_buy") else []
    return par + [BidAll() if style == "bid_all" else Waterfall()]


def stock_steps() -> list[PlayerStep]:
    return [BuySellParShares()]


# --------------------------------------------------------------------- changing a list by name
def _index(steps: Sequence[Step], name: str) -> int:
    for i, s in enumerate(steps):
        if s.name == name:
            return i
    raise ValueError(f"no step {name!r}; steps: {', '.join(s.name for s in steps)}")


def insert_after(steps: list, name: str, step: Step) -> list:
    steps.insert(_index(steps, name) + 1, step)
    return steps


def insert_before(steps: list, name: str, step: Step) -> list:
    steps.insert(_index(steps, name), step)
    return steps


def replace(steps: list, name: str, step: Step) -> list:
    steps[_index(steps, name)] = step
    return steps


def remove(steps: list, name: str) -> list:
    del steps[_index(steps, name)]
    return steps

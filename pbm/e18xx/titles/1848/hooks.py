"""1848 Australia hooks: 1848's own steps -- loans at any time in a company's turn (5.6), also
before a withhold that ends the company (5.5.1) --
and a director's sales to pay a receivership debt before anyone else acts (5.5.3) -- and
1848's own facts for ``pbm 18xx show --json``: loans, the Bank of England, receiverships,
Commonwealth Railways' link and the train sides.  The mechanics (``rounds/loans.py``,
``rounds/receivership.py``, ``rounds/dutch.py``, ``rounds/joint_home.py``) are engine code
switched on by title data."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import IllegalAction
from pbm.e18xx.core.hooks import TitleHooks
from pbm.e18xx.rounds import step as step_mod
from pbm.e18xx.rounds.step import BuyCompany, Interrupt, PlayerStep, Step, insert_before, replace

if TYPE_CHECKING:  # typing only
    from pbm.e18xx.core.protocol import StepGame


class BuyCompanyOrLoan(BuyCompany):
    """The turn's last step, with loans (5.6): a loan may be taken at any time in the turn, once
    per round; the turn waits at its end while one may still be taken."""
    takes = ("buy_company", "take_loan", "pass")
    description = "Buy a private company or take a loan (any time in the turn) — may skip"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        out = ["buy_company"] if g._can_buy_company(corp) else []
        if g.can_take_loan(corp):  # the turn's last chance to borrow
            out.append("take_loan")
        elif "site_turn_end_pass" in g.optional_rules and g.can_take_loan(corp, ignore_round=True):
            out.append("pass")  # 18xx.games waits for the director's pass even after this round's loan
        return list(dict.fromkeys(out + ["pass"])) if out else []

    def also(self, g: "StepGame", corp: str, block: str | None) -> list[str]:
        out = super().also(g, corp, block)
        if block is not None and g.can_take_loan(corp):
            out.append("take_loan")
        return out

    def refuse(self, g: "StepGame", corp: str, action: A.Action) -> None:
        if isinstance(action, A.TakeLoan) and not g.can_take_loan(corp):
            g.take_loan(corp)  # refuses, saying why (5.6)
        if isinstance(action, A.BuyCompany):
            refuse_private(g, corp, action)

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        if isinstance(action, A.BuyCompany):
            refuse_private(g, corp, action)
        if isinstance(action, A.TakeLoan):
            g.take_loan(corp)
            if g.state.corporations[corp].closed:  # the loan put it into receivership
                g._next_corp()
                return True
            return False
        return super().process(g, corp, action)


class LoanBeforeWithhold(Step):
    """5.6.1: "A loan can be taken out at any time during the company's turn".  A company with no
    train one column from receivership goes into receivership at its withhold of nothing (5.5.1,
    11.2); before that withhold the turn waits for the director's loan or pass."""
    name = "loan_before_dividend"
    takes = ("take_loan", "pass")
    description = "Take a loan before the withhold that puts the company into receivership — may skip"

    def actions(self, g: "StepGame", corp: str) -> list[str]:
        c = g.state.corporations[corp]
        if c.trains or not c.price or not g.can_take_loan(corp):
            return []
        row, col = c.price
        if col == 0 or g.title.market[row][col - 1].kind != "c":
            return []
        return ["take_loan", "pass"]

    def process(self, g: "StepGame", corp: str, action: A.Action) -> bool:
        g.take_loan(corp)
        g.state.round.steps_done.add(self.name)
        if g.state.corporations[corp].closed:  # the loan put it into receivership (5.6.2, 5.5.1)
            g._next_corp()
            return True
        return False


class DiscardTrain(step_mod.DiscardTrain):
    """8.1: "Trains in excess of the Train Limit as a result of a phase change are removed from the
    game" -- the crowded company's director chooses at once (the book).  With ``site_discard_timing``
    (18xx.games) he is asked when the operating company's turn reaches this step, after its run and
    dividend (a phase change by a receivership's train removal, 5.4.4, at the start of a turn)."""

    def acting(self, g: "StepGame") -> str | None:
        who = super().acting(g)
        return None if who is not None and g._discard_waits(who) else who

    def handle(self, g: "StepGame", acting: str, action: A.Action) -> None:
        super().handle(g, acting, action)
        if g.state.round.turn_over and not g.crowded_corps():  # the operating company's turn had ended
            g._next_corp()


def _ref(g: "StepGame", key: str, default: str) -> str:
    return str((g.title.data.get("rule_refs") or {}).get(key) or default)


def refuse_private(g: "StepGame", corp: str, action: A.BuyCompany) -> None:
    """4.1: "From the sale of the first 3/3+ train, the Public Companies can buy Private Companies
    (P1 to P4) which are owned by their Director, at a price in the range indicated"; a refusal
    names the rule and what is wrong (nothing if the purchase may go ahead)."""
    s = g.state
    comp = s.companies.get(action.company)
    if comp is None:
        return  # the engine names the privates there are
    rule = f"rule {_ref(g, 'buy_private', '4.1')}"
    if "can_buy_companies" not in g.phase.status:
        raise IllegalAction(f"rule {_ref(g, 'buy_private_phase', '4.1')}: companies buy private companies from "
                            "the sale of the first 3/3+ train")
    if comp.closed:
        raise IllegalAction(f"{rule}: {comp.sym} is closed")
    if g.title.company(comp.sym).get("no_buy"):
        raise IllegalAction(f"{rule}: {comp.sym} may not be bought by a company (only P1 to P4 are)")
    if not (comp.owner or "").startswith("P:"):
        raise IllegalAction(f"{rule}: {comp.sym} belongs to {(comp.owner or 'the bank')[2:] or 'the bank'}, not to a "
                            "player; privates are not traded between companies")
    director = g.president(corp)
    if comp.owner != f"P:{director}":
        raise IllegalAction(f"rule {_ref(g, 'buy_private_director', '4.1, 7.3')}: {corp} buys a private company only "
                            f"from its director, {director}; {comp.sym} belongs to {comp.owner[2:]}")
    lo, hi = g.company_price_range(comp.sym)
    if not lo <= action.price <= hi:
        raise IllegalAction(f"{rule}: {corp} pays {g.title.money(lo)} to {g.title.money(hi)} for {comp.sym}, "
                            f"not {g.title.money(action.price)}")


class PayDebt(Interrupt):
    """5.5.3: a director whose receivership compensation left him owing money sells shares
    before anyone else acts."""
    name = "pay_debt"
    takes = ("sell_shares",)
    player_may_skip = False
    description = "Sell shares to pay the receivership debt — must"

    def acting(self, g: "StepGame") -> str | None:
        return g.cash_crisis_player()

    def legal(self, g: "StepGame", entity: str) -> list[A.Action] | None:
        return [A.SellShares(entity, corporation=c, count=u) for c in g.state.corporations
                for u in g.crisis_bundles(entity, c)]

    def handle(self, g: "StepGame", acting: str, action: A.Action) -> None:
        s = g.state
        if action.entity != acting or not isinstance(action, A.SellShares):
            raise IllegalAction(f"rule {_ref(g, 'receivership_debt', '5.5.3')}: {acting} owes "
                                f"{g.title.money(-s.cash[f'P:{acting}'])} of receivership compensation and must "
                                "sell shares first")
        target = action.corporation or (action.shares[0].rsplit("_", 1)[0] if action.shares else "")
        units = action.count or len(action.shares) or 1
        if target in s.corporations and units not in g.crisis_bundles(acting, target):
            raise IllegalAction(f"rule {_ref(g, 'insolvency_sale', '12.4.1')}: {acting} may not sell {units} of "
                                f"{target} now (a sale to pay compensation may not change a director)")
        g._do_sell(acting, action)
        if g.state.round.turn_over and not g.cash_crisis_player():  # the operating company's turn had ended
            g._next_corp()


class DutchAuction(PlayerStep):
    """3.1: the falling-price sale of the privates (the mechanics: ``rounds/dutch.py``, title
    data ``auction.style: dutch``)."""
    name = "auction"
    takes = ("bid", "assign", "pass")
    description = "Buy a private at its price or lower one's price by 5 — may pass once you own one"

    def offer(self, g: "StepGame", player: str) -> list[str]:
        if player != g.current_entity():
            return []
        return ["bid", "assign"] + (["pass"] if g.dutch_may_pass(player) else [])

    def handle(self, g: "StepGame", action: A.Action) -> None:
        g._dutch_process(action)


class Hooks(TitleHooks):
    def auction_steps(self, steps: list) -> list:
        return replace(steps, "auction", DutchAuction())

    def operating_steps(self, steps: list) -> list:
        steps = insert_before(steps, "dividend", LoanBeforeWithhold())
        steps = replace(steps, "discard_train", DiscardTrain())
        return replace(steps, "buy_company", BuyCompanyOrLoan())

    def operating_interrupts(self, interrupts: list) -> list:
        # 5.5.2, 5.5.3: the director's sales for the compensation settle the receivership itself, before
        # what the receivership brings about (the train removed at the second, 5.4.4, closing the privates:
        # the Tasmania tile of 4.4) -- the order of 18xx.games too
        first = "forced_lay" if any(getattr(x, "name", "") == "forced_lay" for x in interrupts) else "discard_train"
        return insert_before(interrupts, first, PayDebt())

    def describe(self) -> dict[str, Any]:
        g = self.game
        s = g.state
        lender = g.lender() or ""
        players = [p.name for p in s.players]
        return {
            "loans": {c.sym: c.loans for c in s.corporations.values() if c.loans and c.sym != lender},
            "lender": {"symbol": lender, "cash": s.cash.get(f"C:{lender}", 0), "loans_left": g.loans_left(),
                       "price": g.share_price(lender) if lender else 0},
            "receiverships": sorted(c.sym for c in s.corporations.values() if c.receivership),
            "certificate_limits": {p: g.cert_limit(p) for p in players},
            "joint_home_linked": {c.sym: "joint_home_operates" in s.events or f"linked:{c.sym}" in s.events
                                  or g.homes_linked(*g.joint_homes(c.sym)[:2])
                                  for c in s.corporations.values() if g.joint_homes(c.sym)},
            "train_sides": {t.tid: t.variant for t in s.trains.values() if t.owner.startswith("C:")},
            "events": sorted(e for e in s.events if ":" not in e),
        }

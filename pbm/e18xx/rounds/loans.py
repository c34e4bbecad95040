"""A lending corporation and its loans (title data ``bank_corporation`` and ``loans``).

The lender is a corporation with no president: its ten 10% shares start in the
open market and trade at its market price (a sale never moves it; its money goes
to the bank), and its treasury lends.  At the start of every operating round,
after the privates, it pays its shareholders from the bank ``base_dividend`` (by
phase) plus the value of every city holding one of its stations (the stations
of companies in receivership).

A corporation may take one loan per operating round at any time in its turn, once
the train event ``loans.from_event`` has happened, up to ``loans.per_company``
loans: the lender pays it ``loan_value``, its price moves ``price_moves_left``
spaces left and the lender's one space right.  In a forced train purchase it
takes as many more as it needs (each moving ``forced_moves_left`` left).  Loans
are never repaid and there is no interest.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pbm.e18xx.core.errors import IllegalAction

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine


class LoansMixin:
    # ------------------------------------------------------------ the lender
    def lender(self: "Engine") -> str | None:
        spec = self.title.data.get("bank_corporation")
        return spec["sym"] if spec else None

    def auto_operates(self: "Engine", entity: str) -> bool:
        """Does ``entity`` act by itself (the lender's dividend)?"""
        return entity is not None and entity == self.lender()

    def loans_left(self: "Engine") -> int:
        spec = self.title.data.get("bank_corporation") or {}
        sym = spec.get("sym")
        if not sym:
            return 0
        return int(spec.get("loans", 0)) - self.state.corporations[sym].loans

    def lender_dividend(self: "Engine") -> None:
        """5.4.3, 5.5.7: the lender pays its dividend from the bank at the start of the operating round."""
        spec = self.title.data.get("bank_corporation")
        if not spec:
            return
        s = self.state
        sym = spec["sym"]
        total = int(spec.get("base_dividend", {}).get(self.phase.name, 0))
        colors = self.route_colors()
        m = s.map
        for (coord, node), slots in m.tokens.items():
            n = sum(1 for x in slots if x == sym)
            if n:
                total += n * m.tile(coord).nodes[node].revenue_for(colors)
        if total <= 0:
            self.log(f"{sym} pays no dividend")
            return
        per = total // 10
        for p in s.players:
            units = self.percent_of(p.key, sym) // 10
            if units:
                self.transfer("bank", p.key, units * per)
        self.log(f"{sym} pays {total} ({per} a share)")

    # ----------------------------------------------------------------- loans
    def loans_open(self: "Engine") -> bool:
        spec = self.title.data.get("loans")
        return bool(spec) and spec.get("from_event") in self.state.events

    def can_take_loan(self: "Engine", corp: str, ignore_round: bool = False) -> bool:
        spec = self.title.data.get("loans")
        if not spec or not self.loans_open() or corp == self.lender():
            return False
        c = self.state.corporations[corp]
        if spec.get("once_per_round", True) and corp in self.state.round.loaned and not ignore_round:
            return False
        return c.loans < int(spec.get("per_company", 5)) and self.loans_left() > 0 and not c.receivership

    def take_loan(self: "Engine", corp: str, forced: bool = False) -> None:
        spec = self.title.data["loans"]
        if not forced and not self.can_take_loan(corp):
            c = self.state.corporations[corp]
            refs = self.title.data.get("rule_refs") or {}
            if corp == self.lender():
                key, why = "loan_lender", f"{corp} is the lender"
            elif not self.loans_open():
                first = next((td.name for td in self.title.trains if spec.get("from_event") in td.events), "")
                key, why = "loan_open", "loans are not available yet" + (
                    f": they start with the first {first} train" if first else "")
            elif corp in self.state.round.loaned:
                key, why = "loan_once", f"{corp} has taken its loan this operating round (one a round)"
            elif c.loans >= int(spec.get("per_company", 5)):
                key, why = "loan_limit", f"{corp} has {c.loans} loans, the most it may take by choice"
            else:
                key, why = "loans_left", f"{self.lender()} has no loans left to give"
            ref = refs.get(key) or "5.6"
            raise IllegalAction(f"rule {ref}: {corp} may not take a loan now: {why}")
        s = self.state
        lender = self.lender()
        assert lender
        c = s.corporations[corp]
        value = int(self.title.data["bank_corporation"].get("loan_value", 100))
        self.transfer(f"C:{lender}", c.key, value)
        moves = int(spec.get("forced_moves_left", 3)) if forced and corp in s.round.loaned else \
            int(spec.get("price_moves_left", 2))
        for _ in range(moves):
            self.move_left(c)
        self.move_right(s.corporations[lender])
        c.loans += 1
        s.corporations[lender].loans += 1
        s.round.loaned.add(corp)
        self.log(f"{corp} takes a loan of {value} ({c.loans} in all)")
        self.after_price_drop(corp)

    def after_price_drop(self: "Engine", corp: str) -> None:
        """A corporation whose price reached a receivership cell goes into receivership at once
        (1848 5.5.1: "If the share price marker of a company reaches the left-most column of the
        Share Price Chart, the company is immediately taken over by the Bank of England"), after a
        loan or a withhold (11.2)."""
        if not self.title.data.get("receivership"):
            return
        c = self.state.corporations[corp]
        if c.price and self.title.market[c.price[0]][c.price[1]].kind == "c" and not c.receivership:
            self.enter_receivership(corp)

    def _forced_loans(self: "Engine", corp: str, price: int) -> None:
        """8.4: a company that must buy a train from the bank and lacks the money borrows (its
        director pays nothing) until it can pay or its price reaches receivership; with no
        loans left it goes into receivership at once."""
        s = self.state
        if self.can_take_loan(corp):
            raise IllegalAction(f"{corp} may still take its ordinary loan this round: take it first (take loan) "
                                "(rules 5.6.2, 5.6.3: the loans beyond it are the forced purchase's)")
        c = s.corporations[corp]
        while s.cash[c.key] < price and not c.closed:
            if self.loans_left() <= 0:
                self.log(f"no loans are left: {corp} goes into receivership")
                self.enter_receivership(corp)
                break
            self.take_loan(corp, forced=True)

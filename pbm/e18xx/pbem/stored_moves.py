"""What the moves of a mail do in a stored game, besides the turn's reading: the hooks
(:class:`pbm.e18xx.pbem.intent.Hooks`) that :func:`pbm.e18xx.pbem.games.apply` gives the one
driver of a mail's moves, :meth:`pbm.e18xx.pbem.intent.TurnWriter.move` (docs/18xx/engine.md,
"E-mail moves").

Every action is authorized (a player moves only for what he controls), processed on the
replayed game (its shares, tiles and routes noted for the PDF and the export), charged to its
player, and followed by the cash check and the standing orders due; ``pass rest of round`` is
kept as a standing order; a purchase that needs another player's consent (18GA 3.2, 4.2.6,
4.2.5(d)) is tried, not stored: it becomes the offer that ends the mail.
"""
from __future__ import annotations

from typing import Any

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.pbem.games import (_authorize, autorun, bid_on_the_cheapest, needs_consent, offer_rule, step,
                                  train_offer, train_seller)
from pbm.e18xx.pbem.intent import Hooks, TurnWriter
from pbm.e18xx.pbem.moves import Done, More, Move, PassRestOfRound, StandingOrders, for_game, format_action, private_by_name


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

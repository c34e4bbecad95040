"""A short move language for play by email.

One move per line; blank lines and ``#`` comments are ignored; case does not
matter.  Moves::

    pass                         skip the current step (a pass with nothing to pass is ignored)
    done                         end your (company's) turn: every step left is skipped, if the
                                 rules let it be (a required step is named instead); a mail
                                 ends the turn without it too (pbem/intent.py)
    more                         the mail's last line: keep the turn open after the mail
    undo                         alone in a mail: take back your last mail, until another player acts
    pass rest of round           standing order: pass whenever asked this round
    bid 45 MRC                   (or: bid MRC 45)
    par W&A 90
    buy CoG ipo | buy GA market  (buy GA = from the IPO; 1848's Bank of England has no IPO: buy BOE = from the market)
    sell 2 GA | sell GA          (number of 10% shares, default 1)
    lay 57 E5 2                  tile, hex, rotation 0-5 (add "with MRC" for a private's lay;
                                 a listed "(same as 5)" after it is read and ignored)
    token Rome | token E5
    run auto | run               best routes; or "run 2-0 D4-0 E1-0; 3-1 ..." explicit
                                 (or one train a line: run lines in a row are one run)
    payout | withhold
    buy train 3                  next train of that type from the bank
    buy train 2 as 1G            ... declared as one of its sides (e.g. passenger 2 or freight 1G)
    buy train 3 with P2          ... using a private's train discount
    buy train 2-1 from CoG for 120   a named train (from a company, at a price; "for" and "$" optional)
    convert                      a five-share corporation becomes a ten-share one
    assign P1 C12                a private's revenue bonus put on a hex
    token H1 with P3             a private's extra station beside a city
    use P3                       a private's ability without a target (e.g. +1 train limit)
    discard 2-1
    buy private MRC 60           a private company, at a price
    bankrupt
    take loan                    borrow one loan (1848: from the Bank of England)
    lower P3                     the falling-price sale: lower a private's price (1848 3.1)
    buy train 8 as D trade 4-1   a new train bought trading one in (1848: a D for a 4)

Several moves may share a line when commas or semicolons separate them and every part starts
with a move word (``pass, pass, run auto``); a ``run`` line keeps its own semicolons (one route
each).  ``parse_moves`` returns actions (and :class:`PassRestOfRound` orders, :class:`Done`
markers) or raises :class:`MoveError` naming the line and what was expected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field as dc_field, replace
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING, Any, Union

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError
from pbm.e18xx.english import a as article
from pbm.e18xx.lays import hex_copy_of_tile

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.game import Game


class MoveError(GameError):
    """A line of a move text could not be understood."""


@dataclass(frozen=True)
class PassRestOfRound:
    """Standing order: pass whenever ``entity`` must act, until this round ends."""
    entity: str


@dataclass(frozen=True)
class Done:
    """``done``: the end of ``entity``'s turn as the mail writes it (pbem/intent.py skips what is left)."""
    entity: str


@dataclass(frozen=True)
class More:
    """``more``, a mail's last line: keep the turn open after the mail (without it the mail is the
    whole turn: pbem/intent.py ends it as if ``done`` were written, issue 29)."""
    entity: str


@dataclass(frozen=True)
class ShareCount:
    """A share move written with a count of shares or a percentage that only the game can read
    (``buy 2 ATN shares``, ``sell 20% ABC``: a percentage is counted in the company's shares, 10% or
    20% each; a player buys one certificate a turn): :func:`for_game` makes the move or refuses it
    with the title's rule (issue 29, play-through s12)."""
    entity: str
    verb: str  # "buy" or "sell"
    corporation: str
    count: int = 0
    percent: int = 0
    source: str = ""
    line: str = dc_field(default="", compare=False)
    lineno: int = dc_field(default=1, compare=False)
    price: int = 0  # the share's price as the mail says it ('buy a WMR share for $60'; s15 mail 80)


@dataclass(frozen=True)
class FromOwner:
    """``buy private LTR from Ann for 25``: the purchase, and the owner the mail names, checked
    against the game by :func:`for_game` (play-through s12: "from <owner> for <price>", as a train
    purchase is written)."""
    move: A.BuyCompany
    owner: str
    line: str = dc_field(default="", compare=False)
    lineno: int = dc_field(default=1, compare=False)


@dataclass(frozen=True)
class Named:
    """A company's purchase of a private written with the company named: 'CAR buys P3 from Ann for
    140', 'Sell P3 to NSW for £140' (1848 4.1, 7.3; 18GA/18AL 4.2.6; 18VA 4.2).  :func:`for_game`
    makes it only when that company is the one acting; before, the name was dropped and whichever
    company acted bought the private."""
    move: "A.BuyCompany | FromOwner"
    company: str
    line: str = dc_field(default="", compare=False)
    lineno: int = dc_field(default=1, compare=False)


@dataclass(frozen=True)
class LayJoining:
    """``lay 57 F17 joining Wollongong, Newcastle``: a lay written with what its track joins instead
    of its rotation, as the move lists describe each rotation ("# city; to G16 Wollongong (lower
    left), E18 Newcastle (upper right)"); :func:`for_game` finds the rotation whose track reaches
    those places (play-through s16b mail #33: 'Lay a 57 tile in Sydney (F17) so it connects
    Wollongong and Newcastle' was refused "need tile, hex and rotation")."""
    move: A.LayTile
    places: tuple[str, ...]
    line: str = dc_field(default="", compare=False)
    lineno: int = dc_field(default=1, compare=False)


@dataclass(frozen=True)
class RepayLoan:
    """``repay loan``: understood so that it is refused with the title's rule
    (:func:`repay_refusal`; 1848 5.6.1: a loan is never paid back)."""
    entity: str


@dataclass(frozen=True)
class Contribute:
    """``Bob contributes $350``: the president's cash towards a train the company must buy (18AL,
    18GA 4.2.5.2 "the president must contribute sufficient funds"). pbm takes it with the purchase
    itself, so the line is noted and nothing more (:func:`without_contributions`; play-through s13
    mail #166 was refused "unknown move 'Bob'")."""
    entity: str
    amount: int | None = None
    line: str = dc_field(default="", compare=False)
    lineno: int = dc_field(default=1, compare=False)


Move = Union[A.Action, PassRestOfRound, Done, More, RepayLoan, ShareCount, FromOwner, Contribute, LayJoining, Named]

_INT = re.compile(r"^\d+$")
_PERCENT = re.compile(r"^\d{1,3}%$")
_WORD = re.compile(r"^[A-Za-z0-9&\-_.'+]+$")

USAGE = {
    "pass": "pass | pass rest of round",
    "done": "done   (ends your turn: the steps left are skipped where the rules allow; a mail ends the turn "
            "without it too)",
    "more": "more   (the mail's last line: keeps your turn open after the mail)",
    "undo": "undo   (alone in a mail: takes back your last mail, until another player has acted)",
    "bid": "bid <amount> <private>   e.g. bid 45 MRC",
    "par": "par <corporation> <price>   e.g. par W&A 90",
    "buy": "buy <corp> [ipo|market] | buy train <type or id> [as <side>] [from <corp>] [for <price>] [with <private>]"
           " [trade <train>]"
           " | buy private <sym> [from <owner>] [for] <price>",
    "sell": "sell [count] <corp>   e.g. sell 2 GA",
    "lay": "lay <tile> <hex> <rotation 0-5> [with <private>] | lay <tile> <hex> joining <place> [and <place>]   "
           "e.g. lay 57 E5 2",
    "token": "token <hex or city name>   e.g. token Rome",
    "run": "run auto | run <train> <node> <node>...; <train> ...",
    "payout": "payout (or: pay out)",
    "withhold": "withhold",
    "discard": "discard <train type or id>   e.g. discard 3",
    "bankrupt": "bankrupt",
    "convert": "convert",
    "assign": "assign <private> <hex>   e.g. assign P1 C12",
    "use": "use <private> [<hex or city name>]   (a private's ability; with a place: its station or its marker there)",
    "take": "take loan",
    "repay": "repay loan   (refused with the title's rule where loans are never repaid)",
    "lower": "lower <private>   e.g. lower P3 (the falling-price sale of the privates)",
}


def _fail(lineno: int, line: str, why: str, verb: str | None = None) -> MoveError:
    hint = f"; expected: {USAGE[verb]}" if verb in USAGE else f"; moves are: {', '.join(USAGE)}"
    return MoveError(f"line {lineno}: {line.strip()!r}: {why}{hint}")


# where a share is bought from, said without a game (title_examples puts the title's words in)
_SOURCE_HELP = "'ipo' for the Initial Offering (or the company's treasury), 'market' for the Open Market (or the pool)"


def title_examples(text: str, game: "Game") -> str:
    """A refusal's examples in the game's own names: ``bid 45 MRC`` and ``par W&A 90`` are 18GA's
    (play-through s12: an 18AL player was shown a private and a corporation his game has not)."""
    s = game.state
    privates = sorted((c for c in s.companies.values()), key=lambda c: (c.value, c.sym))
    if privates:
        c = privates[1] if len(privates) > 1 else privates[0]
        step = int((game.title.data or {}).get("min_bid_increment", 5) or 5)
        text = text.replace("e.g. bid 45 MRC", f"e.g. bid {c.value + step} {c.sym}")
    corps = list(s.corporations)
    if corps:
        try:
            par = min(game.title.market[r][c].price for r, c in game.title.par_cells())  # type: ignore[union-attr]
        except (ValueError, TypeError, AttributeError, IndexError):
            par = None
        if par is not None:
            text = text.replace("e.g. par W&A 90", f"e.g. par {corps[0]} {par}")
        text = text.replace("e.g. sell 2 GA", f"e.g. sell 2 {corps[0]}")
    from pbm.e18xx.render.words import word  # where shares lie in the book's words (1848: the Bank, the
    # Bank Pool; play-through s13 F1: an 1848 player was told of the Initial Offering and the Open Market)
    text = text.replace(_SOURCE_HELP, f"'ipo' for the {word(game, 'ipo')}, 'market' for the {word(game, 'pool')}")
    return text


def _int(tok: str, lineno: int, line: str, verb: str, what: str) -> int:
    if tok[:1] in ("$", "£") and len(tok) > 1:  # a price written with the currency's sign (1848: pounds)
        tok = tok[1:]
    if not _INT.match(tok) or len(tok) > 9:
        raise _fail(lineno, line, f"{what} must be a whole number, not {tok!r}", verb)
    return int(tok)


def train_type(tid: str) -> str:
    """A train as players name it when no game is at hand: its type (``4-2`` -> ``4``; an id is
    ``<type>-<number>``, core/game.py); a type stays as written (issue 29: no engine ids in mails)."""
    m = re.fullmatch(r"(.+)-(\d+)", str(tid))
    return m.group(1) if m else str(tid)


def train_order(tid: str) -> tuple[str, int]:
    """Sort key for the lowest-numbered train first (``2-9`` before ``2-10``)."""
    m = re.fullmatch(r"(.+)-(\d+)", str(tid))
    return (m.group(1), int(m.group(2))) if m else (str(tid), -1)


def _name(tok: str, lineno: int, line: str, verb: str, what: str) -> str:
    if not _WORD.match(tok):
        raise _fail(lineno, line, f"{what} {tok!r} is not a name", verb)
    return tok


def parse_line(line: str, entity: str, lineno: int = 1) -> Move | None:
    """One line -> a move (None for blank/comment lines)."""
    move = _parse_line(line, entity, lineno)
    if isinstance(move, (A.BuyCompany, FromOwner)):
        company = _company_named(_no_asides(uncommented(line)).strip().split())
        if company:
            return Named(move, company, line.strip(), lineno)
    return move


def _company_named(toks: list[str]) -> str:
    """The company a private's purchase names as its buyer: the subject of 'CAR buys P3 from Ann for
    140' (s14b mail #71), the company after 'to' in 'Sell P3 to NSW for £140' (s17b mail 049); ''."""
    low = [t.lower().rstrip(".,") for t in toks]
    if len(toks) > 2 and re.match(r"^[A-Z][A-Z0-9&]{1,4}$", toks[0]) and low[1] in ("buys", "purchases"):
        return toks[0]
    if low[:1] == ["sell"] and "to" in low[2:] and "for" in low[low.index("to") + 1:]:
        to = low.index("to")
        after = [t for t, w in zip(toks[to + 1:], low[to + 1:low.index("for", to)]) if w != "the"]
        if len(after) == 1 and re.match(r"^[A-Za-z][A-Za-z0-9&]{1,4}$", after[0]):
            return after[0].upper()
    return ""


def _parse_line(line: str, entity: str, lineno: int = 1) -> Move | None:
    text = re.sub(r"(?<=\w)\.$", "", _no_asides(uncommented(line)).strip())  # 'Pay out.' (s14 mail #117)
    if not text:
        return None
    toks = rulebook_words(text.split())  # the rulebooks' words, as the move language writes them (RULEBOOK)
    if not toks:
        return None  # 'no station this turn': an optional step left out in words (_no_step)
    verb = toks[0].lower()
    args = toks[1:]
    low = [t.lower() for t in args]
    if verb == "undo":
        raise _fail(lineno, line, "'undo' stands alone in its mail (it takes back your last mail)", verb)
    if verb == "done":
        if args:
            raise _fail(lineno, line, "'done' takes nothing after it", verb)
        return Done(entity)
    if verb == "more":
        if args:
            raise _fail(lineno, line, "'more' takes nothing after it", verb)
        return More(entity)
    if verb == "pass":
        if not args:
            return A.Pass(entity)
        if low == ["rest", "of", "round"]:
            return PassRestOfRound(entity)
        raise _fail(lineno, line, "unexpected words after 'pass'", verb)
    if verb == "convert" and low[:1] == ["the"] and low[2:3] in (["to"], ["into"]):
        args, low = args[1:], low[1:]  # 'Convert the RF&P to a Ten-Share Company' (18VA 4.5.1; s17 mail 48)
    if verb == "convert" and low[1:2] in (["to"], ["into"]) and all(w in _CONVERT_WORDS for w in low[1:]):
        args, low = args[1:], low[1:]  # 'Convert N&W to a Ten-Share Company' (18VA 4.5.1; s14b mail #65)
    if verb == "convert" and args and all(w in _CONVERT_WORDS for w in low):
        args = []  # 'convert to a ten-share company', as 18VA 4.5.1 says it (s12v mail #46)
    if verb in ("payout", "withhold", "bankrupt", "convert"):
        if args:
            raise _fail(lineno, line, f"'{verb}' takes nothing after it", verb)
        if verb == "convert":
            return A.Convert(entity)
        return A.Bankrupt(entity) if verb == "bankrupt" else A.Dividend(entity, verb)
    if verb == "contribute":
        if len(args) > 1 or (args and not _INT.match(args[0])):
            raise _fail(lineno, line, "say 'contribute' and, if you like, the amount", verb)
        return Contribute(entity, int(args[0]) if args else None, line.strip(), lineno)
    if verb == "take":
        if low != ["loan"]:
            raise _fail(lineno, line, "say 'take loan'", verb)
        return A.TakeLoan(entity)
    if verb == "repay" and low == ["loan"]:
        return RepayLoan(entity)
    if verb == "lower":
        args = _lowered(args, lineno, line)
        if len(args) != 1:
            raise _fail(lineno, line, "name the private", verb)
        return A.Assign(entity, _name(args[0], lineno, line, verb, "private").upper())
    if verb == "use":
        if len(args) == 2 and (re.match(r"^[A-Za-z]{1,2}\d{1,3}(-\d)?$", args[1])
                               or re.match(r"^[A-Za-z][A-Za-z'.]{2,}$", args[1])):  # or a place: for_game
            # 'use P3 H15': the private's station (or marker) on a hex, as 'token H15 with P3' (s11)
            where = args[1].upper() if re.match(r"^[A-Za-z]{1,2}\d{1,3}(-\d)?$", args[1]) else args[1]
            return A.PlaceToken(_name(args[0], lineno, line, verb, "private").upper(), where)  # a place as written (s14b F10)
        if len(args) >= 3 and re.match(r"^[A-Za-z]{1,2}\d{1,3}$", args[-1]) \
                and not re.match(r"^[A-Za-z]{1,2}\d{1,3}$", args[1]):
            # 'use Potomac Yards A6': the private by its name of several words, then the hex (18VA 4.2
            # (3); play-through s13w F3: refused "name the private")
            return A.PlaceToken(" ".join(_name(t, lineno, line, verb, "private") for t in args[:-1]).upper(),
                                args[-1].upper())
        place = args[2:] if len(args) >= 3 and re.match(r"^[A-Za-z]{1,2}\d{1,3}$", args[1]) else args[1:]
        if len(args) >= 2 and all(re.match(r"^[A-Za-z][A-Za-z.'&-]*$", w) for w in place):
            # 'use P1 Staunton': the place by its name, as 'token Staunton' (s12v mail #62); 'use P1 F11
            # Richmond': the hex and its name, as the mails print a city (18VA s13 F2)
            return A.PlaceToken(_name(args[0], lineno, line, verb, "private").upper(), " ".join(args[1:]))
        if len(args) != 1:
            raise _fail(lineno, line, "name the private (and the hex of its station or marker)", verb)
        return A.UseAbility(_name(args[0], lineno, line, verb, "private").upper(), "train_limit_bonus")
    if verb == "assign":
        if len(args) != 2:
            raise _fail(lineno, line, "need a private and a hex", verb)
        hexname = args[1].upper()
        if not re.match(r"^[A-Z]{1,2}\d{1,3}$", hexname) and not re.match(r"^[A-Za-z][A-Za-z'.]+$", args[1]):
            raise _fail(lineno, line, f"{args[1]!r} is not a hex like C12", verb)  # a place's name: for_game
        return A.Assign(_name(args[0], lineno, line, verb, "private").upper(), hexname)
    if verb in ("bid", "par"):  # 'bid 160 on M&BR', 'bid $105 OSR', 'par CoG at 70' (play-through s12)
        args = [t[1:] if t[:1] in ("$", "£") and t[1:].isdigit() else t
                for t in args if t.lower() not in _BID_FILLER]
        low = [t.lower() for t in args]
    if verb == "bid":
        if len(args) == 1 and _INT.match(args[0]):  # 'bid 125' in an auction: its private (for_game; s13 #6)
            return A.Bid(entity, "", int(args[0]))
        if len(args) > 2 and _INT.match(args[0]) and all(re.match(r"^[A-Za-z&'.-]+$", t) for t in args[1:]):
            args = [args[0], " ".join(args[1:])]  # 'bid 140 on the B&O Presidency' (18VA 4.1; s14 mail #1)
        if len(args) != 2:
            raise _fail(lineno, line, "need an amount and a private company", verb)
        amount, comp = (args[0], args[1]) if _INT.match(args[0]) else (args[1], args[0])
        comp = " ".join(_name(t, lineno, line, verb, "private") for t in comp.split())
        return A.Bid(entity, comp.upper(), _int(amount, lineno, line, verb, "amount"))
    if verb == "par":
        if len(args) != 2:
            raise _fail(lineno, line, "need a corporation and a price", verb)
        corp, price = (args[0], args[1]) if _INT.match(args[1]) else (args[1], args[0])
        return A.Par(entity, _name(corp, lineno, line, verb, "corporation"), _int(price, lineno, line, verb, "price"))
    if verb == "sell":
        if len(args) == 4 and low[2] in ("for", "at") and _INT.match(low[3]) and args[0][:1].isdigit():
            # 'sell 1 CAR for 90' (_sell_words: 'sell 1 CAR share to the pool for 90'): the price is checked
            sale = _parse_line(f"sell {args[0]} {args[1]}", entity, lineno)
            corp = sale.corporation
            pct = sale.percent if isinstance(sale, ShareCount) else 0
            count = 0 if pct else getattr(sale, "count", 1)
            return ShareCount(entity, "sell", corp, count=count, percent=pct, line=line.strip(), lineno=lineno,
                              price=_int(args[3], lineno, line, verb, "price"))
        if len(args) == 1:
            return A.SellShares(entity, corporation=_name(args[0], lineno, line, verb, "corporation"), count=1)
        if len(args) == 2:
            corp = _name(args[1], lineno, line, verb, "corporation")
            if _PERCENT.match(args[0]):
                return ShareCount(entity, "sell", corp, percent=int(args[0][:-1]), line=line.strip(), lineno=lineno)
            count = _int(args[0], lineno, line, verb, "count")
            if count < 1:
                raise _fail(lineno, line, "a count of shares is 1 or more", verb)
            return A.SellShares(entity, corporation=corp, count=count)
        raise _fail(lineno, line, "need [count] and a corporation", verb)
    if verb == "buy":
        if not args:
            raise _fail(lineno, line, "buy what?", verb)
        if low[0] == "train":
            return _buy_train(args[1:], entity, lineno, line)
        if low[0] in ("private", "company"):
            owner = None
            if len(args) == 5 and low[3] == "from":  # 'buy private LTR 25 from Ann' (RULEBOOK: _private_words)
                owner = _name(args[4], lineno, line, verb, "owner")
                args = args[:3]
            if len(args) != 3:
                raise _fail(lineno, line, "need the private and a price", verb)
            bought = A.BuyCompany(entity, _name(args[1], lineno, line, verb, "private").upper(),
                                  _int(args[2], lineno, line, verb, "price"))
            return FromOwner(bought, owner, line.strip(), lineno) if owner else bought
        if len(args) >= 4 and low[-3:-1] == ["share", "for"] and _INT.match(low[-1]):  # _buy_words: a share's price
            priced = parse_line(" ".join(["buy", *args[:-3]]), entity, lineno)
            if isinstance(priced, (A.BuyShares, ShareCount)) and not getattr(priced, "count", 1) > 1:
                corp = priced.corporation
                src = {"ipo": "ipo", "pool": "pool"}.get(getattr(priced, "source", ""), "")
                return ShareCount(entity, "buy", corp, count=1, source=src, line=line.strip(), lineno=lineno,
                                  price=int(low[-1]))
        count = None
        if len(args) >= 2 and (_PERCENT.match(low[0]) or (_INT.match(low[0]) and len(low[0]) <= 2)):
            count, args, low = low[0], args[1:], low[1:]  # 'buy 1 GA share', 'buy 10% of WRA' (RULEBOOK)
        corp = _name(args[0], lineno, line, verb, "corporation")
        if count is not None and count != "1" and len(args) <= 2:
            src = {"ipo": "ipo", "treasury": "ipo", "market": "pool", "pool": "pool"}.get(low[1]) if len(args) == 2 \
                else ""
            if src is not None:
                pct = _PERCENT.match(count)
                return ShareCount(entity, "buy", corp, count=0 if pct else int(count),
                                  percent=int(count[:-1]) if pct else 0, source=src, line=line.strip(),
                                  lineno=lineno)
        if len(args) == 1:  # no source said: the Treasury's, else the Pool's (``share_source``)
            return A.BuyShares(entity, corporation=corp, source="")
        if len(args) == 2 and low[1] in ("ipo", "market", "pool", "treasury"):  # 18VA 4.3.2: Treasury, Pool
            return A.BuyShares(entity, corporation=corp, source="ipo" if low[1] in ("ipo", "treasury") else "pool")
        if any(w in ("train", "trains") for w in low):  # a train's words not read: no share's hint (s16 mail 45)
            raise _fail(lineno, line, "a train is bought with 'buy train <type>', e.g. 'buy train 3' or 'buy a 3 "
                        "train from the Open Market'", verb)
        # name the words read, so a word not understood is seen (s16 mail 33: 'more' read as the company)
        raise _fail(lineno, line, f"read '{args[0]}' as the company and '{' '.join(args[1:])}' as where the share "
                    f"comes from; after the company say 'ipo' or 'market': {_SOURCE_HELP}; to start a company: "
                    "par <corporation> <price>; to buy a train: buy train <type> [from <company>]; to buy a "
                    "private: buy private <private> <price> [from <owner>]", verb)
    if verb in ("lay", "upgrade"):
        if "joining" in low:  # 'lay 57 F17 joining Wollongong, Newcastle' (_lay_words: what the track joins)
            at = low.index("joining")
            places = tuple(p for p in (w.strip() for w in re.split(r",|\band\b", " ".join(args[at + 1:]), flags=re.I))
                           if p)
            lay = parse_line(" ".join([verb, *args[:at]]), entity, lineno)
            if not places or not isinstance(lay, A.LayTile):
                raise _fail(lineno, line, "name the places the track joins after 'joining'", "lay")
            if lay.rotation != ANY_ROTATION:
                return lay  # a rotation written: what it joins is the player's comment (s16 mail #36)
            return LayJoining(lay, places, line.strip(), lineno)
        who = entity
        # a listed lay names the rotations laying the same track: 'lay 57 E4 1 (same as 4)'
        same = re.search(r"\s*\(same as \d(?: and \d)*\)\s*$", " ".join(args), re.I)
        if same:
            args = " ".join(args)[:same.start()].split()
            low = [t.lower() for t in args]
        # 'lay tile 6 in G6 rotation 5' (play-through s12): the words around the three values
        args = [t.rstrip(",") for t in args if t.lower().rstrip(",") not in _LAY_FILLER]
        args = [t for t in args if t]
        low = [t.lower() for t in args]
        if len(args) == 5 and low[3] == "with":
            who = _name(args[4], lineno, line, "lay", "private").upper()
            args = args[:3]
        if len(args) == 4 and low[2] == "with" and not _INT.match(args[1]):
            who = _name(args[3], lineno, line, "lay", "private").upper()
            args = args[:2]
        if len(args) == 2 and re.match(r"^[A-Za-z]{1,2}\d{1,3}$", args[1]):
            # no rotation: the one the tile can take there, found in for_game ('lay the Tasmania tile on I8',
            # 1848 4.4: the two light blue hexes each take the tile one way; s14b mail #77)
            return A.LayTile(who, args[1].upper(), _name(args[0], lineno, line, "lay", "tile"), ANY_ROTATION)
        first_digit = next((i for i, t in enumerate(args) if re.search(r"\d", t)), None)
        if first_digit and first_digit + 2 >= len(args) and re.match(r"^[A-Za-z][A-Za-z'.&-]*$", args[0]) \
                and not re.fullmatch(r"[A-Za-z]{1,2}\d{1,3}", args[first_digit]):
            # the place first, then the tile (and the rotation): 'upgrade Port Pirie to tile 15 rotation 2'
            # (1848 s14b #102, after its '(F5)' was read as a note)
            args = [args[first_digit], " ".join(args[:first_digit]), *(args[first_digit + 1:] or [str(ANY_ROTATION)])]
        if len(args) > 3 and _INT.match(args[-1]) and all(_PLACE_PART.match(t) for t in args[1:-1]):
            # 'lay 57 Rocky Mount 2': a place of two words; 'lay 235 Toowoomba & Ipswich 4', its '(B17)' read
            # as a note (1848 s17b mail 046, refused "need tile, hex and rotation")
            args = [args[0], " ".join(args[1:-1]), args[-1]]
        elif len(args) > 2 and _INT.match(args[0]) and all(_PLACE_PART.match(t) for t in args[1:]):
            # a place of several words and no rotation: 'lay 6 Port Augusta joining Whyalla and Port Pirie',
            # 'lay 235 Toowoomba & Ipswich toward Brisbane' (s16c mails 28, 43); for_game finds the rotation
            args = [args[0], " ".join(args[1:]), str(ANY_ROTATION)]
        if len(args) == 2 and _INT.match(args[1]) and not _INT.match(args[0]):
            args = [args[1], args[0]]  # 'upgrade Charlottesville to 63': the place first
        if len(args) == 2 and not _INT.match(args[1]):
            args = [*args, str(ANY_ROTATION)]  # 'upgrade Charlottesville to 63': no rotation, for_game finds it (s14b #141)
        if len(args) > 3 and _INT.match(args[0]) and re.match(r"^[A-Za-z]{1,2}\d{1,3}$", args[1]) \
                and re.match(r"^[0-5]$", args[2]):
            # the three values read, then words that are no part of a lay: name them as written (18VA s16b mail 25)
            at = line.lower().find(args[3].lower(), max(line.upper().find(args[1].upper()), 0))
            rest = line[at:].strip() if at >= 0 else " ".join(args[3:])
            raise _fail(lineno, line, f"read 'lay {args[0]} {args[1].upper()} {args[2]}' (tile, hex, rotation), "
                        f"then {rest!r}, which is no part of a lay: leave it out or write it after a '#'", "lay")
        if len(args) != 3:
            raise _fail(lineno, line, "need tile, hex and rotation", "lay")
        rot = ANY_ROTATION if args[2] == str(ANY_ROTATION) else _int(args[2], lineno, line, "lay", "rotation")
        if rot > 5:
            raise _fail(lineno, line, "rotation is 0 to 5", "lay")
        hexname = args[1].upper()
        if re.match(r"^[A-Za-z][A-Za-z'.&\- ]+$", args[1]) and not re.match(r"^[A-Z]{1,2}\d{1,3}$", hexname):
            hexname = args[1]  # 'lay 6 Baltimore 1': the city by its name, its hex found in for_game (s14 #19)
        elif not re.match(r"^[A-Z]{1,2}\d{1,3}$", hexname):
            raise _fail(lineno, line, f"{args[1]!r} is not a hex like E5", "lay")
        return A.LayTile(who, hexname, _name(args[0], lineno, line, "lay", "tile"), rot)
    if verb == "token":
        if not args:
            raise _fail(lineno, line, "where?", verb)
        who = entity
        at = next((i for i, w in enumerate(low) if i and w in ("with", "using")), None)
        if at is not None and at + 1 < len(args):
            # 'token I9 with W&SR', 'station in Waycross using the Waycross & Southern' (18GA Table III:
            # the private's station; s14 F12): the private by its symbol or its name
            named = [t for t in args[at + 1:] if t.lower() != "the"]
            who = " ".join(_name(t, lineno, line, verb, "private") for t in named).upper()
            args = args[:at]
        where = " ".join(args)
        if not all(_WORD.match(t) for t in args):
            raise _fail(lineno, line, f"{where!r} is not a place", verb)
        return A.PlaceToken(who, where.upper() if re.match(r"^[A-Za-z]{1,2}\d{1,3}$", where) else where)
    if verb == "run":
        if not args or low == ["auto"]:
            return A.RunRoutes(entity, auto=True)
        routes = []
        # 'run 4 A4 C4 G4, 3 G4 H5 G6': a comma then a train (a stop never starts with a digit) starts
        # the next route, as a semicolon does (s14b mail #113)
        for part in re.split(r";|,\s*(?=\d+[A-Za-z]?\s+\S)", " ".join(args)):
            words = part.replace(",", " ").split()
            train, stops = _route_words(words)
            if train is None or len(stops) < 2:
                raise _fail(lineno, line, "each route is a train then at least two stops", verb)
            for w in [train or "_", *(x for stop in stops for x in stop.split())]:
                _name(w, lineno, line, verb, "stop")
            routes.append(A.RouteSpec(train, tuple(w.upper() for w in stops)))
        return A.RunRoutes(entity, tuple(routes))
    if verb == "discard":
        if len(args) != 1:
            raise _fail(lineno, line, "name one train", verb)
        return A.DiscardTrain(entity, _name(args[0], lineno, line, verb, "train"))
    if toks[0][-1:] in (",", ";", ".") and toks[0][:-1].lower() in _MOVE_WORDS:
        raise _fail(lineno, line, f"{toks[0]!r}: write one move per line (or moves separated by commas, "
                                  "each starting with a move word)")
    if toks[0].lower() in _HEADER_WORDS:  # 'AWAY until 2026-12-10 proxy 3' (18GA s14b F7)
        raise _fail(lineno, line, f"{toks[0]!r} is not a move but a line of its own above the moves, written with "
                                  f"a colon: {toks[0].upper()}: {' '.join(toks[1:]) or '...'}")
    n = _first_person([t.lower() for t in toks])
    if n:
        # "I'll float WRA ...": the word not understood is 'float', not "I'll" (s14b mail #9)
        raise _fail(lineno, line, f"unknown move {toks[n]!r}")
    if verb in _UNREAD_VERBS:  # a rulebook verb whose words the table did not read: how they are written
        raise _fail(lineno, line, f"the words after {toks[0]!r} were not understood: {_UNREAD_VERBS[verb][1]}",
                    _UNREAD_VERBS[verb][0])
    raise _fail(lineno, line, f"unknown move {toks[0]!r}")


# 'place' and 'put' are the rulebooks' words for a station or a tile (18GA 4.2.2, 18VA 4.5.2), never an
# unknown move: a line of them not read says how they are written (s16b mail 028: "unknown move 'place'")
_PLACE_HINT = ("token", "a station is 'place a station in <city>' (or 'token <hex or city>', e.g. 'token "
                        "D4-1'), a tile 'place tile <tile> on <hex> rotation <0-5>'")
_UNREAD_VERBS = {"place": _PLACE_HINT, "put": _PLACE_HINT}


_HEADER_WORDS = ("away", "notify", "pdf", "for", "seen", "autorun")
_ROUTE_DASHES = {"-", "\u2013", "\u2014", "->", "\u2192", "=>"}
_CONVERT_WORDS = {"to", "into", "a", "the", "ten-share", "10-share", "ten", "10", "share", "shares", "company",
                  "corporation", "it"}
_LOWER_FILLER = {"the", "a", "price", "cost", "of", "its", "by", "pound", "pounds"}


def _lowered(args: list[str], lineno: int, line: str) -> list[str]:
    """The private of a ``lower`` line said in words: 'lower the price of P4', 'lower P4's price',
    'reduce the cost of P4 by 5 pounds' (1848 3.1.1 "reduce the cost of a Private Company by 5
    pounds"; play-through s15b mail #5: refused "name the private"); an amount other than the
    rule's 5 is refused."""
    keep = []
    for t in args:
        w = t.lower().strip(".,")
        if w in _LOWER_FILLER:
            continue
        if w.lstrip("£$").isdigit():
            if int(w.lstrip("£$")) != 5:
                raise _fail(lineno, line, "a price is lowered by 5 at a time (1848 rule 3.1.1)", "lower")
            continue
        keep.append(t[:-2] if w.endswith("'s") else t.strip(".,"))
    return keep


_BID_FILLER = {"on", "for", "at", "of", "a", "the", "par", "price", "value"}  # 'bid 160 on M&BR', 'par CoG at 70'
# 'from Gadsden through Stevenson to Chattanooga': a stop passed on the way is a stop (18AL 4.2.3(a); s16c mail 056)
_SEPARATORS = {"-", "\u2013", "\u2014", "->", "\u2192", ">", "to", "then", "=>", "through", "via"}
_HEX_WORD = re.compile(r"^[A-Za-z]{1,2}\d{1,3}(-\d)?$")


def _route_words(words: list[str]) -> tuple[str | None, list[str]]:
    """One route as written -> (its train, its stops): the word ``train`` after the train's type is
    the rulebook's ('run 2 train A B', as in "buy a 2 train"), and stops may be separated by ' - ',
    '–', '->' or 'to' as pbm's own route events print them ('Rome - Gadsden', 'D7 Rome - E6
    Gadsden': a hex with its name is that hex, and so is a hex after the words that describe it, 'the
    port I4' (18VA s17 mail 25); a name of several words between separators is one place, 'West
    Point'); a leading 'from' is dropped (play-through s12)."""
    words = [w.rstrip(":") for w in _unhyphen(words) if w.rstrip(":")]  # 'run the 2 train: A - B'
    while words and words[0].lower() in ("train", "the", "a", "other", "another", "second", "one", "first", "two",
                                         "three", "both", "our", "its", "my"):
        words = words[1:]  # 'run train 2 ...', 'run the 2 train ...', 'run the other 2 train ...' (s15 mail 33),
        # 'run one 2 train ...' (s15b mail 047), 'run the two 2 trains: ...', 'both 2 trains' (s16b mail 45),
        # 'run our 2 train ...' (18VA s16d mail 25)
    if not words:
        return None, []
    if len(words) > 1 and _HEX_WORD.match(words[0]):
        # 'run J12-I11': the stops alone, no train named (play-through s13w F1); the route takes a
        # train of the company not named by another route (train_ids)
        return "", _route_words(["_", *words])[1]
    train, rest = words[0], words[1:]
    if rest and rest[0].lower() in ("train", "trains"):
        rest = rest[1:]
    if rest and rest[0].lower() in ("from", "via", "through"):
        rest = rest[1:]
    if not any(w.lower() in _SEPARATORS for w in rest):
        return train, rest
    stops: list[str] = []
    group: list[str] = []
    for w in [*rest, "-"]:
        if w.lower() not in _SEPARATORS:
            group.append(w)
            continue
        if group:
            stops.append(group[0] if len(group) > 1 and _HEX_WORD.match(group[0]) else
                         group[-1] if len(group) > 1 and _HEX_WORD.match(group[-1]) else " ".join(group))
        group = []
    return train, stops


_SHARE_FILLER = {"a", "an", "one", "share", "shares", "certificate", "certificates", "of", "the", "from", "in",
                 "my",  # 'sell my BOE share' (s13 F2)
                 "its",  # 'buy one share of the Southern Railway from its Treasury' (18VA 4.3.2; s17 mail 31)
                 "another",  # 'then buy another SAL' (18GA s14b F13)
                 "last", "remaining",  # 'buy the last CAR share' (1848 s15 mail #67), 'the last ABC share' (18AL s15 #62)
                 "second", "third", "fourth", "fifth",  # 'Buy a third NSW share': one share (1848 s16d mail 19)
                 "sixth", "seventh", "eighth", "ninth", "tenth",  # 'Buy the sixth NSW share' (1848 s17b mail 028)
                 "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th",  # 'Buy the 6th NSW share'
                 "more"}  # 'buy one more VR' (1848 s16 mail #29), 'buy one more ABC share from the Initial Offering' (18AL s16 mail 33), 'Buy one more CoG share' (18GA s16 mail 13)
_COUNT_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}
_SOURCE_WORDS = {("initial", "offering"): "ipo", ("offering",): "ipo", ("open", "market"): "market",
                 ("bank", "pool"): "pool", ("pool",): "pool",
                 ("bank",): "ipo"}  # 1848 12.3.1: "a new share from the Bank at the issue (par) price" (s14b #13)


# ----------------------------------------------------------------- the rulebooks' words, one table
# Every phrase a rulebook (or a player reading one) uses for a move, and how the move language writes
# it; parse_line reads only the move language after ``rulebook_words`` (issue 29, part B: these were
# read in two places). A row: an example, the move it is written as, where the words come from, and
# the rewrite (the line's words and their lower case -> the move language's words, or None: not this
# phrase). The first row that matches rewrites the line; tests/e18xx/test_issue29_notes.py checks every
# row's example against its move.
def _station(toks: list[str], low: list[str]) -> list[str] | None:
    if low[0] in ("place", "put") and len(low) > 2 and low[1].endswith(("'s", "\u2019s")) \
            and low[2] in ("home", "station", "token"):
        # "place W&A's home station in D4-1": the company's own station, as 'its' (the mail's "puts W&A's
        # home station in the city you choose"; s16b mail 028, refused "unknown move 'place'")
        toks, low = [toks[0], "its", *toks[2:]], [low[0], "its", *low[2:]]
    if low[0] == "home" and low[1:2] in (["station"], ["token"]):
        # 'home station in D4-1 (the Rome side)' (18GA 4.2(a), 4.2.2(c) "its home station"; s14 F8)
        toks, low = toks[1:], low[1:]
        if "(" in " ".join(toks):
            cut = next(i for i, t in enumerate(toks) if t.startswith("("))
            toks, low = toks[:cut], low[:cut]
    if low[0] == "station" or (low[0] in ("place", "put") and any(w in ("station", "token") for w in low[1:3])) \
            or (low[0] in ("place", "put") and low[1:2] in (["the"], ["its"]) and low[2:4] in (["home", "station"],
                                                                                      ["home", "token"])):
        # 'place the home station in D4-1' (18GA 4.2.2, and the mail's "puts W&A's home station"; s15b F1)
        rest = [t for t, w in zip(toks[1:], low[1:]) if w not in ("a", "station", "token", "the", "its", "home")]
        if rest and rest[0].lower() in ("in", "at", "on"):
            rest = rest[1:]
        cut = next((i for i, t in enumerate(rest) if i and t.lower() in _LAY_TAIL), None)
        if cut is not None and re.match(r"^[A-Za-z]{1,2}\d{1,3}-\d,?$", rest[0]) \
                and all(t.lower().rstrip(",") in ("city", "side", "one") for t in rest[1:cut]):
            # 'in D4-1, the city toward Rome': the city named exactly, where it leads a comment, as in a
            # lay (s16b mail 028); a city left unnamed ('in Atlanta, toward Rome') is not guessed
            rest = [rest[0].rstrip(",")]
        return ["token", *rest]
    return None


_STEP_WORDS = {"station", "stations", "token", "tokens", "tile", "tiles", "track", "lay", "run", "runs", "trains",
               "train", "purchase", "purchases"}


def _no_step(toks: list[str], low: list[str]) -> list[str] | None:
    """'no station this turn', 'no trains to run', 'skip the tile lay': a step of the turn left out in
    words (18GA 4.2: "Unless otherwise stated, each step is optional"; s14 F7): nothing is done for it
    (the steps a later move needs are passed; a run the rules require is still made)."""
    if low[0] in ("no", "skip") and len(low) > 1 and any(w.rstrip(",.") in _STEP_WORDS for w in low[1:4]):
        return []
    return None


_I_WILL = (("i", "will"), ("we", "will"), ("i", "shall"), ("we", "shall"), ("i", "want", "to"),
           ("we", "want", "to"), ("i'd", "like", "to"), ("we'd", "like", "to"), ("i", "would", "like", "to"),
           ("we", "would", "like", "to"), ("i'm", "going", "to"), ("we're", "going", "to"), ("i", "am", "going", "to"),
           ("i'll",), ("we'll",), ("i'd",), ("i",), ("we",))


def _first_person(low: list[str]) -> int:
    """How many words open a move said in the first person: 'I', 'I will', 'I'd like to', 'we want to'
    (0 for none)."""
    return next((len(w) for w in _I_WILL if tuple(low[:len(w)]) == w and len(low) > len(w)), 0)


def _i_do(toks: list[str], low: list[str]) -> list[str] | None:
    """'I bid $160 on the Macon & Birmingham.', 'we pass': a move said in the first person (s14 mail 3,
    refused "unknown move 'I'"); 'I will buy a WRA share ...', 'I'd like to pass' too (18AL s16b mail 27,
    refused "unknown move 'will'")."""
    n = _first_person(low)
    if n and low[n] in _MOVE_WORDS:
        return rulebook_words(toks[n:])
    if len(low) > 2 and re.match(r"^[A-Z][A-Z0-9&]{1,4}$", toks[0]) and low[1].endswith("s") \
            and low[1][:-1] in _MOVE_WORDS:  # 'CAR buys P3 from Ann for 140' (s14b mail #71)
        return rulebook_words([toks[1][:-1], *toks[2:]])
    return None


def _payout(toks: list[str], low: list[str]) -> list[str] | None:
    if low[0] == "pay" and [w for w in low[1:] if w not in ("the", "a", "its")] in (
            [], ["out"], ["out", "dividends"], ["dividends"], ["dividend"], ["out", "dividend"]):  # 'pay the dividend' (s14b #47)
        return ["payout"]
    return None


def _repay(toks: list[str], low: list[str]) -> list[str] | None:
    if low[0] in ("repay", "pay") and low[1:] and low[-1] in ("loan", "loans", "back"):
        return ["repay", "loan"]  # 'pay loan' too: refused with the rule where loans are never repaid
    return None


def _take_loan(toks: list[str], low: list[str]) -> list[str] | None:
    """'take a loan', 'take out a loan', 'take one loan' (1848 5.6.1 "take out a loan")."""
    if low[0] == "take" and low[-1:] == ["loan"] and all(w in ("out", "a", "one", "1") for w in low[1:-1]):
        return ["take", "loan"]
    return None


def _reduce(toks: list[str], low: list[str]) -> list[str] | None:
    return ["lower", *toks[1:]] if low[0] == "reduce" else None


_RETAIN_WORDS = {"the", "income", "earnings", "revenue", "money", "it", "all", "of", "in", "treasury", "its",
                 "company", "company's",
                 "full", "entirety", "everything"}


def _retain(toks: list[str], low: list[str]) -> list[str] | None:
    """'retain', 'retain the income', 'retain it all in the treasury' (1848 10.3.3: "retained in its
    entirety in the company's treasury", 11.2 'Retaining Income'; s14b mail #47)."""
    if low[0] in ("retain", "retains") and all(w.strip(".,") in _RETAIN_WORDS for w in low[1:]):
        return ["withhold"]
    if low[0] in ("keep", "keeps") and len(low) > 1 and all(w.strip(".,") in _RETAIN_WORDS for w in low[1:]) \
            and any(w.strip(".,") in ("income", "earnings", "revenue", "money") for w in low[1:]):
        # 'keep the money in the company' (10.3.3 "retained in its entirety in the company's
        # treasury"; s15 mail #121: "unknown move 'keep'"); not 'keep' alone
        return ["withhold"]
    return None


def _withhold_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'withhold revenue', 18AL/18GA 4.2.4(b)'s own words (play-through s13 mail #179: "'withhold'
    takes nothing after it")."""
    if low[0] == "withhold" and low[1:] in (["revenue"], ["the", "revenue"], ["revenues"], ["earnings"],
                                            ["the", "earnings"], ["income"], ["dividends"], ["the", "dividend"]):
        return ["withhold"]
    return None


def _run_trains(toks: list[str], low: list[str]) -> list[str] | None:
    """'run trains', 'run the trains', 'run all trains', 'run the best routes': the step as 18AL/18GA 4.2(d)
    names it, with no route written - the best run, which any stockholder may insist on (4.2.3.1;
    play-through s13 mail #177)."""
    if low[0] != "run":
        return None
    words = [w.rstrip(".,;") for w in low[1:]]
    if "for" in words and set(words[words.index("for"):]) <= _MOST_WORDS | {"for"}:
        # 'run trains for the most revenue': 4.2.3.1 "for the greatest total revenue possible" (s15)
        words = words[:words.index("for")] or ["trains"]
    if words in (["trains"], ["the", "trains"], ["all", "trains"], ["all", "the", "trains"], ["best"],
                 ["the", "best", "routes"], ["best", "routes"], ["the", "best"]):
        return ["run", "auto"]
    return None


_MOST_WORDS = {"the", "most", "greatest", "best", "highest", "maximum", "total", "revenue", "income", "possible",
               "money"}


def _contribute_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'Bob contributes $350', 'the president contributes $350', 'Bob pays $350 towards M&O's train'
    (18AL/18GA 4.2.5.2: "the president must contribute sufficient funds from his own personal cash";
    pbm's event: "Bob, its president, pays $105 towards TAG's train") -> 'contribute 350'
    (play-through s13 mail #166: "unknown move 'Bob'")."""
    at = next((i for i, w in enumerate(low[:3]) if w.startswith("contribut")
               or (i and w in ("pays", "pay") and any(x in low for x in ("towards", "toward", "rest", "difference",
                                                                           "own", "shortfall", "contribution")))),
              None)
    if at is None:
        return None
    amounts = [_money(t).rstrip(".,") for t in toks[at + 1:] if _money(t).rstrip(".,").isdigit()]
    return ["contribute", *amounts[:1]]


def _then_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'then buy TAG', 'and then buy TAG': a move after a comma in the words that join moves in
    English ('sell 1 WRA, then buy TAG': play-through s13 mail #153, the whole line read as a sale)."""
    if len(low) < 2 or low[0] not in ("then", "and", "afterwards", "next"):
        return None
    rest = toks[2:] if low[0] == "and" and low[1] == "then" and len(low) > 2 else toks[1:]
    return rulebook_words(rest)


def _done_turn(toks: list[str], low: list[str]) -> list[str] | None:
    return ["done"] if low == ["done", "turn"] else None


_THIS_TURN = {"this", "my", "the", "for", "on", "in", "turn", "time", "now", "round", "stock", "operating",
              "auction", "of", "rest", "remainder"}


def _pass_turn(toks: list[str], low: list[str]) -> list[str] | None:
    """'pass this turn', 'pass for now', 'pass this round': a pass and the turn or round it is made in
    (18GA 3.2 "If you don't want to do any of these things, you may pass"; s16 mail 37 and s16c mail
    32, refused "unexpected words after 'pass'"). A pass is for the turn: a player who passes acts
    again at his next turn, and the round ends when all pass in a row (1.1), so 'this round' names
    the round the pass is made in. Only 'the rest of the round' is the standing order."""
    words = [w.rstrip(".,!") for w in low[1:]]
    if low[0] != "pass" or not words or not all(w in _THIS_TURN for w in words):
        return None
    if "round" in words and ("rest" in words or "remainder" in words):
        return ["pass", "rest", "of", "round"]  # 'pass for the rest of the round'
    if "turn" in words or "now" in words or ("round" in words and "this" in words):
        return ["pass"]
    if low[0] == "pass" and words in (["this", "round"], ["in", "this", "round"]):
        return ["pass"]  # 'I pass this round.': this turn's pass; the round goes on (18AL 3.6; s16c mail 041)
    return None


def _start(toks: list[str], low: list[str]) -> list[str] | None:
    """'start QR at 70', 'Start QR at an initial share price of 70' (1848 5.2.1: the purchaser of the
    Director's Share "sets the initial share price"; s16e mail 7)."""
    if low[0] == "start" and len(toks) >= 3:
        return ["par", *[t.rstrip(",:").lstrip("$£") if t.rstrip(",:")[1:].isdigit() else t.rstrip(",:")
                         for t, w in zip(toks[1:], low[1:]) if w.strip(",:") not in ("at", "par", "for", "with", "price",
                                                                              "starting", "value", "of", "an", "a",
                                                                              "initial", "share", "")]]
    return None


_VALUE_FILLER = {"set", "sets", "the", "starting", "value", "of", "at", "is", "to", "for", "b&o's"}


def _starting_value(toks: list[str], low: list[str]) -> list[str] | None:
    """'Starting value of the B&O: $100', 'set the starting value of B&O at 100': the par price in the
    words of 18VA 4.1/4.3.3 ("sets the Starting Value", s14 mail #11)."""
    at = next((i for i, w in enumerate(low) if w not in ("set", "sets", "the")), len(low))
    if at < len(low) and low[at].endswith(("'s", "\u2019s")) and len(low[at]) > 2:
        owner = toks[at][:-2]  # "Set B&O's starting value at $90" (s16d mail 9): the company's own
        toks, low = [*toks[:at], owner, *toks[at + 1:]], [*low[:at], owner.lower(), *low[at + 1:]]
        at += 1
    if low[at:at + 2] != ["starting", "value"]:
        return None
    keep = [t.strip(":,").lstrip("$\u00a3") for t, w in zip(toks, low) if w.strip(":,") not in _VALUE_FILLER]
    keep = [t for t in keep if t]
    return ["par", *keep] if len(keep) == 2 else None


_USE_FILLER = {"for", "an", "a", "the", "extra", "station", "token", "marker", "its", "to", "place", "in", "on",
               "at", "power", "ability", "special", "bonus", "+10", "with",
               # 'to add +10 to Richmond', 'to increase the value of Richmond by $10' (18VA 4.2 (1): "Add +10 to
               # any City", "increase the value of any one City by $10"; s17 mail 43); 'of' only after 'value'
               "add", "adding", "increase", "increasing", "raise", "raising", "value", "by", "$10", "+$10"}


def _use_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'use Potomac Yards for an extra station in D9', 'use Railway Express Agency on Baltimore': the
    private by its rulebook name, its power in the book's words (18VA 4.2 (1), (3); s14 mails #65,
    #104: read as a private named 'POTOMAC YARDS FOR AN EXTRA STATION IN') -> 'use P3 D9'."""
    if low[0] != "use" or len(low) < 3:
        return None
    at = 2 if low[1] == "the" else 1
    for words, sym in _private_names():
        n = len(words)
        if tuple(low[at:at + n]) == words:
            tail = low[at + n:]
            rest = [t for i, (t, w) in enumerate(zip(toks[at + n:], tail))
                    if w not in _USE_FILLER and not (w == "of" and i and tail[i - 1] == "value")]
            if not rest or len(rest) == len(low) - at - n:
                return None  # no words of the book's around it: 'use Potomac Yards A6' is read as it is (s13w F3)
            return [toks[0], sym, *rest]
    return None


_USE_TO_MOVES = ("lay", "build", "upgrade", "place", "put", "buy")


def _use_to(toks: list[str], low: list[str]) -> list[str] | None:
    """'use P3 to lay tile 241 on I10 rotation 1', 'use the Tasmanian Railways to lay ...': the move
    after 'to', done with the private (1848 4.4: the owner lays the Tasmania tile; the state's
    'lay 241 I10 1 with P3'; play-through s15 mail #49: refused "name the private")."""
    if low[0] != "use" or "to" not in low[2:]:
        return None
    at = low.index("to", 2)
    if at + 1 >= len(low) or low[at + 1] not in _USE_TO_MOVES:
        return None
    who = [w for w in low[1:at] if w not in ("the", "my", "its", "our")]
    sym = next((s for words, s in _private_names() if tuple(who) == words), None)
    if sym is None and len(who) == 1 and re.match(r"^[a-z&]{1,5}\d{0,2}$", who[0]):
        sym = toks[low.index(who[0], 1)]
    if sym is None:
        return None
    tail = low[at + 1:] + [""]
    rest = [t for i, t in enumerate(toks[at + 1:]) if not (tail[i] == "tasmania" and tail[i + 1] == "tile")]
    move = rulebook_words([*rest, "with", sym.upper()])
    if move and move[0].lower() in ("place", "put"):
        return None  # not a lay or station in words this form knows: 'use Potomac Yards to place an extra
        # station token in Philadelphia' is the private's own power (_use_words)
    return move


def _use_on(toks: list[str], low: list[str]) -> list[str] | None:
    if low[0] in ("use", "assign") and len(toks) >= 4 and low[2] in ("on", "in", "at", "to"):
        return [toks[0], toks[1], *toks[3:]]  # 'use P1 on Newport News': a place of two words (s12v)
    return None


_MARKER_WORDS = {"marker", "chit", "bonus", "token"}


def _marker(toks: list[str], low: list[str]) -> list[str] | None:
    """'place the SNAR marker in Gadsden' (18AL Table III, the state's "a +$10 marker on one of
    ..."): the private's marker on a hex, ``assign SNAR Gadsden`` (play-through s12v: "unknown move
    'place'")."""
    if low[0] not in ("place", "put"):
        return None
    named = _private_symbol_in(toks, low)  # 'place the Railway Express +10 token on Charlottesville' (18VA 4.2 (1),
    if named is not None and any(w in ("token", "+10", "+$10") for w in low):  # "Two '+10' tokens"; s15 mail 75)
        toks, low = named, [t.lower() for t in named]
    elif not any(w in ("marker", "chit") for w in low[1:]):
        return None
    words = [t for t, w in zip(toks[1:], low[1:])
             if w not in _MARKER_WORDS and w not in ("the", "a", "its", "my", "in", "on", "at", "to", "+$10", "$10", "+10")]
    hexes = [w for w in words[1:] if _HEX_ONLY.match(w)]
    if len(words) == 3 and len(hexes) == 1:  # 'on Gadsden E6': the place and its hex (s15 mail #50)
        words = [words[0], hexes[0]]
    return ["assign", *words] if len(words) == 2 else None


def _private_symbol_in(toks: list[str], low: list[str]) -> list[str] | None:
    """``toks`` with a private's rulebook name (or that name without its last word, 'Railway Express'
    for the Railway Express Agency) made its symbol; None when no private is named."""
    for words, sym in _private_names():
        for name in (words, words[:-1] if len(words) > 2 else ()):
            n = len(name)
            at = next((i for i in range(1, len(low) - n + 1) if n and tuple(low[i:i + n]) == name), None)
            if at is not None:
                return [*toks[:at], sym, *toks[at + n:]]
    return None


_HYPHEN_TRAIN = re.compile(r"^([A-Za-z0-9+]+)-trains?$", re.I)


def _unhyphen(toks: list[str]) -> list[str]:
    """'a 2-train', 'the 4D-train' as 'a 2 train', 'the 4D train': the usual spelling of players
    (the rulebooks write "2 Train"; play-through s13 mail #33: 'buy a 2-train' was read as a share
    of a company named '2-train')."""
    out: list[str] = []
    for t in toks:
        m = _HYPHEN_TRAIN.match(t)
        out += [m.group(1), "train"] if m else [t]
    return out


def _buy_train_words(toks: list[str], low: list[str]) -> list[str] | None:
    toks = _unhyphen(toks)
    low = [t.lower() for t in toks]
    return ["buy", *_train_words(toks[1:])] if low[0] == "buy" and "train" in low[1:] else None


def _trade_in_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'buy train 8 as D trading in a 4 train': the train traded in as the move language writes it,
    'trade 4' (1848 8.2.4: the purchaser "can trade in a 4/4+ train and get a discount of 300
    pounds from the cost of a D train"; play-through s13v mail #173)."""
    if low[0] != "buy":
        return None
    at = next((i for i in range(1, len(low) - 1) if low[i] in ("trade", "trading") and low[i + 1] == "in"), None)
    if at is None:
        return None
    head, tail = toks[:at], toks[at + 2:]
    kept = [t for t in tail if t.lower() not in _TRAIN_FILLER + ("train", "its")]
    return rulebook_words([*head, "trade", *kept])


def _discard_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'discard a 3 train (into the Open Market)': the words of a purchase (18GA 4.2.5(g): the
    president discards the excess train into the Open Market; play-through s12v F3)."""
    toks = _unhyphen(toks)
    low = [t.lower() for t in toks]
    if low[0] != "discard" or "train" not in low[1:]:
        return None
    cut = next((i for i, w in enumerate(low) if i and w in ("to", "into")), len(low))
    return ["discard", *[t for t, w in zip(toks[1:cut], low[1:cut]) if w not in _TRAIN_FILLER + ("train", "its")]]


_AT_PAR = ("the", "its", "par", "value", "price")


def _at_par(toks: list[str], low: list[str]) -> tuple[list[str], list[str]]:
    """A share bought 'at par' (no price after it): from the Initial Offering, where shares are sold at
    par (18GA/18AL 1.4, 3.2(c)(2); 'buy a W&A share from the Initial Offering at par', 18GA s15 mail
    #76). A president's certificate 'at par 70' sets the par and is read by ``_president_par``."""
    if "at" not in low[2:] or any(w.startswith(_PRESIDENT_WORDS) for w in low):
        return toks, low
    at = len(low) - 1 - low[::-1].index("at")
    tail = [w.rstrip(".") for w in low[at + 1:]]
    if "par" not in tail or any(w not in _AT_PAR for w in tail):
        return toks, low
    toks, low = toks[:at], low[:at]
    if not any(tuple(low[-len(p):]) == p for p in _SOURCE_WORDS):
        toks, low = [*toks, "Initial", "Offering"], [*low, "initial", "offering"]
    return toks, low


def _buy_words(toks: list[str], low: list[str]) -> list[str] | None:
    """A share, a company started or a private bought, in many words."""
    if low[0] != "buy" or len(low) < 3 or low[1] in ("train", "private", "company"):
        return None
    why = _purpose(low)
    if why is not None and not any(w.rstrip(".,") in ("train", "trains") for w in low[:why]):
        toks, low = toks[:why], low[:why]  # 'buy one W&A share for $90 to float it' (s16b mail 024)
    # 'a 10% share', 'the 20% President's Certificate': the certificate's size, not a count (18AL 1.4,
    # 3.2(c)(1); s17 mail 006; 'buy 10% of WRA' is a count, below)
    sized = {i for i in range(1, len(low) - 1) if _PERCENT.match(low[i])
             and (low[i + 1] in ("share", "certificate") or low[i + 1].startswith(_PRESIDENT_WORDS))
             and low[i - 1] in ("a", "one", "buy", "the")}
    toks = [t for i, t in enumerate(toks) if i not in sized]
    low = [w for i, w in enumerate(low) if i not in sized]
    toks, low = _at_par(toks, low)
    priced = [i for i in range(1, len(low) - 1) if low[i] in ("for", "at") and low[i + 1].lstrip("$£").isdigit()]
    if len(priced) == 1 and any(w in ("share", "shares", "certificate") for w in low) and not any(
            w.startswith(_PRESIDENT_WORDS + ("par",)) for w in low) and _no_owner_after(low[priced[0]:]):
        at = priced[0]  # 'buy a WMR share for $60': the share and the price the list shows (s15 mail 80)
        bought = _buy_words(toks[:at] + toks[at + 2:], low[:at] + low[at + 2:])
        return [*bought, "share", "for", low[at + 1].lstrip("$£")] if bought and bought[0] == "buy" else None
    if any(a == "for" and b.lstrip("$£").isdigit() for a, b in zip(low[1:], low[2:])) \
            and not any(w.startswith(_PRESIDENT_WORDS) for w in low):
        return None  # 'buy MRC from Di for 60': a private at a price (parse_line; play-through s12)
    words = [w for w in low[1:] if w not in _SHARE_FILLER]
    keep = [t for t, w in zip(toks[1:], low[1:]) if w not in _SHARE_FILLER]
    if "new" in words and not any(w in ("train", "trains") for w in words):
        # 'a new share' (1848 5.1.3 'New Shares', bought from the Bank at par; s14b mail #20)
        keep = [t for t, w in zip(keep, words) if w != "new"]
        words = [w for w in words if w != "new"]
        if words[-1:] != ["bank"] and not any(words[-len(p):] == list(p) for p in _SOURCE_WORDS):
            words, keep = words + ["bank"], keep + ["bank"]
    count: list[str] = []
    if len(keep) >= 2 and (_PERCENT.match(words[0]) or words[0] in _COUNT_WORDS
                           or (_INT.match(words[0]) and len(words[0]) <= 2 and not _INT.match(words[1]))):
        # a count of shares or a percentage: 'buy 1 GA share', 'buy 10% of WRA' (read in parse_line)
        count = [_COUNT_WORDS.get(words[0], words[0])]
        words, keep = words[1:], keep[1:]
        if words[0] in ("from", "in"):  # 'buy 10% in WRA'
            words, keep = words[1:], keep[1:]
    elif len(keep) >= 2 and _PERCENT.match(words[1]) and not _PERCENT.match(words[0]):
        # the percentage after the company: 'buy SAR 10%' (a share is 10%, 1848 5.1; s16f mail 16)
        count = [words[1]]
        words, keep = words[:1] + words[2:], keep[:1] + keep[2:]
    if len(keep) >= 2 and keep[0].lower().startswith("president"):  # "the president's certificate of TAG" (s13)
        keep = [keep[1], keep[0], *keep[2:]]
        words = [words[1], words[0], *words[2:]]
    named = bool(keep) and keep[0].lower() not in ("train", "private", "company")  # 'buy a private P1 60' as is
    if named and len(keep) >= 3 and keep[0].lower().startswith(_PRESIDENT_WORDS):
        keep = [keep[1], keep[0], *keep[2:]]  # 'buy the director's share of VR at 80' (1848 12.3.1; s13 F1)
    if named and keep[0].lower().endswith(("'s", "\u2019s")) and len(keep) >= 2 \
            and keep[1].lower().startswith(_PRESIDENT_WORDS):
        keep = [keep[0][:-2], *keep[1:]]  # "buy VR's Director's Share at 80"
    if count:
        for phrase, source in _SOURCE_WORDS.items():
            n = len(phrase)
            if tuple(words[-n:]) == phrase and len(words) > n:
                return ["buy", *count, *keep[:-n], source]
        return ["buy", *count, *keep]
    par = _president_par(keep[1:]) if named else None
    if par is not None and keep[0].rstrip(",;.").upper() in {sym for _, sym in _private_names()}:
        # 'Buy the Brown & Sons Lumber Co. at its par value of $70': a private bought at its price (18AL
        # 3.1(a) "for its par value"); a private has no par to set (s16c mail 005: read as 'par BLC 70')
        return ["buy", "private", keep[0].rstrip(",;."), str(par)]
    if par is not None:
        return ["par", keep[0].rstrip(",;."), str(par)]
    if named and len(keep) == 2 and _INT.match(keep[1].lstrip("$")) and len(keep[1].lstrip("$")) <= 9:
        return ["buy", "private", keep[0], keep[1].lstrip("$")]
    for phrase, source in _SOURCE_WORDS.items():
        n = len(phrase)
        if tuple(words[-n:]) == phrase and len(words) > n:
            return ["buy", *keep[:-n], source]
    return ["buy", *keep]


def _no_owner_after(low: list[str]) -> bool:
    """No 'from' in a share line's words after its price, or only one naming the bank's place: 'buy one
    TAG share for $60 from the Initial Offering' (18AL 3.2(c)(2); s16c mails 016, 018), not a seller."""
    if "from" not in low:
        return True
    tail = tuple(w.rstrip(".,") for w in low[low.index("from") + 1:] if w != "the")
    return tail in _SOURCE_WORDS


_PURPOSE_WORDS = ("raise", "pay", "cover", "fund", "help", "buy", "get", "make", "afford", "float")
_PURPOSE_LEAD = ("i", "we", "need", "needed", "that", "which", "so")  # 'the share I need to float it'


def _purpose(low: list[str]) -> int | None:
    """Where a share move's closing 'why' begins, the player's note and no part of the move: 'sell 1 SR
    share to raise the money' (18VA 4.6.2; s15 mail 66), 'buy one W&A share for $90 to float it', 'Buy
    the last CoG share I need to float it' (18GA 3.4 "floats"; s16b mails 021, 024); None without one."""
    why = next((i for i in range(2, len(low) - 1) if low[i] == "to" and low[i + 1] in _PURPOSE_WORDS), None)
    while why is not None and why > 2 and low[why - 1] in _PURPOSE_LEAD:
        why -= 1
    if why is None:  # 'Buy a CAR share, which floats it', '... so that it floats' (1848 5.2.2; s16c mails 19, 21),
        # 'so it floats', ', which floats TAG' (18AL 3.4 "floats"; s16c mails 014, 025), 'Buy another GA share
        # so it floats' (18GA 3.4; s16c mail 19)
        why = next((i for i in range(2, len(low) - 1) if low[i].strip(",") in ("which", "so", "that")
                    and any(w.strip(",.!") in _FLOATS or w.startswith("float") for w in low[i + 1:i + 5])), None)
    return why


_FLOATS = ("floats", "float", "launches", "launch",
           "launched")  # 5.2.2 "A company is launched ... once 60% ..."; 'so that NSW is launched' (s16d mail 22)


def _sell_words(toks: list[str], low: list[str]) -> list[str] | None:
    """A sale in many words: 'sell 2 shares of ABC', 'sell 20% ABC', 'sell one ABC share',
    'sell ABC 2' -> 'sell <count or percent> <corporation>'."""
    if low[0] != "sell" or len(low) < 3:
        return None
    sold = _private_sold(toks, low)
    if sold is not None:
        return sold
    why = _purpose(low)
    if why is not None:  # 'sell 1 SR share to raise the money': why is the player's note
        toks, low = toks[:why], low[:why]
    if low[-1].rstrip(".") in ("each", "apiece") or low[-2:] in (["a", "share"], ["per", "share"]):
        cut = 1 if low[-1].rstrip(".") in ("each", "apiece") else 2  # 'for £90 each': a share's price
        toks, low = toks[:-cut], low[:-cut]
    priced = [(i, *p) for i in range(2, len(low) - 1) if low[i] in ("for", "at")
              and (p := _said_price(toks, low, i)) and p[1] == len(low)]
    if len(priced) == 1:  # 'sell 1 CAR share to the pool for 90': the price the player expects, checked
        at, price, _ = priced[0]  # against the market's (share_count)
        sold = _sell_words(toks[:at], low[:at]) or (["sell", "1", toks[1]] if at == 2 else None)  # 'sell CAR for 90'
        return [*sold, "for", price] if sold and len(sold) == 3 else None
    keep = [t for t, w in zip(toks[1:], low[1:])  # 'sell my ABC share' (s13 mail #89)
            if w not in _SHARE_FILLER - {"one"} and w not in ("to", "open", "market", "pool", "bank", "my")]
    keep = [_COUNT_WORDS.get(t.lower(), "1" if t.lower() == "one" else t) for t in keep]
    if len(keep) == 2 and (_INT.match(keep[1]) or _PERCENT.match(keep[1])) \
            and not (_INT.match(keep[0]) or _PERCENT.match(keep[0])):
        keep = [keep[1], keep[0]]  # 'sell ABC 2', 'sell CAR 20%' (as 'buy SAR 10%'; 1848 s16f)'
    if len(keep) == 1:
        keep = ["1", keep[0]]
    return ["sell", *keep]


def _private_sold(toks: list[str], low: list[str]) -> list[str] | None:
    """'Sell P3 to NSW for £140', 'sell the Tasmanian Railways to NSW for 140': the Director's private
    sold to his company, which is that company buying it from him (1848 4.1, 7.3; 18GA/18AL 4.2.6;
    s17b mail 049, refused "need [count] and a corporation"). None when it is no private's sale."""
    if "to" not in low[2:] or "for" not in low[3:]:
        return None
    to, at = low.index("to"), len(low) - 2
    if low[at] != "for" or not _money(toks[-1]).rstrip(".,").isdigit() or at < to:
        return None
    what = [(t, w) for t, w in zip(toks[1:to], low[1:to]) if w not in ("my", "private", "company")]
    if not what:
        return None
    words = ["buy", *(t for t, _ in what)]
    if not ((len(what) == 1 and what[0][0].upper() in _private_symbols())
            or _private_name(words, [w.lower() for w in words]) is not None):
        return None
    return rulebook_words([*words, "from", "me", "for", _money(toks[-1]).rstrip(".,")])


def _money(t: str) -> str:
    """An amount written with its currency sign ('$130', '£70') as the number."""
    return t[1:] if t[:1] in ("$", "\u00a3") and t[1:].isdigit() else t


def _bid_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'bid $130 on NDY', 'place a bid of 130 on NDY' (18AL/18GA 3.1(b) "place a bid on")."""
    if low[0] == "place" and low[1:3] in (["a", "bid"], ["bid"]):
        toks, low = toks[low.index("bid"):], low[low.index("bid"):]
    if low[0] != "bid" or len(low) < 3:
        return None
    keep = [_money(t) for t, w in zip(toks[1:], low[1:]) if w not in ("on", "for", "of", "a", "the", "private")]
    return ["bid", *keep] if keep != toks[1:] else None


def _par_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'par ABC at $70', 'par ABC at 70', 'par ABC for $70' (18AL 3.2(c)(1): set the par value)."""
    if low[0] != "par" or len(low) < 3:
        return None
    keep = [_money(t) for t, w in zip(toks[1:], low[1:]) if w not in ("at", "for", "of", "par", "price", "value",
                                                                      "a", "the")]
    return ["par", *keep] if keep != toks[1:] else None


_PRICE_LEAD = ("its", "the", "lowered", "reduced", "current", "face", "listed", "present", "new", "sale", "asking")
_PRICE_NOUN = ("price", "value", "cost")


def _said_price(toks: list[str], low: list[str], at: int) -> tuple[str, int] | None:
    """The price after the 'at' or 'for' at ``at`` and the index after it: '£165', or the price the sale
    shows said in words, 'its lowered price of £165', 'its reduced price, £165', 'its face value of £110'
    (1848 3.1.1 "buy a Private Company at its face value or reduce the cost"; s17c mail 005); None when
    no price follows. A par value ('at its par value of 70') is ``_president_par``'s."""
    i = at + 1
    while i < len(low) and low[i].rstrip(",:") in _PRICE_LEAD:
        i += 1
    if i > at + 1:
        if i >= len(low) or low[i].rstrip(",:") not in _PRICE_NOUN:
            return None
        i += 1
        if i < len(low) and low[i] in ("of", "now", "is"):
            i += 1
    price = _money(toks[i]).rstrip(".,") if i < len(toks) else ""
    return (price, i + 1) if price.isdigit() else None


def _private_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'buy private LTR from Ann for $25', 'buy BLC from Ann for 105', 'buy private LTR for 25': the private,
    its price and the owner named (checked against the game: ``FromOwner``); 'buy P2 at £70', the price
    the sale lists (1848 3.1.1 "buy a Private Company at its face value"; s16 mail #6)."""
    if low[0] != "buy" or len(low) < 4 or "train" in _unhyphen(low):
        return None
    said = next(((i, *p) for i in range(2, len(low) - 1) if low[i] in ("for", "at")
                 and (p := _said_price(toks, low, i)) and p[1] > i + 2), None)
    if said:  # 'buy P4 at its lowered price of £165' is 'buy P4 at £165' (1848 3.1.1; s17c mail 005)
        i, price, end = said
        toks, low = [*toks[:i + 1], price, *toks[end:]], [*low[:i + 1], price, *low[end:]]
    if "for" not in low[2:]:
        at = next((i for i in range(2, len(low) - 1) if low[i] == "at" and toks[i - 1].upper() in _private_symbols()), None)
        if at is None:
            return None
        toks, low = [*toks[:at], "for", *toks[at + 1:]], [*low[:at], "for", *low[at + 1:]]  # 'buy P2 at £70'
    keep = [(t, w) for t, w in zip(toks[1:], low[1:]) if w not in ("a", "the", "private", "company")]
    words = [w for _, w in keep]
    if "for" not in words:
        return None
    if "from" in words and words.index("from") > words.index("for") and words.index("from") == len(words) - 2:
        keep = keep[:words.index("for")] + keep[-2:] + keep[words.index("for"):-2]  # 'for $40 from Di'
        words = [w for _, w in keep]
    at = words.index("for")
    price = _money(keep[at + 1][0]) if at + 1 < len(keep) else ""
    head = keep[:at]
    if not price.isdigit() or at + 2 != len(keep) or not head:
        return None
    owner = None
    if len(head) == 3 and head[1][1] == "from":
        owner = head[2][0]
        head = head[:1]
    if len(head) != 1:
        return None
    return ["buy", "private", head[0][0], price] + (["from", owner] if owner else [])


_LAY_FILLER = ("tile", "in", "at", "on", "hex", "rotation", "rot", "rotated", "rotate", "to", "a", "the", "orientation",
               "mine", "city", "yellow", "green", "brown", "gray", "grey",  # 'lay the mine tile 4 at B7' (s14b #47)
               "number", "no.")  # 'lay a number 5 tile on Augusta' (18GA s17 mail 30)
_ROTATION_WORDS = ("rotation", "rot", "rotated", "rotate", "orientation")
_LAY_COLOURS = ("yellow", "green", "brown", "gray", "grey", "new")
_LAY_TAIL = ("toward", "towards", "heading", "facing",
             "connecting", "connect", "joining", "join", "linking", "link",  # '..., connecting A and B' (1848 s16 #36)
             "between", "going", "leading", "running",  # '..., between Richmond and Fredericksburg' (18VA s16b #25)
             "runs", "goes", "leads", "heads",  # '..., rotation 0, so it runs from A down toward B' (18VA s16d #19)
             "paying", "costing")  # '..., paying £50 for the mountain': the terrain cost, charged by the map (1848 s16e #56)
# words that start the player's note only right after the rotation: '..., rotation 2, from Petersburg toward
# Norfolk', '..., rotation 0, down to Rocky Mount' (18VA s17 mails 27, 50); before it 'from' may be a lay's own
_LAY_TAIL_AFTER_ROTATION = ("from", "down", "up", "out", "onward", "onwards", "through", "via", "past",
                            "across", "over", "into", "north", "south", "east", "west")


def _lay_tail(low: list[str], i: int) -> bool:
    """Does the word ``low[i]`` of a lay start the player's note on where the track goes?"""
    w = low[i].rstrip(",.;")
    return w in _LAY_TAIL or (w in _LAY_TAIL_AFTER_ROTATION and i > 0
                              and re.match(r"^[0-5]$", low[i - 1].rstrip(",.;")) is not None)


_JOIN_VERBS = ("connecting", "connect", "connects", "joining", "join", "joins", "linking", "link", "links",
               "toward", "towards",  # 'in Newcastle (E18) toward Sydney': no rotation, where it leads (s16c mail 41)
               "facing", "faces", "leading", "leads",  # '... facing Geelong and Ballarat & Bendigo' (7.4.7 "Tile
               # Facing"), 'so it leads to Geelong': the same (1848 s17b mail 035, refused "say which" rotation)
               "reach", "reaches", "reaching")  # '... rotation 3 to reach Greeneville' (18GA s17 mail 38)
_JOIN_LEAD = ("so", "that", "it", "which", "to", "and")  # 'so it connects', 'so that it joins'


def _lay_joining_words(toks: list[str], low: list[str]) -> list[str] | None:
    """A lay that says what its track joins ('Lay a 57 tile in Sydney so it connects Wollongong and
    Newcastle', 'lay 57 F17 connecting Wollongong and Newcastle'): the lay, then 'joining' and the
    places, for the rotation that joins them (``LayJoining``; s16b mail #33); 'toward Sydney' after a lay
    without its rotation is the same (s16c mails 41, 43), after a rotation it is a comment (18GA s14b F8).
    None when the line says no such thing."""
    at = next((i for i, w in enumerate(low) if i > 1 and w.rstrip(",.;") in _JOIN_VERBS), None)
    if at is None:
        return None
    head = list(toks[:at])
    told = next((i for i in range(2, at) if _lay_tail(low, i)), at)
    head = head[:told]  # 'so it runs from Alexandria down toward Richmond': all of it says where (s16d #19)
    while len(head) > 1 and head[-1].lower().rstrip(",.;") in _JOIN_LEAD:
        head.pop()
    words = " ".join(t for t, w in zip(toks[at + 1:], low[at + 1:]) if w not in ("the", "to"))
    places = [p.strip(" .;") for p in re.split(r",|\b(?:and|with)\b", words, flags=re.I) if p.strip(" .;")]
    lay = rulebook_words([h.rstrip(",.;") for h in head])
    if not places or not lay or lay[0].lower() != "lay" or "joining" in [w.lower() for w in lay]:
        return None
    if len(lay) == 4 and re.match(r"^[0-5]$", lay[3]):
        return lay  # the rotation written: what it joins is the player's comment (18GA s14b F8)
    return [*lay, "joining", *" and ".join(places).split()]


def _lay_told(keep: list[str]) -> list[str] | None:
    """The tile, the place and the rotation of a lay among a player's words, or None: 'Atlanta 451
    Atlanta, 0' (the tile's label before its number: "the Atlanta tile 451 in Atlanta"), 'Augusta with
    green Augusta 453, 0.' (18GA s14b F4, F9); a closing 'toward Chattanooga' or 'connecting Port Pirie
    and Mount Gambier' or 'between Richmond and Fredericksburg' is the player's comment (s14b F8; 1848 s16
    mail #36; 18VA s16b mail 25); 'with <private>' after the rotation stays (Table III: a private's lay)."""
    bare = [t.rstrip(",.;") for t in keep]
    cut = next((i for i in range(len(bare)) if _lay_tail([w.lower() for w in bare], i)), len(bare))
    bare = bare[:cut]
    private: list[str] = []
    if "with" in [w.lower() for w in bare]:
        at = max(i for i, w in enumerate(bare) if w.lower() == "with")
        if at > 0 and re.match(r"^[0-5]$", bare[at - 1]) and at + 1 < len(bare):
            private, bare = bare[at:], bare[:at]
    bare = [w for w in bare if w and w.lower() not in _LAY_COLOURS + ("with",)]
    tiles = [i for i, w in enumerate(bare) if re.match(r"^\d+[a-z]?$", w)]
    if len(tiles) != 2 or not re.match(r"^[0-5]$", bare[tiles[1]]) or tiles[1] != len(bare) - 1:
        return None
    places = {w for i, w in enumerate(bare) if i not in tiles}
    hexes = {w for w in places if _HEX_ONLY.match(w)}
    if len(places) == 2 and len(hexes) == 1:  # 'the Birmingham tile 441a on G4': the hex said is the place
        places = hexes  # (18AL 4.2.1(g), tiles labelled with a city; s16c mail 053)
    if len(places) != 1:
        return None
    return [bare[tiles[0]], places.pop(), bare[tiles[1]], *private]


def _lay_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'lay tile 6 in G6 rotation 5', 'lay 6 at G6 rot 5', 'upgrade G6 to 14 rotation 2' -> 'lay 6 G6 5'."""
    if low[0] == "build":  # 1848 7.3 step 1 'Build track' (s14b mail #54)
        return rulebook_words(["lay", *toks[1:]])
    if low[0] not in ("lay", "upgrade", "place"):
        return None
    if "tasmania" in low and any(w.startswith("tile") for w in low):  # 1848 4.4 "the blue Tasmania tile"
        rest = [t for t, w in zip(toks[1:], low[1:]) if w not in ("the", "blue", "tasmania", "tasmanian", "tile")]
        return rulebook_words(["lay", "241", *rest])
    if "lumber" in low and "terminal" in low:  # 18AL 4.2.1 "the 'Lumber Terminal' tile", 445 (s15 mail #101)
        rest = [t for t, w in zip(toks[1:], low[1:]) if w not in ("the", "lumber", "terminal", "tile", "445")]
        return rulebook_words(["lay", "445", *rest])
    if low[0] == "place":
        if "tile" not in [w.rstrip(",") for w in low[1:4]]:
            return None
        return rulebook_words(["lay", *toks[1:]])  # 18VA 4.5.2 "may place one yellow tile" (s15 mail 23)
    bracketed = _bracketed_place(toks)
    if bracketed is not None:  # 'E2 (Whyalla)', 'Port Pirie (F5)' (s14b mails #55, #102)
        return rulebook_words(bracketed)
    joined = _lay_joining_words(toks, low)
    if joined is not None:
        return joined
    if not any(w.rstrip(",.;") in _LAY_FILLER + _LAY_COLOURS + ("with",) or _lay_tail(low, i)
               for i, w in enumerate(low[1:], 1)):
        return None
    keep = [t for i, (t, w) in enumerate(zip(toks[1:], low[1:]), 1)
            if w not in _LAY_FILLER and not (w == "with" and i + 1 < len(low)  # 'with tile 237' (s14b #59)
                                             and (low[i + 1] in ("tile", *_ROTATION_WORDS)  # 'with rotation 1' (s14b #124)
                                                  or low[i + 1].rstrip(",").isdigit()))]
    tail = next((i for i in range(1, len(keep)) if _lay_tail([w.lower() for w in keep], i)), None)
    if tail is not None:  # 'toward Selma and K6': the player's comment, read before a hex in it is taken
        keep = [*keep[:tail - 1], keep[tail - 1].rstrip(",.;")]  # for the lay's own (s16c mail 038)
        while len(keep) > 1 and keep[-1].lower().rstrip(",.;") in _JOIN_LEAD:
            keep = [*keep[:-2], keep[-2].rstrip(",.;")]  # 'so it runs ...' (s16d mail 19)
    keep = _hex_not_its_name(keep)
    told = _lay_told(keep) if len(keep) > 3 else None  # 'the Atlanta tile 451 in Atlanta, 0' (18GA s14b F4, F9)
    if told is not None:
        return ["lay", *told]
    if len(keep) >= 3 and re.match(r"^[A-Za-z]{1,2}\d{1,3}$", keep[0]) and not re.match(r"^[A-Za-z]{1,2}\d{1,3}$",
                                                                                      keep[1]):
        keep = [keep[1], keep[0], *keep[2:]]  # the hex first: 'upgrade G6 to 14 rotation 2'
    elif len(keep) >= 3 and low[0] == "upgrade" and re.match(r"^[A-Za-z][A-Za-z'.]+,?$", keep[0]) \
            and re.match(r"^\d+[a-z]*,?$", keep[1]):
        keep = [keep[1], keep[0], *keep[2:]]  # the place first: 'upgrade Macon to 15 rotation 2' (s14)
    return ["lay", *keep]


_HEX_ONLY = re.compile(r"^[A-Za-z]{1,2}\d{1,3}$")
_PLACE_PART = re.compile(r"^(?:[A-Za-z][A-Za-z'.&-]*|&)$")  # a word of a place's name: 'Toowoomba & Ipswich'
_PLACE_WORD = re.compile(r"^[A-Za-z][A-Za-z'.]*,?$")


def _hex_not_its_name(keep: list[str]) -> list[str]:
    """A lay's words with the place name beside its hex left out, as the mails write 'G4 Washington':
    'upgrade Washington G4 to tile 14 rotation 1' (play-through s15 mail 64)."""
    hexes = [i for i, w in enumerate(keep) if _HEX_ONLY.match(w.rstrip(","))]
    if len(hexes) != 1:
        return keep
    at = hexes[0]
    lo = at
    while lo > 0 and _PLACE_WORD.match(keep[lo - 1]) and not _HEX_ONLY.match(keep[lo - 1]) \
            and keep[lo - 1].lower() != "with":
        lo -= 1
    hi = at + 1
    while hi < len(keep) and _PLACE_WORD.match(keep[hi]) and not _HEX_ONLY.match(keep[hi]) \
            and keep[hi].lower() != "with":
        hi += 1
    return [*keep[:lo], keep[at], *keep[hi:]] if (lo, hi) != (at, at + 1) else keep


def _bracketed_place(toks: list[str]) -> list[str] | None:
    """A tile lay naming a hex and its place, one of them in brackets, as the mails write 'E2 Whyalla':
    'lay tile 6 on E2 (Whyalla) rotation 2' -> the words without '(Whyalla)'; 'upgrade Port Pirie (F5)
    to tile 15' -> the words with 'F5' for the place (s14b mails #55, #102). None: no brackets."""
    text = " ".join(toks)
    if "(" not in text:
        return None
    hexed = re.search(r"\(\s*([A-Za-z]{1,2}\d{1,3})\s*\)", text)
    if hexed:
        before = text[:hexed.start()].split()
        while len(before) > 1 and re.match(r"^[A-Z][A-Za-z'.&]*$", before[-1]) \
                and before[-1].lower() not in _LAY_FILLER:
            before.pop()  # the place's words before its hex
        text = " ".join(before + [hexed.group(1)]) + text[hexed.end():]
    else:  # '(Whyalla)' dropped; '(rotation 0)', '(0)' kept as words (s14b: 'tile 9 on C6 (rotation 0)')
        text = re.sub(r"\s*\(([^)]*)\)", lambda m: " " + m.group(1) if re.search(r"\d", m.group(1)) else "", text)
    return text.replace(" ,", ",").split()


def _hyphen_stops(word: str) -> list[str] | None:
    """'F6-E7' -> ['F6', 'E7'], 'F6-D4-1-C3;' -> ['F6', 'D4-1', 'C3;']: a route's hexes joined by
    hyphens in one word; a digit after a hex is its city ('D4-1', as the mails write it). None when
    the word is one stop ('D4-1', 'L5-0'), a train ('2-2') or anything but hexes."""
    core = word.rstrip(",;")
    tail = word[len(core):]
    parts = re.split("[-\u2013\u2014]", core)
    if len(parts) < 2:
        return None
    stops: list[str] = []
    for p in parts:
        if p.isdigit() and len(p) == 1 and stops and _HEX_ONLY.match(stops[-1]):
            stops[-1] += f"-{p}"
        elif _HEX_ONLY.match(p) or re.match(r"^[A-Za-z][A-Za-z'.&]{2,}$", p):
            stops.append(p)  # or a place: 'Baltimore-Philadelphia' (s14 mail #39; the game reads the name)
        else:
            return None
    if len(stops) < 2:
        return None
    stops[-1] += tail
    return stops


def _route_hyphens(toks: list[str], low: list[str]) -> list[str] | None:
    """'run 2 F6-E7' -> 'run 2 F6 E7': the stops of a route joined by hyphens, as a route is drawn
    'Macon-Milledgeville' (play-through s13 F3: "each route is a train then at least two stops")."""
    if low[0] != "run" or not any("-" in t or "\u2013" in t or "\u2014" in t or w == "and"
                                  for t, w in zip(toks[1:], low[1:])):
        return None
    out = [toks[0]]
    split = False
    skip = 0
    for i, t in enumerate(toks[1:], 1):
        if skip:
            skip -= 1
            continue
        nxt = i + 1
        while low[i] == "and" and nxt < len(toks) and low[nxt] in _OTHER_TRAIN:
            nxt += 1  # 'and the other 2 train Rome - Chattanooga' (18GA 4.2.3(j); s15b mail 047)
        if low[i] == "and" and len(out) > 2 and nxt < len(toks) and _TRAIN_NAME.match(toks[nxt]):
            out[-1] = out[-1].rstrip(",;") + ";"  # 'run 2 H3 H1 and 2 G4 H3': the next train (s14 #40)
            split = True
            skip = nxt - i - 1
            continue
        train = next((t for t in out[1:] if _TRAIN_NAME.match(t)), None)
        if low[i] == "and" and train and len(out) > 2 and nxt < len(toks) \
                and any(w in ("other", "another", "second") for w in low[i + 1:nxt]):
            # 'run one 2 train Atlanta - Rome and the other Rome - Chattanooga': 'the other' is a second
            # train of the type named, its type left unsaid (18GA 4.2.3(j); s16b mail 046)
            out[-1] = out[-1].rstrip(",;") + ";"
            out.append(train)
            split = True
            skip = nxt - i - 1
            continue
        if low[i] == "and" and train and len(out) > 2 and i + 1 < len(toks) and (
                _hyphen_stops(toks[i + 1]) or _spaced_route(out[out.index(train) + 1:], low[i + 1:])):
            # 'run the 2 trains Adelaide-Port Pirie and Adelaide-Mount Gambier': a second route drawn
            # with hyphens runs another train of the type named (1848 s15c mail #45); so does one drawn
            # with spaced dashes, 'run the two 2 trains: Montgomery - Selma and Montgomery - West Point'
            # (18AL s16b mail 45)
            out[-1] = out[-1].rstrip(",;") + ";"
            out.append(train)
            split = True
            continue
        stops = _hyphen_stops(t)
        split = split or stops is not None
        out += stops or [t]
    return out if split else None


def _spaced_route(before: list[str], after: list[str]) -> bool:
    """Do the words before an 'and' (from the train on) and after it each draw a route with spaced
    separators ('Montgomery - Selma', 'Montgomery - West Point')?  Then the 'and' starts the route
    of another train, not a stop named 'Selma and Montgomery'."""
    upto = after.index("and") if "and" in after else len(after)
    return any(w in _SEPARATORS for w in before) and any(w in _SEPARATORS for w in after[:upto])


_TRAIN_NAME = re.compile(r"^\d+[A-Za-z]?\+?$")  # '2+' too: 'the 2 train ... and the 2+ train ...' (1848 8.2.3; s16d mail 34)
_OTHER_TRAIN = ("the", "a", "other", "another", "second")


def _token_words(toks: list[str], low: list[str]) -> list[str] | None:
    """'token in Rome', 'token at G4'."""
    if low[0] == "token" and len(low) >= 3 and low[1] in ("in", "at", "on"):
        return ["token", *toks[2:]]
    return None


def _with_private(toks: list[str], low: list[str]) -> list[str] | None:
    """'buy The Ghan train with the P4 rebate', 'lay 7 E6 with the P2 discount': the private named after
    'with' among the book's words for its power (1848 4.3, 4.5 'rebate'; s14b mail #112)."""
    if "with" not in low[1:]:
        return None
    at = low.index("with", 1)
    tail = [t for t, w in zip(toks[at + 1:], low[at + 1:])
            if w not in ("the", "its", "rebate", "discount", "ability", "power", "bonus", "private")]
    if len(tail) == len(toks) - at - 1 or len(tail) != 1:
        return None
    return rulebook_words([*toks[:at + 1], *tail])


_GHAN = ("ghan", "2E")  # 1848 4.5, 8.2.5: "a 2E train, 'The Ghan'", also the name of the private P4


def _named(toks: list[str], low: list[str]) -> list[str] | None:
    """A company or a train by the rulebook's name (1848: 12.3.3 'the Bank of England' is BOE; 4.5,
    8.2.5 'The Ghan' is the 2E train), then the line read again as the other rows read it (s13 F2, F4).
    'The Ghan' with a price and no 'train' is the private of that name, P4 (4.5): a train from the Bank
    has the Bank's price, a private the price its buyer names ('Buy The Ghan for 165' in the sale of the
    privates, 3.1.1; play-through s16b mail #7: read as a 2E train and refused)."""
    out: list[str] = []
    ghan = False
    priced = any(w in ("for", "at") and _said_price(toks, low, i)
                 for i, w in enumerate(low)) and not {"train", "2e"} & set(low)
    i = 0
    while i < len(toks):
        if low[i:i + 3] == ["bank", "of", "england"]:
            out.append("BOE")
            i += 3
            continue
        if low[0] == "buy" and low[i] == _GHAN[0] and not priced:
            if out and out[-1].lower() == "the":
                out.pop()
            out.append(_GHAN[1])
            ghan = True
            i += 2 if low[i + 1:i + 2] == ["2e"] else 1
            continue
        out.append(toks[i])
        i += 1
    if out == toks:
        return None
    if ghan and "train" not in [w.lower() for w in out]:
        out.append("train")
    return rulebook_words(out)

_NAME_TAIL = ("railroad", "railway", "rail", "road", "rr", "co.", "co", "company")


@lru_cache(maxsize=1)
def _private_names() -> tuple[tuple[tuple[str, ...], str], ...]:
    """Every title's privates by the rulebook's name (title.json ``companies``), longest name first:
    ``(('memphis', '&', 'charleston', 'railroad'), 'M&C')``, and the same name without a closing
    'Railroad'/'Co.' (``Memphis & Charleston``), as players shorten it, or with 'RR' written out
    (18GA Table III "Lexington Terminal RR" is the Lexington Terminal Railroad; s16b mail 001). A
    word's full stop is dropped, as a line's last one is ('Midland Railroad Co.'; s16b mail 005)."""
    import json
    from pbm.e18xx.core.title import TITLES_DIR, known_titles
    out: dict[tuple[str, ...], str] = {}
    for t in known_titles():
        data = json.loads((TITLES_DIR / t / "title.json").read_text(encoding="utf-8"))
        for comp in data.get("companies", []):
            words = tuple(w.rstrip(".") for w in str(comp.get("name", "")).lower().split())
            if len(words) < 2 or not comp.get("sym"):
                continue
            forms = [words]
            if words[-1] == "rr":
                forms += [(*words[:-1], "railroad"), (*words[:-1], "railway")]
            for form in forms:
                out.setdefault(form, comp["sym"])
            if words[-1] in _NAME_TAIL and len(words) > 2:
                out.setdefault(words[:-1], comp["sym"])
    return tuple(sorted(out.items(), key=lambda kv: -len(kv[0])))


@lru_cache(maxsize=1)
def _name_beside_symbol() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """For every private's and corporation's name (``_private_names``, ``_corp_names``): its symbol and
    the pattern of the name written beside that symbol, in brackets or not, either first: 'The Ghan
    (P4)', 'P2 Oodnadatta Railway', 'the Queensland Government Railway (QR)'."""
    out = []
    for words, sym in (*_private_names(), *_corp_names()):
        bare = words[1:] if words[0] == "the" and len(words) > 1 else words
        name = r"(?:the\s+)?" + r"\s+".join(re.escape(w) for w in bare)
        symbol = r"(?<![\w&])" + re.escape(sym) + r"(?![\w&])"
        out.append((sym, re.compile(rf"(?<![\w&]){name}\s*(?:\(\s*{symbol}\s*\)|,?\s+{symbol})"
                                    rf"|{symbol}\s*(?:\(\s*{name}\s*\)|,?\s+{name}(?![\w&]),?)", re.I)))
    return tuple(out)


def _symbol_for_name(text: str) -> str:
    """``text`` with a private's or a company's name written beside its own symbol made the symbol:
    'I buy The Ghan (P4) for 170' (1848 4.5 "The Ghan (P4)"), 'Buy P2 Oodnadatta Railway at £70', 'Start
    the Queensland Government Railway (QR) at 70' (1848 5.1's table; s16 mails #3, #6, #13). The bracket
    was dropped as a note, leaving the name alone ('The Ghan' is also the 2E train, 8.2.5)."""
    low = text.lower()
    for sym, pattern in _name_beside_symbol():
        if sym.lower() in low:
            text = pattern.sub(sym, text)
            low = text.lower()
    return text


def _private_name(toks: list[str], low: list[str]) -> list[str] | None:
    """'buy the Memphis & Charleston from Ann for $100': a private by its rulebook name (18AL Table III,
    4.2.6) read as its symbol, then the line read again as the other rows read it (s13w mail #61); so is
    the private whose price is lowered: 'Lower the price of the Tasmanian Railways' (1848 3.1.1, 4.4;
    play-through s16b mail #9: refused "name the private")."""
    if low[0] not in ("buy", "bid", "lower", "reduce") or len(low) < 2:
        return None
    for words, sym in _private_names():
        n = len(words)
        for i in range(1, len(low) - n + 1):
            if tuple(w.rstrip(",.") for w in low[i:i + n]) == words:
                head = toks[:i - 1] if low[i - 1] == "the" and i > 1 else toks[:i]
                tail = toks[i + n:]
                if low[i + n - 1].endswith(","):
                    sym += ","
                return rulebook_words([*head, sym, *tail])
    return None



_CORP_TAIL = ("railroad", "railway", "railways", "rr")
# a word of a map's name as a rulebook spells it: 1848 5.1's "Queensland Government Railway" is the map's
# "Queensland Gov't Railway", its "Victorian Railway" the map's "Victorian Railways" (s16 mail #13)
_NAME_WORD_FORMS = {"gov't": "government", "railway": "railways", "railways": "railway"}


@lru_cache(maxsize=1)
def _corp_names() -> tuple[tuple[tuple[str, ...], str], ...]:
    """Every title's corporations by name (title.json ``corporations``), longest first: the name, with
    '&' for 'and' and 'and' for '&', a word as the rulebook spells it (``_NAME_WORD_FORMS``), and
    without a closing 'Railroad'/'Railway' where two words or more are left (``central of georgia``,
    ``western & atlantic``); a name two titles give to different corporations is left out."""
    import json
    from pbm.e18xx.core.title import TITLES_DIR, known_titles
    out: dict[tuple[str, ...], str | None] = {}
    for t in known_titles():
        data = json.loads((TITLES_DIR / t / "title.json").read_text(encoding="utf-8"))
        for corp in data.get("corporations", []):
            words = tuple(w.strip(",") for w in str(corp.get("name", "")).lower().split())
            if len(words) < 2 or not corp.get("sym"):
                continue
            forms = {words, tuple("&" if w == "and" else w for w in words),
                     tuple("and" if w == "&" else w for w in words)}
            forms |= {spelt for f in list(forms)
                      for spelt in product(*[(w, _NAME_WORD_FORMS[w]) if w in _NAME_WORD_FORMS else (w,) for w in f])}
            forms |= {f[:-1] for f in forms if f[-1] in _CORP_TAIL and len(f) > 1}  # 'the Virginian' (s14b #72)
            # its initials with the '&' (18AL 8: "the AB&C", the Atlanta, Birmingham & Coast; s14b mail #50)
            bare = words[:-1] if words[-1] in _CORP_TAIL and len(words) > 2 else words
            initials = "".join("&" if w in ("&", "and") else w[0] for w in bare if w not in ("of", "the"))
            if "&" in initials and initials != str(corp["sym"]).lower():  # not its symbol itself ('l&n')
                forms.add((initials,))
            for f in forms:
                out[f] = corp["sym"] if out.get(f, corp["sym"]) == corp["sym"] else None
    return tuple(sorted(((k, v) for k, v in out.items() if v), key=lambda kv: -len(kv[0])))


def _corp_name(toks: list[str], low: list[str]) -> list[str] | None:
    """'par Georgia Railroad 70', 'buy the Central of Georgia president's certificate': a corporation by
    its name (18GA 1.3.2; the mails' names, '&' or 'and', 'Railroad' or not) read as its symbol, then the
    line read again as the other rows read it (18GA s14 F5)."""
    if low[0] not in ("buy", "sell", "par", "start") or len(low) < 2:
        return None
    bare = [w.rstrip(",") for w in low]
    for words, sym in _corp_names():
        n = len(words)
        for i in range(1, len(low) - n + 1):
            if tuple(bare[i:i + n]) == words:
                head = toks[:i - 1] if low[i - 1] == "the" and i > 1 else toks[:i]
                return rulebook_words([*head, sym + ("," if low[i + n - 1].endswith(",") else ""), *toks[i + n:]])
    return None


def _offer_words(toks: list[str], low: list[str]) -> list[str] | None:
    """An offer for another's private (or train) at a price both agree: 'Offer Cy $60 for the Tredegar Iron
    Works', 'offer $60 to Cy for P2' (18VA 4.2 "with their consent"; s14b mail #50), 'offer $90 for the
    Memphis & Charleston from Di' (18AL 3.2(c)(4), 4.2.6: "any ... number of dollars the two can agree
    upon"; s14b mail #18) - a purchase at that price, which its owner then accepts or declines."""
    if low[0] != "offer" or "for" not in low[1:]:
        return None
    if len(low) >= 4 and low[2] == "for" and re.match(r"^[$\u00a3]?\d+$", low[1]):
        return rulebook_words(["buy", *toks[3:], "for", toks[1]])  # the price first, the owner after 'from'
    if "for" not in low[2:]:
        return None
    at = low.index("for")
    head = [t for t, w in zip(toks[1:at], low[1:at]) if w not in ("to", "the", "player")]
    prices = [_money(t).rstrip(".,") for t in head if _money(t).rstrip(".,").isdigit()]
    others = [t for t in head if not _money(t).rstrip(".,").isdigit()]
    what = [t for t, w in zip(toks[at + 1:], low[at + 1:]) if w not in ("the", "private", "company")]
    if len(prices) != 1 or len(others) != 1 or not what:
        return None
    return rulebook_words(["buy", *what, "from", others[0], "for", prices[0]])


RULEBOOK: tuple[tuple[str, str, str, Any], ...] = (
    ("offer Cy $60 for the Tredegar Iron Works", "buy private P2 60 from Cy", "18VA 4.2: a company buys a "
     "player's private 'with their consent' at an agreed price (s14b mail #50)", _offer_words),
    # example, as the move language writes it, where the words come from, rewrite
    ("buy a 2E train with the P4 rebate", "buy train 2E with P4", "1848 4.5 'a one-time rebate on the "
     "purchase of a 2E train' (s14b mail #112)", _with_private),
    ("offer $90 for the Memphis & Charleston from Di", "buy private M&C 90 from Di", "18AL 3.2(c)(4), 4.2.6: "
     "a price the two agree upon, offered (s14b mail #18)", _offer_words),
    ("buy a Bank of England share", "buy BOE", "1848 12.3.3 'Buying Shares in the Bank of England' (s13 F2)",
     _named),
    ("buy The Ghan", "buy train 2E", "1848 4.5, 8.2.5: the 2E train, \"The Ghan\" (s13 F4)", _named),
    ("buy the Memphis & Charleston from Ann for $100", "buy private M&C 100 from Ann", "18AL 4.2.6, Table III: "
     "a private by its rulebook name, 'Railroad' or 'Co.' left off or not (s13w mail #61)", _private_name),
    ("par Central of Georgia 70", "par CoG 70", "18GA 1.3.2, Appendix 3: a corporation by its name, '&' or 'and', "
     "'Railroad' left off or not (s14 F5)", _corp_name),
    ("buy train 8 as D trading in a 4 train", "buy train 8 as D trade 4", "1848 8.2.4: 'trade in a 4/4+ train' "
     "for £300 off a D (s13v mail #173)", _trade_in_words),
    ("place a station token in G4", "token G4", "18AL 4.2.2 'Placing a Station Token'; pbm's step 'Place a "
     "station' (play-through s11)", _station),
    ("station G4", "token G4", "the same: the station token", _station),
    ("home station in D4-1 (the Rome side)", "token D4-1", "18GA 4.2(a), 4.2.2(c): the home station (s14 F8)",
     _station),
    ("place W&A's home station in D4-1, the city toward Rome", "token D4-1", "18GA 4.2(a), the mail's \"puts "
     "W&A's home station in the city you choose\"; where the city leads is a comment (s16b mail 028)", _station),
    ("I bid $160 on M&BR", "bid 160 M&BR", "a move in the first person (s14 mail 3)", _i_do),
    ("I will buy a WRA share", "buy WRA", "the same with 'will', 'want to', 'would like to' (18AL s16b mail 27)",
     _i_do),
    ("no station this turn", "", "18GA 4.2: \"each step is optional\": a step left out in words (s14 F7)",
     _no_step),
    ("pay out dividends", "payout", "18GA 4.2.4(a), 1848 7.3 'pay out Dividends' (s11 finding 10)", _payout),
    ("pay back loan", "repay loan", "1848 loans: 'repay', 'pay back', 'pay loan'", _repay),
    ("take out a loan", "take loan", "1848 5.6.1 'take out a loan' from the Bank of England (s12)", _take_loan),
    ("reduce P5", "lower P5", "1848 3.1.1 'reduce the cost of a Private Company by 5 pounds' (s11)", _reduce),
    ("lower the price of the Tasmanian Railways", "lower the price of P3", "1848 3.1.1, 4.4: the private whose "
     "price is lowered by its name (s16b mail #9)", _private_name),
    ("buy The Ghan for 165", "buy private P4 165", "1848 3.1.1, 4.5: 'The Ghan' at a price is the private P4, "
     "not the 2E train (8.2.5), whose price is the Bank's (s16b mail #7)", _private_name),
    ("retain income", "withhold", "1848 10.3.3, 11.2 'Retaining Income'", _retain),
    ("keep the money in the company", "withhold", "1848 10.3.3 'retained ... in the company's treasury' "
     "(s15 mail #121)", _retain),
    ("withhold revenue", "withhold", "18AL/18GA 4.2.4(b) 'Withhold revenue' (s13 mail #179)", _withhold_words),
    ("run trains", "run auto", "18AL/18GA 4.2(d) 'Run trains', no route written: the best run, which any "
     "stockholder may insist on (4.2.3.1; s13 mail #177)", _run_trains),
    ("Bob contributes $350", "contribute 350", "18AL/18GA 4.2.5.2: the president contributes his own cash "
     "to a train the company must buy; pbm takes it with the purchase (s13 mail #166)", _contribute_words),
    ("then buy TAG", "buy TAG", "'sell 1 WRA, then buy TAG': a move joined to the one before it by 'then' "
     "(s13 mail #153)", _then_words),
    ("done turn", "done", "a player's words for ending the turn", _done_turn),
    ("pass this turn", "pass", "18GA 3.2 'you may pass', said with the turn (s16 mail 37)", _pass_turn),
    ("pass this round", "pass", "the same, said with the round: a pass is for the turn (18GA 1.1, 3.2; s16c "
     "mail 32)", _pass_turn),
    ("pass for the rest of the round", "pass rest of round", "the standing order in words", _pass_turn),
    ("start ABC at par 75", "par ABC 75", "18AL 3.2(c)(1) 'start a company'", _start),
    ("start GA, par 90", "par GA 90", "the same, the par after a comma (18GA s14b F3)", _start),
    ("starting value of the B&O: $100", "par B&O 100", "18VA 4.1, 4.3.3 'sets the Starting Value' (s14 #11)",
     _starting_value),
    ("place the SNAR marker in E6", "assign SNAR E6", "18AL Table III: the South & North Alabama's +$10 "
     "marker (s12v)", _marker),
    ("use P3 to lay tile 241 on I10 rotation 1", "lay 241 I10 1 with P3", "1848 4.4: the owner lays the "
     "Tasmania tile; the move after 'to', with the private (s15 mail #49)", _use_to),
    ("place the Railway Express +10 token on C12", "assign P1 C12", "18VA 4.2 (1): \"Two '+10' tokens are "
     "provided ... one for the City\"; the private by its name (s15 mail 75)", _marker),
    ("use Potomac Yards for an extra station in D9", "use P3 D9", "18VA 4.2 (3): the private by its name, the "
     "power in the book's words (s14 #65)", _use_words),
    ("use the Railway Express Agency to add +10 to Richmond", "use P1 Richmond", "18VA 4.2 (1): \"Add +10 to "
     "any City\", in the book's words (s17 mail 43)", _use_words),
    ("use P1 on H3", "use P1 H3", "18VA 4.2 (1): the marker on a city (s11v)", _use_on),
    ("assign P1 to C12", "assign P1 C12", "the same, for a revenue bonus", _use_on),
    ("bid $130 on NDY", "bid 130 NDY", "18AL/18GA 3.1(b): 'place a bid on' a private, amounts with '$' (s12)",
     _bid_words),
    ("par ABC at $70", "par ABC 70", "18AL 3.2(c)(1): set the par value (s12)", _par_words),
    ("buy private LTR from Ann for $25", "buy private LTR 25 from Ann", "18GA 3.2(c)(4): a private from another "
     "player at an agreed price, written as a train purchase is (s12)", _private_words),
    ("buy BLC from Ann for 105", "buy private BLC 105 from Ann", "the same without the word 'private' (18AL "
     "s12 #53)", _private_words),
    ("buy P2 at £70", "buy private P2 70", "1848 3.1.1 'buy a Private Company at its face value', the price "
     "the sale lists (s16 mail #6)", _private_words),
    ("lay tile 6 in G6 rotation 5", "lay 6 G6 5", "a tile lay in many words (s12)", _lay_words),
    ("place tile 57 on F7 rotation 0", "lay 57 F7 0", "18VA 4.5.2 'Each Corporation may place one yellow "
     "tile' (s15 mail 23)", _lay_words),
    ("lay the green Augusta tile 453 in Augusta, rotation 0", "lay 453 Augusta 0", "18GA 4.2.1 'Lay or upgrade "
     "one track tile': the tile by its colour and label too (18GA s14b F4, F9)", _lay_words),
    ("lay tile 8 in B2 rotation 3 toward Chattanooga", "lay 8 B2 3", "the same, with where it leads, a comment "
     "(18GA s14b F8)", _lay_words),
    ("lay tile 9 on F9 with rotation 0, between Richmond and Fredericksburg", "lay 9 F9 0", "the same, with the "
     "places it joins (18VA s16b mail 25)", _lay_words),
    ("lay a 9 on F15 rotation 0 down to Rocky Mount", "lay 9 F15 0", "the same, where it runs said after the "
     "rotation: 'from A toward B', 'down to B' (18VA s17 mails 27, 50)", _lay_words),
    ("lay a 57 tile in Sydney so it connects Wollongong and Newcastle", "lay 57 Sydney joining Wollongong and "
     "Newcastle", "no rotation, but what the track joins, as the move lists say each rotation; the rotation "
     "reaching those places is laid (1848 s16b mail #33)", _lay_words),
    ("token in Rome", "token Rome", "a station in a place (s12)", _token_words),
    ("run 2 F6-E7", "run 2 F6 E7", "a route's hexes joined by hyphens, 'D4-1' still a city of D4 (18GA s13 "
     "F3)", _route_hyphens),
    ("run J12-I11", "run J12 I11", "a route of its stops alone, no train named: the longest train not named by "
     "another route runs it (18GA 4.2.3; s13w F1)", _route_hyphens),
    ("buy L&N's 4 train for 250", "buy train 4 for 250 from L&N", "another company's train, as the players write "
     "it (18AL s12 #90)", _buy_train_words),
    ("buy the 3 train from the Open Market", "buy train 3 from market", "18GA 4.2.5(a): trains in the "
     "Initial Offering and the Open Market (s11v F2); 1848 7.3 step 5 'buy a 3 train'", _buy_train_words),
    ("buy a 2 train as a passenger train", "buy train 2 as passenger", "18VA 4.5.8: the president "
     "'must declare whether it is a Passenger Train or a Freight Train' (s13v F1)", _buy_train_words),
    ("discard a 3 train into the Open Market", "discard 3", "18GA 4.2.5(g): the excess train is "
     "discarded into the Open Market (s12v F3)", _discard_words),
    ("buy the VR director's share at 80", "par VR 80", "1848 12.3.1: the Director's Share bought, its buyer "
     "sets the starting price (s13 F1)", _buy_words),
    ("buy CoG president's certificate at par 70", "par CoG 70", "18GA 3.2(c)(1): buying the president's "
     "certificate sets the par value (s11 finding 11)", _buy_words),
    ("buy P1 60", "buy private P1 60", "a private and its price (s11v)", _buy_words),
    ("buy a 10% share of TAG from the open market", "buy TAG market", "18AL 1.4: the Open Market and the "
     "Initial Offering", _buy_words),
    ("buy 1 share of W&A from the Initial Offering", "buy 1 W&A ipo", "18GA 3.2(c): buy one certificate; a "
     "count of shares (s12; more than 1 is refused with the rule)", _buy_words),
    ("buy one more W&A share from the Initial Offering", "buy W&A ipo", "18AL 3.2(c)(2): one more "
     "certificate (s16 mail 33: 'more' was read as the company)", _buy_words),
    ("buy a W&A share from the Initial Offering at par", "buy W&A ipo", "18GA 1.4, 3.2(c)(2): Initial Offering "
     "shares are bought at par, so 'at par' names no price (s15 mail #76)", _buy_words),
    ("buy a W&A share to float it", "buy W&A", "18GA 3.4 'floats': why the share is bought is the player's note, "
     "as a sale's 'to raise the money' (s16b mails 021, 024)", _buy_words),
    ("buy 10% of WRA", "buy 10% WRA", "a share as a percentage (s12): counted in the company's shares", _buy_words),
    ("buy SAR 10%", "buy 10% SAR", "a share as a percentage after the company (s16f mail 16)", _buy_words),
    ("buy a WMR share for $60", "buy WMR share for 60", "18VA 4.3.2: the share 'is bought at current market "
     "value', said with it; another price is refused naming the chart's (s15 mail 80)", _buy_words),
    ("sell 2 shares of ABC", "sell 2 ABC", "18AL 3.2(a): sell certificates to the Open Market (s12)", _sell_words),
    ("sell 20% ABC", "sell 20% ABC", "a sale as a percentage (s12): counted in the company's shares",
     _sell_words),
    ("sell 1 CAR share to the pool for 90", "sell 1 CAR for 90", "a sale at the price the player expects: "
     "sold at the market price, and refused naming it when it is another", _sell_words),
    ("sell P3 to NSW for £140", "buy private P3 140 from me", "1848 4.1, 7.3: the Director's private sold to "
     "his company, which buys it from him (s17b mail 049)", _sell_words),
)


def rulebook_words(toks: list[str]) -> list[str]:
    """A move in the rulebooks' words as the move language writes it: the first row of ``RULEBOOK``
    that matches, else the words as they are."""
    if not toks:
        return toks
    low = [t.lower() for t in toks]
    for _, _, _, rewrite in RULEBOOK:
        out = rewrite(toks, low)
        if out is not None:
            return out
    return toks


def _from_for(words: list[str]) -> list[str]:
    """A private's purchase written 'LTR from Ann for $25' (the move list's '# from Ann'): the words
    without 'from <owner>' and 'for', the price without its '$' (``['LTR', '25']``)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i].lower()
        if w == "from" and i + 1 < len(words):
            i += 2
            continue
        if w != "for":
            out.append(words[i][1:] if words[i][:1] in ("$", "£") and words[i][1:].isdigit() else words[i])
        i += 1
    return out


# the certificate that starts a company: 18GA's president's certificate, 1848's Director's Share (12.3.1)
_PRESIDENT_WORDS = ("president", "director")


def _president_par(words: list[str]) -> int | None:
    """The par value of ``buy CoG president's certificate at par 70`` (the rulebooks' words for
    starting a company, 18GA 3.2(c)(1)): the price when the words name the president's certificate
    or the par value and hold one number; None otherwise (play-through s11 finding 11)."""
    low = [w.lower().strip(".,:$\u00a3") for w in words]
    if not any(w.startswith(_PRESIDENT_WORDS + ("par",)) for w in low):
        return None
    numbers = [w for w in low if w.isdigit()]
    return int(numbers[0]) if len(numbers) == 1 else None


# the words before a train's type: 'buy a 4 train', 'buy another 4 train' (play-through s12v F2)
_TRAIN_FILLER = ("the", "a", "an", "one", "new", "another", "second",
                 "last", "remaining")  # 'buy the last 2 train' (1848 s16 mail #49; 18GA s16 mail 45)


# the words that lead to or follow a private's discount: 'for the $200 off', 'to take $200 off the price'
_DISCOUNT_LEAD = ("for", "at", "to", "and", "get", "getting", "take", "taking", "which", "gives", "giving")
_DISCOUNT_TAIL = ("price", "cost", "its", "of", "train")


def _drop_discount(words: list[str]) -> list[str]:
    """'buy a 3 train from the bank, using Tredegar for the $200 off': the sum a private takes off a
    train is the private's, not a price (18VA 4.2 (2): Tredegar lets a company "deduct $200 from the
    cost" of a new train; play-through s16c mail 38), so the words naming it are dropped once the line
    names a private ('with', 'using'), and so are 'for half price' and '50% off' (18AL's New Decatur
    Yards, s17 mail 046); the reply states the discount the private gives."""
    low = [w.lower() for w in words]
    if not any(w in ("with", "using", "use") for w in low):
        return words
    at = next((i for i in range(1, len(low)) if low[i] in ("off", "discount", "discounted")
               and (_INT.match(low[i - 1].lstrip("$\u00a3")) or _PERCENT.match(low[i - 1]))), None)
    lo = at - 1 if at is not None else None
    if at is None:  # 'using New Decatur Yards for half price' (18AL NDY: 50% off; s17 mail 046)
        at = next((i for i in range(1, len(low)) if low[i].rstrip(".,") in ("half", "half-price")), None)
        lo = at
    if at is None or lo is None:
        return words
    while lo > 0 and low[lo - 1] in _DISCOUNT_LEAD:
        lo -= 1
    hi = at + 1
    while hi < len(low) and low[hi].rstrip(".,") in _DISCOUNT_TAIL + ("the", "off"):
        hi += 1
    return words[:lo] + words[hi:]


def _train_words(args: list[str]) -> list[str]:
    """A train purchase in the rulebook's words as ``train <type> ...``: 'the 3 train from the Open
    Market' is 'train 3 from market', 'a 5 train from the Initial Offering' is 'train 5 from bank'
    (18GA 4.2.5(a): trains are in the Initial Offering and the Open Market)."""
    words = _drop_discount([w.rstrip(",") for w in args if w.lower() not in _TRAIN_FILLER and w.rstrip(",")])
    owner = next((w for w in words if w.lower().endswith(("'s", "\u2019s")) and len(w) > 2), None)
    if owner is not None and "from" not in [w.lower() for w in words]:  # 'buy L&N's 4 train for 250' (s12)
        words = [w for w in words if w is not owner] + ["from", owner[:-2]]
    out: list[str] = []
    side = None
    i = 0
    while i < len(words):
        pair = " ".join(words[i:i + 2]).lower()
        if pair in ("open market", "initial offering"):
            out.append("market" if pair == "open market" else "bank")
            i += 2
            continue
        if words[i].lower() == "train" and i >= 2 and words[i - 2].lower() == "as":
            i += 1  # 'as a Passenger Train': the side, 18VA 4.5.8 (play-through s13v F1)
            continue
        if re.match(r"^\d+/\d+[A-Za-z]$", words[i]):
            out.append(words[i].split("/")[0])  # 'a 3/2G train', 18VA 2's name of the type (s14b mail #86)
            i += 1
            continue
        if words[i].lower() in ("freight", "passenger") and i >= 1 and words[i - 1].lower() == "as" \
                and i + 1 < len(words) and _TRAIN_NAME.match(words[i + 1]):
            i += 1  # 'as freight 2G', 'as passenger 3': the side by its word and its name (s14b mail #47)
            continue
        if words[i].lower() in ("freight", "passenger") and i >= 2 and words[i - 2].lower() == "as" \
                and _TRAIN_NAME.match(words[i - 1]):
            i += 2 if i + 1 < len(words) and words[i + 1].lower() == "train" else 1
            continue  # 'as a 2G freight train': the side by its name, then its word (s15 mail 50)
        if words[i].lower() in ("freight", "passenger") and i >= 1 and _TRAIN_NAME.match(words[i - 1]):
            if words[i - 1][-1].isdigit() and "as" not in [w.lower() for w in words]:
                side = words[i].lower()  # 'a 2 freight train': the 2 declared freight (18VA 4.5.8)
            i += 1  # 'a 1G freight train': the side's name says it already (s15b mail 17)
            continue
        # 'using P2' is 'with P2' (s12v mail #59: Tredegar's $200 off a new train, 18VA 4.2 (2))
        out.append("with" if words[i].lower() in ("using", "use") and i + 1 < len(words) else words[i])
        i += 1
    if len(out) >= 2 and out[1].lower() == "train" and out[0].lower() != "train":
        out = ["train", out[0], *out[2:]]
    return out + ["as", side] if side else out


def _buy_train(rest: list[str], entity: str, lineno: int, line: str) -> A.BuyTrain:
    """``buy train <id> [as <side>] [from <owner>] [for] [$]<price> [trade <train>] [with <private>]``,
    the words after the train in any order (the move lists write ``from ABC for 100``)."""
    verb = "buy"
    if not rest:
        raise _fail(lineno, line, "which train?", verb)
    train = _name(rest[0], lineno, line, verb, "train")
    price = variant = exchange = seller = None
    who = entity
    words = rest[1:]
    i = 0
    while i < len(words):
        w = words[i].lower()
        if w in ("as", "from", "trade", "with", "for"):
            if i + 1 >= len(words):
                raise _fail(lineno, line, {"as": "as which side (e.g. 2 or 1G)?", "from": "from which company?",
                                           "trade": "trade which train?", "with": "with which private?",
                                           "for": "for what price?"}[w], verb)
            arg = words[i + 1]
            if w == "with":  # 'with Tredegar Iron Works': a private by its name of several words (s13 F1)
                end = next((k for k in range(i + 1, len(words)) if words[k].lower() in ("as", "from", "trade", "for")),
                           len(words))
                who = " ".join(_name(t, lineno, line, verb, "private") for t in words[i + 1:end]).upper()
                i = end
                continue
            if w == "as":
                variant = _name(arg, lineno, line, verb, "side").upper()
            elif w == "trade":
                exchange = _name(arg, lineno, line, verb, "train")
            elif w == "for":
                price = _int(arg.lstrip("$"), lineno, line, verb, "price")
            elif arg.lower() in ("pool", "market"):
                seller = POOL  # the bank's used trains (18GA 1.4: the Open Market); resolved by for_game
            elif arg.lower() not in ("bank", "depot"):
                seller = _name(arg, lineno, line, verb, "owner")  # the selling company
            i += 2
            continue
        if price is None:
            price = _int(words[i].lstrip("$"), lineno, line, verb, "price")
            i += 1
            continue
        raise _fail(lineno, line, "too many words", verb)
    return A.BuyTrain(who, train, price, variant, exchange, seller=seller)


POOL = "pool"  # a BuyTrain's seller for 'from pool' / 'from market' until for_game picks the train


_MOVE_WORDS = ("pass", "done", "more", "bid", "par", "buy", "sell", "lay", "upgrade", "token", "station", "run", "payout",
               "withhold", "discard", "bankrupt", "convert", "assign", "use", "take", "lower", "repay",
               "reduce", "pay", "retain", "place", "then", "and", "contribute", "no", "skip", "home", "put", "offer",
               "start", "build")  # from 'reduce': the rulebooks' words (RULEBOOK)


_GLUES = ("lay", "upgrade", "build", "buy", "token", "station", "place", "put", "start", "par")  # moves whose words a
# comma may cut: 'lay 15 H7, rotation 2' (s14b #79); not 'pass, frobnicate' (one move per line, said)
_SEP = re.compile(r";|(?<!\d),|,(?!\d{3}\b)")  # a comma or semicolon between moves; not the comma of '1,000'


def split_line(line: str) -> list[str]:
    """The moves of one line: split at commas and semicolons when every part starts with a move
    word (``pass, pass, run auto``); a ``run`` part keeps its routes, up to a part that starts
    with another move word (``run auto, payout, done``: play-through s11)."""
    text = _joined(_no_asides(_symbol_for_name(uncommented(line))).strip())
    if not _SEP.search(text):
        return [text] if text else []
    parts: list[str] = []
    rest = text
    while rest:
        first = rest.split(None, 1)[0].rstrip(",;").lower() if rest.split() else ""
        head = _SEP.split(rest, maxsplit=1)[0].split()
        if first not in _MOVE_WORDS and parts and head and _contribute_words(head, [w.lower() for w in head]):
            pass  # 'buy a 6 train, Eve contributes the rest': the president's words are a part (18GA s14b F14)
        elif first not in _MOVE_WORDS:
            if not parts or parts[-1].split()[0].lower() not in _GLUES:
                return [text]  # not a list of moves: one move (refused with its reason if wrong)
            m = _SEP.search(rest)  # words of the move before: 'lay 15 H7, rotation 2, run auto' (s14b #79)
            parts[-1] += " " + (rest[:m.start()] if m else rest).strip()
            rest = rest[m.end():].strip() if m else ""
            continue
        if first == "run":
            run, more = _run_part(rest)
            parts.append(run)
            if not more:
                break
            rest = more
            continue
        m = _SEP.search(rest)
        part = (rest[:m.start()] if m else rest).strip()
        if parts and _ROTATION_ONLY.match(part) and parts[-1].lower().startswith(("lay", "upgrade")):
            part = parts.pop() + " " + part  # 'lay tile 6 in Anniston, rotation 1' (s14b mails #74, #102)
        elif parts and _PAR_ONLY.match(part) and ("president" in parts[-1].lower()
                                                 or parts[-1].split()[0].lower() == "start"):  # 'start GA, par 90' (s14b F3)
            part = parts.pop() + " " + part  # "buy TAG president's certificate, par 70" (3.2(c)(1); s13 #11)
        parts.append(part)
        rest = rest[m.end():].strip() if m else ""
    return [p for p in parts if p]


_JOIN_WORDS = "|".join(w for w in _MOVE_WORDS if w not in ("and", "then"))
_AND_MOVE = re.compile(r"(?<=[\w.])\s+and\s+(?=(?:%s)\b)" % "|".join(
    w for w in _MOVE_WORDS if w not in ("and", "then", "more", "done", "no", "home")), re.I)
_JOINS = re.compile(r"(?:\.\s+|(?<![,;\s])(?<!\band)\s+(?=(?:and\s+)?then\s+(?:%s)\b))(?=(?:and|then|%s)\b)"
                    % (_JOIN_WORDS, _JOIN_WORDS), re.I)


_COMMENT = re.compile(r"^\s*#|#(?!\d)")  # a comment: '#' at the line's start, or not before a digit


def uncommented(line: str) -> str:
    """``line`` without its comment: from a '#' on; a '#' right before a digit inside a move is a number
    sign and is dropped ('lay #6 tile at D9, rotation 2'; play-through s15 mail 20), while the move
    lists' '# city; ...' and a line that starts with '#' are comments."""
    m = _COMMENT.search(line)
    return re.sub(r"(?<=\s)#(?=\d)", "", line[:m.start()] if m else line)


def _no_asides(text: str) -> str:
    """``text`` without the words in brackets, a note to the reader as '#' starts one: 'Lay tile 57 in
    Baltimore, rotation 0 (Annapolis to Philadelphia).', 'buy a 3 train (passenger)', the move lists'
    own 'lay 57 H3 0 (same as 3)' (play-through s14b mails #24, #60)."""
    if "(" not in text:
        return text
    if re.match(r"\s*run\b", text, re.I):  # in a route a hex in brackets names the stop its words describe:
        # 'to the port (I4)' is I4 (_route_words; 18VA s17 mail 25: "'The Port' is not a stop")
        text = re.sub(r"\(\s*([A-Za-z]{1,2}\d{1,3}(?:-\d)?)\s*\)", r"\1", text)
    return re.sub(r"\s*\([^()]*\)", "", text)


_STEP_LABELS = {"build": "lay", "track": "lay", "tile": "lay", "tiles": "lay", "lay": "lay",
                "station": "token", "stations": "token", "token": "token", "tokens": "token",
                "run": "run", "runs": "run", "routes": "run", "route": "run", "operate": "run",
                "dividend": "", "dividends": "", "income": "", "revenue": "", "trains": "", "train": "",
                "purchase": "", "loan": "", "private": "", "shares": "", "stock": ""}
_LABEL = re.compile(r"^\s*(?:\d\.\s*)?([A-Za-z]+)(?:\s+[A-Za-z]+)?\s*:\s*(\S.*)$")
# 'buy two 2 trains', 'buy 2 trains of type 2' (1848 8.2 "Types of Train"; s16b mail #33), 'the last two 2 trains'
# (s16c mail 32), 'the two remaining 2 trains' (s17c mail 033)
_MANY_TRAINS = re.compile(r"^buy\s+(?:the\s+(?:last\s+|remaining\s+)?)?(?P<n>two|three|2|3)\s+"
                          r"(?:(?:last|remaining)\s+)?"
                          r"(?:(?P<type>\S+?)(?:-trains?|\s+trains?)"
                          r"|trains?\s+of\s+(?:the\s+)?type\s+(?P<of>\S+?))(?P<rest>(?:[\s,.;].*)?)$", re.I)
# 'Buy one 2 train and one 2+ train': two purchases in one line (8.3.2, 8.2.1; s16c mail 30)
_AND_TRAIN = re.compile(r"(?<=\btrain)\s+and\s+(?=(?:a|an|one|another)\s+\d+\+?[A-Za-z]?\s+train\b)", re.I)


def _step_label(text: str) -> str:
    """A line led by the name of its step, as 1848 7.3 lists them: 'Build: tile 6 on E2', 'Station:
    Whyalla', 'Run: 2 train ...', 'Dividend: pay', 'Trains: buy a 2' -> the move the step's words make
    (s14b mail #53: "unknown move 'Build:'")."""
    m = _LABEL.match(text)
    if not m or m.group(1).lower() not in _STEP_LABELS:
        return text
    verb, rest = _STEP_LABELS[m.group(1).lower()], m.group(2).strip()
    first = rest.split()[0].lower()
    if not verb or first in _MOVE_WORDS or first == verb:
        return rest
    return f"{verb} {rest}"


def _joined(text: str) -> str:
    """``text`` with the sentences and the 'then' or 'and' that join moves in plain words made commas,
    and a last full stop dropped: 'Lay 14 G4 1. Run auto. Pay out.', 'lay 57 F11 0 then buy a 2 train',
    'Run auto and pay dividends.' (play-through s14 mails #23, #61, #117; s14b #110). Only before a
    move word: 'run 2 F11 then F13' is a route. 'buy two 2 trains' is two purchases (8.3.2; s14b #38)."""
    text = _step_label(re.sub(r"(?<=\w)\.$", "", text.strip()))
    many = _MANY_TRAINS.match(text)
    if many:
        n = {"two": 2, "three": 3}.get(many.group("n").lower(), None) or int(many.group("n"))
        text = ", ".join([f"buy a {many.group('type') or many.group('of')} train"] * n) + many.group("rest")
    if text[:4].lower() == "buy ":
        text = _AND_TRAIN.sub(", buy ", text)
    text = _AND_MOVE.sub(", ", text)
    return _JOINS.sub(", ", text)


_ROTATION_ONLY = re.compile(r"^(?:with\s+)?(?:rotation|rot|rotated|orientation)\s+\d$", re.I)
_PAR_ONLY = re.compile(r"^(?:at\s+)?par(?:\s+value)?(?:\s+(?:at|of))?\s+[$\u00a3]?\d+$", re.I)


_NOT_AFTER_RUN = tuple(w for w in _MOVE_WORDS if w != "run")  # the words no stop and no train is named
_MOVE_AFTER = re.compile(r"\s+(?:then\s+)?(?:%s)\b" % "|".join(re.escape(w) for w in _MOVE_WORDS
                                                              if w not in ("and", "then")), re.I)


def _run_part(text: str) -> tuple[str, str]:
    """A ``run`` part of a line and what follows it: the run keeps its routes (stops and routes
    separated by commas and semicolons) up to a comma or semicolon that a move word follows
    (``run auto, payout, done``: play-through s11 finding 1, the rest was read as stops)."""
    # 'run 2 train A-B, 2 train C-D': a comma before the next train is the next route (s14b mail #60)
    text = re.sub(r",\s*(?=(?:the\s+|a\s+)?\d+\+?[A-Za-z]?\s+train\b)", "; ", text, flags=re.I)
    for m in re.finditer(r"[,;]\s*([A-Za-z]+)\b", text):
        if m.group(1).lower() in ("and", "then") and not _MOVE_AFTER.match(text, m.end()):
            continue  # 'the two 2 trains: A to B, and A to C': the next route, not a move (18VA s16d mail 38)
        if m.group(1).lower() in _NOT_AFTER_RUN:
            return text[:m.start()].strip(), text[m.start() + 1:].strip()
    return text.strip(), ""


def without_contributions(game: "Game", moves: list) -> tuple[list, list[str]]:
    """The moves without the lines that state the president's contribution to a train the company
    must buy (``Contribute``), and a note for each: the purchase takes it by itself (18AL/18GA
    4.2.5.2; play-through s13 mail #166)."""
    notes: list[str] = []
    keep = []
    for mv in moves:
        if not isinstance(mv, Contribute):
            keep.append(mv)
            continue
        rule = ""
        try:
            step = game.or_step("buy_train")
            rule = step.rule(game.title) if step is not None else ""
        except Exception:  # noqa: BLE001 - a title without the step: no rule number
            rule = ""
        said = f"line {mv.lineno} ({mv.line})" if mv.line else "contribute"
        notes.append(f"{said}: noted - when a company must buy a train and lacks the cash, its president's "
                     "contribution is taken with the purchase itself" + (f" (rule {rule})" if rule else "")
                     + "; the line is not needed")
    return keep, notes


def parse_moves(text: str, entity: str) -> list[Move]:
    """Parse a whole text; every line must be a move (or moves separated by commas), a comment
    or blank."""
    return [mv for _n, mv in parse_numbered(text, entity)]


def parse_numbered(text: str, entity: str) -> list[tuple[int, Move]]:
    """``parse_moves`` with each move's line number."""
    out: list[tuple[int, Move]] = []
    bad: list[MoveError] = []  # every line not understood, so one mail corrects them all (play-through s11)
    for n, line in enumerate(text.splitlines(), 1):
        parts = split_line(line)
        for part in (parts or [line]):  # one part: the line as split_line reads it (a closing full stop off)
            try:
                mv = parse_line(part, entity, n)
            except MoveError as exc:
                bad.append(_comment_hint(exc, line))
                continue
            if mv is not None:
                _add(out, n, mv)
    if bad:
        raise bad[0] if len(bad) == 1 else MoveError(str(bad[0]) + "".join(f" | and {e}" for e in bad[1:]))
    return out


def _comment_hint(exc: MoveError, line: str) -> MoveError:
    """A line refused after a ``#`` inside it (``lay tile #8 F12 0``) says that ``#`` starts a comment,
    so that the player sees why the rest of his line was not read (session 13)."""
    m = _COMMENT.search(line)
    if m is None or not line[:m.start()].strip() or not line[m.end():].strip():
        return exc
    return MoveError(f"{exc} ('#' starts a comment: nothing after it on the line was read; "
                     "write numbers without '#')")


def _add(out: list[tuple[int, Move]], n: int, mv: Move) -> None:
    """Append ``mv``; a ``run`` right after another one (one line per train: ``run 3 B10 D10`` /
    ``run 3 D10 G13``) joins it, so the company's routes are judged together (rule 4.2.3: the
    trains run in one step; play-through s11 finding 2)."""
    if out and _routes(mv) and _routes(out[-1][1]) and out[-1][1].entity == mv.entity:
        first_n, first = out[-1]
        out[-1] = (first_n, replace(first, routes=first.routes + mv.routes))
        return
    out.append((n, mv))


def _routes(mv: Move) -> bool:
    """Is ``mv`` a run with its routes written out (not ``run auto``)?"""
    return isinstance(mv, A.RunRoutes) and bool(mv.routes) and not mv.auto


OR_TYPES = (A.LayTile, A.PlaceToken, A.RunRoutes, A.Dividend, A.BuyTrain, A.DiscardTrain, A.BuyCompany,
            A.Convert, A.TakeLoan)


def for_game(game: "Game", player: str, move: Move) -> Move:
    """Re-address a player's move to the company they act for now."""
    if isinstance(move, (PassRestOfRound, Done, More, RepayLoan, Contribute)):
        return move
    if isinstance(move, Named):
        move = named_buyer(game, move)
    toward: tuple[str, ...] = ()
    if isinstance(move, LayJoining):
        toward, move = move.places, move.move
    if isinstance(move, A.Bid) and not move.company:  # 'bid 125': the private being auctioned (3.1.1)
        up = getattr(game.state.round, "auctioning", None)
        if not up:
            raise GameError(f"'bid {move.price}': no private is being auctioned now; "
                            f"write the private too, e.g. 'bid {move.price} <private>'")
        move = replace(move, company=up)
    if isinstance(move, ShareCount):
        move = share_count(game, move)
    if isinstance(move, FromOwner):
        move = private_owner(game, move)
    move = rulebook_names(game, move)
    move = private_by_name(game, move)
    if isinstance(move, A.BuyCompany):
        share_price_refusal(game, move)
    bought = private_purchase(game, player, move)
    if bought is not None:
        return bought
    move = train_not_share(game, player, move)
    if isinstance(move, A.BuyShares) and not move.shares and move.source in ("", "ipo"):
        move = replace(move, source=share_source(game, move.corporation, said=move.source))
    cur = game.current_entity()
    if cur and cur != player and game.controller(cur) == player and cur in game.state.corporations:
        if isinstance(move, OR_TYPES + (A.Pass, A.Bankrupt)) and move.entity == player:
            move = replace(move, entity=cur)
    if isinstance(move, A.RunRoutes) and move.routes:
        move = place_names(game, move)
        move = train_ids(game, move)
    if isinstance(move, A.BuyTrain) and move.seller and move.seller not in game.state.corporations:
        same = [c for c in game.state.corporations if c.lower() == move.seller.lower()]
        if same:  # 'from sar': the company's symbol as the game writes it (s14b mail #106 stored 'sar')
            move = replace(move, seller=same[0])
    if isinstance(move, A.BuyTrain):
        move = train_by_type(game, move)
        move = train_side(game, move)
        move = bank_train(game, move)
        move = own_train_rebate(game, move)
    if isinstance(move, A.PlaceToken) and move.entity in game.state.companies and cur in game.state.corporations \
            and game.state.companies[move.entity].owner == f"C:{cur}" \
            and game.company_ability(move.entity, "token") and not game.company_ability(move.entity, "extra_token"):
        # 'token I9 with W&SR': the company's own station, which the engine places free with the
        # private it owns (18GA Table III; s14 F13: refused "ACL may not place a station with W&SR")
        move = replace(move, entity=cur)
    if isinstance(move, A.PlaceToken) and move.entity in game.state.companies \
            and not game.company_ability(move.entity, "extra_token") \
            and any(game.company_ability(move.entity, k) for k in ("assign_bonus", "hex_bonus_token")):
        move = A.Assign(move.entity, place_hex(game, move.city).split("-")[0].upper())  # 'use P1 F11' (or 'use P1 Richmond'): a marker
    if isinstance(move, A.Assign) and move.target and move.entity in game.state.companies \
            and game.company_ability(move.entity, "extra_token") \
            and not any(game.company_ability(move.entity, k) for k in ("assign_bonus", "hex_bonus_token")):
        move = A.PlaceToken(move.entity, move.target)  # 'assign P3 G4': the private's station (s13v F2)
    if isinstance(move, A.Assign) and move.target:
        move = replace(move, target=place_hex(game, move.target))  # 'assign SNAR Gadsden' (s12v)
    if isinstance(move, A.LayTile) and not re.match(r"^[A-Z]{1,2}\d{1,3}$", move.hex):
        hexname = place_hex(game, move.hex)
        if not re.match(r"^[A-Z]{1,2}\d{1,3}$", hexname):
            raise GameError(f"{move.hex!r} is not a hex like E5, nor a place on the map")
        move = replace(move, hex=hexname)
    if isinstance(move, A.LayTile) and move.rotation == ANY_ROTATION:
        move = only_rotation(game, move, joined_hexes(game, toward))
    if isinstance(move, A.LayTile) and move.entity == cur and cur in game.state.corporations:
        move = reserved_lay(game, move)
    if isinstance(move, A.LayTile) and move.entity in game.state.corporations:
        move = free_private_lay(game, move)
    if isinstance(move, A.LayTile):
        move = hex_copy_of_tile(game, move)
    if isinstance(move, A.DiscardTrain):
        move = discard_by_type(game, move)
    return move


def train_not_share(game: "Game", player: str, move: Move) -> Move:
    """'buy 2', 'buy a 2' in a company's turn: the train of that name, as the book says it (18VA
    4.5.8 "purchase a train"), not a share of a company '2' (play-through s14 mails #25, #34)."""
    if not isinstance(move, A.BuyShares) or move.shares or move.corporation in game.state.corporations:
        return move
    cur = game.current_entity()
    if not cur or cur not in game.state.corporations or game.controller(cur) != player:
        return move
    names = {t.name.upper() for t in game.state.trains.values()}
    if move.corporation.upper() not in names:
        return move
    return A.BuyTrain(move.entity, train=move.corporation.upper())


def named_buyer(game: "Game", move: Named) -> "A.BuyCompany | FromOwner":
    """The purchase of a :class:`Named` line, once the company it names is the one acting; refused
    naming the company that acts (or the round) otherwise."""
    said = f"line {move.lineno}: {move.line!r}"
    aliases = {k.upper(): v for k, v in (game.title.data.get("corporation_aliases") or {}).items()}
    named = aliases.get(move.company.upper(), move.company.upper())
    corp = next((c for c in game.state.corporations if c.upper() == named), None)
    if corp is None:
        raise MoveError(f"{said}: {move.company} is not a company of {game.title.name}")
    cur = game.current_entity()
    if cur == corp:
        return move.move
    now = (f"{cur} is" if cur in game.state.corporations else
           f"it is {cur}'s turn in the {game.state.round.kind} round" if cur else "no one is")
    raise MoveError(f"{said}: {corp} is not the company acting now ({now}); a company buys a private in its own "
                    f"operating turn: write this line when it is {corp}'s turn")


def private_owner(game: "Game", move: FromOwner) -> A.BuyCompany:
    """``buy private LTR from Ann for 25``: the purchase when Ann (or Ann's company) owns LTR;
    refused naming its owner otherwise. The private may be named by its name, as anywhere else ('buy
    the Midland from Di for $60', 18GA s15 mail #67)."""
    said = f"line {move.lineno}: {move.line!r}"
    move = replace(move, move=private_by_name(game, move.move))
    try:
        comp = game.company(move.move.company)
    except GameError as exc:
        raise MoveError(f"{said}: {exc}") from None
    owner = str(comp.owner or "")
    who = owner.split(":", 1)[-1] if owner else ""
    if move.owner.lower() in ("me", "myself") and game.current_entity():
        # 'QR buys P1 ... from me for £40': the writer, the acting company's president (s16c mail 44)
        move = replace(move, owner=str(game.controller(game.current_entity())))
    if who.lower() != move.owner.lower():
        held = f"{who}'s" if who else "the bank's (no one owns it)"
        raise MoveError(f"{said}: {comp.sym} is {held}, not {move.owner}'s; write 'buy private {comp.sym} "
                        f"{move.move.price}' (its owner then answers the offer)")
    return move.move


def share_count(game: "Game", move: ShareCount) -> A.Action:
    """A share move written with a count or a percentage, read against the game: a percentage in
    the company's shares (10% each, 20% in a five-share company); a purchase of one share; a purchase
    of more refused with the title's rule (one certificate a turn: 18AL/18GA 3.2(c), 18VA 4.3.2,
    1848 12.1.1; play-through s12)."""
    from pbm.e18xx.rounds.cite import see

    said = f"line {move.lineno}: {move.line!r}"
    aliases = {k.upper(): v for k, v in (game.title.data.get("corporation_aliases") or {}).items()}
    try:
        corp = game.corp(aliases.get(move.corporation.upper(), move.corporation)).sym
    except GameError as exc:
        raise MoveError(f"{said}: {exc}") from None
    count = move.count
    if move.percent:
        unit = game.unit(corp)
        if move.percent % unit:
            raise MoveError(f"{said}: {corp}'s shares are {unit}% each, so {move.percent}% is no whole number of "
                            f"shares; write a count of shares ('{move.verb} 1 {corp}') or a multiple of {unit}%")
        count = move.percent // unit
    if count < 1:
        raise MoveError(f"{said}: a count of shares is 1 or more")
    if move.verb == "sell":
        if move.price:
            # a sale is at the market price (18AL/18GA 3.2(a), 1848 12.4, 18VA 4.3.1): the price the
            # mail says, a share's or the lot's, must be it
            each = game.share_price(corp)
            if move.price not in (each, each * count):
                m = game.title.money
                lot = f" ({count} for {m(each * count)})" if count > 1 else ""
                raise MoveError(f"{said}: a {corp} share sells for {m(each)} now, the market price{lot}, not "
                                f"{m(move.price)}; write 'sell {count} {corp}' to sell at the market price")
        return A.SellShares(move.entity, corporation=corp, count=count)
    source = move.source
    if move.price and count == 1:
        source = priced_source(game, corp, move.price, move.source, said)
    if count > 1:
        where = {"ipo": " ipo", "pool": " market"}.get(move.source, "")
        pres = (f"; the president's certificate ({game.pres_percent(corp)}%) is bought by starting the company: "
                f"'par {corp} <price>'") if move.percent and count == 2 else ""
        raise MoveError(f"{said}: {count} shares: a player buys one certificate a turn"
                        f"{see(game.title, 'one_buy_per_turn')}; write 'buy {corp}{where}' for one share{pres}")
    return A.BuyShares(move.entity, corporation=corp, source=source)


def priced_source(game: "Game", corp: str, price: int, said_source: str, said: str) -> str:
    """Where a share bought 'for <price>' comes from: the place (of those the mail allows) whose share
    costs that price, a new share at its par (1848 5.1.3, 12.3.1: "a new share from the Bank at the
    issue (par) price"), one in the pool at the chart's price (5.1.4); refused naming each place's
    price, in the title's money, when none costs it (play-through s16b mail #38: 'Buy a 10% share of
    NSW for £80' was refused "a NSW share costs $70 now (the chart's price)" while NSW's par was £80)."""
    from pbm.e18xx.render.words import word

    places = [s for s in ("ipo", "pool") if not said_source or said_source == s]
    costs: dict[str, int] = {}
    for place in places:
        sid = game._buyable_share(corp, place)
        if sid is not None:
            costs[place] = game._buy_price(corp, game.state.share_owner.get(sid, ""))
    for place, cost in costs.items():
        if cost == price:
            return place if len(costs) > 1 else said_source
    if not costs:
        return said_source  # no share there: the engine's refusal says so
    lender = game.title.data.get("bank_corporation") or {}

    def where(place: str) -> str:  # 1848 12.4.2: the lender's certificates lie on its charter (as the lists say)
        return f"the {lender.get('name', corp)} charter" if lender.get("sym") == corp else f"the {word(game, place)}"

    told = " or ".join(f"{game.title.money(cost)} from {where(place)} ('buy {corp} "
                       f"{'market' if place == 'pool' else 'ipo'}')" for place, cost in costs.items())
    raise MoveError(f"{said}: a {corp} share costs {told} now, not {game.title.money(price)}")


def share_source_words(corp: str) -> str:
    return (f"a share is bought with 'buy {corp} ipo' (from its treasury) or 'buy {corp} market' (from "
            "the pool) at the chart's price; a private with 'buy private <private> <price>'")


def share_price_refusal(game: "Game", move: A.BuyCompany) -> None:
    """``buy B&O 100``, read as a private and its price (``buy P1 60``, play-through s11v), names a
    company: refused saying how a share is bought."""
    name = str(move.company).upper()
    if name in game.state.companies:
        return
    corp = next((c for c in game.state.corporations if c.upper() == name), None)
    if corp is not None:
        raise MoveError(f"'buy {corp} {move.price}': {corp} is a company, not a private: "
                        f"{share_source_words(corp)}")


def share_source(game: "Game", corp: str, said: str = "ipo") -> str:
    """Where ``buy <corp>`` / ``buy <corp> ipo`` takes its share: the IPO, except for the lender
    (title data ``bank_corporation``: 1848's Bank of England), which has no IPO: its shares "are
    always bought and sold at the indicated price" (1848 5.4.2, 12.3.3; play-through s11: 'buy BOE'
    was refused "no BOE certificate in the IPO" while the list offered only 'buy BOE market').
    With no source said (``said`` empty: ``buy B&O share``) and none of its certificates in the
    IPO, the pool's: a player "may buy any certificate available in a Corporation's Treasury, or
    in the Pool" (18VA 4.3.2; play-through s11v: 'buy B&O share' was refused "no B&O certificate
    in the IPO" after the state put B&O's last shares in the Pool, 4.4)."""
    bank = (game.title.data.get("bank_corporation") or {}).get("sym")
    if bank and str(corp).upper() == str(bank).upper():
        return "pool"
    if not said:
        try:
            sym = game.corp(corp).sym
            if game._buyable_share(sym, "ipo") is None and game._buyable_share(sym, "pool") is not None:
                return "pool"
        except (GameError, KeyError, AttributeError):
            pass  # not a corporation: the engine's refusal says so
    return "ipo"


def place_hex(game: "Game", name: str) -> str:
    """The hex of a place the map names (``Gadsden`` -> ``E6``, title data ``location_names``); a hex,
    or a name the map does not know, as written (upper case)."""
    want = str(name).strip().lower()
    names = game.title.data.get("location_names") or {}
    for hexname, place in names.items():
        if str(place).lower() == want:
            return hexname
    words = str(name).split()
    if len(words) > 1 and re.match(r"^[A-Za-z]{1,2}\d{1,3}$", words[0]):
        # 'use P1 F11 Richmond': the hex and its name, as every mail prints a city (18VA s13 F2; the
        # station's words: rounds/or_track.py _city_ref); a name that is not the hex's is refused
        hexname, named = words[0].upper(), " ".join(words[1:])
        if str(names.get(hexname, "")).lower() != named.lower():
            raise MoveError(f"{hexname} is {names.get(hexname) or 'a hex with no name'}, not {named}")
        return hexname
    return str(name).upper()


def private_by_name(game: "Game", move: Move) -> Move:
    """A private named by its name (or the first words of it) where its symbol goes: 'buy train 3 with
    Tredegar' is 'with P2' (18VA 4.2: the rulebook and every mail name "Tredegar Iron Works"; s13 F1:
    refused "Cy may not act for TREDEGAR (controlled by TREDEGAR)"); so is a private that a purchase or a
    bid names: 'buy the Lexington for $20' is LTR (18GA s14 F1), 'bid 140 B&O Presidency' is 18VA's B&O private
    (s14 #5)."""
    companies = game.state.companies
    for field in ("entity", "company"):
        who = getattr(move, field, None)
        if not isinstance(who, str) or who.upper() in {c.upper() for c in companies} \
                or who in game.state.corporations or any(p.name == who for p in game.state.players):
            continue
        found = _private_named(game, who)
        if found:
            move = replace(move, **{field: found})  # type: ignore[type-var]
    return move


def _private_named(game: "Game", said: str) -> str | None:
    """The private whose name (or its first words) ``said`` is; a company's name in it may be its
    symbol, as the rulebook writes "the B&O Presidency" for "Baltimore & Ohio Presidency" (18VA 4.1)."""
    want = said.lower().split()
    if not want:
        return None
    found = []
    for sym, comp in game.state.companies.items():
        name = str(getattr(comp, "name", ""))
        short = name
        for csym, corp in game.state.corporations.items():
            full = str(getattr(corp, "name", "") or "")
            if full.split()[-1:] and full.split()[-1].lower() in _NAME_TAIL:
                full = " ".join(full.split()[:-1])  # 'Baltimore & Ohio Railroad': 'Baltimore & Ohio'
            if full and full in short:
                short = short.replace(full, csym)
        if any(n.lower().split()[:len(want)] == want for n in (name, short)):
            found.append(sym)
    return found[0] if len(found) == 1 else None


def private_said(game: "Game", said: str) -> str | None:
    """The private ``said`` names by its name: the first words of it ('the Lexington', 'Lexington
    Terminal RR'; ``_private_named``) or the rulebook's form of it ('Lexington Terminal Railroad', Table
    III's "RR" written out; ``_private_names``); a closing full stop or comma is the sentence's."""
    words = tuple(w.rstrip(".,") for w in said.lower().split())
    if words[:1] == ("the",):
        words = words[1:]
    if not words:
        return None
    found = _private_named(game, " ".join(words))
    if found:
        return found
    return next((sym for name, sym in _private_names() if name == words and sym in game.state.companies), None)


def rulebook_names(game: "Game", move: Move) -> Move:
    """A company named by the rulebook's abbreviation where pbm's differs (title data
    ``corporation_aliases``; 18VA 4.4: RF&P, VGN, WM for RFPR, VR, WMR): the move names pbm's."""
    aliases = {k.upper(): v for k, v in (game.title.data.get("corporation_aliases") or {}).items()}
    if not aliases:
        return move
    for field in ("corporation", "seller"):
        name = getattr(move, field, None)
        if isinstance(name, str) and name.upper() in aliases:
            move = replace(move, **{field: aliases[name.upper()]})  # type: ignore[type-var]
    return move


def _of_type(game: "Game", trains: list[str], want: str) -> list[str]:
    """``trains`` of the type a player wrote (its declared side first: ``1G``; else its type),
    the lowest-numbered first, obsolete ones last."""
    s = game.state
    want = want.upper()
    for key in (lambda t: game.train_label(t).upper(), lambda t: s.trains[t].name.upper()):
        hit = [t for t in trains if t in s.trains and key(t) == want]
        if hit:
            return sorted(hit, key=lambda t: (s.trains[t].obsolete, train_order(t)))
    return []


def train_by_type(game: "Game", move: A.BuyTrain) -> A.BuyTrain:
    """A train named by its type (``buy train 4 from TAG 300``, ``buy train 3 from market``,
    ``trade 4``) is the lowest-numbered train of that type there: trains of one type are alike, so
    any one will do and the lowest keeps the choice fixed (issue 29: mails name types, not the ids
    ``4-2``). An id stays as written (old mails)."""
    s = game.state
    if move.train not in s.trains:
        if move.seller == POOL:
            offered = [t for t in game._depot_trains() if s.trains[t].owner == "discard"]  # noqa: SLF001
            pool = _of_type(game, offered, move.train)  # the one of its type the Open Market offers
            move = replace(move, train=pool[0] if pool else move.train, seller=None)
        elif move.seller:
            try:
                owner = f"C:{game.corp(str(move.seller)).sym}"
            except (GameError, KeyError, AttributeError):
                owner = ""
            own = _of_type(game, [t.tid for t in s.trains.values() if t.owner == owner], move.train)
            if own:
                move = replace(move, train=own[0])
    elif move.seller == POOL:
        move = replace(move, seller=None)
    if move.exchange and move.exchange not in s.trains:
        corp = move.entity if move.entity in s.corporations else \
            game._owned_by_operator(move.entity) if move.entity in s.companies else None
        own = _of_type(game, list(s.corporations[corp].trains) if corp in s.corporations else [], move.exchange)
        if own:
            move = replace(move, exchange=own[0])
    return move


def bank_train(game: "Game", move: A.BuyTrain) -> A.BuyTrain:
    """A new train named by its type (``buy train 3``) is the one the bank offers now, as the
    engine would pick it (the next new train first): the log names the train as before."""
    if move.train in game.state.trains or move.seller is not None:
        return move
    try:
        offered = game._depot_trains()
    except (GameError, KeyError, AttributeError):
        return move
    pick = next((t for t in offered if game.state.trains[t].name == move.train), None)
    return replace(move, train=pick) if pick else move


def train_side(game: "Game", move: A.BuyTrain) -> A.BuyTrain:
    """A train bought by the name of its side (``buy train 2G``: the 3/2G bought as a 2G) or declared
    in the rulebook's words (``as freight``, ``as passenger``): 18VA 4.5.8, "the Corporation President
    must declare whether it is a Passenger Train or a Freight Train" (play-through s11)."""
    trains = game.title.trains
    if move.train not in game.state.trains and all(t.name != move.train for t in trains):
        side = next(((t.name, n) for t in trains for n, _k in t.variants if n.upper() == move.train.upper()), None)
        if side is not None and (move.variant is None or move.variant.upper() == side[1].upper()):
            move = replace(move, train=side[0], variant=side[1])
    if move.variant and move.variant.lower() in ("freight", "passenger", "goods"):
        kind = "freight" if move.variant.lower() in ("freight", "goods") else "passenger"
        own = game.state.trains.get(move.train)
        name = own.name if own is not None else move.train
        sides = next((t.variants for t in trains if t.name == name), ())
        pick = [n for n, k in sides if k == kind]
        if pick:
            move = replace(move, variant=pick[0])
    return move


def own_train_rebate(game: "Game", move: A.BuyTrain) -> A.BuyTrain:
    """A company's new train of the one type a private's discount is for, bought with that discount:
    1848 4.5, The Ghan's "one-time rebate on the purchase of a 2E train" (a company owns at most one
    2E, 8.2.5, so the rebate has no other use); play-through s11v: 'buy train 2E' was refused "QR has
    £195, the train costs £200" while QR held the rebate. A discount for several types (18AL) is
    used only when the mail says 'with' the private: the player chooses the train."""
    s = game.state
    corp = move.entity
    if corp not in s.corporations or move.seller is not None:
        return move
    name = s.trains[move.train].name if move.train in s.trains else move.train
    for comp in s.companies.values():
        ab = game.company_ability(comp.sym, "train_discount")
        if ab and list(ab.get("trains") or ()) == [name] and game._owned_by_operator(comp.sym) == corp:
            return replace(move, entity=comp.sym)
    return move


def discard_by_type(game: "Game", move: A.DiscardTrain) -> A.DiscardTrain:
    """``discard 3``: the company's 3 train, when its trains of that type are alike (play-through s11:
    "ABC does not own 3; it owns 3-1, 4-0, 5-0")."""
    corp = game.state.corporations.get(move.entity)
    if corp is None or move.train in corp.trains:
        return move
    same = _of_type(game, list(corp.trains), move.train)  # alike: the lowest-numbered (issue 29)
    return replace(move, train=same[0]) if same else move


ANY_ROTATION = -1  # a lay written without its rotation (``only_rotation``)


def joined_hexes(game: "Game", places: tuple[str, ...]) -> frozenset[str]:
    """The hexes of the places a lay says its track joins (``LayJoining``): a hex, or a place the map
    names ('Wollongong' is G16); a name of several places run together ('Wollongong Newcastle', its
    comma lost) is each of them; a name the map does not know is refused."""
    out: set[str] = set()
    for said in places:
        for name in (said, *([] if _HEX_ONLY.match(said) else said.split())):
            hexname = place_hex(game, name)
            if _HEX_ONLY.match(hexname):
                out.add(hexname)
                break
        else:
            raise GameError(f"{said!r} is not a hex like E5, nor a place on the map")
    return frozenset(out)


def only_rotation(game: "Game", move: A.LayTile, toward: frozenset[str] = frozenset()) -> A.LayTile:
    """A lay written without a rotation, 'lay 241 I8 with P3': the rotation when the tile goes on the
    hex only one way now (1848 4.4, the Tasmania tile; s14b mail #77), or only one way whose track
    reaches the hexes ``toward`` (a lay written with what it joins, ``LayJoining``; s16b mail #33);
    else refused naming the ways."""
    tile = str(move.tile).rpartition("-")[0] if str(move.tile) not in game.title.tiles else str(move.tile)
    from pbm.e18xx.lays import _place, joins, reached, same_as, same_track

    lays = [a for a in game.legal_actions() if isinstance(a, A.LayTile) and a.hex == move.hex
            and (str(a.tile) == tile or str(a.tile).rpartition("-")[0] == tile)]
    kept = sorted(same_track(game, lays), key=lambda x: x[0].rotation)  # 'lay 9 C6': 0 and 3 lay one track
    if toward and kept:
        joining = [(a, same) for a, same in kept if toward <= reached(game, a.hex, str(a.tile), a.rotation)]
        if not joining:
            ways = "; ".join(f"lay {tile} {a.hex} {a.rotation}{same_as(others)} ({joins(game, a.hex, a.tile, a.rotation)})"
                             for a, others in kept)
            raise GameError(f"no rotation of tile {tile} in {move.hex} that may be laid now reaches "
                            f"{' and '.join(_place(game, h) for h in sorted(toward))}; the ways it goes: {ways}")
        kept = joining
    rots = [a.rotation for a, _same in kept]
    if len(rots) == 1:
        return replace(move, rotation=rots[0])
    if not rots:
        raise GameError(f"tile {tile} cannot be laid in {move.hex} now")
    # each rotation with what its track joins, as the move lists say it: a lay no list showed (a
    # private bought in the same mail) is chosen in one more try (18AL s15 mail #102)
    ways = "; ".join(f"lay {tile} {a.hex} {a.rotation}{f' with {a.entity}' if a.entity in game.state.companies else ''}"
                     f"{same_as(others)} ({joins(game, a.hex, a.tile, a.rotation)})" for a, others in kept)
    raise GameError(f"tile {tile} goes in {move.hex} with rotation " + " or ".join(map(str, rots))
                    + f": say which: {ways}")


def reserved_lay(game: "Game", move: A.LayTile) -> A.LayTile:
    """A company's lay of a tile only its private's ability lays (``lay 445 G2 0`` by the owner of
    18AL's Brown & Sons, the Lumber Terminal: 4.2.1, Table III) is that private's lay."""
    sym = game._reserving_private(move.tile.rpartition("-")[0] if move.tile not in game.title.tiles else move.tile)
    comp = game.state.companies.get(sym) if sym else None
    if comp is None or comp.closed or comp.owner != f"C:{move.entity}":
        return move
    return replace(move, entity=comp.sym)


def printed_tile(game: Any, a: A.Action) -> A.Action:
    """A lay of a hex's own copy of a tile (18VA's ``170ric``, named in the hex's upgrade rule) as
    the rulebook numbers the tile (``170``), for the lines that tell what was done."""
    from pbm.e18xx.lays import printed_number

    if not isinstance(a, A.LayTile):
        return a
    number = printed_number(game, a.hex, str(a.tile))
    return replace(a, tile=number) if number != a.tile else a


def printed_tile_name(game: Any, coord: str, tile: str) -> str:
    """The number the rulebook gives a tile laid on ``coord`` (``170`` for 18VA's ``170ric``)."""
    return str(printed_tile(game, A.LayTile("", coord, tile, 0)).tile)


def free_private_lay(game: "Game", move: A.LayTile) -> A.LayTile:
    """A company's lay in the hex of a private it owns that lays that tile there free, uncounted
    (18GA Table III, Midland: "may lay a tile in the Midland's hex for free, once ... it does not
    count as the corporation's one tile lay per turn") is that private's lay, as if written 'with
    MRC' (play-through s11 finding 15: 'lay 9 F12 2' after the company's own lay was refused). Only
    an ability that costs the company nothing: free, not its tile lay, never closing the private."""
    s = game.state
    for comp in s.companies.values():
        if comp.owner != f"C:{move.entity}" or comp.closed:
            continue
        for ab in game.title.company(comp.sym).get("abilities", []):
            if (ab.get("type") == "tile_lay" and ab.get("free") and not ab.get("consume_tile_lay")
                    and not any(k.startswith("close") or "_close" in k for k in ab)
                    and move.hex in ab.get("hexes", []) and str(move.tile) in [str(t) for t in ab.get("tiles", [])]
                    and comp.uses.get("tile_lay", 0) < int(ab.get("count", 1))):
                return replace(move, entity=comp.sym)
    return move


def place_names(game: "Game", move: A.RunRoutes) -> A.RunRoutes:
    """Words of a route that together name a place are that place: 'run 3 Montgomery West Point'
    (18AL s12 #58: "WEST is not a stop"; 18AL's Phenix City and Gulf of Mexico, 18VA's Newport News,
    1848's Alice Springs), the longest name first."""
    names = {str(v).upper() for v in (game.title.data.get("location_names") or {}).values() if " " in str(v)}
    if not names:
        return move
    longest = max(len(n.split()) for n in names)
    out = []
    for r in move.routes:
        nodes, merged, i = list(r.nodes), [], 0
        while i < len(nodes):
            for k in range(min(longest, len(nodes) - i), 1, -1):
                if " ".join(nodes[i:i + k]).upper() in names:
                    merged.append(" ".join(nodes[i:i + k]))
                    i += k
                    break
            else:
                merged.append(nodes[i])
                i += 1
        out.append(replace(r, nodes=tuple(merged)))
    return replace(move, routes=tuple(out))


def train_ids(game: "Game", move: A.RunRoutes) -> A.RunRoutes:
    """A route that names its train by type (``run 2 D9 C8``) runs a train of that type the
    company owns: each such route takes the next of them not named yet (trains of one type run
    alike); ids stay as written (issue 29, play-through item 16)."""
    s = game.state
    corp = s.corporations.get(move.entity)
    if corp is None:
        return move
    owned = list(corp.trains)
    named = {r.train for r in move.routes if r.train in owned}
    out = list(move.routes)
    # a train named as the mails show it (18VA '1G', '2') first, then by its type: a company with a
    # 1G and a 2 (both of the 2 type, 18VA 4.5.8) writing 'run 2 ... / run 1G ...' runs each of them
    # (play-through s12v: the '2' took the 1G and '1G' was refused "does not own train 1G")
    for by_label in (True, False):
        for i, r in enumerate(out):
            if r.train in owned or not r.train:
                continue
            free = [t for t in owned if t not in named
                    and (r.train.upper() == game.train_label(t).upper() if by_label
                         else r.train.upper() in (s.trains[t].name.upper(), game.train_label(t).upper()))]
            if free:
                named.add(free[0])
                out[i] = replace(r, train=free[0])
    # a route written without its train ('run J12-I11', play-through s13w F1) runs the longest train
    # not named by another route (4.2.3.1 then puts the best set in its place when that earns more)
    for i, r in enumerate(out):
        if not r.train:
            free = sorted((t for t in owned if t not in named), key=lambda t: -_train_reach(s.trains[t]))
            if free:
                named.add(free[0])
                out[i] = replace(r, train=free[0])
    return replace(move, routes=tuple(out))


def _train_reach(train: object) -> int:
    """How far a train runs, for choosing among a company's trains: its distance (a number, or the
    largest of a list of distances), 99 for a train without a limit."""
    d = getattr(train, "distance", 0)
    if isinstance(d, (list, tuple)):
        d = max((x.get("pay", 0) if isinstance(x, dict) else int(x) for x in d), default=0)
    try:
        return int(d)
    except (TypeError, ValueError):
        return 99


def plain_route_ids(game: "Game", corp: str, text: str) -> str:
    """A route refusal in the words a player writes: ``corp``'s trains by type (``4``, not ``4-1``:
    trains of one type run alike) and a hex of one stop by its hex (``D7``, not ``D7-0``), as
    ``run 4 D7 E6 G4`` is read (play-through s11: "the best is 'run 4-1 D7-0 E6-0 ...'")."""
    s = game.state
    c = s.corporations.get(corp)
    for tid in sorted(c.trains if c else (), key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(tid)}(?![\w-])", game.train_label(tid), text)

    def stop(m: "re.Match[str]") -> str:
        try:
            one = len(s.map.tile(m.group(1)).nodes) == 1
        except (KeyError, AttributeError, GameError):
            one = False
        return m.group(1) if one else m.group(0)
    return re.sub(r"(?<![\w-])([A-Z]{1,2}\d{1,3})-(\d+)(?![\w-])", stop, text)


def private_purchase(game: "Game", player: str, move: Move) -> A.Bid | None:
    """``buy LTR`` in the sale of the privates, as the rulebooks say it (18AL/18GA 3.1(a): buy the
    cheapest at its price; 1848 3.1.1: buy one at its current price): the sale's own move, the
    purchase at the price, when that purchase is allowed now; None otherwise (the engine's
    refusal then says what may be bought and how: ``private_buy_refusal``; issue 29)."""
    s = game.state
    if isinstance(move, A.BuyTrain) and move.entity == player and s.round.kind == "auction" \
            and move.train == _GHAN[1] and not move.seller:
        # 'buy The Ghan' in the sale of the privates, when no train is sold: the private of that
        # name (1848 4.5 P4; ``_named`` reads the name alone as the 2E train, 8.2.5; s16b mail #7)
        sym = _private_named(game, f"the {_GHAN[0]}")
        if sym is None:
            return None
        move = A.BuyShares(player, (), sym)
    if isinstance(move, A.BuyCompany) and move.entity == player and s.round.kind == "auction":
        # 'buy TR for $20' (3.1(a) "for its par value"): the bank's private at its price is the same
        # purchase (play-through s12v: refused "in the auction you may bid or pass")
        comp = s.companies.get(str(move.company).upper())
        if comp is None or comp.owner is not None or comp.closed or move.price not in (0, comp.min_bid):
            return None
        move = A.BuyShares(player, (), comp.sym)
    if not isinstance(move, A.BuyShares) or move.entity != player or s.round.kind != "auction":
        return None
    sym = game.private_sym(move.corporation)
    if sym is None and move.corporation not in s.corporations:
        sym = _private_named(game, move.corporation)  # 'buy Midland': its name's first word (18GA s14b F1)
    if sym is None or sym in s.corporations or game.current_entity() != player:
        return None
    style = game._auction_style()
    ok = (style == "waterfall" and game._may_purchase(sym)) or \
        (style == "dutch" and sym in game._auction_companies())
    return A.Bid(player, sym, game.company(sym).min_bid) if ok else None


def purchase_words(game: "Game", act: A.Bid) -> str:
    """What the reply says of ``buy LTR`` read as the purchase (``private_purchase``): the log
    holds the sale's own move, a bid at the price."""
    from pbm.e18xx.rounds.cite import see

    key = "cheapest_private" if game._auction_style() == "waterfall" else "auction_bid"
    return f"buys {act.company} at its price, {game.title.money(act.price)}{see(game.title, key)}"


class StandingOrders:
    """Standing "pass rest of round" orders.

    An order holds for the round in which it was given (auction, stock round
    or one operating round).  ``apply`` turns the orders into ordinary Pass
    actions whenever a player holding one must act, so the action log stays
    the only record of the game.  Call it after processing any action.
    """

    def __init__(self) -> None:
        self.orders: dict[str, tuple] = {}

    @staticmethod
    def round_key(game: "Game") -> tuple:
        s = game.state
        return (s.round.kind, s.turn, s.round.num)

    def add(self, game: "Game", player: str) -> None:
        self.orders[player] = self.round_key(game)

    def apply(self, game: "Game") -> list[A.Action]:
        done: list[A.Action] = []
        while not game.finished:
            cur = game.current_entity()
            who = game.controller(cur) if cur else None
            if who is None or self.orders.get(who) != self.round_key(game):
                break
            act = A.Pass(cur)  # type: ignore[arg-type]
            try:
                game.process(act)
            except GameError:
                break  # passing is not allowed here (e.g. a forced train buy): the player must act
            done.append(act)
        return done


def play_text(game: "Game", player: str, text: str, orders: StandingOrders | None = None) -> list[A.Action]:
    """Parse and apply ``player``'s moves in order; stops at the first refusal (raised).

    Standing orders (``pass rest of round``) are recorded in ``orders`` and
    applied after every move."""
    orders = orders if orders is not None else StandingOrders()
    done: list[A.Action] = []
    for n, mv in enumerate(without_contributions(game, parse_moves(text, player))[0], 1):
        mv = for_game(game, player, mv)
        if isinstance(mv, RepayLoan):
            raise GameError(f"move {n} (repay loan): {repay_refusal(game, player)}")
        if isinstance(mv, PassRestOfRound):
            orders.add(game, player)
            done += orders.apply(game)
            continue
        if isinstance(mv, More):
            continue  # every step is passed as written here: the turn is open until then anyway
        if isinstance(mv, Done):
            raise MoveError(f"move {n}: 'done' ends a turn written as intent: use pbm.e18xx.play_text "
                            "(pbem/intent.py); here every step is passed as written")
        try:
            game.process(mv)
        except MoveError:
            raise
        except GameError as exc:
            raise GameError(f"move {n} ({format_action(mv)}): {exc}") from None
        done.append(mv)
        done += orders.apply(game)
    return done


def pass_rest_of_round(game: "Game", player: str) -> int:
    """Pass for ``player`` every time they must act, until the round changes."""
    key = (game.state.round.kind, game.state.turn, game.state.round.num)
    n = 0
    while not game.finished and (game.state.round.kind, game.state.turn, game.state.round.num) == key:
        cur = game.current_entity()
        if cur != player:
            break
        game.process(A.Pass(player))
        n += 1
    return n


def repay_refusal(game: "Game", player: str) -> str:
    """Why ``repay loan`` is refused, with the title's rule and what is allowed instead (issue 29:
    1848's 'repay loan' was answered 'unknown move')."""
    from pbm.e18xx.rounds.cite import section

    t = game.title
    spec = t.data.get("loans") or {}
    if not spec:
        return f"there are no loans in {t.name}, so there is none to repay"
    ref = section(t, "loan_repay")
    lender = (t.data.get("bank_corporation") or {}).get("name") or "the lender"
    out = ((f"rule {ref}: " if ref else "") + f"in {t.name} a loan may never be paid back: it is an injection of "
           f"finance from the {lender}. What is allowed: 'take loan', a company's loan of "
           f"{t.money(int((t.data.get('bank_corporation') or {}).get('loan_value', 100)))}, "
           f"one per operating round in its turn")
    first = next((td.name for td in t.trains if spec.get("from_event") in td.events), "")
    if first:
        out += f" once the first {first} train has been bought"
    out += f", up to {spec.get('per_company', 5)} by choice (more only to pay for a train it must buy)"
    cur = game.current_entity()
    if cur in game.state.corporations and game.controller(cur) == player:
        can = getattr(game, "can_take_loan", None)
        out += f"; {cur} may take one now" if can is not None and can(cur) else f"; {cur} may not take one now"
    return out


def _stop_words(game: "Game", nodes) -> str:
    """A route's stops as the mails print them: a place written by its name in the map's spelling,
    the stops then joined by ' - ' ('run 4 Mobile - York - Meridian', not the parser's upper case
    'MOBILE YORK MERIDIAN': play-through s13v 18AL F2); hexes as written ('run 2 L5 K4'); a place by
    the first words of one map name, as the route reads it, by that name ('Toowoomba' is 'Toowoomba &
    Ipswich', not 'TOOWOOMBA': 1848 s16b mail #45)."""
    names = {str(v).upper(): str(v) for v in (game.title.data.get("location_names") or {}).values()}

    def full(n: str) -> str | None:
        if n.upper() in names:
            return names[n.upper()]
        said = n.upper().split()
        begun = {v for k, v in names.items() if said and k.split()[:len(said)] == said}
        return begun.pop() if len(begun) == 1 else None

    shown = [full(str(n)) or str(n) for n in nodes]
    named = any(full(str(n)) for n in nodes)
    return (" - " if named or any(" " in n for n in shown) else " ").join(shown)


def format_action(a: A.Action) -> str:
    """An action in the move language (for listings and turn reports)."""
    if isinstance(a, RepayLoan):
        return "repay loan"
    if isinstance(a, (ShareCount, FromOwner, Contribute, LayJoining, Named)):
        return a.line
    if isinstance(a, A.Pass):
        return "pass"
    if isinstance(a, A.Bid):
        return f"bid {a.price} {a.company}"
    if isinstance(a, A.Par):
        return f"par {a.corporation} {a.price}"
    if isinstance(a, A.BuyShares):
        if a.shares:  # an 18xx.games export names the certificate: never shown (action_words says where from)
            return f"buy {article(a.shares[0].rsplit('_', 1)[0])} share"
        return f"buy {a.corporation} {'market' if a.source == 'pool' else 'ipo'}"
    if isinstance(a, A.SellShares):
        corp = a.corporation or (a.shares[0].split("_")[0] if a.shares else "?")
        return f"sell {a.count or len(a.shares) or 1} {corp}"
    if isinstance(a, A.LayTile):
        return f"lay {a.tile} {a.hex} {a.rotation}" + (f" with {a.entity}" if _is_private(a.entity) else "")
    if isinstance(a, A.PlaceToken):
        return f"token {a.city}" + (f" with {a.entity}" if _is_private(a.entity) else "")
    if isinstance(a, A.Convert):
        return "convert"
    if isinstance(a, A.Assign):
        if not _is_private(a.entity):  # a player lowering a private's price in the falling-price sale
            return f"lower {a.target}"
        return f"assign {a.entity} {a.target}"
    if isinstance(a, A.TakeLoan):
        return "take loan"
    if isinstance(a, A.UseAbility):
        return f"use {a.entity}"
    if isinstance(a, A.RunRoutes):
        if a.auto:
            return "run auto"
        return "run " + "; ".join((f"{train_type(r.train)} " if r.train else "")  # no train written: s13w F1
                                  + (' - ' if any(' ' in n for n in r.nodes) else ' ').join(r.nodes)
                                  for r in a.routes)
    if isinstance(a, A.Dividend):
        return a.kind
    if isinstance(a, A.BuyTrain):
        return (f"buy train {train_type(a.train)}" + (f" as {a.variant}" if a.variant else "")
                + (f" from {a.seller}" if a.seller else "")
                + (f" {a.price}" if a.price is not None else "")
                + (f" trade {train_type(a.exchange)}" if a.exchange else "")
                + (f" with {a.entity}" if _is_private(a.entity) else ""))
    if isinstance(a, A.DiscardTrain):
        return f"discard {train_type(a.train)}"
    if isinstance(a, A.BuyCompany):
        return f"buy private {a.company} {a.price}"
    if isinstance(a, A.Bankrupt):
        return "bankrupt"
    return a.type


def action_words(game: Any, a: A.Action, seq: int | None = None) -> tuple[str, str]:
    """(who acted, the move) as a player reads them in Last moves and the events: a private's
    ability used by the company that owns it is that company's move, and a new train bought with
    a private's discount says its price (play-through s10 finding 7: "Cy for P2: buy train 3 with
    P2" read as the private's own move): ``("N&W", "buy train 3 with P2 for $0 ($200 off)")``;
    a certificate an 18xx.games export names by its id, as the mails say a purchase (``buy CoG
    market``, from where the game's recorder saw it come from, action ``seq``), never its id."""
    ent, text = str(a.entity), format_action(a)
    if game is None:
        return ent, text
    try:
        if isinstance(a, A.LayTile):  # 18VA's 170ric as the rulebook numbers it: 'lay 170 F11 0' (s12)
            text = format_action(printed_tile(game, a))
        if isinstance(a, A.BuyTrain) and not a.variant and a.train in game.state.trains:
            # another company's 2G as a 2G, not its type's 3 (s14b mail #117: "after 'buy train 3 from C&O 80'")
            text = text.replace(f"buy train {train_type(a.train)}", f"buy train {_train_word(game, a.train)}", 1)
        if isinstance(a, A.BuyShares) and a.shares:
            return ent, _share_words(game, a, seq)
        if isinstance(a, A.RunRoutes) and a.routes and not a.auto:  # a 2G as a 2G, not its type's 3 (s12v)
            text = "run " + "; ".join(f"{_train_word(game, r.train)} {_stop_words(game, r.nodes)}" for r in a.routes)
        comp = game.state.companies.get(ent)
        if comp is None or not str(comp.owner or "").startswith("C:"):
            return ent, text
        ent = str(comp.owner)[2:]
        if isinstance(a, A.BuyTrain):
            text = _with_discount(game, a) or text
    except Exception:  # noqa: BLE001 - a line is shown whatever the engine makes of it
        pass
    return ent, text


def _train_word(game: Any, tid: str) -> str:
    """A train as the mails name it (``2G``, ``4D``), its type when the game cannot say."""
    try:
        return str(game.train_label(tid)) if tid in game.state.trains else train_type(tid)
    except Exception:  # noqa: BLE001 - a line is shown whatever the engine makes of it
        return train_type(tid)


def _share_words(game: Any, a: A.BuyShares, seq: int | None) -> str:
    """``buy CoG ipo``, ``buy CoG market`` or, not knowing where from, ``buy a CoG share``; a
    certificate of more than one share says so (``buy CoG ipo (a 20% CoG share)``)."""
    from pbm.e18xx.rounds.stock import share_name

    sid = a.shares[0]
    corp = sid.rsplit("_", 1)[0]
    name = share_name(game, sid)
    src = (getattr(getattr(game, "recorder", None), "bought_from", None) or {}).get(seq) if seq else None
    if src is None:
        return f"buy {name}"
    where = "ipo" if src.startswith("ipo:") else "market" if src == "pool" else ""
    if not where:
        return f"buy {name}"
    return f"buy {corp} {where}" + ("" if name == f"{article(corp)} share" else f" ({name})")


def _with_discount(game: Any, a: A.BuyTrain) -> str:
    """``buy train 3 with P2 for $0 ($200 off)``: a new train at a private's discount ("" if the
    train or the discount is not known)."""
    from pbm.e18xx.rounds.or_trains import discount_off

    train = game.state.trains.get(a.train)
    name = train.name if train is not None else str(a.train)
    full = next((int(td.price) for td in game.title.trains if td.name == name), None)
    ab = game.company_ability(a.entity, "train_discount")
    if full is None or not ab:
        return ""
    price = int(a.price) if a.price is not None else max(0, full - discount_off(ab, full))
    money = game.title.money
    return (f"buy train {_train_word(game, a.train)}" + (f" as {a.variant}" if a.variant else "") + f" with {a.entity} for "
            f"{money(price)} ({money(full - price)} off)")


def _is_private(entity: str) -> bool:
    """True if ``entity`` is a private company's symbol in some registered title
    (a private acts through its ability: ``token H1 with P3``)."""
    return entity in _private_symbols()


@lru_cache(maxsize=1)
def _private_symbols() -> frozenset[str]:
    from pbm.e18xx.core.title import known_titles, load_title
    return frozenset(c["sym"] for t in known_titles() for c in load_title(t).data.get("companies", []))

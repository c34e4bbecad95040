"""Reading a filled turnsheet (§10) back into orders: plain text, or a filled PDF form.

:func:`parse_text` never raises: whatever the input, it returns the header it
found, the orders it could read and one :class:`~pbm.cr.orders.Problem` per
line it could not use, with the line number, what was wrong and what would be
accepted.  Blank means no order; blank control slots (§10.1D) and a blank
dividend (§10.2H) mean "unchanged" (``None`` in :class:`~pbm.cr.orders.Orders`).

Forgiving where a careful moderator would be (docs/rulings/mail.md):

* case does not matter; ``#`` starts a comment (except on MESSAGE and
  CHARACTER lines, whose whole text counts); ``$`` and thousands commas in
  amounts are ignored; the colon after a name may be left out;
* text before the first header line (a greeting) and after a signature
  separator (``--``) or an ``END`` line is ignored;
* in a reply that quotes the sheet (``> GAME: ...``) the quoted lines are read
  when no unquoted sheet is present, and ignored otherwise;
* an order given twice: the later line counts, and the receipt says so.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from pbm.cr.orders import (
    MAX_MESSAGE,
    MAX_STOCK_ORDERS,
    Orders,
    PCAction,
    PCBid,
    Problem,
    RailroadOrders,
    RateWar,
    StockOrder,
)
from pbm.turnsheet.grammar import (
    ALIASES,
    BLANK_WORDS,
    FREE_TEXT,
    HEADER_KEYS,
    PERSONAL_KEYS,
    RR_ALIASES,
    RR_FIELDS,
    key_from_field,
    normalize_key,
)

MAX_LINES = 3000
MAX_LINE_LENGTH = 1000
MAX_AMOUNT = 1_000_000_000  # no order in the game comes near this; larger is a typing slip

_CODE = re.compile(r"^[A-Z0-9&]{1,8}$")
_NUMBER = re.compile(r"^\$?\s*([0-9][0-9,]*)(\.0*)?\s*\$?$")


@dataclass
class SheetHeader:
    """What a sheet says about itself: game, player number, turn, code, the player's secret."""

    game: str | None = None
    player: int | None = None
    turn: int | None = None
    code: str | None = None
    secret: str | None = None
    lines: dict[str, int] = field(default_factory=dict)  # header key -> line


@dataclass
class ParsedSheet:
    header: SheetHeader
    orders: Orders
    problems: list[Problem]
    where_lines: dict[str, int]  # lower-case order name ("stock 3", "b&o build") -> line
    found: bool  # some header line was seen: this is meant to be a sheet
    source: str = "text"  # text or pdf
    ignored: list[tuple[int, str]] = field(default_factory=list)  # prose after the orders: (line, text)

    def line_of(self, where: str) -> int | None:
        """The sheet line an order name (as the validator writes it) came from."""
        key = " ".join(where.lower().split())
        if key in self.where_lines:
            return self.where_lines[key]
        for name, line in sorted(self.where_lines.items(), key=lambda kv: -len(kv[0])):
            if key.startswith(name) or name.startswith(key):
                return line
        return None


class _Bad(Exception):
    """A value that cannot be used: message and what is allowed."""

    def __init__(self, message: str, allowed: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.allowed = allowed


def clean_text(text: str) -> str:
    """NFC, Unix newlines, no control characters but tabs and newlines."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")


def _amount(value: str, what: str = "an amount") -> int:
    text = value.strip().upper().replace(" ", "")
    if text.upper() in BLANK_WORDS:
        return 0
    m = _NUMBER.match(text)
    if not m:
        if text.startswith("-"):
            raise _Bad(f"{value.strip()!r} is negative", "0 or more")
        raise _Bad(f"{value.strip()!r} is not {what}", "a whole number, e.g. 1500 or $1,500")
    digits = m.group(1).replace(",", "")
    if len(digits) > 12 or int(digits) > MAX_AMOUNT:
        raise _Bad(f"{value.strip()!r} is far too large", f"at most {MAX_AMOUNT:,}")
    return int(digits)


def _is_blank(value: str) -> bool:
    return normalize_key(value) in BLANK_WORDS


def _code(token: str, what: str = "code") -> str:
    code = token.strip().upper().strip(",;.")
    if not _CODE.match(code):
        raise _Bad(f"{token.strip()!r} is not a {what}", "letters, digits and & (e.g. B&O, NY1)")
    return code


def _codes(value: str, what: str = "code") -> list[str]:
    tokens = [t for t in re.split(r"[\s,;]+", value.strip()) if t and t.upper() not in ("AND", "&&")]
    return [_code(t, what) for t in tokens]


_RR_FIELD_NAMES = sorted(set(RR_FIELDS) | set(RR_ALIASES), key=len, reverse=True)
_RR_FIELD_RE = re.compile(r"^(?P<rr>\S+) (?P<field>" + "|".join(re.escape(n) for n in _RR_FIELD_NAMES) + r")$")
_INDEXED_RE = re.compile(r"^(?P<kind>PC|BID|STOCK) ?(?P<arg>\S+)$")


def _classify(key: str) -> tuple[str, str | None] | None:
    """('GAME', None), ('BORROW', None), ('PC', 'NY1'), ('RR:BUILD', 'B&O'), ... or None."""
    if key in ALIASES:
        key = ALIASES[key]
    if key in PERSONAL_KEYS or key in HEADER_KEYS or key in ("END", "STOCK"):
        return key, None
    m = _INDEXED_RE.match(key)
    if m:
        return m.group("kind"), m.group("arg")
    m = _RR_FIELD_RE.match(key)
    if m:
        name = RR_ALIASES.get(m.group("field"), m.group("field"))
        return "RR:" + name, m.group("rr")
    return None


def _split_line(line: str) -> tuple[str, str] | None:
    """(key, raw value) of a sheet line, with or without the colon after the name."""
    if ":" in line:
        key, _, value = line.partition(":")
        if _classify(normalize_key(key)) is not None:
            return normalize_key(key), value
    words = line.split()
    for n in (4, 3, 2, 1):  # the longest known name at the start: "B&O REPAY DEBT 100", "BORROW 500"
        if len(words) >= n:
            key = normalize_key(" ".join(words[:n]))
            if _classify(key) is not None:
                rest = line.split(None, n)[n] if len(words) > n else ""
                return key, rest
    if ":" in line:
        key, _, value = line.partition(":")
        return normalize_key(key), value
    return None


class _Builder:
    def __init__(self) -> None:
        self.header = SheetHeader()
        self.orders = Orders()
        self.problems: list[Problem] = []
        self.where_lines: dict[str, int] = {}
        self.seen: dict[str, int] = {}
        self.control: list[str | None] = [None, None]
        self.control_given = False
        self.bids: list[tuple[int, PCBid, bool]] = []
        self.stock: dict[int, StockOrder] = {}
        self.pc_actions: dict[str, PCAction] = {}
        self.railroads: dict[str, RailroadOrders] = {}

    def problem(self, line: int | None, where: str, message: str, allowed: str = "", adjusted: bool = False) -> None:
        self.problems.append(Problem(where=where, message=message, allowed=allowed, line=line, adjusted=adjusted))

    def note(self, where: str, line: int) -> bool:
        """Remember the line of an order; if given before, say the later one counts."""
        key = where.lower()
        if key in self.seen:
            self.problem(line, where, f"given twice (also on line {self.seen[key]}); this later line counts")
        self.seen[key] = line
        self.where_lines[key] = line
        return True

    def alias(self, name: str, line: int) -> None:
        """Another name the validator may use for the order on ``line`` (pbm.cr.validate's ``where``)."""
        self.where_lines[name.lower()] = line

    # --- header -----------------------------------------------------------------------
    def header_line(self, key: str, value: str, line: int) -> None:
        value = value.split("#", 1)[0].strip() if key != "SECRET" else value.strip().split("#", 1)[0].strip()
        h = self.header
        h.lines[key] = line
        if key == "GAME":
            h.game = value or None
        elif key == "CODE":
            h.code = value.upper() or None
        elif key == "SECRET":
            h.secret = value or None
        else:
            try:
                number = _amount(value, "a number") if value else None
            except _Bad as bad:
                self.problem(line, key.lower(), bad.message, "the number printed on your sheet")
                return
            if key == "PLAYER":
                h.player = number
            else:
                h.turn = number

    # --- personal orders ----------------------------------------------------------------
    def personal(self, key: str, value: str, line: int) -> None:
        o = self.orders
        raw_value = value
        if key not in FREE_TEXT:
            value = value.split("#", 1)[0].strip()
        where = key.lower()
        if key in ("BORROW", "REPAY", "PRODIGAL"):
            self.note(where, line)
            if key == "BORROW" or "loan" not in self.where_lines:
                self.alias("loan", line)
            setattr(o, PERSONAL_KEYS[key], _amount(value))
        elif key in ("RR1", "RR2"):
            self.note(f"control {key}", line)
            slot = 0 if key == "RR1" else 1
            self.alias(f"control slot {slot + 1}", line)
            self.alias("control", line)
            if _is_blank(value):
                self.control[slot] = None
                return
            self.control[slot] = _code(value, "railroad or PC code")
            self.control_given = True
        elif key == "RESIGN":
            self.note(where, line)
            o.resign = [] if _is_blank(value) else _codes(value, "railroad code")
            for code in o.resign:
                self.alias(f"resign {code}", line)
        elif key == "MERGE":
            self.note(where, line)
            if _is_blank(value):
                o.merge = None
                return
            tokens = [t for t in re.split(r"[\s,;]+", value.upper()) if t and t not in ("INTO", "WITH", "TO", "->", ">")]
            if len(tokens) != 2:
                raise _Bad(f"{value!r} does not name two railroads", "MERGING INTO SURVIVING, e.g. ERIE INTO B&O")
            o.merge = (_code(tokens[0], "railroad code"), _code(tokens[1], "railroad code"))
        elif key in ("SPY PLAYER", "SPY RAILROAD", "SPY"):
            self.note(where, line)
            if _is_blank(value):
                return
            for token in value.replace(",", " ").split():
                if (token.isascii() and token.isdigit()) and key != "SPY RAILROAD":
                    number = int(token)
                    if not 1 <= number <= 15:
                        raise _Bad(f"there is no player {number}", "a player number 1-15 (§3.1)")
                    o.spy_player = number
                elif key != "SPY PLAYER":
                    o.spy_railroad = _code(token, "railroad code")
                else:
                    raise _Bad(f"{token!r} is not a player number", "a player number 1-15 (§3.1)")
        elif key == "MESSAGE":
            self.note(where, line)
            text = " ".join(raw_value.split())
            if len(text) > MAX_MESSAGE:
                self.problem(line, where, f"{len(text)} characters; shortened to the first {MAX_MESSAGE} (§10.1G)",
                             f"at most {MAX_MESSAGE} characters", adjusted=True)
                text = text[:MAX_MESSAGE].rstrip()
            o.message = text
        elif key == "CHARACTER":
            self.note(where, line)
            text = " ".join(raw_value.split())
            if len(text) > 40:
                raise _Bad(f"character name of {len(text)} characters", "at most 40 characters (§3.2)")
            o.character = text or None

    def pc(self, arg: str, value: str, line: int) -> None:
        pc = _code(arg, "PC code")
        where = f"PC {pc}"
        self.note(where, line)
        for verb in ("sell", "merge", "incorporate"):
            self.alias(f"PC {pc} {verb}", line)
        value = value.split("#", 1)[0]
        words = normalize_key(value).split()
        if not words:
            self.pc_actions.pop(pc, None)
            return
        verb, rest = words[0], words[1:]
        if verb in ("SELL", "PRICE", "REPRICE", "OFFER"):
            if len(rest) != 1:
                raise _Bad(f"{value.strip()!r}: SELL needs one asking price", "SELL <price>, e.g. SELL 900")
            self.pc_actions[pc] = PCAction(pc=pc, action="sell", price=_amount(rest[0], "a price"))
        elif verb == "MERGE":
            rest = [w for w in rest if w not in ("INTO", "WITH", "TO")]
            if len(rest) != 1:
                raise _Bad(f"{value.strip()!r}: MERGE needs one railroad", "MERGE <railroad>, e.g. MERGE B&O")
            self.pc_actions[pc] = PCAction(pc=pc, action="merge", railroad=_code(rest[0], "railroad code"))
        elif verb in ("INCORPORATE", "INC"):
            president = bool(rest) and rest[0] in ("PRESIDENT", "PRES", "P", "YES", "CONTROL")
            if rest and not president:
                raise _Bad(f"{value.strip()!r} is not understood", "INCORPORATE or INCORPORATE PRESIDENT")
            self.pc_actions[pc] = PCAction(pc=pc, action="incorporate", president=president)
        else:
            raise _Bad(f"{value.strip()!r} is not a PC order",
                       "SELL <price>, MERGE <railroad>, INCORPORATE or INCORPORATE PRESIDENT (§10.1B)")

    def bid(self, arg: str, value: str, line: int) -> None:
        pc = _code(arg, "PC code")
        where = f"bid {pc}"
        self.note(where, line)
        self.alias(f"PC bid {pc}", line)
        value = value.split("#", 1)[0]
        if _is_blank(value):
            self.bids = [b for b in self.bids if b[1].pc != pc]
            return
        words = normalize_key(value.replace("SEQUENCE", " SEQ ").replace("SEQ.", " SEQ ")).split()
        words = [w for w in words if w not in ("SEQ", "#")]
        if len(words) not in (1, 2):
            raise _Bad(f"{value.strip()!r} is not a bid", "<amount> [<sequence 1 or 2>], e.g. 600 1")
        amount = _amount(words[0], "an amount")
        explicit = len(words) == 2
        sequence = 0
        if explicit:
            if words[1] not in ("1", "2"):
                raise _Bad(f"sequence {words[1]!r}", "1 or 2")
            sequence = int(words[1])
        self.bids = [b for b in self.bids if b[1].pc != pc]
        self.bids.append((line, PCBid(pc=pc, amount=amount, sequence=sequence), explicit))

    def stock_order(self, arg: str | None, value: str, line: int) -> None:
        value = value.split("#", 1)[0]
        if arg is None:
            priority = next((n for n in range(1, MAX_STOCK_ORDERS + 1) if n not in self.stock), None)
            if priority is None:
                raise _Bad("a seventh stock order", f"at most {MAX_STOCK_ORDERS} (§10.1C2)")
        else:
            if not (arg.isascii() and arg.isdigit()) or not 1 <= int(arg) <= MAX_STOCK_ORDERS:
                raise _Bad(f"there is no stock line {arg}", f"STOCK 1 to STOCK {MAX_STOCK_ORDERS} (§10.1C2)")
            priority = int(arg)
        where = f"stock {priority}"
        self.note(where, line)
        if _is_blank(value):
            self.stock.pop(priority, None)
            return
        action = shares = railroad = None
        for token in normalize_key(value).replace(",", " ").split():
            if token in ("BUY", "BID", "B"):
                action = "buy"
            elif token in ("SELL", "S"):
                action = "sell"
            elif token in ("SHORT", "SHORT-SELL", "SS"):
                action = "short"
            elif token in ("SHARES", "SHARE", "OF", "IN", "SELL SHORT"):
                continue
            elif (token.isascii() and token.isdigit()) and shares is None:
                shares = _amount(token, "a number of shares")
            elif railroad is None:
                railroad = _code(token, "railroad code")
            else:
                raise _Bad(f"{value.strip()!r} is not understood",
                           "BUY|SELL|SHORT <shares> <railroad>, e.g. BUY 20 B&O")
        if action is None or shares is None or railroad is None:
            missing = [n for n, v in (("BUY, SELL or SHORT", action), ("a number of shares", shares),
                                      ("a railroad", railroad)) if v is None]
            raise _Bad(f"{value.strip()!r} lacks {' and '.join(missing)}",
                       "BUY|SELL|SHORT <shares> <railroad>, e.g. BUY 20 B&O")
        if shares == 0:
            self.stock.pop(priority, None)
            return
        self.stock[priority] = StockOrder(railroad=railroad, action=action, shares=shares, priority=priority)
        self.alias(f"stock {action} {railroad}", line)

    def railroad(self, field_key: str, rr: str, value: str, line: int) -> None:
        code = _code(rr, "railroad code or number")
        attr, kind = RR_FIELDS[field_key]
        where = f"{code} {field_key.lower()}"
        self.note(where, line)
        for other in {"LEND": ["president loan"], "REPAY PRESIDENT": ["president loan"],
                      "ROW 1": ["RoW first", "RoW bid"], "ROW 2": ["RoW alternate", "RoW bid"]}.get(field_key, []):
            self.alias(f"{code} {other}", line)
        self.alias(f"railroad {code}", line)
        self.alias(f"{code} orders", line)
        value = value.split("#", 1)[0].strip()
        orders = self.railroads.setdefault(code, RailroadOrders(railroad=code))
        if kind == "money" or kind == "count":
            setattr(orders, attr, _amount(value, "an amount" if kind == "money" else "a number of shares"))
        elif kind in ("money_or_blank", "int_or_blank"):
            setattr(orders, attr, None if _is_blank(value) else _amount(value, "a number"))
        elif kind == "flag":
            word = normalize_key(value)
            if word in ("YES", "Y", "X", "TRUE", "ON", "ABANDON", "1", "CHECKED", "/YES"):
                orders.abandon = True
            elif word in BLANK_WORDS or word in ("NO", "N", "FALSE", "OFF", "0", "/OFF"):
                orders.abandon = False
            else:
                raise _Bad(f"{value!r}", "YES to abandon, blank otherwise (§10.2E3)")
        elif kind == "codes":
            orders.double_track = [] if _is_blank(value) else _codes(value, "line code")
        elif kind == "code":
            setattr(orders, attr, None if _is_blank(value) else _code(value, "RoW code"))
        elif kind == "letter":
            letter = normalize_key(value)
            if letter in BLANK_WORDS:
                orders.technology = None
            elif len(letter) == 1 and "A" <= letter <= "J":
                orders.technology = letter
            else:
                raise _Bad(f"{value!r} is not a technology letter", "one letter A-J (§4.18)")
        elif kind == "ratewars":
            wars: list[RateWar] = []
            if not _is_blank(value):
                for part in re.split(r"[;,]", value):
                    words = part.replace("%", " ").split()
                    if not words:
                        continue
                    if len(words) != 2 or not (words[1].isascii() and words[1].isdigit()):
                        raise _Bad(f"{part.strip()!r} is not a rate war", "<railroad> <percent>, e.g. ERIE 25 (§4.16)")
                    percent = int(words[1])
                    if not 1 <= percent <= 99:
                        raise _Bad(f"{percent}% rate cut", "1 to 99 percent (§4.16)")
                    wars.append(RateWar(target=_code(words[0], "railroad code"), percent=percent))
            orders.rate_wars = wars

    def finish(self) -> Orders:
        o = self.orders
        if self.control_given or any(self.control):
            o.control = list(self.control)
        # §10.1B: bids without a sequence take the next free one, in the order written
        used = {b.sequence for _, b, explicit in self.bids if explicit}
        for line, bid, explicit in sorted(self.bids, key=lambda t: t[0]):
            if not explicit:
                bid.sequence = next((n for n in (1, 2) if n not in used), len(used) + 1)
                used.add(bid.sequence)
        o.pc_bids = [b for _, b, _ in sorted(self.bids, key=lambda t: (t[1].sequence, t[0]))]
        o.stock = [self.stock[p] for p in sorted(self.stock)]
        o.pc_actions = [self.pc_actions[k] for k in sorted(self.pc_actions)]
        o.railroads = [self.railroads[k] for k in sorted(self.railroads)
                       if self.railroads[k] != RailroadOrders(railroad=k)]
        return o


# the line a mail program puts between a reply and the message it quotes below it
_QUOTE_SEPARATOR = re.compile(r"^\s*(-{2,}\s*original message\s*-{2,}|_{8,}|on .{1,200} wrote:|"
                              r"-{2,}\s*forwarded message\s*-{2,})\s*$", re.IGNORECASE)


def _top_posted_first(lines: list[str]) -> list[tuple[int, str]]:
    """The lines to read, numbered as in the message.  A top-posted reply (Outlook style:
    orders typed above "-----Original Message-----" and the sheet quoted below it) is read as
    the quoted sheet's header lines followed by the orders above the separator; the rest of
    the quoted sheet is left out.  Any other message is read as it is."""
    numbered = list(enumerate(lines, start=1))
    cut = next((i for i, ln in enumerate(lines) if _QUOTE_SEPARATOR.match(ln)), None)
    if cut is None:
        return numbered
    above, below = numbered[:cut], numbered[cut + 1:]

    def kind(raw: str) -> str | None:
        split = _split_line(re.sub(r"^(\s*>)+ ?", "", raw).strip())
        got = _classify(split[0]) if split else None
        return got[0] if got else None

    above_kinds = [kind(raw) for _, raw in above]
    if not any(k is not None and k not in HEADER_KEYS and k != "END" for k in above_kinds):
        return numbered  # nothing typed above the quote: the sheet is below it
    have = {k for k in above_kinds if k in HEADER_KEYS}
    header = [(n, re.sub(r"^(\s*>)+ ?", "", raw)) for n, raw in below
              if kind(raw) in HEADER_KEYS and kind(raw) not in have]
    seen: set[str | None] = set()
    header = [(n, raw) for n, raw in header if not (kind(raw) in seen or seen.add(kind(raw)))]
    first = [(n, raw) for (n, raw), k in zip(above, above_kinds) if k in HEADER_KEYS]
    rest = [(n, raw) for (n, raw), k in zip(above, above_kinds) if k not in HEADER_KEYS]
    return first + header + rest


# a line that closes a letter; it and what follows are never orders (docs/mail.md, "Prose after the orders")
_SIGN_OFF = re.compile(r"^(thanks|thank you|thx|cheers|regards|best|best wishes|kind regards|warm regards|"
                       r"sincerely|yours|yours truly|all the best|greetings|ta|bye|love|sent from my)\b[\s,.!:-]*",
                       re.IGNORECASE)


_NAME = re.compile(r"^(?=.*[a-z])[A-Z][^\W\d_]*([ .'-]+[A-Z][^\W\d_]*){0,2}\.?$")  # "Ada", "Ada Lovelace", "A. Lovelace"


def _order_words() -> frozenset[str]:
    """The first words of the order names on a sheet (BORROW, STOCK, BUILD, ...)."""
    words = set()
    for name in (*ALIASES, *PERSONAL_KEYS, *HEADER_KEYS, *RR_FIELDS, *RR_ALIASES, "STOCK", "PC", "BID", "END"):
        words.add(name.split()[0])
    return frozenset(words)


_ORDER_WORDS = _order_words() - set(HEADER_KEYS)  # a header line below the orders is pasted text


def _near_order_word(text: str) -> str | None:
    """The order word a line starts with, or is within a typing slip of ("BORROWW 60" -> BORROW,
    "B&O BUILDD: 300" -> BUILD); None for prose."""
    import difflib

    words = [normalize_key(w) for w in re.split(r"[\s:]+", text.strip()) if w][:2]
    for word in words:
        if len(word) >= 3:
            if word in _ORDER_WORDS:
                return word
            close = difflib.get_close_matches(word, _ORDER_WORDS, 1, 0.8)
            if close:
                return close[0]
    return None


def _looks_like_order(text: str) -> bool:
    """A line that starts with an order word or a typing slip of one: a mistyped order, never prose."""
    return _near_order_word(text) is not None


def _split_tail(pending: list[tuple[int, str, bool, tuple]]) -> tuple[list[tuple], list[tuple[int, str]]]:
    """Unreadable lines after the last order: (the ones that are mistyped orders, the ignored prose).

    The order block ends at a sign-off ("Thanks, Ada"), a quote separator ("On ... wrote:"), or a
    line after a blank line that does not start with an order word (a name, a remark, a line
    pasted from the report); from there on nothing is an order (docs/mail.md)."""
    problems: list[tuple] = []
    for i, (number, text, blank_before, problem) in enumerate(pending):
        name = i == len(pending) - 1 and _NAME.match(text) and not _looks_like_order(text)  # "Ada" signed last
        if (_SIGN_OFF.match(text) or _QUOTE_SEPARATOR.match(text) or name
                or (blank_before and not _looks_like_order(text))):
            return problems, [(n, t) for n, t, _, _ in pending[i:]]
        problems.append(problem)
    return problems, []


def parse_text(text: str, *, source: str = "text") -> ParsedSheet:
    """Read a plain-text turnsheet; never raises (see the module docstring)."""
    b = _Builder()
    found = False
    try:
        lines = clean_text(text if isinstance(text, str) else str(text)).split("\n")
    except Exception:  # pragma: no cover - defensive: str() of anything works
        lines = []
    if len(lines) > MAX_LINES:
        b.problem(MAX_LINES + 1, "sheet", f"{len(lines)} lines; only the first {MAX_LINES} were read")
        lines = lines[:MAX_LINES]
    numbered = _top_posted_first(lines)
    unquoted_header = any(re.match(r"^\s*GAME\s*:", ln, re.IGNORECASE) for ln in lines)
    started = False
    ordered = False  # an order line (not a header line) has been read
    blank = False  # a blank line since the last line read
    # unreadable lines not yet known to be inside the order block: (line, text, blank before, problem)
    pending: list[tuple[int, str, bool, tuple]] = []

    def flush() -> None:
        for *_, problem in pending:
            b.problem(*problem)
        pending.clear()

    for number, raw in numbered:
        line = raw
        if line.lstrip().startswith(">"):
            if unquoted_header:
                continue
            line = re.sub(r"^(\s*>)+ ?", "", line)
        if line.rstrip() in ("--", "-- ") and started:
            break  # signature
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            blank = blank or not stripped
            continue
        if len(stripped) > MAX_LINE_LENGTH:
            if started:
                b.problem(number, "sheet", f"a line of {len(stripped)} characters was ignored",
                          f"lines of at most {MAX_LINE_LENGTH} characters")
            continue
        split = _split_line(stripped)
        kind = _classify(split[0]) if split else None
        if not started:
            if kind is not None and kind[0] in HEADER_KEYS:
                started = True
            else:
                continue  # greeting before the sheet
        if (kind is not None and kind[0] in HEADER_KEYS and kind[0] in b.header.lines and ordered
                and (blank or pending)):
            kind = None  # "Player 1 Countess ... Cash $2,000" pasted from the report below the orders
            problem = (number, "sheet", f"the {split[0]} line was given before (line {b.header.lines[split[0]]})",
                       "one header at the top of the sheet")
            pending.append((number, stripped, blank, problem))
            blank = False
            continue
        if kind is None:
            if split is not None:
                problem = (number, "sheet", f"unknown order {split[0]!r}",
                           "the order names printed on the sheet (e.g. BORROW, STOCK 1, B&O BUILD)")
            else:
                near = _near_order_word(stripped)
                hint = f" (did you mean {near}?)" if near and near not in normalize_key(stripped).split()[:2] else ""
                problem = (number, "sheet", f"not an order line: {stripped[:60]!r}{hint}",
                           "NAME: value, or a comment starting with #")
            pending.append((number, stripped, blank, problem))
            blank = False
            continue
        blank = False
        assert split is not None
        name, arg = kind
        value = split[1]
        if name == "END":
            break
        flush()  # an order follows them: the unreadable lines above were inside the order block
        if name in HEADER_KEYS:
            if name in b.header.lines and name == "GAME":
                b.problem(number, "sheet", "a second sheet starts here; only the first sheet of a message is read",
                          "one sheet per message")
                break
            found = True
            b.header_line(name, value, number)
            continue
        ordered = True
        try:
            if name == "PC":
                b.pc(arg or "", value, number)
            elif name == "BID":
                b.bid(arg or "", value, number)
            elif name == "STOCK":
                b.stock_order(arg, value, number)
            elif name.startswith("RR:"):
                b.railroad(name[3:], arg or "", value, number)
            else:
                b.personal(name, value, number)
        except _Bad as bad:
            where = {"PC": f"PC {arg}", "BID": f"bid {arg}", "STOCK": f"stock {arg or ''}".strip()}.get(
                name, f"{arg} {name[3:].lower()}" if name.startswith("RR:") else name.lower())
            b.problem(number, where, bad.message, bad.allowed)
        except Exception as exc:  # pragma: no cover - a bug must not lose the rest of the sheet
            b.problem(number, "sheet", f"this line could not be read ({exc.__class__.__name__})", "")
    mistyped, ignored = _split_tail(pending)
    for problem in mistyped:
        b.problem(*problem)
    b.problems.sort(key=lambda p: (p.line is None, p.line or 0))
    orders = b.finish()
    return ParsedSheet(header=b.header, orders=orders, problems=b.problems, where_lines=b.where_lines,
                       found=found, source=source, ignored=ignored)


# --- PDF forms -------------------------------------------------------------------------

def pdf_field_values(data: bytes) -> dict[str, str] | None:
    """The filled fields of a PDF form (name -> value), or None if it is no readable form."""
    import io
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception:
                return None
        fields: dict[str, Any] | None = reader.get_fields()
    except Exception:
        return None
    if not fields:
        return None
    values: dict[str, str] = {}
    for name, f in fields.items():
        value = f.get("/V") if isinstance(f, dict) else None
        if value is None:
            values[name] = ""
            continue
        text = str(value)
        values[name] = text
    return values


def parse_pdf(data: bytes) -> ParsedSheet | None:
    """Read a filled PDF turnsheet; None if the PDF has no pbm turnsheet fields.

    Each form field is named after its sheet line (``BORROW``, ``B&O BUILD``), so
    the fields become sheet lines and go through :func:`parse_text`; problems name
    the field (their ``line`` is None, since a PDF has no lines).
    """
    values = pdf_field_values(data)
    if not values or "GAME" not in values or "PLAYER" not in values:
        return None
    ordered = sorted(values.items(), key=lambda kv: (kv[0] not in HEADER_KEYS, kv[0]))
    lines = []
    for name, value in ordered:
        key = key_from_field(name)
        value = " ".join(str(value).split())
        if key.upper() in ("ABANDON",) or key.upper().endswith(" ABANDON"):
            value = "YES" if value.strip("/").upper() in ("YES", "ON", "1", "TRUE") else ""
        lines.append(f"{key}: {value}")
    parsed = parse_text("\n".join(lines), source="pdf")
    for p in parsed.problems:
        p.line = None
        if p.where == "sheet":
            p.where = "form"
    parsed.where_lines = {}
    return parsed

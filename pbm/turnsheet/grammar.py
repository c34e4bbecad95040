"""The names of the turnsheet's lines (§10), shared by the forms, the parser and the echo.

A sheet line is ``NAME: value``.  Names are case-insensitive and spaces inside
them do not matter ("Spy player", "SPY  PLAYER").  Personal orders (§10.1):

========================  ==========================================================
``BORROW`` / ``REPAY``    §10.1A bank loan, whole dollars
``PC <pc>``               §10.1B one of ``SELL <price>``, ``MERGE <railroad>``,
                          ``INCORPORATE`` or ``INCORPORATE PRESIDENT``
``BID <pc>``              §10.1B ``<amount> [<sequence 1 or 2>]``
``STOCK <1-6>``           §10.1C ``BUY|SELL|SHORT <shares> <railroad>`` (the number is
                          the priority, 1 first)
``RR1`` / ``RR2``         §10.1D railroad (or incorporating PC) to control; blank = unchanged
``RESIGN``                §10.1D railroads you resign from
``MERGE``                 §10.1E ``<railroad> INTO <railroad>``
``SPY PLAYER`` / ``SPY RAILROAD``  §10.1F
``MESSAGE``               §10.1G up to 80 characters (the whole rest of the line; ``#`` kept)
``PRODIGAL``              §1.2 dollars spent on Rail Prodigal points
``CHARACTER``             §3.2 a character name (whole rest of the line)
========================  ==========================================================

Railroad orders (§10.2) are ``<railroad> <FIELD>: value`` where ``<railroad>`` is
the code or its turnsheet number (§10), and FIELD one of :data:`RR_FIELDS`.
"""

from __future__ import annotations

HEADER_KEYS = ("GAME", "PLAYER", "TURN", "CODE", "SECRET")

# Personal keys with a fixed name -> Orders attribute (or a marker handled by the parser).
PERSONAL_KEYS = {
    "BORROW": "borrow",
    "REPAY": "repay",
    "RR1": "rr1",
    "RR2": "rr2",
    "RESIGN": "resign",
    "MERGE": "merge",
    "SPY PLAYER": "spy_player",
    "SPY RAILROAD": "spy_railroad",
    "SPY": "spy",
    "MESSAGE": "message",
    "PRODIGAL": "prodigal",
    "CHARACTER": "character",
}
ALIASES = {
    "BANK LOAN": "BORROW",
    "LOAN": "BORROW",
    "REPAY LOAN": "REPAY",
    "CONTROL 1": "RR1",
    "CONTROL 2": "RR2",
    "RR 1": "RR1",
    "RR 2": "RR2",
    "SPY ON PLAYER": "SPY PLAYER",
    "SPY ON RAILROAD": "SPY RAILROAD",
    "SPY RR": "SPY RAILROAD",
    "MERGE RAILROADS": "MERGE",
}

# Railroad fields (§10.2): sheet name -> (RailroadOrders attribute, kind)
RR_FIELDS: dict[str, tuple[str, str]] = {
    "LEND": ("lend", "money"),  # A
    "REPAY PRESIDENT": ("repay_president", "money"),  # A
    "REPAY DEBT": ("repay_debt", "money"),  # B
    "TREASURY TO PRESIDENT": ("treasury_to_president", "count"),  # C2
    "TREASURY TO MARKET": ("treasury_to_market", "count"),  # C3
    "CAPITAL": ("capital_per_mile", "money"),  # D
    "BUILD": ("build_per_mile", "money_or_blank"),  # E
    "ABANDON": ("abandon", "flag"),  # E3
    "DOUBLE TRACK": ("double_track", "codes"),  # §4.15
    "RATE WAR": ("rate_wars", "ratewars"),  # §4.16
    "LOCOMOTIVE": ("locomotive", "int_or_blank"),  # §4.17
    "TECHNOLOGY": ("technology", "letter"),  # §4.18
    "POLITICAL": ("political", "money"),  # F
    "ROW 1": ("row_first", "code"),  # G
    "ROW 2": ("row_alternate", "code"),  # G
    "DIVIDEND": ("dividend", "int_or_blank"),  # H
}
RR_ALIASES = {
    "LEND TO RAILROAD": "LEND",
    "PRESIDENT LOAN": "LEND",
    "REPAY BANK": "REPAY DEBT",
    "TREASURY PRESIDENT": "TREASURY TO PRESIDENT",
    "TREASURY MARKET": "TREASURY TO MARKET",
    "CAPITAL IMPROVEMENT": "CAPITAL",
    "CAPITAL IMPROVEMENTS": "CAPITAL",
    "BUILD ROW": "BUILD",
    "DOUBLE": "DOUBLE TRACK",
    "RATEWAR": "RATE WAR",
    "LOCO": "LOCOMOTIVE",
    "ENGINE": "LOCOMOTIVE",
    "TECH": "TECHNOLOGY",
    "POLITICS": "POLITICAL",
    "POLITICAL INFLUENCE": "POLITICAL",
    "ROW1": "ROW 1",
    "ROW": "ROW 1",
    "FIRST ROW": "ROW 1",
    "ROW 2": "ROW 2",
    "ROW2": "ROW 2",
    "ALTERNATE ROW": "ROW 2",
    "DIVIDENDS": "DIVIDEND",
}
FREE_TEXT = {"MESSAGE", "CHARACTER"}  # '#' is part of the text on these lines
BLANK_WORDS = {"", "-", "--", "NONE", "N/A", "NA", "NIL", "BLANK", "UNCHANGED", "SAME"}


def normalize_key(text: str) -> str:
    """Upper case, single spaces, no stray punctuation around: ``' Spy  player'`` -> ``'SPY PLAYER'``."""
    return " ".join(text.upper().replace("\t", " ").split())


def field_name(key: str) -> str:
    """The PDF form field name for a sheet key ('.' separates field levels in PDF, so it is escaped)."""
    return key.replace("%", "%25").replace(".", "%2E")


def key_from_field(name: str) -> str:
    return name.replace("%2E", ".").replace("%25", "%")

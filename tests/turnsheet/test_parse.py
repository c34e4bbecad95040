"""The text parser (§10): what players write becomes orders or precise problems, never an exception."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.cr.orders import Orders, PCAction, PCBid, RateWar, StockOrder
from pbm.turnsheet.parse import parse_text
from pbm.turnsheet.text import format_orders

HEAD = "GAME: cr-7\nPLAYER: 3\nTURN: 2\nCODE: abc234\nSECRET: K7QM-2XRP-HW4T\n"


def test_header_and_personal_orders():
    r = parse_text("Dear moderator, my orders:\n\n" + HEAD + """
borrow: $1,200
Repay 100
PC NY1: sell 600
BID PA1: 500 2
bid pa2: 300
STOCK 1: buy 10 b&o
stock 2: SELL 5 erie   # a comment
RR1: B&O
MERGE: ERIE into B&O
SPY PLAYER: 4
spy railroad: prr
PRODIGAL: 1000
""")
    h = r.header
    assert (h.game, h.player, h.turn, h.code, h.secret) == ("cr-7", 3, 2, "ABC234", "K7QM-2XRP-HW4T")
    o = r.orders
    assert r.problems == []
    assert (o.borrow, o.repay, o.prodigal) == (1200, 100, 1000)
    assert o.pc_actions == [PCAction(pc="NY1", action="sell", price=600)]
    assert o.pc_bids == [PCBid(pc="PA2", amount=300, sequence=1), PCBid(pc="PA1", amount=500, sequence=2)]
    assert o.stock == [StockOrder("B&O", "buy", 10, 1), StockOrder("ERIE", "sell", 5, 2)]
    assert o.control == ["B&O", None]  # §10.1D: RR2 blank = unchanged
    assert o.merge == ("ERIE", "B&O")
    assert (o.spy_player, o.spy_railroad) == (4, "PRR")


def test_blank_sheet_is_standing_orders():
    """§10.1D, §10.2H: blank control and dividend lines mean unchanged (None), nothing else is ordered."""
    r = parse_text(HEAD + "BORROW:\nRR1:\nRR2:\nB&O DIVIDEND:\nB&O BUILD:\nSTOCK 1:\nMESSAGE:\n")
    assert r.found and r.problems == []
    assert r.orders == Orders()


def test_railroad_block_by_code_and_number():
    r = parse_text(HEAD + "B&O BUILD: 300\nb&o abandon: x\n1 dividend: 5\nB&O rate war: ERIE 25%, PRR 10\n"
                          "B&O technology: a\nB&O ROW 1: ny2\nB&O double track: B&O\nB&O Repay Debt: 50\n")
    assert r.problems == []
    by = {x.railroad: x for x in r.orders.railroads}
    assert by["1"].dividend == 5  # numbers are resolved against the game later (§10)
    bo = by["B&O"]
    assert (bo.build_per_mile, bo.abandon, bo.technology, bo.row_first, bo.repay_debt) == (300, True, "A", "NY2", 50)
    assert bo.rate_wars == [RateWar("ERIE", 25), RateWar("PRR", 10)]
    assert bo.double_track == ["B&O"]


def test_problems_carry_line_what_and_allowed():
    r = parse_text(HEAD + "stock 9: buy 1 X\nB&O TECHNOLOGY: Q\nfoo bar\nblah: 3\nBORROW: -5\nBORROW: lots\n"
                          "STOCK 2: buy ERIE\nPC NY1: keep it\nSPY PLAYER: 22\n")
    got = {(p.line, p.where): (p.message, p.allowed) for p in r.problems}
    assert got[(6, "stock 9")] == ("there is no stock line 9", "STOCK 1 to STOCK 6 (§10.1C2)")
    assert "not a technology letter" in got[(7, "B&O technology")][0]
    assert got[(7, "B&O technology")][1] == "one letter A-J (§4.18)"
    assert got[(8, "sheet")][0] == "not an order line: 'foo bar'"
    assert got[(9, "sheet")][0] == "unknown order 'BLAH'"
    assert got[(10, "borrow")][0] == "'-5' is negative"
    assert "not an amount" in got[(11, "borrow")][0]
    assert "lacks a number of shares" in got[(12, "stock 2")][0]
    assert "is not a PC order" in got[(13, "PC NY1")][0]
    assert got[(14, "spy player")] == ("there is no player 22", "a player number 1-15 (§3.1)")


def test_message_keeps_hash_and_is_cut_at_80():
    """§10.1G: one line of 80 characters; a longer one is 'arbitrarily shortened'."""
    r = parse_text(HEAD + "MESSAGE: Beware # of Gould! " + "x" * 90 + "\n")
    assert r.orders.message.startswith("Beware # of Gould!")
    assert len(r.orders.message) == 80
    (p,) = r.problems
    assert p.adjusted and p.line == 6 and "shortened to the first 80" in p.message


def test_twice_given_later_counts():
    r = parse_text(HEAD + "BORROW: 100\nBORROW: 200\n")
    assert r.orders.borrow == 200
    assert r.problems[0].line == 7 and "also on line 6" in r.problems[0].message


def test_quoted_reply_and_signature():
    quoted = "".join("> " + line + "\n" for line in (HEAD + "BORROW: 700\n").splitlines())
    r = parse_text("Here you go\n" + quoted + "-- \nAda\nBORROW: 5\n")
    assert r.found and r.orders.borrow == 700 and r.problems == []
    # an unquoted sheet wins; quoted lines are then ignored
    r = parse_text(HEAD + "BORROW: 10\n> BORROW: 999\n")
    assert r.orders.borrow == 10


def test_no_colon_forms():
    r = parse_text(HEAD + "borrow 500\nB&O repay debt 100\nstock 1 buy 5 B&O\n")
    assert r.problems == []
    assert r.orders.borrow == 500 and r.orders.railroads[0].repay_debt == 100 and r.orders.stock[0].shares == 5


def test_second_sheet_in_one_message_is_not_read():
    r = parse_text(HEAD + "BORROW: 1\n" + HEAD + "BORROW: 2\n")
    assert r.orders.borrow == 1
    assert any("second sheet" in p.message for p in r.problems)


def test_echo_reads_back_to_the_same_orders():
    r = parse_text(HEAD + "borrow: 10\nPC NY1: incorporate president\nBID PA1: 500\nSTOCK 3: short 4 ERIE\n"
                          "RR2: ERIE\nRESIGN: PRR\nMESSAGE: hi # there\nCHARACTER: Jay <b>Cooke</b>\n"
                          "B&O BUILD: 250\nB&O LOCOMOTIVE: 2\nB&O DIVIDEND: 0\nB&O RATE WAR: ERIE 5\n")
    assert r.problems == []
    again = parse_text(HEAD + "\n".join(format_orders(r.orders)) + "\n")
    assert again.problems == []
    assert again.orders == r.orders


def test_not_a_sheet():
    r = parse_text("Hi, can I join the game?\nThanks\n")
    assert not r.found and r.problems == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_fuzz_any_text_gives_orders_or_problems(text):
    r = parse_text(HEAD + text)
    assert isinstance(r.orders, Orders)
    for p in r.problems:
        assert p.message and (p.line is None or 1 <= p.line)
        assert "could not be read" not in p.message  # no internal error was caught
    Orders.from_dict(r.orders.to_dict())  # storable


_WORDS = st.sampled_from(["BORROW", "REPAY", "PC NY1", "BID PA1", "STOCK 1", "STOCK 7", "RR1", "MERGE", "SPY",
                          "MESSAGE", "B&O BUILD", "B&O ABANDON", "1 DIVIDEND", "B&O RATE WAR", "GAME", "TURN",
                          "PLAYER", "B&O TECHNOLOGY", "CHARACTER", "END", "#", ">", "--"])
_VALUES = st.one_of(st.integers(-10**15, 10**15).map(str), st.text(max_size=30),
                    st.sampled_from(["buy 10 B&O", "sell", "SELL 500", "MERGE ERIE", "ERIE INTO B&O", "x", "$1,0",
                                     "ERIE 25%", "INCORPORATE PRESIDENT", "1e9", "٣", "¹²"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_WORDS, st.sampled_from([": ", " ", ":"]), _VALUES), max_size=25))
def test_fuzz_sheet_shaped_text(lines):
    text = HEAD + "\n".join(f"{k}{sep}{v}" for k, sep, v in lines)
    r = parse_text(text)
    assert isinstance(r.orders, Orders)
    assert all(p.line is not None for p in r.problems)
    assert not any("could not be read" in p.message for p in r.problems)  # no internal error was caught
    Orders.from_dict(r.orders.to_dict())


def test_top_posted_orders_above_the_original_message_are_read():
    """Issue 18 item 4: Outlook puts the reply on top and the sheet below
    "-----Original Message-----": the orders above are read with the quoted header."""
    mail = ("BORROW: 300\nSTOCK 1: buy 2 B&O\n\nThanks, Ada\n\n-----Original Message-----\n"
            "From: pbm <pbm@example.org>\nSent: Sunday\n\n" + HEAD + "BORROW:\nSTOCK 1:\n")
    r = parse_text(mail)
    assert r.found and r.orders.borrow == 300
    assert r.header.lines["GAME"] > 5  # the header lines keep their own line numbers
    r = parse_text("BORROW: 40\n\nOn Sun, 22 Nov 2026 at 17:00, pbm <pbm@example.org> wrote:\n"
                   + "".join("> " + ln + "\n" for ln in (HEAD + "BORROW:\n").splitlines()))
    assert r.found and r.orders.borrow == 40


def test_a_reply_with_nothing_above_the_quote_reads_the_sheet_below():
    r = parse_text("\n-----Original Message-----\n" + HEAD + "BORROW: 70\n")
    assert r.found and r.orders.borrow == 70

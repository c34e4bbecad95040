"""Continental Rails II rules of the order validator that mutation testing of its last 452
mutants found untested (issue 31, part 2: ``pbm/cr/validate.py``, session 16, helper mut2).

Each test pins what a tycoon is told about one order (where the problem is, its reason, the
order kept) so that changing the rule in the validator makes it fail; each names its rule
section of the rulebook.  ``scripts/mutation_cr_hand.py`` reruns the mutation tests; the scores
and the equivalent mutants that survive are in docs/cr/rules-map.md, "Mutation testing".  All on
the small hand-built state of ``tests/cr/orders_helpers.py`` (SQLite), each well under a second.
"""

from __future__ import annotations

from pbm.cr.orders import Orders
from tests.cr.test_mutation_rules7 import v  # noqa: F401  (the validator fixture on the small state)


def _refused(problems):
    return [(p.where, p.message) for p in problems if p.refused]


# --------------------------------------------------------------------------- §10.1D control
def test_a_control_slot_may_name_a_bankrupt_road_and_a_refused_slot_leaves_the_next_10_1d1(v):
    """§10.1D1: a control slot names an active railroad, or a bankrupt one (it still has a
    President to seek).  A slot naming no railroad is refused at its own line (``control slot
    1``) with its reason, and the next slot (bankrupt PENN, where tycoon 3 is a Director) is still
    checked and kept."""
    v.s.railroads["PENN"].status = "bankrupt"
    v.session.flush()
    out, problems = v(Orders(control=["ZZ", "PENN"]), player=3)
    assert out.control == [None, "PENN"]
    assert _refused(problems) == [
        ("control slot 1", "ZZ is neither an active railroad nor a PC you incorporate this turn (§10.1D1/2)")]


def test_the_same_road_in_both_slots_is_refused_at_the_second_slot_10_1d1(v):
    """§10.1D1: two slots naming one road: the second is refused where it is (``control slot
    2``), the first kept."""
    out, problems = v(Orders(control=["NYC", "NYC"]), player=1)
    assert out.control == ["NYC", None]
    assert _refused(problems) == [("control slot 2", "NYC is already in your other slot")]


def test_a_slot_naming_a_road_resigned_is_refused_and_the_next_slot_still_counts_10_1d_10_1e(v):
    """§10.1D: a tycoon who resigns the presidency of a road this turn cannot also seek to control
    it; that slot is refused at its line and his other slot (NYC) is still kept."""
    out, problems = v(Orders(resign=["BA"], control=["BA", "NYC"]), player=1)
    assert out.resign == ["BA"] and out.control == [None, "NYC"]
    assert _refused(problems) == [
        ("control slot 1", "you resign from BA this turn; you cannot also seek to control it")]


def test_only_a_buy_order_for_the_road_itself_spares_the_director_warning_10_1d3(v):
    """§10.1D3: a tycoon seeking control of a road he is not a Director of (tycoon 2 owns 4 % of
    NYC) is warned he must own 10 % of its issued stock (100 of 1,000 shares) by the end of the
    turn, unless he buys its shares this turn: a buy order for another road (BA) or a sale of
    the road's own shares does not spare the warning."""
    from pbm.cr.orders import StockOrder

    warning = ("control slot 1", "you are not a Director of NYC: you must own 10 % of its issued stock (100 shares) "
               "by the end of the turn (§10.1D3)")
    for stock in ([StockOrder("BA", "buy", 1, 1)], [StockOrder("NYC", "sell", 10, 1)]):
        out, problems = v(Orders(stock=stock, control=["NYC", None]), player=2)
        assert out.control == ["NYC", None]
        assert [(p.where, p.message) for p in problems if p.where.startswith("control")] == [warning]
    out, problems = v(Orders(stock=[StockOrder("NYC", "buy", 60, 1)], control=["NYC", None]), player=2)
    assert [p for p in problems if p.where.startswith("control")] == []


# --------------------------------------------------------------------------- §4.14C railroad orders
def test_orders_for_a_road_not_presided_are_refused_and_the_next_roads_orders_still_count_4_14c(v):
    """§4.14C: only the President gives a road's orders.  Tycoon 1's orders for PENN (presided by
    tycoon 2) are refused at ``PENN orders``, naming the roads he does preside, and his orders for
    NYC that follow are still checked and kept."""
    from pbm.cr.orders import RailroadOrders

    out, problems = v(Orders(railroads=[RailroadOrders("PENN", dividend=1), RailroadOrders("NYC", dividend=2)]),
                      player=1)
    assert [(ro.railroad, ro.dividend) for ro in out.railroads] == [("NYC", 2)]
    assert [(p.where, p.message, p.allowed) for p in problems if p.refused] == [
        ("PENN orders", "you are not President of PENN at the start of the turn; only the President gives its "
         "orders (§4.14C)", "NYC, BA")]


# --------------------------------------------------------------------------- §10.1E merge
def test_merge_refusals_and_the_parallel_warning_are_told_at_the_merge_line_10_1e_4_13a3(v):
    """§10.1E: an unknown road, a merger into a bankrupt road (§10.1E2) and the warning that
    parallel routes will be deleted (§4.13A3: NYC's HRL and BA's NY1) are each told at the
    turnsheet's ``merge`` line, exactly, with the routes named."""
    from tests.cr.test_mutation_rules7 import _double_connection

    out, problems = v(Orders(merge=("QQ", "NYC")))
    assert out.merge is None
    assert [(p.where, p.message, p.refused) for p in problems] == [("merge", "QQ is not a railroad", True)]
    v.s.railroads["NYC"].status = "bankrupt"
    v.session.flush()
    out, problems = v(Orders(merge=("BA", "NYC")))
    assert out.merge is None
    assert [(p.where, p.refused) for p in problems] == [("merge", True)]
    assert problems[0].message.startswith("BA cannot merge into NYC: ")
    v.s.railroads["NYC"].status = "active"
    v.session.flush()
    _double_connection(v)
    out, problems = v(Orders(merge=("BA", "NYC")))
    assert out.merge == ("BA", "NYC")
    assert [(p.where, p.message, p.warning) for p in problems] == [
        ("merge", "parallel routes: NY1 will be deleted from the merged railroad (§4.13A3)", True)]


# --------------------------------------------------------------------------- §6.1C stock cash preview
def test_the_stock_cash_warning_is_exact_with_and_without_pc_bids_and_from_0_with_no_cash_6_1c(v):
    """§6.1C, Appendix A 6.1: stock orders are checked against the cash at the start of the stock
    market, here the worst case (every PC bid won).  The warning's sentence names the PC bids only
    when there are some; a tycoon with no cash at all is checked from $0 (not $1): with B&A at $1
    a share he could buy none, and the warning says so."""
    from pbm.cr.orders import PCBid, StockOrder

    v.s.players[3].cash = 1000
    out, problems = v(Orders(stock=[StockOrder("BA", "buy", 150, 1)]), player=3)
    assert [(p.where, p.message, p.allowed) for p in problems] == [
        ("stock 1 buy BA", "150 shares at the start price $10 need more cash and credit than you will have "
         "($1,000 before stock trades); order checking would cut it to 100 (§6.1C)", "100 shares")]
    v.s.players[3].cash = 2000
    out, problems = v(Orders(pc_bids=[PCBid("LS", 1500, 1)], stock=[StockOrder("BA", "buy", 150, 1)]), player=3)
    assert [(p.where, p.message, p.allowed) for p in problems if p.where.startswith("stock")] == [
        ("stock 1 buy BA", "150 shares at the start price $10 need more cash and credit than you will have if all "
         "your PC bids win ($500 before stock trades); order checking would cut it to 50 (§6.1C)", "50 shares")]
    v.s.players[3].cash = 0
    v.s.railroads["BA"].price = 1.0
    v.session.flush()
    out, problems = v(Orders(stock=[StockOrder("BA", "buy", 5, 1)]), player=3)
    assert [(p.where, p.allowed) for p in problems if p.where.startswith("stock")] == [("stock 1 buy BA", "0 shares")]


# --------------------------------------------------------------------------- §1.2 prodigal
def test_prodigal_refusals_and_warning_are_told_exactly_at_the_prodigal_line_1_2(v):
    """§1.2 Rail Prodigal: a negative amount is refused (spent: $0), less than $1,000 buys no
    points and is refused saying what is allowed, more than the cash before the stock market
    ($2,000 here) is only warned of (paid at Appendix A 7.2); each at the turnsheet's ``prodigal``
    line, with its exact sentence."""
    out, problems = v(Orders(prodigal=-5))
    assert out.prodigal == 0
    assert [(p.where, p.message, p.refused) for p in problems] == [("prodigal", "spending cannot be negative", True)]
    out, problems = v(Orders(prodigal=999))
    assert out.prodigal == 0
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("prodigal", "$999 buys no Prodigal points: at least $1,000 must be spent (§1.2); nothing is spent",
         "0, or $1,000 or more", True)]
    out, problems = v(Orders(prodigal=1))  # $1 too buys nothing
    assert out.prodigal == 0 and [(p.where, p.refused) for p in problems] == [("prodigal", True)]
    out, problems = v(Orders(prodigal=2001))
    assert out.prodigal == 2001
    assert [(p.where, p.message, p.warning) for p in problems] == [
        ("prodigal", "$2,001 is more than the $2,000 you have before stock trading; it is paid after the stock "
         "market (Appendix A 7.2) from the cash you have then", True)]
    v.s.players[1].cash = 0  # no cash: the warning says $0, not $1
    v.session.flush()
    out, problems = v(Orders(prodigal=1000))
    assert out.prodigal == 1000 and [p.message for p in problems] == [
        "$1,000 is more than the $0 you have before stock trading; it is paid after the stock market (Appendix A 7.2) "
        "from the cash you have then"]


# --------------------------------------------------------------------------- §10.1F spy
def test_spy_refusals_and_warning_are_told_exactly_at_the_spy_line_and_a_bankrupt_road_may_be_spied_10_1f(v):
    """§10.1F: a tycoon spies on one other player, by number (1–3 here), and one active or
    bankrupt road.  No player 4, himself, and a road merged away are each refused at the ``spy``
    line with the exact reason; a road he presides is only warned of (he sees its shareholders
    anyway); bankrupt PENN may be spied on."""
    out, problems = v(Orders(spy_player=4))
    assert out.spy_player is None
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("spy", "there is no player 4; give a player number (§3.1, §10.1F)", "1–3", True)]
    out, problems = v(Orders(spy_player=1))
    assert out.spy_player is None
    assert [(p.where, p.message, p.allowed, p.refused) for p in problems] == [
        ("spy", "you cannot spy on yourself", "", True)]  # a refusal names nothing allowed unless it says so
    v.s.railroads["PENN"].status = "bankrupt"
    v.s.railroads["BA"].status = "merged"
    v.session.flush()
    out, problems = v(Orders(spy_player=2, spy_railroad="penn"))
    assert (out.spy_player, out.spy_railroad, problems) == (2, "PENN", [])
    out, problems = v(Orders(spy_railroad="BA"))
    assert out.spy_railroad is None
    assert [(p.where, p.message, p.refused) for p in problems] == [("spy", "BA is not an active railroad", True)]
    out, problems = v(Orders(spy_railroad="nyc"))
    assert out.spy_railroad == "NYC"
    assert [(p.where, p.message, p.warning) for p in problems] == [
        ("spy", "you preside NYC and see its shareholders anyway (§10.1F)", True)]


# --------------------------------------------------------------------------- §3.2 character, §10.1G message
def test_character_refusals_are_told_exactly_at_the_character_line_3_2(v):
    """§3.2: a character name only on the first turn (or after going bankrupt), at most 40
    characters, not another tycoon's (whatever its case): each refused at the turnsheet's
    ``character`` line with its exact reason, and no name is taken."""
    out, problems = v(Orders(character="Zed"))  # turn 2, never bankrupt
    assert out.character is None
    assert [(p.where, p.message, p.refused) for p in problems] == [
        ("character", "you may choose a character name only before the game, on the first turn, or after going "
         "bankrupt (§3.2)", True)]
    v.s.game.turn = 1
    v.session.flush()
    out, problems = v(Orders(character="x" * 41))
    assert out.character is None
    assert [(p.where, p.message, p.refused) for p in problems] == [
        ("character", "a character name has at most 40 characters", True)]
    out, problems = v(Orders(character="tycoon  3"))
    assert out.character is None
    assert [(p.where, p.message, p.refused) for p in problems] == [
        ("character", "'tycoon 3' is another tycoon's character (§3.2)", True)]


def test_a_long_message_is_shortened_saying_its_length_at_the_message_line_10_1g(v):
    """§10.1G: a message of more than 80 characters is cut to 80, told at the ``message`` line
    with its length and what is allowed."""
    out, problems = v(Orders(message="m" * 100))
    assert out.message == "m" * 80
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("message", "the message has 100 characters; shortened to 80 (§10.1G)", "80 characters", True)]


# --------------------------------------------------------------------------- §10.1A loans
def test_borrowing_and_repaying_together_is_netted_naming_nothing_else_allowed_10_1a(v):
    """§10.1A: a tycoon does not both borrow and repay in one turn; the two are netted (here $1,000
    and $300: borrowing $700), told at the ``loan`` line, with no other amount offered."""
    out, problems = v(Orders(borrow=1000, repay=300))
    assert (out.borrow, out.repay) == (700, 0)
    assert [(p.where, p.message, p.allowed, p.adjusted) for p in problems] == [
        ("loan", "you cannot both borrow ($1,000) and repay ($300) in one turn; taken as borrowing $700", "", True)]


# --------------------------------------------------------------------------- §3.2 bankrupt last turn
def test_a_bankruptcy_in_another_game_gives_no_new_character_name_3_2(v):
    """§3.2: only a tycoon who went bankrupt last turn in this game may pick a new name: tycoon 2's
    bankruptcy in another game, the same turn, does not count (refused at ``character``)."""
    from pbm.cr.validate import recently_bankrupt, validate
    from pbm.models import Event
    from tests.cr.orders_helpers import build_small

    other = build_small(v.session, seed=8)
    v.session.add(Event(game_id=other.game.id, turn=other.game.turn - 1, seq=1, step="14.3", kind="player_bankrupt",
                        player_number=2))
    v.session.flush()
    assert recently_bankrupt(v.session, other.game) == {2} and recently_bankrupt(v.session, v.s.game) == set()
    out, problems = validate(v.session, v.s.game, v.s.players[2], Orders(character="Jay Gould"))
    assert out.character is None and [(p.where, p.refused) for p in problems] == [("character", True)]


def test_resigning_a_road_when_presiding_none_says_none_is_allowed_10_1d(v):
    """§10.1D: a tycoon resigns only a road he presides; tycoon 3 presides none, and is told so."""
    out, problems = v(Orders(resign=["NYC"]), player=3)
    assert out.resign == []
    assert [(p.where, p.message, p.allowed) for p in problems] == [("resign NYC", "you are not President of NYC", "none")]

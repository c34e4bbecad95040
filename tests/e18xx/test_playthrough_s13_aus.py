"""Play-through by mail s13 of 1848 (issue 29 acceptance, verification round; seed 133, Ann, Bob,
Cy, Di, every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/aus-s13.jsonl holds the game, 668 actions, to the bank breaking; 217 mails,
104 company turns, 96 of them in one mail)."""
from types import SimpleNamespace

from pbm.e18xx.pbem.moves import format_action, parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s13 game after its first ``upto`` actions."""
    return playthrough_game("aus", upto, seed=133, suffix="-s13", players=4)


mail, refusal = intent_mail, intent_refusal


def _moves(line: str) -> list[str]:
    return [format_action(m) if hasattr(m, "type") else type(m).__name__ for m in parse_moves(line, "Bob")]


def test_the_directors_share_bought_at_a_price_starts_the_company():
    """Stock round 1 (finding F1, mail #13): 'buy the VR director's share at 80' - 12.3.1: "the 20%
    Director's Share Certificate can be bought. The purchaser sets the company's starting share
    price" - was refused "say 'ipo' or 'market' ...". It is 'par VR 80'."""
    g = game(9)
    assert g.current_entity() == "Bob"
    made, _ = mail(g, "buy the VR director's share at 80")
    assert made == ["par VR 80"]
    for line in ("buy VR director's share for 80", "buy the director's share of VR at 80",
                 "buy VR's Director's Share Certificate at 80"):
        assert _moves(line) == ["par VR 80"], line


def test_the_bank_of_england_by_its_name():
    """Stock round 2 (finding F2, mails #41 and #67): 'buy a Bank of England share' (12.3.3 "Buying
    Shares in the Bank of England") was refused "say 'ipo' or 'market' ..."; 'sell my Bank of
    England share' "count must be a whole number, not 'my'". The company's name is BOE."""
    g = game(45)
    assert g.current_entity() == "Cy"
    made, _ = mail(g, "buy a Bank of England share")
    assert made == ["buy BOE market"]
    assert _moves("sell my Bank of England share") == ["sell 1 BOE"]
    assert _moves("sell 1 Bank of England") == ["sell 1 BOE"]


def test_the_tasmania_tile_is_the_privates_lay_without_with():
    """VR, OR 3.1 (finding F3, mail #85): after its upgrade of H9, 'lay 241 I10 1' - 4.4: the
    Tasmania tile is placed "in addition to the company's normal build" and 10.2 "can only be laid
    by the owner of the corresponding Private Company" - was refused "VR has upgraded a tile this
    turn ... no other tile may follow it"; 'lay 241 I10 1 with P3' was taken. Tile 241 is P3's."""
    g = game(154)
    assert g.current_entity() == "VR"
    made, _ = mail(g, "lay 241 I10 1")
    assert made[0] == "lay 241 I10 1 with P3"


def test_the_ghan_is_the_2e_train():
    """SAR, OR 4.2 (finding F4, mail #122): 'buy The Ghan' (4.5, 8.2.5: the 2E train is "The
    Ghan") was refused "move 3 (buy Ghan ipo): Di may not buy a share now"."""
    g = game(302)
    assert g.current_entity() == "SAR"
    made, _ = mail(g, "run auto\npayout\nbuy The Ghan")
    assert "buy train 2E with P4" in made
    for line in ("buy the Ghan train", "buy a Ghan", "buy The Ghan 2E train"):
        assert _moves(line) == ["buy train 2E"], line


def test_more_loans_for_a_train_the_company_must_buy_are_taken_with_it():
    """COM, OR 5.2 (finding F5, mail #155): 8.4.1 - the company "may/must raise the money by taking
    out loans until either it has enough cash ... or its share price falls into the receivership
    part" - written 'take loan / take loan / buy train 8' was refused "move 2 (take loan): COM must
    first 'Buy trains' ... may not be skipped"; 'buy train 8' alone took the loans. The second loan
    is the purchase's: ignored with a note, the purchase takes what it needs."""
    g = game(413)
    assert g.current_entity() == "COM"
    made, notes = mail(g, "take loan\ntake loan\nbuy train 8")
    assert made[:1] == ["take loan"] and "buy train 8" in made
    assert "taken with the purchase" in notes and "8.4.1" in notes
    assert g.state.corporations["COM"].receivership


def test_a_mail_after_the_company_fell_into_receivership_is_not_refused():
    """FT, OR 5.1 (finding F6, mail #150): 'take loan / take loan / buy train 8' - its first loan
    put FT into receivership (5.5.1), and 8.4.2 says the purchase "is not made" - was refused
    "move 2 (take loan): FT's turn ended by itself after 'take loan', so this move would be CAR's
    ...", not saying why. The rest of the mail is FT's: ignored with a note naming receivership."""
    g = game(398)
    assert g.current_entity() == "FT"
    made, notes = mail(g, "take loan\ntake loan\nbuy train 8")
    assert made == ["take loan"]
    assert g.state.corporations["FT"].receivership and g.current_entity() == "CAR"
    assert "receivership" in notes and "ignored" in notes


def test_an_offer_at_the_end_of_a_mail_ends_the_turn_once_agreed(tmp_path):
    """VR, OR 3.1 (finding F7, mails #83, #84, #86): 'lay 15 H9 1 / run ... / payout / buy the 3
    train from SAR for 200' made an offer to Di; her 'accept 3-0' made the sale, but VR's turn stayed
    open, so Bob needed a third mail to end it - while the end of a mail ends the turn (as if
    'done'), and 8.3.4 puts a train bought from another company at the end of the turn anyway."""
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import answer_offer, apply
    from pbm.models import Game

    from .db_games import stored_playthrough

    url = stored_playthrough(tmp_path, "aus", 149, seed=133, suffix="-s13", players=4, name="aus-v")
    with session_scope(url) as s:
        row = s.scalar(select(Game).where(Game.name == "aus-v"))
        out = apply(s, row, 2, "lay 15 H9 1\nrun 3 G10-0 H11 H9\npayout\nbuy the 3 train from SAR for 200\n")
        assert out.accepted and out.offer is not None, out.error
        assert out.offer.get("rest") == ["done"] and out.offer.get("ends_turn")
        out, _ = answer_offer(s, row, 4, "accept 3-0")
        assert out.accepted
        assert out.game.current_entity() == "NSW"


def test_an_offer_names_the_titles_money():
    """The same offer (finding F8, mails #83, #84): "VR offers Di $200 for SAR's 3 train", "SALE
    AGREED: ... for $200" - 1848's money is the pound (the state mail: "every amount is in £")."""
    from pbm.e18xx.pbem import mailplay

    row = SimpleNamespace(title="1848")
    offer = {"kind": "train", "buyer": 2, "buyer_name": "Bob", "entity": "VR", "company": "3-0",
             "seller": "SAR", "price": 200, "owner": "Di", "owner_seat": 4}
    texts = [mailplay._offer_note_only(offer, row), mailplay._offer_note_owner(offer, row),
             mailplay._offer_note_others(offer, row), mailplay._answer_note(offer, True, row),
             mailplay._answer_note(offer, False, row)]
    for text in texts:
        assert "£200" in text and "$" not in text, text
    # the owner's state mail names the train by its type, as the buyer's and the owner's own mail do
    # (finding F12: "offers you $200 for train 3-0 of your company SAR ... accept 3-0")
    assert "accept 3\n" in texts[1] and "3-0" not in texts[1]


def test_a_bank_of_england_share_is_listed_from_its_charter():
    """Stock round 2 (finding F9, mail #41's list): "buy BOE market   # 10% share for £70 from the
    Bank Pool", while the state says "BOE ... on its charter 100%" and 12.4.2 returns its
    certificates "to the Bank of England charter - not to the Bank Pool" (the event said so)."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.movelist import say

    g = game(45)
    line = next(say(g, a) for a in g.legal_actions() if isinstance(a, A.BuyShares) and a.shares == ("BOE_0",))
    assert line.endswith("from the Bank of England charter"), line


def test_what_happened_names_a_plus_train_as_bought():
    """VR, OR 2.1 (finding F10, mail #49's receipt): "What happened: #64 Bob: run 2 H11 G10-0; 2
    H11 H9" for VR's 2+ and 2 trains, while the event said "VR's 2+ train runs ..." and the next
    mails' last moves "run 2+ H11 G10-0; 2 H11 H9"."""
    from pbm.e18xx.pbem.mailplay import happened_words

    g = game(64)
    assert happened_words(g, g.actions[-1]) == "run 2+ H11 G10-0; 2 H11 H9"


def test_the_turn_outline_names_the_owner_of_another_companys_train():
    """QR, OR 3.1 (finding F11, mail #90's list): "This turn: ... buy trains (2E for £200; 3 for
    £200; 4 for £300; 5 for £330)" - other companies' trains as if the bank's, with no owner, and a
    price (£330) that is neither WA's 5's face value nor a rule's. They name their owner and the
    price 8.3.4 sets: face value from another president's company, £1 or more from one's own."""
    from pbm.e18xx.pbem.intent import turn_outline

    line = turn_outline(game(175))[0]
    assert "3 from VR, CAR or SAR for £200" in line and "5 from WA for £1 or more" in line, line
    assert "£330" not in line and line.count("buy trains") == 1


def test_a_share_refusal_names_where_1848s_shares_lie():
    """Stock round 1 (finding F1, mail #13's refusal): "say 'ipo' or 'market': 'ipo' for the Initial
    Offering (or the company's treasury), 'market' for the Open Market (or the pool)" - 18GA's
    words; 1848's new shares are in the Bank and sold ones in the Bank Pool (5.1.3, 5.1.4)."""
    import pytest

    from pbm.e18xx.pbem.moves import MoveError, title_examples

    with pytest.raises(MoveError) as err:
        parse_moves("buy VR at the counter", "Bob")
    why = title_examples(str(err.value), game(9))
    assert "'ipo' for the Bank, 'market' for the Bank Pool" in why and "Initial Offering" not in why


def test_the_ghan_bought_with_its_rebate_is_named_by_its_type():
    """SAR, OR 4.2 (finding F12, mail #123's events and last moves): "#307 SAR: buy train 2E-0 with
    P4 for £100 (£100 off)" - the engine's train id (issue 29 problem 6)."""
    from pbm.e18xx.pbem.moves import action_words

    g = game(307)
    assert action_words(g, g.actions[306], 307) == ("SAR", "buy train 2E with P4 for £100 (£100 off)")

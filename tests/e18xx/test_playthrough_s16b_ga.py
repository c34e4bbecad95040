"""Play-through by mail s16b of 18GA (issue 29; seed 231, three seats Ann, Bob, Cy, every seat
written from the rulebook and the mails alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/ga-s16b.jsonl holds the game, 71 actions, 8 company turns, to phase 3)."""
import pytest

from pbm.e18xx.pbem.moves import MoveError, parse_moves

from .helpers import intent_mail, playthrough_game


def game(upto: int):
    """The s16b game after its first ``upto`` actions."""
    return playthrough_game("ga", upto, seed=231, suffix="-s16b", players=3)


mail = intent_mail


def test_a_private_by_its_name_with_railroad_written_out():
    """The sale of the privates (mail 001): 'buy the Lexington Terminal Railroad' (3.1(a): "Buy the
    cheapest unsold Private Company"; Table III names it "Lexington Terminal RR") was refused "read
    'LTR' as the company and 'Railroad' as where the share comes from": 'RR' written out was not
    read, and the leftover word was taken for a share's source."""
    assert parse_moves("buy the Lexington Terminal Railroad", "Ann") == parse_moves("buy LTR", "Ann")
    assert parse_moves("bid 110 on the Ocilla Southern Railway", "Ann") == parse_moves("bid 110 OSR", "Ann")
    g = game(0)
    assert g.current_entity() == "Ann"
    made, _ = mail(g, "buy the Lexington Terminal Railroad")
    assert made == ["bid 20 LTR"], made


def test_a_private_name_ending_in_co_and_a_full_stop():
    """The sale of the privates (mail 005): 'buy the Midland Railroad Co.' (Table III "Midland
    Railroad Co.") was refused "read 'MRC' as the company and 'Co' as where the share comes from":
    the line's closing full stop is cut, and 'Co' no longer matched the name's 'Co.'."""
    assert parse_moves("buy the Midland Railroad Co.", "Ann") == parse_moves("buy MRC", "Ann")
    assert parse_moves("buy the Midland Railroad Co", "Ann") == parse_moves("buy MRC", "Ann")
    g = game(3)
    assert g.current_entity() == "Ann"
    made, _ = mail(g, "buy the Midland Railroad Co.")
    assert made == ["bid 40 MRC"], made


@pytest.mark.parametrize("upto, text, want", [
    (18, "Buy the last CoG share I need to float it", "buy CoG ipo"),  # mail 021, Bob
    (20, "buy one W&A share for $90 to float it", "buy W&A ipo"),  # mail 024, Ann
])
def test_a_share_bought_to_float_its_company(upto, text, want):
    """Stock round 1 (mails 021, 024): a share bought with why ('I need to float it', 'to float it';
    3.4: "A corporation 'floats' when 60% of its shares are no longer in the Initial Offering") was
    refused "read 'CoG' as the company and 'I need to float it' as where the share comes from". The
    why is the player's note, as a sale's 'to raise the money' already was."""
    g = game(upto)
    made, _ = mail(g, text)
    assert made[0] == want, made
    assert g.state.corporations[want.split()[1]].floated, want


def test_the_company_s_own_home_station():
    """W&A, OR 1.1 (mail 028): "place W&A's home station in D4-1, the city toward Rome" (4.2(a): "place
    a station token on its home city"; the mail's own words: "then 'token D4-<n>' puts W&A's home
    station in the city you choose") was refused "unknown move 'place'": the company's name in the
    possessive was not read, and the reply called 'place' unknown. The city's direction after it is a
    comment, as after a lay."""
    assert parse_moves("place W&A's home station in D4-1, the city toward Rome", "Ann") == \
        parse_moves("token D4-1", "Ann")
    with pytest.raises(MoveError) as err:  # 'place' not read: the reply says how a station is written
        parse_moves("place W&A home station in D4-1", "Ann")
    assert "unknown move" not in str(err.value) and "place a station in" in str(err.value), err.value
    g = game(23)
    assert g.current_entity() == "W&A"
    made, _ = mail(g, "lay tile 451a on D4 rotation 0\nplace W&A's home station in D4-1, the city toward Rome\n"
                      "buy a 2 train")
    assert made[:3] == ["lay 451a D4 0", "token D4-1", "buy train 2"], made


def test_the_other_train_without_its_type():
    """W&A, OR 3.1 (mail 046): 'run one 2 train Atlanta - Rome and the other Rome - Chattanooga'
    (4.2.3(j): several trains, no track shared) was refused "'ROME AND THE OTHER ROME' is not a
    stop": 'the other 2 train' was read, 'the other' alone was not."""
    two = parse_moves("run 2 Atlanta - Rome; 2 Rome - Chattanooga", "Ann")
    assert parse_moves("run one 2 train Atlanta - Rome and the other Rome - Chattanooga", "Ann") == two
    assert parse_moves("run the 2 trains Atlanta - Rome and another Rome - Chattanooga", "Ann") == two
    g = game(56)
    assert g.current_entity() == "W&A"
    made, _ = mail(g, "lay tile 8 on B2 rotation 3 (toward Chattanooga)\nrun one 2 train Atlanta - Rome and the "
                      "other Rome - Chattanooga\npay out\nbuy a 3 train")
    assert "run 2 ATLANTA ROME; 2 ROME CHATTANOOGA" in made and "payout" in made, made
    assert "buy train 3" in made, made


def test_the_first_stock_round_names_no_sale():
    """Stock round 1 (mail 026's reply, a wording defect that cost no mail): "Next: your turn in the
    stock round ("Sell shares, then buy one share or start a company (or buy then sell)" (18GA rule
    3.2-3.6))", though "No one may sell any certificates to the Bank during the first Stock Round of
    the game" (3.2(a)(1)) and the list below it rightly offered no sale."""
    g = game(21)
    assert g.current_entity() == "Cy"
    made, notes = mail(g, "buy a Georgia Railroad share from the Initial Offering")
    assert made == ["buy GA ipo"], made
    assert '"Buy one share or start a company (no shares are sold in the first stock round)"' in notes, notes
    assert "Sell shares" not in notes, notes

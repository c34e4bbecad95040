"""Play-through by mail s13w of 18AL (issue 29 acceptance, third verification round; seed 152, Ann,
Bob, Cy, every seat written from the rulebook alone): the findings, each with the mail that showed it
(tests/e18xx/playthrough/al-s13w.jsonl holds the game, 443 actions, to the bank breaking)."""
from pbm.e18xx.pbem.moves import parse_moves

from .helpers import intent_mail, intent_refusal, playthrough_game


def game(upto: int):
    """The s13w game after its first ``upto`` actions."""
    return playthrough_game("al", upto, seed=152, suffix="-s13w", players=3)


mail, refusal = intent_mail, intent_refusal


def bought(line: str, player: str = "Cy") -> list[tuple[str, int, str]]:
    """The private, price and named owner of a purchase line, as pbm reads it."""
    return [(m.move.company, m.move.price, m.owner) for m in parse_moves(line, player)]


def test_a_private_bought_by_its_rulebook_name():
    """ABC, OR 3.1 (finding F1, mail #61): 'buy the Memphis & Charleston from Ann for $100' - the
    private as Table III names it - was refused "say 'ipo' or 'market' ..." (read as a share, the
    reason about shares); 'buy M&C from Ann for $100' (mail #62) was then taken as the offer. The
    rulebook's name reads as the private's symbol, with or without its closing 'Railroad' or 'Co.'."""
    g = game(126)
    assert g.current_entity() == "ABC"
    assert g.state.companies["M&C"].owner == "P:Ann"
    assert bought("buy private M&C 100 from Ann") == [("M&C", 100, "Ann")]
    for line in ("buy the Memphis & Charleston from Ann for $100",
                 "buy the Memphis & Charleston Railroad from Ann for $100",
                 "buy Memphis & Charleston from Ann for 100"):
        assert bought(line) == [("M&C", 100, "Ann")], line
    assert bought("buy Brown & Sons Lumber Co. from Cy for $70") == [("BLC", 70, "Cy")]
    assert [m.company for m in parse_moves("bid $130 on New Decatur Yards", "Ann")] == ["NDY"]
    assert [m.corporation for m in parse_moves("buy L&N", "Ann")] == ["L&N"]

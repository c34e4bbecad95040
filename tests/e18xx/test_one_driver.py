"""One driver for a mail's moves (docs/18xx/engine.md, "E-mail moves"): a mail stored by
``games.apply`` and the same mail read by ``play_intent`` go through ``TurnWriter.move`` alike, so
they make the same actions with the same notes and reply with the same notes about the turn."""
import pytest

from pbm.e18xx.pbem.moves import format_action

from .db_games import stored_playthrough
from .helpers import playthrough_game

AT = {"18GA": ("ga", 87, 111, "-s12v", 3), "18VA": ("va", 79, 114, "-s12v", 3)}  # a company at its run
MAILS = [
    ("18GA", "run 2 D4 E7"),  # weaker routes: the best run instead, said
    ("18GA", "run auto\npayout"),  # the mail's end ends the turn (as if 'done')
    ("18GA", "run auto\npayout\nmore"),  # kept open
    ("18GA", "pass\npass\nrun auto\nwithhold\ndone"),
    ("18VA", "run 2 F7 F11\npay out\ndone"),
    ("18VA", "lay 9 Z99 0"),  # refused, in the same words
]
REFUSED = {"lay 9 Z99 0"}


def _stored(tmp_path, title: str, text: str):
    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.e18xx.pbem.games import apply
    from pbm.models import Game

    key, upto, seed, suffix, players = AT[title]
    url = stored_playthrough(tmp_path, key, upto, seed=seed, suffix=suffix, players=players)
    g = playthrough_game(key, upto, seed=seed, suffix=suffix, players=players)
    seat = {"Ann": 1, "Bob": 2, "Cy": 3}[g.controller(g.current_entity())]
    with session_scope(url) as s:
        out = apply(s, s.scalars(select(Game)).one(), seat, text)
        return out.accepted, out.error, [(format_action(a.action), a.note) for a in out.applied], out.notes


@pytest.mark.parametrize("title,text", MAILS)
def test_a_mail_stored_and_a_mail_read_take_one_path(tmp_path, title, text):
    from pbm.e18xx.core.errors import GameError
    from pbm.e18xx.pbem.intent import play_intent
    from pbm.e18xx.pbem.moves import parse_moves

    accepted, error, applied, notes = _stored(tmp_path, title, text)
    key, upto, seed, suffix, players = AT[title]
    g = playthrough_game(key, upto, seed=seed, suffix=suffix, players=players)
    player = g.controller(g.current_entity())
    try:
        made, said = play_intent(g, player, parse_moves(text, player))
    except GameError as exc:
        assert text in REFUSED and not accepted and error == str(exc)
        return
    assert text not in REFUSED and accepted, error
    assert applied == [(format_action(m.action), m.note) for m in made]
    assert notes == said

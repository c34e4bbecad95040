"""The start-of-turn view kept between the mailed sheets of one game (pbm.cr.keptview, issue 32): used again
only while the database proves no row of it changed; every way of changing the game between two sheets is
seen by the next one."""

from __future__ import annotations

import mailbox
import sqlite3
from datetime import timedelta

import pytest
from sqlalchemy import select, text, update

from pbm.clock import utcnow
from pbm.cr import keptview
from pbm.cr.queries import load_plain
from pbm.cr.setup import SeatRequest, create_game
from pbm.db import session_scope
from pbm.locks import lock_game
from pbm.models import Game, Player, Railroad


@pytest.fixture
def game_url(tmp_path):
    url = f"sqlite:///{tmp_path / 'pbm.db'}"
    seats = [SeatRequest(line=i + 2, name=f"Player {i + 1}", email=f"p{i + 1}@example.org") for i in range(4)]
    with session_scope(url) as s:
        created = create_game(s, seed=1841, name="kept", seats=seats)
        created.game.deadline = utcnow() + timedelta(days=7)
    yield url, dict(created.secrets)


def _view(url):
    """A sheet's check as the intake makes it: the game locked, then its view (and whether it is kept)."""
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == "kept"))
        lock_game(s, game)
        view, kept = keptview.start_of_turn_view(s, game)
        cash = {p.number: p.cash for p in view.players.values()}
        fresh = load_plain(s, game)
        same = {p.number: p.cash for p in fresh.players.values()} == cash and \
            {r.code: r.cash for r in fresh.railroads.values()} == {r.code: r.cash for r in view.railroads.values()}
        assert view.game is game and all(p.game is game for p in view.players.values())
        return view, kept, cash, same


def _player_cash(url, number):
    with session_scope(url) as s:
        return s.scalar(select(Player.cash).join(Game).where(Game.name == "kept", Player.number == number))


def test_the_view_is_read_once_while_nothing_changes(game_url):
    url, _ = game_url
    first, kept, _, same = _view(url)
    assert kept and same
    for _ in range(3):
        again, kept, _, same = _view(url)
        assert again is first and kept and same


def _changes(url):
    """Each way a row of the view can change between two sheets, with the player whose cash it sets."""
    def orm(number, cash):
        with session_scope(url) as s:  # a moderator's fix in the same process
            p = s.scalar(select(Player).join(Game).where(Game.name == "kept", Player.number == number))
            p.cash = cash

    def core(number, cash):
        with session_scope(url) as s:
            gid = s.scalar(select(Game.id).where(Game.name == "kept"))
            s.execute(update(Player).where(Player.game_id == gid, Player.number == number).values(cash=cash))

    def driver_sql(number, cash):
        with session_scope(url) as s:
            s.connection().exec_driver_sql(f"UPDATE players SET cash = {cash} WHERE number = {number}")

    def text_sql(number, cash):
        with session_scope(url) as s:
            s.execute(text("UPDATE players SET cash = :c WHERE number = :n"), {"c": cash, "n": number})

    def raw_dbapi(number, cash):  # the same connection, behind SQLAlchemy's back
        with session_scope(url) as s:
            dbapi = s.connection().connection.dbapi_connection
            dbapi.execute("UPDATE players SET cash = ? WHERE number = ?", (cash, number))

    def other_connection(number, cash):  # another process, say
        path = url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as other:
            other.execute("UPDATE players SET cash = ? WHERE number = ?", (cash, number))
        other.close()

    def other_table_then_view_table(number, cash):  # an explained write, then one that is not
        with session_scope(url) as s:
            gid = s.scalar(select(Game.id).where(Game.name == "kept"))
            s.execute(update(Game).where(Game.id == gid).values(turn=Game.turn))
            s.execute(update(Railroad).where(Railroad.game_id == gid).values(cash=Railroad.cash))
            s.execute(update(Player).where(Player.game_id == gid, Player.number == number).values(cash=cash))

    return [orm, core, driver_sql, text_sql, raw_dbapi, other_connection, other_table_then_view_table]


@pytest.mark.parametrize("how", range(7))
def test_a_change_between_two_sheets_is_seen_by_the_next(game_url, how):
    url, _ = game_url
    change = _changes(url)[how]
    first, kept, before, _ = _view(url)
    assert kept
    change(2, before[2] + 1234)
    after, kept, cash, same = _view(url)
    assert after is not first, change.__name__
    assert cash[2] == before[2] + 1234 == _player_cash(url, 2) and same
    # and kept again from there on
    again, kept, _, same = _view(url)
    assert again is after and kept and same


def test_writes_to_other_tables_keep_the_view(game_url):
    url, _ = game_url
    first, _, _, _ = _view(url)
    with session_scope(url) as s:  # what a sheet's intake writes: the game locked, an order set, the mail, answers
        game = s.scalar(select(Game).where(Game.name == "kept"))
        lock_game(s, game)
        s.execute(update(Game).where(Game.id == game.id).values(name="kept"))
    again, kept, _, same = _view(url)
    assert again is first and same


def test_a_view_read_in_a_transaction_rolled_back_is_not_used(game_url):
    url, _ = game_url
    with pytest.raises(RuntimeError):
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == "kept"))
            lock_game(s, game)
            p = s.scalar(select(Player).where(Player.game_id == game.id, Player.number == 3))
            p.cash += 999  # flushed, seen by the view, then rolled back
            view, kept = keptview.start_of_turn_view(s, game)
            assert kept and {q.number: q.cash for q in view.players.values()}[3] == p.cash
            raise RuntimeError("the sheet's handling failed")
    after, kept, cash, same = _view(url)
    assert after is not view and same and cash[3] == _player_cash(url, 3)


def test_a_savepoint_rolled_back_drops_the_view(game_url):
    url, _ = game_url
    first, _, _, _ = _view(url)
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == "kept"))
        lock_game(s, game)
        view, kept = keptview.start_of_turn_view(s, game)
        assert view is first
        nested = s.begin_nested()
        s.execute(update(Game).where(Game.id == game.id).values(turn=Game.turn))
        nested.rollback()
    after, _, _, same = _view(url)
    assert after is not first and same


def test_without_the_write_lock_nothing_is_kept(game_url):
    url, _ = game_url
    with session_scope(url) as s:
        game = s.scalar(select(Game).where(Game.name == "kept"))
        view, kept = keptview.start_of_turn_view(s, game)  # no lock_game: no write transaction
        assert not kept


def test_a_new_turn_reads_the_view_again(game_url):
    url, _ = game_url
    first, _, _, _ = _view(url)
    path = url.removeprefix("sqlite:///")
    with session_scope(url) as s:
        s.execute(update(Game).where(Game.name == "kept").values(turn=Game.turn + 1))
    after, _, _, same = _view(url)
    assert after is not first and same
    assert path


def test_a_mail_that_changes_the_game_between_two_sheets_is_seen(game_url, tmp_path, monkeypatch):
    """Through the intake: sheet, a moderator's fix in the same process, sheet — the second sheet's check
    reads the changed row (and the first sheet's view is not used for it)."""
    from email.message import EmailMessage

    from pbm.kinds import kind_of
    from pbm.pipeline.cycle import default_ingester
    import pbm.turnsheet.check as check

    def _write_mails(url, name, by_number, box, turn):
        with session_scope(url) as s:
            game = s.scalar(select(Game).where(Game.name == name))
            for number, secret in by_number.items():
                msg = EmailMessage()
                msg["From"] = f"p{number}@example.org"
                msg["To"] = "games@example.org"
                msg["Subject"] = f"Orders, turn {turn}"
                msg.set_content(kind_of(game).sample_orders(s, game, number, secret))
                box.add(mailbox.MaildirMessage(msg))

    url, secrets = game_url
    used = []
    real = keptview.start_of_turn_view

    def spy(session, game):
        view, kept = real(session, game)
        used.append((view, {p.number: p.cash for p in view.players.values()}))
        return view, kept

    monkeypatch.setattr(check, "start_of_turn_view", spy)
    box = mailbox.Maildir(str(tmp_path / "maildir"), create=True)
    _write_mails(url, "kept", {1: secrets[1]}, box, 1)
    with session_scope(url) as s:
        assert default_ingester(s, tmp_path / "maildir") == "1 accepted"
    _write_mails(url, "kept", {2: secrets[2]}, box, 1)
    with session_scope(url) as s:
        assert default_ingester(s, tmp_path / "maildir") == "1 accepted"
    assert used[1][0] is used[0][0]  # nothing changed: the second sheet used the first one's view
    with session_scope(url) as s:  # the moderator's fix
        p = s.scalar(select(Player).join(Game).where(Game.name == "kept", Player.number == 3))
        p.cash += 500
        fixed = p.cash
    _write_mails(url, "kept", {3: secrets[3]}, box, 1)
    with session_scope(url) as s:
        assert default_ingester(s, tmp_path / "maildir") == "1 accepted"
    assert used[2][0] is not used[1][0] and used[2][1][3] == fixed


def test_deleting_a_game_is_never_explained(game_url):
    """A game's rows go by ON DELETE CASCADE, which SQLite does not count as changes: a DELETE on games
    drops the kept view even when it deletes another game."""
    url, _ = game_url
    first, _, _, _ = _view(url)
    with session_scope(url) as s:
        s.add(Game(name="other", title="continental-rails", seed=1))
    with session_scope(url) as s:
        from sqlalchemy import delete

        s.execute(delete(Game).where(Game.name == "other"))
    after, _, _, same = _view(url)
    assert after is not first and same

"""Issue 29 through real mail (Maildir in, `pbm ingest`, answers in the outbox): a company's whole
turn in one mail for each title, exactly as docs/18xx/email.md shows it; a pass with nothing to
pass; moves in the Subject; several moves on a line; `undo` of one's own last mail."""
from __future__ import annotations

import json
import mailbox
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from pbm.db import session_scope
from pbm.e18xx.pbem.games import action_rows, load
from pbm.models import Game, InboundMessage
from tests.e18xx.test_intent import _export
from tests.e18xx.test_pbem_mail import _body, answer, ga, send, state  # noqa: F401 (ga: fixture)
from tests.mail.helpers import mk

DOC = Path(__file__).resolve().parents[2] / "docs" / "18xx" / "email.md"
WHOLE = re.compile(r"<!-- whole-turn (\S+) (\d+) (\S+) -->\n```\n(.*?)```", re.DOTALL)


def doc_turns() -> list[tuple[str, int, str, str]]:
    return [(m.group(1), int(m.group(2)), m.group(3), m.group(4)) for m in WHOLE.finditer(DOC.read_text("utf-8"))]


def imported(cli, tmp_path: Path, rel: str, upto: int, name: str) -> tuple[dict[int, str], Path]:
    """The recorded game ``rel`` after its export action ``upto``, imported as game ``name``;
    returns (secrets by seat, maildir)."""
    export = json.loads(json.dumps(_export(rel)))
    export["actions"] = [a for a in export["actions"] if int(a.get("id") or 0) <= upto]
    export["status"] = "active"
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    names = [p.get("name") for p in export["players"]]
    csv = tmp_path / f"{name}.csv"
    csv.write_text("name,email\n" + "".join(f"{n},seat{i}@example.org\n" for i, n in enumerate(names, 1)),
                   encoding="utf-8")
    out = cli("18xx", "import", str(path), "--name", name, "--emails", str(csv)).stdout
    secrets = {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) [^<]+<[^>]+>: (\S+)", out)}
    assert secrets, out
    return secrets, tmp_path / "Maildir"


_N = [0]


def deliver(cli, maildir: Path, text: str, seat: int, subject: str = "moves") -> tuple[str, int]:
    md = mailbox.Maildir(str(maildir), create=True)
    _N[0] += 1
    md.add(mk(text, sender=f"seat{seat}@example.org", subject=subject, msgid=f"<t{_N[0]}@intent.example>"))
    out = cli("ingest", "--maildir", str(maildir)).stdout
    line = [x for x in out.strip().splitlines() if x.startswith("#") and "duplicate" not in x][-1]
    with session_scope(cli.url) as s:
        inbound = s.scalar(select(InboundMessage).order_by(InboundMessage.seq.desc()).limit(1))
        return line, inbound.id


def game_now(cli, name: str):
    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == name))
        return load(s, row), len(action_rows(s, row))


def test_the_documented_mails_are_whole_turns(cli, tmp_path):
    turns = doc_turns()
    assert sorted(rel.split("/")[0] for rel, *_ in turns) == ["1848", "18AL", "18GA", "18VA"]
    for rel, upto, corp, mail in turns:
        name = re.search(r"^GAME: (\S+)", mail, re.MULTILINE).group(1)
        seat = int(re.search(r"^PLAYER: (\d+)", mail, re.MULTILINE).group(1))
        secrets, maildir = imported(cli, tmp_path, rel, upto, name)
        game, before = game_now(cli, name)
        assert game.current_entity() == corp and game.controller(corp) == f"Player {seat}", rel
        line, inbound = deliver(cli, maildir, mail.replace("<your secret>", secrets[seat]), seat)
        assert f"player {seat} accepted" in line, (rel, line)
        game, after = game_now(cli, name)
        assert after > before
        assert game.state.round.kind != "operating" or game.state.round.entities[game.state.round.index] != corp
        _, text = answer(cli, inbound)
        assert "Your mail, read as a turn:" in text and f"{corp}'s turn is over" in text, text[:3000]


def test_a_pass_with_nothing_to_pass_is_a_note_not_a_refusal(cli, tmp_path):
    """18AL: after ATN's upgrade no station can be placed; the mail's pass for that step was
    refused ("may not pass now; allowed: buy_company, run_routes") and the whole mail with it."""
    secrets, maildir = imported(cli, tmp_path, "18AL/4714.json", 142, "al-pass")
    _, before = game_now(cli, "al-pass")
    line, inbound = deliver(cli, maildir, f"GAME: al-pass\nPLAYER: 1\nSECRET: {secrets[1]}\n"
                                          "lay 14 K2 1\npass\nrun auto\nwithhold\n", 1)
    assert "player 1 accepted" in line, line
    game, after = game_now(cli, "al-pass")
    assert after > before + 3  # and the passes of the steps left: the mail is the whole turn (issue 29)
    assert game.state.round.kind != "operating" or game.state.round.entities[game.state.round.index] != "ATN"
    _, text = answer(cli, inbound)
    assert "move 2 (pass): nothing to pass" in text and "18AL rule 4.2.3" in text
    assert "ATN's turn ended with your mail (as if 'done')" in text
    assert "buy_company" not in text and "run_routes" not in text


def test_moves_in_the_subject_and_several_on_a_line(ga):
    cli = ga[0]
    line, inbound = send(ga, 1, "", subject="bid 20 LTR")  # the body holds only the header lines
    assert "player 1 accepted" in line, line
    assert state(cli)[1] == 1
    _, text = answer(cli, inbound)
    assert "ACCEPTED" in text
    line, inbound = send(ga, 2, "pass, pass")  # Bob's turn ends with his first pass
    assert "player 2 accepted" in line, line
    _, text = answer(cli, inbound)
    assert "move 2 (pass): nothing left to pass" in text
    assert state(cli)[1] == 2


def test_undo_of_ones_own_last_mail_until_another_player_acts(ga):
    cli = ga[0]
    line, _ = send(ga, 1, "bid 20 LTR")
    assert "accepted" in line
    line, inbound = send(ga, 1, "", subject="Re: [ga-1] undo")  # in the Subject, the body holding no move
    assert "player 1 accepted" in line, line
    assert state(cli)[1] == 0
    _, text = answer(cli, inbound)
    assert "UNDONE: Ann took back their last mail (1 action(s): #1 bid 20 LTR)" in text
    line, _ = send(ga, 1, "bid 25 LTR")
    assert "accepted" in line and state(cli)[1] == 1
    line, _ = send(ga, 2, "pass")
    assert "accepted" in line
    line, inbound = send(ga, 1, "undo")  # Bob has acted since: only the moderator may take it back
    assert "rejected" in line.lower() or "refused" in line.lower(), line
    _, text = answer(cli, inbound)
    assert "another move came after yours (#2" in text and "pbm 18xx undo ga-1" in text
    assert state(cli)[1] == 2
    line, inbound = send(ga, 3, "pass\nundo")
    _, text = answer(cli, inbound)
    assert "'undo' stands alone in its mail" in text and state(cli)[1] == 2

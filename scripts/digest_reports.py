"""Digest of every PDF report of a season: the proof that a change to report rendering changes no
byte of any report (issue 15).

    python scripts/digest_reports.py --db /tmp/season.db [--turns 25] [--tree /path/to/other/checkout]

Builds, if ``--db`` does not exist yet, the season ``scripts/bench_week.py`` plays (15 human seats
mailing the computer's orders, ``--turns`` turns resolved), without rendering.  Then renders, with
the ``pbm`` of this checkout (or of ``--tree``), every turn's reports — each player's with the next
turnsheet where it has one, and the moderator's — and prints one SHA-256 per report.  Render the
same database with two checkouts and compare the outputs: they must be equal line for line.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--tree" in sys.argv:
    ROOT = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import mailbox  # noqa: E402
from datetime import datetime, timedelta  # noqa: E402

from sqlalchemy import select  # noqa: E402

from pbm.db import session_scope  # noqa: E402
from pbm.models import Game  # noqa: E402


def build(db: Path, turns: int) -> None:
    """The bench season: 15 humans whose mailed sheets carry the computer's orders."""
    from pbm.cr.resolve import run_turn
    from pbm.cr.setup import SeatRequest, create_game
    from pbm.pipeline.cycle import default_ingester
    from pbm.pipeline.demo import _write_mails

    url = f"sqlite:///{db}"
    seats = [SeatRequest(line=i + 2, name=f"Player {i + 1}", email=f"p{i + 1}@example.org") for i in range(15)]
    with session_scope(url) as s:
        created = create_game(s, seed=1841, name="bench", seats=seats)
        created.game.deadline = datetime(2030, 1, 1)  # a fixed date: the reports print it
        secrets = dict(created.secrets)
    with tempfile.TemporaryDirectory() as tmp:
        box = mailbox.Maildir(str(Path(tmp) / "maildir"), create=True)
        for turn in range(1, turns + 1):
            _write_mails(url, "bench", secrets, box, turn)
            with session_scope(url) as s:
                default_ingester(s, Path(tmp) / "maildir")
            with session_scope(url) as s:
                game = s.scalar(select(Game).where(Game.name == "bench"))
                game.deadline = datetime(2030, 1, 1) + timedelta(days=7 * turn)
                run_turn(s, game)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, required=True, help="the season's SQLite file (built if missing)")
    parser.add_argument("--turns", type=int, default=25, help="turns to resolve when building (default 25)")
    parser.add_argument("--tree", type=Path, help="render with the pbm of another checkout")
    args = parser.parse_args()
    if not args.db.exists():
        build(args.db, args.turns)
    from pbm.report.render import render_turn

    with tempfile.TemporaryDirectory() as tmp, session_scope(f"sqlite:///{args.db.resolve()}") as s:
        game = s.scalar(select(Game).where(Game.name == "bench"))
        last = game.turn - 1 if game.status == "open" else game.turn
        for turn in range(0, last + 1):
            result = render_turn(s, game, turn=turn, out=Path(tmp), moderator=True)
            for path in result.paths:
                print(f"turn {turn:>2} {path.name:<15} {hashlib.sha256(path.read_bytes()).hexdigest()}")


if __name__ == "__main__":
    main()

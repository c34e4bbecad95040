"""Digest of every table after Continental Rails turns: the proof that a change to the turn
engine's database writes changes no output (issue 15).

    python scripts/digest_turns.py [--pg ADMIN_URL] [--tree /path/to/other/checkout] [--turns 20]

Plays, on a fresh database (SQLite, or a scratch PostgreSQL database made and dropped with
``--pg``): two real-map all-computer seasons (seeds 100 and 7, ``--turns`` turns each, one
transaction per turn as ``pbm run-turn`` does), a late-game synthetic game (60 railroads,
15 tycoons) with 3 scripted turns and 3 all-computer ``run_turn``s, and a rerun of the
first season from turn 5 (``rerun_turn``), and a small game from turn 20 to its end (the
hall of records).  Then prints one SHA-256 per table over every
row in primary-key order (every column, as stored: on PostgreSQL each row's text as
``ROW(...)::text`` writes it), leaving out ``games.turn_key`` (random per game), and the SHA-256 of the
moderator's PDF report of the first season's last turn (SQLite only: it is the same data).
``--tree`` imports ``pbm`` from another checkout, for comparing a branch with ``main``.
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

import numpy as np  # noqa: E402
from sqlalchemy import inspect, select, text  # noqa: E402

from pbm.db import get_engine, session_scope  # noqa: E402
from pbm.models import Game  # noqa: E402


def play(url: str, turns: int) -> None:
    from pbm.cr import resolve as resolve_module
    from pbm.cr.simulate import run_season
    from tests.cr.helpers import scripted_orders, synthetic_game, tiny_game

    run_season(url, seed=100, name="digest-real-100", turns=turns)
    run_season(url, seed=7, name="digest-real-7", turns=turns)
    with session_scope(url) as s:
        synthetic_game(s, name="digest-late", railroads=60, players=15, cols=18, rows=12, turn=18)
    rng = np.random.default_rng(1)
    for _ in range(3):
        with session_scope(url) as s:
            g = s.scalar(select(Game).where(Game.name == "digest-late"))
            resolve_module.resolve_turn(s, g, scripted_orders(s, g, rng))
            g.turn += 1
    for _ in range(3):
        with session_scope(url) as s:
            g = s.scalar(select(Game).where(Game.name == "digest-late"))
            resolve_module.run_turn(s, g, computer_for_missing=True)
    with session_scope(url) as s:
        g = s.scalar(select(Game).where(Game.name == "digest-real-100"))
        resolve_module.rerun_turn(s, g, 5)
    with session_scope(url) as s:  # a game played to its end (§1.3): the hall of records
        g = tiny_game(s, name="digest-end", humans=2)
        g.turn, g.year = 20, 1879
    for _ in range(40):
        with session_scope(url) as s:
            g = s.scalar(select(Game).where(Game.name == "digest-end"))
            if g.status != "open":
                break
            resolve_module.run_turn(s, g, computer_for_missing=True)


def digests(url: str) -> dict[str, str]:
    engine = get_engine(url)
    out = {}
    with engine.connect() as c:
        for table in sorted(inspect(engine).get_table_names()):
            if table == "alembic_version":
                continue
            columns = [col["name"] for col in inspect(engine).get_columns(table)]
            keys = inspect(engine).get_pk_constraint(table)["constrained_columns"] or columns
            order = ", ".join(f'"{k}"' for k in keys)
            h = hashlib.sha256()
            if engine.dialect.name == "postgresql":
                wanted = [col for col in columns if not (table == "games" and col == "turn_key")]
                fields = ", ".join(f't."{col}"' for col in wanted)
                # a row's text as PostgreSQL writes it (SQL NULL and JSON null differ)
                rows = c.execute(text(f'SELECT ROW({fields})::text FROM "{table}" t ORDER BY {order}'))
                for (row,) in rows:
                    h.update(row.encode("utf-8") + b"\n")
            else:
                wanted = [col for col in columns if not (table == "games" and col == "turn_key")]
                names = ", ".join(f'"{col}"' for col in wanted)
                for row in c.execute(text(f'SELECT {names} FROM "{table}" ORDER BY {order}')):
                    h.update(repr(tuple(row)).encode("utf-8") + b"\n")
            count = c.execute(text(f'SELECT count(*) FROM "{table}"')).scalar()
            out[table] = f"{h.hexdigest()[:16]} ({count} rows)"
    return out


def report_digest(url: str, folder: Path) -> str:
    from pbm.report.render import render_turn

    with session_scope(url) as s:
        g = s.scalar(select(Game).where(Game.name == "digest-real-100"))
        rendered = render_turn(s, g, players=[], moderator=True, out=folder, with_turnsheet=False)
    return hashlib.sha256(rendered.paths[-1].read_bytes()).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", help="PostgreSQL administrator URL: play on a scratch database")
    parser.add_argument("--tree", help="import pbm from this checkout instead")
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    if args.pg:
        from bench_turn import scratch_pg  # (scripts/, beside this file)

        with scratch_pg(args.pg) as url:
            play(url, args.turns)
            for table, value in digests(url).items():
                print(f"{table:20} {value}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'digest.db'}"
        play(url, args.turns)
        for table, value in digests(url).items():
            print(f"{table:20} {value}")
        print(f"{'moderator report':20} {report_digest(url, Path(tmp) / 'reports')}")


if __name__ == "__main__":
    main()

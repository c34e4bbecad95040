#!/usr/bin/env python3
"""Keep seeded 18xx games for the suite's replay test (issue 28: "a few hundred of those games run
in the suite as pbm-only property tests").

    python scripts/keep_referee_games.py LIST [OUTDIR]

``LIST`` holds one game a line, ``TITLE KIND SEED`` (kind ``random`` or ``computer``; the game is
made as ``tests/e18xx/seeded_games.py`` says).  Each game is played to its end by pbm alone and
written to ``OUTDIR/<TITLE>.jsonl.gz`` (default ``tests/e18xx/referee_replays``), one game a line:
its setup, pbm's own action log (a best run, ``run auto``, as the routes it ran: the export's
form, and a replay that need not search for them), a checkpoint every ``EVERY`` actions and at the end
(``seeded_games.checkpoint``), and the end state's fingerprint (``pbem/exchange.py::fingerprint``).
``tests/e18xx/test_referee_replays.py`` replays each and checks the properties of every state and
these outcomes.  The games chosen were accepted whole by the 18xx.games engine, their states equal
to pbm's after every action (docs/18xx/engine.md, "Ninth run"); this script plays pbm only.
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbm.e18xx.core import actions as A  # noqa: E402
from pbm.e18xx.pbem.exchange import fingerprint  # noqa: E402
from tests.e18xx.seeded_games import checkpoint, play, setup  # noqa: E402

EVERY = 100


def keep(title: str, kind: str, seed: int) -> dict:
    points: list[dict] = []
    ran: dict[int, A.RunRoutes] = {}  # a best run ('run auto') as the routes it ran, as the export wrote it

    def on_action(g, _written) -> None:
        last = g.actions[-1]
        if isinstance(last, A.RunRoutes) and last.auto and g.state.round.routes:
            ran[len(g.actions) - 1] = A.RunRoutes(last.entity, tuple(
                A.RouteSpec(t, tuple(r.node_ids())) for t, r in g.state.round.routes))
        if len(g.actions) % EVERY == 0:
            points.append(checkpoint(g))

    g, _ = play(title, kind, seed, on_action)
    if not points or points[-1]["action"] != len(g.actions):
        points.append(checkpoint(g))
    players, rules = setup(title, kind, seed)
    actions = [ran.get(i, a).to_dict() for i, a in enumerate(g.actions)]
    return {"title": title, "kind": kind, "seed": seed, "players": players, "optional_rules": rules,
            "actions": actions, "checkpoints": points, "fingerprint": fingerprint(g)}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "tests" / "e18xx" / "referee_replays"
    out.mkdir(parents=True, exist_ok=True)
    games: dict[str, list[dict]] = {}
    for line in Path(argv[0]).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        title, kind, seed = line.split()
        games.setdefault(title, []).append(keep(title, kind, int(seed)))
        print(title, kind, seed, len(games[title][-1]["actions"]), flush=True)
    for title, kept in games.items():
        text = "".join(json.dumps(k, separators=(",", ":"), sort_keys=True) + "\n" for k in kept)
        # mtime 0 and no file name in the header: the same games give the same bytes
        with open(out / f"{title}.jsonl.gz", "wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write(text.encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

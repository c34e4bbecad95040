"""The archive of a Continental Rails game: an immutable bundle per turn, the record of a finished game, the
hall of records (how a bundle is written, frozen and checked: :mod:`pbm.bundle`).

``archive/<game>/turn-<T>/`` holds the turn's raw mails (``mails/*.eml``), its
orders (``orders.json``), the ``pbm export`` state at the end of the turn
(``state.json``), its events and ledger (``log.json``), the PDFs
(``reports/``) and ``MANIFEST.sha256`` (``sha256sum -c`` format).  A bundle is
built in a temporary folder and renamed into place, then made read-only; a
second archiving of the same turn checks that it would be identical and
leaves it alone, and refuses if it would differ (archives are never rewritten).

For a finished game ``archive/<game>/final/`` adds CSV tables (VP per category
per turn, net worth per turn, stock prices), the final state and the static
HTML site (``site/``, see :mod:`pbm.report.site`); the game's scores enter the
hall of records (§11.3, :class:`~pbm.models.GameRecord`).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.bundle import Archived, build, json_bytes, slug, turn_dir, write_file
from pbm.cr.state import dumps
from pbm.errors import PbmError
from pbm.models import Game, GameRecord, InboundMessage, PlayerTurn, RailroadTurn
from pbm.report.view import TurnData, load_turn

# What a run killed while archiving leaves beside the bundles (issue 34, item 12): pbm.bundle.build's
# folder (".turn-<T>.XXXX.tmp", ".final.XXXX.tmp") and the reports rendered for it (".render.XXXX.tmp").
LEFTOVER_PATTERNS = (".turn-*.tmp", ".final.*.tmp", ".render.*.tmp")
STALE_AFTER = 3600.0  # seconds without a change: no archive run takes that long, so its writer is gone


def leftovers(folder: Path) -> list[tuple[Path, float]]:
    """(folder, seconds since anything in it last changed) for each temporary folder a killed archive run
    left in ``folder`` (a game's archive folder), oldest first."""
    import time

    found = []
    folder = Path(folder)
    if not folder.is_dir():
        return []
    for pattern in LEFTOVER_PATTERNS:
        for path in folder.glob(pattern):
            if path.is_symlink() or not path.is_dir():
                continue
            newest = path.lstat().st_mtime
            for inner in path.rglob("*"):
                try:
                    newest = max(newest, inner.lstat().st_mtime)
                except OSError:  # removed meanwhile: a live writer
                    newest = time.time()
            found.append((path, max(0.0, time.time() - newest)))
    return sorted(found, key=lambda item: (-item[1], str(item[0])))


def sweep_leftovers(folder: Path, stale_after: float = STALE_AFTER) -> list[Path]:
    """Remove the leftovers of killed archive runs in ``folder`` that nothing has changed for
    ``stale_after`` seconds; younger ones may belong to a run writing now (another worker) and stay.
    Only folders with the names pbm gives them, directly in ``folder``, are touched (never a bundle)."""
    import os
    import stat

    def writable(func, path, _exc):  # a folder frozen (owner read-only) before the kill
        os.chmod(os.path.dirname(path), stat.S_IRWXU)
        func(path)

    removed = []
    for path, age in leftovers(folder):
        if age < stale_after:
            continue
        try:
            path.chmod(stat.S_IRWXU)
            shutil.rmtree(path, onerror=writable)
        except OSError:  # another pbm removed it first, or it cannot be: verify keeps reporting it
            continue
        removed.append(path)
    return removed


def leftover_problems(folder: Path) -> list[str]:
    """For ``pbm archive --verify``: one line per leftover of a killed run."""
    out = []
    for path, age in leftovers(folder):
        when = f"{age / 3600:.1f} h" if age >= 3600 else f"{age / 60:.0f} min"
        then = ("the next archive run removes it" if age >= STALE_AFTER else
                f"the next archive run removes it once nothing has changed in it for {STALE_AFTER / 3600:g} h "
                "(a pbm may be writing it now)")
        out.append(f"{path}: left by an interrupted archive run (last change {when} ago); {then}")
    return out


VP_KEYS = ["robber_baron", "rail_mogul", "rail_builder", "rail_magnate", "rail_prodigal", "rail_baron"]


def archive_turn(session: Session, game: Game, turn: int, *, reports: Path, archive: Path,
                 data: TurnData | None = None) -> Archived:
    """Bundle turn ``turn`` of ``game`` under ``archive/<game>/turn-<T>/``."""
    data = data or load_turn(session, game, turn)
    target = turn_dir(archive, game.name, turn)
    sweep_leftovers(target.parent)

    def fill(tmp: Path) -> None:
        mails = session.scalars(select(InboundMessage).where(InboundMessage.game_id == game.id,
                                                             InboundMessage.turn == turn)
                                .order_by(InboundMessage.seq, InboundMessage.id))
        for m in mails:
            write_file(tmp, f"mails/{m.seq:05d}-{m.sha256[:12]}.eml", bytes(m.raw))
        write_file(tmp, "orders.json", json_bytes(data.order_sets))
        write_file(tmp, "state.json", dumps(data.state).encode("utf-8"))
        write_file(tmp, "log.json", json_bytes({"turn": turn, "events": data.events, "ledger": data.ledger}))
        source = turn_dir(reports, game.name, turn)
        if source.is_dir():  # the same reports, rendered again without the next turn's sheet (its CODE)
            from pbm.report.render import render_turn

            names = {p.name for p in source.glob("*.pdf")}
            players = sorted(int(n[len("player-"):-len(".pdf")]) for n in names
                             if n.startswith("player-") and n[len("player-"):-len(".pdf")].isdigit())
            scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=".render.", suffix=".tmp"))
            try:
                done = render_turn(session, game, turn=turn, players=players, moderator="moderator.pdf" in names,
                                   out=scratch, with_turnsheet=False)
                for pdf_path in sorted(done.paths):
                    write_file(tmp, f"reports/{pdf_path.name}", pdf_path.read_bytes())
            finally:
                shutil.rmtree(scratch, ignore_errors=True)

    outcome = build(target, fill, prefix=f".{target.name}.")
    return Archived(target, outcome)


# -- a finished game ---------------------------------------------------------------------

def tables(session: Session, game: Game) -> dict[str, Any]:
    """pandas DataFrames: VP per category per turn, net worth per turn, stock prices per turn."""
    import pandas as pd

    rows = list(session.scalars(select(PlayerTurn).where(PlayerTurn.game_id == game.id)
                                .order_by(PlayerTurn.turn, PlayerTurn.player_number)))
    vp = pd.DataFrame(
        [{"turn": r.turn, "player": r.player_number, **{k: (r.vp or {}).get(k, 0) for k in VP_KEYS}} for r in rows],
        columns=["turn", "player", *VP_KEYS],
    )
    worth = pd.DataFrame([{"turn": r.turn, "player": r.player_number, "net_worth": r.net_worth} for r in rows],
                         columns=["turn", "player", "net_worth"])
    if not worth.empty:
        worth = worth.pivot(index="turn", columns="player", values="net_worth")
        worth.columns = [f"player_{c}" for c in worth.columns]
        worth = worth.reset_index()
    rts = list(session.scalars(select(RailroadTurn).where(RailroadTurn.game_id == game.id)
                               .order_by(RailroadTurn.turn, RailroadTurn.code)))
    prices = pd.DataFrame([{"turn": r.turn, "railroad": r.code, "end_price": r.end_price} for r in rts],
                          columns=["turn", "railroad", "end_price"])
    if not prices.empty:
        prices = prices.pivot(index="turn", columns="railroad", values="end_price").reset_index()
        prices.columns.name = None
    return {"vp": vp, "net_worth": worth, "prices": prices}


def archive_final(session: Session, game: Game, *, reports: Path, archive: Path) -> Archived:
    """The whole record of a finished game: CSV tables, final state, site; and the hall of records."""
    from pbm.report.site import build_site

    if game.status not in ("finished", "archived"):
        raise PbmError(f"{game.name} is not finished (status {game.status}); only turn bundles can be archived")
    data = load_turn(session, game)
    target = Path(archive) / slug(game.name) / "final"
    sweep_leftovers(target.parent)

    def fill(tmp: Path) -> None:
        for name, frame in tables(session, game).items():
            write_file(tmp, f"tables/{name}.csv", frame.to_csv(index=False, lineterminator="\n").encode("utf-8"))
        write_file(tmp, "state.json", dumps(data.state).encode("utf-8"))
        build_site(session, game, tmp / "site", data=data)

    outcome = build(target, fill, prefix=".final.")
    return Archived(target, outcome)


RECORD_NAMES = {"robber_baron": "Robber Baron", "rail_mogul": "Rail Mogul", "rail_builder": "Rail Builder",
                "rail_magnate": "Rail Magnate", "rail_prodigal": "Rail Prodigal", "rail_baron": "Rail Baron"}
BARON_MAXIMUM = 500  # §1.2: 100 points in each of five categories


def holder_name(player: dict[str, Any], game: dict[str, Any], real_name: str) -> str:
    """How a record holder is named: the character, with the real name unless the game was anonymous (§3.1)."""
    if player["human"] and real_name and not game.get("anonymous"):
        return f"{player['character']} ({real_name})"[:120]
    return player["character"][:120]


def update_records(session: Session, game: Game, data: TurnData | None = None) -> list[str]:
    """§11.3: enter a finished game's final scores in the hall of records; returns what changed.

    A score beats the record when it is higher; a Rail Baron score of 500 (the
    maximum) also replaces an equal record held from another game (ruling
    R11-1, §11.3's "a score of 500 ... will replace the record of any prior
    record holder").
    """
    data = data or load_turn(session, game)
    changes = []
    for key, label in RECORD_NAMES.items():
        best = None
        for p in sorted(data.players, key=lambda p: p["number"]):
            value = float(p["vp"].get(key, 0) or 0)
            if best is None or value > best[0]:
                best = (value, p)
        if best is None or best[0] <= 0:
            continue
        value, p = best
        record = session.scalar(select(GameRecord).where(GameRecord.title == game.title, GameRecord.category == key))
        contact = data.contacts.get(p["number"])
        holder = holder_name(p, data.game, contact.name if contact else "")
        beats = record is None or value > record.value or (
            key == "rail_baron" and value >= BARON_MAXIMUM and record.value >= BARON_MAXIMUM
            and record.game_name != game.name)
        if not beats:
            continue
        if record is None:
            record = GameRecord(title=game.title, category=key)
            session.add(record)
        record.value, record.holder, record.game_name, record.turn = value, holder, game.name, data.turn
        changes.append(f"{label}: {value:g} by {holder} in {game.name}")
    session.flush()
    return changes

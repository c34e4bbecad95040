"""Mail intake shared by many workers: one mailbox, messages handled in parallel (docs/hosting.md).

Reading a mailbox is cheap; handling a message is not (a Continental Rails sheet is parsed and
checked, an 18xx move is replayed and answered with a PDF for every player).  So intake has two
parts:

1. **Store** (:func:`store_new`): one worker at a time (the ``intake`` lock, waited for) stores each
   new message as it came and marks it done in the mailbox — a few milliseconds a message.
2. **Handle** (:func:`handle_lanes`): every worker handles stored messages at once, claimed by
   *lane*: the game named on the message's ``GAME:`` line (else its sender).  A lane is handled by
   one worker at a time, in arrival order, so an 18xx game's moves are applied in the order they came
   while different games' mail is handled side by side (claim ``mail:<lane>``, tried without waiting).
   Before a worker closes any game it waits for the lanes other workers held (and handles what they
   left), so every message stored before its pass is handled before a deadline closes a game.

Workers hold ``handling`` shared while they handle; ``pbm cycle``'s own intake (which handles
everything stored) takes it alone, so a stored message is never handled by two processes at once.
On SQLite there is one worker: lanes are not claimed.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from contextlib import nullcontext

from sqlalchemy import select

from pbm.db import get_engine, session_scope
from pbm.locks import Locked, process_lock
from pbm.models import InboundMessage
from pbm.retry import run_retrying

_GAME_LINE = re.compile(r"^\s*game\s*[:=]\s*(\S.*?)\s*$", re.IGNORECASE | re.MULTILINE)


def lane(raw: bytes) -> str:
    """Which lane a message is handled in: ``game:<name>`` from its first ``GAME:`` line, else
    ``from:<address>``, else ``misc`` (unreadable mail)."""
    from pbm.mail.message import contents, parse_bytes, sender_address

    try:
        msg = parse_bytes(raw)
        for cand in contents(msg).candidates:
            if cand.text:
                found = _GAME_LINE.search(cand.text)
                if found:
                    return "game:" + found.group(1).lower()[:120]
        sender = sender_address(msg)
        return f"from:{sender.lower()}" if sender else "misc"
    except Exception:  # noqa: BLE001 - any mail at all gets a lane; handling says what is wrong with it
        return "misc"


def store_new(url: str | None, items: Iterable, retries: int) -> int:
    """Store each new message (its own transaction) and mark it done in its mailbox after the commit;
    the number of messages read.  The caller holds the ``intake`` lock."""
    from sqlalchemy.exc import IntegrityError

    from pbm.mail.ingest import store_raw
    from pbm.mail.message import MAX_MESSAGE_BYTES, TRUNCATED_MARK, truncated

    def store(item) -> None:
        raw = item.raw
        if len(raw) > MAX_MESSAGE_BYTES and not raw.startswith(TRUNCATED_MARK):
            raw = truncated(raw, len(raw))  # as pbm.mail.ingest.ingest: only the start of a huge mail
        try:
            with session_scope(url) as s:
                store_raw(s, raw, item.source, item.received_at)
        except IntegrityError:
            pass  # the same bytes stored at the same moment by another reader (`pbm ingest`): known now

    count = 0
    for item in items:
        run_retrying(lambda: store(item), retries=retries)
        if item.done is not None:
            item.done()  # after the commit: a crash in between reads it again, and the bytes are known
        count += 1
    return count


def maildir_new(url: str | None, path: Path) -> Iterator:
    """The messages of a shared Maildir not yet stored by any worker, oldest delivery first.

    A Maildir is left as it is (:mod:`pbm.mail.sources`), so every pass would read every message ever
    delivered and look each up by its hash — a few thousand reads and queries a pass, under the
    ``intake`` lock, for a big club's week.  Instead the files whose source (``maildir:<name>``) is
    already in the database are skipped by name, with one query; the rest are read as usual (and a
    file stored under another name is still recognised by its hash)."""
    with session_scope(url) as s:
        known = _known_sources(s)
    yield from _unread(path, known)


def unread_maildir(session, path: Path, skipped: list[str] | None = None) -> Iterator:
    """:func:`maildir_new` inside a caller's transaction (``pbm cycle``'s own intake, ``pbm ingest``);
    the names of the files left out (read before) are added to ``skipped``."""
    return _unread(path, _known_sources(session), skipped)


class MaildirWatch:
    """Whether mail may have come into a Maildir since the last look, for a worker waiting between
    passes: one ``stat`` of ``new/`` and one of ``cur/`` (a delivery renames a file into one of them,
    which changes the folder's modification time), so a waiting worker can look twenty times a second
    at no cost and read a message as soon as it lands instead of at its next pass.

    :meth:`look` is called just before the Maildir is read, so a message delivered while it is read is
    seen by the next :meth:`changed`.  A false alarm (a file removed or renamed by a mail reader) costs
    one pass that reads nothing.  On a file system whose timestamps are coarse (a second or more), a
    second delivery within the same tick as the look may be missed; the next pass reads it as
    before."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple | None = None

    def _mark(self) -> tuple:
        out = []
        for sub in ("new", "cur"):
            try:
                st = os.stat(self.path / sub)
                out.append((st.st_ino, st.st_mtime_ns))
            except OSError:
                out.append(None)  # not (yet) a Maildir: the pass says what is wrong
        return tuple(out)

    def look(self) -> None:
        """Remember the folders as they are now (call before reading the Maildir)."""
        self._seen = self._mark()

    def changed(self) -> bool:
        """True when ``new/`` or ``cur/`` has changed since :meth:`look` (or it was never called)."""
        return self._seen is None or self._mark() != self._seen

    def wait(self, seconds: float, stopped: Callable[[], bool]) -> bool:
        """Wait up to ``seconds`` (looking every 50 ms); True as soon as mail may have come, False when
        the time ran out or ``stopped()``."""
        end = time.monotonic() + seconds
        while not stopped():
            if self.changed():
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(0.05, left))
        return False


def _known_sources(session, prefix: str = "maildir:") -> set[str]:
    return set(session.scalars(select(InboundMessage.source).where(InboundMessage.source.like(prefix + "%"))))


def unread(session, items: Iterable, prefix: str, skipped: list[str]) -> Iterator:
    """``items`` (an mbox's or a folder of .eml files' messages) less those whose source is already
    stored: a folder read every week is not answered again message by message.  The sources left
    out are added to ``skipped``."""
    known = _known_sources(session, prefix)
    for item in items:
        if item.source in known:
            skipped.append(item.source)
            continue
        yield item


def _unread(path: Path, known: set[str], skipped: list[str] | None = None) -> Iterator:
    from pbm.mail import sources

    new_dir, cur_dir = path / "new", path / "cur"
    if not new_dir.is_dir() or not cur_dir.is_dir():
        yield from sources.read_maildir(path)  # says plainly what is wrong with the folder
        return
    every = [p for sub in (new_dir, cur_dir) for p in sub.iterdir() if p.is_file() and not p.name.startswith(".")]
    files = [p for p in every if f"maildir:{p.name}"[:200] not in known]
    if skipped is not None:
        skipped += [f"maildir:{p.name}"[:200] for p in every if f"maildir:{p.name}"[:200] in known]
    files.sort(key=lambda p: (p.stat().st_mtime, p.name))  # as sources.read_maildir: oldest delivery first
    for p in files:
        try:
            with p.open("rb") as f:
                raw = sources.read_limited(f)
        except FileNotFoundError:  # renamed by the moderator's mail reader meanwhile: read next pass
            continue
        yield sources.Arrived(raw, f"maildir:{p.name}"[:200], sources._mtime(p))


def _stored(url: str | None) -> dict[str, list[int]]:
    """Message ids stored and not yet handled, by lane, each lane in arrival order."""
    lanes: dict[str, list[int]] = {}
    with session_scope(url) as s:
        rows = s.execute(select(InboundMessage.id, InboundMessage.raw).where(InboundMessage.status == "stored")
                         .order_by(InboundMessage.seq)).all()
    for mid, raw in rows:
        lanes.setdefault(lane(raw), []).append(mid)
    return lanes


def handle_lanes(url: str | None, context, retries: int) -> Counter[str]:
    """Handle every stored message, lane by lane, side by side with the other workers; outcome counts."""
    from pbm.mail.ingest import handle

    postgres = get_engine(url).dialect.name == "postgresql"
    counts: Counter[str] = Counter()

    def one(mid: int) -> None:
        with session_scope(url) as s:
            row = s.get(InboundMessage, mid, with_for_update=postgres)
            if row is None or row.status != "stored":
                return  # handled meanwhile (by the lane's previous holder)
            counts[handle(s, row, context).status] += 1

    def claim(name: str, wait: bool):
        if not postgres:
            return nullcontext()
        return process_lock(url, f"mail:{name}", what="worker handling this mail", wait=wait, timeout=600)

    together = process_lock(url, "handling", what="pbm cycle reading mail", wait=True, timeout=600, shared=True)
    with together if postgres else nullcontext():  # SQLite: the worker runs alone (its cycle lock)
        lanes = _stored(url)
        left: list[str] = []
        for name, ids in lanes.items():
            try:
                with claim(name, wait=False):
                    for mid in ids:
                        run_retrying(lambda: one(mid), retries=retries)
            except Locked:
                left.append(name)
        for name in left:  # held by other workers: wait for them, then handle anything they left
            with claim(name, wait=True):
                for mid in lanes[name]:
                    run_retrying(lambda: one(mid), retries=retries)
    return counts

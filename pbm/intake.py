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
On SQLite every handler takes ``handling`` alone instead (one writer at a time anyway).

**One protocol for every path** (:func:`take_mail`): ``pbm ingest``, ``pbm cycle`` and ``pbm worker``
all store new mail under the ``intake`` lock, then handle what is stored — left by a dead process or
just stored — in arrival order, lane by lane, under the same claims (issue 34, items 2 and 3).  A lane
claim's name is ``mail:`` and a hash of the lane (bounded, and no text of the mail in a lock name or a
log line: item 1).  A message that ended ``error`` holds the later mail of its 18xx game (moves must be
applied in order) until the moderator's ``pbm ingest --retry`` (item 8).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from contextlib import nullcontext

from sqlalchemy import func, select, update

from pbm.db import get_engine, session_scope
from pbm.locks import Locked, process_lock
from pbm.models import Game, InboundMessage, MailboxRead
from pbm.retry import DEFAULT_RETRIES, run_retrying

# a GAME: line; lines end at LF, CRLF or a lone CR (a mail written with CR-only line endings is still lines)
_GAME_LINE = re.compile(r"^[ \t]*game[ \t]*[:=][ \t]*(\S[^\r\n]*?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
LANE_LIMIT = 120  # characters of a lane name kept (a game name is at most this long to be told apart)


def lane(raw: bytes) -> str:
    """Which lane a message is handled in: ``game:<name>`` from its first ``GAME:`` line, else
    ``from:<address>``, else ``misc`` (unreadable mail)."""
    return lane_and_message(raw)[0]


def lane_and_message(raw: bytes):
    """(:func:`lane`, the message object it was read from — None when ``raw`` could not be parsed).

    The object is :func:`pbm.mail.message.parse_bytes` of ``raw`` with its parts already read
    (:func:`pbm.mail.message.contents_once`): handling the message reads it from there instead of
    parsing the same bytes again (:func:`pbm.mail.ingest.handle`'s ``msg``)."""
    from pbm.mail.message import contents_once, parse_bytes, sender_address

    msg = None
    try:
        msg = parse_bytes(raw)
        for cand in contents_once(msg).candidates:
            if cand.text:
                found = _GAME_LINE.search(cand.text.replace("\r\n", "\n").replace("\r", "\n"))
                if found:
                    return "game:" + found.group(1).lower()[:LANE_LIMIT], msg
        sender = sender_address(msg)
        return (f"from:{sender.lower()[:LANE_LIMIT]}" if sender else "misc"), msg
    except Exception:  # noqa: BLE001 - any mail at all gets a lane; handling says what is wrong with it
        return "misc", None


def lane_claim(name: str) -> str:
    """The process lock that claims lane ``name``: ``mail:`` and 32 hex digits of its hash — bounded (the
    lock table's name column is 40 characters) and free of the mail's text (a lock name is shown in
    messages and logs; a lane may come from a stranger's mail or a player's SECRET line)."""
    return "mail:" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass
class Stored:
    """What a store pass read: the number of messages, and those read before and already handled."""

    read: int = 0
    known: list = field(default_factory=list)  # Outcome "duplicate" for each, in reading order


def store_new(url: str | None, items: Iterable, retries: int, now=None) -> Stored:
    """Store each new message (its own transaction) and mark it done in its mailbox after the commit.
    The caller holds the ``intake`` lock.  ``now``: the arrival time of messages whose source gives none."""
    from sqlalchemy.exc import IntegrityError

    from pbm.mail.answer import Outcome
    from pbm.mail.ingest import store_raw
    from pbm.mail.message import MAX_MESSAGE_BYTES, TRUNCATED_MARK, truncated

    out = Stored()

    def store(item) -> None:
        raw = item.raw
        if len(raw) > MAX_MESSAGE_BYTES and not raw.startswith(TRUNCATED_MARK):
            raw = truncated(raw, len(raw))  # as pbm.mail.ingest.ingest: only the start of a huge mail
        try:
            with session_scope(url) as s:
                row, new = store_raw(s, raw, item.source, item.received_at or now)
                if not new and item.source and item.source[:200] != row.source:
                    _remember_read(s, item.source[:200], row.id)  # not read again under this name
                if new:
                    return
                if row.status != "stored":
                    out.known.append(Outcome(row.id, row.seq, "duplicate",
                                             f"the same message as #{row.seq} (already handled)"))
                elif item.source[:200] != row.source:  # a copy of one stored and not handled yet
                    out.known.append(Outcome(row.id, row.seq, "duplicate", f"the same message as #{row.seq}"))
                # else: the same source read again after a crash before it was marked read: handled below
        except IntegrityError:
            pass  # the same bytes stored at the same moment by another reader: handled as that one

    for item in items:
        run_retrying(lambda: store(item), retries=retries)
        if item.done is not None:
            item.done()  # after the commit: a crash in between reads it again, and the bytes are known
        out.read += 1
    return out


def maildir_new(url: str | None, path: Path, skipped: list[str] | None = None) -> Iterator:
    """The messages of a shared Maildir not yet stored by any worker, oldest delivery first.

    A Maildir is left as it is (:mod:`pbm.mail.sources`), so every pass would read every message ever
    delivered and look each up by its hash — a few thousand reads and queries a pass, under the
    ``intake`` lock, for a big club's week.  Instead the files whose source (``maildir:<name>``) is
    already in the database are skipped by name, with one query; the rest are read as usual (and a
    file stored under another name is still recognised by its hash)."""
    with session_scope(url) as s:  # read when the first message is asked for: under the ``intake`` lock
        known = _known_sources(s)
    yield from _unread(path, known, skipped)


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
    """The sources read before: those stored, and those whose bytes were stored under another source."""
    stored = set(session.scalars(select(InboundMessage.source).where(InboundMessage.source.like(prefix + "%"))))
    return stored | set(session.scalars(select(MailboxRead.source).where(MailboxRead.source.like(prefix + "%"))))


def _remember_read(session, source: str, inbound_id: int) -> None:
    """Remember ``source`` as read (its bytes are stored as message ``inbound_id``), once."""
    from pbm.clock import utcnow

    if session.get(MailboxRead, source) is None:
        with session.begin_nested():
            session.add(MailboxRead(source=source, inbound_id=inbound_id, read_at=utcnow()))


def unread(session, items: Iterable, prefix: str, skipped: list[str]) -> Iterator:
    """``items`` (an mbox's or a folder of .eml files' messages) less those whose source is already
    stored: a folder read every week is not answered again message by message.  The sources left
    out are added to ``skipped``.  The stored sources are read now, in ``session``."""
    return _unread_items(items, _known_sources(session, prefix), skipped)


def _unread_items(items: Iterable, known: set[str], skipped: list[str]) -> Iterator:
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


PARSED_KEPT_BYTES = 8 * 1024 * 1024  # raw bytes of the messages whose parsed objects a pass keeps (at most)


def _stored(url: str | None, parsed: dict[int, tuple[bytes, object]] | None = None
            ) -> tuple[dict[str, list[tuple[int, int]]], dict[str, tuple[int, int]]]:
    """(id, seq) of the messages stored and not yet handled, by lane, each lane in arrival order; and for
    each lane whose moves must be applied in order (an 18xx game's) and that has a message in ``error``,
    that message's (seq, id): the lane's later mail waits behind it (issue 34, item 8).

    ``parsed``: filled with ``id: (raw, message object)`` for the messages parsed to find their lane
    (while their raw bytes together stay under :data:`PARSED_KEPT_BYTES`), for their handling."""
    lanes: dict[str, list[tuple[int, int]]] = {}
    kept = 0
    with session_scope(url) as s:
        rows = s.execute(select(InboundMessage.id, InboundMessage.seq, InboundMessage.raw)
                         .where(InboundMessage.status == "stored").order_by(InboundMessage.seq)).all()
        for mid, seq, raw in rows:
            name, msg = lane_and_message(raw)
            lanes.setdefault(name, []).append((mid, seq))
            if parsed is not None and msg is not None and kept + len(raw) <= PARSED_KEPT_BYTES:
                parsed[mid] = (raw, msg)
                kept += len(raw)
        blocked: dict[str, tuple[int, int]] = {}
        if lanes:
            errors = s.execute(select(InboundMessage.id, InboundMessage.seq, InboundMessage.raw)
                               .where(InboundMessage.status == "error").order_by(InboundMessage.seq)).all()
            for mid, seq, raw in errors:
                name = lane(raw)
                if name in lanes and name not in blocked and _ordered(s, name):
                    blocked[name] = (seq, mid)
    return lanes, blocked


def _ordered(session, name: str) -> bool:
    """Whether lane ``name`` is a game whose mail must be applied in arrival order (a kind that takes
    moves by mail: each move depends on the one before)."""
    if not name.startswith("game:"):
        return False
    game = session.scalar(select(Game).where(func.lower(Game.name) == name[5:]).limit(1))
    if game is None:
        return False
    from pbm.kinds import kind_of

    try:
        return bool(kind_of(game).mail_moves)
    except Exception:  # noqa: BLE001 - an unknown title: its mail is refused by handling, in any order
        return False


def handle_lanes(url: str | None, context, retries: int, log: Callable[[str], None] | None = None) -> list:
    """Handle every stored message, lane by lane, side by side with the other handlers; the outcomes,
    in the order handled.

    PostgreSQL: ``handling`` shared, and each lane claimed (:func:`lane_claim`); a lane another process
    holds is waited for afterwards, and what it left is handled, so every message stored before this
    call is handled when it returns.  SQLite: ``handling`` alone (one writer at a time in any case).
    Each message is handled in its own transaction with its row locked and its status checked again,
    so a message is handled once whoever else is handling.  A lane that fails outside the handling of a
    message (the database, a lock) is said in one line, without the mail's text, and the others go on."""
    from pbm.mail.answer import Outcome
    from pbm.mail.ingest import handle

    postgres = get_engine(url).dialect.name == "postgresql"
    outcomes: list[Outcome] = []
    say = log or (lambda _line: None)

    parsed: dict[int, tuple[bytes, object]] = {}  # id: (raw, its message object), from finding the lanes

    def one(mid: int) -> None:
        with session_scope(url) as s:
            row = s.get(InboundMessage, mid, with_for_update=postgres)
            if row is None or row.status != "stored":
                return  # handled meanwhile (by the lane's previous holder)
            # the message object the lane was read from, if these are still the bytes it was parsed from;
            # taken out once used (a retry of this message parses its bytes again)
            raw, msg = parsed.pop(mid, (None, None))
            outcomes.append(handle(s, row, context, msg=msg if raw is not None and raw == row.raw else None))

    def hold(name: str, ids: list[int], behind: tuple[int, int]) -> None:
        seq, _mid = behind
        reason = (f"waits behind #{seq}, which ended in an internal error: moves are applied in order; "
                  "`pbm ingest --retry` handles them again once the fault is mended")
        with session_scope(url) as s:
            game_id = s.scalar(select(Game.id).where(func.lower(Game.name) == name[5:]).limit(1))
            error = s.get(InboundMessage, behind[1])
            if error is not None and error.game_id is None:
                error.game_id = game_id  # the error, too, is listed with its game by `pbm status`
            for row in s.scalars(select(InboundMessage).where(InboundMessage.id.in_(ids),
                                                              InboundMessage.status == "stored",
                                                              InboundMessage.seq > seq)):
                if (row.outcome or {}).get("held") != reason:
                    row.outcome = {**(row.outcome or {}), "held": reason}
                if row.game_id is None and game_id is not None:
                    row.game_id = game_id  # listed with its game by `pbm status`
                outcomes.append(Outcome(row.id, row.seq, "held", reason))

    def run(name: str, ids: list[tuple[int, int]], blocked: dict[str, tuple[int, int]]) -> None:
        behind = blocked.get(name)
        for mid, seq in ids:
            if behind is not None and seq > behind[0]:  # this and the lane's later mail wait behind the error
                hold(name, [m for m, _ in ids if m != behind[1]], behind)
                return
            run_retrying(lambda: one(mid), retries=retries)
            if behind is None and outcomes and outcomes[-1].inbound_id == mid and outcomes[-1].status == "error" \
                    and _lane_ordered(name):
                behind = (outcomes[-1].seq, mid)

    ordered_cache: dict[str, bool] = {}

    def _lane_ordered(name: str) -> bool:
        if name not in ordered_cache:
            with session_scope(url) as s:
                ordered_cache[name] = _ordered(s, name)
        return ordered_cache[name]

    def claim(name: str, wait: bool):
        if not postgres:
            return nullcontext()
        return process_lock(url, lane_claim(name), what="worker handling this mail", wait=wait, timeout=600)

    def guarded(name: str, ids: list[tuple[int, int]], blocked, wait: bool) -> bool:
        """Handle one lane; False if another process holds it (``wait`` False)."""
        try:
            with claim(name, wait=wait):
                run(name, ids, blocked)
        except Locked:
            if wait:
                raise
            return False
        except Exception as exc:  # noqa: BLE001 - one lane's trouble must not stop the others' mail
            say(f"mail: a lane ({lane_claim(name)}) not handled now, tried again next pass: {_safe(exc)}")
        return True

    together = process_lock(url, "handling", what="pbm handling mail", wait=True, timeout=600, shared=postgres)
    with together:
        lanes, blocked = _stored(url, parsed)
        left = [name for name, ids in lanes.items() if not guarded(name, ids, blocked, wait=False)]
        for name in left:  # held by other handlers: wait for them, then handle anything they left
            guarded(name, lanes[name], blocked, wait=True)
    outcomes.sort(key=lambda o: o.seq)
    return outcomes


def _safe(exc: BaseException) -> str:
    """One line about ``exc`` for a log: the database's own message (not SQLAlchemy's, which quotes the
    statement's parameters: a mail's text), cut short, with every secret cut (:mod:`pbm.mail.redact`)."""
    from pbm.mail.redact import redact_text

    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"{type(exc).__name__}: {redact_text(text[0] if text else '')[:200]}"


def take_mail(url: str | None, items: Iterable, context, *, retries: int = DEFAULT_RETRIES,
              retry_errors: bool = False, log: Callable[[str], None] | None = None) -> tuple[Stored, list]:
    """The one intake protocol of ``pbm ingest``, ``pbm cycle`` and ``pbm worker``: store the new messages
    of ``items`` (one process at a time: the ``intake`` lock, waited for), then handle every stored
    message — those a dead process left and those just stored alike, in arrival order — with
    :func:`handle_lanes`.  ``retry_errors``: messages that ended ``error`` are handled again, in their
    place in the order (the moderator mended the fault: ``pbm ingest --retry``).

    Returns what was stored (with the messages read before and already handled) and the outcomes of
    the messages handled, in arrival order."""
    with process_lock(url, "intake", what="mail intake", wait=True, timeout=600):
        stored = store_new(url, items, retries, now=getattr(context, "now", None))
    if retry_errors:
        with session_scope(url) as s:
            s.execute(update(InboundMessage).where(InboundMessage.status == "error")
                      .values(status="stored").execution_options(synchronize_session=False))
    return stored, handle_lanes(url, context, retries, log)

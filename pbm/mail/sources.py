"""Where messages come from: a Maildir, an mbox file, a folder of .eml files, or an IMAP mailbox.

Each source yields :class:`Arrived` items in arrival order.  Reading is
idempotent: a message already stored (same bytes) is recognised by its hash,
so reading a folder twice applies nothing twice.  Maildir, mbox and .eml
folders are left as they are.  On IMAP, a stored message gets the keyword
``PbmStored`` (and is moved to ``imap_processed_folder`` if one is set), so the
next run fetches only new mail; the moderator's own reading (\\Seen) does not
matter.
"""

from __future__ import annotations

import hashlib
import mailbox
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pbm.clock import sleep_until
from pbm.errors import PbmError
from pbm.mail.config import ImapConfig
from pbm.mail.message import MAX_MESSAGE_BYTES, TRUNCATED_KEEP, read_limited, truncated

STORED_KEYWORD = "PbmStored"


class SourceError(PbmError):
    """A mail source cannot be read; the message says which and why."""


@dataclass
class Arrived:
    raw: bytes
    source: str  # where it was read: "maildir:<key>", "imap:INBOX:<uid>", ...
    received_at: datetime | None = None  # when the source says it arrived (UTC, naive)
    done: Callable[[], None] | None = None  # call after the message is safely stored


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None)
    except OSError:
        return None


def read_maildir(path: Path) -> Iterator[Arrived]:
    """Messages in ``new/`` and ``cur/``, oldest delivery first."""
    if not (path / "cur").is_dir() or not (path / "new").is_dir():
        raise SourceError(f"{path}: not a Maildir (it needs cur/ and new/ folders)")
    files = [p for sub in ("new", "cur") for p in (path / sub).iterdir() if p.is_file() and not p.name.startswith(".")]
    files.sort(key=lambda p: (p.stat().st_mtime, p.name))
    for p in files:
        with p.open("rb") as f:
            raw = read_limited(f)
        yield Arrived(raw, f"maildir:{p.name}"[:200], _mtime(p))


def _named(kind: str, name: str, raw: bytes) -> str:
    """A file's source: its name and a digest of its bytes (``eml:1.eml:3f9c…``).  A name alone is not
    enough: the moderator may save next week's mail under this week's names (``1.eml`` in a new folder,
    a fresh ``in.mbox``), and a new message must never be skipped as 'read before' (nothing is lost)."""
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return f"{kind}:{name[:200 - len(kind) - 18]}:{digest}"


def read_mbox(path: Path) -> Iterator[Arrived]:
    if not path.is_file():
        raise SourceError(f"{path}: no such mbox file")
    box = mailbox.mbox(str(path), create=False)
    try:
        for index, key in enumerate(box.keys()):
            with box.get_file(key) as f:
                raw = read_limited(f)
            yield Arrived(raw, _named("mbox", f"{path.name}:{index + 1}", raw))
    finally:
        box.close()


def read_eml_dir(path: Path) -> Iterator[Arrived]:
    """Every ``*.eml`` file of a folder, by name and content."""
    if not path.is_dir():
        raise SourceError(f"{path}: no such folder")
    for p in sorted(path.glob("*.eml")):
        with p.open("rb") as f:
            raw = read_limited(f)
        yield Arrived(raw, _named("eml", p.name, raw))


_NEW = ["NOT", "KEYWORD", STORED_KEYWORD, "NOT", "DELETED"]  # what pbm has not stored yet


def _open_imap(cfg: ImapConfig):
    """A logged-in IMAPClient with the configured folder selected, or a SourceError saying why not."""
    import imapclient
    from imapclient.exceptions import IMAPClientError

    try:
        client = imapclient.IMAPClient(cfg.host, port=cfg.port, ssl=cfg.ssl, timeout=60)
        if cfg.starttls and not cfg.ssl:
            client.starttls()
        client.login(cfg.user, cfg.password)
        client.select_folder(cfg.folder)
    except (OSError, IMAPClientError) as exc:
        raise SourceError(f"cannot read IMAP {cfg.user}@{cfg.host}:{cfg.port}/{cfg.folder}: "
                          f"{exc.__class__.__name__}: {exc}") from None
    return client


class ImapWatch:
    """Waits for new mail in the IMAP folder with IDLE (RFC 2177), for a worker between passes: the
    server says when a message arrives, so the worker reads it at once rather than at its next pass.

    Each wait logs in, looks for messages not stored yet (one that came just after the last read
    ends the wait at once), then idles until the server reports a new message (``EXISTS``), the time
    is up or a stop is asked for (looked at every second).  IDLE is started again every 25 minutes
    (servers may end it after 30).  A server without IDLE, or one that cannot be reached, gets a
    plain wait, said once in the log; the next pass reads the mailbox as usual."""

    RENEW = 25 * 60.0

    def __init__(self, cfg: ImapConfig, log: Callable[[str], None]) -> None:
        self.cfg = cfg
        self.log = log
        self._said: set[str] = set()

    def _say(self, what: str) -> None:
        if what not in self._said:
            self._said.add(what)
            self.log(f"mail: {what}; waiting between passes without it")

    def wait(self, seconds: float, stopped: Callable[[], bool]) -> bool:
        """True as soon as new mail may be there; False when ``seconds`` ran out or ``stopped()``."""
        import time

        from imapclient.exceptions import IMAPClientError

        end = time.monotonic() + seconds
        try:
            client = _open_imap(self.cfg)
        except SourceError as exc:
            self._say(f"cannot watch the IMAP folder ({exc})")
            return sleep_until(end, stopped)
        try:
            if b"IDLE" not in client.capabilities():
                self._say(f"the IMAP server {self.cfg.host} has no IDLE")
                return sleep_until(end, stopped)
            if client.search(_NEW):
                return True  # came after the pass read the folder
            while not stopped() and time.monotonic() < end:
                try:
                    client.idle()
                except IMAPClientError:
                    return True  # the server reported something before it started idling: read and see
                renew = time.monotonic() + self.RENEW
                try:
                    while not stopped() and time.monotonic() < min(end, renew):
                        responses = client.idle_check(timeout=max(0.0, min(1.0, end - time.monotonic())))
                        if any(len(r) > 1 and r[1] in (b"EXISTS", b"RECENT") for r in responses):
                            return True
                finally:
                    client.idle_done()
            return False
        except (OSError, IMAPClientError) as exc:
            self._say(f"the IMAP watch stopped ({exc.__class__.__name__}: {exc})")
            return sleep_until(end, stopped)
        finally:
            try:
                client.logout()
            except (OSError, IMAPClientError):
                pass


def read_imap(cfg: ImapConfig) -> Iterator[Arrived]:
    """New messages of the configured folder, by UID; each marked stored once pbm has it."""
    from imapclient.exceptions import IMAPClientError

    client = _open_imap(cfg)
    try:
        uids = sorted(client.search(_NEW))
        for start in range(0, len(uids), 50):
            batch = uids[start:start + 50]
            sizes = client.fetch(batch, ["RFC822.SIZE"])
            small = [u for u in batch if int((sizes.get(u) or {}).get(b"RFC822.SIZE", 0)) <= MAX_MESSAGE_BYTES]
            large = [u for u in batch if u not in small]
            fetched = client.fetch(small, ["BODY.PEEK[]", "INTERNALDATE"]) if small else {}
            for uid in large:  # only the start of a message over the limit is fetched (item 12)
                part = client.fetch([uid], [f"BODY.PEEK[]<0.{TRUNCATED_KEEP}>", "INTERNALDATE"]).get(uid) or {}
                body = next((v for k, v in part.items() if k.startswith(b"BODY[]")), b"")
                fetched[uid] = {b"BODY[]": truncated(body or b"", int(sizes[uid][b"RFC822.SIZE"])),
                                b"INTERNALDATE": part.get(b"INTERNALDATE")}
            for uid in batch:
                data = fetched.get(uid)
                if not data or b"BODY[]" not in data:
                    continue
                when = data.get(b"INTERNALDATE")
                if isinstance(when, datetime):
                    when = (when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)).replace(tzinfo=None)

                def done(uid: int = uid) -> None:
                    # called by the reader after its commit, outside this generator: say a server's failure
                    # here as one line too (the message is stored; the next run knows it by its hash)
                    try:
                        client.add_flags([uid], [STORED_KEYWORD])
                        if cfg.processed_folder:
                            client.move([uid], cfg.processed_folder)
                    except (IMAPClientError, OSError) as exc:
                        raise SourceError(f"IMAP error on {cfg.host} marking message {uid} as stored (it is "
                                          f"stored; the next run recognises it): {exc}") from None

                yield Arrived(data[b"BODY[]"], f"imap:{cfg.folder}:{uid}", when, done)
    except IMAPClientError as exc:
        raise SourceError(f"IMAP error on {cfg.host}: {exc}") from None
    finally:
        try:
            client.logout()
        except (OSError, IMAPClientError):
            pass


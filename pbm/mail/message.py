"""Reading an arrived message safely: headers, kind (bounce, auto-reply, loop), and the sheet in it.

Nothing here trusts the message: headers may be malformed, charsets wrong,
parts huge or binary.  Every accessor returns plain values and never raises.
"""

from __future__ import annotations

import codecs
import email
import email.headerregistry
import email.parser
import email.policy
import email.utils
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from html.parser import HTMLParser

LOOP_MARK = "pbm-turn-processor"  # our X-Loop value: a message carrying it is one of ours
MAX_MESSAGE_BYTES = 15 * 1024 * 1024
MAX_TEXT_PART = 1024 * 1024
MAX_PDF_PART = 10 * 1024 * 1024
MAX_PARTS = 100  # MIME parts (Content-Type headers) read in one message; more is refused unread
MAX_HEADER_BYTES = 256 * 1024  # the header block read for storing (Message-ID, From, Subject)
TRUNCATED_MARK = b"X-PBM-Truncated: "  # prepended to a stored copy cut at MAX_MESSAGE_BYTES
_ADDRESS = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$")
_MSGID = re.compile(r"^<[\x21-\x3b\x3d\x3f-\x7e]{1,250}>$")


class _HeaderClasses(email.headerregistry.HeaderRegistry):
    """The standard header registry, but each header class is made once, and a header read from text
    is parsed once.

    The standard one makes a new class for every header it reads or sets (``type(...)`` in
    ``HeaderRegistry.__getitem__``): some forty a mail, each costly to make and left for the garbage
    collector.  The class depends only on the specialised class the name maps to, so one per
    mapping gives the same headers.

    A message parsed with :data:`POLICY` keeps its headers as text and parses one again each time it
    is asked for (``msg.get``, ``get_content_type``, ``get_filename``, ``get_content_charset``...): the
    intake asks for a mail's Content-Type some twenty times.  A header made from a plain ``str`` depends
    only on its name and that text (the parse reads nothing else), and the header objects are
    immutable (a ``str`` whose parts are tuples and read-only mappings), so the one made first for a
    (name, text) is handed out again (:data:`HEADER_MEMO` of them at most, texts up to
    :data:`HEADER_MEMO_TEXT` characters; other values, a ``datetime`` or an address, are made anew)."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[type, type] = {}
        self._parsed: dict[tuple[str, str], object] = {}

    def __getitem__(self, name):
        base = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(base)
        if made is None:
            made = self._made[base] = type("_" + base.__name__, (base, self.base_class), {})
        return made

    def __call__(self, name, value):
        if type(value) is not str or type(name) is not str or len(value) > HEADER_MEMO_TEXT:
            return self[name](name, value)
        key = (name, value)
        made = self._parsed.get(key)
        if made is None:
            made = self[name](name, value)
            if len(self._parsed) >= HEADER_MEMO:
                self._parsed.clear()  # bounded: a worker reads mail for months
            self._parsed[key] = made
        return made


HEADER_MEMO = 512  # header objects kept by (name, text): a few dozen mails' worth (a worker stays small)
HEADER_MEMO_TEXT = 1000  # characters of a header's text, at most, for it to be kept


POLICY = email.policy.default.clone(header_factory=_HeaderClasses())  # email.policy.default, cheaper
"""The policy pbm reads and builds messages with: :data:`email.policy.default` with :class:`_HeaderClasses`."""
SMTP_POLICY = POLICY.clone(linesep="\r\n")  # email.policy.SMTP likewise


class Unreadable(Exception):
    """A message pbm will not parse (too deep, too many parts, cut short); ``str()`` says why."""


def split_head(raw: bytes) -> tuple[bytes, bytes]:
    """(header block, body) of a raw message, at the first empty line (CRLF or LF)."""
    cut = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    if not cut:
        return raw, b""
    at = min(cut)
    sep = 4 if raw[at:at + 4] == b"\r\n\r\n" else 2
    return raw[:at], raw[at + sep:]


def parse_headers(raw: bytes) -> Message:
    """Only the header block (bounded), never the body: safe for any bytes (what storing needs)."""
    head, _ = split_head(raw[:MAX_HEADER_BYTES])
    try:
        return email.parser.BytesParser(policy=POLICY).parsebytes(head + b"\n\n", headersonly=True)
    except Exception:
        return email.message_from_bytes(b"", policy=POLICY)


def content_digest(raw: bytes, parsed_head: Message | None = None) -> str:
    """sha256 of what a relay does not change: the Content-Type and the body (line ends normalised).

    Two messages with the same Message-ID and the same content digest are one message delivered
    twice; the same Message-ID with other content is another message (a stranger may copy an ID).
    ``parsed_head``: :func:`parse_headers` of ``raw``, when the caller has it; used when the header
    block and the empty line after it are within the bytes :func:`parse_headers` reads (then it is
    the same parse of the same bytes)."""
    import hashlib

    head, body = split_head(raw)
    if parsed_head is None or len(head) + 4 > MAX_HEADER_BYTES:
        parsed_head = parse_headers(head)
    ctype = header(parsed_head, "Content-Type").lower()
    h = hashlib.sha256()
    h.update(ctype.encode("utf-8", "replace") + b"\0")
    h.update(body.replace(b"\r\n", b"\n").rstrip(b"\n"))
    return h.hexdigest()


TRUNCATED_KEEP = 1024 * 1024  # of a message over MAX_MESSAGE_BYTES, this much is stored (headers for the answer)


def truncated(head: bytes, size: int) -> bytes:
    """The stored copy of a message of ``size`` bytes that is over the limit: a marker line, then its start."""
    return TRUNCATED_MARK + f"{size} bytes; only the first {len(head[:TRUNCATED_KEEP])} kept".encode() + b"\r\n" \
        + head[:TRUNCATED_KEEP]


def read_limited(stream, size_hint: int | None = None) -> bytes:
    """Read a message from a binary stream without ever holding more than the limit (item 12)."""
    data = stream.read(MAX_MESSAGE_BYTES + 1)
    if len(data) <= MAX_MESSAGE_BYTES:
        return data
    size = len(data)
    while chunk := stream.read(1024 * 1024):  # count the rest without keeping it
        size += len(chunk)
    return truncated(data, size_hint or size)


def check_limits(raw: bytes) -> None:
    """Raise :class:`Unreadable` for a message pbm will not parse in full (docs/mail.md)."""
    if raw.startswith(TRUNCATED_MARK):
        raise Unreadable(f"the message is larger than {MAX_MESSAGE_BYTES // 1024 // 1024} MB")
    if len(raw) > MAX_MESSAGE_BYTES:
        raise Unreadable(f"the message is {len(raw) // 1024 // 1024} MB; at most "
                         f"{MAX_MESSAGE_BYTES // 1024 // 1024} MB is read")
    parts = len(re.findall(rb"(?im)^content-type[ \t]*:", raw))
    if parts > MAX_PARTS:
        raise Unreadable(f"the message has {parts} MIME parts; at most {MAX_PARTS} are read")


def parse_bytes(raw: bytes) -> Message:
    """The message object, within the limits of :func:`check_limits` (else :class:`Unreadable`)."""
    check_limits(raw)
    try:
        return email.message_from_bytes(raw, policy=POLICY)
    except RecursionError:
        raise Unreadable("the message is nested too deeply to be read") from None
    except Exception:  # pragma: no cover - the parser is lenient; this is belt and braces
        try:
            return email.message_from_bytes(raw, policy=email.policy.compat32)
        except Exception as exc:
            raise Unreadable(f"the message cannot be parsed ({exc.__class__.__name__})") from None


def raw_header(msg: Message, name: str) -> str:
    """A header's value as it came, encoded words left encoded ('' if absent)."""
    try:
        for key, value in msg.raw_items():
            if key.lower() == name.lower():
                return str(value)
    except Exception:
        pass
    return ""


def header(msg: Message, name: str) -> str:
    """A header's value as one clean line ('' if absent); undecodable headers are given raw."""
    try:
        value = msg.get(name)
        text = "" if value is None else str(value)
    except Exception:
        text = raw_header(msg, name)
    return " ".join("".join(ch for ch in text if ch.isprintable() or ch in " \t").split())


def all_headers(msg: Message, name: str) -> list[str]:
    try:
        return [" ".join(str(v).split()) for v in (msg.get_all(name) or [])]
    except Exception:
        return []


def clean_address(text: str) -> str | None:
    """The one plain address in a From/Reply-To value, or None if there is not exactly one usable one."""
    try:
        pairs = email.utils.getaddresses([text])
    except Exception:
        return None
    addresses = [addr.strip() for _, addr in pairs if addr and addr.strip()]
    if len(addresses) != 1:
        return None
    address = addresses[0]
    if len(address) > 254 or not _ADDRESS.match(address):
        return None
    return address


def sender_address(msg: Message, name: str = "From") -> str | None:
    """The one usable address of an address header, read structurally where the parser can."""
    try:
        parsed = msg[name]
        addresses = getattr(parsed, "addresses", None)
        if addresses is not None:
            specs = [a.addr_spec for a in addresses if a.addr_spec and a.addr_spec != "<>"]
            if len(specs) == 1 and len(specs[0]) <= 254 and _ADDRESS.match(specs[0]):
                return specs[0]
            if len(specs) != 1:
                return None
    except Exception:  # e.g. an encoded CR/LF in a display name: read the raw header instead
        return clean_address(" ".join(raw_header(msg, name).split()))
    return clean_address(header(msg, name))


def message_id(msg: Message) -> str | None:
    value = header(msg, "Message-ID").strip()
    return value if _MSGID.match(value) else None


@dataclass
class Kind:
    """Why a message must not be answered (empty ``reason``: it may be answered)."""

    reason: str = ""

    @property
    def answerable(self) -> bool:
        return not self.reason


def classify(msg: Message, own_addresses: tuple[str, ...] = ()) -> Kind:
    """Bounces, auto-replies and our own mail are stored but never answered (RFC 3834)."""
    sender = (sender_address(msg, "From") or "").lower()
    local = sender.split("@", 1)[0]
    ctype = header(msg, "Content-Type").lower()
    if any(LOOP_MARK in v.lower() for v in all_headers(msg, "X-Loop")) or header(msg, "X-PBM"):
        return Kind("our own message came back (mail loop)")
    if sender and sender in {a.lower() for a in own_addresses if a}:
        return Kind("sent from pbm's own address (mail loop)")
    if local in ("mailer-daemon", "postmaster", "mail-daemon") or ctype.startswith("multipart/report"):
        return Kind("a delivery report (bounce)")
    return_path = header(msg, "Return-Path").strip()
    if return_path in ("<>", "") and "Return-Path" in msg.keys():
        return Kind("an empty return path (bounce or notification)")
    auto = header(msg, "Auto-Submitted").lower()
    if auto and auto != "no":
        return Kind(f"an automatic message (Auto-Submitted: {auto[:40]})")
    precedence = header(msg, "Precedence").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return Kind(f"bulk or list mail (Precedence: {precedence})")
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress", "List-Id", "List-Unsubscribe"):
        if header(msg, name):
            return Kind(f"an automatic or list message ({name})")
    if not sender:
        return Kind("no usable sender address")
    return Kind()


_QUOTE_ON, _QUOTE_OFF = "\x00q+\x00", "\x00q-\x00"
_SIGNATURE_CLASSES = ("gmail_signature", "moz-signature", "signature", "x_signature")


class _HtmlText(HTMLParser):
    """The text of an HTML mail: a ``<blockquote>`` (the quoted original) becomes ``> `` lines and a
    signature block (``class="gmail_signature"`` and the like) starts with ``-- ``, as a plain-text
    mail program would write them (docs/mail.md)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "br":
            self.parts.append("\n")
        elif tag in ("p", "div", "tr", "li", "pre", "h1", "h2", "h3"):
            self.newline()
        if tag == "blockquote":
            self.parts.append("\n" + _QUOTE_ON)
        classes = (dict(attrs).get("class") or "").lower().split()
        if any(c in _SIGNATURE_CLASSES for c in classes):
            self.newline()
            self.parts.append("-- \n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        if tag in ("p", "div", "tr", "li", "pre"):
            self.newline()
        if tag == "blockquote":
            self.parts.append(_QUOTE_OFF + "\n")

    def newline(self) -> None:
        """End the line unless it has just ended: nested blocks make one line break, not several."""
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data.replace("\x00", ""))


def _quote_marks(text: str) -> str:
    """Prefix each line inside the quote markers with ``> `` (one per level)."""
    out, depth = [], 0
    for line in text.split("\n"):
        depth += line.count(_QUOTE_ON)
        opened = depth
        depth = max(0, depth - line.count(_QUOTE_OFF))
        line = line.replace(_QUOTE_ON, "").replace(_QUOTE_OFF, "")
        level = max(opened, depth)
        if level and line.strip():
            line = "> " * level + line
        out.append(line)
    return "\n".join(out)


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:
        return re.sub(r"<[^>]*>", " ", html)
    return _quote_marks("".join(parser.parts).replace("\xa0", " "))


def decode_text(part: Message) -> str | None:
    """A text part's content as str, tolerating wrong or unknown charsets."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if payload is None:
        try:
            payload = str(part.get_payload()).encode("utf-8", "replace")
        except Exception:
            return None
    if not isinstance(payload, bytes):
        return None
    if len(payload) > MAX_TEXT_PART:
        return None
    charset = None
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    if charset:
        try:
            codecs.lookup(charset)
        except (LookupError, ValueError, TypeError):  # unknown, or e.g. "utf-8\\0"
            charset = None
    for candidate in ([charset] if charset else []) + ["utf-8"]:
        try:
            return payload.decode(candidate)
        except (UnicodeDecodeError, LookupError, ValueError, TypeError):
            continue
    # a wrong declaration: most often Windows/Latin-1 text declared (or defaulted) as UTF-8
    return payload.decode("cp1252", errors="replace")


@dataclass
class Candidate:
    """One place a sheet may be: ``kind`` is body, attachment, html or pdf."""

    kind: str
    name: str
    text: str | None = None
    data: bytes | None = None


@dataclass
class Contents:
    candidates: list[Candidate] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # what was there but not read, and why (names: the moderator's)
    told: list[str] = field(default_factory=list)  # the same in fixed words, nothing of the message (refusals)


def _kind_words(ctype: str) -> str:
    """A part's kind in fixed words, from a fixed list (never the message's own text)."""
    main = ctype.split("/", 1)[0]
    if main == "image":
        return "an image"
    if main in ("audio", "video"):
        return "a sound or video"
    if any(w in ctype for w in ("zip", "compressed", "tar", "rar", "7z", "gzip")):
        return "an archive"
    if any(w in ctype for w in ("msword", "officedocument", "opendocument", "rtf")):
        return "a word-processor or spreadsheet document"
    return "a file that is neither text nor PDF"


def plain_note(candidate: Candidate) -> str:
    """Why a place read found no sheet, in fixed words (for a refusal: nothing of the message is quoted)."""
    return {"body": "the message text has no GAME/PLAYER/TURN lines",
            "attachment": "a text attachment without GAME/PLAYER/TURN lines",
            "html": "an HTML part without GAME/PLAYER/TURN lines",
            "pdf": "a PDF without pbm turnsheet form fields"}.get(candidate.kind, "a part without a turnsheet")


def _filename(part: Message) -> str:
    try:
        name = part.get_filename() or ""
    except Exception:
        name = ""
    return " ".join(name.split())[:80]


def contents(msg: Message) -> Contents:
    """Where a sheet may be, in the order they are tried: text body, text attachments, HTML, PDF."""
    out = Contents()
    bodies: list[Candidate] = []
    attachments: list[Candidate] = []
    htmls: list[Candidate] = []
    pdfs: list[Candidate] = []
    try:
        parts = list(msg.walk())
    except Exception:
        parts = [msg]
    for part in parts[:200]:
        try:
            if part.is_multipart():
                continue
            ctype = (part.get_content_type() or "text/plain").lower()
            disposition = (part.get_content_disposition() or "").lower()
        except Exception:
            continue
        name = _filename(part)
        label = name or ctype
        if ctype == "application/pdf" or name.lower().endswith(".pdf"):
            try:
                data = part.get_payload(decode=True)
            except Exception:
                data = None
            if not isinstance(data, bytes) or not data:
                out.skipped.append(f"{label}: an empty or unreadable PDF")
                out.told.append("an empty or unreadable PDF")
            elif len(data) > MAX_PDF_PART:
                out.skipped.append(f"{label}: a PDF of {len(data) // 1024} KB, larger than we read")
                out.told.append(f"a PDF larger than pbm reads ({MAX_PDF_PART // 1024 // 1024} MB)")
            else:
                pdfs.append(Candidate("pdf", label, data=data))
        elif ctype in ("text/plain", "text/x-turnsheet") or (ctype.startswith("text/") and name.lower().endswith(".txt")):
            text = decode_text(part)
            if text is None:
                out.skipped.append(f"{label}: a text part too large or unreadable")
                out.told.append("a text part too large or unreadable")
            elif disposition == "attachment" or name:
                attachments.append(Candidate("attachment", label, text=text))
            else:
                bodies.append(Candidate("body", "message body", text=text))
        elif ctype == "text/html":
            text = decode_text(part)
            if text is not None:
                htmls.append(Candidate("html", label if name else "HTML body", text=html_to_text(text)))
        else:
            out.skipped.append(f"{label} ({ctype}): attachments of this kind are not opened")
            out.told.append(f"an attachment of a kind pbm does not open ({_kind_words(ctype)})")
    out.candidates = bodies + attachments + htmls + pdfs
    return out


def contents_once(msg: Message) -> Contents:
    """:func:`contents`, read once per message object and kept on it: the secret-change check and the
    game kinds' claims each look through the same arrived mail, which is not changed once read."""
    found = getattr(msg, "_pbm_contents", None)
    if found is None:
        found = contents(msg)
        msg._pbm_contents = found  # type: ignore[attr-defined]
    return found


def loop_headers(msg: EmailMessage, kind: str, auto: str = "auto-replied") -> None:
    """Loop protection on every message pbm sends (RFC 3834): marked automatic and ours."""
    for name in ("Auto-Submitted", "X-Loop", "X-PBM", "X-Auto-Response-Suppress"):
        del msg[name]
    msg["Auto-Submitted"] = auto
    msg["X-Loop"] = LOOP_MARK
    msg["X-PBM"] = kind
    msg["X-Auto-Response-Suppress"] = "All"

"""Secrets out of everything pbm keeps: stored mail, its subject, its outcome, log lines and error texts.

One redaction for every outcome (accepted, refused, late, ignored, a redelivery) and every game kind
(Continental Rails sheets, 18xx moves, secret changes).  What is cut, wherever it is found:

* the value of every SECRET line (``SECRET:``, ``SECRET =``, ``Secret <value>`` at the start of a line,
  ``NEW SECRET:``, and ``secret:`` after other text on a line) — the rest of that line, whatever it
  holds: the right secret, another player's, a secret followed by junk;
* a secret known to the handler (the one the mail was checked with), in any case and with any
  punctuation between its letters and digits, anywhere: the Subject too;
* anything in the form pbm gives secrets out in (``K7QM-2XRP-HW4T``).

The stored raw message is cut where the secret stands when it is plain text; an encoded part (base64,
quoted-printable) is decoded, cut and encoded again; a PDF that carries a secret is replaced by a note;
if anything is still left, the body is dropped and only the headers are kept.  ``sha256`` and
``content_sha256`` keep the digests of the message as it came (duplicates are still recognised).

A message pbm refuses unread (over the size or MIME limits) is kept as it came, less the cuts made in its
bytes: its encoded parts are never decoded.  A message that ends ``error`` keeps its bytes until ``pbm ingest --retry`` handles it (it needs the
secret to be read again); its error text is redacted at once (:func:`redact_text`).
"""

from __future__ import annotations

import email.header
import re
from collections.abc import Callable, Iterable
from typing import Any

MARK = "[REDACTED]"

# a SECRET keyword at the start of a line (after quote marks), its value separated by ':', '=' or blanks
_LINE = r"(?im)(^|\r)([ \t>]*(?:new[ \t]+)?secret\b[ \t]*[:=]?[ \t]*)(\S[^\r\n]*)"
# "secret:" or "secret =" anywhere in a line (after junk text)
_ANY = r"(?i)(\b)((?:new[ \t]+)?secret[ \t]*[:=][ \t]*)(\S[^\r\n]*)"
# pbm's own form: three groups of four letters and digits (not part of a longer dashed token)
_FORM = r"(?<![-\w])[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}(?![-\w])"

_STR_LINE, _STR_ANY = re.compile(_LINE), re.compile(_ANY)
_BYTES = [re.compile(_LINE.encode()), re.compile(_ANY.encode())]
_FORM_STR = re.compile(_FORM)
_FORM_BYTES = re.compile(_FORM.encode())
_SEP = "[^A-Za-z0-9\\r\\n]{0,3}"


def _normal(secret: str) -> str:
    from pbm.auth import normalize_secret

    return normalize_secret(secret or "")


def _known(secrets: Iterable[str]) -> list[str]:
    """The secrets worth looking for: at least six letters and digits, longest first."""
    out = {_normal(s) for s in secrets if s}
    return sorted((s for s in out if len(s) >= 6), key=len, reverse=True)


def _known_pattern(token: str, binary: bool):
    parts = [re.escape(ch.encode()) if binary else re.escape(ch) for ch in token]
    sep = _SEP.encode() if binary else _SEP
    return re.compile(sep.join(parts), re.IGNORECASE)


def redact_text(text: str, secrets: Iterable[str] = (), *, mail: bool = False) -> str:
    """``text`` (a log line, an exception's text, a subject; with ``mail``, a decoded part of a mail) with
    every secret cut.

    A line ending may be LF, CRLF or a lone CR: the value of a SECRET line stops at any of them.  A line
    that starts with the word "secret" and a blank (``Secret K7QM...``, as the 18xx reader takes it) is
    cut only in mail text: in a log line or an error text it is prose ("secret change refused: ...")."""
    if not text:
        return text
    for pattern in (_STR_LINE, _STR_ANY) if mail else (_STR_ANY,):
        text = pattern.sub(lambda m: m.group(1) + m.group(2) + MARK, text)
    text = _FORM_STR.sub(MARK, text)
    for token in _known(secrets):
        text = _known_pattern(token, False).sub(MARK, text)
    return text


def redacting(log: Callable[[str], Any]) -> Callable[[str], Any]:
    """A log function that writes each line with every secret cut (for a worker's or cycle's log: an error
    text may quote a mail, e.g. a database refusing a value taken from it)."""
    def write(line: str) -> Any:
        return log(redact_text(line))

    return write


def redact_bytes(data: bytes, secrets: Iterable[str] = ()) -> bytes:
    """:func:`redact_text` on bytes as they stand (a raw message body that is not encoded)."""
    mark = MARK.encode()
    for pattern in _BYTES:
        data = pattern.sub(lambda m: m.group(1) + m.group(2) + mark, data)
    data = _FORM_BYTES.sub(mark, data)
    for token in _known(secrets):
        data = _known_pattern(token, True).sub(mark, data)
    return data


def holds_secret(text: str, secrets: Iterable[str] = ()) -> bool:
    """True if the mail text ``text`` still shows a secret: a SECRET line with a value, pbm's form, or a
    known secret (also when other characters stand between its letters, as a soft line break does)."""
    if redact_text(text, secrets, mail=True) != text:
        return True
    flat = _normal(text)
    return any(token in flat for token in _known(secrets))


# -- the stored message ----------------------------------------------------------------------------------

def remember(row: Any, secret: str | None) -> None:
    """Tell the redaction which secret a handler read from ``row`` (kept on the object, never stored)."""
    if secret:
        known = row.__dict__.setdefault("_pbm_secrets", [])
        known.append(secret)


def _split(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """(header block, the empty line, body)."""
    cut = [i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0]
    if not cut:
        return raw, b"", b""
    at = min(cut)
    sep = b"\r\n\r\n" if raw[at:at + 4] == b"\r\n\r\n" else b"\n\n"
    return raw[:at], sep, raw[at + len(sep):]


_SUBJECT = re.compile(rb"(?im)^subject[ \t]*:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)")


def _decoded(value: bytes) -> str:
    text = value.decode("utf-8", "replace")
    try:
        return str(email.header.make_header(email.header.decode_header(" ".join(text.split()))))
    except Exception:  # a broken encoded word: as it stands
        return " ".join(text.split())


def _header_line(name: str, text: str) -> bytes:
    if text.isascii():
        return f"{name}: {text}".encode()
    return f"{name}: ".encode() + email.header.Header(text, "utf-8").encode().encode()


def _redact_head(head: bytes, secrets: list[str]) -> bytes:
    def one(m: re.Match) -> bytes:
        value = _decoded(m.group(1))
        cut = redact_text(value, secrets)
        return m.group(0) if cut == value else _header_line("Subject", cut)

    return _SUBJECT.sub(one, head)


def _parts_hold_secret(raw: bytes, secrets: list[str]) -> bool:
    """True if a decoded text part or a PDF form of ``raw`` still holds a secret (or it cannot be read)."""
    from pbm.mail.message import Unreadable, contents, parse_bytes

    try:
        found = contents(parse_bytes(raw))
    except Unreadable:  # never read (too large, too deep): kept as it came, less the cuts made in its bytes
        return False
    for cand in found.candidates:
        if cand.kind == "pdf":
            if _pdf_holds_secret(cand.data or b""):
                return True
        elif holds_secret(cand.text or "", secrets):
            return True
    return False


def _pdf_holds_secret(data: bytes) -> bool:
    """Whether a PDF's form has a filled SECRET field (a turnsheet); a PDF pbm cannot read may hold
    anything.  Read here with pypdf itself: the mail layer reaches no game package (tests/test_imports.py)."""
    import io
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        fields = reader.get_fields() or {}
    except Exception:  # noqa: BLE001 - a PDF pbm cannot read: it may hold anything
        return True
    for name, field in fields.items():
        value = field.get("/V") if isinstance(field, dict) else None
        if "SECRET" in str(name).upper() and str(value or "").strip().strip("/"):
            return True
    return False


def _rewrite_parts(raw: bytes, secrets: list[str], original_sha: str) -> bytes | None:
    """Decode each part, cut the secrets, encode it again; None if the message cannot be rebuilt."""
    from pbm.mail.message import SMTP_POLICY, Unreadable, decode_text, parse_bytes

    try:
        msg = parse_bytes(raw)
        for part in msg.walk():
            if part.is_multipart():
                continue
            ctype = (part.get_content_type() or "text/plain").lower()
            name = part.get_filename()
            disposition = part.get_content_disposition()
            if ctype == "application/pdf" or (name or "").lower().endswith(".pdf"):
                data = part.get_payload(decode=True)
                if isinstance(data, bytes) and _pdf_holds_secret(data):
                    part.set_content(f"[PDF removed by pbm: it held a player's secret; sha256 of the original "
                                     f"message: {original_sha}]\n", disposition=disposition,
                                     filename=(name or "turnsheet.pdf") + ".txt")
                continue
            if part.get_content_maintype() != "text":
                continue
            text = decode_text(part)
            if text is None or not holds_secret(text, secrets):
                continue
            part.set_content(redact_text(text, secrets, mail=True), subtype=part.get_content_subtype(),
                             disposition=disposition, filename=name)
        return msg.as_bytes(policy=SMTP_POLICY)
    except (Unreadable, Exception):  # noqa: BLE001 - anything odd: the caller drops the body
        return None


def _drop_body(head: bytes, original_sha: str) -> bytes:
    return (head + b"\r\nX-PBM-Redacted: body removed (it held a player's secret)\r\n\r\n"
            b"[body removed by pbm: it held a player's secret; sha256 of the original: "
            + original_sha.encode() + b"]\r\n")


def redact_raw(raw: bytes, secrets: Iterable[str] = (), original_sha: str = "") -> bytes:
    """The stored copy of a message with every secret cut (the bytes unchanged if it held none)."""
    known = list(secrets)
    head, sep, body = _split(raw)
    try:
        head = _redact_head(head, known)
        out = head + sep + redact_bytes(body, known)
        if not _parts_hold_secret(out, known):
            return out
        rebuilt = _rewrite_parts(out, known, original_sha)
        if rebuilt is not None and not _parts_hold_secret(rebuilt, known):
            return rebuilt
    except Exception:  # noqa: BLE001 - whatever went wrong, no secret is kept: only the headers stay
        head = redact_bytes(head, known)
    return _drop_body(head, original_sha)


def redact_stored(row: Any, outcome: Any = None, secrets: Iterable[str] = ()) -> bool:
    """Cut every secret out of a handled message: its raw bytes, its subject column and its outcome's
    texts (and the reason of ``outcome``, the intake's :class:`pbm.mail.answer.Outcome`, which commands
    print).  True if the raw bytes changed (``outcome["redacted"]`` says so too)."""
    from pbm.mail.compose import one_line
    from pbm.mail.message import content_digest

    known = [*row.__dict__.get("_pbm_secrets", []), *secrets]
    if outcome is not None and getattr(outcome, "reason", ""):
        outcome.reason = redact_text(outcome.reason, known)
    raw = row.raw or b""
    out = redact_raw(raw, known, row.sha256 or "")
    if row.subject:
        subject = one_line(redact_text(row.subject, known), 500)
        if subject != row.subject:
            row.subject = subject
    outcome = dict(row.outcome or {})
    cleaned = {k: _clean_value(v, known) for k, v in outcome.items()}
    changed = out != raw
    if changed:
        if not row.content_sha256:  # dedupe by content needs the digest of the message as it came
            row.content_sha256 = content_digest(raw)
        row.raw = out
        cleaned["redacted"] = True
    if cleaned != outcome:
        row.outcome = cleaned
    return changed


def _clean_value(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, list):
        return [_clean_value(v, secrets) for v in value]
    return value


def redact_handled(session: Any, batch: int = 200) -> int:
    """Run the redaction over every message already handled (stored before this redaction existed, e.g. an
    18xx move mail kept whole); returns how many changed.  Messages still ``stored`` or in ``error`` are
    left as they are: they are read again when handled.  Without the handler's secret, the SECRET lines and
    pbm's secret form are what is cut."""
    from sqlalchemy import select

    from pbm.models import InboundMessage

    changed, last = 0, 0
    while True:
        rows = session.scalars(select(InboundMessage).where(
            InboundMessage.id > last, InboundMessage.status.not_in(("stored", "error")))
            .order_by(InboundMessage.id).limit(batch)).all()
        if not rows:
            return changed
        for row in rows:
            changed += redact_stored(row)
            last = row.id
        session.flush()

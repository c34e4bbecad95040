"""Issue 34, item 11: no secret is left in plaintext, whatever happened to the mail and whatever its game kind.

One redaction (:mod:`pbm.mail.redact`) runs on every handled message: accepted, refused, late, ignored or
a redelivery; Continental Rails sheets and 18xx moves alike.  It cuts the value of every SECRET line (the
right secret, another player's, one after junk text), any secret known to the handler wherever it stands
(the Subject too), and any secret in pbm's own form (``XXXX-XXXX-XXXX``); an encoded part is rewritten,
and what cannot be cut is dropped.  ``sha256`` and ``content_sha256`` keep the digests of the mail as it
came, so the same mail again is still recognised.  SQLite and PostgreSQL."""

from __future__ import annotations

import email
import email.policy
import re
import hashlib

from sqlalchemy import select

from pbm.auth import normalize_secret
from pbm.db import session_scope
from pbm.mail.ingest import Context, ingest, store_raw
from pbm.models import Game, InboundMessage
from tests.e18xx.test_pbem_mail import PLAYERS, ga  # noqa: F401 (the fixture: an 18GA game 'ga-1' by mail)
from tests.mail.game import SECRETS, code_for, sheet
from tests.mail.helpers import mk

CTX = Context(sender="orders@pbm.example")


def _forms(secret: str) -> list[bytes]:
    return [f.encode() for f in {secret, secret.lower(), secret.upper(), normalize_secret(secret),
                                 normalize_secret(secret).lower()}]


def _clean(row: InboundMessage, *secrets: str) -> None:
    """Neither the stored bytes, nor any decoded part, nor the subject column hold any form of a secret."""
    parsed = email.message_from_bytes(row.raw, policy=email.policy.default)
    texts = [str(parsed["Subject"] or ""), row.subject or ""]
    for part in parsed.walk():
        if not part.is_multipart() and part.get_content_maintype() == "text":
            texts.append(part.get_content())
    for secret in secrets:
        for form in _forms(secret):
            assert form not in row.raw, (form, row.raw.decode(errors="replace"))
        for text in texts:
            assert normalize_secret(secret) not in normalize_secret(text), text


def _qp(text: str) -> bytes:
    from email.message import EmailMessage

    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "Ada <ada@example.org>", "orders@pbm.example", "orders"
    m.set_content(text, cte="quoted-printable")
    raw = m.as_bytes(policy=email.policy.SMTP)
    assert SECRETS[1].encode() not in raw  # the encoding splits it: it cannot be cut where it stands
    return raw


def _lines(out: str, status: str) -> int:
    """How many messages the ingest listed with ``status``."""
    return len(re.findall(rf"^#\d+ .*\b{status}\b", out, re.M))


def _stored(s, outcome) -> InboundMessage:
    return s.get(InboundMessage, outcome.inbound_id)


# -- Continental Rails: refused sheets are redacted too ----------------------------------------------------

def test_item11_refused_cr_sheets_keep_no_secret_and_their_digests(db_url, game):
    with session_scope(db_url) as s:
        b64 = sheet(s, game.game_id, 2, "BORROW: 1\n", code="ZZZZZZ").encode()
        cases = [
            ("wrong code", mk(sheet(s, game.game_id, 1, "BORROW: 5\n", code="ZZZZZZ")), SECRETS[1]),
            ("another player's secret", mk(sheet(s, game.game_id, 1, "BORROW: 5\n", secret=SECRETS[2])), SECRETS[2]),
            ("secret after junk text", mk(sheet(s, game.game_id, 1, "BORROW: 5\n",
                                                secret=f"{SECRETS[1]} please hurry")), SECRETS[1]),
            ("junk before the SECRET line", mk("blah blah SECRET: " + SECRETS[3] + "\nno sheet here\n",
                                               sender="carl@example.org"), SECRETS[3]),
            ("wrong code, base64 attachment", mk(None, sender="ike@example.org", attachments=[
                (b64, "text", "plain", "sheet.txt")]), SECRETS[2]),
            ("wrong code, quoted-printable, the secret cut by a soft line break",
             _qp(sheet(s, game.game_id, 1, "MESSAGE: caf\u00e9\n", code="ZZZZZZ", secret=" " * 66 + SECRETS[1])),
             SECRETS[1]),
        ]
        for what, raw, secret in cases:
            out = ingest(s, raw, CTX)
            assert out.status == "rejected", (what, out)
            row = _stored(s, out)
            _clean(row, secret)
            assert row.sha256 == hashlib.sha256(raw).hexdigest(), what
            assert ingest(s, raw, CTX).status == "duplicate", what  # the same bytes again: still known


def test_item11_a_chosen_secret_on_a_refused_sheet_is_cut_by_its_line(db_url, game):
    """A secret the player chose (not pbm's XXXX-XXXX-XXXX form), wrong for the seat: cut by its SECRET line."""
    chosen = "rail baron 1848 forever"
    with session_scope(db_url) as s:
        out = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n", secret=chosen)), CTX)
        assert out.status == "rejected"
        row = _stored(s, out)
        assert b"rail baron" not in row.raw and b"SECRET: [REDACTED]" in row.raw


def test_item11_the_secret_typed_in_the_subject_is_not_kept(db_url, game):
    with session_scope(db_url) as s:
        accepted = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n"),
                                subject=f"turn 3, my secret is {SECRETS[1]}"), CTX)
        keyword = ingest(s, mk("no sheet", sender="ike@example.org", subject="SECRET: my own words 42"), CTX)
        encoded = ingest(s, mk(sheet(s, game.game_id, 3, "BORROW: 5\n"), sender="carl@example.org",
                               subject=f"Zug \u00fcber {SECRETS[3].lower()}"), CTX)
        assert (accepted.status, keyword.status, encoded.status) == ("accepted", "rejected", "accepted")
        _clean(_stored(s, accepted), SECRETS[1])
        _clean(_stored(s, encoded), SECRETS[3])
        row = _stored(s, keyword)
        assert "my own words" not in row.subject and b"my own words" not in row.raw
        assert _stored(s, accepted).subject.startswith("turn 3, my secret is ")


def test_item11_a_redelivered_sheet_is_redacted_and_still_a_duplicate(db_url, game):
    with session_scope(db_url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n"), msgid="<same@example.org>")
        first = ingest(s, raw, CTX)
        again = ingest(s, b"Received: from relay2.example.org\r\n" + raw, CTX)
        third = ingest(s, b"Received: from relay3.example.org\r\n" + raw, CTX)
        assert (first.status, again.status, third.status) == ("accepted", "duplicate", "duplicate")
        for o in (first, again, third):
            _clean(_stored(s, o), SECRETS[1])
        assert _stored(s, again).content_sha256 == _stored(s, first).content_sha256


def test_item11_an_internal_error_keeps_no_secret_in_its_reason(db_url, game, monkeypatch):
    import pbm.turnsheet.intake as intake

    def boom(session, ctx, parsed):
        raise RuntimeError(f"value too long: 'mail:game:cr-test\rPLAYER: 1\rSECRET: {parsed.header.secret}\r'")

    monkeypatch.setattr(intake, "_authenticate", boom)
    with session_scope(db_url) as s:
        out = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n")), CTX)
        assert out.status == "error"
        row = _stored(s, out)
        assert "SECRET: [REDACTED]" in row.outcome["reason"] and "CCC1" not in row.outcome["reason"]
        assert "CCC1" not in out.reason


def test_item11_log_lines_and_exception_texts_are_redacted():
    from pbm.mail.redact import redact_text

    line = f"mail:game:x\rPLAYER: 1\rSECRET: {SECRETS[1]}\rTURN: 3\r"
    assert redact_text(line) == "mail:game:x\rPLAYER: 1\rSECRET: [REDACTED]\rTURN: 3\r"
    assert redact_text(f"worker: lane 'game:{SECRETS[2].lower()} x'") == "worker: lane 'game:[REDACTED] x'"
    assert redact_text("new secret = rail baron 1848; bye", ["RAILBARON1848"]) == "new secret = [REDACTED]"
    assert redact_text("I typed rail-baron-1848 here", ["RAILBARON1848"]) == "I typed [REDACTED] here"
    assert redact_text("BORROW: 5 and the secret sauce") == "BORROW: 5 and the secret sauce"
    reason = "secret change refused: the NEW SECRET has 6 letters and digits"  # prose in a reason: kept
    assert redact_text(reason) == reason
    assert redact_text("Secret rail baron 1848\npass", mail=True) == "Secret [REDACTED]\npass"  # 18xx header
    from pbm.mail.redact import redacting

    lines: list[str] = []
    redacting(lines.append)(f"worker w1: StringDataRightTruncation: 'mail:game:x\rSECRET: {SECRETS[1]}\r'")
    assert lines == ["worker w1: StringDataRightTruncation: 'mail:game:x\rSECRET: [REDACTED]\r'"]


# -- 18xx: every stored move mail ------------------------------------------------------------------------

def _first_move(cli) -> tuple[int, str]:
    from pbm.e18xx.pbem.games import load, move_text

    with session_scope(cli.url) as s:
        row = s.scalar(select(Game).where(Game.name == "ga-1"))
        g = load(s, row)
        act = next(a for a in g.legal_actions() if type(a).__name__ == "Pass") if any(
            type(a).__name__ == "Pass" for a in g.legal_actions()) else g.legal_actions()[0]
        seat = [n for n, _ in PLAYERS].index(g.controller(g.current_entity())) + 1
        return seat, move_text(g, act)


def test_item11_every_18xx_move_mail_is_stored_without_its_secret(ga):
    cli, secrets, md, path = ga
    seat, move = _first_move(cli)
    other = seat % 3 + 1
    name, addr = PLAYERS[seat - 1]
    mails = [
        ("accepted", mk(f"GAME: ga-1\nPLAYER: {seat}\nSECRET: {secrets[seat]}\n{move}\n", sender=addr,
                        subject=f"move, secret {secrets[seat]}", msgid="<a1@x>")),
        ("refused after authentication", mk(f"GAME: ga-1\nPLAYER: {other}\nSECRET: {secrets[other].lower()}\n"
                                            f"par {secrets[other]} 90\n", sender=PLAYERS[other - 1][1],
                                            msgid="<a2@x>")),
        ("another seat's secret", mk(f"GAME: ga-1\nPLAYER: {seat}\nSECRET: {secrets[other]}\npass\n",
                                     sender=addr, msgid="<a3@x>")),
        ("base64 attachment", mk(None, sender=addr, msgid="<a4@x>", attachments=[
            (f"GAME: ga-1\nPLAYER: {seat}\nSECRET: {secrets[seat]}\nfrobnicate\n".encode(), "text", "plain",
             "moves.txt")])),
    ]
    raws = {}
    for what, raw in mails:
        md.add(raw)
        raws[what] = raw
    out = cli("ingest", "--maildir", str(path)).stdout
    assert _lines(out, "accepted") == 1 and _lines(out, "rejected") == 3, out
    assert not any(form.decode() in out for sec in secrets.values() for form in _forms(sec)), out  # nor printed
    with session_scope(cli.url) as s:
        rows = s.scalars(select(InboundMessage).order_by(InboundMessage.seq)).all()
        assert len(rows) == 4
        for row in rows:
            _clean(row, *secrets.values())
            assert row.sha256 in {hashlib.sha256(r).hexdigest() for r in raws.values()}
        accepted = [r for r in rows if r.status == "accepted"]
        assert len(accepted) == 1 and accepted[0].outcome.get("redacted")
    md.add(raws["accepted"])  # the same bytes under another file name: recognised by their hash
    assert "duplicate" in cli("ingest", "--maildir", str(path)).stdout


def test_item11_a_pdf_sheet_is_replaced_by_a_note_and_the_rest_of_the_mail_is_kept(db_url, game):
    from tests.mail.test_corpus import _filled_pdf, _plain_pdf

    with session_scope(db_url) as s:
        accepted = mk("my pdf, thanks", attachments=[
            (_filled_pdf(s, game.game_id, {"SECRET": SECRETS[1], "BORROW": "700"}), "application", "pdf", "sheet.pdf"),
            (_plain_pdf(), "application", "pdf", "map.pdf")])
        wrong = mk("pdf", attachments=[(_filled_pdf(s, game.game_id, {"SECRET": SECRETS[2], "BORROW": "1"}),
                                        "application", "pdf", "sheet.pdf")])
        outcomes = ingest(s, accepted, CTX), ingest(s, wrong, CTX)
        assert [o.status for o in outcomes] == ["accepted", "rejected"]
        for o, secret in zip(outcomes, (SECRETS[1], SECRETS[2])):
            row = _stored(s, o)
            _clean(row, secret)
            parsed = email.message_from_bytes(row.raw, policy=email.policy.default)
            names = [p.get_filename() for p in parsed.iter_attachments()]
            assert "sheet.pdf.txt" in names and "sheet.pdf" not in names  # the PDF with the secret: a note
            note = next(p for p in parsed.iter_attachments() if p.get_filename() == "sheet.pdf.txt")
            assert "PDF removed by pbm" in note.get_content() and row.sha256 in note.get_content()
        row = _stored(s, outcomes[0])
        parsed = email.message_from_bytes(row.raw, policy=email.policy.default)
        assert "map.pdf" in [p.get_filename() for p in parsed.iter_attachments()]  # no secret in it: kept
        assert "my pdf, thanks" in parsed.get_body(("plain",)).get_content()


def test_item11_mail_stored_before_the_redaction_can_be_redacted_afterwards(db_url, game):
    from pbm.mail.redact import redact_handled

    with session_scope(db_url) as s:
        raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n", code="ZZZZZZ"))
        out = ingest(s, raw, CTX)
        row = _stored(s, out)
        row.raw = raw  # as an older pbm left it
        pending = store_raw(s, mk(sheet(s, game.game_id, 2, "BORROW: 5\n"), sender="ike@example.org"))[0]
        s.flush()
        assert redact_handled(s) == 1
        _clean(row, SECRETS[1])
        assert SECRETS[2].encode() in pending.raw  # not handled yet: read as it came when it is handled
        assert redact_handled(s) == 0


# -- over many shapes of mail: wherever the secret stands, however the mail is encoded ---------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(form=st.sampled_from(["as given", "lower", "no dashes", "spaced", "junk after"]),
       code_ok=st.booleans(), cte=st.sampled_from(["7bit", "base64", "quoted-printable"]),
       extra=st.lists(st.sampled_from(["subject", "quoted", "html", "attachment", "junk before"]), unique=True,
                      max_size=3),
       n=st.integers(0, 10 ** 6))
def test_item11_no_secret_is_stored_wherever_it_stands(db_url, game, form, code_ok, cte, extra, n):
    from email.message import EmailMessage

    secret = SECRETS[1]
    written = {"as given": secret, "lower": secret.lower(), "no dashes": secret.replace("-", ""),
               "spaced": secret.replace("-", " "), "junk after": f"{secret} thanks {n}"}[form]
    with session_scope(db_url) as s:
        text = sheet(s, game.game_id, 1, f"MESSAGE: note {n}\n", secret=written,
                     code=None if code_ok else "ZZZZZZ")
        if "quoted" in extra:
            text += f"\n> SECRET: {secret}\n"
        if "junk before" in extra:
            text += f"\nps my secret: {secret.lower()}\n"
        m = EmailMessage()
        m["From"], m["To"] = "Ada <ada@example.org>", "orders@pbm.example"
        m["Subject"] = f"orders {secret}" if "subject" in extra else f"orders {n}"
        m.set_content(text, cte=cte)
        if "html" in extra:
            m.add_alternative("<p>" + text.replace("\n", "<br>") + "</p>", subtype="html", cte=cte)
        if "attachment" in extra:
            m.add_attachment(text.encode(), maintype="text", subtype="plain", filename="sheet.txt")
        raw = m.as_bytes(policy=email.policy.SMTP)
        out = ingest(s, raw, CTX)
        if out.status == "duplicate":
            return
        counts = code_ok and form != "junk after"  # junk after the secret makes it a wrong secret
        assert out.status == ("accepted" if counts else "rejected"), (out, form, cte, extra)
        row = _stored(s, out)
        _clean(row, secret)
        assert row.sha256 == hashlib.sha256(raw).hexdigest()


def test_item11_pbm_secret_redact_mail_cleans_what_an_older_pbm_kept(cli, db_url, game):
    """The moderator's one-off after upgrading, through the CLI: the old mail is cleaned, a second run
    finds nothing left to clean."""
    with session_scope(db_url) as s:
        out = ingest(s, mk(sheet(s, game.game_id, 1, "BORROW: 5\n", code="ZZZZZZ")), CTX)
        row = _stored(s, out)
        row.raw = mk(sheet(s, game.game_id, 1, "BORROW: 5\n", code="ZZZZZZ"))  # as an older pbm left it
        row_id = row.id
    assert cli("secret", "redact-mail").stdout.startswith("Redacted 1 stored message(s)")
    with session_scope(db_url) as s:
        _clean(s.get(InboundMessage, row_id), SECRETS[1])
    assert cli("secret", "redact-mail").stdout.startswith("Redacted 0 stored message(s)")

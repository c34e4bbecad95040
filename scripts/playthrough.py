#!/usr/bin/env python3
"""Play an 18xx game entirely by mail, as players would (issue 29's play-throughs).

Every mail is a real ``.eml`` file read by ``pbm ingest --eml-dir`` into the game's own SQLite
database; every message pbm queues is written out as text (its PDF through ``pdftotext``) for the
"players" to read.  Nothing is mocked: this drives the ``pbm`` command a moderator runs.

    python scripts/playthrough.py new DIR TITLE SEED N    a game of N seats (Ann, Bob, Cy, Di, Eve, Fay)
    python scripts/playthrough.py mail DIR SEAT FILE      seat SEAT sends FILE; prints pbm's answer to him
    python scripts/playthrough.py status DIR              pbm 18xx status
    python scripts/playthrough.py jsonl DIR FILE          the stored actions, one JSON object a line
    python scripts/playthrough.py tick DIR                pbm 18xx tick (reminders, time-outs)

``FILE`` is the mail's body.  A first line ``Subject: ...`` sets the subject.  Without a ``GAME:``
line the mail gets the seat's ``GAME``/``PLAYER``/``SECRET`` lines on top, as a player copying the
reply block of his last mail would.  Secrets are kept in ``DIR/secrets.json``; pbm's mails go to
``DIR/out/NNNN-<recipient>.txt`` (``NNNN`` the outbox number).  ``PBM`` in the environment names
the ``pbm`` to run (default: the one beside this Python).
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from datetime import datetime, timezone
from pathlib import Path

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]
GAME = "g"


def pbm(d: Path, *args: str) -> str:
    exe = os.environ.get("PBM") or str(Path(sys.executable).with_name("pbm"))
    r = subprocess.run([exe, "--db", f"sqlite:///{d / 'g.db'}", *args], capture_output=True, text=True)
    return r.stdout + r.stderr


def address(seat: int) -> str:
    return f"{NAMES[seat - 1].lower()}@example.org"


def text_of(raw: bytes) -> str:
    """A queued message as its reader sees it: headers, text parts, and each PDF's text."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    out = [f"{h}: {msg[h]}" for h in ("To", "Subject") if msg[h]]
    out.append("")
    for part in msg.walk():
        kind = part.get_content_type()
        if kind == "text/plain":
            out.append(part.get_content())
        elif kind == "application/pdf":
            with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
                f.write(part.get_payload(decode=True))
                f.flush()
                pdf = subprocess.run(["pdftotext", "-layout", f.name, "-"], capture_output=True, text=True)
            out.append(f"--- PDF {part.get_filename()} ---\n{pdf.stdout}")
    return "\n".join(out)


def dump_outbox(d: Path) -> list[tuple[list[str], Path]]:
    """Write every message queued since the last call; returns (recipients, file) of each."""
    seen_file = d / "out" / ".seen"
    seen = int(seen_file.read_text()) if seen_file.exists() else 0
    con = sqlite3.connect(d / "g.db")
    rows = con.execute("SELECT id, recipients, raw FROM outbox WHERE id > ? ORDER BY id", (seen,)).fetchall()
    con.close()
    made = []
    for oid, recipients, raw in rows:
        to = json.loads(recipients) if recipients else []
        path = d / "out" / f"{oid:04d}-{'+'.join(to) or 'nobody'}.txt"
        path.write_text(text_of(raw), encoding="utf-8")
        made.append((to, path))
        seen = oid
    seen_file.write_text(str(seen))
    return made


def new(d: Path, title: str, seed: str, n: str) -> None:
    d.mkdir(parents=True)
    (d / "out").mkdir()
    (d / "in").mkdir()
    seats = int(n)
    lines = ["name,email"] + [f"{NAMES[i]},{address(i + 1)}" for i in range(seats)]
    (d / "players.csv").write_text("\n".join(lines) + "\n")
    said = pbm(d, "new-game", title, "--seed", seed, "--players", str(d / "players.csv"), "--name", GAME)
    print(said)
    secrets = {m.group(1): m.group(2) for m in re.finditer(r"#(\d) [^<]+<[^>]+>: (\S+)", said)}
    if len(secrets) != seats:
        sys.exit("could not read the secrets")
    (d / "secrets.json").write_text(json.dumps(secrets))
    for to, path in dump_outbox(d):
        print(f"queued: {path.name}")


def mail(d: Path, seat: str, file: str) -> None:
    body = Path(file).read_text(encoding="utf-8")
    subject = "moves"
    first, _, rest = body.partition("\n")
    if first.lower().startswith("subject:"):
        subject, body = first.split(":", 1)[1].strip(), rest
    if not re.search(r"^\s*GAME\s*:", body, re.M | re.I):
        secret = json.loads((d / "secrets.json").read_text())[seat]
        body = f"GAME: {GAME}\nPLAYER: {seat}\nSECRET: {secret}\n\n{body}"
    msg = EmailMessage()
    msg["From"] = f"{NAMES[int(seat) - 1]} <{address(int(seat))}>"
    msg["To"] = "moderator@example.org"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime.now(timezone.utc))
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(body)
    n = len(list((d / "in").iterdir())) + 1
    folder = d / "in" / f"{n:04d}"
    folder.mkdir()
    (folder / f"m{n:04d}.eml").write_bytes(bytes(msg))
    print(pbm(d, "ingest", GAME, "--eml-dir", str(folder)))
    mine = address(int(seat))
    for to, path in dump_outbox(d):
        print(f"queued: {path.name}")
        if mine in to:
            print(path.read_text(encoding="utf-8"))


def jsonl(d: Path, file: str) -> None:
    con = sqlite3.connect(d / "g.db")
    rows = con.execute("SELECT action FROM actions_18xx ORDER BY seq").fetchall()
    con.close()
    lines = [json.dumps(json.loads(a), sort_keys=True) for (a,) in rows]
    Path(file).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"{len(lines)} actions written to {file}")


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, d = argv[0], Path(argv[1])
    if cmd == "new" and len(argv) == 5:
        new(d, *argv[2:])
    elif cmd == "mail" and len(argv) == 4:
        mail(d, argv[2], argv[3])
    elif cmd == "status":
        print(pbm(d, "18xx", "status", GAME))
    elif cmd == "jsonl" and len(argv) == 3:
        jsonl(d, argv[2])
    elif cmd == "tick":
        print(pbm(d, "18xx", "tick", GAME))
        for _, path in dump_outbox(d):
            print(f"queued: {path.name}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

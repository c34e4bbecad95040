#!/usr/bin/env python3
"""A crash, race and hostile-mail campaign against the mail intake, as an operator would try it (issue 34).

Each scenario is tried N times (seeded: trial t of a scenario uses seed BASE + t) on a fresh database,
with real `pbm` processes, a real PostgreSQL server and a real SMTP server on loopback (aiosmtpd), and
counts what it finds.  Columns of the table printed at the end:

- **tried**: trials run;
- **survived**: trials where every command ended as it should (exit code, no traceback) and every
  message was handled;
- **lost**: valid moves or sheets not applied, valid moves refused, answers never sent;
- **doubled**: moves applied twice, sheets stored twice, mails delivered twice, refusals over the
  stranger limit;
- **leaked**: a player's secret found in a command's output, a stored message (raw or subject).

Scenarios:

    hostile     strangers' `GAME: xxx…` lines, CR-only mail with a SECRET, a 38-character game name,
                unreadable bytes, beside a game's moves: `pbm worker --once` (item 1)
    race-*      two intake commands started together on one PostgreSQL database (item 2):
                ingest+worker, worker+cycle, ingest+cycle, worker+worker
    crash-*     `pbm cycle` / `pbm ingest` killed at a random commit (PBM_FAULT_EXIT_AT_COMMIT), then
                run again (item 3)
    answers     a worker killed at a random commit while it answers moves; the next worker sends
                what is left, nothing twice (item 4)
    bad-smtp    a wrong [smtp] value: the cycle must fail and keep the turn 'reported' (item 5)
    strangers   30 mails from 6 unknown addresses to an 18xx game: at most one refusal per address a
                day, none quoting the mail or replying to its Message-ID (item 6)

    scripts/campaign.py --trials 3                 # every scenario three times (a few minutes)
    scripts/campaign.py --trials 20 --only race    # the races, twenty times each
    scripts/campaign.py --pg postgresql://postgres@127.0.0.1:5432/postgres

Needs the test dependencies (aiosmtpd): `pip install -e .[test]`.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import os
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, select, text  # noqa: E402
from sqlalchemy.pool import NullPool  # noqa: E402

from pbm.db import get_engine, normalize_url, session_scope  # noqa: E402
from pbm.e18xx.pbem.seed import mail_first_moves  # noqa: E402
from pbm.models import Action18, Game, InboundMessage, OrderSet, Player, TurnState  # noqa: E402
from pbm.turnsheet.seed import populate  # noqa: E402

BASE_SEED = 34_000


@dataclass
class Tally:
    tried: int = 0
    survived: int = 0
    lost: int = 0
    doubled: int = 0
    leaked: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, ok: bool, lost: int = 0, doubled: int = 0, leaked: int = 0, note: str = "") -> None:
        self.tried += 1
        self.survived += bool(ok and not lost and not doubled and not leaked)
        self.lost += lost
        self.doubled += doubled
        self.leaked += leaked
        if note and len(self.notes) < 3:
            self.notes.append(note)


class Databases:
    """A fresh PostgreSQL database per trial, made from one migrated template."""

    def __init__(self, admin: str) -> None:
        self.admin = admin
        self.made: list[str] = []
        self.template = f"pbm_campaign_tpl_{uuid.uuid4().hex[:8]}"
        with self._admin() as c:
            c.execute(text(f'CREATE DATABASE "{self.template}"'))
        self.made.append(self.template)
        get_engine(self._url(self.template)).dispose()  # migrated once

    def _admin(self):
        return create_engine(normalize_url(self.admin), poolclass=NullPool,
                             isolation_level="AUTOCOMMIT").connect()

    def _url(self, name: str) -> str:
        return self.admin.rsplit("/", 1)[0] + "/" + name

    def fresh(self) -> str:
        name = f"pbm_campaign_{uuid.uuid4().hex[:8]}"
        with self._admin() as c:
            c.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        self.made.append(name)
        return self._url(name)

    def drop(self) -> None:
        from pbm.db import close_engines

        close_engines()
        with self._admin() as c:
            for name in reversed(self.made):
                c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _env(extra: dict | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")}
    return env | {"PYTHONPATH": str(ROOT)} | (extra or {})


def pbm(url: str, *args: str, cwd: Path, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pbm", "--db", url, *map(str, args)], cwd=cwd, env=_env(env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


HANG = 600  # seconds a command may take before it counts as hung (and is killed with its children)


def done(proc: subprocess.Popen) -> tuple[int, str]:
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the command and every process it started (render workers)
        out, err = proc.communicate()
        return -9, out + err + f"\nHUNG: killed after {HANG} s"
    return proc.returncode, out + err


def run(url: str, *args: str, cwd: Path, env: dict | None = None) -> tuple[int, str]:
    return done(pbm(url, *args, cwd=cwd, env=env))


def folders(work: Path) -> list[str]:
    return ["--reports", str(work / "reports"), "--archive", str(work / "archive")]


def _drop(maildir: Path, raw: bytes, name: str) -> None:
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    (maildir / "tmp" / name).write_bytes(raw)
    os.rename(maildir / "tmp" / name, maildir / "new" / name)


def _mail(body: str, sender: str, subject: str = "hello", msgid: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "games@example.org"
    msg["Subject"] = subject
    if msgid:
        msg["Message-ID"] = msgid
    msg.set_content(body)
    return msg.as_bytes()


def mailed_secrets(maildir: Path) -> set[str]:
    found = set()
    for path in maildir.rglob("*"):
        if path.is_file():
            for line in path.read_bytes().decode("utf-8", "replace").replace("\r", "\n").splitlines():
                if line.strip().upper().startswith("SECRET:"):
                    value = line.split(":", 1)[1].strip()
                    if len(value) >= 6:
                        found.add(value)
    return found


def leaks(url: str, secrets: set[str], *outputs: str) -> int:
    """How many places hold a secret: command outputs, stored raw messages, stored subjects."""
    count = sum(1 for out in outputs for s in secrets if s in out)
    with session_scope(url) as s:
        for raw, subject in s.execute(select(InboundMessage.raw, InboundMessage.subject)):
            text_ = raw.decode("utf-8", "replace")
            count += sum(1 for secret in secrets if secret in text_ or secret in (subject or ""))
    return count


def statuses(url: str) -> Counter:
    with session_scope(url) as s:
        return Counter(dict(s.execute(select(InboundMessage.status, func.count())
                                      .group_by(InboundMessage.status)).all()))


def moves_applied(url: str) -> dict[str, int]:
    with session_scope(url) as s:
        return dict(s.execute(select(Game.name, func.count(Action18.id)).join(Action18, Action18.game_id == Game.id)
                              .group_by(Game.name)).all())


def count_moves(url: str, mailed: dict[str, int]) -> tuple[int, int]:
    applied = moves_applied(url)
    lost = sum(max(0, n - applied.get(g, 0)) for g, n in mailed.items())
    doubled = sum(max(0, applied.get(g, 0) - n) for g, n in mailed.items())
    return lost, doubled


# -- scenarios ---------------------------------------------------------------------------------------

def hostile(url: str, work: Path, rng: np.random.Generator, tally: Tally) -> None:
    maildir = work / "md"
    name_len = int(rng.integers(8, 33))
    prefix = ("g" + "x" * 40)[:name_len]
    moves = int(rng.integers(3, 7))
    mailed = mail_first_moves(url, title="18GA", games=1, moves=moves, maildir=maildir, seed=int(rng.integers(1e6)),
                              prefix=prefix)
    [game] = mailed
    secrets = mailed_secrets(maildir)
    for k in range(int(rng.integers(2, 6))):
        kind = int(rng.integers(0, 4))
        if kind == 0:
            raw = _mail("GAME: " + "x" * int(rng.integers(31, 400)) + "\n", f"s{k}@elsewhere.example")
        elif kind == 1:
            raw = (f"From: p1.{game}@example.org\rTo: games@example.org\rSubject: m\r\r"
                   f"GAME: {game}\rPLAYER: 1\rSECRET: cr-only-secret-{k}\rpass\r").encode()
            secrets.add(f"cr-only-secret-{k}")
        elif kind == 2:
            raw = bytes(rng.integers(0, 256, int(rng.integers(1, 400)), dtype=np.uint8))
        else:
            raw = _mail(f"GAME: {game}\nPLAYER: 1\nSECRET: guessed-{k}\npass\n", f"s{k}@elsewhere.example")
        _drop(maildir, raw, f"0000-hostile-{k}")
    code, out = run(url, "worker", "--once", "--maildir", maildir, *folders(work), cwd=work)
    lost, doubled = count_moves(url, mailed)
    left = statuses(url)["stored"]
    ok = code == 0 and "Traceback" not in out and left == 0
    tally.add(ok, lost + left, doubled, leaks(url, secrets, out),
              "" if ok else f"exit {code}, {left} left stored: {out.strip().splitlines()[-1:]}")


PAIRS = {
    "race-ingest+worker": (["ingest"], ["worker", "--once"]),
    "race-worker+cycle": (["worker", "--once"], ["cycle"]),
    "race-ingest+cycle": (["ingest"], ["cycle"]),
    "race-worker+worker": (["worker", "--once"], ["worker", "--once"]),
}


def race(pair: str):
    def scenario(url: str, work: Path, rng: np.random.Generator, tally: Tally) -> None:
        maildir = work / "md"
        seed = int(rng.integers(1e6))
        mailed = mail_first_moves(url, title="18GA", games=2, moves=int(rng.integers(3, 6)), maildir=maildir,
                                  seed=seed, prefix="race")
        [cr] = populate(url, games=1, humans=3, maildir=maildir, seed=seed + 7, prefix="crrace")
        procs = []
        for n, args in enumerate(PAIRS[pair]):
            extra = ["--maildir", str(maildir)]
            if args[0] in ("worker", "cycle"):
                extra += ["--reports", str(work / f"r{n}"), "--archive", str(work / f"a{n}")]
            procs.append(pbm(url, *args, *extra, cwd=work))
        results = [done(p) for p in procs]
        lost, doubled = count_moves(url, mailed)
        st = statuses(url)
        lost += sum(mailed.values()) + 3 - st["accepted"]
        with session_scope(url) as s:
            gid = s.scalar(select(Game.id).where(Game.name == cr))
            per = Counter(s.scalars(select(OrderSet.player_id).join(Player, Player.id == OrderSet.player_id)
                                    .where(Player.game_id == gid, OrderSet.source == "email", OrderSet.turn == 1)))
        doubled += sum(max(0, n - 1) for n in per.values())
        ok = all(code == 0 and "Traceback" not in out for code, out in results) and st["stored"] == 0
        tally.add(ok, max(0, lost), doubled, 0, "" if ok and not lost else
                  f"{dict(st)} {[c for c, _ in results]} {[out.strip().splitlines()[-1:] for _, out in results]}")
    return scenario


def crash(command: str):
    def scenario(url: str, work: Path, rng: np.random.Generator, tally: Tally) -> None:
        maildir = work / "md"
        mailed = mail_first_moves(url, title="18GA", games=1, moves=6, maildir=maildir, seed=int(rng.integers(1e6)),
                                  prefix="crash")
        args = [command, "--maildir", str(maildir)] + (folders(work) if command == "cycle" else [])
        # the commit points of an uninterrupted run are not counted on this database (it would do the work):
        # 6 moves make at least 12 commits (stored, handled); a kill anywhere in the first 14 is tried
        point = int(rng.integers(1, 15))
        code, out = run(url, *args, cwd=work, env={"PBM_FAULT_EXIT_AT_COMMIT": str(point)})
        outs = [out]
        for _ in range(3):
            code, out = run(url, *args, cwd=work)
            outs.append(out)
            if code == 0:
                break
        lost, doubled = count_moves(url, mailed)
        st = statuses(url)
        lost = max(lost, 6 - st["accepted"])
        tally.add(code == 0 and st == {"accepted": 6}, lost, doubled, 0,
                  "" if not lost else f"killed at commit {point}: {dict(st)}")
    return scenario


def answers(url: str, work: Path, rng: np.random.Generator, tally: Tally) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.mail.smtp import SmtpServer

    maildir = work / "md"
    mail_first_moves(url, title="18GA", games=1, moves=3, maildir=maildir, seed=int(rng.integers(1e6)), prefix="ans")
    with SmtpServer() as smtp:
        config = work / "pbm.toml"
        config.write_text(smtp.config_toml())
        point = int(rng.integers(1, 20))
        run(url, "worker", "--once", "--maildir", maildir, "--config", config, *folders(work), cwd=work,
            env={"PBM_FAULT_EXIT_AT_COMMIT": str(point)})
        code, out = run(url, "worker", "--once", "--maildir", maildir, "--config", config, *folders(work), cwd=work)
        from pbm.mail.outbox import pending

        with session_scope(url) as s:
            waiting = pending(s)
        uncertain = sum(1 for _m, _r, st in waiting if st == "sending")
        if uncertain:  # the moderator checks with the relay, then resends (item 12: it may have arrived)
            run(url, "send-mail", "--config", config, "--retry-uncertain", cwd=work)
            with session_scope(url) as s:
                waiting = pending(s)
        seen = Counter((m.mail_from, tuple(m.rcpt_tos), email.message_from_bytes(m.data)["Message-ID"])
                       for m in smtp.messages)
    doubled = sum(n - 1 for n in seen.values() if n > 1)
    st = statuses(url)
    lost = len(waiting) + (3 - st["accepted"])
    tally.add(code == 0, lost, doubled, 0, "" if not (lost or doubled) else
              f"killed at {point}: {len(waiting)} unsent, {doubled} twice, {uncertain} uncertain")


BAD_SMTP = ['[smtp]\nhost = "127.0.0.1"\nport = "abc"\nfrom = "m@pbm.example"\n',
            '[smtp]\nhost = "127.0.0.1"\nstarttls = "maybe"\nfrom = "m@pbm.example"\n',
            '[smtp]\nhost = "127.0.0.1"\nport = 2525\n']


def bad_smtp(url: str, work: Path, rng: np.random.Generator, tally: Tally) -> None:
    maildir = work / "md"
    [name] = populate(url, games=1, humans=1, maildir=maildir, seed=int(rng.integers(1e6)), prefix="smtp")
    config = work / "pbm.toml"
    config.write_text(BAD_SMTP[int(rng.integers(0, len(BAD_SMTP)))])
    code, out = run(url, "cycle", "--maildir", maildir, "--config", config, *folders(work), cwd=work)
    with session_scope(url) as s:
        gid = s.scalar(select(Game.id).where(Game.name == name))
        state = s.scalar(select(TurnState.state).where(TurnState.game_id == gid, TurnState.turn == 1))
    ok = code != 0 and "Traceback" not in out and state == "reported"
    tally.add(ok, 0 if ok else 1, 0, 0, "" if ok else f"exit {code}, turn 1 {state}: {out.strip().splitlines()[-2:]}")


def strangers(url: str, work: Path, rng: np.random.Generator, tally: Tally) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.mail.smtp import SmtpServer

    maildir = work / "md"
    mailed = mail_first_moves(url, title="18GA", games=1, moves=1, maildir=maildir, seed=int(rng.integers(1e6)),
                              prefix="str")
    [game] = mailed
    for k in range(30):
        who = f"attacker{int(rng.integers(0, 6))}@elsewhere.example"
        body = f"GAME: {game}\nPLAYER: {int(rng.integers(1, 4))}\nSECRET: guess{k}\npass\n"
        _drop(maildir, _mail(body, who, subject=f"URGENT visit http://evil.example/{k}",
                             msgid=f"<attack-{k}@evil.example>"), f"9{k:03d}-attack")
    with SmtpServer() as smtp:
        config = work / "pbm.toml"
        config.write_text(smtp.config_toml())
        code, out = run(url, "ingest", "--maildir", maildir, "--config", config, "--send", cwd=work)
        to = Counter()
        quoted = 0
        for m in smtp.messages:
            parsed = email.message_from_bytes(m.data, policy=email.policy.default)
            for r in m.rcpt_tos:
                if r.startswith("attacker"):
                    to[r] += 1
                    body = parsed.get_body(("plain",)).get_content() if parsed.get_body(("plain",)) else ""
                    quoted += ("evil.example" in str(parsed.get("In-Reply-To", "")) or "evil.example" in body
                               or "URGENT" in str(parsed["Subject"]))
    over = sum(n - 1 for n in to.values() if n > 1)
    tally.add(code == 0 and "Traceback" not in out, 0, over, quoted,
              "" if not (over or quoted) else f"{sum(to.values())} refusals to {len(to)} strangers, {quoted} quoting")


SCENARIOS = {"hostile": hostile, **{p: race(p) for p in PAIRS}, "crash-cycle": crash("cycle"),
             "crash-ingest": crash("ingest"), "answers": answers, "bad-smtp": bad_smtp, "strangers": strangers}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--only", default="", help="run the scenarios whose name contains this")
    parser.add_argument("--pg", default=os.environ.get("PBM_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres"))
    args = parser.parse_args()
    dbs = Databases(args.pg)
    tallies: dict[str, Tally] = {}
    try:
        for name, scenario in SCENARIOS.items():
            if args.only and args.only not in name:
                continue
            tally = tallies[name] = Tally()
            for t in range(args.trials):
                rng = np.random.default_rng([BASE_SEED, t, sum(map(ord, name))])
                with tempfile.TemporaryDirectory(prefix="pbm-campaign-") as tmp:
                    try:
                        scenario(dbs.fresh(), Path(tmp), rng, tally)
                    except Exception as exc:  # a scenario that breaks is a finding, not the end of the campaign
                        tally.add(False, note=f"{type(exc).__name__}: {exc}"[:200])
                    finally:
                        from pbm.db import close_engines

                        close_engines()  # this trial's connections: a campaign makes a database per trial
            print(f"{name}: {tally.tried} tried, {tally.survived} survived", flush=True)
    finally:
        dbs.drop()
    print()
    print("| scenario | tried | survived | lost | doubled | leaked |")
    print("|---|---|---|---|---|---|")
    for name, t in tallies.items():
        print(f"| {name} | {t.tried} | {t.survived} | {t.lost} | {t.doubled} | {t.leaked} |")
    for name, t in tallies.items():
        for note in t.notes:
            print(f"  {name}: {note}")
    return 0 if all(t.survived == t.tried for t in tallies.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

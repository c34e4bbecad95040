"""``pbm doctor``: what this pbm is, what it is configured to use, and whether that is reachable.

For a moderator (or a hosting operator) checking an installation: the version
and where pbm is installed, the database and its schema revision, the mail
intake (IMAP) and delivery (SMTP) settings — never a password, only whether
one is set — the PDF fonts, and the free disk space.  Nothing is changed: the
database is not migrated, no mail is read or sent.
"""

from __future__ import annotations

import platform
import shutil
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbm import __version__

LOW_DISK = 1 << 30  # warn under 1 GiB free


@dataclass
class Check:
    section: str
    ok: bool | None  # None: not configured (not an error)
    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def _reach(host: str, port: int, timeout: float = 3.0) -> str | None:
    """None if a TCP connection opens, else the reason."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def check_install() -> Check:
    from pbm.resources import migrations_dir, templates_dir

    c = Check("pbm", True)
    c.data = {"version": __version__, "python": platform.python_version(), "package": str(Path(__file__).parent)}
    c.lines.append(f"pbm {__version__} (Python {platform.python_version()}, {sys.executable})")
    c.lines.append(f"installed at {Path(__file__).parent}")
    for name, finder in (("migrations", migrations_dir), ("templates", templates_dir)):
        try:
            c.data[name] = str(finder())
            c.lines.append(f"{name}: {finder()}")
        except FileNotFoundError as exc:
            c.ok = False
            c.lines.append(f"PROBLEM: {exc}")
    return c


def check_database(url: str | None) -> Check:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from alembic.config import Config
    from sqlalchemy import inspect, text

    from pbm.db import database_url, get_engine
    from pbm.resources import migrations_dir

    chosen = database_url(url)
    engine = get_engine(chosen, migrate=False)
    shown = engine.url.render_as_string(hide_password=True)
    c = Check("database", True, data={"url": shown, "dialect": engine.dialect.name})
    c.lines.append(f"URL: {shown} ({engine.dialect.name})")
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    c.data["head"] = head
    try:
        with engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
            tables = inspect(conn).get_table_names()
            games = conn.execute(text("SELECT count(*) FROM games")).scalar() if "games" in tables else 0
            if engine.dialect.name == "postgresql":
                c.data["server"] = conn.execute(text("SHOW server_version")).scalar()
                c.lines.append(f"server: PostgreSQL {c.data['server']}")
                from pbm.db import pool_settings

                limits = {k: conn.execute(text(f"SHOW {k}")).scalar() for k in ("statement_timeout", "lock_timeout")}
                pool = pool_settings()
                c.data.update(limits, pool_size=pool["pool_size"], pool_overflow=pool["max_overflow"])
                c.lines.append(f"statement_timeout {limits['statement_timeout']}, lock_timeout {limits['lock_timeout']} "
                               f"(0: none; PBM_STATEMENT_TIMEOUT, PBM_LOCK_TIMEOUT); pool {pool['pool_size']} "
                               f"+ {pool['max_overflow']} connections")
    except Exception as exc:  # unreachable, bad credentials, not a database
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        c.ok = False
        c.lines.append(f"PROBLEM: cannot connect: {reason}")
        return c
    c.data.update(revision=current, games=games)
    if current is None:
        c.lines.append(f"schema: empty (pbm creates it at revision {head} on first use)")
    elif current == head:
        c.lines.append(f"schema: revision {current} (up to date); {games} game(s)")
    else:
        c.lines.append(f"schema: revision {current}, this pbm's is {head}: the next command upgrades it "
                       "(stop every worker first; see docs/hosting.md)")
    return c


def _mail_section(name: str, loader, port_attr: str = "port") -> Check:
    from pbm.mail.config import ConfigError

    try:
        cfg = loader()
    except ConfigError as exc:
        return Check(name, None, [f"not configured ({exc})"], {"configured": False})
    data = {k: v for k, v in vars(cfg).items() if k != "password"}
    data["password"] = "set" if cfg.password else "not set"
    data["configured"] = True
    shown = ", ".join(f"{k} {v}" for k, v in data.items() if k not in ("configured",))
    c = Check(name, True, [shown], data)
    problem = _reach(cfg.host, getattr(cfg, port_attr))
    c.data["reachable"] = problem is None
    if problem:
        c.ok = False
        c.lines.append(f"PROBLEM: {cfg.host}:{getattr(cfg, port_attr)} not reachable: {problem}")
    else:
        c.lines.append(f"{cfg.host}:{getattr(cfg, port_attr)} reachable")
    return c


def check_mail(config: Path | None) -> list[Check]:
    from pbm.mail.config import imap_config, load_file, smtp_config

    try:
        load_file(config)
    except Exception as exc:
        return [Check("mail", False, [f"PROBLEM: {exc}"])]
    return [_mail_section("mail in (IMAP)", lambda: imap_config(config)),
            _mail_section("mail out (SMTP)", lambda: smtp_config(config))]


def check_fonts() -> Check:
    from pbm import fonts

    files = fonts.describe()
    ok = all(f["ok"] == "yes" for f in files)
    c = Check("fonts", ok, data={"files": files})
    c.lines.append(", ".join(f"{Path(f['file']).name} {'ok' if f['ok'] == 'yes' else 'MISSING'}" for f in files))
    if ok:
        sample = "Zoë Ñúñez, Łódź, Дмитрий, Ελένη"
        covered = fonts.covered(sample)
        c.data["unicode"] = covered
        c.lines.append(f"covers Latin Extended, Greek, Cyrillic: {'yes' if covered else 'NO'}")
        c.ok = covered
    return c


def check_disk(url: str | None) -> Check:
    from pbm.db import database_url

    places = {"working folder": Path.cwd()}
    chosen = database_url(url)
    if chosen.startswith("sqlite:///") and chosen != "sqlite:///:memory:":
        places["database file"] = Path(chosen[len("sqlite:///"):]).resolve().parent
    c = Check("disk", True)
    for label, place in places.items():
        usage = shutil.disk_usage(place if place.exists() else Path.cwd())
        c.data[label] = {"path": str(place), "free": usage.free, "total": usage.total}
        line = f"{label} {place}: {usage.free / 2**30:.1f} GiB free of {usage.total / 2**30:.1f} GiB"
        if usage.free < LOW_DISK:
            c.ok = False
            line = "PROBLEM: " + line + " (under 1 GiB)"
        c.lines.append(line)
    return c


def run(url: str | None, config: Path | None) -> list[Check]:
    return [check_install(), check_database(url), *check_mail(config), check_fonts(), check_disk(url)]

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

    from pbm.db import DatabaseError, check_sqlite_file

    chosen = database_url(url)
    try:
        engine = get_engine(chosen, migrate=False)
    except DatabaseError as exc:  # mysql://…, a URL that is not one: said, not raised
        return Check("database", False, [f"PROBLEM: {exc.message}"], {"url": chosen.split("@")[-1]})
    shown = engine.url.render_as_string(hide_password=True)
    c = Check("database", True, data={"url": shown, "dialect": engine.dialect.name})
    c.lines.append(f"URL: {shown} ({engine.dialect.name})")
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    script = ScriptDirectory.from_config(cfg)
    head = script.get_current_head()
    c.data["head"] = head
    if engine.dialect.name == "sqlite":
        try:  # an empty file, a folder, not SQLite, damaged: what every command would refuse
            check_sqlite_file(engine)
        except DatabaseError as exc:
            c.ok = False
            c.lines.append(f"PROBLEM: {exc.message}")
            return c
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
    elif not _known_revision(script, current):
        c.ok = False
        c.data["newer"] = True
        c.lines.append(f"PROBLEM: schema revision {current} was made by a newer pbm (this pbm knows up to {head}): "
                       "upgrade pbm to use this database; this pbm refuses to change it")
    else:
        c.lines.append(f"schema: revision {current}, this pbm's is {head}: the next command upgrades it "
                       "(stop every worker first; see docs/hosting.md)")
    return c


def _known_revision(script, revision: str) -> bool:
    try:
        return script.get_revision(revision) is not None
    except Exception:  # noqa: BLE001 - alembic: "Can't locate revision", an ambiguous prefix
        return False


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


def _font_files() -> list[dict[str, str]]:
    """Each font file and whether it is there, read without importing :mod:`pbm.fonts` (which registers
    them with reportlab at import, and fails then when one is missing)."""
    import importlib.util

    spec = importlib.util.find_spec("pbm.fonts")
    folder = Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None
    names = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf",
             "DejaVuSansMono.ttf")
    return [{"file": str(folder / n) if folder else n, "ok": "yes" if folder and (folder / n).is_file() else "missing"}
            for n in names]


def check_fonts() -> Check:
    files = _font_files()
    ok = all(f["ok"] == "yes" for f in files)
    c = Check("fonts", ok, data={"files": files})
    c.lines.append(", ".join(f"{Path(f['file']).name} {'ok' if f['ok'] == 'yes' else 'MISSING'}" for f in files))
    if not ok:
        c.lines.append("PROBLEM: a font file is missing: no PDF (report, turnsheet, 18xx state) can be made; "
                       "reinstall pbm")
        return c
    try:
        from pbm import fonts
    except Exception as exc:  # noqa: BLE001 - a damaged font file: said, not raised
        c.ok = False
        c.lines.append(f"PROBLEM: the fonts cannot be loaded: {exc}")
        return c
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

"""Mail settings: ``pbm.toml`` sections ``[mail]`` (IMAP intake) and ``[smtp]`` (sending).

The file is looked up as ``--config FILE``, else ``PBM_CONFIG``, else ``pbm.toml``
in the working directory.  Every value may be overridden by an environment
variable (``PBM_IMAP_HOST``, ``PBM_IMAP_PORT``, ``PBM_IMAP_USER``,
``PBM_IMAP_PASSWORD``, ``PBM_IMAP_FOLDER``, ``PBM_IMAP_SSL``; ``PBM_SMTP_HOST``,
``PBM_SMTP_PORT``, ``PBM_SMTP_USER``, ``PBM_SMTP_PASSWORD``,
``PBM_SMTP_STARTTLS``, ``PBM_SMTP_SSL``, ``PBM_SMTP_FROM``), so that passwords
need not be written in a file.  See ``docs/mail.md``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbm.errors import PbmError


class ConfigError(PbmError):
    """The mail configuration is missing or wrong; the message says which setting."""


@dataclass(frozen=True)
class ImapConfig:
    host: str
    port: int = 993
    user: str = ""
    password: str = ""
    folder: str = "INBOX"
    ssl: bool = True
    starttls: bool = False
    processed_folder: str = ""  # move handled messages there ("" = leave them, mark \Seen)


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int = 587
    user: str = ""
    password: str = ""
    starttls: bool = True
    ssl: bool = False
    sender: str = ""  # the From: of every message pbm sends
    timeout: float = 30.0


@dataclass(frozen=True)
class MailSettings:
    """``[mail]`` settings besides IMAP: the moderator's address."""

    moderator: str = ""  # named in replies as the person to ask


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{name} must be true or false, not {value!r}")


def _int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a whole number, not {value!r}") from None


def load_file(path: Path | None = None) -> dict[str, Any]:
    """The parsed config file (an empty dict when there is none and none was asked for)."""
    explicit = path is not None or bool(os.environ.get("PBM_CONFIG"))
    chosen = Path(path or os.environ.get("PBM_CONFIG") or "pbm.toml")
    if not chosen.exists():
        if explicit:
            raise ConfigError(f"{chosen}: no such config file")
        return {}
    try:
        return tomllib.loads(chosen.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{chosen}: not a valid TOML file: {exc}") from None


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise ConfigError(f"[{name}] must be a table")
    return section


def _get(section: dict[str, Any], key: str, env: str, default: Any = None) -> Any:
    if env in os.environ:
        return os.environ[env]
    return section.get(key, default)


def imap_config(path: Path | None = None) -> ImapConfig:
    """IMAP intake settings from ``[mail]`` (keys ``imap_host``, ``imap_port``, ``imap_user``,
    ``imap_password``, ``imap_folder``, ``imap_ssl``, ``imap_starttls``, ``imap_processed_folder``)."""
    section = _section(load_file(path), "mail")
    host = _get(section, "imap_host", "PBM_IMAP_HOST")
    if not host:
        raise ConfigError("no IMAP host: set imap_host in [mail] of pbm.toml or PBM_IMAP_HOST")
    ssl = _bool(_get(section, "imap_ssl", "PBM_IMAP_SSL", True), "imap_ssl")
    return ImapConfig(
        host=str(host),
        port=_int(_get(section, "imap_port", "PBM_IMAP_PORT", 993 if ssl else 143), "imap_port"),
        user=str(_get(section, "imap_user", "PBM_IMAP_USER", "")),
        password=str(_get(section, "imap_password", "PBM_IMAP_PASSWORD", "")),
        folder=str(_get(section, "imap_folder", "PBM_IMAP_FOLDER", "INBOX")),
        ssl=ssl,
        starttls=_bool(_get(section, "imap_starttls", "PBM_IMAP_STARTTLS", False), "imap_starttls"),
        processed_folder=str(_get(section, "imap_processed_folder", "PBM_IMAP_PROCESSED_FOLDER", "")),
    )


def imap_configured(path: Path | None = None) -> bool:
    """Whether an IMAP mailbox is configured (an IMAP host in pbm.toml or PBM_IMAP_HOST)."""
    return bool(_get(_section(load_file(path), "mail"), "imap_host", "PBM_IMAP_HOST"))


def smtp_config(path: Path | None = None) -> SmtpConfig:
    """SMTP settings from ``[smtp]`` (keys host, port, user, password, starttls, ssl, from)."""
    section = _section(load_file(path), "smtp")
    host = _get(section, "host", "PBM_SMTP_HOST")
    if not host:
        raise ConfigError("no SMTP host: set host in [smtp] of pbm.toml or PBM_SMTP_HOST")
    sender = _get(section, "from", "PBM_SMTP_FROM", "")
    if not sender:
        raise ConfigError("no sender address: set from in [smtp] of pbm.toml or PBM_SMTP_FROM")
    ssl = _bool(_get(section, "ssl", "PBM_SMTP_SSL", False), "ssl")
    return SmtpConfig(
        host=str(host),
        port=_int(_get(section, "port", "PBM_SMTP_PORT", 465 if ssl else 587), "port"),
        user=str(_get(section, "user", "PBM_SMTP_USER", "")),
        password=str(_get(section, "password", "PBM_SMTP_PASSWORD", "")),
        starttls=_bool(_get(section, "starttls", "PBM_SMTP_STARTTLS", not ssl), "starttls"),
        ssl=ssl,
        sender=str(sender),
        timeout=float(_get(section, "timeout", "PBM_SMTP_TIMEOUT", 30.0)),
    )


def smtp_configured(path: Path | None = None) -> bool:
    """Whether the moderator set up sending at all: any key in ``[smtp]`` or any ``PBM_SMTP_*`` variable.

    Set up but wrong (a port that is not a number, no ``from``) is still set up: :func:`smtp_config` then
    says what is wrong, and nothing that must be mailed may be taken as done (issue 34, item 5).  Not set
    up at all is the moderator's choice: mail waits in the outbox for ``pbm send-mail``."""
    if any(key.startswith("PBM_SMTP_") and value for key, value in os.environ.items()):
        return True
    return bool(_section(load_file(path), "smtp"))


def mail_settings(path: Path | None = None) -> MailSettings:
    section = _section(load_file(path), "mail")
    return MailSettings(moderator=str(_get(section, "moderator", "PBM_MODERATOR", "")))


def reply_sender(path: Path | None = None) -> str:
    """The From: of replies: ``[smtp] from`` if configured, else a local placeholder."""
    section = _section(load_file(path), "smtp")
    return str(_get(section, "from", "PBM_SMTP_FROM", "") or "pbm@localhost")

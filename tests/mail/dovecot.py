"""A private Dovecot IMAP server for the tests: own base_dir, loopback, a free port, one user, Maildir in tmp."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.mail.smtp import SmtpServer, free_port

USER, PASSWORD = "moderator", "s3cret-imap"


def available() -> str | None:
    """None if Dovecot can be started, else the reason it cannot."""
    if shutil.which("dovecot") is None:
        return "dovecot is not installed (apt-get install dovecot-imapd; scripts/test.sh does it)"
    return None


def _user(*names: str) -> str:
    for name in names:
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError(f"none of the users {names} exists")


class Dovecot:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.maildir = root / "mail"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Dovecot:
        r = self.root
        (r / "base").mkdir(parents=True)
        self.maildir.mkdir()
        me = pwd.getpwuid(os.getuid())
        login_user, internal_user = me.pw_name, me.pw_name
        if me.pw_uid == 0:  # Dovecot's login processes must not run as root
            login_user = _user("dovenull", "nobody")
            internal_user = _user("dovecot", "nobody")
            for p in [r, *r.parents]:
                if str(p) in ("/", "/tmp"):
                    break
                p.chmod(0o755)
        owner = pwd.getpwnam(internal_user) if me.pw_uid == 0 else me
        if me.pw_uid == 0:  # and mail must not be owned by root
            os.chown(self.maildir, owner.pw_uid, owner.pw_gid)
        (r / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}:{owner.pw_uid}:{owner.pw_gid}::{self.maildir}::\n")
        (r / "dovecot.conf").write_text(f"""
base_dir = {r}/base
state_dir = {r}/base
instance_name = pbm-test-{self.port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = {r}/dovecot.log
info_log_path = {r}/dovecot.log
default_login_user = {login_user}
default_internal_user = {internal_user}
mail_location = maildir:{self.maildir}
first_valid_uid = 1
first_valid_gid = 1
passdb {{
  driver = passwd-file
  args = {r}/passwd
}}
userdb {{
  driver = passwd-file
  args = {r}/passwd
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
service pop3-login {{
  chroot =
}}
""")
        self.proc = subprocess.Popen(["dovecot", "-F", "-c", str(r / "dovecot.conf")],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for _ in range(100):
            if self.proc.poll() is not None:
                raise RuntimeError("dovecot exited: " + (self.proc.stdout.read() or b"").decode(errors="replace")
                                   + self.log())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("dovecot did not listen: " + self.log())

    def log(self) -> str:
        p = self.root / "dovecot.log"
        return p.read_text(errors="replace")[-2000:] if p.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextmanager
def mail_servers(tmp_path_factory, monkeypatch, config: Path) -> Iterator[tuple[Dovecot, SmtpServer]]:
    """The moderator's two mail servers on loopback for one test: a Dovecot IMAP mailbox (its
    ``PBM_IMAP_*`` settings put in the environment with ``monkeypatch``) and an aiosmtpd SMTP server (its
    settings written to ``config``, the file ``--config`` reads).  Both are stopped afterwards."""
    server = Dovecot(tmp_path_factory.mktemp("dovecot")).start()
    try:
        with SmtpServer() as smtp:
            for key, value in {"HOST": "127.0.0.1", "PORT": str(server.port), "USER": USER,
                               "PASSWORD": PASSWORD, "SSL": "false", "FOLDER": "INBOX"}.items():
                monkeypatch.setenv(f"PBM_IMAP_{key}", value)
            config.write_text(smtp.config_toml(), encoding="utf-8")
            yield server, smtp
    finally:
        server.stop()


def new_18xx_game(cli, folder: Path, players: list[tuple[str, str]], title: str, name: str,
                  seed: int = 11) -> dict[int, str]:
    """``pbm new-game TITLE`` for ``players`` (name, address); the seats' secrets as the command prints them."""
    csv = folder / "players.csv"
    csv.write_text("name,email\n" + "".join(f"{n},{e}\n" for n, e in players), encoding="utf-8")
    out = cli("new-game", title, "--players", str(csv), "--seed", str(seed), "--name", name).stdout
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"#(\d) \w+ <[^>]+>: (\S+)", out)}

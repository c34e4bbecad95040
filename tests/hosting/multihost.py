"""A harness for `pbm worker` processes on separate "hosts": each worker runs in its own network
namespace, joined to this one by a veth pair, and reaches a private PostgreSQL server (and an SMTP
server that records what it receives) over its veth address, so a host's link can be cut
(``ip link set <veth> down``) and restored while the others go on.

Used by tests/hosting/test_multihost.py (one cut) and scripts/multihost.py (a soak of many cuts).
Everything made here is made only inside this machine and removed on close, also when a test fails:
the namespaces (``pbm-mh-<pid>-<n>``), the veth pairs (``pm<tag>h<n>`` here, ``pm<tag>n<n>`` in the
namespace), the addresses (``10.<200+pid%50>.<n>.1`` here, ``.2`` there) and the server's folder.

The server is the one a host would run, with the settings docs/hosting.md gives, shortened so that
a dead client is noticed in about 3 s instead of about a minute (:data:`SERVER_SETTINGS`); the
workers' database URL carries the client's keepalive settings (:data:`CLIENT_PARAMS`).
"""

from __future__ import annotations

import fcntl
import functools
import glob
import os
import pwd
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# the server: notice a dead client in ~3 s (idle 1 s + 2 probes 1 s apart); a busy backend checks
# its client every second; a transaction left open by a dead client ends with it anyway
SERVER_SETTINGS = {
    "tcp_keepalives_idle": "1",
    "tcp_keepalives_interval": "1",
    "tcp_keepalives_count": "2",
    "tcp_user_timeout": "3000",
    "client_connection_check_interval": "1000",
}
# the client (libpq, in the URL): notice a dead server as fast, so a worker blocked on a cut link
# gets an error instead of waiting for the kernel's 15-minute retransmission limit
CLIENT_PARAMS = "keepalives=1&keepalives_idle=1&keepalives_interval=1&keepalives_count=2&tcp_user_timeout=3000"

WAIT = 120.0  # seconds any one awaited event may take on a loaded 2-core machine


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


@functools.cache
def unavailable() -> str | None:
    """Why the harness cannot run here (None: it can)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth pairs)"
    if shutil.which("ip") is None:
        return "needs iproute2's `ip` (apt-get install iproute2)"
    if pg_bin() is None:
        return "needs the PostgreSQL server binaries under /usr/lib/postgresql/*/bin (initdb, pg_ctl)"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "needs a 'postgres' system user to run a private PostgreSQL server as"
    probe = f"pbm-mh-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` is not allowed here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


class Hosts:
    """``count`` network namespaces, host ``n`` (1-based) at ``addr(n)`` and reaching this machine's
    side of its link at ``gateway(n)``."""

    LOCK = Path(tempfile.gettempdir()) / "pbm-multihost-net.lock"  # harnesses running at once pick apart

    def __init__(self, count: int) -> None:
        pid = os.getpid()
        self.count = count
        self.tag = f"{pid % 100000:05d}"
        self.net = 200 + pid % 50  # the second octet: chosen again on entry, among those not in use
        self.made: list[tuple[str, str]] = []  # (namespace, host-side veth)

    def ns(self, n: int) -> str:
        return f"pbm-mh-{os.getpid()}-{n}"

    def veth(self, n: int) -> str:
        return f"pm{self.tag}h{n}"

    def gateway(self, n: int) -> str:
        return f"10.{self.net}.{n}.1"

    def addr(self, n: int) -> str:
        return f"10.{self.net}.{n}.2"

    def _free_net(self) -> int:
        """A second octet 200-249 that no address of this machine uses (so two harnesses never share one)."""
        used = _ip("-o", "-4", "addr", "show").stdout
        for k in range(50):
            net = 200 + (self.net - 200 + k) % 50
            if f" 10.{net}." not in used:
                return net
        raise RuntimeError("no free 10.200-249.x.x range for the harness's links")

    def __enter__(self) -> Hosts:
        with open(self.LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # held while the range is chosen and its addresses made
            self.net = self._free_net()
            self._make()
        return self

    def _make(self) -> None:
        try:
            for n in range(1, self.count + 1):
                ns, here, there = self.ns(n), self.veth(n), f"pm{self.tag}n{n}"
                _ip("netns", "add", ns)
                self.made.append((ns, here))
                _ip("link", "add", here, "type", "veth", "peer", "name", there)
                _ip("link", "set", there, "netns", ns)
                _ip("addr", "add", f"{self.gateway(n)}/24", "dev", here)
                _ip("link", "set", here, "up")
                _ip("-n", ns, "addr", "add", f"{self.addr(n)}/24", "dev", there)
                _ip("-n", ns, "link", "set", there, "up")
                _ip("-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for ns, here in reversed(self.made):
            _ip("link", "del", here, check=False)  # its peer in the namespace goes with it
            _ip("netns", "del", ns, check=False)
        self.made.clear()

    def cut(self, n: int) -> None:
        """The host's link goes dead: nothing passes either way, and neither side is told."""
        _ip("link", "set", self.veth(n), "down")

    def restore(self, n: int) -> None:
        _ip("link", "set", self.veth(n), "up")

    def command(self, n: int, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.ns(n), *argv]


class PrivatePostgres:
    """A throw-away PostgreSQL server listening on the given addresses (and a socket in its folder)."""

    def __init__(self, listen: list[str], settings: dict[str, str] | None = None) -> None:
        self.listen = listen
        self.settings = {**SERVER_SETTINGS, **(settings or {})}
        self.bin = pg_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="pbm-mh-pg-"))
        with socket.socket() as probe:  # a port free on the first address (the server binds every one)
            probe.bind((listen[0], 0))
            self.port = probe.getsockname()[1]
        self.user = pwd.getpwnam("postgres")

    def _as_postgres(self, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(["runuser", "-u", "postgres", "--", *argv], capture_output=True, text=True,
                              check=True, cwd=self.dir)

    def __enter__(self) -> PrivatePostgres:
        try:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
            os.chmod(self.dir, 0o755)
            data = self.dir / "data"
            self._as_postgres(str(self.bin / "initdb"), "-D", str(data), "-U", "pbm", "--auth=trust", "-E", "UTF8",
                              "--no-sync", "--locale=C")
            conf = {"listen_addresses": "'" + ",".join(self.listen) + "'", "port": str(self.port),
                    "unix_socket_directories": f"'{self.dir}'", "fsync": "off", "synchronous_commit": "off",
                    "full_page_writes": "off", "max_connections": "80", "shared_buffers": "32MB",
                    "log_connections": "on", "log_disconnections": "on", **self.settings}
            with open(data / "postgresql.conf", "a", encoding="utf-8") as f:
                f.writelines(f"{k} = {v}\n" for k, v in conf.items())
            (data / "pg_hba.conf").write_text("local all all trust\nhost all all 10.0.0.0/8 trust\n")
            self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(self.dir / "server.log"),
                              "-w", "-t", "60", "start")
            self._as_postgres(str(self.bin / "createdb"), "-h", str(self.dir), "-p", str(self.port), "-U", "pbm", "pbm")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if (self.dir / "data" / "postmaster.pid").exists():
            subprocess.run(["runuser", "-u", "postgres", "--", str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"),
                            "-m", "immediate", "-w", "stop"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def admin_url(self) -> str:
        """For the test itself, on this machine (the server's socket)."""
        return f"postgresql://pbm@/pbm?host={self.dir}&port={self.port}"

    def url(self, address: str) -> str:
        """For a worker: over the network, with the client's keepalive settings."""
        return f"postgresql://pbm@{address}:{self.port}/pbm?{CLIENT_PARAMS}"

    def log(self) -> str:
        try:
            return (self.dir / "server.log").read_text(errors="replace")
        except OSError:
            return ""


class Smtp:
    """One recording SMTP server (aiosmtpd) per listening address, all into one list."""

    def __init__(self, addresses: list[str]) -> None:
        from aiosmtpd.controller import Controller

        from tests.mail.smtp import Recorder

        self.recorder = Recorder()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.controllers = [Controller(self.recorder, hostname=a, port=self.port) for a in addresses]

    def __enter__(self) -> Smtp:
        started = []
        try:
            for c in self.controllers:
                c.start()
                started.append(c)
        except BaseException:
            for c in started:
                c.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        for c in self.controllers:
            c.stop()

    @property
    def messages(self):
        return self.recorder.messages

    def config(self, address: str) -> str:
        return f'[smtp]\nhost = "{address}"\nport = {self.port}\nstarttls = false\nfrom = "moderator@pbm.example"\n'


# A `pbm worker` (long-running, poll 0.2 s) with the test's stop points.  At each point P (``claimed``
# right after a game is claimed; ``resolving`` inside the resolve step's transaction, the game's row locked
# and the turn resolved but not committed; ``closed``, ``resolved``, ``reported``, ``sent``, ``archived``
# after each step's commit; ``handling-K`` inside the transaction of the K-th mail it handles, the move
# applied but not committed; ``handled-K`` right after that transaction's commit) it says ``AT P``; if the file ``pause-<me>-P`` exists in the control folder it says
# ``PAUSED P`` and waits for the file ``go-<me>-P`` (the test decides when it goes on).  It says
# ``COMMIT`` after every commit it makes, ``ROLLBACK`` after every rollback, and ``TURN <game> -> <state>`` / ``TURN <game> raised <error>``
# at the end of each unit.  argv: url me control reports archive maildir config fence(on|off)
RUNNER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from sqlalchemy import event
    from sqlalchemy.orm import Session
    import pbm.locks
    import pbm.pipeline.worker as wm

    url, me, ctl, reports, archive, maildir, config, fence = sys.argv[1:9]
    ctl = Path(ctl)
    if fence == "off":
        event.remove(Session, "before_commit", pbm.locks._fence)
        event.remove(Session, "after_begin", pbm.locks._fence_begin)

    def say(line):
        print(line, flush=True)

    stop_asked = []

    def gate(point):
        say(f"AT {point}")
        if (ctl / f"pause-{me}-{point}").exists():
            say(f"PAUSED {point}")
            go = ctl / f"go-{me}-{point}"
            while not go.exists() and not stop_asked:  # the test writes it when it wants this worker to go on
                time.sleep(0.01)
            say(f"RESUMED {point}")

    @event.listens_for(Session, "after_commit")
    def _committed(_session):
        say("COMMIT")

    @event.listens_for(Session, "after_soft_rollback")
    def _rolled_back(_session, _previous):
        say("ROLLBACK")

    inner = wm.run_game_turn
    def traced(url, name, opts):
        try:
            state = inner(url, name, opts)
        except BaseException as exc:
            say(f"TURN {name} raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            if not isinstance(exc, (pbm.locks.Locked, OSError)) and "OperationalError" not in type(exc).__name__:
                import traceback
                say("TRACEBACK " + traceback.format_exc().replace(chr(10), " | "))
            raise
        say(f"TURN {name} -> {state}")
        return state
    wm.run_game_turn = traced

    import pbm.mail.ingest as ingest
    inner_handle, handle, counts = ingest._handle, ingest.handle, {"handling": 0, "handled": 0}
    def handling(session, *args, **kwargs):  # "handling-K": inside the K-th message's transaction, before its commit
        outcome = inner_handle(session, *args, **kwargs)
        counts["handling"] += 1
        session.flush()
        gate(f"handling-{counts['handling']}")
        return outcome
    def handled(*args, **kwargs):  # "handled-K": right after the K-th message's commit
        outcome = handle(*args, **kwargs)
        counts["handled"] += 1
        gate(f"handled-{counts['handled']}")
        return outcome
    ingest._handle, ingest.handle = handling, handled

    import pbm.pipeline.cycle as cy
    resolve = cy.default_resolver
    def resolving(session, game):  # the point "resolving": inside the step's transaction, before its commit
        out = resolve(session, game)
        session.flush()
        gate("resolving")
        return out
    cy.default_resolver = resolving

    opts = wm.worker_options(reports=Path(reports), archive=Path(archive), maildir=Path(maildir),
                             config=Path(config), once=False, poll=0.2, log=say)
    opts.name = me
    opts.claimed = lambda game: (say(f"CLAIMED {game}"), gate("claimed"))
    opts.cycle.after_step = lambda game, state, turn: gate(state)
    class Worker(wm.Worker):
        def request_stop(self, signum=None, frame=None):
            stop_asked.append(signum)  # a worker held at a stop point goes on, and stops
            super().request_stop(signum, frame)

    stats = Worker(url, opts).run()
    say("SUMMARY " + stats.summary().replace(chr(10), " | "))
""")


class Worker:
    """One `pbm worker` on host ``n``; its output is read line by line into ``seen``."""

    def __init__(self, hosts: Hosts, n: int, name: str, url: str, folder: Path, maildir: Path, config: Path,
                 control: Path, fence: bool = True, files: Path | None = None) -> None:
        """``files``: the folder of its reports/ and archive/ (default: its own ``folder``)."""
        self.name = name
        self.control = control
        runner = folder / "runner.py"
        folder.mkdir(parents=True, exist_ok=True)
        runner.write_text(RUNNER)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")} | {"PYTHONPATH": str(ROOT)}
        files = files or folder
        argv = [sys.executable, str(runner), url, name, str(control), str(files / "reports"),
                str(files / "archive"), str(maildir), str(config), "on" if fence else "off"]
        # its own process group: on a timeout the worker and whatever it forked are killed together
        self.proc = subprocess.Popen(hosts.command(n, argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env, cwd=folder, start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        self.times: list[float] = []  # seconds since the start at which each line came
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        start = time.monotonic()
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
            self.times.append(round(time.monotonic() - start, 2))
        self.lines.put(None)

    def pause(self, point: str) -> None:
        (self.control / f"pause-{self.name}-{point}").touch()

    def go(self, point: str) -> None:
        (self.control / f"pause-{self.name}-{point}").unlink(missing_ok=True)
        (self.control / f"go-{self.name}-{point}").touch()

    def wait_for(self, text: str, timeout: float = WAIT) -> str:
        """The first line from now on that contains ``text`` (AssertionError if the worker stops or time runs out)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if line is None:
                self.lines.put(None)
                raise AssertionError(f"worker {self.name} stopped before {text!r}:\n" + "\n".join(self.seen[-60:]))
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no {text!r} from worker {self.name} in {timeout:.0f}s:\n" + "\n".join(self.seen[-60:]))

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM (finish the current unit, then stop); the rest of its output is read into ``seen``."""
        if self.proc.poll() is None:
            self.proc.terminate()  # `ip netns exec` passes the signal on (it execs the command)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.seen.append(f"(no exit {timeout:.0f}s after SIGTERM: killed)")
        if self.proc.returncode is None or self.proc.returncode < 0:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the group is this worker's alone (its own session)
            except ProcessLookupError:
                pass
            self.proc.wait()
        while True:
            try:
                line = self.lines.get(timeout=5)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
        return self.proc.returncode

    def since(self, marker: str) -> list[str]:
        """The lines seen after the first one containing ``marker``."""
        for i, line in enumerate(self.seen):
            if marker in line:
                return self.seen[i + 1:]
        return []


def wait_until(check, what: str, timeout: float = WAIT, every: float = 0.05) -> None:
    """Poll ``check()`` until it is true (a condition, not a guess at how long something takes)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def sessions_from(admin_url: str, address: str) -> int:
    """How many server sessions come from ``address`` (the server's view of a host)."""
    from sqlalchemy import text

    from pbm.db import get_engine

    with get_engine(admin_url).connect() as c:
        return c.execute(text("SELECT count(*) FROM pg_stat_activity WHERE client_addr = CAST(:a AS inet)"),
                         {"a": address}).scalar()


def activity(admin_url: str) -> str:
    """The server's sessions: who, in what state, waiting for what, running what (for a failure's message)."""
    from sqlalchemy import text

    from pbm.db import get_engine

    try:
        with get_engine(admin_url).connect() as c:
            rows = c.execute(text(
                "SELECT a.pid, a.client_addr, a.state, a.wait_event_type, a.wait_event, "
                "now() - a.xact_start, left(a.query, 160), "
                "(SELECT string_agg(l.locktype || ':' || l.mode || CASE WHEN l.granted THEN '' ELSE ' WAITING' END, ', ') "
                " FROM pg_locks l WHERE l.pid = a.pid AND l.locktype <> 'virtualxid') "
                "FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()")).all()
        return "\n".join(" | ".join(str(v) for v in row) for row in rows)
    except Exception as exc:  # noqa: BLE001 - a courtesy in a failure's message
        return f"(not read: {exc})"


# -- the scenario -----------------------------------------------------------------------------------

POINTS = ("claimed", "closed", "resolving", "resolved", "reported", "sent")  # where host A's link is cut


def _cut_a_at(hosts, pg, folder: Path, shared_maildir: Path, control: Path, fence: bool, shared_files: bool,
              workers: list, point: str, b_point: str, result: dict, log) -> tuple:
    """The cut both scenarios make: host A's worker started and held at ``point``, host B's started and
    held at ``b_point``, then A's link cut and the server's drop of A's sessions waited for (its time in
    ``result["lapse_seconds"]``); returns the two workers (also added to ``workers``, for the clean-up)."""
    files = {h: folder / ("shared" if shared_files else f"host-{h}") for h in "AB"}
    a = Worker(hosts, 1, "A", pg.url(hosts.gateway(1)), folder / "host-A", shared_maildir,
               folder / "pbm-A.toml", control, fence, files["A"])
    workers.append(a)
    a.pause(point)
    a.wait_for(f"PAUSED {point}")
    log(f"A held at {point}")
    b = Worker(hosts, 2, "B", pg.url(hosts.gateway(2)), folder / "host-B", shared_maildir,
               folder / "pbm-B.toml", control, fence, files["B"])
    workers.append(b)
    b.pause(b_point)
    hosts.cut(1)
    t0 = time.monotonic()
    wait_until(lambda: sessions_from(pg.admin_url, hosts.addr(1)) == 0, "the server to drop host A's sessions")
    result["lapse_seconds"] = round(time.monotonic() - t0, 1)
    log(f"A cut; its sessions dropped after {result['lapse_seconds']} s")
    return a, b


def run_cut(folder: Path, *, point: str = "resolved", fence: bool = True, seed: int = 1, humans: int = 2,
            shared_files: bool = True, log=lambda _line: None) -> dict:
    """One Continental Rails game due; worker A (host 1) claims it and is stopped at ``point`` of the
    turn; its link is cut; the server drops A's sessions (its claims with them); worker B (host 2) claims
    the game and is held there; A's link comes back and A goes on; then B goes on and finishes the turn.

    ``shared_files``: both workers write their reports and archive into the same folders (a network file
    system, as docs/hosting.md asks); without, each has its own.

    Returns what happened (``stale``: commits A made after it went on, in the unit it had lost) and
    ``problems``: every way the outcome differs from "each sheet, step and mail exactly once", and the
    turn's archive whole."""
    import email
    from collections import Counter

    from sqlalchemy import func, select

    from pbm.db import get_engine, session_scope
    from pbm.models import Event, Game, OrderSet, OutboxMessage, TurnState
    from pbm.turnsheet.seed import populate

    folder.mkdir(parents=True, exist_ok=True)
    control = folder / "control"
    control.mkdir(exist_ok=True)
    shared_maildir = folder / "maildir"  # the one mailbox (a shared folder, or IMAP, on real hosts)
    result: dict = {"point": point, "fence": fence, "seed": seed, "problems": []}
    problems = result["problems"]
    with Hosts(2) as hosts, PrivatePostgres([hosts.gateway(1), hosts.gateway(2)]) as pg, \
            Smtp([hosts.gateway(1), hosts.gateway(2)]) as smtp:
        [game] = populate(pg.admin_url, games=1, humans=humans, maildir=shared_maildir, seed=seed, prefix="mh")
        workers: list[Worker] = []
        try:
            for n, name in ((1, "A"), (2, "B")):
                config = folder / f"pbm-{name}.toml"
                config.write_text(smtp.config(hosts.gateway(n)))
            a, b = _cut_a_at(hosts, pg, folder, shared_maildir, control, fence, shared_files, workers, point,
                             "claimed", result, log)
            b.wait_for("PAUSED claimed")
            log("B claimed the game")
            hosts.restore(1)
            a.go(point)
            end = a.wait_for(f"TURN {game} ")
            result["a_unit"] = end.split(f"TURN {game} ", 1)[1]
            after = a.since(f"RESUMED {point}")
            result["stale"] = sum(1 for line in after[:after.index(end)] if line == "COMMIT")
            result["rendered_after"] = sum(1 for line in after[:after.index(end)] if "report(s) written" in line)
            log(f"A went on: {result['a_unit']}; {result['stale']} commit(s) after its claim had lapsed")
            b.go("claimed")
            result["b_unit"] = b.wait_for(f"TURN {game} ").split(f"TURN {game} ", 1)[1]
            log(f"B: {result['b_unit']}")
        except Exception as exc:
            raise AssertionError(f"{exc}\n--- the server's sessions:\n{activity(pg.admin_url)}\n"
                                 + "\n".join(f"--- worker {w.name}:\n" + "\n".join(w.seen[-40:]) for w in workers)
                                 ) from exc
        finally:
            codes = [w.stop() for w in workers]
            result["outputs"] = {w.name: w.seen for w in workers}
        result["exit_codes"] = codes
        if any(codes):
            problems.append(f"worker exit codes {codes}")

        # -- what the database says ----------------------------------------------------------------
        with session_scope(pg.admin_url) as s:
            g = s.scalar(select(Game).where(Game.name == game))
            states = list(s.scalars(select(TurnState).where(TurnState.game_id == g.id).order_by(TurnState.turn)))
            if [(t.turn, t.state) for t in states] != [(1, "archived"), (2, "open")]:
                problems.append(f"turn states {[(t.turn, t.state) for t in states]}")
            moves = [h["state"] for h in states[0].history]
            if moves != ["open", "closed", "resolved", "reported", "sent", "archived"]:
                problems.append(f"turn 1 history {moves}")
            seqs = list(s.scalars(select(Event.seq).where(Event.game_id == g.id, Event.turn == 1)))
            if not seqs or len(seqs) != len(set(seqs)):
                problems.append(f"turn 1 events {len(seqs)}, {len(set(seqs))} distinct")
            sheets = Counter(s.execute(select(OrderSet.player_id, OrderSet.status).where(
                OrderSet.game_id == g.id, OrderSet.turn == 1, OrderSet.source == "email")).all())
            if len(sheets) != humans or set(sheets.values()) != {1} or {st for _p, st in sheets} != {"accepted"}:
                problems.append(f"mailed sheets {dict(sheets)}")
            reports = s.scalar(select(func.count()).select_from(OutboxMessage)
                               .where(OutboxMessage.key.like(f"report:{game}:1:%")))
            if reports != humans:
                problems.append(f"{reports} report mails queued for {humans} players")
            wanted = Counter()
            for m in s.scalars(select(OutboxMessage)):
                msgid = email.message_from_bytes(m.raw)["Message-ID"]
                for r in m.recipients:
                    wanted[(m.kind, msgid, r)] += 1
        got = Counter()
        kinds = {(msgid, r): kind for kind, msgid, r in wanted}
        for m in smtp.messages:
            msgid = email.message_from_bytes(m.data)["Message-ID"]
            for r in m.rcpt_tos:
                got[(kinds.get((msgid, r), "?"), msgid, r)] += 1
        result["mails"] = dict(Counter(k for k, _m, _r in got.elements()))
        if got != wanted:
            missing = wanted - got
            doubled = {k: v for k, v in got.items() if v > 1}
            unknown = [k for k in got if k not in wanted]
            problems.append(f"mail: {len(missing)} not delivered, {len(doubled)} delivered twice, "
                            f"{len(unknown)} not from the outbox")
        files = {h: folder / ("shared" if shared_files else f"host-{h}") for h in "AB"}
        bundles = sorted({p for h in "AB" for p in files[h].glob("archive/*/turn-1")})
        result["archives"] = [str(p.relative_to(folder)) for p in bundles]
        if len(bundles) != 1:
            problems.append(f"turn archives {result['archives']}")
        else:
            wanted = {"moderator.pdf", *(f"player-{k}.pdf" for k in range(1, humans + 1))}
            got = {p.name for p in (bundles[0] / "reports").glob("*.pdf")}
            if got != wanted:
                problems.append(f"the turn's archive holds reports {sorted(got)}, not {sorted(wanted)}")
        if fence and result.get("stale"):
            problems.append(f"host A committed {result['stale']} time(s) after its claim had lapsed")
        if fence and result.get("rendered_after"):
            problems.append("host A rendered reports after its claim had lapsed")
        result["server_log"] = pg.log()
        get_engine(pg.admin_url).dispose()
    return result


def _delivered_once(smtp: Smtp, admin_url: str) -> tuple[dict, list[str]]:
    """Every delivery of the outbox received exactly once, and nothing else: (mails by kind, problems)."""
    import email
    from collections import Counter

    from sqlalchemy import select

    from pbm.db import session_scope
    from pbm.models import OutboxMessage

    wanted = Counter()
    with session_scope(admin_url) as s:
        for m in s.scalars(select(OutboxMessage)):
            msgid = email.message_from_bytes(m.raw)["Message-ID"]
            for r in m.recipients:
                wanted[(m.kind, msgid, r)] += 1
    kinds = {(msgid, r): kind for kind, msgid, r in wanted}
    got = Counter()
    for m in smtp.messages:
        msgid = email.message_from_bytes(m.data)["Message-ID"]
        for r in m.rcpt_tos:
            got[(kinds.get((msgid, r), "?"), msgid, r)] += 1
    mails = dict(Counter(k for k, _m, _r in got.elements()))
    if got == wanted:
        return mails, []
    missing = wanted - got
    doubled = {k: v for k, v in got.items() if v > 1}
    unknown = [k for k in got if k not in wanted]
    return mails, [f"mail: {len(missing)} not delivered, {len(doubled)} delivered twice, "
                   f"{len(unknown)} not from the outbox"]


def run_mail_cut(folder: Path, *, at: int = 3, moves: int = 6, inside: bool = True, fence: bool = True,
                 seed: int = 1, shared_files: bool = True, log=lambda _line: None) -> dict:
    """An 18GA game played by email, its first ``moves`` moves in the shared Maildir.  Worker A (host 1)
    stores them and handles them in order; A's link is cut inside the transaction of the ``at``-th (the
    move applied, not committed: point ``handling-K``) or, with ``inside`` False, right after that
    transaction's commit (``handled-K``); the server ends A's sessions (rolling an open transaction back)
    and drops its claims; worker B (host 2), waiting for the game's mail lane, takes it and is held inside
    its first move's transaction (if any move is left); A's link comes back and A goes on; then B goes on
    and handles the rest.

    ``problems``: moves lost, applied twice or out of order; mail not accepted exactly once; deliveries
    not made exactly once; A committing after its claim lapsed."""
    from collections import Counter

    from sqlalchemy import func, select

    from pbm.db import get_engine, session_scope
    from pbm.e18xx.pbem.seed import mail_first_moves
    from pbm.models import Action18, InboundMessage

    folder.mkdir(parents=True, exist_ok=True)
    control = folder / "control"
    control.mkdir(exist_ok=True)
    shared_maildir = folder / "maildir"
    point = f"{'handling' if inside else 'handled'}-{at}"
    result: dict = {"point": point, "fence": fence, "seed": seed, "problems": []}
    problems = result["problems"]
    with Hosts(2) as hosts, PrivatePostgres([hosts.gateway(1), hosts.gateway(2)]) as pg, \
            Smtp([hosts.gateway(1), hosts.gateway(2)]) as smtp:
        mailed = mail_first_moves(pg.admin_url, title="18GA", games=1, moves=moves, maildir=shared_maildir,
                                  seed=seed, prefix="ga")
        [(game, count)] = mailed.items()
        for n, name in ((1, "A"), (2, "B")):
            (folder / f"pbm-{name}.toml").write_text(smtp.config(hosts.gateway(n)))
        workers: list[Worker] = []
        try:
            a, b = _cut_a_at(hosts, pg, folder, shared_maildir, control, fence, shared_files, workers, point,
                             "handling-1", result, log)
            left = _stored_left(pg.admin_url)
            if left:
                b.wait_for("PAUSED handling-1")
                log(f"B took the game's mail lane ({left} mail(s) left)")
            else:
                b.go("handling-1")  # A had handled them all before the cut: nothing to take over
                log("nothing left for B to take over")
            hosts.restore(1)
            a.go(point)
            if fence or inside:
                a.wait_for("ROLLBACK")  # its transaction (ended by the server, or refused) is gone
            else:
                a.wait_for(f"RESUMED {point}")
            after = a.since(f"RESUMED {point}")
            upto = after.index("ROLLBACK") if "ROLLBACK" in after else len(after)
            result["stale"] = sum(1 for line in after[:upto] if line == "COMMIT")
            log(f"A went on; {result['stale']} commit(s) after its claim had lapsed before its first rollback")
            b.go("handling-1")
            wait_until(lambda: _stored_left(pg.admin_url) == 0, "every stored mail to be handled")
            if left:
                b.wait_for("mail answers: sent")
                log("B handled the rest and sent the answers")
            # A's pass ends: what it handled (only what it had before the cut), or the claim it lost
            result["a_mail"] = a.wait_for("mail: ")
            log(f"A: {result['a_mail']}")
            done_before = at - 1 if inside else at
            if fence and not (result["a_mail"].startswith(f"mail: {done_before} accepted")
                              or "was lost" in result["a_mail"]):
                problems.append(f"host A handled more than the {done_before} mail(s) before its cut: "
                                f"{result['a_mail']}")

        except Exception as exc:
            raise AssertionError(f"{exc}\n--- the server's sessions:\n{activity(pg.admin_url)}\n"
                                 + "\n".join(f"--- worker {w.name}:\n" + "\n".join(w.seen[-40:]) for w in workers)
                                 ) from exc
        finally:
            codes = [w.stop() for w in workers]
            result["outputs"] = {w.name: w.seen for w in workers}
        result["exit_codes"] = codes
        if any(codes):
            problems.append(f"worker exit codes {codes}")
        with session_scope(pg.admin_url) as s:
            seqs = list(s.scalars(select(Action18.seq).order_by(Action18.seq)))
            result["actions"] = len(seqs)
            if len(seqs) != count or len(set(seqs)) != len(seqs):
                problems.append(f"{len(seqs)} move(s) applied ({len(set(seqs))} distinct), {count} mailed")
            statuses = Counter(dict(s.execute(select(InboundMessage.status, func.count())
                                              .group_by(InboundMessage.status)).all()))
            result["inbound"] = dict(statuses)
            if statuses != Counter({"accepted": count}):
                problems.append(f"mail: {dict(statuses)}, expected {count} accepted")
        result["mails"], trouble = _delivered_once(smtp, pg.admin_url)
        problems += trouble
        if fence and result.get("stale"):
            problems.append(f"host A committed {result['stale']} time(s) after its claim had lapsed")
        result["server_log"] = pg.log()
        get_engine(pg.admin_url).dispose()
    return result


def _stored_left(admin_url: str) -> int:
    from sqlalchemy import func, select

    from pbm.db import session_scope
    from pbm.models import InboundMessage

    with session_scope(admin_url) as s:
        return s.scalar(select(func.count()).select_from(InboundMessage).where(InboundMessage.status == "stored"))

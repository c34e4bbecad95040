"""Telling 18xx players: NOTIFY preferences, daily digests and webhooks, delivered through the real SMTP
server and a real HTTP server on loopback, exactly once."""
from __future__ import annotations

import email
import email.policy
import json
import threading
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.e18xx.test_pacing import log, outbox, text_of
from tests.e18xx.test_pbem_mail import answer, ga, send  # noqa: F401 (ga is a fixture)
from tests.mail.smtp import SmtpServer


class Hooks:
    """An HTTP server on loopback recording every POST; /flaky answers 500 to its first post."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, str, dict]] = []
        self.failed = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/flaky" and outer.failed == 0:
                    outer.failed += 1
                    self.send_response(500)
                    self.end_headers()
                    return
                outer.posts.append((self.path, self.headers.get("X-PBM-Delivery", ""), json.loads(body)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers(tmp_path):
    with SmtpServer() as smtp, Hooks() as hooks:
        cfg = tmp_path / "pbm.toml"
        cfg.write_text(smtp.config_toml(), encoding="utf-8")
        yield smtp, hooks, cfg


def _to(smtp, addr: str) -> list[email.message.EmailMessage]:
    return [email.message_from_bytes(m.data, policy=email.policy.default) for m in smtp.messages
            if addr in m.rcpt_tos]


def test_preferences_digests_and_webhooks_are_delivered_once(ga, servers):
    cli, *_ = ga
    smtp, hooks, cfg = servers
    cli("18xx", "webhook", "ga-1", "--url", f"{hooks.url}/game")
    cli("18xx", "webhook", "ga-1", "--url", f"{hooks.url}/discord", "--style", "discord", "--player", "2")
    out = cli("18xx", "webhook", "ga-1", "--url", f"{hooks.url}/flaky", "--style", "slack").stdout
    assert "discord" in out and "player 2's turns" in out
    cli("18xx", "webhook", "ga-1", "--url", "file:///etc/passwd", expect=2)
    line, inbound = send(ga, 2, "NOTIFY: turn")
    assert "accepted" in line and "only when it is your turn" in answer(cli, inbound)[1]
    line, inbound = send(ga, 3, "NOTIFY: digest")
    assert "daily digest" in answer(cli, inbound)[1]
    assert log(cli) == []
    cli("send-mail", "--config", str(cfg))
    before = len(smtp.messages)
    send(ga, 1, "pass")  # Bob's turn: Bob is mailed, Cy (digest) is not
    send(ga, 2, "pass")  # Cy's turn: Cy is mailed, Bob (turn only) is not; Ann (every) is
    cli("send-mail", "--config", str(cfg), expect=2)  # /flaky failed once: non-zero exit, retried next time
    new = smtp.messages[before:]
    subjects = {(r, email.message_from_bytes(m.data, policy=email.policy.default)["Subject"])
                for m in new for r in m.rcpt_tos}
    assert ("bob@example.org", "[ga-1] Your turn: Bob") in subjects
    assert ("cy@example.org", "[ga-1] Your turn: Cy") in subjects
    assert not any(r == "cy@example.org" and "Bob" in s for r, s in subjects), subjects
    assert sum(1 for r, _ in subjects if r == "bob@example.org") == 2  # his turn, his receipt; not Ann's news
    assert sum(1 for r, _ in subjects if r == "ann@example.org") == 2  # her receipt and the change
    cli("send-mail", "--config", str(cfg))
    cli("send-mail", "--config", str(cfg))
    by_path: dict[str, list] = {}
    for path, key, body in hooks.posts:
        by_path.setdefault(path, []).append((key, body))
    assert [b["action"] for _, b in by_path["/game"]] == [1, 2]
    assert by_path["/game"][0][1]["event"] == "18xx.state" and by_path["/game"][0][1]["to_act"] == "Bob"
    assert by_path["/game"][1][1]["acting_seats"] == [3]
    assert [b["content"].splitlines()[0] for _, b in by_path["/discord"]] == ["[ga-1] Bob to act (action 1)"]
    assert sorted(b["text"].splitlines()[0] for _, b in by_path["/flaky"]) == [
        "[ga-1] Bob to act (action 1)", "[ga-1] Cy to act (action 2)"]
    keys = [k for k, _ in sum(by_path.values(), [])]
    assert len(keys) == len(set(keys)) == 5 and hooks.failed == 1
    # the digest: once a day, what Cy did not get by mail
    day = datetime.utcnow() + timedelta(hours=1)
    out = cli("18xx", "tick", "--clock", day.isoformat(timespec="seconds")).stdout
    assert "digest to cy@example.org" in out
    cli("18xx", "tick", "--clock", (day + timedelta(minutes=5)).isoformat(timespec="seconds"))
    cli("send-mail", "--config", str(cfg))
    digests = [m for m in _to(smtp, "cy@example.org") if "digest" in m["Subject"]]
    assert len(digests) == 1
    text = digests[0].get_content()
    assert "#1 Ann: pass" in text and "#2 Bob: pass" in text and "18GA game ga-1 (you are player 3, Cy)" in text
    out = cli("18xx", "tick", "--clock", (day + timedelta(days=1)).isoformat(timespec="seconds")).stdout
    assert "digest" not in out  # nothing new since
    assert len(outbox(cli, "digest")) == 1

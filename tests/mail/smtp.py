"""A real SMTP server on loopback for the tests (aiosmtpd), recording what it receives."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes


@dataclass
class Recorder:
    messages: list[Received] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)  # recipients answered 550

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refuse:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content)))
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self) -> None:
        self.recorder = Recorder()
        self.port = free_port()
        self.controller = Controller(self.recorder, hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()

    @property
    def messages(self) -> list[Received]:
        return self.recorder.messages

    def config_toml(self, sender: str = "moderator@pbm.example") -> str:
        return (f'[smtp]\nhost = "127.0.0.1"\nport = {self.port}\nstarttls = false\nfrom = "{sender}"\n')

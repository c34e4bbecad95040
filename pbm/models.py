"""The tables: what a game is, in SQLAlchemy 2 typed ORM models.

Money is whole game dollars (the rulebook's $1 stands for $100, §1.0) held in
integers; share counts are integers; stock prices are dollars per share with
two decimals.  Every movement of money is a :class:`LedgerEntry`, so money
conservation can be checked turn by turn.

The map (towns and routes) is copied into each game when it is created, so an
archived game keeps the map it was played on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pbm.db import Base

Money = BigInteger


class Game(Base):
    """One game of any title: its identity, seed, turn and climate."""

    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(40))  # "continental-rails", "18GA", ...
    name: Mapped[str] = mapped_column(String(120), unique=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    turn: Mapped[int] = mapped_column(Integer, default=1)  # the turn to be played next
    status: Mapped[str] = mapped_column(String(20), default="open")  # open, finished, archived
    climate: Mapped[str] = mapped_column(String(20), default="Normal")  # §5, start of the current turn
    year: Mapped[int] = mapped_column(Integer, default=1841)
    anonymous: Mapped[bool] = mapped_column(Boolean, default=False)  # §3.1
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    state: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # title-specific running state
    turn_key: Mapped[str] = mapped_column(String(64), default="")  # secret for per-turn codes
    deadline: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    players: Mapped[list[Player]] = relationship(back_populates="game", order_by="Player.number")
    railroads: Mapped[list[Railroad]] = relationship(back_populates="game", order_by="Railroad.id")
    towns: Mapped[list[Town]] = relationship(back_populates="game", order_by="Town.id")
    routes: Mapped[list[Route]] = relationship(back_populates="game", order_by="Route.number")
    private_companies: Mapped[list[PrivateCompany]] = relationship(
        back_populates="game", order_by="PrivateCompany.id"
    )


class Player(Base):
    """A position 1–15 (§3.1): human or computer-played, with its tycoon (§3.2)."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "number"),
        UniqueConstraint("game_id", "character"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(120), default="")  # real name ("" for a computer seat)
    email: Mapped[str] = mapped_column(String(200), default="")
    phone: Mapped[str] = mapped_column(String(60), default="")
    address: Mapped[str] = mapped_column(String(300), default="")
    hide_address: Mapped[bool] = mapped_column(Boolean, default=False)
    hide_phone: Mapped[bool] = mapped_column(Boolean, default=False)
    character: Mapped[str] = mapped_column(String(80))
    human: Mapped[bool] = mapped_column(Boolean, default=False)
    personality: Mapped[str] = mapped_column(String(20), default="builder")  # computer play style
    secret_hash: Mapped[str] = mapped_column(String(128), default="")
    missed_turns: Mapped[int] = mapped_column(Integer, default=0)
    cash: Mapped[int] = mapped_column(Money, default=0)
    loan: Mapped[int] = mapped_column(Money, default=0)
    bankruptcies: Mapped[int] = mapped_column(Integer, default=0)
    slot1_id: Mapped[int | None] = mapped_column(ForeignKey("railroads.id", use_alter=True), nullable=True)
    slot2_id: Mapped[int | None] = mapped_column(ForeignKey("railroads.id", use_alter=True), nullable=True)
    vp_robber: Mapped[int] = mapped_column(Integer, default=0)
    vp_mogul: Mapped[int] = mapped_column(Integer, default=0)
    mogul_fraction: Mapped[float] = mapped_column(Float, default=0.0)
    vp_builder: Mapped[int] = mapped_column(Integer, default=0)
    vp_magnate: Mapped[int] = mapped_column(Integer, default=0)
    vp_prodigal: Mapped[int] = mapped_column(Integer, default=0)
    vp_baron: Mapped[int] = mapped_column(Integer, default=0)
    million_bonus: Mapped[bool] = mapped_column(Boolean, default=False)
    bonuses_claimed: Mapped[list[str]] = mapped_column(JSON, default=list)  # §1.2 Rail Builder bonuses
    net_worth: Mapped[int] = mapped_column(Money, default=0)
    credit_limit: Mapped[int] = mapped_column(Money, default=0)
    recall: Mapped[int] = mapped_column(Money, default=0)  # §3.5C loan recall due

    game: Mapped[Game] = relationship(back_populates="players")
    holdings: Mapped[list[Holding]] = relationship(back_populates="player", order_by="Holding.railroad_id")


class Town(Base):
    """A city or town on the map (§2.6): size 1–5, star, region (§2.7)."""

    __tablename__ = "towns"
    __table_args__ = (UniqueConstraint("game_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(8))
    lat: Mapped[float] = mapped_column(Float)
    lon: Mapped[float] = mapped_column(Float)
    size: Mapped[int] = mapped_column(Integer)
    star: Mapped[bool] = mapped_column(Boolean, default=False)
    region: Mapped[str] = mapped_column(String(20))

    game: Mapped[Game] = relationship(back_populates="towns")

    @property
    def value(self) -> int:
        """§2.6: the value of a town is the square of its size."""
        return self.size * self.size


class Route(Base):
    """A route between two towns (§2.2): a PC or a RoW, with its miles.

    ``owner_id`` is the railroad that owns the route: as a built line (see
    :class:`Line`) or as its one unbuilt RoW (§2.3B, §4.7A).
    """

    __tablename__ = "routes"
    __table_args__ = (UniqueConstraint("game_id", "code"), UniqueConstraint("game_id", "number"))

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    kind: Mapped[str] = mapped_column(String(4))  # "PC" or "RoW"
    miles: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80), default="")
    a_id: Mapped[int] = mapped_column(ForeignKey("towns.id"))
    b_id: Mapped[int] = mapped_column(ForeignKey("towns.id"))
    double_with: Mapped[str | None] = mapped_column(String(8), nullable=True)
    era: Mapped[int | None] = mapped_column(Integer, nullable=True)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("railroads.id", use_alter=True), nullable=True)
    land_grant: Mapped[int] = mapped_column(Integer, default=0)  # §7: sections promised to the owner

    game: Mapped[Game] = relationship(back_populates="routes")
    a: Mapped[Town] = relationship(foreign_keys=[a_id])
    b: Mapped[Town] = relationship(foreign_keys=[b_id])


class PrivateCompany(Base):
    """A PC (§2.4): unavailable, for sale by the bank or a player, owned, or gone."""

    __tablename__ = "private_companies"
    __table_args__ = (UniqueConstraint("game_id", "route_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    route_id: Mapped[int] = mapped_column(ForeignKey("routes.id"))
    # unavailable | bank (offered by the bank) | owned | incorporated | merged | public (bought by the public)
    status: Mapped[str] = mapped_column(String(16), default="unavailable")
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    paid: Mapped[int] = mapped_column(Money, default=0)
    for_sale: Mapped[bool] = mapped_column(Boolean, default=False)
    asking_price: Mapped[int | None] = mapped_column(Money, nullable=True)
    offered_turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    eligible_turns: Mapped[int] = mapped_column(Integer, default=0)  # §2.4C rising chances
    appeared_turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    railroad_id: Mapped[int | None] = mapped_column(ForeignKey("railroads.id", use_alter=True), nullable=True)

    game: Mapped[Game] = relationship(back_populates="private_companies")
    route: Mapped[Route] = relationship()
    owner: Mapped[Player | None] = relationship()

    @property
    def code(self) -> str:
        return self.route.code


class Railroad(Base):
    """An active (or former) railroad (§4): stock, finances, officers, equipment."""

    __tablename__ = "railroads"
    __table_args__ = (UniqueConstraint("game_id", "code"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(80))
    number: Mapped[int] = mapped_column(Integer)  # turnsheet number (§10)
    # active | bankrupt (§4.11B) | merged (into another) | reorganized marker is an event
    status: Mapped[str] = mapped_column(String(16), default="active")
    founded_turn: Mapped[int] = mapped_column(Integer, default=1)
    insolvent_turns: Mapped[int] = mapped_column(Integer, default=0)
    merged_into_id: Mapped[int | None] = mapped_column(ForeignKey("railroads.id"), nullable=True)
    price: Mapped[float] = mapped_column(Float, default=10.0)
    shares_authorized: Mapped[int] = mapped_column(Integer, default=0)
    shares_issued: Mapped[int] = mapped_column(Integer, default=0)
    shares_public: Mapped[int] = mapped_column(Integer, default=0)
    treasury_shares: Mapped[int] = mapped_column(Integer, default=0)
    cash: Mapped[int] = mapped_column(Money, default=0)
    bond_debt: Mapped[int] = mapped_column(Money, default=0)
    loan_debt: Mapped[int] = mapped_column(Money, default=0)
    president_debt: Mapped[int] = mapped_column(Money, default=0)
    land: Mapped[int] = mapped_column(Integer, default=0)  # unsold land-grant sections (§7)
    efficiency: Mapped[int] = mapped_column(Integer, default=85)
    locomotive: Mapped[int] = mapped_column(Integer, default=1)  # §4.17 1 = Lion
    technologies: Mapped[list[str]] = mapped_column(JSON, default=list)  # §4.18 letters
    grand_station: Mapped[bool] = mapped_column(Boolean, default=False)
    dividend: Mapped[int] = mapped_column(Integer, default=0)  # per share (§4.12)
    president_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    chairman_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), nullable=True)
    last_revenue: Mapped[int] = mapped_column(Money, default=0)
    last_expenses: Mapped[int] = mapped_column(Money, default=0)
    last_profit: Mapped[int] = mapped_column(Money, default=0)
    last_dividend: Mapped[int] = mapped_column(Integer, default=0)
    regions_at_start: Mapped[list[str]] = mapped_column(JSON, default=list)

    game: Mapped[Game] = relationship(back_populates="railroads")
    lines: Mapped[list[Line]] = relationship(back_populates="railroad", order_by="Line.id")
    holdings: Mapped[list[Holding]] = relationship(back_populates="railroad", order_by="Holding.player_id")
    president: Mapped[Player | None] = relationship(foreign_keys=[president_id])
    chairman: Mapped[Player | None] = relationship(foreign_keys=[chairman_id])

    @property
    def miles(self) -> int:
        return sum(line.route.miles for line in self.lines)


class Line(Base):
    """A built route belonging to a railroad (§2.5), perhaps double-tracked (§4.15)."""

    __tablename__ = "lines"
    __table_args__ = (UniqueConstraint("route_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    railroad_id: Mapped[int] = mapped_column(ForeignKey("railroads.id", ondelete="CASCADE"), index=True)
    route_id: Mapped[int] = mapped_column(ForeignKey("routes.id"))
    built_turn: Mapped[int] = mapped_column(Integer, default=1)
    double_tracked: Mapped[bool] = mapped_column(Boolean, default=False)

    railroad: Mapped[Railroad] = relationship(back_populates="lines")
    route: Mapped[Route] = relationship()


class Holding(Base):
    """Shares of one railroad held by one player; ``short`` counts open short sales (§6.2)."""

    __tablename__ = "holdings"
    __table_args__ = (UniqueConstraint("player_id", "railroad_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    railroad_id: Mapped[int] = mapped_column(ForeignKey("railroads.id", ondelete="CASCADE"), index=True)
    shares: Mapped[int] = mapped_column(Integer, default=0)
    short: Mapped[int] = mapped_column(Integer, default=0)
    director: Mapped[bool] = mapped_column(Boolean, default=False)  # at the start of the turn (§4.14A)

    player: Mapped[Player] = relationship(back_populates="holdings")
    railroad: Mapped[Railroad] = relationship(back_populates="holdings")


class OrderSet(Base):
    """One player's orders for one turn, as JSON (see ``pbm.cr.orders``).

    Several may exist for a turn (resubmissions); the newest ``accepted`` one
    by arrival counts, earlier ones are ``superseded``.
    """

    __tablename__ = "order_sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    turn: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(16))  # email, file, moderator, computer, standing
    status: Mapped[str] = mapped_column(String(16), default="accepted")  # accepted, superseded, late, rejected
    orders: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    problems: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"), nullable=True)
    received_seq: Mapped[int] = mapped_column(Integer, default=0)  # arrival order
    received_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    __table_args__ = (Index("ix_order_sets_game_turn", "game_id", "turn"),)


class Event(Base):
    """One entry of a turn's log: what happened, under which step and rule."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_game_turn", "game_id", "turn"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    step: Mapped[str] = mapped_column(String(12))  # Appendix A step, e.g. "6.2"
    rule: Mapped[str] = mapped_column(String(24), default="")  # e.g. "§6.3"
    kind: Mapped[str] = mapped_column(String(40))
    player_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    railroad: Mapped[str | None] = mapped_column(String(8), nullable=True)
    amount: Mapped[int | None] = mapped_column(Money, nullable=True)
    headline: Mapped[bool] = mapped_column(Boolean, default=False)
    private_to: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)  # player numbers; None = public
    text: Mapped[str] = mapped_column(Text, default="")
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class LedgerEntry(Base):
    """A movement of money between two accounts ("bank", "public", "player:3", "rr:B&O")."""

    __tablename__ = "ledger"
    __table_args__ = (Index("ix_ledger_game_turn", "game_id", "turn"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    step: Mapped[str] = mapped_column(String(12))
    source: Mapped[str] = mapped_column(String(24))
    target: Mapped[str] = mapped_column(String(24))
    amount: Mapped[int] = mapped_column(Money)
    memo: Mapped[str] = mapped_column(String(120), default="")


class Snapshot(Base):
    """The complete state of a game taken before a turn is resolved (for reruns)."""

    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "turn"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(Text)  # canonical JSON of the export
    sha256: Mapped[str] = mapped_column(String(64))


class PlayerTurn(Base):
    """A player's standing at the end of a turn (for charts and archives)."""

    __tablename__ = "player_turns"
    __table_args__ = (UniqueConstraint("game_id", "turn", "player_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    player_number: Mapped[int] = mapped_column(Integer)
    cash: Mapped[int] = mapped_column(Money)
    loan: Mapped[int] = mapped_column(Money)
    net_worth: Mapped[int] = mapped_column(Money)
    vp: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class RailroadTurn(Base):
    """A railroad's market and operating figures for a turn (stock report, charts)."""

    __tablename__ = "railroad_turns"
    __table_args__ = (UniqueConstraint("game_id", "turn", "code"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    start_price: Mapped[float] = mapped_column(Float)
    end_price: Mapped[float] = mapped_column(Float)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class GameRecord(Base):
    """The hall of records across games (§11.3): best score per VP category."""

    __tablename__ = "game_records"
    __table_args__ = (UniqueConstraint("title", "category"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(40))
    category: Mapped[str] = mapped_column(String(20))
    value: Mapped[float] = mapped_column(Float)
    holder: Mapped[str] = mapped_column(String(120))
    game_name: Mapped[str] = mapped_column(String(120))
    turn: Mapped[int] = mapped_column(Integer)


class InboundMessage(Base):
    """A message as it arrived, stored raw before anything else is done with it."""

    __tablename__ = "inbound_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    message_id: Mapped[str | None] = mapped_column(String(300), nullable=True, index=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    source: Mapped[str] = mapped_column(String(200), default="")  # maildir path, imap uid, ...
    received_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    from_addr: Mapped[str] = mapped_column(String(300), default="")
    subject: Mapped[str] = mapped_column(String(500), default="")
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    player_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # stored, accepted, rejected, late, ignored (bounce/loop), duplicate
    status: Mapped[str] = mapped_column(String(16), default="stored")
    outcome: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # sha256 of the message's content (body and Content-Type, not the trace headers a relay adds): a
    # redelivery has the same Message-ID *and* the same content (migration 0006)
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)


class MailboxRead(Base):
    """A mailbox source (``maildir:<file>``, ``mbox:…``, ``eml:…``) whose bytes were stored before under
    another source: known, so it is not read again every pass (migration 0007)."""

    __tablename__ = "mailbox_reads"

    source: Mapped[str] = mapped_column(String(200), primary_key=True)
    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound_messages.id", ondelete="CASCADE"))
    read_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class AnswerLimit(Base):
    """How many refusals went to one address on one day (UTC): answers to unverified senders are rate-limited."""

    __tablename__ = "answer_limits"

    address: Mapped[str] = mapped_column(String(254), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class OutboxMessage(Base):
    """A message to send; ``key`` makes queuing idempotent, SendLog makes sending so."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    kind: Mapped[str] = mapped_column(String(20))  # receipt, reminder, report, turnsheet, 18xx
    recipients: Mapped[list[str]] = mapped_column(JSON, default=list)
    raw: Mapped[bytes] = mapped_column(LargeBinary)  # the whole RFC 5322 message
    created_seq: Mapped[int] = mapped_column(Integer, default=0)


class SendLog(Base):
    """One recipient's delivery of one outbox message: sent once, never twice."""

    __tablename__ = "send_log"
    __table_args__ = (UniqueConstraint("outbox_id", "recipient"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    outbox_id: Mapped[int] = mapped_column(ForeignKey("outbox.id", ondelete="CASCADE"))
    recipient: Mapped[str] = mapped_column(String(300))
    status: Mapped[str] = mapped_column(String(12))  # claimed, sending, sent, failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    error: Mapped[str] = mapped_column(Text, default="")  # the hand-over record and the relay's reply, or why it failed


class TurnState(Base):
    """Where a turn stands in the weekly cycle: open → closed → resolved → reported → sent → archived."""

    __tablename__ = "turn_states"
    __table_args__ = (UniqueConstraint("game_id", "turn"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(12), default="open")
    deadline: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    history: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)


class Action18(Base):
    """One action of an 18xx game's log (a game is a replay of its actions)."""

    __tablename__ = "actions_18xx"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    player_number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"), nullable=True)


class CycleLock(Base):
    """A running ``pbm cycle`` (one row per lock name): stops two weekly cycles overlapping.

    ``holder`` is a random token of the run; ``host``/``pid`` let a later run
    recognise a lock left by a process that died (then it is taken over).
    """

    __tablename__ = "cycle_locks"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    host: Mapped[str] = mapped_column(String(200), default="")
    pid: Mapped[int] = mapped_column(Integer, default=0)
    acquired_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class WebLink(Base):
    """A player's own web page link (issue 33): only a hash of its token is kept (pbm.web.links).

    ``pbm link reset`` revokes the live link of a seat (``revoked_at``) and makes a new one; a
    revoked or unknown token finds no row and the page answers a plain 404.
    """

    __tablename__ = "web_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    player_number: Mapped[int] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 hex of the token
    created_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

"""The database tables (SQLAlchemy Core). Alembic migrations in migrations/ create them.

A room is its seed plus its move log: the position is never stored, it is replayed
(``Match.replay``). Seat tokens and rejoin codes are stored only as SHA-256 hashes.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()


def _room_id(*, primary_key: bool = False) -> Column[str]:
    """The owning room of a row (seats, moves, finished matches, rejoin codes)."""
    return Column(
        "room_id", String(32), ForeignKey("rooms.id"), primary_key=primary_key, nullable=False
    )


def _serial_id() -> Column[int]:
    return Column("id", Integer, primary_key=True, autoincrement=True)


rooms = Table(
    "rooms",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("mode", String(16), nullable=False),  # "computer" | "friend"
    Column("level", String(16), nullable=True),  # computer level (computer mode)
    Column("seed", String(64), nullable=False),  # seed of the current match
    Column("match_no", Integer, nullable=False, default=1),
    Column("match_start_seq", Integer, nullable=False, default=0),  # moves after it: this match
    Column("status", String(16), nullable=False),  # "waiting" | "playing" | "finished"
    Column("seq", Integer, nullable=False, default=0),  # the room's last numbered event
    # bumped by every write of the room; every write is conditional on the version it was
    # decided from, so a stale copy of the room can never write
    Column("version", Integer, nullable=False, default=0),
    Column("invite", String(16), nullable=True, unique=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    # the process that holds the room now (server/cluster/) and the room's fencing epoch:
    # bumped each time a process claims the room, and every write is conditional on it, so a
    # process that lost the room can never write it again
    Column("owner", String(64), nullable=True, index=True),
    Column("epoch", Integer, nullable=False, default=0),
    # por turnos: a friend game played over days (no stall check, a long grace period)
    Column("turns", Boolean, nullable=False, default=False),
    # what Mis partidas shows without replaying the room, written with every write of it:
    # the seat to move (NULL unless "playing"), the match scores, one per team as a JSON
    # list (NULL: not written since migration 0003_games, so the list rebuilds the room)
    # and when the last move was
    Column("turn", Integer, nullable=True),
    Column("scores", Text, nullable=True),
    Column("moved_at", Float, nullable=True),
    # the code of the room's watch link (/v/<code>), distinct from the invite and the seats'
    # tokens; not a secret of a seat (watchers see no hand)
    Column("watch", String(16), nullable=True),
    Index("ix_rooms_watch", "watch", unique=True),
    Index("ix_rooms_updated_at", "updated_at"),  # the purge (migration 0006)
)

# one row per server process: it holds its rooms while ``lease_until`` is in the future
nodes = Table(
    "nodes",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("lease_until", Float, nullable=False),
    Column("started_at", Float, nullable=False),
)

# one row per seat of a room, from the room's making (migration 0007_seat_rows)
seats = Table(
    "seats",
    metadata,
    _room_id(primary_key=True),
    Column("seat", Integer, primary_key=True),
    # NULL: no person holds the seat (the computer's own, or a friend's nobody joined yet)
    Column("token_hash", String(64), nullable=True, unique=True),
    Column("name", String(40), nullable=True),  # who sits there (NULL: nobody yet)
    # "arriving" (not connected since joining) | "here" | "away"; ``since``: when it became
    # so (the grace period counts from there)
    Column("presence", String(16), nullable=False, default="arriving"),
    Column("since", Float, nullable=True),
    Column("takeover", String(16), nullable=True),  # the computer level playing it for now
    Column("rematch", Boolean, nullable=False, default=False),  # asked for a rematch
    # the level of the computer that holds the chair for good (0009_computer_chairs)
    Column("computer", String(16), nullable=True),
    Column("join_key_hash", String(64), nullable=True),  # the join request's retry key
)

moves = Table(
    "moves",
    metadata,
    _room_id(primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("match_no", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("move", Text, nullable=False),  # NOTATION.md JSON
    Column("client_id", String(64), nullable=True),  # the sender's move id (idempotency)
    Column("created_at", Float, nullable=False),
)

finished_matches = Table(
    "finished_matches",
    metadata,
    _serial_id(),
    _room_id(),
    Column("match_no", Integer, nullable=False),
    Column("seed", String(64), nullable=False),
    Column("winner", Integer, nullable=True),
    Column("scores", Text, nullable=False),  # the match's scores, one per team (JSON list)
    Column("first_seq", Integer, nullable=False),
    Column("last_seq", Integer, nullable=False),
    Column("finished_at", Float, nullable=False),
    Index("ix_finished_matches_room", "room_id"),
)

rejoin_codes = Table(
    "rejoin_codes",
    metadata,
    _serial_id(),
    _room_id(),
    Column("seat", Integer, nullable=False),
    Column("short_hash", String(64), nullable=False, unique=True),
    Column("long_hash", String(64), nullable=False, unique=True),
    Column("expires_at", Float, nullable=False),
    Column("used_at", Float, nullable=True),
    Column("key_hash", String(64), nullable=True),  # the rejoin request's retry key
    Index("ix_rejoin_codes_room_id", "room_id"),  # a seat's live codes (migration 0006)
    Index("ix_rejoin_codes_expires_at", "expires_at"),  # the purge (migration 0006)
)

# a finished match's shared replay: /p/<code> (the room id is never in a link)
replay_links = Table(
    "replay_links",
    metadata,
    Column("code", String(32), primary_key=True),
    _room_id(),
    Column("match_no", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("room_id", "match_no", name="uq_replay_links_match"),
)

# one row: the key that derives the tokens of retried joins and rejoins (HMAC)
server_secrets = Table(
    "server_secrets",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
)

# a seat's Web Push subscription on one browser (server/push/, migration 0008): the seat's
# token hash (a seat moved to another device drops it: store/rooms.py), where to post and
# the keys to encrypt for (RFC 8291), the language its pushes are worded in, and the last
# push sent (``pushed_at``, ``pushed_event``: at most one per event and one per PUSH_EVERY,
# whichever process owns the room)
push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    _room_id(),
    Column("seat", Integer, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("p256dh", String(128), nullable=False),
    Column("auth", String(64), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("pushed_at", Float, nullable=True),
    Column("pushed_event", String(64), nullable=True),
    Index("ix_push_subscriptions_room", "room_id", "seat"),
)

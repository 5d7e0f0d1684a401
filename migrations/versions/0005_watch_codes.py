"""The watch link: each room's code for watchers (/v/<code>), unique; rooms made before
get one here.

Revision ID: 0004
Revises: 0003_games
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

# The file's name gives the order the migrations run in (0005, the fifth);
# it was 0004_watch_codes.py. The ids below are unchanged and must stay so: deployed
# databases store them in alembic_version, and Alembic runs the migrations in the order
# of the down_revision chain, not by file name.
revision = "0004"
down_revision = "0003_games"  # 0004_games.py
branch_labels = None
depends_on = None

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # as server/lobby/lobby.py's codes
LENGTH = 12  # server/lobby/lobby.py WATCH_LEN


def upgrade() -> None:
    op.add_column("rooms", sa.Column("watch", sa.String(16), nullable=True))
    conn = op.get_bind()
    rooms = sa.table("rooms", sa.column("id"), sa.column("watch"))
    ids = [row[0] for row in conn.execute(sa.select(rooms.c.id))]
    for room_id in ids:
        code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
        conn.execute(sa.update(rooms).where(rooms.c.id == room_id).values(watch=code))
    op.create_index("ix_rooms_watch", "rooms", ["watch"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_rooms_watch", "rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("watch")

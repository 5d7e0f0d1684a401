"""Initial tables: rooms, seats, moves, finished_matches, rejoin_codes.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("match_start_seq", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("name0", sa.String(40), nullable=False),
        sa.Column("name1", sa.String(40), nullable=True),
        sa.Column("invite", sa.String(16), nullable=True, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    )
    op.create_table(
        "moves",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("move", sa.Text, nullable=False),
        sa.Column("client_id", sa.String(64), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "finished_matches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("score0", sa.Integer, nullable=False),
        sa.Column("score1", sa.Integer, nullable=False),
        sa.Column("first_seq", sa.Integer, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    op.create_index("ix_finished_matches_room", "finished_matches", ["room_id"])
    op.create_table(
        "rejoin_codes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("short_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("long_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("used_at", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("rejoin_codes")
    op.drop_index("ix_finished_matches_room", "finished_matches")
    op.drop_table("finished_matches")
    op.drop_table("moves")
    op.drop_table("seats")
    op.drop_table("rooms")

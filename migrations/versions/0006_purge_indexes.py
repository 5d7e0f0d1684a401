"""The purge's indexes: rooms by when they were last written, rejoin codes by room and by
when they expire (the purge and a seat's live codes no longer scan whole tables).

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0004"  # 0005_watch_codes.py
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rooms_updated_at", "rooms", ["updated_at"])
    op.create_index("ix_rejoin_codes_room_id", "rejoin_codes", ["room_id"])
    op.create_index("ix_rejoin_codes_expires_at", "rejoin_codes", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_rejoin_codes_expires_at", "rejoin_codes")
    op.drop_index("ix_rejoin_codes_room_id", "rejoin_codes")
    op.drop_index("ix_rooms_updated_at", "rooms")

"""Computer chairs: each seat row says which computer level holds the chair for good
(``seats.computer``), so a table of four may have any chairs the computer's. A computer room
stored before keeps its computer seats: every seat but the creator's, at the room's level.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"  # 0008_push_subscriptions.py
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("computer", sa.String(16), nullable=True))
    op.execute(
        "update seats set computer = (select level from rooms where rooms.id = seats.room_id) "
        "where seat <> 0 and exists (select 1 from rooms where rooms.id = seats.room_id "
        "and rooms.mode = 'computer')"
    )


def downgrade() -> None:
    op.drop_column("seats", "computer")

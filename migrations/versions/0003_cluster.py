"""Several processes: each room's owner process and its fencing epoch, and the processes'
leases.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("owner", sa.String(64), nullable=True))
        batch.add_column(sa.Column("epoch", sa.Integer, nullable=False, server_default="0"))
        batch.create_index("ix_rooms_owner", ["owner"])
    op.create_table(
        "nodes",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("lease_until", sa.Float, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nodes")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index("ix_rooms_owner")
        batch.drop_column("epoch")
        batch.drop_column("owner")

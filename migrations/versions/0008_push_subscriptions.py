"""Web Push (issue 29): each seat's subscription on one browser, and the server's VAPID key
(RFC 8292), made once here as the token key was (0002), unless VAPID_PRIVATE_KEY gives one.

Revision ID: 0008
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import base64

import sqlalchemy as sa
from alembic import op
from cryptography.hazmat.primitives.asymmetric import ec

revision = "0008"
down_revision = "0007"  # 0007_seat_rows.py
branch_labels = None
depends_on = None


def new_vapid_key() -> str:
    """A P-256 private key: base64url of its 32-byte scalar, no padding (server/push/keys.py
    reads it)."""
    value = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return base64.urlsafe_b64encode(value.to_bytes(32, "big")).rstrip(b"=").decode()


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("pushed_at", sa.Float, nullable=True),
        sa.Column("pushed_event", sa.String(64), nullable=True),
    )
    op.create_index("ix_push_subscriptions_room", "push_subscriptions", ["room_id", "seat"])
    secrets_table = sa.table("server_secrets", sa.column("name"), sa.column("value"))
    op.bulk_insert(secrets_table, [{"name": "vapid_key", "value": new_vapid_key()}])


def downgrade() -> None:
    op.execute("DELETE FROM server_secrets WHERE name = 'vapid_key'")
    op.drop_index("ix_push_subscriptions_room", "push_subscriptions")
    op.drop_table("push_subscriptions")

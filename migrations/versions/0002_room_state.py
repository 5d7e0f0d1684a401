"""Room state stored whole: the room's seq and write version, each seat's presence, grace
start, takeover and rematch wish, retry keys of joins and rejoins, the token key.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("seq", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("presence", sa.String(16), nullable=False,
                                   server_default="arriving"))
        batch.add_column(sa.Column("since", sa.Float, nullable=True))
        batch.add_column(sa.Column("takeover", sa.String(16), nullable=True))
        batch.add_column(sa.Column("rematch", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("join_key_hash", sa.String(64), nullable=True))
    with op.batch_alter_table("rejoin_codes") as batch:
        batch.add_column(sa.Column("key_hash", sa.String(64), nullable=True))
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    secrets_table = sa.table("server_secrets", sa.column("name"), sa.column("value"))
    op.bulk_insert(secrets_table, [{"name": "token_key", "value": secrets.token_hex(32)}])
    # rooms made before: their seq is the last stored move's (or the rematch's)
    op.execute(
        "UPDATE rooms SET seq = COALESCE((SELECT MAX(moves.seq) FROM moves"
        " WHERE moves.room_id = rooms.id AND moves.seq > rooms.match_start_seq),"
        " rooms.match_start_seq)"
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
    with op.batch_alter_table("rejoin_codes") as batch:
        batch.drop_column("key_hash")
    with op.batch_alter_table("seats") as batch:
        for name in ("join_key_hash", "rematch", "takeover", "since", "presence"):
            batch.drop_column(name)
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("version")
        batch.drop_column("seq")

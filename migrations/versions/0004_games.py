"""Mis partidas, por turnos and replays: a room's pace (``turns``: por turnos), what the
list of one's games shows without replaying a room (the seat to move, the match scores,
when the last move was), and the codes of shared replays.

Revision ID: 0003_games
Revises: 0003 (0003_cluster)
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# The file's name gives the order the migrations run in (0004, the fourth);
# it was 0003_games.py. The ids below are unchanged and must stay so: deployed
# databases store them in alembic_version, and Alembic runs the migrations in the order
# of the down_revision chain, not by file name.
revision = "0003_games"
down_revision = "0003"  # 0003_cluster.py
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("turns", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        # NULL scores: not written since this migration (the list rebuilds such a room)
        batch.add_column(sa.Column("turn", sa.Integer, nullable=True))
        batch.add_column(sa.Column("score0", sa.Integer, nullable=True))
        batch.add_column(sa.Column("score1", sa.Integer, nullable=True))
        batch.add_column(sa.Column("moved_at", sa.Float, nullable=True))
    op.create_table(
        "replay_links",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("match_no", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("room_id", "match_no", name="uq_replay_links_match"),
    )


def downgrade() -> None:
    op.drop_table("replay_links")
    with op.batch_alter_table("rooms") as batch:
        for name in ("moved_at", "score1", "score0", "turn", "turns"):
            batch.drop_column(name)

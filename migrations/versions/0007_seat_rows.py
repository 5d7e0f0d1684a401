"""Seats as rows, scores as lists: a room's names move from ``rooms.name0``/``name1`` to its
seats' rows (``seats.name``), every seat of a room has a row (the computer's own and a
friend's nobody took yet too: ``token_hash`` NULL), and the match scores, per team, are one
JSON list (``rooms.scores``, ``finished_matches.scores``) instead of ``score0``/``score1``.
Every stored room stays playable.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"  # 0006_purge_indexes.py
branch_labels = None
depends_on = None

SEATS = (0, 1)  # the seats of every room stored before this migration


def _scores_text(first: str, second: str) -> sa.TextClause:
    """The JSON list of two score columns, as ``json.dumps`` writes it: ``[3, 11]``."""
    return sa.text(f"'[' || {first} || ', ' || {second} || ']'")


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("name", sa.String(40), nullable=True))
        batch.alter_column("token_hash", existing_type=sa.String(64), nullable=True)
    # a row for each seat that had none: the computer's, and a friend's nobody took yet
    for seat in SEATS:
        op.execute(
            "insert into seats (room_id, seat, token_hash, presence, since, takeover, rematch) "
            f"select id, {seat}, null, 'arriving', null, null, false from rooms "
            "where not exists (select 1 from seats s where s.room_id = rooms.id "
            f"and s.seat = {seat})"
        )
        op.execute(
            f"update seats set name = (select name{seat} from rooms "
            f"where rooms.id = seats.room_id) where seat = {seat}"
        )
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("scores", sa.Text, nullable=True))
    op.execute(
        sa.text(
            f"update rooms set scores = {_scores_text('score0', 'score1').text} "
            "where score0 is not null and score1 is not null"
        )
    )
    # plain ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later): a batch would copy the
    # rooms table, which every other table's foreign key points at
    for name in ("name0", "name1", "score0", "score1"):
        op.drop_column("rooms", name)
    with op.batch_alter_table("finished_matches") as batch:
        batch.add_column(sa.Column("scores", sa.Text, nullable=True))
    op.execute(
        sa.text(f"update finished_matches set scores = {_scores_text('score0', 'score1').text}")
    )
    with op.batch_alter_table("finished_matches") as batch:
        batch.alter_column("scores", existing_type=sa.Text, nullable=False)
        batch.drop_column("score0")
        batch.drop_column("score1")


def _split_scores(table: str) -> None:
    """``scores`` (a JSON list of two) back into ``score0`` and ``score1``."""
    bind = op.get_bind()
    key = "room_id, match_no" if table == "finished_matches" else "id"
    rows = bind.execute(sa.text(f"select {key}, scores from {table} where scores is not null"))
    for *ids, scores in rows.all():
        first, second = json.loads(scores)
        where = " and ".join(f"{k} = :k{i}" for i, k in enumerate(key.split(", ")))
        bind.execute(
            sa.text(f"update {table} set score0 = :a, score1 = :b where {where}"),
            {"a": first, "b": second, **{f"k{i}": v for i, v in enumerate(ids)}},
        )


def downgrade() -> None:
    """Back to two name and score columns (rooms of two seats only)."""
    with op.batch_alter_table("finished_matches") as batch:
        batch.add_column(sa.Column("score0", sa.Integer, nullable=True))
        batch.add_column(sa.Column("score1", sa.Integer, nullable=True))
    _split_scores("finished_matches")
    with op.batch_alter_table("finished_matches") as batch:
        batch.drop_column("scores")
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("name0", sa.String(40), nullable=True))
        batch.add_column(sa.Column("name1", sa.String(40), nullable=True))
        batch.add_column(sa.Column("score0", sa.Integer, nullable=True))
        batch.add_column(sa.Column("score1", sa.Integer, nullable=True))
    _split_scores("rooms")
    for seat in SEATS:
        op.execute(
            f"update rooms set name{seat} = (select name from seats "
            f"where seats.room_id = rooms.id and seats.seat = {seat})"
        )
    op.execute("delete from seats where token_hash is null")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("name")
        batch.alter_column("token_hash", existing_type=sa.String(64), nullable=False)
    op.drop_column("rooms", "scores")

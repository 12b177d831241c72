"""Rounds, matches and the file's own key (`meta`): the tables of the first cardwar that kept
rounds. A file made before Alembic has them already, and keeps them as they are.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa

from cardwar.web.store.migrations.steps import create_index, create_table, moment, row_order

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "rounds",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("player", sa.Text),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("deal", sa.Text),
        sa.Column("battles", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("time_up", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("winner", sa.Integer),
        sa.Column("reason", sa.Text),
        moment("created_at"),
        moment("updated_at"),
        *row_order("rounds"),
    )
    create_index("rounds_by_player", "rounds", ["player", "created_at"])
    create_index("rounds_by_age", "rounds", ["updated_at"])
    create_table(
        "meta",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.LargeBinary, nullable=False),
    )
    create_table(
        "matches",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("player", sa.Text),
        sa.Column("best_of", sa.Integer, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("winners", sa.Text, nullable=False, server_default="[]"),
        sa.Column("winner", sa.Integer),
        moment("created_at"),
        moment("updated_at"),
        *row_order("matches"),
    )
    create_index("matches_by_age", "matches", ["updated_at"])
    create_index("matches_by_player", "matches", ["player", "created_at"])

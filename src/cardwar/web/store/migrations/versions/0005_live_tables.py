"""Live tables: one row a table (its invite and watch codes, the browser that opened it, its
state, why it closed), and the live table a round is played at.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa

from cardwar.web.store.migrations.steps import add_columns, create_index, create_table, moment

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_table(
        "live_tables",
        sa.Column("code", sa.Text, primary_key=True),
        sa.Column("watch", sa.Text, nullable=False, unique=True),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("closed", sa.Text),
        moment("created_at"),
        moment("touched_at"),
    )
    create_index("live_tables_by_host", "live_tables", ["host", "closed"])
    create_index("live_tables_by_age", "live_tables", ["touched_at"])
    add_columns("rounds", sa.Column("live_table", sa.Text))
    create_index("rounds_by_live_table", "rounds", ["live_table"])

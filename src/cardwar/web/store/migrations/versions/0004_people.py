"""People: a tally per person's name at a browser's table (by name, case aside; shown as last
written). A file from before names had only "You" at seat 0: its scoreboards become You's tally.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from cardwar.web.store.migrations.steps import counted, create_table

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

BACKFILL = """
INSERT INTO people (player, key, name, won, lost, drawn)
SELECT id, 'you', 'You', won, lost, drawn FROM players WHERE won + lost + drawn > 0
"""


def upgrade() -> None:
    made = create_table(
        "people",
        sa.Column("player", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        counted("won"),
        counted("lost"),
        counted("drawn"),
    )
    if made:
        op.execute(BACKFILL)

"""Players: each browser's house rules and scoreboard totals, which outlive the rounds pruned.
A file from before them counted its scoreboards from its rounds: those counts fill the table.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from cardwar.web.store.migrations.steps import counted, create_index, create_table, moment

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# A round won by seat 0 (the browser's own), lost to another seat, drawn (ended, no winner).
BACKFILL = """
INSERT INTO players (id, won, lost, drawn, updated_at)
SELECT player,
       SUM(CASE WHEN winner = 0 THEN 1 ELSE 0 END),
       SUM(CASE WHEN winner != 0 THEN 1 ELSE 0 END),
       SUM(CASE WHEN reason IS NOT NULL AND winner IS NULL THEN 1 ELSE 0 END),
       MAX(updated_at)
FROM rounds WHERE player IS NOT NULL GROUP BY player
"""


def upgrade() -> None:
    made = create_table(
        "players",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("house_rules", sa.Text),
        counted("won"),
        counted("lost"),
        counted("drawn"),
        moment("updated_at"),
    )
    create_index("players_by_age", "players", ["updated_at"])
    if made:
        op.execute(BACKFILL)

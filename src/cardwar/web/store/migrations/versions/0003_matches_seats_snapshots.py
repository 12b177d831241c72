"""The columns later versions added, one at a time, to tables an older file already had: a
round's snapshot (where it stands, so that loading never replays it), its match, its battle
limit, its seats; a match's seed and seats; a player's match totals, Match choice and seats.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa

from cardwar.web.store.migrations.steps import add_columns, counted

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_columns(
        "rounds",
        sa.Column("snapshot", sa.Text),
        sa.Column("match_id", sa.Text),
        sa.Column("cap", sa.Integer),
        sa.Column("seats", sa.Text),
    )
    add_columns(
        "matches",
        sa.Column("seed", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        sa.Column("seats", sa.Text),
    )
    add_columns(
        "players",
        counted("matches_won"),
        counted("matches_lost"),
        counted("best_of", default=1),
        sa.Column("seats", sa.Text),
    )

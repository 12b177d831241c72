"""Every round of a file from before snapshots gets its snapshot, rebuilt once here by replaying
its history, so that no request ever has to. (A data revision: it plays rounds with today's
engine, which replays every stored history exactly, as tests/core holds it to.)

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from cardwar import persist
from cardwar.web.store.rows import ROW_COLUMNS, round_row

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text(f"SELECT {ROW_COLUMNS} FROM rounds WHERE snapshot IS NULL"))
    for row in rows.fetchall():
        snapshot = persist.snapshot(persist.from_history(round_row(tuple(row)).history))
        bind.execute(
            sa.text("UPDATE rounds SET snapshot = :snapshot WHERE id = :id"),
            {"snapshot": json.dumps(snapshot), "id": row[0]},
        )

"""What the revisions are written with, so that each runs on SQLite and PostgreSQL alike and can
meet a file made before Alembic: a table or index is created only where it is missing (and a
revision can tell whether it made it, to fill it from older rows), a column added only where it
is missing."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


def postgres() -> bool:
    """True when the revision runs on PostgreSQL."""
    return op.get_bind().dialect.name == "postgresql"


def tables() -> set[str]:
    """The tables the database has now."""
    return set(sa.inspect(op.get_bind()).get_table_names())


def create_table(name: str, *columns: sa.Column[object]) -> bool:
    """Create the table unless it is there already; True if this made it."""
    if name in tables():
        return False
    op.create_table(name, *columns)
    return True


def row_order(table: str) -> list[sa.Column[object]]:
    """The column that keeps rows in the order they were added: SQLite's own rowid, which every
    table has; on PostgreSQL a column of that name, counted by the database."""
    del table  # the same for every table; named at the call for the reader
    if postgres():
        return [sa.Column("rowid", sa.BigInteger, sa.Identity(always=True), nullable=False)]
    return []


def create_index(name: str, table: str, columns: list[str]) -> None:
    """Create the index unless it is there already."""
    op.create_index(name, table, columns, if_not_exists=True)


def add_columns(table: str, *columns: sa.Column[object]) -> None:
    """Add each column the table does not have yet."""
    have = {column["name"] for column in sa.inspect(op.get_bind()).get_columns(table)}
    for column in columns:
        if column.name not in have:
            op.add_column(table, column)


def counted(column: str, default: int = 0) -> sa.Column[object]:
    """A whole-number column that is never empty, 0 (or `default`) to start with."""
    return sa.Column(column, sa.Integer, nullable=False, server_default=sa.text(str(default)))


def moment(column: str) -> sa.Column[object]:
    """Seconds since the epoch, with their fraction."""
    return sa.Column(column, sa.Double, nullable=False)

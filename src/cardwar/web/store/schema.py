"""The store's schema, kept by Alembic on SQLite and PostgreSQL alike: its revisions are
`migrations/versions/` (the first six are the hand-written changes of the cardwars before
Alembic, written so that a file made by one of those upgrades in place, nothing lost), and a
database is brought to `HEAD` as the store opens it and by `cardwar db upgrade`.

Opening a database that is up to date costs one query and loads no SQLAlchemy (about 40 MB and
half a second): `bring_up_to_date` reads the version itself, and only a database behind `HEAD`
loads Alembic. A database at a revision this cardwar does not know, made by a newer one, is
refused (`SchemaTooNew`), never touched.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from cardwar.web.store.engines import Connection, DatabaseError, Where

HEAD = "0007"
"""The newest revision in `migrations/versions/` (tests/web/test_migrations.py holds them to it)."""
MIGRATIONS = Path(__file__).parent / "migrations"
# Any number, the same in every cardwar: the PostgreSQL lock two processes upgrading at once
# take in turn ("card" in ASCII).
UPGRADE_LOCK = 0x63617264


_ONE_AT_A_TIME = threading.Lock()


class SchemaTooNew(DatabaseError):
    """The database was made by a newer cardwar: this one does not know its schema."""


def version(db: Connection) -> str | None:
    """The database's schema revision; None for a new one, or a file made before Alembic."""
    if "alembic_version" not in db.tables():
        return None
    row = db.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if row is None else str(row[0])


def bring_up_to_date(db: Connection, where: Where) -> None:
    """Upgrade the database to HEAD unless it is there (SchemaTooNew if it is past it)."""
    if version(db) != HEAD:
        upgrade(where)


def upgrade(where: Where) -> tuple[str | None, str]:
    """Run every revision the database lacks, in one transaction behind the upgrade lock; the
    revision it was at and the one it is at now. SchemaTooNew, changing nothing, if its revision
    is not one of this cardwar's."""
    from alembic.command import upgrade as alembic_upgrade
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    scripts = ScriptDirectory.from_config(config)
    engine = where.engine()
    try:
        with engine.connect() as connection:
            before = MigrationContext.configure(connection).get_current_revision()
            if before is not None:
                try:
                    scripts.get_revision(before)
                except CommandError:
                    raise SchemaTooNew(
                        f"{where}: the database is at schema revision {before!r}, which this"
                        f" cardwar does not know (its newest is {HEAD!r}): a newer cardwar made"
                        " it. Run that one, or upgrade this one; nothing was changed."
                    ) from None
            connection.commit()  # the look above ends its transaction: the upgrade makes its own
            config.attributes["connection"] = connection
            with _ONE_AT_A_TIME:  # Alembic's `op` and `context` are one per process
                alembic_upgrade(config, "head")
            before = config.attributes.get("found", before)
            after = MigrationContext.configure(connection).get_current_revision()
            connection.commit()
    except SQLAlchemyError as error:
        cause = error.orig if isinstance(error, DBAPIError) else error
        raise DatabaseError(
            f"{where}: the schema upgrade failed, and changed nothing: {cause}".strip()
        ) from error
    finally:
        engine.dispose()
    return before, str(after)


def lock_for_upgrade(connection: Any) -> None:
    """Take the database's upgrade lock for the rest of the transaction (env.py, first): on
    PostgreSQL an advisory lock; on SQLite the file's write lock, which the transaction took as
    it began (BEGIN IMMEDIATE, `engines.SQLite.engine`)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy import text

        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": UPGRADE_LOCK})

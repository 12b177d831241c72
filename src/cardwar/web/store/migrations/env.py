"""Alembic's environment for the store: `schema.upgrade` hands it an open SQLAlchemy connection
(`config.attributes["connection"]`), and every pending revision runs in one transaction, after
this database's migration lock is taken (`schema.lock_for_upgrade`): two processes starting at
once upgrade it once, the second finding it done."""

from __future__ import annotations

from alembic import context

from cardwar.web.store.schema import lock_for_upgrade

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
with context.begin_transaction():
    lock_for_upgrade(connection)
    # Where the database stands once the lock is held: another process may have upgraded it
    # while this one waited.
    context.config.attributes["found"] = context.get_context().get_current_revision()
    context.run_migrations()

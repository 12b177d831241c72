"""The store's one database: a SQLite file (WAL mode, readable by its owner only) or PostgreSQL
(`engines.py`), brought up to date as it opens (`schema.py`), and its own random key. Its
queries run on a connection each thread holds for a block of them, within a deadline
(`connections.py`): SQLite's one connection in turn, or one of PostgreSQL's pool."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cardwar.web.store.connections import Hold, OneConnection, Pool
from cardwar.web.store.engines import Postgres, SQLiteConnection, Where, where
from cardwar.web.store.schema import bring_up_to_date

DEADLINE_S = 3.0
"""How long one block of queries may hold its connection (`Settings.database_deadline_s`)."""
POOL_SIZE = 10
"""PostgreSQL connections one process keeps at most (`Settings.database_pool`)."""


class Database:
    """The database the tables live in. Safe to share between threads: every query runs
    holding `lock` (this thread's connection, for `deadline_s` at most: DatabaseDown past it),
    and a write of several statements is one transaction (`transaction`). The tables' queries
    (`Store`, `PlayerTables`, `LiveTableRows`) each run over it, none extends it."""

    def __init__(
        self,
        db: str | os.PathLike[str],
        *,
        deadline_s: float = DEADLINE_S,
        pool_size: int = POOL_SIZE,
    ) -> None:
        self._where = where(db)
        self._hold = Hold(deadline_s)
        self._pool_size = pool_size
        self.open()

    @property
    def lock(self) -> Hold:
        """Held by every query: a connection of this thread's own while the block runs (again
        by a thread in a transaction), for the store's deadline at most."""
        return self._hold

    @contextmanager
    def held(self, deadline_s: float) -> Iterator[None]:
        """`lock`, held within `deadline_s` rather than the store's deadline (a long prune)."""
        self._hold.enter(deadline_s)
        try:
            yield
        except BaseException as error:
            instead = self._hold.leave(error)
            if instead is not None and instead is not error:
                raise instead from error
            raise
        self._hold.leave(None)

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """Run one statement on this thread's connection; call it holding `lock` (its cursor
        too: a statement alone holds a connection only while it runs)."""
        if self._hold.holding:
            return self._hold.connection.execute(sql, parameters)
        with self._hold:
            return self._hold.connection.execute(sql, parameters)

    @property
    def where(self) -> Where:
        """The database: a SQLite file, or a PostgreSQL database."""
        return self._where

    def open(self) -> None:
        """Open the database (creating a SQLite file, and bringing an older schema up to
        date); a store that is open already stays as it is."""
        if self._hold.source is not None:
            return
        db = self._where.connect()
        try:
            bring_up_to_date(db, self._where)
        except BaseException:
            db.close()
            raise
        if isinstance(self._where, Postgres):
            db.close()  # the pool makes its own
            self._hold.source = Pool(self._where, self._pool_size, self._hold.deadline_s)
        else:
            assert isinstance(db, SQLiteConnection)
            self._hold.source = OneConnection(db)

    def close(self) -> None:
        """Close the database (`open` opens it again)."""
        source, self._hold.source = self._hold.source, None
        if source is not None:
            source.close()

    def reachable(self) -> bool:
        """True if the database answers a query now, within the deadline (`GET /healthz`)."""
        try:
            with self._hold:
                self.execute("SELECT 1").fetchone()
        except Exception:  # any engine's failure, or a store closed: not reachable
            return False
        return True

    def secret(self) -> bytes:
        """This database's own random key (made on first use), which signs the players' ids."""
        with self._hold:
            self.execute(
                "INSERT INTO meta (key, value) VALUES ('secret', ?) ON CONFLICT (key) DO NOTHING",
                (secrets.token_bytes(32),),
            )
            return bytes(self.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold a connection and run the block as one transaction: all of it, or none of it. A
        transaction begun inside another (by the same thread, which holds the connection) is
        part of it. It begins as the engine says (`Where.begin`: on SQLite, with the file's
        write lock)."""
        with self._hold:
            hold = self._hold
            if hold.depth:
                hold.depth += 1
                try:
                    yield
                finally:
                    hold.depth -= 1
                return
            self.execute(self._where.begin)
            hold.depth = 1
            try:
                yield
            except BaseException:
                hold.depth = 0
                self.execute("ROLLBACK")  # a lost connection's error goes up instead
                raise
            hold.depth = 0
            self.execute("COMMIT")

    @contextmanager
    def row_locked(self, table: str, key: str) -> Iterator[None]:
        """A transaction holding the row of `table` whose id is `key` against every other
        process's write until it ends (PostgreSQL: the row's lock; SQLite: the file's)."""
        with self.transaction():
            self.execute(f"SELECT id FROM {table} WHERE id = ?{self._where.row_lock}", (key,))
            yield

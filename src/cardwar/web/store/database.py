"""The store's one database: a SQLite file (WAL mode, readable by its owner only) or PostgreSQL
(`engines.py`), one connection guarded by a lock (either writes one transaction at a time for
this process anyway), brought up to date as it opens (`schema.py`), and its own random key."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cardwar.web.store.engines import Closed, Connection, Where, where
from cardwar.web.store.schema import bring_up_to_date


class Database:
    """The database the tables live in. Safe to share between threads: every query holds
    `lock`, and a write of several statements is one transaction (`transaction`). The tables'
    queries (`Store`, `PlayerTables`, `LiveTableRows`) each run over it, none extends it."""

    def __init__(self, db: str | os.PathLike[str]) -> None:
        self._where = where(db)
        self._lock = threading.RLock()  # held again by the thread in a transaction
        self._depth = 0  # transactions open inside one another on this connection
        self._db: Connection = Closed()
        self._closed = True
        self.open()

    @property
    def lock(self) -> threading.RLock:
        """Held by every query of this process (a thread in a transaction holds it again)."""
        return self._lock

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """Run one statement on the one connection; call it holding `lock` (its cursor too)."""
        return self._db.execute(sql, parameters)

    @property
    def where(self) -> Where:
        """The database: a SQLite file, or a PostgreSQL database."""
        return self._where

    def open(self) -> None:
        """Open the database (creating a SQLite file, and bringing an older schema up to
        date); a store that is open already stays as it is."""
        with self._lock:
            if not self._closed:
                return
            db = self._where.connect()
            try:
                bring_up_to_date(db, self._where)
            except BaseException:
                db.close()
                raise
            self._db = db
            self._closed = False

    def close(self) -> None:
        """Close the database (`open` opens it again)."""
        with self._lock:
            if not self._closed:
                self._db.close()
                self._db, self._closed = Closed(), True

    def reachable(self) -> bool:
        """True if the database answers a query now (`GET /healthz`)."""
        try:
            with self._lock:
                self._db.execute("SELECT 1").fetchone()
        except Exception:  # any engine's failure, or a store closed: not reachable
            return False
        return True

    def secret(self) -> bytes:
        """This database's own random key (made on first use), which signs the players' ids."""
        with self._lock:
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES ('secret', ?) ON CONFLICT (key) DO NOTHING",
                (secrets.token_bytes(32),),
            )
            return bytes(
                self._db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0]
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold the lock and run the block as one transaction: all of it, or none of it. A
        transaction begun inside another (by the same thread, which holds the lock) is part of
        it. It begins as the engine says (`Where.begin`: on SQLite, with the file's write lock)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._db.execute(self._where.begin)
            self._depth = 1
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            finally:
                self._depth = 0
            self._db.execute("COMMIT")

    @contextmanager
    def row_locked(self, table: str, key: str) -> Iterator[None]:
        """A transaction holding the row of `table` whose id is `key` against every other
        process's write until it ends (PostgreSQL: the row's lock; SQLite: the file's)."""
        with self.transaction():
            self._db.execute(f"SELECT id FROM {table} WHERE id = ?{self._where.row_lock}", (key,))
            yield

"""The store's one SQLite file: WAL mode, readable by its owner only, one connection guarded by
a lock (SQLite writes one transaction at a time anyway), brought up to date as it opens
(`schema.migrate`), and its own random key."""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cardwar.web.store.schema import migrate


def _private_file(path: Path) -> None:
    """Create the database file readable and writable by its owner only (SQLite gives its
    -wal and -shm files the same mode), or take those rights back from an existing one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


class Database:
    """The SQLite file the tables live in. Safe to share between threads: every query holds
    `_lock`, and a write of several statements is one transaction (`_transaction`)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._closed = True
        self.open()

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return self._path

    def open(self) -> None:
        """Open the file (creating it, and bringing an older one up to date); a store that is
        open already stays as it is."""
        with self._lock:
            if not self._closed:
                return
            _private_file(self._path)
            # One connection guarded by a lock: SQLite writes one transaction at a time anyway.
            self._db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
            self._closed = False
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed battle survives the process being killed.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            migrate(self._db)

    def close(self) -> None:
        """Close the database file (`open` opens it again)."""
        with self._lock:
            if not self._closed:
                self._db.close()
                self._closed = True

    def secret(self) -> bytes:
        """This file's own random key (made on first use), which signs the players' ids."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('secret', ?)",
                (secrets.token_bytes(32),),
            )
            return bytes(
                self._db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0]
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Hold the lock and run the block as one transaction: all of it, or none of it."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

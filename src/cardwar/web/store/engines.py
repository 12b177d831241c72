"""Where a store's database is, and a connection to it that takes the store's SQL as written:
a SQLite file (the default: one file, WAL mode, readable by its owner only) or a PostgreSQL
database (`postgresql://…`, psycopg 3).

The store's queries are written once, in the SQL both engines speak, with `?` placeholders;
`Postgres.execute` gives them to psycopg as `%s`. The few things the engines do differently
live here and in `migrations/steps.py`, nowhere else.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit, urlunsplit

from cardwar.errors import CardwarError

POSTGRES_SCHEMES = ("postgresql", "postgres")


class Cursor(Protocol):
    """What a query gives back: sqlite3's cursor and psycopg's both are one."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """One connection to the store's database, in autocommit: a transaction is the store's own
    BEGIN … COMMIT (`Database._transaction`)."""

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> Cursor: ...

    def tables(self) -> set[str]: ...

    def close(self) -> None: ...


class DatabaseError(CardwarError):
    """The database named cannot be opened: the message says which and why."""


class StoreClosed(DatabaseError):
    """A query of a store that was closed (`Database.open` opens it again)."""


class Where(Protocol):
    """Where the database is: `connect` opens the store's connection, `engine` a SQLAlchemy
    engine for Alembic; `str` names it in messages (never with a password). `begin` starts the
    store's transactions, and `row_lock` ends a SELECT that holds the rows it reads against
    every other process until the transaction ends."""

    begin: ClassVar[str]
    row_lock: ClassVar[str]

    def connect(self) -> Connection: ...

    def engine(self) -> Any: ...


def where(db: str | os.PathLike[str]) -> Where:
    """The database `db` names: a `postgresql://` URL, else the path of a SQLite file."""
    text = os.fspath(db)
    if urlsplit(text).scheme in POSTGRES_SCHEMES:
        return Postgres(text)
    return SQLite(Path(text))


# -- SQLite ------------------------------------------------------------------------------------


class SQLiteConnection(sqlite3.Connection):
    """sqlite3's own connection, which takes the store's SQL as it is."""

    def tables(self) -> set[str]:
        return {row[0] for row in self.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def private_file(path: Path) -> None:
    """Create the database file readable and writable by its owner only (SQLite gives its
    -wal and -shm files the same mode), or take those rights back from an existing one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class SQLite:
    """A SQLite file."""

    # A transaction takes the file's write lock as it begins, so that another process's write
    # waits for it (busy_timeout) rather than fails halfway; that lock holds every row.
    begin: ClassVar[str] = "BEGIN IMMEDIATE"
    row_lock: ClassVar[str] = ""
    path: Path

    def __str__(self) -> str:
        return str(self.path)

    def connect(self) -> Connection:
        try:
            private_file(self.path)
        except OSError as error:
            raise DatabaseError(f"{self.path}: cannot make the database file: {error}") from None
        db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, factory=SQLiteConnection
        )
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed battle survives the process being killed.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=5000")
        except sqlite3.DatabaseError as error:
            db.close()
            raise DatabaseError(f"{self.path}: not a database cardwar can open: {error}") from None
        return db

    def engine(self) -> Any:
        from sqlalchemy import create_engine, event
        from sqlalchemy.pool import NullPool

        engine = create_engine(f"sqlite:///{self.path}", poolclass=NullPool)

        # sqlite3 left to itself begins a transaction only before a row changes, so a revision's
        # CREATE TABLE would commit on its own; the transaction begins here instead, taking the
        # file's write lock at once (the upgrade lock: `schema.lock_for_upgrade`).
        @event.listens_for(engine, "connect")
        def _autocommit(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            dbapi_connection.execute("PRAGMA busy_timeout=5000")

        @event.listens_for(engine, "begin")
        def _begin(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine


# -- PostgreSQL --------------------------------------------------------------------------------


def _one_line(error: BaseException) -> str:
    """libpq's message, on one line."""
    return " ".join(str(error).split())


@functools.lru_cache(maxsize=512)
def _placeholders(sql: str) -> str:
    """The store's SQL with psycopg's placeholders (a literal % doubled, as psycopg reads it)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresConnection:
    """A psycopg connection in autocommit, taking the store's SQL with its `?` placeholders."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    @property
    def raw(self) -> Any:
        """psycopg's own connection."""
        return self._connection

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> Cursor:
        if not parameters:
            return self._connection.execute(sql)  # type: ignore[no-any-return]
        return self._connection.execute(_placeholders(sql), parameters)  # type: ignore[no-any-return]

    def tables(self) -> set[str]:
        found = self._connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
        return {row[0] for row in found.fetchall()}

    def close(self) -> None:
        self._connection.close()


@dataclass(frozen=True, slots=True)
class Postgres:
    """A PostgreSQL database, named by its libpq URL."""

    begin: ClassVar[str] = "BEGIN"
    row_lock: ClassVar[str] = " FOR UPDATE"
    url: str

    def __str__(self) -> str:
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        shown = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=shown))

    def connect(self) -> Connection:
        import psycopg

        try:
            connection = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.Error as error:
            raise DatabaseError(f"{self}: cannot reach the database: {_one_line(error)}") from None
        try:
            self.configure(connection)
            schema = connection.execute("SELECT current_schema()").fetchone()
        except psycopg.Error as error:
            connection.close()
            raise DatabaseError(f"{self}: cannot use the database: {_one_line(error)}") from None
        if schema is None or schema[0] is None:
            connection.close()
            raise DatabaseError(
                f"{self}: no schema to keep the tables in: the search_path names none that"
                " exists (create it, or name another)"
            )
        return PostgresConnection(connection)

    @staticmethod
    def configure(connection: Any) -> None:
        """Set up a new psycopg connection of the store's (the pool's too: `connections.py`)."""
        # As SQLite's synchronous=NORMAL (`SQLite.connect`): a committed battle survives this
        # process being killed (it is PostgreSQL's then), and a crash of PostgreSQL itself or of
        # the machine may lose the last moment's commits, never the database. A commit then does
        # not wait for the disk: a click's one write costs a round trip, not an fsync.
        connection.execute("SET synchronous_commit = off")

    def engine(self) -> Any:
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        rest = self.url.split("://", 1)[1]
        return create_engine(f"postgresql+psycopg://{rest}", poolclass=NullPool)

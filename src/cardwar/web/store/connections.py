"""Where a store's queries get their connection, and the deadline every query is held to.

SQLite keeps its one connection (WAL mode, one writer anyway), taken in turn (`OneConnection`).
PostgreSQL hands each thread a connection of a pool (`Pool`, psycopg's): one that was lost (the
server restarted, the network cut) fails its next check and is replaced, so a database that
comes back is used again at once, with no restart of ours.

A thread holds its connection for a block of queries (`Hold`, re-entrant: a transaction inside
another shares it) and no longer than its deadline. Past it, the watchdog (`Watchdog`, one
thread for every store of the process) abandons the call: PostgreSQL's socket is shut under it
(a stalled server answers nothing, and libpq would wait on it for good), SQLite's statement is
interrupted. The thread then raises `DatabaseDown`, gives the connection back broken (the pool
drops it), and lets the next request have its turn: nobody queues behind a hung call for longer
than its deadline.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from cardwar.web.errors import DatabaseDown
from cardwar.web.site.metrics import DATABASE_ERRORS, DATABASE_SECONDS
from cardwar.web.store.engines import (
    Connection,
    Postgres,
    PostgresConnection,
    SQLiteConnection,
    StoreClosed,
)

log = logging.getLogger("cardwar")

TICK_S = 0.1
"""How often the watchdog looks for calls past their deadline: a call is abandoned at most
this long after it."""
BRIEF_S = 0.25
"""How long a request waits for a connection while the pool's last wait for one came to nothing
(the database out of reach): it is answered 503 at once, rather than each after a deadline."""
RECONNECT_S = 2.0
"""How long the pool keeps trying to make a lost connection again on its own; after that a
new one is made only when a request asks (psycopg's pool would otherwise wait up to twice as
long between tries, and a database back after 10 s could go unused for 6 s more)."""


class Source(Protocol):
    """Where a thread takes its connection from, and gives it back to."""

    def take(self, timeout: float) -> Connection:
        """A connection for this thread; DatabaseDown if none within `timeout` seconds."""

    def check(self, connection: Connection) -> None:
        """Raise if `connection` is lost (the pool's connections are checked as they are taken)."""

    def broken(self, connection: Connection) -> bool:
        """Whether `connection` is lost for good (given back, it is dropped)."""

    def give(self, connection: Connection, *, broken: bool) -> None:
        """Give `connection` back; `broken`, it is closed (and, from a pool, replaced)."""

    def abandon(self, connection: Connection) -> None:
        """From another thread: end the call that runs on `connection` now."""

    def close(self) -> None:
        """Close every connection."""


class OneConnection:
    """SQLite's one connection, taken by one thread at a time."""

    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self._turn = threading.Lock()

    def take(self, timeout: float) -> Connection:
        if not self._turn.acquire(timeout=max(0.0, timeout)):
            raise DatabaseDown(
                "The database is busy with a call that has not ended: try again in a moment."
            )
        return self.connection

    def check(self, connection: Connection) -> None:
        pass  # a file: nothing to lose between queries

    def broken(self, connection: Connection) -> bool:
        return False  # an interrupted statement leaves the connection as good as it was

    def give(self, connection: Connection, *, broken: bool) -> None:
        self._turn.release()

    def abandon(self, connection: Connection) -> None:
        self.connection.interrupt()  # the statement running now ends, "interrupted"

    def close(self) -> None:
        self.connection.close()


class Pool:
    """PostgreSQL's connections, a pool of up to `size` for this process (psycopg_pool)."""

    def __init__(self, where: Postgres, size: int, connect_s: float) -> None:
        from psycopg_pool import ConnectionPool

        self._pool: Any = ConnectionPool(
            where.url,
            kwargs={"autocommit": True, "connect_timeout": max(2, round(connect_s))},
            configure=where.configure,
            min_size=1,
            max_size=size,
            open=False,
            name="cardwar",
            reconnect_timeout=RECONNECT_S,
        )
        self._pool.open(wait=False)
        self._where = where
        self._answered = True  # whether the last wait for a connection got one
        # Its own warnings say each failed try, every second of an outage: this store says the
        # loss once, and once more when the database is back (as the broker does).
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)

    def take(self, timeout: float) -> Connection:
        from psycopg_pool import PoolTimeout

        wait = timeout if self._answered else min(timeout, BRIEF_S)
        try:
            connection = PostgresConnection(self._pool.getconn(timeout=max(0.001, wait)))
        except PoolTimeout:
            if self._answered:
                self._answered = False
                log.warning("cardwar: the database at %s is out of reach", self._where)
            raise DatabaseDown(
                "The server cannot reach its database just now: try again in a moment."
            ) from None
        if not self._answered:
            self._answered = True
            log.warning("cardwar: the database at %s answers again", self._where)
        return connection

    def check(self, connection: Connection) -> None:
        connection.execute("")  # an empty query: one round trip, as psycopg's own check

    def broken(self, connection: Connection) -> bool:
        assert isinstance(connection, PostgresConnection)
        return bool(connection.raw.broken or connection.raw.closed)

    def give(self, connection: Connection, *, broken: bool) -> None:
        assert isinstance(connection, PostgresConnection)
        if broken:
            connection.close()  # the pool drops a closed connection, and makes another
        self._pool.putconn(connection.raw)

    def abandon(self, connection: Connection) -> None:
        assert isinstance(connection, PostgresConnection)
        with contextlib.suppress(Exception):  # closed meanwhile: nothing left to end
            shut_socket(connection.raw.pgconn.socket)

    def close(self) -> None:
        self._pool.close(timeout=1.0)


def shut_socket(fd: int) -> None:
    """Shut the socket `fd` both ways, under whoever waits on it: its read returns at once, as
    if the server had closed it (libpq then calls the connection lost). Its descriptor stays
    its owner's to close."""
    with socket.socket(fileno=os.dup(fd)) as twin:
        twin.shutdown(socket.SHUT_RDWR)


class Watchdog:
    """The calls holding a connection now, each with its deadline, and one thread that abandons
    those past it (started with the first call, for the life of the process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[object, tuple[float, Callable[[], None]]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, key: object, deadline: float, abandon: Callable[[], None]) -> None:
        """Call `abandon` if `key` is still held at `deadline` (time.monotonic)."""
        with self._lock:
            self._held[key] = (deadline, abandon)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cardwar-db", daemon=True)
                self._thread.start()

    def done(self, key: object) -> None:
        """`key` is no longer held: once this returns, it is never abandoned."""
        with self._lock:
            self._held.pop(key, None)

    def _run(self) -> None:
        while True:
            time.sleep(TICK_S)
            now = time.monotonic()
            with self._lock:  # `done` waits: a connection is never ended after it is given back
                for key, (deadline, abandon) in list(self._held.items()):
                    if deadline <= now:
                        del self._held[key]
                        abandon()


WATCHDOG = Watchdog()


class Hold:
    """A connection held by the calling thread for a block of queries, within a deadline; a
    block inside another (a transaction begun inside one, say) shares it."""

    def __init__(self, deadline_s: float) -> None:
        self.deadline_s = deadline_s
        self.source: Source | None = None
        self._here = threading.local()

    @property
    def holding(self) -> bool:
        """Whether the calling thread holds a connection."""
        return bool(getattr(self._here, "held", 0))

    @property
    def connection(self) -> Connection:
        """The connection this thread holds."""
        connection: Connection | None = getattr(self._here, "connection", None)
        if connection is None:
            raise RuntimeError("a query outside `Database.lock`: hold a connection first")
        return connection

    @property
    def depth(self) -> int:
        """Transactions open inside one another on this thread's connection."""
        depth: int = getattr(self._here, "transactions", 0)
        return depth

    @depth.setter
    def depth(self, value: int) -> None:
        self._here.transactions = value

    def enter(self, deadline_s: float | None = None) -> None:
        """Hold a connection (again) for the calling thread, for `deadline_s` seconds (the
        store's deadline when None); DatabaseDown if none is free within it."""
        here = self._here
        held = getattr(here, "held", 0)
        if held:
            here.held = held + 1
            return
        source = self.source
        if source is None:
            raise StoreClosed("the store is closed: open it again first")
        deadline = time.monotonic() + (self.deadline_s if deadline_s is None else deadline_s)
        key = object()
        while True:
            connection = source.take(deadline - time.monotonic())
            WATCHDOG.watch(key, deadline, functools.partial(source.abandon, connection))
            try:
                source.check(connection)
                break
            except Exception as error:
                WATCHDOG.done(key)
                source.give(connection, broken=True)
                if not lost(error) or time.monotonic() >= deadline:
                    DATABASE_ERRORS.inc()
                    raise down(error) from error
        here.held, here.connection, here.key, here.source = 1, connection, key, source
        here.since = time.monotonic()
        here.transactions = 0

    def __enter__(self) -> None:
        self.enter()

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        instead = self.leave(error)
        if instead is not None and instead is not error:
            raise instead from error

    def leave(self, error: BaseException | None) -> BaseException | None:
        """Let go of one hold; the last gives the connection back (broken after `error`, a
        lost connection's or the deadline's). Returns what to raise instead of `error`."""
        here = self._here
        here.held -= 1
        if here.held:
            return None
        connection, source, key = here.connection, here.source, here.key
        here.connection = here.source = here.key = None
        WATCHDOG.done(key)
        DATABASE_SECONDS.observe(time.monotonic() - here.since)
        failed = error is not None and lost(error)
        if failed:
            DATABASE_ERRORS.inc()
        source.give(connection, broken=failed and source.broken(connection))
        return down(error) if failed else None


def lost(error: BaseException) -> bool:
    """Whether `error` is the connection's, not the query's: lost, past its deadline, or
    waiting too long for another process's write (answered 503: try again)."""
    if isinstance(error, DatabaseDown):
        return True
    if isinstance(error, sqlite3.OperationalError):
        return str(error) in ("interrupted", "database is locked")
    module = type(error).__module__
    if module.startswith("psycopg"):
        import psycopg

        return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)
    return False


def down(error: BaseException | None) -> DatabaseDown:
    """The DatabaseDown raised for a lost connection's `error`."""
    if isinstance(error, DatabaseDown):
        return error
    return DatabaseDown("The server cannot reach its database just now: try again in a moment.")

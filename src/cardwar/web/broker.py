"""The broker of several processes (docs/deploy.md): Redis, through redis-py's asyncio client.

`Broker` is one process's client of it, with the prefix every key and channel of this server
starts with (`?prefix=` in the URL, else ``cardwar:``), so that two servers, or two tests, can
share one Redis. `RedisHub` carries the live tables' messages between processes, behind the
`Hub` interface of `hub.py`.

A broker out of reach is a `BrokerDown` (answered 503 with Retry-After): whatever needed it is
not done, and said so; the server logs the loss once, and that it is back once it is.

Decided here: every process subscribes once, to the pattern of every table's channel, and hands
on only the messages of the tables it has sockets at. A subscription a table would cost a round
trip before a socket could be shown its table (or a message missed in between); one pattern
costs each process a look at the channel name of every other table's message, which it drops
unread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from cardwar.errors import CardwarError
from cardwar.web.errors import BrokerDown
from cardwar.web.live.hub import WANT, InProcessHub
from cardwar.web.live.wire import Said
from cardwar.web.site.metrics import BROKER_ERRORS, BROKER_SECONDS
from cardwar.web.tasks import stop

__all__ = ["Broker", "BrokerDown", "BrokerUrlError", "RedisHub", "shown", "split_url"]

log = logging.getLogger("cardwar")
T = TypeVar("T")
PREFIX = "cardwar:"
"""The keys' and channels' prefix of a broker URL that names none."""
TABLES = "table"
"""A live table's channel, after the prefix: `table:` and its code."""
CONNECTIONS = 50
"""Connections to the broker one process keeps at most (each command holds one for a round
trip; a subscription one of its own)."""
COMMAND_S = 5.0
"""How long a command may take, its round trip to the broker included, before the broker is
taken to be out of reach."""
RETRY_S = (0.1, 0.2, 0.5, 1.0, 2.0)
"""How long the hub waits before each try to reach a lost broker again (the last, from then
on)."""


class BrokerUrlError(CardwarError):
    """A `--broker` that is not a redis:// (or rediss://, unix://) URL."""


def split_url(url: str) -> tuple[str, str]:
    """The Redis URL without cardwar's own `prefix` parameter, and that prefix."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise BrokerUrlError(
            f"--broker {shown(url)!r}: must be a redis:// URL, for example redis://127.0.0.1:6379/0"
        )
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((value for key, value in query if key == "prefix"), PREFIX)
    rest = urlencode([(key, value) for key, value in query if key != "prefix"])
    return urlunsplit(parts._replace(query=rest)), prefix


def shown(url: str) -> str:
    """A broker URL as a log line or an error says it: without a password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + netloc))


class Broker:
    """One process's client of the broker at `url`."""

    def __init__(self, url: str) -> None:
        self.url = url
        address, self.prefix = split_url(url)
        # No retries of redis-py's own: a connection lost is this module's to notice, so that
        # a subscription that came back after a gap drops its listeners, never hides the gap.
        # At most CONNECTIONS at once, a command waiting its turn for one (redis-py's default
        # pool refuses the 101st: "Too many connections", 500 live tables over two processes).
        # No socket timeout of redis-py's (its default since 8.0 is 5 s): with one, it writes
        # every command under `asyncio.wait_for`, which in Python 3.11 loses a cancellation
        # that comes as the write ends (a server's tick went on after its shutdown had
        # cancelled it, tasks.py); `call` times each command itself, with `asyncio.timeout`,
        # which loses none.
        pool = redis.BlockingConnectionPool.from_url(
            address,
            max_connections=CONNECTIONS,
            timeout=COMMAND_S,
            socket_connect_timeout=2.0,
            socket_timeout=None,
            health_check_interval=10,
            retry=Retry(NoBackoff(), 0),
        )
        self.redis: redis.Redis = redis.Redis(connection_pool=pool)
        self._down = False  # said to be out of reach, and not yet said to be back
        self._stale = False  # lost since the pool's idle connections were last closed

    def key(self, *parts: str) -> str:
        """A key or channel of this server: the prefix, then `parts` joined by colons."""
        return self.prefix + ":".join(parts)

    def channel(self, code: str) -> str:
        """The channel of the live table with this invite code."""
        return self.key(TABLES, code)

    async def call(self, command: Callable[[], Awaitable[T]]) -> T:
        """`command()`'s result; BrokerDown (logged once a loss) if the broker is out of
        reach, or has not answered in COMMAND_S."""
        started = time.perf_counter()
        try:
            async with asyncio.timeout(COMMAND_S):
                result = await command()
        except (RedisError, OSError) as error:
            BROKER_ERRORS.inc()
            self.lost(error)
            await self._forget_idle()
            raise BrokerDown(
                "The server cannot reach its broker just now: try again in a moment."
            ) from error
        BROKER_SECONDS.observe(time.perf_counter() - started)
        if self._stale:  # the first answer since a loss (the hub may have said it is back)
            self._stale = False
            self.back()
            await self._forget_idle()  # one that was in use as it went away, and given back
        return result

    async def _forget_idle(self) -> None:
        """Close the pool's idle connections: a broker that went away reset them, and redis-py
        does not always see that before it hands one out again (a reset connection looks idle),
        so the first commands after the broker is back would fail on them."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.connection_pool.disconnect(inuse_connections=False)

    async def reachable(self) -> bool:
        """True if the broker answers a PING now."""
        try:
            await self.call(self.redis.ping)
        except BrokerDown:
            return False
        return True

    def lost(self, error: BaseException) -> None:
        """Log, once until it is back, that the broker is out of reach."""
        self._stale = True
        if not self._down:
            self._down = True
            log.warning("cardwar: the broker at %s is out of reach (%s)", shown(self.url), error)

    def back(self) -> None:
        """Log, once, that a lost broker answers again."""
        if self._down:
            self._down = False
            log.warning("cardwar: the broker at %s answers again", shown(self.url))

    async def close(self) -> None:
        """Close the client's connections (its pool's too: a pool handed to redis-py's client
        is not the client's to close)."""
        await self.redis.aclose()
        await self.redis.connection_pool.disconnect()


class RedisHub:
    """The hub of several processes: a message is published on its table's Redis channel, and
    every process hands it to its own listeners of that table (a `InProcessHub`, in memory).

    While the broker is out of reach, a publish raises BrokerDown, and every listener of this
    process is dropped (their sockets close, and their pages rejoin, from the database, once
    the broker is back): what they missed meanwhile is never silently lost."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self._local = InProcessHub()
        self._pattern = broker.channel("*")
        self._cut = len(broker.channel(""))
        self._reader: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self.wanted: Callable[[str], None] = lambda channel: None
        """Told a table's code when a process asks for its lock (`WANT`, not a message of the
        table: no socket hears it): `RedisPresences` gives back a lock it kept."""

    async def start(self) -> None:
        """Subscribe to every table's channel, and hand on what is heard until `stop`;
        BrokerDown if the broker cannot be reached now."""
        await self.broker.call(self.broker.redis.ping)
        self._reader = asyncio.create_task(self._read())
        await self._listening.wait()

    async def stop(self) -> None:
        """Stop listening."""
        if self._reader is not None:
            await stop(self._reader)

    async def publish(self, channel: str, message: Said) -> None:
        key = self.broker.channel(channel)
        await self.broker.call(lambda: self.broker.redis.publish(key, message.carried))

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Any]:
        """A listener of `channel`; BrokerDown while this process's subscription is lost (a
        socket let in then would miss what is said until it is back)."""
        if not self._listening.is_set():
            raise BrokerDown("The server cannot reach its broker just now: try again in a moment.")
        async with self._local.subscribe(channel) as listener:
            yield listener

    @property
    def listening(self) -> bool:
        """True while this process hears every table's channel."""
        return self._listening.is_set()

    def listeners(self, channel: str) -> int:
        """How many listen to `channel` in this process."""
        return self._local.listeners(channel)

    async def _read(self) -> None:
        tries = 0
        while True:
            # Any: redis-py's PubSub is typed in some releases and not in others (aclose)
            pubsub: Any = self.broker.redis.pubsub()
            try:
                await pubsub.psubscribe(self._pattern)
                while (await pubsub.get_message(timeout=None) or {}).get("type") != "psubscribe":
                    pass  # until Redis says it listens: a message published before is not heard
                self.broker.back()
                tries = 0
                self._listening.set()
                await self._hand_on(pubsub)
            except (RedisError, OSError) as error:
                self._listening.clear()
                self.broker.lost(error)
                self._local.drop_all()
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
            await asyncio.sleep(RETRY_S[min(tries, len(RETRY_S) - 1)])
            tries += 1

    async def _hand_on(self, pubsub: Any) -> None:
        while True:
            heard = await pubsub.get_message(timeout=None)
            if heard is None or heard["type"] != "pmessage":
                continue
            channel = heard["channel"].decode()[self._cut :]
            if heard["data"] == WANT:
                self.wanted(channel)
            elif self._local.listeners(channel):  # no one here: dropped unread
                await self._local.publish(channel, Said.heard(heard["data"].decode()))

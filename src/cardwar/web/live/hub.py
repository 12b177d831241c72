"""The live tables' fan-out: what one table says reaches every socket that listens to it, in the
order it was said. Behind a small interface, `Hub`: `InProcessHub`, in this process, is the
default; `RedisHub` (`broker.py`) carries the messages between processes.

A message is `Said`: written once as JSON (`wire.write`), whatever the number of sockets it
goes to; a channel is a table's code. `publish` returns once the
message is handed to every listener of this process; a listener's queue is bounded, and a
listener too slow to keep up is dropped (its socket is closed, and its page rejoins, which
sends it the whole table)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, Protocol

from cardwar.web.live.wire import Said

WANT = b"want"
"""Published on a table's channel by a process that waits for the table's lock
(`live/presence.py`): heard by the process that holds it, never by a socket."""
QUEUE = 256
"""Messages one listener may have waiting before it is dropped as too slow."""


class Subscription(Protocol):
    """One listener of a channel: its messages, in order; `dropped` once it fell too far behind,
    or (`lost` too) once the messages it should have heard were lost with the broker."""

    dropped: bool
    lost: bool

    def next(self) -> Awaitable[Said | None]:
        """The next message, waiting for it; None once the listener has been dropped, or
        woken."""

    def wake(self, _: object = None) -> None:
        """Make the listener's `next` return None now (its socket has closed), so that a socket
        waits for its next message with one wait, and no task of its own, while it is read.
        Itself a task's done callback (what it is handed is let go)."""


class Hub(Protocol):
    """Carries each table's messages to the sockets listening to it."""

    async def start(self) -> None:
        """Begin carrying messages, as the server starts."""

    async def stop(self) -> None:
        """Stop carrying them, as it stops."""

    @property
    def listening(self) -> bool:
        """True while it carries every table's messages (`GET /healthz` asks)."""

    async def publish(self, channel: str, message: Said) -> None:
        """Hand `message` to every listener of `channel`, after those published before it."""

    def subscribe(self, channel: str) -> Any:
        """An async context manager: a `Subscription` to `channel` while the block runs."""


class _Listener:
    """A listener of `InProcessHub`: the messages its socket has not read yet, at most `QUEUE`.

    Not an `asyncio.Queue`: a queue is three deques and an Event (a fourth), each deque with a
    block of 64 slots of its own, about 3 KB a listener before any message, and most sockets sit
    idle for hours (ten thousand a process: benchmarks/README.md, "Idle sockets"). Here an empty
    list, and a future only while the socket waits for its next message."""

    __slots__ = ("_channel", "_channels", "_said", "_waiting", "dropped", "lost")

    def __init__(self, channels: dict[str, set[_Listener]], channel: str) -> None:
        self._channels, self._channel = channels, channel
        self._said: list[Said | None] = []
        self._waiting: asyncio.Future[Said | None] | None = None
        self.dropped = False
        self.lost = False

    def _put(self, message: Said | None) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not waiting.done():  # done: its wait was cancelled
            waiting.set_result(message)
        else:
            self._said.append(message)

    def offer(self, message: Said) -> None:
        if self.dropped:
            return
        if len(self._said) >= QUEUE:
            self.drop()
            return
        self._put(message)

    def drop(self, *, lost: bool = False) -> None:
        if self.dropped:
            return
        self.dropped, self.lost = True, lost
        self._said.clear()  # what it has not read goes: its page rejoins
        self._put(None)  # the reader's next message: it leaves

    def next(self) -> asyncio.Future[Said | None]:
        # A future the socket awaits, not a coroutine: no frame of its own while it waits.
        got: asyncio.Future[Said | None] = asyncio.get_running_loop().create_future()
        if self._said:
            # The first of at most QUEUE: moving the rest up costs less than a deque's block.
            got.set_result(self._said.pop(0))
        else:
            self._waiting = got
        return got

    def wake(self, _: object = None) -> None:
        self._put(None)

    # Its own subscription, as an async context manager: a generator's (`asynccontextmanager`)
    # would keep a generator, its frame and the loop's weak reference to it for the socket's
    # life, about 700 bytes.
    async def __aenter__(self) -> _Listener:
        self._channels.setdefault(self._channel, set()).add(self)
        return self

    async def __aexit__(self, *_: object) -> None:
        listeners = self._channels.get(self._channel)
        if listeners is not None:
            listeners.discard(self)
            if not listeners:
                del self._channels[self._channel]


class InProcessHub:
    """The hub of one process: each channel's listeners in memory."""

    def __init__(self) -> None:
        self._channels: dict[str, set[_Listener]] = {}

    async def start(self) -> None:
        """Nothing to begin: the messages stay in this process."""

    async def stop(self) -> None:
        """Nothing to stop."""

    @property
    def listening(self) -> bool:
        """Always: the messages stay in this process."""
        return True

    async def publish(self, channel: str, message: Said) -> None:
        for listener in tuple(self._channels.get(channel, ())):
            listener.offer(message)

    def subscribe(self, channel: str) -> _Listener:
        return _Listener(self._channels, channel)

    def listeners(self, channel: str) -> int:
        """How many listen to `channel` in this process."""
        return len(self._channels.get(channel, ()))

    def drop_all(self) -> None:
        """Drop every listener as lost: their sockets close, and their pages rejoin (a broker
        lost meanwhile may have carried messages they never heard)."""
        for listeners in self._channels.values():
            for listener in listeners:
                listener.drop(lost=True)

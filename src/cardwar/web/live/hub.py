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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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

    async def next(self) -> Said | None:
        """The next message, waiting for it; None once the listener has been dropped, or
        woken."""

    def wake(self) -> None:
        """Make the listener's `next` return None now (its socket has closed), so that a socket
        waits for its next message with one wait, and no task of its own, while it is read."""


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
    """A listener of `InProcessHub`: a bounded queue of messages."""

    def __init__(self) -> None:
        # Bounded by `offer` (QUEUE messages), so that `wake` always finds room.
        self.queue: asyncio.Queue[Said | None] = asyncio.Queue()
        self.dropped = False
        self.lost = False

    def offer(self, message: Said) -> None:
        if self.dropped:
            return
        if self.queue.qsize() >= QUEUE:
            self.drop()
            return
        self.queue.put_nowait(message)

    def drop(self, *, lost: bool = False) -> None:
        if self.dropped:
            return
        self.dropped, self.lost = True, lost
        while not self.queue.empty():  # what it has not read goes: its page rejoins
            self.queue.get_nowait()
        self.queue.put_nowait(None)  # the reader's next message: it leaves

    async def next(self) -> Said | None:
        return await self.queue.get()

    def wake(self) -> None:
        self.queue.put_nowait(None)


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

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[_Listener]:
        listener = _Listener()
        self._channels.setdefault(channel, set()).add(listener)
        try:
            yield listener
        finally:
            listeners = self._channels.get(channel)
            if listeners is not None:
                listeners.discard(listener)
                if not listeners:
                    del self._channels[channel]

    def listeners(self, channel: str) -> int:
        """How many listen to `channel` in this process."""
        return len(self._channels.get(channel, ()))

    def drop_all(self) -> None:
        """Drop every listener as lost: their sockets close, and their pages rejoin (a broker
        lost meanwhile may have carried messages they never heard)."""
        for listeners in self._channels.values():
            for listener in listeners:
                listener.drop(lost=True)

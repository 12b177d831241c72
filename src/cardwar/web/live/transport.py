"""How a live table's socket is carried, at as little memory as an idle socket can take: most of
the sockets of a server are idle (a person reading the table, a watcher), ten thousand of them a
process at 16 KB each at most (benchmarks/README.md, "Idle sockets").

`SocketProtocol` is uvicorn's own WebSocket protocol (`websockets`' sans-I/O one, which took
45 KB a socket against 53 KB for uvicorn's older `websockets` one, measured side by side) with
what it keeps for a socket's life and never reads again made small: its queue of what the
socket said, its gate for writing, the handshake's request and answer. `LiveSockets` takes a
live table's socket from the guard straight to `sockets.serve`: through FastAPI's middleware,
router and dependencies, every socket kept about 10 KB of waiting frames and exit stacks for
its whole life, for nothing a socket uses (its routes take no dependency, its errors are its
own close codes)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from fastapi import FastAPI, WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import Protocol
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

from cardwar.web.live import sockets

PERSON = re.compile(r"/api/tables/([^/]+)/live")
"""A person's socket (or a visitor's, who watches): docs/api.md#the-sockets."""
WATCHER = re.compile(r"/api/watch/([^/]+)/live")
"""A watcher's socket, by the table's watch code."""


class LiveSockets:
    """The app behind the guard: a live table's socket goes straight to `sockets.serve`, anything
    else to `app`, FastAPI's. Anything else asked of it is the app's (its `state`, its
    `openapi()`), as if the guard held the app itself."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            code, watch = _codes(scope["path"])
            if code or watch:
                scope["app"] = self.app  # what `websocket.app` reads, as FastAPI sets it
                websocket = WebSocket(scope, receive, send)
                await sockets.serve(websocket, self.app.state.live, code=code, watch=watch)
                return
        await self.app(scope, receive, send)


def _codes(path: str) -> tuple[str, str]:
    """The table's code of a person's socket, or the watch code of a watcher's, from its path
    (two empty strings for any other path). Strings, not the matches: a local of the socket's
    frame stays for its life."""
    person = PERSON.fullmatch(path)
    if person:
        return person[1], ""
    watcher = WATCHER.fullmatch(path)
    return "", watcher[1] if watcher else ""


class Inbox:
    """What a socket said, waiting for the app's `receive`: uvicorn's queue as uvicorn uses it
    (`put_nowait`, `await get()`, `empty`). Not an `asyncio.Queue`, three deques and an Event,
    each deque a block of 64 slots of its own: about 3 KB a socket before its first word. A
    list, and the future `get` hands out, which the waiting socket holds: no coroutine of its
    own waits (another frame a socket, for its life)."""

    __slots__ = ("_items", "_waiting")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiting: asyncio.Future[Any] | None = None

    def put_nowait(self, item: Any) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not waiting.done():  # done: its wait was cancelled
            waiting.set_result(item)
        else:
            self._items.append(item)

    def empty(self) -> bool:
        return not self._items

    def get(self) -> asyncio.Future[Any]:
        got = asyncio.get_running_loop().create_future()
        if self._items:
            got.set_result(self._items.pop(0))  # uvicorn pauses reading at one: one or two here
        else:
            self._waiting = got
        return got


class Gate:
    """Whether the socket may be written to now (its transport's buffer below its high mark):
    uvicorn's `asyncio.Event` as uvicorn uses it (`wait`, `set`, `clear`), without the Event's
    deque of waiters (its block of 64 slots, about 700 bytes a socket)."""

    __slots__ = ("_open", "_waiting")

    def __init__(self) -> None:
        self._open = True
        self._waiting: list[asyncio.Future[None]] = []

    def set(self) -> None:
        self._open = True
        for waiting in self._waiting:
            if not waiting.done():
                waiting.set_result(None)
        self._waiting = []

    def clear(self) -> None:
        self._open = False

    def is_set(self) -> bool:
        return self._open

    async def wait(self) -> None:
        while not self._open:
            waiting = asyncio.get_running_loop().create_future()
            self._waiting.append(waiting)
            await waiting


class SocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, lighter for a socket kept open: `Inbox` and `Gate`
    for its queue and its Event, and once it has answered the handshake, the handshake's
    request and answer let go (their headers, about 4 KB), which it never reads again.

    Its attributes are slots: uvicorn's protocol sets some forty, and their dictionary took
    1.6 KB a socket, the slots 0.3 KB. Any attribute a later uvicorn adds goes to the
    dictionary as before (test_idle_sockets notices it, as memory)."""

    __slots__ = (
        *("app", "app_state", "asgi_version", "client", "close_sent", "close_timeout"),
        *("close_timer", "config", "conn", "connections", "curr_msg_data_type"),
        *("default_headers", "disconnected", "frames", "handshake_complete"),
        *("handshake_initiated", "initial_response", "last_ping_rtt", "logger", "loop"),
        *("pending_ping_payload", "ping_interval", "ping_sent_at", "ping_timeout"),
        *("ping_timer", "pong_timer", "queue", "read_paused", "request", "response"),
        *("root_path", "scheme", "scope", "server", "tasks", "transport", "writable"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]  # the three calls uvicorn makes
        self.writable = Gate()  # type: ignore[assignment]  # the three calls uvicorn makes

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            # Read only while the handshake is answered (`handle_connect`, the accept above).
            # The request's headers are emptied, not only let go: `websockets`' parser keeps the
            # request itself for the connection's life (a local of its generator).
            self.request.headers.clear()
            del self.request, self.response
            _fresh_parser(self.conn)


def _fresh_parser(conn: ServerProtocol) -> None:
    """Give `conn` a parser of frames of its own, in place of the one that parsed the handshake
    and then went on to frames inside itself: that one keeps the request (a local of its
    generator) and its own frame, about 0.5 KB a socket for its life. Only where it waits at a
    frame's start with nothing unread, as it does once the handshake is answered (a browser
    says nothing before it is answered); anywhere else, or parsed otherwise by a later
    `websockets`, it is kept as it is."""
    waiting: Any = conn.parser  # a generator, as CPython's are: its `gi_` attributes
    while getattr(waiting, "gi_yieldfrom", None) is not None:
        waiting = waiting.gi_yieldfrom
    code = getattr(waiting, "gi_code", None)
    if conn.reader.buffer or code is not StreamReader.at_eof.__code__:
        return
    conn.parser = Protocol.parse(conn)
    next(conn.parser)  # to its first wait, at the next frame's start

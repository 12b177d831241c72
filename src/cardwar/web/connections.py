"""What a connection may cost the server before the app sees it (docs/deploy.md#connections):
a request head of bounded size that must come in time, a bounded number of connections, and
those numbers sized from the open files the system lets this process have.

`cardwar serve` hands uvicorn `BoundedHttp` as its HTTP protocol. uvicorn's own bounds none of
this: a head is read whole however long (four 100 MB heads took the server from 210 to 610 MB),
a connection that sends nothing is kept for ever, and a connection past the open-file limit is
not refused, the listening socket just stops accepting, every client waits, and nothing is
logged."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from cardwar.web.settings import Settings
from cardwar.web.site.metrics import refused


class Draining(Protocol):
    """Whether this process drains before it stops (`site/draining.py`'s `Drain`)."""

    @property
    def draining(self) -> bool: ...


log = logging.getLogger("cardwar")

END_OF_HEAD = b"\r\n\r\n"
MOST_OPEN_FILES = 1 << 20
"""Linux's own ceiling (`nr_open`): what the soft limit is raised to when the hard one has none."""
LINGER_S = 2.0
"""How long a connection whose head was refused is read and let go before it is closed."""
FEWEST_CONNECTIONS = 16
DRAINING = "This server is restarting: try again in a moment.\n"
"""Said to a connection that opens while its process drains (`site/draining.py`)."""
DRAINING_RETRY_S = 1
"""Its Retry-After: the page's click is sent again after it, and finds another process."""
"""Fewer connections than this left by the open-file limit, and `cardwar serve` will not start."""


@dataclass(frozen=True, slots=True)
class Sized:
    """How many client connections a process takes at once, and how many of them may be live
    tables' sockets, for `open_files` (its soft limit; None where the system has none)."""

    open_files: int | None
    connections: int
    live_sockets: int
    raised_from: int | None = None
    """The soft limit before `open_files` raised it (None: not known, or not raised)."""

    @classmethod
    def of(cls, settings: Settings, open_files: int | None) -> Sized:
        """What `settings` allow within `open_files`: `open_files_kept` descriptors stay for the
        database, the broker, the worker process and files; the connections are the rest, at
        most `live_sockets` + `http_connections`. When the open files are the tighter bound, a
        quarter of the connections stay for plain HTTP, so that the page and the API still
        answer with every live socket taken. Sizing again what this sized gives the same."""
        wanted = settings.live_sockets + settings.http_connections
        room = wanted if open_files is None else open_files - settings.open_files_kept
        connections = min(room, wanted)
        if connections < FEWEST_CONNECTIONS:
            raise ValueError(
                f"open files: this process may have {open_files}, which leaves {room} "
                f"connections beside the {settings.open_files_kept} it keeps for itself; it "
                f"needs {FEWEST_CONNECTIONS} at least (raise it: ulimit -n, or systemd's "
                "LimitNOFILE, docs/deploy.md#connections)"
            )
        live = settings.live_sockets
        if room < wanted:  # the open files bound it: a quarter stays for plain HTTP
            live = min(live, connections - connections // 4)
        return cls(open_files, connections, live)


def open_files() -> tuple[int | None, int | None]:
    """Raise this process's soft limit of open files to its hard limit (the most it may have
    without privilege): the common soft limit, 1024, is below what the server's own caps need.
    Returns the soft limit before and after; None where the system has no such limit."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no limit to read or raise
        return None, None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MOST_OPEN_FILES if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):  # a system that caps it lower (macOS): keep the soft one
            return soft, soft
        return soft, wanted
    return soft, None if soft == resource.RLIM_INFINITY else soft


class Tally:
    """Refusals said in the log at most once every `every_s`, with how many there were since:
    the first at once, so that a cap reached is never silent, and an attack that is refused a
    thousand times a second does not fill the disk with lines."""

    def __init__(self, reason: str, every_s: float = 10.0) -> None:
        self.reason = reason
        """The refusal's name in the metrics (`cardwar_refusals{reason}`)."""
        self.every_s = every_s
        self.said_at = -every_s
        self.since = 0

    def refused(self, words: str) -> None:
        """One refusal: log `words` (and the count since the last line) unless it was just
        said."""
        refused(self.reason)
        self.since += 1
        now = time.monotonic()
        if now - self.said_at < self.every_s:
            return
        more = f" ({self.since} refused since the last such line)" if self.since > 1 else ""
        log.warning("cardwar: %s%s", words, more)
        self.said_at, self.since = now, 0


@dataclass(frozen=True, slots=True)
class Bounds:
    """What `BoundedHttp` allows a connection (`Settings.max_head`, `Settings.request_s`, and
    `Sized.connections`)."""

    head_bytes: int
    request_s: float
    connections: int

    @classmethod
    def of(cls, settings: Settings, sized: Sized) -> Bounds:
        return cls(settings.max_head, settings.request_s, sized.connections)


DEFAULTS = Settings()


# uvicorn's httptools protocol, bounded, rather than its h11 one, which bounds a head by itself
# (`h11_max_incomplete_event_size`) but parses in Python: about 145 µs a request here against
# httptools' 4 µs, more than half of a click's own work in the server (benchmarks/api.py), for a
# bound this class keeps in a few lines. Extending uvicorn's class is the one way to put a bound
# under it: uvicorn builds the protocol itself, for each connection, from its own Config.
class BoundedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol, with three bounds. A request's head (its line and headers) over
    `head_bytes` is refused with 431 as those bytes arrive, never read whole. A request, head
    and body, must arrive within `request_s` of its connection opening or of the answer before
    it, however slowly it trickles (slowloris): else the connection is closed. And past
    `connections` open at once (live sockets included), a new one is told 503 and closed at
    once, and the log says so, rather than the process running out of open files.

    While its process drains (`site/draining.py`), a connection that opens, or a live socket asked
    for, is answered 503 with Retry-After once its request's head is in."""

    bounds: ClassVar[Bounds] = Bounds(
        DEFAULTS.max_head, DEFAULTS.request_s, DEFAULTS.live_sockets + DEFAULTS.http_connections
    )
    """Set by `cardwar serve` in each server process before it serves (uvicorn's Config has no
    room for them, and a process serves one set of settings)."""
    full: ClassVar[Tally] = Tally("connections_full")
    drain: ClassVar[Draining | None] = None
    """The process's drain, once its app has taken SIGTERM (`Drain.install`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head: int | None = 0
        """Bytes of the request head under way, or None from its end to its request's end."""
        self._tail = b""  # the head's last bytes, in case its end comes split between two reads
        self._deadline: asyncio.TimerHandle | None = None
        self._refused = False
        self._lingering = False
        self._late = False  # opened while its process drains: answered 503

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Refused here, as it opens, rather than by uvicorn's `limit_concurrency`: that one
        # takes every connection and answers 503 only to a request, so a thousand silent
        # connections would still hold a thousand open files. (uvicorn's listen backlog is
        # left as it is: a connection waiting there holds none of this process's files.)
        if len(self.server_state.connections) >= self.bounds.connections:
            self._refused = True
            self.full.refused(
                f"connections: all {self.bounds.connections} this process takes are open: "
                "new ones are answered 503 and closed (docs/deploy.md#connections)"
            )
            writer = cast(asyncio.Transport, transport)  # uvloop's too, which is no subclass
            writer.write(answer(503, "The server is full: try again in a minute.\n"))
            writer.close()
            return
        super().connection_made(transport)  # type: ignore[arg-type]
        # While its process drains, a new connection's request is answered 503 once its head
        # is in (`data_received`): an answer written before the request is sent confused
        # nginx, which read the next process's answer after its body.
        self._late = self.drain is not None and self.drain.draining
        self._start_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_deadline()
        if not self._refused:
            super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # what follows a refused head is read and let go (`_refuse`)
        if self._late:  # its head awaited (for `request_s` at most), then answered
            seen = self._tail + data
            if END_OF_HEAD in seen:
                refused("draining")
                self._refuse(503, DRAINING, DRAINING_RETRY_S)
            self._tail = seen[-(len(END_OF_HEAD) - 1) :]
            return
        if self._head is not None:
            seen = self._tail + data
            end = seen.find(END_OF_HEAD)
            self._head += len(data) if end < 0 else end + len(END_OF_HEAD) - len(self._tail)
            if self._head > self.bounds.head_bytes:
                self._refuse_head()
                return
            self._tail = seen[-(len(END_OF_HEAD) - 1) :]
        super().data_received(data)

    def _refuse_head(self) -> None:
        refused("head_too_large")
        self._refuse(431, f"The request's head is over {self.bounds.head_bytes} bytes.\n")

    def _refuse(self, status: int, words: str, retry_after: int | None = None) -> None:
        """Answer `status` and stop writing, then read and let go what the client still sends,
        for LINGER_S at most, before closing: a connection closed with bytes unread is reset,
        and a reset can reach the client before the answer it was sent after (nginx's
        lingering close, for the same reason)."""
        self._lingering = True
        self._stop_deadline()
        self.transport.write(answer(status, words, retry_after))
        self.transport.write_eof()
        self._deadline = self.loop.call_later(LINGER_S, self.transport.close)

    def shutdown(self) -> None:
        if self._lingering:
            return  # closed by its own timer, once what the client sent is read
        super().shutdown()

    def on_headers_complete(self) -> None:
        self._head = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._stop_deadline()  # the request is in, whole: the app answers it in its own time
        self._head, self._tail = 0, b""

    def on_response_complete(self) -> None:
        waiting = bool(self.pipeline)  # a request already in, whole, is answered next
        super().on_response_complete()
        if not waiting and not self.transport.is_closing():
            self._start_deadline()  # the next request's time starts now

    def handle_websocket_upgrade(self) -> None:
        if self.drain is not None and self.drain.draining:
            refused("draining")
            self._refuse(503, DRAINING, DRAINING_RETRY_S)  # behind nginx, the next process is asked
            return
        self._stop_deadline()  # a live socket: its own pings say whether it is still there
        super().handle_websocket_upgrade()

    def _start_deadline(self) -> None:
        self._stop_deadline()
        self._deadline = self.loop.call_later(self.bounds.request_s, self._too_slow)

    def _stop_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        """No whole request in time: closed without an answer, as nginx closes a connection
        whose head is late (a late client is more likely gone, or hostile, than reading)."""
        self._deadline = None
        if not self.transport.is_closing():
            refused("request_too_slow")
            self.transport.close()


def answer(status: int, words: str, retry_after: int | None = None) -> bytes:
    """A whole HTTP answer of `status` that closes its connection, saying `words` (a 503 asks
    to be tried again after `retry_after` seconds, a minute unless said)."""
    reasons = {431: "Request Header Fields Too Large", 503: "Service Unavailable"}
    wait = retry_after if retry_after is not None else 60
    later = f"retry-after: {wait}\r\n" if status == 503 else ""
    body = words.encode()
    return (
        f"HTTP/1.1 {status} {reasons[status]}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\n{later}connection: close\r\n\r\n"
    ).encode() + body

"""How a server process stops without cutting anyone off (docs/deploy.md, stopping without
cutting a table).

Told SIGTERM (systemd's stop, an upgrade, uvicorn's supervisor replacing a process), a process
first drains for `Settings.drain_s`, then stops as uvicorn stops a server:

1. Draining: every live table's socket is told to come back (closed with 1012, "service
   restart"); its page opens a new one at once, which nginx gives to another process. A
   connection that opens meanwhile is answered 503 with Retry-After and closed: nginx counts
   that process out (`max_fails`), a GET goes on to the next one, and a page sends a click
   again after the Retry-After. Requests on connections already open are answered as ever,
   and `/healthz` says 503.
2. Stopping (uvicorn's own): the listening socket is closed, idle connections too; what is
   under way gets `Settings.grace_s` to finish; then the app's lifespan ends (the worker, the
   broker's locks given back, the database closed).

Closing the listening socket at once, as uvicorn does, resets every connection the system had
queued for it but the process had not yet taken: behind nginx that is a 502 for any click
under way, which nginx cannot send elsewhere (a POST). The drain's 503 first turns nginx away
from the process, so that nothing is queued when it closes.

A second SIGTERM, or Ctrl+C (SIGINT, which never drains: someone at the terminal wants it
stopped), stops it at once.

One of several processes on one port (`cardwar serve --workers N`) shares its listening socket
with the others and with their supervisor, which holds it open: told SIGTERM, the supervisor
replacing it (SIGHUP: its replacement already serves), it stops at once, and the others take
what it would have; uvicorn tells its sockets to come back. When the supervisor itself is told
SIGTERM, it tells every process `DRAIN_SIGNAL` instead, and they drain as one process does.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.supervisors.multiprocess import Multiprocess
from websockets.exceptions import InvalidState

log = logging.getLogger("cardwar")

Handler = Callable[[int, FrameType | None], Any]

DRAIN_SIGNAL = signal.SIGUSR1
"""What `cardwar serve --workers N`'s supervisor tells its processes when it is told to stop."""


class Drain:
    """One process's drain: whether it has begun, and the stop it leads to."""

    def __init__(self, seconds: float, *, shared: bool = False) -> None:
        self.seconds = seconds
        self.shared = shared
        """One of several processes on a listening socket their supervisor holds."""
        self.since: float | None = None
        """When (time.monotonic) the drain began; None until told to stop."""
        self._stop: Handler | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def draining(self) -> bool:
        """True from SIGTERM on: new connections are answered 503."""
        return self.since is not None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Take SIGTERM (`DRAIN_SIGNAL` for a shared process) from the server that runs this
        app, whose handler stops it, to drain first; `loop` is the server's event loop. Only
        from the main thread, where uvicorn handles signals (a test's server in a thread has
        none to take)."""
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        before = signal.getsignal(signal.SIGTERM)
        if not callable(before):
            return  # nothing that stops the server: a drain would lead nowhere
        self._stop, self._loop = before, loop
        signal.signal(DRAIN_SIGNAL if self.shared else signal.SIGTERM, self._told)

    def _told(self, number: int, frame: FrameType | None) -> None:
        assert self._stop is not None and self._loop is not None
        if self.draining or self.seconds <= 0:
            self._stop(signal.SIGTERM, frame)  # a second one: stop now
            return
        self.since = time.monotonic()
        self._loop.call_soon_threadsafe(self._begin)

    def _begin(self) -> None:
        """Tell every live socket to come back, and stop once the drain's time is up."""
        assert self._stop is not None and self._loop is not None
        # as SIGTERM stops it (uvicorn raises it again once stopped: the exit says SIGTERM)
        self._loop.call_later(self.seconds, self._stop, signal.SIGTERM, None)
        told = 0
        for socket in self._live_sockets():
            try:
                socket.shutdown()  # uvicorn's: 1012, and the app hears it as the socket's close
            except InvalidState:
                continue  # closing already
            told += 1
        log.warning(
            "cardwar: draining for %g s before stopping: %d live sockets told to come back "
            "(1012), new connections answered 503",
            self.seconds,
            told,
        )

    def _live_sockets(self) -> list[Any]:
        """This process's open live sockets (uvicorn's protocol, which `SocketProtocol` is),
        from the server's own set of connections (the uvicorn server whose handler the drain
        took)."""
        server = getattr(self._stop, "__self__", None)
        state = getattr(server, "server_state", None)
        connections = getattr(state, "connections", ())
        return [each for each in list(connections) if isinstance(each, WebSocketsSansIOProtocol)]


class Supervisor(Multiprocess):
    """uvicorn's supervisor of several processes, which, told SIGTERM, tells them to drain as
    one process does (`DRAIN_SIGNAL`) rather than SIGTERM, which stops each at once: they stop
    together, and nobody would be left to serve what they gave up. Ctrl+C and the replacement
    of one process at a time (SIGHUP) are uvicorn's as ever."""

    draining = False

    def handle_term(self) -> None:
        self.draining = True
        super().handle_term()

    def terminate_all(self) -> None:
        if not self.draining:
            super().terminate_all()
            return
        import os

        for each in self.processes:
            if each.process.exitcode is None and each.pid is not None:
                os.kill(each.pid, DRAIN_SIGNAL)

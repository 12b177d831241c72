"""A TCP relay on the loopback address to a server (Redis or PostgreSQL, in the tests), which a
test cuts, as when that server goes away (every connection through it closed at once, new ones
refused), and mends, as when it comes back: the same port answers again, with everything the
server kept. Or stalls, as when the server or the network hangs: every connection stays open
(new ones too) and nothing is carried either way, until `resume` carries what waited."""

from __future__ import annotations

import socket
import threading
from types import TracebackType

CHUNK = 65536


class Relay:
    """Relays every connection made to `port` to `upstream` (host, port), until cut."""

    def __init__(self, upstream: tuple[str, int], host: str = "127.0.0.1") -> None:
        self.upstream = upstream
        self.host = host  # the address it listens on (a test's link, for a namespace's host)
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()  # both ends of every connection relayed now
        self._cut = False
        self._flowing = threading.Event()  # cleared while stalled: the pumps hold what they read
        self._flowing.set()
        self._threads: list[threading.Thread] = []
        self._listener = self._listen(0)
        self.port: int = self._listener.getsockname()[1]

    def _listen(self, port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, port))
        listener.listen(64)
        self._start(self._accept, listener)
        return listener

    def _start(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        thread.start()
        self._threads.append(thread)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                near, _ = listener.accept()
            except OSError:
                return  # cut: the listener was shut
            try:
                far = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                near.close()
                continue
            far.settimeout(None)
            with self._lock:
                cut = self._cut
                if not cut:
                    self._open.update((near, far))
            if cut:  # accepted as the relay was cut: it ends with the others
                self._shut(near, far)
                continue
            self._start(self._pump, near, far)
            self._start(self._pump, far, near)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(CHUNK):
                self._flowing.wait()
                sink.sendall(data)
        except OSError:
            pass  # cut, or an end closed: the other pump ends the same way
        finally:
            self._shut(source, sink)

    def _shut(self, *ends: socket.socket) -> None:
        for end in ends:
            try:
                end.shutdown(socket.SHUT_RDWR)  # wakes the pump blocked in recv on it
            except OSError:
                pass
            end.close()
            with self._lock:
                self._open.discard(end)

    def cut(self) -> None:
        """The server is gone: every connection through the relay is closed, and a new one is
        refused, until `mend`."""
        with self._lock:
            self._cut = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            ends = list(self._open)
        self._shut(*ends)

    def mend(self) -> None:
        """The server is back, on the same port."""
        with self._lock:
            self._cut = False
        self._listener = self._listen(self.port)

    def stall(self) -> None:
        """The server hangs: connections stay open, and nothing more is carried either way."""
        self._flowing.clear()

    def resume(self) -> None:
        """The server answers again: what waited is carried, and everything after it."""
        self._flowing.set()

    def close(self) -> None:
        self._flowing.set()  # a pump held by a stall ends with its connection
        self.cut()
        for thread in self._threads:
            thread.join(timeout=10)

    def __enter__(self) -> Relay:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

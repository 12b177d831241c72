"""Idle live sockets: what each costs the server's memory (`tables.py --sockets N` prints it).

No figures of its own: the server `tables.py --sockets` measures, and the sockets it holds.
`IdleServer` is `cardwar serve` as shipped (`cli/serve.py`'s settings and uvicorn's options,
this same code), over a fresh database, but for three caps, so that the measurement can be
made at all: `live_sockets` and `live_sockets_per_address` hold every socket asked for (1,000
and 256 as shipped), and the writes the whole server takes at once are raised so that the
tables behind the sockets open in seconds rather than minutes (the set-up is not measured).
`hold` opens one socket with a bare handshake (offering permessage-deflate, as a browser does),
reads the welcome and the table, then reads and drops whatever else comes: an idle socket that
costs the client little, so that ten thousand fit beside the server on this machine.

    python benchmarks/idle.py --serve PORT DB SOCKETS   # the server itself (IdleServer runs it)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness import START_S, Connection, resident

HANDSHAKE = (
    "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    "Origin: http://127.0.0.1:{port}\r\n"
    "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
    "Cookie: {cookie}\r\n\r\n"
)


def more_files() -> int:
    """Raise this process's open-file limit to its hard limit (a socket each, here and in the
    server it starts, which inherits it); returns the limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


class IdleServer:
    """The server `--serve` runs, on a free loopback port over `db`, room made for `sockets`."""

    def __init__(self, db: Path, sockets: int) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.log = db.with_suffix(".log")
        command = [sys.executable, __file__, "--serve", str(self.port), str(db), str(sockets)]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        self.process.kill()
        raise SystemExit(f"the server did not start:\n{self.log.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def serve(port: int, db: str, sockets: int) -> None:
    """`cardwar serve --port PORT --db DB`, its caps made room for `sockets`."""
    import uvicorn

    from cardwar.cli import serve as cli
    from cardwar.web import Settings
    from cardwar.web.app import create_app

    options: dict[str, Any] = {
        "port": port,
        "db": db,
        # Twice as many as asked: `cardwar serve` keeps a quarter of its connections for plain
        # HTTP, and sizes the rest from its open files (`sized_settings`), as it does shipped.
        "live_sockets": 2 * sockets + 100,
        "live_sockets_per_address": sockets,
        "server_writes_times": Settings().server_writes_times * 50,
    }
    if hasattr(cli, "sized_settings"):
        settings, _ = cli.sized_settings(options)
    else:  # an older cardwar, measured as a baseline: no sizing from the open files
        settings = cli.settings_of(options)
    uvicorn.run(create_app(settings), **cli.uvicorn_options(settings))


async def simulator_ready(port: int) -> None:
    """Wait until the server has its simulator (`GET /api/simulator`): it answers at once and
    loads it after, some hundred megabytes that must not count as the sockets'."""
    conn = Connection(port)
    try:
        while True:
            answer = await conn.request("GET", "/api/simulator?wait=30", timeout=60)
            if answer.status != 200 or json.loads(answer.body)["ready"]:
                return
    finally:
        conn.close()


class _Idle(asyncio.Protocol):
    """One socket's client: the handshake's answer and two messages (welcome, table), then
    whatever comes is dropped unread."""

    def __init__(self, joined: asyncio.Future[bytes | None]) -> None:
        self.joined = joined
        self.buffer = bytearray()
        self.head: bytes | None = None
        self.messages = 0

    def data_received(self, data: bytes) -> None:
        if self.joined.done():
            return
        self.buffer += data
        if self.head is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            self.head, self.buffer = bytes(self.buffer[:end]), self.buffer[end + 4 :]
            if not self.head.startswith(b"HTTP/1.1 101"):
                self.joined.set_result(None)
                return
        while len(self.buffer) >= 2 and self.messages < 2:
            size, at = self.buffer[1] & 0x7F, 2  # a server's frames are not masked
            if size == 126:
                size, at = int.from_bytes(self.buffer[2:4], "big"), 4
            elif size == 127:
                size, at = int.from_bytes(self.buffer[2:10], "big"), 10
            if len(self.buffer) < at + size:
                return
            if self.buffer[0] & 0x0F == 8:  # closed: refused
                self.joined.set_result(None)
                return
            del self.buffer[: at + size]
            self.messages += 1
        if self.messages == 2:
            self.buffer = bytearray()
            self.joined.set_result(self.head)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.joined.done():
            self.joined.set_result(None)


async def hold(
    port: int, path: str, cookie: str, local: str
) -> tuple[asyncio.BaseTransport, bytes | None]:
    """Open the socket at `path` from the address `local`; its transport, and the handshake's
    answer once it has been welcomed and shown the table (None if it was refused)."""
    loop = asyncio.get_running_loop()
    joined: asyncio.Future[bytes | None] = loop.create_future()
    transport, _ = await loop.create_connection(
        lambda: _Idle(joined), "127.0.0.1", port, local_addr=(local, 0)
    )
    key = base64.b64encode(os.urandom(16)).decode()
    transport.write(HANDSHAKE.format(path=path, port=port, key=key, cookie=cookie).encode())  # type: ignore[attr-defined]
    return transport, await asyncio.wait_for(joined, 120)


async def settled(pid: int, within: float = 120.0) -> tuple[int, int]:
    """The process's resident size (RSS, PSS: harness's `resident`) once it has stopped
    growing: three samples half a second apart within 256 KB of each other. A server may still
    be loading the simulator's compiled code when it first answers, and a socket's arrival is
    told to its table after the socket has been shown it; `within` bounds the wait."""
    samples = [resident(pid)]
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        samples.append(resident(pid))
        last = [rss for rss, _ in samples[-3:]]
        if len(last) == 3 and max(last) - min(last) <= 256 * 1024:
            break
    return samples[-1]


def extensions(head: bytes) -> str:
    """The Sec-WebSocket-Extensions the server answered with ("" when none)."""
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "sec-websocket-extensions":
            return value.strip()
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", nargs=3, metavar=("PORT", "DB", "SOCKETS"), required=True)
    port, db, sockets = parser.parse_args().serve
    serve(int(port), db, int(sockets))


if __name__ == "__main__":
    main()

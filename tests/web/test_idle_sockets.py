"""What an idle live socket costs the server (benchmarks/README.md, "Idle sockets"): the
server as `cardwar serve` runs it (uvicorn, its options), 250 tables of two people, each
person's socket open and idle. Memory is the server process's resident size, before and after
the sockets open: each must stay far under the 45 KB they took before, and no socket
compresses its messages though its browser offers to."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

import pytest

from live import HANG_S, RETRY_S, free_port

TABLES = 250
SOCKETS = 2 * TABLES
# An idle socket took 45 KB before (benchmarks/README.md, "Idle sockets"); 500 of them from one
# address take 15.8 KB each now, as their resident pages grow (three runs alike). 20 KB leaves
# the count of pages 2 MB of room, whatever the machine's allocator does, and fails the old
# cost by more than half.
MOST_BYTES = 20 * 1024

SERVER = """
import sys
import uvicorn
from cardwar.cli.serve import sized_settings, uvicorn_options
from cardwar.web.app import create_app
options = {
    "port": int(sys.argv[1]), "db": sys.argv[2], "worker_at_start": False,
    "live_sockets": 2000, "live_sockets_per_address": 2000, "new_players_burst": 2000,
    "address_writes_times": 100, "server_writes_times": 100,
}
settings, _ = sized_settings(options)
uvicorn.run(create_app(settings), **uvicorn_options(settings))
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """The server's port and process id: `cardwar serve`'s settings and uvicorn options, its
    caps raised for the tables and sockets of one address."""
    port = free_port()
    command = [sys.executable, "-c", SERVER, str(port), str(tmp_path / "cardwar.db")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + HANG_S  # only bounds a start that never comes
        while process.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(RETRY_S)
        assert process.poll() is None, "the server ended as it started"
        yield port, process.pid
    finally:
        process.terminate()
        process.wait(HANG_S)


def resident(pid: int) -> int:
    """The process's resident size in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def post(
    conn: HTTPConnection, path: str, body: object, cookie: str = ""
) -> tuple[dict[str, Any], str]:
    """POST `body` as JSON with `cookie`; the answer's JSON, and the cookie it set (or `cookie`)."""
    headers = {"Content-Type": "application/json", "Host": "127.0.0.1"}
    if cookie:
        headers["Cookie"] = cookie
    conn.request("POST", path, json.dumps(body), headers)
    answer = conn.getresponse()
    text = answer.read()
    assert answer.status in (200, 201), text
    return json.loads(text), (answer.getheader("set-cookie") or "").split(";")[0] or cookie


def open_tables(port: int) -> list[tuple[str, str]]:
    """Wait for the simulator (the server answers at once, and loads it after: some hundred
    megabytes that must not count as the sockets'), then open the tables and seat their
    guests: (code, cookie) for each person."""
    conn, people = HTTPConnection("127.0.0.1", port, timeout=HANG_S), []
    ready = False
    while not ready:  # each answer waits for it up to 30 s
        conn.request("GET", "/api/simulator?wait=30", headers={"Host": "127.0.0.1"})
        ready = json.loads(conn.getresponse().read())["ready"]
    seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": ""}]
    for _ in range(TABLES):
        opened, host = post(conn, "/api/tables", {"rules": {"players": 2}, "seats": seats})
        code = opened["invite"]["code"]
        _, guest = post(conn, f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
        people += [(code, host), (code, guest)]
    conn.close()
    return people


def read_message(sock: socket.socket) -> dict[str, Any]:
    """The next text message the server sends (its frames are not masked)."""
    first = receive(sock, 2)
    size = first[1] & 0x7F
    if size == 126:
        size = int.from_bytes(receive(sock, 2), "big")
    elif size == 127:
        size = int.from_bytes(receive(sock, 8), "big")
    assert first[0] & 0x0F == 1, f"not a text frame: {first!r}"
    message: dict[str, Any] = json.loads(receive(sock, size))
    return message


def receive(sock: socket.socket, size: int) -> bytes:
    """Exactly `size` bytes from `sock`."""
    data = b""
    while len(data) < size:
        more = sock.recv(size - len(data))
        assert more, "the server closed the socket"
        data += more
    return data


def join(port: int, code: str, cookie: str) -> tuple[socket.socket, str]:
    """Open a person's socket, offering permessage-deflate as a browser does; read its welcome
    and table, then ping and wait for the pong (its reading has begun: it is in, and idle).
    The socket, and the Sec-WebSocket-Extensions the server answered ("" when none)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG_S)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /api/tables/{code}/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Key: {key}\r\nOrigin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n"
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n".encode()
    )
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += receive(sock, 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    extensions = [
        line.partition(":")[2].strip()
        for line in head.decode("latin-1").split("\r\n")
        if line.lower().startswith("sec-websocket-extensions:")
    ]
    assert [read_message(sock)["type"] for _ in range(2)] == ["welcome", "table"]
    ping, mask = b'{"type": "ping"}', os.urandom(4)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(ping))
    sock.sendall(bytes([0x81, 0x80 | len(ping)]) + mask + masked)
    while read_message(sock)["type"] != "pong":
        pass  # a presence message of its table's other person, told first
    return sock, ",".join(extensions)


def test_an_idle_socket_takes_little_memory_and_compresses_nothing(
    server: tuple[int, int],
) -> None:
    """500 idle sockets of 250 tables of two, each in and idle: the server's resident size
    grows by at most MOST_BYTES a socket, and no socket's handshake agrees to compress."""
    port, pid = server
    people = open_tables(port)
    before = resident(pid)
    joined = [join(port, code, cookie) for code, cookie in people]
    each = (resident(pid) - before) / SOCKETS
    for sock, _ in joined:
        sock.close()
    assert {extensions for _, extensions in joined} == {""}
    assert each <= MOST_BYTES, f"{each / 1024:.1f} KB a socket"
